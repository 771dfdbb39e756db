/* names.c — task names for traces: "<kind>_t<tile>_<direction>_s<stage>", e.g.
 * "outer_t3_+x-y_s0", "pack_t0_-z_s2", "inner_t1_0_s1". StarPU keeps a pointer to a task's
 * name (and FxT records it when the task runs), so names are interned here, one string per
 * (kind, tile, direction, stage), and freed with the simulation. Kept short (FxT truncates
 * long strings) and without spaces (StarPU writes them unquoted into paje.trace, and ViTE
 * splits on spaces). Each kind also has a colour, which ViTE shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define KIND_COLOR_LIST(X)                                                                         \
  X(TESS_TASK_PACK, 0x2b83ba)     /* blue */                                                       \
  X(TESS_TASK_EXCHANGE, 0xfdae61) /* orange */                                                     \
  X(TESS_TASK_UNPACK, 0xabdda4)   /* green */                                                      \
  X(TESS_TASK_COPY, 0x66c2a5)     /* teal: a same-node pack + unpack in one */                     \
  X(TESS_TASK_INNER, 0x999999)    /* grey: the bulk */                                             \
  X(TESS_TASK_OUTER, 0xd7191c)    /* red: the critical path */                                     \
  X(TESS_TASK_BOUNDARY, 0xfee08b) /* yellow: ghost fills at a physical face */

unsigned tess_task_kind_color(tess_task_kind k) {
#define X_COLOR(kind, rgb)                                                                         \
  if (k == kind) return rgb;
  KIND_COLOR_LIST(X_COLOR)
#undef X_COLOR
  return 0;
}

struct tess_names {
  size_t cap, len;
  struct entry {
    unsigned key;
    char *name;
  } * slot;
};

static unsigned make_key(tess_task_kind kind, int tile, int dir, int stage) {
  return ((((unsigned)tile * TESS_MAX_OPS + (unsigned)stage) * TESS_NDIRS + (unsigned)dir) *
              TESS_TASK_KIND_COUNT +
          (unsigned)kind) +
         1u; /* 0 marks an empty slot */
}

static void dir_text(int dir, char *buf) {
  int d[3];
  tess_dir_vector(dir, d);
  char *p = buf;
  for (int i = 0; i < 3; i++)
    if (d[i]) {
      *p++ = d[i] > 0 ? '+' : '-';
      *p++ = "xyz"[i];
    }
  if (p == buf) *p++ = '0';
  *p = 0;
}

static int grow(struct tess_names *t) {
  struct tess_names bigger = {t->cap ? 2 * t->cap : 1024, 0, NULL};
  bigger.slot = calloc(bigger.cap, sizeof *bigger.slot);
  if (!bigger.slot) return -1;
  for (size_t i = 0; i < t->cap; i++) {
    if (!t->slot[i].key) continue;
    size_t j = t->slot[i].key % bigger.cap;
    while (bigger.slot[j].key)
      j = (j + 1) % bigger.cap;
    bigger.slot[j] = t->slot[i];
    bigger.len++;
  }
  free(t->slot);
  *t = bigger;
  return 0;
}

const char *tess_task_name(tess_sim_t sim, tess_task_kind kind, int tile, int dir, int stage) {
  if (!sim->names && !(sim->names = calloc(1, sizeof *sim->names)))
    return tess_task_kind_name(kind);
  struct tess_names *t = sim->names;
  if (2 * (t->len + 1) > t->cap && grow(t)) return tess_task_kind_name(kind);
  const unsigned key = make_key(kind, tile, dir, stage);
  size_t j = key % t->cap;
  while (t->slot[j].key && t->slot[j].key != key)
    j = (j + 1) % t->cap;
  if (t->slot[j].key) return t->slot[j].name;
  char d[8], buf[64];
  dir_text(dir, d);
  snprintf(buf, sizeof buf, "%s_t%d_%s_s%d", tess_task_kind_name(kind), tile, d, stage);
  char *name = strdup(buf);
  if (!name) return tess_task_kind_name(kind);
  t->slot[j] = (struct entry){key, name};
  t->len++;
  return name;
}

void tess_names_free(tess_sim_t sim) {
  struct tess_names *t = sim->names;
  if (!t) return;
  for (size_t i = 0; i < t->cap; i++)
    free(t->slot[i].name);
  free(t->slot);
  free(t);
  sim->names = NULL;
}

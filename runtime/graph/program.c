/* program.c — the shape of a step program, derived at setup (docs/multistage.md):
 *
 *   reach   what each stage reads of each input: one-sided offsets per axis (tess_reach), the
 *           kernel's declaration or its symmetric radius, clipped to axes of extent > 1;
 *   local   (strategy recompute) the temporaries whose halos their producer computes: written
 *           by one stage that writes nothing else, read only by later stages, never swapped,
 *           without conditions; forced where one is read across a physical face (no fill);
 *   extent  backwards over the program: a stage writing local temporaries computes on its owned
 *           box grown by the union over their readers of (reader's extent + reader's reach), the
 *           transitive closure E = D+ of the digest; every other stage has extent 0;
 *   widths  per field, axis and side: the deepest (extent + reach) of any reader, or the
 *           producer's extent for a local field; sim->ghost is the widest per axis;
 *   dirs    per stage and exchanged input, the halo directions its (grown) pieces read.
 *
 * With strategy auto a cost model, per tile and step, compares both strategies:
 *
 *   cost = rounds x round latency   (stages that wait on an exchange: a chain of dependent tasks)
 *        + sum over halo directions exchanged (latency + bytes / bandwidth)
 *        + sum over stages (cells computed x bytes per cell / memory bandwidth)
 *
 * with machine figures from a setting, else from what StarPU measured (bus calibration, the
 * stage codelets' history), else fallbacks (machine_of), and keeps the cheaper; the estimates,
 * figures and their sources are printed with the strategy (tess_sim_describe).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sim.h"

#define TESS_X_NAME(name, text) text,
static const char *const strategy_names[] = {TESS_STRATEGY_LIST(TESS_X_NAME)};

const char *tess_strategy_name(tess_strategy s) {
  return (unsigned)s < TESS_STRATEGY_COUNT ? strategy_names[s] : "?";
}

tess_err tess_strategy_parse(const char *s, tess_strategy *out) {
  for (int i = 0; i < TESS_STRATEGY_COUNT; i++)
    if (s && !strcmp(s, strategy_names[i])) {
      *out = (tess_strategy)i;
      return TESS_OK;
    }
  return TESS_ERROR(TESS_ERR_ARG, "unknown strategy '%s' (allowed: auto, exchange, recompute)",
                    s ? s : "(null)");
}

static const tess_reach zero_reach;

static int is_stage(const tess_sim_t sim, int o) { return sim->op[o]->kind == TESS_OP_STAGE; }

static int reach_zero(const tess_reach *r) {
  for (int i = 0; i < 3; i++)
    if (r->lo[i] || r->hi[i]) return 0;
  return 1;
}

/* a + b (Minkowski sum of the two boxes), united into *acc */
static void reach_add_into(tess_reach *acc, const tess_reach *a, const tess_reach *b) {
  for (int i = 0; i < 3; i++) {
    const int lo = a->lo[i] + b->lo[i], hi = a->hi[i] + b->hi[i];
    if (lo < acc->lo[i]) acc->lo[i] = lo;
    if (hi > acc->hi[i]) acc->hi[i] = hi;
  }
}

static void input_reach(const tess_sim_t sim, const tess_op *op, int k, tess_reach *r) {
  const tess_kernel *kn = op->stage.kernel;
  for (int i = 0; i < 3; i++) {
    r->lo[i] = sim->n[i] == 1 ? 0 : kn->nreach ? kn->reach[k].lo[i] : -kn->radius;
    r->hi[i] = sim->n[i] == 1 ? 0 : kn->nreach ? kn->reach[k].hi[i] : kn->radius;
  }
}

static int writes(const tess_op *op, int f) {
  for (int k = 0; k < op->stage.nout; k++)
    if (op->stage.out[k] == f) return 1;
  return 0;
}

static int reads(const tess_op *op, int f) {
  for (int k = 0; k < op->stage.nin; k++)
    if (op->stage.in[k] == f) return 1;
  return 0;
}

/* Temporaries that could be local (see the header), as a bit set of fields. One with conditions
 * of its own is not: only fills give its ghosts their values at a physical face. */
static uint32_t candidates(const tess_sim_t sim) {
  uint32_t set = 0;
  for (int f = 0; f < sim->nfields; f++) {
    const tess_field *fd = &sim->field[f];
    int bc = 0;
    for (int c = 0; fd->bc && c < 6 * fd->nc; c++)
      bc |= fd->bc[c].kind != TESS_BC_NONE;
    if (!fd->temporary || bc) continue;
    int writer = -1, nwriters = 0, ok = 1, read = 0;
    for (int o = 0; o < sim->nops; o++) {
      const tess_op *op = sim->op[o];
      if (!is_stage(sim, o)) {
        ok &= op->swap[0] != f && op->swap[1] != f;
        continue;
      }
      if (writes(op, f)) {
        writer = o;
        nwriters++;
      }
      if (reads(op, f)) {
        read = 1;
        ok &= writer >= 0;
      }
    }
    if (ok && read && nwriters == 1) set |= 1u << f;
  }
  /* a stage computing on an extent writes all its outputs there: only temporaries */
  for (int changed = 1; changed;) {
    changed = 0;
    for (int o = 0; o < sim->nops; o++) {
      const tess_op *op = sim->op[o];
      if (!is_stage(sim, o)) continue;
      int mixed = 0;
      uint32_t mine = 0;
      for (int k = 0; k < op->stage.nout; k++) {
        const int f = op->stage.out[k];
        if ((set >> f) & 1)
          mine |= 1u << f;
        else
          mixed = 1;
      }
      if (mixed && mine) {
        set &= ~mine;
        changed = 1;
      }
    }
  }
  return set;
}

/* Reaches, local fields, extents, widths and ghosts for the given set of local fields. */
static void derive(tess_sim_t sim, uint32_t local) {
  for (int f = 0; f < sim->nfields; f++) {
    tess_field *fd = &sim->field[f];
    fd->local = (local >> f) & 1;
    memset(fd->wlo, 0, sizeof fd->wlo);
    memset(fd->whi, 0, sizeof fd->whi);
  }
  for (int o = sim->nops - 1; o >= 0; o--) {
    if (!is_stage(sim, o)) continue;
    tess_op *op = sim->op[o];
    op->in_local = 0;
    for (int k = 0; k < op->stage.nin; k++) {
      input_reach(sim, op, k, &op->reach[k]);
      if (sim->field[op->stage.in[k]].local) op->in_local |= 1u << k;
    }
    op->ext = zero_reach;
    for (int j = 0; j < op->stage.nout; j++) {
      const int f = op->stage.out[j];
      if (!sim->field[f].local) continue;
      for (int o2 = o + 1; o2 < sim->nops; o2++)
        for (int k = 0; is_stage(sim, o2) && k < sim->op[o2]->stage.nin; k++)
          if (sim->op[o2]->stage.in[k] == f)
            reach_add_into(&op->ext, &sim->op[o2]->ext, &sim->op[o2]->reach[k]);
    }
    op->grown = !reach_zero(&op->ext);
  }
  for (int o = 0; o < sim->nops; o++) {
    const tess_op *op = sim->op[o];
    if (!is_stage(sim, o)) continue;
    for (int k = 0; k < op->stage.nin; k++) {
      tess_field *fd = &sim->field[op->stage.in[k]];
      tess_reach need = zero_reach;
      reach_add_into(&need, &op->ext, &op->reach[k]);
      for (int i = 0; i < 3; i++) {
        if (-need.lo[i] > fd->wlo[i]) fd->wlo[i] = -need.lo[i];
        if (need.hi[i] > fd->whi[i]) fd->whi[i] = need.hi[i];
      }
    }
    for (int k = 0; k < op->stage.nout; k++) {
      tess_field *fd = &sim->field[op->stage.out[k]];
      for (int i = 0; i < 3; i++) {
        if (-op->ext.lo[i] > fd->wlo[i]) fd->wlo[i] = -op->ext.lo[i];
        if (op->ext.hi[i] > fd->whi[i]) fd->whi[i] = op->ext.hi[i];
      }
    }
  }
  /* swapped fields trade storage and valid halos: they share their widths */
  for (int o = 0; o < sim->nops; o++) {
    if (is_stage(sim, o)) continue;
    tess_field *a = &sim->field[sim->op[o]->swap[0]], *b = &sim->field[sim->op[o]->swap[1]];
    for (int i = 0; i < 3; i++) {
      a->wlo[i] = b->wlo[i] = a->wlo[i] > b->wlo[i] ? a->wlo[i] : b->wlo[i];
      a->whi[i] = b->whi[i] = a->whi[i] > b->whi[i] ? a->whi[i] : b->whi[i];
    }
  }
  for (int i = 0; i < 3; i++) {
    sim->ghost[i] = 0;
    for (int f = 0; f < sim->nfields; f++) {
      const tess_field *fd = &sim->field[f];
      const int w = fd->wlo[i] > fd->whi[i] ? fd->wlo[i] : fd->whi[i];
      if (w > sim->ghost[i]) sim->ghost[i] = w;
    }
  }
}

/* ---- the cost model ------------------------------------------------------------------------ */

/* Per-tile machine figures (docs/multistage.md §4): latency of a round of dependent tasks, of
 * one halo piece within a rank and across ranks (its pack/unpack tasks, and the message);
 * bandwidth of halo bytes within a rank and across ranks, and of a stage's sweep (its inputs
 * and outputs per cell). Each comes, in order of preference, from a setting
 * (tess_sim_set_machine), from what StarPU measured (the bus calibration between main RAM and
 * the GPU: the host-staged path of a halo between ranks; the history of this program's stage
 * tasks: their cells against their measured times), or from a fallback of the order
 * bench/results measured. */
enum { M_ROUND, M_LOCAL, M_REMOTE, M_LOCAL_BW, M_REMOTE_BW, M_MEM_BW, M_COUNT };
typedef struct {
  double v[M_COUNT]; /* seconds, or bytes per second */
  const char *src[M_COUNT];
  long tasks, models; /* stage history: tasks sampled, models with samples */
} machine;

static const char *const machine_key[M_COUNT] = {"round_us",  "local_us",   "remote_us",
                                                 "local_gbs", "remote_gbs", "mem_gbs"};

static double *machine_slot(tess_machine *m, int k) {
  double *const slot[M_COUNT] = {&m->round_us,  &m->local_us,   &m->remote_us,
                                 &m->local_gbs, &m->remote_gbs, &m->mem_gbs};
  return slot[k];
}

int tess_machine_parse(const char *spec, tess_machine *m, char *msg, size_t len) {
  memset(m, 0, sizeof *m);
  const char *p = spec ? spec : "";
  while (*p) {
    const char *end = strchr(p, ',');
    const size_t n = end ? (size_t)(end - p) : strlen(p);
    const char *eq = memchr(p, '=', n);
    const size_t klen = eq ? (size_t)(eq - p) : n;
    int k = 0;
    while (k < M_COUNT && (strlen(machine_key[k]) != klen || strncmp(p, machine_key[k], klen)))
      k++;
    if (k == M_COUNT || !eq) {
      snprintf(msg, len, "'%.*s' names no machine figure (allowed: key=value with a key of %s)",
               (int)n, p, TESS_MACHINE_KEYS);
      return -1;
    }
    char num[64] = "";
    char *stop = NULL;
    const size_t vlen = n - klen - 1;
    if (vlen < sizeof num) memcpy(num, eq + 1, vlen), num[vlen] = 0;
    const double v = vlen && vlen < sizeof num ? strtod(num, &stop) : 0;
    if (!stop || *stop || !(v > 0) || !(v < 1e12)) {
      snprintf(msg, len, "%s = '%.*s' is invalid (allowed: a number > 0 and < 1e12, in %s)",
               machine_key[k], (int)vlen, eq + 1, k < M_LOCAL_BW ? "microseconds" : "GB/s");
      return -1;
    }
    *machine_slot(m, k) = v;
    p += n + (end != NULL);
  }
  return 0;
}

tess_err tess_sim_set_machine(tess_sim_t sim, const tess_machine *m) {
  TESS_CHECK(sim && !sim->is_setup, TESS_ERR_STATE, "tess_sim_set_machine: before setup only");
  tess_machine c = *m;
  for (int k = 0; k < M_COUNT; k++) {
    const double v = *machine_slot(&c, k);
    TESS_CHECK(v == 0 || (v > 0 && v < 1e12), TESS_ERR_ARG,
               "machine figure %s = %g is invalid (allowed: 0 (measure it) or a number > 0 and "
               "< 1e12)",
               machine_key[k], v);
  }
  sim->machine = c;
  return TESS_OK;
}

/* The first worker of a kind, or -1. */
static int first_worker(enum starpu_worker_archtype type) {
  int id = -1;
  return starpu_worker_get_ids_by_type(type, &id, 1) > 0 ? id : -1;
}

/* Stage bandwidth from StarPU's history of this program's stage codelets (the symbols of
 * tasks.c's tess_op_init_codelet: "tess_<kernel>_<op>_<inner|outer|chain>", the size of each
 * entry the cells its tasks updated): bytes swept over measured time, on the worker kind. */
static void history_bandwidth(const tess_sim_t sim, int worker, machine *m) {
  static const char *const part[3] = {"inner", "outer", "chain"};
  struct starpu_perfmodel_arch *arch =
      starpu_worker_get_perf_archtype(worker, STARPU_NMAX_SCHED_CTXS);
  double bytes = 0, us = 0;
  for (int o = 0; o < sim->nops; o++) {
    const tess_op *op = sim->op[o];
    if (!is_stage(sim, o)) continue;
    for (int q = 0; q < 3; q++) {
      char symbol[64], path[1024];
      snprintf(symbol, sizeof symbol, "tess_%s_%d_%s",
               op->stage.kernel->name ? op->stage.kernel->name : "stage", o, part[q]);
      starpu_perfmodel_get_model_path(symbol, path, sizeof path);
      FILE *f = fopen(path, "r");
      if (!f) continue;
      fclose(f);
      struct starpu_perfmodel model;
      memset(&model, 0, sizeof model);
      model.type = STARPU_HISTORY_BASED;
      if (starpu_perfmodel_load_symbol(symbol, &model)) continue;
      const struct starpu_perfmodel_per_arch *pa =
          starpu_perfmodel_get_model_per_arch(&model, arch, 0);
      long used = 0;
      for (const struct starpu_perfmodel_history_list *l = pa ? pa->list : NULL; l; l = l->next) {
        const struct starpu_perfmodel_history_entry *e = l->entry;
        if (!e || !e->size || !e->nsample || !(e->mean > 0)) continue;
        bytes += (double)e->nsample * (double)e->size *
                 (double)((op->stage.nin + op->stage.nout) * sim->esize);
        us += e->nsample * e->mean;
        used += e->nsample;
      }
      m->tasks += used;
      m->models += used > 0;
      starpu_perfmodel_unload_model(&model);
    }
  }
  if (m->tasks >= 10 && us > 0) {
    m->v[M_MEM_BW] = bytes / (us * 1e-6);
    m->src[M_MEM_BW] = "StarPU history";
    /* a halo piece within a rank is a copy on the same memory: swept like a stage */
    m->v[M_LOCAL_BW] = m->v[M_MEM_BW];
    m->src[M_LOCAL_BW] = "StarPU history";
  }
}

static machine machine_of(const tess_sim_t sim, int cuda) {
  static const double fallback[2][M_COUNT] = {{10e-6, 3e-6, 20e-6, 5e9, 5e9, 10e9},
                                              {20e-6, 10e-6, 30e-6, 20e9, 20e9, 1.5e12}};
  machine m = {.tasks = 0};
  for (int k = 0; k < M_COUNT; k++) {
    m.v[k] = fallback[cuda][k];
    m.src[k] = "fallback";
  }
  const int worker = first_worker(cuda ? STARPU_CUDA_WORKER : STARPU_CPU_WORKER);
  if (cuda && worker >= 0) { /* between ranks, a halo is staged through main RAM each way */
    const unsigned g = starpu_worker_get_memory_node((unsigned)worker);
    const double d2h = starpu_transfer_bandwidth(g, STARPU_MAIN_RAM),
                 h2d = starpu_transfer_bandwidth(STARPU_MAIN_RAM, g),
                 lat = starpu_transfer_latency(g, STARPU_MAIN_RAM) +
                       starpu_transfer_latency(STARPU_MAIN_RAM, g);
    if (d2h > 0 && h2d > 0 && d2h < 1e12 && h2d < 1e12 && lat >= 0 && lat < 1e6) {
      m.v[M_REMOTE_BW] = 1e6 / (1 / d2h + 1 / h2d);       /* MB/s: bytes per microsecond */
      m.v[M_REMOTE] = fallback[0][M_REMOTE] + lat * 1e-6; /* + the message between hosts */
      m.src[M_REMOTE_BW] = "StarPU bus calibration";
      m.src[M_REMOTE] = "StarPU bus calibration + CPU fallback for MPI";
    }
  }
  if (worker >= 0) history_bandwidth(sim, worker, &m);
  for (int k = 0; k < M_COUNT; k++) {
    const double v = *machine_slot((tess_machine *)&sim->machine, k);
    if (v > 0) {
      m.v[k] = k < M_LOCAL_BW ? v * 1e-6 : v * 1e9;
      m.src[k] = "setting";
    }
  }
  return m;
}

static void machine_text(const machine *m, char *buf, size_t len) {
  static const char *const what[M_COUNT] = {"round",      "local piece", "remote piece",
                                            "local halo", "remote halo", "stages"};
  buf[0] = 0;
  for (int k = 0; k < M_COUNT; k++) {
    const size_t at = strlen(buf);
    char hist[64] = "";
    if (!strcmp(m->src[k], "StarPU history"))
      snprintf(hist, sizeof hist, ": %ld tasks, %ld models", m->tasks, m->models);
    snprintf(buf + at, len - at, "%s%s %.3g %s (%s%s)", at ? ", " : "", what[k],
             k < M_LOCAL_BW ? m->v[k] * 1e6 : m->v[k] * 1e-9, k < M_LOCAL_BW ? "us" : "GB/s",
             m->src[k], hist);
  }
}

/* Whether the cells of (grown) footprint `need` reach halo direction h. */
static int need_reaches(const tess_reach *need, tess_shape shape, const int h[3]) {
  int axes = 0;
  for (int i = 0; i < 3; i++) {
    if (h[i] < 0 && need->lo[i] >= 0) return 0;
    if (h[i] > 0 && need->hi[i] <= 0) return 0;
    axes += h[i] != 0;
  }
  return axes <= 1 || tess_footprint_reaches(shape, h);
}

typedef struct {
  double seconds, bytes;
  long rounds, msgs, cells;
} cost;

/* One steady-state step of the program on one tile under the current derivation. */
static cost step_cost(const tess_sim_t sim, const machine *mp) {
  const machine m = *mp;
  cost c = {0, 0, 0, 0, 0};
  uint32_t valid[TESS_MAX_FIELDS] = {0};
  for (int pass = 0; pass < 2; pass++) /* the second pass is the steady state */
    for (int o = 0; o < sim->nops; o++) {
      const tess_op *op = sim->op[o];
      if (!is_stage(sim, o)) {
        const uint32_t v = valid[op->swap[0]];
        valid[op->swap[0]] = valid[op->swap[1]];
        valid[op->swap[1]] = v;
        continue;
      }
      const tess_shape shape = op->grown ? TESS_SHAPE_BOX : op->stage.kernel->shape;
      const long msgs0 = c.msgs;
      for (int k = 0; k < op->stage.nin; k++) {
        const int f = op->stage.in[k];
        const tess_field *fd = &sim->field[f];
        if (fd->local) continue;
        tess_reach need = zero_reach;
        reach_add_into(&need, &op->ext, &op->reach[k]);
        for (int d = 0; d < TESS_NDIRS; d++) {
          int h[3], remote = 0;
          tess_dir_vector(d, h);
          if (d == TESS_DIR_CENTER || !need_reaches(&need, shape, h) || ((valid[f] >> d) & 1))
            continue;
          valid[f] |= 1u << d;
          if (!pass) continue;
          double cells = fd->nc;
          for (int i = 0; i < 3; i++) {
            cells *= h[i] < 0 ? fd->wlo[i] : h[i] > 0 ? fd->whi[i] : sim->tn[i];
            remote |= h[i] && sim->P[i] > 1;
          }
          c.msgs++;
          c.bytes += cells * (double)sim->esize;
          c.seconds += remote ? m.v[M_REMOTE] + cells * (double)sim->esize / m.v[M_REMOTE_BW]
                              : m.v[M_LOCAL] + cells * (double)sim->esize / m.v[M_LOCAL_BW];
        }
      }
      for (int k = 0; k < op->stage.nout; k++)
        valid[op->stage.out[k]] = 0;
      if (!pass) continue;
      if (c.msgs > msgs0) { /* a stage that exchanges: one more round of dependent tasks */
        c.rounds++;
        c.seconds += m.v[M_ROUND];
      }
      long cells = 1;
      for (int i = 0; i < 3; i++)
        cells *= sim->tn[i] + op->ext.hi[i] - op->ext.lo[i];
      c.cells += cells;
      c.seconds +=
          (double)cells * (double)((op->stage.nin + op->stage.nout) * sim->esize) / m.v[M_MEM_BW];
    }
  return c;
}

int tess_program_has_temporaries(const tess_sim_t sim) {
  for (int o = 0; o < sim->nops; o++)
    for (int k = 0; is_stage(sim, o) && k < sim->op[o]->stage.nin; k++)
      if (sim->field[sim->op[o]->stage.in[k]].temporary) return 1;
  return 0;
}

static int fits(const tess_sim_t sim) {
  for (int i = 0; i < 3; i++)
    if (sim->n[i] > 1 && sim->tn[i] < 2 * sim->ghost[i]) return 0;
  return 1;
}

/* A temporary holds nothing from one step to the next: each step writes it before reading it,
 * and it is never swapped (else it carries state: a field). */
static tess_err check_temporaries(const tess_sim_t sim) {
  for (int f = 0; f < sim->nfields; f++) {
    if (!sim->field[f].temporary) continue;
    for (int o = 0; o < sim->nops; o++)
      TESS_CHECK(is_stage(sim, o) || (sim->op[o]->swap[0] != f && sim->op[o]->swap[1] != f),
                 TESS_ERR_ARG,
                 "temporary '%s' is swapped (operation %d): a field that carries values from "
                 "step to step cannot be a temporary",
                 sim->field[f].name, o);
    for (int o = 0; o < sim->nops; o++) {
      const tess_op *op = sim->op[o];
      if (!is_stage(sim, o)) continue;
      TESS_CHECK(!reads(op, f) || writes(op, f), TESS_ERR_ARG,
                 "temporary '%s' is read by stage %d ('%s') before any stage of the step writes "
                 "it: a value kept from the previous step needs a field, not a temporary",
                 sim->field[f].name, o, op->stage.kernel->name);
      if (writes(op, f)) break;
    }
  }
  return TESS_OK;
}

/* Under derive(sim, 0): a temporary read across a physical face where it has no condition (its
 * producer computes that halo from the inputs' ghost fills: recompute), its face in *face; or -1 */
static int bare_temporary(const tess_sim_t sim, int *face) {
  for (int f = 0; f < sim->nfields; f++)
    for (int fc = 0; sim->field[f].temporary && !sim->field[f].local && fc < 6; fc++) {
      const tess_field *fd = &sim->field[f];
      const int i = fc / 2, w = fc & 1 ? fd->whi[i] : fd->wlo[i];
      int has = fd->bc != NULL;
      for (int c = 0; has && c < fd->nc; c++)
        has = fd->bc[fc * fd->nc + c].kind != TESS_BC_NONE;
      if (!sim->periodic[i] && sim->n[i] > 1 && w > 0 && !has) return *face = fc, f;
    }
  return -1;
}

tess_err tess_program_choose(tess_sim_t sim) {
  TESS_CALL(check_temporaries(sim));
  const uint32_t cand = candidates(sim);
  const tess_strategy req = sim->strategy;
  const int cuda = sim->device == TESS_DEVICE_CUDA ||
                   (sim->device == TESS_DEVICE_AUTO && tess_ncuda_devices() > 0);
  derive(sim, 0);
  /* Physical faces: only fields carry conditions; a temporary read across a face without one
   * of its own is computed there by its producer from the inputs' ghost fills (recompute), the
   * one strategy that gives its halo a value there (docs/boundaries.md). */
  int face = -1;
  const int bare = tess_boundary_walled(sim) ? bare_temporary(sim, &face) : -1;
  if (bare >= 0) {
    TESS_CHECK(req != TESS_STRATEGY_EXCHANGE, TESS_ERR_ARG,
               "strategy 'exchange' (run.strategy) cannot run on this grid: temporary '%s' is "
               "read across the physical face %s, where it has no condition; recompute computes "
               "it there from the inputs' ghost fills (allowed with physical faces: recompute, "
               "auto)",
               sim->field[bare].name, tess_face_name(face));
    derive(sim, cand);
    const int left = bare_temporary(sim, &face);
    TESS_CHECK(left < 0, TESS_ERR_ARG,
               "temporary '%s' is read across the physical face %s, has no condition there and "
               "cannot be recomputed (that needs one producer writing only temporaries, read by "
               "later stages only); give it conditions or make axis %c periodic (grid.periodic)",
               sim->field[left < 0 ? 0 : left].name, tess_face_name(face), "xyz"[face / 2]);
    sim->strategy = TESS_STRATEGY_RECOMPUTE;
    snprintf(sim->strategy_why, sizeof sim->strategy_why, "%s",
             req == TESS_STRATEGY_RECOMPUTE
                 ? "requested"
                 : "physical faces: temporaries computed from the inputs' ghost fills");
    return tess_sim_choose_grids(sim);
  }
  if (!cand || req == TESS_STRATEGY_EXCHANGE) {
    sim->strategy = TESS_STRATEGY_EXCHANGE;
    snprintf(sim->strategy_why, sizeof sim->strategy_why, "%s",
             req == TESS_STRATEGY_EXCHANGE ? "requested"
                                           : "no temporary can be recomputed (every halo is "
                                             "exchanged)");
    return tess_sim_choose_grids(sim);
  }
  if (req == TESS_STRATEGY_RECOMPUTE) {
    derive(sim, cand);
    sim->strategy = TESS_STRATEGY_RECOMPUTE;
    snprintf(sim->strategy_why, sizeof sim->strategy_why, "requested");
    return tess_sim_choose_grids(sim);
  }
  /* auto: both on the grids of the exchange strategy */
  TESS_CALL(tess_sim_choose_grids(sim));
  const machine m = machine_of(sim, cuda);
  const cost ex = step_cost(sim, &m);
  derive(sim, cand);
  const int ok = fits(sim);
  const cost re = ok ? step_cost(sim, &m) : ex;
  const int pick = ok && re.seconds < ex.seconds;
  char figures[512];
  machine_text(&m, figures, sizeof figures);
  snprintf(sim->strategy_why, sizeof sim->strategy_why,
           "auto: per tile and step, exchange %ld round(s) of %ld halo pieces (%.3g MB) + %ld "
           "cells = %.3g us, recompute %ld round(s) of %ld pieces (%.3g MB) + %ld cells = %.3g "
           "us%s; %s figures: %s",
           ex.rounds, ex.msgs, ex.bytes / 1e6, ex.cells, 1e6 * ex.seconds, re.rounds, re.msgs,
           re.bytes / 1e6, re.cells, 1e6 * re.seconds,
           ok ? "" : " (recompute: tiles too small for its halo)", cuda ? "GPU" : "CPU", figures);
  sim->strategy = pick ? TESS_STRATEGY_RECOMPUTE : TESS_STRATEGY_EXCHANGE;
  if (!pick) derive(sim, 0);
  return tess_sim_choose_grids(sim);
}

/* ---- pieces and directions read -------------------------------------------------------------- */

void tess_program_dirs(tess_sim_t sim) {
  for (int o = 0; o < sim->nops; o++) {
    tess_op *op = sim->op[o];
    if (!is_stage(sim, o)) continue;
    op->halo_dirs = 0;
    memset(op->in_dirs, 0, sizeof op->in_dirs);
    memset(op->reads, 0, sizeof op->reads);
    memset(op->lreads, 0, sizeof op->lreads);
    for (int k = 0; k < op->stage.nin; k++) {
      const int noff = tess_reach_offsets(op->stage.kernel->shape, &op->reach[k], NULL);
      int(*off)[3] = malloc(sizeof(int[3]) * (size_t)noff);
      if (!off) abort();
      tess_reach_offsets(op->stage.kernel->shape, &op->reach[k], off);
      const int local = (op->in_local >> k) & 1;
      for (int p = 0; p < TESS_NPIECES; p++) {
        if (!tess_piece_owned(p)) continue;
        tess_box b;
        tess_pieceset mine = {{0, 0}};
        tess_piece_grown(sim->tn, sim->ghost, p, &op->ext, &b);
        tess_box_reads(sim->tn, sim->ghost, &b, noff, (const int(*)[3])off, &mine);
        tess_pieceset *into = local ? &op->lreads[p] : &op->reads[p];
        into->w[0] |= mine.w[0];
        into->w[1] |= mine.w[1];
        if (!local) op->in_dirs[k] |= tess_halo_dirs_in(sim->tn, sim->ghost, &mine);
      }
      free(off);
      /* an edge or corner ghost at a physical face is filled from the ghosts of its direction
       * without that face's axis (boundary.c): they are read too, so exchanged when stale */
      for (uint32_t grow = 1; grow;) {
        grow = 0;
        for (int d = 0; d < TESS_NDIRS; d++) {
          int h[3];
          tess_dir_vector(d, h);
          for (int i = 0; ((op->in_dirs[k] >> d) & 1) && i < 3; i++) {
            if (sim->periodic[i] || !h[i]) continue;
            const int keep = h[i];
            h[i] = 0;
            const int e = tess_dir_index(h);
            h[i] = keep;
            if (e != TESS_DIR_CENTER && !((op->in_dirs[k] >> e) & 1)) {
              op->in_dirs[k] |= 1u << e;
              grow = 1;
            }
          }
        }
      }
      op->halo_dirs |= op->in_dirs[k];
    }
  }
}

int tess_program_boxes(const tess_sim_t sim, const tess_plan *p, const tess_op *op, int c,
                       tess_box *box) {
  const tess_class *cls = &p->cls[c];
  if (!op->grown) {
    memcpy(box, cls->box, (size_t)cls->nbox * sizeof *box);
    return cls->nbox;
  }
  /* grown pieces, merged where they line up (one kernel launch per box) */
  tess_boxmove mv[TESS_NDIRS];
  int n = 0;
  for (int q = 0; q < TESS_NPIECES; q++) {
    tess_box b;
    if (p->piece_class[q] != c) continue;
    tess_piece_grown(sim->tn, sim->ghost, q, &op->ext, &b);
    if (tess_box_empty(&b)) continue;
    for (int i = 0; i < 3; i++) {
      mv[n].src_lo[i] = mv[n].dst_lo[i] = b.lo[i];
      mv[n].ext[i] = b.hi[i] - b.lo[i];
    }
    n++;
  }
  tess_boxmoves_merge(mv, &n);
  for (int k = 0; k < n; k++)
    for (int i = 0; i < 3; i++) {
      box[k].lo[i] = mv[k].dst_lo[i];
      box[k].hi[i] = mv[k].dst_lo[i] + mv[k].ext[i];
    }
  return n;
}

/* ---- introspection --------------------------------------------------------------------------- */

static void dirs_text(uint32_t dirs, char *buf, size_t len) {
  static const char sign[3] = {'-', '0', '+'};
  buf[0] = 0;
  for (int d = 0; d < TESS_NDIRS; d++) {
    if (!((dirs >> d) & 1)) continue;
    int h[3];
    tess_dir_vector(d, h);
    const size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%c%c%c", at ? " " : "", sign[h[0] + 1], sign[h[1] + 1],
             sign[h[2] + 1]);
  }
  if (!buf[0]) snprintf(buf, len, "none");
}

void tess_program_describe(const tess_sim_t sim) {
  if (!tess_log_enabled(TESS_LOG_INFO)) return;
  tess_log(TESS_LOG_INFO, "program: strategy %s (%s); ghost %dx%dx%d",
           tess_strategy_name(sim->strategy), sim->strategy_why, sim->ghost[0], sim->ghost[1],
           sim->ghost[2]);
  for (int o = 0; o < sim->nops; o++) {
    const tess_op *op = sim->op[o];
    if (!is_stage(sim, o)) continue;
    tess_log(TESS_LOG_INFO,
             "program: stage %d '%s': computes owned + extent x[%d,%d] y[%d,%d] z[%d,%d]", o,
             op->stage.kernel->name, op->ext.lo[0], op->ext.hi[0], op->ext.lo[1], op->ext.hi[1],
             op->ext.lo[2], op->ext.hi[2]);
    for (int k = 0; k < op->stage.nin; k++) {
      const tess_field *fd = &sim->field[op->stage.in[k]];
      const tess_reach *r = &op->reach[k];
      char dirs[27 * 4 + 8];
      dirs_text(op->in_dirs[k], dirs, sizeof dirs);
      tess_log(TESS_LOG_INFO,
               "program:   reads '%s' at x[%d,%d] y[%d,%d] z[%d,%d]: %s; halo width "
               "x-%d+%d y-%d+%d z-%d+%d; directions %s",
               fd->name, r->lo[0], r->hi[0], r->lo[1], r->hi[1], r->lo[2], r->hi[2],
               ((op->in_local >> k) & 1) ? "computed here (recompute: no exchange)"
               : op->in_dirs[k]          ? "exchanged when stale"
                                         : "no halo",
               fd->wlo[0], fd->whi[0], fd->wlo[1], fd->whi[1], fd->wlo[2], fd->whi[2], dirs);
    }
  }
}

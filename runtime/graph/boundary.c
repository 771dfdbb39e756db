/* boundary.c — physical faces: periodicity per axis, conditions per field, component and face,
 * their parsing and checks, and the ghost fills they become (docs/boundaries.md).
 *
 * Where a tile's halo direction h crosses a physical face, plan.c makes a link of its own (one
 * per direction, never buffered) whose moves are fills instead of copies: a tess_move with
 * bc.kind set, one per box and component, computed from the tile's own cells along the normal.
 *
 *        ghosts      face   owned cells
 *     | g3 | g2 | g1 |  u0 | u1 | u2 | ...        g_k mirrors u_{k-1} across the face
 *
 * Every ghost cell has exactly one writer: the fill of the first physical axis (x, y, z) of its
 * direction. Its other components are periodic or inter-tile (a copy or unpack filled those
 * cells) or physical on a later axis (a fill of fewer non-zero components filled them), so fills
 * run after the copies and in order of non-zero components: faces, then edges, then corners.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_bc.h"
#include "error.h"
#include "pack.h"
#include "sim.h"

#define TESS_X_NAME(name, text) text,
static const char *const bc_names[] = {TESS_BC_LIST(TESS_X_NAME)};
static const char *const face_names[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};

const char *tess_bc_kind_name(tess_bc_kind k) {
  return (unsigned)k < TESS_BC_COUNT ? bc_names[k] : "?";
}
const char *tess_face_name(int face) { return face >= 0 && face < 6 ? face_names[face] : "?"; }

/* ---- parsing -------------------------------------------------------------------------------- */

int tess_periodic_parse(const char *spec, int periodic[3], char *msg, size_t len) {
  periodic[0] = periodic[1] = periodic[2] = 0;
  if (!strcmp(spec, "none")) return 0;
  if (!spec[0]) {
    snprintf(msg, len, "grid.periodic is empty (allowed: a subset of xyz, or none)");
    return -1;
  }
  for (const char *c = spec; *c; c++) {
    const char *at = strchr("xyz", *c);
    if (!at || !*c) {
      snprintf(msg, len,
               "grid.periodic = '%s': '%c' is not an axis (allowed: a subset of xyz, "
               "or none)",
               spec, *c);
      return -1;
    }
    if (periodic[at - "xyz"]) {
      snprintf(msg, len,
               "grid.periodic = '%s' names axis %c twice (allowed: a subset of xyz, "
               "or none)",
               spec, *c);
      return -1;
    }
    periodic[at - "xyz"] = 1;
  }
  return 0;
}

#define KINDS_ALLOWED "dirichlet(v), neumann(g), symmetric, antisymmetric, outflow"
#define FACES_ALLOWED "x-, x+, y-, y+, z-, z+, x, y, z, all"

/* The faces an item's face part names (bit f = face f); 0 when unknown. */
static unsigned parse_faces(const char *s, size_t n) {
  if (n == 3 && !strncmp(s, "all", 3)) return 0x3f;
  if (n < 1 || n > 2 || !strchr("xyz", s[0]) || !s[0]) return 0;
  const int axis = (int)(strchr("xyz", s[0]) - "xyz");
  if (n == 1) return 3u << (2 * axis);
  if (s[1] == '-') return 1u << (2 * axis);
  if (s[1] == '+') return 2u << (2 * axis);
  return 0;
}

int tess_bc_parse(const char *spec, const char *field, const int periodic[3], tess_bc bc[6],
                  unsigned *set, char *msg, size_t len) {
  *set = 0;
  for (int f = 0; f < 6; f++)
    bc[f] = (tess_bc){TESS_BC_NONE, 0, NULL, NULL};
  if (!spec[0] || !strcmp(spec, "none")) return 0;
  char item[256];
  int from[6] = {0}, nitem = 0; /* items counted from 1, for messages */
  for (const char *p = spec; *p;) {
    nitem++;
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= sizeof item) n = sizeof item - 1;
    memcpy(item, p, n);
    item[n] = 0;
    p = end ? end + 1 : p + strlen(p);
    const char *colon = strchr(item, ':');
    if (!colon) {
      snprintf(msg, len,
               "boundary.%s = '%s': '%s' is not face:kind (e.g. x-:dirichlet(0); "
               "faces %s; kinds %s)",
               field, spec, item, FACES_ALLOWED, KINDS_ALLOWED);
      return -1;
    }
    const unsigned faces = parse_faces(item, (size_t)(colon - item));
    if (!faces) {
      snprintf(msg, len, "boundary.%s: unknown face '%.*s' in '%s' (allowed: %s)", field,
               (int)(colon - item), item, item, FACES_ALLOWED);
      return -1;
    }
    const char *kind = colon + 1, *paren = strchr(kind, '(');
    const size_t klen = paren ? (size_t)(paren - kind) : strlen(kind);
    tess_bc b = {TESS_BC_NONE, 0, NULL, NULL};
    for (int k = TESS_BC_DIRICHLET; k <= TESS_BC_OUTFLOW; k++)
      if (strlen(bc_names[k]) == klen && !strncmp(kind, bc_names[k], klen)) b.kind = k;
    if (b.kind == TESS_BC_NONE) {
      snprintf(msg, len, "boundary.%s: unknown kind '%.*s' in '%s' (allowed: %s)", field, (int)klen,
               kind, item, KINDS_ALLOWED);
      return -1;
    }
    const int valued = b.kind == TESS_BC_DIRICHLET || b.kind == TESS_BC_NEUMANN;
    const size_t ilen = strlen(item);
    if (valued != (paren != NULL) || (paren && item[ilen - 1] != ')')) {
      snprintf(msg, len, "boundary.%s: '%s': %s %s (allowed: %s)", field, item, bc_names[b.kind],
               valued ? "needs a value in parentheses" : "takes no value", KINDS_ALLOWED);
      return -1;
    }
    if (valued) {
      char num[128];
      const size_t vlen = ilen - 1 - (size_t)(paren + 1 - item);
      snprintf(num, sizeof num, "%.*s", (int)vlen, paren + 1);
      char *e = NULL;
      b.value = strtod(num, &e);
      if (!num[0] || !e || *e) {
        snprintf(msg, len,
                 "boundary.%s: '%s': value '%s' is not a number (allowed: a finite "
                 "number)",
                 field, item, num);
        return -1;
      }
      if (!isfinite(b.value)) {
        snprintf(msg, len,
                 "boundary.%s: '%s': value '%s' is not finite (allowed: a finite "
                 "number)",
                 field, item, num);
        return -1;
      }
    }
    for (int f = 0; f < 6; f++) {
      if (!((faces >> f) & 1)) continue;
      const int axis = f / 2, all = faces == 0x3f;
      if (periodic && periodic[axis]) {
        if (all) continue; /* "all" means every physical face */
        snprintf(msg, len,
                 "boundary.%s: '%s': face %s is on axis %c, which is periodic "
                 "(grid.periodic); conditions belong on non-periodic axes only",
                 field, item, face_names[f], "xyz"[axis]);
        return -1;
      }
      if ((*set >> f) & 1) {
        snprintf(msg, len,
                 "boundary.%s = '%s': two conditions for face %s (items %d and %d; "
                 "allowed: one per face)",
                 field, spec, face_names[f], from[f], nitem);
        return -1;
      }
      *set |= 1u << f;
      from[f] = nitem;
      bc[f] = b;
    }
  }
  return 0;
}

/* ---- the simulation's settings -------------------------------------------------------------- */

#define CHECK_NOT_SETUP(sim)                                                                       \
  TESS_CHECK(!(sim)->is_setup, TESS_ERR_STATE, "%s must be called before tess_sim_setup", __func__)

tess_err tess_sim_set_periodic(tess_sim_t sim, const int periodic[3]) {
  CHECK_NOT_SETUP(sim);
  for (int i = 0; i < 3; i++)
    sim->periodic[i] = periodic[i] != 0;
  return TESS_OK;
}

void tess_sim_periodic(const tess_sim_t sim, int periodic[3]) {
  for (int i = 0; i < 3; i++)
    periodic[i] = sim->periodic[i];
}

tess_err tess_sim_set_boundary(tess_sim_t sim, int field, int comp, int face, const tess_bc *bc) {
  CHECK_NOT_SETUP(sim);
  TESS_CHECK(field >= 0 && field < sim->nfields, TESS_ERR_ARG,
             "field id %d is invalid (allowed: 0..%d)", field, sim->nfields - 1);
  tess_field *f = &sim->field[field];
  TESS_CHECK(comp >= -1 && comp < f->nc, TESS_ERR_ARG,
             "component %d of field '%s' is invalid (allowed: -1 for all, 0..%d)", comp, f->name,
             f->nc - 1);
  TESS_CHECK(face >= 0 && face < 6, TESS_ERR_ARG, "face %d is invalid (allowed: 0..5, x- .. z+)",
             face);
  TESS_CHECK(bc && (unsigned)bc->kind < TESS_BC_COUNT, TESS_ERR_ARG,
             "boundary of field '%s' on face %s: invalid kind", f->name, face_names[face]);
  TESS_CHECK(bc->kind != TESS_BC_FUNCTION || bc->fn, TESS_ERR_ARG,
             "boundary of field '%s' on face %s: kind function needs a function", f->name,
             face_names[face]);
  TESS_CHECK(isfinite(bc->value), TESS_ERR_ARG,
             "boundary of field '%s' on face %s: value %g is not finite", f->name, face_names[face],
             bc->value);
  if (!f->bc) {
    f->bc = calloc((size_t)6 * f->nc, sizeof *f->bc);
    TESS_CHECK(f->bc, TESS_ERR_MEM, "cannot allocate boundary conditions");
  }
  for (int c = comp < 0 ? 0 : comp; c < (comp < 0 ? f->nc : comp + 1); c++)
    f->bc[face * f->nc + c] = *bc;
  return TESS_OK;
}

tess_err tess_sim_set_boundary_spec(tess_sim_t sim, int field, const char *spec) {
  CHECK_NOT_SETUP(sim);
  TESS_CHECK(field >= 0 && field < sim->nfields, TESS_ERR_ARG,
             "field id %d is invalid (allowed: 0..%d)", field, sim->nfields - 1);
  tess_bc bc[6];
  unsigned set;
  char msg[512];
  TESS_CHECK(
      tess_bc_parse(spec, sim->field[field].name, sim->periodic, bc, &set, msg, sizeof msg) == 0,
      TESS_ERR_ARG, "%s", msg);
  for (int f = 0; f < 6; f++)
    if ((set >> f) & 1) TESS_CALL(tess_sim_set_boundary(sim, field, -1, f, &bc[f]));
  return TESS_OK;
}

static int put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int put(char *buf, size_t len, size_t *at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(buf + (*at < len ? *at : len), *at < len ? len - *at : 0, fmt, ap);
  va_end(ap);
  if (n > 0) *at += (size_t)n;
  return n;
}

int tess_sim_boundary_text(const tess_sim_t sim, char *buf, size_t len) {
  size_t at = 0;
  buf[0] = 0;
  put(buf, len, &at, "periodic=");
  int any = 0;
  for (int i = 0; i < 3; i++)
    if (sim->periodic[i]) any += put(buf, len, &at, "%c", "xyz"[i]);
  if (!any) put(buf, len, &at, "none");
  for (int fi = 0; fi < sim->nfields; fi++) {
    const tess_field *f = &sim->field[fi];
    if (!f->bc || f->temporary) continue;
    put(buf, len, &at, "; %s:", f->name);
    for (int c = 0; c < f->nc; c++)
      for (int face = 0; face < 6; face++) {
        const tess_bc *b = &f->bc[face * f->nc + c];
        if (b->kind == TESS_BC_NONE) continue;
        put(buf, len, &at, " %s[%d]:%s", face_names[face], c, bc_names[b->kind]);
        if (b->kind == TESS_BC_DIRICHLET || b->kind == TESS_BC_NEUMANN)
          put(buf, len, &at, "(%.17g)", b->value);
      }
  }
  return at < len ? 0 : -1;
}

void tess_boundary_free(tess_sim_t sim) {
  for (int f = 0; f < sim->nfields; f++) {
    free(sim->field[f].bc);
    sim->field[f].bc = NULL;
  }
}

int tess_boundary_walled(const tess_sim_t sim) {
  for (int i = 0; i < 3; i++)
    if (!sim->periodic[i] && sim->n[i] > 1) return 1;
  return 0;
}

tess_err tess_boundary_check(tess_sim_t sim) {
  for (int fi = 0; fi < sim->nfields; fi++) {
    const tess_field *f = &sim->field[fi];
    for (int face = 0; face < 6; face++) {
      const int axis = face / 2, side = face & 1 ? 1 : -1;
      int width = 0; /* some stage reads the field across this face */
      for (int o = 0; o < sim->nops; o++)
        for (int k = 0; sim->op[o]->kind == TESS_OP_STAGE && k < sim->op[o]->stage.nin; k++)
          for (int d = 0; sim->op[o]->stage.in[k] == fi && d < TESS_NDIRS; d++) {
            int h[3];
            tess_dir_vector(d, h);
            width |= ((sim->op[o]->in_dirs[k] >> d) & 1) && h[axis] == side;
          }
      for (int c = 0; c < f->nc; c++) {
        const tess_bc *b = f->bc ? &f->bc[face * f->nc + c] : NULL;
        const int has = b && b->kind != TESS_BC_NONE;
        TESS_CHECK(!has || !sim->periodic[axis], TESS_ERR_ARG,
                   "boundary of field '%s' on face %s: axis %c is periodic (grid.periodic); "
                   "conditions belong on non-periodic axes only",
                   f->name, face_names[face], "xyz"[axis]);
        TESS_CHECK(has || sim->periodic[axis] || width == 0 || sim->n[axis] == 1, TESS_ERR_ARG,
                   "field '%s'%s%.0d has no boundary condition on face %s, but axis %c is not "
                   "periodic and a stage reads it across that face (set boundary.%s, e.g. "
                   "%s:dirichlet(0), or make the axis periodic)",
                   f->name, f->nc > 1 ? " component " : "", f->nc > 1 ? c : 0, face_names[face],
                   "xyz"[axis], f -> name, face_names[face]);
        TESS_CHECK(!has || b->kind != TESS_BC_FUNCTION || !sim->tile || !sim->tile[0].cuda,
                   TESS_ERR_ARG,
                   "boundary of field '%s' on face %s: a boundary function runs on CPU tiles "
                   "only (use device 'cpu')",
                   f->name, face_names[face]);
      }
    }
  }
  for (int i = 0; i < 3; i++)
    TESS_CHECK(sim->periodic[i] || sim->n[i] == 1 || sim->ghost[i] == 0 || sim->tn[i] >= 2,
               TESS_ERR_ARG,
               "a tile is %d cell(s) along the non-periodic axis %c: the ghost fills need at "
               "least 2 (use fewer ranks or tiles on that axis)",
               sim->tn[i], "xyz"[i]);
  return TESS_OK;
}

int tess_boundary_physical(const tess_sim_t sim, const int gc[3], const int h[3], int *axis) {
  for (int i = 0; i < 3; i++) {
    if (sim->periodic[i] || !h[i]) continue;
    if ((h[i] < 0 && gc[i] == 0) || (h[i] > 0 && gc[i] == sim->G[i] - 1)) {
      if (axis) *axis = i;
      return 1;
    }
  }
  return 0;
}

int tess_boundary_moves(const tess_sim_t sim, const tess_op *op, int k, const tess_tile *x, int d,
                        tess_moves *mv) {
  const tess_field *f = &sim->field[op->stage.in[k]];
  const int *tn = sim->tn, *g = sim->ghost;
  int h[3], lo[3], hi[3], axis;
  tess_dir_vector(d, h);
  if (!tess_boundary_physical(sim, x->gcoord, h, &axis)) return 0;
  for (int i = 0; i < 3; i++) {
    lo[i] = h[i] < 0 ? g[i] - f->wlo[i] : h[i] > 0 ? tn[i] + g[i] : g[i];
    hi[i] = h[i] < 0 ? g[i] : h[i] > 0 ? tn[i] + g[i] + f->whi[i] : tn[i] + g[i];
  }
  if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) return 0;
  if (!mv) return f->nc;
  const int side = h[axis], face = 2 * axis + (side > 0);
  for (int c = 0; c < f->nc; c++) {
    tess_move *m = &mv->m[mv->n++];
    memset(m, 0, sizeof *m);
    m->nc = f->nc;
    for (int i = 0; i < 3; i++) {
      m->ext[i] = hi[i] - lo[i];
      m->src.lo[i] = m->dst.lo[i] = lo[i];
      m->src.dim[i] = m->dst.dim[i] = sim->dim[i];
    }
    m->src.ptr = m->dst.ptr = x->slot[f->slot].base;
    const tess_bc *b = &f->bc[face * f->nc + c];
    tess_bcfill *bc = &m->bc;
    bc->kind = b->kind;
    bc->axis = axis;
    bc->side = side;
    bc->face = side < 0 ? g[axis] : g[axis] + tn[axis] - 1;
    bc->comp = c;
    bc->value = b->kind == TESS_BC_NEUMANN ? sim->h[axis] * b->value : b->value;
    bc->fn = b->fn;
    bc->ctx = b->ctx;
    bc->t = sim->time;
    for (int i = 0; i < 3; i++) {
      bc->h[i] = sim->h[i];
      bc->origin[i] = x->origin[i] - g[i];
      bc->n[i] = sim->n[i];
      bc->periodic[i] = sim->periodic[i];
    }
  }
  return f->nc;
}

/* ---- the CPU fill (the CUDA one: boundary_cuda.cu; both use tessera_bc.h's formula) ---------- */

/* The face value of the ghost at padded cell p (function kind: the user's function at the face
 * point of p's row along the normal; periodic tangential axes at their image). */
static double face_value(const tess_bcfill *bc, const int p[3]) {
  if (bc->kind != TESS_BC_FUNCTION) return bc->value;
  double at[3];
  for (int i = 0; i < 3; i++) {
    long gi = bc->origin[i] + p[i];
    if (bc->periodic[i]) gi = (gi % bc->n[i] + bc->n[i]) % bc->n[i];
    at[i] = ((double)gi + 0.5) * bc->h[i];
  }
  at[bc->axis] = bc->side < 0 ? 0.0 : (double)bc->n[bc->axis] * bc->h[bc->axis];
  return bc->fn(at, bc->comp, bc->t, bc->ctx);
}

/* One row of the box along x (T: double or float). Across y or z the whole row has one depth k
 * and reads three rows (u_0, u_1, u_{k-1}); across x each cell has its own. */
#define FILL_ROW(T)                                                                                \
  static void fill_row_##T(const tess_move *m, int y, int z) {                                     \
    const tess_bcfill *bc = &m->bc;                                                                \
    const int a = bc->axis, X = m->dst.dim[0], Y = m->dst.dim[1], nc = m->nc, c = bc->comp;        \
    T *u = m->dst.ptr;                                                                             \
    int p[3] = {m->dst.lo[0], m->dst.lo[1] + y, m->dst.lo[2] + z};                                 \
    if (a == 0) {                                                                                  \
      for (int x = 0; x < m->ext[0]; x++, p[0]++) {                                                \
        const int k = bc->side * (p[0] - bc->face);                                                \
        const size_t row = TESS_IDX(X, Y, nc, c, 0, p[1], p[2]);                                   \
        u[row + p[0]] = (T)tess_bc_ghost(bc->kind, k, face_value(bc, p), u[row + bc->face],        \
                                         u[row + bc->face - bc->side],                             \
                                         u[row + bc->face - bc->side * (k - 1)]);                  \
      }                                                                                            \
      return;                                                                                      \
    }                                                                                              \
    const int k = bc->side * (p[a] - bc->face);                                                    \
    int q0[3] = {p[0], p[1], p[2]}, q1[3] = {p[0], p[1], p[2]}, qk[3] = {p[0], p[1], p[2]};        \
    q0[a] = bc->face;                                                                              \
    q1[a] = bc->face - bc->side;                                                                   \
    qk[a] = bc->face - bc->side * (k - 1);                                                         \
    T *dst = u + TESS_IDX(X, Y, nc, c, p[0], p[1], p[2]);                                          \
    const T *s0 = u + TESS_IDX(X, Y, nc, c, q0[0], q0[1], q0[2]);                                  \
    const T *s1 = u + TESS_IDX(X, Y, nc, c, q1[0], q1[1], q1[2]);                                  \
    const T *sk = u + TESS_IDX(X, Y, nc, c, qk[0], qk[1], qk[2]);                                  \
    if (bc->kind == TESS_BC_FUNCTION) {                                                            \
      for (int x = 0; x < m->ext[0]; x++, p[0]++)                                                  \
        dst[x] = (T)tess_bc_ghost(bc->kind, k, face_value(bc, p), s0[x], s1[x], sk[x]);            \
      return;                                                                                      \
    }                                                                                              \
    const double v = bc->value;                                                                    \
    switch (bc->kind) { /* the kind outside the loop: each loop a plain vector loop */             \
    case TESS_BC_DIRICHLET:                                                                        \
      for (int x = 0; x < m->ext[0]; x++)                                                          \
        dst[x] = (T)tess_bc_ghost(TESS_BC_DIRICHLET, k, v, 0, 0, sk[x]);                           \
      break;                                                                                       \
    case TESS_BC_NEUMANN:                                                                          \
      for (int x = 0; x < m->ext[0]; x++)                                                          \
        dst[x] = (T)tess_bc_ghost(TESS_BC_NEUMANN, k, v, 0, 0, sk[x]);                             \
      break;                                                                                       \
    case TESS_BC_SYMMETRIC:                                                                        \
      for (int x = 0; x < m->ext[0]; x++)                                                          \
        dst[x] = sk[x];                                                                            \
      break;                                                                                       \
    case TESS_BC_ANTISYMMETRIC:                                                                    \
      for (int x = 0; x < m->ext[0]; x++)                                                          \
        dst[x] = -sk[x];                                                                           \
      break;                                                                                       \
    default:                                                                                       \
      for (int x = 0; x < m->ext[0]; x++)                                                          \
        dst[x] = (T)tess_bc_ghost(bc->kind, k, v, s0[x], s1[x], sk[x]);                            \
    }                                                                                              \
  }
FILL_ROW(double)
FILL_ROW(float)

void tess_bcfill_cpu(const tess_move *m, int esize) {
  for (int z = 0; z < m->ext[2]; z++)
    for (int y = 0; y < m->ext[1]; y++)
      if (esize == 4)
        fill_row_float(m, y, z);
      else
        fill_row_double(m, y, z);
}

/* cahn_hilliard.c — Cahn–Hilliard kernels: the CPU reference, the kernel records and the
 * stability helpers.
 *
 * tess_ch_plan_make turns a region into the plain numbers a sweep needs (and is also what the
 * CUDA launchers in cahn_hilliard_cuda.cu call), so every constant — -B, 1/h^2, dt*M — is
 * computed once, on the host, identically for both versions. Each sweep walks z, y and then
 * x, so the inner loop is a unit-stride row the compiler can vectorise; vectorising does not
 * reorder the operations of one cell, so its result is still the order fixed in
 * cahn_hilliard.h.
 *
 * ch_fused calls the very helpers ch_mu and ch_update use (tess_ch_mu_at, tess_ch_d2,
 * tess_ch_combine), once per point of the outer Laplacian, which is what makes it bitwise
 * equal to the split pair: it recomputes mu at each neighbour instead of sharing it across
 * cells, trading arithmetic for a field and a halo exchange.
 *
 * This file must be compiled with -ffp-contract=off (the build sets it): a fused multiply-add
 * would round differently from the CUDA version, which spells out every rounding.
 * No StarPU here: the runtime wraps tess_kernel functions in its own codelets.
 */
#include "cahn_hilliard.h"
#include "region.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn static void tess_ch_fail(const char *file, int line, const char *msg) {
  fprintf(stderr, "%s:%d: cahn_hilliard kernel: %s\n", file, line, msg);
  abort();
}
#define TESS_CH_REQUIRE(cond, msg)                                                                 \
  do {                                                                                             \
    if (!(cond)) tess_ch_fail(__FILE__, __LINE__, msg);                                            \
  } while (0)

int tess_ch_plan_make(const tess_region *r, tess_ch_op op, tess_ch_plan *p) {
  if (tess_region_empty(r)) return 0;

  /* nin without w; w, when present, is the field after the others. */
  int radius = 1, nbase = 1;
  switch (op) {
  case TESS_CH_OP_MU:
    break;
  case TESS_CH_OP_UPDATE:
    nbase = 2;
    break;
  case TESS_CH_OP_FUSED:
    radius = 2;
    break;
  default:
    tess_ch_fail(__FILE__, __LINE__, "unknown operation");
  }
  const int has_w = r->nin == nbase + 1;
  TESS_CH_REQUIRE(r->nin == nbase || (op != TESS_CH_OP_MU && has_w),
                  op == TESS_CH_OP_MU       ? "ch_mu needs one input field (v)"
                  : op == TESS_CH_OP_UPDATE ? "ch_update needs input fields (mu, v[, w])"
                                            : "ch_fused needs input fields (v[, w])");
  TESS_CH_REQUIRE(r->nout == 1, "needs exactly one output field");
  TESS_CH_REQUIRE(r->out[0] != NULL, "missing output array");
  TESS_CH_REQUIRE(r->out_nc[0] == 1, "the output needs exactly one component");
  for (int k = 0; k < r->nin; k++) {
    TESS_CH_REQUIRE(r->in[k] != NULL, "missing input array");
    TESS_CH_REQUIRE(r->in_nc[k] == 1, "every input needs exactly one component");
    /* Every cell of the output is written while inputs are still read around it. */
    TESS_CH_REQUIRE(r->in[k] != (const double *)r->out[0], "output aliases an input");
  }
  TESS_CH_REQUIRE(r->params != NULL, "missing tess_ch_params");
  TESS_CH_REQUIRE(tess_region_fits(r, radius), "region plus stencil radius leaves the padded tile");

  const tess_ch_params *cp = r->params;
  for (int i = 0; i < 3; i++) {
    p->lo[i] = r->lo[i];
    p->n[i] = r->hi[i] - r->lo[i];
    p->active[i] = r->dim[i] > 1;
    p->inv_h2[i] = 1.0 / (r->h[i] * r->h[i]);
  }
  p->dim0 = r->dim[0];
  p->dim1 = r->dim[1];
  p->neg_b = -cp->B;
  p->u = cp->U;
  p->k = cp->K;
  p->coef = cp->dt * cp->M;
  p->c0 = cp->c0;
  p->c1 = cp->c1;
  p->has_w = op != TESS_CH_OP_MU && has_w;
  p->f = r->in[0];
  p->v = op == TESS_CH_OP_UPDATE ? r->in[1] : NULL;
  p->w = p->has_w ? r->in[nbase] : NULL;
  p->out = r->out[0];
  return 1;
}

/* ---- the arithmetic, one helper per line of the formula in cahn_hilliard.h ---------------- */

/* The coefficients as plain values, so the inner loops keep them in registers. */
typedef struct {
  double neg_b, u, k, coef, c0, c1;
  ptrdiff_t st[3]; /* element stride of each active axis, in x, y, z order */
  double ih[3];    /* its 1 / h^2 */
} tess_ch_consts;

/* 1D second difference along stride s, scaled: ((f[+s] + f[-s]) - 2 f[0]) / h^2. */
static inline double tess_ch_d2(double fp, double fm, double f0, double ih) {
  return ((fp + fm) - 2.0 * f0) * ih;
}

/* NA: number of active axes, a constant at every call site, so the branches fold away. */
static inline double tess_ch_lap(const double *f, int NA, const tess_ch_consts *c) {
  double lap = 0.0; /* stays 0 only on a grid with no active axis */
  if (NA >= 1) lap = tess_ch_d2(f[c->st[0]], f[-c->st[0]], f[0], c->ih[0]);
  if (NA >= 2) lap = lap + tess_ch_d2(f[c->st[1]], f[-c->st[1]], f[0], c->ih[1]);
  if (NA >= 3) lap = lap + tess_ch_d2(f[c->st[2]], f[-c->st[2]], f[0], c->ih[2]);
  return lap;
}

static inline double tess_ch_mu_at(const double *v, int NA, const tess_ch_consts *c) {
  const double v0 = v[0];
  return (c->neg_b * v0 + c->u * ((v0 * v0) * v0)) - c->k * tess_ch_lap(v, NA, c);
}

/* W: w present, a constant at every call site. */
static inline double tess_ch_combine(double v, double lap_mu, double w, int W,
                                     const tess_ch_consts *c) {
  const double e = c->c1 * (v + c->coef * lap_mu);
  return W ? c->c0 * w + e : e;
}

/* ---- sweeps ------------------------------------------------------------------------------- */

static inline void tess_ch_mu_sweep(const tess_ch_plan *p, int NA, const tess_ch_consts *c) {
  for (int z = p->lo[2]; z < p->lo[2] + p->n[2]; z++)
    for (int y = p->lo[1]; y < p->lo[1] + p->n[1]; y++) {
      const size_t row = TESS_IDX(p->dim0, p->dim1, 1, 0, p->lo[0], y, z);
      const double *restrict v = p->f + row;
      double *restrict o = p->out + row;
      for (int x = 0; x < p->n[0]; x++)
        o[x] = tess_ch_mu_at(v + x, NA, c);
    }
}

static inline void tess_ch_update_sweep(const tess_ch_plan *p, int NA, int W,
                                        const tess_ch_consts *c) {
  for (int z = p->lo[2]; z < p->lo[2] + p->n[2]; z++)
    for (int y = p->lo[1]; y < p->lo[1] + p->n[1]; y++) {
      const size_t row = TESS_IDX(p->dim0, p->dim1, 1, 0, p->lo[0], y, z);
      const double *restrict mu = p->f + row;
      const double *restrict v = p->v + row;
      const double *restrict w = W ? p->w + row : NULL;
      double *restrict o = p->out + row;
      for (int x = 0; x < p->n[0]; x++)
        o[x] = tess_ch_combine(v[x], tess_ch_lap(mu + x, NA, c), W ? w[x] : 0.0, W, c);
    }
}

/* Same operations as tess_ch_mu_sweep into a mu array, then tess_ch_update_sweep: mu0 plays
 * f[0] and mu at the neighbours plays f[+-s] of tess_ch_lap. */
static inline double tess_ch_lap_mu(const double *v, int NA, const tess_ch_consts *c) {
  const double mu0 = tess_ch_mu_at(v, NA, c);
  double lap = 0.0;
  for (int a = 0; a < NA; a++) {
    const ptrdiff_t s = c->st[a];
    const double d =
        tess_ch_d2(tess_ch_mu_at(v + s, NA, c), tess_ch_mu_at(v - s, NA, c), mu0, c->ih[a]);
    lap = a == 0 ? d : lap + d; /* the first axis is assigned, as in tess_ch_lap */
  }
  return lap;
}

static inline void tess_ch_fused_sweep(const tess_ch_plan *p, int NA, int W,
                                       const tess_ch_consts *c) {
  for (int z = p->lo[2]; z < p->lo[2] + p->n[2]; z++)
    for (int y = p->lo[1]; y < p->lo[1] + p->n[1]; y++) {
      const size_t row = TESS_IDX(p->dim0, p->dim1, 1, 0, p->lo[0], y, z);
      const double *restrict v = p->f + row;
      const double *restrict w = W ? p->w + row : NULL;
      double *restrict o = p->out + row;
      for (int x = 0; x < p->n[0]; x++)
        o[x] = tess_ch_combine(v[x], tess_ch_lap_mu(v + x, NA, c), W ? w[x] : 0.0, W, c);
    }
}

/* Compacts the active axes and returns their number. */
static int tess_ch_consts_make(const tess_ch_plan *p, tess_ch_consts *c) {
  const ptrdiff_t stride[3] = {1, p->dim0, (ptrdiff_t)p->dim0 * p->dim1};
  int na = 0;
  c->neg_b = p->neg_b;
  c->u = p->u;
  c->k = p->k;
  c->coef = p->coef;
  c->c0 = p->c0;
  c->c1 = p->c1;
  for (int a = 0; a < 3; a++) {
    c->st[a] = 0;
    c->ih[a] = 0.0;
  }
  for (int a = 0; a < 3; a++)
    if (p->active[a]) {
      c->st[na] = stride[a];
      c->ih[na] = p->inv_h2[a];
      na++;
    }
  return na;
}

void tess_ch_mu_cpu(const tess_region *r) {
  tess_ch_plan p;
  tess_ch_consts c;
  if (!tess_ch_plan_make(r, TESS_CH_OP_MU, &p)) return;
  switch (tess_ch_consts_make(&p, &c)) {
  case 0:
    tess_ch_mu_sweep(&p, 0, &c);
    break;
  case 1:
    tess_ch_mu_sweep(&p, 1, &c);
    break;
  case 2:
    tess_ch_mu_sweep(&p, 2, &c);
    break;
  default:
    tess_ch_mu_sweep(&p, 3, &c);
    break;
  }
}

#define TESS_CH_CASE(SWEEP, NN, WW)                                                                \
  case 2 * (NN) + (WW):                                                                            \
    SWEEP(&p, NN, WW, &c);                                                                         \
    break;
#define TESS_CH_CASES(SWEEP)                                                                       \
  TESS_CH_CASE(SWEEP, 0, 0)                                                                        \
  TESS_CH_CASE(SWEEP, 0, 1)                                                                        \
  TESS_CH_CASE(SWEEP, 1, 0)                                                                        \
  TESS_CH_CASE(SWEEP, 1, 1)                                                                        \
  TESS_CH_CASE(SWEEP, 2, 0)                                                                        \
  TESS_CH_CASE(SWEEP, 2, 1)                                                                        \
  TESS_CH_CASE(SWEEP, 3, 0)                                                                        \
  TESS_CH_CASE(SWEEP, 3, 1)

void tess_ch_update_cpu(const tess_region *r) {
  tess_ch_plan p;
  tess_ch_consts c;
  if (!tess_ch_plan_make(r, TESS_CH_OP_UPDATE, &p)) return;
  switch (2 * tess_ch_consts_make(&p, &c) + p.has_w) {
    TESS_CH_CASES(tess_ch_update_sweep)
  default:
    tess_ch_fail(__FILE__, __LINE__, "unsupported number of axes");
  }
}

void tess_ch_fused_cpu(const tess_region *r) {
  tess_ch_plan p;
  tess_ch_consts c;
  if (!tess_ch_plan_make(r, TESS_CH_OP_FUSED, &p)) return;
  switch (2 * tess_ch_consts_make(&p, &c) + p.has_w) {
    TESS_CH_CASES(tess_ch_fused_sweep)
  default:
    tess_ch_fail(__FILE__, __LINE__, "unsupported number of axes");
  }
}
#undef TESS_CH_CASES
#undef TESS_CH_CASE

/* ---- stability -------------------------------------------------------------------------- */

double tess_ch_growth_rate(double M, double B, double U, double K, double u0, double lambda) {
  return M * lambda * (B - 3.0 * U * u0 * u0 - K * lambda);
}

double tess_ch_dt_limit(double M, double B, double U, double K, double u0, const double h[3],
                        const int active[3]) {
  double lmax = 0.0;
  for (int i = 0; i < 3; i++)
    if (active[i]) lmax += 4.0 / (h[i] * h[i]);
  /* -sigma(l) = a l^2 + b l is 0 at l = 0; its maximum on [0, lmax] is at lmax or, when the
   * parabola opens downwards, at its vertex if that lies inside. */
  const double a = M * K;
  const double b = M * (3.0 * U * u0 * u0 - B);
  double worst = -tess_ch_growth_rate(M, B, U, K, u0, lmax);
  if (a < 0.0) {
    const double lv = -b / (2.0 * a);
    if (lv > 0.0 && lv < lmax) {
      const double at_vertex = -tess_ch_growth_rate(M, B, U, K, u0, lv);
      if (at_vertex > worst) worst = at_vertex;
    }
  }
  return worst > 0.0 ? 2.0 / worst : (double)INFINITY;
}

const tess_kernel tess_ch_mu_kernel = {
    .name = "ch_mu",
    .cpu = tess_ch_mu_cpu,
    .cuda = TESS_CUDA_FN(tess_ch_mu_cuda),
    .shape = TESS_SHAPE_STAR,
    .radius = 1,
};

const tess_kernel tess_ch_update_kernel = {
    .name = "ch_update",
    .cpu = tess_ch_update_cpu,
    .cuda = TESS_CUDA_FN(tess_ch_update_cuda),
    .shape = TESS_SHAPE_STAR,
    .radius = 1,
};

/* star_diag, not star: mu at the neighbour e_i reads v at e_i +- e_j (see cahn_hilliard.h). */
const tess_kernel tess_ch_fused_kernel = {
    .name = "ch_fused",
    .cpu = tess_ch_fused_cpu,
    .cuda = TESS_CUDA_FN(tess_ch_fused_cuda),
    .shape = TESS_SHAPE_STAR_DIAG,
    .radius = 2,
};

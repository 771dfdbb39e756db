/* heat.c — explicit heat equation (forward Euler): the CPU reference and the kernel records.
 *
 * tess_heat_plan_make turns a region into the plain numbers a sweep needs (and is also what
 * the CUDA launcher in heat_cuda.cu calls), so every constant — weights, 1/h^2, dt*kappa — is
 * computed once, on the host, identically for both versions. The sweep walks z, y, c and then
 * x, so the inner loop is a unit-stride row the compiler can vectorise; vectorising does not
 * reorder the additions of one cell, so its result is still the order fixed in heat.h.
 *
 * This file must be compiled with -ffp-contract=off (the build sets it): a fused multiply-add
 * would round differently from the CUDA version, which spells out every rounding.
 * No StarPU here: the runtime wraps tess_kernel functions in its own codelets.
 */
#include "heat.h"
#include "region.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

_Noreturn static void tess_heat_fail(const char *file, int line, const char *msg) {
  fprintf(stderr, "%s:%d: heat kernel: %s\n", file, line, msg);
  abort();
}
#define TESS_HEAT_REQUIRE(cond, msg)                                                               \
  do {                                                                                             \
    if (!(cond)) tess_heat_fail(__FILE__, __LINE__, msg);                                          \
  } while (0)

int tess_heat_plan_make(const tess_region *r, int radius, tess_heat_plan *p) {
  if (tess_region_empty(r)) return 0;

  TESS_HEAT_REQUIRE(radius == 1 || radius == 3, "radius must be 1 or 3");
  TESS_HEAT_REQUIRE(r->nin >= 1 && r->nout >= 1, "needs one input and one output field");
  TESS_HEAT_REQUIRE(r->in[0] && r->out[0], "missing field array");
  TESS_HEAT_REQUIRE(r->in_nc[0] > 0 && r->in_nc[0] == r->out_nc[0],
                    "input and output need the same positive number of components");
  TESS_HEAT_REQUIRE(r->params != NULL, "missing tess_heat_params");
  TESS_HEAT_REQUIRE(tess_region_fits(r, radius),
                    "region plus stencil radius leaves the padded tile");

  const tess_heat_params *hp = r->params;
  for (int i = 0; i < 3; i++) {
    p->lo[i] = r->lo[i];
    p->n[i] = r->hi[i] - r->lo[i];
    p->active[i] = r->dim[i] > 1;
    p->inv_h2[i] = 1.0 / (r->h[i] * r->h[i]);
  }
  p->dim0 = r->dim[0];
  p->dim1 = r->dim[1];
  p->nc = r->in_nc[0];
  if (radius == 1) {
    p->b[0] = -2.0;
    p->b[1] = 1.0;
    p->b[2] = 0.0;
    p->b[3] = 0.0;
  } else {
    p->b[0] = -49.0 / 18.0;
    p->b[1] = 3.0 / 2.0;
    p->b[2] = -3.0 / 20.0;
    p->b[3] = 1.0 / 90.0;
  }
  p->coef = r->dt * hp->kappa;
  for (int i = 0; i < 3; i++)
    p->inv_h2_f[i] = (float)p->inv_h2[i];
  for (int i = 0; i < 4; i++)
    p->b_f[i] = (float)p->b[i];
  p->coef_f = (float)p->coef;
  p->prec = r->prec;
  p->in = r->in[0];
  p->out = r->out[0];
  return 1;
}

/* The sweep, once per element type (SFX _f64 / _f32; b, ih and coef in that type):
 *
 * tess_heat_d2: 1D second difference of f at f[0] along stride s, unscaled. R is a constant at
 * every call site, so the branches fold away. The weights beyond R are not added as zeros: that
 * would change nothing but the sign of a zero, yet it is easier to keep both versions
 * identical when they run the same operations.
 *
 * tess_heat_sweep: NA is the number of active axes, a constant at every call site like R, so
 * the inner loop is straight-line code. st/ih: stride and 1/h^2 of the active axes, in x, y, z
 * order. */
#define TESS_HEAT_SWEEP(real, SFX)                                                                 \
  static inline real tess_heat_d2##SFX(const real *f, ptrdiff_t s, int R, const real *b) {         \
    real acc = b[0] * f[0];                                                                        \
    acc = acc + b[1] * (f[s] + f[-s]);                                                             \
    if (R >= 2) acc = acc + b[2] * (f[2 * s] + f[-2 * s]);                                         \
    if (R >= 3) acc = acc + b[3] * (f[3 * s] + f[-3 * s]);                                         \
    return acc;                                                                                    \
  }                                                                                                \
  static inline void tess_heat_sweep##SFX(const tess_heat_plan *p, int R, int NA,                  \
                                          const ptrdiff_t *st, const real *ih, const real *b,      \
                                          real coef) {                                             \
    for (int z = p->lo[2]; z < p->lo[2] + p->n[2]; z++)                                            \
      for (int y = p->lo[1]; y < p->lo[1] + p->n[1]; y++)                                          \
        for (int c = 0; c < p->nc; c++) {                                                          \
          const size_t row = TESS_IDX(p->dim0, p->dim1, p->nc, c, p->lo[0], y, z);                 \
          const real *restrict u = (const real *)p->in + row;                                      \
          real *restrict o = (real *)p->out + row;                                                 \
          for (int x = 0; x < p->n[0]; x++) {                                                      \
            real lap = 0; /* stays 0 only on a grid with no active axis */                         \
            if (NA >= 1) lap = tess_heat_d2##SFX(u + x, st[0], R, b) * ih[0];                      \
            if (NA >= 2) lap = lap + tess_heat_d2##SFX(u + x, st[1], R, b) * ih[1];                \
            if (NA >= 3) lap = lap + tess_heat_d2##SFX(u + x, st[2], R, b) * ih[2];                \
            o[x] = u[x] + coef * lap;                                                              \
          }                                                                                        \
        }                                                                                          \
  }
TESS_HEAT_SWEEP(double, _f64)
TESS_HEAT_SWEEP(float, _f32)
#undef TESS_HEAT_SWEEP

static void tess_heat_run(const tess_heat_plan *p, int R) {
  const ptrdiff_t sy = (ptrdiff_t)p->dim0 * p->nc; /* next y, same component */
  const ptrdiff_t stride[3] = {1, sy, sy * (ptrdiff_t)p->dim1};
  ptrdiff_t st[3] = {0, 0, 0};
  double ih[3] = {0.0, 0.0, 0.0};
  float ih_f[3] = {0.0f, 0.0f, 0.0f};
  int na = 0;
  for (int a = 0; a < 3; a++)
    if (p->active[a]) {
      st[na] = stride[a];
      ih[na] = p->inv_h2[a];
      ih_f[na] = p->inv_h2_f[a];
      na++;
    }
#define TESS_HEAT_CASE(RR, NN)                                                                     \
  case 4 * (RR) + (NN):                                                                            \
    if (p->prec == TESS_FP32)                                                                      \
      tess_heat_sweep_f32(p, RR, NN, st, ih_f, p->b_f, p->coef_f);                                 \
    else                                                                                           \
      tess_heat_sweep_f64(p, RR, NN, st, ih, p->b, p->coef);                                       \
    break;
  switch (4 * R + na) {
    TESS_HEAT_CASE(1, 0)
    TESS_HEAT_CASE(1, 1)
    TESS_HEAT_CASE(1, 2)
    TESS_HEAT_CASE(1, 3)
    TESS_HEAT_CASE(3, 0)
    TESS_HEAT_CASE(3, 1)
    TESS_HEAT_CASE(3, 2)
    TESS_HEAT_CASE(3, 3)
  default:
    tess_heat_fail(__FILE__, __LINE__, "unsupported radius");
  }
#undef TESS_HEAT_CASE
}

void tess_heat2_cpu(const tess_region *r) {
  tess_heat_plan p;
  if (tess_heat_plan_make(r, 1, &p)) tess_heat_run(&p, 1);
}

void tess_heat6_cpu(const tess_region *r) {
  tess_heat_plan p;
  if (tess_heat_plan_make(r, 3, &p)) tess_heat_run(&p, 3);
}

const tess_kernel tess_heat2_kernel = {
    .name = "heat2",
    .cpu = tess_heat2_cpu,
    .cuda = TESS_CUDA_FN(tess_heat2_cuda),
    .shape = TESS_SHAPE_STAR,
    .radius = 1,
    .cpu_f32 = tess_heat2_cpu,
    .cuda_f32 = TESS_CUDA_FN(tess_heat2_cuda),
};

const tess_kernel tess_heat6_kernel = {
    .name = "heat6",
    .cpu = tess_heat6_cpu,
    .cuda = TESS_CUDA_FN(tess_heat6_cuda),
    .shape = TESS_SHAPE_STAR,
    .radius = 3,
    .cpu_f32 = tess_heat6_cpu,
    .cuda_f32 = TESS_CUDA_FN(tess_heat6_cuda),
};

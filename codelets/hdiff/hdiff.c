/* hdiff.c — horizontal diffusion (hdiff.h): region checks, the CPU sweep, the kernel records.
 *
 * Built with -ffp-contract=off (the build sets it for the codelets), so the expressions of
 * hdiff_cell.h round exactly as the CUDA version's __dadd_rn / __dmul_rn do.
 */
#include "hdiff.h"
#include "region.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define HD_QUAL      static inline
#define HD_ADD(a, b) ((a) + (b))
#define HD_SUB(a, b) ((a) - (b))
#define HD_MUL(a, b) ((a) * (b))
#include "hdiff_cells.h"

_Noreturn static void hdiff_fail(const char *msg) {
  fprintf(stderr, "hdiff kernel: %s\n", msg);
  abort();
}

/* Inputs per kernel, and their reach (low, high) along x and y. */
static const int nin_of[4] = {1, 2, 2, 3};
static const int reach_x[4][2] = {{-1, 1}, {0, 1}, {0, 0}, {-1, 0}};
static const int reach_y[4][2] = {{-1, 1}, {0, 0}, {0, 1}, {-1, 0}};

int tess_hdiff_plan_make(const tess_region *r, tess_hdiff_op op, tess_hdiff_plan *p) {
  if (tess_region_empty(r)) return 0;
  if (r->nin != nin_of[op] || r->nout != 1) hdiff_fail("wrong number of inputs or outputs");
  for (int k = 0; k < r->nin; k++)
    if (!r->in[k] || r->in_nc[k] != r->out_nc[0]) hdiff_fail("missing array or mismatched nc");
  if (op == TESS_HDIFF_OUT && !r->params) hdiff_fail("missing tess_hdiff_params");
  p->op = op;
  for (int i = 0; i < 3; i++) {
    p->lo[i] = r->lo[i];
    p->n[i] = r->hi[i] - r->lo[i];
  }
  const int act[2] = {r->global[0] > 1, r->global[1] > 1};
  const int lo[2] = {act[0] ? reach_x[op][0] : 0, act[1] ? reach_y[op][0] : 0};
  const int hi[2] = {act[0] ? reach_x[op][1] : 0, act[1] ? reach_y[op][1] : 0};
  for (int i = 0; i < 2; i++)
    if (r->lo[i] + lo[i] < 0 || r->hi[i] + hi[i] > r->dim[i])
      hdiff_fail("region plus footprint leaves the padded tile");
  if (r->lo[2] < 0 || r->hi[2] > r->dim[2]) hdiff_fail("region leaves the tile along z");
  p->dim0 = r->dim[0];
  p->dim1 = r->dim[1];
  p->nc = r->out_nc[0];
  p->sx = act[0] ? 1 : 0;
  p->sy = act[1] ? (long long)r->dim[0] * r->out_nc[0] : 0;
  p->coeff = op == TESS_HDIFF_OUT ? ((const tess_hdiff_params *)r->params)->coeff : 0;
  p->coeff_f = (float)p->coeff;
  p->prec = r->prec;
  for (int k = 0; k < 3; k++)
    p->in[k] = k < r->nin ? (const void *)r->in[k] : NULL;
  p->out = r->out[0];
  return 1;
}

#define SWEEP(T, SFX, COEFF)                                                                       \
  do {                                                                                             \
    const T *a = p.in[0], *b = p.in[1], *c = p.in[2];                                              \
    T *o = p.out;                                                                                  \
    for (int z = 0; z < p.n[2]; z++)                                                               \
      for (int y = 0; y < p.n[1]; y++)                                                             \
        for (int cc = 0; cc < p.nc; cc++) {                                                        \
          const long long k0 =                                                                     \
              (long long)TESS_IDX(p.dim0, p.dim1, p.nc, cc, p.lo[0], p.lo[1] + y, p.lo[2] + z);    \
          for (int x = 0; x < p.n[0]; x++)                                                         \
            o[k0 + x] = hdiff_cell_##SFX(p.op, a, b, c, k0 + x, p.sx, p.sy, COEFF);                \
        }                                                                                          \
  } while (0)

void tess_hdiff_cpu(const tess_region *r, tess_hdiff_op op) {
  tess_hdiff_plan p;
  if (!tess_hdiff_plan_make(r, op, &p)) return;
  if (p.prec == TESS_FP32)
    SWEEP(float, f32, p.coeff_f);
  else
    SWEEP(double, f64, p.coeff);
}

static void lap_cpu(const tess_region *r) { tess_hdiff_cpu(r, TESS_HDIFF_LAP); }
static void fli_cpu(const tess_region *r) { tess_hdiff_cpu(r, TESS_HDIFF_FLI); }
static void flj_cpu(const tess_region *r) { tess_hdiff_cpu(r, TESS_HDIFF_FLJ); }
static void out_cpu(const tess_region *r) { tess_hdiff_cpu(r, TESS_HDIFF_OUT); }
#ifdef TESS_HAVE_CUDA
static void lap_cuda(const tess_region *r, void *s) { tess_hdiff_cuda(r, TESS_HDIFF_LAP, s); }
static void fli_cuda(const tess_region *r, void *s) { tess_hdiff_cuda(r, TESS_HDIFF_FLI, s); }
static void flj_cuda(const tess_region *r, void *s) { tess_hdiff_cuda(r, TESS_HDIFF_FLJ, s); }
static void out_cuda(const tess_region *r, void *s) { tess_hdiff_cuda(r, TESS_HDIFF_OUT, s); }
#endif

/* reach {lo}, {hi} per input, as in the table above (z: none) */
#define REACH(x0, x1, y0, y1)                                                                      \
  {                                                                                                \
    {x0, y0, 0}, { x1, y1, 0 }                                                                     \
  }
#define HDIFF_KERNEL(var, nm, fn, n, ...)                                                          \
  const tess_kernel var = {.name = nm,                                                             \
                           .cpu = fn##_cpu,                                                        \
                           .cuda = TESS_CUDA_FN(fn##_cuda),                                        \
                           .shape = TESS_SHAPE_STAR,                                               \
                           .cpu_f32 = fn##_cpu,                                                    \
                           .cuda_f32 = TESS_CUDA_FN(fn##_cuda),                                    \
                           .nreach = n,                                                            \
                           .reach = {__VA_ARGS__}}

HDIFF_KERNEL(tess_hdiff_lap_kernel, "hdiff_lap", lap, 1, REACH(-1, 1, -1, 1));
HDIFF_KERNEL(tess_hdiff_fli_kernel, "hdiff_fli", fli, 2, REACH(0, 1, 0, 0), REACH(0, 1, 0, 0));
HDIFF_KERNEL(tess_hdiff_flj_kernel, "hdiff_flj", flj, 2, REACH(0, 0, 0, 1), REACH(0, 0, 0, 1));
HDIFF_KERNEL(tess_hdiff_out_kernel, "hdiff_out", out, 3, REACH(0, 0, 0, 0), REACH(-1, 0, 0, 0),
             REACH(0, 0, -1, 0));

/* heat.h — explicit heat equation, forward Euler, as two tessera kernels.
 *
 *     out[0] = in[0] + dt * kappa * Laplacian(in[0])     on every cell of [lo, hi), every component
 *
 * The Laplacian sums, over the active axes (dim[i] > 1, i.e. ghost[i] > 0), the 1D second
 * difference of order 2 (radius 1, weights {-2, 1}/h^2) or 6 (radius 3, weights
 * {-49/18, 3/2, -3/20, 1/90}/h^2). in[0] and out[0] have the same nc and must not alias.
 *
 * Bitwise reproducibility: the value of a cell depends only on the input values, never on the
 * region or the tiling, and the CPU and CUDA versions produce identical bits. Both evaluate
 *
 *     d_a = (((b0*f0 + b1*(f[+1]+f[-1])) + b2*(f[+2]+f[-2])) + b3*(f[+3]+f[-3])) * inv_h2[a]
 *     lap = (d_x + d_y) + d_z           (inactive axes skipped, not added as 0)
 *     out = u + (dt*kappa) * lap
 *
 * in this order, without fused multiply-adds, from constants computed once on the host by
 * tess_heat_plan_make (shared by both versions so they cannot drift apart). Single precision
 * (region.prec == TESS_FP32) runs the same sequence in float, on the constants rounded once to
 * float by tess_heat_plan_make.
 */
#ifndef TESS_HEAT_H
#define TESS_HEAT_H

#include "tessera_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double kappa;     /* diffusivity */
} tess_heat_params; /* the stage's params block */

extern const tess_kernel tess_heat2_kernel; /* "heat2", TESS_SHAPE_STAR, radius 1 */
extern const tess_kernel tess_heat6_kernel; /* "heat6", TESS_SHAPE_STAR, radius 3 */

/* CPU reference versions: synchronous, on the calling thread; either precision (r->prec). */
void tess_heat2_cpu(const tess_region *r);
void tess_heat6_cpu(const tess_region *r);

#ifdef TESS_HAVE_CUDA
/* Asynchronous: enqueue one kernel on `stream` (a cudaStream_t) and return. Array pointers
 * in r are device pointers; r itself and its params are host memory. Either precision. */
void tess_heat2_cuda(const tess_region *r, void *stream);
void tess_heat6_cuda(const tess_region *r, void *stream);
#endif

/* ---- shared by heat.c and heat_cuda.cu, not for apps ------------------------------------- */

/* Everything one sweep needs, by value (the CUDA kernel receives it as its argument). */
typedef struct {
  int lo[3], n[3];                   /* region start and extent */
  int dim0, dim1;                    /* padded tile extent in x and y (strides) */
  int nc;                            /* components */
  int active[3];                     /* axis has a stencil (dim > 1) */
  double inv_h2[3];                  /* 1 / h^2 per axis */
  double b[4];                       /* weights b0..b3 (b_k = 0 beyond the radius) */
  double coef;                       /* dt * kappa */
  float inv_h2_f[3], b_f[4], coef_f; /* the same, rounded once to float (TESS_FP32) */
  tess_precision prec;
  const void *in; /* in[0]: double or float elements */
  void *out;      /* out[0] */
} tess_heat_plan;

/* Checks r against a stencil of the given radius (1 or 3) and fills p. Returns 0 for an empty
 * region (nothing to do), 1 otherwise; reports and aborts on a region whose stencil would
 * leave the tile, on mismatched components or on missing params, as those are runtime bugs. */
int tess_heat_plan_make(const tess_region *r, int radius, tess_heat_plan *p);

#ifdef __cplusplus
}
#endif
#endif

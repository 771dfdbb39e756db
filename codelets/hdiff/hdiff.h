/* hdiff.h — COSMO's flux-limited horizontal diffusion as four tessera kernels (seed digest
 * 3.4), on an (i, j, k) grid, i = x, j = y, every component of a field on its own:
 *
 *     lap = in[i-1] + in[i+1] + in[j-1] + in[j+1] - 4 in                    (tess_hdiff_lap)
 *     fli = lap[i+1] - lap, 0 where fli (in[i+1] - in) > 0                    (tess_hdiff_fli)
 *     flj = lap[j+1] - lap, 0 where flj (in[j+1] - in) > 0                    (tess_hdiff_flj)
 *     out = in - coeff (fli - fli[i-1] + flj - flj[j-1])                      (tess_hdiff_out)
 *
 * Without the limiter this is out = in - coeff Lap^2 in, fourth-order diffusion, stable for
 * coeff < 1/32. The footprints are declared per input and one-sided (tessera_kernel.h), with
 * no reach in z, so the runtime exchanges no z halo, and with the recompute strategy it runs
 * lap, fli and flj on the extents their consumers read (docs/multistage.md).
 *
 * On an axis of global extent 1 the neighbours are the cell itself (periodic), so the kernels
 * run unchanged on 1 x n and n x 1 grids. Bitwise: the CPU (built with -ffp-contract=off) and
 * CUDA (__dadd_rn / __dmul_rn, never contracted) versions evaluate the same expressions,
 * hdiff_cell.h, in the same order; single precision runs them in float with coeff rounded
 * once to float.
 */
#ifndef TESS_HDIFF_H
#define TESS_HDIFF_H

#include "tessera_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double coeff;      /* 0 <= coeff < 1/32 (the app checks) */
} tess_hdiff_params; /* the params block of tess_hdiff_out */

/* in: {in} -> lap;  {lap, in} -> fli;  {lap, in} -> flj;  {in, fli, flj} -> out */
extern const tess_kernel tess_hdiff_lap_kernel;
extern const tess_kernel tess_hdiff_fli_kernel;
extern const tess_kernel tess_hdiff_flj_kernel;
extern const tess_kernel tess_hdiff_out_kernel;

/* ---- shared by hdiff.c and hdiff_cuda.cu, not for apps ------------------------------------ */

typedef enum { TESS_HDIFF_LAP, TESS_HDIFF_FLI, TESS_HDIFF_FLJ, TESS_HDIFF_OUT } tess_hdiff_op;

/* One sweep, by value: region start and extent, strides, arrays (double or float). */
typedef struct {
  tess_hdiff_op op;
  int lo[3], n[3];
  int dim0, dim1, nc;
  long long sx, sy; /* element strides of i and j neighbours (0 on an axis of extent 1) */
  double coeff;
  float coeff_f;
  tess_precision prec;
  const void *in[3];
  void *out;
} tess_hdiff_plan;

/* Checks r for kernel `op` (inputs, components, the region plus the reach inside the tile) and
 * fills p; 0 for an empty region. Aborts with a message on a runtime bug. */
int tess_hdiff_plan_make(const tess_region *r, tess_hdiff_op op, tess_hdiff_plan *p);

void tess_hdiff_cpu(const tess_region *r, tess_hdiff_op op);
#ifdef TESS_HAVE_CUDA
void tess_hdiff_cuda(const tess_region *r, tess_hdiff_op op, void *stream);
#endif

#ifdef __cplusplus
}
#endif
#endif

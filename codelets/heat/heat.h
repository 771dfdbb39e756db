/* heat.h — explicit heat equation, forward Euler, as two tessera kernels.
 *
 *     out[0] = in[0] + dt * kappa * Laplacian(in[0])     on every cell of [lo, hi), every component
 *
 * The Laplacian sums, over the active axes (dim[i] > 1, i.e. ghost[i] > 0), the 1D second
 * difference of order 2 (radius 1, weights {-2, 1}/h^2) or 6 (radius 3, weights
 * {-49/18, 3/2, -3/20, 1/90}/h^2). in[0] and out[0] have the same nc and must not alias.
 *
 * The arithmetic is heat_cell.h, written once for CPU and CUDA, double and single (the stencil
 * layer, stencil/stencil.h): a cell's value depends only on the input values, never on the
 * region or the tiling, and the CPU and CUDA versions produce identical bits.
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

/* The constants' slots (heat.c fills them, heat_cell.h reads them): dt*kappa, 1/h^2 per axis,
 * the weights b0..b3. */
enum { HEAT_COEF, HEAT_IH2, HEAT_B = HEAT_IH2 + 3 };

#ifdef __cplusplus
}
#endif
#endif

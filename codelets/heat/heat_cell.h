/* heat_cell.h — the heat kernels' arithmetic, once (compiled by heat.c and heat_cuda.cu through
 * the stencil layer, stencil/stencil.h, for double and float):
 *
 *     out = u + (dt*kappa) * ((d_x + d_y) + d_z)           inactive axes skipped, not added as 0
 *     d_a = (((b0*u + b1*(u[+1]+u[-1])) + b2*(u[+2]+u[-2])) + b3*(u[+3]+u[-3])) * (1/h_a^2)
 *
 * on every component; b: weights of order 2 (radius 1) or 6 (radius 3), constants HEAT_* below.
 */
#include "heat.h" /* HEAT_* constant slots */

TESS_HD real TESS_FN(heat_d2)(const tess_cell *c, int comp, int a, int R) {
  real acc = TESS_K(c, HEAT_B) * TESS_AX(c, 0, comp, a, 0);
  for (int k = 1; k <= R; k++)
    acc = acc + TESS_K(c, HEAT_B + k) * (TESS_AX(c, 0, comp, a, k) + TESS_AX(c, 0, comp, a, -k));
  return acc * TESS_K(c, HEAT_IH2 + a);
}

TESS_HD void TESS_FN(heat_cell)(const tess_cell *c, int R) {
  for (int comp = 0; comp < TESS_NC(c); comp++) {
    real lap = 0; /* stays 0 only on a grid with no active axis */
    int first = 1;
    for (int a = 0; a < 3; a++)
      if (TESS_ACTIVE(c, a)) {
        const real d = TESS_FN(heat_d2)(c, comp, a, R);
        lap = first ? d : lap + d;
        first = 0;
      }
    TESS_OUT(c, 0, comp) = TESS_AX(c, 0, comp, 0, 0) + TESS_K(c, HEAT_COEF) * lap;
  }
}

TESS_HD void TESS_FN(heat2_cell)(const tess_cell *c) { TESS_FN(heat_cell)(c, 1); }
TESS_HD void TESS_FN(heat6_cell)(const tess_cell *c) { TESS_FN(heat_cell)(c, 3); }

/* staged z-marches in 3D: a lone tile reads its periodic images (stencil/cpu.h) */
#define TESS_STENCIL_WRAP_heat2 ~, TESS_WRAP_CUDA
#define TESS_STENCIL_WRAP_heat6 ~, TESS_WRAP_CUDA
/* and a lone walled tile's ghosts filled as the z-march stages its planes (stencil/cpu.h) */
#define TESS_STENCIL_FILL_heat2 ~, TESS_FILLS_CUDA
#define TESS_STENCIL_FILL_heat6 ~, TESS_FILLS_CUDA
TESS_STENCIL(heat2, TESS_SHAPE_STAR, 1, TESS_FN(heat2_cell), tess_heat2_consts, .nin_min = 1,
             .nin_max = 1, .nout = 1)
TESS_STENCIL(heat6, TESS_SHAPE_STAR, 3, TESS_FN(heat6_cell), tess_heat6_consts, .nin_min = 1,
             .nin_max = 1, .nout = 1)

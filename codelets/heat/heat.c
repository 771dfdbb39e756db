/* heat.c — explicit heat equation (forward Euler): the constants and the CPU side of the
 * kernels whose arithmetic is heat_cell.h (the stencil layer builds the sweeps, the CUDA entry
 * points and the kernel records from it; heat_cuda.cu builds the GPU side). */
#include "heat.h"

#include "stencil/stencil.h"

/* Host constants in double (the layer rounds them once to float for single precision). */
static void heat_consts(const tess_region *r, double *k, int R) {
  static const double b2[4] = {-2.0, 1.0, 0.0, 0.0};
  static const double b6[4] = {-49.0 / 18.0, 3.0 / 2.0, -3.0 / 20.0, 1.0 / 90.0};
  k[HEAT_COEF] = r->dt * ((const tess_heat_params *)r->params)->kappa;
  for (int a = 0; a < 3; a++)
    k[HEAT_IH2 + a] = 1.0 / (r->h[a] * r->h[a]);
  for (int i = 0; i < 4; i++)
    k[HEAT_B + i] = R == 1 ? b2[i] : b6[i];
}
static void tess_heat2_consts(const tess_region *r, double *k) { heat_consts(r, k, 1); }
static void tess_heat6_consts(const tess_region *r, double *k) { heat_consts(r, k, 3); }

#define TESS_STENCIL_SOURCE "heat_cell.h"
#include "stencil/cpu.h"

/* maxwell.c — the Maxwell kernel's host constants; the layer builds the rest from maxwell_cell.h.
 */
#include "maxwell.h"
#include "mhd.h" /* TESS_MHD_RK3_ALPHA / _BETA: the integrator MHD uses */
#include "stencil/stencil.h"

static void tess_maxwell_consts(const tess_region *r, double *k) {
  const tess_maxwell_params *p = r->params;
  const double alpha[3] = TESS_MHD_RK3_ALPHA, beta[3] = TESS_MHD_RK3_BETA;
  const int s = p->substep;
  TESS_STENCIL_REQUIRE("maxwell_rk3", s >= 0 && s <= 2, "substep must be 0, 1 or 2");
  k[MW_BETA] = beta[s];
  k[MW_GAP] = s ? alpha[s] / beta[s - 1] : 0.0;
  k[MW_READ] = s > 0;
  k[MW_DT] = p->dt;
  k[MW_CE] = 1.0 / p->eps;
  k[MW_CH] = -1.0 / p->mu;
  for (int a = 0; a < 3; a++)
    k[MW_IH + a] = 1.0 / r->h[a];
  k[MW_A] = 3.0 / 4.0;
  k[MW_A + 1] = -3.0 / 20.0;
  k[MW_A + 2] = 1.0 / 60.0;
}

#define TESS_STENCIL_SOURCE "maxwell_cell.h"
#include "stencil/cpu.h"

/* cahn_hilliard.c — Cahn–Hilliard kernels: the host constants, the CPU side of the kernels whose
 * arithmetic is ch_cell.h (the stencil layer builds the sweeps, the CUDA entry points and the
 * kernel records from it; cahn_hilliard_cuda.cu builds the GPU side), and the stability
 * helpers. Compiled with -ffp-contract=off (the build sets it), as the layer requires.
 */
#include "cahn_hilliard.h"

#include <math.h>

/* Host constants in double (the layer rounds them once to float for single precision). */
static void tess_ch_consts(const tess_region *r, double *k) {
  const tess_ch_params *cp = r->params;
  k[CH_NEG_B] = -cp->B;
  k[CH_U] = cp->U;
  k[CH_K] = cp->K;
  k[CH_COEF] = cp->dt * cp->M;
  k[CH_C0] = cp->c0;
  k[CH_C1] = cp->c1;
  for (int a = 0; a < 3; a++)
    k[CH_IH2 + a] = 1.0 / (r->h[a] * r->h[a]);
}

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

#define TESS_STENCIL_SOURCE "ch_cell.h"
#include "stencil/cpu.h"

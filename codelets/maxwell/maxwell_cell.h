/* maxwell_cell.h — the Maxwell RK3 substep (maxwell.h), once for CPU and CUDA, double and float. */
#include "maxwell.h"

/* dF_comp/dx_a, 6th order; 0 along an inactive axis (its offsets read the cell itself). */
TESS_HD real TESS_FN(mw_d1)(const tess_cell *c, int comp, int a) {
  real s = TESS_K(c, MW_A) * (TESS_AX(c, 0, comp, a, 1) - TESS_AX(c, 0, comp, a, -1));
  for (int k = 2; k <= 3; k++)
    s = s + TESS_K(c, MW_A + k - 1) * (TESS_AX(c, 0, comp, a, k) - TESS_AX(c, 0, comp, a, -k));
  return s * TESS_K(c, MW_IH + a);
}

TESS_HD void TESS_FN(mw_rk3_cell)(const tess_cell *c) {
  TESS_UNROLL
  for (int i = 0; i < 6; i++) {
    const int f = i < 3 ? 3 : 0, j = (i + 1) % 3, k = (i + 2) % 3; /* F_i = coef (curl of f)_i */
    const real curl = TESS_FN(mw_d1)(c, f + k, j) - TESS_FN(mw_d1)(c, f + j, k);
    const real rhs = TESS_K(c, i < 3 ? MW_CE : MW_CH) * curl, u = TESS_AX(c, 0, i, 0, 0);
    real g = TESS_K(c, MW_DT) * rhs;
    if (TESS_K(c, MW_READ) != 0) g = TESS_K(c, MW_GAP) * (u - TESS_OUT(c, 0, i)) + g;
    TESS_OUT(c, 0, i) = u + TESS_K(c, MW_BETA) * g;
  }
}

/* staged z-march in 3D: a lone tile reads its periodic images (stencil/cpu.h) */
#define TESS_STENCIL_WRAP_maxwell_rk3 ~, TESS_WRAP_CUDA
TESS_STENCIL(maxwell_rk3, TESS_SHAPE_STAR, 3, TESS_FN(mw_rk3_cell), tess_maxwell_consts,
             .nin_min = 1, .nin_max = 1, .nout = 1, .nc = 6)

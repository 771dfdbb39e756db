/* maxwell.h — Maxwell's equations in a uniform medium, one RK3 substep per stage:
 *     eps dE/dt = curl H,   mu dH/dt = -curl E      state (Ex, Ey, Ez, Hx, Hy, Hz): 6 components
 * curl by 6th-order central first differences {3/4, -3/20, 1/60}/h (0 along inactive axes), time
 * by Williamson's 2N-storage RK3 in the register-free form of mhd.h (same coefficients):
 *     out = in + beta_k ((alpha_k / beta_(k-1)) (in - out) + dt F(in))   (k = 0: no (in - out))
 * in[0] = u^k (stencil: star, radius 3); out[0] = u^(k-1), read at the cell for k > 0. */
#ifndef TESS_MAXWELL_H
#define TESS_MAXWELL_H

#include "tessera_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double eps, mu, dt;
  int substep; /* 0, 1, 2 */
} tess_maxwell_params;

extern const tess_kernel tess_maxwell_rk3_kernel; /* "maxwell_rk3", TESS_SHAPE_STAR, radius 3 */

/* Constant slots (maxwell.c fills them, maxwell_cell.h reads them). */
enum { MW_BETA, MW_GAP, MW_READ, MW_DT, MW_CE, MW_CH, MW_IH, MW_A = MW_IH + 3 };

#ifdef __cplusplus
}
#endif
#endif

/* rd2_cell.h — a two-component reaction–diffusion kernel (Gray–Scott) written the way a user
 * writes one, for bench/layer-cpu.sh: one field of two components (u, v), star of radius 1.
 *
 *     out_u = u + dt ((Du lap u - u v v) + F (1 - u))
 *     out_v = v + dt ((Dv lap v + u v v) - (F + k) v)
 *     lap f = ((((f[+x] + f[-x]) + (f[+y] + f[-y])) + (f[+z] + f[-z])) - 6 f) / h^2
 *
 * (a 3D grid of equal spacing; hand.h computes the same in the same order). */
#include "rd2.h"

TESS_HD real TESS_FN(rd2_lap)(const tess_cell *c, int comp) {
  const real s = ((TESS_AX(c, 0, comp, 0, 1) + TESS_AX(c, 0, comp, 0, -1)) +
                  (TESS_AX(c, 0, comp, 1, 1) + TESS_AX(c, 0, comp, 1, -1))) +
                 (TESS_AX(c, 0, comp, 2, 1) + TESS_AX(c, 0, comp, 2, -1));
  return (s - (real)6 * TESS_AX(c, 0, comp, 0, 0)) * TESS_K(c, RD2_IH2);
}

TESS_HD void TESS_FN(rd2_cell)(const tess_cell *c) {
  const real u = TESS_AX(c, 0, 0, 0, 0), v = TESS_AX(c, 0, 1, 0, 0), uvv = (u * v) * v;
  const real lu = TESS_FN(rd2_lap)(c, 0), lv = TESS_FN(rd2_lap)(c, 1);
  TESS_OUT(c, 0, 0) =
      u + TESS_K(c, RD2_DT) * ((TESS_K(c, RD2_DU) * lu - uvv) + TESS_K(c, RD2_F) * ((real)1 - u));
  TESS_OUT(c, 0, 1) =
      v + TESS_K(c, RD2_DT) * ((TESS_K(c, RD2_DV) * lv + uvv) - TESS_K(c, RD2_FK) * v);
}

TESS_STENCIL(rd2, TESS_SHAPE_STAR, 1, TESS_FN(rd2_cell), rd2_consts, .nin_min = 1, .nin_max = 1,
             .nout = 1, .nc = 2)

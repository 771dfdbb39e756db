/* skel_cell.h — the skeleton kernel's arithmetic, once for CPU and CUDA, double and float: a
 * two-component state u diffusing with a one-component coefficient field a (fields of different
 * component counts in one kernel):
 *
 *     u_new_c = u_c + dt (a Lap u_c),   Lap: 2nd order, inactive axes skipped
 *
 * Only + - * / (no libm), so CPU and GPU round alike. */
#include "skel.h"

TESS_HD real TESS_FN(skel_lap)(const tess_cell *c, int comp) {
  real lap = 0;
  int first = 1;
  TESS_UNROLL
  for (int a = 0; a < 3; a++)
    if (TESS_ACTIVE(c, a)) {
      const real d = ((TESS_AX(c, 0, comp, a, 1) + TESS_AX(c, 0, comp, a, -1)) -
                      (real)2 * TESS_AX(c, 0, comp, a, 0)) *
                     TESS_K(c, SKEL_IH2 + a);
      lap = first ? d : lap + d;
      first = 0;
    }
  return lap;
}

TESS_HD void TESS_FN(skel_cell)(const tess_cell *c) {
  const real a = TESS_AX(c, 1, 0, 0, 0);
  TESS_UNROLL
  for (int comp = 0; comp < 2; comp++)
    TESS_OUT(c, 0, comp) =
        TESS_AX(c, 0, comp, 0, 0) + TESS_K(c, SKEL_DT) * (a * TESS_FN(skel_lap)(c, comp));
}

/* footprint: star of radius 1; u has 2 components, a 1, the output 2 */
TESS_STENCIL(skel, TESS_SHAPE_STAR, 1, TESS_FN(skel_cell), skel_consts, .nin_min = 2, .nin_max = 2,
             .nout = 1, .in_nc = {2, 1}, .out_nc = {2})

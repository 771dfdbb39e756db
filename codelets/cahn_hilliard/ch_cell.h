/* ch_cell.h — the Cahn–Hilliard kernels' arithmetic, once (compiled by cahn_hilliard.c and
 * cahn_hilliard_cuda.cu through the stencil layer, stencil/stencil.h, for double and float).
 * The formulas and their evaluation order are those of cahn_hilliard.h; ch_fused is the
 * two-level form of ch_mu followed by ch_update (inner mu, outer the update over mu's seven
 * values), so the two give the same bits. Constant slots: CH_* in cahn_hilliard.h. */
#include "cahn_hilliard.h"

/* ((f[+e_a] + f[-e_a]) - 2 f[0]) / h_a^2 */
TESS_HD real TESS_FN(ch_d2)(real fp, real fm, real f0, real ih) {
  return ((fp + fm) - (real)2 * f0) * ih;
}

/* Lap from the values at the cell (m[0]) and at +-e_a (m[1 + 2a], m[2 + 2a]); the first active
 * axis is assigned, the others added (inactive axes skipped, not added as 0). */
TESS_HD real TESS_FN(ch_lap)(const tess_cell *c, const real *m) {
  real lap = 0;
  int first = 1;
  for (int a = 0; a < 3; a++)
    if (TESS_ACTIVE(c, a)) {
      const real d = TESS_FN(ch_d2)(m[1 + 2 * a], m[2 + 2 * a], m[0], TESS_K(c, CH_IH2 + a));
      lap = first ? d : lap + d;
      first = 0;
    }
  return lap;
}

/* in[0] at the cell and its star neighbours, as ch_lap reads them. */
TESS_HD void TESS_FN(ch_star)(const tess_cell *c, real *m) {
  m[0] = TESS_AX(c, 0, 0, 0, 0);
  for (int a = 0; a < 3; a++) {
    m[1 + 2 * a] = TESS_AX(c, 0, 0, a, 1);
    m[2 + 2 * a] = TESS_AX(c, 0, 0, a, -1);
  }
}

/* mu(v) = ((-B) v + U ((v v) v)) - K Lap(v),  v = in[0] */
TESS_HD real TESS_FN(ch_mu_at)(const tess_cell *c) {
  real m[7];
  TESS_FN(ch_star)(c, m);
  const real v = m[0];
  return (TESS_K(c, CH_NEG_B) * v + TESS_K(c, CH_U) * ((v * v) * v)) -
         TESS_K(c, CH_K) * TESS_FN(ch_lap)(c, m);
}

/* c1 (v + (dt M) lap_mu), then (c0 w) + that when the stage has w (input slot iw). */
TESS_HD void TESS_FN(ch_combine)(const tess_cell *c, real v, real lap_mu, int iw) {
  const real e = TESS_K(c, CH_C1) * (v + TESS_K(c, CH_COEF) * lap_mu);
  TESS_OUT(c, 0, 0) = TESS_NIN(c) > iw ? TESS_K(c, CH_C0) * TESS_AX(c, iw, 0, 0, 0) + e : e;
}

TESS_HD void TESS_FN(ch_mu_cell)(const tess_cell *c) { TESS_OUT(c, 0, 0) = TESS_FN(ch_mu_at)(c); }

/* in = (mu, v[, w]) */
TESS_HD void TESS_FN(ch_update_cell)(const tess_cell *c) {
  real m[7];
  TESS_FN(ch_star)(c, m);
  TESS_FN(ch_combine)(c, TESS_AX(c, 1, 0, 0, 0), TESS_FN(ch_lap)(c, m), 2);
}

/* in = (v[, w]); m: mu at the cell and its star neighbours */
TESS_HD void TESS_FN(ch_fused_outer)(const tess_cell *c, const real *m) {
  TESS_FN(ch_combine)(c, TESS_AX(c, 0, 0, 0, 0), TESS_FN(ch_lap)(c, m), 1);
}

TESS_STENCIL(ch_mu, TESS_SHAPE_STAR, 1, TESS_FN(ch_mu_cell), tess_ch_consts, .nin_min = 1,
             .nin_max = 1, .nout = 1, .nc = 1)
TESS_STENCIL(ch_update, TESS_SHAPE_STAR, 1, TESS_FN(ch_update_cell), tess_ch_consts, .nin_min = 2,
             .nin_max = 3, .nout = 1, .nc = 1)
/* star_diag, not star: mu at the neighbour e_i reads v at e_i +- e_j (see cahn_hilliard.h).
 * Staged in 3D: a lone tile reads its periodic images (stencil/cpu.h); ch_mu and ch_update run
 * cell by cell and copy. */
#define TESS_STENCIL_WRAP_ch_fused ~, TESS_WRAP_CUDA
TESS_STENCIL2(ch_fused, TESS_SHAPE_STAR_DIAG, 2, TESS_FN(ch_mu_at), TESS_FN(ch_fused_outer),
              tess_ch_consts, .nin_min = 1, .nin_max = 2, .nout = 1, .nc = 1)

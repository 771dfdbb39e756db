/* mhd_cpu_body.h — the MHD kernel's CPU version: the data movement around mhd_cell.h's
 * arithmetic (the same arithmetic the CUDA kernel runs), written once for both precisions.
 *
 * mhd.c includes this file twice (there is no include guard on purpose), with real, TESS_MHD_FN,
 * TESS_MHD_F32 and TESS_MHD_HD as mhd_cell.h asks, and TESS_MHD_PREC (the tess_precision the
 * region must carry), TESS_MHD_IN(r), TESS_MHD_OUT(r) (its arrays of that type), TESS_MHD_TAB
 * (exp's table). Everything else (TESS_MHD_REQUIRE) comes from mhd.c.
 *
 * Per cell: gather each component's stencil values (7 along each active axis, 12 per mixed
 * pair), hand them to mhd_cell.h's derivatives, then F and the RK3 combination.
 */
#include "mhd_cell.h"

/* The 7 values of f at offsets -3..3 along stride s. */
static void TESS_MHD_FN(tess_mhd_line)(const real *f, ptrdiff_t s, real v[7]) {
  for (int k = -TESS_MHD_RADIUS; k <= TESS_MHD_RADIUS; k++)
    v[k + TESS_MHD_RADIUS] = f[k * s];
}

/* d^2 f / (da db) at f, strides sa, sb: the 12 values along the two diagonals. */
static real TESS_MHD_FN(tess_mhd_mixed)(const real *f, ptrdiff_t sa, ptrdiff_t sb, real ihh) {
  const ptrdiff_t p = sa + sb, m = sa - sb;
  real q[3][4];
  for (int k = 1; k <= 3; k++) {
    q[k - 1][0] = f[k * p];
    q[k - 1][1] = f[-k * p];
    q[k - 1][2] = f[k * m];
    q[k - 1][3] = f[-k * m];
  }
  return TESS_MHD_FN(tess_mhd_dermix)(q, ihh);
}

/* Every derivative F needs at the cell whose component 0 is f; comp: distance between
 * components; s: strides along x, y, z. */
static void TESS_MHD_FN(tess_mhd_cell_derivs)(const real *f, ptrdiff_t comp, const ptrdiff_t s[3],
                                              const TESS_MHD_T(tess_mhd_coef) * p,
                                              TESS_MHD_T(tess_mhd_derivs) * d) {
  real d2[TESS_MHD_NC][3];
  for (int c = 0; c < TESS_MHD_NC; c++) {
    const real *fc = f + c * comp;
    real g[3];
    for (int a = 0; a < 3; a++) {
      g[a] = d2[c][a] = (real)0;
      if (!p->active[a]) continue;
      real v[7];
      TESS_MHD_FN(tess_mhd_line)(fc, s[a], v);
      g[a] = TESS_MHD_FN(tess_mhd_der1)(v, p->ih[a]);
      d2[c][a] = TESS_MHD_FN(tess_mhd_der2)(v, p->ih2[a]);
    }
    TESS_MHD_FN(tess_mhd_field)(d, c, fc[0], g, d2[c]);
  }
  static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int v = TESS_MHD_UX; v <= TESS_MHD_AX; v += TESS_MHD_AX - TESS_MHD_UX) {
    real mix[3][3] = {{(real)0}}; /* mix[a][b] = d^2 v_b / (dx_a dx_b), a != b */
    for (int q = 0; q < 3; q++) {
      const int a = pair[q][0], b = pair[q][1];
      if (!p->active[a] || !p->active[b]) continue;
      mix[a][b] = TESS_MHD_FN(tess_mhd_mixed)(f + (v + b) * comp, s[a], s[b], p->ihh[q]);
      mix[b][a] = TESS_MHD_FN(tess_mhd_mixed)(f + (v + a) * comp, s[a], s[b], p->ihh[q]);
    }
    const real diag[3] = {d2[v][0], d2[v + 1][1], d2[v + 2][2]};
    TESS_MHD_FN(tess_mhd_graddiv)(diag, (const real(*)[3])mix, v == TESS_MHD_UX ? d->gdu : d->gda);
  }
}

TESS_MHD_CPU_FMA void TESS_MHD_FN(tess_mhd_rk3_cpu)(const tess_region *r) {
  if (tess_region_empty(r)) return;

  TESS_MHD_REQUIRE(r->prec == TESS_MHD_PREC, "region precision is not the kernel's");
  TESS_MHD_REQUIRE(r->nin == 1 && r->nout == 1, "needs one input (u^k) and one output (u^(k-1))");
  TESS_MHD_REQUIRE(TESS_MHD_IN(r) && TESS_MHD_OUT(r), "missing field array");
  TESS_MHD_REQUIRE(r->in_nc[0] == TESS_MHD_NC && r->out_nc[0] == TESS_MHD_NC,
                   "input and output need 8 components (lnrho, ux, uy, uz, ss, ax, ay, az)");
  TESS_MHD_REQUIRE(TESS_MHD_IN(r) != (const real *)TESS_MHD_OUT(r), "output aliases the input");
  TESS_MHD_REQUIRE(r->params != NULL, "missing tess_mhd_params");
  const tess_mhd_params *mp = r->params;
  TESS_MHD_REQUIRE(mp->substep >= 0 && mp->substep <= 2, "substep must be 0, 1 or 2");
  TESS_MHD_REQUIRE(tess_region_fits(r, TESS_MHD_RADIUS),
                   "region plus stencil radius leaves the padded tile");

  TESS_MHD_T(tess_mhd_coef) p;
  TESS_MHD_FN(tess_mhd_coef_make)(r, &p);
  const ptrdiff_t X = r->dim[0], Y = r->dim[1];
  const ptrdiff_t s[3] = {1, TESS_MHD_NC * X, TESS_MHD_NC * X * Y};

  for (int z = r->lo[2]; z < r->hi[2]; z++)
    for (int y = r->lo[1]; y < r->hi[1]; y++)
      for (int x = r->lo[0]; x < r->hi[0]; x++) {
        const size_t cell = TESS_IDX(X, Y, TESS_MHD_NC, 0, x, y, z);
        const real *in = TESS_MHD_IN(r) + cell;
        real *out = TESS_MHD_OUT(r) + cell;
        TESS_MHD_T(tess_mhd_derivs) d;
        real F[TESS_MHD_NC];
        TESS_MHD_FN(tess_mhd_cell_derivs)(in, X, s, &p, &d);
        TESS_MHD_FN(tess_mhd_rhs)(&d, &p, TESS_MHD_FN(tess_mhd_force_at)(&p, x), TESS_MHD_TAB, F);
        for (int c = 0; c < TESS_MHD_NC; c++)
          out[c * X] = TESS_MHD_FN(tess_mhd_rk)(&p, d.val[c], p.substep > 0 ? out[c * X] : 0, F[c]);
        if (r->images) { /* the cell's periodic images too, along the axes asked */
          const int im = r->images;
          const ptrdiff_t sx = (im & 1 ? tess_image_shift(x, r->ghost[0], r->dim[0]) : 0) * s[0],
                          sy = (im & 2 ? tess_image_shift(y, r->ghost[1], r->dim[1]) : 0) * s[1],
                          sz = (im & 4 ? tess_image_shift(z, r->ghost[2], r->dim[2]) : 0) * s[2];
          for (int m = 1; m < 8; m++) /* the combinations of the axes' shifts but none */
            if (!((m & 1) && !sx) && !((m & 2) && !sy) && !((m & 4) && !sz))
              for (int c = 0; c < TESS_MHD_NC; c++)
                out[(m & 1 ? sx : 0) + (m & 2 ? sy : 0) + (m & 4 ? sz : 0) + c * X] = out[c * X];
        }
      }
}

/* The parameters are this instantiation's: the next one defines its own. */
#undef real
#undef TESS_MHD_FN
#undef TESS_MHD_F32
#undef TESS_MHD_PREC
#undef TESS_MHD_IN
#undef TESS_MHD_OUT
#undef TESS_MHD_TAB

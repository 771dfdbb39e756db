/* layer_cell.h — the stencil layer's test kernels (tests/test_stencil_layer.c), through the layer
 * like any kernel (layer_kernels.c, layer_kernels_cuda.cu):
 *   mix_vs   in 0: a two-component state u, in 1: a one-component coefficient a (at the cell);
 *            out_c = u_c + a ((((u_c[+x] + u_c[-x]) + (u_c[+y] + u_c[-y])) + (u_c[+z] +
 *            u_c[-z])) - 6 u_c), inactive axes reading the cell itself
 *   mix_sv   in 0: a one-component source s; out 0: two components,
 *            out_0 = s[+x] - s[-y], out_1 = s * s
 *   where    in 0: any one-component field (not read); out 0: three components, the cell's
 *            global index (x + 1000 y + 1000000 z, exact in float for these grids), its
 *            periodic image's and its centre's x coordinate */
TESS_HD real TESS_FN(mix_lap)(const tess_cell *c, int comp) {
  const real s = ((TESS_AX(c, 0, comp, 0, 1) + TESS_AX(c, 0, comp, 0, -1)) +
                  (TESS_AX(c, 0, comp, 1, 1) + TESS_AX(c, 0, comp, 1, -1))) +
                 (TESS_AX(c, 0, comp, 2, 1) + TESS_AX(c, 0, comp, 2, -1));
  return s - (real)6 * TESS_AX(c, 0, comp, 0, 0);
}

TESS_HD void TESS_FN(mix_vs_cell)(const tess_cell *c) {
  const real a = TESS_AX(c, 1, 0, 0, 0);
  TESS_UNROLL
  for (int comp = 0; comp < 2; comp++)
    TESS_OUT(c, 0, comp) = TESS_AX(c, 0, comp, 0, 0) + a * TESS_FN(mix_lap)(c, comp);
}

TESS_HD void TESS_FN(mix_sv_cell)(const tess_cell *c) {
  const real s = TESS_AX(c, 0, 0, 0, 0);
  TESS_OUT(c, 0, 0) = TESS_IN(c, 0, 0, 1, 0, 0) - TESS_IN(c, 0, 0, 0, -1, 0);
  TESS_OUT(c, 0, 1) = s * s;
}

TESS_HD void TESS_FN(where_cell)(const tess_cell *c) {
  TESS_OUT(c, 0, 0) =
      (real)(TESS_GLOBAL(c, 0) + 1000 * TESS_GLOBAL(c, 1) + 1000000 * TESS_GLOBAL(c, 2));
  TESS_OUT(c, 0, 1) = (real)(TESS_GLOBAL_WRAP(c, 0) + 1000 * TESS_GLOBAL_WRAP(c, 1) +
                             1000000 * TESS_GLOBAL_WRAP(c, 2));
  TESS_OUT(c, 0, 2) = (real)TESS_COORD(c, 0);
}

TESS_STENCIL(mix_vs, TESS_SHAPE_STAR, 1, TESS_FN(mix_vs_cell), NULL, .nin_min = 2, .nin_max = 2,
             .nout = 1, .in_nc = {2, 1}, .out_nc = {2})
TESS_STENCIL(mix_sv, TESS_SHAPE_STAR_DIAG, 1, TESS_FN(mix_sv_cell), NULL, .nin_min = 1,
             .nin_max = 1, .nout = 1, .in_nc = {1}, .out_nc = {2})
TESS_STENCIL(where, TESS_SHAPE_STAR, 0, TESS_FN(where_cell), NULL, .nin_min = 1, .nin_max = 1,
             .nout = 1, .in_nc = {1}, .out_nc = {3})

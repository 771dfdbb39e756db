/* host_cell.h — a kernel with a CPU side only (host_kernels.c; no .cu file): host_sv computes
 * what layer_cell.h's mix_sv computes, in the same order. In a CUDA build it must still link,
 * with no GPU launcher in its record (tests/test_stencil_layer.c). */
TESS_HD void TESS_FN(host_sv_cell)(const tess_cell *c) {
  const real s = TESS_AX(c, 0, 0, 0, 0);
  TESS_OUT(c, 0, 0) = TESS_IN(c, 0, 0, 1, 0, 0) - TESS_IN(c, 0, 0, 0, -1, 0);
  TESS_OUT(c, 0, 1) = s * s;
}

TESS_STENCIL(host_sv, TESS_SHAPE_STAR_DIAG, 1, TESS_FN(host_sv_cell), NULL, .nin_min = 1,
             .nin_max = 1, .nout = 1, .in_nc = {1}, .out_nc = {2})

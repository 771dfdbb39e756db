/* hdiff_cell.h — the per-cell expressions of hdiff.h, one source for the CPU and CUDA sweeps.
 *
 * Included once per element type with these defined:
 *   HD_T            the element type
 *   HD_FN(name)     the function's name for that type
 *   HD_QUAL         the qualifiers (static inline; static __device__ __forceinline__)
 *   HD_ADD, HD_SUB, HD_MUL   exactly rounded operations (plain operators on the CPU, built
 *                   without contraction; __dadd_rn etc. on the GPU)
 * p points at the cell; sx, sy are the strides of its i and j neighbours.
 */
HD_QUAL HD_T HD_FN(hdiff_lap)(const HD_T *p, long long sx, long long sy) {
  const HD_T s = HD_ADD(HD_ADD(HD_ADD(p[-sx], p[sx]), p[-sy]), p[sy]);
  return HD_SUB(s, HD_MUL((HD_T)4, p[0]));
}

/* lap and in at the cell (l0, u0) and at its + neighbour (l1, u1) */
HD_QUAL HD_T HD_FN(hdiff_flux)(HD_T l0, HD_T l1, HD_T u0, HD_T u1) {
  const HD_T f = HD_SUB(l1, l0);
  return HD_MUL(f, HD_SUB(u1, u0)) > (HD_T)0 ? (HD_T)0 : f;
}

HD_QUAL HD_T HD_FN(hdiff_out)(HD_T u, HD_T coeff, HD_T fi, HD_T fim, HD_T fj, HD_T fjm) {
  return HD_SUB(u, HD_MUL(coeff, HD_ADD(HD_SUB(fi, fim), HD_SUB(fj, fjm))));
}

/* The value of kernel op at element k of the tile. */
HD_QUAL HD_T HD_FN(hdiff_cell)(tess_hdiff_op op, const HD_T *a, const HD_T *b, const HD_T *c,
                               long long k, long long sx, long long sy, HD_T coeff) {
  switch (op) {
  case TESS_HDIFF_LAP:
    return HD_FN(hdiff_lap)(a + k, sx, sy);
  case TESS_HDIFF_FLI:
    return HD_FN(hdiff_flux)(a[k], a[k + sx], b[k], b[k + sx]);
  case TESS_HDIFF_FLJ:
    return HD_FN(hdiff_flux)(a[k], a[k + sy], b[k], b[k + sy]);
  default:
    return HD_FN(hdiff_out)(a[k], coeff, b[k], b[k - sx], c[k], c[k - sy]);
  }
}

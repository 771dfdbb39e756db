/* tessera_bc.h — the ghost value of each boundary kind, written once for every fill: the
 * runtime's CPU and CUDA fills (runtime/graph/boundary.c, boundary_cuda.cu) and the kernels that
 * fill a tile's walls themselves (tess_region.walls, tessera_kernel.h), so all give the same bits.
 *
 * Cell-centred grid, face half a cell outside u_0: ghost k (k = 1, 2, ...) sits (k - 1/2) h
 * outside the face, u_j (j + 1/2) h inside. v: the face value (dirichlet, function) or h times
 * the outward normal derivative (neumann). Every operation is rounded on its own (no fused
 * multiply-add on the GPU: __dadd_rn, __dmul_rn), so CPU and GPU agree bitwise; single
 * precision fields are computed in double and rounded once.
 */
#ifndef TESSERA_BC_H
#define TESSERA_BC_H

#include "tessera_kernel.h"

#if defined(__CUDACC__)
#define TESS_BC_HD __host__ __device__
#else
#define TESS_BC_HD
#endif

#if defined(__CUDA_ARCH__)
#define TESS_BC_ADD(a, b) __dadd_rn((a), (b))
#define TESS_BC_SUB(a, b) __dsub_rn((a), (b))
#define TESS_BC_MUL(a, b) __dmul_rn((a), (b))
#else
#define TESS_BC_ADD(a, b) ((a) + (b))
#define TESS_BC_SUB(a, b) ((a) - (b))
#define TESS_BC_MUL(a, b) ((a) * (b))
#endif

/* u0, u1: the first two cells inside; uk: u_{k-1}, the mirror of ghost k. */
static inline TESS_BC_HD double tess_bc_ghost(int kind, int k, double v, double u0, double u1,
                                              double uk) {
  switch (kind) {
  case TESS_BC_DIRICHLET:
  case TESS_BC_FUNCTION:
    return TESS_BC_SUB(TESS_BC_MUL(2.0, v), uk);
  case TESS_BC_NEUMANN:
    return TESS_BC_ADD(uk, TESS_BC_MUL((double)(2 * k - 1), v));
  case TESS_BC_SYMMETRIC:
    return uk;
  case TESS_BC_ANTISYMMETRIC:
    return -uk;
  case TESS_BC_OUTFLOW:
    return TESS_BC_ADD(u0, TESS_BC_MUL((double)k, TESS_BC_SUB(u0, u1)));
  default:
    return uk;
  }
}

#endif

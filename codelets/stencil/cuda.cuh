/* cuda.cuh — the CUDA side of the stencil layer (stencil.h): include after defining
 * TESS_STENCIL_SOURCE. For each kernel line of the cell source it defines the launchers
 * tess_<name>_go_f64 / _f32 (asynchronous, on the given stream) that the C side calls with a
 * checked plan (cpu.h). The cell functions are the very text the CPU sweeps run; this file must
 * be compiled with -fmad=false so that nvcc fuses no multiply-add the CPU side does not.
 *
 * Launch geometry, for every kernel:
 *   cells    one thread per cell: threadIdx.x along x (coalesced rows; narrow rows get
 *            narrower blocks stacked in y), y and z in grid-stride loops (any region fits);
 *            stencil reads through L1/L2.
 *   zmarch   TESS_STENCIL2 in 3D: a block owns a 32 x 8 column and walks up to 32 planes of z;
 *            the inner quantity is computed once per cell of each plane plus a one-cell ring
 *            into shared memory, three planes rotating (z-1, z, z+1), and the outer function
 *            reads its seven values there instead of recomputing inner seven times.
 */
#include "region.h"
#include "stencil.h"

#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR only */

#define TESS_HD static __device__ __forceinline__

namespace {

template <typename Op>
__global__ void tess_stencil_cells(const __grid_constant__ tess_stencil_plan p) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= p.n[0]) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < p.n[1]; y += gridDim.y * blockDim.y)
    for (int z = blockIdx.z; z < p.n[2]; z += gridDim.z) {
      const typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      Op::cell(&c);
    }
}

constexpr int ZX = 32, ZY = 8, ZCHUNK = 32; /* block columns; planes per block along z */

/* inner on plane zz (region coordinates) over the block's columns plus a one-cell ring. */
template <typename Op>
__device__ __forceinline__ void tess_stencil_plane(const tess_stencil_plan &p,
                                                   typename Op::T (*mid)[ZX + 2], int x0, int y0,
                                                   int zz) {
  for (int i = threadIdx.y * ZX + threadIdx.x; i < (ZX + 2) * (ZY + 2); i += ZX * ZY) {
    const int lx = i % (ZX + 2), ly = i / (ZX + 2);
    const int x = x0 + lx - 1, y = y0 + ly - 1; /* -1 .. n: the ring reaches one ghost cell */
    if (x > p.n[0] || y > p.n[1]) continue;     /* past a partial block: never read */
    const typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + zz);
    mid[ly][lx] = Op::inner(&c);
  }
}

template <typename Op>
__global__ void __launch_bounds__(ZX *ZY)
    tess_stencil_zmarch(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  __shared__ T mid[3][ZY + 2][ZX + 2];
  const int x0 = blockIdx.x * ZX, y0 = blockIdx.y * ZY, tx = threadIdx.x, ty = threadIdx.y;
  const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, p.n[2]);
  int prev = 0, cur = 1, next = 2;
  tess_stencil_plane<Op>(p, mid[prev], x0, y0, z0 - 1);
  tess_stencil_plane<Op>(p, mid[cur], x0, y0, z0);
  for (int z = z0; z < z1; z++) {
    tess_stencil_plane<Op>(p, mid[next], x0, y0, z + 1);
    __syncthreads();
    const int x = x0 + tx, y = y0 + ty;
    if (x < p.n[0] && y < p.n[1]) {
      const T m[7] = {mid[cur][ty + 1][tx + 1], mid[cur][ty + 1][tx + 2], mid[cur][ty + 1][tx],
                      mid[cur][ty + 2][tx + 1], mid[cur][ty][tx + 1],     mid[next][ty + 1][tx + 1],
                      mid[prev][ty + 1][tx + 1]};
      const typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      Op::outer(&c, m);
    }
    __syncthreads(); /* everyone is done with mid[prev] before it becomes the next plane */
    const int t = prev;
    prev = cur;
    cur = next;
    next = t;
  }
}

void tess_stencil_check_launch(void) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

template <typename Op> void tess_stencil_launch_cells(const tess_stencil_plan *p, void *stream) {
  const int n0 = p->n[0];
  const unsigned bx = tess_row_block_x(n0), by = 128u / bx;
  const unsigned gy = (unsigned)((p->n[1] + (int)by - 1) / (int)by);
  const dim3 block(bx, by, 1);
  const dim3 grid((unsigned)((n0 + (int)bx - 1) / (int)bx), gy < 65535u ? gy : 65535u,
                  (unsigned)(p->n[2] < 65535 ? p->n[2] : 65535));
  tess_stencil_cells<Op><<<grid, block, 0, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

template <typename Op> void tess_stencil_launch_two(const tess_stencil_plan *p, void *stream) {
  if (!(p->active[0] && p->active[1] && p->active[2])) {
    tess_stencil_launch_cells<Op>(p, stream);
    return;
  }
  const dim3 zb(ZX, ZY, 1);
  const dim3 zg((unsigned)((p->n[0] + ZX - 1) / ZX), (unsigned)((p->n[1] + ZY - 1) / ZY),
                (unsigned)((p->n[2] + ZCHUNK - 1) / ZCHUNK));
  tess_stencil_zmarch<Op><<<zg, zb, 0, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

} // namespace

/* The pass's operation type: placing a cell and its cell function(s). */
#define TESS_STENCIL_OP(nm)                                                                        \
  typedef real T;                                                                                  \
  typedef tess_cell C;                                                                             \
  static __device__ __forceinline__ C at(const tess_stencil_plan *p, long long x, long long y,     \
                                         long long z) {                                            \
    return TESS_FN(tess_cell_at)(p, x, y, z);                                                      \
  }

#define TESS_STENCIL(nm, shape_, radius_, cellfn, consts_, ...)                                    \
  namespace {                                                                                      \
  struct TESS_FN(tess_op_##nm) {                                                                   \
    TESS_STENCIL_OP(nm)                                                                            \
    static __device__ __forceinline__ void cell(const C *c) { cellfn(c); }                         \
  };                                                                                               \
  }                                                                                                \
  extern "C" void TESS_FN(tess_##nm##_go)(const tess_stencil_plan *p, void *stream) {              \
    tess_stencil_launch_cells<TESS_FN(tess_op_##nm)>(p, stream);                                   \
  }

#define TESS_STENCIL2(nm, shape_, radius_, innerfn, outerfn, consts_, ...)                         \
  namespace {                                                                                      \
  struct TESS_FN(tess_op_##nm) {                                                                   \
    TESS_STENCIL_OP(nm)                                                                            \
    static __device__ __forceinline__ T inner(const C *c) { return innerfn(c); }                   \
    static __device__ __forceinline__ void outer(const C *c, const T *m) { outerfn(c, m); }        \
    static __device__ __forceinline__ void cell(const C *c) {                                      \
      T m[7];                                                                                      \
      TESS_MID_AT(c, innerfn, m);                                                                  \
      outerfn(c, m);                                                                               \
    }                                                                                              \
  };                                                                                               \
  }                                                                                                \
  extern "C" void TESS_FN(tess_##nm##_go)(const tess_stencil_plan *p, void *stream) {              \
    tess_stencil_launch_two<TESS_FN(tess_op_##nm)>(p, stream);                                     \
  }

#include "stencil/passes.h"

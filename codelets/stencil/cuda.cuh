/* cuda.cuh — the CUDA side of the stencil layer (stencil.h): include after defining
 * TESS_STENCIL_SOURCE. For each kernel line of the cell source it defines the launchers
 * tess_<name>_go_f64 / _f32 (asynchronous, on the given stream) that the C side calls with a
 * checked plan (cpu.h). The cell functions are the very text the CPU sweeps run; this file must
 * be compiled with -fmad=false so that nvcc fuses no multiply-add the CPU side does not.
 *
 * Launch geometry, for every kernel:
 *   cells    one thread per cell: threadIdx.x along x (coalesced rows; narrow rows get
 *            narrower blocks stacked in y), y and z in grid-stride loops (any region fits);
 *            stencil reads through L1/L2. Thin slabs, 1D and 2D grids, several components or
 *            inputs.
 *   zk       TESS_STENCIL in 3D, one input of one component (heat, ch_mu): the staged z-march.
 *            A block owns a column of BX x (BY K) cells, K a thread stacked along y, and walks
 *            up to zc planes of z; cp.async copies each plane with a ring of R cells into a
 *            ring of shared slots, D planes ahead; each thread keeps its cells' 2R + 1 values
 *            along z in registers, and reads its column along y once for its K cells. The cell
 *            function reads them through the same accessors (cell.h's tess_ax): z offsets from
 *            the register queues, x and y offsets from registers loaded from the plane's slot,
 *            so one device read per cell. A kernel line fixing NC > 1 components of its one
 *            input (radius > 1: Maxwell's six) gets the same march with every component's plane
 *            in the slots and queue in registers, one cell a thread (tess_zkn_shape).
 *   zk2      TESS_STENCIL2 of radius 2 in 3D, input 0 of one component staged (ch_fused): the
 *            same with a ring of 2; inner at the thread's own cells into register rings, at the
 *            block's one-cell ring from the shared slots, outer from those (outer may read
 *            input 0 only at its cell, other inputs anywhere).
 *   zp2      the same in float where the fields pair up in memory (even pitches, aligned
 *            starts: tess_stencil_paired): two cells a thread along x instead of K along y.
 *   zmarch   other TESS_STENCIL2 in 3D: a block owns a 32 x 8 column and walks up to 32 planes;
 *            inner computed once per cell of each plane plus a one-cell ring into shared
 *            memory, three planes rotating, outer reading its seven values there.
 * A lone periodic tile (tess_region.wrap, plan.wrap): every path has a form with WR = true that
 * reads points beyond the owned box at their periodic image, so no halo is copied before the
 * stage (records that opt in say TESS_WRAP_CUDA, cpu.h; the runtime asks on 3D grids only). The
 * staged z-marches fold the x / y wrap into the copy pointers they form once per thread and wrap
 * z when those pointers pass the top of the owned box (tess_zwrap: one predicated step per plane);
 * pairs whose images are not one aligned pair (the x seam) are copied as two elements. The per-cell
 * paths and any device-memory read of a staged path wrap each offset (cell.h's tess_mem). WR =
 * false is the code it was before. Every path computes the same cell function on the same values:
 * the bits do not depend on the path (bench/stencil_kernel_bench.cu checks each against cells,
 * gpu-verify against the CPU). The block shapes are the fastest measured on an H100 and an H200
 * (tess_zk_shape below).
 *
 * Files: this one holds the per-cell paths, the plain z-march, the launch choices and what a
 * kernel line expands to; cuda_staged.cuh the staged z-marches (zk, zk2, zp2); cuda_window.cuh
 * the plane windows and cp.async copies they stage their inputs with.
 */
#include "region.h"
#include "stencil.h"
#include "zchunk.h"

#include <climits>
#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR only */

#include "stencil/cuda_staged.cuh"

#define TESS_HD static __device__ __forceinline__

namespace {

template <typename Op, bool WR>
__global__ void tess_stencil_cells(const __grid_constant__ tess_stencil_plan p) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= p.n[0]) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < p.n[1]; y += gridDim.y * blockDim.y)
    for (int z = blockIdx.z; z < p.n[2]; z += gridDim.z) {
      typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      c.wr = WR;
      Op::cell(&c);
    }
}

constexpr int ZX = 32, ZY = 8, ZCHUNK = 32; /* block columns; planes per block along z */

/* inner on plane zz (region coordinates) over the block's columns plus a one-cell ring. */
template <typename Op, bool WR>
__device__ __forceinline__ void tess_stencil_plane(const tess_stencil_plan &p,
                                                   typename Op::T (*mid)[ZX + 2], int x0, int y0,
                                                   int zz) {
  for (int i = threadIdx.y * ZX + threadIdx.x; i < (ZX + 2) * (ZY + 2); i += ZX * ZY) {
    const int lx = i % (ZX + 2), ly = i / (ZX + 2);
    const int x = x0 + lx - 1, y = y0 + ly - 1; /* -1 .. n: the ring reaches one ghost cell */
    if (x > p.n[0] || y > p.n[1]) continue;     /* past a partial block: never read */
    typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + zz);
    c.wr = WR;
    mid[ly][lx] = Op::inner(&c);
  }
}

template <typename Op, bool WR>
__global__ void __launch_bounds__(ZX *ZY)
    tess_stencil_zmarch(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  __shared__ T mid[3][ZY + 2][ZX + 2];
  const int x0 = blockIdx.x * ZX, y0 = blockIdx.y * ZY, tx = threadIdx.x, ty = threadIdx.y;
  const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, p.n[2]);
  int prev = 0, cur = 1, next = 2;
  tess_stencil_plane<Op, WR>(p, mid[prev], x0, y0, z0 - 1);
  tess_stencil_plane<Op, WR>(p, mid[cur], x0, y0, z0);
  for (int z = z0; z < z1; z++) {
    tess_stencil_plane<Op, WR>(p, mid[next], x0, y0, z + 1);
    __syncthreads();
    const int x = x0 + tx, y = y0 + ty;
    if (x < p.n[0] && y < p.n[1]) {
      const T m[7] = {mid[cur][ty + 1][tx + 1], mid[cur][ty + 1][tx + 2], mid[cur][ty + 1][tx],
                      mid[cur][ty + 2][tx + 1], mid[cur][ty][tx + 1],     mid[next][ty + 1][tx + 1],
                      mid[prev][ty + 1][tx + 1]};
      typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      c.wr = WR;
      Op::outer(&c, m);
    }
    __syncthreads(); /* everyone is done with mid[prev] before it becomes the next plane */
    const int t = prev;
    prev = cur;
    cur = next;
    next = t;
  }
}

/* Walls (tess_region.walls) for the paths that do not fill them as they stage their planes:
 * one launch over every wall's ghost cells before the kernel's, on the same stream. */
template <typename T>
__global__ void tess_stencil_walls(const __grid_constant__ tess_stencil_plan p) {
  const int lo[3] = {0, 0, 0};
  tess_walls_fill<T>(p, lo, p.dim, 7u, blockIdx.x * blockDim.x + threadIdx.x,
                     gridDim.x * blockDim.x);
}

void tess_stencil_check_launch(void) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

template <typename T> void tess_stencil_walls_first(const tess_stencil_plan *p, void *stream) {
  tess_stencil_walls<T><<<256, 256, 0, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

template <typename Op, bool WR>
void tess_stencil_launch_cells(const tess_stencil_plan *p, void *stream) {
  if (p->nwall) tess_stencil_walls_first<typename Op::T>(p, stream);
  const int n0 = p->n[0];
  const unsigned bx = tess_row_block_x(n0), by = 128u / bx;
  const unsigned gy = (unsigned)((p->n[1] + (int)by - 1) / (int)by);
  const dim3 block(bx, by, 1);
  const dim3 grid((unsigned)((n0 + (int)bx - 1) / (int)bx), gy < 65535u ? gy : 65535u,
                  (unsigned)(p->n[2] < 65535 ? p->n[2] : 65535));
  tess_stencil_cells<Op, WR><<<grid, block, 0, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

/* The staged z-marches' blocks: K cells a thread along y (tess_stencil_zk, zk2) in blocks of
 * BX x BY threads, blocks per SM asked of the compiler, the most planes a block walks (fewer on
 * small grids: tess_zchunk), planes in flight (0: tess_depth). The fastest of bench/
 * stencil_kernel_bench.cu's variants at 512^3 on an H100 and an H200 (heat orders 2 and 6,
 * Cahn-Hilliard fused; docs/performance.md, 2026-11-28 stencil section). */
template <typename T, bool R1> struct tess_zk_shape { /* one level, radius > 1, double */
  static constexpr int K = 4, BX = 128, BY = 4, MINB = 1, ZC = 128, D = 0;
};
template <> struct tess_zk_shape<float, false> {
  static constexpr int K = 4, BX = 128, BY = 4, MINB = 1, ZC = 256, D = 0;
};
template <typename T> struct tess_zk_shape<T, true> { /* radius 1 (heat order 2, ch_mu) */
  static constexpr int K = 4, BX = 256, BY = 2, MINB = 1, ZC = 64, D = 0;
};
template <> struct tess_zk_shape<float, true> { /* 10 planes in flight: 4% faster than 4 (H100) */
  static constexpr int K = 4, BX = 256, BY = 2, MINB = 1, ZC = 0, D = 10;
};
/* Several components (NC > 1, radius R > 1): one cell a thread, every component's planes in the
 * slots (NC (R + 1 + D) planes of (BX + 2R) (BY + 2R) cells: 175 KiB for Maxwell's six in double),
 * where the stage reads its output (tess_region.out_read: Maxwell's RK stages after the first)
 * that output prefetched into L2 PF planes ahead and loaded into registers a plane ahead (1.5x
 * and again 1.5x faster a stage on an H100). */
template <typename T> struct tess_zkn_shape {
  static constexpr int K = 1, BX = 32, BY = 8, MINB = 1, ZC = 64, PF = 2;
};
/* In float twice as wide (the planes fit: 160 KiB for Maxwell's six): 8% faster alone at 256^3
 * and 512^3 on an H100 (2026-12-06-h100-stencil-kernels.txt, fb7d142). */
template <> struct tess_zkn_shape<float> {
  static constexpr int K = 1, BX = 64, BY = 8, MINB = 1, ZC = 64, PF = 2;
};
template <typename T>
struct tess_zk2_shape { /* two levels (no bound on the planes a block walks) */
  static constexpr int K = 4, BX = 128, BY = 4, MINB = 1, ZC = 0, D = 2;
};
/* Two cells a thread along x (BXT threads, 2 BXT cells), two levels, float, fields paired. */
template <typename T> struct tess_zp2_shape {
  static constexpr int BXT = 32, BY = 8, MINB = 2, ZC = 64, D = 3;
};

/* The staged z-march pays where the region is a real 3D box; thin slabs go cell by cell. */
static inline bool tess_stencil_staged(const tess_stencil_plan *p, int nc) {
  return p->active[0] && p->active[1] && p->active[2] && p->nc == nc && p->n[0] >= 16 &&
         p->n[1] >= 8 && p->n[2] >= 8 && p->pos[2] <= INT_MAX; /* tess_flat's offsets */
}

/* Above 48 KiB of shared memory a kernel must ask, on each device (StarPU may drive several). */
template <typename K> void tess_stencil_smem(K kernel, size_t bytes) {
  if (bytes <= 48 * 1024) return;
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

/* Two cells a thread need pairs aligned in device memory: even row and plane pitches, and the
 * input and output fields starting on a pair (cudaMalloc's and StarPU's buffers do). */
template <typename T> static inline bool tess_stencil_paired(const tess_stencil_plan *p) {
  const size_t a = 2 * sizeof(T);
  return p->pos[1] % 2 == 0 && p->pos[2] % 2 == 0 && (size_t)p->in[0] % a == 0 &&
         (size_t)p->out[0] % a == 0;
}

/* Launches a staged z-march of BX x BY threads owning BX x CY cells a block, halo planes copied
 * before its first cell, at most ZC planes a block (0: no bound; tess_zchunk plans the rest). The
 * bounds are measured: at 512^3 one chunk a column (one wave, no plane copied twice) ran 7% slower
 * in double than chunks of 128 planes (H100, heat 6, docs/performance.md 2026-11-28). */
template <int BX, int BY, int CY, int ZC, typename Kern>
void tess_stencil_launch_z(Kern kern, const tess_stencil_plan *p, size_t bytes, int halo,
                           void *stream) {
  tess_stencil_smem(kern, bytes);
  const unsigned gx = (unsigned)((p->n[0] + BX - 1) / BX), gy = (unsigned)((p->n[1] + CY - 1) / CY);
  int slots;
  const cudaError_t err = tess_zslots(kern, BX * BY, bytes, &slots);
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
  const int zc = tess_zchunk((long long)gx * gy, p->n[2], halo, slots, ZC);
  const dim3 b(BX, BY, 1), g(gx, gy, (unsigned)((p->n[2] + zc - 1) / zc));
  kern<<<g, b, bytes, (cudaStream_t)stream>>>(*p, zc);
  tess_stencil_check_launch();
}

template <typename Op, int R, int K, int BX, int BY, int ZC, int MINB, int D, bool WR, bool WL,
          int NC = 1, int PF = 0>
void tess_stencil_launch_zk(const tess_stencil_plan *p, void *stream) {
  typedef tess_flat<typename Op::T, BX, BY * K, R, BX * BY> G;
  const size_t bytes = sizeof(typename Op::T) * (R + 1 + tess_depth(R, D)) * NC * G::WS * G::H;
  tess_stencil_launch_z<BX, BY, BY * K, ZC>(
      tess_stencil_zk<Op, R, K, BX, BY, MINB, D, WR, WL, NC, PF>, p, bytes, 2 * R, stream);
}

template <typename Op, int K, int BX, int BY, int ZC, int MINB, int D, bool WR>
void tess_stencil_launch_zk2(const tess_stencil_plan *p, void *stream) {
  typedef tess_flat<typename Op::T, BX, BY * K, 2, BX * BY> G;
  const size_t bytes =
      sizeof(typename Op::T) * ((4 + (D ? D : 2)) * G::WS * G::H + (BX + 2) * (BY * K + 2));
  tess_stencil_launch_z<BX, BY, BY * K, ZC>(tess_stencil_zk2<Op, K, BX, BY, MINB, D, WR>, p, bytes,
                                            4, stream);
}

template <typename Op, int BXT, int BY, int ZC, int MINB, int D, bool WR>
void tess_stencil_launch_zp2(const tess_stencil_plan *p, void *stream) {
  constexpr int BX = 2 * BXT;
  const dim3 b(BXT, BY, 1);
  const dim3 g((unsigned)((p->n[0] + (p->lo[0] & 1) + BX - 1) / BX),
               (unsigned)((p->n[1] + BY - 1) / BY), (unsigned)((p->n[2] + ZC - 1) / ZC));
  typedef tess_pairs<typename Op::T, BX, BY, 2, BXT * BY> G;
  const size_t bytes =
      sizeof(typename Op::T) * ((4 + (D ? D : 2)) * G::WS * G::H + (BY + 2) * (BX + 4));
  tess_stencil_smem(tess_stencil_zp2<Op, BXT, BY, ZC, MINB, D, WR>, bytes);
  tess_stencil_zp2<Op, BXT, BY, ZC, MINB, D, WR><<<g, b, bytes, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

/* One-level kernels: the staged z-march for one input of one component, or of the kernel line's
 * NC components (Op::NC, radius > 1: Maxwell), else cell by cell. */
template <typename Op, int R, bool WR>
void tess_stencil_launch_one(const tess_stencil_plan *p, void *stream) {
  typedef tess_zk_shape<typename Op::T, R == 1> Z;
  if constexpr (Op::NC > 1 && Op::NC <= 8 && R > 1)
    if (p->nin == 1 && p->nout == 1 && tess_stencil_staged(p, Op::NC)) {
      typedef tess_zkn_shape<typename Op::T> N;
      if (p->nwall) tess_stencil_walls_first<typename Op::T>(p, stream);
      if (p->reads_out) /* the stage reads its output (an RK stage's u_old): fetched ahead */
        tess_stencil_launch_zk<Op, R, N::K, N::BX, N::BY, N::ZC, N::MINB, 0, WR, false, Op::NC,
                               N::PF>(p, stream);
      else
        tess_stencil_launch_zk<Op, R, N::K, N::BX, N::BY, N::ZC, N::MINB, 0, WR, false, Op::NC>(
            p, stream);
      return;
    }
  if constexpr (Op::NC <= 1) /* one component (or any): every kernel of one input but Maxwell */
    if (p->nin == 1 && p->nout == 1 && tess_stencil_staged(p, 1)) {
      /* walls staged with the planes where no thread's own cells are ghosts (cuda_walls.cuh) */
      if (!WR && p->nwall && p->n[1] % (Z::BY * Z::K) == 0)
        tess_stencil_launch_zk<Op, R, Z::K, Z::BX, Z::BY, Z::ZC, Z::MINB, Z::D, false, true>(
            p, stream);
      else {
        if (p->nwall) tess_stencil_walls_first<typename Op::T>(p, stream);
        tess_stencil_launch_zk<Op, R, Z::K, Z::BX, Z::BY, Z::ZC, Z::MINB, Z::D, WR, false>(p,
                                                                                           stream);
      }
      return;
    }
  tess_stencil_launch_cells<Op, WR>(p, stream);
}

/* Two-level kernels: radius 2 staged (in float two cells a thread where the fields pair up),
 * else the plain z-march in 3D, else cell by cell. */
template <typename Op, int R, bool WR>
void tess_stencil_launch_two(const tess_stencil_plan *p, void *stream) {
  typedef typename Op::T T;
  if (!(p->active[0] && p->active[1] && p->active[2])) {
    tess_stencil_launch_cells<Op, WR>(p, stream); /* fills the walls */
    return;
  }
  if (p->nwall) tess_stencil_walls_first<T>(p, stream); /* two-level paths stage no walls */
  if constexpr (R == 2)                                 /* the staged form's reach */
    if (p->nin <= 2 && p->nout == 1 && tess_stencil_staged(p, 1)) {
      if (sizeof(T) < 8 && tess_stencil_paired<T>(p)) {
        typedef tess_zp2_shape<T> Z;
        tess_stencil_launch_zp2<Op, Z::BXT, Z::BY, Z::ZC, Z::MINB, Z::D, WR>(p, stream);
      } else {
        typedef tess_zk2_shape<T> Z;
        tess_stencil_launch_zk2<Op, Z::K, Z::BX, Z::BY, Z::ZC, Z::MINB, Z::D, WR>(p, stream);
      }
      return;
    }
  const dim3 zb(ZX, ZY, 1);
  const dim3 zg((unsigned)((p->n[0] + ZX - 1) / ZX), (unsigned)((p->n[1] + ZY - 1) / ZY),
                (unsigned)((p->n[2] + ZCHUNK - 1) / ZCHUNK));
  tess_stencil_zmarch<Op, WR><<<zg, zb, 0, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

} // namespace

/* The kernel line's field options (tess_stencil_spec's, in its order) at compile time: NC, the
 * components of input 0 when the line fixes them (0: any). */
struct tess_spec_ct {
  int nin_min = 0, nin_max = 0, nout = 0, nc = 0;
  int in_nc[TESS_MAX_IO] = {}, out_nc[TESS_MAX_IO] = {};
};
constexpr int tess_spec_nc0(const tess_spec_ct &s) { return s.in_nc[0] ? s.in_nc[0] : s.nc; }

/* The pass's operation type: placing a cell and its cell function(s); spec: the kernel line's
 * options (__VA_ARGS__). */
#define TESS_STENCIL_OP(nm, ...)                                                                   \
  typedef real T;                                                                                  \
  typedef tess_cell C;                                                                             \
  static constexpr int NC = tess_spec_nc0(tess_spec_ct{__VA_ARGS__});                              \
  static __device__ __forceinline__ C at(const tess_stencil_plan *p, long long x, long long y,     \
                                         long long z) {                                            \
    return TESS_FN(tess_cell_at)(p, x, y, z);                                                      \
  }

#define TESS_STENCIL(nm, shape_, radius_, cellfn, consts_, ...)                                    \
  namespace {                                                                                      \
  struct TESS_FN(tess_op_##nm) {                                                                   \
    TESS_STENCIL_OP(nm, __VA_ARGS__)                                                               \
    static __device__ __forceinline__ void cell(const C *c) { cellfn(c); }                         \
  };                                                                                               \
  }                                                                                                \
  extern "C" void TESS_FN(tess_##nm##_go)(const tess_stencil_plan *p, void *stream) {              \
    if (p->wrap) /* a lone periodic tile: every path reads at the periodic images */               \
      tess_stencil_launch_one<TESS_FN(tess_op_##nm), radius_, true>(p, stream);                    \
    else                                                                                           \
      tess_stencil_launch_one<TESS_FN(tess_op_##nm), radius_, false>(p, stream);                   \
  }

#define TESS_STENCIL2(nm, shape_, radius_, innerfn, outerfn, consts_, ...)                         \
  namespace {                                                                                      \
  struct TESS_FN(tess_op_##nm) {                                                                   \
    TESS_STENCIL_OP(nm, __VA_ARGS__)                                                               \
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
    if (p->wrap)                                                                                   \
      tess_stencil_launch_two<TESS_FN(tess_op_##nm), radius_, true>(p, stream);                    \
    else                                                                                           \
      tess_stencil_launch_two<TESS_FN(tess_op_##nm), radius_, false>(p, stream);                   \
  }

#include "stencil/passes.h"

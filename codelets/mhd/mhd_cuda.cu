/* mhd_cuda.cu — the MHD RK3 substep (mhd.h) on the GPU: what tess_mhd_rk3_cpu computes, cell
 * for cell, in one pass over the region per substep; and what tess_mhd_rk3_cpu_f32 computes,
 * in single precision, from the same templates (element type T = double or float).
 *
 * Arithmetic: none of its own. The per-cell arithmetic (derivatives from the gathered stencil
 * values, F, the RK3 combination, exp, the constants) is mhd_cell.h and mhd_exp.h, the very
 * text the CPU version compiles, included here for double and for float. This file is built
 * with -fmad=false (codelets/CMakeLists.txt), the CPU side with -ffp-contract=off: no
 * multiply-add is fused on either side unless written as fma(), so the GPU result is bitwise
 * the CPU's in both precisions (modulo the forcing's sin, see mhd_cell.h); bench/
 * mhd_kernel_bench.cu checks it for every kernel variant. What is here is data movement: how
 * a cell's stencil values reach mhd_cell.h (accessors over shared memory, registers or global
 * memory), the plane ring, the launch geometry.
 *
 * Files (one translation unit: the .cuh files are parts of this one, included inside namespace
 * tess_mhd_gpu, not headers of their own):
 *   mhd_cuda.cu        the shared arithmetic, the kernels' parameters, the launchers, the C entry
 *   mhd_cuda_cell.cuh  accessors, a cell's update from any accessor, the generic kernel
 *   mhd_cuda_tiled.cuh the tiled march with element copies (geometry, copy plan, per-step compute)
 *   mhd_cuda_fill.cuh  a lone tile's ghosts for the tensor-copy march
 *   mhd_cuda_tma.cuh   the float 32 x 16 march with tensor copies (tma.cuh) and its launcher
 *
 * Kernels:
 *   tiled    (3D regions with n0 >= 16 and n1 >= 4): one block of 32 x 8 threads per (x, y)
 *            tile, one cell per thread, marching along z through a chunk of the region. Shared
 *            memory holds a ring of 8 planes (7 in use + 1 loading) of ux, uy, uz, ax, ay, az,
 *            each full with halo and corners (the ring's plane z is also the centre plane), and
 *            two centre planes (current + loading) of lnrho and ss. lnrho and ss are needed
 *            off-centre only at the cell itself: each thread keeps their 7 z values in
 *            registers. Planes arrive with cp.async one step ahead (element-sized copies: rows
 *            need not be 16-byte aligned; each thread's elements of a plane rectangle and their
 *            source offsets formed once per block: copy_plan); one __syncthreads per step.
 *            Double: 218 KiB of shared memory, one block (8 warps) per SM, up to 255 registers
 *            per thread. Float: the same layout in half the bytes (108 KiB for 32 x 8, the exp
 *            table shrinks to 32 words), so the kernel asks for two blocks per SM
 *            (__launch_bounds__(256, 2): at most 128 registers per thread, no spills) and one
 *            block's plane loads and start-up hide behind the other's arithmetic. The tile is
 *            32 x 8 (16 x 16 is 6% slower in double, 41% in float), but 32 x 16 in float where
 *            the region is 16 cells deep in y: one block of 16 warps per SM in 170 KiB, the
 *            ring's copies 1.63 a cell instead of 2.08. With copy_plan it is 10% faster than
 *            32 x 8 with the former row copies (c306806) at 128^3 and 256^3, 6% at 512^3; 32 x 8
 *            with copy_plan is 4-5% slower than that (its third round of copies: 20 elements),
 *            so float takes it only for regions 4 to 15 cells deep in y (H200 and H100,
 *            2026-11-28-h200-mhd-copy-plan.txt, 2026-11-28-h100-mhd-copy-plan.txt).
 *            H100, 256^3, the kernel alone, plain form: 7.0 ms per RK3 step in double, 3.3 in
 *            float (2026-11-28-h100-mhd-float-loads.txt, run 10). The float kernel is bound by the
 *            shared-memory pipe (282 loads and ~13 plane copies a cell, 16 warps). Two changes
 *            were measured and dropped (2026-11-28-h100-mhd-float-loads.txt):
 *            pairs of components interleaved and read with 8-byte loads (the same wavefronts,
 *            and spills), and two cells a thread (latency-bound at 8 warps).
 *            Blocks take items (a tile's z chunk) in waves; where the last wave would leave
 *            SMs idle its items are cut in pieces (plan_tiles, tile_of): 512^3 in double 2-3%
 *            faster. Region cells of partial tiles are masked; nothing outside
 *            [lo - 3, hi + 3) is read, nothing outside [lo, hi) written.
 *   tiled with tensor copies (float 32 x 16 on sm_90, where the array allows it; the march and
 *            its launcher, launch_tma, are in mhd_cuda_tma.cuh, a lone tile's ghosts in
 *            mhd_cuda_fill.cuh, both included below):
 *            the same march, but each plane comes as one box a component (cp.async.bulk.tensor,
 *            tma.cuh), each box issued by lane 0 of its own warp, and an mbarrier a ring slot
 *            says when it has landed: no element copies through the load/store pipe. Boxes start
 *            at 16-byte boundaries (an H100 faults otherwise), so rows are 44 wide: a box reads
 *            up to 6 elements beside each row of the rectangle, and a partial tile's rows past
 *            its reach, all never used (past the array they arrive as 0). H100, float, the
 *            kernel alone: 3-4% faster than the element copies at 128^3 to 512^3 (3.16 against
 *            3.29 ms at 256^3; ncu: 707 M warp instructions a substep-1 launch instead of
 *            735 M, still bound by the shared loads; 2026-11-28-h100-mhd-tma.txt, runs 8-11).
 *            A lone periodic tile takes it where its ghost fill pays (tma_wanted: cubes from
 *            192^3). Where the plan keeps its columns whole in one wave (plan_ahead; of the
 *            cubes 128^3 to 512^3 on 132 SMs, 256^3), the march fills its own x and y ghosts
 *            a few dozen planes ahead of itself and reads z at its image (H200, 256^3:
 *            1.00-1.03 ms a substep against 1.03-1.05 with the fill first, ncu;
 *            2026-11-28-h200-mhd-warp-boxes.txt, run 9);
 *            else one kernel first writes its input's ghost layers (fill_images: 77 us a
 *            substep at 256^3 on an H100). Smaller lone tiles take the WR form below.
 *   generic  (any region, 2D included): one thread per cell, every stencil point loaded from
 *            global memory through L1. For thin outer segments and 2D grids.
 *
 * A lone periodic tile (tess_region.wrap, asked for by the record's TESS_WRAP_CUDA): each kernel
 * has a second form (template argument WR) that reads every point beyond the owned box at its
 * periodic image inside it (plane z once per plane, each copied element's row and column once
 * per block: copy_plan), so the runtime copies no halo and nothing extra is stored (but for the
 * tensor-copy march of a large lone tile, which writes the input's ghost layers: see above).
 * Storing the images instead (before 2026-11-27) cost the kernel 5-9% (H100, 128^3 and 256^3:
 * x-edge rows of 3 elements). The WR form is 1-4% slower than the plain one in double, 8-9% in
 * single (H100, 128^3 to 512^3, 2026-11-28-h100-mhd-float-loads.txt run 10). Most of it is where it
 * reads, not what it executes: the same WR kernel takes 6% longer wrapping than with zero ghost
 * widths (ncu, 128^3 double): a tile at the x edge reads its 3 wrapped columns from the far end of
 * each row, one more sector and L2 request per row than the plain form's contiguous ghosts (+5% L1
 * sectors, +8% L2 requests, though 4% fewer DRAM bytes: no ghosts read;
 * bench/results/2026-11-27-h100-plain-copy.txt). No GPU kernel stores images (tess_region.images is
 * the CPU version's).
 *
 * Launch: asynchronous on the given stream; errors of the launch go to STARPU_CUDA_REPORT_ERROR
 * (or, built with TESS_MHD_CUDA_NO_STARPU, to stderr + abort). A region that does not fit the
 * kernel (its precision included) aborts like the CPU version. Needs nvcc's C++17 (its default)
 * and sm_80 or newer (cp.async); tuned for sm_90.
 */
#ifndef TESS_HAVE_CUDA
#define TESS_HAVE_CUDA 1
#endif
#include "mhd.h"
#include "zchunk.h"

#include <cuda_runtime.h>

#include "tma.cuh"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TESS_MHD_CUDA_NO_STARPU
#define TESS_MHD_CUDA_REPORT(e)                                                                    \
  do {                                                                                             \
    fprintf(stderr, "%s:%d: mhd cuda: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));           \
    abort();                                                                                       \
  } while (0)
#else
#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR only; the kernel ABI itself is StarPU-free */
#define TESS_MHD_CUDA_REPORT(e) STARPU_CUDA_REPORT_ERROR(e)
#endif

namespace tess_mhd_gpu {

#define TMG_HD __host__ __device__ __forceinline__

/* ---- the shared arithmetic: mhd_exp.h and mhd_cell.h, in double and in float (both passes
 * with the same function names: overloads; host versions serve the benchmark's emulation) -- */

#define TESS_MHD_HD static __host__ __device__ __forceinline__
#include "mhd_exp.h"
#define TESS_MHD_FN(f) f
#define real           double
#define TESS_MHD_F32   0
#include "mhd_cell.h"
#undef real
#undef TESS_MHD_F32
#define real         float
#define TESS_MHD_F32 1
#include "mhd_cell.h"
#undef real
#undef TESS_MHD_F32
#undef TESS_MHD_FN

/* The pass of element type T: its constants and its per-cell derivatives. */
template <class T> struct pass;
template <> struct pass<double> {
  typedef tess_mhd_coef coef;
  typedef tess_mhd_derivs derivs;
};
template <> struct pass<float> {
  typedef tess_mhd_coef_f32 coef;
  typedef tess_mhd_derivs_f32 derivs;
};

TMG_HD double ldg(const double *p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}
TMG_HD float ldg(const float *p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

/* Words of the exp table of each precision, and word i of it (device). */
template <class T> __host__ __device__ constexpr int exp_words() {
  return sizeof(T) == sizeof(double) ? 256 : 32;
}
template <class T> __device__ __forceinline__ unsigned long long exp_word(int i) {
  if constexpr (sizeof(T) == sizeof(double))
    return tess_mhd_exp_tab_dev[i];
  else
    return tess_mhd_expf_tab_dev[i];
}

/* ---- what the kernels receive (by value) ------------------------------------------------- */

template <class T> struct kparams {
  const T *in;
  T *out;
  long long X;      /* dim[0]: element distance between components */
  long long sy, sz; /* element distance to the next cell along y and z */
  int lo[3], hi[3];
  typename pass<T>::coef c; /* mhd_cell.h's constants, as the CPU version's */
  int ntx, nty, zlen;       /* tiled kernel: tiles along x, y; z chunk length */
  int items, full, tpc;     /* items (tile x chunk); the first `full` taken whole by one block
                               each, the rest (the last wave's) cut in tpc pieces of tlen planes */
  int tlen;
  int dim[3], wg[3]; /* tess_region.wrap: the ghost widths, else 0 */
};

/* Padded coordinate c of axis a as a kernel built for tess_region.wrap (WR) reads it: its
 * periodic image in the owned range (the inputs' ghosts are stale); else c. Every kernel comes
 * in both forms, WR a template argument: a run-time wrap in the copy loops cost the kernel 3%
 * in double and 7-9% in single when it did not wrap (H100, 128^3 to 512^3). */
template <bool WR, class T> TMG_HD int wrapc(const kparams<T> &p, int a, int c) {
  if constexpr (WR)
    return tess_wrap(c, p.wg[a], p.dim[a]);
  else
    return c;
}

#include "mhd_cuda_cell.cuh"  /* accessors, cell_update, the generic kernel */
#include "mhd_cuda_tiled.cuh" /* the tiled march with element copies */

/* ---- host side ---------------------------------------------------------------------------- */

enum kernel_kind {
  KIND_AUTO = 0,
  KIND_TILED = 1,
  KIND_GENERIC = 2,
  KIND_TILED16 = 3,      /* benchmark builds */
  KIND_TILED32X8 = 4,    /* benchmark builds: 32 x 8 in float too */
  KIND_TILED_WHOLE = 5,  /* benchmark builds: the tiled kernel, items whole (no pieces) */
  KIND_TILED_PIECES = 6, /* benchmark builds: the tiled kernel, the last row in 3 pieces always */
  KIND_TILED_COPIES = 7, /* benchmark builds: float 32 x 16 with element copies, never tensor */
  KIND_TILED_TMA = 8,    /* benchmark builds: float 32 x 16 with tensor copies wherever they
                            apply, a lone tile's march filling its own ghosts where its columns
                            fit at once (else filled first), at any size */
  KIND_TILED_FILL = 9,   /* benchmark builds: the same, a lone tile's ghosts always filled first */
};

/* The tiled kernel's tile is 32 x 16 in float where the region is 16 cells deep in y (the
 * header). */
template <class T> static bool tall_tile(const kparams<T> &p) {
  return sizeof(T) == 4 && p.hi[1] - p.lo[1] >= 16;
}

/* Regions the tiled kernel takes in auto mode: 3D, and not thin in x or y (a 3-cell-wide x slab
 * would leave 29 of 32 lanes idle). */
constexpr int TILED_MIN_N0 = 16, TILED_MIN_N1 = 4;

static void require(bool cond, const char *msg) {
  if (!cond) {
    fprintf(stderr, "%s: mhd cuda kernel: %s\n", __FILE__, msg);
    abort();
  }
}

/* The CPU version's checks and constants (each rounded to T once from the double the CPU
 * version computes). Returns false for an empty region. */
template <class T> static bool make_kparams(const tess_region *r, kparams<T> &p) {
  constexpr bool dbl = sizeof(T) == sizeof(double);
  for (int i = 0; i < 3; i++)
    if (r->hi[i] <= r->lo[i]) return false;
  require(r->prec == (dbl ? TESS_FP64 : TESS_FP32), "region precision is not the kernel's");
  require(r->nin == 1 && r->nout == 1, "needs one input (u^k) and one output (u^(k-1))");
  require(r->in[0] && r->out[0], "missing field array");
  require(r->in_nc[0] == TESS_MHD_NC && r->out_nc[0] == TESS_MHD_NC,
          "input and output need 8 components (lnrho, ux, uy, uz, ss, ax, ay, az)");
  require((const void *)r->in[0] != (const void *)r->out[0], "output aliases the input");
  require(r->params != NULL, "missing tess_mhd_params");
  const tess_mhd_params *mp = (const tess_mhd_params *)r->params;
  require(mp->substep >= 0 && mp->substep <= 2, "substep must be 0, 1 or 2");
  for (int i = 0; i < 3; i++) {
    const int reach = r->dim[i] > 1 ? TESS_MHD_RADIUS : 0;
    require(r->lo[i] - reach >= 0 && r->hi[i] + reach <= r->dim[i],
            "region plus stencil radius leaves the padded tile");
  }
  memset(&p, 0, sizeof p);
  if constexpr (dbl) {
    p.in = r->in[0];
    p.out = r->out[0];
  } else {
    p.in = r->in_f[0];
    p.out = r->out_f[0];
  }
  p.X = r->dim[0];
  p.sy = (long long)TESS_MHD_NC * r->dim[0];
  p.sz = (long long)TESS_MHD_NC * r->dim[0] * r->dim[1];
  require(!r->images, "periodic images are not stored on the GPU (the record asks for wrap)");
  for (int a = 0; a < 3; a++) {
    p.lo[a] = r->lo[a];
    p.hi[a] = r->hi[a];
    p.dim[a] = r->dim[a];
    p.wg[a] = r->wrap ? r->ghost[a] : 0;
  }
  tess_mhd_coef_make(r, &p.c);
  return true;
}

/* Tiles and z chunks: the chunk length that minimises (waves of blocks) x (chunk + ~4 planes of
 * start-up; tess_zchunk), `slots` blocks resident at a time; then, where split, the last wave's
 * items (when it is partial and they lie in the last row of chunks) cut in pieces if that promises
 * 1%: the pieces fill the SMs the last wave of whole items would leave idle (512^3 in double on an
 * H100: 100 items for 132 SMs). */
template <int TX, int TY, class T> static void plan_tiles(kparams<T> &p, int slots, bool split) {
  const int n0 = p.hi[0] - p.lo[0], n1 = p.hi[1] - p.lo[1], n2 = p.hi[2] - p.lo[2];
  if (slots < 1) slots = 1;
  p.ntx = (n0 + TX - 1) / TX;
  p.nty = (n1 + TY - 1) / TY;
  const long long tiles = (long long)p.ntx * p.nty;
  p.zlen = tess_zchunk(tiles, n2, 4, slots, 0);
  const long long nz = (n2 + p.zlen - 1) / p.zlen, items = tiles * nz, r = items % slots;
  const int last = n2 - (int)(nz - 1) * p.zlen; /* planes of the last row's chunks */
  p.items = (int)items, p.full = (int)items, p.tpc = 1, p.tlen = last;
  if (!split || r == 0 || r > tiles) return;
  double bt = 0.99 * (last + 4.0); /* the last wave of whole items */
  for (int k = 2; k <= 64 && k <= last; k++) {
    const int len = (last + k - 1) / k;
    const double c = (double)((r * k + slots - 1) / slots) * (len + 4.0);
    if (c < bt - 1e-9) bt = c, p.full = (int)(items - r), p.tpc = k, p.tlen = len;
  }
}

/* Cuts the last row of items in k pieces where the plan cut none (checks of the pieces on grids
 * too small to plan them: the emulation, KIND_TILED_PIECES). */
template <class T> static void force_pieces(kparams<T> &p, int k) {
  if (p.full != p.items || p.tlen < k) return;
  const int tiles = p.ntx * p.nty;
  p.full = p.items - (p.items < tiles ? p.items : tiles), p.tpc = k, p.tlen = (p.tlen + k - 1) / k;
}

/* Blocks of a tiled launch. */
template <class T> static int tiles_total(const kparams<T> &p) {
  return p.full + (p.items - p.full) * p.tpc;
}

static void check_launch() {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) TESS_MHD_CUDA_REPORT(err);
}

/* How many blocks of kernel kern (nt threads, smem bytes of dynamic shared memory each) the
 * device holds at once, the shared memory granted. */
template <class K> static int resident_blocks(K kern, int nt, size_t smem) {
  cudaError_t err =
      cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (err != cudaSuccess) TESS_MHD_CUDA_REPORT(err);
  int slots;
  err = tess_zslots(kern, nt, smem, &slots);
  if (err != cudaSuccess) TESS_MHD_CUDA_REPORT(err);
  return slots;
}

/* One launch of a tiled kernel with nt threads and smem bytes of dynamic shared memory a block,
 * its z chunks planned for the blocks that fit on the device at once. */
template <int TX, int TY, class T, class K, class... A>
static void launch_blocks(K kern, int nt, size_t smem, kparams<T> &p, cudaStream_t s, bool split,
                          int force, const A &...args) {
  plan_tiles<TX, TY>(p, resident_blocks(kern, nt, smem), split);
  if (force) force_pieces(p, force);
  kern<<<tiles_total(p), nt, smem, s>>>(p, args...);
  check_launch();
}

template <int TX, int TY, class T>
static void launch_tiled(kparams<T> &p, cudaStream_t s, bool split = true, int force = 0) {
  typedef tile_geom<TX, TY, T> G;
  if (p.wg[0] | p.wg[1] | p.wg[2])
    launch_blocks<TX, TY>(mhd_tiled_kernel<TX, TY, T, true>, G::NT, G::SMEM, p, s, split, force);
  else
    launch_blocks<TX, TY>(mhd_tiled_kernel<TX, TY, T>, G::NT, G::SMEM, p, s, split, force);
}

#include "mhd_cuda_fill.cuh" /* a lone tile's ghosts for the march with tensor copies */
#include "mhd_cuda_tma.cuh"  /* the float 32 x 16 march with tensor copies, its launcher */

/* The tiled kernel in the tile tall_tile picks (32 x 16 exists in float only, with tensor
 * copies where launch_tma takes them). */
template <class T>
static void launch_tile(kparams<T> &p, cudaStream_t s, bool split = true, int force = 0,
                        tma_use tma = TMA_AUTO) {
  if constexpr (sizeof(T) == 4)
    if (tall_tile(p)) {
      if (!launch_tma(p, s, split, force, tma)) launch_tiled<32, 16, T>(p, s, split, force);
      return;
    }
  launch_tiled<32, 8, T>(p, s, split, force);
}

template <class T> static void launch_generic(const kparams<T> &p, cudaStream_t s) {
  const int n0 = p.hi[0] - p.lo[0], n1 = p.hi[1] - p.lo[1], n2 = p.hi[2] - p.lo[2];
  const unsigned bx = n0 >= 32 ? 32u : n0 >= 16 ? 16u : n0 >= 8 ? 8u : 4u, by = 128u / bx;
  const unsigned gy = (unsigned)((n1 + (int)by - 1) / (int)by);
  const dim3 block(bx, by, 1);
  const dim3 grid((unsigned)((n0 + (int)bx - 1) / (int)bx), gy < 65535u ? gy : 65535u,
                  (unsigned)(n2 < 65535 ? n2 : 65535));
  if (p.wg[0] | p.wg[1] | p.wg[2])
    mhd_generic_kernel<T, true><<<grid, block, 0, s>>>(p);
  else
    mhd_generic_kernel<T><<<grid, block, 0, s>>>(p);
  check_launch();
}

template <class T> static int auto_kind(const kparams<T> &p) {
  const bool is3d = p.c.active[0] && p.c.active[1] && p.c.active[2];
  return is3d && p.hi[0] - p.lo[0] >= TILED_MIN_N0 && p.hi[1] - p.lo[1] >= TILED_MIN_N1
             ? KIND_TILED
             : KIND_GENERIC;
}

/* T: double or float (r->prec must say the same); kind: kernel_kind (the 16 x 16 tile only in
 * benchmark builds). The tiled kernels need a 3D tile; asked for on a 2D one, they fall back to
 * the generic kernel. */
template <class T> static void launch(const tess_region *r, void *stream, int kind) {
  kparams<T> p;
  if (!make_kparams(r, p)) return; /* empty region: no zero-sized grid */
  const cudaStream_t s = (cudaStream_t)stream;
  if (kind == KIND_AUTO) kind = auto_kind(p);
  if (!(p.c.active[0] && p.c.active[1] && p.c.active[2])) kind = KIND_GENERIC;
  /* The tiled kernels form an element's offset in a plane in 32 bits (copy_plan). */
  if (p.sy * p.dim[1] > INT_MAX) kind = KIND_GENERIC;
#ifdef TESS_MHD_CUDA_ALL_VARIANTS
  if (kind == KIND_TILED16) {
    launch_tiled<16, 16, T>(p, s);
    return;
  }
  if (kind == KIND_TILED32X8) {
    launch_tiled<32, 8, T>(p, s);
    return;
  }
  if (kind == KIND_TILED_WHOLE || kind == KIND_TILED_PIECES) {
    const bool split = kind == KIND_TILED_PIECES;
    launch_tile(p, s, split, split ? 3 : 0);
    return;
  }
  if (kind == KIND_TILED_COPIES || kind == KIND_TILED_TMA || kind == KIND_TILED_FILL) {
    launch_tile(p, s, true, 0,
                kind == KIND_TILED_TMA    ? TMA_ALWAYS
                : kind == KIND_TILED_FILL ? TMA_FILL
                                          : TMA_NEVER);
    return;
  }
#endif
  if (kind == KIND_TILED16 || kind == KIND_TILED32X8 || kind == KIND_TILED_WHOLE ||
      kind == KIND_TILED_PIECES || kind == KIND_TILED_COPIES || kind == KIND_TILED_TMA ||
      kind == KIND_TILED_FILL)
    kind = KIND_TILED;
  if (kind == KIND_TILED)
    launch_tile(p, s);
  else
    launch_generic<T>(p, s);
}

} // namespace tess_mhd_gpu

extern "C" void tess_mhd_rk3_cuda(const tess_region *r, void *stream) {
  tess_mhd_gpu::launch<double>(r, stream, tess_mhd_gpu::KIND_AUTO);
}

extern "C" void tess_mhd_rk3_cuda_f32(const tess_region *r, void *stream) {
  tess_mhd_gpu::launch<float>(r, stream, tess_mhd_gpu::KIND_AUTO);
}

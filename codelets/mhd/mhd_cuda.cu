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
 *            2026-11-28-h200-mhd-s10.txt, -h100-mhd-s10.txt).
 *            H100, 256^3, the kernel alone, plain form: 7.0 ms per RK3 step in double, 3.3 in
 *            float (2026-11-28-h100-mhd-s11.txt, call 10). The float kernel is bound by the
 *            shared-memory pipe (282 loads and ~13 plane copies a cell, 16 warps). Two changes
 *            were measured and dropped (2026-11-28-h100-mhd-s11.txt):
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
 *            735 M, still bound by the shared loads; 2026-11-28-h100-mhd-s12.txt, calls 8-11).
 *            A lone periodic tile takes it where its ghost fill pays (tma_wanted: cubes from
 *            192^3). Where the plan keeps its columns whole in one wave (plan_ahead; of the
 *            cubes 128^3 to 512^3 on 132 SMs, 256^3), the march fills its own x and y ghosts
 *            a few dozen planes ahead of itself and reads z at its image (H200, 256^3:
 *            1.00-1.03 ms a substep against 1.03-1.05 with the fill first, ncu;
 *            2026-11-28-h200-mhd-s14.txt, call 9);
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
 * Storing the images instead (session 6) cost the kernel 5-9% (H100, 128^3 and 256^3: x-edge
 * rows of 3 elements). The WR form is 1-4% slower than the plain one in double, 8-9% in single
 * (H100, 128^3 to 512^3, 2026-11-28-h100-mhd-s11.txt call 10). Most of it is where it reads, not
 * what it executes: the same WR kernel takes 6% longer wrapping than with zero ghost widths (ncu,
 * 128^3 double): a tile at the x edge reads its 3 wrapped columns from the far end of each row, one
 * more sector and L2 request per row than the plain form's contiguous ghosts (+5% L1 sectors, +8%
 * L2 requests, though 4% fewer DRAM bytes: no ghosts read;
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

/* ---- gathering a cell's stencil values for mhd_cell.h ------------------------------------- */

/* Accessor A: a.get<C, DX, DY, DZ>() is component C at offset (DX, DY, DZ) from the cell (a T);
 * a.active<AXIS>() says whether the axis has a stencil. */

/* Component C at offsets -3..3 along axis AX. */
template <int C, int AX, class T, class A> TMG_HD void line(const A &a, T v[7]) {
  constexpr int x = AX == 0, y = AX == 1, z = AX == 2;
  v[0] = a.template get<C, -3 * x, -3 * y, -3 * z>();
  v[1] = a.template get<C, -2 * x, -2 * y, -2 * z>();
  v[2] = a.template get<C, -x, -y, -z>();
  v[3] = a.template get<C, 0, 0, 0>();
  v[4] = a.template get<C, x, y, z>();
  v[5] = a.template get<C, 2 * x, 2 * y, 2 * z>();
  v[6] = a.template get<C, 3 * x, 3 * y, 3 * z>();
}

/* Radius K of the mixed stencil of axes P < Q: f(+K p), f(-K p), f(+K m), f(-K m), p = e_P + e_Q,
 * m = e_P - e_Q. */
template <int C, int P, int Q, int K, class T, class A> TMG_HD void diag4(const A &a, T q[4]) {
  constexpr int px = (P == 0) + (Q == 0), py = (P == 1) + (Q == 1), pz = (P == 2) + (Q == 2);
  constexpr int mx = (P == 0) - (Q == 0), my = (P == 1) - (Q == 1), mz = (P == 2) - (Q == 2);
  q[0] = a.template get<C, K * px, K * py, K * pz>();
  q[1] = a.template get<C, -K * px, -K * py, -K * pz>();
  q[2] = a.template get<C, K * mx, K * my, K * mz>();
  q[3] = a.template get<C, -K * mx, -K * my, -K * mz>();
}

template <int C, int P, int Q, class T, class A> TMG_HD T mixed(const A &a, T ihh) {
  T q[3][4];
  diag4<C, P, Q, 1>(a, q[0]);
  diag4<C, P, Q, 2>(a, q[1]);
  diag4<C, P, Q, 3>(a, q[2]);
  return tess_mhd_dermix(q, ihh);
}

/* Gradient and pure second derivative of component C along axis AX (0 on an inactive axis). */
template <int C, int AX, class T, class A>
TMG_HD void axis(const A &a, const typename pass<T>::coef &p, T &g, T &d2) {
  g = d2 = T(0);
  if (!a.template active<AX>()) return;
  T v[7];
  line<C, AX>(a, v);
  g = tess_mhd_der1(v, p.ih[AX]);
  d2 = tess_mhd_der2(v, p.ih2[AX]);
}

template <int C, class T, class A>
TMG_HD void field(const A &a, const typename pass<T>::coef &p, typename pass<T>::derivs &d,
                  T d2[3]) {
  T g[3];
  axis<C, 0, T>(a, p, g[0], d2[0]);
  axis<C, 1, T>(a, p, g[1], d2[1]);
  axis<C, 2, T>(a, p, g[2], d2[2]);
  tess_mhd_field(&d, C, a.template get<C, 0, 0, 0>(), g, d2);
}

/* The vector at components V..V+2: its derivatives, and grad div (gd). */
template <int V, class T, class A>
TMG_HD void vector(const A &a, const typename pass<T>::coef &p, typename pass<T>::derivs &d,
                   T gd[3]) {
  T dx[3], dy[3], dz[3];
  field<V + 0, T>(a, p, d, dx);
  field<V + 1, T>(a, p, d, dy);
  field<V + 2, T>(a, p, d, dz);
  const T diag[3] = {dx[0], dy[1], dz[2]};
  T mix[3][3] = {{T(0), T(0), T(0)}, {T(0), T(0), T(0)}, {T(0), T(0), T(0)}};
  if (a.template active<0>() && a.template active<1>()) {
    mix[0][1] = mixed<V + 1, 0, 1>(a, p.ihh[0]);
    mix[1][0] = mixed<V + 0, 0, 1>(a, p.ihh[0]);
  }
  if (a.template active<0>() && a.template active<2>()) {
    mix[0][2] = mixed<V + 2, 0, 2>(a, p.ihh[1]);
    mix[2][0] = mixed<V + 0, 0, 2>(a, p.ihh[1]);
  }
  if (a.template active<1>() && a.template active<2>()) {
    mix[1][2] = mixed<V + 2, 1, 2>(a, p.ihh[2]);
    mix[2][1] = mixed<V + 1, 1, 2>(a, p.ihh[2]);
  }
  tess_mhd_graddiv(diag, mix, gd);
}

/* The whole cell: derivatives, F, and the RK3 combination with the old output `old` (read
 * for substeps 1 and 2 only). x: padded x coordinate (for the forcing). */
template <class T, class A>
TMG_HD void cell_update(const A &a, const kparams<T> &p, const unsigned long long *tab, int x,
                        const T old[8], T res[8]) {
  typename pass<T>::derivs d;
  {
    T d2[3];
    field<0, T>(a, p.c, d, d2);
    field<4, T>(a, p.c, d, d2);
  }
  vector<1, T>(a, p.c, d, d.gdu);
  vector<5, T>(a, p.c, d, d.gda);
  T F[8];
  tess_mhd_rhs(&d, &p.c, tess_mhd_force_at(&p.c, x), tab, F);
#pragma unroll
  for (int c = 0; c < 8; c++)
    res[c] = tess_mhd_rk(&p.c, d.val[c], old[c], F[c]);
}

/* ---- generic kernel: one thread per cell, stencil through L1 ------------------------------ */

template <class T> struct generic_acc {
  const T *f; /* component 0 of the cell */
  long long X, sy, sz;
  int act[3];
  template <int AX> TMG_HD bool active() const { return act[AX] != 0; }
  template <int C, int DX, int DY, int DZ> TMG_HD T get() const {
    return ldg(f + (C * X + DX + DY * sy + DZ * sz));
  }
};

/* The same under tess_region.wrap: every point at its periodic image. */
template <class T> struct wrap_acc {
  const T *in;
  long long X, sy, sz;
  int x, y, z, dim[3], wg[3], act[3];
  template <int AX> TMG_HD bool active() const { return act[AX] != 0; }
  template <int C, int DX, int DY, int DZ> TMG_HD T get() const {
    return ldg(in +
               (tess_wrap(x + DX, wg[0], dim[0]) + C * X + tess_wrap(y + DY, wg[1], dim[1]) * sy +
                tess_wrap(z + DZ, wg[2], dim[2]) * sz));
  }
};

template <class T, bool WR = false>
TMG_HD void generic_cell(const kparams<T> &p, const unsigned long long *tab, int x, int y, int z) {
  const long long cell = x + y * p.sy + z * p.sz;
  T old[8], res[8];
#pragma unroll
  for (int c = 0; c < 8; c++)
    old[c] = p.c.substep > 0 ? p.out[cell + c * p.X] : T(0);
  if constexpr (WR) {
    const wrap_acc<T> a = {p.in,
                           p.X,
                           p.sy,
                           p.sz,
                           x,
                           y,
                           z,
                           {p.dim[0], p.dim[1], p.dim[2]},
                           {p.wg[0], p.wg[1], p.wg[2]},
                           {p.c.active[0], p.c.active[1], p.c.active[2]}};
    cell_update<T>(a, p, tab, x, old, res);
  } else {
    const generic_acc<T> a = {
        p.in + cell, p.X, p.sy, p.sz, {p.c.active[0], p.c.active[1], p.c.active[2]}};
    cell_update<T>(a, p, tab, x, old, res);
  }
#pragma unroll
  for (int c = 0; c < 8; c++)
    p.out[cell + c * p.X] = res[c];
}

template <class T, bool WR = false>
__global__ void __launch_bounds__(128) mhd_generic_kernel(const kparams<T> p) {
  __shared__ unsigned long long tab[exp_words<T>()];
  for (int i = threadIdx.x + blockDim.x * threadIdx.y; i < exp_words<T>();
       i += blockDim.x * blockDim.y)
    tab[i] = exp_word<T>(i);
  __syncthreads();
  const int x = p.lo[0] + (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= p.hi[0]) return;
  for (int y = p.lo[1] + (int)(blockIdx.y * blockDim.y + threadIdx.y); y < p.hi[1];
       y += gridDim.y * blockDim.y)
    for (int z = p.lo[2] + (int)blockIdx.z; z < p.hi[2]; z += gridDim.z)
      generic_cell<T, WR>(p, tab, x, y, z);
}

/* ---- tiled kernel ------------------------------------------------------------------------- */

/* Shared-memory layout, in elements of T after the exp table (TAB elements: 256 words for
 * double, 32 for float). Ring slot (one plane z, 8 slots, slot z & 7): ux, uy, uz, ax, ay, az
 * (ridx order), each [X0-3, X0+TX+3) x [Y0-3, Y0+TY+3) with pitch W. Centre slot (2 slots,
 * z & 1): lnrho, ss, the same shape. MINB: the blocks per SM the kernel is built for: 2 where
 * two fit in the 228 KiB of an sm_90 SM (1 KiB reserved per block), which caps registers at 128
 * per thread. XM >= 0: the tensor-copy march (mhd_tiled_tma_kernel; XM = the padded row's X mod
 * 4): rows W = TX + 12 wide, each rectangle at FULL >= W H elements from the last (128 bytes
 * apart), the column X0 - 3 sig + XS(c) elements into its row, and 8 mbarriers at byte BAR0. */
template <int TX, int TY, class T, int XM = -1> struct tile_geom {
  static constexpr bool TM = XM >= 0;
  static constexpr int NT = TX * TY, NW = NT / 32, W = TM ? TX + 12 : TX + 6, H = TY + 6,
                       AREA = W * H, FULL = TM ? (AREA + 31) / 32 * 32 : AREA;
  static constexpr int RS = 6 * FULL, CS = 2 * FULL;
  static constexpr int TAB = exp_words<T>() * (int)(sizeof(unsigned long long) / sizeof(T));
  static constexpr int RING0 = TAB, CEN0 = RING0 + 8 * RS, TOTAL = CEN0 + 2 * CS;
  static constexpr int BAR0 = TOTAL * (int)sizeof(T); /* TM: the ring slots' mbarriers (bytes) */
  static constexpr size_t SMEM = (size_t)BAR0 + (TM ? 8 * 8 : 0);
  static constexpr int MINB = 2 * (SMEM + 1024) <= 228 * 1024 ? 2 : 1;
  /* position of component c (ux, uy, uz, ax, ay, az) in a ring slot */
  static constexpr __host__ __device__ int ridx(int c) { return c < 4 ? c - 1 : c - 2; }
  /* TM: how much further in component c's data sits in its box (tma_boxes) */
  static constexpr __host__ __device__ int XS(int c) { return XM == 2 && (c & 1) ? 2 : 0; }
  static_assert(NT % 32 == 0, "whole warps");
  static_assert(!TM || ((RING0 * sizeof(T)) % 128 == 0 && (FULL * sizeof(T)) % 128 == 0 &&
                        (W * sizeof(T)) % 16 == 0 && BAR0 % 8 == 0),
                "tensor copies land 128-byte aligned, in rows of 16-byte multiples");
};

struct tile_item {
  int X0, Y0, z0, z1;
};

/* Block b's tile and planes: item b (tile b mod ntx nty, chunk b / ntx nty) while b < full;
 * past it piece (b - full) / tail of item full + (b - full) mod tail, tail = items - full. The
 * pieces of the last wave's items go piece by piece, so blocks running at once march
 * neighbouring tiles at the same planes (their halo rows shared in L2). */
template <int TX, int TY, class T> TMG_HD tile_item tile_of(const kparams<T> &p, int b) {
  int i = b, piece = -1;
  if (b >= p.full) {
    const int tail = p.items - p.full;
    piece = (b - p.full) / tail;
    i = p.full + (b - p.full) % tail;
  }
  const int tiles = p.ntx * p.nty;
  const int zc = i / tiles, t = i - zc * tiles;
  const int ty = t / p.ntx, tx = t - ty * p.ntx;
  tile_item it;
  it.X0 = p.lo[0] + tx * TX;
  it.Y0 = p.lo[1] + ty * TY;
  it.z0 = p.lo[2] + zc * p.zlen;
  it.z1 = it.z0 + p.zlen < p.hi[2] ? it.z0 + p.zlen : p.hi[2];
  if (piece >= 0) {
    it.z0 += piece * p.tlen;
    it.z1 = it.z0 + p.tlen < it.z1 ? it.z0 + p.tlen : it.z1;
  }
  return it;
}

/* One element, global -> shared, asynchronously (4 or 8 bytes: rows need not be aligned); dst:
 * its shared-memory address (device) and pointer (host emulation). */
template <class T> TMG_HD void cp_async(unsigned dst, T *dst_host, const T *src) {
#ifdef __CUDA_ARCH__
  (void)dst_host;
  if constexpr (sizeof(T) == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
#else
  (void)dst;
  *dst_host = *src;
#endif
}
TMG_HD void cp_async_commit() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
TMG_HD void cp_async_wait_all() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/* The shared-memory address of sm[i] (device; 0 on the host, where cp_async takes the pointer). */
template <class T> TMG_HD unsigned smem_addr(const T *sm, int i) {
#ifdef __CUDA_ARCH__
  return (unsigned)__cvta_generic_to_shared(sm) + (unsigned)(i * (int)sizeof(T));
#else
  (void)sm;
  (void)i;
  return 0;
#endif
}

TMG_HD int imin(int a, int b) { return a < b ? a : b; }

/* p, as a value nvcc cannot see through (device): what is added to it later stays one 64-bit
 * add of a 32-bit offset (IMAD.WIDE) instead of being reassociated onto the kernel parameter
 * it came from (64-bit adds, shifts and a reload of the parameter for every address). */
template <class T> TMG_HD const T *opaque(const T *p) {
#ifdef __CUDA_ARCH__
  asm("" : "+l"(p));
#endif
  return p;
}

/* a * b as one 32 x 32 -> 64-bit multiply (IMAD.WIDE), for a plane's offset (the launcher keeps
 * a plane under 2^31 elements): from (long long)a * b nvcc made a 64-bit multiply (3 IMADs and
 * a sign extension). */
TMG_HD long long mul_wide(int a, int b) {
#ifdef __CUDA_ARCH__
  long long r;
  asm("mul.wide.s32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
  return r;
#else
  return (long long)a * b;
#endif
}

/* What a thread copies of every plane rectangle (W x H, row-major, as a component's plane lies
 * in shared memory): elements e = tid + k NT, k < NK, each as a 32-bit offset from the plane's
 * component 0 (row at its image times sy, plus column at its image; the launcher keeps a plane
 * of the tile under 2^31 elements), formed once per block: every plane and component reuses
 * them, so a copy is an add, an IMAD.WIDE and the cp.async. Elements past the region's reach
 * (cw columns, rh rows: partial tiles at the high end) take the offset of the nearest element
 * within it: copied, never read, and nothing outside [lo - 3, hi + 3) is addressed. Only the
 * last k can fall past the rectangle (e >= FULL); it is skipped there.
 * Before (rows to warps, each lane a column, a row's offset and the WR form's row wrap formed
 * per row and plane, a branch per row in single): the copies were 343 of the float kernel's
 * 1709 instructions a cell (ncu source counters, 32 x 16 wrapping, 256^3, H100, session 10). */
template <int TX, int TY, class T> struct tile_copy {
  typedef tile_geom<TX, TY, T> G;
  static constexpr int NK = (G::FULL + G::NT - 1) / G::NT;
  int off[NK];
};

template <int TX, int TY, bool WR = false, class T>
TMG_HD tile_copy<TX, TY, T> copy_plan(const kparams<T> &p, const tile_item &it, int tid) {
  typedef tile_geom<TX, TY, T> G;
  const int cw = imin(G::W, p.hi[0] + 3 - (it.X0 - 3)), rh = imin(G::H, p.hi[1] + 3 - (it.Y0 - 3));
  tile_copy<TX, TY, T> c;
#pragma unroll
  for (int k = 0; k < tile_copy<TX, TY, T>::NK; k++) {
    const int e = tid + k * G::NT, r = imin(e / G::W, rh - 1), col = imin(e % G::W, cw - 1);
    c.off[k] = wrapc<WR>(p, 1, it.Y0 - 3 + r) * (int)p.sy + wrapc<WR>(p, 0, it.X0 - 3 + col);
  }
  return c;
}

/* Plane z (at its image in the WR form) of the NC components at element offsets coff[] (c X)
 * into shared memory at sm + dst, one W x H rectangle after the other. opaque() keeps nvcc
 * from reassociating the plane's pointer onto p.in (64-bit adds and parameter reloads per
 * address); the plain form takes the identity for z (wrapc<false>), not tess_wrap with zero
 * ghost widths (3-5% slower in single, H100, bench/results/2026-11-27-h100-plain-copy.txt). */
template <int TX, int TY, int NC, bool WR, class T>
TMG_HD void copy_plane(const kparams<T> &p, T *sm, int dst, int z, const int (&coff)[NC],
                       const tile_copy<TX, TY, T> &c, int tid) {
  typedef tile_geom<TX, TY, T> G;
  constexpr int NK = tile_copy<TX, TY, T>::NK;
  const T *plane = opaque(p.in + mul_wide(wrapc<WR>(p, 2, z), (int)p.sz));
  const unsigned base = smem_addr(sm, dst + tid);
#pragma unroll
  for (int i = 0; i < NC; i++)
#pragma unroll
    for (int k = 0; k < NK; k++) {
      const int e = i * G::FULL + k * G::NT;
      if (k == NK - 1 && tid + k * G::NT >= G::FULL) continue;
      cp_async(base + (unsigned)(e * (int)sizeof(T)), sm + dst + tid + e,
               plane + (coff[i] + c.off[k]));
    }
}

/* Plane z of the six components of u and A, full with halo, into ring slot z & 7. */
template <int TX, int TY, bool WR = false, class T>
TMG_HD void issue_ring(const kparams<T> &p, T *sm, int z, const tile_copy<TX, TY, T> &c, int tid) {
  typedef tile_geom<TX, TY, T> G;
  const int X = (int)p.X;
  const int coff[6] = {X, 2 * X, 3 * X, 5 * X, 6 * X, 7 * X}; /* ring slot order: tile_geom::ridx */
  copy_plane<TX, TY, 6, WR>(p, sm, G::RING0 + (z & 7) * G::RS, z, coff, c, tid);
}

/* Plane z of lnrho and ss, full with halo, into centre slot z & 1. */
template <int TX, int TY, bool WR = false, class T>
TMG_HD void issue_centre(const kparams<T> &p, T *sm, int z, const tile_copy<TX, TY, T> &c,
                         int tid) {
  typedef tile_geom<TX, TY, T> G;
  const int coff[2] = {0, 4 * (int)p.X};
  copy_plane<TX, TY, 2, WR>(p, sm, G::CEN0 + (z & 1) * G::CS, z, coff, c, tid);
}

/* What a thread keeps from step to step: lnrho and ss at z - 3 .. z + 3 of its cell. */
template <class T> struct tile_state { T ql[7], qs[7]; };

template <int TX, int TY, class T, int XM = -1> struct tile_acc {
  typedef tile_geom<TX, TY, T, XM> G;
  const T *sm;
  int cen;        /* centre slot + the thread's offset in a full plane */
  int rfu[7];     /* ring slot of z + d - 3 + the thread's offset in a full plane */
  T ql[7], qs[7]; /* lnrho, ss at z - 3 .. z + 3 (copies of tile_state's) */
  template <int AX> TMG_HD bool active() const { return true; }
  template <int C, int DX, int DY, int DZ> TMG_HD T get() const {
    static_assert(C >= 0 && C < 8 && DZ >= -3 && DZ <= 3, "stencil point");
    if constexpr (C == 0 || C == 4) {
      if constexpr (DZ != 0 || (DX == 0 && DY == 0)) {
        static_assert(DX == 0 && DY == 0, "lnrho, ss: off-centre planes at the cell only");
        return C == 0 ? ql[DZ + 3] : qs[DZ + 3];
      } else {
        return sm[cen + (C == 0 ? 0 : G::FULL) + DY * G::W + DX];
      }
    } else {
      return sm[rfu[DZ + 3] + G::ridx(C) * G::FULL + G::XS(C) + DY * G::W + DX];
    }
  }
};

/* The accessor of the thread at (tx, ty) of the tile for step zc; sig: how far in the tile's
 * column X0 - 3 sits in its rows (tensor copies: tma_boxes). */
template <int TX, int TY, int XM = -1, class T>
TMG_HD tile_acc<TX, TY, T, XM> make_acc(const T *sm, int zc, int tx, int ty,
                                        const tile_state<T> &st, int sig = 0) {
  typedef tile_geom<TX, TY, T, XM> G;
  tile_acc<TX, TY, T, XM> a;
  a.sm = sm;
  const int o_full = (ty + 3) * G::W + tx + 3 + sig;
  a.cen = G::CEN0 + (zc & 1) * G::CS + o_full;
#pragma unroll
  for (int i = 0; i < 7; i++)
    a.rfu[i] = G::RING0 + ((zc - 3 + i) & 7) * G::RS + o_full;
#pragma unroll
  for (int i = 0; i < 7; i++) {
    a.ql[i] = st.ql[i];
    a.qs[i] = st.qs[i];
  }
  return a;
}

template <int TX, int TY, bool WR = false, class T>
TMG_HD void tile_prologue(const kparams<T> &p, const tile_item &it, int tid, tile_state<T> &st) {
  const int x = it.X0 + tid % TX, y = it.Y0 + tid / TX;
  const bool valid = x < p.hi[0] && y < p.hi[1];
  const long long col = x + y * p.sy;
#pragma unroll
  for (int i = 0; i < 7; i++) {
    const long long cell = col + wrapc<WR>(p, 2, it.z0 - 3 + i) * p.sz;
    st.ql[i] = valid ? ldg(p.in + cell) : T(0);
    st.qs[i] = valid ? ldg(p.in + cell + 4 * p.X) : T(0);
  }
}

template <int TX, int TY, class T, bool WR = false, int XM = -1>
TMG_HD void tile_compute(const kparams<T> &p, const T *sm, const unsigned long long *tab,
                         const tile_item &it, int zc, int tid, tile_state<T> &st, int sig = 0) {
  const int tx = tid % TX, ty = tid / TX;
  const int x = it.X0 + tx, y = it.Y0 + ty;
  const bool valid = x < p.hi[0] && y < p.hi[1];
  const long long cell = x + y * p.sy + zc * p.sz;
  T nl = T(0), ns = T(0), old[8];
  if (valid && zc + 1 < it.z1) { /* next step's z + 3 of lnrho, ss */
    const long long next =
        WR ? x + y * p.sy + mul_wide(wrapc<WR>(p, 2, zc + 4), (int)p.sz) : cell + 4 * p.sz;
    nl = ldg(p.in + next);
    ns = ldg(p.in + next + 4 * p.X);
  }
#pragma unroll
  for (int c = 0; c < 8; c++)
    old[c] = valid && p.c.substep > 0 ? p.out[cell + c * p.X] : T(0);

  const tile_acc<TX, TY, T, XM> a = make_acc<TX, TY, XM>(sm, zc, tx, ty, st, sig);
  T res[8];
  cell_update<T>(a, p, tab, x, old, res);
  if (valid) {
#pragma unroll
    for (int c = 0; c < 8; c++)
      p.out[cell + c * p.X] = res[c];
  }
#pragma unroll
  for (int i = 0; i < 6; i++) {
    st.ql[i] = st.ql[i + 1];
    st.qs[i] = st.qs[i + 1];
  }
  st.ql[6] = nl;
  st.qs[6] = ns;
}

template <int TX, int TY, class T, bool WR = false>
__global__ void __launch_bounds__(TX *TY, (tile_geom<TX, TY, T>::MINB))
    mhd_tiled_kernel(const kparams<T> p) {
  typedef tile_geom<TX, TY, T> G;
  extern __shared__ __align__(16) unsigned char sm_bytes[];
  T *sm = reinterpret_cast<T *>(sm_bytes);
  const int tid = threadIdx.x;
  const tile_item it = tile_of<TX, TY>(p, blockIdx.x);
  for (int i = tid; i < exp_words<T>(); i += G::NT)
    reinterpret_cast<unsigned long long *>(sm_bytes)[i] = exp_word<T>(i);
  const tile_copy<TX, TY, T> plan = copy_plan<TX, TY, WR>(p, it, tid);
  for (int z = it.z0 - 3; z <= it.z0 + 3; z++)
    issue_ring<TX, TY, WR>(p, sm, z, plan, tid);
  issue_centre<TX, TY, WR>(p, sm, it.z0, plan, tid);
  cp_async_commit();
  tile_state<T> st;
  tile_prologue<TX, TY, WR>(p, it, tid, st);
  for (int zc = it.z0; zc < it.z1; zc++) {
    cp_async_wait_all();  /* this step's planes (issued one step ago) have landed ... */
    __syncthreads();      /* ... for every thread, and everyone is done with the last step */
    if (zc + 1 < it.z1) { /* into the slots the last step read last: plane zc - 4, centre zc - 1 */
      issue_ring<TX, TY, WR>(p, sm, zc + 4, plan, tid);
      issue_centre<TX, TY, WR>(p, sm, zc + 1, plan, tid);
    }
    cp_async_commit();
    tile_compute<TX, TY, T, WR>(p, sm, reinterpret_cast<const unsigned long long *>(sm_bytes), it,
                                zc, tid, st);
  }
}

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

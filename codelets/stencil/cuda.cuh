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
 *            so one device read per cell.
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
 */
#include "region.h"
#include "stencil.h"
#include "zchunk.h"

#include <climits>
#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR only */

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

/* ---- z-march with staged inputs (3D) -----------------------------------------------------------
 * A block owns a column of cells and walks up to zc planes along z. cp.async copies each plane,
 * with a ring of R cells around the block, into a ring of shared slots D planes ahead (one read
 * of device memory per cell and input, no registers held by the reads in flight); each thread
 * keeps its own cells' values along z in a register ring. */

/* The cell at window coordinates (lx, ly) of a ring-r window of width BX + 2r, for h < ring size:
 * r rows above, r rows below, then r cells left and right of each of the BY middle rows. */
template <int BX, int BY, int r>
__device__ __forceinline__ void tess_ring_pos(int h, int &lx, int &ly) {
  constexpr int W = BX + 2 * r;
  if (h < 2 * r * W) {
    const int row = h / W;
    lx = h - row * W;
    ly = row < r ? row : BY + row;
  } else {
    const int j = h - 2 * r * W, c = j % (2 * r);
    ly = r + j / (2 * r);
    lx = c < r ? c : BX + c;
  }
}

/* A ring-r window around a block of BX x BY cells: its width, height and ring cells. */
template <int BX, int BY, int r> struct tess_ring {
  static constexpr int W = BX + 2 * r, H = BY + 2 * r, N = W * H - BX * BY;
};

/* Periodic wrap of region coordinate c along axis a (WR: tess_region.wrap), else c itself. */
template <bool WR>
__device__ __forceinline__ int tess_wrap_rc(const tess_stencil_plan &p, int a, int c) {
  if constexpr (WR)
    return tess_wrap(p.lo[a] + c, p.ghost[a], p.dim[a]) - p.lo[a];
  else
    return c;
}

/* The z-march's plane counter under wrap: pointers formed at the image of plane z (wrapped
 * once, tess_wrap_rc) move up one plane a step and back by the owned extent when they pass the
 * top of the owned box; kz is the padded z of the plane they point at. */
template <bool WR> struct tess_zwrap {
  int kz;
  __device__ __forceinline__ tess_zwrap(const tess_stencil_plan &p, int z) {
    kz = p.lo[2] + tess_wrap_rc<WR>(p, 2, z);
  }
  /* the pointers' step for this plane: sz, or sz minus the owned extent's planes */
  __device__ __forceinline__ long long step(const tess_stencil_plan &p, long long sz) {
    if constexpr (WR) {
      const int top = p.dim[2] - p.ghost[2];
      if (++kz == top) {
        kz = p.ghost[2];
        return sz - (long long)(top - p.ghost[2]) * sz;
      }
    }
    return sz;
  }
};

/* Device-memory element of region cell (x, y, z) of input f, component comp. */
template <typename T>
__device__ __forceinline__ const T *tess_elem(const tess_stencil_plan &p, int f, int comp, int x,
                                              int y, int z) {
  return (const T *)p.in[f] + (p.lo[0] + x) + (long long)(p.lo[1] + y) * p.pos[1] +
         (long long)(p.lo[2] + z) * p.pos[2] + (long long)comp * p.sc;
}

/* Asynchronous copies of one element into shared memory (cp.async, sm_80 on), in groups. */
template <typename T> __device__ __forceinline__ void tess_cp(T *smem, const T *g) {
  asm volatile(
      "cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(smem)),
      "l"(g), "n"(sizeof(T)));
}
__device__ __forceinline__ void tess_cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void tess_cp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__host__ __device__ constexpr int tess_gcd(int a, int b) { return b ? tess_gcd(b, a % b) : a; }
__host__ __device__ constexpr int tess_lcm(int a, int b) { return a / tess_gcd(a, b) * b; }
/* Planes in flight for radius R when the launch does not say (D = 0): the slot ring (R + 1 + D
 * planes) then is a multiple of the register queue (2R + 1), so one unrolled round of the z
 * loop puts every slot and queue index at a compile-time constant. */
__host__ __device__ constexpr int tess_depth(int R, int D) { return D ? D : R >= 2 ? R : 4 * R; }

/* A block's plane window of element copies: rows y0 - r .. y0 + BY + r - 1, WS = BX + 2r columns
 * from region x xs; thread t copies elements t, t + NT, ... keeping 32-bit offsets from the
 * plane's base pointer (x / y wrap folded in once: offsets stay within one plane, so the launch
 * needs planes of at most INT_MAX elements) and a mask of those inside the reach. */
template <typename T, int BX, int BY, int r, int NT, bool WR = false> struct tess_flat {
  static constexpr int WS = BX + 2 * r, H = BY + 2 * r, N = WS * H;
  static constexpr int SL = (N + NT - 1) / NT;
  static_assert(SL <= 32, "one mask bit per element a thread");
  const T *base; /* region cell (0, 0) of the plane to copy next (under WR: of its image) */
  int off[SL], t;
  unsigned ok;
  tess_zwrap<WR> zw;
  __device__ __forceinline__ tess_flat(const tess_stencil_plan &p, int xs, int y0, int z, int tid)
      : t(tid), zw(p, z) {
    base = tess_elem<T>(p, 0, 0, 0, 0, tess_wrap_rc<WR>(p, 2, z));
    ok = 0;
    for (int s = 0; s < SL; s++) {
      const int e = tid + s * NT, row = e / WS, gx = xs + e - row * WS, gy = y0 - r + row;
      const bool in = e < N && gx < p.n[0] + r && gy < p.n[1] + r;
      ok |= (unsigned)in << s;
      off[s] = in ? tess_wrap_rc<WR>(p, 0, gx) + tess_wrap_rc<WR>(p, 1, gy) * (int)p.pos[1] : 0;
    }
  }
  __device__ __forceinline__ void copy(const tess_stencil_plan &p, T *w, bool go, long long sz) {
    if (go)
      for (int s = 0; s < SL; s++)
        if (ok >> s & 1) tess_cp(w + t + s * NT, base + off[s]);
    base += zw.step(p, sz);
  }
};

/* The one-level staged z-march (TESS_STENCIL in 3D, one input of one component), K cells a
 * thread stacked along y: a block of BX x BY threads owns BX x (BY K) cells. Plane j (z0 - R + j)
 * lands in shared memory (slot j mod S, with the ring of R) D planes after its copy was issued;
 * when it lands, each thread appends its cells' values to their register queues (rings of
 * 2R + 1) and computes its cells R planes below: z offsets from the queues, the column along y
 * read once for the K cells and each cell's x row into registers (the accessors' yr, xr). So a
 * plane copy moves K times the cells of a one-cell block with the same warps (more bytes in
 * flight per SM, a thinner ring), and a cell costs 1 + 2R + 2R / K shared loads, not 4R + 1. One
 * barrier per plane; the loop is unrolled by U planes so that no slot or queue index is computed
 * at run time. */
template <typename Op, int R, int K, int BX, int BY, int MINB, int D0, bool WR>
__global__ void __launch_bounds__(BX *BY, MINB)
    tess_stencil_zk(const __grid_constant__ tess_stencil_plan p, int zc) {
  typedef typename Op::T T;
  constexpr int NT = BX * BY;
  typedef tess_flat<T, BX, BY * K, R, NT, WR> G;
  constexpr int W = G::WS, PL = W * G::H;
  constexpr int D = tess_depth(R, D0), Q = 2 * R + 1, S = R + 1 + D, U = tess_lcm(S, Q);
  extern __shared__ __align__(16) unsigned char tess_smem[];
  T(*win)[PL] = (T(*)[PL])tess_smem; /* [S][PL] */
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY * K;
  const int z0 = blockIdx.z * zc, z1 = min(z0 + zc, p.n[2]);
  const int x = x0 + tx, yb = y0 + ty * K; /* the thread's cells: (x, yb + k), k < K */
  unsigned mine = 0;
#pragma unroll
  for (int k = 0; k < K; k++)
    mine |= (unsigned)(x < p.n[0] && yb + k < p.n[1]) << k;
  const long long sz = p.pos[2], sy = p.pos[1];
  G st(p, x0 - R, y0, z0 - R, tid);          /* plane z0 - R first */
  const int own = (ty * K + R) * W + tx + R; /* cell k of the thread: own + k W */
  const int nj = z1 - z0 + 2 * R;
#pragma unroll
  for (int d = 0; d < D; d++) {
    st.copy(p, win[d], d < nj, sz);
    tess_cp_commit();
  }
  T q[K][Q];
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int i = 0; i < Q; i++)
      q[k][i] = T(0);
  const typename Op::C c0 =
      Op::at(&p, p.lo[0] + (mine ? x : 0), p.lo[1] + (mine ? yb : 0), p.lo[2] + z0);
  T *out = c0.out[0];     /* cell 0's output, plane by plane (the launch checks nout == 1) */
  const T *in = c0.in[0]; /* its input (for reads off the axes: TESS_IN's 3D diagonals) */
  for (int j0 = 0; j0 < nj; j0 += U) {
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int j = j0 + u; /* the same in the whole block */
      if (j < nj) {
        tess_cp_wait<D - 1>();
        __syncthreads(); /* plane j is visible; the slot of plane j - R - 1 is free */
        st.copy(p, win[(u + D) % S], j + D < nj, sz);
        tess_cp_commit();
#pragma unroll
        for (int k = 0; k < K; k++)
          q[k][u % Q] = win[u % S][own + k * W];
        if (j >= 2 * R && mine) { /* the cells R planes below */
          const T *pl = win[(u + S - R) % S] + own;
          T yv[K + 2 * R]; /* the column along y: R above cell 0 .. R below cell K - 1 */
#pragma unroll
          for (int i = 0; i < R; i++)
            yv[i] = pl[(i - R) * W], yv[K + R + i] = pl[(K + i) * W];
#pragma unroll
          for (int k = 0; k < K; k++)
            yv[R + k] = q[k][(u + Q - R) % Q];
#pragma unroll
          for (int k = 0; k < K; k++)
            if (mine >> k & 1) {
              T xv[2 * R + 1];
#pragma unroll
              for (int i = 1; i <= R; i++)
                xv[R + i] = pl[k * W + i], xv[R - i] = pl[k * W - i];
              xv[R] = yv[R + k];
              typename Op::C c = c0;
              c.in[0] = in + k * sy, c.out[0] = out + k * sy;
              c.nc = 1, c.nin = 1, c.act = 7, c.nw = 1, c.qr = R, c.qb = (u + 1) % Q, c.q = q[k];
              c.pl = pl + k * W, c.wp = W, c.fs = PL;
              c.xr = &xv[R], c.yr = &yv[R + k], c.ys = 1;
              c.wr = WR, c.cy = c0.cy + k, c.cz = c0.cz + j - 2 * R;
              Op::cell(&c);
            }
        }
        if (j >= 2 * R) out += sz, in += sz;
      }
    }
  }
}

/* The two-level staged z-march (TESS_STENCIL2 of radius 2 in 3D, one component, input 0 staged
 * with a ring of 2; outer may read input 0 only at its cell, other inputs anywhere), K cells a
 * thread stacked along y. When plane j of input 0 (z0 - 2 + j) lands: inner at the thread's own
 * cells of plane j - 1 (register rings of input 0 and of inner along z, the column along y read
 * once for the K cells), inner at the block's one-cell ring on plane j - 2 (from the slots of
 * planes j - 3 .. j - 1) into a shared plane of inner, then outer at the own cells over inner's
 * seven values. Two barriers per plane; unrolled by U planes as tess_stencil_zk. */
template <typename Op, int K, int BX, int BY, int MINB, int D0, bool WR>
__global__ void __launch_bounds__(BX *BY, MINB)
    tess_stencil_zk2(const __grid_constant__ tess_stencil_plan p, int zc) {
  typedef typename Op::T T;
  constexpr int NT = BX * BY, CY = BY * K;   /* the block's cells: BX x CY */
  typedef tess_flat<T, BX, CY, 2, NT, WR> G; /* input 0's planes, ring 2 */
  typedef tess_ring<BX, CY, 1> M;            /* inner's ring cells */
  constexpr int D = D0 ? D0 : 2, S = 4 + D, W = G::WS, PL = W * G::H, MW = BX + 2,
                MS = (M::N + NT - 1) / NT, U = tess_lcm(S, 3);
  extern __shared__ __align__(16) unsigned char tess_smem[];
  T(*vw)[PL] = (T(*)[PL])tess_smem;                        /* [S][PL] */
  T(*mw)[MW] = (T(*)[MW])(tess_smem + S * PL * sizeof(T)); /* [CY + 2][MW]: mu, ring 1 */
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * CY;
  const int z0 = blockIdx.z * zc, z1 = min(z0 + zc, p.n[2]);
  const int x = x0 + tx, yb = y0 + ty * K; /* the thread's cells: (x, yb + k), k < K */
  unsigned mine = 0, midc = 0;             /* outer here; inner here is read (x, y <= n) */
#pragma unroll
  for (int k = 0; k < K; k++) {
    mine |= (unsigned)(x < p.n[0] && yb + k < p.n[1]) << k;
    midc |= (unsigned)(x <= p.n[0] && yb + k <= p.n[1]) << k;
  }
  const long long sz = p.pos[2], sy = p.pos[1];
  G st(p, x0 - 2, y0, z0 - 2, tid);            /* plane z0 - 2 first */
  const int own = (ty * K + 2) * W + tx + 2;   /* cell k: own + k W in a slot */
  const int mown = (ty * K + 1) * MW + tx + 1; /* and + k MW in mw */
  /* ring cells of inner: slot offsets, mw offsets, validity (-1 <= x <= n), pointers */
  int mo[MS], mm[MS], mcx[MS], mcy[MS]; /* mcx, mcy: padded x, y (wrapped reads) */
  bool mring[MS];
  const T *vr[MS], *wr[MS];
  const long long up = p.nin > 1 ? sz : 0; /* input 1 absent: its pointers stay NULL */
#pragma unroll
  for (int s = 0; s < MS; s++) {
    const int h = tid + s * NT;
    int lx = 0, ly = 0;
    if (h < M::N) tess_ring_pos<BX, CY, 1>(h, lx, ly);
    const int rx = x0 + lx - 1, ry = y0 + ly - 1;
    mring[s] = h < M::N && rx <= p.n[0] && ry <= p.n[1];
    mo[s] = (ly + 1) * W + lx + 1, mm[s] = ly * MW + lx;
    const typename Op::C r0 =
        Op::at(&p, p.lo[0] + (mring[s] ? rx : 0), p.lo[1] + (mring[s] ? ry : 0), p.lo[2] + z0);
    vr[s] = r0.in[0] - 5 * sz, wr[s] = r0.in[1] - 5 * up;
    mcx[s] = r0.cx, mcy[s] = r0.cy;
  }
  const int nj = z1 - z0 + 4;
#pragma unroll
  for (int d = 0; d < D; d++) {
    st.copy(p, vw[d], d < nj, sz);
    tess_cp_commit();
  }
  T qv[K][3], qm[K][3]; /* u and mu at the own cells: plane j at j mod 3 */
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int i = 0; i < 3; i++)
      qv[k][i] = qm[k][i] = T(0);
  const typename Op::C c0 =
      Op::at(&p, p.lo[0] + (midc ? x : 0), p.lo[1] + (midc ? yb : 0), p.lo[2] + z0);
  const T *w = c0.in[1] - 5 * up, *v = c0.in[0] - 5 * sz; /* bumped once per plane to j - 4 */
  T *out = c0.out[0] - 5 * sz;
  for (int j0 = 0; j0 < nj; j0 += U) {
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int j = j0 + u; /* the same in the whole block */
      if (j >= nj) break;
      tess_cp_wait<D - 1>();
      __syncthreads();
      st.copy(p, vw[(u + D) % S], j + D < nj, sz);
      tess_cp_commit();
#pragma unroll
      for (int k = 0; k < K; k++)
        qv[k][u % 3] = vw[u % S][own + k * W];
      w += up, v += sz, out += sz; /* at plane z0 + j - 4 */
#pragma unroll
      for (int s = 0; s < MS; s++)
        vr[s] += sz, wr[s] += up;
      if (j < 2) continue;
      if (midc) { /* inner at the own cells, plane j - 1 */
        const T *pl = vw[(u + S - 1) % S] + own;
        T yv[K + 2];
        yv[0] = pl[-W], yv[K + 1] = pl[K * W];
#pragma unroll
        for (int k = 0; k < K; k++)
          yv[1 + k] = qv[k][(u + 2) % 3];
#pragma unroll
        for (int k = 0; k < K; k++)
          if (midc >> k & 1) {
            const T xv[3] = {pl[k * W - 1], yv[1 + k], pl[k * W + 1]};
            typename Op::C c = c0;
            c.in[0] = v + sz + k * sy, c.in[1] = w + up + (up ? k * sy : 0);
            c.out[0] = out + sz + k * sy;
            c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = (u + 1) % 3, c.q = qv[k];
            c.pl = pl + k * W, c.wp = W, c.fs = 0;
            c.xr = &xv[1], c.yr = &yv[1 + k], c.ys = 1;
            c.wr = WR, c.cy = c0.cy + k, c.cz = c0.cz + j - 3;
            qm[k][(u + 2) % 3] = Op::inner(&c);
          }
      }
      if (j < 4) continue;
#pragma unroll
      for (int k = 0; k < K; k++)
        if (midc >> k & 1) mw[0][mown + k * MW] = qm[k][(u + 1) % 3];
#pragma unroll
      for (int s = 0; s < MS; s++)
        if (mring[s]) { /* inner on the ring, plane j - 2 */
          typename Op::C c = c0;
          c.in[0] = vr[s], c.in[1] = p.nin > 1 ? wr[s] : NULL, c.out[0] = NULL;
          c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = 0, c.q = NULL;
          c.plm = &vw[(u + S - 3) % S][mo[s]], c.pl = &vw[(u + S - 2) % S][mo[s]];
          c.plp = &vw[(u + S - 1) % S][mo[s]], c.wp = W, c.fs = 0;
          c.wr = WR, c.cx = mcx[s], c.cy = mcy[s], c.cz = c0.cz + j - 4;
          mw[0][mm[s]] = Op::inner(&c);
        }
      __syncthreads();
      if (mine) { /* outer at the own cells, plane j - 2 */
        const T *ml = &mw[0][mown];
        T my[K + 2]; /* mu along y */
        my[0] = ml[-MW], my[K + 1] = ml[K * MW];
#pragma unroll
        for (int k = 0; k < K; k++)
          my[1 + k] = qm[k][(u + 1) % 3];
#pragma unroll
        for (int k = 0; k < K; k++)
          if (mine >> k & 1) {
            typename Op::C c = c0;
            c.in[0] = v + k * sy, c.in[1] = w + (up ? k * sy : 0), c.out[0] = out + k * sy;
            c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = u % 3, c.q = qv[k]; /* the cell only */
            c.pl = vw[(u + S - 2) % S] + own + k * W, c.wp = W, c.fs = 0;
            c.wr = WR, c.cy = c0.cy + k, c.cz = c0.cz + j - 4;
            const T m[7] = {my[1 + k], ml[k * MW + 1],     ml[k * MW - 1], my[2 + k],
                            my[k],     qm[k][(u + 2) % 3], qm[k][u % 3]};
            Op::outer(&c, m);
          }
      }
    }
  }
}

/* ---- two cells a thread along x (3D, input 0 of one component staged) ------------------------
 * The two-level z-march with each thread owning two neighbouring cells of a row, paired as the
 * device memory pairs them: cell x and x + 1 with (lo[0] + x) even, so that a pair is one 16-byte
 * (double) or 8-byte (float) word in device memory and in shared memory. The copies move whole
 * pairs (cp.async of two elements; the half past the reach zero-filled), and a thread reads its
 * x row and its two columns along y as pairs into registers, from which the cell function's
 * accessors (cell.h: xr, yr) serve both cells: per cell about half the shared loads, half the
 * barriers and two independent chains of arithmetic. Needs even row and plane pitches and
 * pair-aligned fields (tess_stencil_paired); other layouts take tess_stencil_zk2. Faster than
 * tess_stencil_zk2 in float only (docs/performance.md, 2026-11-28). */

template <typename T> struct tess_pair_of;
template <> struct tess_pair_of<double> { typedef double2 V; };
template <> struct tess_pair_of<float> { typedef float2 V; };

/* Asynchronous copy of one pair: n of its 2 sizeof(T) bytes from g, the rest zero-filled. */
template <typename T> __device__ __forceinline__ void tess_cp_pair(T *smem, const T *g, int n) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  if constexpr (sizeof(T) == 8)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(g), "r"(n));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(g), "r"(n));
}

/* Asynchronous copy of one element: n of its sizeof(T) bytes from g (n = 0: zero-filled). */
template <typename T> __device__ __forceinline__ void tess_cp_elem(T *smem, const T *g, int n) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(g), "n"(sizeof(T)),
               "r"(n));
}

/* A block's plane window of pairs: rows y0 - r .. y0 + BY + r - 1, WS columns starting at the
 * pair-aligned region x xs (the ring r, plus one column when r is odd so that the own pairs stay
 * aligned). Each of NT threads copies up to SL pairs a plane. */
template <typename T, int BX, int BY, int r, int NT, bool WR = false> struct tess_pairs {
  static constexpr int P = r & 1, WS = BX + 2 * r + 2 * P, H = BY + 2 * r, NP = WS / 2 * H;
  static constexpr int SL = (NP + NT - 1) / NT;
  const T *src[SL];
  int dst[SL], nb[SL]; /* nb: bytes to read (0: none) */
  /* WR: a pair whose images are not one aligned pair (it straddles the x seam, or the owned
   * extent is odd) is copied as two elements, the second from src + d1 (d1 = 0: a pair) */
  int d1[SL];
  tess_zwrap<WR> zw;
  __device__ __forceinline__ tess_pairs(const tess_stencil_plan &p, int xs, int y0, int z, int tid)
      : zw(p, z) {
    const int zi = tess_wrap_rc<WR>(p, 2, z);
    for (int s = 0; s < SL; s++) {
      const int i = tid + s * NT, row = i / (WS / 2), pc = i - row * (WS / 2);
      const int gx = xs + 2 * pc, gy = y0 - r + row;
      /* a pair reaching into [-r, n + r) along x (its low half may lie before -r: still inside
       * the row, the pair of lo[0] - r starting at lo[0] - r - 1 >= 0 at the lowest) */
      const bool ok = i < NP && gy < p.n[1] + r && gx + 1 >= -r && gx < p.n[0] + r;
      nb[s] = !ok ? 0 : gx + 1 < p.n[0] + r ? 2 * (int)sizeof(T) : (int)sizeof(T);
      dst[s] = row * WS + 2 * pc;
      const int wx = ok ? tess_wrap_rc<WR>(p, 0, gx) : 0;
      src[s] = tess_elem<T>(p, 0, 0, wx, ok ? tess_wrap_rc<WR>(p, 1, gy) : 0, zi);
      d1[s] = 0;
      if constexpr (WR) {
        const int wx1 = nb[s] > (int)sizeof(T) ? tess_wrap_rc<WR>(p, 0, gx + 1) : wx + 1;
        if (ok && (wx1 != wx + 1 || ((wx - gx) & 1))) d1[s] = wx1 - wx;
      }
    }
  }
  __device__ __forceinline__ void copy(const tess_stencil_plan &p, T *w, bool go, long long sz) {
    if (go)
      for (int s = 0; s < SL; s++)
        if (nb[s]) {
          if (WR && d1[s]) { /* two elements; the second zero-filled past the reach */
            tess_cp_elem(w + dst[s], src[s], (int)sizeof(T));
            tess_cp_elem(w + dst[s] + 1, src[s] + d1[s], nb[s] - (int)sizeof(T));
          } else {
            tess_cp_pair(w + dst[s], src[s], nb[s]);
          }
        }
    const long long d = zw.step(p, sz);
    for (int s = 0; s < SL; s++)
      src[s] += d;
  }
};

/* Loads n pairs from shared memory at w (pair-aligned) into v[0 .. 2n-1]. */
template <typename T, int n> __device__ __forceinline__ void tess_ld_pairs(T *v, const T *w) {
  typedef typename tess_pair_of<T>::V V;
#pragma unroll
  for (int i = 0; i < n; i++) {
    const V a = ((const V *)w)[i];
    v[2 * i] = a.x, v[2 * i + 1] = a.y;
  }
}

/* The two results of a thread to device memory: one pair store where both are its own. */
template <typename T>
__device__ __forceinline__ void tess_st_pair(T *o, const T *res, bool m0, bool m1) {
  typedef typename tess_pair_of<T>::V V;
  if (m0 && m1) {
    V v;
    v.x = res[0], v.y = res[1];
    *(V *)o = v;
  } else {
    if (m0) o[0] = res[0];
    if (m1) o[1] = res[1];
  }
}

/* The two-level z-march of tess_stencil_zk2 with two cells a thread along x (one row): inner at
 * the own pair from registers, on the block's one-cell ring (up to MS ring cells a thread) from
 * the slots, outer over mu pairs. */
template <typename Op, int BXT, int BY, int ZC, int MINB, int D0, bool WR>
__global__ void __launch_bounds__(BXT *BY, MINB)
    tess_stencil_zp2(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  constexpr int NT = BXT * BY, BX = 2 * BXT;
  typedef tess_pairs<T, BX, BY, 2, NT, WR> G; /* input 0's planes (ring 2: no extra column) */
  typedef tess_ring<BX, BY, 1> M;             /* inner's ring cells */
  constexpr int D = D0 ? D0 : 2, S = 4 + D, PL = G::WS * G::H, MW = BX + 4,
                MS = (M::N + NT - 1) / NT;
  constexpr int U = tess_lcm(S, 3);
  extern __shared__ __align__(16) unsigned char tess_smem[];
  T(*vw)[PL] = (T(*)[PL])tess_smem;                        /* [S][PL] */
  T(*mw)[MW] = (T(*)[MW])(tess_smem + S * PL * sizeof(T)); /* [BY + 2][MW]: x at x - x0 + 2 */
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BXT + tx;
  const int x0 = blockIdx.x * BX - (p.lo[0] & 1), y0 = blockIdx.y * BY;
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, p.n[2]);
  const int x = x0 + 2 * tx, y = y0 + ty;
  const bool m0 = y < p.n[1] && x >= 0 && x < p.n[0], m1 = y < p.n[1] && x + 1 < p.n[0];
  const bool midc = y <= p.n[1] && x <= p.n[0]; /* inner at the pair is read (x >= -1) */
  const long long sz = p.pos[2];
  G st(p, x0 - 2, y0, z0 - 2, tid); /* plane z0 - 2 first */
  const int own = (ty + 2) * G::WS + 2 * tx + 2, xrow = (ty + 2) * G::WS + 2 * tx;
  /* ring cells of inner: window offsets, mw places, validity (-1 <= x <= n), pointers */
  int mo[MS], mx[MS], my[MS], mcx[MS], mcy[MS]; /* mcx, mcy: padded x, y (wrapped reads) */
  bool mring[MS];
  const T *vr[MS], *wr[MS];
  const long long up = p.nin > 1 ? sz : 0; /* input 1 absent: its pointers stay NULL */
#pragma unroll
  for (int s = 0; s < MS; s++) {
    const int h = tid + s * NT;
    int lx = 0, ly = 0;
    if (h < M::N) tess_ring_pos<BX, BY, 1>(h, lx, ly);
    const int rx = x0 + lx - 1, ry = y0 + ly - 1;
    mring[s] = h < M::N && rx >= -1 && rx <= p.n[0] && ry <= p.n[1];
    mo[s] = (ly + 1) * G::WS + lx + 1, mx[s] = lx + 1, my[s] = ly;
    const typename Op::C r0 =
        Op::at(&p, p.lo[0] + (mring[s] ? rx : 0), p.lo[1] + (mring[s] ? ry : 0), p.lo[2] + z0);
    vr[s] = r0.in[0] - 5 * sz, wr[s] = r0.in[1] - 5 * up;
    mcx[s] = r0.cx, mcy[s] = r0.cy;
  }
  const int nj = z1 - z0 + 4;
#pragma unroll
  for (int d = 0; d < D; d++) {
    st.copy(p, vw[d], d < nj, sz);
    tess_cp_commit();
  }
  T qv[2][3] = {{0, 0, 0}, {0, 0, 0}}, qm[2][3] = {{0, 0, 0}, {0, 0, 0}};
  const typename Op::C c0 = Op::at(&p, p.lo[0] + x, p.lo[1] + (midc ? y : 0), p.lo[2] + z0);
  const T *w = c0.in[1] - 5 * up, *v = c0.in[0] - 5 * sz; /* bumped once per plane to j - 4 */
  T *out = c0.out[0] - 5 * sz;
  for (int j0 = 0; j0 < nj; j0 += U) {
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int j = j0 + u; /* the same in the whole block */
      if (j >= nj) break;
      tess_cp_wait<D - 1>();
      __syncthreads();
      st.copy(p, vw[(u + D) % S], j + D < nj, sz);
      tess_cp_commit();
      {
        T o[2];
        tess_ld_pairs<T, 1>(o, &vw[u % S][own]);
        qv[0][u % 3] = o[0], qv[1][u % 3] = o[1];
      }
      w += up, v += sz, out += sz; /* at plane z0 + j - 4 */
#pragma unroll
      for (int s = 0; s < MS; s++)
        vr[s] += sz, wr[s] += up;
      if (j < 2) continue;
      if (midc) { /* inner at the pair, plane j - 1 */
        const T *pl = vw[(u + S - 1) % S];
        T xv[6], yv[3][2];
        tess_ld_pairs<T, 3>(xv, pl + xrow);
        tess_ld_pairs<T, 1>(yv[2], pl + own + G::WS);
        tess_ld_pairs<T, 1>(yv[0], pl + own - G::WS);
        yv[1][0] = xv[2], yv[1][1] = xv[3];
#pragma unroll
        for (int h = 0; h < 2; h++) {
          typename Op::C c = c0;
          c.in[0] = v + sz + h, c.in[1] = w + up + (up ? h : 0), c.out[0] = out + sz + h;
          c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = (u + 1) % 3, c.q = qv[h];
          c.pl = pl + own + h, c.wp = G::WS, c.fs = 0;
          c.xr = &xv[2 + h], c.yr = &yv[1][h], c.ys = 2;
          c.wr = WR, c.cx = c0.cx + h, c.cz = c0.cz + j - 3;
          qm[h][(u + 2) % 3] = Op::inner(&c);
        }
      }
      if (j < 4) continue;
      if (midc) {
        typedef typename tess_pair_of<T>::V V;
        V a;
        a.x = qm[0][(u + 1) % 3], a.y = qm[1][(u + 1) % 3];
        *(V *)&mw[ty + 1][2 * tx + 2] = a;
      }
#pragma unroll
      for (int s = 0; s < MS; s++)
        if (mring[s]) { /* inner on the ring, plane j - 2 */
          typename Op::C c = c0;
          c.in[0] = vr[s], c.in[1] = p.nin > 1 ? wr[s] : NULL, c.out[0] = NULL;
          c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = 0, c.q = NULL;
          c.plm = &vw[(u + S - 3) % S][mo[s]], c.pl = &vw[(u + S - 2) % S][mo[s]];
          c.plp = &vw[(u + S - 1) % S][mo[s]], c.wp = G::WS, c.fs = 0;
          c.wr = WR, c.cx = mcx[s], c.cy = mcy[s], c.cz = c0.cz + j - 4;
          mw[my[s]][mx[s]] = Op::inner(&c);
        }
      __syncthreads();
      if (m0 || m1) { /* outer at plane j - 2 */
        T xm[6], ym[3][2], res[2];
        tess_ld_pairs<T, 1>(xm, &mw[ty + 1][2 * tx]);
        tess_ld_pairs<T, 1>(xm + 4, &mw[ty + 1][2 * tx + 4]);
        tess_ld_pairs<T, 1>(ym[2], &mw[ty + 2][2 * tx + 2]);
        tess_ld_pairs<T, 1>(ym[0], &mw[ty][2 * tx + 2]);
        xm[2] = qm[0][(u + 1) % 3], xm[3] = qm[1][(u + 1) % 3];
#pragma unroll
        for (int h = 0; h < 2; h++) {
          typename Op::C c = c0;
          c.in[0] = v + h, c.in[1] = w + (up ? h : 0), c.out[0] = &res[h];
          c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = u % 3, c.q = qv[h]; /* the cell only */
          c.pl = vw[(u + S - 2) % S] + own + h, c.wp = G::WS, c.fs = 0;
          c.wr = WR, c.cx = c0.cx + h, c.cz = c0.cz + j - 4;
          const T m[7] = {xm[2 + h], xm[3 + h],          xm[1 + h],   ym[2][h],
                          ym[0][h],  qm[h][(u + 2) % 3], qm[h][u % 3]};
          Op::outer(&c, m);
        }
        tess_st_pair(out, res, m0, m1);
      }
    }
  }
}

void tess_stencil_check_launch(void) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

template <typename Op, bool WR>
void tess_stencil_launch_cells(const tess_stencil_plan *p, void *stream) {
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
  static constexpr int K = 4, BX = 128, BY = 4, MINB = 1, ZC = 128;
};
template <> struct tess_zk_shape<float, false> {
  static constexpr int K = 4, BX = 128, BY = 4, MINB = 1, ZC = 256;
};
template <typename T> struct tess_zk_shape<T, true> { /* radius 1 (heat order 2, ch_mu) */
  static constexpr int K = 4, BX = 256, BY = 2, MINB = 1, ZC = 64;
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

template <typename Op, int R, int K, int BX, int BY, int ZC, int MINB, int D, bool WR>
void tess_stencil_launch_zk(const tess_stencil_plan *p, void *stream) {
  typedef tess_flat<typename Op::T, BX, BY * K, R, BX * BY> G;
  const size_t bytes = sizeof(typename Op::T) * (R + 1 + tess_depth(R, D)) * G::WS * G::H;
  tess_stencil_launch_z<BX, BY, BY * K, ZC>(tess_stencil_zk<Op, R, K, BX, BY, MINB, D, WR>, p,
                                            bytes, 2 * R, stream);
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

/* One-level kernels: the staged z-march for one input of one component, else cell by cell. */
template <typename Op, int R, bool WR>
void tess_stencil_launch_one(const tess_stencil_plan *p, void *stream) {
  typedef tess_zk_shape<typename Op::T, R == 1> Z;
  if (p->nin == 1 && p->nout == 1 && tess_stencil_staged(p, 1))
    tess_stencil_launch_zk<Op, R, Z::K, Z::BX, Z::BY, Z::ZC, Z::MINB, 0, WR>(p, stream);
  else
    tess_stencil_launch_cells<Op, WR>(p, stream);
}

/* Two-level kernels: radius 2 staged (in float two cells a thread where the fields pair up),
 * else the plain z-march in 3D, else cell by cell. */
template <typename Op, int R, bool WR>
void tess_stencil_launch_two(const tess_stencil_plan *p, void *stream) {
  typedef typename Op::T T;
  if (!(p->active[0] && p->active[1] && p->active[2])) {
    tess_stencil_launch_cells<Op, WR>(p, stream);
    return;
  }
  if constexpr (R == 2) /* the staged form's reach */
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
    if (p->wrap) /* a lone periodic tile: every path reads at the periodic images */               \
      tess_stencil_launch_one<TESS_FN(tess_op_##nm), radius_, true>(p, stream);                    \
    else                                                                                           \
      tess_stencil_launch_one<TESS_FN(tess_op_##nm), radius_, false>(p, stream);                   \
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
    if (p->wrap)                                                                                   \
      tess_stencil_launch_two<TESS_FN(tess_op_##nm), radius_, true>(p, stream);                    \
    else                                                                                           \
      tess_stencil_launch_two<TESS_FN(tess_op_##nm), radius_, false>(p, stream);                   \
  }

#include "stencil/passes.h"

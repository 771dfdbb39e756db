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
 *   zp       TESS_STENCIL in 3D, one input of one component, radius > 1 (heat order 6), in
 *            float: the staged z-march below with two cells a thread along x, where the fields
 *            pair up in memory (even pitches, aligned starts: tess_stencil_paired); else zq.
 *   zq       TESS_STENCIL in 3D, one input of one component, radius 1 (heat order 2, ch_mu),
 *            double, or fields that do not pair: the staged z-march, one cell a thread.
 *            A block owns a BX x BY column and walks ZC planes of z; cp.async copies each plane
 *            with a ring of R cells into a ring of shared slots, D planes ahead; each thread
 *            keeps its own column's 2R + 1 values along z in registers. The cell function
 *            reads them through the same accessors (cell.h's tess_ax): z offsets from the
 *            registers, x and y offsets from the plane's slot, so one device read per cell.
 *   zp2      TESS_STENCIL2 of radius 2 in 3D (ch_fused), fields paired: zq2 with two cells a
 *            thread along x.
 *   zq2      TESS_STENCIL2 of radius 2 in 3D, input 0 of one component staged (ch_fused): the
 *            same with a ring of 2; inner at the thread's own cell into a register ring, at the
 *            block's one-cell ring from the shared slots, outer from those (outer may read
 *            input 0 only at its cell, other inputs anywhere).
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
 * gpu-verify against the CPU). The block shapes are the fastest measured on an H100 (tess_zq_shape
 * below).
 */
#include "region.h"
#include "stencil.h"

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
 * A block owns a BX x BY column of cells and walks ZC planes along z. cp.async copies each plane,
 * with a ring of R cells around the block, into a ring of shared slots D planes ahead (one read
 * of device memory per cell and input, no registers held by the reads in flight); each thread
 * keeps its own column's values along z in a register ring. */

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

template <int BX, int BY, int r> struct tess_ring {
  static constexpr int W = BX + 2 * r, H = BY + 2 * r, N = W * H - BX * BY;
  static constexpr int SLOTS = (N + BX * BY - 1) / (BX * BY); /* ring cells per thread */
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

/* Where a block's thread copies plane data from: its own column and its ring cells (up to
 * SLOTS) of a ring-r window; col, rok false where the cell lies past the region's reach. */
template <typename T, int BX, int BY, int r, bool WR = false> struct tess_stage {
  typedef tess_ring<BX, BY, r> G;
  const T *own, *ring[G::SLOTS];
  int ro[G::SLOTS], oo; /* offsets in a window plane */
  bool col, rok[G::SLOTS];
  tess_zwrap<WR> zw;
  __device__ __forceinline__ tess_stage(const tess_stencil_plan &p, int x0, int y0, int tx, int ty,
                                        int z0)
      : zw(p, z0) {
    const int tid = ty * BX + tx, x = x0 + tx, y = y0 + ty;
    const int zi = tess_wrap_rc<WR>(p, 2, z0); /* WR: x, y, z at their images */
    col = x < p.n[0] + r && y < p.n[1] + r;
    own = tess_elem<T>(p, 0, 0, col ? tess_wrap_rc<WR>(p, 0, x) : 0,
                       col ? tess_wrap_rc<WR>(p, 1, y) : 0, zi);
    oo = (ty + r) * G::W + tx + r;
    for (int s = 0; s < G::SLOTS; s++) {
      const int h = tid + s * BX * BY;
      int lx = 0, ly = 0;
      if (h < G::N) tess_ring_pos<BX, BY, r>(h, lx, ly);
      const int gx = x0 + lx - r, gy = y0 + ly - r;
      rok[s] = h < G::N && gx < p.n[0] + r && gy < p.n[1] + r;
      ro[s] = ly * G::W + lx;
      ring[s] = tess_elem<T>(p, 0, 0, rok[s] ? tess_wrap_rc<WR>(p, 0, gx) : 0,
                             rok[s] ? tess_wrap_rc<WR>(p, 1, gy) : 0, zi);
    }
  }
  /* copies the next plane (components 0..NC-1, each a window plane apart) into w, if go */
  template <int NC>
  __device__ __forceinline__ void copy(const tess_stencil_plan &p, T *w, bool go, long long sz,
                                       long long sc) {
    if (go)
      for (int i = 0; i < NC; i++) {
        if (col) tess_cp(w + i * G::W * G::H + oo, own + i * sc);
        for (int s = 0; s < G::SLOTS; s++)
          if (rok[s]) tess_cp(w + i * G::W * G::H + ro[s], ring[s] + i * sc);
      }
    const long long d = zw.step(p, sz);
    own += d;
    for (int s = 0; s < G::SLOTS; s++)
      ring[s] += d;
  }
};

__host__ __device__ constexpr int tess_gcd(int a, int b) { return b ? tess_gcd(b, a % b) : a; }
__host__ __device__ constexpr int tess_lcm(int a, int b) { return a / tess_gcd(a, b) * b; }
/* Planes in flight for radius R when the launch does not say (D = 0): the slot ring (R + 1 + D
 * planes) then is a multiple of the register queue (2R + 1), so one unrolled round of the z
 * loop puts every slot and queue index at a compile-time constant. */
__host__ __device__ constexpr int tess_depth(int R, int D) { return D ? D : R >= 2 ? R : 4 * R; }

/* The one-level staged z-march. Plane j (z0 - R + j) lands in shared memory (slot j mod S, with
 * the ring of R) D planes after its copy was issued; when it lands, each thread appends its own
 * value to its register queue (a ring of 2R + 1) and computes the cell R planes below, reading
 * z offsets from the queue and x, y offsets from that plane's slot. One barrier per plane; the
 * loop is unrolled by U planes so that no slot or queue index is computed at run time. */
template <typename Op, int R, int NC, int BX, int BY, int ZC, int MINB, int D0, bool WR>
__global__ void __launch_bounds__(BX *BY, MINB)
    tess_stencil_zq(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  typedef tess_ring<BX, BY, R> G;
  constexpr int D = tess_depth(R, D0), Q = 2 * R + 1, S = R + 1 + D, PL = NC * G::W * G::H;
  constexpr int U = tess_lcm(S, Q);
  extern __shared__ __align__(16) unsigned char tess_smem[];
  T(*win)[PL] = (T(*)[PL])tess_smem; /* [S][PL] */
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, p.n[2]);
  const int x = x0 + tx, y = y0 + ty;
  const bool mine = x < p.n[0] && y < p.n[1];
  const long long sz = p.pos[2];
  tess_stage<T, BX, BY, R, WR> st(p, x0, y0, tx, ty, z0 - R); /* plane z0 - R first */
  const int nj = z1 - z0 + 2 * R;
#pragma unroll
  for (int d = 0; d < D; d++) {
    st.template copy<NC>(p, win[d], d < nj, sz, p.sc);
    tess_cp_commit();
  }
  T q[NC][Q];
#pragma unroll
  for (int i = 0; i < NC; i++)
#pragma unroll
    for (int k = 0; k < Q; k++)
      q[i][k] = T(0);
  const typename Op::C c0 =
      Op::at(&p, p.lo[0] + (mine ? x : 0), p.lo[1] + (mine ? y : 0), p.lo[2] + z0);
  T *out = c0.out[0];     /* the cell's output, plane by plane (the launch checks nout == 1) */
  const T *in = c0.in[0]; /* its input (for reads off the axes: TESS_IN's 3D diagonals) */
  for (int j0 = 0; j0 < nj; j0 += U) {
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int j = j0 + u; /* the same in the whole block */
      if (j < nj) {
        tess_cp_wait<D - 1>();
        __syncthreads(); /* plane j is visible; the slot of plane j - R - 1 is free */
        st.template copy<NC>(p, win[(u + D) % S], j + D < nj, sz, p.sc);
        tess_cp_commit();
#pragma unroll
        for (int i = 0; i < NC; i++)
          q[i][u % Q] = win[u % S][i * G::W * G::H + st.oo];
        if (j >= 2 * R && mine) {
          typename Op::C c = c0;
          c.in[0] = in, c.out[0] = out;
          c.nc = NC, c.nin = 1, c.act = 7, c.nw = 1, c.qr = R, c.qb = (u + 1) % Q, c.q = &q[0][0];
          c.pl = &win[(u + S - R) % S][st.oo], c.wp = G::W, c.fs = G::W * G::H;
          c.wr = WR, c.cz = c0.cz + j - 2 * R;
          Op::cell(&c);
        }
        if (j >= 2 * R) out += sz, in += sz;
      }
    }
  }
}

/* The two-level staged z-march (TESS_STENCIL2 of radius 2, one component, input 0 staged with
 * a ring of 2; outer may read input 0 only at its cell). When plane j of input 0 (z0 - 2 + j)
 * lands: inner at the thread's own cell of plane j - 1 (register rings of input 0 and of inner
 * along the own column), inner at the ring of one cell around the block on plane j - 2 (from
 * the slots of planes j - 3 .. j - 1), then outer there. Two barriers per plane; unrolled by U
 * planes as above. */
template <typename Op, int BX, int BY, int ZC, int MINB, int D0, bool WR>
__global__ void __launch_bounds__(BX *BY, MINB)
    tess_stencil_zq2(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  typedef tess_ring<BX, BY, 2> G; /* input 0's planes */
  typedef tess_ring<BX, BY, 1> M; /* inner's plane */
  constexpr int NT = BX * BY, D = D0 ? D0 : 2, S = 4 + D, PL = G::W * G::H;
  constexpr int U = tess_lcm(S, 3);
  static_assert(M::N <= NT, "one inner ring cell per thread at most");
  extern __shared__ __align__(16) unsigned char tess_smem[];
  T(*vw)[PL] = (T(*)[PL])tess_smem;                            /* [S][PL] */
  T(*mw)[M::W] = (T(*)[M::W])(tess_smem + S * PL * sizeof(T)); /* [M::H][M::W] */
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, p.n[2]);
  const int x = x0 + tx, y = y0 + ty;
  const bool mine = x < p.n[0] && y < p.n[1];   /* outer here */
  const bool midc = x <= p.n[0] && y <= p.n[1]; /* inner here is read */
  const long long sz = p.pos[2];
  tess_stage<T, BX, BY, 2, WR> st(p, x0, y0, tx, ty, z0 - 2); /* plane z0 - 2 first */
  int mlx = 0, mly = 0;
  if (tid < M::N) tess_ring_pos<BX, BY, 1>(tid, mlx, mly);
  const bool mring = tid < M::N && x0 + mlx - 1 <= p.n[0] && y0 + mly - 1 <= p.n[1];
  const int mo = (mly + 1) * G::W + mlx + 1;
  const int nj = z1 - z0 + 4;
#pragma unroll
  for (int d = 0; d < D; d++) {
    st.template copy<1>(p, vw[d], d < nj, sz, 0);
    tess_cp_commit();
  }
  T qv[3] = {0, 0, 0}, qm[3] = {0, 0, 0}; /* rings: plane j at j mod 3 */
  const int cx = midc ? x : 0, cy = midc ? y : 0;
  const typename Op::C c0 = Op::at(&p, p.lo[0] + cx, p.lo[1] + cy, p.lo[2] + z0);
  const typename Op::C r0 = Op::at(&p, p.lo[0] + (mring ? x0 + mlx - 1 : 0),
                                   p.lo[1] + (mring ? y0 + mly - 1 : 0), p.lo[2] + z0);
  /* running pointers, plane by plane (the launch checks nin <= 2, nout == 1): input 1 and the
   * output at the thread's own cell for inner (one plane up) and outer, input 1 on the ring */
  const long long up = p.nin > 1 ? sz : 0; /* input 1 absent: its pointers stay NULL */
  const T *w = c0.in[1] - 5 * up, *wr = r0.in[1] - 5 * up; /* bumped once per plane to j - 4 */
  const T *v = c0.in[0] - 5 * sz, *vr = r0.in[0] - 5 * sz;
  T *out = c0.out[0] - 5 * sz;
  for (int j0 = 0; j0 < nj; j0 += U) {
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int j = j0 + u; /* the same in the whole block */
      if (j >= nj) break;
      tess_cp_wait<D - 1>();
      __syncthreads();
      st.template copy<1>(p, vw[(u + D) % S], j + D < nj, sz, 0);
      tess_cp_commit();
      qv[u % 3] = vw[u % S][st.oo];
      w += up, wr += up, v += sz, vr += sz, out += sz; /* at plane z0 + j - 4 */
      if (j < 2) continue;
      if (midc) { /* inner at plane j - 1 */
        typename Op::C c = c0;
        c.in[0] = v + sz, c.in[1] = w + up, c.out[0] = out + sz;
        c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = (u + 1) % 3, c.q = qv;
        c.pl = &vw[(u + S - 1) % S][st.oo], c.wp = G::W, c.fs = 0;
        c.wr = WR, c.cz = c0.cz + j - 3;
        qm[(u + 2) % 3] = Op::inner(&c);
      }
      if (j < 4) continue;
      if (midc) mw[ty + 1][tx + 1] = qm[(u + 1) % 3];
      if (mring) { /* inner on the ring, plane j - 2 */
        typename Op::C c = r0;
        c.in[0] = vr, c.in[1] = wr, c.out[0] = NULL; /* inner writes nothing */
        c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = 0, c.q = NULL;
        c.plm = &vw[(u + S - 3) % S][mo], c.pl = &vw[(u + S - 2) % S][mo];
        c.plp = &vw[(u + S - 1) % S][mo], c.wp = G::W, c.fs = 0;
        c.wr = WR, c.cz = r0.cz + j - 4;
        mw[mly][mlx] = Op::inner(&c);
      }
      __syncthreads();
      if (mine) { /* outer at plane j - 2 */
        typename Op::C c = c0;
        c.in[0] = v, c.in[1] = w, c.out[0] = out;
        c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.qb = u % 3, c.q = qv; /* the cell only */
        c.pl = &vw[(u + S - 2) % S][st.oo], c.wp = G::W, c.fs = 0;
        c.wr = WR, c.cz = c0.cz + j - 4;
        const T m[7] = {qm[(u + 1) % 3], mw[ty + 1][tx + 2], mw[ty + 1][tx], mw[ty + 2][tx + 1],
                        mw[ty][tx + 1],  qm[(u + 2) % 3],    qm[u % 3]};
        Op::outer(&c, m);
      }
    }
  }
}

/* ---- two cells a thread along x (3D, input 0 of one component staged) ------------------------
 * The same z-marches with each thread owning two neighbouring cells of a row, paired as the
 * device memory pairs them: cell x and x + 1 with (lo[0] + x) even, so that a pair is one 16-byte
 * (double) or 8-byte (float) word in device memory and in shared memory. The copies move whole
 * pairs (cp.async of two elements; the half past the reach zero-filled), and a thread reads its
 * x row and its two columns along y as pairs into registers, from which the cell function's
 * accessors (cell.h: xr, yr) serve both cells: per cell about half the shared loads, half the
 * barriers and two independent chains of arithmetic. Needs even row and plane pitches and
 * pair-aligned fields (tess_stencil_paired); other layouts take the one-cell forms above. */

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

/* The one-level z-march of tess_stencil_zq with two cells a thread (BXT threads along x). */
template <typename Op, int R, int BXT, int BY, int ZC, int MINB, int D0, bool WR>
__global__ void __launch_bounds__(BXT *BY, MINB)
    tess_stencil_zp(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  constexpr int NT = BXT * BY, BX = 2 * BXT;
  typedef tess_pairs<T, BX, BY, R, NT, WR> G;
  constexpr int D = tess_depth(R, D0), Q = 2 * R + 1, S = R + 1 + D, PL = G::WS * G::H;
  constexpr int U = tess_lcm(S, Q), XL = R + 1 + G::P; /* XL: pairs in a thread's x row */
  extern __shared__ __align__(16) unsigned char tess_smem[];
  T(*win)[PL] = (T(*)[PL])tess_smem; /* [S][PL] */
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * BX - (p.lo[0] & 1), y0 = blockIdx.y * BY; /* x0: pair-aligned */
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, p.n[2]);
  const int x = x0 + 2 * tx, y = y0 + ty; /* the thread's cells: x and x + 1 (x >= -1) */
  const bool m0 = y < p.n[1] && x >= 0 && x < p.n[0], m1 = y < p.n[1] && x + 1 < p.n[0];
  const long long sz = p.pos[2];
  G st(p, x0 - R - G::P, y0, z0 - R, ty * BXT + tx);    /* plane z0 - R first */
  const int own = (ty + R) * G::WS + 2 * tx + R + G::P; /* the thread's pair in a plane */
  const int xrow = (ty + R) * G::WS + 2 * tx;           /* its x row's first pair */
  const int nj = z1 - z0 + 2 * R;
#pragma unroll
  for (int d = 0; d < D; d++) {
    st.copy(p, win[d], d < nj, sz);
    tess_cp_commit();
  }
  T q[2][Q];
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int k = 0; k < Q; k++)
      q[i][k] = T(0);
  const typename Op::C c0 = Op::at(&p, p.lo[0] + x, p.lo[1] + (y < p.n[1] ? y : 0), p.lo[2] + z0);
  T *out = c0.out[0];     /* cell x's output, plane by plane (the launch checks nout == 1) */
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
        {
          T o[2];
          tess_ld_pairs<T, 1>(o, &win[u % S][own]);
          q[0][u % Q] = o[0], q[1][u % Q] = o[1];
        }
        if (j >= 2 * R && (m0 || m1)) { /* the cells R planes below */
          const T *pl = win[(u + S - R) % S];
          T xv[2 * XL], yv[2 * R + 1][2], res[2];
          tess_ld_pairs<T, XL>(xv, pl + xrow);
#pragma unroll
          for (int k = 1; k <= R; k++) {
            tess_ld_pairs<T, 1>(yv[R + k], pl + own + k * G::WS);
            tess_ld_pairs<T, 1>(yv[R - k], pl + own - k * G::WS);
          }
          yv[R][0] = xv[R + G::P], yv[R][1] = xv[R + G::P + 1];
#pragma unroll
          for (int h = 0; h < 2; h++) {
            typename Op::C c = c0;
            c.in[0] = in + h, c.out[0] = &res[h];
            c.nc = 1, c.nin = 1, c.act = 7, c.nw = 1, c.qr = R, c.qb = (u + 1) % Q, c.q = q[h];
            c.pl = pl + own + h, c.wp = G::WS, c.fs = PL;
            c.xr = &xv[R + G::P + h], c.yr = &yv[R][h], c.ys = 2;
            c.wr = WR, c.cx = c0.cx + h, c.cz = c0.cz + j - 2 * R;
            Op::cell(&c);
          }
          tess_st_pair(out, res, m0, m1);
        }
        if (j >= 2 * R) out += sz, in += sz;
      }
    }
  }
}

/* The two-level z-march of tess_stencil_zq2 with two cells a thread: inner at the own pair
 * from registers, on the block's one-cell ring (up to MS ring cells a thread) from the slots,
 * outer over mu pairs; one barrier a plane fewer per cell. */
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

/* The staged z-marches' blocks (x, y), blocks per SM asked of the compiler, planes per block:
 * the fastest of bench/stencil_kernel_bench.cu's variants on an H100 at 512^3 (heat orders 2
 * and 6, Cahn–Hilliard fused; docs/performance.md, 2026-11-25 stencil section). */
template <typename T> struct tess_zq_shape { /* one level: double */
  static constexpr int BX = 64, BY = 8, MINB = 2, ZC = 64;
};
template <> struct tess_zq_shape<float> {
  static constexpr int BX = 64, BY = 4, MINB = 4, ZC = 64;
};
template <typename T> struct tess_zq2_shape { /* two levels: double */
  static constexpr int BX = 64, BY = 4, MINB = 4, ZC = 64, D = 2;
};
template <> struct tess_zq2_shape<float> {
  static constexpr int BX = 32, BY = 8, MINB = 4, ZC = 64, D = 2;
};

/* Radius 1 (heat order 2, ch_mu): one cell a thread in wide blocks measured fastest. */
template <typename T> struct tess_zq1_shape { /* double */
  static constexpr int BX = 256, BY = 2, MINB = 2, ZC = 64;
};
template <> struct tess_zq1_shape<float> {
  static constexpr int BX = 128, BY = 4, MINB = 2, ZC = 64;
};
/* Two cells a thread (BXT threads, 2 BXT cells along x), where the fields allow it. */
template <typename T> struct tess_zp_shape { /* one level, radius > 1 (float) */
  static constexpr int BXT = 32, BY = 8, MINB = 2, ZC = 64;
};
template <typename T> struct tess_zp2_shape { /* two levels: double */
  static constexpr int BXT = 32, BY = 8, MINB = 2, ZC = 64, D = 8;
};
template <> struct tess_zp2_shape<float> {
  static constexpr int BXT = 32, BY = 8, MINB = 2, ZC = 64, D = 3;
};

/* The staged z-march pays where the region is a real 3D box; thin slabs go cell by cell. */
static inline bool tess_stencil_staged(const tess_stencil_plan *p, int nc) {
  return p->active[0] && p->active[1] && p->active[2] && p->nc == nc && p->n[0] >= 16 &&
         p->n[1] >= 8 && p->n[2] >= 8;
}

/* Above 48 KiB of shared memory a kernel must ask, on each device (StarPU may drive several). */
template <typename K> void tess_stencil_smem(K kernel, size_t bytes) {
  if (bytes <= 48 * 1024) return;
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

template <typename Op, int R, int NC, int BX, int BY, int ZC, int MINB, int D, bool WR>
void tess_stencil_launch_zq(const tess_stencil_plan *p, void *stream) {
  const dim3 b(BX, BY, 1);
  const dim3 g((unsigned)((p->n[0] + BX - 1) / BX), (unsigned)((p->n[1] + BY - 1) / BY),
               (unsigned)((p->n[2] + ZC - 1) / ZC));
  typedef tess_ring<BX, BY, R> G;
  const size_t bytes = sizeof(typename Op::T) * (R + 1 + tess_depth(R, D)) * NC * G::W * G::H;
  tess_stencil_smem(tess_stencil_zq<Op, R, NC, BX, BY, ZC, MINB, D, WR>, bytes);
  tess_stencil_zq<Op, R, NC, BX, BY, ZC, MINB, D, WR><<<g, b, bytes, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

template <typename Op, int BX, int BY, int ZC, int MINB, int D, bool WR>
void tess_stencil_launch_zq2(const tess_stencil_plan *p, void *stream) {
  const dim3 b(BX, BY, 1);
  const dim3 g((unsigned)((p->n[0] + BX - 1) / BX), (unsigned)((p->n[1] + BY - 1) / BY),
               (unsigned)((p->n[2] + ZC - 1) / ZC));
  typedef tess_ring<BX, BY, 2> G;
  typedef tess_ring<BX, BY, 1> M;
  const size_t bytes = sizeof(typename Op::T) * ((4 + (D ? D : 2)) * G::W * G::H + M::W * M::H);
  tess_stencil_smem(tess_stencil_zq2<Op, BX, BY, ZC, MINB, D, WR>, bytes);
  tess_stencil_zq2<Op, BX, BY, ZC, MINB, D, WR><<<g, b, bytes, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

/* Two cells a thread need pairs aligned in device memory: even row and plane pitches, and the
 * input and output fields starting on a pair (cudaMalloc's and StarPU's buffers do). */
template <typename T> static inline bool tess_stencil_paired(const tess_stencil_plan *p) {
  const size_t a = 2 * sizeof(T);
  return p->pos[1] % 2 == 0 && p->pos[2] % 2 == 0 && (size_t)p->in[0] % a == 0 &&
         (size_t)p->out[0] % a == 0;
}

template <typename Op, int R, int BXT, int BY, int ZC, int MINB, int D, bool WR>
void tess_stencil_launch_zp(const tess_stencil_plan *p, void *stream) {
  constexpr int BX = 2 * BXT;
  const dim3 b(BXT, BY, 1);
  const dim3 g((unsigned)((p->n[0] + (p->lo[0] & 1) + BX - 1) / BX),
               (unsigned)((p->n[1] + BY - 1) / BY), (unsigned)((p->n[2] + ZC - 1) / ZC));
  typedef tess_pairs<typename Op::T, BX, BY, R, BXT * BY> G;
  const size_t bytes = sizeof(typename Op::T) * (R + 1 + tess_depth(R, D)) * G::WS * G::H;
  tess_stencil_smem(tess_stencil_zp<Op, R, BXT, BY, ZC, MINB, D, WR>, bytes);
  tess_stencil_zp<Op, R, BXT, BY, ZC, MINB, D, WR><<<g, b, bytes, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
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

/* One-level kernels: the staged z-march for one input of one component, else cell by cell.
 * Radius 1: one cell a thread in wide blocks (tess_zq1_shape); larger radii: in float two
 * cells a thread where the fields pair up (tess_stencil_paired), else one. In double the pairs
 * ran no faster alone (heat6 at 512^3 on three H100s: 0.990 / 0.970 / 0.968 ms against 1.012 /
 * 0.960 / 0.947 one cell a thread): fewer instructions, but half the warps. */
template <typename Op, int R, bool WR>
void tess_stencil_launch_one(const tess_stencil_plan *p, void *stream) {
  typedef typename Op::T T;
  if (!(p->nin == 1 && p->nout == 1 && tess_stencil_staged(p, 1))) {
    tess_stencil_launch_cells<Op, WR>(p, stream);
  } else if (R == 1) {
    typedef tess_zq1_shape<T> Z;
    tess_stencil_launch_zq<Op, R, 1, Z::BX, Z::BY, Z::ZC, Z::MINB, 0, WR>(p, stream);
  } else if (sizeof(T) < 8 && tess_stencil_paired<T>(p)) {
    typedef tess_zp_shape<T> Z;
    tess_stencil_launch_zp<Op, R, Z::BXT, Z::BY, Z::ZC, Z::MINB, 0, WR>(p, stream);
  } else {
    typedef tess_zq_shape<T> Z;
    tess_stencil_launch_zq<Op, R, 1, Z::BX, Z::BY, Z::ZC, Z::MINB, 0, WR>(p, stream);
  }
}

template <typename Op, int R, bool WR>
void tess_stencil_launch_two(const tess_stencil_plan *p, void *stream) {
  if (!(p->active[0] && p->active[1] && p->active[2])) {
    tess_stencil_launch_cells<Op, WR>(p, stream);
    return;
  }
  if constexpr (R == 2) /* the staged form's reach */
    if (p->nin <= 2 && p->nout == 1 && tess_stencil_staged(p, 1) &&
        tess_stencil_paired<typename Op::T>(p)) {
      typedef tess_zp2_shape<typename Op::T> Z;
      tess_stencil_launch_zp2<Op, Z::BXT, Z::BY, Z::ZC, Z::MINB, Z::D, WR>(p, stream);
      return;
    } else if (p->nin <= 2 && p->nout == 1 && tess_stencil_staged(p, 1)) {
      typedef tess_zq2_shape<typename Op::T> Z;
      tess_stencil_launch_zq2<Op, Z::BX, Z::BY, Z::ZC, Z::MINB, Z::D, WR>(p, stream);
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

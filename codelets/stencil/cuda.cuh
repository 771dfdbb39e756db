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

/* ---- z-march with staged inputs (3D, every input of nc components staged) -------------------
 * A block owns a BX x BY column of cells and walks ZC planes along z. Each thread keeps its own
 * column's 2R + 1 values along z in registers (one read of device memory per cell and input, the
 * next plane's read in flight while the cell is computed); the plane of the cell, with a ring of
 * R cells around the block, sits in shared memory for the x and y offsets. */

/* The cell at window coordinates (lx, ly) of a ring-r window of width BX + 2r, for h < ring size:
 * r rows above, r rows below, then r cells left and right of each of the BY middle rows. */
template <int BX, int BY, int r> __device__ __forceinline__ void tess_ring_pos(int h, int &lx, int &ly) {
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

/* Device-memory element of region cell (x, y, z) of input f, component comp. */
template <typename T>
__device__ __forceinline__ const T *tess_elem(const tess_stencil_plan &p, int f, int comp, int x,
                                              int y, int z) {
  return (const T *)p.in[f] + (p.lo[0] + x) + (long long)(p.lo[1] + y) * p.pos[1] +
         (long long)(p.lo[2] + z) * p.pos[2] + (long long)comp * p.sc;
}

/* Asynchronous copies of one element into shared memory (cp.async, sm_80 on), in groups. */
template <typename T> __device__ __forceinline__ void tess_cp(T *smem, const T *g) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(
                   (unsigned)__cvta_generic_to_shared(smem)),
               "l"(g), "n"(sizeof(T)));
}
__device__ __forceinline__ void tess_cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void tess_cp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/* Where a block's thread copies plane data from: its own column and its ring cells (up to
 * SLOTS) of a ring-r window; ok false where the cell lies past the region's reach. */
template <typename T, int BX, int BY, int r> struct tess_stage {
  typedef tess_ring<BX, BY, r> G;
  const T *own, *ring[G::SLOTS];
  int ro[G::SLOTS], oo; /* offsets in a window plane */
  bool col, rok[G::SLOTS];
  __device__ __forceinline__ tess_stage(const tess_stencil_plan &p, int x0, int y0, int tx, int ty,
                                        int z0) {
    const int tid = ty * BX + tx, x = x0 + tx, y = y0 + ty;
    col = x < p.n[0] + r && y < p.n[1] + r;
    own = tess_elem<T>(p, 0, 0, col ? x : 0, col ? y : 0, z0);
    oo = (ty + r) * G::W + tx + r;
    for (int s = 0; s < G::SLOTS; s++) {
      const int h = tid + s * BX * BY;
      int lx = 0, ly = 0;
      if (h < G::N) tess_ring_pos<BX, BY, r>(h, lx, ly);
      const int gx = x0 + lx - r, gy = y0 + ly - r;
      rok[s] = h < G::N && gx < p.n[0] + r && gy < p.n[1] + r;
      ro[s] = ly * G::W + lx;
      ring[s] = tess_elem<T>(p, 0, 0, rok[s] ? gx : 0, rok[s] ? gy : 0, z0);
    }
  }
  /* copies plane z0 + dz (components 0..NC-1, each a window plane apart) into w */
  template <int NC> __device__ __forceinline__ void copy(T *w, long long dz, long long sc) const {
    for (int i = 0; i < NC; i++) {
      if (col) tess_cp(w + i * G::W * G::H + oo, own + dz + i * sc);
      for (int s = 0; s < G::SLOTS; s++)
        if (rok[s]) tess_cp(w + i * G::W * G::H + ro[s], ring[s] + dz + i * sc);
    }
  }
};

/* The one-level staged z-march. Plane j lands in shared memory (slot j mod S, with the ring of
 * R) D planes after its copy was issued; when it lands, each thread appends its own value to
 * its register queue and computes the cell R planes below (z = j - R), reading z offsets from
 * the queue and x, y offsets from that plane's slot. One barrier per plane. */
template <typename Op, int R, int NC, int BX, int BY, int ZC, int MINB, int D>
__global__ void __launch_bounds__(BX *BY, MINB)
    tess_stencil_zq(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  typedef tess_ring<BX, BY, R> G;
  constexpr int Q = 2 * R + 1, S = R + 1 + D, PL = NC * G::W * G::H;
  __shared__ T win[S][PL];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, p.n[2]);
  const int x = x0 + tx, y = y0 + ty;
  const bool mine = x < p.n[0] && y < p.n[1];
  const long long sz = p.pos[2];
  const tess_stage<T, BX, BY, R> st(p, x0, y0, tx, ty, z0);
  /* planes z0 - R .. z1 - 1 + R; slot of plane j: (j - z0 + R) % S */
  const int nj = z1 - z0 + 2 * R;
  for (int d = 0; d < D; d++) {
    if (d < nj) st.template copy<NC>(win[d], (long long)(d - R) * sz, p.sc);
    tess_cp_commit();
  }
  T q[NC][Q];
  for (int i = 0; i < NC; i++)
    for (int j = 0; j < Q; j++) q[i][j] = T(0);
  for (int j = 0; j < nj; j++) { /* plane z0 - R + j lands */
    tess_cp_wait<D - 1>();
    __syncthreads(); /* it is visible; the slot of plane j - R - 1 is free */
    if (j + D < nj) st.template copy<NC>(win[(j + D) % S], (long long)(j + D - R) * sz, p.sc);
    tess_cp_commit();
    for (int i = 0; i < NC; i++) {
      for (int k = 0; k < Q - 1; k++) q[i][k] = q[i][k + 1];
      q[i][Q - 1] = win[j % S][i * G::W * G::H + st.oo];
    }
    if (j >= 2 * R && mine) {
      const int z = z0 + j - 2 * R;
      typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      c.nc = NC, c.nin = 1, c.act = 7, c.nw = 1, c.qr = R, c.q = &q[0][0];
      c.pl = &win[(j - R) % S][st.oo], c.wp = G::W, c.fs = G::W * G::H;
      Op::cell(&c);
    }
  }
}

/* The two-level staged z-march (TESS_STENCIL2 of radius 2, one component, input 0 staged with
 * a ring of 2). When plane j of input 0 lands: inner at the thread's own cell of plane j - 1
 * (register queues of input 0 and of inner along the own column), inner at the ring of one
 * cell around the block on plane z = j - 2 (from the slots of planes j - 3 .. j - 1), then
 * outer at z. Two barriers per plane. */
template <typename Op, int BX, int BY, int ZC, int MINB, int D>
__global__ void __launch_bounds__(BX *BY, MINB)
    tess_stencil_zq2(const __grid_constant__ tess_stencil_plan p) {
  typedef typename Op::T T;
  typedef tess_ring<BX, BY, 2> G; /* input 0's planes */
  typedef tess_ring<BX, BY, 1> M; /* inner's plane */
  constexpr int NT = BX * BY, S = 4 + D, PL = G::W * G::H;
  static_assert(M::N <= NT, "one inner ring cell per thread at most");
  __shared__ T vw[S][PL];
  __shared__ T mw[M::H][M::W];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
  const int z0 = blockIdx.z * ZC, z1 = min(z0 + ZC, p.n[2]);
  const int x = x0 + tx, y = y0 + ty;
  const bool mine = x < p.n[0] && y < p.n[1];   /* outer here */
  const bool midc = x <= p.n[0] && y <= p.n[1]; /* inner here is read */
  const long long sz = p.pos[2];
  const tess_stage<T, BX, BY, 2> st(p, x0, y0, tx, ty, z0);
  int mlx = 0, mly = 0;
  if (tid < M::N) tess_ring_pos<BX, BY, 1>(tid, mlx, mly);
  const bool mring = tid < M::N && x0 + mlx - 1 <= p.n[0] && y0 + mly - 1 <= p.n[1];
  const int mo = (mly + 1) * G::W + mlx + 1;
  /* planes z0 - 2 .. z1 + 1; slot of plane j: (j - z0 + 2) % S */
  const int nj = z1 - z0 + 4;
  for (int d = 0; d < D; d++) {
    if (d < nj) st.template copy<1>(vw[d], (long long)(d - 2) * sz, 0);
    tess_cp_commit();
  }
  T qv[4] = {0, 0, 0, 0}, qm[3] = {0, 0, 0};
  for (int j = 0; j < nj; j++) { /* plane z0 - 2 + j lands */
    tess_cp_wait<D - 1>();
    __syncthreads();
    if (j + D < nj) st.template copy<1>(vw[(j + D) % S], (long long)(j + D - 2) * sz, 0);
    tess_cp_commit();
    qv[0] = qv[1], qv[1] = qv[2], qv[2] = qv[3], qv[3] = vw[j % S][st.oo];
    if (j < 2) continue; /* uniform: the whole block */
    qm[0] = qm[1], qm[1] = qm[2];
    const int z = z0 + j - 4; /* outer's plane */
    if (midc) {               /* inner at z + 1 */
      typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z + 1);
      c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.q = &qv[1];
      c.pl = &vw[(j - 1) % S][st.oo], c.wp = G::W, c.fs = 0;
      qm[2] = Op::inner(&c);
    }
    if (j < 4) continue;
    if (midc) mw[ty + 1][tx + 1] = qm[1];
    if (mring) {
      typename Op::C c =
          Op::at(&p, p.lo[0] + x0 + mlx - 1, p.lo[1] + y0 + mly - 1, p.lo[2] + z);
      c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.q = NULL;
      c.plm = &vw[(j - 3) % S][mo], c.pl = &vw[(j - 2) % S][mo], c.plp = &vw[(j - 1) % S][mo];
      c.wp = G::W, c.fs = 0;
      mw[mly][mlx] = Op::inner(&c);
    }
    __syncthreads();
    if (mine) {
      typename Op::C c = Op::at(&p, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      c.nc = 1, c.act = 7, c.nw = 1, c.qr = 1, c.q = &qv[0];
      c.pl = &vw[(j - 2) % S][st.oo], c.wp = G::W, c.fs = 0;
      const T m[7] = {qm[1], mw[ty + 1][tx + 2], mw[ty + 1][tx], mw[ty + 2][tx + 1],
                      mw[ty][tx + 1], qm[2], qm[0]};
      Op::outer(&c, m);
    }
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

#ifndef TESS_ZQ_BX /* the staged z-march's block and planes per block (bench/ varies them) */
#define TESS_ZQ_BX   32
#define TESS_ZQ_BY   16
#define TESS_ZQ_ZC   64
#define TESS_ZQ_MINB 2
#define TESS_ZQ_D    2
#endif

/* The staged z-march pays where the region is a real 3D box; thin slabs go cell by cell. */
static inline bool tess_stencil_staged(const tess_stencil_plan *p, int nc) {
  return p->active[0] && p->active[1] && p->active[2] && p->nc == nc && p->n[0] >= 16 &&
         p->n[1] >= 8 && p->n[2] >= 8;
}

template <typename Op, int R, int NC, int BX, int BY, int ZC, int MINB, int D>
void tess_stencil_launch_zq(const tess_stencil_plan *p, void *stream) {
  const dim3 b(BX, BY, 1);
  const dim3 g((unsigned)((p->n[0] + BX - 1) / BX), (unsigned)((p->n[1] + BY - 1) / BY),
               (unsigned)((p->n[2] + ZC - 1) / ZC));
  tess_stencil_zq<Op, R, NC, BX, BY, ZC, MINB, D><<<g, b, 0, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

template <typename Op, int BX, int BY, int ZC, int MINB, int D>
void tess_stencil_launch_zq2(const tess_stencil_plan *p, void *stream) {
  const dim3 b(BX, BY, 1);
  const dim3 g((unsigned)((p->n[0] + BX - 1) / BX), (unsigned)((p->n[1] + BY - 1) / BY),
               (unsigned)((p->n[2] + ZC - 1) / ZC));
  tess_stencil_zq2<Op, BX, BY, ZC, MINB, D><<<g, b, 0, (cudaStream_t)stream>>>(*p);
  tess_stencil_check_launch();
}

/* One-level kernels: the staged z-march for one input of one component, else cell by cell. */
template <typename Op, int R> void tess_stencil_launch_one(const tess_stencil_plan *p, void *stream) {
  if (p->nin == 1 && tess_stencil_staged(p, 1))
    tess_stencil_launch_zq<Op, R, 1, TESS_ZQ_BX, TESS_ZQ_BY, TESS_ZQ_ZC, TESS_ZQ_MINB, TESS_ZQ_D>(p, stream);
  else
    tess_stencil_launch_cells<Op>(p, stream);
}

template <typename Op, int R> void tess_stencil_launch_two(const tess_stencil_plan *p, void *stream) {
  if (!(p->active[0] && p->active[1] && p->active[2])) {
    tess_stencil_launch_cells<Op>(p, stream);
    return;
  }
  if (R == 2 && tess_stencil_staged(p, 1)) {
    tess_stencil_launch_zq2<Op, TESS_ZQ_BX, TESS_ZQ_BY, TESS_ZQ_ZC, TESS_ZQ_MINB, TESS_ZQ_D>(p, stream);
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
    tess_stencil_launch_one<TESS_FN(tess_op_##nm), radius_>(p, stream);                            \
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
    tess_stencil_launch_two<TESS_FN(tess_op_##nm), radius_>(p, stream);                            \
  }

#include "stencil/passes.h"

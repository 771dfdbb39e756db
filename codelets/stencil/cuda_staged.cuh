/* cuda_staged.cuh — the stencil layer's staged z-marches (cuda.cuh's zk, zk2 and zp2 paths):
 * a block walks planes along z with its inputs copied ahead into shared memory (cuda_window.cuh)
 * and kept along z in registers, and runs the kernel's cell function(s) on them through the
 * accessors of cell.h. Launched by cuda.cuh (tess_stencil_launch_one / _two). */
#ifndef TESS_STENCIL_CUDA_STAGED_CUH
#define TESS_STENCIL_CUDA_STAGED_CUH

#include "stencil/cuda_walls.cuh"
#include "stencil/cuda_window.cuh"

namespace {

/* The one-level staged z-march (TESS_STENCIL in 3D, one input of NC components), K cells a
 * thread stacked along y: a block of BX x BY threads owns BX x (BY K) cells. Plane j (z0 - R + j)
 * lands in shared memory (slot j mod S, with the ring of R) D planes after its copy was issued;
 * when it lands, each thread appends its cells' values to their register queues (rings of
 * 2R + 1) and computes its cells R planes below: z offsets from the queues, the column along y
 * read once for the K cells and each cell's x row into registers (the accessors' yr, xr). So a
 * plane copy moves K times the cells of a one-cell block with the same warps (more bytes in
 * flight per SM, a thinner ring), and a cell costs 1 + 2R + 2R / K shared loads, not 4R + 1. One
 * barrier per plane; the loop is unrolled by U planes so that no slot or queue index is computed
 * at run time. With NC > 1 components (Maxwell's six) every component has its plane in each slot
 * and its queue, and the cell reads its x and y offsets from the slot (no xr, yr: a cell needs
 * each component along two axes only). PF > 0 (a stage that reads its output, Maxwell's RK3
 * u_old): the output's cells PF planes ahead are prefetched into L2, and each thread loads its
 * cells' output one plane ahead into registers, where the cell reads and updates it (TESS_OUT
 * through c.os = 1) before the thread stores it: the load's latency hides behind a plane. */
template <typename Op, int R, int K, int BX, int BY, int MINB, int D0, bool WR, bool WL, int NC = 1,
          int PF = 0>
__global__ void __launch_bounds__(BX *BY, MINB)
    tess_stencil_zk(const __grid_constant__ tess_stencil_plan p, int zc) {
  typedef typename Op::T T;
  constexpr int NT = BX * BY;
  typedef tess_flat<T, BX, BY * K, R, NT, WR> G;
  constexpr int W = G::WS, PL = W * G::H;
  constexpr int D = tess_depth(R, D0), Q = 2 * R + 1, S = R + 1 + D, U = tess_lcm(S, Q);
  static_assert(NC == 1 || !WL, "walls are staged for one component");
  extern __shared__ __align__(16) unsigned char tess_smem[];
  T(*win)[NC * PL] = (T(*)[NC * PL]) tess_smem; /* [S][NC][PL] */
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
  /* WL, walls (cuda_walls.cuh): the ghost planes along z written to memory by the block before
   * it copies them (blocks that share a ghost write the same bits, each its own before reading
   * it); x and y ghosts written into each plane's window when it lands */
  __shared__ tess_slot_walls sw;
  if constexpr (WL) {
    const int lo[3] = {p.lo[0] + x0 - R, p.lo[1] + y0 - R, p.lo[2] + z0 - R};
    const int hi[3] = {p.lo[0] + min(x0 + BX, p.n[0]) + R, p.lo[1] + min(y0 + BY * K, p.n[1]) + R,
                       p.lo[2] + z1 + R};
    tess_walls_fill<T>(p, lo, hi, 4u, tid, NT);
    if (tid == 0) tess_slot_walls_make(p, lo[0], lo[1], W, G::H, R, sw);
    __syncthreads();
  }
  /* a thread's share of every plane's x and y ghosts (two faces of R columns of BY K + 2R rows,
   * and at a y face R rows of BX cells: at most 2 cells a thread for the zk shapes) */
  constexpr int PW = WL && R > 0 ? (2 * R * (BY * K + 2 * R) + 2 * R * BX + NT - 1) / NT : 1;
  const tess_slot_patch<PW> patch(sw, W, tid, NT, WL);
#pragma unroll
  for (int d = 0; d < D; d++) {
    st.template copy<NC, PL>(p, win[d], d < nj, sz);
    tess_cp_commit();
  }
  T q[K][NC * Q]; /* component c at c Q */
#pragma unroll
  for (int k = 0; k < K; k++)
#pragma unroll
    for (int i = 0; i < NC * Q; i++)
      q[k][i] = T(0);
  const typename Op::C c0 =
      Op::at(&p, p.lo[0] + (mine ? x : 0), p.lo[1] + (mine ? yb : 0), p.lo[2] + z0);
  T *out = c0.out[0]; /* cell 0's output, plane by plane (the launch checks nout == 1) */
  const T *pf = out + (long long)PF * sz; /* with PF: the output PF planes ahead of out */
  const T *in = c0.in[0];   /* its input (for reads off the axes: TESS_IN's 3D diagonals) */
  T ov[K][PF > 0 ? NC : 1]; /* PF > 0: the output at the cells computed next (see above) */
  if constexpr (PF > 0)
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
      for (int i = 0; i < NC; i++)
        ov[k][i] = (mine >> k & 1) ? out[k * sy + i * p.sc] : T(0);
  for (int j0 = 0; j0 < nj; j0 += U) {
#pragma unroll
    for (int u = 0; u < U; u++) {
      const int j = j0 + u; /* the same in the whole block */
      if (j < nj) {
        tess_cp_wait<D - 1>();
        __syncthreads(); /* plane j is visible; the slot of plane j - R - 1 is free */
        st.template copy<NC, PL>(p, win[(u + D) % S], j + D < nj, sz);
        tess_cp_commit();
#pragma unroll
        for (int k = 0; k < K; k++)
#pragma unroll
          for (int i = 0; i < NC; i++)
            q[k][i * Q + u % Q] = win[u % S][i * PL + own + k * W];
        if (j >= 2 * R && mine) { /* the cells R planes below */
          const T *pl = win[(u + S - R) % S] + own;
          T yv[K + 2 * R]; /* one component: the column along y, R above cell 0 .. R below K - 1 */
          if constexpr (NC == 1) {
#pragma unroll
            for (int i = 0; i < R; i++)
              yv[i] = pl[(i - R) * W], yv[K + R + i] = pl[(K + i) * W];
#pragma unroll
            for (int k = 0; k < K; k++)
              yv[R + k] = q[k][(u + Q - R) % Q];
          }
#pragma unroll
          for (int k = 0; k < K; k++)
            if (mine >> k & 1) {
              T xv[2 * R + 1];
              typename Op::C c = c0;
              if constexpr (NC == 1) {
#pragma unroll
                for (int i = 1; i <= R; i++)
                  xv[R + i] = pl[k * W + i], xv[R - i] = pl[k * W - i];
                xv[R] = yv[R + k];
                c.xr = &xv[R], c.yr = &yv[R + k], c.ys = 1;
              }
              c.in[0] = in + k * sy, c.out[0] = out + k * sy;
              if constexpr (PF > 0) c.out[0] = ov[k], c.os = 1;
              c.nc = NC, c.nin = 1, c.act = 7, c.nw = 1, c.qr = R, c.qb = (u + 1) % Q, c.q = q[k];
              c.pl = pl + k * W, c.wp = W, c.fs = PL;
              c.wr = WR, c.cy = c0.cy + k, c.cz = c0.cz + j - 2 * R;
              Op::cell(&c);
              if constexpr (PF > 0)
#pragma unroll
                for (int i = 0; i < NC; i++)
                  out[k * sy + i * p.sc] = ov[k][i];
            }
          if constexpr (PF > 0)
            if (j - 2 * R + 1 < z1 - z0) /* the next plane's output, a plane ahead */
#pragma unroll
              for (int k = 0; k < K; k++)
#pragma unroll
                for (int i = 0; i < NC; i++)
                  if (mine >> k & 1) ov[k][i] = out[sz + k * sy + i * p.sc];
        }
        if constexpr (PF > 0)
          if (j >= 2 * R && j - 2 * R + PF < z1 - z0 && mine) {
#pragma unroll
            for (int k = 0; k < K; k++)
#pragma unroll
              for (int i = 0; i < NC; i++)
                if (mine >> k & 1) tess_prefetch_l2(pf + k * sy + i * p.sc);
          }
        if (j >= 2 * R) out += sz, in += sz, pf += sz;
        /* the walls' x and y ghosts of plane j, read from the next barrier on */
        if constexpr (WL) patch.apply(win[u % S], sw);
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

} // namespace

#endif

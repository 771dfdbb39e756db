/* mhd_cuda_cell.cuh — how a cell's stencil values reach mhd_cell.h on the GPU, and the kernel
 * that needs nothing more: accessors (a.get<C, DX, DY, DZ>()) over global memory, plain or at
 * the periodic images of a lone tile (WR), the derivatives and RK3 update of one cell from any
 * accessor (cell_update, which the tiled marches of mhd_cuda_tiled.cuh and mhd_cuda_tma.cuh call
 * with their shared-memory accessors), and the generic kernel: one thread per cell, every point
 * through L1. Part of mhd_cuda.cu, which includes it inside namespace tess_mhd_gpu after kparams;
 * not a header of its own. */

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

/* cahn_hilliard_cuda.cu — Cahn–Hilliard kernels on the GPU.
 *
 * One thread per cell of the region: threadIdx.x walks x (coalesced rows), threadIdx.y /
 * blockIdx.y walk y, blockIdx.z walks z; y and z use grid-stride loops so any region fits the
 * grid limits; the stencil reads come through L1/L2.
 *
 * ch_fused in 3D marches instead (tess_ch_zmarch): a block owns a 32 x 8 column of cells and
 * walks z; mu is computed once per cell of each plane (plus a one-cell ring) into shared memory,
 * three planes rotating (z-1, z, z+1), so each output reads its six mu neighbours from shared
 * memory instead of evaluating mu seven times (49 loads of u per cell down to ~9).
 *
 * Bitwise equality with the CPU reference (cahn_hilliard.c): every multiply and add is
 * written as __dmul_rn / __dadd_rn / __dsub_rn, which nvcc never contracts into FMAs, in
 * exactly the order of cahn_hilliard.c, with the constants from the same tess_ch_plan_make.
 * The file therefore needs no -fmad=false and stays correct whatever flags the build passes.
 * ch_fused uses the same device helpers as ch_mu and ch_update, so it also equals the split
 * pair bit for bit.
 */
#include "cahn_hilliard.h"
#include "region.h"

#include <stdlib.h>

#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR only; the kernel ABI itself is StarPU-free */

namespace {

/* The plan plus the active axes compacted in x, y, z order, by value. */
struct tess_ch_dev {
  tess_ch_plan p;
  long long st[3]; /* element stride of each active axis */
  double ih[3];    /* its 1 / h^2 */
};

/* Same operation sequences as the helpers of the same names in cahn_hilliard.c. */
__device__ __forceinline__ double tess_ch_d2(double fp, double fm, double f0, double ih) {
  return __dmul_rn(__dsub_rn(__dadd_rn(fp, fm), __dmul_rn(2.0, f0)), ih);
}

template <int NA>
__device__ __forceinline__ double tess_ch_lap(const double *__restrict__ f, const tess_ch_dev &d) {
  double lap = 0.0; /* stays 0 only on a grid with no active axis */
  if (NA >= 1) lap = tess_ch_d2(f[d.st[0]], f[-d.st[0]], f[0], d.ih[0]);
  if (NA >= 2) lap = __dadd_rn(lap, tess_ch_d2(f[d.st[1]], f[-d.st[1]], f[0], d.ih[1]));
  if (NA >= 3) lap = __dadd_rn(lap, tess_ch_d2(f[d.st[2]], f[-d.st[2]], f[0], d.ih[2]));
  return lap;
}

template <int NA>
__device__ __forceinline__ double tess_ch_mu_at(const double *__restrict__ v,
                                                const tess_ch_dev &d) {
  const double v0 = v[0];
  const double poly =
      __dadd_rn(__dmul_rn(d.p.neg_b, v0), __dmul_rn(d.p.u, __dmul_rn(__dmul_rn(v0, v0), v0)));
  return __dsub_rn(poly, __dmul_rn(d.p.k, tess_ch_lap<NA>(v, d)));
}

template <int W>
__device__ __forceinline__ double tess_ch_combine(double v, double lap_mu, double w,
                                                  const tess_ch_dev &d) {
  const double e = __dmul_rn(d.p.c1, __dadd_rn(v, __dmul_rn(d.p.coef, lap_mu)));
  return W ? __dadd_rn(__dmul_rn(d.p.c0, w), e) : e;
}

template <int NA>
__device__ __forceinline__ double tess_ch_lap_mu(const double *__restrict__ v,
                                                 const tess_ch_dev &d) {
  const double mu0 = tess_ch_mu_at<NA>(v, d);
  double lap = 0.0;
#pragma unroll
  for (int a = 0; a < NA; a++) {
    const long long s = d.st[a];
    const double e =
        tess_ch_d2(tess_ch_mu_at<NA>(v + s, d), tess_ch_mu_at<NA>(v - s, d), mu0, d.ih[a]);
    lap = a == 0 ? e : __dadd_rn(lap, e); /* the first axis is assigned, as in tess_ch_lap */
  }
  return lap;
}

/* OP: a tess_ch_op; W: w present (update and fused only). */
template <int OP, int NA, int W> __global__ void tess_ch_kernel(const tess_ch_dev d) {
  const tess_ch_plan &p = d.p;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= p.n[0]) return;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < p.n[1]; y += gridDim.y * blockDim.y)
    for (int z = blockIdx.z; z < p.n[2]; z += gridDim.z) {
      const size_t k = TESS_IDX(p.dim0, p.dim1, 1, 0, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      const double *__restrict__ f = p.f + k;
      if (OP == TESS_CH_OP_MU) {
        p.out[k] = tess_ch_mu_at<NA>(f, d);
      } else if (OP == TESS_CH_OP_UPDATE) {
        p.out[k] = tess_ch_combine<W>(p.v[k], tess_ch_lap<NA>(f, d), W ? p.w[k] : 0.0, d);
      } else {
        p.out[k] = tess_ch_combine<W>(f[0], tess_ch_lap_mu<NA>(f, d), W ? p.w[k] : 0.0, d);
      }
    }
}

/* ---- ch_fused in 3D: z-marching with mu planes in shared memory ---------------------------- */

constexpr int ZX = 32, ZY = 8, ZCHUNK = 32; /* block columns; planes per block along z */

/* mu on plane zz (box coordinates) over the block's columns plus a one-cell ring. */
__device__ __forceinline__ void tess_ch_mu_plane(const tess_ch_dev &d, double (*mu)[ZX + 2], int x0,
                                                 int y0, int zz) {
  const tess_ch_plan &p = d.p;
  for (int i = threadIdx.y * ZX + threadIdx.x; i < (ZX + 2) * (ZY + 2); i += ZX * ZY) {
    const int lx = i % (ZX + 2), ly = i / (ZX + 2);
    const int x = x0 + lx - 1, y = y0 + ly - 1; /* -1 .. n: the ring reaches one ghost cell */
    if (x > p.n[0] || y > p.n[1]) continue;     /* past a partial block: never read */
    mu[ly][lx] = tess_ch_mu_at<3>(
        p.f + TESS_IDX(p.dim0, p.dim1, 1, 0, p.lo[0] + x, p.lo[1] + y, p.lo[2] + zz), d);
  }
}

/* The same arithmetic as tess_ch_lap_mu<3> (axes x, y, z in that order) on shared mu. */
template <int W> __global__ void __launch_bounds__(ZX *ZY) tess_ch_zmarch(const tess_ch_dev d) {
  __shared__ double mu[3][ZY + 2][ZX + 2];
  const tess_ch_plan &p = d.p;
  const int x0 = blockIdx.x * ZX, y0 = blockIdx.y * ZY, tx = threadIdx.x, ty = threadIdx.y;
  const int z0 = blockIdx.z * ZCHUNK, z1 = min(z0 + ZCHUNK, p.n[2]);
  int prev = 0, cur = 1, next = 2;
  tess_ch_mu_plane(d, mu[prev], x0, y0, z0 - 1);
  tess_ch_mu_plane(d, mu[cur], x0, y0, z0);
  for (int z = z0; z < z1; z++) {
    tess_ch_mu_plane(d, mu[next], x0, y0, z + 1);
    __syncthreads();
    const int x = x0 + tx, y = y0 + ty;
    if (x < p.n[0] && y < p.n[1]) {
      const double m0 = mu[cur][ty + 1][tx + 1];
      double lap = tess_ch_d2(mu[cur][ty + 1][tx + 2], mu[cur][ty + 1][tx], m0, d.ih[0]);
      lap = __dadd_rn(lap, tess_ch_d2(mu[cur][ty + 2][tx + 1], mu[cur][ty][tx + 1], m0, d.ih[1]));
      lap = __dadd_rn(lap,
                      tess_ch_d2(mu[next][ty + 1][tx + 1], mu[prev][ty + 1][tx + 1], m0, d.ih[2]));
      const size_t k = TESS_IDX(p.dim0, p.dim1, 1, 0, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      p.out[k] = tess_ch_combine<W>(p.f[k], lap, W ? p.w[k] : 0.0, d);
    }
    __syncthreads(); /* everyone is done with mu[prev] before it becomes the next plane */
    const int t = prev;
    prev = cur;
    cur = next;
    next = t;
  }
}

template <int OP, int W>
void tess_ch_launch_na(int na, dim3 grid, dim3 block, cudaStream_t s, const tess_ch_dev &d) {
  switch (na) {
  case 0:
    tess_ch_kernel<OP, 0, W><<<grid, block, 0, s>>>(d);
    break;
  case 1:
    tess_ch_kernel<OP, 1, W><<<grid, block, 0, s>>>(d);
    break;
  case 2:
    tess_ch_kernel<OP, 2, W><<<grid, block, 0, s>>>(d);
    break;
  default:
    tess_ch_kernel<OP, 3, W><<<grid, block, 0, s>>>(d);
    break;
  }
}

template <int OP> void tess_ch_launch(const tess_region *r, void *stream) {
  tess_ch_dev d;
  if (!tess_ch_plan_make(r, (tess_ch_op)OP, &d.p)) return; /* empty region: no zero-sized grid */
  const long long stride[3] = {1, d.p.dim0, (long long)d.p.dim0 * d.p.dim1};
  int na = 0;
  for (int a = 0; a < 3; a++) {
    d.st[a] = 0;
    d.ih[a] = 0.0;
  }
  for (int a = 0; a < 3; a++)
    if (d.p.active[a]) {
      d.st[na] = stride[a];
      d.ih[na] = d.p.inv_h2[a];
      na++;
    }

  const int n0 = d.p.n[0];
  const unsigned bx = tess_row_block_x(n0);
  const unsigned by = 128u / bx;
  const unsigned gy = (unsigned)((d.p.n[1] + (int)by - 1) / (int)by);
  const int n2 = d.p.n[2];
  const dim3 block(bx, by, 1);
  const dim3 grid((unsigned)((n0 + (int)bx - 1) / (int)bx), gy < 65535u ? gy : 65535u,
                  (unsigned)(n2 < 65535 ? n2 : 65535));
  cudaStream_t s = (cudaStream_t)stream;
  const char *naive = getenv("TESS_CH_NAIVE"); /* =1: the per-cell kernel, for comparison */
  if (OP == TESS_CH_OP_FUSED && na == 3 && !(naive && naive[0] == '1')) {
    const dim3 zb(ZX, ZY, 1);
    const dim3 zg((unsigned)((n0 + ZX - 1) / ZX), (unsigned)((d.p.n[1] + ZY - 1) / ZY),
                  (unsigned)((n2 + ZCHUNK - 1) / ZCHUNK));
    if (d.p.has_w)
      tess_ch_zmarch<1><<<zg, zb, 0, s>>>(d);
    else
      tess_ch_zmarch<0><<<zg, zb, 0, s>>>(d);
  } else if (d.p.has_w)
    tess_ch_launch_na<OP, 1>(na, grid, block, s, d);
  else
    tess_ch_launch_na<OP, 0>(na, grid, block, s, d);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

} // namespace

extern "C" void tess_ch_mu_cuda(const tess_region *r, void *stream) {
  tess_ch_launch<TESS_CH_OP_MU>(r, stream);
}

extern "C" void tess_ch_update_cuda(const tess_region *r, void *stream) {
  tess_ch_launch<TESS_CH_OP_UPDATE>(r, stream);
}

extern "C" void tess_ch_fused_cuda(const tess_region *r, void *stream) {
  tess_ch_launch<TESS_CH_OP_FUSED>(r, stream);
}

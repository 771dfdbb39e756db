/* heat_cuda.cu — explicit heat equation (forward Euler) on the GPU.
 *
 * One thread per cell and component of the region: threadIdx.x walks x (coalesced rows),
 * threadIdx.y/blockIdx.y walk y, blockIdx.z walks (z, component); y and z use grid-stride
 * loops so any region fits the grid limits. No shared-memory tiling yet: the stencil reads
 * come through L1/L2.
 *
 * Bitwise equality with the CPU reference (heat.c): every multiply and add is written as
 * __dmul_rn / __dadd_rn, which nvcc never contracts into FMAs, in exactly the order of
 * heat.c, with the constants from the same tess_heat_plan_make. The file therefore needs no
 * -fmad=false and stays correct whatever flags the build passes. Single precision: the same
 * code on float with __fmul_rn / __fadd_rn and the plan's float constants (T = float).
 */
#include "heat.h"
#include "region.h"

#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR only; the kernel ABI itself is StarPU-free */

namespace {

/* The plan plus the active axes compacted in x, y, z order, by value. */
template <typename T> struct tess_heat_dev {
  tess_heat_plan p;
  long long st[3]; /* element stride of each active axis */
  T ih[3];         /* its 1 / h^2 */
  T b[4], coef;    /* the plan's constants in T */
};

/* Exactly rounded operations, never contracted into FMAs. */
__device__ __forceinline__ double rn_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double rn_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float rn_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float rn_add(float a, float b) { return __fadd_rn(a, b); }

/* Same operation sequence as tess_heat_d2 in heat.c. */
template <int R, typename T>
__device__ __forceinline__ T tess_heat_d2(const T *__restrict__ f, long long s, T b0, T b1, T b2,
                                          T b3) {
  T acc = rn_mul(b0, f[0]);
  acc = rn_add(acc, rn_mul(b1, rn_add(f[s], f[-s])));
  if (R >= 2) acc = rn_add(acc, rn_mul(b2, rn_add(f[2 * s], f[-2 * s])));
  if (R >= 3) acc = rn_add(acc, rn_mul(b3, rn_add(f[3 * s], f[-3 * s])));
  return acc;
}

template <int R, int NA, typename T> __global__ void tess_heat_kernel(const tess_heat_dev<T> d) {
  const tess_heat_plan &p = d.p;
  /* Weights as scalars: passing the parameter array by address would copy it to local memory. */
  const T b0 = d.b[0], b1 = d.b[1], b2 = d.b[2], b3 = d.b[3];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= p.n[0]) return;
  const int nzc = p.n[2] * p.nc;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < p.n[1]; y += gridDim.y * blockDim.y)
    for (int zc = blockIdx.z; zc < nzc; zc += gridDim.z) {
      const int z = zc / p.nc;
      const int c = zc - z * p.nc;
      const size_t k = TESS_IDX(p.dim0, p.dim1, p.nc, c, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      const T *__restrict__ u = (const T *)p.in + k;
      T lap = 0; /* stays 0 only on a grid with no active axis */
      if (NA >= 1) lap = rn_mul(tess_heat_d2<R>(u, d.st[0], b0, b1, b2, b3), d.ih[0]);
      if (NA >= 2) lap = rn_add(lap, rn_mul(tess_heat_d2<R>(u, d.st[1], b0, b1, b2, b3), d.ih[1]));
      if (NA >= 3) lap = rn_add(lap, rn_mul(tess_heat_d2<R>(u, d.st[2], b0, b1, b2, b3), d.ih[2]));
      ((T *)p.out)[k] = rn_add(u[0], rn_mul(d.coef, lap));
    }
}

/* The plan's constants in T: double, or the plan's float roundings. */
static void tess_heat_consts(tess_heat_dev<double> &d, int a, int na) { d.ih[na] = d.p.inv_h2[a]; }
static void tess_heat_consts(tess_heat_dev<float> &d, int a, int na) { d.ih[na] = d.p.inv_h2_f[a]; }
static void tess_heat_weights(tess_heat_dev<double> &d) {
  for (int i = 0; i < 4; i++)
    d.b[i] = d.p.b[i];
  d.coef = d.p.coef;
}
static void tess_heat_weights(tess_heat_dev<float> &d) {
  for (int i = 0; i < 4; i++)
    d.b[i] = d.p.b_f[i];
  d.coef = d.p.coef_f;
}

template <int R, typename T> void tess_heat_launch_t(tess_heat_dev<T> &d, void *stream) {
  const long long sy = (long long)d.p.dim0 * d.p.nc;
  const long long stride[3] = {1, sy, sy * d.p.dim1};
  int na = 0;
  for (int a = 0; a < 3; a++) {
    d.st[a] = 0;
    d.ih[a] = 0;
  }
  tess_heat_weights(d);
  for (int a = 0; a < 3; a++)
    if (d.p.active[a]) {
      d.st[na] = stride[a];
      tess_heat_consts(d, a, na);
      na++;
    }

  const int n0 = d.p.n[0];
  const unsigned bx = tess_row_block_x(n0);
  const unsigned by = 128u / bx;
  const unsigned gy = (unsigned)((d.p.n[1] + (int)by - 1) / (int)by);
  const long long nzc = (long long)d.p.n[2] * d.p.nc;
  const dim3 block(bx, by, 1);
  const dim3 grid((unsigned)((n0 + (int)bx - 1) / (int)bx), gy < 65535u ? gy : 65535u,
                  (unsigned)(nzc < 65535 ? nzc : 65535));
  cudaStream_t s = (cudaStream_t)stream;
  switch (na) {
  case 0:
    tess_heat_kernel<R, 0, T><<<grid, block, 0, s>>>(d);
    break;
  case 1:
    tess_heat_kernel<R, 1, T><<<grid, block, 0, s>>>(d);
    break;
  case 2:
    tess_heat_kernel<R, 2, T><<<grid, block, 0, s>>>(d);
    break;
  default:
    tess_heat_kernel<R, 3, T><<<grid, block, 0, s>>>(d);
    break;
  }
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

template <int R> void tess_heat_launch(const tess_region *r, void *stream) {
  if (r->prec == TESS_FP32) {
    tess_heat_dev<float> d;
    if (tess_heat_plan_make(r, R, &d.p)) tess_heat_launch_t<R>(d, stream);
  } else {
    tess_heat_dev<double> d; /* an empty region launches nothing: no zero-sized grid */
    if (tess_heat_plan_make(r, R, &d.p)) tess_heat_launch_t<R>(d, stream);
  }
}

} // namespace

extern "C" void tess_heat2_cuda(const tess_region *r, void *stream) {
  tess_heat_launch<1>(r, stream);
}

extern "C" void tess_heat6_cuda(const tess_region *r, void *stream) {
  tess_heat_launch<3>(r, stream);
}

/* hdiff_cuda.cu — horizontal diffusion (hdiff.h) on the GPU: one thread per cell and
 * component, x fastest (coalesced rows), y and (z, component) by grid-stride loops, the cell
 * expressions of hdiff_cell.h with __dadd_rn / __dmul_rn (never contracted into FMAs), so the
 * result is bitwise the CPU sweep's. The plan (checks, strides, coeff) is tess_hdiff_plan_make,
 * shared with hdiff.c.
 */
#include "hdiff.h"
#include "region.h"

#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR */

namespace {

__device__ __forceinline__ double rn_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double rn_sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ double rn_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float rn_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float rn_sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ float rn_mul(float a, float b) { return __fmul_rn(a, b); }

#define HD_QUAL      static __device__ __forceinline__
#define HD_ADD(a, b) rn_add(a, b)
#define HD_SUB(a, b) rn_sub(a, b)
#define HD_MUL(a, b) rn_mul(a, b)
#include "hdiff_cells.h"

__device__ __forceinline__ double cell(const tess_hdiff_plan &p, const double *a, const double *b,
                                       const double *c, long long k) {
  return hdiff_cell_f64(p.op, a, b, c, k, p.sx, p.sy, p.coeff);
}
__device__ __forceinline__ float cell(const tess_hdiff_plan &p, const float *a, const float *b,
                                      const float *c, long long k) {
  return hdiff_cell_f32(p.op, a, b, c, k, p.sx, p.sy, p.coeff_f);
}

template <typename T> __global__ void hdiff_kernel(const tess_hdiff_plan p) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= p.n[0]) return;
  const T *a = (const T *)p.in[0], *b = (const T *)p.in[1], *c = (const T *)p.in[2];
  const int nzc = p.n[2] * p.nc;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < p.n[1]; y += gridDim.y * blockDim.y)
    for (int zc = blockIdx.z; zc < nzc; zc += gridDim.z) {
      const int z = zc / p.nc, cc = zc - z * p.nc;
      const long long k =
          (long long)TESS_IDX(p.dim0, p.dim1, p.nc, cc, p.lo[0] + x, p.lo[1] + y, p.lo[2] + z);
      ((T *)p.out)[k] = cell(p, a, b, c, k);
    }
}

} // namespace

extern "C" void tess_hdiff_cuda(const tess_region *r, tess_hdiff_op op, void *stream) {
  tess_hdiff_plan p;
  if (!tess_hdiff_plan_make(r, op, &p)) return; /* empty: no zero-sized grid */
  const int n0 = p.n[0];
  const unsigned bx = tess_row_block_x(n0), by = 128u / bx;
  const unsigned gy = (unsigned)((p.n[1] + (int)by - 1) / (int)by);
  const long long nzc = (long long)p.n[2] * p.nc;
  const dim3 block(bx, by, 1);
  const dim3 grid((unsigned)((n0 + (int)bx - 1) / (int)bx), gy < 65535u ? gy : 65535u,
                  (unsigned)(nzc < 65535 ? nzc : 65535));
  cudaStream_t s = (cudaStream_t)stream;
  if (p.prec == TESS_FP32)
    hdiff_kernel<float><<<grid, block, 0, s>>>(p);
  else
    hdiff_kernel<double><<<grid, block, 0, s>>>(p);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

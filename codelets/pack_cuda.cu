/* pack_cuda.cu — halo pack/unpack on the GPU: one kernel, two directions.
 *
 * The box is flattened in buffer order ([z][y][c][x], x fastest) and walked by a grid-stride
 * loop, one element per thread per iteration. Consecutive threads take consecutive x, so
 * buffer accesses are fully coalesced and tile accesses coalesce along each row. Flattening
 * (rather than a 2D grid with x on threadIdx.x) keeps thin x-face boxes (rows of 1-3 cells)
 * from leaving most of every warp idle. The index arithmetic is 32-bit whenever the box fits,
 * since 64-bit division is emulated on the GPU and dominates a copy this simple.
 */
#include "pack.h"

#include <limits.h>

#include "tessera_kernel.h"

namespace {

/* What the kernel needs, by value. */
struct tess_pack_box {
  int lo[3];
  int n[3]; /* box extent */
  int dim0, dim1, nc;
};

/* I: index type (unsigned or size_t); UNPACK: direction. */
template <typename I, bool UNPACK>
__global__ void tess_pack_kernel(tess_pack_box b, double *tile, double *buf, I count) {
  const I stride = (I)gridDim.x * (I)blockDim.x;
  for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < count; i += stride) {
    I t = i;
    const I x = t % (I)b.n[0];
    t /= (I)b.n[0];
    const I c = t % (I)b.nc;
    t /= (I)b.nc;
    const I y = t % (I)b.n[1];
    const I z = t / (I)b.n[1];
    const size_t k = TESS_IDX(b.dim0, b.dim1, b.nc, c, b.lo[0] + x, b.lo[1] + y, b.lo[2] + z);
    if (UNPACK)
      tile[k] = buf[i];
    else
      buf[i] = tile[k];
  }
}

/* Same walk as tess_pack_kernel, box to box: dst cell = src cell + (dlo - src lo). */
template <typename I>
__global__ void tess_copy_kernel(tess_pack_box b, int dlo0, int dlo1, int dlo2, const double *src,
                                 double *dst, I count) {
  const I stride = (I)gridDim.x * (I)blockDim.x;
  for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < count; i += stride) {
    I t = i;
    const I x = t % (I)b.n[0];
    t /= (I)b.n[0];
    const I c = t % (I)b.nc;
    t /= (I)b.nc;
    const I y = t % (I)b.n[1];
    const I z = t / (I)b.n[1];
    dst[TESS_IDX(b.dim0, b.dim1, b.nc, c, dlo0 + x, dlo1 + y, dlo2 + z)] =
        src[TESS_IDX(b.dim0, b.dim1, b.nc, c, b.lo[0] + x, b.lo[1] + y, b.lo[2] + z)];
  }
}

/* Box blockIdx.y of the wrap table; each box by a grid-stride loop over its elements. */
__global__ void tess_wrap_kernel(tess_wrap_args a) {
  const int i = blockIdx.y;
  const unsigned n0 = (unsigned)a.ext[i][0], n1 = (unsigned)a.ext[i][1], nc = (unsigned)a.nc;
  const unsigned count = n0 * n1 * (unsigned)a.ext[i][2] * nc;
  for (unsigned e = blockIdx.x * blockDim.x + threadIdx.x; e < count; e += gridDim.x * blockDim.x) {
    unsigned t = e;
    const int x = (int)(t % n0);
    t /= n0;
    const int c = (int)(t % nc);
    t /= nc;
    const int y = (int)(t % n1), z = (int)(t / n1);
    a.tile[TESS_IDX(a.dim[0], a.dim[1], a.nc, c, a.dst_lo[i][0] + x, a.dst_lo[i][1] + y,
                    a.dst_lo[i][2] + z)] =
        a.tile[TESS_IDX(a.dim[0], a.dim[1], a.nc, c, a.src_lo[i][0] + x, a.src_lo[i][1] + y,
                        a.src_lo[i][2] + z)];
  }
}

/* The box of a, its element count (0: nothing to do) and a launch shape for it. */
static size_t tess_pack_shape(const tess_pack_args *a, tess_pack_box *b, unsigned *blocks) {
  size_t count = a->nc > 0 ? (size_t)a->nc : 0;
  for (int i = 0; i < 3; i++) {
    b->lo[i] = a->lo[i];
    b->n[i] = a->hi[i] > a->lo[i] ? a->hi[i] - a->lo[i] : 0;
    count *= (size_t)b->n[i];
  }
  b->dim0 = a->dim[0];
  b->dim1 = a->dim[1];
  b->nc = a->nc;
  /* Enough blocks to cover the box, capped: beyond a few waves the grid-stride loop is as
   * fast and the cap keeps gridDim well inside its limit for any box size. */
  const size_t want = (count + 255) / 256;
  *blocks = (unsigned)(want < 65535 ? want : 65535);
  return count;
}

template <bool UNPACK> void tess_pack_launch(const tess_pack_args *a, double *buf, cudaStream_t s) {
  tess_pack_box b;
  unsigned blocks;
  const size_t count = tess_pack_shape(a, &b, &blocks);
  if (count == 0) return; /* also keeps the grid from being empty */
  const unsigned threads = 256;
  if (count <= (size_t)UINT_MAX - (size_t)blocks * threads)
    tess_pack_kernel<unsigned, UNPACK><<<blocks, threads, 0, s>>>(b, a->tile, buf, (unsigned)count);
  else
    tess_pack_kernel<size_t, UNPACK><<<blocks, threads, 0, s>>>(b, a->tile, buf, count);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

} // namespace

extern "C" void tess_pack_cuda_box(const tess_pack_args *a, double *buf, cudaStream_t s) {
  tess_pack_launch<false>(a, buf, s);
}

/* The kernel only reads buf when unpacking; one kernel for both directions is worth the cast. */
extern "C" void tess_unpack_cuda_box(const tess_pack_args *a, const double *buf, cudaStream_t s) {
  tess_pack_launch<true>(a, const_cast<double *>(buf), s);
}

extern "C" void tess_copy_cuda_box(const tess_copy_args *a, cudaStream_t s) {
  tess_pack_box b;
  unsigned blocks;
  const size_t count = tess_pack_shape(&a->src, &b, &blocks);
  if (count == 0) return;
  const int *d = a->dst_lo;
  if (count <= (size_t)UINT_MAX - (size_t)blocks * 256)
    tess_copy_kernel<unsigned>
        <<<blocks, 256, 0, s>>>(b, d[0], d[1], d[2], a->src.tile, a->dst_tile, (unsigned)count);
  else
    tess_copy_kernel<size_t>
        <<<blocks, 256, 0, s>>>(b, d[0], d[1], d[2], a->src.tile, a->dst_tile, count);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

/* One launch for all boxes: grid.y picks the box, grid.x covers the largest one. A box of a
 * tile small enough for a whole-tile task has far fewer than 2^32 elements. */
extern "C" void tess_wrap_cuda(const tess_wrap_args *a, cudaStream_t s) {
  if (a->n <= 0) return;
  size_t most = 0;
  for (int i = 0; i < a->n; i++) {
    const size_t c = (size_t)a->ext[i][0] * a->ext[i][1] * a->ext[i][2] * a->nc;
    if (c > most) most = c;
  }
  if (most == 0) return;
  const size_t want = (most + 255) / 256;
  const dim3 grid((unsigned)(want < 4096 ? want : 4096), (unsigned)a->n);
  tess_wrap_kernel<<<grid, 256, 0, s>>>(*a);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

/* pack_cuda.cu — halo pack/unpack on the GPU: one kernel, two directions.
 *
 * The box is flattened in buffer order ([z][y][c][x], x fastest) and walked by a grid-stride
 * loop, one element per thread per iteration. Consecutive threads take consecutive x, so
 * buffer accesses are fully coalesced and tile accesses coalesce along each row. Flattening
 * (rather than a 2D grid with x on threadIdx.x) keeps thin x-face boxes (rows of 1-3 cells)
 * from leaving most of every warp idle. The index arithmetic is 32-bit whenever the box fits,
 * since 64-bit division is emulated on the GPU and dominates a copy this simple. Elements are
 * moved as 8- or 4-byte words (W = unsigned long long or unsigned: double or float fields), so
 * every copy is bitwise.
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

/* Element i of a box of extent n over nc components, in buffer order ([z][y][c][x], x fastest),
 * as its offset (x, c, y, z) inside the box. */
template <typename I>
__device__ __forceinline__ void tess_box_unflatten(I i, const int n[3], int nc, I o[4]) {
  o[0] = i % (I)n[0];
  i /= (I)n[0];
  o[1] = i % (I)nc;
  i /= (I)nc;
  o[2] = i % (I)n[1];
  o[3] = i / (I)n[1];
}

/* W: element word; I: index type (unsigned or size_t); UNPACK: direction. */
template <typename W, typename I, bool UNPACK>
__global__ void tess_pack_kernel(tess_pack_box b, W *tile, W *buf, I count) {
  const I stride = (I)gridDim.x * (I)blockDim.x;
  for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < count; i += stride) {
    I o[4];
    tess_box_unflatten(i, b.n, b.nc, o);
    const size_t k =
        TESS_IDX(b.dim0, b.dim1, b.nc, o[1], b.lo[0] + o[0], b.lo[1] + o[2], b.lo[2] + o[3]);
    if (UNPACK)
      tile[k] = buf[i];
    else
      buf[i] = tile[k];
  }
}

/* Same walk as tess_pack_kernel, box to box: dst cell = src cell + (dlo - src lo). */
template <typename W, typename I>
__global__ void tess_copy_kernel(tess_pack_box b, int dlo0, int dlo1, int dlo2, const W *src,
                                 W *dst, I count) {
  const I stride = (I)gridDim.x * (I)blockDim.x;
  for (I i = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; i < count; i += stride) {
    I o[4];
    tess_box_unflatten(i, b.n, b.nc, o);
    dst[TESS_IDX(b.dim0, b.dim1, b.nc, o[1], dlo0 + o[0], dlo1 + o[2], dlo2 + o[3])] =
        src[TESS_IDX(b.dim0, b.dim1, b.nc, o[1], b.lo[0] + o[0], b.lo[1] + o[2], b.lo[2] + o[3])];
  }
}

/* Box blockIdx.y of the wrap table; each box by a grid-stride loop over its elements. */
template <typename W> __global__ void tess_wrap_kernel(tess_wrap_args a) {
  W *tile = (W *)a.tile;
  const int i = blockIdx.y;
  const unsigned count = (unsigned)a.ext[i][0] * a.ext[i][1] * a.ext[i][2] * a.nc;
  for (unsigned e = blockIdx.x * blockDim.x + threadIdx.x; e < count; e += gridDim.x * blockDim.x) {
    unsigned o[4];
    tess_box_unflatten(e, a.ext[i], a.nc, o);
    tile[TESS_IDX(a.dim[0], a.dim[1], a.nc, o[1], a.dst_lo[i][0] + o[0], a.dst_lo[i][1] + o[2],
                  a.dst_lo[i][2] + o[3])] =
        tile[TESS_IDX(a.dim[0], a.dim[1], a.nc, o[1], a.src_lo[i][0] + o[0], a.src_lo[i][1] + o[2],
                      a.src_lo[i][2] + o[3])];
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

template <typename W, bool UNPACK>
void tess_pack_launch(const tess_pack_args *a, void *buf, cudaStream_t s) {
  tess_pack_box b;
  unsigned blocks;
  const size_t count = tess_pack_shape(a, &b, &blocks);
  if (count == 0) return; /* also keeps the grid from being empty */
  const unsigned threads = 256;
  W *tile = (W *)a->tile, *w = (W *)buf;
  if (count <= (size_t)UINT_MAX - (size_t)blocks * threads)
    tess_pack_kernel<W, unsigned, UNPACK><<<blocks, threads, 0, s>>>(b, tile, w, (unsigned)count);
  else
    tess_pack_kernel<W, size_t, UNPACK><<<blocks, threads, 0, s>>>(b, tile, w, count);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

template <typename W> void tess_copy_launch(const tess_copy_args *a, cudaStream_t s) {
  tess_pack_box b;
  unsigned blocks;
  const size_t count = tess_pack_shape(&a->src, &b, &blocks);
  if (count == 0) return;
  const int *d = a->dst_lo;
  const W *src = (const W *)a->src.tile;
  W *dst = (W *)a->dst_tile;
  if (count <= (size_t)UINT_MAX - (size_t)blocks * 256)
    tess_copy_kernel<W, unsigned>
        <<<blocks, 256, 0, s>>>(b, d[0], d[1], d[2], src, dst, (unsigned)count);
  else
    tess_copy_kernel<W, size_t><<<blocks, 256, 0, s>>>(b, d[0], d[1], d[2], src, dst, count);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

typedef unsigned long long tess_word8;
typedef unsigned tess_word4;

} // namespace

extern "C" void tess_pack_cuda_box(const tess_pack_args *a, void *buf, cudaStream_t s) {
  if (a->esize == 4)
    tess_pack_launch<tess_word4, false>(a, buf, s);
  else
    tess_pack_launch<tess_word8, false>(a, buf, s);
}

/* The kernel only reads buf when unpacking; one kernel for both directions is worth the cast. */
extern "C" void tess_unpack_cuda_box(const tess_pack_args *a, const void *buf, cudaStream_t s) {
  if (a->esize == 4)
    tess_pack_launch<tess_word4, true>(a, const_cast<void *>(buf), s);
  else
    tess_pack_launch<tess_word8, true>(a, const_cast<void *>(buf), s);
}

extern "C" void tess_copy_cuda_box(const tess_copy_args *a, cudaStream_t s) {
  if (a->src.esize == 4)
    tess_copy_launch<tess_word4>(a, s);
  else
    tess_copy_launch<tess_word8>(a, s);
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
  if (a->esize == 4)
    tess_wrap_kernel<tess_word4><<<grid, 256, 0, s>>>(*a);
  else
    tess_wrap_kernel<tess_word8><<<grid, 256, 0, s>>>(*a);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

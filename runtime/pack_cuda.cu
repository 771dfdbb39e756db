/* pack_cuda.cu — box-move lists on the GPU: one kernel for pack, unpack and fill.
 *
 * One launch moves up to CHUNK boxes. Each box gets blocks in proportion to its size (a halo's
 * faces are ~100 times its edges: a grid sized for the largest box would launch mostly idle
 * blocks), a block finds its box in the launch's table of first blocks, and each box is
 * flattened in buffer order ([z][y][c][x], x fastest) and walked by a grid-stride loop over its
 * own blocks, one element per thread per iteration. Consecutive threads take consecutive x, so
 * buffer accesses are fully coalesced and tile accesses coalesce along each row; flattening (rather
 * than a 2D grid with x on threadIdx.x) keeps thin x-face boxes (rows of 1-3 cells) from leaving
 * most of every warp idle. The index arithmetic is 32-bit whenever the boxes fit, since 64-bit
 * division is emulated on the GPU and dominates a copy this simple. Elements move as 8- or 4-byte
 * words (double or float fields), so every copy is bitwise.
 */
#include "pack.h"

#include <limits.h>

#include "tessera_kernel.h"

namespace {

enum { CHUNK = 32 }; /* boxes per launch: 32 x 80 B of kernel parameters */

struct dev_side {
  void *ptr; /* resolved: tile base or buffer + offset */
  int dim0, dim1;
  int lo[3];
};

struct dev_move {
  dev_side src, dst;
  int ext[3];
  int nc;
};

struct dev_chunk {
  int n;
  unsigned first[CHUNK + 1]; /* first block of each box; first[n] = the grid */
  dev_move m[CHUNK];
};

template <typename I>
__device__ __forceinline__ void unflatten(I i, const int n[3], int nc, I o[4]) {
  o[0] = i % (I)n[0];
  i /= (I)n[0];
  o[1] = i % (I)nc;
  i /= (I)nc;
  o[2] = i % (I)n[1];
  o[3] = i / (I)n[1];
}

template <typename W>
__device__ __forceinline__ W *at(const dev_side &s, int nc, size_t c, size_t x, size_t y,
                                 size_t z) {
  return (W *)s.ptr + TESS_IDX(s.dim0, s.dim1, nc, c, s.lo[0] + x, s.lo[1] + y, s.lo[2] + z);
}

/* W: element word; I: index type (unsigned or size_t). */
template <typename W, typename I> __global__ void moves_kernel(dev_chunk ch) {
  int b = 0;
  while (blockIdx.x >= ch.first[b + 1])
    b++;
  const dev_move &m = ch.m[b];
  const unsigned blk = blockIdx.x - ch.first[b], nblk = ch.first[b + 1] - ch.first[b];
  const I count = (I)m.ext[0] * (I)m.ext[1] * (I)m.ext[2] * (I)m.nc;
  const I stride = (I)nblk * (I)blockDim.x;
  for (I i = (I)blk * (I)blockDim.x + (I)threadIdx.x; i < count; i += stride) {
    I o[4];
    unflatten(i, m.ext, m.nc, o);
    *at<W>(m.dst, m.nc, o[1], o[0], o[2], o[3]) = *at<W>(m.src, m.nc, o[1], o[0], o[2], o[3]);
  }
}

dev_side resolve(const tess_side &s, void *buf, int esize) {
  dev_side d;
  d.ptr = s.ptr ? s.ptr : (char *)buf + s.off * (size_t)esize;
  d.dim0 = s.dim[0];
  d.dim1 = s.dim[1];
  for (int i = 0; i < 3; i++)
    d.lo[i] = s.lo[i];
  return d;
}

/* Blocks for a box of `count` elements: enough to cover it, capped (beyond a few waves the
 * grid-stride loop is as fast, and the cap keeps the grid well inside its limit). */
unsigned blocks_for(size_t count) {
  const size_t want = (count + 255) / 256;
  return (unsigned)(want < 4096 ? want : 4096);
}

template <typename W> void launch(const dev_chunk &ch, size_t most, cudaStream_t s) {
  if (most <= (size_t)INT_MAX)
    moves_kernel<W, unsigned><<<ch.first[ch.n], 256, 0, s>>>(ch);
  else
    moves_kernel<W, size_t><<<ch.first[ch.n], 256, 0, s>>>(ch);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

} // namespace

extern "C" void tess_moves_cuda(const tess_moves *l, void *buf, cudaStream_t s) {
  dev_chunk ch;
  ch.n = 0;
  ch.first[0] = 0;
  size_t most = 0;
  for (int i = 0; i <= l->n; i++) {
    if (ch.n == CHUNK || (i == l->n && ch.n > 0)) {
      if (l->esize == 4)
        launch<unsigned>(ch, most, s);
      else
        launch<unsigned long long>(ch, most, s);
      ch.n = 0;
      most = 0;
    }
    if (i == l->n) break;
    const tess_move *m = &l->m[i];
    const size_t count = tess_move_count(m);
    if (!count) continue;
    dev_move &d = ch.m[ch.n++];
    d.src = resolve(m->src, buf, l->esize);
    d.dst = resolve(m->dst, buf, l->esize);
    for (int k = 0; k < 3; k++)
      d.ext[k] = m->ext[k];
    d.nc = m->nc;
    ch.first[ch.n] = ch.first[ch.n - 1] + blocks_for(count);
    if (count > most) most = count;
  }
}

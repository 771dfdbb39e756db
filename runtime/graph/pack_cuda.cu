/* pack_cuda.cu — box-move lists on the GPU: one kernel for the copies of pack, unpack and fill;
 * ghost fills at physical faces go to boundary_cuda.cu in batches. A tile's pack moves the boxes
 * of all its outgoing links, each into its own buffer, in the same launches (a box's side names
 * its buffer: resolve() turns it into a pointer on the host).
 *
 * One launch moves up to CHUNK boxes. Each box gets blocks in proportion to its size (a halo's
 * faces are ~100 times its edges: a grid sized for the largest box would launch mostly idle
 * blocks), and a block finds its box in the launch's table of first blocks. A box is walked row
 * by row, a row being its ext0 contiguous elements of one (component, y, z) in both arrays:
 * each row is taken by a group of lanes (the power of two >= ext0, at most a warp), which
 * splits the row index into (c, y, z) once and then copies consecutive x, so every access is
 * coalesced along the row and the integer divisions (emulated on the GPU) are paid per row,
 * not per element: a face 3 cells thin is rows of 3. Elements move as 8- or 4-byte words
 * (double or float fields), so every copy is bitwise.
 */
#include "pack.h"

#include <limits.h>

#include "tessera_kernel.h"

namespace {

enum { CHUNK = 32 }; /* boxes per launch: 32 x 92 B of kernel parameters, under 4 KB */

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

struct dev_geom {  /* per box, computed on the host */
  unsigned rows;   /* nc * ext1 * ext2 */
  unsigned lanes2; /* log2 of the lanes per row */
};

struct dev_chunk {
  int n;
  unsigned first[CHUNK + 1]; /* first block of each box; first[n] = the grid */
  dev_geom g[CHUNK];
  dev_move m[CHUNK];
};

/* W: element word. */
template <typename W> __global__ void moves_kernel(dev_chunk ch) {
  int b = 0;
  while (blockIdx.x >= ch.first[b + 1])
    b++;
  const dev_move &m = ch.m[b];
  const unsigned shift = ch.g[b].lanes2, lanes = 1u << shift, per_block = blockDim.x >> shift;
  const unsigned blk = blockIdx.x - ch.first[b], nblk = ch.first[b + 1] - ch.first[b];
  const unsigned lane = threadIdx.x & (lanes - 1), rows = ch.g[b].rows;
  const unsigned nc = (unsigned)m.nc, ny = (unsigned)m.ext[1];
  for (unsigned r = blk * per_block + (threadIdx.x >> shift); r < rows; r += nblk * per_block) {
    const unsigned c = r % nc, yz = r / nc, y = yz % ny, z = yz / ny;
    const W *src = (const W *)m.src.ptr + TESS_IDX(m.src.dim0, m.src.dim1, nc, c, m.src.lo[0],
                                                   m.src.lo[1] + y, m.src.lo[2] + z);
    W *dst = (W *)m.dst.ptr +
             TESS_IDX(m.dst.dim0, m.dst.dim1, nc, c, m.dst.lo[0], m.dst.lo[1] + y, m.dst.lo[2] + z);
    for (int x = (int)lane; x < m.ext[0]; x += (int)lanes)
      dst[x] = src[x];
  }
}

dev_side resolve(const tess_side &s, void *const *buf, int esize) {
  dev_side d;
  d.ptr = s.ptr ? s.ptr : (char *)buf[s.buf] + s.off * (size_t)esize;
  d.dim0 = s.dim[0];
  d.dim1 = s.dim[1];
  for (int i = 0; i < 3; i++)
    d.lo[i] = s.lo[i];
  return d;
}

/* Blocks for a box: enough to give every row group a row, capped (beyond a few waves the
 * grid-stride loop is as fast, and the cap keeps the grid well inside its limit). */
unsigned blocks_for(unsigned rows, unsigned lanes2) {
  const unsigned per_block = 256u >> lanes2;
  const unsigned want = (rows + per_block - 1) / per_block;
  return want < 4096 ? want : 4096;
}

template <typename W> void launch(const dev_chunk &ch, cudaStream_t s) {
  moves_kernel<W><<<ch.first[ch.n], 256, 0, s>>>(ch);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

/* Does fill r read a cell that fill w writes? r reads u_0, u_1 and u_{k-1} along its normal
 * (the rows of its box moved onto the owned side of the face); an edge reads a face's ghosts. */
bool fill_reads(const tess_move *w, const tess_move *r) {
  if (w->dst.ptr != r->dst.ptr || w->bc.comp != r->bc.comp) return false;
  const int a = r->bc.axis, deepest = r->ext[a] - 1 > 1 ? r->ext[a] - 1 : 1;
  for (int i = 0; i < 3; i++) {
    int lo = r->dst.lo[i], hi = r->dst.lo[i] + r->ext[i]; /* [lo, hi) */
    if (i == a) {
      lo = r->bc.side < 0 ? r->bc.face : r->bc.face - deepest;
      hi = lo + deepest + 1;
    }
    if (hi <= w->dst.lo[i] || w->dst.lo[i] + w->ext[i] <= lo) return false;
  }
  return true;
}

} // namespace

/* Copies go in chunks of CHUNK boxes a launch, fills in batches of fills that do not read each
 * other (a tile's faces, then its edges, then its corners, every field and component at once);
 * list order is kept between chunks, batches and the two kinds. */
extern "C" void tess_moves_cuda(const tess_moves *l, void *const *buf, cudaStream_t s) {
  dev_chunk ch;
  ch.n = 0;
  ch.first[0] = 0;
  const tess_move *fills[TESS_BCFILL_BATCH];
  int nfills = 0;
  auto flush_copies = [&]() {
    if (ch.n == 0) return;
    if (l->esize == 4)
      launch<unsigned>(ch, s);
    else
      launch<unsigned long long>(ch, s);
    ch.n = 0;
  };
  auto flush_fills = [&]() {
    tess_bcfill_cuda(fills, nfills, l->esize, s);
    nfills = 0;
  };
  for (int i = 0; i < l->n; i++) {
    const tess_move *m = &l->m[i];
    if (!tess_move_count(m)) continue;
    if (m->bc.kind) {
      flush_copies(); /* an edge fill may read what a copy wrote */
      bool reads = nfills == TESS_BCFILL_BATCH;
      for (int j = 0; j < nfills && !reads; j++)
        reads = fill_reads(fills[j], m) || fill_reads(m, fills[j]);
      if (reads) flush_fills();
      fills[nfills++] = m;
      continue;
    }
    flush_fills();
    if (ch.n == CHUNK) flush_copies();
    /* rows are 32-bit: a box of 2^32 rows (of all components) would be a tile of ~10^12 cells */
    const size_t rows = (size_t)m->nc * (size_t)m->ext[1] * (size_t)m->ext[2];
    if (rows > UINT_MAX) STARPU_ABORT_MSG("a halo box of %zu rows is too large", rows);
    unsigned lanes2 = 0;
    while (lanes2 < 5 && (1 << lanes2) < m->ext[0])
      lanes2++;
    dev_move &d = ch.m[ch.n];
    ch.g[ch.n] = dev_geom{(unsigned)rows, lanes2};
    d.src = resolve(m->src, buf, l->esize);
    d.dst = resolve(m->dst, buf, l->esize);
    for (int k = 0; k < 3; k++)
      d.ext[k] = m->ext[k];
    d.nc = m->nc;
    ch.first[ch.n + 1] = ch.first[ch.n] + blocks_for((unsigned)rows, lanes2);
    ch.n++;
  }
  flush_copies();
  flush_fills();
}

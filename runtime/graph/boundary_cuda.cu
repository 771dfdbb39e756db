/* boundary_cuda.cu — ghost fills at physical faces on the GPU (boundary.c has the CPU fill and
 * the story): a batch of fill moves in one launch, one thread per ghost cell, the formula of
 * tessera_bc.h. A tile's fills are many small boxes (faces, edges and corners of every field and
 * component: 26 directions x 8 components per MHD stage), so a launch per box would cost more
 * than the cells; the caller (pack_cuda.cu) batches the fills that do not read each other.
 *
 * Each box gets blocks in proportion to its cells, and a block finds its box in the launch's
 * table of first blocks (as pack_cuda.cu's copies do). Boxes are a few cells thick across the
 * face, so a flat grid of threads over each box is enough. */
#include <limits.h>

#include "tessera_bc.h"
#include "pack.h"
#include "tessera_kernel.h"

namespace {

struct dev_fill {
  void *ptr;
  int X, Y, nc, comp;
  int lo[3], ext[3];
  int kind, axis, side, face;
  double value;
};

struct dev_fills {
  int n;
  unsigned first[TESS_BCFILL_BATCH + 1]; /* first block of each box; first[n] = the grid */
  dev_fill f[TESS_BCFILL_BATCH];         /* 32 x 72 B: the parameters stay under 4 KB */
};

template <typename T> __global__ void fill_kernel(dev_fills b) {
  int j = 0;
  while (blockIdx.x >= b.first[j + 1])
    j++;
  const dev_fill &f = b.f[j];
  /* 32-bit index arithmetic (a box is a ghost slab: far below 2^31 cells, checked on the host) */
  const unsigned e0 = (unsigned)f.ext[0], e1 = (unsigned)f.ext[1];
  const unsigned cells = e0 * e1 * (unsigned)f.ext[2];
  const unsigned nthreads = (b.first[j + 1] - b.first[j]) * blockDim.x;
  for (unsigned i = (blockIdx.x - b.first[j]) * blockDim.x + threadIdx.x; i < cells;
       i += nthreads) {
    const unsigned r = i / e0;
    const int x = f.lo[0] + (int)(i - r * e0), y = f.lo[1] + (int)(r % e1),
              z = f.lo[2] + (int)(r / e1);
    /* no arrays indexed by the axis (they would live in local memory): selects instead */
    const int pa = f.axis == 0 ? x : f.axis == 1 ? y : z;
    const long stride = f.axis == 0 ? 1L : f.axis == 1 ? (long)f.X * f.nc : (long)f.X * f.nc * f.Y;
    T *u = (T *)f.ptr;
    const long at = (long)TESS_IDX(f.X, f.Y, f.nc, f.comp, x, y, z);
    const int k = f.side * (pa - f.face);
    /* u_j, the cell j inside the face along the normal: u_0, u_1 (read by outflow only) and
     * u_{k-1}, the mirror of ghost k */
    const long u0 = at + (long)(f.face - pa) * stride, in = -(long)f.side * stride;
    const double uk = (double)u[u0 + (long)(k - 1) * in];
    const double a0 = f.kind == TESS_BC_OUTFLOW ? (double)u[u0] : 0.0;
    const double a1 = f.kind == TESS_BC_OUTFLOW ? (double)u[u0 + in] : 0.0;
    u[at] = (T)tess_bc_ghost(f.kind, k, f.value, a0, a1, uk);
  }
}

} // namespace

extern "C" void tess_bcfill_cuda(const tess_move *const *m, int n, int esize, cudaStream_t s) {
  if (n <= 0) return;
  if (n > TESS_BCFILL_BATCH) STARPU_ABORT_MSG("a batch of %d ghost fills is too large", n);
  dev_fills b;
  b.n = n;
  b.first[0] = 0;
  for (int j = 0; j < n; j++) {
    const tess_move *mj = m[j];
    if (mj->bc.kind == TESS_BC_FUNCTION) /* setup refuses it on GPU tiles */
      STARPU_ABORT_MSG("a boundary function cannot run on a GPU tile");
    dev_fill &f = b.f[j];
    f.ptr = mj->dst.ptr;
    f.X = mj->dst.dim[0];
    f.Y = mj->dst.dim[1];
    f.nc = mj->nc;
    f.comp = mj->bc.comp;
    for (int i = 0; i < 3; i++) {
      f.lo[i] = mj->dst.lo[i];
      f.ext[i] = mj->ext[i];
    }
    f.kind = mj->bc.kind;
    f.axis = mj->bc.axis;
    f.side = mj->bc.side;
    f.face = mj->bc.face;
    f.value = mj->bc.value;
    const long cells = (long)f.ext[0] * f.ext[1] * f.ext[2];
    if (cells > INT_MAX) STARPU_ABORT_MSG("a ghost box of %ld cells is too large", cells);
    const long want = (cells + 255) / 256; /* callers skip empty boxes */
    b.first[j + 1] = b.first[j] + (unsigned)(want < 4096 ? (want > 0 ? want : 1) : 4096);
  }
  if (esize == 4)
    fill_kernel<float><<<b.first[n], 256, 0, s>>>(b);
  else
    fill_kernel<double><<<b.first[n], 256, 0, s>>>(b);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

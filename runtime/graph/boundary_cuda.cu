/* boundary_cuda.cu — the ghost fill of one physical-face move on the GPU (boundary.c has the CPU
 * one and the story): one thread per ghost cell of the box, the formula of bcfill.h. Boxes are
 * a few cells thick across the face, so a flat grid of threads over the box is enough. */
#include "bcfill.h"
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

template <typename T> __global__ void fill_kernel(dev_fill f) {
  const long cells = (long)f.ext[0] * f.ext[1] * f.ext[2];
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < cells;
       i += (long)gridDim.x * blockDim.x) {
    int p[3] = {f.lo[0] + (int)(i % f.ext[0]), f.lo[1] + (int)(i / f.ext[0] % f.ext[1]),
                f.lo[2] + (int)(i / f.ext[0] / f.ext[1])};
    const int k = f.side * (p[f.axis] - f.face);
    const int js[3] = {0, 1, k - 1};
    double u[3];
    for (int j = 0; j < 3; j++) {
      int q[3] = {p[0], p[1], p[2]};
      q[f.axis] = f.face - f.side * js[j];
      u[j] = (double)((const T *)f.ptr)[TESS_IDX(f.X, f.Y, f.nc, f.comp, q[0], q[1], q[2])];
    }
    ((T *)f.ptr)[TESS_IDX(f.X, f.Y, f.nc, f.comp, p[0], p[1], p[2])] =
        (T)tess_bc_ghost(f.kind, k, f.value, u[0], u[1], u[2]);
  }
}

} // namespace

extern "C" void tess_bcfill_cuda(const tess_move *m, int esize, cudaStream_t s) {
  if (m->bc.kind == TESS_BC_FUNCTION) /* setup refuses it on GPU tiles */
    STARPU_ABORT_MSG("a boundary function cannot run on a GPU tile");
  dev_fill f;
  f.ptr = m->dst.ptr;
  f.X = m->dst.dim[0];
  f.Y = m->dst.dim[1];
  f.nc = m->nc;
  f.comp = m->bc.comp;
  for (int i = 0; i < 3; i++) {
    f.lo[i] = m->dst.lo[i];
    f.ext[i] = m->ext[i];
  }
  f.kind = m->bc.kind;
  f.axis = m->bc.axis;
  f.side = m->bc.side;
  f.face = m->bc.face;
  f.value = m->bc.value;
  const long cells = (long)f.ext[0] * f.ext[1] * f.ext[2];
  const long want = (cells + 255) / 256;
  const unsigned blocks = (unsigned)(want < 4096 ? (want > 0 ? want : 1) : 4096);
  if (esize == 4)
    fill_kernel<float><<<blocks, 256, 0, s>>>(f);
  else
    fill_kernel<double><<<blocks, 256, 0, s>>>(f);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) STARPU_CUDA_REPORT_ERROR(err);
}

/* zchunk.h — how many planes a z-marching CUDA block walks (host side of the launches of
 * stencil/cuda.cuh and mhd_cuda.cu): a block takes one column of cells (x, y) and a chunk of its
 * planes, and the device runs `slots` blocks at a time. */
#ifndef TESS_ZCHUNK_H
#define TESS_ZCHUNK_H

/* The chunk length that minimises (waves of blocks) x (chunk + the halo planes a block marches
 * before its first cell), for `columns` columns of n2 planes; at most zmax planes (0: no bound). */
static inline int tess_zchunk(long long columns, int n2, int halo, int slots, int zmax) {
  double best = 1e300;
  int zc = n2;
  if (slots < 1) slots = 1;
  for (int nzc = 1; nzc <= n2; nzc++) {
    const int len = (n2 + nzc - 1) / nzc;
    if (nzc > 1 && len == (n2 + nzc - 2) / (nzc - 1)) continue; /* same chunks as nzc - 1 */
    if (zmax && len > zmax) continue;
    const long long waves = (columns * ((n2 + len - 1) / len) + slots - 1) / slots;
    const double cost = (double)waves * (len + halo);
    if (cost < best - 1e-9) best = cost, zc = len;
  }
  return zc;
}

#ifdef __CUDACC__
#include <cuda_runtime.h>
/* Blocks of kernel k (nt threads, smem bytes of dynamic shared memory each) the current device
 * runs at once: the `slots` of tess_zchunk. Errors are returned for the caller to report. */
template <typename K> static inline cudaError_t tess_zslots(K k, int nt, size_t smem, int *slots) {
  int dev = 0, nsm = 1, per = 1;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, nt, smem);
  *slots = nsm * (per > 0 ? per : 1);
  return err;
}
#endif

#endif

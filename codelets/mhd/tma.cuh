/* tma.cuh — Hopper's tensor memory accelerator for the z-marching kernels: one thread copies a
 * box of a 3D array into shared memory (cp.async.bulk.tensor), and an mbarrier says when its
 * bytes have landed. Each function also runs on the host, where a box is an ordinary copy, so
 * a kernel's benchmark emulation walks the same code.
 *
 * What a box may be (cuTensorMapEncodeTiled; checked by the view the map is made from,
 * tess_tma_view, but the first element's alignment, which is the caller's):
 *   - the array's base 16-byte aligned, its row and plane pitches multiples of 16 bytes;
 *   - a box row a multiple of 16 bytes, each box dimension at most 256 elements;
 *   - a box's first element 16-byte aligned along x (a box starting 4 bytes past a 16-byte
 *     boundary raises an illegal instruction on an H100; the encoder accepts the map:
 *     bench/results/2026-11-28-h100-mhd-tma.txt, runs 4-6);
 *   - its shared-memory destination 128-byte aligned; elements outside the array arrive as 0.
 * Rows land densely: a W x H box fills H rows of W elements.
 * Needs sm_90; launchers ask tess_tma_device() first. */
#ifndef TESS_TMA_CUH
#define TESS_TMA_CUH

#include <cuda.h> /* CUtensorMap and its enums (types only: the encoder comes through cudart) */
#include <cuda_runtime.h>

#include <atomic>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESS_TMA_HD __host__ __device__ __forceinline__

/* What a box copy needs besides the map: on the host, the array it emulates the map of. */
struct tess_tma_host {
  const void *base;
  long long dim[3], pitch[2]; /* elements; pitch: row and plane, in elements */
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TESS_TMA_DEVICE 1
#else
#define TESS_TMA_DEVICE 0
#endif

/* An mbarrier at shared address bar that completes a phase on one arrival plus its bytes. */
TESS_TMA_HD void tess_mbar_init(unsigned bar) {
#if TESS_TMA_DEVICE
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(bar) : "memory");
#else
  (void)bar;
#endif
}

/* After initialising the barriers, before any thread uses them (with a __syncthreads). */
TESS_TMA_HD void tess_mbar_fence_init() {
#if TESS_TMA_DEVICE
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/* The one arrival of this phase, announcing the bytes its copies will bring. */
TESS_TMA_HD void tess_mbar_expect(unsigned bar, unsigned bytes) {
#if TESS_TMA_DEVICE
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
#endif
}

/* Waits until the phase of the given parity has completed. */
TESS_TMA_HD void tess_mbar_wait(unsigned bar, unsigned parity) {
#if TESS_TMA_DEVICE
  asm volatile("{\n .reg .pred P1;\n WAIT:\n"
               " mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
               " @!P1 bra WAIT;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
#else
  (void)bar, (void)parity;
#endif
}

/* Before a thread's tensor copies overwrite shared memory that threads read with ordinary loads
 * (after the __syncthreads that ends those reads). */
TESS_TMA_HD void tess_tma_fence() {
#if TESS_TMA_DEVICE
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/* The box of map tm at element (x, y, z) into shared memory: device, at shared address dst,
 * completing on mbarrier bar; host, into dst_host (W x H elements of T, rows dense). */
template <int W, int H, class T>
TESS_TMA_HD void tess_tma_box(unsigned dst, T *dst_host, const CUtensorMap *tm,
                              const tess_tma_host &h, int x, int y, int z, unsigned bar) {
#if TESS_TMA_DEVICE
  (void)dst_host, (void)h;
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
               " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
               "l"(tm), "r"(x), "r"(y), "r"(z), "r"(bar)
               : "memory");
#elif defined(__CUDA_ARCH__)
  (void)dst, (void)dst_host, (void)tm, (void)h, (void)x, (void)y, (void)z, (void)bar;
  __trap(); /* launchers take tensor copies on sm_90 only */
#else
  (void)dst, (void)tm, (void)bar;
  if ((long long)x * (long long)sizeof(T) % 16) { /* what the device faults on */
    fprintf(stderr, "tess_tma_box: box at x = %d is not 16-byte aligned\n", x);
    abort();
  }
  const T *src = (const T *)h.base;
  for (int j = 0; j < H; j++)
    for (int i = 0; i < W; i++) {
      const long long gx = (long long)x + i, gy = (long long)y + j;
      const bool in =
          gx >= 0 && gx < h.dim[0] && gy >= 0 && gy < h.dim[1] && z >= 0 && z < h.dim[2];
      dst_host[j * W + i] = in ? src[gx + gy * h.pitch[0] + z * h.pitch[1]] : T(0);
    }
#endif
}

/* Whether the current device takes tensor copies (sm_90 or newer); asked once per device (the
 * workers of several GPUs may ask at once). */
static inline bool tess_tma_device() {
  static std::atomic<signed char> known[64];
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return false;
  signed char k = known[dev].load(std::memory_order_relaxed);
  if (!k) {
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
      major = 0;
    known[dev].store(k = major >= 9 ? 1 : -1, std::memory_order_relaxed);
  }
  return k > 0;
}

/* The host view of a 3D array of float (dims and pitches in elements), and whether boxes of
 * bw x bh x 1 may be cut from it (the rules above but the first element's alignment, which is the
 * caller's). */
static inline bool tess_tma_view(tess_tma_host *h, const float *base, const long long dim[3],
                                 const long long pitch[2], int bw, int bh) {
  h->base = base;
  for (int a = 0; a < 3; a++)
    h->dim[a] = dim[a];
  h->pitch[0] = pitch[0], h->pitch[1] = pitch[1];
  return !((unsigned long long)base & 15) && (pitch[0] * 4) % 16 == 0 && (pitch[1] * 4) % 16 == 0 &&
         (bw * 4) % 16 == 0 && bw <= 256 && bh <= 256;
}

typedef CUresult (*tess_tma_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                       const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                       const cuuint32_t *, CUtensorMapInterleave,
                                       CUtensorMapSwizzle, CUtensorMapL2promotion,
                                       CUtensorMapFloatOOBfill);
/* The driver's encoder through cudart (no -lcuda), or NULL. */
static inline tess_tma_encode_fn tess_tma_encoder_lookup() {
  cudaDriverEntryPointQueryResult q;
  void *fn = NULL;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                       &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return NULL;
  return (tess_tma_encode_fn)fn;
}

/* The map of the array of view h (one tess_tma_view accepted for bw x bh) in boxes of bw x bh x 1;
 * false where the driver has no encoder or refuses it (the caller copies otherwise). */
static inline bool tess_tma_map(CUtensorMap *tm, const tess_tma_host &h, int bw, int bh) {
  static const tess_tma_encode_fn encode = tess_tma_encoder_lookup(); /* once, thread-safe */
  memset(tm, 0, sizeof *tm);
  if (!encode) return false;
  const cuuint64_t gd[3] = {(cuuint64_t)h.dim[0], (cuuint64_t)h.dim[1], (cuuint64_t)h.dim[2]};
  const cuuint64_t gs[2] = {(cuuint64_t)h.pitch[0] * 4, (cuuint64_t)h.pitch[1] * 4};
  const cuuint32_t box[3] = {(cuuint32_t)bw, (cuuint32_t)bh, 1}, es[3] = {1, 1, 1};
  return encode(tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<void *>(h.base), gd, gs, box, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

#endif /* TESS_TMA_CUH */

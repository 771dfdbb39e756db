/* copy_bw — the hardware ceilings the benchmarks compare against, measured in the same run:
 * device-to-device copy bandwidth (bytes read + bytes written per second, the memory floor's
 * denominator), host<->device over pinned memory, and GPU<->GPU peer copies when there are
 * two GPUs. Median of 20 timed repetitions after warm-up, CUDA events.
 *   usage: copy_bw [MiB per buffer, default 1024]   prints one "name GB/s" line per ceiling */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "copy_bw: %s: %s\n", #x, cudaGetErrorString(e_));                       \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

template <class F> static double median_ms(F copy) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; i++)
    copy();
  std::vector<float> t;
  for (int i = 0; i < 20; i++) {
    CHECK(cudaEventRecord(a));
    copy();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  const size_t bytes = (argc > 1 ? std::atol(argv[1]) : 1024) << 20;
  int ngpu = 0;
  CHECK(cudaGetDeviceCount(&ngpu));
  void *x, *y, *h;
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMemset(x, 1, bytes));
  CHECK(cudaMallocHost(&h, bytes));
  const double gb = (double)bytes / 1e9;
  double ms = median_ms([&] { CHECK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("d2d_copy %.1f GB/s (read+write)\n", 2 * gb / (ms * 1e-3));
  ms = median_ms([&] { CHECK(cudaMemcpy(h, x, bytes, cudaMemcpyDeviceToHost)); });
  std::printf("d2h %.1f GB/s\n", gb / (ms * 1e-3));
  ms = median_ms([&] { CHECK(cudaMemcpy(x, h, bytes, cudaMemcpyHostToDevice)); });
  std::printf("h2d %.1f GB/s\n", gb / (ms * 1e-3));
  if (ngpu >= 2) {
    void *z;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&z, bytes));
    int can = 0;
    CHECK(cudaDeviceCanAccessPeer(&can, 1, 0));
    if (can) CHECK(cudaDeviceEnablePeerAccess(0, 0));
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (can) CHECK(cudaDeviceEnablePeerAccess(1, 0));
    ms = median_ms([&] { CHECK(cudaMemcpyPeer(z, 1, x, 0, bytes)); });
    std::printf("gpu0_to_gpu1 %.1f GB/s (peer access %s)\n", gb / (ms * 1e-3), can ? "on" : "off");
  }
  return 0;
}

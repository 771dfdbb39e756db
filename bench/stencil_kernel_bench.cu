/* stencil_kernel_bench.cu — the stencil layer's CUDA launches alone (no runtime): every launch
 * variant of one cell source timed at N^3 and checked bitwise against the cell-by-cell launch
 * (itself checked against the CPU by scripts/gpu-verify.sh), on a ragged box too.
 *
 * Built as stencil_kernel_bench_heat / _ch / _maxwell (bench/CMakeLists.txt), or by hand:
 *   nvcc -O2 -std=c++17 -arch=sm_90 -fmad=false -DTESS_HAVE_CUDA -DBENCH_HEAT (_CH, _MAXWELL)
 *        -Icodelets -Iruntime/include -I<starpu include> bench/stencil_kernel_bench.cu -o skb
 *   skb N [FILTER]   one line per variant: kernel precision variant median_ms GB/s mismatches
 * FILTER: run only variants whose name contains it (for Nsight Compute). */
#if defined(BENCH_HEAT)
#define TESS_STENCIL_SOURCE "heat_cell.h"
#elif defined(BENCH_MAXWELL)
#define TESS_STENCIL_SOURCE "maxwell_cell.h"
#else
#define TESS_STENCIL_SOURCE "ch_cell.h"
#endif
#include "stencil/cuda.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                  \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

typedef void (*launch_fn)(const tess_stencil_plan *, void *);
struct variant {
  const char *name;
  launch_fn f;
};

__global__ void fill(unsigned long long *a, size_t n, unsigned long long seed, int dbl) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned long long h = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    const double v = (double)(h >> 11) / 9007199254740992.0 * 2 - 1;
    if (dbl)
      ((double *)a)[i] = v;
    else
      ((float *)a)[i] = (float)v;
  }
}
__global__ void count_diff(const unsigned *a, const unsigned *b, size_t n, unsigned long long *d) {
  unsigned long long c = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    c += a[i] != b[i];
  if (c) atomicAdd(d, c);
}

/* Median ms of reps runs of f on the default stream, after two, timed with events. */
template <typename F> static double median_ms(F f, int reps) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ts;
  for (int r = 0; r < reps + 2; r++) {
    CK(cudaEventRecord(e0));
    f();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2) ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  return ts[ts.size() / 2];
}

struct box {
  int dim[3], lo[3], n[3];
};

#ifdef BENCH_MAXWELL
static const int NC = 6, WORDS = 18; /* a substep reads u, reads and writes out: 6 + 12 words */
#else
static const int NC = 1, WORDS = 0; /* 0: nin + 1 words a cell */
#endif

static tess_stencil_plan plan_for(const box &b, int prec, int nin, const void *const *in,
                                  void *out) {
  tess_stencil_plan p;
  memset(&p, 0, sizeof p);
  p.nin = nin, p.nout = 1, p.nc = NC, p.sc = b.dim[0], p.prec = prec ? TESS_FP64 : TESS_FP32;
  for (int a = 0; a < 3; a++)
    p.lo[a] = b.lo[a], p.n[a] = b.n[a], p.active[a] = 1;
  p.pos[0] = 1, p.pos[1] = (long long)NC * b.dim[0], p.pos[2] = p.pos[1] * b.dim[1];
  for (int a = 0; a < 3; a++) {
    p.st[a] = p.pos[a];
    for (int f = 0; f < TESS_MAX_IO; f++) /* every field one component: one layout */
      p.ipos[f][a] = p.ist[f][a] = p.opos[f][a] = p.pos[a];
  }
  for (int f = 0; f < nin; f++)
    p.in[f] = in[f];
  p.out[0] = out;
#ifdef BENCH_HEAT
  p.k[HEAT_COEF] = 0.05;
  for (int a = 0; a < 3; a++)
    p.k[HEAT_IH2 + a] = 1.0 + 0.25 * a;
  const double b6[4] = {-49.0 / 18.0, 3.0 / 2.0, -3.0 / 20.0, 1.0 / 90.0};
  for (int i = 0; i < 4; i++)
    p.k[HEAT_B + i] = b6[i];
#elif defined(BENCH_MAXWELL)
  p.k[MW_BETA] = 0.5, p.k[MW_GAP] = 0.3, p.k[MW_READ] = 1, p.k[MW_DT] = 0.01;
  p.reads_out = 1; /* an RK stage after the first: the output is read */
  p.k[MW_CE] = 1.1, p.k[MW_CH] = -0.9;
  for (int a = 0; a < 3; a++)
    p.k[MW_IH + a] = 1.0 + 0.25 * a;
  p.k[MW_A] = 3.0 / 4.0, p.k[MW_A + 1] = -3.0 / 20.0, p.k[MW_A + 2] = 1.0 / 60.0;
#else
  p.k[CH_NEG_B] = -1.0, p.k[CH_U] = 1.0, p.k[CH_K] = 0.5, p.k[CH_COEF] = 0.01;
  p.k[CH_C0] = 0.25, p.k[CH_C1] = 0.75;
  for (int a = 0; a < 3; a++)
    p.k[CH_IH2 + a] = 1.0 + 0.25 * a;
#endif
  for (int i = 0; i < TESS_STENCIL_MAXK; i++)
    p.kf[i] = (float)p.k[i];
  return p;
}

/* Times v at box b (median of reps launches) and counts its elements differing from ref's. */
template <int nv>
static void run(const char *kern, const box &b, int prec, int nin, const variant (&vs)[nv],
                const char *filter, int reps, bool time) {
  const size_t n = (size_t)NC * b.dim[0] * b.dim[1] * b.dim[2], w = prec ? 8 : 4;
  void *in[2], *ref, *out;
  for (int f = 0; f < nin; f++) {
    CK(cudaMalloc(&in[f], n * w));
    fill<<<1024, 256>>>((unsigned long long *)in[f], n, 12345 + f, prec);
  }
  CK(cudaMalloc(&ref, n * w));
  CK(cudaMalloc(&out, n * w));
  unsigned long long *d;
  CK(cudaMalloc(&d, 8));
  CK(cudaMemset(ref, 0xEF, n * w));
  tess_stencil_plan pr = plan_for(b, prec, nin, in, ref);
  vs[0].f(&pr, 0);
  CK(cudaDeviceSynchronize());
  for (int v = 0; v < nv; v++) {
    if (filter && !strstr(vs[v].name, filter)) continue;
    if (vs[v].name[0] == 'p' && (b.dim[0] % 2 || b.dim[1] % 2)) continue; /* pairs misaligned */
    CK(cudaMemset(out, 0xEF, n * w));
    tess_stencil_plan p = plan_for(b, prec, nin, in, out);
    vs[v].f(&p, 0);
    CK(cudaGetLastError());
    CK(cudaMemset(d, 0, 8));
    count_diff<<<1024, 256>>>((const unsigned *)ref, (const unsigned *)out, n * w / 4, d);
    unsigned long long diff;
    CK(cudaMemcpy(&diff, d, 8, cudaMemcpyDeviceToHost));
    const double med = time ? median_ms([&] { vs[v].f(&p, 0); }, reps) : 0;
    const double cells = (double)b.n[0] * b.n[1] * b.n[2];
    printf("%-9s %-6s %3dx%3dx%3d nin=%d %-22s %8.4f ms %7.1f GB/s  diff %llu\n", kern,
           prec ? "double" : "single", b.n[0], b.n[1], b.n[2], nin, vs[v].name, med,
           time ? (WORDS ? WORDS : nin + 1) * cells * w / (med * 1e6) : 0.0, diff);
    fflush(stdout);
  }
  for (int f = 0; f < nin; f++)
    CK(cudaFree(in[f]));
  CK(cudaFree(ref));
  CK(cudaFree(out));
  CK(cudaFree(d));
}

static double copy_bw(size_t bytes) {
  void *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  const double ms =
      median_ms([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, 10);
  CK(cudaFree(a));
  CK(cudaFree(b));
  return 2.0 * bytes / (ms * 1e6);
}

/* Variants: K cells a thread, BX x BY threads, at most ZC planes a block (0: no bound; ZP2:
 * exactly ZC), MB blocks per SM asked, D planes in flight (0: the default); ZP2: two cells a
 * thread along x, BXT x BY threads. */
#define ZK(op, R, K, BX, BY, ZC, MB, D)                                                            \
  {                                                                                                \
    "k" #K " " #BX "x" #BY " zc" #ZC " mb" #MB " d" #D,                                            \
        tess_stencil_launch_zk<op, R, K, BX, BY, ZC, MB, D, false, false>                          \
  }
#define ZK2(op, K, BX, BY, ZC, MB, D)                                                              \
  {                                                                                                \
    "k" #K " " #BX "x" #BY " zc" #ZC " mb" #MB " d" #D,                                            \
        tess_stencil_launch_zk2<op, K, BX, BY, ZC, MB, D, false>                                   \
  }
#define ZKN(op, K, BX, BY, ZC, MB)                                                                 \
  {                                                                                                \
    "k" #K " " #BX "x" #BY " zc" #ZC " mb" #MB,                                                    \
        tess_stencil_launch_zk<op, 3, K, BX, BY, ZC, MB, 0, false, false, 6>                       \
  }
#define ZKNP(op, K, BX, BY, ZC, MB, PF)                                                            \
  {                                                                                                \
    "k" #K " " #BX "x" #BY " zc" #ZC " mb" #MB " pf" #PF,                                          \
        tess_stencil_launch_zk<op, 3, K, BX, BY, ZC, MB, 0, false, false, 6, PF>                   \
  }
#define ZP2(op, BXT, BY, ZC, MB, D)                                                                \
  {                                                                                                \
    "p" #BXT "x" #BY " zc" #ZC " mb" #MB " d" #D,                                                  \
        tess_stencil_launch_zp2<op, BXT, BY, ZC, MB, D, false>                                     \
  }

#if !defined(BENCH_HEAT) && !defined(BENCH_MAXWELL)
template <typename Op> void old_zmarch(const tess_stencil_plan *p, void *stream) {
  const dim3 zb(ZX, ZY, 1);
  const dim3 zg((unsigned)((p->n[0] + ZX - 1) / ZX), (unsigned)((p->n[1] + ZY - 1) / ZY),
                (unsigned)((p->n[2] + ZCHUNK - 1) / ZCHUNK));
  tess_stencil_zmarch<Op, false><<<zg, zb, 0, (cudaStream_t)stream>>>(*p);
}
#endif

/* the layer's shapes (tess_zk_shape), their neighbours, and K = 1 in the one-cell shapes the
 * layer used before (64 x 8 for radius 3, 256 x 2 for radius 1); in float also more planes in
 * flight (d10: 10 planes, too many for double's shared memory) */
#define HEAT_VARIANTS(op, R)                                                                       \
  {"cells", tess_stencil_launch_cells<op, false>},                                                 \
      {"layer", tess_stencil_launch_one<op, R, false>}, ZK(op, R, 4, 128, 4, 64, 1, 0),            \
      ZK(op, R, 4, 128, 4, 128, 1, 0), ZK(op, R, 4, 128, 4, 256, 1, 0),                            \
      ZK(op, R, 4, 256, 2, 64, 1, 0), ZK(op, R, 4, 256, 2, 0, 1, 0),                               \
      ZK(op, R, 2, 128, 8, 128, 1, 0), ZK(op, R, 4, 64, 8, 64, 1, 0),                              \
      ZK(op, R, 8, 64, 2, 64, 1, 0), ZK(op, R, 1, 64, 8, 64, 2, 0), ZK(op, R, 1, 256, 2, 64, 2, 0)
#define HEAT_VARIANTS_F32(op, R)                                                                   \
  HEAT_VARIANTS(op, R), ZK(op, R, 4, 128, 4, 256, 1, 10), ZK(op, R, 4, 256, 2, 0, 1, 10),          \
      ZK(op, R, 4, 128, 2, 0, 2, 10), ZK(op, R, 8, 128, 2, 0, 1, 10),                              \
      ZK(op, R, 8, 128, 2, 256, 1, 10), ZK(op, R, 4, 128, 2, 256, 3, 0),                           \
      ZK(op, R, 4, 128, 2, 0, 3, 0), ZK(op, R, 4, 64, 4, 256, 3, 0),                               \
      ZK(op, R, 2, 128, 4, 256, 2, 0), ZK(op, R, 4, 256, 1, 256, 3, 0),                            \
      ZK(op, R, 4, 128, 2, 256, 4, 0)
/* the layer's shapes (tess_zk2_shape in double, tess_zp2_shape in float), their neighbours, and
 * the pairs in the shape the layer used in double before (d8); in float also more planes in
 * flight */
#define CH_VARIANTS(op)                                                                            \
  {"cells", tess_stencil_launch_cells<op, false>}, {"zmarch-old", old_zmarch<op>},                 \
      {"layer", tess_stencil_launch_two<op, 2, false>}, ZK2(op, 4, 64, 8, 64, 1, 2),               \
      ZK2(op, 4, 64, 4, 64, 2, 2), ZK2(op, 4, 128, 4, 128, 1, 2), ZK2(op, 4, 128, 4, 0, 1, 2),     \
      ZK2(op, 4, 128, 4, 0, 1, 3), ZK2(op, 4, 256, 2, 0, 1, 2), ZK2(op, 2, 64, 8, 64, 2, 2),       \
      ZK2(op, 1, 32, 8, 64, 4, 2), ZP2(op, 32, 8, 64, 2, 8), ZP2(op, 32, 8, 64, 2, 3),             \
      ZP2(op, 32, 16, 64, 1, 4)
#define CH_VARIANTS_F32(op)                                                                        \
  CH_VARIANTS(op), ZK2(op, 4, 128, 4, 0, 1, 5), ZK2(op, 4, 128, 4, 0, 1, 8),                       \
      ZK2(op, 4, 256, 2, 0, 1, 5), ZK2(op, 4, 128, 2, 0, 2, 5), ZK2(op, 8, 128, 2, 0, 1, 5),       \
      ZK2(op, 8, 64, 4, 0, 1, 8)

/* Maxwell (six components, radius 3): the layer's shape (tess_zkn_shape: 32 x 8 one cell a
 * thread, the output prefetched 2 planes ahead), its neighbours that fit in shared memory, without
 * (ZKN) and with (ZKNP, pf: planes ahead) the prefetch */
#define MAXWELL_VARIANTS(op)                                                                       \
  {"cells", tess_stencil_launch_cells<op, false>},                                                 \
      {"layer", tess_stencil_launch_one<op, 3, false>}, ZKN(op, 1, 32, 8, 64, 1),                  \
      ZKN(op, 1, 32, 8, 32, 1), ZKN(op, 1, 32, 8, 128, 1), ZKN(op, 1, 32, 8, 0, 1),                \
      ZKN(op, 1, 16, 16, 64, 1), ZKN(op, 1, 32, 4, 64, 1), ZKN(op, 2, 32, 4, 64, 1),               \
      ZKN(op, 1, 64, 2, 64, 1), ZKN(op, 1, 16, 8, 64, 2), ZKNP(op, 1, 32, 8, 64, 1, 1),            \
      ZKNP(op, 1, 32, 8, 64, 1, 2), ZKNP(op, 1, 32, 8, 64, 1, 3), ZKNP(op, 1, 32, 8, 64, 1, 4),    \
      ZKNP(op, 1, 32, 8, 64, 1, 8), ZKNP(op, 1, 32, 8, 128, 1, 2), ZKNP(op, 1, 16, 16, 64, 1, 2),  \
      ZKNP(op, 1, 16, 8, 64, 2, 2), ZKNP(op, 1, 16, 8, 64, 2, 4), ZKNP(op, 1, 32, 8, 128, 1, 1)
#define MAXWELL_VARIANTS_F32(op)                                                                   \
  MAXWELL_VARIANTS(op), ZKN(op, 1, 64, 8, 64, 1), ZKN(op, 1, 32, 16, 64, 1),                       \
      ZKN(op, 2, 32, 8, 64, 1), ZKN(op, 1, 16, 16, 64, 2), ZKN(op, 1, 32, 4, 64, 3),               \
      ZKNP(op, 1, 32, 8, 64, 2, 2), ZKNP(op, 1, 32, 16, 64, 1, 2), ZKNP(op, 1, 64, 8, 64, 1, 2)

int main(int argc, char **argv) {
  const int N = argc > 1 ? atoi(argv[1]) : 512;
  const char *filter = argc > 2 ? argv[2] : NULL;
  const box big = {{N + 6, N + 6, N + 6}, {3, 3, 3}, {N, N, N}};
  const box rag = {{150, 90, 84}, {5, 3, 4}, {137, 75, 70}}; /* pairs start one cell left */
  const box rae = {{150, 90, 84}, {4, 3, 4}, {138, 75, 70}}; /* pairs start at the region */
  const box rao = {{151, 90, 84}, {5, 3, 4}, {137, 75, 70}}; /* odd pitch: one cell a thread */
  if (!filter)
    printf("copy %.1f GB/s (read + write, 1 GiB device to device)\n", copy_bw(1ull << 30));
#ifdef BENCH_HEAT
  const variant h6d[] = {HEAT_VARIANTS(tess_op_heat6_f64, 3)};
  const variant h6s[] = {HEAT_VARIANTS_F32(tess_op_heat6_f32, 3)};
  const variant h2d[] = {HEAT_VARIANTS(tess_op_heat2_f64, 1)};
  const variant h2s[] = {HEAT_VARIANTS_F32(tess_op_heat2_f32, 1)};
  if (!filter) {
    for (const box &b : {rag, rae, rao}) {
      run("heat6", b, 1, 1, h6d, NULL, 0, false);
      run("heat6", b, 0, 1, h6s, NULL, 0, false);
      run("heat2", b, 1, 1, h2d, NULL, 0, false);
      run("heat2", b, 0, 1, h2s, NULL, 0, false);
    }
  }
  run("heat6", big, 1, 1, h6d, filter, 20, true);
  run("heat6", big, 0, 1, h6s, filter, 20, true);
  run("heat2", big, 1, 1, h2d, filter, 20, true);
  run("heat2", big, 0, 1, h2s, filter, 20, true);
#elif defined(BENCH_MAXWELL)
  const variant md[] = {MAXWELL_VARIANTS(tess_op_maxwell_rk3_f64)};
  const variant ms[] = {MAXWELL_VARIANTS_F32(tess_op_maxwell_rk3_f32)};
  const box mid = {{N / 2 + 6, N / 2 + 6, N / 2 + 6}, {3, 3, 3}, {N / 2, N / 2, N / 2}};
  if (!filter)
    for (const box &b : {rag, rae, rao}) {
      run("maxwell", b, 1, 1, md, NULL, 0, false);
      run("maxwell", b, 0, 1, ms, NULL, 0, false);
    }
  for (const box &b : {mid, big}) {
    run("maxwell", b, 1, 1, md, filter, 20, true);
    run("maxwell", b, 0, 1, ms, filter, 20, true);
  }
#else
  const variant cd[] = {CH_VARIANTS(tess_op_ch_fused_f64)};
  const variant cs[] = {CH_VARIANTS_F32(tess_op_ch_fused_f32)};
  const variant mud[] = {{"cells", tess_stencil_launch_cells<tess_op_ch_mu_f64, false>},
                         ZK(tess_op_ch_mu_f64, 1, 1, 32, 16, 64, 2, 0),
                         {"layer", tess_stencil_launch_one<tess_op_ch_mu_f64, 1, false>}};
  if (!filter) {
    for (const box &b : {rag, rae, rao}) {
      run("ch_fused", b, 1, 1, cd, NULL, 0, false);
      run("ch_fused", b, 1, 2, cd, NULL, 0, false);
      run("ch_fused", b, 0, 1, cs, NULL, 0, false);
      run("ch_fused", b, 0, 2, cs, NULL, 0, false);
      run("ch_mu", b, 1, 1, mud, NULL, 0, false);
    }
  }
  run("ch_fused", big, 1, 1, cd, filter, 20, true);
  run("ch_fused", big, 0, 1, cs, filter, 20, true);
  if (!filter) run("ch_fused", big, 1, 2, cd, "layer", 20, true);
#endif
  return 0;
}

/* The layer reports launch errors through StarPU; alone, the bench prints and exits. */
extern "C" void starpu_cuda_report_error(const char *func, const char *file, int line,
                                         cudaError_t status) {
  fprintf(stderr, "%s:%d (%s): %s\n", file, line, func, cudaGetErrorString(status));
  exit(1);
}

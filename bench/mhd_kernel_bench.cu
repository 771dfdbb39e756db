/* mhd_kernel_bench — checks codelets/mhd/mhd_cuda.cu against the CPU reference (codelets/mhd/mhd.c)
 * in ULPs and times it, in double and in single precision. No StarPU: the kernel file is included
 * here with its error macro replaced, and with every variant compiled
 * (TESS_MHD_CUDA_ALL_VARIANTS: the 16x16 tile), so one binary compares them. Build it as the
 * library builds mhd_cuda.cu: -fmad=false for the device, -ffp-contract=off for the host.
 *
 *   usage: mhd_kernel_bench [--emulate] [--quick] [--sizes 128,256,512] [--reps N] [--no-thin]
 *                           [--sanitize] [--profile N] [--f32] [--wrap] [--auto-only]
 *     --emulate   CPU only: runs the tiled and generic kernels' own code on the host (one
 *                 "thread" after another, barriers in between) against tess_mhd_rk3_cpu and
 *                 tess_mhd_rk3_cpu_f32. Checks indexing, plane ring and arithmetic without a
 *                 GPU.
 *     --quick     smaller correctness cases
 *     --sanitize  only a few small launches (for compute-sanitizer), both precisions
 *     --wrap      timed and profiled launches read every point beyond the owned box at its
 *                 periodic image (tess_region.wrap, as a lone tile's launches do)
 *     --auto-only time the production kernel only (no 16x16 tile, no generic kernel)
 *     --thin-tile NX,NY,NZ  only the three outer slabs 3 cells thin of a tile of that size
 *                 (what the classes of a tiled run launch), every kernel kind, both precisions
 *     --profile N only 3 steps of the production kernel at N^3 (for ncu); with --f32 the
 *                 single-precision one; --kind K: kernel_kind K instead of the production one
 *
 * ULPs as digest eq. 16: |m - c| / 2^(floor(log2 |m|) - p + 1) per cell, m the CPU value, p = 53
 * (double) or 24 (float), the minimum normal for m = 0; "normwise": max |m - c| in ULPs of
 * max |m|. Also checked: every element outside the region left untouched. Timing: the full RK3
 * step (3 launches, in/out swapped), CUDA events, median of --reps after 2 warm-up steps, inner
 * box = whole interior; the floor is 576 B/cell/step in double (8 fields read through the
 * stencil + 8 read at the cell + 8 written, x 3 substeps, 8 B each) and 288 in float, over the
 * device-to-device copy bandwidth measured here.
 */
#define TESS_MHD_CUDA_NO_STARPU    1
#define TESS_MHD_CUDA_ALL_VARIANTS 1
#include "mhd_cuda.cu"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace G = tess_mhd_gpu;

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "mhd_kernel_bench:%d: %s: %s\n", __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static const unsigned long long host_tab[256] = TESS_MHD_EXP_TAB;
static const unsigned long long host_tabf[32] = TESS_MHD_EXPF_TAB;

/* Per precision: the name, the region tag, the CPU reference, the host exp table. */
template <class T> struct prec;
template <> struct prec<double> {
  static constexpr const char *name = "f64";
  static constexpr tess_precision tag = TESS_FP64;
  static constexpr int digits = DBL_MANT_DIG;
  static constexpr double bytes_per_cell = 576.0;
  static void cpu(const tess_region *r) { tess_mhd_rk3_cpu(r); }
  static const unsigned long long *tab() { return host_tab; }
  static size_t tab_bytes() { return sizeof host_tab; }
};
template <> struct prec<float> {
  static constexpr const char *name = "f32";
  static constexpr tess_precision tag = TESS_FP32;
  static constexpr int digits = FLT_MANT_DIG;
  static constexpr double bytes_per_cell = 288.0;
  static void cpu(const tess_region *r) { tess_mhd_rk3_cpu_f32(r); }
  static const unsigned long long *tab() { return host_tabf; }
  static size_t tab_bytes() { return sizeof host_tabf; }
};

template <class T> static const char *kind_name(int kind) {
  static char buf[64];
  const char *k = kind == G::KIND_AUTO           ? "auto"
                  : kind == G::KIND_TILED        ? (sizeof(T) == 4 ? "tiled" : "tiled32x8")
                  : kind == G::KIND_TILED16      ? "tiled16x16"
                  : kind == G::KIND_TILED32X8    ? "tiled32x8"
                  : kind == G::KIND_TILED_WHOLE  ? "tiled-whole"
                  : kind == G::KIND_TILED_PIECES ? "tiled-pieces"
                  : kind == G::KIND_TILED_COPIES ? "tiled-copies"
                  : kind == G::KIND_TILED_TMA    ? "tiled-tma"
                  : kind == G::KIND_TILED_FILL   ? "tiled-fill"
                                                 : "generic";
  std::snprintf(buf, sizeof buf, "%s %s", prec<T>::name, k);
  return buf;
}

/* ---- data ------------------------------------------------------------------------------ */

static uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Uniform [0, 1) as double, rounded to T. */
template <class T> static void fill_random(std::vector<T> &v, uint64_t seed) {
  for (size_t i = 0; i < v.size(); i++)
    v[i] = (T)((double)(splitmix(i ^ (seed * 0x632be59bd9b4e019ull)) >> 11) * 0x1p-53);
}

template <class T> __global__ void fill_random_kernel(T *v, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint64_t x = i ^ (seed * 0x632be59bd9b4e019ull);
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    v[i] = (T)((double)(x >> 11) * 0x1p-53);
  }
}

struct tile {
  int dim[3], lo[3], hi[3];
  size_t elems;
};

static tile make_tile(int nx, int ny, int nz, bool twod = false) {
  tile t;
  const int n[3] = {nx, ny, nz};
  for (int a = 0; a < 3; a++) {
    const int g = (twod && a == 2) ? 0 : 3;
    t.dim[a] = n[a] + 2 * g;
    t.lo[a] = g;
    t.hi[a] = g + n[a];
  }
  t.elems = (size_t)t.dim[0] * t.dim[1] * t.dim[2] * TESS_MHD_NC;
  return t;
}

template <class T>
static tess_region make_region(const tile &t, const int lo[3], const int hi[3], const double h[3],
                               const tess_mhd_params *p, const T *in, T *out) {
  tess_region r;
  std::memset(&r, 0, sizeof r);
  for (int a = 0; a < 3; a++) {
    r.lo[a] = lo[a];
    r.hi[a] = hi[a];
    r.dim[a] = t.dim[a];
    r.ghost[a] = t.lo[a];
    r.origin[a] = -t.lo[a];
    r.global[a] = t.hi[a] - t.lo[a];
    r.h[a] = h[a];
  }
  r.nin = r.nout = 1;
  r.in_nc[0] = r.out_nc[0] = TESS_MHD_NC;
  r.prec = prec<T>::tag;
  if constexpr (sizeof(T) == sizeof(double)) {
    r.in[0] = in;
    r.out[0] = out;
  } else {
    r.in_f[0] = in;
    r.out_f[0] = out;
  }
  r.params = p;
  r.dt = 0x1p-23;
  return r;
}

/* ---- comparison -------------------------------------------------------------------------- */

/* ULP of a model value m (digest eq. 15) with `digits` significand bits. */
static double ulp_of(double m, int digits) {
  if (m == 0.0) return digits == DBL_MANT_DIG ? DBL_MIN : (double)FLT_MIN;
  int e;
  std::frexp(std::fabs(m), &e);
  return std::ldexp(1.0, e - digits);
}

struct ulp_stats {
  double max = 0, m_at = 0, c_at = 0, normwise = 0;
  long long cells = 0, over0 = 0, over2 = 0, outside_changed = 0;
  int at[4] = {0, 0, 0, 0};
};

template <class T>
static ulp_stats compare(const tile &t, const int lo[3], const int hi[3], const T *ref,
                         const T *got) {
  ulp_stats s;
  double absmax = 0, mmax = 0;
  const int X = t.dim[0], Y = t.dim[1], digits = prec<T>::digits;
  for (int z = 0; z < t.dim[2]; z++)
    for (int y = 0; y < Y; y++)
      for (int c = 0; c < TESS_MHD_NC; c++)
        for (int x = 0; x < X; x++) {
          const size_t i = TESS_IDX(X, Y, TESS_MHD_NC, c, x, y, z);
          const bool inside =
              x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1] && z >= lo[2] && z < hi[2];
          if (!inside) {
            if (std::memcmp(&ref[i], &got[i], sizeof(T)) != 0) s.outside_changed++;
            continue;
          }
          const double m = ref[i], v = got[i];
          double e = std::fabs(m - v) / ulp_of(m, digits);
          if (std::isnan(e)) e = INFINITY;
          s.cells++;
          if (e > 0) s.over0++;
          if (e > 2) s.over2++;
          if (e > s.max || (s.cells == 1 && e >= s.max)) {
            s.max = e;
            s.m_at = m;
            s.c_at = v;
            s.at[0] = c;
            s.at[1] = x;
            s.at[2] = y;
            s.at[3] = z;
          }
          absmax = std::max(absmax, std::isnan(v) ? INFINITY : std::fabs(m - v));
          mmax = std::max(mmax, std::fabs(m));
        }
  s.normwise = absmax / ulp_of(mmax, digits);
  return s;
}

static int g_failures = 0;

static void report(const char *what, const char *kernel, int k, const ulp_stats &s) {
  const bool pass = s.max <= 2.0 && s.outside_changed == 0;
  if (!pass) g_failures++;
  std::printf("  %-34s %-20s k=%d  max %-9.3g >0: %-7lld >2: %-6lld of %-8lld normwise %-8.3g "
              "outside %-4s %s",
              what, kernel, k, s.max, s.over0, s.over2, s.cells, s.normwise,
              s.outside_changed ? "BAD" : "ok", !pass ? "FAIL" : "PASS");
  if (s.max > 0)
    std::printf("  (worst: comp %d at %d,%d,%d: cpu %.17g gpu %.17g)", s.at[0], s.at[1], s.at[2],
                s.at[3], s.m_at, s.c_at);
  std::printf("\n");
}

/* ---- running a kernel: CPU reference, host emulation, GPU --------------------------------- */

#include "mhd_kernel_emulate.cuh"

/* Two device buffers, reused across sizes and precisions (bytes). */
struct dev_buffers {
  void *in = nullptr, *out = nullptr;
  size_t cap = 0;
  void ensure(size_t bytes) {
    if (bytes <= cap) return;
    if (in) CHECK(cudaFree(in));
    if (out) CHECK(cudaFree(out));
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    cap = bytes;
  }
};
static dev_buffers g_dev;
static bool g_emulate = false;
static int g_check_wrap = 0; /* run_kernel: the kernel's region has tess_region.wrap */

/* One substep of `kind` on copies of in/out; returns the output array. */
template <class T>
static std::vector<T> run_kernel(const tile &t, const int lo[3], const int hi[3], const double h[3],
                                 const tess_mhd_params *p, const std::vector<T> &in,
                                 const std::vector<T> &out0, int kind) {
  std::vector<T> out = out0;
  if (kind < 0) { /* the CPU reference */
    tess_region r = make_region(t, lo, hi, h, p, in.data(), out.data());
    prec<T>::cpu(&r);
  } else if (g_emulate) {
    const std::vector<T> own = in; /* a lone tile's ghosts are the kernel's scratch (launch_tma) */
    tess_region r = make_region(t, lo, hi, h, p, own.data(), out.data());
    r.wrap = g_check_wrap;
    emulate<T>(&r, kind);
  } else {
    const size_t bytes = t.elems * sizeof(T);
    g_dev.ensure(bytes);
    T *din = (T *)g_dev.in, *dout = (T *)g_dev.out;
    CHECK(cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dout, out.data(), bytes, cudaMemcpyHostToDevice));
    tess_region r = make_region(t, lo, hi, h, p, (const T *)din, dout);
    r.wrap = g_check_wrap;
    G::launch<T>(&r, nullptr, kind);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost));
  }
  return out;
}

typedef int variant; /* a kernel_kind */

/* Substeps `ks` of one box: CPU reference vs each variant. */
template <class T>
static void check_box(const char *what, const tile &t, const int lo[3], const int hi[3],
                      const double h[3], tess_mhd_params p, const std::vector<variant> &vs,
                      const std::vector<int> &ks, uint64_t seed) {
  std::vector<T> in(t.elems), out(t.elems);
  fill_random(in, seed);
  fill_random(out, seed + 1000);
  /* NaN wherever the region's stencil cannot reach: a kernel that reads there for a cell of
   * the region shows NaN there. */
  for (int z = 0; z < t.dim[2]; z++)
    for (int y = 0; y < t.dim[1]; y++)
      for (int c = 0; c < TESS_MHD_NC; c++)
        for (int x = 0; x < t.dim[0]; x++) {
          const int q[3] = {x, y, z};
          bool reach = true;
          for (int a = 0; a < 3; a++) {
            const int g = t.dim[a] > 1 ? 3 : 0;
            reach = reach && q[a] >= lo[a] - g && q[a] < hi[a] + g;
          }
          if (!reach) in[TESS_IDX(t.dim[0], t.dim[1], TESS_MHD_NC, c, x, y, z)] = (T)NAN;
        }
  for (int k : ks) {
    p.substep = k;
    const std::vector<T> ref = run_kernel<T>(t, lo, hi, h, &p, in, out, -1);
    for (const variant &v : vs) {
      const std::vector<T> got = run_kernel<T>(t, lo, hi, h, &p, in, out, v);
      report(what, kind_name<T>(v), k, compare(t, lo, hi, ref.data(), got.data()));
    }
  }
}

/* A lone periodic tile (tess_region.wrap): each variant, its input's ghost layers NaN, against
 * the CPU version on the same input with its ghosts holding the owned cells' periodic images. */
template <class T>
static void check_wrap(const char *what, const tile &t, const double h[3], tess_mhd_params p,
                       const std::vector<variant> &vs, uint64_t seed) {
  std::vector<T> in(t.elems), filled(t.elems), out(t.elems);
  fill_random(in, seed);
  fill_random(out, seed + 1000);
  filled = in;
  for (int z = 0; z < t.dim[2]; z++)
    for (int y = 0; y < t.dim[1]; y++)
      for (int c = 0; c < TESS_MHD_NC; c++)
        for (int x = 0; x < t.dim[0]; x++) {
          const int wx = tess_wrap(x, t.lo[0], t.dim[0]), wy = tess_wrap(y, t.lo[1], t.dim[1]),
                    wz = tess_wrap(z, t.lo[2], t.dim[2]);
          if (wx == x && wy == y && wz == z) continue; /* owned */
          const size_t i = TESS_IDX(t.dim[0], t.dim[1], TESS_MHD_NC, c, x, y, z);
          filled[i] = in[TESS_IDX(t.dim[0], t.dim[1], TESS_MHD_NC, c, wx, wy, wz)];
          in[i] = (T)NAN; /* a kernel that reads a ghost shows NaN */
        }
  for (int k = 0; k < 3; k++) {
    p.substep = k;
    const std::vector<T> ref = run_kernel<T>(t, t.lo, t.hi, h, &p, filled, out, -1);
    g_check_wrap = 1;
    for (const variant &v : vs) {
      const std::vector<T> got = run_kernel<T>(t, t.lo, t.hi, h, &p, in, out, v);
      report(what, kind_name<T>(v), k, compare(t, t.lo, t.hi, ref.data(), got.data()));
    }
    g_check_wrap = 0;
  }
}

/* A full step (3 substeps, in/out swapped in between) of the whole interior. */
template <class T>
static void check_chain(const char *what, const tile &t, const double h[3], tess_mhd_params p,
                        variant v, uint64_t seed) {
  std::vector<T> a(t.elems), b(t.elems);
  fill_random(a, seed);
  fill_random(b, seed + 1000);
  std::vector<T> ca = a, cb = b, ga = a, gb = b;
  for (int k = 0; k < 3; k++) {
    p.substep = k;
    cb = run_kernel<T>(t, t.lo, t.hi, h, &p, ca, cb, -1);
    gb = run_kernel<T>(t, t.lo, t.hi, h, &p, ga, gb, v);
    std::swap(ca, cb);
    std::swap(ga, gb);
  }
  report(what, kind_name<T>(v), 9, compare(t, t.lo, t.hi, ca.data(), ga.data()));
}

template <class T> static void validate(bool quick) {
  const double hh = 2.0 * M_PI / 128.0, h[3] = {hh, hh, hh};
  tess_mhd_params def = TESS_MHD_PARAMS_DEFAULT;
  def.dt = 0x1p-23;
  const variant prod = G::KIND_AUTO;
  std::vector<variant> all = {G::KIND_TILED, G::KIND_GENERIC, G::KIND_TILED16,
                              G::KIND_TILED_PIECES};
  std::vector<variant> exact = {G::KIND_AUTO, G::KIND_TILED, G::KIND_GENERIC, G::KIND_TILED16,
                                G::KIND_TILED_PIECES};
  if (sizeof(T) == 4)
    for (variant v :
         {G::KIND_TILED32X8, G::KIND_TILED_COPIES, G::KIND_TILED_TMA, G::KIND_TILED_FILL})
      all.push_back(v), exact.push_back(v);
  std::printf("\n== %s correctness vs tess_mhd_rk3_cpu%s (k=9: full RK3 step, 3 substeps "
              "chained)\n",
              prec<T>::name, sizeof(T) == sizeof(double) ? "" : "_f32");
  const int n = quick ? 32 : 64;
  const tile cube = make_tile(n, n, n);
  char name[96];
  std::snprintf(name, sizeof name, "%d^3 interior, default params", n);
  check_box<T>(name, cube, cube.lo, cube.hi, h, def, all, {0, 1, 2}, 1);
  std::snprintf(name, sizeof name, "%d^3 interior, one RK3 step", n);
  check_chain<T>(name, cube, h, def, prod, 2);
  /* rows of a multiple of 4 elements (the cubes above: 2 mod 4): every component's row at a
   * 16-byte boundary, the tensor copies' other case (float 32 x 16) */
  const int n4 = quick ? 26 : 58;
  const tile cube4 = make_tile(n4, n4, n4);
  std::snprintf(name, sizeof name, "%d^3 interior (rows of 4k), default params", n4);
  check_box<T>(name, cube4, cube4.lo, cube4.hi, h, def, all, {0, 1, 2}, 3);
  std::snprintf(name, sizeof name, "%d^3 interior (rows of 4k), one RK3 step", n4);
  check_chain<T>(name, cube4, h, def, prod, 4);
  check_wrap<T>("wrap: cube (rows of 4k), periodic", cube4, h, def, exact, 64);

  /* boxes inside the cube: thin outer segments, odd sizes, a single cell */
  const int e = cube.hi[0];
  const int boxes[][6] = {{3, 6, 3, e, 3, e},
                          {3, e, 3, 6, 3, e},
                          {3, e, 3, e, 3, 6},
                          {e - 3, e, 3, e, 3, e},
                          {5, 42 % e, 4, 13, 7, 30 % e},
                          {30 % e, 31 % e, 20, 21, 9, 10},
                          {3, e, 10, 11, 3, e},
                          {6, e - 3, 6, e - 3, 6, e - 3}};
  const char *bnames[] = {"x-thin [3,6) x all x all",
                          "y-thin",
                          "z-thin",
                          "x-thin at the high end",
                          "odd box 37x9x23",
                          "single cell",
                          "one y row-plane",
                          "inner box [6, n) (a tile's inner region)"};
  for (int i = 0; i < 8; i++) {
    int lo[3] = {boxes[i][0], boxes[i][2], boxes[i][4]},
        hi[3] = {boxes[i][1], boxes[i][3], boxes[i][5]};
    bool ok = true;
    for (int a = 0; a < 3; a++)
      ok = ok && hi[a] > lo[a] && lo[a] >= 3 && hi[a] <= e;
    if (!ok) continue;
    check_box<T>(bnames[i], cube, lo, hi, h, def, exact, {1}, 10 + i);
  }

  /* partial tiles everywhere, anisotropic spacing, every optional term on */
  tess_mhd_params odd = def;
  odd.cp = 1.3;
  odd.mu0 = 1.7;
  odd.gamma = 1.4;
  odd.heating = 0.05;
  odd.B_ext[0] = 0.1;
  odd.B_ext[1] = -0.2;
  odd.B_ext[2] = 0.3;
  odd.force_amp = 0.3;
  odd.force_k = 2;
  odd.K = 2e-3;
  const tile ragged = make_tile(quick ? 37 : 61, quick ? 13 : 37, quick ? 11 : 45);
  const double ha[3] = {0.05, 0.06, 0.07};
  check_box<T>("ragged 61x37x45, all terms, h aniso", ragged, ragged.lo, ragged.hi, ha, odd, exact,
               {0, 1, 2}, 30);

  /* a lone periodic tile: reads at the periodic images, never in the ghost layers */
  check_wrap<T>("wrap: cube, periodic", cube, h, def, exact, 60);
  check_wrap<T>("wrap: ragged, all terms", ragged, ha, odd, exact, 61);
  const tile wide = make_tile(100, 20, 8); /* tiles off every edge: the plain copy loop */
  check_wrap<T>("wrap: 100x20x8", wide, h, def, exact, 63);
  if (sizeof(T) == 4) { /* columns enough for the march that fills its own ghosts (tiled-tma),
                           deeper than FILL_AHEAD planes, so that its fill also runs in steps */
    const tile lone = make_tile(g_emulate ? 96 : 128, 128, g_emulate ? 44 : 48);
    check_wrap<T>("wrap: lone tile, its march filling its ghosts", lone, h, def,
                  g_emulate
                      ? std::vector<variant>{G::KIND_TILED_TMA}
                      : std::vector<variant>{G::KIND_AUTO, G::KIND_TILED_TMA, G::KIND_TILED_FILL},
                  64);
  }

  /* 2D: z inactive (dim 1, no ghost) */
  const tile flat = make_tile(quick ? 40 : 128, quick ? 24 : 64, 1, true);
  check_box<T>("2D 128x64", flat, flat.lo, flat.hi, h, def, {G::KIND_AUTO}, {0, 1, 2}, 40);
  check_box<T>("2D 128x64, all terms", flat, flat.lo, flat.hi, ha, odd, {G::KIND_AUTO}, {1}, 41);
  check_wrap<T>("wrap: 2D, periodic", flat, h, def, {G::KIND_AUTO}, 62);
}

/* Small cases for compute-sanitizer (memcheck, racecheck): one launch each. */
template <class T> static void sanitize_cases() {
  const double hh = 2.0 * M_PI / 128.0, h[3] = {hh, hh, hh};
  tess_mhd_params def = TESS_MHD_PARAMS_DEFAULT;
  def.dt = 0x1p-23;
  const tile t = make_tile(40, 20, 12);
  check_box<T>("sanitize 40x20x12", t, t.lo, t.hi, h, def, {G::KIND_TILED, G::KIND_GENERIC}, {1},
               50);
  const int lo[3] = {3, 3, 3}, hi[3] = {6, t.hi[1], t.hi[2]};
  check_box<T>("sanitize x-thin", t, lo, hi, h, def, {G::KIND_AUTO}, {1}, 51);
}

/* One step of the production kernel at n^3 after two warm-up steps, for ncu
 * (--launch-skip 6 --launch-count 1 picks substep 0 of the third step). */
static int g_profile_kind = G::KIND_AUTO;
static int g_wrap = 0; /* --wrap: timed and profiled launches read the ghosts' periodic images */
static bool g_auto_only = false; /* --auto-only: time the production kernel only */
/* A timed or profiled case at n^3: the tile, spacing and parameters, and the device's two
 * buffers filled with random values (the same seeds for every case). */
template <class T> struct timed_case {
  tile t;
  double h[3];
  tess_mhd_params p;
  T *in, *out;
  explicit timed_case(int n) : timed_case(n, n, n) {}
  timed_case(int nx, int ny, int nz) : t(make_tile(nx, ny, nz)), p(TESS_MHD_PARAMS_DEFAULT) {
    h[0] = h[1] = h[2] = 2.0 * M_PI / 128.0;
    p.dt = 0x1p-23;
    g_dev.ensure(t.elems * sizeof(T));
    in = (T *)g_dev.in;
    out = (T *)g_dev.out;
    fill_random_kernel<<<1024, 256>>>(in, t.elems, 7);
    fill_random_kernel<<<1024, 256>>>(out, t.elems, 8);
    CHECK(cudaDeviceSynchronize());
  }
};

template <class T> static void profile_case(int n) {
  timed_case<T> c(n);
  const tile &t = c.t;
  const double *h = c.h;
  tess_mhd_params &p = c.p;
  T *cur = c.in, *prev = c.out;
  for (int s = 0; s < 3; s++)
    for (int k = 0; k < 3; k++) {
      p.substep = k;
      tess_region r = make_region(t, t.lo, t.hi, h, &p, (const T *)cur, prev);
      r.wrap = g_wrap;
      G::launch<T>(&r, nullptr, g_profile_kind);
      std::swap(cur, prev);
    }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  std::printf("profile case %s %d^3 done\n", prec<T>::name, n);
}

/* ---- exp, expf ----------------------------------------------------------------------------- */

#include "mhd_kernel_math.cuh"

/* ---- timing -------------------------------------------------------------------------------- */

#include "mhd_kernel_timing.cuh"

int main(int argc, char **argv) {
  std::vector<int> sizes = {128, 256, 512};
  int reps = 20;
  bool thin = true, quick = false, sanitize = false, f32 = false;
  int profile = 0, thin_tile[3] = {0, 0, 0};
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--emulate"))
      g_emulate = true;
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
    else if (!std::strcmp(argv[i], "--sanitize"))
      sanitize = true;
    else if (!std::strcmp(argv[i], "--f32"))
      f32 = true;
    else if (!std::strcmp(argv[i], "--profile") && i + 1 < argc)
      profile = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--kind") && i + 1 < argc)
      g_profile_kind = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-thin"))
      thin = false;
    else if (!std::strcmp(argv[i], "--wrap"))
      g_wrap = 1;
    else if (!std::strcmp(argv[i], "--auto-only"))
      g_auto_only = true;
    else if (!std::strcmp(argv[i], "--thin-tile") && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%d,%d,%d", &thin_tile[0], &thin_tile[1], &thin_tile[2]) != 3) {
        std::fprintf(stderr, "--thin-tile '%s': expected NX,NY,NZ\n", argv[i]);
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      for (char *s = std::strtok(argv[++i], ","); s; s = std::strtok(nullptr, ","))
        sizes.push_back(std::atoi(s));
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--emulate] [--quick] [--sizes a,b,c] [--reps N] [--no-thin] [--kind K] "
          "[--sanitize] [--profile N] [--f32] [--wrap] [--auto-only] [--thin-tile NX,NY,NZ]\n",
          argv[0]);
      return 2;
    }
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (g_emulate) {
    std::printf("== CPU emulation of the CUDA kernels' code (no GPU used)\n");
    check_exp(false);
    check_divf_constants();
    validate<double>(quick);
    validate<float>(quick);
    std::printf("\n%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
  }

  if (sanitize) {
    sanitize_cases<double>();
    sanitize_cases<float>();
    std::printf("%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
  }
  if (thin_tile[0] > 0) { /* the thin boxes alone, no validation */
    time_thin<double>(thin_tile, reps);
    time_thin<float>(thin_tile, reps);
    return 0;
  }
  if (profile) {
    if (f32)
      profile_case<float>(profile);
    else
      profile_case<double>(profile);
    return 0;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MB, smem/block opt-in %zu KB, cc %d.%d\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin >> 10,
              prop.major, prop.minor);
  print_kernel_resources();
  std::printf("\n");
  check_exp(true);
  check_divf_constants();
  check_divf();
  validate<double>(quick);
  validate<float>(quick);

  const double bw = copy_bandwidth();
  std::printf("\n== timing: full RK3 step (3 substeps), median of %d; d2d copy %.0f GB/s "
              "(read+write); floor = 576 (f64) / 288 (f32) B/cell/step at that rate\n",
              reps, bw);
  for (int n : sizes) {
    time_size<double>(n, bw, reps, thin && n == 256);
    time_size<float>(n, bw, reps, thin && n == 256);
  }

  std::printf("\n== summary (Astaroth's public code: 14.9 ms/step at 256^3 on an H100, double; "
              "floor there 3.2 ms)\n");
  std::printf("  %-6s %-20s %10s %10s %10s %8s\n", "size", "kernel", "ms/step", "ns/cell",
              "floor ms", "x floor");
  for (const timing_row &r : g_rows)
    std::printf("  %-6d %-20s %10.3f %10.3f %10.3f %8.2f\n", r.n, r.kernel.c_str(), r.ms,
                r.ms * 1e6 / ((double)r.n * r.n * r.n), r.floor_ms, r.ms / r.floor_ms);
  std::printf("\ncorrectness: %s (%d failure(s); pass = every cell within 2 ULP of its own "
              "precision and nothing outside the region written\n",
              g_failures ? "see FAIL lines" : "PASS", g_failures);
  return 0;
}

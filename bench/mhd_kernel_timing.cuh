/* mhd_kernel_timing.cuh — timing: medians of CUDA-event timed RK3 steps against the copy
 * bandwidth measured here, one row per size and kernel, and the kernels' resources.
 * Part of mhd_kernel_bench.cu (one translation unit: included there, after what it uses). */

template <class F> static void median_ms(F f, int reps, double *med, double *lo) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 2; i++)
    f();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < reps; i++) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  *med = t[t.size() / 2];
  *lo = t[0];
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
}

static double copy_bandwidth() {
  const size_t bytes = (size_t)1 << 30;
  void *x, *y;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  CHECK(cudaMemset(x, 1, bytes));
  double med, lo;
  median_ms([&] { CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice)); }, 20, &med, &lo);
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  return 2.0 * (double)bytes / (med * 1e-3) / 1e9;
}

template <class T> static void time_boxes(timed_case<T> &c, int reps);

struct timing_row {
  int n;
  std::string kernel;
  double ms, ms_min, floor_ms;
};
static std::vector<timing_row> g_rows;

template <class T> static void time_size(int n, double bw, int reps, bool thin) {
  timed_case<T> c(n);
  const tile &t = c.t;
  const double *h = c.h;
  tess_mhd_params &p = c.p;
  T *din = c.in, *dout = c.out;
  const double bpc = prec<T>::bytes_per_cell;
  const double cells = (double)n * n * n, floor_ms = bpc * cells / (bw * 1e9) * 1e3;
  std::vector<variant> vs = {G::KIND_AUTO, G::KIND_TILED_WHOLE, G::KIND_TILED16, G::KIND_GENERIC};
  if (sizeof(T) == 4) vs.insert(vs.begin() + 1, G::KIND_TILED32X8);
  for (const variant &v : vs) {
    if (g_auto_only && v != G::KIND_AUTO && v != G::KIND_TILED32X8 && v != G::KIND_TILED_WHOLE)
      continue;
    T *cur = din, *prev = dout;
    auto step = [&] {
      for (int k = 0; k < 3; k++) {
        p.substep = k;
        tess_region r = make_region(t, t.lo, t.hi, h, &p, (const T *)cur, prev);
        r.wrap = g_wrap;
        G::launch<T>(&r, nullptr, v);
        std::swap(cur, prev);
      }
    };
    double med, lo;
    median_ms(step, reps, &med, &lo);
    g_rows.push_back({n, kind_name<T>(v), med, lo, floor_ms});
    std::printf("  %4d^3 %-20s %9.3f ms/step (min %8.3f)  %7.3f ns/cell/step  %6.0f GB/s eff  "
                "%5.2fx floor\n",
                n, kind_name<T>(v), med, lo, med * 1e6 / cells, bpc * cells / (med * 1e-3) / 1e9,
                med / floor_ms);
    std::fflush(stdout);
  }
  if (thin) time_boxes(c, reps);
}

/* The outer segments of an overlapped run on case c's tile, 3 cells thin across each axis (the
 * whole tile along the others): one substep each, every kernel kind. */
template <class T> static void time_boxes(timed_case<T> &c, int reps) {
  const tile &t = c.t;
  const int *e = t.hi;
  const int boxes[3][6] = {
      {3, 6, 3, e[1], 3, e[2]}, {3, e[0], 3, 6, 3, e[2]}, {3, e[0], 3, e[1], 3, 6}};
  const char *bn[3] = {"x-thin", "y-thin", "z-thin"};
  c.p.substep = 1;
  for (int i = 0; i < 3; i++) {
    const int lo[3] = {boxes[i][0], boxes[i][2], boxes[i][4]},
              hi[3] = {boxes[i][1], boxes[i][3], boxes[i][5]};
    const double bc = (double)(hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    for (int kind : {(int)G::KIND_AUTO, (int)G::KIND_TILED, (int)G::KIND_GENERIC}) {
      tess_region r = make_region(t, lo, hi, c.h, &c.p, (const T *)c.in, c.out);
      double med, lo_ms;
      median_ms([&] { G::launch<T>(&r, nullptr, kind); }, reps, &med, &lo_ms);
      std::printf("  tile %dx%dx%d %-7s %dx%dx%d %-16s %8.1f us/substep  %7.3f ns/cell/substep\n",
                  e[0] - 3, e[1] - 3, e[2] - 3, bn[i], hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2],
                  kind_name<T>(kind), med * 1e3, med * 1e6 / bc);
    }
  }
}

template <class T> static void time_thin(const int n[3], int reps) {
  timed_case<T> c(n[0], n[1], n[2]);
  time_boxes(c, reps);
}

static void print_kernel_resources() {
  struct {
    const void *f;
    const char *name;
    size_t dyn;
  } ks[] = {
      {(const void *)G::mhd_tiled_kernel<32, 8, double>, "f64 tiled32x8",
       G::tile_geom<32, 8, double>::SMEM},
      {(const void *)G::mhd_tiled_kernel<16, 16, double>, "f64 tiled16x16",
       G::tile_geom<16, 16, double>::SMEM},
      {(const void *)G::mhd_generic_kernel<double>, "f64 generic", 0},
      {(const void *)G::mhd_tiled_kernel<32, 16, float>, "f32 tiled32x16",
       G::tile_geom<32, 16, float>::SMEM},
      {(const void *)G::mhd_tiled_tma_kernel<32, 16, float, 0, false>, "f32 tma32x16 X%4=0",
       G::tile_geom<32, 16, float, 0>::SMEM},
      {(const void *)G::mhd_tiled_tma_kernel<32, 16, float, 2, false>, "f32 tma32x16 X%4=2",
       G::tile_geom<32, 16, float, 2>::SMEM},
      {(const void *)G::mhd_tiled_kernel<32, 8, float>, "f32 tiled32x8",
       G::tile_geom<32, 8, float>::SMEM},
      {(const void *)G::mhd_tiled_kernel<16, 16, float>, "f32 tiled16x16",
       G::tile_geom<16, 16, float>::SMEM},
      {(const void *)G::mhd_generic_kernel<float>, "f32 generic", 0},
  };
  std::printf("\n== kernel resources (cudaFuncGetAttributes)\n");
  for (auto &k : ks) {
    if (k.dyn)
      CHECK(cudaFuncSetAttribute(k.f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)k.dyn));
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, k.f));
    int per_sm = 0;
    const int threads = std::strstr(k.name, "32x16") ? 512 : k.dyn ? 256 : 128;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k.f, threads, k.dyn));
    std::printf("  %-18s regs %3d  local(stack/spill) %4zu B  static smem %5zu B  dynamic smem "
                "%6zu B  blocks/SM %d x %d threads\n",
                k.name, a.numRegs, a.localSizeBytes, a.sharedSizeBytes, k.dyn, per_sm, threads);
  }
}

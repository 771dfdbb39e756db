/* mhd_kernel_math.cuh — the device's exp and expf (table-driven) and the float division
 * by constants, checked against the host's.
 * Part of mhd_kernel_bench.cu (one translation unit: included there, after what it uses). */

__global__ void exp_kernel(const double *x, double *y, int n) {
  __shared__ unsigned long long tab[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    tab[i] = G::tess_mhd_exp_tab_dev[i];
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = G::tess_mhd_exp(x[i], tab);
}

__global__ void expf_kernel(const float *x, float *y, int n) {
  __shared__ unsigned long long tab[32];
  for (int i = threadIdx.x; i < 32; i += blockDim.x)
    tab[i] = G::tess_mhd_expf_tab_dev[i];
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = G::tess_mhd_expf(x[i], tab);
}

static void check_exp(bool gpu) {
  const int n = 4000000;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; i++)
    x[i] = -4.0 + 8.0 * (double)(splitmix(i) >> 11) * 0x1p-53;
  long long host_bad = 0;
  for (int i = 0; i < n; i++)
    host_bad += G::tess_mhd_exp(x[i], host_tab) != std::exp(x[i]);
  std::printf(
      "exp: the kernel's exp (host build) vs this host's libm exp: %lld of %d differ%s\n", host_bad,
      n, host_bad ? "  <-- this libm is not glibc >= 2.28 with FMA: expect a few ULP diffs" : "");

  /* expf: every 256th float bit pattern (all binades, both signs, inf and nan included) */
  const int nf = 1 << 24;
  std::vector<float> xf(nf), yf(nf);
  for (int i = 0; i < nf; i++) {
    const uint32_t b = (uint32_t)i << 8 | (uint32_t)(splitmix(i) & 0xff);
    std::memcpy(&xf[i], &b, sizeof b);
  }
  const auto same = [](float a, float b) {
    return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b));
  };
  long long host_bad_f = 0;
  for (int i = 0; i < nf; i++)
    host_bad_f += !same(G::tess_mhd_expf(xf[i], host_tabf), std::exp(xf[i]));
  std::printf(
      "expf: the kernel's expf (host build) vs this host's libm expf: %lld of %d differ%s\n",
      host_bad_f, nf,
      host_bad_f ? "  <-- this libm is not glibc >= 2.27 with FMA: expect 1-ULP diffs" : "");
  if (!gpu) return;

  double *dx, *dy;
  CHECK(cudaMalloc(&dx, n * 8));
  CHECK(cudaMalloc(&dy, n * 8));
  CHECK(cudaMemcpy(dx, x.data(), n * 8, cudaMemcpyHostToDevice));
  exp_kernel<<<(n + 255) / 256, 256>>>(dx, dy, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(y.data(), dy, n * 8, cudaMemcpyDeviceToHost));
  long long dev_bad = 0;
  for (int i = 0; i < n; i++)
    dev_bad += y[i] != std::exp(x[i]);
  std::printf("exp: the kernel's exp on the GPU vs libm exp: %lld of %d differ\n", dev_bad, n);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));

  float *fx, *fy;
  CHECK(cudaMalloc(&fx, nf * sizeof(float)));
  CHECK(cudaMalloc(&fy, nf * sizeof(float)));
  CHECK(cudaMemcpy(fx, xf.data(), nf * sizeof(float), cudaMemcpyHostToDevice));
  expf_kernel<<<(nf + 255) / 256, 256>>>(fx, fy, nf);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(yf.data(), fy, nf * sizeof(float), cudaMemcpyDeviceToHost));
  long long dev_bad_f = 0;
  for (int i = 0; i < nf; i++)
    dev_bad_f += !same(yf[i], std::exp(xf[i]));
  std::printf("expf: the kernel's expf on the GPU vs libm expf: %lld of %d differ\n", dev_bad_f,
              nf);
  CHECK(cudaFree(fx));
  CHECK(cudaFree(fy));
}

/* The float kernel's x / c (tess_mhd_divc_f32: on the device x (1/c) in double, rounded once)
 * against IEEE division, for every float bit pattern x; c, 1/c and the double reciprocal as
 * tess_mhd_coef_make makes them for mu0 and cp. Any difference is a failure: the GPU would
 * differ from the CPU, which divides. */
__global__ void divf_kernel(float c, float cinv, double rcp, int pow2, unsigned long long *bad) {
  unsigned long long n = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       i < (1ull << 32); i += (unsigned long long)gridDim.x * blockDim.x) {
    const float x = __uint_as_float((unsigned)i);
    const float q = G::tess_mhd_divc_f32(x, c, cinv, rcp, pow2), r = __fdiv_rn(x, c);
    n += __float_as_uint(q) != __float_as_uint(r) && !(isnan(q) && isnan(r));
  }
  atomicAdd(bad, n);
}

static const double divf_divisors[] = {
    1.4, 1.7, 1.0 / 3.0, 0.7, 3.0, 1e-3, 12345.678, 1.0, 2.0, 0.5}; /* the last three: cp_pow2 */

/* The float constants of a region whose mu0 and cp are d (as the kernels' host side makes them). */
static G::pass<float>::coef divf_coef(double d) {
  tess_mhd_params mp = TESS_MHD_PARAMS_DEFAULT;
  mp.mu0 = mp.cp = d;
  tess_region r;
  std::memset(&r, 0, sizeof r);
  r.params = &mp;
  for (int a = 0; a < 3; a++) {
    r.dim[a] = 8;
    r.h[a] = 1.0;
    r.global[a] = 2;
  }
  G::pass<float>::coef c;
  G::tess_mhd_coef_make(&r, &c);
  return c;
}

/* Host: the double reciprocals of the float divisors are those of the rounded divisors (GCC
 * 12.2 at -O2/-O3 once made them 1 / mu0 of the unrounded double; see tess_mhd_coef_make). */
static void check_divf_constants() {
  int bad = 0;
  for (double d : divf_divisors) {
    const G::pass<float>::coef c = divf_coef(d);
    volatile float mu0 = c.mu0, cp = c.cp;
    bad += c.mu0_rcp != 1.0 / (double)mu0 || c.cp_rcp != 1.0 / (double)cp;
  }
  std::printf("divf constants: 1 / (double) of the rounded mu0, cp in %d of %d regions  %s\n",
              (int)(sizeof divf_divisors / sizeof *divf_divisors) - bad,
              (int)(sizeof divf_divisors / sizeof *divf_divisors), bad ? "FAIL" : "PASS");
  if (bad) g_failures++;
}

static void check_divf() {
  unsigned long long *bad;
  CHECK(cudaMalloc(&bad, sizeof *bad));
  for (double d : divf_divisors) {
    const G::pass<float>::coef c = divf_coef(d);
    unsigned long long n[2];
    for (int k = 0; k < 2; k++) {
      CHECK(cudaMemset(bad, 0, sizeof *bad));
      if (k == 0)
        divf_kernel<<<132 * 16, 256>>>(c.mu0, c.mu0_inv, c.mu0_rcp, 0, bad);
      else
        divf_kernel<<<132 * 16, 256>>>(c.cp, c.cp_inv, c.cp_rcp, c.cp_pow2, bad);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(&n[k], bad, sizeof *bad, cudaMemcpyDeviceToHost));
    }
    const bool pass = n[0] == 0 && n[1] == 0;
    std::printf("divf: x / %a (mu0, cp = %g%s) on the GPU vs IEEE division, every float x: %llu / "
                "%llu differ  %s\n",
                (double)c.mu0, d, c.cp_pow2 ? ", a power of 2" : "", n[0], n[1],
                pass ? "PASS" : "FAIL");
    if (!pass) g_failures++;
  }
  CHECK(cudaFree(bad));
}

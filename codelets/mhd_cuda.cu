/* mhd_cuda.cu — the MHD RK3 substep (mhd.h) on the GPU: what tess_mhd_rk3_cpu computes, cell
 * for cell, in one pass over the region per substep; and what tess_mhd_rk3_cpu_f32 computes,
 * in single precision, from the same templates (element type T = double or float).
 *
 * Arithmetic: the CPU reference's own, operation for operation. Every add, multiply and
 * subtract of the stencils, the right-hand side and the RK3 combination goes through
 * num<T, true>, whose operators are __dadd_rn / __dsub_rn / __dmul_rn (T = double) or
 * __fadd_rn / __fsub_rn / __fmul_rn (T = float), never contracted into FMAs, in the
 * evaluation order of mhd.c / mhd.h; the constants are the same expressions, computed in
 * double and, for float, rounded once, as the CPU does. What the CPU does with library calls
 * is matched too:
 *   exp     glibc's exp (2.28 and later, the x86-64 FMA variant that glibc picks on any CPU with
 *           FMA): the same table, polynomial and FMA pattern, ported below (tess_mhd_exp).
 *           Measured bitwise equal to glibc 2.36's exp on 8e7 random arguments. CUDA's own exp
 *           differs from glibc's in ~6% of calls by 1 ulp, and since dt F is ~1e-3 of a value,
 *           a result near 0 turns that into hundreds of its own ULPs (seen on the CPU: 5 cells
 *           of a 64^3 step beyond 2 ULP with CUDA's exp, none with this one).
 *   expf    (float) glibc's expf (2.27 and later, again its x86-64 FMA variant): evaluated in
 *           double with a 32-entry table, ported below (tess_mhd_expf). Its host build is
 *           bitwise glibc 2.36's expf on all 2^32 floats (checked exhaustively once), and on an
 *           H100 bitwise glibc 2.39's on the benchmark's 2^24 samples. CUDA's expf is within
 *           2 ulp and not glibc's; a result near 0 would turn that into many of its ULPs.
 *   x / c   for the uniform divisors cp, mu0 and the global x extent: in double, q = x (1/c),
 *           then one Markstein correction with FMAs, which gives the correctly rounded
 *           quotient (= the CPU's division) for normal operands; in float, __fdiv_rn (IEEE
 *           division, cheap enough in float); for c a power of 2, x (1/c) in both.
 *   1 / v   __drcp_rn / __frcp_rn: correctly rounded, as the CPU's division.
 *   sin     (forcing only; computed in double in both precisions, as on the CPU) CUDA's sin:
 *           may differ from glibc's by 1 ulp of the force, which moves a double result by
 *           ~1e-23 (invisible except for results within ~1e-8 of 0) and a float result only
 *           when the force rounds to float on the other side of a tie (~2^-29 of cells).
 * So the GPU result is expected to be bitwise the CPU's, in double and in float (modulo sin);
 * bench/mhd_kernel_bench.cu measured it so for every exact variant, forcing on too (H100).
 * num<T, false> is the same code with plain operators, which nvcc contracts into FMAs: ~20%
 * fewer FP64 instructions but tens to thousands of ULPs on cells near 0 (digest eq. 16), so it
 * is only built for the benchmark (TESS_MHD_CUDA_ALL_VARIANTS).
 *
 * Kernels:
 *   tiled    (3D regions with n0 >= 16 and n1 >= 4): one block of 32 x 8 threads per (x, y)
 *            tile, one cell per thread, marching along z through a chunk of the region. Shared
 *            memory holds a ring of 8 planes (7 in use + 1 loading) of ux, uy, uz, ax, ay, az,
 *            each full with halo and corners (the ring's plane z is also the centre plane), and
 *            two centre planes (current + loading) of lnrho and ss. lnrho and ss are needed
 *            off-centre only at the cell itself: each thread keeps their 7 z values in
 *            registers. Planes arrive with cp.async one step ahead (element-sized copies: rows
 *            need not be 16-byte aligned; addresses formed once per row); one __syncthreads per
 *            step. Double: 218 KiB of shared memory, one block (8 warps) per SM, up to 255
 *            registers per thread. Float: the same layout in half the bytes (108 KiB, the exp
 *            table shrinks to 32 words), so the kernel asks for two blocks per SM
 *            (__launch_bounds__(256, 2): at most 128 registers per thread, no spills) and one
 *            block's plane loads and start-up hide behind the other's arithmetic. H100, 256^3:
 *            8.1 ms per RK3 step in double, 4.4 in float (docs/performance.md, issue 17). The
 *            tile stays 32 x 8 (16 x 16 is 7% slower in double, 38% in float). Region cells of
 *            partial tiles are masked; nothing outside [lo - 3, hi + 3) is read, nothing outside
 *            [lo, hi) written.
 *   generic  (any region, 2D included): one thread per cell, every stencil point loaded from
 *            global memory through L1. For thin outer segments and 2D grids.
 *
 * Launch: asynchronous on the given stream; errors of the launch go to STARPU_CUDA_REPORT_ERROR
 * (or, built with TESS_MHD_CUDA_NO_STARPU, to stderr + abort). A region that does not fit the
 * kernel (its precision included) aborts like the CPU version. Needs nvcc's C++17 (its default)
 * and sm_80 or newer (cp.async); tuned for sm_90.
 */
#ifndef TESS_HAVE_CUDA
#define TESS_HAVE_CUDA 1
#endif
#include "mhd.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TESS_MHD_CUDA_NO_STARPU
#define TESS_MHD_CUDA_REPORT(e)                                                                    \
  do {                                                                                             \
    fprintf(stderr, "%s:%d: mhd cuda: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));           \
    abort();                                                                                       \
  } while (0)
#else
#include <starpu_cuda.h> /* STARPU_CUDA_REPORT_ERROR only; the kernel ABI itself is StarPU-free */
#define TESS_MHD_CUDA_REPORT(e) STARPU_CUDA_REPORT_ERROR(e)
#endif

namespace tess_mhd_gpu {

#define TMG_HD __host__ __device__ __forceinline__

/* ---- exactly rounded primitives (host versions for the benchmark's CPU emulation; the host
 * side must then be built with -ffp-contract=off) ------------------------------------------ */

TMG_HD double rn_add(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
TMG_HD double rn_sub(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
TMG_HD double rn_mul(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
TMG_HD double rn_fma(double a, double b, double c) {
#ifdef __CUDA_ARCH__
  return __fma_rn(a, b, c);
#else
  return fma(a, b, c);
#endif
}
TMG_HD double rn_rcp(double a) {
#ifdef __CUDA_ARCH__
  return __drcp_rn(a);
#else
  return 1.0 / a;
#endif
}
TMG_HD float rn_add(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
TMG_HD float rn_sub(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
TMG_HD float rn_mul(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
TMG_HD float rn_div(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
TMG_HD float rn_rcp(float a) {
#ifdef __CUDA_ARCH__
  return __frcp_rn(a);
#else
  return 1.0f / a;
#endif
}
TMG_HD float to_float(double d) { /* round to nearest, as the CPU's (float) d */
#ifdef __CUDA_ARCH__
  return __double2float_rn(d);
#else
  return (float)d;
#endif
}
TMG_HD double as_double(unsigned long long u) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)u);
#else
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
#endif
}
TMG_HD unsigned long long as_bits(double d) {
#ifdef __CUDA_ARCH__
  return (unsigned long long)__double_as_longlong(d);
#else
  unsigned long long u;
  memcpy(&u, &d, sizeof u);
  return u;
#endif
}
TMG_HD unsigned as_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  unsigned u;
  memcpy(&u, &f, sizeof u);
  return u;
#endif
}
TMG_HD double ldg(const double *p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}
TMG_HD float ldg(const float *p) {
#ifdef __CUDA_ARCH__
  return __ldg(p);
#else
  return *p;
#endif
}

/* A T (double or float) whose operators are the CPU's rounded operations (E = true) or plain
 * operators that the compiler may contract (E = false). No conversion back to T: every
 * run-time value of the kernel stays a num, so nothing escapes the chosen arithmetic. */
template <class T, bool E> struct num {
  T v;
  num() = default;
  TMG_HD num(T x) : v(x) {}
  friend TMG_HD num operator+(num a, num b) { return num(E ? rn_add(a.v, b.v) : a.v + b.v); }
  friend TMG_HD num operator-(num a, num b) { return num(E ? rn_sub(a.v, b.v) : a.v - b.v); }
  friend TMG_HD num operator*(num a, num b) { return num(E ? rn_mul(a.v, b.v) : a.v * b.v); }
  friend TMG_HD num operator-(num a) { return num(-a.v); }
};

/* a / b for a uniform divisor b with binv = 1 / b (correctly rounded, from the host). Double:
 * one Markstein step, which returns the correctly rounded quotient for normal operands (a
 * double division would be a long instruction sequence). Float: the IEEE division itself.
 * For b a power of 2 (pow2), the product a binv is the quotient in both. */
template <bool E>
TMG_HD num<double, E> div_by(num<double, E> a, double b, double binv, bool pow2 = false) {
  if (!E || pow2) return num<double, E>(E ? rn_mul(a.v, binv) : a.v * binv);
  const double q = rn_mul(a.v, binv);
  const double r = rn_fma(-q, b, a.v);
  return num<double, E>(rn_fma(r, binv, q));
}
template <bool E>
TMG_HD num<float, E> div_by(num<float, E> a, float b, float binv, bool pow2 = false) {
  if (pow2) return num<float, E>(E ? rn_mul(a.v, binv) : a.v * binv);
  return num<float, E>(E ? rn_div(a.v, b) : a.v / b);
}

/* ---- glibc's exp (sysdeps/ieee754/dbl-64/e_exp.c, from Arm's optimized-routines; MIT) --------
 * The x86-64 FMA variant: exp(x) = 2^(k/128) exp(r), table of 2^(k/128) as (tail, bits). */
#define TMG_EXP_TAB                                                                                \
  {                                                                                                \
    0x0ull, 0x3ff0000000000000ull, 0x3c9b3b4f1a88bf6eull, 0x3feff63da9fb3335ull,                   \
        0xbc7160139cd8dc5dull, 0x3fefec9a3e778061ull, 0xbc905e7a108766d1ull,                       \
        0x3fefe315e86e7f85ull, 0x3c8cd2523567f613ull, 0x3fefd9b0d3158574ull,                       \
        0xbc8bce8023f98efaull, 0x3fefd06b29ddf6deull, 0x3c60f74e61e6c861ull,                       \
        0x3fefc74518759bc8ull, 0x3c90a3e45b33d399ull, 0x3fefbe3ecac6f383ull,                       \
        0x3c979aa65d837b6dull, 0x3fefb5586cf9890full, 0x3c8eb51a92fdeffcull,                       \
        0x3fefac922b7247f7ull, 0x3c3ebe3d702f9cd1ull, 0x3fefa3ec32d3d1a2ull,                       \
        0xbc6a033489906e0bull, 0x3fef9b66affed31bull, 0xbc9556522a2fbd0eull,                       \
        0x3fef9301d0125b51ull, 0xbc5080ef8c4eea55ull, 0x3fef8abdc06c31ccull,                       \
        0xbc91c923b9d5f416ull, 0x3fef829aaea92de0ull, 0x3c80d3e3e95c55afull,                       \
        0x3fef7a98c8a58e51ull, 0xbc801b15eaa59348ull, 0x3fef72b83c7d517bull,                       \
        0xbc8f1ff055de323dull, 0x3fef6af9388c8deaull, 0x3c8b898c3f1353bfull,                       \
        0x3fef635beb6fcb75ull, 0xbc96d99c7611eb26ull, 0x3fef5be084045cd4ull,                       \
        0x3c9aecf73e3a2f60ull, 0x3fef54873168b9aaull, 0xbc8fe782cb86389dull,                       \
        0x3fef4d5022fcd91dull, 0x3c8a6f4144a6c38dull, 0x3fef463b88628cd6ull,                       \
        0x3c807a05b0e4047dull, 0x3fef3f49917ddc96ull, 0x3c968efde3a8a894ull,                       \
        0x3fef387a6e756238ull, 0x3c875e18f274487dull, 0x3fef31ce4fb2a63full,                       \
        0x3c80472b981fe7f2ull, 0x3fef2b4565e27cddull, 0xbc96b87b3f71085eull,                       \
        0x3fef24dfe1f56381ull, 0x3c82f7e16d09ab31ull, 0x3fef1e9df51fdee1ull,                       \
        0xbc3d219b1a6fbffaull, 0x3fef187fd0dad990ull, 0x3c8b3782720c0ab4ull,                       \
        0x3fef1285a6e4030bull, 0x3c6e149289cecb8full, 0x3fef0cafa93e2f56ull,                       \
        0x3c834d754db0abb6ull, 0x3fef06fe0a31b715ull, 0x3c864201e2ac744cull,                       \
        0x3fef0170fc4cd831ull, 0x3c8fdd395dd3f84aull, 0x3feefc08b26416ffull,                       \
        0xbc86a3803b8e5b04ull, 0x3feef6c55f929ff1ull, 0xbc924aedcc4b5068ull,                       \
        0x3feef1a7373aa9cbull, 0xbc9907f81b512d8eull, 0x3feeecae6d05d866ull,                       \
        0xbc71d1e83e9436d2ull, 0x3feee7db34e59ff7ull, 0xbc991919b3ce1b15ull,                       \
        0x3feee32dc313a8e5ull, 0x3c859f48a72a4c6dull, 0x3feedea64c123422ull,                       \
        0xbc9312607a28698aull, 0x3feeda4504ac801cull, 0xbc58a78f4817895bull,                       \
        0x3feed60a21f72e2aull, 0xbc7c2c9b67499a1bull, 0x3feed1f5d950a897ull,                       \
        0x3c4363ed60c2ac11ull, 0x3feece086061892dull, 0x3c9666093b0664efull,                       \
        0x3feeca41ed1d0057ull, 0x3c6ecce1daa10379ull, 0x3feec6a2b5c13cd0ull,                       \
        0x3c93ff8e3f0f1230ull, 0x3feec32af0d7d3deull, 0x3c7690cebb7aafb0ull,                       \
        0x3feebfdad5362a27ull, 0x3c931dbdeb54e077ull, 0x3feebcb299fddd0dull,                       \
        0xbc8f94340071a38eull, 0x3feeb9b2769d2ca7ull, 0xbc87deccdc93a349ull,                       \
        0x3feeb6daa2cf6642ull, 0xbc78dec6bd0f385full, 0x3feeb42b569d4f82ull,                       \
        0xbc861246ec7b5cf6ull, 0x3feeb1a4ca5d920full, 0x3c93350518fdd78eull,                       \
        0x3feeaf4736b527daull, 0x3c7b98b72f8a9b05ull, 0x3feead12d497c7fdull,                       \
        0x3c9063e1e21c5409ull, 0x3feeab07dd485429ull, 0x3c34c7855019c6eaull,                       \
        0x3feea9268a5946b7ull, 0x3c9432e62b64c035ull, 0x3feea76f15ad2148ull,                       \
        0xbc8ce44a6199769full, 0x3feea5e1b976dc09ull, 0xbc8c33c53bef4da8ull,                       \
        0x3feea47eb03a5585ull, 0xbc845378892be9aeull, 0x3feea34634ccc320ull,                       \
        0xbc93cedd78565858ull, 0x3feea23882552225ull, 0x3c5710aa807e1964ull,                       \
        0x3feea155d44ca973ull, 0xbc93b3efbf5e2228ull, 0x3feea09e667f3bcdull,                       \
        0xbc6a12ad8734b982ull, 0x3feea012750bdabfull, 0xbc6367efb86da9eeull,                       \
        0x3fee9fb23c651a2full, 0xbc80dc3d54e08851ull, 0x3fee9f7df9519484ull,                       \
        0xbc781f647e5a3ecfull, 0x3fee9f75e8ec5f74ull, 0xbc86ee4ac08b7db0ull,                       \
        0x3fee9f9a48a58174ull, 0xbc8619321e55e68aull, 0x3fee9feb564267c9ull,                       \
        0x3c909ccb5e09d4d3ull, 0x3feea0694fde5d3full, 0xbc7b32dcb94da51dull,                       \
        0x3feea11473eb0187ull, 0x3c94ecfd5467c06bull, 0x3feea1ed0130c132ull,                       \
        0x3c65ebe1abd66c55ull, 0x3feea2f336cf4e62ull, 0xbc88a1c52fb3cf42ull,                       \
        0x3feea427543e1a12ull, 0xbc9369b6f13b3734ull, 0x3feea589994cce13ull,                       \
        0xbc805e843a19ff1eull, 0x3feea71a4623c7adull, 0xbc94d450d872576eull,                       \
        0x3feea8d99b4492edull, 0x3c90ad675b0e8a00ull, 0x3feeaac7d98a6699ull,                       \
        0x3c8db72fc1f0eab4ull, 0x3feeace5422aa0dbull, 0xbc65b6609cc5e7ffull,                       \
        0x3feeaf3216b5448cull, 0x3c7bf68359f35f44ull, 0x3feeb1ae99157736ull,                       \
        0xbc93091fa71e3d83ull, 0x3feeb45b0b91ffc6ull, 0xbc5da9b88b6c1e29ull,                       \
        0x3feeb737b0cdc5e5ull, 0xbc6c23f97c90b959ull, 0x3feeba44cbc8520full,                       \
        0xbc92434322f4f9aaull, 0x3feebd829fde4e50ull, 0xbc85ca6cd7668e4bull,                       \
        0x3feec0f170ca07baull, 0x3c71affc2b91ce27ull, 0x3feec49182a3f090ull,                       \
        0x3c6dd235e10a73bbull, 0x3feec86319e32323ull, 0xbc87c50422622263ull,                       \
        0x3feecc667b5de565ull, 0x3c8b1c86e3e231d5ull, 0x3feed09bec4a2d33ull,                       \
        0xbc91bbd1d3bcbb15ull, 0x3feed503b23e255dull, 0x3c90cc319cee31d2ull,                       \
        0x3feed99e1330b358ull, 0x3c8469846e735ab3ull, 0x3feede6b5579fdbfull,                       \
        0xbc82dfcd978e9db4ull, 0x3feee36bbfd3f37aull, 0x3c8c1a7792cb3387ull,                       \
        0x3feee89f995ad3adull, 0xbc907b8f4ad1d9faull, 0x3feeee07298db666ull,                       \
        0xbc55c3d956dcaebaull, 0x3feef3a2b84f15fbull, 0xbc90a40e3da6f640ull,                       \
        0x3feef9728de5593aull, 0xbc68d6f438ad9334ull, 0x3feeff76f2fb5e47ull,                       \
        0xbc91eee26b588a35ull, 0x3fef05b030a1064aull, 0x3c74ffd70a5fddcdull,                       \
        0x3fef0c1e904bc1d2ull, 0xbc91bdfbfa9298acull, 0x3fef12c25bd71e09ull,                       \
        0x3c736eae30af0cb3ull, 0x3fef199bdd85529cull, 0x3c8ee3325c9ffd94ull,                       \
        0x3fef20ab5fffd07aull, 0x3c84e08fd10959acull, 0x3fef27f12e57d14bull,                       \
        0x3c63cdaf384e1a67ull, 0x3fef2f6d9406e7b5ull, 0x3c676b2c6c921968ull,                       \
        0x3fef3720dcef9069ull, 0xbc808a1883ccb5d2ull, 0x3fef3f0b555dc3faull,                       \
        0xbc8fad5d3ffffa6full, 0x3fef472d4a07897cull, 0xbc900dae3875a949ull,                       \
        0x3fef4f87080d89f2ull, 0x3c74a385a63d07a7ull, 0x3fef5818dcfba487ull,                       \
        0xbc82919e2040220full, 0x3fef60e316c98398ull, 0x3c8e5a50d5c192acull,                       \
        0x3fef69e603db3285ull, 0x3c843a59ac016b4bull, 0x3fef7321f301b460ull,                       \
        0xbc82d52107b43e1full, 0x3fef7c97337b9b5full, 0xbc892ab93b470dc9ull,                       \
        0x3fef864614f5a129ull, 0x3c74b604603a88d3ull, 0x3fef902ee78b3ff6ull,                       \
        0x3c83c5ec519d7271ull, 0x3fef9a51fbc74c83ull, 0xbc8ff7128fd391f0ull,                       \
        0x3fefa4afa2a490daull, 0xbc8dae98e223747dull, 0x3fefaf482d8e67f1ull,                       \
        0x3c8ec3bc41aa2008ull, 0x3fefba1bee615a27ull, 0x3c842b94c3a9eb32ull,                       \
        0x3fefc52b376bba97ull, 0x3c8a64a931d185eeull, 0x3fefd0765b6e4540ull,                       \
        0xbc8e37bae43be3edull, 0x3fefdbfdad9cbe14ull, 0x3c77893b4d91cd9dull,                       \
        0x3fefe7c1819e90d8ull, 0x3c5305c14160cc89ull, 0x3feff3c22b8f71f1ull                        \
  }

__constant__ unsigned long long exp_tab_dev[256] = TMG_EXP_TAB;

/* exp's and expf's constants that are no FP64 immediates: from the constant bank on the device
 * (see w_d below), literals on the host. */
#define TMG_EXPC(F)                                                                                \
  F(0x1.71547652b82fep0 * 128), F(-0x1.62e42fefa0000p-8), F(-0x1.cf79abc9e3b3ap-47),               \
      F(0x1.ffffffffffdbdp-2), F(0x1.555555555543cp-3), F(0x1.55555cf172b91p-5),                   \
      F(0x1.1111167a4d017p-7), F(0x1.71547652b82fep0 * 32),                                        \
      F(0x1.c6af84b912394p-5 / 32 / 32 / 32), F(0x1.ebfce50fac4f3p-3 / 32 / 32),                   \
      F(0x1.62e42ff0c52d6p-1 / 32)
enum { eINV_LN2N, eNLN2HI, eNLN2LO, eC2, eC3, eC4, eC5, fINV_LN2N, fC0, fC1, fC2, eNC };
#define TMG_SAME(x) (x)
__constant__ double expc_d[eNC] = {TMG_EXPC(TMG_SAME)};
template <int I> TMG_HD double expc() {
#ifdef __CUDA_ARCH__
  return expc_d[I];
#else
  constexpr double c[eNC] = {TMG_EXPC(TMG_SAME)};
  return c[I];
#endif
}

/* tab: the 256 words above (shared memory on the device). */
TMG_HD double tess_mhd_exp(double x, const unsigned long long *tab) {
  const double inv_ln2_n = expc<eINV_LN2N>(), shift = 0x1.8p52;
  const double neg_ln2_hi_n = expc<eNLN2HI>(), neg_ln2_lo_n = expc<eNLN2LO>();
  const double c2 = expc<eC2>(), c3 = expc<eC3>(), c4 = expc<eC4>(), c5 = expc<eC5>();
  const unsigned abstop = (unsigned)(as_bits(x) >> 52) & 0x7ffu;
  if (abstop - 0x3c9u >= 0x408u - 0x3c9u) { /* |x| < 2^-54 or |x| >= 512, inf, nan */
    if (abstop - 0x3c9u >= 0x80000000u) return rn_add(1.0, x); /* tiny: glibc's 1 + x */
    return exp(x); /* over/underflow range: never met by this kernel's arguments */
  }
  double kd = rn_fma(inv_ln2_n, x, shift);
  const unsigned long long ki = as_bits(kd);
  kd = rn_sub(kd, shift);
  const double r = rn_fma(kd, neg_ln2_lo_n, rn_fma(kd, neg_ln2_hi_n, x));
  const unsigned idx = 2u * (unsigned)(ki & 127u);
  const double tail = as_double(tab[idx]);
  const double scale = as_double(tab[idx + 1] + (ki << 45));
  const double r2 = rn_mul(r, r);
  const double tmp =
      rn_fma(rn_mul(r2, r2), rn_fma(r, c5, c4), rn_fma(r2, rn_fma(r, c3, c2), rn_add(tail, r)));
  return rn_fma(scale, tmp, scale);
}
/* ---- glibc's expf (sysdeps/ieee754/flt-32/e_expf.c and e_exp2f_data.c, from Arm's
 * optimized-routines; MIT) ---------------------------------------------------------------------
 * In double: x 32/ln2 = k + r, expf(x) = 2^(k/32) 2^(r/32), 2^(r/32) by a cubic. Table:
 * bits(2^(i/32)) - (i << 47) (every 4th "bits" word of TMG_EXP_TAB). The FMA pattern is that of
 * glibc 2.36's x86-64 FMA variant (__expf_fma, read from its machine code): kd and r are each
 * one FMA of x 32/ln2 (so r is not z - kd of a rounded z), and the cubic is three FMAs. */
#define TMG_EXPF_TAB                                                                               \
  {                                                                                                \
    0x3ff0000000000000ull, 0x3fefd9b0d3158574ull, 0x3fefb5586cf9890full, 0x3fef9301d0125b51ull,    \
        0x3fef72b83c7d517bull, 0x3fef54873168b9aaull, 0x3fef387a6e756238ull,                       \
        0x3fef1e9df51fdee1ull, 0x3fef06fe0a31b715ull, 0x3feef1a7373aa9cbull,                       \
        0x3feedea64c123422ull, 0x3feece086061892dull, 0x3feebfdad5362a27ull,                       \
        0x3feeb42b569d4f82ull, 0x3feeab07dd485429ull, 0x3feea47eb03a5585ull,                       \
        0x3feea09e667f3bcdull, 0x3fee9f75e8ec5f74ull, 0x3feea11473eb0187ull,                       \
        0x3feea589994cce13ull, 0x3feeace5422aa0dbull, 0x3feeb737b0cdc5e5ull,                       \
        0x3feec49182a3f090ull, 0x3feed503b23e255dull, 0x3feee89f995ad3adull,                       \
        0x3feeff76f2fb5e47ull, 0x3fef199bdd85529cull, 0x3fef3720dcef9069ull,                       \
        0x3fef5818dcfba487ull, 0x3fef7c97337b9b5full, 0x3fefa4afa2a490daull, 0x3fefd0765b6e4540ull \
  }

__constant__ unsigned long long expf_tab_dev[32] = TMG_EXPF_TAB;

/* tab: the 32 words above (shared memory on the device). */
TMG_HD float tess_mhd_expf(float x, const unsigned long long *tab) {
  const double inv_ln2_n = expc<fINV_LN2N>(), shift = 0x1.8p52;
  const double c0 = expc<fC0>(), c1 = expc<fC1>(), c2 = expc<fC2>();
  const unsigned abstop = (as_bits(x) >> 20) & 0x7ffu;
  if (abstop >= 0x42bu) {                       /* |x| >= 88, inf, nan: glibc's branches */
    if (as_bits(x) == 0xff800000u) return 0.0f; /* -inf */
    if (abstop >= 0x7f8u) return x + x;         /* inf, nan */
    if (x > 0x1.62e42ep6f) return INFINITY;     /* overflow */
    if (x < -0x1.9fe368p6f) return 0.0f;        /* underflow */
  }                                             /* else: the general path, as glibc */
  const double xd = (double)x;
  const double kd0 = rn_fma(inv_ln2_n, xd, shift);
  const unsigned long long ki = as_bits(kd0);
  const double kd = rn_sub(kd0, shift);
  const double r = rn_fma(inv_ln2_n, xd, -kd);
  const double s = as_double(tab[ki & 31u] + (ki << 47));
  const double z = rn_fma(r, c0, c1);
  const double r2 = rn_mul(r, r);
  const double y = rn_fma(z, r2, rn_fma(r, c2, 1.0));
  return to_float(rn_mul(y, s));
}

/* exp in the kernel's precision; tab: that precision's table. */
TMG_HD double exp_rn(double x, const unsigned long long *tab) { return tess_mhd_exp(x, tab); }
TMG_HD float exp_rn(float x, const unsigned long long *tab) { return tess_mhd_expf(x, tab); }

/* Words of the exp table of each precision, and word i of it (device). */
template <class T> __host__ __device__ constexpr int exp_words() {
  return sizeof(T) == sizeof(double) ? 256 : 32;
}
template <class T> __device__ __forceinline__ unsigned long long exp_word(int i) {
  if constexpr (sizeof(T) == sizeof(double))
    return exp_tab_dev[i];
  else
    return expf_tab_dev[i];
}

/* ---- what the kernels receive (by value) ------------------------------------------------- */

/* T: the element type. Every number the arithmetic uses is a T, rounded once from the double
 * the CPU version computes it as; the forcing's numbers stay double (the force is computed in
 * double in both precisions, then rounded). */
template <class T> struct kparams {
  const T *in;
  T *out;
  long long X;      /* dim[0]: element distance between components */
  long long sy, sz; /* element distance to the next cell along y and z */
  int lo[3], hi[3];
  int act[3];              /* axis active (extent > 1) */
  T ih[3], ih2[3], ihh[3]; /* 1/h, 1/h^2, 1/(h_a h_b) for xy, xz, yz: as mhd.c */
  T nu, zeta, eta, mu0, mu0_inv, cp, cp_inv, gamma, gm1, lnT0, lnrho0, K, heating;
  int cp_pow2; /* cp is a power of 2: x / cp == x * (1 / cp) exactly */
  T cs0sq, eta_mu0, bext[3];
  int has_force;
  double force_amp, two_pi, global0_d, global0_inv;
  long long force_k, origin0, global0;
  int substep;
  T dt, beta, ab;     /* beta_k and alpha_k / beta_(k-1) */
  int ntx, nty, zlen; /* tiled kernel: tiles along x, y; z chunk length */
};

/* ---- the stencils, in mhd.h's evaluation order ------------------------------------------- */

/* The weights and the rate-of-strain thirds as double expressions; each is rounded to float once
 * for the float kernels, as mhd.h's float twins. On the device they come from the constant bank
 * (w_d, w_f): an FP64 instruction takes a constant-bank operand, while a literal that is no
 * immediate costs two uniform-register moves at each use (~115 instructions a cell in SASS). */
#define TMG_WEIGHTS(F)                                                                             \
  F(3.0 / 4.0), F(-3.0 / 20.0), F(1.0 / 60.0), F(-49.0 / 18.0), F(3.0 / 2.0), F(-3.0 / 20.0),      \
      F(1.0 / 90.0), F(270.0 / 720.0), F(-27.0 / 720.0), F(2.0 / 720.0), F(2.0 / 3.0),             \
      F(1.0 / 3.0)
enum { kA1, kA2, kA3, kB0, kB1, kB2, kB3, kC1, kC2, kC3, kTWO3, kONE3, kNW };
#define TMG_AS_FLOAT(x) ((float)(x))
__constant__ double w_d[kNW] = {TMG_WEIGHTS(TMG_SAME)};
__constant__ float w_f[kNW] = {TMG_WEIGHTS(TMG_AS_FLOAT)};

template <class T, int I> TMG_HD T wgt() {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == sizeof(double))
    return w_d[I];
  else
    return w_f[I];
#else
  constexpr double w[kNW] = {TMG_WEIGHTS(TMG_SAME)};
  return T(w[I]);
#endif
}

/* Accessor A: a.get<C, DX, DY, DZ>() is component C at offset (DX, DY, DZ) from the cell (a T);
 * a.active<AXIS>() says whether the axis has a stencil. */
template <int C, int AX, class T, bool E, class A> TMG_HD num<T, E> st_d1(const A &a, T ih) {
  typedef num<T, E> N;
  constexpr int x = AX == 0, y = AX == 1, z = AX == 2;
  const N p1 = a.template get<C, x, y, z>(), m1 = a.template get<C, -x, -y, -z>();
  const N p2 = a.template get<C, 2 * x, 2 * y, 2 * z>(),
          m2 = a.template get<C, -2 * x, -2 * y, -2 * z>();
  const N p3 = a.template get<C, 3 * x, 3 * y, 3 * z>(),
          m3 = a.template get<C, -3 * x, -3 * y, -3 * z>();
  return (N(wgt<T, kA1>()) * (p1 - m1) + N(wgt<T, kA2>()) * (p2 - m2) +
          N(wgt<T, kA3>()) * (p3 - m3)) *
         N(ih);
}

template <int C, int AX, class T, bool E, class A>
TMG_HD num<T, E> st_d2(const A &a, num<T, E> f0, T ih2) {
  typedef num<T, E> N;
  constexpr int x = AX == 0, y = AX == 1, z = AX == 2;
  const N p1 = a.template get<C, x, y, z>(), m1 = a.template get<C, -x, -y, -z>();
  const N p2 = a.template get<C, 2 * x, 2 * y, 2 * z>(),
          m2 = a.template get<C, -2 * x, -2 * y, -2 * z>();
  const N p3 = a.template get<C, 3 * x, 3 * y, 3 * z>(),
          m3 = a.template get<C, -3 * x, -3 * y, -3 * z>();
  return (N(wgt<T, kB0>()) * f0 + N(wgt<T, kB1>()) * (p1 + m1) + N(wgt<T, kB2>()) * (p2 + m2) +
          N(wgt<T, kB3>()) * (p3 + m3)) *
         N(ih2);
}

/* One radius of tess_mhd_dxy: (f[k p] + f[-k p]) - (f[k m] + f[-k m]), p = e_P + e_Q and
 * m = e_P - e_Q (P < Q, the strides s1, s2 of mhd.c). */
template <int C, int P, int Q, int K, class T, bool E, class A>
TMG_HD num<T, E> st_diag(const A &a) {
  typedef num<T, E> N;
  constexpr int px = (P == 0) + (Q == 0), py = (P == 1) + (Q == 1), pz = (P == 2) + (Q == 2);
  constexpr int mx = (P == 0) - (Q == 0), my = (P == 1) - (Q == 1), mz = (P == 2) - (Q == 2);
  const N fp = a.template get<C, K * px, K * py, K * pz>();
  const N fpm = a.template get<C, -K * px, -K * py, -K * pz>();
  const N fm = a.template get<C, K * mx, K * my, K * mz>();
  const N fmm = a.template get<C, -K * mx, -K * my, -K * mz>();
  return (fp + fpm) - (fm + fmm);
}

template <int C, int P, int Q, class T, bool E, class A>
TMG_HD num<T, E> st_dxy(const A &a, T ihh) {
  typedef num<T, E> N;
  return (N(wgt<T, kC1>()) * st_diag<C, P, Q, 1, T, E>(a) +
          N(wgt<T, kC2>()) * st_diag<C, P, Q, 2, T, E>(a) +
          N(wgt<T, kC3>()) * st_diag<C, P, Q, 3, T, E>(a)) *
         N(ihh);
}

/* tess_mhd_derivs of mhd.c, with the pure second derivatives summed into Laplacians (in
 * mhd.c's order) except the three that grad div needs. */
template <class T, bool E> struct derivs { num<T, E> val[8], grad[8][3], lap[8], gdu[3], gda[3]; };

/* The pure second derivative of component C along axis AX (0 on an inactive axis). */
template <int C, int AX, class T, bool E, class A>
TMG_HD num<T, E> axis_d2(const A &a, const kparams<T> &p, num<T, E> f0) {
  return a.template active<AX>() ? st_d2<C, AX, T, E>(a, f0, p.ih2[AX]) : num<T, E>(T(0));
}

template <int C, class T, bool E, class A>
TMG_HD void field_derivs(const A &a, const kparams<T> &p, derivs<T, E> &d, num<T, E> d2[3]) {
  const num<T, E> f0 = a.template get<C, 0, 0, 0>();
  d.val[C] = f0;
  d.grad[C][0] = a.template active<0>() ? st_d1<C, 0, T, E>(a, p.ih[0]) : num<T, E>(T(0));
  d.grad[C][1] = a.template active<1>() ? st_d1<C, 1, T, E>(a, p.ih[1]) : num<T, E>(T(0));
  d.grad[C][2] = a.template active<2>() ? st_d1<C, 2, T, E>(a, p.ih[2]) : num<T, E>(T(0));
  d2[0] = axis_d2<C, 0, T, E>(a, p, f0);
  d2[1] = axis_d2<C, 1, T, E>(a, p, f0);
  d2[2] = axis_d2<C, 2, T, E>(a, p, f0);
  d.lap[C] = d2[0] + d2[1] + d2[2];
}

/* grad div of the vector at components V..V+2 as tess_mhd_graddiv, from its pure second
 * derivatives along its own axes (diag[a] = d^2 v_a / dx_a^2) and the mixed ones. */
template <int V, class T, bool E, class A>
TMG_HD void graddiv(const A &a, const kparams<T> &p, const num<T, E> diag[3], num<T, E> gd[3]) {
  num<T, E> m01 = T(0), m10 = T(0), m02 = T(0), m20 = T(0), m12 = T(0), m21 = T(0);
  if (a.template active<0>() && a.template active<1>()) {
    m01 = st_dxy<V + 1, 0, 1, T, E>(a, p.ihh[0]);
    m10 = st_dxy<V + 0, 0, 1, T, E>(a, p.ihh[0]);
  }
  if (a.template active<0>() && a.template active<2>()) {
    m02 = st_dxy<V + 2, 0, 2, T, E>(a, p.ihh[1]);
    m20 = st_dxy<V + 0, 0, 2, T, E>(a, p.ihh[1]);
  }
  if (a.template active<1>() && a.template active<2>()) {
    m12 = st_dxy<V + 2, 1, 2, T, E>(a, p.ihh[2]);
    m21 = st_dxy<V + 1, 1, 2, T, E>(a, p.ihh[2]);
  }
  gd[0] = diag[0] + m01 + m02;
  gd[1] = m10 + diag[1] + m12;
  gd[2] = m20 + m21 + diag[2];
}

/* The vector at components V..V+2: its derivatives, and grad div. */
template <int V, class T, bool E, class A>
TMG_HD void vector_derivs(const A &a, const kparams<T> &p, derivs<T, E> &d, num<T, E> gd[3]) {
  num<T, E> dx[3], dy[3], dz[3];
  field_derivs<V + 0, T, E>(a, p, d, dx);
  field_derivs<V + 1, T, E>(a, p, d, dy);
  field_derivs<V + 2, T, E>(a, p, d, dz);
  const num<T, E> diag[3] = {dx[0], dy[1], dz[2]};
  graddiv<V, T, E>(a, p, diag, gd);
}

template <class T, bool E> TMG_HD num<T, E> dot3(const num<T, E> a[3], const num<T, E> b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

template <class T, bool E>
TMG_HD void cross3(const num<T, E> a[3], const num<T, E> b[3], num<T, E> out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* tess_mhd_rhs, term by term, in three parts: magnetic() from the derivatives of A, hydro()
 * from those of lnrho, u, ss plus magnetic()'s j x B and first heating terms, induction(). */
template <class T, bool E> struct mag_terms {
  num<T, E> B[3];   /* curl A + B_ext */
  num<T, E> jxB[3]; /* j x B */
  num<T, E> h1;     /* heating + eta mu0 j.j: the first two terms of the heating sum */
};

template <class T, bool E>
TMG_HD void magnetic(const num<T, E> (*grad_a)[3], const num<T, E> lap_a[3], const num<T, E> gda[3],
                     const kparams<T> &p, mag_terms<T, E> &m) {
  typedef num<T, E> N;
  m.B[0] = grad_a[2][1] - grad_a[1][2] + p.bext[0];
  m.B[1] = grad_a[0][2] - grad_a[2][0] + p.bext[1];
  m.B[2] = grad_a[1][0] - grad_a[0][1] + p.bext[2];
  N j[3];
#pragma unroll
  for (int i = 0; i < 3; i++)
    j[i] = div_by<E>(gda[i] - lap_a[i], p.mu0, p.mu0_inv);
  cross3<T, E>(j, m.B, m.jxB);
  m.h1 = p.heating + p.eta_mu0 * dot3<T, E>(j, j);
}

/* F of lnrho, u, ss (F[0..4]). val, grad, lap: components 0..4 (lnrho, ux, uy, uz, ss). */
template <class T, bool E>
TMG_HD void hydro(const num<T, E> val[5], const num<T, E> (*grad)[3], const num<T, E> lap[5],
                  const num<T, E> gdu[3], const num<T, E> jxB[3], num<T, E> h1, const kparams<T> &p,
                  num<T, E> force_y, const unsigned long long *tab, num<T, E> F[5]) {
  typedef num<T, E> N;
  const auto K = [](double x) { return N(T(x)); }; /* a literal coefficient, rounded once */
  const N lnrho = val[0], ss = val[4];
  const N *u = val + 1;
  const N *grad_lnrho = grad[0], *grad_ss = grad[4];
  const N(*grad_u)[3] = grad + 1;
  const N *lap_u = lap + 1;
  const auto div_cp = [&p](N a) { return div_by<E>(a, p.cp, p.cp_inv, p.cp_pow2); };

  const N div_u = grad_u[0][0] + grad_u[1][1] + grad_u[2][2];

  N S[3][3];
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int k = 0; k < 3; k++)
      S[i][k] = K(0.5) * (grad_u[i][k] + grad_u[k][i]);
  S[0][0] = N(wgt<T, kTWO3>()) * grad_u[0][0] - N(wgt<T, kONE3>()) * (grad_u[1][1] + grad_u[2][2]);
  S[1][1] = N(wgt<T, kTWO3>()) * grad_u[1][1] - N(wgt<T, kONE3>()) * (grad_u[0][0] + grad_u[2][2]);
  S[2][2] = N(wgt<T, kTWO3>()) * grad_u[2][2] - N(wgt<T, kONE3>()) * (grad_u[0][0] + grad_u[1][1]);
  N SS_contract = T(0);
#pragma unroll
  for (int i = 0; i < 3; i++)
#pragma unroll
    for (int k = 0; k < 3; k++)
      SS_contract = SS_contract + S[i][k] * S[i][k];

  const N rho = exp_rn(lnrho.v, tab), inv_rho = rn_rcp(rho.v);
  const N eos = div_cp(p.gamma * ss) + p.gm1 * (lnrho - p.lnrho0);
  const N cs2 = p.cs0sq * N(exp_rn(eos.v, tab));
  const N lnT = p.lnT0 + eos;
  const N inv_rhoT = rn_rcp((rho * N(exp_rn(lnT.v, tab))).v);

  F[0] = -dot3<T, E>(u, grad_lnrho) - div_u;

#pragma unroll
  for (int i = 0; i < 3; i++) {
    const N advection = dot3<T, E>(grad_u[i], u);
    const N pressure = cs2 * (div_cp(grad_ss[i]) + grad_lnrho[i]);
    const N S_grad_lnrho = dot3<T, E>(S[i], grad_lnrho);
    const N viscous =
        p.nu * (lap_u[i] + N(wgt<T, kONE3>()) * gdu[i] + K(2.0) * S_grad_lnrho) + p.zeta * gdu[i];
    F[1 + i] = -advection - pressure + jxB[i] * inv_rho + viscous;
  }
  if (p.has_force) F[2] = F[2] + force_y;

  const N grad_lnT[3] = {div_cp(p.gamma * grad_ss[0]) + p.gm1 * grad_lnrho[0],
                         div_cp(p.gamma * grad_ss[1]) + p.gm1 * grad_lnrho[1],
                         div_cp(p.gamma * grad_ss[2]) + p.gm1 * grad_lnrho[2]};
  const N lap_lnT = div_cp(p.gamma * lap[4]) + p.gm1 * lap[0];
  const N heat = h1 + K(2.0) * rho * p.nu * SS_contract + p.zeta * rho * div_u * div_u;
  const N conduction = p.K * inv_rho * (lap_lnT + dot3<T, E>(grad_lnT, grad_lnT));
  F[4] = -dot3<T, E>(u, grad_ss) + inv_rhoT * heat + conduction;
}

/* F of A (3 values): u x B + eta Lap A. */
template <class T, bool E>
TMG_HD void induction(const num<T, E> u[3], const num<T, E> B[3], const num<T, E> lap_a[3],
                      const kparams<T> &p, num<T, E> FA[3]) {
  num<T, E> uxB[3];
  cross3<T, E>(u, B, uxB);
#pragma unroll
  for (int i = 0; i < 3; i++)
    FA[i] = uxB[i] + p.eta * lap_a[i];
}

template <class T, bool E>
TMG_HD void rhs(const derivs<T, E> &d, const kparams<T> &p, num<T, E> force_y,
                const unsigned long long *tab, num<T, E> F[8]) {
  mag_terms<T, E> m;
  magnetic<T, E>(d.grad + 5, d.lap + 5, d.gda, p, m);
  hydro<T, E>(d.val, d.grad, d.lap, d.gdu, m.jxB, m.h1, p, force_y, tab, F);
  induction<T, E>(d.val + 1, m.B, d.lap + 5, p, F + 5);
}

/* The y body force at padded x coordinate x: in double in both precisions, as the CPU (a
 * function of x alone), then rounded to T. */
template <class T, bool E> TMG_HD num<T, E> force_at(const kparams<T> &p, int x) {
  if (!p.has_force) return num<T, E>(T(0));
  typedef num<double, E> D;
  long long gx = (p.origin0 + x) % p.global0;
  if (gx < 0) gx += p.global0;
  const D arg = div_by<E>(D(p.two_pi) * D((double)(p.force_k * gx)), p.global0_d, p.global0_inv);
  const double f = (D(p.force_amp) * D(sin(arg.v))).v;
  if constexpr (sizeof(T) == sizeof(double))
    return num<T, E>(f);
  else
    return num<T, E>(to_float(f));
}

/* The RK3 combination of one component: u^k (u), the old output (old, substeps 1 and 2), F. */
template <class T, bool E>
TMG_HD T rk_update(const kparams<T> &p, num<T, E> u, T old, num<T, E> F) {
  typedef num<T, E> N;
  if (p.substep == 0) return (u + p.beta * (p.dt * F)).v;
  return (u + p.beta * (p.ab * (u - N(old)) + p.dt * F)).v;
}

/* The whole cell: derivatives, F, and the RK3 combination with the old output `old` (read
 * for substeps 1 and 2 only). x: padded x coordinate (for the forcing). */
template <class T, bool E, class A>
TMG_HD void cell_update(const A &a, const kparams<T> &p, const unsigned long long *tab, int x,
                        const T old[8], T res[8]) {
  typedef num<T, E> N;
  derivs<T, E> d;
  {
    N d2[3];
    field_derivs<0, T, E>(a, p, d, d2);
    field_derivs<4, T, E>(a, p, d, d2);
  }
  vector_derivs<1, T, E>(a, p, d, d.gdu);
  vector_derivs<5, T, E>(a, p, d, d.gda);

  N F[8];
  rhs<T, E>(d, p, force_at<T, E>(p, x), tab, F);
#pragma unroll
  for (int c = 0; c < 8; c++)
    res[c] = rk_update<T, E>(p, d.val[c], old[c], F[c]);
}

/* ---- generic kernel: one thread per cell, stencil through L1 ------------------------------ */

template <class T> struct generic_acc {
  const T *f; /* component 0 of the cell */
  long long X, sy, sz;
  int act[3];
  template <int AX> TMG_HD bool active() const { return act[AX] != 0; }
  template <int C, int DX, int DY, int DZ> TMG_HD T get() const {
    return ldg(f + (C * X + DX + DY * sy + DZ * sz));
  }
};

template <class T, bool E>
TMG_HD void generic_cell(const kparams<T> &p, const unsigned long long *tab, int x, int y, int z) {
  const long long cell = x + y * p.sy + z * p.sz;
  const generic_acc<T> a = {p.in + cell, p.X, p.sy, p.sz, {p.act[0], p.act[1], p.act[2]}};
  T old[8], res[8];
#pragma unroll
  for (int c = 0; c < 8; c++)
    old[c] = p.substep > 0 ? p.out[cell + c * p.X] : T(0);
  cell_update<T, E>(a, p, tab, x, old, res);
#pragma unroll
  for (int c = 0; c < 8; c++)
    p.out[cell + c * p.X] = res[c];
}

template <class T, bool E>
__global__ void __launch_bounds__(128) mhd_generic_kernel(const kparams<T> p) {
  __shared__ unsigned long long tab[exp_words<T>()];
  for (int i = threadIdx.x + blockDim.x * threadIdx.y; i < exp_words<T>();
       i += blockDim.x * blockDim.y)
    tab[i] = exp_word<T>(i);
  __syncthreads();
  const int x = p.lo[0] + (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (x >= p.hi[0]) return;
  for (int y = p.lo[1] + (int)(blockIdx.y * blockDim.y + threadIdx.y); y < p.hi[1];
       y += gridDim.y * blockDim.y)
    for (int z = p.lo[2] + (int)blockIdx.z; z < p.hi[2]; z += gridDim.z)
      generic_cell<T, E>(p, tab, x, y, z);
}

/* ---- tiled kernel ------------------------------------------------------------------------- */

/* Shared-memory layout, in elements of T after the exp table (TAB elements: 256 words for
 * double, 32 for float). Ring slot (one plane z, 8 slots, slot z & 7): ux, uy, uz, ax, ay, az
 * (ridx order), each [X0-3, X0+TX+3) x [Y0-3, Y0+TY+3) with pitch W. Centre slot (2 slots,
 * z & 1): lnrho, ss, the same shape. MINB: the blocks per SM the kernel is built for: 2 where
 * two fit in the 228 KiB of an sm_90 SM (1 KiB reserved per block), which caps registers at 128
 * per thread. */
template <int TX, int TY, class T> struct tile_geom {
  static constexpr int NT = TX * TY, NW = NT / 32, W = TX + 6, H = TY + 6, FULL = W * H;
  static constexpr int RS = 6 * FULL, CS = 2 * FULL;
  static constexpr int TAB = exp_words<T>() * (int)(sizeof(unsigned long long) / sizeof(T));
  static constexpr int RING0 = TAB, CEN0 = RING0 + 8 * RS, TOTAL = CEN0 + 2 * CS;
  static constexpr size_t SMEM = (size_t)TOTAL * sizeof(T);
  static constexpr int MINB = 2 * (SMEM + 1024) <= 228 * 1024 ? 2 : 1;
  /* position of component c (ux, uy, uz, ax, ay, az) in a ring slot */
  static constexpr __host__ __device__ int ridx(int c) { return c < 4 ? c - 1 : c - 2; }
  static_assert(NT % 32 == 0, "whole warps");
};

struct tile_item {
  int X0, Y0, z0, z1;
};

template <int TX, int TY, class T> TMG_HD tile_item tile_of(const kparams<T> &p, int b) {
  const int tiles = p.ntx * p.nty;
  const int zc = b / tiles, t = b - zc * tiles;
  const int ty = t / p.ntx, tx = t - ty * p.ntx;
  tile_item it;
  it.X0 = p.lo[0] + tx * TX;
  it.Y0 = p.lo[1] + ty * TY;
  it.z0 = p.lo[2] + zc * p.zlen;
  it.z1 = it.z0 + p.zlen < p.hi[2] ? it.z0 + p.zlen : p.hi[2];
  return it;
}

/* One element, global -> shared, asynchronously (4 or 8 bytes: rows need not be aligned); dst:
 * its shared-memory address (device) and pointer (host emulation). */
template <class T> TMG_HD void cp_async(unsigned dst, T *dst_host, const T *src) {
#ifdef __CUDA_ARCH__
  (void)dst_host;
  if constexpr (sizeof(T) == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
#else
  (void)dst;
  *dst_host = *src;
#endif
}
TMG_HD void cp_async_commit() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
TMG_HD void cp_async_wait_all() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/* The shared-memory address of sm[i] (device; 0 on the host, where cp_async takes the pointer). */
template <class T> TMG_HD unsigned smem_addr(const T *sm, int i) {
#ifdef __CUDA_ARCH__
  return (unsigned)__cvta_generic_to_shared(sm) + (unsigned)(i * (int)sizeof(T));
#else
  (void)sm;
  (void)i;
  return 0;
#endif
}

/* Rows [0, rows_ok) of an NCOL-wide rectangle (first row at src, rows row_stride apart) into
 * shared memory at sm + dst (pitch NCOL); columns >= cols_ok lie past the region's reach and
 * are not read. Row r goes to warp (r + rot) % NW, lane = column. Addresses are formed once
 * per row (the shared one from the rectangle's base) and shared by its two column groups: per
 * element, nvcc otherwise rebuilt the shared window base and the 64-bit source address, ~12
 * instructions for each copied element. */
template <int NCOL, int NW, class T>
TMG_HD void copy_rect(T *sm, int dst, const T *src, long long row_stride, int rows_ok, int cols_ok,
                      int rot, int warp, int lane) {
  static_assert(NCOL <= 64, "two column groups at most");
  const unsigned base = smem_addr(sm, dst + lane);
  const bool c0 = (lane < NCOL) && (lane < cols_ok);
  const bool c1 = (NCOL > 32) && (lane + 32 < NCOL) && (lane + 32 < cols_ok);
  for (int r = (warp + NW - rot % NW) % NW; r < rows_ok; r += NW) {
    const T *s = src + r * row_stride + lane;
    const unsigned d = base + (unsigned)(r * NCOL * (int)sizeof(T));
    T *dh = sm + dst + r * NCOL + lane;
    if (c0) cp_async(d, dh, s);
    if (c1) cp_async(d + 32u * (unsigned)sizeof(T), dh + 32, s + 32);
  }
}

TMG_HD int imin(int a, int b) { return a < b ? a : b; }

/* Plane z of the six components of u and A, full with halo, into ring slot z & 7. */
template <int TX, int TY, class T>
TMG_HD void issue_ring(const kparams<T> &p, T *sm, const tile_item &it, int z, int warp, int lane) {
  typedef tile_geom<TX, TY, T> G;
  const int slot = G::RING0 + (z & 7) * G::RS;
  const int cw = imin(G::W, p.hi[0] + 3 - (it.X0 - 3)), rh = imin(G::H, p.hi[1] + 3 - (it.Y0 - 3));
  const T *fu = p.in + z * p.sz + (it.Y0 - 3) * p.sy + (it.X0 - 3);
  const int comps[6] = {1, 2, 3, 5, 6, 7}; /* ring slot order: see tile_geom::ridx */
#pragma unroll
  for (int i = 0; i < 6; i++)
    copy_rect<G::W, G::NW>(sm, slot + i * G::FULL, fu + comps[i] * p.X, p.sy, rh, cw, i * G::H,
                           warp, lane);
}

/* Plane z of lnrho and ss, full with halo, into centre slot z & 1. */
template <int TX, int TY, class T>
TMG_HD void issue_centre(const kparams<T> &p, T *sm, const tile_item &it, int z, int warp,
                         int lane) {
  typedef tile_geom<TX, TY, T> G;
  const int slot = G::CEN0 + (z & 1) * G::CS;
  const int cw = imin(G::W, p.hi[0] + 3 - (it.X0 - 3)), rh = imin(G::H, p.hi[1] + 3 - (it.Y0 - 3));
  const T *fu = p.in + z * p.sz + (it.Y0 - 3) * p.sy + (it.X0 - 3);
  copy_rect<G::W, G::NW>(sm, slot, fu, p.sy, rh, cw, 6 * G::H, warp, lane);
  copy_rect<G::W, G::NW>(sm, slot + G::FULL, fu + 4 * p.X, p.sy, rh, cw, 7 * G::H, warp, lane);
}

/* What a thread keeps from step to step: lnrho and ss at z - 3 .. z + 3 of its cell. */
template <class T> struct tile_state { T ql[7], qs[7]; };

template <int TX, int TY, class T> struct tile_acc {
  typedef tile_geom<TX, TY, T> G;
  const T *sm;
  int cen;        /* centre slot + the thread's offset in a full plane */
  int rfu[7];     /* ring slot of z + d - 3 + the thread's offset in a full plane */
  T ql[7], qs[7]; /* lnrho, ss at z - 3 .. z + 3 (copies of tile_state's) */
  template <int AX> TMG_HD bool active() const { return true; }
  template <int C, int DX, int DY, int DZ> TMG_HD T get() const {
    static_assert(C >= 0 && C < 8 && DZ >= -3 && DZ <= 3, "stencil point");
    if constexpr (C == 0 || C == 4) {
      if constexpr (DZ != 0 || (DX == 0 && DY == 0)) {
        static_assert(DX == 0 && DY == 0, "lnrho, ss: off-centre planes at the cell only");
        return C == 0 ? ql[DZ + 3] : qs[DZ + 3];
      } else {
        return sm[cen + (C == 0 ? 0 : G::FULL) + DY * G::W + DX];
      }
    } else {
      return sm[rfu[DZ + 3] + G::ridx(C) * G::FULL + DY * G::W + DX];
    }
  }
};

/* The accessor of the thread at (tx, ty) of the tile for step zc. */
template <int TX, int TY, class T>
TMG_HD tile_acc<TX, TY, T> make_acc(const T *sm, int zc, int tx, int ty, const tile_state<T> &st) {
  typedef tile_geom<TX, TY, T> G;
  tile_acc<TX, TY, T> a;
  a.sm = sm;
  const int o_full = (ty + 3) * G::W + tx + 3;
  a.cen = G::CEN0 + (zc & 1) * G::CS + o_full;
#pragma unroll
  for (int i = 0; i < 7; i++)
    a.rfu[i] = G::RING0 + ((zc - 3 + i) & 7) * G::RS + o_full;
#pragma unroll
  for (int i = 0; i < 7; i++) {
    a.ql[i] = st.ql[i];
    a.qs[i] = st.qs[i];
  }
  return a;
}

template <int TX, int TY, class T>
TMG_HD void tile_prologue(const kparams<T> &p, const tile_item &it, int tid, tile_state<T> &st) {
  const int x = it.X0 + tid % TX, y = it.Y0 + tid / TX;
  const bool valid = x < p.hi[0] && y < p.hi[1];
  const long long col = x + y * p.sy;
#pragma unroll
  for (int i = 0; i < 7; i++) {
    const long long cell = col + (it.z0 - 3 + i) * p.sz;
    st.ql[i] = valid ? ldg(p.in + cell) : T(0);
    st.qs[i] = valid ? ldg(p.in + cell + 4 * p.X) : T(0);
  }
}

template <int TX, int TY, class T, bool E>
TMG_HD void tile_compute(const kparams<T> &p, const T *sm, const unsigned long long *tab,
                         const tile_item &it, int zc, int tid, tile_state<T> &st) {
  typedef tile_geom<TX, TY, T> G;
  const int tx = tid % TX, ty = tid / TX;
  const int x = it.X0 + tx, y = it.Y0 + ty;
  const bool valid = x < p.hi[0] && y < p.hi[1];
  const long long cell = x + y * p.sy + zc * p.sz;
  T nl = T(0), ns = T(0), old[8];
  if (valid && zc + 1 < it.z1) { /* next step's z + 3 of lnrho, ss */
    nl = ldg(p.in + cell + 4 * p.sz);
    ns = ldg(p.in + cell + 4 * p.sz + 4 * p.X);
  }
#pragma unroll
  for (int c = 0; c < 8; c++)
    old[c] = valid && p.substep > 0 ? p.out[cell + c * p.X] : T(0);

  const tile_acc<TX, TY, T> a = make_acc<TX, TY>(sm, zc, tx, ty, st);
  T res[8];
  cell_update<T, E>(a, p, tab, x, old, res);
  if (valid)
#pragma unroll
    for (int c = 0; c < 8; c++)
      p.out[cell + c * p.X] = res[c];
#pragma unroll
  for (int i = 0; i < 6; i++) {
    st.ql[i] = st.ql[i + 1];
    st.qs[i] = st.qs[i + 1];
  }
  st.ql[6] = nl;
  st.qs[6] = ns;
}

template <int TX, int TY, class T, bool E>
__global__ void __launch_bounds__(TX *TY, (tile_geom<TX, TY, T>::MINB))
    mhd_tiled_kernel(const kparams<T> p) {
  typedef tile_geom<TX, TY, T> G;
  extern __shared__ __align__(16) unsigned char sm_bytes[];
  T *sm = reinterpret_cast<T *>(sm_bytes);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const tile_item it = tile_of<TX, TY>(p, blockIdx.x);
  for (int i = tid; i < exp_words<T>(); i += G::NT)
    reinterpret_cast<unsigned long long *>(sm_bytes)[i] = exp_word<T>(i);
  for (int z = it.z0 - 3; z <= it.z0 + 3; z++)
    issue_ring<TX, TY>(p, sm, it, z, warp, lane);
  issue_centre<TX, TY>(p, sm, it, it.z0, warp, lane);
  cp_async_commit();
  tile_state<T> st;
  tile_prologue<TX, TY>(p, it, tid, st);
  for (int zc = it.z0; zc < it.z1; zc++) {
    cp_async_wait_all();  /* this step's planes (issued one step ago) have landed ... */
    __syncthreads();      /* ... for every thread, and everyone is done with the last step */
    if (zc + 1 < it.z1) { /* into the slots the last step read last: plane zc - 4, centre zc - 1 */
      issue_ring<TX, TY>(p, sm, it, zc + 4, warp, lane);
      issue_centre<TX, TY>(p, sm, it, zc + 1, warp, lane);
    }
    cp_async_commit();
    tile_compute<TX, TY, T, E>(p, sm, reinterpret_cast<const unsigned long long *>(sm_bytes), it,
                               zc, tid, st);
  }
}

/* ---- host side ---------------------------------------------------------------------------- */

enum kernel_kind {
  KIND_AUTO = 0,
  KIND_TILED = 1,
  KIND_GENERIC = 2,
  KIND_TILED16 = 3,
};

/* Regions the tiled kernel takes in auto mode: 3D, and not thin in x or y (a 3-cell-wide x slab
 * would leave 29 of 32 lanes idle). */
constexpr int TILED_MIN_N0 = 16, TILED_MIN_N1 = 4;

static void require(bool cond, const char *msg) {
  if (!cond) {
    fprintf(stderr, "%s: mhd cuda kernel: %s\n", __FILE__, msg);
    abort();
  }
}

/* The CPU version's checks and constants (each rounded to T once from the double the CPU
 * version computes). Returns false for an empty region. */
template <class T> static bool make_kparams(const tess_region *r, kparams<T> &p) {
  constexpr bool dbl = sizeof(T) == sizeof(double);
  for (int i = 0; i < 3; i++)
    if (r->hi[i] <= r->lo[i]) return false;
  require(r->prec == (dbl ? TESS_FP64 : TESS_FP32), "region precision is not the kernel's");
  require(r->nin == 1 && r->nout == 1, "needs one input (u^k) and one output (u^(k-1))");
  require(r->in[0] && r->out[0], "missing field array");
  require(r->in_nc[0] == TESS_MHD_NC && r->out_nc[0] == TESS_MHD_NC,
          "input and output need 8 components (lnrho, ux, uy, uz, ss, ax, ay, az)");
  require((const void *)r->in[0] != (const void *)r->out[0], "output aliases the input");
  require(r->params != NULL, "missing tess_mhd_params");
  const tess_mhd_params *mp = (const tess_mhd_params *)r->params;
  require(mp->substep >= 0 && mp->substep <= 2, "substep must be 0, 1 or 2");
  for (int i = 0; i < 3; i++) {
    const int reach = r->dim[i] > 1 ? TESS_MHD_RADIUS : 0;
    require(r->lo[i] - reach >= 0 && r->hi[i] + reach <= r->dim[i],
            "region plus stencil radius leaves the padded tile");
  }
  memset(&p, 0, sizeof p);
  if constexpr (dbl) {
    p.in = r->in[0];
    p.out = r->out[0];
  } else {
    p.in = r->in_f[0];
    p.out = r->out_f[0];
  }
  p.X = r->dim[0];
  p.sy = (long long)TESS_MHD_NC * r->dim[0];
  p.sz = (long long)TESS_MHD_NC * r->dim[0] * r->dim[1];
  static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int a = 0; a < 3; a++) {
    p.lo[a] = r->lo[a];
    p.hi[a] = r->hi[a];
    p.act[a] = r->dim[a] > 1;
    p.ih[a] = (T)(1.0 / r->h[a]);
    p.ih2[a] = (T)(1.0 / (r->h[a] * r->h[a]));
    p.ihh[a] = (T)(1.0 / (r->h[pair[a][0]] * r->h[pair[a][1]]));
  }
  p.nu = (T)mp->nu;
  p.zeta = (T)mp->zeta;
  p.eta = (T)mp->eta;
  p.mu0 = (T)mp->mu0;
  p.mu0_inv = (T)1 / p.mu0; /* the divisor's own correctly rounded reciprocal */
  p.cp = (T)mp->cp;
  p.cp_inv = (T)1 / p.cp;
  {
    int e;
    p.cp_pow2 = frexp((double)p.cp, &e) == 0.5 && isfinite((double)p.cp_inv) && p.cp_inv != 0;
  }
  p.gamma = (T)mp->gamma;
  p.gm1 = (T)(mp->gamma - 1.0);
  p.lnT0 = (T)mp->lnT0;
  p.lnrho0 = (T)mp->lnrho0;
  p.K = (T)mp->K;
  p.heating = (T)mp->heating;
  p.cs0sq = (T)(mp->cs0 * mp->cs0);
  p.eta_mu0 = (T)(mp->eta * mp->mu0);
  for (int i = 0; i < 3; i++)
    p.bext[i] = (T)mp->B_ext[i];
  p.has_force = mp->force_amp != 0.0;
  p.force_amp = mp->force_amp;
  p.force_k = mp->force_k;
  p.two_pi = 6.283185307179586476925286766559;
  p.origin0 = r->origin[0];
  p.global0 = r->global[0] > 0 ? r->global[0] : 1;
  p.global0_d = (double)p.global0;
  p.global0_inv = 1.0 / p.global0_d;
  const double alpha[3] = TESS_MHD_RK3_ALPHA, beta[3] = TESS_MHD_RK3_BETA;
  const int k = mp->substep;
  p.substep = k;
  p.dt = (T)(mp->dt > 0.0 ? mp->dt : r->dt);
  p.beta = (T)beta[k];
  p.ab = (T)(k > 0 ? alpha[k] / beta[k - 1] : 0.0);
  return true;
}

/* Tiles and z chunks: the chunk length that minimises (waves of blocks) x (chunk + ~4 planes
 * of start-up), `slots` blocks resident at a time. */
template <int TX, int TY, class T> static void plan_tiles(kparams<T> &p, int slots) {
  const int n0 = p.hi[0] - p.lo[0], n1 = p.hi[1] - p.lo[1], n2 = p.hi[2] - p.lo[2];
  p.ntx = (n0 + TX - 1) / TX;
  p.nty = (n1 + TY - 1) / TY;
  const long long tiles = (long long)p.ntx * p.nty;
  double best = 1e300;
  p.zlen = n2;
  for (int nzc = 1; nzc <= n2; nzc++) {
    const int zlen = (n2 + nzc - 1) / nzc;
    if (nzc > 1 && zlen == (n2 + nzc - 2) / (nzc - 1)) continue; /* same chunking as nzc - 1 */
    const long long items = tiles * ((n2 + zlen - 1) / zlen);
    const long long waves = (items + slots - 1) / (slots > 0 ? slots : 1);
    const double cost = (double)waves * (zlen + 4.0);
    if (cost < best - 1e-9) {
      best = cost;
      p.zlen = zlen;
    }
  }
}

template <class T> static int tiles_total(const kparams<T> &p) {
  const int n2 = p.hi[2] - p.lo[2];
  return p.ntx * p.nty * ((n2 + p.zlen - 1) / p.zlen);
}

static void check_launch() {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) TESS_MHD_CUDA_REPORT(err);
}

/* One launch of a tiled kernel with nt threads and smem bytes of dynamic shared memory a block,
 * its z chunks planned for the blocks that fit on the device at once. */
template <int TX, int TY, class T, class K>
static void launch_blocks(K kern, int nt, size_t smem, kparams<T> &p, cudaStream_t s) {
  cudaError_t err =
      cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  if (err != cudaSuccess) TESS_MHD_CUDA_REPORT(err);
  int dev = 0, nsm = 1, per_sm = 1;
  err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, nt, smem);
  if (err != cudaSuccess) TESS_MHD_CUDA_REPORT(err);
  plan_tiles<TX, TY>(p, nsm * (per_sm > 0 ? per_sm : 1));
  kern<<<tiles_total(p), nt, smem, s>>>(p);
  check_launch();
}

template <int TX, int TY, class T, bool E> static void launch_tiled(kparams<T> &p, cudaStream_t s) {
  typedef tile_geom<TX, TY, T> G;
  launch_blocks<TX, TY>(mhd_tiled_kernel<TX, TY, T, E>, G::NT, G::SMEM, p, s);
}

template <class T, bool E> static void launch_generic(const kparams<T> &p, cudaStream_t s) {
  const int n0 = p.hi[0] - p.lo[0], n1 = p.hi[1] - p.lo[1], n2 = p.hi[2] - p.lo[2];
  const unsigned bx = n0 >= 32 ? 32u : n0 >= 16 ? 16u : n0 >= 8 ? 8u : 4u, by = 128u / bx;
  const unsigned gy = (unsigned)((n1 + (int)by - 1) / (int)by);
  const dim3 block(bx, by, 1);
  const dim3 grid((unsigned)((n0 + (int)bx - 1) / (int)bx), gy < 65535u ? gy : 65535u,
                  (unsigned)(n2 < 65535 ? n2 : 65535));
  mhd_generic_kernel<T, E><<<grid, block, 0, s>>>(p);
  check_launch();
}

template <class T> static int auto_kind(const kparams<T> &p) {
  const bool is3d = p.act[0] && p.act[1] && p.act[2];
  return is3d && p.hi[0] - p.lo[0] >= TILED_MIN_N0 && p.hi[1] - p.lo[1] >= TILED_MIN_N1
             ? KIND_TILED
             : KIND_GENERIC;
}

/* T: double or float (r->prec must say the same); kind: kernel_kind; fma: the contracted
 * arithmetic (benchmark builds only). The tiled kernels need a 3D tile; asked for on a 2D
 * one, they fall back to the generic kernel. */
template <class T> static void launch(const tess_region *r, void *stream, int kind, bool fma) {
  kparams<T> p;
  if (!make_kparams(r, p)) return; /* empty region: no zero-sized grid */
  const cudaStream_t s = (cudaStream_t)stream;
  if (kind == KIND_AUTO) kind = auto_kind(p);
  if (!(p.act[0] && p.act[1] && p.act[2])) kind = KIND_GENERIC;
#ifdef TESS_MHD_CUDA_ALL_VARIANTS
  if (fma) {
    if (kind == KIND_TILED)
      launch_tiled<32, 8, T, false>(p, s);
    else if (kind == KIND_TILED16)
      launch_tiled<16, 16, T, false>(p, s);
    else
      launch_generic<T, false>(p, s);
    return;
  }
  if (kind == KIND_TILED16) {
    launch_tiled<16, 16, T, true>(p, s);
    return;
  }
#else
  (void)fma;
  if (kind == KIND_TILED16) kind = KIND_TILED;
#endif
  if (kind == KIND_TILED)
    launch_tiled<32, 8, T, true>(p, s);
  else
    launch_generic<T, true>(p, s);
}

} // namespace tess_mhd_gpu

extern "C" void tess_mhd_rk3_cuda(const tess_region *r, void *stream) {
  tess_mhd_gpu::launch<double>(r, stream, tess_mhd_gpu::KIND_AUTO, false);
}

extern "C" void tess_mhd_rk3_cuda_f32(const tess_region *r, void *stream) {
  tess_mhd_gpu::launch<float>(r, stream, tess_mhd_gpu::KIND_AUTO, false);
}

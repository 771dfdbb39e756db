/* mhd_cell.h — the MHD kernel's arithmetic at one cell, written once for its CPU body (gcc,
 * mhd_cpu_body.h) and its CUDA kernel (nvcc, mhd_cuda.cu), in double and in float.
 *
 * What lives here: the stencil combinations (first, second and mixed derivatives from the
 * gathered stencil values), the Laplacians and grad div, the right-hand side F of the 8 fields
 * (the equations of mhd.h), the RK3 substep combination, the forcing, and the constants of a
 * region (tess_mhd_coef_make). What stays with each side is data movement only: which values
 * a cell's stencil gathers from where (CPU: strided loads; CUDA: a shared-memory plane ring).
 *
 * Each translation unit includes this file twice (no include guard on the per-precision part),
 * having defined
 *   real              double, then float
 *   TESS_MHD_FN(f)    the names of its functions: in C f, then f##_f32; in CUDA f for both
 *                     (overloads). Type names: TESS_MHD_T, defined here.
 *   TESS_MHD_F32      0, then 1
 *   TESS_MHD_HD       the qualifiers of a function both sides call: `static inline` in C,
 *                     `static __host__ __device__ __forceinline__` in CUDA
 * and included mhd.h, mhd_exp.h, <math.h>.
 *
 * Bitwise CPU == GPU: the same text on both sides; C is compiled with -ffp-contract=off and
 * CUDA with -fmad=false (codelets/CMakeLists.txt), so no multiply-add is fused that is not
 * written as fma() here, and each +, -, *, fma rounds once as IEEE 754 says. Constants are
 * computed in double on the host and rounded once to `real`; exp is mhd_exp.h's port on both
 * sides. Two operations take a different, equally exact route on the device: 1 / v
 * (__drcp_rn / __frcp_rn: correctly rounded, as the CPU's division) and x / c for a uniform
 * divisor c (double: q = x (1/c) and one Markstein correction, the correctly rounded quotient
 * for normal operands; float: x (1/c) in double, rounded once to float, the IEEE quotient for
 * every float x: tess_mhd_divc_f32). The forcing's sin is each side's library sin
 * (1 ulp apart at worst; only with forcing on).
 */

/* ---- once per translation unit ------------------------------------------------------------- */
#ifndef TESS_MHD_CELL_ONCE
#define TESS_MHD_CELL_ONCE

/* The stencil weights and the rate-of-strain thirds, as double expressions (rounded once to
 * float in single precision). On the device they come from the constant bank (an FP64
 * instruction takes such an operand; a literal that is no immediate costs two moves a use). */
#define TESS_MHD_WEIGHTS(F)                                                                        \
  F(3.0 / 4.0), F(-3.0 / 20.0), F(1.0 / 60.0), F(-49.0 / 18.0), F(3.0 / 2.0), F(-3.0 / 20.0),      \
      F(1.0 / 90.0), F(270.0 / 720.0), F(-27.0 / 720.0), F(2.0 / 720.0), F(2.0 / 3.0),             \
      F(1.0 / 3.0)
enum {
  TESS_MHD_A1, /* first derivative: a_1..a_3 */
  TESS_MHD_A2,
  TESS_MHD_A3,
  TESS_MHD_B0, /* second derivative: b_0..b_3 */
  TESS_MHD_B1,
  TESS_MHD_B2,
  TESS_MHD_B3,
  TESS_MHD_C1, /* mixed derivative: c_1..c_3 */
  TESS_MHD_C2,
  TESS_MHD_C3,
  TESS_MHD_TWO3,
  TESS_MHD_ONE3,
  TESS_MHD_NW
};
#define TESS_MHD_AS_FLOAT(x) ((float)(x))
static const double tess_mhd_w_host[TESS_MHD_NW] = {TESS_MHD_WEIGHTS(TESS_MHD_SAME)};
#ifdef __CUDACC__
__constant__ double tess_mhd_w_dev[TESS_MHD_NW] = {TESS_MHD_WEIGHTS(TESS_MHD_SAME)};
__constant__ float tess_mhd_wf_dev[TESS_MHD_NW] = {TESS_MHD_WEIGHTS(TESS_MHD_AS_FLOAT)};
#endif
TESS_MHD_HD double tess_mhd_w(int i) {
  return TESS_MHD_ON_DEVICE(tess_mhd_w_dev[i], tess_mhd_w_host[i]);
}
TESS_MHD_HD float tess_mhd_w_f32(int i) {
  return TESS_MHD_ON_DEVICE(tess_mhd_wf_dev[i], (float)tess_mhd_w_host[i]);
}

/* 1 / v, correctly rounded on both sides. */
TESS_MHD_HD double tess_mhd_rcp(double v) { return TESS_MHD_ON_DEVICE(__drcp_rn(v), 1.0 / v); }
TESS_MHD_HD float tess_mhd_rcp_f32(float v) { return TESS_MHD_ON_DEVICE(__frcp_rn(v), 1.0f / v); }

/* a / c for a uniform divisor c with cinv = 1 / c (correctly rounded, from the host): the
 * correctly rounded quotient on both sides. pow2: c is a power of 2, so a cinv is the quotient. */
TESS_MHD_HD double tess_mhd_divc(double a, double c, double cinv, int pow2) {
  if (pow2) return a * cinv;
#ifdef __CUDA_ARCH__
  const double q = a * cinv; /* one Markstein step (a double division is a long sequence) */
  return fma(fma(-q, c, a), cinv, q);
#else
  (void)cinv;
  return a / c;
#endif
}
/* Float: rcp = 1 / c correctly rounded in double. On the device a (1/c) in double, rounded once
 * to float, instead of the IEEE division's sequence and its slow-path branch (float MHD 2-3%
 * faster plain, 1% wrapping; H100, 2026-11-28-h100-mhd-float-loads.txt): the same quotient. a / c
 * of two floats is never a float midpoint nor within 2^-49 (relative) of one, and the double
 * product is within 2^-52 of a / c, so both round to the same float; zeros, subnormals, infinities
 * and NaN fall out the same too. For a power-of-2 c it is exact as a cinv is; the device takes it
 * for every c (no branch: another 1% plain). bench/mhd_kernel_bench.cu checks every float a for ten
 * divisors, three of them powers of 2 (check_divf). */
TESS_MHD_HD float tess_mhd_divc_f32(float a, float c, float cinv, double rcp, int pow2) {
#ifdef __CUDA_ARCH__
  (void)c, (void)cinv, (void)pow2;
  return (float)((double)a * rcp);
#else
  (void)rcp;
  return pow2 ? a * cinv : a / c;
#endif
}

/* The y body force at global x index gx (0 <= gx < global): a function of x alone, in double
 * in both precisions, then rounded to `real` by the caller. ginv = 1 / global. */
TESS_MHD_HD double tess_mhd_force(double amp, long long k, long long gx, double global,
                                  double ginv) {
  const double two_pi = 6.283185307179586476925286766559;
  return amp * sin(tess_mhd_divc(two_pi * (double)(k * gx), global, ginv, 0));
}

#endif /* TESS_MHD_CELL_ONCE */

/* ---- once per precision -------------------------------------------------------------------- */

/* This pass's names: TESS_MHD_T(type), and for functions TESS_MHD_FN (C needs distinct names;
 * CUDA may give both passes the same ones and let overloading pick). Left defined for the
 * includer's own code; the next pass redefines them. */
#undef TESS_MHD_T
#undef TESS_MHD_K
#undef TESS_MHD_W
#undef TESS_MHD_FMA
#undef TESS_MHD_EXPR
#undef TESS_MHD_RCP
#undef TESS_MHD_DIVC
#if TESS_MHD_F32
#define TESS_MHD_T(t)                   t##_f32
#define TESS_MHD_W(i)                   tess_mhd_w_f32(i)
#define TESS_MHD_FMA(a, b, c)           fmaf(a, b, c)
#define TESS_MHD_EXPR(x, tab)           tess_mhd_expf(x, tab)
#define TESS_MHD_RCP(v)                 tess_mhd_rcp_f32(v)
#define TESS_MHD_DIVC(a, c, ci, cd, p2) tess_mhd_divc_f32(a, c, ci, cd, p2)
#else
#define TESS_MHD_T(t)                   t
#define TESS_MHD_W(i)                   tess_mhd_w(i) /* weight i (TESS_MHD_WEIGHTS) */
#define TESS_MHD_FMA(a, b, c)           fma(a, b, c)
#define TESS_MHD_EXPR(x, tab)           tess_mhd_exp(x, tab)
#define TESS_MHD_RCP(v)                 tess_mhd_rcp(v)
#define TESS_MHD_DIVC(a, c, ci, cd, p2) tess_mhd_divc(a, c, ci, p2)
#endif
#define TESS_MHD_K(x) ((real)(x)) /* a literal coefficient, rounded once */

/* A region's constants, each rounded to `real` once from the double the host computes. */
typedef struct {
  real ih[3], ih2[3], ihh[3]; /* 1/h, 1/h^2, 1/(h_a h_b) for the pairs xy, xz, yz */
  int active[3];              /* axis has a stencil (extent > 1) */
  real nu, zeta, eta, mu0, mu0_inv, cp, cp_inv, gamma, gm1, lnT0, lnrho0, K, heating;
#if TESS_MHD_F32
  double mu0_rcp, cp_rcp; /* 1 / mu0, 1 / cp of the rounded divisors, in double (divc on the GPU) */
#endif
  real cs0sq, eta_mu0, bext[3];
  int cp_pow2; /* cp is a power of 2: x / cp == x (1 / cp) */
  int substep;
  real dt, beta, ab; /* beta_k and alpha_k / beta_(k-1) */
  int has_force;     /* the forcing's numbers stay double */
  double force_amp, global0, global0_inv;
  long long force_k, origin0, iglobal0;
} TESS_MHD_T(tess_mhd_coef);

/* Host: the constants of region r (its params checked by the caller). */
static void TESS_MHD_FN(tess_mhd_coef_make)(const tess_region *r, TESS_MHD_T(tess_mhd_coef) * c) {
  static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  const tess_mhd_params *p = (const tess_mhd_params *)r->params;
  for (int a = 0; a < 3; a++) {
    c->active[a] = r->dim[a] > 1;
    c->ih[a] = TESS_MHD_K(1.0 / r->h[a]);
    c->ih2[a] = TESS_MHD_K(1.0 / (r->h[a] * r->h[a]));
    c->ihh[a] = TESS_MHD_K(1.0 / (r->h[pair[a][0]] * r->h[pair[a][1]]));
  }
  c->nu = TESS_MHD_K(p->nu);
  c->zeta = TESS_MHD_K(p->zeta);
  c->eta = TESS_MHD_K(p->eta);
  c->mu0 = TESS_MHD_K(p->mu0);
  c->mu0_inv = TESS_MHD_K(1.0) / c->mu0; /* the divisor's own correctly rounded reciprocal */
  c->cp = TESS_MHD_K(p->cp);
  c->cp_inv = TESS_MHD_K(1.0) / c->cp;
  /* The rounded divisors, read back as double through volatile: GCC 12.2's SLP vectorizer (-O2,
   * -O3) turned 1.0 / (double)c->mu0 and 1.0 / (double)c->cp into one divpd of the unrounded
   * doubles p->mu0, p->cp (1 / 1.4 instead of 1 / 1.4f; bench/mhd_kernel_bench.cu checks it). */
  volatile real cp = c->cp, cp_inv = c->cp_inv;
#if TESS_MHD_F32
  volatile real mu0 = c->mu0;
  c->mu0_rcp = 1.0 / (double)mu0;
  c->cp_rcp = 1.0 / (double)cp;
#endif
  int e;
  c->cp_pow2 = frexp((double)cp, &e) == 0.5 && isfinite((double)cp_inv) && cp_inv != 0;
  c->gamma = TESS_MHD_K(p->gamma);
  c->gm1 = TESS_MHD_K(p->gamma - 1.0);
  c->lnT0 = TESS_MHD_K(p->lnT0);
  c->lnrho0 = TESS_MHD_K(p->lnrho0);
  c->K = TESS_MHD_K(p->K);
  c->heating = TESS_MHD_K(p->heating);
  c->cs0sq = TESS_MHD_K(p->cs0 * p->cs0);
  c->eta_mu0 = TESS_MHD_K(p->eta * p->mu0);
  for (int i = 0; i < 3; i++)
    c->bext[i] = TESS_MHD_K(p->B_ext[i]);
  const double alpha[3] = TESS_MHD_RK3_ALPHA, beta[3] = TESS_MHD_RK3_BETA;
  const int k = p->substep;
  c->substep = k;
  c->dt = TESS_MHD_K(p->dt > 0.0 ? p->dt : r->dt);
  c->beta = TESS_MHD_K(beta[k]);
  c->ab = TESS_MHD_K(k > 0 ? alpha[k] / beta[k - 1] : 0.0);
  c->has_force = p->force_amp != 0.0;
  c->force_amp = p->force_amp;
  c->force_k = p->force_k;
  c->origin0 = r->origin[0];
  c->iglobal0 = r->global[0] > 0 ? r->global[0] : 1;
  c->global0 = (double)c->iglobal0;
  c->global0_inv = 1.0 / c->global0;
}

/* ---- stencils: from the values a side gathered ---------------------------------------------- */

/* First derivative from v[0..6], the values at offsets -3..3 along the axis:
 * sum_i a_i (v[+i] - v[-i]) / h. */
TESS_MHD_HD real TESS_MHD_FN(tess_mhd_der1)(const real v[7], real ih) {
  return TESS_MHD_FMA(TESS_MHD_W(TESS_MHD_A1), v[4] - v[2],
                      TESS_MHD_FMA(TESS_MHD_W(TESS_MHD_A2), v[5] - v[1],
                                   TESS_MHD_W(TESS_MHD_A3) * (v[6] - v[0]))) *
         ih;
}

/* Second derivative: (b0 v0 + sum_i b_i (v[+i] + v[-i])) / h^2. */
TESS_MHD_HD real TESS_MHD_FN(tess_mhd_der2)(const real v[7], real ih2) {
  return TESS_MHD_FMA(TESS_MHD_W(TESS_MHD_B0), v[3],
                      TESS_MHD_FMA(TESS_MHD_W(TESS_MHD_B1), v[4] + v[2],
                                   TESS_MHD_FMA(TESS_MHD_W(TESS_MHD_B2), v[5] + v[1],
                                                TESS_MHD_W(TESS_MHD_B3) * (v[6] + v[0])))) *
         ih2;
}

/* Mixed derivative d^2 f / da db along the diagonals p = e_a + e_b, m = e_a - e_b:
 * q[i-1] = {f(+i p), f(-i p), f(+i m), f(-i m)};
 * sum_i c_i [(f(+i p) + f(-i p)) - (f(+i m) + f(-i m))] / (h_a h_b). */
TESS_MHD_HD real TESS_MHD_FN(tess_mhd_dermix)(const real q[3][4], real ihh) {
  return TESS_MHD_FMA(
             TESS_MHD_W(TESS_MHD_C1), (q[0][0] + q[0][1]) - (q[0][2] + q[0][3]),
             TESS_MHD_FMA(TESS_MHD_W(TESS_MHD_C2), (q[1][0] + q[1][1]) - (q[1][2] + q[1][3]),
                          TESS_MHD_W(TESS_MHD_C3) * ((q[2][0] + q[2][1]) - (q[2][2] + q[2][3])))) *
         ihh;
}

/* Everything F needs at one cell. */
typedef struct {
  real val[TESS_MHD_NC];     /* the state */
  real grad[TESS_MHD_NC][3]; /* d f / d x_a */
  real lap[TESS_MHD_NC];     /* Laplacian */
  real gdu[3], gda[3];       /* grad div u, grad div A */
} TESS_MHD_T(tess_mhd_derivs);

/* Component c: value f0, gradient g, pure second derivatives d2 (0 on inactive axes). */
TESS_MHD_HD void TESS_MHD_FN(tess_mhd_field)(TESS_MHD_T(tess_mhd_derivs) * d, int c, real f0,
                                             const real g[3], const real d2[3]) {
  d->val[c] = f0;
  d->grad[c][0] = g[0];
  d->grad[c][1] = g[1];
  d->grad[c][2] = g[2];
  d->lap[c] = d2[0] + d2[1] + d2[2];
}

/* grad div of a vector v: diag[a] = d^2 v_a / dx_a^2, mix[a][b] = d^2 v_b / (dx_a dx_b) for
 * a != b (0 where an axis is inactive). */
TESS_MHD_HD void TESS_MHD_FN(tess_mhd_graddiv)(const real diag[3], const real mix[3][3],
                                               real gd[3]) {
  gd[0] = diag[0] + mix[0][1] + mix[0][2];
  gd[1] = mix[1][0] + diag[1] + mix[1][2];
  gd[2] = mix[2][0] + mix[2][1] + diag[2];
}

/* ---- the right-hand side -------------------------------------------------------------------- */

TESS_MHD_HD real TESS_MHD_FN(tess_mhd_dot3)(const real a[3], const real b[3]) {
  return TESS_MHD_FMA(a[0], b[0], TESS_MHD_FMA(a[1], b[1], a[2] * b[2]));
}

TESS_MHD_HD void TESS_MHD_FN(tess_mhd_cross3)(const real a[3], const real b[3], real out[3]) {
  out[0] = TESS_MHD_FMA(a[1], b[2], -(a[2] * b[1]));
  out[1] = TESS_MHD_FMA(a[2], b[0], -(a[0] * b[2]));
  out[2] = TESS_MHD_FMA(a[0], b[1], -(a[1] * b[0]));
}

/* F at one cell (the equations of mhd.h, term by term); force_y: the y body force there (0
 * without forcing); tab: exp's table. */
TESS_MHD_HD void TESS_MHD_FN(tess_mhd_rhs)(const TESS_MHD_T(tess_mhd_derivs) * d,
                                           const TESS_MHD_T(tess_mhd_coef) * p, real force_y,
                                           const unsigned long long *tab, real F[TESS_MHD_NC]) {
#define TESS_MHD_DIV_CP(a) TESS_MHD_DIVC(a, p->cp, p->cp_inv, p->cp_rcp, p->cp_pow2)
#define TESS_MHD_DOT       TESS_MHD_FN(tess_mhd_dot3)
  const real lnrho = d->val[TESS_MHD_LNRHO], ss = d->val[TESS_MHD_SS];
  const real *u = &d->val[TESS_MHD_UX];
  const real *grad_lnrho = d->grad[TESS_MHD_LNRHO], *grad_ss = d->grad[TESS_MHD_SS];
  const real(*grad_u)[3] = d->grad + TESS_MHD_UX; /* grad_u[i][a] = d u_i / d x_a */
  const real(*grad_a)[3] = d->grad + TESS_MHD_AX;
  const real *lap_u = &d->lap[TESS_MHD_UX], *lap_a = &d->lap[TESS_MHD_AX];

  const real div_u = grad_u[0][0] + grad_u[1][1] + grad_u[2][2];

  /* B = curl A + B_ext, j = (grad div A - Lap A) / mu0 */
  const real B[3] = {grad_a[2][1] - grad_a[1][2] + p->bext[0],
                     grad_a[0][2] - grad_a[2][0] + p->bext[1],
                     grad_a[1][0] - grad_a[0][1] + p->bext[2]};
  real j[3];
  for (int i = 0; i < 3; i++)
    j[i] = TESS_MHD_DIVC(d->gda[i] - lap_a[i], p->mu0, p->mu0_inv, p->mu0_rcp, 0);

  /* Traceless rate of strain */
  real S[3][3];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      S[i][k] = TESS_MHD_K(0.5) * (grad_u[i][k] + grad_u[k][i]);
  const real two3 = TESS_MHD_W(TESS_MHD_TWO3), one3 = TESS_MHD_W(TESS_MHD_ONE3);
  S[0][0] = TESS_MHD_FMA(two3, grad_u[0][0], -(one3 * (grad_u[1][1] + grad_u[2][2])));
  S[1][1] = TESS_MHD_FMA(two3, grad_u[1][1], -(one3 * (grad_u[0][0] + grad_u[2][2])));
  S[2][2] = TESS_MHD_FMA(two3, grad_u[2][2], -(one3 * (grad_u[0][0] + grad_u[1][1])));
  real SS_contract = TESS_MHD_K(0.0);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      SS_contract = TESS_MHD_FMA(S[i][k], S[i][k], SS_contract);

  /* Equation of state */
  const real rho = TESS_MHD_EXPR(lnrho, tab), inv_rho = TESS_MHD_RCP(rho);
  const real eos = TESS_MHD_FMA(p->gm1, lnrho - p->lnrho0, TESS_MHD_DIV_CP(p->gamma * ss));
  const real cs2 = p->cs0sq * TESS_MHD_EXPR(eos, tab);
  const real lnT = p->lnT0 + eos;
  const real inv_rhoT = TESS_MHD_RCP(rho * TESS_MHD_EXPR(lnT, tab));

  /* Continuity */
  F[TESS_MHD_LNRHO] = -TESS_MHD_DOT(u, grad_lnrho) - div_u;

  /* Momentum */
  real jxB[3];
  TESS_MHD_FN(tess_mhd_cross3)(j, B, jxB);
  for (int i = 0; i < 3; i++) {
    const real advection = TESS_MHD_DOT(grad_u[i], u);
    const real pressure = cs2 * (TESS_MHD_DIV_CP(grad_ss[i]) + grad_lnrho[i]);
    const real S_grad_lnrho = TESS_MHD_DOT(S[i], grad_lnrho);
    const real viscous = TESS_MHD_FMA(
        p->nu, TESS_MHD_FMA(TESS_MHD_K(2.0), S_grad_lnrho, TESS_MHD_FMA(one3, d->gdu[i], lap_u[i])),
        p->zeta * d->gdu[i]);
    F[TESS_MHD_UX + i] = TESS_MHD_FMA(jxB[i], inv_rho, -advection - pressure) + viscous;
  }
  if (p->has_force) F[TESS_MHD_UY] = F[TESS_MHD_UY] + force_y;

  /* Entropy */
  real grad_lnT[3];
  for (int i = 0; i < 3; i++)
    grad_lnT[i] = TESS_MHD_FMA(p->gm1, grad_lnrho[i], TESS_MHD_DIV_CP(p->gamma * grad_ss[i]));
  const real lap_lnT =
      TESS_MHD_FMA(p->gm1, d->lap[TESS_MHD_LNRHO], TESS_MHD_DIV_CP(p->gamma * d->lap[TESS_MHD_SS]));
  const real heat =
      TESS_MHD_FMA(p->zeta * rho * div_u, div_u,
                   TESS_MHD_FMA(TESS_MHD_K(2.0) * rho * p->nu, SS_contract,
                                TESS_MHD_FMA(p->eta_mu0, TESS_MHD_DOT(j, j), p->heating)));
  const real conduction = p->K * inv_rho * (lap_lnT + TESS_MHD_DOT(grad_lnT, grad_lnT));
  F[TESS_MHD_SS] = TESS_MHD_FMA(inv_rhoT, heat, -TESS_MHD_DOT(u, grad_ss)) + conduction;

  /* Induction */
  real uxB[3];
  TESS_MHD_FN(tess_mhd_cross3)(u, B, uxB);
  for (int i = 0; i < 3; i++)
    F[TESS_MHD_AX + i] = TESS_MHD_FMA(p->eta, lap_a[i], uxB[i]);
#undef TESS_MHD_DIV_CP
#undef TESS_MHD_DOT
}

/* The y body force at padded x coordinate x, rounded to `real`. */
TESS_MHD_HD real TESS_MHD_FN(tess_mhd_force_at)(const TESS_MHD_T(tess_mhd_coef) * p, int x) {
  if (!p->has_force) return TESS_MHD_K(0.0);
  long long gx = (p->origin0 + x) % p->iglobal0;
  if (gx < 0) gx += p->iglobal0;
  return (real)tess_mhd_force(p->force_amp, p->force_k, gx, p->global0, p->global0_inv);
}

/* The RK3 substep combination of one component: u^k (u), the old output (old, substeps 1 and 2
 * only), F. */
TESS_MHD_HD real TESS_MHD_FN(tess_mhd_rk)(const TESS_MHD_T(tess_mhd_coef) * p, real u, real old,
                                          real F) {
  if (p->substep == 0) return TESS_MHD_FMA(p->beta, p->dt * F, u);
  return TESS_MHD_FMA(p->beta, TESS_MHD_FMA(p->ab, u - old, p->dt * F), u);
}

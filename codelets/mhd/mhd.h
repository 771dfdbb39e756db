/* mhd.h — compressible non-ideal MHD (Astaroth's equations, digest 3.1) as one tessera kernel.
 *
 * One field `state` of 8 components (tess_mhd_var order): ln rho, u = (ux, uy, uz), specific
 * entropy s, magnetic vector potential A = (Ax, Ay, Az). Double precision, or single (the _f32
 * functions: float storage and float arithmetic, see "Single precision" below); periodic grid,
 * 2D (n2 = 1) or 3D. The right-hand side F = d state / dt, in the Eulerian forms of digest 3.1.2:
 *
 *   d lnrho/dt = -u.grad lnrho - div u
 *   d u/dt     = -(grad u).u - cs^2 (grad s / cp + grad lnrho) + (j x B) / rho
 *                + nu [Lap u + 1/3 grad div u + 2 S.grad lnrho] + zeta grad div u + f
 *   d s/dt     = -u.grad s + [heating + eta mu0 j.j + 2 rho nu S:S + zeta rho (div u)^2] / (rho T)
 *                + (K / rho) [Lap lnT + |grad lnT|^2]
 *   d A/dt     = u x B + eta Lap A                                  (Weyl gauge, B.4)
 *
 *   B = curl A + B_ext,  j = (grad div A - Lap A) / mu0,  rho = exp(lnrho)
 *   S_ii = 2/3 d_i u_i - 1/3 (d_j u_j + d_k u_k),  S_ij = (d_j u_i + d_i u_j) / 2,  S:S = sum
 * S_ij^2 cs^2 = cs0^2 exp(gamma s / cp + (gamma - 1)(lnrho - lnrho0)) lnT  = lnT0 + gamma s / cp +
 * (gamma - 1)(lnrho - lnrho0) f    = (0, force_amp sin(2 pi force_k x / Lx), 0)   (steady
 * Kolmogorov forcing; x = gx hx, gx the global cell index, Lx = nx hx; skipped when force_amp == 0)
 *
 * Derivatives are 6th-order central differences (digest 3.1.3) on the 55-point star_diag
 * stencil of radius 3: first a = {3/4, -3/20, 1/60}, second {-49/18, 3/2, -3/20, 1/90}, mixed
 * along the in-plane diagonals c = {270, -27, 2}/720. A derivative along an inactive axis
 * (extent 1, no ghost cells) is 0.
 *
 * Time integration: Williamson's third-order 2N-storage Runge-Kutta in Astaroth's register-free
 * form. Each substep k is one stage of the step program (see apps/mhd/mhd_program.h), with
 * in = u^k (read through the stencil) and out = u^(k-1) (read at the cell, then overwritten):
 *
 *   k = 0:     out = in + beta_0 dt F(in)
 *   k = 1, 2:  out = in + beta_k [ (alpha_k / beta_(k-1)) (in - out) + dt F(in) ]
 *
 *   alpha = (0, -5/9, -153/128),  beta = (1/3, 15/16, 8/15);  the caller swaps in and out after
 *   each substep, so after three substeps `in` holds u(t + dt).
 *
 * No promise of bitwise equality with other implementations is made: the CUDA kernel and the
 * plain reference model in tests/ are checked against this one in ULPs (budget 2 after one
 * step of random data, digest 5).
 *
 * Single precision (tess_mhd_rk3_cpu_f32, tess_mhd_rk3_cuda_f32; tess_region.prec ==
 * TESS_FP32, arrays in_f / out_f): the same equations, stencils, RK3 form and evaluation order,
 * with every stored value and every operation in float. The params block stays double: each
 * coefficient (the stencil weights, 1/h, 1/h^2, 1/(h_a h_b), dt, beta_k, alpha_k / beta_(k-1),
 * gamma - 1, cs0^2, eta mu0, the params themselves, 2/3, ...) is computed in double as in the
 * double version and rounded to float once. The forcing term (a function of x alone) is also
 * computed in double and rounded once. exp is expf. Against the double version on the same
 * float-rounded data, one step of random data lands within one float ULP of each component's
 * largest value (results near 0 differ by more of their own ULPs; tests/test_mhd_fp32.c); the
 * CPU and GPU single-precision versions agree bitwise (mhd_cuda.cu).
 */
#ifndef TESS_MHD_H
#define TESS_MHD_H

#include <stddef.h>

#include "tessera_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Components of the state field, in storage order. */
#define TESS_MHD_VAR_LIST(X)                                                                       \
  X(TESS_MHD_LNRHO, "lnrho")                                                                       \
  X(TESS_MHD_UX, "ux")                                                                             \
  X(TESS_MHD_UY, "uy")                                                                             \
  X(TESS_MHD_UZ, "uz")                                                                             \
  X(TESS_MHD_SS, "ss")                                                                             \
  X(TESS_MHD_AX, "ax")                                                                             \
  X(TESS_MHD_AY, "ay")                                                                             \
  X(TESS_MHD_AZ, "az")
#define TESS_MHD_X_VAR_ENUM(name, text) name,
typedef enum { TESS_MHD_VAR_LIST(TESS_MHD_X_VAR_ENUM) TESS_MHD_NC } tess_mhd_var;
const char *tess_mhd_var_name(int var);

#define TESS_MHD_RADIUS 3

/* The stage's params block. Units are Astaroth's code units (all unit scales 1). */
typedef struct tess_mhd_params {
  double nu;        /* kinematic viscosity */
  double zeta;      /* bulk viscosity */
  double eta;       /* magnetic diffusivity */
  double mu0;       /* vacuum permeability (> 0) */
  double cs0;       /* sound speed at s = 0, lnrho = lnrho0 */
  double cp;        /* heat capacity at constant pressure (> 0) */
  double gamma;     /* adiabatic index cp / cv */
  double lnT0;      /* ln T at s = 0, lnrho = lnrho0 */
  double lnrho0;    /* reference ln rho of the equation of state */
  double K;         /* radiative conductivity, constant: the K of div(K grad T) in B.3, which
                       enters ds/dt as (K / rho)(Lap lnT + |grad lnT|^2). Astaroth's
                       chi = K / (rho cp). */
  double heating;   /* H - C of B.3: net explicit heating per unit volume, constant (Astaroth: 0) */
  double B_ext[3];  /* imposed uniform field added to curl A (a periodic A cannot carry a mean
                       field): B = curl A + B_ext */
  double force_amp; /* amplitude of the Kolmogorov body force (per unit mass); 0: no forcing */
  int force_k;      /* its wave number: periods across the global x extent */
  double dt;        /* > 0: the time step the kernel uses; 0: the runtime's step (tess_sim_run's
                       dt, tess_region.dt), so that an app may change dt between runs */
  int substep;      /* RK3 substep 0, 1 or 2 (tess_mhd_add_rk3 sets it) */
} tess_mhd_params;

/* Astaroth's config/astaroth.conf values (digest 3.1.2), except gamma = 5/3 (the file has an
 * odd 0.5) and K = 1e-3 (hard-coded in one Astaroth kernel version); no heating, no imposed
 * field, no forcing, the runtime's dt, substep 0. */
#define TESS_MHD_PARAMS_DEFAULT                                                                    \
  {                                                                                                \
    .nu = 5e-3, .zeta = 1e-2, .eta = 5e-3, .mu0 = 1.4, .cs0 = 1.0, .cp = 1.0, .gamma = 5.0 / 3.0,  \
    .lnT0 = 1.2, .lnrho0 = 1.3, .K = 1e-3, .heating = 0.0, .B_ext = {0.0, 0.0, 0.0},               \
    .force_amp = 0.0, .force_k = 1, .dt = 0.0, .substep = 0                                        \
  }

/* Williamson (1980) 2N-storage RK3 coefficients, substeps 0..2. */
#define TESS_MHD_RK3_ALPHA                                                                         \
  { 0.0, -5.0 / 9.0, -153.0 / 128.0 }
#define TESS_MHD_RK3_BETA                                                                          \
  { 1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0 }

/* in[0] = state u^k (8 components, read through the stencil); out[0] = state u^(k-1) (8
 * components; read at the cell for substeps 1 and 2, then overwritten with u^(k+1)). */
extern const tess_kernel tess_mhd_rk3_kernel; /* "mhd_rk3", TESS_SHAPE_STAR_DIAG, radius 3 */

/* CPU reference version: synchronous, on the calling thread. Reports and aborts on a region
 * that does not fit the kernel (wrong fields or components, a stencil leaving the tile,
 * missing params, substep out of range, r->prec not TESS_FP64): those are runtime bugs. */
void tess_mhd_rk3_cpu(const tess_region *r);
/* The same in single precision: r->prec == TESS_FP32, arrays r->in_f / r->out_f. */
void tess_mhd_rk3_cpu_f32(const tess_region *r);

#ifdef TESS_HAVE_CUDA
/* Asynchronous: enqueue the kernel on `stream` (a cudaStream_t) and return. Array pointers in
 * r are device pointers; r itself and its params are host memory. */
void tess_mhd_rk3_cuda(const tess_region *r, void *stream);
/* The same in single precision (r->prec == TESS_FP32). */
void tess_mhd_rk3_cuda_f32(const tess_region *r, void *stream);
#endif

/* ---- the difference operators (also what the tests and the CUDA kernel mirror) ------------ */

/* First derivative at f[0] along element stride s: sum_i a_i (f[+i s] - f[-i s]) / h. */
static inline double tess_mhd_d1(const double *f, ptrdiff_t s, double inv_h) {
  const double a1 = 3.0 / 4.0, a2 = -3.0 / 20.0, a3 = 1.0 / 60.0;
  return (a1 * (f[s] - f[-s]) + a2 * (f[2 * s] - f[-2 * s]) + a3 * (f[3 * s] - f[-3 * s])) * inv_h;
}

/* Second derivative at f[0] along stride s: (b0 f0 + sum_i b_i (f[+i s] + f[-i s])) / h^2. */
static inline double tess_mhd_d2(const double *f, ptrdiff_t s, double inv_h2) {
  const double b0 = -49.0 / 18.0, b1 = 3.0 / 2.0, b2 = -3.0 / 20.0, b3 = 1.0 / 90.0;
  return (b0 * f[0] + b1 * (f[s] + f[-s]) + b2 * (f[2 * s] + f[-2 * s]) +
          b3 * (f[3 * s] + f[-3 * s])) *
         inv_h2;
}

/* Mixed derivative d^2 f / da db at f[0], strides s1 (axis a) and s2 (axis b), along the
 * diagonals: sum_i c_i [f(+i,+i) + f(-i,-i) - f(+i,-i) - f(-i,+i)] / (h_a h_b). */
static inline double tess_mhd_dxy(const double *f, ptrdiff_t s1, ptrdiff_t s2, double inv_h1h2) {
  const double c1 = 270.0 / 720.0, c2 = -27.0 / 720.0, c3 = 2.0 / 720.0;
  const ptrdiff_t p = s1 + s2, m = s1 - s2; /* the two diagonals */
  return (c1 * ((f[p] + f[-p]) - (f[m] + f[-m])) +
          c2 * ((f[2 * p] + f[-2 * p]) - (f[2 * m] + f[-2 * m])) +
          c3 * ((f[3 * p] + f[-3 * p]) - (f[3 * m] + f[-3 * m]))) *
         inv_h1h2;
}

/* Single-precision twins: the same weights, each computed in double and rounded to float once,
 * and the same evaluation order, in float. */
static inline float tess_mhd_d1_f32(const float *f, ptrdiff_t s, float inv_h) {
  const float a1 = (float)(3.0 / 4.0), a2 = (float)(-3.0 / 20.0), a3 = (float)(1.0 / 60.0);
  return (a1 * (f[s] - f[-s]) + a2 * (f[2 * s] - f[-2 * s]) + a3 * (f[3 * s] - f[-3 * s])) * inv_h;
}

static inline float tess_mhd_d2_f32(const float *f, ptrdiff_t s, float inv_h2) {
  const float b0 = (float)(-49.0 / 18.0), b1 = (float)(3.0 / 2.0), b2 = (float)(-3.0 / 20.0),
              b3 = (float)(1.0 / 90.0);
  return (b0 * f[0] + b1 * (f[s] + f[-s]) + b2 * (f[2 * s] + f[-2 * s]) +
          b3 * (f[3 * s] + f[-3 * s])) *
         inv_h2;
}

static inline float tess_mhd_dxy_f32(const float *f, ptrdiff_t s1, ptrdiff_t s2, float inv_h1h2) {
  const float c1 = (float)(270.0 / 720.0), c2 = (float)(-27.0 / 720.0), c3 = (float)(2.0 / 720.0);
  const ptrdiff_t p = s1 + s2, m = s1 - s2;
  return (c1 * ((f[p] + f[-p]) - (f[m] + f[-m])) +
          c2 * ((f[2 * p] + f[-2 * p]) - (f[2 * m] + f[-2 * m])) +
          c3 * ((f[3 * p] + f[-3 * p]) - (f[3 * m] + f[-3 * m]))) *
         inv_h1h2;
}

/* ---- time-step helpers: host only, no StarPU ------------------------------------------------ */

#define TESS_MHD_CDT  0.4 /* Courant factor of the advective limit (Astaroth's cdt) */
#define TESS_MHD_CDTV 0.3 /* factor of the diffusive limit (Astaroth's cdtv) */

/* Squared adiabatic sound speed cs^2 = cs0^2 exp(gamma s / cp + (gamma - 1)(lnrho - lnrho0)). */
double tess_mhd_cs2(const tess_mhd_params *p, double lnrho, double ss);
/* Fastest signal at a point: |u| + sqrt(cs^2 + vA^2), vA^2 = |B|^2 / (mu0 rho), for the state
 * s[8] (tess_mhd_var order) and the total field B (curl A + B_ext). */
double tess_mhd_signal_speed(const tess_mhd_params *p, const double s[TESS_MHD_NC],
                             const double B[3]);
/* max over a whole periodic grid of tess_mhd_signal_speed, with B = curl A + B_ext from the
 * 6th-order first derivative. fields[c]: component c, [n2][n1][n0], x fastest (what
 * tess_sim_gather returns). Also returns min rho through *min_rho when min_rho != NULL. */
double tess_mhd_max_signal_speed(const int n[3], const double h[3], const tess_mhd_params *p,
                                 const double *const fields[TESS_MHD_NC], double *min_rho);
/* Astaroth's time step (digest 3.1.4):
 *   dt = min( cdt hmin / max_speed,  cdtv hmin^2 / max(nu, zeta, eta, gamma chi_max) ),
 *   chi_max = K / (min_rho cp),  hmin over the active axes (n[i] > 1).
 * Either limit is skipped when its denominator is 0; INFINITY when both are. */
double tess_mhd_dt_limit(const tess_mhd_params *p, const int n[3], const double h[3],
                         double max_speed, double min_rho, double cdt, double cdtv);

#ifdef __cplusplus
}
#endif
#endif

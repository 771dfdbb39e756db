/* mhd.c — the MHD kernel's CPU reference, its kernel record and the time-step helpers.
 *
 * The kernel works cell by cell in three plain steps, the way the CUDA kernel mirrors it:
 *
 *   tess_mhd_cell_derivs   every derivative the right-hand side needs, of all 8 components,
 *                          taken once: values, gradients, pure second derivatives (for the
 *                          Laplacians) and grad div of u and A (from 6 mixed derivatives each)
 *   tess_mhd_rhs           F from those numbers alone: the equations of mhd.h, term by term
 *   tess_mhd_rk3_cpu       out = the RK3 substep combination of in, out and dt F
 *
 * The arithmetic of all three lives in mhd_cell.h, which the CUDA kernel (mhd_cuda.cu) compiles
 * too: one source, so the two agree bitwise. mhd_cpu_body.h is the CPU's data movement around
 * it, written once with a `real` type and included twice below: real = double gives
 * tess_mhd_rk3_cpu, real = float tess_mhd_rk3_cpu_f32 (every helper with an _f32 suffix).
 *
 * Tile layout [Z][Y][nc][X] (TESS_IDX): component c of a cell sits c*X elements after
 * component 0, and the next cell along y is nc*X elements away, along z nc*X*Y.
 *
 * This file is compiled with -ffp-contract=off (the build sets it), like every codelet.
 * No StarPU here: the runtime wraps tess_kernel functions in its own codelets.
 */
#include "mhd.h"
#include "region.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TESS_MHD_X_VAR_NAME(name, text) text,
static const char *const tess_mhd_var_names[] = {TESS_MHD_VAR_LIST(TESS_MHD_X_VAR_NAME)};

const char *tess_mhd_var_name(int var) {
  return var >= 0 && var < TESS_MHD_NC ? tess_mhd_var_names[var] : "?";
}

_Noreturn static void tess_mhd_fail(const char *file, int line, const char *msg) {
  fprintf(stderr, "%s:%d: mhd kernel: %s\n", file, line, msg);
  abort();
}
#define TESS_MHD_REQUIRE(cond, msg)                                                                \
  do {                                                                                             \
    if (!(cond)) tess_mhd_fail(__FILE__, __LINE__, msg);                                           \
  } while (0)

enum { LNRHO = TESS_MHD_LNRHO, UX = TESS_MHD_UX, SS = TESS_MHD_SS, AX = TESS_MHD_AX };

/* mhd_cell.h writes its multiply-adds as fma() (correctly rounded, as the GPU's DFMA/FFMA). On
 * x86-64 with GCC, flatten pulls the whole cell arithmetic into tess_mhd_rk3_cpu(_f32) and
 * target_clones builds that twice, with FMA instructions and without (then libm's fma: same
 * results, slower), picking one when the program loads. Not with clang (14 dropped the symbol). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TESS_MHD_CPU_FMA __attribute__((flatten, target_clones("fma", "default")))
#endif
#ifndef TESS_MHD_CPU_FMA
#define TESS_MHD_CPU_FMA
#endif

/* The kernel in double, then in float: one body (mhd_cpu_body.h around mhd_cell.h, the
 * arithmetic the CUDA kernel shares), two instantiations. */
#define TESS_MHD_HD static inline
#include "mhd_exp.h"

#define real            double
#define TESS_MHD_FN(f)  f
#define TESS_MHD_F32    0
#define TESS_MHD_PREC   TESS_FP64
#define TESS_MHD_IN(r)  ((r)->in[0])
#define TESS_MHD_OUT(r) ((r)->out[0])
#define TESS_MHD_TAB    tess_mhd_exp_tab
#include "mhd_cpu_body.h"

#define real            float
#define TESS_MHD_FN(f)  f##_f32
#define TESS_MHD_F32    1
#define TESS_MHD_PREC   TESS_FP32
#define TESS_MHD_IN(r)  ((r)->in_f[0])
#define TESS_MHD_OUT(r) ((r)->out_f[0])
#define TESS_MHD_TAB    tess_mhd_expf_tab
#include "mhd_cpu_body.h"

const tess_kernel tess_mhd_rk3_kernel = {
    .name = "mhd_rk3",
    .cpu = tess_mhd_rk3_cpu,
    .cuda = TESS_CUDA_FN(tess_mhd_rk3_cuda),
    .shape = TESS_SHAPE_STAR_DIAG,
    .radius = TESS_MHD_RADIUS,
    .cpu_f32 = tess_mhd_rk3_cpu_f32,
    .cuda_f32 = TESS_CUDA_FN(tess_mhd_rk3_cuda_f32),
    .images = TESS_IMAGES_CPU,
    .wraps = TESS_WRAP_CUDA,
};

/* ---- time-step helpers -------------------------------------------------------------------- */

double tess_mhd_cs2(const tess_mhd_params *p, double lnrho, double ss) {
  return p->cs0 * p->cs0 * exp(p->gamma * ss / p->cp + (p->gamma - 1.0) * (lnrho - p->lnrho0));
}

double tess_mhd_signal_speed(const tess_mhd_params *p, const double s[TESS_MHD_NC],
                             const double B[3]) {
  const double *u = &s[UX];
  const double va2 = tess_mhd_dot3(B, B) / (p->mu0 * exp(s[LNRHO]));
  return sqrt(tess_mhd_dot3(u, u)) + sqrt(tess_mhd_cs2(p, s[LNRHO], s[SS]) + va2);
}

/* d f / d x_a at cell (x, y, z) of a periodic [n2][n1][n0] array: the 7 points, wrapped,
 * copied into a line for tess_mhd_d1. */
static double tess_mhd_d1_periodic(const double *f, const int n[3], const int c[3], int a,
                                   double inv_h) {
  double line[2 * TESS_MHD_RADIUS + 1];
  for (int o = -TESS_MHD_RADIUS; o <= TESS_MHD_RADIUS; o++) {
    int q[3] = {c[0], c[1], c[2]};
    q[a] = ((q[a] + o) % n[a] + n[a]) % n[a];
    line[o + TESS_MHD_RADIUS] =
        f[(size_t)q[0] + (size_t)n[0] * ((size_t)q[1] + (size_t)n[1] * (size_t)q[2])];
  }
  return tess_mhd_d1(line + TESS_MHD_RADIUS, 1, inv_h);
}

double tess_mhd_max_signal_speed(const int n[3], const double h[3], const tess_mhd_params *p,
                                 const double *const fields[TESS_MHD_NC], double *min_rho) {
  double vmax = 0.0, rmin = INFINITY;
  int c[3];
  for (c[2] = 0; c[2] < n[2]; c[2]++)
    for (c[1] = 0; c[1] < n[1]; c[1]++)
      for (c[0] = 0; c[0] < n[0]; c[0]++) {
        const size_t i = (size_t)c[0] + (size_t)n[0] * ((size_t)c[1] + (size_t)n[1] * (size_t)c[2]);
        double s[TESS_MHD_NC], dA[3][3] = {{0.0}}; /* dA[i][a] = d A_i / d x_a */
        for (int v = 0; v < TESS_MHD_NC; v++)
          s[v] = fields[v][i];
        for (int v = 0; v < 3; v++)
          for (int a = 0; a < 3; a++)
            if (n[a] > 1) dA[v][a] = tess_mhd_d1_periodic(fields[AX + v], n, c, a, 1.0 / h[a]);
        const double B[3] = {dA[2][1] - dA[1][2] + p->B_ext[0], dA[0][2] - dA[2][0] + p->B_ext[1],
                             dA[1][0] - dA[0][1] + p->B_ext[2]};
        const double v = tess_mhd_signal_speed(p, s, B);
        if (v > vmax) vmax = v;
        if (exp(s[LNRHO]) < rmin) rmin = exp(s[LNRHO]);
      }
  if (min_rho) *min_rho = rmin;
  return vmax;
}

double tess_mhd_dt_limit(const tess_mhd_params *p, const int n[3], const double h[3],
                         double max_speed, double min_rho, double cdt, double cdtv) {
  double hmin = INFINITY;
  for (int a = 0; a < 3; a++)
    if (n[a] > 1 && h[a] < hmin) hmin = h[a];
  if (!isfinite(hmin)) return INFINITY; /* no active axis: nothing moves */
  double diff = p->nu;
  if (p->zeta > diff) diff = p->zeta;
  if (p->eta > diff) diff = p->eta;
  const double gamma_chi = p->gamma * p->K / (min_rho * p->cp);
  if (gamma_chi > diff) diff = gamma_chi;
  double dt = INFINITY;
  if (max_speed > 0.0) dt = cdt * hmin / max_speed;
  if (diff > 0.0 && cdtv * hmin * hmin / diff < dt) dt = cdtv * hmin * hmin / diff;
  return dt;
}

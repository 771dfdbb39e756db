/* mhd_reference.c — the plain serial MHD model of mhd_reference.h.
 *
 * One RK3 substep, in passes over whole grids:
 *
 *   fill_ghosts    u[c] padded by 3 on every active axis, ghosts copied from the other side
 *   derivatives    d1[c][a], d2[c][a] for every component c and axis a, dm[c][p] for every
 *                  component and axis pair p = xy, xz, yz: one owned-size array each
 *   rhs            F[c] from the derivative arrays, the equations written out per cell
 *   rk             q[c] = alpha_k q[c] + dt F[c];  u[c] += beta_k q[c]      (classic form)
 *                  or Astaroth's register-free form, q[c] holding u^(k-1)
 *
 * Sums of products are multiply-adds (fma) where the kernel has them (codelets/mhd/mhd_cell.h), in
 * its order: the register-free comparison is then per cell, as Astaroth's verification asks.
 *
 * Memory is plentiful next to clarity here: a 32^3 grid needs about 16 MB.
 */
#include "mhd_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define R  3 /* stencil radius */
#define NC 8 /* components */

typedef struct {
  int n[3]; /* owned extent */
  int g[3]; /* ghost width: R on active axes, 0 on inactive ones */
  int m[3]; /* padded extent n + 2g */
} grid;

/* Padded index of owned coordinates (x, y, z), each in [-g, n + g). */
static size_t pad(const grid *G, int x, int y, int z) {
  return (size_t)(x + G->g[0]) +
         (size_t)G->m[0] * ((size_t)(y + G->g[1]) + (size_t)G->m[1] * (size_t)(z + G->g[2]));
}

/* Owned index. */
static size_t own(const grid *G, int x, int y, int z) {
  return (size_t)x + (size_t)G->n[0] * ((size_t)y + (size_t)G->n[1] * (size_t)z);
}

static int wrap(int i, int n) { return ((i % n) + n) % n; }

static void fill_ghosts(const grid *G, double *u) {
  for (int z = -G->g[2]; z < G->n[2] + G->g[2]; z++)
    for (int y = -G->g[1]; y < G->n[1] + G->g[1]; y++)
      for (int x = -G->g[0]; x < G->n[0] + G->g[0]; x++)
        u[pad(G, x, y, z)] = u[pad(G, wrap(x, G->n[0]), wrap(y, G->n[1]), wrap(z, G->n[2]))];
}

/* u at (x, y, z) + i e_a + j e_b. */
static double at(const grid *G, const double *u, int x, int y, int z, int a, int i, int b, int j) {
  int c[3] = {x, y, z};
  c[a] += i;
  c[b] += j;
  return u[pad(G, c[0], c[1], c[2])];
}

static const double a_coef[R + 1] = {0.0, 3.0 / 4.0, -3.0 / 20.0, 1.0 / 60.0};
static const double b_coef[R + 1] = {-49.0 / 18.0, 3.0 / 2.0, -3.0 / 20.0, 1.0 / 90.0};
static const double c_coef[R + 1] = {0.0, 270.0 / 720.0, -27.0 / 720.0, 2.0 / 720.0};

/* The sums run from the outer ring in, as multiply-adds: the kernel's fma pattern. */
static double first(const grid *G, const double *u, int x, int y, int z, int a, double h) {
  double s = a_coef[R] * (at(G, u, x, y, z, a, R, a, 0) - at(G, u, x, y, z, a, -R, a, 0));
  for (int i = R - 1; i >= 1; i--)
    s = fma(a_coef[i], at(G, u, x, y, z, a, i, a, 0) - at(G, u, x, y, z, a, -i, a, 0), s);
  return s * (1.0 / h);
}

static double second(const grid *G, const double *u, int x, int y, int z, int a, double h) {
  double s = b_coef[R] * (at(G, u, x, y, z, a, R, a, 0) + at(G, u, x, y, z, a, -R, a, 0));
  for (int i = R - 1; i >= 1; i--)
    s = fma(b_coef[i], at(G, u, x, y, z, a, i, a, 0) + at(G, u, x, y, z, a, -i, a, 0), s);
  s = fma(b_coef[0], at(G, u, x, y, z, a, 0, a, 0), s);
  return s * (1.0 / (h * h));
}

static double mixed(const grid *G, const double *u, int x, int y, int z, int a, int b, double ha,
                    double hb) {
  double s = 0.0;
  for (int i = R; i >= 1; i--) {
    const double same = at(G, u, x, y, z, a, i, b, i) + at(G, u, x, y, z, a, -i, b, -i);
    const double opposite = at(G, u, x, y, z, a, i, b, -i) + at(G, u, x, y, z, a, -i, b, i);
    s = i == R ? c_coef[i] * (same - opposite) : fma(c_coef[i], same - opposite, s);
  }
  return s * (1.0 / (ha * hb));
}

/* The work arrays of one model run. */
typedef struct {
  grid G;
  size_t cells;
  double *u[NC];     /* padded */
  double *q[NC];     /* RK register */
  double *F[NC];     /* right-hand side */
  double *d1[NC][3]; /* d u_c / d x_a */
  double *d2[NC][3]; /* d^2 u_c / d x_a^2 */
  double *dm[NC][3]; /* d^2 u_c / d x_a d x_b, pairs xy, xz, yz */
} model;

static const int pair_axes[3][2] = {{0, 1}, {0, 2}, {1, 2}};

/* Pair index of axes a != b. */
static int pair_of(int a, int b) {
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  return lo == 0 ? (hi == 1 ? 0 : 1) : 2;
}

static void derivatives(model *M, const double h[3]) {
  const grid *G = &M->G;
  for (int c = 0; c < NC; c++) {
    fill_ghosts(G, M->u[c]);
    for (int z = 0; z < G->n[2]; z++)
      for (int y = 0; y < G->n[1]; y++)
        for (int x = 0; x < G->n[0]; x++) {
          const size_t i = own(G, x, y, z);
          for (int a = 0; a < 3; a++) {
            const int on = G->n[a] > 1;
            M->d1[c][a][i] = on ? first(G, M->u[c], x, y, z, a, h[a]) : 0.0;
            M->d2[c][a][i] = on ? second(G, M->u[c], x, y, z, a, h[a]) : 0.0;
          }
          for (int p = 0; p < 3; p++) {
            const int a = pair_axes[p][0], b = pair_axes[p][1];
            const int on = G->n[a] > 1 && G->n[b] > 1;
            M->dm[c][p][i] = on ? mixed(G, M->u[c], x, y, z, a, b, h[a], h[b]) : 0.0;
          }
        }
  }
}

/* Second derivative d^2 u_c / d x_a d x_b from the arrays (pure or mixed). */
static double hess(const model *M, int c, int a, int b, size_t i) {
  return a == b ? M->d2[c][a][i] : M->dm[c][pair_of(a, b)][i];
}

/* a . b as the kernel forms it: a0 b0 + (a1 b1 + a2 b2), two multiply-adds. */
static double dot(const double a[3], const double b[3]) {
  return fma(a[0], b[0], fma(a[1], b[1], a[2] * b[2]));
}

/* x y - z w with the first product fused, as the kernel's cross products. */
static double fms(double x, double y, double z, double w) { return fma(x, y, -(z * w)); }

static void rhs(model *M, const tess_mhd_params *p) {
  const grid *G = &M->G;
  const double two_pi = 6.283185307179586476925286766559;
  for (int z = 0; z < G->n[2]; z++)
    for (int y = 0; y < G->n[1]; y++)
      for (int x = 0; x < G->n[0]; x++) {
        const size_t i = own(G, x, y, z), ip = pad(G, x, y, z);
        const double lnrho = M->u[TESS_MHD_LNRHO][ip], ss = M->u[TESS_MHD_SS][ip];
        double u[3], gl[3], gs[3], gu[3][3], gA[3][3], lapu[3], lapA[3], gdu[3], gdA[3];
        for (int k = 0; k < 3; k++)
          u[k] = M->u[TESS_MHD_UX + k][ip];
        for (int a = 0; a < 3; a++) {
          gl[a] = M->d1[TESS_MHD_LNRHO][a][i];
          gs[a] = M->d1[TESS_MHD_SS][a][i];
          for (int k = 0; k < 3; k++) {
            gu[k][a] = M->d1[TESS_MHD_UX + k][a][i];
            gA[k][a] = M->d1[TESS_MHD_AX + k][a][i];
          }
        }
        for (int k = 0; k < 3; k++) {
          lapu[k] = M->d2[TESS_MHD_UX + k][0][i] + M->d2[TESS_MHD_UX + k][1][i] +
                    M->d2[TESS_MHD_UX + k][2][i];
          lapA[k] = M->d2[TESS_MHD_AX + k][0][i] + M->d2[TESS_MHD_AX + k][1][i] +
                    M->d2[TESS_MHD_AX + k][2][i];
          /* (grad div v)_k = sum_b d^2 v_b / dx_k dx_b */
          gdu[k] = hess(M, TESS_MHD_UX + 0, k, 0, i) + hess(M, TESS_MHD_UX + 1, k, 1, i) +
                   hess(M, TESS_MHD_UX + 2, k, 2, i);
          gdA[k] = hess(M, TESS_MHD_AX + 0, k, 0, i) + hess(M, TESS_MHD_AX + 1, k, 1, i) +
                   hess(M, TESS_MHD_AX + 2, k, 2, i);
        }
        const double lapl =
            M->d2[TESS_MHD_LNRHO][0][i] + M->d2[TESS_MHD_LNRHO][1][i] + M->d2[TESS_MHD_LNRHO][2][i];
        const double laps =
            M->d2[TESS_MHD_SS][0][i] + M->d2[TESS_MHD_SS][1][i] + M->d2[TESS_MHD_SS][2][i];
        const double divu = gu[0][0] + gu[1][1] + gu[2][2];

        /* magnetic field and current */
        const double Bx = gA[2][1] - gA[1][2] + p->B_ext[0];
        const double By = gA[0][2] - gA[2][0] + p->B_ext[1];
        const double Bz = gA[1][0] - gA[0][1] + p->B_ext[2];
        const double jx = (gdA[0] - lapA[0]) / p->mu0;
        const double jy = (gdA[1] - lapA[1]) / p->mu0;
        const double jz = (gdA[2] - lapA[2]) / p->mu0;

        /* traceless strain */
        double S[3][3];
        S[0][0] = fma(2.0 / 3.0, gu[0][0], -((1.0 / 3.0) * (gu[1][1] + gu[2][2])));
        S[1][1] = fma(2.0 / 3.0, gu[1][1], -((1.0 / 3.0) * (gu[0][0] + gu[2][2])));
        S[2][2] = fma(2.0 / 3.0, gu[2][2], -((1.0 / 3.0) * (gu[0][0] + gu[1][1])));
        S[0][1] = S[1][0] = 0.5 * (gu[0][1] + gu[1][0]);
        S[0][2] = S[2][0] = 0.5 * (gu[0][2] + gu[2][0]);
        S[1][2] = S[2][1] = 0.5 * (gu[1][2] + gu[2][1]);
        double S2 = 0.0;
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++)
            S2 = fma(S[a][b], S[a][b], S2);

        /* equation of state */
        const double rho = exp(lnrho);
        const double eos = fma(p->gamma - 1.0, lnrho - p->lnrho0, p->gamma * ss / p->cp);
        const double lnT = p->lnT0 + eos;
        const double cs2 = p->cs0 * p->cs0 * exp(eos);
        const double T = exp(lnT);

        /* continuity */
        M->F[TESS_MHD_LNRHO][i] = -dot(u, gl) - divu;

        /* momentum */
        const double jxB[3] = {fms(jy, Bz, jz, By), fms(jz, Bx, jx, Bz), fms(jx, By, jy, Bx)};
        for (int k = 0; k < 3; k++) {
          const double adv = dot(gu[k], u);
          const double Sgl = dot(S[k], gl);
          const double visc =
              fma(p->nu, fma(2.0, Sgl, fma(1.0 / 3.0, gdu[k], lapu[k])), p->zeta * gdu[k]);
          M->F[TESS_MHD_UX + k][i] =
              fma(jxB[k], 1.0 / rho, -adv - cs2 * (gs[k] / p->cp + gl[k])) + visc;
        }
        if (p->force_amp != 0.0)
          M->F[TESS_MHD_UY][i] +=
              p->force_amp * sin(two_pi * (double)((long)p->force_k * x) / (double)G->n[0]);

        /* entropy */
        double glnT[3];
        for (int a = 0; a < 3; a++)
          glnT[a] = fma(p->gamma - 1.0, gl[a], p->gamma * gs[a] / p->cp);
        const double laplnT = fma(p->gamma - 1.0, lapl, p->gamma * laps / p->cp);
        const double j[3] = {jx, jy, jz};
        const double heating =
            fma(p->zeta * rho * divu, divu,
                fma(2.0 * rho * p->nu, S2, fma(p->eta * p->mu0, dot(j, j), p->heating)));
        M->F[TESS_MHD_SS][i] = fma(1.0 / (rho * T), heating, -dot(u, gs)) +
                               p->K * (1.0 / rho) * (laplnT + dot(glnT, glnT));

        /* induction */
        M->F[TESS_MHD_AX + 0][i] = fma(p->eta, lapA[0], fms(u[1], Bz, u[2], By));
        M->F[TESS_MHD_AX + 1][i] = fma(p->eta, lapA[1], fms(u[2], Bx, u[0], Bz));
        M->F[TESS_MHD_AX + 2][i] = fma(p->eta, lapA[2], fms(u[0], By, u[1], Bx));
      }
}

static void model_free(model *M) {
  for (int c = 0; c < NC; c++) {
    free(M->u[c]);
    free(M->q[c]);
    free(M->F[c]);
    for (int a = 0; a < 3; a++) {
      free(M->d1[c][a]);
      free(M->d2[c][a]);
      free(M->dm[c][a]);
    }
  }
}

int mhd_ref_step(int n[3], double h[3], const tess_mhd_params *p, double dt, double *fields[8]) {
  return mhd_ref_step_form(n, h, p, dt, fields, MHD_REF_RK_CLASSIC);
}

int mhd_ref_step_form(int n[3], double h[3], const tess_mhd_params *p, double dt, double *fields[8],
                      mhd_ref_rk_form form) {
  model M;
  memset(&M, 0, sizeof M);
  size_t padded = 1;
  M.cells = 1;
  for (int a = 0; a < 3; a++) {
    if (n[a] < 1 || (n[a] > 1 && n[a] < R)) return -1;
    M.G.n[a] = n[a];
    M.G.g[a] = n[a] > 1 ? R : 0;
    M.G.m[a] = n[a] + 2 * M.G.g[a];
    padded *= (size_t)M.G.m[a];
    M.cells *= (size_t)n[a];
  }
  int ok = 1;
  for (int c = 0; c < NC; c++) {
    ok &= (M.u[c] = calloc(padded, sizeof(double))) != NULL;
    ok &= (M.q[c] = calloc(M.cells, sizeof(double))) != NULL;
    ok &= (M.F[c] = calloc(M.cells, sizeof(double))) != NULL;
    for (int a = 0; a < 3; a++) {
      ok &= (M.d1[c][a] = calloc(M.cells, sizeof(double))) != NULL;
      ok &= (M.d2[c][a] = calloc(M.cells, sizeof(double))) != NULL;
      ok &= (M.dm[c][a] = calloc(M.cells, sizeof(double))) != NULL;
    }
  }
  if (!ok) {
    model_free(&M);
    return -1;
  }

  const grid *G = &M.G;
  for (int c = 0; c < NC; c++)
    for (int z = 0; z < n[2]; z++)
      for (int y = 0; y < n[1]; y++)
        for (int x = 0; x < n[0]; x++)
          M.u[c][pad(G, x, y, z)] = fields[c][own(G, x, y, z)];

  const double alpha[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0};
  const double beta[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};
  for (int k = 0; k < 3; k++) {
    derivatives(&M, h);
    rhs(&M, p);
    for (int c = 0; c < NC; c++)
      for (int z = 0; z < n[2]; z++)
        for (int y = 0; y < n[1]; y++)
          for (int x = 0; x < n[0]; x++) {
            const size_t i = own(G, x, y, z), ip = pad(G, x, y, z);
            if (form == MHD_REF_RK_CLASSIC) {
              M.q[c][i] = alpha[k] * M.q[c][i] + dt * M.F[c][i];
              M.u[c][ip] += beta[k] * M.q[c][i];
            } else { /* q holds u^(k-1), as the kernel's out buffer does */
              const double uk = M.u[c][ip];
              if (k == 0)
                M.u[c][ip] = fma(beta[0], dt * M.F[c][i], uk);
              else
                M.u[c][ip] =
                    fma(beta[k], fma(alpha[k] / beta[k - 1], uk - M.q[c][i], dt * M.F[c][i]), uk);
              M.q[c][i] = uk;
            }
          }
  }

  for (int c = 0; c < NC; c++)
    for (int z = 0; z < n[2]; z++)
      for (int y = 0; y < n[1]; y++)
        for (int x = 0; x < n[0]; x++)
          fields[c][own(G, x, y, z)] = M.u[c][pad(G, x, y, z)];
  model_free(&M);
  return 0;
}

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

/* Geometry of one tile, shared by every cell of a region. */
typedef struct {
  ptrdiff_t comp;      /* element distance between components of one cell */
  ptrdiff_t stride[3]; /* element distance to the next cell along x, y, z */
  int active[3];       /* axis has a stencil (extent > 1) */
  double inv_h[3];     /* 1 / h */
  double inv_h2[3];    /* 1 / h^2 */
  double inv_hh[3];    /* 1 / (h_a h_b) for the pairs xy, xz, yz */
} tess_mhd_geom;

/* The axis pairs of the mixed derivatives, in the order of inv_hh. */
static const int tess_mhd_pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};

/* Everything F needs at one cell. */
typedef struct {
  double val[TESS_MHD_NC];     /* the state */
  double grad[TESS_MHD_NC][3]; /* d f / d x_a */
  double d2[TESS_MHD_NC][3];   /* d^2 f / d x_a^2 */
  double graddiv_u[3];         /* grad div u */
  double graddiv_a[3];         /* grad div A */
} tess_mhd_derivs;

/* d^2 v_b / (d x_a d x_b) summed over b: component a of grad div v, for the vector v whose
 * x component is at v[0] (components `comp` apart). */
static void tess_mhd_graddiv(const double *v, const tess_mhd_geom *g, const double d2[3][3],
                             double out[3]) {
  double mixed[3][3] = {{0.0}}; /* mixed[a][b] = d^2 v_b / (dx_a dx_b), a != b */
  for (int q = 0; q < 3; q++) {
    const int a = tess_mhd_pair[q][0], b = tess_mhd_pair[q][1];
    if (!g->active[a] || !g->active[b]) continue;
    mixed[a][b] = tess_mhd_dxy(v + b * g->comp, g->stride[a], g->stride[b], g->inv_hh[q]);
    mixed[b][a] = tess_mhd_dxy(v + a * g->comp, g->stride[a], g->stride[b], g->inv_hh[q]);
  }
  out[0] = d2[0][0] + mixed[0][1] + mixed[0][2];
  out[1] = mixed[1][0] + d2[1][1] + mixed[1][2];
  out[2] = mixed[2][0] + mixed[2][1] + d2[2][2];
}

/* f: component 0 of the cell. */
static void tess_mhd_cell_derivs(const double *f, const tess_mhd_geom *g, tess_mhd_derivs *d) {
  for (int c = 0; c < TESS_MHD_NC; c++) {
    const double *fc = f + c * g->comp;
    d->val[c] = fc[0];
    for (int a = 0; a < 3; a++) {
      d->grad[c][a] = g->active[a] ? tess_mhd_d1(fc, g->stride[a], g->inv_h[a]) : 0.0;
      d->d2[c][a] = g->active[a] ? tess_mhd_d2(fc, g->stride[a], g->inv_h2[a]) : 0.0;
    }
  }
  tess_mhd_graddiv(f + UX * g->comp, g, (const double(*)[3])(d->d2 + UX), d->graddiv_u);
  tess_mhd_graddiv(f + AX * g->comp, g, (const double(*)[3])(d->d2 + AX), d->graddiv_a);
}

static double dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* F at one cell; force_y is the y body force there (0 without forcing). */
static void tess_mhd_rhs(const tess_mhd_derivs *d, const tess_mhd_params *p, double force_y,
                         double F[TESS_MHD_NC]) {
  const double lnrho = d->val[LNRHO], ss = d->val[SS];
  const double *u = &d->val[UX];
  const double *grad_lnrho = d->grad[LNRHO], *grad_ss = d->grad[SS];
  const double(*grad_u)[3] = (const double(*)[3])(d->grad + UX); /* grad_u[i][a] = d u_i / d x_a */
  const double(*grad_a)[3] = (const double(*)[3])(d->grad + AX);

  double lap[TESS_MHD_NC];
  for (int c = 0; c < TESS_MHD_NC; c++)
    lap[c] = d->d2[c][0] + d->d2[c][1] + d->d2[c][2];
  const double *lap_u = &lap[UX], *lap_a = &lap[AX];

  const double div_u = grad_u[0][0] + grad_u[1][1] + grad_u[2][2];

  /* B = curl A + B_ext, j = (grad div A - Lap A) / mu0 */
  const double B[3] = {grad_a[2][1] - grad_a[1][2] + p->B_ext[0],
                       grad_a[0][2] - grad_a[2][0] + p->B_ext[1],
                       grad_a[1][0] - grad_a[0][1] + p->B_ext[2]};
  double j[3];
  for (int i = 0; i < 3; i++)
    j[i] = (d->graddiv_a[i] - lap_a[i]) / p->mu0;

  /* Traceless rate of strain */
  double S[3][3];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      S[i][k] = 0.5 * (grad_u[i][k] + grad_u[k][i]);
  S[0][0] = (2.0 / 3.0) * grad_u[0][0] - (1.0 / 3.0) * (grad_u[1][1] + grad_u[2][2]);
  S[1][1] = (2.0 / 3.0) * grad_u[1][1] - (1.0 / 3.0) * (grad_u[0][0] + grad_u[2][2]);
  S[2][2] = (2.0 / 3.0) * grad_u[2][2] - (1.0 / 3.0) * (grad_u[0][0] + grad_u[1][1]);
  double SS_contract = 0.0;
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      SS_contract += S[i][k] * S[i][k];

  /* Equation of state */
  const double rho = exp(lnrho), inv_rho = 1.0 / rho;
  const double eos = p->gamma * ss / p->cp + (p->gamma - 1.0) * (lnrho - p->lnrho0);
  const double cs2 = p->cs0 * p->cs0 * exp(eos);
  const double lnT = p->lnT0 + eos;
  const double inv_rhoT = 1.0 / (rho * exp(lnT));

  /* Continuity */
  F[LNRHO] = -dot3(u, grad_lnrho) - div_u;

  /* Momentum */
  double jxB[3];
  cross3(j, B, jxB);
  for (int i = 0; i < 3; i++) {
    const double advection = dot3(grad_u[i], u);
    const double pressure = cs2 * (grad_ss[i] / p->cp + grad_lnrho[i]);
    const double S_grad_lnrho = dot3(S[i], grad_lnrho);
    const double viscous = p->nu * (lap_u[i] + (1.0 / 3.0) * d->graddiv_u[i] + 2.0 * S_grad_lnrho) +
                           p->zeta * d->graddiv_u[i];
    F[UX + i] = -advection - pressure + jxB[i] * inv_rho + viscous;
  }
  if (p->force_amp != 0.0) F[UX + 1] += force_y;

  /* Entropy */
  const double grad_lnT[3] = {p->gamma * grad_ss[0] / p->cp + (p->gamma - 1.0) * grad_lnrho[0],
                              p->gamma * grad_ss[1] / p->cp + (p->gamma - 1.0) * grad_lnrho[1],
                              p->gamma * grad_ss[2] / p->cp + (p->gamma - 1.0) * grad_lnrho[2]};
  const double lap_lnT = p->gamma * lap[SS] / p->cp + (p->gamma - 1.0) * lap[LNRHO];
  const double heat = p->heating + p->eta * p->mu0 * dot3(j, j) + 2.0 * rho * p->nu * SS_contract +
                      p->zeta * rho * div_u * div_u;
  const double conduction = p->K * inv_rho * (lap_lnT + dot3(grad_lnT, grad_lnT));
  F[SS] = -dot3(u, grad_ss) + inv_rhoT * heat + conduction;

  /* Induction */
  double uxB[3];
  cross3(u, B, uxB);
  for (int i = 0; i < 3; i++)
    F[AX + i] = uxB[i] + p->eta * lap_a[i];
}

/* ---- the kernel --------------------------------------------------------------------------- */

void tess_mhd_rk3_cpu(const tess_region *r) {
  if (tess_region_empty(r)) return;

  TESS_MHD_REQUIRE(r->nin == 1 && r->nout == 1, "needs one input (u^k) and one output (u^(k-1))");
  TESS_MHD_REQUIRE(r->in[0] && r->out[0], "missing field array");
  TESS_MHD_REQUIRE(r->in_nc[0] == TESS_MHD_NC && r->out_nc[0] == TESS_MHD_NC,
                   "input and output need 8 components (lnrho, ux, uy, uz, ss, ax, ay, az)");
  TESS_MHD_REQUIRE(r->in[0] != (const double *)r->out[0], "output aliases the input");
  TESS_MHD_REQUIRE(r->params != NULL, "missing tess_mhd_params");
  const tess_mhd_params *p = r->params;
  TESS_MHD_REQUIRE(p->substep >= 0 && p->substep <= 2, "substep must be 0, 1 or 2");
  TESS_MHD_REQUIRE(tess_region_fits(r, TESS_MHD_RADIUS),
                   "region plus stencil radius leaves the padded tile");

  tess_mhd_geom g;
  const ptrdiff_t X = r->dim[0], Y = r->dim[1];
  g.comp = X;
  g.stride[0] = 1;
  g.stride[1] = TESS_MHD_NC * X;
  g.stride[2] = TESS_MHD_NC * X * Y;
  for (int a = 0; a < 3; a++) {
    g.active[a] = r->dim[a] > 1;
    g.inv_h[a] = 1.0 / r->h[a];
    g.inv_h2[a] = 1.0 / (r->h[a] * r->h[a]);
  }
  for (int q = 0; q < 3; q++)
    g.inv_hh[q] = 1.0 / (r->h[tess_mhd_pair[q][0]] * r->h[tess_mhd_pair[q][1]]);

  const double alpha[3] = TESS_MHD_RK3_ALPHA, beta[3] = TESS_MHD_RK3_BETA;
  const int k = p->substep;
  const double dt = p->dt > 0.0 ? p->dt : r->dt;
  const double ab = k > 0 ? alpha[k] / beta[k - 1] : 0.0;
  const double two_pi = 6.283185307179586476925286766559;

  for (int z = r->lo[2]; z < r->hi[2]; z++)
    for (int y = r->lo[1]; y < r->hi[1]; y++)
      for (int x = r->lo[0]; x < r->hi[0]; x++) {
        const size_t cell = TESS_IDX(X, Y, TESS_MHD_NC, 0, x, y, z);
        const double *in = r->in[0] + cell;
        double *out = r->out[0] + cell;

        double force_y = 0.0;
        if (p->force_amp != 0.0) {
          long gx = (r->origin[0] + x) % r->global[0];
          if (gx < 0) gx += r->global[0];
          force_y =
              p->force_amp * sin(two_pi * (double)((long)p->force_k * gx) / (double)r->global[0]);
        }

        tess_mhd_derivs d;
        double F[TESS_MHD_NC];
        tess_mhd_cell_derivs(in, &g, &d);
        tess_mhd_rhs(&d, p, force_y, F);

        for (int c = 0; c < TESS_MHD_NC; c++) {
          const double u = in[c * X];
          if (k == 0)
            out[c * X] = u + beta[0] * (dt * F[c]);
          else
            out[c * X] = u + beta[k] * (ab * (u - out[c * X]) + dt * F[c]);
        }
      }
}

const tess_kernel tess_mhd_rk3_kernel = {
    .name = "mhd_rk3",
    .cpu = tess_mhd_rk3_cpu,
    .cuda = TESS_CUDA_FN(tess_mhd_rk3_cuda),
    .shape = TESS_SHAPE_STAR_DIAG,
    .radius = TESS_MHD_RADIUS,
};

/* ---- time-step helpers -------------------------------------------------------------------- */

double tess_mhd_cs2(const tess_mhd_params *p, double lnrho, double ss) {
  return p->cs0 * p->cs0 * exp(p->gamma * ss / p->cp + (p->gamma - 1.0) * (lnrho - p->lnrho0));
}

double tess_mhd_signal_speed(const tess_mhd_params *p, const double s[TESS_MHD_NC],
                             const double B[3]) {
  const double *u = &s[UX];
  const double va2 = dot3(B, B) / (p->mu0 * exp(s[LNRHO]));
  return sqrt(dot3(u, u)) + sqrt(tess_mhd_cs2(p, s[LNRHO], s[SS]) + va2);
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

/* maxwell.c — electromagnetic waves: eps dE/dt = curl H, mu dH/dt = -curl E on a periodic box of
 * side 1; 6th order in space, RK3 in time (codelets/maxwell/maxwell_cell.h); CPU or CUDA, double or
 * single. --init wave: a plane wave of --wave periods per box along x and y, E in the xy plane,
 * H along z; --init curl: E = curl A and H = curl B of random A, B through the kernel's own
 * difference operator, so the discrete div E and div H start (and stay) at round-off.
 * Progress lines print the energy 1/2 <eps E^2 + mu H^2>.
 *   tess-maxwell --grid 64,64,1 --wave 1,1,0 --steps 200 --every 20 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "maxwell.h"
#include "noise.h"

typedef struct {
  double eps, mu, cfl;
  int wave[3], u, root;
  char init[8];
  char walls[8]; /* boundary.walls: none | pec */
  const int *n;
} mw;

/* boundary.walls = pec: perfectly conducting walls at the faces of the non-periodic axes:
 * tangential E and normal H (B) odd (zero on the wall), normal E and tangential H even. */
static tess_err set_pec(tess_sim_t sim, int u, const int periodic[3]) {
  for (int face = 0; face < 6; face++)
    for (int c = 0; !periodic[face / 2] && c < 6; c++) {
      const int along = c % 3 == face / 2; /* the component normal to the face */
      const int odd = c < 3 ? !along : along;
      const tess_bc bc = {odd ? TESS_BC_ANTISYMMETRIC : TESS_BC_SYMMETRIC, 0, NULL, NULL};
      tess_err e = tess_sim_set_boundary(sim, u, c, face, &bc);
      if (e) return e;
    }
  return TESS_OK;
}

/* A reproducible number in [-0.5, 0.5) for global cell g and component c. */
static double noise(const long g[3], int c) {
  return tess_noise_unit((uint64_t)(((g[2] * 1000003L + g[1]) * 1000003L + g[0]) * 8 + c)) - 0.5;
}

/* d(noise component c)/dx_a at g: the kernel's 6th-order difference, periodic, h = 1/n. */
static double d1(const mw *m, const long g[3], int c, int a) {
  static const double w[3] = {3.0 / 4.0, -3.0 / 20.0, 1.0 / 60.0};
  double s = 0;
  for (int j = 1; j <= 3 && m->n[a] > 1; j++) {
    long p[3] = {g[0], g[1], g[2]}, q[3] = {g[0], g[1], g[2]};
    p[a] = (g[a] + j) % m->n[a];
    q[a] = (g[a] - j + 3L * m->n[a]) % m->n[a];
    s += w[j - 1] * (noise(p, c) - noise(q, c));
  }
  return s * m->n[a];
}

/* wave: E = (ky, -kx, 0)/|k| cos(k.x), H = k/|k| x E sqrt(eps/mu) = -sqrt(eps/mu) z cos(k.x) */
static double init(const long g[3], int comp, void *ctx) {
  const mw *m = ctx;
  if (!strcmp(m->init, "cavity")) /* cavity: E_z = sin(pi l x) sin(pi m y), H = 0: a TM_lm mode */
    return comp != 2 ? 0.0
                     : sin(3.141592653589793 * m->wave[0] * (g[0] + 0.5) / m->n[0]) *
                           sin(3.141592653589793 * m->wave[1] * (g[1] + 0.5) / m->n[1]);
  const int i = comp % 3, j = (i + 1) % 3, k = (i + 2) % 3, f = comp < 3 ? 0 : 3;
  if (m->init[0] == 'c') return d1(m, g, f + k, j) - d1(m, g, f + j, k); /* (curl A)_i */
  const double kx = m->wave[0], ky = m->wave[1], kk = sqrt(kx * kx + ky * ky);
  const double amp[6] = {ky / kk, -kx / kk, 0, 0, 0, -sqrt(m->eps / m->mu)};
  return amp[comp] *
         cos(6.283185307179586 * (kx * (g[0] + 0.5) / m->n[0] + ky * (g[1] + 0.5) / m->n[1]));
}

static tess_err progress(void *ctx, tess_sim_t sim, double rate, double eta) {
  const mw *m = ctx;
  double w = 0;
  tess_stats st;
  for (int c = 0; c < 6; c++) {
    if (tess_sim_stats(sim, m->u, c, &st)) return TESS_ERR_ARG;
    w += 0.5 * (c < 3 ? m->eps : m->mu) * st.sumsq / (double)st.count; /* box volume 1 */
  }
  if (m->root)
    printf("step %6ld  t %.6e  energy %.15e  %.1f steps/s ETA %.0f s\n", tess_sim_step(sim),
           tess_sim_time(sim), w, rate, eta);
  return TESS_OK;
}

/* The settings checks before MPI starts (also of a dry run): 0, or 1 after a message. */
static int check(tess_app *app, void *ctx) {
  const mw *m = ctx;
  int walled = 0;
  for (int i = 0; i < 3; i++)
    walled |= !app->periodic[i] && app->s.n[i] > 1;
  if (walled == !strcmp(m->walls, "none")) {
    if (tess_app_prints())
      fprintf(stderr, "tess-maxwell: %s (grid.periodic = %s)\n",
              walled ? "boundary.walls = none, but some axis is not periodic (use pec)"
                     : "boundary.walls = pec, but every axis is periodic",
              app->s.periodic);
    return 1;
  }
  if (m->init[0] != 'c' && (m->wave[2] || (!m->wave[0] && !m->wave[1]))) {
    if (tess_app_prints())
      fprintf(stderr,
              "tess-maxwell: init.wave = %d,%d,%d is not supported (allowed: a wave in the "
              "xy plane, kz = 0 and kx, ky not both 0)\n",
              m->wave[0], m->wave[1], m->wave[2]);
    return 1;
  }
  /* A grid resolves |k| < n/2 periods per box; at or above that the wave is aliased to
   * another one (on an axis of extent 1: to none), and the run would follow that one. */
  for (int a = 0; m->init[0] == 'w' && a < 2; a++)
    if (m->wave[a] && 2 * abs(m->wave[a]) >= app->s.n[a]) {
      if (tess_app_prints())
        fprintf(stderr,
                "tess-maxwell: init.wave = %d,%d,%d: %d periods along %c do not fit %d cells "
                "(allowed: |k%c| < n%c/2 = %g, and 0 along an axis of extent 1)\n",
                m->wave[0], m->wave[1], m->wave[2], m->wave[a], "xy"[a], app -> s.n[a], "xy"[a],
                "xy"[a], app -> s.n[a] / 2.0);
      return 1;
    }
  return 0;
}

/* RK3's limit on the CFL number (run.cfl's range): dt <= 0.6 h_min sqrt(eps mu). */
static tess_err dt_limit(void *ctx, tess_sim_t sim, double *limit) {
  (void)sim;
  const mw *m = ctx;
  double hmin = 1;
  for (int a = 0; a < 3; a++)
    if (m->n[a] > 1 && 1.0 / m->n[a] < hmin) hmin = 1.0 / m->n[a];
  *limit = 0.6 * hmin * sqrt(m->eps * m->mu);
  return TESS_OK;
}

static int run(tess_app *app, void *ctx) {
  mw *m = ctx;
  m->n = app->s.n, m->root = app->root;
  double h[3], hmin = 1;
  for (int a = 0; a < 3; a++)
    if ((h[a] = 1.0 / m->n[a]) < hmin && m->n[a] > 1) hmin = h[a];
  const double dt = m->cfl * hmin * sqrt(m->eps * m->mu); /* cfl h / c */
  tess_sim_t sim = NULL;
  int old;
  if (tess_app_sim(app, h, &sim) || tess_sim_add_field(sim, "u", 6, &m->u) ||
      tess_sim_add_field(sim, "u_old", 6, &old) ||
      (strcmp(m->walls, "none") && set_pec(sim, m->u, app->periodic)))
    return 1;
  for (int s = 0; s < 3; s++) { /* RK3: in = u^k (stencil), out = u^(k-1) (at the cell) */
    const tess_maxwell_params p = {m->eps, m->mu, dt, s};
    const tess_stage st = {&tess_maxwell_rk3_kernel, 1, {m->u}, 1, {old}, s > 0, &p, sizeof p};
    if (tess_sim_add_stage(sim, &st) || tess_sim_add_swap(sim, m->u, old)) return 1;
  }
  if (tess_sim_setup(sim) || (!app->s.restart[0] && tess_sim_fill(sim, m->u, init, m))) return 1;
  const tess_snap_var vars[] = {{m->u, 0, 3, "E"}, {m->u, 3, 3, "H"}};
  const tess_attr attrs[] = {{"eps", m->eps}, {"mu", m->mu}, {"cfl", m->cfl}};
  /* run.cfl may change on restart: the kernels and the clock both take the new dt. eps and mu
   * define another medium: refused. */
  const tess_app_loop loop = {2,
                              vars,
                              3,
                              attrs,
                              .dt = dt,
                              .ctx = m,
                              .progress = progress,
                              .restart_may_change = "run.cfl",
                              .dt_limit = dt_limit};
  if (tess_app_run(app, sim, &loop)) return 1;
  tess_sim_destroy(&sim);
  return 0;
}

int main(int argc, char **argv) {
  static mw m; /* the defaults, set on every call (the settings fuzzer calls main repeatedly) */
  m = (mw){.eps = 1, .mu = 1, .cfl = 0.3, .wave = {1, 0, 0}, .init = "wave", .walls = "none"};
  const tess_opt opts[] = {
      TESS_OPT_ENTRY("physics.eps", TESS_OPT_DOUBLE, &m.eps, "eps", "permittivity",
                     TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("physics.mu", TESS_OPT_DOUBLE, &m.mu, "mu", "permeability", TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("run.cfl", TESS_OPT_DOUBLE, &m.cfl, "cfl", "dt = cfl h_min / c (RK3: <= 0.6)",
                     .min = 0, .max = 0.6, .open = TESS_OPT_OPEN_MIN),
      TESS_OPT_STRING_ENTRY("init.kind", m.init, "init",
                            "wave, curl (random, divergence-free) or cavity (E_z = sin(pi l x) "
                            "sin(pi m y), l,m = init.wave: a mode between PEC walls)",
                            .choices = "wave|curl|cavity"),
      TESS_OPT_STRING_ENTRY("boundary.walls", m.walls, NULL,
                            "walls at the faces of the non-periodic axes: none, or pec (perfect "
                            "conductor; docs/boundaries.md)",
                            .choices = "none|pec"),
      TESS_OPT_ENTRY("init.wave", TESS_OPT_INTS3, m.wave, "wave",
                     "plane wave: periods per box along x,y (z: 0)", .min = -1024, .max = 1024),
  };
  tess_app_settings d;
  tess_app_defaults(&d, "tess-maxwell", (const int[3]){32, 32, 32}, "E,H");
  return tess_app_main("tess-maxwell", &d, opts, sizeof opts / sizeof *opts, NULL, check, run, &m,
                       argc, argv);
}

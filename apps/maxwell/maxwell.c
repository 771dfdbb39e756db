/* maxwell.c — electromagnetic waves: eps dE/dt = curl H, mu dH/dt = -curl E on a periodic box of
 * side 1; 6th order in space, RK3 in time (codelets/maxwell_cell.h); CPU or CUDA, double or
 * single. --init wave: a plane wave of --wave periods per box along each axis; --init curl:
 * E = curl A and H = curl B of random A, B through the kernel's own difference operator, so the
 * discrete div E and div H start (and stay) at round-off. Progress lines print the energy.
 *   tess-maxwell --grid 64,64,1 --wave 1,1,0 --steps 200 --every 20 */
#include <math.h>
#include <stdio.h>

#include "app.h"
#include "maxwell.h"

typedef struct {
  double eps, mu, cfl, e0[3], h0[3], k[3];
  int wave[3], u, root;
  char init[8];
  const int *n;
} mw;

/* A reproducible number in [-0.5, 0.5) for global cell g and component c (splitmix64). */
static double noise(const long g[3], int c) {
  unsigned long long x = (unsigned long long)(((g[2] * 1000003L + g[1]) * 1000003L + g[0]) * 8 + c);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return (double)((x ^ (x >> 31)) >> 11) / 9007199254740992.0 - 0.5;
}

/* d(noise component c)/dx_a at g: the kernel's 6th-order difference, periodic, h = 1/n. */
static double d1(const mw *m, const long g[3], int c, int a) {
  static const double w[3] = {3.0 / 4.0, -3.0 / 20.0, 1.0 / 60.0};
  const long n = m->n[a];
  double s = 0;
  for (int j = 1; j <= 3 && n > 1; j++) {
    long p[3] = {g[0], g[1], g[2]}, q[3] = {g[0], g[1], g[2]};
    p[a] = (g[a] + j) % n;
    q[a] = (g[a] - j + 3 * n) % n;
    s += w[j - 1] * (noise(p, c) - noise(q, c));
  }
  return s * (double)n;
}

static double init(const long g[3], int comp, void *ctx) {
  const mw *m = ctx;
  const int i = comp % 3, j = (i + 1) % 3, k = (i + 2) % 3, f = comp < 3 ? 0 : 3;
  if (m->init[0] == 'c') return d1(m, g, f + k, j) - d1(m, g, f + j, k); /* (curl A)_i */
  double phase = 0;
  for (int a = 0; a < 3; a++)
    phase += m->k[a] * ((double)g[a] + 0.5) / m->n[a];
  return (comp < 3 ? m->e0[i] : m->h0[i]) * cos(phase);
}

static tess_err progress(void *ctx, tess_sim_t sim, double rate, double eta) {
  const mw *m = ctx;
  double w = 0;
  for (int c = 0; c < 6; c++) {
    tess_stats st;
    const tess_err e = tess_sim_stats(sim, m->u, c, &st);
    if (e) return e;
    w += 0.5 * (c < 3 ? m->eps : m->mu) * st.sumsq / (double)st.count; /* box volume 1 */
  }
  if (m->root)
    printf("step %6ld  t %.6e  energy %.15e  %.1f steps/s ETA %.0f s\n", tess_sim_step(sim),
           tess_sim_time(sim), w, rate, eta);
  return TESS_OK;
}

static void cross(const double a[3], const double b[3], double scale, double out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = (a[(i + 1) % 3] * b[(i + 2) % 3] - a[(i + 2) % 3] * b[(i + 1) % 3]) * scale;
}

/* The wave's E along k x z (k x y when k is along z), H = (k/|k| x E) sqrt(eps/mu). */
static void polarise(mw *m) {
  double up[3] = {0, 0, 1}, e[3];
  for (int a = 0; a < 3; a++)
    m->k[a] = 6.283185307179586 * m->wave[a];
  if (m->k[0] == 0 && m->k[1] == 0) up[1] = 1, up[2] = 0;
  cross(m->k, up, 1, e);
  const double ne = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  const double nk = sqrt(m->k[0] * m->k[0] + m->k[1] * m->k[1] + m->k[2] * m->k[2]);
  for (int a = 0; a < 3; a++)
    m->e0[a] = e[a] / ne;
  cross(m->k, m->e0, sqrt(m->eps / m->mu) / nk, m->h0);
}

static int run(tess_app *app, void *ctx) {
  mw *m = ctx;
  m->n = app->s.n;
  m->root = app->root;
  double h[3], hmin = 1;
  for (int a = 0; a < 3; a++)
    if ((h[a] = 1.0 / m->n[a]) < hmin && m->n[a] > 1) hmin = h[a];
  const double dt = m->cfl * hmin * sqrt(m->eps * m->mu); /* cfl * h / c */
  if (m->init[0] == 'w') polarise(m);
  tess_sim_t sim = NULL;
  int old;
  if (tess_app_sim(app, h, &sim) || tess_sim_add_field(sim, "u", 6, &m->u) ||
      tess_sim_add_field(sim, "u_old", 6, &old))
    return 1;
  for (int s = 0; s < 3; s++) {
    const tess_maxwell_params p = {m->eps, m->mu, dt, s};
    const tess_stage st = {.kernel = &tess_maxwell_rk3_kernel,
                           .nin = 1,
                           .in = {m->u},
                           .nout = 1,
                           .out = {old},
                           .out_read = s > 0,
                           .params = &p,
                           .params_size = sizeof p};
    if (tess_sim_add_stage(sim, &st) || tess_sim_add_swap(sim, m->u, old)) return 1;
  }
  if (tess_sim_setup(sim) || (!app->s.restart[0] && tess_sim_fill(sim, m->u, init, m))) return 1;
  const tess_snap_var vars[] = {{m->u, 0, 3, "E"}, {m->u, 3, 3, "H"}};
  const tess_attr attrs[] = {{"eps", m->eps}, {"mu", m->mu}, {"cfl", m->cfl}};
  const tess_app_loop loop = {.nvars = 2,
                              .vars = vars,
                              .nattrs = 3,
                              .attrs = attrs,
                              .dt = dt,
                              .ctx = m,
                              .progress = progress};
  if (tess_app_run(app, sim, &loop)) return 1;
  tess_sim_destroy(&sim);
  return 0;
}

int main(int argc, char **argv) {
  static mw m = {.eps = 1, .mu = 1, .cfl = 0.3, .wave = {1, 0, 0}, .init = "wave"};
  const tess_opt opts[] = {
      TESS_APP_OPT("physics.eps", TESS_OPT_DOUBLE, &m.eps, "eps", "permittivity", .min = 0,
                   .max = HUGE_VAL, .open = TESS_OPT_OPEN_MIN),
      TESS_APP_OPT("physics.mu", TESS_OPT_DOUBLE, &m.mu, "mu", "permeability", .min = 0,
                   .max = HUGE_VAL, .open = TESS_OPT_OPEN_MIN),
      TESS_APP_OPT("run.cfl", TESS_OPT_DOUBLE, &m.cfl, "cfl", "dt = cfl h_min / c (RK3: <= 0.6)",
                   .min = 0, .max = 0.6, .open = TESS_OPT_OPEN_MIN),
      TESS_APP_STR("init.kind", m.init, "init", "wave or curl (random, divergence-free)",
                   .choices = "wave|curl"),
      TESS_APP_OPT("init.wave", TESS_OPT_INTS3, m.wave, "wave", "periods per box along x,y,z",
                   .min = -1024, .max = 1024),
  };
  tess_app_settings d;
  tess_app_defaults(&d, "tess-maxwell", (const int[3]){32, 32, 32});
  return tess_app_main("tess-maxwell", &d, opts, sizeof opts / sizeof opts[0], 0, NULL, run, &m,
                       argc, argv);
}

/* skeleton.c — the start of an app of your own (docs/kernels.md, "Write your own app"): a
 * two-component state u diffusing with a position-dependent coefficient a (skel_cell.h), on a
 * periodic box of side 1, forward Euler. Settings, MPI, StarPU, progress lines, snapshots,
 * checkpoints and timing come from Tessera's app layer (app.h); this file declares the fields,
 * the stage and the initial state.
 *
 * u_1 starts as exactly 2 u_0 and the kernel is linear in u, so doubling is exact at every step:
 * at the end the run checks that sum, min and max of u_1 are twice those of u_0 bit for bit (any
 * difference in how the two components are computed, halos included, would show).
 *
 *   mpirun -np 2 tess-skeleton --grid 32,32,32 --steps 20 --every 5 */
#include <math.h>
#include <stdio.h>

#include "app.h"
#include "skel.h"

typedef struct {
  double a0, cfl;
  int u, root;
  const int *n;
} skeleton;

/* u_0 = 1 + sin(2 pi x), u_1 = 2 u_0; a = a0 (1 + cos(2 pi y) / 2): from the global cell g. */
static double init_u(const long g[3], int comp, void *ctx) {
  const skeleton *s = ctx;
  const double u0 = 1 + sin(6.283185307179586 * ((double)g[0] + 0.5) / s->n[0]);
  return comp ? 2 * u0 : u0;
}
static double init_a(const long g[3], int comp, void *ctx) {
  (void)comp;
  const skeleton *s = ctx;
  return s->a0 * (1 + 0.5 * cos(6.283185307179586 * ((double)g[1] + 0.5) / s->n[1]));
}

static tess_err progress(void *ctx, tess_sim_t sim, double rate, double eta) {
  const skeleton *s = ctx;
  tess_stats st[2];
  for (int c = 0; c < 2; c++)
    if (tess_sim_stats(sim, s->u, c, &st[c])) return TESS_ERR_ARG;
  if (s->root)
    printf("step %6ld  t %.6e  sum u0 %.15e  max u0 %.15e  %.1f steps/s ETA %.0f s\n",
           tess_sim_step(sim), tess_sim_time(sim), st[0].sum, st[0].max, rate, eta);
  return TESS_OK;
}

static int run(tess_app *app, void *ctx) {
  skeleton *s = ctx;
  s->n = app->s.n, s->root = app->root;
  double h[3], ih2 = 0;
  for (int a = 0; a < 3; a++) {
    h[a] = 1.0 / s->n[a];
    if (s->n[a] > 1) ih2 += 2 / (h[a] * h[a]);
  }
  const skel_params p = {s->cfl / (1.5 * s->a0 * (ih2 > 0 ? ih2 : 1))}; /* forward Euler */
  tess_sim_t sim = NULL;
  int a, un;
  if (tess_app_sim(app, h, &sim) || tess_sim_add_field(sim, "u", 2, &s->u) ||
      tess_sim_add_field(sim, "a", 1, &a) || tess_sim_add_field(sim, "u_new", 2, &un))
    return 1;
  const tess_stage st = {&tess_skel_kernel, 2, {s->u, a}, 1, {un}, 0, &p, sizeof p};
  if (tess_sim_add_stage(sim, &st) || tess_sim_add_swap(sim, s->u, un) || tess_sim_setup(sim) ||
      tess_sim_fill(sim, a, init_a, s) ||
      (!app->s.restart[0] && tess_sim_fill(sim, s->u, init_u, s)))
    return 1;
  const tess_snap_var vars[] = {{s->u, 0, 2, "u"}};
  const tess_attr attrs[] = {{"a0", s->a0}};
  const tess_app_loop loop = {1, vars, 1, attrs, .dt = p.dt, .ctx = s, .progress = progress};
  if (tess_app_run(app, sim, &loop)) return 1;
  tess_stats u0, u1;
  if (tess_sim_stats(sim, s->u, 0, &u0) || tess_sim_stats(sim, s->u, 1, &u1)) return 1;
  const int ok = u1.sum == 2 * u0.sum && u1.min == 2 * u0.min && u1.max == 2 * u0.max;
  if (s->root)
    printf("check: u_1 = 2 u_0 bit for bit (sum %.17g = 2 x %.17g): %s\n", u1.sum, u0.sum,
           ok ? "ok" : "FAILED");
  tess_sim_destroy(&sim);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  static skeleton s;
  s = (skeleton){.a0 = 0.1, .cfl = 0.5};
  const tess_opt opts[] = {
      TESS_OPT_ENTRY("physics.a0", TESS_OPT_DOUBLE, &s.a0, "a0", "mean diffusion coefficient",
                     TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("run.cfl", TESS_OPT_DOUBLE, &s.cfl, "cfl", "dt over its stability limit",
                     .min = 0, .max = 1, .open = TESS_OPT_OPEN_MIN),
  };
  tess_app_settings d;
  tess_app_defaults(&d, "tess-skeleton", (const int[3]){32, 32, 32}, "u");
  return tess_app_main("tess-skeleton", &d, opts, 2, NULL, NULL, run, &s, argc, argv);
}

/* heat.c — the smallest complete Tessera app: the heat equation du/dt = kappa Lap(u) on a
 * box, forward Euler, 2nd- or 6th-order Laplacian, 2D or 3D, CPU or CUDA; each axis periodic or
 * between physical faces (grid.periodic, boundary.u: Dirichlet, Neumann, ..., docs/boundaries.md).
 *
 * The physics is one stage and one swap:
 *
 *     u_new = u + dt * kappa * Lap(u)        (kernel heat2/heat6: star footprint, radius 1/3)
 *     swap(u, u_new)
 *
 * Everything else -- decomposition, halos, tasks, overlap -- is the runtime's, and the run
 * itself (settings, progress lines, snapshots, checkpoints, signals, finite checks, timing) is
 * the shared app skeleton's (apps/common/app.h); this file adds its settings ([physics], [run],
 * [debug], [boundary]) and the analytic check. The initial state is a product of sines (or of
 * the sines and cosines the faces' conditions call for, boundary_modes), an eigenfunction
 * of both the continuous and the discrete Laplacian, so --check can compare against two
 * analytic answers: the exact solution exp(-kappa lambda t), and forward Euler applied to the
 * exact Fourier mode, (1 - dt kappa lambda)^steps, whose difference from the run is the
 * spatial error alone.
 *
 *   tess-heat --grid 64,64,64 --order 6 --steps 100 --every 10 --check
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "heat.h"
#include "tessera.h"

#define PROG    "tess-heat"
#define TESS_PI 3.14159265358979323846

typedef struct {
  int order, wave, check;
  double kappa, length, amp, dt, cfl;
  char delay[64]; /* debug.delay: "" or "TILE,DIR,SECONDS" */
  char bc_u[256]; /* boundary.u: conditions at the physical faces */
  const int *n;   /* the grid (app settings) */
  /* per axis, from grid.periodic and boundary.u (derive): the initial mode, one of the Laplacian's
   * eigenfunctions with those conditions, and its wavenumber */
  int shape[3];
  double k[3];
} heat_opts;

/* The mode along one axis: a sine of the periodic box, or the sine or cosine that is odd at a
 * Dirichlet (or antisymmetric) face and even at a Neumann (or symmetric) one, faces at 0 and L:
 *   periodic sin(2 pi w x / L);  odd-odd sin(pi w x / L);  even-even cos(pi w x / L);
 *   odd-even sin(pi (w - 1/2) x / L);  even-odd cos(pi (w - 1/2) x / L).
 * Mirrored across a face by the ghost fills it is exactly the same function, so the discrete
 * Laplacian's symbol still gives its eigenvalue: --check holds to round-off with any mix. */
enum { MODE_PERIODIC, MODE_SIN, MODE_COS };

/* Symbol of the discrete 1D second difference for wavenumber k on spacing h. */
static double symbol(int order, double k, double h) {
  const double s = sin(0.5 * k * h), s2 = s * s;
  if (order == 2) return 4.0 * s2 / (h * h);
  /* 6th order: -(b0 + 2 sum b_j cos(j k h)) / h^2 with b = {-49/18, 3/2, -3/20, 1/90} */
  const double c = k * h;
  return -(-49.0 / 18 + 3.0 * cos(c) - 0.3 * cos(2 * c) + (2.0 / 90) * cos(3 * c)) / (h * h);
}

static double sine_init(const long g[3], int comp, void *arg) {
  (void)comp;
  const heat_opts *o = arg;
  double u = o->amp;
  for (int i = 0; i < 3; i++) {
    if (o->n[i] == 1) continue;
    if (o->shape[i] == MODE_PERIODIC)
      u *= sin(2 * TESS_PI * o->wave * ((double)g[i] + 0.5) / o->n[i]);
    else {
      const double x = ((double)g[i] + 0.5) * (o->length / o->n[i]);
      u *= o->shape[i] == MODE_SIN ? sin(o->k[i] * x) : cos(o->k[i] * x);
    }
  }
  return u;
}

/* The modes of grid.periodic and boundary.u (heat_opts.shape, .k); 0, or -1 after a message
 * where root: a spec the parser refuses, a face without a condition, or --check with conditions
 * whose solution is not one mode (a non-zero value, outflow). */
static int boundary_modes(const tess_app *app, heat_opts *o, int root) {
  if (tess_app_boundary_check(app, "u", o->bc_u)) return -1;
  tess_bc bc[6];
  unsigned set;
  char msg[512];
  tess_bc_parse(o->bc_u, "u", app->periodic, bc, &set, msg, sizeof msg);
  for (int i = 0; i < 3; i++) {
    o->shape[i] = MODE_PERIODIC;
    o->k[i] = 2 * TESS_PI * o->wave / o->length;
    if (app->periodic[i] || o->n[i] == 1) continue;
    int odd[2];
    for (int s = 0; s < 2; s++) {
      const tess_bc *b = &bc[2 * i + s];
      odd[s] = b->kind == TESS_BC_DIRICHLET || b->kind == TESS_BC_ANTISYMMETRIC;
      if (o->check && (b->kind == TESS_BC_OUTFLOW || b->value != 0)) {
        if (root)
          fprintf(stderr,
                  PROG ": --check needs homogeneous conditions (dirichlet(0), neumann(0), "
                       "symmetric, antisymmetric); face %s has %s(%g)\n",
                  tess_face_name(2 * i + s), tess_bc_kind_name(b->kind), b->value);
        return -1;
      }
    }
    o->shape[i] = odd[0] ? MODE_SIN : MODE_COS;
    o->k[i] = TESS_PI * (odd[0] == odd[1] ? o->wave : o->wave - 0.5) / o->length;
  }
  return 0;
}

/* The time step and what the check needs, from the settings alone (so every rank agrees). */
typedef struct {
  double h[3], dt, dt_max, lam; /* lam: the discrete Laplacian's eigenvalue of the sine */
  int delay_tile, delay_dir;
  double delay_s;
} heat_derived;

/* 0, or -1 after a message where `root` (one rank). Deterministic: every rank takes the same
 * exit. Before MPI (the app's check, also of a dry run) and again in the run. */
static int derive(const tess_app *app, heat_opts *o, heat_derived *d, int root) {
  if (boundary_modes(app, o, root)) return -1;
  if (o->order != 2 && o->order != 6) {
    if (root) {
      const char *src = tess_config_source(app->cfg, "run.order");
      if (!strcmp(src, "--order"))
        fprintf(stderr, PROG ": --order %d is not supported (allowed: 2, 6)\n", o->order);
      else
        fprintf(stderr, PROG ": run.order = %d (%s) is not supported (allowed: 2, 6)\n", o->order,
                src);
    }
    return -1;
  }
  d->delay_tile = -1;
  if (o->delay[0]) {
    int end = 0;
    if (sscanf(o->delay, "%d,%d,%lf%n", &d->delay_tile, &d->delay_dir, &d->delay_s, &end) != 3 ||
        o->delay[end] || d->delay_tile < 0 || d->delay_dir < 0 || d->delay_dir >= 27 ||
        !(d->delay_s >= 0)) {
      if (root)
        fprintf(stderr,
                PROG ": debug.delay '%s' is invalid (expected TILE,DIR,SECONDS: TILE >= 0, "
                     "0 <= DIR < 27, SECONDS >= 0)\n",
                o->delay);
      return -1;
    }
  }
  int dims = 0;
  double lam_max = 0;
  d->lam = 0;
  for (int i = 0; i < 3; i++) {
    d->h[i] = o->length / o->n[i];
    if (o->n[i] == 1) continue;
    dims++;
    /* Forward Euler is stable while dt * kappa * max symbol <= 2. */
    lam_max += o->order == 2 ? 4 / (d->h[i] * d->h[i]) : (64.0 / 9) / (d->h[i] * d->h[i]);
    d->lam += symbol(o->order, o->k[i], d->h[i]);
  }
  d->dt_max = dims ? 2 / (o->kappa * lam_max) : 1;
  d->dt = o->dt > 0 ? o->dt : o->cfl * d->dt_max;
  if (d->dt > d->dt_max) {
    if (root)
      fprintf(stderr, PROG ": --dt %g exceeds the forward-Euler stability limit %g\n", d->dt,
              d->dt_max);
    return -1;
  }
  return 0;
}

/* ---- the loop's callback and the end of the run ------------------------------------------- */

typedef struct {
  int u, root;
  double dt_max;
} heat_run;

/* Forward Euler's limit on this grid (derive). */
static tess_err dt_limit(void *ctx, tess_sim_t sim, double *limit) {
  (void)sim;
  *limit = ((const heat_run *)ctx)->dt_max;
  return TESS_OK;
}

static tess_err progress(void *ctx, tess_sim_t sim, double rate, double eta) {
  const heat_run *h = ctx;
  tess_stats st;
  const tess_err e = tess_sim_stats(sim, h->u, 0, &st);
  if (e || !h->root) return e;
  printf("step %6ld  t %.6e  sum %+.12e  min %+.6e  max %+.6e  rms %.6e  %.1f steps/s ETA %.0f "
         "s\n",
         tess_sim_step(sim), tess_sim_time(sim), st.sum, st.min, st.max,
         sqrt(st.sumsq / (double)st.count), rate, eta);
  return TESS_OK;
}

/* --check: the final field against the analytic solutions, printed on rank 0. Collective. */
static int check(const heat_opts *o, const heat_derived *d, tess_sim_t sim, int u, int root) {
  const int *n = o->n;
  const size_t cells = (size_t)n[0] * n[1] * n[2];
  double *all = root ? malloc(cells * sizeof(double)) : NULL;
  int ok = !root || all;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok || tess_sim_gather(sim, u, 0, all)) {
    free(all);
    return -1;
  }
  if (root) {
    const long steps = tess_sim_step(sim);
    double kk = 0;
    for (int i = 0; i < 3; i++)
      if (n[i] > 1) kk += o->k[i] * o->k[i];
    const double a_exact = exp(-o->kappa * kk * d->dt * (double)steps);
    const double a_fe = pow(1 - d->dt * o->kappa * kk, (double)steps);
    /* The discrete Laplacian's own symbol predicts the run to round-off: a self-check. */
    const double a_disc = pow(1 - d->dt * o->kappa * d->lam, (double)steps);
    double e_exact = 0, e_fe = 0, e_disc = 0;
    for (long z = 0; z < n[2]; z++)
      for (long y = 0; y < n[1]; y++)
        for (long x = 0; x < n[0]; x++) {
          const long g[3] = {x, y, z};
          const double s = sine_init(g, 0, (void *)o), v = all[x + n[0] * (y + n[1] * z)];
          e_exact = fmax(e_exact, fabs(v - a_exact * s));
          e_fe = fmax(e_fe, fabs(v - a_fe * s));
          e_disc = fmax(e_disc, fabs(v - a_disc * s));
        }
    printf("check: error_exact %.6e error_spatial %.6e error_symbol %.6e\n", e_exact, e_fe, e_disc);
    /* the run against its own discrete eigenvalue: round-off only, or the graph (a halo, a
     * ghost fill, their order) is wrong */
    const double tol = (tess_sim_precision(sim) == TESS_FP32 ? 1e-3 : 1e-9) * fabs(o->amp);
    ok = e_disc <= tol;
    printf("check: %s (error_symbol %s %.1e)\n", ok ? "passed" : "FAILED", ok ? "<=" : ">", tol);
  }
  free(all);
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : -1;
}

/* 0: done; 1: failed after a message (abort); 2: bad settings, every rank knows (exit 2). */
static int run(tess_app *app, void *ctx) {
  heat_opts *o = ctx;
  o->n = app->s.n;
  heat_derived d;
  if (derive(app, o, &d, app->root)) return 2; /* checked before MPI already */
  const tess_heat_params prm = {o->kappa};
  const tess_kernel *k = o->order == 2 ? &tess_heat2_kernel : &tess_heat6_kernel;
  heat_run h = {.root = app->root, .dt_max = d.dt_max};
  tess_sim_t sim = NULL;
  int un, err = 1;
#define CALL(x)                                                                                    \
  if ((x)) goto done
  CALL(tess_app_sim(app, d.h, &sim));
  CALL(tess_sim_add_field(sim, "u", 1, &h.u));
  CALL(tess_sim_add_field(sim, "u_new", 1, &un));
  CALL(tess_app_boundary(app, sim, h.u, o->bc_u));
  CALL(tess_sim_add_stage(sim, &(tess_stage){.kernel = k,
                                             .nin = 1,
                                             .in = {h.u},
                                             .nout = 1,
                                             .out = {un},
                                             .params = &prm,
                                             .params_size = sizeof prm}));
  CALL(tess_sim_add_swap(sim, h.u, un));
  /* test hooks: they act on the steps tess_app_run submits */
  if (d.delay_tile >= 0) CALL(tess_sim_debug_delay(sim, d.delay_tile, d.delay_dir, d.delay_s));
  CALL(tess_sim_setup(sim));
  tess_sim_describe(sim);
  if (!app->s.restart[0]) CALL(tess_sim_fill(sim, h.u, sine_init, o));
  if (h.root)
    printf("dt %.6e (stability limit %.6e), %ld steps, order %d\n", d.dt, d.dt_max, app->s.steps,
           o->order);

  const tess_snap_var vars[] = {{h.u, 0, 1, "u"}};
  const tess_attr attrs[] = {{"kappa", o->kappa},
                             {"length", o->length},
                             {"wave", o->wave},
                             {"amp", o->amp},
                             {"order", o->order}};
  const tess_app_loop loop = {.nvars = 1,
                              .vars = vars,
                              .nattrs = sizeof attrs / sizeof attrs[0],
                              .attrs = attrs,
                              .dt = d.dt,
                              .ctx = &h,
                              .progress = progress,
                              .restart_may_change = "run.dt,run.cfl",
                              .dt_limit = dt_limit};
  CALL(tess_app_run(app, sim, &loop));
  if (o->check && check(o, &d, sim, h.u, h.root)) goto done;
  err = 0;
done:
  /* On error the caller aborts every rank at once; a collective destroy here could wait on a
   * rank that is already stuck elsewhere. */
  if (!err) tess_sim_destroy(&sim);
  return err;
}

/* The settings checks before MPI starts: the same derive the run uses. */
static int check_settings(tess_app *app, void *ctx) {
  heat_opts *o = ctx;
  o->n = app->s.n;
  heat_derived d;
  return derive(app, o, &d, tess_app_prints()) ? 1 : 0;
}

int main(int argc, char **argv) {
  static heat_opts o; /* the defaults, set on every call (the fuzzer calls main repeatedly) */
  o = (heat_opts){.order = 2, .wave = 1, .kappa = 1, .length = 1, .amp = 1, .cfl = 0.25};
  const tess_opt opts[] = {
      TESS_OPT_ENTRY("physics.kappa", TESS_OPT_DOUBLE, &o.kappa, "kappa", "diffusivity",
                     TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("physics.length", TESS_OPT_DOUBLE, &o.length, "length",
                     "box length along every axis", TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("physics.wave", TESS_OPT_INT, &o.wave, "wave",
                     "sine wavenumber per axis, in periods per box", .min = 1, .max = 1 << 20),
      TESS_OPT_ENTRY("physics.amp", TESS_OPT_DOUBLE, &o.amp, "amp",
                     "amplitude of the initial sine"),
      /* no range here: 2 and 6 only, checked with its own message (derive) */
      TESS_OPT_ENTRY("run.order", TESS_OPT_INT, &o.order, "order",
                     "order of the Laplacian: 2 or 6"),
      TESS_OPT_ENTRY("run.dt", TESS_OPT_DOUBLE, &o.dt, "dt",
                     "time step (0: run.cfl times the stability limit)", TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("run.cfl", TESS_OPT_DOUBLE, &o.cfl, "cfl",
                     "fraction of the forward-Euler stability limit", .min = 0, .max = 1,
                     .open = TESS_OPT_OPEN_MIN),
      TESS_OPT_ENTRY("run.check", TESS_OPT_BOOL, &o.check, "check",
                     "compare the final field with the analytic solutions"),
      TESS_OPT_STRING_ENTRY("boundary.u", o.bc_u, NULL,
                            "conditions of u at the physical faces (non-periodic axes): "
                            "face:kind(value),... with faces x-, x+, y-, y+, z-, z+, x, y, z, all "
                            "and kinds dirichlet(v), neumann(g), symmetric, antisymmetric, outflow "
                            "(docs/boundaries.md)"),
      TESS_OPT_STRING_ENTRY("debug.delay", o.delay, "delay",
                            "TILE,DIR,SECONDS: hold halo direction DIR of tile TILE back (tests)"),
  };
  tess_app_settings d;
  tess_app_defaults(&d, PROG, (const int[3]){64, 64, 1}, "u");
  return tess_app_main(PROG, &d, opts, sizeof opts / sizeof *opts, NULL, check_settings, run, &o,
                       argc, argv);
}

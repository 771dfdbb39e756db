/* ch.c — Cahn–Hilliard phase separation (Playne & Hawick's test problem) on Tessera:
 *
 *     du/dt = M Lap(mu),   mu = -B u + U u^3 - K Lap(u),   periodic, 2D or 3D
 *
 * composed from codelets the way a user composes their own. Two variants of one step:
 *
 *   composed (radius 1):  mu <- mu(u)                          [ch_mu,     star r=1]
 *                         u_new <- u + dt M Lap(mu)            [ch_update, star r=1]
 *   fused    (radius 2):  u_new <- u + dt M Lap(mu(u))         [ch_fused,  star_diag r=2]
 *
 * and two time schemes: forward Euler (as above) and Heun's second-order method, which runs the
 * same stages twice (u* = u + dt F(u); u_new = u/2 + (u* + dt F(u*))/2). Choosing between them
 * is a few lines in build_program(); the runtime derives halos, segments and tasks.
 *
 * Settings: [physics] m, b, u, k; [init] ic, u0, noise, seed, wave, eps; [run] scheme,
 * variant, dt, cfl; [grid] h; [output] png; next to the common ones of app.h (grid, steps,
 * progress lines, snapshots, checkpoints, restart, dump). They are checked before MPI starts,
 * the time step against the linear stability limit of the scheme.
 *
 * Output, through the loop of app.h: progress lines (mass, free energy, min/max, steps/s, ETA)
 * from the field gathered to rank 0; at every snapshot (VTKHDF, written by the loop) also a PNG
 * image of u (2D: the field, 3D: the mid-plane z = nz/2).
 *
 *   tess-ch --grid 192,192,1 --variant fused --cfl 0.9 --steps 4000 --snapshot-every 1000
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cahn_hilliard.h"
#include "noise.h"
#include "tessera.h"

#define PROG    "tess-ch"
#define TESS_PI 3.14159265358979323846

typedef struct {
  double m, b, u, k;           /* physics: mobility and free-energy coefficients */
  char ic[8];                  /* init.ic: noise | mode */
  double u0, noise, eps;       /* init */
  long seed;                   /* init.seed */
  int wave;                    /* init.wave */
  char scheme[8], variant[16]; /* run.scheme, run.variant */
  double dt, cfl, h;           /* run.dt (0: from run.cfl), run.cfl, grid.h */
  int png;                     /* output.png */
  /* derived by check_settings */
  int heun, fused, mode_ic;
  double step_dt, limit, u_ref; /* the time step used, the stability limit and its |u| */
  const int *n;                 /* the grid (app settings) */
  const int *periodic;          /* grid.periodic (app settings) */
  char bc_u[256];               /* boundary.u: u's conditions, which mu and u_star share */
} ch_opts;

/* "tess-ch: <key> = <value> (from <source>) <why>" on one rank; -1. */
static int refuse(const tess_app *app, const char *key, double v, const char *why) {
  if (tess_app_prints())
    fprintf(stderr, PROG ": %s = %g (from %s) %s\n", key, v, tess_config_source(app->cfg, key),
            why);
  return -1;
}

/* The checks the option table cannot express, and the time step: 0, or -1 after a message. */
static int check_settings(tess_app *app, void *ctx) {
  ch_opts *o = ctx;
  o->n = app->s.n;
  o->periodic = app->periodic;
  if (tess_app_boundary_check(app, "u", o->bc_u)) return -1;
  if (!(o->m > 0)) return refuse(app, "physics.m", o->m, "is invalid: the mobility must be > 0");
  if (!(o->k > 0))
    return refuse(app, "physics.k", o->k,
                  "is invalid: the gradient-energy coefficient must be > 0");
  if (!(o->noise >= 0))
    return refuse(app, "init.noise", o->noise, "is invalid: the amplitude must be >= 0");
  o->heun = !strcmp(o->scheme, "heun");
  o->fused = !strcmp(o->variant, "fused");
  o->mode_ic = !strcmp(o->ic, "mode");
  /* The linearisation that matters is about the largest |u| the run reaches: the initial
   * |u0| + noise, and the equilibrium phases +-sqrt(B/U) that phase separation drives u to
   * (about u = 0 alone, forward Euler would be unstable once the phases form). */
  const double hs[3] = {o->h, o->h, o->h};
  int active[3];
  for (int i = 0; i < 3; i++)
    active[i] = o->n[i] > 1;
  o->u_ref = fabs(o->u0) + (o->mode_ic ? o->eps : o->noise);
  if (o->b > 0 && o->u > 0 && sqrt(o->b / o->u) > o->u_ref) o->u_ref = sqrt(o->b / o->u);
  /* the free energy density at the largest |u| (what progress lines print as F): a value
   * whose u^4 overflows would run to the end printing F = inf */
  const double ur = o->u_ref, fmax = fabs(o->b) * ur * ur / 2 + fabs(o->u) * ur * ur * ur * ur / 4 +
                                     o->k * 4 * ur * ur / (o->h * o->h);
  if (!isfinite(fmax))
    return refuse(app, o->mode_ic ? "init.eps" : "init.noise", o->mode_ic ? o->eps : o->noise,
                  "is too large: the free energy density B u^2/2 + U u^4/4 + K |grad u|^2/2 "
                  "at |u0| + amplitude overflows (allowed: amplitudes for which it is finite)");
  o->limit = tess_ch_dt_limit(o->m, o->b, o->u, o->k, o->u_ref, hs, active);
  o->step_dt = o->dt > 0 ? o->dt : o->cfl * o->limit;
  if (o->dt > o->limit) {
    if (tess_app_prints())
      fprintf(stderr,
              PROG ": run.dt = %g (from %s) exceeds the linear stability limit %g of %s on this "
                   "grid (h = %g, K = %g, M = %g, linearised about |u| = %g); use run.dt <= %g "
                   "or run.cfl\n",
              o->dt, tess_config_source(app->cfg, "run.dt"), o->limit,
              o->heun ? "Heun's method" : "forward Euler", o->h, o->k, o->m, o->u_ref, o->limit);
    return -1;
  }
  if (!isfinite(o->step_dt)) {
    if (tess_app_prints())
      fprintf(stderr, PROG ": no mode is unstable on this grid, so run.cfl gives no time step; "
                           "set run.dt\n");
    return -1;
  }
  return 0;
}

/* ---- initial state: a function of the global cell index only ---------------------------- */

static double init_value(const long g[3], int comp, void *arg) {
  (void)comp;
  const ch_opts *o = arg;
  if (o->mode_ic) return o->u0 + o->eps * cos(2 * TESS_PI * o->wave * (double)g[0] / o->n[0]);
  const uint64_t cell =
      (uint64_t)g[0] + (uint64_t)o->n[0] * ((uint64_t)g[1] + (uint64_t)o->n[1] * (uint64_t)g[2]);
  const double r = tess_noise_unit(cell ^ tess_noise_mix((uint64_t)o->seed)); /* [0,1) */
  return o->u0 + o->noise * (2 * r - 1);
}

/* ---- the step program ----------------------------------------------------------------------- */

typedef struct {
  int u, mu, us, un;
} ch_fields;

static tess_err add(tess_sim_t sim, const tess_kernel *k, int nin, const int *in, int out,
                    const tess_ch_params *p) {
  tess_stage st = {
      .kernel = k, .nin = nin, .nout = 1, .out = {out}, .params = p, .params_size = sizeof *p};
  for (int i = 0; i < nin; i++)
    st.in[i] = in[i];
  return tess_sim_add_stage(sim, &st);
}

/* F(v) stands for v + dt M Lap(mu(v)); a stage of weight (c0, c1) writes c0 w + c1 F(v). */
static tess_err add_F(tess_sim_t sim, const ch_opts *o, const ch_fields *f, int v, int w, int out,
                      double c0, double c1) {
  const tess_ch_params p = {o->m, o->b, o->u, o->k, 0, c0, c1};
  tess_ch_params q = p;
  q.dt = o->step_dt;
  if (o->fused) return add(sim, &tess_ch_fused_kernel, w >= 0 ? 2 : 1, (int[]){v, w}, out, &q);
  tess_err e = add(sim, &tess_ch_mu_kernel, 1, (int[]){v}, f->mu, &p);
  return e ? e : add(sim, &tess_ch_update_kernel, w >= 0 ? 3 : 2, (int[]){f->mu, v, w}, out, &q);
}

static tess_err build_program(tess_sim_t sim, const ch_opts *o, ch_fields *f) {
  tess_err e;
  if ((e = tess_sim_add_field(sim, "u", 1, &f->u)) ||
      (e = tess_sim_add_field(sim, "u_new", 1, &f->un)))
    return e;
  f->mu = f->us = -1;
  if (!o->fused && (e = tess_sim_add_field(sim, "mu", 1, &f->mu))) return e;
  if (!o->heun) {
    e = add_F(sim, o, f, f->u, -1, f->un, 0, 1);
  } else {
    if ((e = tess_sim_add_field(sim, "u_star", 1, &f->us))) return e;
    e = add_F(sim, o, f, f->u, -1, f->us, 0, 1);
    if (!e) e = add_F(sim, o, f, f->us, f->u, f->un, 0.5, 0.5);
  }
  /* no-flux walls are Neumann(0) on u and on mu, whose ghosts the fused kernel forms from u's:
   * mu and u_star take u's conditions (a mirror of u is one of them) */
  const int walled[3] = {f->u, f->mu, f->us};
  for (int i = 0; !e && i < 3; i++)
    if (walled[i] >= 0) e = tess_sim_set_boundary_spec(sim, walled[i], o->bc_u);
  return e ? e : tess_sim_add_swap(sim, f->u, f->un);
}

/* ---- diagnostics (rank 0, on the gathered field) --------------------------------------------- */

typedef struct {
  double mass, energy, min, max;
} ch_diag;

/* Discrete free energy: sum h^d [-B/2 u^2 + U/4 u^4 + K/2 |D+ u|^2], forward differences. For
 * the semi-discrete scheme dF/dt = -M sum h^d |D+ mu|^2 <= 0. u: [nz][ny][nx]. */
static ch_diag diagnose(const ch_opts *o, const double *u) {
  ch_diag d = {0, 0, HUGE_VAL, -HUGE_VAL};
  const long nx = o->n[0], ny = o->n[1], nz = o->n[2];
  double vol = 1;
  for (int i = 0; i < 3; i++)
    if (o->n[i] > 1) vol *= o->h;
  for (long z = 0; z < nz; z++)
    for (long y = 0; y < ny; y++)
      for (long x = 0; x < nx; x++) {
        const double v = u[x + nx * (y + ny * z)];
        double grad2 = 0;
        const long nb[3] = {(x + 1) % nx + nx * (y + ny * z), x + nx * ((y + 1) % ny + ny * z),
                            x + nx * (y + ny * ((z + 1) % nz))};
        const long at[3] = {x, y, z};
        for (int i = 0; i < 3; i++) /* no difference across a physical face (no-flux: none) */
          if (o->n[i] > 1 && (o->periodic[i] || at[i] < o->n[i] - 1)) {
            const double g = (u[nb[i]] - v) / o->h;
            grad2 += g * g;
          }
        d.mass += v * vol;
        d.energy += vol * (-0.5 * o->b * v * v + 0.25 * o->u * v * v * v * v + 0.5 * o->k * grad2);
        d.min = fmin(d.min, v);
        d.max = fmax(d.max, v);
      }
  return d;
}

/* Amplitude of the mode cos(2 pi wave x / nx): 2/N sum u cos(...). */
static double mode_amplitude(const ch_opts *o, const double *u) {
  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  double a = 0;
  for (size_t i = 0; i < cells; i++)
    a += (u[i] - o->u0) * cos(2 * TESS_PI * o->wave * (double)(i % (size_t)o->n[0]) / o->n[0]);
  return 2 * a / (double)cells;
}

/* ---- the loop's callbacks --------------------------------------------------------------- */

typedef struct {
  const tess_app *app;
  const ch_opts *o;
  int u, root;
  double *buf;   /* u gathered on rank 0: [nz][ny][nx] */
  long gathered; /* step of the gathered state, -1: none */
  double a0;     /* ic = mode: the amplitude at step 0 (0: not seen) */
  int dt_noted;
} ch_run;

static tess_err gather(ch_run *c, tess_sim_t sim) {
  if (c->gathered == tess_sim_step(sim)) return TESS_OK;
  const tess_err e = tess_sim_gather(sim, c->u, 0, c->buf);
  if (!e) c->gathered = tess_sim_step(sim);
  return e;
}

/* The linear stability limit of these settings (check_settings). */
static tess_err dt_limit(void *ctx, tess_sim_t sim, double *limit) {
  (void)sim;
  *limit = ((const ch_run *)ctx)->o->limit;
  return TESS_OK;
}

/* The kernels hold run.dt; a checkpoint of a run with another one restarts with this one. */
static tess_err choose_dt(void *ctx, tess_sim_t sim, double *dt) {
  ch_run *c = ctx;
  if (*dt != c->o->step_dt && c->root && !c->dt_noted)
    printf("note: the checkpoint's time step %.9g differs from this run's %.9g; continuing at step "
           "%ld with %.9g\n",
           *dt, c->o->step_dt, tess_sim_step(sim), c->o->step_dt);
  c->dt_noted = 1;
  *dt = c->o->step_dt;
  return TESS_OK;
}

static tess_err progress(void *ctx, tess_sim_t sim, double rate, double eta) {
  ch_run *c = ctx;
  const ch_opts *o = c->o;
  const tess_err e = gather(c, sim);
  if (e || !c->root) return e;
  const ch_diag d = diagnose(o, c->buf);
  const long step = tess_sim_step(sim);
  const double t = tess_sim_time(sim);
  printf("step %7ld  t %10.4f  mass %+.15e  F %+.10e  min %+.5f  max %+.5f  %8.1f steps/s  ETA "
         "%6.1f s\n",
         step, t, d.mass, d.energy, d.min, d.max, rate, eta);
  if (o->mode_ic) {
    const double a = mode_amplitude(o, c->buf);
    if (step == 0) {
      c->a0 = a;
    } else {
      /* after a restart step 0 was not seen: the initial amplitude is eps */
      const double a0 = c->a0 != 0 ? c->a0 : o->eps;
      /* the discrete Laplacian's symbol for a mode along x */
      const double lam = 4 / (o->h * o->h) * pow(sin(TESS_PI * o->wave / o->n[0]), 2);
      const double sigma = tess_ch_growth_rate(o->m, o->b, o->u, o->k, o->u0, lam);
      const double measured = log(fabs(a / a0)) / t;
      printf("growth: amplitude %.6e, measured rate %.8e, predicted %.8e, relative error %.3e\n", a,
             measured, sigma, fabs(measured - sigma) / fabs(sigma));
    }
  }
  return TESS_OK;
}

/* At every snapshot: the PNG of u, written by rank 0 (range +-sqrt(B/U), the phases). */
static tess_err output(void *ctx, tess_sim_t sim, long step) {
  ch_run *c = ctx;
  const ch_opts *o = c->o;
  if (!o->png) return TESS_OK;
  const tess_err e = gather(c, sim);
  if (e) return e;
  char name[32];
  snprintf(name, sizeof name, "u_%08ld", step);
  const double lim = o->u > 0 ? sqrt(fmax(o->b, 1e-300) / o->u) : 1;
  return tess_app_png(c->app, c->buf, name, lim) ? TESS_ERR_IO : TESS_OK;
}

static int run(tess_app *app, void *ctx) {
  const ch_opts *o = ctx;
  const double hs[3] = {o->h, o->h, o->h};
  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  ch_run c = {.app = app, .o = o, .root = app->root, .gathered = -1};
  tess_sim_t sim = NULL;
  ch_fields f;
  int err = 1;
  if (c.root && !(c.buf = malloc(cells * sizeof(double)))) {
    fprintf(stderr, PROG ": cannot allocate %zu bytes for u on rank 0\n", cells * sizeof(double));
    goto done;
  }
#define CALL(x)                                                                                    \
  if ((x)) goto done
  CALL(tess_app_sim(app, hs, &sim));
  CALL(build_program(sim, o, &f));
  CALL(tess_sim_setup(sim));
  tess_sim_describe(sim);
  c.u = f.u;
  if (!app->s.restart[0]) CALL(tess_sim_fill(sim, f.u, init_value, (void *)o));
  if (c.root)
    printf("Cahn-Hilliard: M %g B %g U %g K %g, u0 %g, %s, %s variant, dt %.6g (limit %.6g), %ld "
           "steps\n",
           o->m, o->b, o->u, o->k, o->u0, o->heun ? "Heun" : "forward Euler",
           o->fused ? "fused" : "composed", o->step_dt, o->limit, app->s.steps);

  const tess_snap_var vars[] = {{f.u, 0, 1, "u"}};
  const tess_attr attrs[] = {{"M", o->m}, {"B", o->b},   {"U", o->u},
                             {"K", o->k}, {"u0", o->u0}, {"dt", o->step_dt}};
  const tess_app_loop loop = {.nvars = 1,
                              .vars = vars,
                              .nattrs = sizeof attrs / sizeof attrs[0],
                              .attrs = attrs,
                              .dt = o->step_dt,
                              .dt_every = 0, /* choose_dt at every chunk, adding no stops */
                              .ctx = &c,
                              .choose_dt = choose_dt,
                              .progress = progress,
                              .output = output,
                              /* dt follows these from the settings; B, U, the scheme and the
                               * grid define another problem */
                              .restart_may_change = "run.dt,run.cfl,run.variant,physics.m,"
                                                    "physics.k",
                              .dt_limit = dt_limit};
  CALL(tess_app_run(app, sim, &loop));
  err = 0;
done:
  /* On error the caller aborts every rank at once; a collective destroy here could wait on a
   * rank that is already stuck elsewhere. */
  if (!err) tess_sim_destroy(&sim);
  free(c.buf);
  return err;
}

int main(int argc, char **argv) {
  static ch_opts o; /* the defaults, set on every call (the fuzzer calls main repeatedly) */
  o = (ch_opts){.m = 1,
                .b = 1,
                .u = 1,
                .k = 1,
                .ic = "noise",
                .noise = 0.1,
                .seed = 1,
                .wave = 4,
                .eps = 1e-6,
                .scheme = "euler",
                .variant = "composed",
                .cfl = 0.5,
                .h = 1,
                .png = 1};
  /* M, K and the noise are checked by check_settings, which says why a value is refused. */
  const tess_opt opts[] = {
      TESS_OPT_ENTRY("physics.m", TESS_OPT_DOUBLE, &o.m, "m", "mobility M (> 0)"),
      TESS_OPT_ENTRY("physics.b", TESS_OPT_DOUBLE, &o.b, "b",
                     "B of the free energy -B/2 u^2 + U/4 u^4 + K/2 |grad u|^2"),
      TESS_OPT_ENTRY("physics.u", TESS_OPT_DOUBLE, &o.u, "u", "U of the free energy",
                     TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("physics.k", TESS_OPT_DOUBLE, &o.k, "k",
                     "gradient-energy coefficient K (> 0)"),
      TESS_OPT_STRING_ENTRY("init.ic", o.ic, "init",
                            "noise: u0 + noise * uniform(-1,1); mode: u0 + eps cos(2 pi wave x/nx)",
                            .choices = "noise|mode"),
      TESS_OPT_ENTRY("init.u0", TESS_OPT_DOUBLE, &o.u0, "u0", "mean concentration"),
      TESS_OPT_ENTRY("init.noise", TESS_OPT_DOUBLE, &o.noise, "noise",
                     "amplitude of the initial noise (>= 0)"),
      TESS_OPT_ENTRY("init.seed", TESS_OPT_LONG, &o.seed, "seed",
                     "noise seed; the field depends on the global cell only", .min = 0,
                     .max = 9.2e18),
      TESS_OPT_ENTRY("init.wave", TESS_OPT_INT, &o.wave, "wave",
                     "ic = mode: periods of the cosine across x"),
      TESS_OPT_ENTRY("init.eps", TESS_OPT_DOUBLE, &o.eps, "eps",
                     "ic = mode: amplitude of the cosine"),
      TESS_OPT_STRING_ENTRY("boundary.u", o.bc_u, NULL,
                            "conditions of u (and mu) at the physical faces, e.g. all:neumann(0) "
                            "for no-flux walls (docs/boundaries.md)"),
      TESS_OPT_STRING_ENTRY("run.scheme", o.scheme, "scheme",
                            "forward Euler or Heun's 2nd-order method", .choices = "euler|heun"),
      TESS_OPT_STRING_ENTRY("run.variant", o.variant, "variant",
                            "composed: mu stage + update (radius 1); fused: one radius-2 stage",
                            .choices = "composed|fused"),
      TESS_OPT_ENTRY("run.dt", TESS_OPT_DOUBLE, &o.dt, "dt",
                     "time step (0: run.cfl times the stability limit)", TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("run.cfl", TESS_OPT_DOUBLE, &o.cfl, "cfl",
                     "time step as a fraction of the stability limit (run.dt = 0)", .min = 0,
                     .max = 1, .open = TESS_OPT_OPEN_MIN),
      TESS_OPT_ENTRY("grid.h", TESS_OPT_DOUBLE, &o.h, "h", "grid spacing", TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("output.png", TESS_OPT_BOOL, &o.png, "png",
                     "a PNG of u (3D: the plane z = nz/2) with every snapshot"),
  };
  tess_app_settings d;
  tess_app_defaults(&d, PROG, (const int[3]){256, 256, 1}, "u");
  d.steps = 1000;
  d.every = 100;
  snprintf(d.dir, sizeof d.dir, "ch-out");
  return tess_app_main(PROG, &d, opts, sizeof opts / sizeof *opts, NULL, check_settings, run, &o,
                       argc, argv);
}

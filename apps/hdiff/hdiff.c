/* hdiff.c — COSMO's flux-limited horizontal diffusion (seed digest 3.4) as a four-stage
 * program with temporaries: the weather-code demo of multi-stage programs.
 *
 *     lap = Lap(in)                         stage hdiff_lap    temporary lap
 *     fli = limited lap[i+1] - lap          stage hdiff_fli    temporary fli
 *     flj = limited lap[j+1] - lap          stage hdiff_flj    temporary flj
 *     out = in - coeff div(fl)              stage hdiff_out    then swap(in, out)
 *
 * Each kernel declares what it reads of each input, one-sided and horizontal only
 * (codelets/hdiff/hdiff.h); the runtime derives ghosts, halo directions and, with the recompute
 * strategy, the extents on which lap, fli and flj run so that only `in` is exchanged, once per
 * step, two cells wide (docs/multistage.md). run.strategy picks exchange, recompute or auto.
 *
 * A limited-area patch: --periodic without x or y makes that axis's faces physical; only `in`
 * has conditions there (boundary.in, docs/boundaries.md), and lap, fli and flj near a face are
 * computed from in's ghost fills (the recompute strategy, which the runtime then picks). z is
 * never read across: it may be periodic or not and takes no conditions.
 *
 * Initial states: `bump` (a raised square: a sharp feature to smooth, the default), `sine`
 * (one Fourier mode per level: --check compares it with the discrete symbol
 * 1 - coeff (lx + ly)^2 per step, lambda = 4 sin^2(k/2)), `random` (uniform in [-amp, amp]:
 * the limiter acts). --check also prints the drift of the sum (flux form: conserved).
 *
 *   tess-hdiff --grid 128,128,16 --steps 100 --every 10 --png --check
 *   tess-hdiff --grid 96,64,8 --periodic z --set 'boundary.in=x-:dirichlet(0),x+:outflow,y:outflow'
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"
#include "hdiff.h"
#include "noise.h"
#include "tessera.h"

#define PROG    "tess-hdiff"
#define TESS_PI 3.14159265358979323846

typedef struct {
  double coeff, amp;
  int wave, seed, check, png, fpcheck;
  char init[16], strategy[16];
  char bc_in[256];   /* boundary.in: conditions at the physical faces of x and y */
  char machine[256]; /* run.machine: figures of the strategy cost model (tess_machine_parse) */
  char fluxes[TESS_APP_PATH]; /* debug.fluxes: fli and flj of the last step, raw float64 */
  const int *n;
} hdiff_opts;

static double sine_mode(const hdiff_opts *o, const long g[3]) {
  double u = o->amp * (1 + 0.125 * (double)g[2]);
  for (int i = 0; i < 2; i++)
    if (o->n[i] > 1) u *= sin(2 * TESS_PI * o->wave * ((double)g[i] + 0.5) / o->n[i]);
  return u;
}

static double init(const long g[3], int comp, void *arg) {
  (void)comp;
  const hdiff_opts *o = arg;
  if (o->init[0] == 's') return sine_mode(o, g);
  if (o->init[0] == 'r') { /* uniform in [-amp, amp) */
    const uint64_t cell = (uint64_t)(g[0] + o->n[0] * (g[1] + (long)o->n[1] * g[2]));
    return o->amp * (tess_noise_unit(((uint64_t)o->seed << 40) ^ cell) * 2 - 1);
  }
  int in = 1;
  for (int i = 0; i < 2; i++)
    in &= o->n[i] == 1 || labs(2 * g[i] - o->n[i]) < o->n[i] / 4;
  return in ? o->amp : 0;
}

/* Whether x or y has physical faces (z is never read across). */
static int walled(const tess_app *app) {
  return (!app->periodic[0] && app->s.n[0] > 1) || (!app->periodic[1] && app->s.n[1] > 1);
}

/* boundary.in: the spec parses, and each physical face of x and y has a condition (z needs
 * none); 0, or -1 after a message where `root`. */
static int check_conditions(const tess_app *app, const hdiff_opts *o, int root) {
  tess_bc bc[6];
  unsigned set;
  char msg[768];
  if (tess_bc_parse(o->bc_in, "in", app->periodic, bc, &set, msg, sizeof msg)) {
    if (root) fprintf(stderr, PROG ": %s\n", msg);
    return -1;
  }
  for (int f = 0; f < 4; f++) {
    const int axis = f / 2;
    if (app->periodic[axis] || app->s.n[axis] == 1 || ((set >> f) & 1)) continue;
    if (root)
      fprintf(stderr,
              PROG ": field 'in' has no boundary condition on face %s: axis %c is not periodic "
                   "(grid.periodic = %s) (set boundary.in, e.g. --set 'boundary.in=%c:outflow', "
                   "or make %c periodic)\n",
              tess_face_name(f), "xyz"[axis], app -> s.periodic, "xyz"[axis], "xyz"[axis]);
    return -1;
  }
  return 0;
}

/* 0, or -1 after a message where `root` (one rank; every rank takes the same exit). Before MPI
 * (the app's check, also of a dry run) and again in the run. */
static int derive(const tess_app *app, const hdiff_opts *o, tess_strategy *st, int root) {
  const char *msg = NULL;
  char buf[512];
  if (!(o->coeff >= 0 && o->coeff < 1.0 / 32)) {
    snprintf(buf, sizeof buf,
             "physics.coeff = %g (%s) is invalid (allowed: 0 <= coeff < 1/32 = 0.03125, the "
             "stability limit of fourth-order diffusion)",
             o->coeff, tess_config_source(app->cfg, "physics.coeff"));
    msg = buf;
  } else if (strcmp(o->init, "bump") && strcmp(o->init, "sine") && strcmp(o->init, "random")) {
    snprintf(buf, sizeof buf, "physics.init = '%s' is invalid (allowed: bump, sine, random)",
             o->init);
    msg = buf;
  } else if (!strcmp(o->strategy, "auto")        ? (*st = TESS_STRATEGY_AUTO, 0)
             : !strcmp(o->strategy, "exchange")  ? (*st = TESS_STRATEGY_EXCHANGE, 0)
             : !strcmp(o->strategy, "recompute") ? (*st = TESS_STRATEGY_RECOMPUTE, 0)
                                                 : 1) {
    snprintf(buf, sizeof buf, "run.strategy = '%s' is invalid (allowed: auto, exchange, recompute)",
             o->strategy);
    msg = buf;
  } else if (walled(app) && *st == TESS_STRATEGY_EXCHANGE) {
    snprintf(buf, sizeof buf,
             "run.strategy = 'exchange' is invalid with physical faces (grid.periodic = %s): "
             "lap, fli and flj have no conditions and are computed at the faces from in's ghost "
             "fills (allowed: recompute, auto)",
             app->s.periodic);
    msg = buf;
  } else {
    tess_machine m;
    char why[200];
    if (tess_machine_parse(o->machine, &m, why, sizeof why)) {
      snprintf(buf, sizeof buf, "run.machine = '%s' is invalid: %s", o->machine, why);
      msg = buf;
    }
  }
  if (msg && root) fprintf(stderr, PROG ": %s\n", msg);
  return msg ? -1 : check_conditions(app, o, root);
}

typedef struct {
  const hdiff_opts *o;
  tess_app *app;
  int u, root;
  double sum0;
  double *buf; /* rank 0: the whole grid */
} hdiff_run;

static tess_err progress(void *ctx, tess_sim_t sim, double rate, double eta) {
  const hdiff_run *h = ctx;
  tess_stats st;
  const tess_err e = tess_sim_stats(sim, h->u, 0, &st);
  if (e || !h->root) return e;
  printf("step %6ld  sum %+.15e  min %+.6e  max %+.6e  rms %.6e  %.1f steps/s ETA %.0f s\n",
         tess_sim_step(sim), st.sum, st.min, st.max, sqrt(st.sumsq / (double)st.count), rate, eta);
  return TESS_OK;
}

/* The slice z = nz/2 of `in` as <dir>/<name>.png (rank 0 writes). Collective. */
static int png(hdiff_run *h, tess_sim_t sim, const char *name) {
  if (tess_sim_gather(sim, h->u, 0, h->buf)) return -1;
  return tess_app_png(h->app, h->buf, name, fabs(h->o->amp) > 0 ? fabs(h->o->amp) : 1);
}

/* --check on rank 0: the sum's drift; sine: the largest error against the symbol. */
static int check(hdiff_run *h, tess_sim_t sim) {
  const hdiff_opts *o = h->o;
  const int *n = o->n;
  tess_stats st;
  if (tess_sim_stats(sim, h->u, 0, &st) || tess_sim_gather(sim, h->u, 0, h->buf)) return -1;
  if (!h->root) return 0;
  const double scale = fabs(o->amp) * (double)st.count;
  printf("check: sum_initial %+.17e sum_final %+.17e drift %.3e (relative to amp x cells)\n",
         h->sum0, st.sum, fabs(st.sum - h->sum0) / scale);
  if (strcmp(o->init, "sine") || walled(h->app)) return 0; /* the symbol is the periodic box's */
  double lam = 0;
  for (int i = 0; i < 2; i++) {
    const double s = n[i] > 1 ? sin(TESS_PI * o->wave / n[i]) : 0;
    lam += 4 * s * s;
  }
  const double a = pow(1 - o->coeff * lam * lam, (double)tess_sim_step(sim));
  double err = 0;
  for (long z = 0; z < n[2]; z++)
    for (long y = 0; y < n[1]; y++)
      for (long x = 0; x < n[0]; x++) {
        const long g[3] = {x, y, z};
        err = fmax(err, fabs(h->buf[x + n[0] * (y + n[1] * z)] - a * sine_mode(o, g)));
      }
  printf("check: amplification %.17e per step %.17e error_symbol %.6e (relative to amp)\n", a,
         1 - o->coeff * lam * lam, err / fabs(o->amp));
  return 0;
}

/* debug.fluxes: fli then flj (component 0), each [nz][ny][nx], raw float64. Collective. */
static int dump_fluxes(hdiff_run *h, tess_sim_t sim, int fli, int flj) {
  const size_t cells = (size_t)h->o->n[0] * h->o->n[1] * h->o->n[2];
  double *both = h->root ? malloc(2 * cells * sizeof(double)) : NULL;
  int ok = !h->root || both;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (ok) ok = !tess_sim_gather(sim, fli, 0, both) && !tess_sim_gather(sim, flj, 0, both + cells);
  if (ok && h->root) ok = tess_cli_write_raw(PROG, h->o->fluxes, both, 2 * cells) == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(both);
  return ok ? 0 : -1;
}

/* 0: done; 1: failed after a message (abort); 2: bad settings, every rank knows (exit 2). */
static int run(tess_app *app, void *ctx) {
  hdiff_opts *o = ctx;
  o->n = app->s.n;
  tess_strategy strategy = TESS_STRATEGY_AUTO;
  if (derive(app, o, &strategy, app->root)) return 2; /* checked before MPI already */
  const tess_hdiff_params prm = {o->coeff};
  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  hdiff_run h = {.o = o, .app = app, .root = app->root};
  tess_sim_t sim = NULL;
  int out, lap, fli, flj, err = 1;
  if (h.root && !(h.buf = malloc(cells * sizeof(double)))) {
    fprintf(stderr, PROG ": cannot allocate %zu bytes on rank 0\n", cells * sizeof(double));
    return 1;
  }
#define CALL(x)                                                                                    \
  if ((x)) goto done
#define STAGE(k, ni, i0, i1, i2, o0, p, ps)                                                        \
  tess_sim_add_stage(sim, &(tess_stage){.kernel = &k,                                              \
                                        .nin = ni,                                                 \
                                        .in = {i0, i1, i2},                                        \
                                        .nout = 1,                                                 \
                                        .out = {o0},                                               \
                                        .params = p,                                               \
                                        .params_size = ps})
  CALL(tess_app_sim(app, NULL, &sim));
  CALL(tess_sim_set_strategy(sim, strategy));
  tess_machine machine;
  char why[200];
  tess_machine_parse(o->machine, &machine, why, sizeof why); /* checked in derive */
  CALL(tess_sim_set_machine(sim, &machine));
  CALL(tess_sim_set_footprint_check(sim, o->fpcheck));
  CALL(tess_sim_add_field(sim, "in", 1, &h.u));
  CALL(tess_sim_add_field(sim, "out", 1, &out));
  CALL(tess_sim_set_boundary_spec(sim, h.u, o->bc_in));
  CALL(tess_sim_add_temporary(sim, "lap", 1, &lap));
  CALL(tess_sim_add_temporary(sim, "fli", 1, &fli));
  CALL(tess_sim_add_temporary(sim, "flj", 1, &flj));
  CALL(STAGE(tess_hdiff_lap_kernel, 1, h.u, 0, 0, lap, NULL, 0));
  CALL(STAGE(tess_hdiff_fli_kernel, 2, lap, h.u, 0, fli, NULL, 0));
  CALL(STAGE(tess_hdiff_flj_kernel, 2, lap, h.u, 0, flj, NULL, 0));
  CALL(STAGE(tess_hdiff_out_kernel, 3, h.u, fli, flj, out, &prm, sizeof prm));
  CALL(tess_sim_add_swap(sim, h.u, out));
  CALL(tess_sim_setup(sim));
  tess_sim_describe(sim);
  if (!app->s.restart[0]) CALL(tess_sim_fill(sim, h.u, init, (void *)o));
  tess_stats st0;
  CALL(tess_sim_stats(sim, h.u, 0, &st0));
  h.sum0 = st0.sum;
  if (h.root) printf("coeff %g, init %s, %ld steps\n", o->coeff, o->init, app->s.steps);
  if (o->png && png(&h, sim, "in_before")) goto done;

  const tess_snap_var vars[] = {{h.u, 0, 1, "in"}};
  const tess_attr attrs[] = {{"coeff", o->coeff}, {"amp", o->amp}, {"wave", o->wave}};
  const tess_app_loop loop = {.nvars = 1,
                              .vars = vars,
                              .nattrs = sizeof attrs / sizeof attrs[0],
                              .attrs = attrs,
                              .dt = 1,
                              .ctx = &h,
                              .progress = progress,
                              /* the initial state and how the temporaries' halos are made: the
                               * same evolution */
                              .restart_may_change = "physics.init,physics.amp,physics.wave,"
                                                    "physics.seed,run.strategy,run.machine"};
  CALL(tess_app_run(app, sim, &loop));
  if (o->png && png(&h, sim, "in_after")) goto done;
  if (o->check && check(&h, sim)) goto done;
  if (o->fluxes[0] && dump_fluxes(&h, sim, fli, flj)) goto done;
  err = 0;
done:
  free(h.buf);
  if (!err) tess_sim_destroy(&sim);
  return err;
}

static int check_settings(tess_app *app, void *ctx) {
  hdiff_opts *o = ctx;
  o->n = app->s.n;
  tess_strategy st;
  return derive(app, o, &st, tess_app_prints()) ? 1 : 0;
}

int main(int argc, char **argv) {
  static hdiff_opts o; /* the defaults, set on every call (the fuzzer calls main repeatedly) */
  o = (hdiff_opts){
      .coeff = 0.025, .amp = 1, .wave = 1, .seed = 1, .init = "bump", .strategy = "auto"};
  const tess_opt opts[] = {
      /* no range: checked by derive with the stability bound in the message */
      TESS_OPT_ENTRY("physics.coeff", TESS_OPT_DOUBLE, &o.coeff, "coeff",
                     "diffusion coefficient, 0 <= coeff < 1/32"),
      TESS_OPT_STRING_ENTRY("physics.init", o.init, "init", "initial state: bump, sine or random"),
      TESS_OPT_ENTRY("physics.amp", TESS_OPT_DOUBLE, &o.amp, "amp",
                     "amplitude of the initial state"),
      TESS_OPT_ENTRY("physics.wave", TESS_OPT_INT, &o.wave, "wave",
                     "sine: periods per box along x and y", .min = 1, .max = 1 << 20),
      TESS_OPT_ENTRY("physics.seed", TESS_OPT_INT, &o.seed, "seed", "random: seed", .min = 0,
                     .max = 1 << 30),
      TESS_OPT_STRING_ENTRY("boundary.in", o.bc_in, NULL,
                            "conditions of in at the physical faces of x and y (face:kind(value) "
                            "list: docs/boundaries.md)"),
      TESS_OPT_STRING_ENTRY("run.strategy", o.strategy, "strategy",
                            "halos of the temporaries: auto, exchange or recompute"),
      TESS_OPT_STRING_ENTRY("run.machine", o.machine, "machine",
                            "auto's cost model: figures to use instead of StarPU's measures, "
                            "key=value,... (keys " TESS_MACHINE_KEYS "; us and GB/s)"),
      TESS_OPT_ENTRY("run.check", TESS_OPT_BOOL, &o.check, "check",
                     "print the sum's drift (and, sine: the error against the discrete symbol)"),
      TESS_OPT_ENTRY("output.png", TESS_OPT_BOOL, &o.png, "png",
                     "PNG of the slice z = nz/2 before and after the run"),
      TESS_OPT_ENTRY("debug.footprint_check", TESS_OPT_BOOL, &o.fpcheck, "footprint-check",
                     "rerun every kernel with undeclared cells poisoned (slow; CPU)"),
      TESS_OPT_STRING_ENTRY(
          "debug.fluxes", o.fluxes, "dump-fluxes",
          "write fli and flj of the last step as raw float64 to this file (tests)"),
  };
  tess_app_settings d;
  tess_app_defaults(&d, PROG, (const int[3]){64, 64, 4}, "in");
  return tess_app_main(PROG, &d, opts, sizeof opts / sizeof *opts, &o.png, check_settings, run, &o,
                       argc, argv);
}

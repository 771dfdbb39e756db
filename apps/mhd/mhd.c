/* mhd.c — Astaroth's non-ideal compressible MHD (8 fields, 6th order, RK3) on Tessera.
 *
 * Physics and numerics live in codelets/mhd.{h,c} (the kernel) and mhd_program.{h,c} (the
 * three RK3 substeps and the initial conditions); this file is the user's side: the physical
 * parameters as settings ([physics], [init], [run] next to the common ones of app.h;
 * apps/mhd/mhd.conf documents them, like Astaroth's astaroth.conf), the time step fixed or
 * CFL-limited, and the progress lines. Diagnostics gather the fields to rank 0: --every 0
 * skips them (benchmarks).
 *
 *   tess-mhd --config apps/mhd/mhd.conf --set init.ic=sound --grid 64,64,64 --steps 200
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "mhd_program.h"
#include "tessera.h"

#define PROG "tess-mhd"

typedef struct {
  double h[3], dt, cdt, cdtv;
  int cfl_every;
  char ic[16];
  long seed;
  tess_mhd_params p;
  tess_mhd_ic ic_opts; /* amp, mode, backgrounds */
  const int *n;        /* the grid (app settings) */
  char walls[16];      /* boundary.walls: none | slip (the faces of the non-periodic axes) */
} mhd_opts;

/* boundary.walls = slip: at every physical face, a free-slip, perfectly conducting,
 * impermeable wall, per component (Astaroth's boundconds): the normal velocity and the
 * tangential vector potential odd (antisymmetric: u_n = 0, tangential E = 0), everything else
 * even (symmetric: no flux of mass, entropy and tangential momentum; B_n = 0 follows). */
static tess_err set_walls(tess_sim_t sim, int state, const int periodic[3]) {
  for (int face = 0; face < 6; face++) {
    const int axis = face / 2;
    if (periodic[axis]) continue;
    for (int c = 0; c < TESS_MHD_NC; c++) {
      const int un = c == TESS_MHD_UX + axis, at = c >= TESS_MHD_AX && c != TESS_MHD_AX + axis;
      const tess_bc bc = {un || at ? TESS_BC_ANTISYMMETRIC : TESS_BC_SYMMETRIC, 0, NULL, NULL};
      tess_err e = tess_sim_set_boundary(sim, state, c, face, &bc);
      if (e) return e;
    }
  }
  return TESS_OK;
}

/* A grid with physical faces needs boundary.walls (and walls need one). */
static int check_settings(tess_app *app, void *ctx) {
  const mhd_opts *o = ctx;
  int walled = 0;
  for (int i = 0; i < 3; i++)
    walled |= !app->periodic[i] && app->s.n[i] > 1;
  if (walled == !strcmp(o->walls, "none") && tess_app_prints())
    fprintf(stderr,
            PROG ": %s (grid.periodic = %s; boundary.walls = slip puts a free-slip, perfectly "
                 "conducting wall on every face of a non-periodic axis)\n",
            walled ? "boundary.walls = none, but some axis is not periodic"
                   : "boundary.walls = slip, but every axis is periodic",
            app->s.periodic);
  return walled == !strcmp(o->walls, "none") ? -1 : 0;
}

/* ---- diagnostics on rank 0 ------------------------------------------------------------------ */

typedef struct {
  double min[TESS_MHD_NC], max[TESS_MHD_NC], rms[TESS_MHD_NC];
  double mass, ekin, emag, max_divb, max_speed, min_rho;
} mhd_diag;

static size_t wrap(const int n[3], long x, long y, long z) {
  x = (x % n[0] + n[0]) % n[0];
  y = (y % n[1] + n[1]) % n[1];
  z = (z % n[2] + n[2]) % n[2];
  return (size_t)x + (size_t)n[0] * ((size_t)y + (size_t)n[1] * (size_t)z);
}

/* 6th-order central first derivative of a periodic gathered field along axis a at (x,y,z). */
static double deriv(const double *f, const int n[3], const double h[3], int a, long x, long y,
                    long z) {
  if (n[a] == 1) return 0;
  static const double c[3] = {3.0 / 4, -3.0 / 20, 1.0 / 60};
  double s = 0;
  for (int k = 1; k <= 3; k++) {
    const long d[3] = {a == 0 ? k : 0, a == 1 ? k : 0, a == 2 ? k : 0};
    s += c[k - 1] *
         (f[wrap(n, x + d[0], y + d[1], z + d[2])] - f[wrap(n, x - d[0], y - d[1], z - d[2])]);
  }
  return s / h[a];
}

static mhd_diag diagnose(const mhd_opts *o, double *const f[TESS_MHD_NC]) {
  mhd_diag d;
  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  double vol = 1;
  for (int i = 0; i < 3; i++)
    if (o->n[i] > 1) vol *= o->h[i];
  for (int c = 0; c < TESS_MHD_NC; c++) {
    d.min[c] = HUGE_VAL, d.max[c] = -HUGE_VAL;
    double s2 = 0;
    for (size_t i = 0; i < cells; i++) {
      d.min[c] = fmin(d.min[c], f[c][i]);
      d.max[c] = fmax(d.max[c], f[c][i]);
      s2 += f[c][i] * f[c][i];
    }
    d.rms[c] = sqrt(s2 / (double)cells);
  }
  /* B = curl A + B_ext on the grid, then its divergence with the same operator */
  double *B[3];
  for (int a = 0; a < 3; a++)
    B[a] = malloc(cells * sizeof(double));
  d.mass = d.ekin = d.emag = d.max_divb = 0;
  for (long z = 0; z < o->n[2]; z++)
    for (long y = 0; y < o->n[1]; y++)
      for (long x = 0; x < o->n[0]; x++) {
        const size_t i = wrap(o->n, x, y, z);
        const double *A[3] = {f[TESS_MHD_AX], f[TESS_MHD_AX + 1], f[TESS_MHD_AX + 2]};
#define D(a, comp) deriv(A[comp], o->n, o->h, a, x, y, z)
        B[0][i] = D(1, 2) - D(2, 1) + o->p.B_ext[0];
        B[1][i] = D(2, 0) - D(0, 2) + o->p.B_ext[1];
        B[2][i] = D(0, 1) - D(1, 0) + o->p.B_ext[2];
#undef D
        const double rho = exp(f[TESS_MHD_LNRHO][i]);
        double u2 = 0, b2 = 0;
        for (int a = 0; a < 3; a++) {
          u2 += f[TESS_MHD_UX + a][i] * f[TESS_MHD_UX + a][i];
          b2 += B[a][i] * B[a][i];
        }
        d.mass += rho * vol;
        d.ekin += 0.5 * rho * u2 * vol;
        d.emag += 0.5 * b2 / o->p.mu0 * vol;
      }
  for (long z = 0; z < o->n[2]; z++)
    for (long y = 0; y < o->n[1]; y++)
      for (long x = 0; x < o->n[0]; x++) {
        const double div = deriv(B[0], o->n, o->h, 0, x, y, z) +
                           deriv(B[1], o->n, o->h, 1, x, y, z) +
                           deriv(B[2], o->n, o->h, 2, x, y, z);
        d.max_divb = fmax(d.max_divb, fabs(div));
      }
  for (int a = 0; a < 3; a++)
    free(B[a]);
  d.max_speed = tess_mhd_max_signal_speed(o->n, o->h, &o->p, (const double *const *)f, &d.min_rho);
  return d;
}

/* ---- the loop's callbacks --------------------------------------------------------------- */

typedef struct {
  mhd_opts *o;
  int state, root;
  double *f[TESS_MHD_NC]; /* gathered on rank 0 */
  long gathered;          /* step of the gathered state, -1: none */
  double dt;
} mhd_run;

static tess_err gather(mhd_run *m, tess_sim_t sim) {
  if (m->gathered == tess_sim_step(sim)) return TESS_OK;
  for (int c = 0; c < TESS_MHD_NC; c++) {
    const tess_err e = tess_sim_gather(sim, m->state, c, m->f[c]);
    if (e) return e;
  }
  m->gathered = tess_sim_step(sim);
  return TESS_OK;
}

/* The CFL limit of the current fields with run.cdt and run.cdtv (collective). */
static tess_err dt_limit(void *ctx, tess_sim_t sim, double *limit) {
  mhd_run *m = ctx;
  const tess_err e = gather(m, sim);
  if (e) return e;
  if (m->root) {
    double min_rho;
    const double speed = tess_mhd_max_signal_speed(m->o->n, m->o->h, &m->o->p,
                                                   (const double *const *)m->f, &min_rho);
    *limit = tess_mhd_dt_limit(&m->o->p, m->o->n, m->o->h, speed, min_rho, m->o->cdt, m->o->cdtv);
  }
  MPI_Bcast(limit, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return TESS_OK;
}

static tess_err choose_dt(void *ctx, tess_sim_t sim, double *dt) {
  mhd_run *m = ctx;
  if (m->o->dt > 0) {
    *dt = m->o->dt; /* fixed */
  } else {
    const tess_err e = dt_limit(ctx, sim, dt);
    if (e) return e;
  }
  m->dt = *dt;
  return TESS_OK;
}

static tess_err progress(void *ctx, tess_sim_t sim, double rate, double eta) {
  mhd_run *m = ctx;
  const tess_err e = gather(m, sim);
  if (e || !m->root) return e;
  const mhd_diag d = diagnose(m->o, m->f);
  printf("step %6ld t %.6e dt %.3e  mass %.12e  Ekin %.6e  Emag %.6e  max|divB| %.2e  "
         "%.1f steps/s ETA %.0f s\n",
         tess_sim_step(sim), tess_sim_time(sim), m->dt, d.mass, d.ekin, d.emag, d.max_divb, rate,
         eta);
  for (int c = 0; c < TESS_MHD_NC; c++)
    printf("    %-6s min %+.6e max %+.6e rms %.6e\n", tess_mhd_var_name(c), d.min[c], d.max[c],
           d.rms[c]);
  return TESS_OK;
}

static int run(tess_app *app, void *ctx) {
  mhd_opts *o = ctx;
  o->n = app->s.n;
  tess_mhd_ic_kind ick;
  if (tess_mhd_ic_parse(o->ic, &ick)) return 1;
  const int *n = app->s.n;
  const size_t cells = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
  mhd_run m = {.o = o, .root = app->root, .gathered = -1, .dt = o->dt};
  tess_sim_t sim = NULL;
  int out, err = 1;
  tess_mhd_ic ic = tess_mhd_ic_default(ick, n, o->h, &o->p);
  ic.seed = (unsigned long)o->seed, ic.amp = o->ic_opts.amp, ic.mode = o->ic_opts.mode;
  ic.lnrho_bg = o->ic_opts.lnrho_bg, ic.ss_bg = o->ic_opts.ss_bg;

#define CALL(x)                                                                                    \
  if ((x)) goto done
  CALL(tess_app_sim(app, o->h, &sim));
  CALL(tess_sim_add_field(sim, "state", TESS_MHD_NC, &m.state));
  CALL(tess_sim_add_field(sim, "state_out", TESS_MHD_NC, &out));
  if (strcmp(o->walls, "none")) CALL(set_walls(sim, m.state, app->periodic));
  tess_mhd_params p = o->p;
  p.dt = 0; /* the kernel takes tess_sim_run's dt: fixed or CFL-limited */
  CALL(tess_mhd_add_rk3(sim, m.state, out, &p));
  CALL(tess_sim_setup(sim)); /* refuses a grid the ranks' memory cannot hold, with numbers */
  /* the diagnostics gather every component to rank 0 */
  int ok = 1;
  for (int c = 0; m.root && ok && c < TESS_MHD_NC; c++)
    ok = (m.f[c] = malloc(cells * sizeof(double))) != NULL;
  if (!ok)
    fprintf(stderr, PROG ": the diagnostics gather the grid on rank 0: cannot allocate %.1f GiB\n",
            (double)cells * sizeof(double) * TESS_MHD_NC / (1024.0 * 1024.0 * 1024.0));
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) goto done;
  tess_sim_describe(sim);
  if (!app->s.restart[0]) CALL(tess_mhd_fill(sim, m.state, &ic));
  if (m.root)
    printf("MHD: ic %s, nu %g zeta %g eta %g mu0 %g cs0 %g gamma %g K %g, B_ext (%g,%g,%g), %s\n",
           o->ic, o->p.nu, o->p.zeta, o->p.eta, o->p.mu0, o->p.cs0, o->p.gamma, o->p.K,
           o->p.B_ext[0], o->p.B_ext[1], o->p.B_ext[2], o->dt > 0 ? "fixed dt" : "CFL-limited dt");

  const tess_snap_var vars[] = {{m.state, TESS_MHD_LNRHO, 1, "lnrho"},
                                {m.state, TESS_MHD_UX, 3, "u"},
                                {m.state, TESS_MHD_SS, 1, "ss"},
                                {m.state, TESS_MHD_AX, 3, "A"}};
  const tess_attr attrs[] = {{"nu", o->p.nu},       {"zeta", o->p.zeta}, {"eta", o->p.eta},
                             {"mu0", o->p.mu0},     {"cs0", o->p.cs0},   {"cp", o->p.cp},
                             {"gamma", o->p.gamma}, {"K", o->p.K},       {"lnrho0", o->p.lnrho0},
                             {"lnT0", o->p.lnT0}};
  const tess_app_loop loop = {.nvars = 4,
                              .vars = vars,
                              .nattrs = sizeof attrs / sizeof attrs[0],
                              .attrs = attrs,
                              .dt = o->dt,
                              .dt_every = o->cfl_every,
                              .ctx = &m,
                              .choose_dt = choose_dt,
                              .progress = progress,
                              /* the time step follows these; the rest defines another problem */
                              .restart_may_change = "run.dt,run.cdt,run.cdtv,run.cfl_every,"
                                                    "physics.nu,physics.zeta,physics.eta,"
                                                    "physics.conductivity",
                              .dt_limit = dt_limit,
                              .dt_in_use = &m.dt};
  CALL(tess_app_run(app, sim, &loop));
  err = 0;
done:
  for (int c = 0; c < TESS_MHD_NC; c++)
    free(m.f[c]);
  if (!err) tess_sim_destroy(&sim);
  return err;
}

int main(int argc, char **argv) {
  static mhd_opts o; /* the defaults, set on every call (the fuzzer calls main repeatedly) */
  const double h = 2 * 3.14159265358979323846 / 128; /* Astaroth's dsx = 0.0490873852 */
  o = (mhd_opts){.cdt = TESS_MHD_CDT,
                 .cdtv = TESS_MHD_CDTV,
                 .cfl_every = 10,
                 .ic = "sound",
                 .walls = "none",
                 .seed = 1,
                 .h = {h, h, h}};
  o.p = (tess_mhd_params)TESS_MHD_PARAMS_DEFAULT;
  o.ic_opts = (tess_mhd_ic){.amp = 1e-3, .mode = 1, .lnrho_bg = o.p.lnrho0};
  const tess_opt opts[] = {
      TESS_OPT_ENTRY("grid.spacing", TESS_OPT_DOUBLES3, o.h, "spacing",
                     "cell size dx,dy,dz (Astaroth: 2 pi / 128)", TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("physics.nu", TESS_OPT_DOUBLE, &o.p.nu, NULL, "kinematic viscosity",
                     TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("physics.zeta", TESS_OPT_DOUBLE, &o.p.zeta, NULL, "bulk viscosity",
                     TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("physics.eta", TESS_OPT_DOUBLE, &o.p.eta, NULL, "magnetic diffusivity",
                     TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("physics.mu0", TESS_OPT_DOUBLE, &o.p.mu0, NULL, "vacuum permeability",
                     TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("physics.cs0", TESS_OPT_DOUBLE, &o.p.cs0, NULL,
                     "sound speed at s = 0, ln rho = lnrho0", TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("physics.cp", TESS_OPT_DOUBLE, &o.p.cp, NULL,
                     "heat capacity at constant pressure", TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("physics.gamma", TESS_OPT_DOUBLE, &o.p.gamma, NULL, "adiabatic index cp/cv",
                     .min = 1, .max = HUGE_VAL),
      TESS_OPT_ENTRY("physics.lnt0", TESS_OPT_DOUBLE, &o.p.lnT0, NULL,
                     "ln T at s = 0, ln rho = lnrho0"),
      TESS_OPT_ENTRY("physics.lnrho0", TESS_OPT_DOUBLE, &o.p.lnrho0, NULL,
                     "reference ln rho of the equation of state"),
      TESS_OPT_ENTRY("physics.conductivity", TESS_OPT_DOUBLE, &o.p.K, NULL,
                     "heat conductivity of div(K grad T)", TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("physics.heating", TESS_OPT_DOUBLE, &o.p.heating, NULL,
                     "net heating H - C per unit volume"),
      TESS_OPT_ENTRY("physics.b_ext", TESS_OPT_DOUBLES3, o.p.B_ext, NULL,
                     "imposed uniform field (B = curl A + B_ext)"),
      TESS_OPT_ENTRY("physics.force_amp", TESS_OPT_DOUBLE, &o.p.force_amp, NULL,
                     "Kolmogorov forcing amplitude (0: off)", TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("physics.force_k", TESS_OPT_INT, &o.p.force_k, NULL,
                     "forcing wave number (periods across x)", .min = 1, .max = 1 << 20),
      TESS_OPT_STRING_ENTRY("boundary.walls", o.walls, NULL,
                            "walls at the faces of the non-periodic axes (grid.periodic): none, "
                            "or slip (free-slip, perfectly conducting; docs/boundaries.md)",
                            .choices = "none|slip"),
      TESS_OPT_STRING_ENTRY("init.ic", o.ic, NULL, "initial condition",
                            .choices = "random|sound|alfven|abc"),
      TESS_OPT_ENTRY("init.seed", TESS_OPT_LONG, &o.seed, NULL, "random IC seed", .min = 0,
                     .max = 9.2e18),
      TESS_OPT_ENTRY("init.amp", TESS_OPT_DOUBLE, &o.ic_opts.amp, NULL, "wave amplitude"),
      TESS_OPT_ENTRY("init.mode", TESS_OPT_INT, &o.ic_opts.mode, NULL,
                     "wave periods across the box", .min = 1, .max = 1 << 20),
      TESS_OPT_ENTRY("init.lnrho_bg", TESS_OPT_DOUBLE, &o.ic_opts.lnrho_bg, NULL,
                     "background ln rho"),
      TESS_OPT_ENTRY("init.ss_bg", TESS_OPT_DOUBLE, &o.ic_opts.ss_bg, NULL, "background entropy"),
      TESS_OPT_ENTRY("run.dt", TESS_OPT_DOUBLE, &o.dt, "dt", "fixed time step (0: CFL-limited)",
                     TESS_OPT_NONNEGATIVE),
      TESS_OPT_ENTRY("run.cdt", TESS_OPT_DOUBLE, &o.cdt, NULL, "advective Courant factor",
                     TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("run.cdtv", TESS_OPT_DOUBLE, &o.cdtv, NULL, "diffusive Courant factor",
                     TESS_OPT_POSITIVE),
      TESS_OPT_ENTRY("run.cfl_every", TESS_OPT_INT, &o.cfl_every, NULL,
                     "CFL time step recomputed every N steps", .min = 1, .max = 1e9),
  };
  tess_app_settings d;
  tess_app_defaults(&d, PROG, (const int[3]){64, 64, 64}, "lnrho,u,ss,A");
  d.every = 10;
  return tess_app_main(PROG, &d, opts, sizeof opts / sizeof *opts, NULL, check_settings, run, &o,
                       argc, argv);
}

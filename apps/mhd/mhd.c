/* mhd.c — Astaroth's non-ideal compressible MHD (8 fields, 6th order, RK3) on Tessera.
 *
 * Physics and numerics live in codelets/mhd.{h,c} (the kernel) and mhd_program.{h,c} (the
 * three RK3 substeps and the initial conditions); this file is the user's side: parameters
 * from a key = value file like Astaroth's astaroth.conf (apps/mhd/mhd.conf documents every
 * key) with command-line overrides, the time step fixed or CFL-limited, progress lines and
 * VTK snapshots. Diagnostics gather the fields to rank 0: --every 0 skips them (benchmarks).
 *
 *   tess-mhd --config apps/mhd/mhd.conf --set ic=sound --set nx=64 --steps 200 --every 20
 */
#include <getopt.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mhd_program.h"
#include "tessera.h"
#include "vtk.h"

#define PROG "tess-mhd"

typedef struct {
  int n[3], steps, every, vtk_every, tiles, procs[3], warmup;
  double h[3], dt, cdt, cdtv;
  char ic[16], mode[16], device[16], out[512], dump[512], trace[512];
  tess_mhd_params p;
  tess_mhd_ic ic_opts; /* seed, amp, mode, backgrounds */
} mhd_opts;

/* ---- the key table: one entry per configurable value, used by the file and --set ---------- */
typedef enum { K_INT, K_DOUBLE, K_STR, K_ULONG } key_type;
typedef struct {
  const char *key;
  key_type type;
  size_t offset, size;
  const char *help;
} key_def;

#define KD(k, t, field, help)                                                                      \
  { k, t, offsetof(mhd_opts, field), sizeof(((mhd_opts *)0)->field), help }
static const key_def keys[] = {
    KD("nx", K_INT, n[0], "cells along x"),
    KD("ny", K_INT, n[1], "cells along y"),
    KD("nz", K_INT, n[2], "cells along z (1: 2D)"),
    KD("dsx", K_DOUBLE, h[0], "spacing along x"),
    KD("dsy", K_DOUBLE, h[1], "spacing along y"),
    KD("dsz", K_DOUBLE, h[2], "spacing along z"),
    KD("nu", K_DOUBLE, p.nu, "kinematic viscosity"),
    KD("zeta", K_DOUBLE, p.zeta, "bulk viscosity"),
    KD("eta", K_DOUBLE, p.eta, "magnetic diffusivity"),
    KD("mu0", K_DOUBLE, p.mu0, "vacuum permeability"),
    KD("cs0", K_DOUBLE, p.cs0, "sound speed"),
    KD("cp", K_DOUBLE, p.cp, "heat capacity"),
    KD("gamma", K_DOUBLE, p.gamma, "adiabatic index"),
    KD("lnT0", K_DOUBLE, p.lnT0, "reference ln T"),
    KD("lnrho0", K_DOUBLE, p.lnrho0, "reference ln rho"),
    KD("K", K_DOUBLE, p.K, "heat conductivity"),
    KD("heating", K_DOUBLE, p.heating, "net heating H - C"),
    KD("bx_ext", K_DOUBLE, p.B_ext[0], "imposed field x"),
    KD("by_ext", K_DOUBLE, p.B_ext[1], "imposed field y"),
    KD("bz_ext", K_DOUBLE, p.B_ext[2], "imposed field z"),
    KD("force_amp", K_DOUBLE, p.force_amp, "Kolmogorov forcing amplitude"),
    KD("force_k", K_INT, p.force_k, "forcing wave number"),
    KD("ic", K_STR, ic, "initial condition: random, sound, alfven, abc"),
    KD("seed", K_ULONG, ic_opts.seed, "random IC seed"),
    KD("amp", K_DOUBLE, ic_opts.amp, "wave amplitude"),
    KD("ic_mode", K_INT, ic_opts.mode, "wave periods across the box"),
    KD("lnrho_bg", K_DOUBLE, ic_opts.lnrho_bg, "background ln rho"),
    KD("ss_bg", K_DOUBLE, ic_opts.ss_bg, "background entropy"),
    KD("dt", K_DOUBLE, dt, "fixed time step (0: CFL-limited)"),
    KD("cdt", K_DOUBLE, cdt, "advective Courant factor"),
    KD("cdtv", K_DOUBLE, cdtv, "diffusive Courant factor"),
    KD("steps", K_INT, steps, "time steps"),
    KD("every", K_INT, every, "progress line every N steps (0: none)"),
    KD("vtk_every", K_INT, vtk_every, "VTK snapshot every N steps (0: none)"),
    KD("warmup", K_INT, warmup, "untimed steps before the timed ones (benchmarks)"),
    KD("out", K_STR, out, "output directory"),
    KD("tiles", K_INT, tiles, "tiles per rank"),
    KD("mode", K_STR, mode, "overlap or bulk"),
    KD("device", K_STR, device, "cpu, cuda or auto"),
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Returns 1 on success, 0 with a message in err naming the key, the value and what is allowed. */
static int parse_key(mhd_opts *o, const char *key, const char *value, char *err, size_t errlen) {
  for (size_t i = 0; i < NKEYS; i++) {
    if (strcmp(keys[i].key, key)) continue;
    char *dst = (char *)o + keys[i].offset, *end;
    switch (keys[i].type) {
    case K_INT: {
      const long v = strtol(value, &end, 10);
      if (end == value || *end || v < -1000000000L || v > 1000000000L) break;
      *(int *)dst = (int)v;
      return 1;
    }
    case K_ULONG: {
      const unsigned long v = strtoul(value, &end, 10);
      if (end == value || *end) break;
      *(unsigned long *)dst = v;
      return 1;
    }
    case K_DOUBLE: {
      const double v = strtod(value, &end);
      if (end == value || *end || !isfinite(v)) break;
      *(double *)dst = v;
      return 1;
    }
    case K_STR:
      if (strlen(value) >= keys[i].size) break;
      strcpy(dst, value);
      return 1;
    }
    snprintf(err, errlen, "malformed value '%s' for '%s' (%s)", value, key, keys[i].help);
    return 0;
  }
  snprintf(err, errlen, "unknown key '%s' (see --help for the keys)", key);
  return 0;
}

/* parse_key for the command line: prints "tess-mhd: <where>: <message>". */
static int set_key(mhd_opts *o, const char *key, const char *value, const char *where) {
  char err[512];
  if (parse_key(o, key, value, err, sizeof err)) return 1;
  fprintf(stderr, PROG ": %s: %s\n", where, err);
  return 0;
}

typedef struct {
  mhd_opts *o;
  char err[512]; /* the first error; ini_parse reports its line */
} file_ctx;

/* libinih handler. '#' starts a comment anywhere (Debian's libinih only strips ';' inline). */
static int on_ini_key(void *user, const char *section, const char *name, const char *value) {
  file_ctx *c = user;
  char v[512];
  snprintf(v, sizeof v, "%s", value);
  char *hash = strchr(v, '#');
  if (hash) *hash = 0;
  for (size_t n = strlen(v); n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'); n--)
    v[n - 1] = 0;
  char err[512];
  int ok = 1;
  if (*section) {
    snprintf(err, sizeof err, "section [%s]: sections are not used; write key = value lines",
             section);
    ok = 0;
  } else {
    ok = parse_key(c->o, name, v, err, sizeof err);
  }
  if (!ok && !c->err[0]) snprintf(c->err, sizeof c->err, "%s", err);
  return ok;
}

static void usage(FILE *to) {
  fprintf(to, "usage: " PROG " [--config FILE] [--set key=value ...] [options]\n"
              "  --config FILE    key = value lines ('#' comments), e.g. apps/mhd/mhd.conf\n"
              "  --set key=value  override one key (after the file; repeatable)\n"
              "  --grid NX,NY,NZ --steps N --every N --vtk-every N --out DIR --dt DT\n"
              "  --tiles T --procs PX,PY,PZ --mode overlap|bulk --device cpu|cuda|auto\n"
              "  --dump FILE      final state, raw float64, 8 components one after the other\n"
              "  --trace DIR      StarPU FxT trace merged into DIR\nkeys:\n");
  for (size_t i = 0; i < NKEYS; i++)
    fprintf(to, "  %-10s %s\n", keys[i].key, keys[i].help);
}

static void defaults(mhd_opts *o) {
  memset(o, 0, sizeof *o);
  const tess_mhd_params p = TESS_MHD_PARAMS_DEFAULT;
  o->p = p;
  for (int i = 0; i < 3; i++) {
    o->n[i] = 64;
    o->h[i] = 2 * 3.14159265358979323846 / 128; /* Astaroth's dsx = 0.0490873852 */
  }
  o->steps = 100;
  o->every = 10;
  o->cdt = TESS_MHD_CDT;
  o->cdtv = TESS_MHD_CDTV;
  strcpy(o->ic, "sound");
  strcpy(o->mode, "overlap");
  strcpy(o->device, "cpu");
  strcpy(o->out, "mhd-out");
  o->ic_opts.seed = 1;
  o->ic_opts.amp = 1e-3;
  o->ic_opts.mode = 1;
  o->ic_opts.lnrho_bg = o->p.lnrho0;
}

/* 0: run, 1: --help, -1: bad input (message printed). Options are applied in order, so the
 * command line overrides the file. */
static int parse_args(int argc, char **argv, mhd_opts *o) {
  defaults(o);
  static const struct option lo[] = {
      {"config", 1, 0, 'c'}, {"set", 1, 0, 'S'},       {"grid", 1, 0, 'g'}, {"steps", 1, 0, 's'},
      {"every", 1, 0, 'e'},  {"vtk-every", 1, 0, 'v'}, {"out", 1, 0, 'o'},  {"dt", 1, 0, 't'},
      {"tiles", 1, 0, 'T'},  {"procs", 1, 0, 'p'},     {"mode", 1, 0, 'm'}, {"device", 1, 0, 'd'},
      {"dump", 1, 0, 'D'},   {"trace", 1, 0, 'R'},     {"help", 0, 0, 'h'}, {"warmup", 1, 0, 'W'},
      {0, 0, 0, 0}};
  int c;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    int ok = 1;
    switch (c) {
    case 'c': {
      file_ctx fc = {o, ""};
      const int r = ini_parse(optarg, on_ini_key, &fc);
      if (r < 0)
        fprintf(stderr, PROG ": cannot read config file '%s'\n", optarg);
      else if (r > 0)
        fprintf(stderr, PROG ": %s:%d: %s\n", optarg, r,
                fc.err[0] ? fc.err : "syntax error (expected key = value)");
      ok = r == 0;
      break;
    }
    case 'S': {
      char *eq = strchr(optarg, '=');
      if (!eq) {
        fprintf(stderr, PROG ": --set expects key=value, got '%s'\n", optarg);
        return -1;
      }
      *eq = 0;
      ok = set_key(o, optarg, eq + 1, "--set");
      break;
    }
    case 'g':
      ok = !tess_cli_ints(PROG, "--grid", optarg, o->n, 3);
      break;
    case 's':
      ok = set_key(o, "steps", optarg, "--steps");
      break;
    case 'e':
      ok = set_key(o, "every", optarg, "--every");
      break;
    case 'v':
      ok = set_key(o, "vtk_every", optarg, "--vtk-every");
      break;
    case 'o':
      ok = set_key(o, "out", optarg, "--out");
      break;
    case 't':
      ok = set_key(o, "dt", optarg, "--dt");
      break;
    case 'T':
      ok = set_key(o, "tiles", optarg, "--tiles");
      break;
    case 'p':
      ok = !tess_cli_ints(PROG, "--procs", optarg, o->procs, 3);
      break;
    case 'm':
      ok = set_key(o, "mode", optarg, "--mode");
      break;
    case 'd':
      ok = set_key(o, "device", optarg, "--device");
      break;
    case 'W':
      ok = set_key(o, "warmup", optarg, "--warmup");
      break;
    case 'D':
      snprintf(o->dump, sizeof o->dump, "%s", optarg);
      break;
    case 'R':
      snprintf(o->trace, sizeof o->trace, "%s", optarg);
      break;
    case 'h':
      usage(stdout);
      return 1;
    default:
      fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", argv[optind - 1]);
      return -1;
    }
    if (!ok) return -1;
  }
  if (optind < argc) {
    fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
    return -1;
  }
#define REQUIRE(cond, ...)                                                                         \
  if (!(cond)) {                                                                                   \
    fprintf(stderr, PROG ": " __VA_ARGS__);                                                        \
    fputc('\n', stderr);                                                                           \
    return -1;                                                                                     \
  }
  for (int i = 0; i < 3; i++) {
    REQUIRE(o->n[i] >= 1, "grid extent %d is invalid (allowed: >= 1)", o->n[i]);
    REQUIRE(o->h[i] > 0, "grid spacing %g is invalid (allowed: > 0)", o->h[i]);
  }
  REQUIRE(o->steps >= 0 && o->every >= 0 && o->vtk_every >= 0,
          "steps, every and vtk_every must be >= 0");
  REQUIRE(o->dt >= 0, "dt = %g is invalid (allowed: > 0, or 0 for the CFL limit)", o->dt);
  REQUIRE(o->cdt > 0 && o->cdtv > 0, "cdt = %g and cdtv = %g must be > 0", o->cdt, o->cdtv);
  /* Names checked here, before MPI, so every rank reports them and none is killed first. */
  tess_mode mode;
  tess_device device;
  tess_mhd_ic_kind ic;
  if (tess_mode_parse(o->mode, &mode) || tess_device_parse(o->device, &device) ||
      tess_mhd_ic_parse(o->ic, &ic))
    return -1;
  return 0;
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
    d.min[c] = INFINITY, d.max[c] = -INFINITY;
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

static int write_snapshot(const mhd_opts *o, double *const f[TESS_MHD_NC], long step, double t) {
  char path[1024], title[128];
  snprintf(path, sizeof path, "%s/mhd_%08ld.vtk", o->out, step);
  snprintf(title, sizeof title, "Tessera MHD step %ld time %.9g", step, t);
  const char *names[TESS_MHD_NC];
  for (int c = 0; c < TESS_MHD_NC; c++)
    names[c] = tess_mhd_var_name(c);
  return tess_vtk_write(path, title, o->n[0], o->n[1], o->n[2], o->h, TESS_MHD_NC, names,
                        (const double *const *)f);
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int run(mhd_opts *o) {
  tess_mode mode;
  tess_device dev;
  tess_mhd_ic_kind ick;
  if (tess_mode_parse(o->mode, &mode) || tess_device_parse(o->device, &dev) ||
      tess_mhd_ic_parse(o->ic, &ick))
    return 1;
  const int root = tess_rank() == 0,
            diag = o->every > 0 || o->vtk_every > 0 || o->dt == 0 || o->dump[0];
  int ok = 1;
  if (root && o->vtk_every > 0) ok = tess_cli_output_dir(PROG, o->out) == 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!ok) return 1;

  tess_sim_t sim = NULL;
  int state, out, err = 1;
  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  double *f[TESS_MHD_NC] = {0}, *chunk_ms = NULL;
  for (int c = 0; root && diag && c < TESS_MHD_NC; c++)
    if (!(f[c] = malloc(cells * sizeof(double)))) goto done;
  tess_mhd_ic ic = tess_mhd_ic_default(ick, o->n, o->h, &o->p);
  ic.seed = o->ic_opts.seed, ic.amp = o->ic_opts.amp, ic.mode = o->ic_opts.mode;
  ic.lnrho_bg = o->ic_opts.lnrho_bg, ic.ss_bg = o->ic_opts.ss_bg;

#define CALL(x)                                                                                    \
  if ((x)) goto done
  CALL(tess_sim_create(MPI_COMM_WORLD, o->n, &sim));
  CALL(tess_sim_set_spacing(sim, o->h));
  CALL(tess_sim_set_mode(sim, mode));
  CALL(tess_sim_set_device(sim, dev));
  CALL(tess_sim_set_tiles(sim, o->tiles));
  if (o->procs[0]) CALL(tess_sim_set_procs(sim, o->procs));
  CALL(tess_sim_add_field(sim, "state", TESS_MHD_NC, &state));
  CALL(tess_sim_add_field(sim, "state_out", TESS_MHD_NC, &out));
  tess_mhd_params p = o->p;
  p.dt = 0; /* the kernel takes tess_sim_run's dt: fixed or CFL-limited per chunk */
  CALL(tess_mhd_add_rk3(sim, state, out, &p));
  CALL(tess_sim_setup(sim));
  tess_sim_describe(sim);
  CALL(tess_mhd_fill(sim, state, &ic));
  if (root)
    printf("MHD: ic %s, nu %g zeta %g eta %g mu0 %g cs0 %g gamma %g K %g, B_ext (%g,%g,%g), %s\n",
           o->ic, o->p.nu, o->p.zeta, o->p.eta, o->p.mu0, o->p.cs0, o->p.gamma, o->p.K,
           o->p.B_ext[0], o->p.B_ext[1], o->p.B_ext[2], o->dt > 0 ? "fixed dt" : "CFL-limited dt");

  double wall = 0, dt = o->dt;
  /* Benchmark mode (no diagnostics): time chunks of 10 steps and report the median chunk, after
   * `warmup` untimed steps (allocation, model calibration, the first host-to-device copy). */
  const int bench_chunk = o->every == 0 && o->vtk_every == 0 ? 10 : 0;
  int warm_left = o->warmup, nchunks = 0;
  chunk_ms = calloc((size_t)o->steps / 10 + 2, sizeof(double));
  if (!chunk_ms) goto done;
  for (int s = 0;;) {
    const int line = o->every > 0 && (s % o->every == 0 || s == o->steps);
    const int vtk = o->vtk_every > 0 && s % o->vtk_every == 0;
    const int need = line || vtk || (o->dt == 0 && s < o->steps) || (s == o->steps && o->dump[0]);
    if (need)
      for (int c = 0; c < TESS_MHD_NC; c++)
        CALL(tess_sim_gather(sim, state, c, f[c]));
    int finite = 1;
    if (root && need) {
      const mhd_diag d = diagnose(o, f);
      finite = isfinite(d.mass) && isfinite(d.max_speed);
      if (o->dt == 0)
        dt = tess_mhd_dt_limit(&o->p, o->n, o->h, d.max_speed, d.min_rho, o->cdt, o->cdtv);
      if (line) {
        const double rate = wall > 0 ? s / wall : 0;
        printf("step %6d t %.6e dt %.3e  mass %.12e  Ekin %.6e  Emag %.6e  max|divB| %.2e  "
               "%.1f steps/s ETA %.0f s\n",
               s, tess_sim_time(sim), dt, d.mass, d.ekin, d.emag, d.max_divb, rate,
               rate > 0 ? (o->steps - s) / rate : 0);
        for (int c = 0; c < TESS_MHD_NC; c++)
          printf("    %-6s min %+.6e max %+.6e rms %.6e\n", tess_mhd_var_name(c), d.min[c],
                 d.max[c], d.rms[c]);
      }
      if (!finite)
        fprintf(stderr, PROG ": the state is no longer finite at step %d (time %g, dt %g)\n", s,
                tess_sim_time(sim), dt);
      if (vtk && write_snapshot(o, f, s, tess_sim_time(sim))) finite = 0;
      fflush(stdout);
    }
    MPI_Bcast(&finite, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&dt, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (!finite) goto done;
    if (s >= o->steps) break;
    int chunk = o->steps - s;
    const int stops[2] = {o->every, o->vtk_every};
    for (int i = 0; i < 2; i++)
      if (stops[i] > 0 && stops[i] - s % stops[i] < chunk) chunk = stops[i] - s % stops[i];
    if (bench_chunk && bench_chunk - s % bench_chunk < chunk) chunk = bench_chunk - s % bench_chunk;
    if (warm_left > 0) {
      CALL(tess_sim_run(sim, warm_left, dt));
      warm_left = 0;
    }
    const double w0 = MPI_Wtime();
    CALL(tess_sim_run(sim, chunk, dt));
    const double w = MPI_Wtime() - w0;
    wall += w;
    if (bench_chunk && chunk == bench_chunk) chunk_ms[nchunks++] = 1e3 * w / chunk;
    s += chunk;
  }
  if (root && o->steps > 0) {
    const double ms = 1e3 * wall / o->steps;
    printf("time per step %.3f ms, %.3f ns per cell per step (%s mode, dt %s)\n", ms,
           1e6 * ms / (double)cells, o->mode, o->dt > 0 ? "fixed" : "CFL");
    if (nchunks > 0) {
      qsort(chunk_ms, (size_t)nchunks, sizeof(double), cmp_double);
      const double med = chunk_ms[nchunks / 2], p90 = chunk_ms[(nchunks * 9) / 10];
      printf("median %.3f ms per step (p90 %.3f) over %d chunks of %d steps after %d warm-up "
             "steps: %.3f ns per cell per step\n",
             med, p90, nchunks, bench_chunk, o->warmup, 1e6 * med / (double)cells);
    }
  }
  if (root && o->dump[0]) {
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s", o->dump);
    double *all = malloc(cells * TESS_MHD_NC * sizeof(double));
    if (!all) goto done;
    for (int c = 0; c < TESS_MHD_NC; c++)
      memcpy(all + c * cells, f[c], cells * sizeof(double));
    const int w = tess_cli_write_raw(PROG, tmp, all, cells * TESS_MHD_NC);
    free(all);
    if (w) goto done;
  }
  err = 0;
done:
  free(chunk_ms);
  for (int c = 0; c < TESS_MHD_NC; c++)
    free(f[c]);
  if (!err) tess_sim_destroy(&sim);
  return err;
}

int main(int argc, char **argv) {
  /* progress lines must survive a job killed by its time limit: line-buffer even into pipes */
  setvbuf(stdout, NULL, _IOLBF, 0);
  mhd_opts o;
  const int pr = parse_args(argc, argv, &o);
  if (pr) return pr > 0 ? 0 : 2;
  tess_init_opts io = TESS_INIT_OPTS_DEFAULT;
  if (tess_device_parse(o.device, &io.device)) return 2;
  io.trace_dir = o.trace[0] ? o.trace : NULL;
  if (tess_init(&argc, &argv, &io)) return 1;
  const int err = run(&o);
  if (err) tess_abort(1);
  tess_finalize();
  return 0;
}

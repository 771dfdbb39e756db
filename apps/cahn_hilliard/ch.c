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
 * Output: progress lines (mass, free energy, min/max, steps/s, ETA), PNG images of u (2D: the
 * field, 3D: the mid-plane z = nz/2) and legacy VTK snapshots ParaView opens, all written by
 * rank 0 from a gathered field at the requested intervals.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cahn_hilliard.h"
#include "cli.h"
#include "image.h"
#include "tessera.h"
#include "vtk.h"

#define PROG    "tess-ch"
#define TESS_PI 3.14159265358979323846

typedef enum { SCHEME_EULER, SCHEME_HEUN } scheme_t;
typedef enum { VARIANT_COMPOSED, VARIANT_FUSED } variant_t;

typedef struct {
  int n[3], steps, tiles, procs[3], every, png_every, vtk_every, wave;
  double M, B, U, K, u0, noise, dt, cfl, h, eps;
  unsigned long seed;
  scheme_t scheme;
  variant_t variant;
  tess_mode mode;
  tess_device device;
  const char *out, *dump, *init, *trace;
} ch_opts;

static void usage(FILE *to) {
  fprintf(
      to,
      "usage: " PROG " [options]\n"
      "  --grid NX,NY,NZ      global cells (default 256,256,1; NZ=1 is 2D)\n"
      "  --M --B --U --K X    mobility and free-energy coefficients (default 1 each)\n"
      "  --u0 X               mean concentration (default 0)\n"
      "  --noise A            initial noise amplitude: u0 + A*uniform(-1,1) (default 0.1)\n"
      "  --seed S             noise seed; the field depends on the global cell only (default 1)\n"
      "  --init noise|mode    noise, or u0 + eps*cos(2 pi wave x / nx) (linear-growth test)\n"
      "  --wave K --eps E     mode wavenumber (periods per box, default 4) and amplitude (1e-6)\n"
      "  --scheme euler|heun  forward Euler or Heun's 2nd-order method (default euler)\n"
      "  --variant composed|fused  mu stage + update (radius 1), or one radius-2 stage\n"
      "  --dt DT | --cfl C    time step, or fraction C of the stability limit (default 0.5)\n"
      "  --h H                grid spacing (default 1)\n"
      "  --steps N            time steps (default 1000)\n"
      "  --every N            progress line every N steps (default steps/10)\n"
      "  --png-every N        PNG of u every N steps into --out (default 0: none)\n"
      "  --vtk-every N        VTK snapshot every N steps into --out (default 0: none)\n"
      "  --out DIR            output directory (default ch-out)\n"
      "  --dump FILE          final u as raw float64 [nz][ny][nx] (rank 0)\n"
      "  --trace DIR          record a StarPU FxT trace, merged into DIR (paje.trace, dag.dot)\n"
      "  --tiles T --procs PX,PY,PZ --mode overlap|bulk --device cpu|cuda|auto\n");
}

/* One of two names -> 0 or 1; -1 with a message naming the value and the allowed names. */
static int pick(const char *s, const char *opt, const char *a, const char *b, int *v) {
  if (!strcmp(s, a) || !strcmp(s, b)) {
    *v = !strcmp(s, b);
    return 0;
  }
  fprintf(stderr, PROG ": %s '%s' is invalid (allowed: %s, %s)\n", opt, s, a, b);
  return -1;
}

static int parse_args(int argc, char **argv, ch_opts *o) {
  *o = (ch_opts){.n = {256, 256, 1},
                 .steps = 1000,
                 .every = -1,
                 .wave = 4,
                 .M = 1,
                 .B = 1,
                 .U = 1,
                 .K = 1,
                 .noise = 0.1,
                 .cfl = 0.5,
                 .h = 1,
                 .eps = 1e-6,
                 .seed = 1,
                 .mode = TESS_MODE_OVERLAP,
                 .device = TESS_DEVICE_CPU,
                 .out = "ch-out",
                 .init = "noise"};
  enum {
    O_M = 256,
    O_B,
    O_U,
    O_K,
    O_U0,
    O_NOISE,
    O_SEED,
    O_INIT,
    O_WAVE,
    O_EPS,
    O_SCHEME,
    O_VARIANT,
    O_DT,
    O_CFL,
    O_H,
    O_PNG,
    O_VTK,
    O_OUT,
    O_DUMP,
    O_TRACE
  };
  static const struct option lo[] = {{"grid", 1, 0, 'g'},
                                     {"steps", 1, 0, 's'},
                                     {"every", 1, 0, 'e'},
                                     {"tiles", 1, 0, 'T'},
                                     {"procs", 1, 0, 'p'},
                                     {"mode", 1, 0, 'm'},
                                     {"device", 1, 0, 'd'},
                                     {"help", 0, 0, 'h'},
                                     {"M", 1, 0, O_M},
                                     {"B", 1, 0, O_B},
                                     {"U", 1, 0, O_U},
                                     {"K", 1, 0, O_K},
                                     {"u0", 1, 0, O_U0},
                                     {"noise", 1, 0, O_NOISE},
                                     {"seed", 1, 0, O_SEED},
                                     {"init", 1, 0, O_INIT},
                                     {"wave", 1, 0, O_WAVE},
                                     {"eps", 1, 0, O_EPS},
                                     {"scheme", 1, 0, O_SCHEME},
                                     {"variant", 1, 0, O_VARIANT},
                                     {"dt", 1, 0, O_DT},
                                     {"cfl", 1, 0, O_CFL},
                                     {"h", 1, 0, O_H},
                                     {"png-every", 1, 0, O_PNG},
                                     {"vtk-every", 1, 0, O_VTK},
                                     {"out", 1, 0, O_OUT},
                                     {"dump", 1, 0, O_DUMP},
                                     {"trace", 1, 0, O_TRACE},
                                     {0, 0, 0, 0}};
  int c, bad = 0, seed = 1;
  opterr = 0;
  while (!bad && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
    switch (c) {
    case 'g':
      bad = tess_cli_ints(PROG, "--grid", optarg, o->n, 3);
      break;
    case 's':
      bad = tess_cli_ints(PROG, "--steps", optarg, &o->steps, 1);
      break;
    case 'e':
      bad = tess_cli_ints(PROG, "--every", optarg, &o->every, 1);
      break;
    case 'T':
      bad = tess_cli_ints(PROG, "--tiles", optarg, &o->tiles, 1);
      break;
    case 'p':
      bad = tess_cli_ints(PROG, "--procs", optarg, o->procs, 3);
      break;
    case O_WAVE:
      bad = tess_cli_ints(PROG, "--wave", optarg, &o->wave, 1);
      break;
    case O_SEED:
      bad = tess_cli_ints(PROG, "--seed", optarg, &seed, 1);
      break;
    case O_PNG:
      bad = tess_cli_ints(PROG, "--png-every", optarg, &o->png_every, 1);
      break;
    case O_VTK:
      bad = tess_cli_ints(PROG, "--vtk-every", optarg, &o->vtk_every, 1);
      break;
    case O_M:
      bad = tess_cli_double(PROG, "--M", optarg, &o->M);
      break;
    case O_B:
      bad = tess_cli_double(PROG, "--B", optarg, &o->B);
      break;
    case O_U:
      bad = tess_cli_double(PROG, "--U", optarg, &o->U);
      break;
    case O_K:
      bad = tess_cli_double(PROG, "--K", optarg, &o->K);
      break;
    case O_U0:
      bad = tess_cli_double(PROG, "--u0", optarg, &o->u0);
      break;
    case O_NOISE:
      bad = tess_cli_double(PROG, "--noise", optarg, &o->noise);
      break;
    case O_EPS:
      bad = tess_cli_double(PROG, "--eps", optarg, &o->eps);
      break;
    case O_DT:
      bad = tess_cli_double(PROG, "--dt", optarg, &o->dt);
      break;
    case O_CFL:
      bad = tess_cli_double(PROG, "--cfl", optarg, &o->cfl);
      break;
    case O_H:
      bad = tess_cli_double(PROG, "--h", optarg, &o->h);
      break;
    case O_INIT:
      o->init = optarg;
      break;
    case O_OUT:
      o->out = optarg;
      break;
    case O_DUMP:
      o->dump = optarg;
      break;
    case O_TRACE:
      o->trace = optarg;
      break;
    case O_SCHEME:
      bad = pick(optarg, "--scheme", "euler", "heun", (int *)&o->scheme);
      break;
    case O_VARIANT:
      bad = pick(optarg, "--variant", "composed", "fused", (int *)&o->variant);
      break;
    case 'm':
      bad = tess_mode_parse(optarg, &o->mode) ? -1 : 0;
      break;
    case 'd':
      bad = tess_device_parse(optarg, &o->device) ? -1 : 0;
      break;
    case 'h':
      usage(stdout);
      return 1;
    default:
      fprintf(stderr, PROG ": unknown option '%s' (see --help)\n", argv[optind - 1]);
      return -1;
    }
  }
  if (bad) return -1;
  if (optind < argc) {
    fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
    return -1;
  }
  o->seed = (unsigned long)seed;
#define REQUIRE(cond, ...)                                                                         \
  if (!(cond)) {                                                                                   \
    fprintf(stderr, PROG ": " __VA_ARGS__);                                                        \
    fputc('\n', stderr);                                                                           \
    return -1;                                                                                     \
  }
  REQUIRE(o->M > 0, "--M %g is invalid: the mobility must be > 0", o->M);
  REQUIRE(o->K > 0, "--K %g is invalid: the gradient-energy coefficient must be > 0", o->K);
  REQUIRE(o->U >= 0, "--U %g is invalid (allowed: >= 0)", o->U);
  REQUIRE(o->noise >= 0, "--noise %g is invalid: the amplitude must be >= 0", o->noise);
  REQUIRE(o->h > 0, "--h %g is invalid (allowed: > 0)", o->h);
  REQUIRE(o->dt >= 0, "--dt %g is invalid (allowed: > 0)", o->dt);
  REQUIRE(o->cfl > 0 && o->cfl <= 1, "--cfl %g is invalid (allowed: 0 < cfl <= 1)", o->cfl);
  REQUIRE(o->steps >= 0, "--steps %d is invalid (allowed: >= 0)", o->steps);
  REQUIRE(o->png_every >= 0 && o->vtk_every >= 0, "--png-every/--vtk-every must be >= 0");
  REQUIRE(!strcmp(o->init, "noise") || !strcmp(o->init, "mode"),
          "--init '%s' is invalid (allowed: noise, mode)", o->init);
  for (int i = 0; i < 3; i++)
    REQUIRE(o->n[i] >= 1, "--grid extent %d is invalid (allowed: >= 1)", o->n[i]);
  if (o->every < 0) o->every = o->steps >= 10 ? o->steps / 10 : 1;
  return 0;
}

/* ---- initial state: a function of the global cell index only ---------------------------- */

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static double init_value(const long g[3], int comp, void *arg) {
  (void)comp;
  const ch_opts *o = arg;
  if (!strcmp(o->init, "mode"))
    return o->u0 + o->eps * cos(2 * TESS_PI * o->wave * (double)g[0] / o->n[0]);
  const uint64_t cell =
      (uint64_t)g[0] + (uint64_t)o->n[0] * ((uint64_t)g[1] + (uint64_t)o->n[1] * (uint64_t)g[2]);
  const double r = (double)(splitmix64(cell ^ splitmix64(o->seed)) >> 11) * 0x1.0p-53; /* [0,1) */
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
  const tess_ch_params p = {o->M, o->B, o->U, o->K, 0, c0, c1};
  tess_ch_params q = p;
  q.dt = o->dt;
  if (o->variant == VARIANT_FUSED)
    return add(sim, &tess_ch_fused_kernel, w >= 0 ? 2 : 1, (int[]){v, w}, out, &q);
  tess_err e = add(sim, &tess_ch_mu_kernel, 1, (int[]){v}, f->mu, &p);
  return e ? e : add(sim, &tess_ch_update_kernel, w >= 0 ? 3 : 2, (int[]){f->mu, v, w}, out, &q);
}

static tess_err build_program(tess_sim_t sim, const ch_opts *o, ch_fields *f) {
  tess_err e;
  if ((e = tess_sim_add_field(sim, "u", 1, &f->u)) ||
      (e = tess_sim_add_field(sim, "u_new", 1, &f->un)))
    return e;
  f->mu = f->us = -1;
  if (o->variant == VARIANT_COMPOSED && (e = tess_sim_add_field(sim, "mu", 1, &f->mu))) return e;
  if (o->scheme == SCHEME_EULER) {
    e = add_F(sim, o, f, f->u, -1, f->un, 0, 1);
  } else {
    if ((e = tess_sim_add_field(sim, "u_star", 1, &f->us))) return e;
    e = add_F(sim, o, f, f->u, -1, f->us, 0, 1);
    if (!e) e = add_F(sim, o, f, f->us, f->u, f->un, 0.5, 0.5);
  }
  return e ? e : tess_sim_add_swap(sim, f->u, f->un);
}

/* ---- diagnostics (rank 0, on the gathered field) --------------------------------------------- */

typedef struct {
  double mass, energy, min, max;
} ch_diag;

/* Discrete free energy: sum h^d [-B/2 u^2 + U/4 u^4 + K/2 |D+ u|^2], forward differences. For
 * the semi-discrete scheme dF/dt = -M sum h^d |D+ mu|^2 <= 0. */
static ch_diag diagnose(const ch_opts *o, const double *u) {
  ch_diag d = {0, 0, INFINITY, -INFINITY};
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
        for (int i = 0; i < 3; i++)
          if (o->n[i] > 1) {
            const double g = (u[nb[i]] - v) / o->h;
            grad2 += g * g;
          }
        d.mass += v * vol;
        d.energy += vol * (-0.5 * o->B * v * v + 0.25 * o->U * v * v * v * v + 0.5 * o->K * grad2);
        d.min = fmin(d.min, v);
        d.max = fmax(d.max, v);
      }
  return d;
}

static int write_outputs(const ch_opts *o, const double *u, long step, double t, int png, int vtk) {
  char path[4096];
  if (png) {
    const int z = o->n[2] / 2; /* 3D: the mid-plane */
    const double lim = o->U > 0 ? sqrt(fmax(o->B, 1e-300) / o->U) : 1;
    snprintf(path, sizeof path, "%s/u_%08ld.png", o->out, step);
    const int scale = o->n[0] < 256 ? 512 / o->n[0] : 1;
    if (tess_png_write_slice(path, u + (size_t)z * o->n[0] * o->n[1], o->n[0], o->n[1], -lim, lim,
                             scale > 0 ? scale : 1))
      return -1;
  }
  if (vtk) {
    char title[128];
    snprintf(title, sizeof title, "Cahn-Hilliard u, step %ld, time %.9g", step, t);
    snprintf(path, sizeof path, "%s/u_%08ld.vtk", o->out, step);
    const double hs[3] = {o->h, o->h, o->h};
    const char *names[] = {"u"};
    const double *fields[] = {u};
    if (tess_vtk_write(path, title, o->n[0], o->n[1], o->n[2], hs, 1, names, fields)) return -1;
  }
  return 0;
}

/* Amplitude of the mode cos(2 pi wave x / nx): 2/N sum u cos(...). */
static double mode_amplitude(const ch_opts *o, const double *u) {
  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  double a = 0;
  for (size_t i = 0; i < cells; i++)
    a += (u[i] - o->u0) * cos(2 * TESS_PI * o->wave * (double)(i % (size_t)o->n[0]) / o->n[0]);
  return 2 * a / (double)cells;
}

static int run(ch_opts *o) {
  int active[3], err = 1;
  const double hs[3] = {o->h, o->h, o->h};
  for (int i = 0; i < 3; i++)
    active[i] = o->n[i] > 1;
  /* The linearisation that matters is about the largest |u| the run reaches: the initial
   * |u0| + noise, and the equilibrium phases +-sqrt(B/U) that phase separation drives u to
   * (about u = 0 alone, forward Euler would be unstable once the phases form). */
  double u_ref = fabs(o->u0) + (strcmp(o->init, "mode") ? o->noise : o->eps);
  if (o->B > 0 && o->U > 0 && sqrt(o->B / o->U) > u_ref) u_ref = sqrt(o->B / o->U);
  const double limit = tess_ch_dt_limit(o->M, o->B, o->U, o->K, u_ref, hs, active);
  if (o->dt == 0) o->dt = o->cfl * limit;
  if (o->dt > limit) {
    if (tess_rank() == 0)
      fprintf(stderr,
              PROG ": --dt %g exceeds the linear stability limit %g of %s on this grid "
                   "(h = %g, K = %g, M = %g, linearised about |u| = %g); use --dt <= %g or --cfl\n",
              o->dt, limit, o->scheme == SCHEME_EULER ? "forward Euler" : "Heun's method", o->h,
              o->K, o->M, u_ref, limit);
    return 1;
  }
  const int want_out = o->png_every > 0 || o->vtk_every > 0;
  int dir_ok = 0;
  if (tess_rank() == 0) dir_ok = !want_out || tess_cli_output_dir(PROG, o->out) == 0;
  MPI_Bcast(&dir_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!dir_ok) return 1;

  tess_sim_t sim = NULL;
  ch_fields f;
  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  double *u = tess_rank() == 0 ? malloc(cells * sizeof(double)) : NULL;
  if (tess_rank() == 0 && !u) return 1;
#define CALL(x)                                                                                    \
  if ((x)) goto done
  CALL(tess_sim_create(MPI_COMM_WORLD, o->n, &sim));
  CALL(tess_sim_set_spacing(sim, hs));
  CALL(tess_sim_set_mode(sim, o->mode));
  CALL(tess_sim_set_device(sim, o->device));
  CALL(tess_sim_set_tiles(sim, o->tiles));
  if (o->procs[0]) CALL(tess_sim_set_procs(sim, o->procs));
  CALL(build_program(sim, o, &f));
  CALL(tess_sim_setup(sim));
  tess_sim_describe(sim);
  CALL(tess_sim_fill(sim, f.u, init_value, o));
  if (tess_rank() == 0)
    printf("Cahn-Hilliard: M %g B %g U %g K %g, u0 %g, %s, %s variant, dt %.6g (limit %.6g), %d "
           "steps\n",
           o->M, o->B, o->U, o->K, o->u0, o->scheme == SCHEME_EULER ? "forward Euler" : "Heun",
           o->variant == VARIANT_FUSED ? "fused" : "composed", o->dt, limit, o->steps);

  double a0 = 0, wall = 0;
  for (int s = 0;;) {
    const int png = o->png_every > 0 && s % o->png_every == 0;
    const int vtk = o->vtk_every > 0 && s % o->vtk_every == 0;
    const int line = s == 0 || s == o->steps || (o->every > 0 && s % o->every == 0);
    if (line || png || vtk || (s == o->steps && o->dump)) CALL(tess_sim_gather(sim, f.u, 0, u));
    int finite = 1;
    if (tess_rank() == 0 && line) {
      const ch_diag d = diagnose(o, u);
      finite = isfinite(d.mass) && isfinite(d.min) && isfinite(d.max);
      if (!finite)
        fprintf(stderr,
                PROG ": u is no longer finite at step %d (time %g); stopping. The time step "
                     "%g may be too large for this state (limit estimate %g)\n",
                s, tess_sim_time(sim), o->dt, limit);
      const double rate = s > 0 && wall > 0 ? s / wall : 0;
      printf("step %7d  t %10.4f  mass %+.15e  F %+.10e  min %+.5f  max %+.5f  %8.1f steps/s  ETA "
             "%6.1f s\n",
             s, tess_sim_time(sim), d.mass, d.energy, d.min, d.max, rate,
             rate > 0 ? (o->steps - s) / rate : 0);
      if (!strcmp(o->init, "mode")) {
        const double a = mode_amplitude(o, u);
        if (s == 0)
          a0 = a;
        else {
          /* the discrete Laplacian's symbol for a mode along x */
          const double lam = 4 / (o->h * o->h) * pow(sin(TESS_PI * o->wave / o->n[0]), 2);
          const double sigma = tess_ch_growth_rate(o->M, o->B, o->U, o->K, o->u0, lam);
          const double measured = log(fabs(a / a0)) / tess_sim_time(sim);
          printf(
              "growth: amplitude %.6e, measured rate %.8e, predicted %.8e, relative error %.3e\n",
              a, measured, sigma, fabs(measured - sigma) / fabs(sigma));
        }
      }
      fflush(stdout);
    }
    if (tess_rank() == 0 && (png || vtk) && write_outputs(o, u, s, tess_sim_time(sim), png, vtk))
      goto done;
    MPI_Bcast(&finite, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!finite) goto done;
    if (s >= o->steps) break;
    int chunk = o->steps - s;
    const int stops[3] = {o->every, o->png_every, o->vtk_every};
    for (int i = 0; i < 3; i++)
      if (stops[i] > 0 && stops[i] - s % stops[i] < chunk) chunk = stops[i] - s % stops[i];
    const double w0 = MPI_Wtime();
    CALL(tess_sim_run(sim, chunk, o->dt));
    wall += MPI_Wtime() - w0;
    s += chunk;
  }
  if (tess_rank() == 0 && o->steps > 0)
    printf("time per step %.3f ms (%s mode, %s variant)\n", 1e3 * wall / o->steps,
           tess_mode_name(o->mode), o->variant == VARIANT_FUSED ? "fused" : "composed");
  if (tess_rank() == 0 && o->dump && tess_cli_write_raw(PROG, o->dump, u, cells)) goto done;
  err = 0;
done:
  /* On error the caller aborts every rank at once; a collective destroy here could wait on a
   * rank that is already stuck elsewhere. */
  if (!err) tess_sim_destroy(&sim);
  free(u);
  return err;
}

int main(int argc, char **argv) {
  /* progress lines must survive a job killed by its time limit: line-buffer even into pipes */
  setvbuf(stdout, NULL, _IOLBF, 0);
  ch_opts o;
  const int pr = parse_args(argc, argv, &o);
  if (pr) return pr > 0 ? 0 : 2;
  tess_init_opts io = TESS_INIT_OPTS_DEFAULT;
  io.device = o.device;
  io.trace_dir = o.trace;
  if (tess_init(&argc, &argv, &io)) return 1;
  const int err = run(&o);
  if (err) tess_abort(1);
  tess_finalize();
  return 0;
}

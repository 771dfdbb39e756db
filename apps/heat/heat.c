/* heat.c — the smallest complete Tessera app: the heat equation du/dt = kappa Lap(u) on a
 * periodic box, forward Euler, 2nd- or 6th-order Laplacian, 2D or 3D, CPU or CUDA.
 *
 * The physics is one stage and one swap:
 *
 *     u_new = u + dt * kappa * Lap(u)        (kernel heat2/heat6: star footprint, radius 1/3)
 *     swap(u, u_new)
 *
 * Everything else -- decomposition, halos, tasks, overlap -- is the runtime's. The initial
 * state is a product of sines, an eigenfunction of both the continuous and the discrete
 * Laplacian, so --check can compare against two analytic answers: the exact solution
 * exp(-kappa lambda t), and forward Euler applied to the exact Fourier mode,
 * (1 - dt kappa lambda)^steps, whose difference from the run is the spatial error alone.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "heat.h"
#include "tessera.h"

#define TESS_PI 3.14159265358979323846

typedef struct {
  int n[3], order, steps, tiles, procs[3], every, check, wave;
  double kappa, length, dt, cfl;
  tess_mode mode;
  tess_device device;
  const char *dump, *task_log, *trace;
  int delay_tile, delay_dir;
  double delay_s;
} heat_opts;

static void usage(FILE *to) {
  fprintf(to,
          "usage: tess-heat [options]\n"
          "  --grid NX,NY,NZ     global cells (default 64,64,1; NZ=1 is 2D)\n"
          "  --order 2|6         order of the Laplacian (default 2)\n"
          "  --steps N           time steps (default 100)\n"
          "  --kappa K           diffusivity (default 1)\n"
          "  --length L          box length along every axis (default 1)\n"
          "  --wave K            sine wavenumber per axis, in periods per box (default 1)\n"
          "  --dt DT             time step (default: --cfl times the stability limit)\n"
          "  --cfl C             fraction of the forward-Euler stability limit (default 0.25)\n"
          "  --tiles T           tiles per rank (default: one per GPU, or 1)\n"
          "  --procs PX,PY,PZ    process grid (default: the halo-minimising one)\n"
          "  --mode overlap|bulk task-graph overlap or the bulk-synchronous baseline\n"
          "  --device cpu|cuda|auto (default cpu)\n"
          "  --every N           progress line every N steps (default 0: start and end only)\n"
          "  --check             compare with the analytic solutions at the end\n"
          "  --dump FILE         write the final field (raw float64, [nz][ny][nx]) from rank 0\n"
          "  --task-log FILE     write each rank's task completion log to FILE.<rank>\n"
          "  --trace DIR         record a StarPU FxT trace, merged into DIR (paje.trace, dag.dot)\n"
          "  --delay T,D,S       test hook: hold halo direction D of tile T back by S seconds\n");
}

/* Returns 0 to run, 1 for --help, -1 on bad input (message printed). */
static int parse_args(int argc, char **argv, heat_opts *o) {
  *o = (heat_opts){.n = {64, 64, 1},
                   .order = 2,
                   .steps = 100,
                   .wave = 1,
                   .kappa = 1,
                   .length = 1,
                   .cfl = 0.25,
                   .mode = TESS_MODE_OVERLAP,
                   .device = TESS_DEVICE_CPU,
                   .delay_tile = -1};
  static const struct option longopts[] = {
      {"grid", 1, 0, 'g'},   {"order", 1, 0, 'o'}, {"steps", 1, 0, 's'}, {"kappa", 1, 0, 'k'},
      {"length", 1, 0, 'L'}, {"wave", 1, 0, 'w'},  {"dt", 1, 0, 't'},    {"cfl", 1, 0, 'c'},
      {"tiles", 1, 0, 'T'},  {"procs", 1, 0, 'p'}, {"mode", 1, 0, 'm'},  {"device", 1, 0, 'd'},
      {"every", 1, 0, 'e'},  {"check", 0, 0, 'C'}, {"dump", 1, 0, 'D'},  {"task-log", 1, 0, 'l'},
      {"delay", 1, 0, 'y'},  {"help", 0, 0, 'h'},  {"trace", 1, 0, 'R'}, {0, 0, 0, 0}};
  int c, bad = 0, ints[3];
  double dly[3];
  opterr = 0;
  while (!bad && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (c) {
    case 'g':
      bad = tess_cli_ints("tess-heat", "--grid", optarg, o->n, 3);
      break;
    case 'o':
      bad = tess_cli_ints("tess-heat", "--order", optarg, &o->order, 1);
      break;
    case 's':
      bad = tess_cli_ints("tess-heat", "--steps", optarg, &o->steps, 1);
      break;
    case 'w':
      bad = tess_cli_ints("tess-heat", "--wave", optarg, &o->wave, 1);
      break;
    case 'T':
      bad = tess_cli_ints("tess-heat", "--tiles", optarg, &o->tiles, 1);
      break;
    case 'p':
      bad = tess_cli_ints("tess-heat", "--procs", optarg, o->procs, 3);
      break;
    case 'e':
      bad = tess_cli_ints("tess-heat", "--every", optarg, &o->every, 1);
      break;
    case 'k':
      bad = tess_cli_double("tess-heat", "--kappa", optarg, &o->kappa);
      break;
    case 'L':
      bad = tess_cli_double("tess-heat", "--length", optarg, &o->length);
      break;
    case 't':
      bad = tess_cli_double("tess-heat", "--dt", optarg, &o->dt);
      break;
    case 'c':
      bad = tess_cli_double("tess-heat", "--cfl", optarg, &o->cfl);
      break;
    case 'm':
      bad = tess_mode_parse(optarg, &o->mode) ? -1 : 0;
      break;
    case 'd':
      bad = tess_device_parse(optarg, &o->device) ? -1 : 0;
      break;
    case 'C':
      o->check = 1;
      break;
    case 'D':
      o->dump = optarg;
      break;
    case 'l':
      o->task_log = optarg;
      break;
    case 'R':
      o->trace = optarg;
      break;
    case 'y':
      bad = sscanf(optarg, "%d,%d,%lf", &ints[0], &ints[1], &dly[0]) == 3 ? 0 : -1;
      if (bad) fprintf(stderr, "tess-heat: --delay expects TILE,DIR,SECONDS, got '%s'\n", optarg);
      o->delay_tile = ints[0], o->delay_dir = ints[1], o->delay_s = dly[0];
      break;
    case 'h':
      usage(stdout);
      return 1;
    default:
      fprintf(stderr, "tess-heat: unknown option '%s' (see --help)\n", argv[optind - 1]);
      return -1;
    }
  }
  if (bad) return -1;
  if (optind < argc) {
    fprintf(stderr, "tess-heat: unexpected argument '%s' (see --help)\n", argv[optind]);
    return -1;
  }
#define REQUIRE(cond, ...)                                                                         \
  if (!(cond)) {                                                                                   \
    fprintf(stderr, "tess-heat: " __VA_ARGS__);                                                    \
    fputc('\n', stderr);                                                                           \
    return -1;                                                                                     \
  }
  REQUIRE(o->order == 2 || o->order == 6, "--order %d is not supported (allowed: 2, 6)", o->order);
  REQUIRE(o->steps >= 0, "--steps %d is invalid (allowed: >= 0)", o->steps);
  REQUIRE(o->kappa > 0, "--kappa %g is invalid (allowed: > 0)", o->kappa);
  REQUIRE(o->length > 0, "--length %g is invalid (allowed: > 0)", o->length);
  REQUIRE(o->cfl > 0 && o->cfl <= 1, "--cfl %g is invalid (allowed: 0 < cfl <= 1)", o->cfl);
  REQUIRE(o->dt >= 0, "--dt %g is invalid (allowed: > 0)", o->dt);
  REQUIRE(o->every >= 0, "--every %d is invalid (allowed: >= 0)", o->every);
  REQUIRE(o->wave >= 1, "--wave %d is invalid (allowed: >= 1)", o->wave);
  for (int i = 0; i < 3; i++)
    REQUIRE(o->n[i] >= 1, "--grid extent %d is invalid (allowed: >= 1)", o->n[i]);
  return 0;
}

/* Symbol of the discrete 1D second difference for wavenumber k on spacing h. */
static double symbol(int order, double k, double h) {
  const double s = sin(0.5 * k * h), s2 = s * s;
  if (order == 2) return 4.0 * s2 / (h * h);
  /* 6th order: -(b0 + 2 sum b_j cos(j k h)) / h^2 with b = {-49/18, 3/2, -3/20, 1/90} */
  const double c = k * h;
  return -(-49.0 / 18 + 3.0 * cos(c) - 0.3 * cos(2 * c) + (2.0 / 90) * cos(3 * c)) / (h * h);
}

typedef struct {
  const heat_opts *o;
} init_ctx;

static double sine_init(const long g[3], int comp, void *arg) {
  (void)comp;
  const init_ctx *c = arg;
  double u = 1;
  for (int i = 0; i < 3; i++)
    if (c->o->n[i] > 1) u *= sin(2 * TESS_PI * c->o->wave * ((double)g[i] + 0.5) / c->o->n[i]);
  return u;
}

static void progress(tess_sim_t sim, int u, double t_wall) {
  tess_stats st;
  if (tess_sim_stats(sim, u, 0, &st)) return;
  if (tess_rank() == 0)
    printf("step %6ld  t %.6e  sum %+.12e  min %+.6e  max %+.6e  rms %.6e  wall %.3f s\n",
           tess_sim_step(sim), tess_sim_time(sim), st.sum, st.min, st.max,
           sqrt(st.sumsq / (double)st.count), t_wall);
}

static int run(const heat_opts *o) {
  tess_sim_t sim = NULL;
  int u, un, err = 1;
  const double hs[3] = {o->length / o->n[0], o->length / o->n[1], o->length / o->n[2]};
  int dims = 0;
  for (int i = 0; i < 3; i++)
    dims += o->n[i] > 1;
  /* Forward Euler is stable while dt * kappa * max symbol <= 2. */
  double lam_max = 0, lam = 0;
  for (int i = 0; i < 3; i++)
    if (o->n[i] > 1) {
      lam_max += o->order == 2 ? 4 / (hs[i] * hs[i]) : (64.0 / 9) / (hs[i] * hs[i]);
      lam += symbol(o->order, 2 * TESS_PI * o->wave / o->length, hs[i]);
    }
  const double dt_max = dims ? 2 / (o->kappa * lam_max) : 1;
  const double dt = o->dt > 0 ? o->dt : o->cfl * dt_max;
  if (dt > dt_max) {
    if (tess_rank() == 0)
      fprintf(stderr, "tess-heat: --dt %g exceeds the forward-Euler stability limit %g\n", dt,
              dt_max);
    return 1;
  }

  const tess_heat_params prm = {o->kappa};
  const tess_kernel *k = o->order == 2 ? &tess_heat2_kernel : &tess_heat6_kernel;
#define CALL(x)                                                                                    \
  if ((x)) goto done
  CALL(tess_sim_create(MPI_COMM_WORLD, o->n, &sim));
  CALL(tess_sim_set_spacing(sim, hs));
  CALL(tess_sim_set_mode(sim, o->mode));
  CALL(tess_sim_set_device(sim, o->device));
  CALL(tess_sim_set_tiles(sim, o->tiles));
  if (o->procs[0]) CALL(tess_sim_set_procs(sim, o->procs));
  CALL(tess_sim_add_field(sim, "u", 1, &u));
  CALL(tess_sim_add_field(sim, "u_new", 1, &un));
  CALL(tess_sim_add_stage(sim, &(tess_stage){.kernel = k,
                                             .nin = 1,
                                             .in = {u},
                                             .nout = 1,
                                             .out = {un},
                                             .params = &prm,
                                             .params_size = sizeof prm}));
  CALL(tess_sim_add_swap(sim, u, un));
  CALL(tess_sim_setup(sim));
  tess_sim_describe(sim);
  if (o->delay_tile >= 0) CALL(tess_sim_debug_delay(sim, o->delay_tile, o->delay_dir, o->delay_s));
  if (o->task_log) CALL(tess_sim_set_task_log(sim, 1));
  init_ctx ic = {o};
  CALL(tess_sim_fill(sim, u, sine_init, &ic));
  if (tess_rank() == 0)
    printf("dt %.6e (stability limit %.6e), %d steps, order %d\n", dt, dt_max, o->steps, o->order);

  /* Only tess_sim_run is timed: progress lines move data to the host and are not steps. */
  double wall = 0;
  progress(sim, u, 0);
  for (int done_steps = 0; done_steps < o->steps;) {
    const int chunk =
        o->every > 0 && o->every < o->steps - done_steps ? o->every : o->steps - done_steps;
    const double w0 = MPI_Wtime();
    CALL(tess_sim_run(sim, chunk, dt));
    wall += MPI_Wtime() - w0;
    done_steps += chunk;
    if (done_steps < o->steps) progress(sim, u, wall);
  }
  progress(sim, u, wall);
  if (tess_rank() == 0 && o->steps > 0)
    printf("time per step %.3f ms (%s mode)\n", 1e3 * wall / o->steps, tess_mode_name(o->mode));

  if (o->task_log) {
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", o->task_log, tess_rank());
    FILE *f = fopen(path, "w");
    size_t nrec = 0;
    const tess_task_record *rec = tess_sim_task_log(sim, &nrec);
    if (f) {
      fprintf(f, "kind,tile,dir,stage,step,t_end\n");
      for (size_t i = 0; i < nrec; i++)
        fprintf(f, "%s,%d,%d,%d,%ld,%.9f\n", tess_task_kind_name(rec[i].kind), rec[i].tile,
                rec[i].dir, rec[i].stage, rec[i].step, rec[i].t_end);
      fclose(f);
    }
  }

  const size_t cells = (size_t)o->n[0] * o->n[1] * o->n[2];
  double *all = tess_rank() == 0 ? malloc(cells * sizeof(double)) : NULL;
  if (tess_rank() == 0 && !all) goto done;
  CALL(tess_sim_gather(sim, u, 0, all));
  err = 0;
  if (tess_rank() == 0) {
    if (o->check) {
      double kk = 0;
      for (int i = 0; i < 3; i++)
        if (o->n[i] > 1) {
          const double kw = 2 * TESS_PI * o->wave / o->length;
          kk += kw * kw;
        }
      const double a_exact = exp(-o->kappa * kk * dt * o->steps);
      const double a_fe = pow(1 - dt * o->kappa * kk, o->steps);
      double e_exact = 0, e_fe = 0;
      for (long z = 0; z < o->n[2]; z++)
        for (long y = 0; y < o->n[1]; y++)
          for (long x = 0; x < o->n[0]; x++) {
            const long g[3] = {x, y, z};
            const double s = sine_init(g, 0, &ic), v = all[x + o->n[0] * (y + o->n[1] * z)];
            e_exact = fmax(e_exact, fabs(v - a_exact * s));
            e_fe = fmax(e_fe, fabs(v - a_fe * s));
          }
      /* The discrete Laplacian's own symbol predicts the run to round-off: a self-check. */
      const double a_disc = pow(1 - dt * o->kappa * lam, o->steps);
      double e_disc = 0;
      for (size_t i = 0; i < cells; i++) {
        const long g[3] = {(long)(i % o->n[0]), (long)(i / o->n[0] % o->n[1]),
                           (long)(i / o->n[0] / o->n[1])};
        e_disc = fmax(e_disc, fabs(all[i] - a_disc * sine_init(g, 0, &ic)));
      }
      printf("check: error_exact %.6e error_spatial %.6e error_symbol %.6e\n", e_exact, e_fe,
             e_disc);
    }
    if (o->dump && tess_cli_write_raw("tess-heat", o->dump, all, cells)) err = 1;
  }
  free(all);
done:
  /* On error the caller aborts every rank at once; a collective destroy here could wait on a
   * rank that is already stuck elsewhere. */
  if (!err) tess_sim_destroy(&sim);
  return err;
}

int main(int argc, char **argv) {
  /* progress lines must survive a job killed by its time limit: line-buffer even into pipes */
  setvbuf(stdout, NULL, _IOLBF, 0);
  heat_opts o;
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

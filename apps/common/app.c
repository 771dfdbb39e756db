/* app.c — the common settings, start-up, checks and failure path of every app (see app.h); the
 * time loop is in loop.c.
 */
#include "app.h"

#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef TESS_SIMGRID
#include <starpu_mpi.h>
#endif

#include "cli.h"
#include "image.h"
#include "app_impl.h"
#include "restart.h"

/* Rank before MPI starts (mpirun exports it), so that only one rank prints start-up errors. */
static int launcher_rank(void) {
#ifdef TESS_SIMGRID
  return starpu_mpi_world_rank(); /* known before the app's main starts */
#endif
  const char *names[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *v = getenv(names[i]);
    if (v) return atoi(v);
  }
  return 0;
}

#define OPT(k, t, var, fl, h, ...)                                                                 \
  { .key = k, .type = t, .ptr = &s->var, .size = sizeof s->var, .flag = fl, .help = h, __VA_ARGS__ }

static tess_err add_common(tess_config_t cfg, tess_app_settings *s) {
  const tess_opt opts[] = {
      OPT("grid.n", TESS_OPT_INTS3, n, "grid", "global cells nx,ny,nz (nz = 1: 2D)", .min = 1,
          .max = 1 << 20),
      OPT("grid.periodic", TESS_OPT_STRING, periodic, "periodic",
          "axes that wrap around: a subset of xyz, or none (the others end in physical faces, "
          "whose conditions the boundary.<field> settings give; docs/boundaries.md)"),
      OPT("run.steps", TESS_OPT_LONG, steps, "steps", "the step to stop at", .min = 0, .max = 1e12),
      OPT("run.warmup", TESS_OPT_INT, warmup, "warmup", "untimed steps before the timed ones",
          .min = 0, .max = 1e9),
      OPT("run.dry_run", TESS_OPT_BOOL, dry_run, "dry-run",
          "check every setting (sources, ranges, the app's own checks), say so and exit: no MPI, "
          "StarPU or file"),
      OPT("run.check_every", TESS_OPT_INT, check_every, "check-every",
          "finite check every N steps (0: at progress lines, snapshots, checkpoints, the end)",
          .min = 0, .max = 1e9),
      OPT("output.dir", TESS_OPT_STRING, dir, "out", "output directory"),
      OPT("output.every", TESS_OPT_INT, every, "every", "progress line every N steps (0: none)",
          .min = 0, .max = 1e9),
      OPT("output.snapshot_every", TESS_OPT_INT, snapshot_every, "snapshot-every",
          "VTKHDF snapshot every N steps (0: none)", .min = 0, .max = 1e9),
      OPT("output.snapshot_vars", TESS_OPT_STRING, snapshot_vars, "snapshot-vars",
          "variables in snapshots: all, or names separated by commas"),
      OPT("output.dump", TESS_OPT_STRING, dump, "dump",
          "final variables as raw float64 into this file (tests)"),
      OPT("checkpoint.every", TESS_OPT_INT, checkpoint_every, "checkpoint-every",
          "checkpoint every N steps and at the end (0: only on SIGUSR1/SIGTERM)", .min = 0,
          .max = 1e9),
      OPT("checkpoint.keep", TESS_OPT_INT, checkpoint_keep, "checkpoint-keep",
          "checkpoints kept (older ones are deleted)", .min = 1, .max = 1000),
      OPT("checkpoint.restart", TESS_OPT_STRING, restart, "restart",
          "continue from this checkpoint file, or 'latest' in output.dir"),
      OPT("runtime.mode", TESS_OPT_STRING, mode, "mode",
          "overlap (task graph), bulk (bulk-synchronous baseline) or buffered (task graph with "
          "every neighbour through a pack/unpack buffer, even on one memory node)",
          .choices = "overlap|bulk|buffered"),
      OPT("runtime.device", TESS_OPT_STRING, device, "device", "workers: cpu, cuda or auto",
          .choices = "cpu|cuda|auto"),
      OPT("runtime.precision", TESS_OPT_STRING, precision, "precision",
          "element type of the fields: double or single (kernels with a single version)",
          .choices = "double|single"),
      OPT("runtime.tiles", TESS_OPT_INT, tiles, "tiles",
          "tiles per rank (0: one per GPU; on CPUs about 2 per CPU worker, each of at least "
          "32768 cells, 1 for a single worker)",
          .min = 0, .max = 4096),
      OPT("runtime.procs", TESS_OPT_INTS3, procs, "procs",
          "process grid px,py,pz (0,0,0: cut across z, then y, then x; fewest halo cells)",
          .min = 0, .max = 1 << 20),
      OPT("runtime.trace", TESS_OPT_STRING, trace, "trace",
          "record a StarPU FxT trace, merged into this directory"),
      OPT("runtime.log", TESS_OPT_STRING, log, "log",
          "what the library prints on stderr: placement, workers, decomposition, task graph, "
          "halo path at info",
          .choices = TESS_LOG_CHOICES),
      OPT("runtime.topo", TESS_OPT_STRING, topo, "topo",
          "rank placement on GPUs, NICs and cores (auto: one rank per GPU on GPU nodes, NUMA "
          "domains or blocks of cores on CPU nodes; off: StarPU's defaults)",
          .choices = TESS_TOPO_CHOICES),
      OPT("runtime.mpi_direct", TESS_OPT_STRING, mpi_direct, "mpi-direct",
          "halos between ranks by Tessera's own MPI requests on the buffers' memory instead of "
          "StarPU-MPI (auto: GPU tiles with a CUDA-aware MPI)",
          .choices = TESS_MPI_DIRECT_CHOICES),
      OPT("runtime.wrap", TESS_OPT_BOOL, wrap, "wrap",
          "periodic halos a tile sends itself are read or written at their images by the "
          "kernels where they can (false: they are copied before each stage; A/B)"),
      OPT("runtime.unpack_in_class", TESS_OPT_BOOL, unpack_in_class, "unpack-in-class",
          "a buffered link (from this rank or another) is unpacked by the first "
          "compute task that reads it (false: by an unpack task of its own; A/B)"),
      OPT("runtime.profile", TESS_OPT_BOOL, profile, "profile",
          "StarPU's worker and bus summaries at the end"),
      OPT("debug.task_log", TESS_OPT_STRING, task_log, "task-log",
          "write each rank's tasks of the last chunk of steps (kind, tile, stage, step, start, "
          "end, worker) to FILE.<rank>"),
  };
  return tess_config_add(cfg, opts, sizeof opts / sizeof opts[0]);
}

int tess_app_prints(void) { return launcher_rank() == 0; }

#ifdef TESS_SIMGRID
#undef main
int starpu_main(int argc, char **argv) {
  const int rc = tess_simgrid_app_main(argc, argv);
  if (rc) {
    fflush(stdout);
    exit(rc); /* SMPI's exit: smpirun's status (the other simulated ranks may report a stall) */
  }
  return 0;
}
#endif

int tess_app_refuse(tess_app *app) {
  tess_config_destroy(&app->cfg);
  /* mpirun ends the job as soon as one rank exits with an error: a quiet rank leaving first
   * could cut the printing rank's message (seen on a loaded 2-core machine). Wait instead:
   * rank 0's exit ends the job, this rank with it, at once. */
  if (!tess_app_prints()) {
    const struct timespec wait = {10, 0};
    nanosleep(&wait, NULL);
  }
  return 2;
}

void tess_app_defaults(tess_app_settings *s, const char *prog, const int n[3], const char *vars) {
  memset(s, 0, sizeof *s);
  s->vars = vars;
  for (int i = 0; i < 3; i++)
    s->n[i] = n[i];
  s->steps = 100;
  strcpy(s->periodic, "xyz");
  s->checkpoint_keep = 2;
  snprintf(s->dir, sizeof s->dir, "%s-out", prog);
  strcpy(s->snapshot_vars, "all");
  strcpy(s->mode, "overlap");
  strcpy(s->device, "cpu");
  strcpy(s->precision, "double");
  strcpy(s->log, "warn");
  strcpy(s->topo, "auto");
  strcpy(s->mpi_direct, "auto");
  s->wrap = 1;
  s->unpack_in_class = 1;
}

/* The runtime's switches were once read from TESS_* variables; they are settings now. A
 * variable a user still sets would otherwise be ignored without a word. */
static int retired_env(const char *prog, int quiet) {
  static const char *const old[][2] = {
      {"TESS_LOG", "TESSERA_RUNTIME_LOG=info or --log info"},
      {"TESS_TRACE", "TESSERA_RUNTIME_TRACE=DIR or --trace DIR"},
      {"TESS_TOPO", "TESSERA_RUNTIME_TOPO=gpu or --topo gpu"},
      {"TESS_PROFILE", "TESSERA_RUNTIME_PROFILE=true or --profile"},
      {"TESS_MPI_DIRECT", "TESSERA_RUNTIME_MPI_DIRECT=on|off|auto or --mpi-direct on"},
      {"TESS_SOLO", "--mode buffered (TESS_SOLO is gone)"},
  };
  for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
    if (getenv(old[i][0])) {
      if (!quiet)
        fprintf(stderr, "%s: the environment variable %s is no longer read: use %s\n", prog,
                old[i][0], old[i][1]);
      return 1;
    }
  return 0;
}

#ifdef TESS_SIMGRID
/* The SimGrid build (docs/simulation.md) simulates a run: StarPU takes each task's time from the
 * calibrated models and runs no kernel, so the fields hold no values. What would read or write
 * them is refused before MPI starts; the finite checks are skipped (check_finite). */
static int simulate_refuses(const tess_app *app) {
  const tess_app_settings *s = &app->s;
  const char *what = s->snapshot_every > 0     ? "output.snapshot_every"
                     : s->checkpoint_every > 0 ? "checkpoint.every"
                     : s->dump[0]              ? "output.dump"
                     : s->restart[0]           ? "checkpoint.restart"
                                               : NULL;
  if (what && tess_app_prints())
    fprintf(stderr,
            "%s: %s is not available in the SimGrid build: kernels are not run and the fields "
            "hold no values (allowed: 0 or empty)\n",
            app->prog, what);
  return what != NULL;
}
#endif

int tess_app_begin(tess_app *app, const char *prog, const tess_app_settings *defaults,
                   const tess_opt *opts, size_t nopts, int argc, char **argv) {
  memset(app, 0, sizeof *app);
  app->prog = prog;
  tess_app_settings *s = &app->s;
  *s = *defaults;
  const int quiet = !tess_app_prints();
  if (retired_env(prog, quiet) || tess_config_create(prog, &app->cfg)) return tess_app_refuse(app);
  tess_config_set_output(app->cfg, quiet ? NULL : stdout);
  int exit_now = 0;
  if (add_common(app->cfg, s) || (nopts && tess_config_add(app->cfg, opts, nopts)) ||
      tess_config_parse(app->cfg, argc, argv, &exit_now)) {
    if (!quiet) fprintf(stderr, "%s: %s\n", prog, tess_config_error(app->cfg));
    return tess_app_refuse(app);
  }
  if (exit_now) {
    tess_config_destroy(&app->cfg);
    return 1;
  }
  if (!s->dir[0]) {
    if (!quiet)
      fprintf(stderr, "%s: output.dir is empty (from %s); allowed: a directory name\n", prog,
              tess_config_source(app->cfg, "output.dir"));
    return tess_app_refuse(app);
  }
#ifdef TESS_SIMGRID
  if (simulate_refuses(app)) return tess_app_refuse(app);
#endif
  char msg[256];
  if (tess_periodic_parse(s->periodic, app->periodic, msg, sizeof msg)) {
    if (!quiet) fprintf(stderr, "%s: %s\n", prog, msg);
    return tess_app_refuse(app);
  }
  /* names were checked against the choices already; these cannot fail */
  tess_mode_parse(s->mode, &app->mode);
  tess_device_parse(s->device, &app->device);
  tess_precision_parse(s->precision, &app->precision);
  return 0;
}

int tess_app_start(tess_app *app, int *argc, char ***argv, int writes) {
  tess_init_opts io = TESS_INIT_OPTS_DEFAULT;
  io.device = app->device;
  io.trace_dir = app->s.trace[0] ? app->s.trace : NULL;
  io.log = app->s.log;
  io.topo = app->s.topo;
  io.mpi_direct = app->s.mpi_direct;
  io.profile = app->s.profile;
  if (tess_init(argc, argv, &io)) return 1;
  tess_signal_watch(); /* from here on a stop or checkpoint request waits for the next chunk */
  app->root = tess_rank() == 0;
  const tess_app_settings *s = &app->s;
  writes |= s->snapshot_every > 0 || s->checkpoint_every > 0;
  int ok = 1;
  if (app->root && writes) ok = tess_cli_output_dir(app->prog, s->dir) == 0;
  if (app->root && ok && s->dump[0]) ok = tess_cli_dump_check(app->prog, s->dump) == 0;
  if (ok && s->task_log[0]) { /* each rank writes its own, at the end: refused now, not then */
    char path[TESS_APP_PATH + 16];
    snprintf(path, sizeof path, "%s.%d", s->task_log, tess_rank());
    ok = tess_cli_file_check(app->prog, "debug.task_log", path) == 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) {
    app->agreed = -1; /* every rank knows (the broadcast): a clean end */
    return 1;
  }
  app->writes = writes;
  if (app->root) tess_config_summary(app->cfg, stdout); /* the whole: --print-config, <app>.ini */
#ifdef TESS_SIMGRID
  if (app->root)
    printf("simulate: SimGrid build: step times are simulated from the tasks' performance models; "
           "no kernel "
           "runs, so initial conditions, finite checks, snapshots, checkpoints, dumps and the "
           "apps' analytic checks are skipped\n");
#endif
  return 0;
}

/* <output.dir>/<app>.ini, after the loop checked what only it can (the snapshot variables):
 * no file is written for a run that is refused. Collective; 0 or 1 after a message. */
int tess_app_save_ini(tess_app *app) {
  int ok = 1;
  if (app->root && app->writes) {
    char path[TESS_APP_PATH + 64];
    snprintf(path, sizeof path, "%s/%s.ini", app->s.dir, app->prog);
    if (tess_config_save(app->cfg, path)) {
      fprintf(stderr, "%s: %s\n", app->prog, tess_config_error(app->cfg));
      ok = 0;
    } else {
      printf("%s: full configuration in %s\n", app->prog, path);
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : 1;
}

tess_err tess_app_configure(tess_app *app, tess_sim_t sim) {
  tess_err e;
  if ((e = tess_sim_set_mode(sim, app->mode)) || (e = tess_sim_set_device(sim, app->device)) ||
      (e = tess_sim_set_wrap(sim, app->s.wrap)) ||
      (e = tess_sim_set_unpack_in_class(sim, app->s.unpack_in_class)) ||
      (e = tess_sim_set_tiles(sim, app->s.tiles)) ||
      (e = tess_sim_set_precision(sim, app->precision)))
    return e;
  if ((e = tess_sim_set_periodic(sim, app->periodic))) return e;
  if (app->s.procs[0] || app->s.procs[1] || app->s.procs[2])
    return tess_sim_set_procs(sim, app->s.procs);
  return TESS_OK;
}

int tess_app_boundary_check(const tess_app *app, const char *field, const char *spec) {
  tess_bc bc[6];
  unsigned set;
  char msg[768];
  if (tess_bc_parse(spec, field, app->periodic, bc, &set, msg, sizeof msg)) {
    if (tess_app_prints()) fprintf(stderr, "%s: %s\n", app->prog, msg);
    return -1;
  }
  for (int f = 0; f < 6; f++) {
    const int axis = f / 2;
    if (app->periodic[axis] || app->s.n[axis] == 1 || ((set >> f) & 1)) continue;
    if (tess_app_prints())
      fprintf(stderr,
              "%s: field '%s' has no boundary condition on face %s: axis %c is not periodic "
              "(grid.periodic = %s) (set boundary.%s, e.g. --set 'boundary.%s=%c:dirichlet(0)', "
              "or make %c periodic)\n",
              app->prog, field, tess_face_name(f), "xyz"[axis], app -> s.periodic, field, field,
              "xyz"[axis], "xyz"[axis]);
    return -1;
  }
  return 0;
}

tess_err tess_app_boundary(tess_app *app, tess_sim_t sim, int field, const char *spec) {
  (void)app;
  return tess_sim_set_boundary_spec(sim, field, spec);
}

static int check_vars(const tess_app *app);

int tess_app_main(const char *prog, const tess_app_settings *defaults, const tess_opt *opts,
                  size_t nopts, const int *writes, tess_app_check check, tess_app_body body,
                  void *ctx, int argc, char **argv) {
  /* progress lines must survive a job killed by its time limit: line-buffer even into pipes */
  setvbuf(stdout, NULL, _IOLBF, 0);
  tess_app app;
  const int b = tess_app_begin(&app, prog, defaults, opts, nopts, argc, argv);
  if (b) return b == 1 ? 0 : 2;
  if ((check && check(&app, ctx)) || check_vars(&app)) return tess_app_refuse(&app);
  if (app.s.dry_run) {
    if (tess_app_prints()) printf("%s: settings OK (dry run; nothing started or written)\n", prog);
    tess_config_destroy(&app.cfg);
    return 0;
  }
  if (tess_app_start(&app, &argc, &argv, writes && *writes)) tess_app_fail(&app);
  const int err = body(&app, ctx);
  if (err == 1) tess_app_fail(&app);
  if (tess_app_end(&app)) return 1;
  /* a run stopped by SIGTERM or SIGINT did not do what it was asked: its checkpoint is written,
   * and the status says it was interrupted (128 + signal, as a shell reports it) */
  return app.stopped_by ? 128 + app.stopped_by : err;
}

tess_err tess_app_sim(tess_app *app, const double h[3], tess_sim_t *sim) {
  tess_err e = tess_sim_create(MPI_COMM_WORLD, app->s.n, sim);
  if (!e && h) e = tess_sim_set_spacing(*sim, h);
  return e ? e : tess_app_configure(app, *sim);
}

int tess_app_png(const tess_app *app, const double *all, const char *name, double lim) {
  const int *n = app->s.n;
  int ok = 1;
  if (app->root) {
    char path[TESS_APP_PATH + 64];
    snprintf(path, sizeof path, "%s/%s.png", app->s.dir, name);
    const int scale = n[0] < 256 ? 512 / n[0] : 1;
    ok = tess_png_write_slice(path, all + (size_t)(n[2] / 2) * n[0] * n[1], n[0], n[1], -lim, lim,
                              scale > 0 ? scale : 1) == 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : -1;
}

int tess_app_end(tess_app *app) {
  const tess_err e = tess_finalize();
  tess_config_destroy(&app->cfg);
  return e ? 1 : 0;
}

#define MEET_S 60 /* how long a failed rank waits for the others to finish their setup */

/* Every rank, once: code 0 (set up), 2 (bad input) or 1 (another failure). The largest code is
 * every rank's answer. Non-blocking with a deadline, because a rank that failed before a
 * collective of the setup leaves the others waiting there and they never come. */
void tess_app_meet(tess_app *app, int code) {
  int worst = code;
  MPI_Request rq;
  MPI_Iallreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq);
  const double t0 = MPI_Wtime();
  for (int done = 0; !done;) {
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    if (done) break;
    if (MPI_Wtime() - t0 > MEET_S) {
      fprintf(stderr,
              "%s: rank %d: setup failed here, and the other ranks did not finish their setup "
              "within %d s (stuck in a collective); ending the job\n",
              app->prog, tess_rank(), MEET_S);
      tess_abort(code ? code : 1);
    }
    const struct timespec ms = {0, 1000000L};
    nanosleep(&ms, NULL);
  }
  app->agreed = worst ? -worst : 1;
}

/* The rule for every fatal error once MPI runs: a clean end (StarPU and MPI down, whose
 * shutdown has barriers) only when every rank reached the same decision through a collective
 * (agreed < 0); any other failure ends the job with MPI_Abort, which needs no other rank. */
void tess_app_fail(tess_app *app) {
  int mpi = 0;
  MPI_Initialized(&mpi);
  if (!mpi) exit(tess_last_error() == TESS_ERR_ARG ? 2 : 1); /* tess_init failed before MPI */
  if (!app->agreed) tess_app_meet(app, tess_last_error() == TESS_ERR_ARG ? 2 : 1);
  if (app->agreed < 0) {
    const int code = -app->agreed;
    fflush(stdout);
    tess_app_end(app);
    exit(code);
  }
  tess_abort(1);
}

const char *tess_app_var_name(const tess_app_loop *loop, int field, int comp, char *buf,
                              size_t len) {
  for (int i = 0; i < loop->nvars; i++) {
    const tess_snap_var *v = &loop->vars[i];
    if (v->field != field || comp < v->comp || comp >= v->comp + v->ncomp) continue;
    if (v->ncomp == 1)
      snprintf(buf, len, "%s", v->name);
    else
      snprintf(buf, len, "%s[%d]", v->name, comp - v->comp);
    return buf;
  }
  snprintf(buf, len, "component %d", comp);
  return buf;
}

/* output.snapshot_vars -> indices into names[0..n) (sel[], *nsel); 0, or -1 after a message
 * where `print`. */
int tess_app_select_names(const char *prog, const char *list, int n, const char *const names[],
                          int sel[64], int *nsel, int print) {
  *nsel = 0;
  if (!strcmp(list, "all")) {
    for (int i = 0; i < n && i < 64; i++)
      sel[(*nsel)++] = i;
    return 0;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  /* split at commas by hand: strtok would pass over an empty name ("lnrho,") in silence */
  for (char *tok = buf, *next; tok; tok = next) {
    if ((next = strchr(tok, ','))) *next++ = 0;
    while (*tok == ' ')
      tok++;
    for (char *e = tok + strlen(tok); e > tok && e[-1] == ' ';)
      *--e = 0;
    if (!*tok && (next || *nsel)) {
      if (print)
        fprintf(stderr,
                "%s: output.snapshot_vars '%s' has an empty name (allowed: all, or names "
                "separated by single commas)\n",
                prog, list);
      return -1;
    }
    if (!*tok) break;
    int found = -1, twice = 0;
    for (int i = 0; i < n; i++)
      if (!strcmp(names[i], tok)) found = i;
    for (int k = 0; k < *nsel; k++)
      twice |= sel[k] == found;
    if (found >= 0 && twice) {
      if (print)
        fprintf(stderr, "%s: output.snapshot_vars '%s' names '%s' twice (allowed: each once)\n",
                prog, list, tok);
      return -1;
    }
    if (found < 0 || *nsel == 64) {
      if (print) {
        fprintf(stderr, "%s: output.snapshot_vars: unknown variable '%s' (allowed: all", prog, tok);
        for (int i = 0; i < n; i++)
          fprintf(stderr, ", %s", names[i]);
        fprintf(stderr, ")\n");
      }
      return -1;
    }
    sel[(*nsel)++] = found;
  }
  if (*nsel == 0) {
    if (print) {
      fprintf(stderr, "%s: output.snapshot_vars is empty (allowed: all, or a list of", prog);
      for (int i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i ? "," : "", names[i]);
      fprintf(stderr, ")\n");
    }
    return -1;
  }
  return 0;
}

/* Before MPI: output.snapshot_vars against the app's declared variables (s.vars); 0, or -1
 * after a message where tess_app_prints(). */
static int check_vars(const tess_app *app) {
  if (!app->s.vars) return 0;
  char buf[256];
  const char *names[64];
  int n = 0, sel[64], nsel;
  snprintf(buf, sizeof buf, "%s", app->s.vars);
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < 64;
       tok = strtok_r(NULL, ",", &save))
    names[n++] = tok;
  return tess_app_select_names(app->prog, app->s.snapshot_vars, n, names, sel, &nsel,
                               tess_app_prints());
}

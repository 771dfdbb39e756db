/* app.h — what every Tessera app shares: the common settings, start-up and the time loop.
 *
 * An app lists its own settings (a tess_opt table, tessera_config.h), builds its simulation
 * (fields, stages), and hands the loop a few callbacks; everything users expect of a run is
 * here, once, for every app:
 *
 *   tess_app_begin   settings: defaults < TESSERA_* environment < --config files < flags and
 *                    --set, checked before MPI starts (bad input: exit 2 on every rank, no hang)
 *   tess_app_start   MPI + StarPU, the output directory checked writable before the first step,
 *                    the effective configuration printed once and saved beside the output
 *   tess_app_run     --restart (a checkpoint of any decomposition, checked: restart.h), then
 *                    chunks of at most 10 steps up to run.steps; between chunks, at the steps
 *                    the settings ask for:
 *                    progress lines, VTKHDF snapshots, checkpoints (kept: the newest K),
 *                    finite checks naming the step, field, component and cell, and signals
 *                    (SIGUSR1: checkpoint and go on; SIGTERM, SIGINT, SIGUSR2: checkpoint and
 *                    stop); median time per step over the timed chunks at the end
 *   tess_app_end     StarPU and MPI down
 *
 * Steps count from the start of the simulation, so `--restart latest` with the same settings
 * ends at the same step with bitwise the same fields as a run that was never interrupted.
 */
#ifndef TESS_APP_H
#define TESS_APP_H

#include <stddef.h>

#include "tessera.h"
#include "tessera_config.h"
#include "tessera_io.h"
#ifdef TESS_SIMGRID
/* SimGrid build: StarPU's library holds the real main(), which starts the simulation and calls
 * starpu_main (docs/simulation.md), whose return value it drops. The app's main is renamed
 * tess_simgrid_app_main; app.c's starpu_main calls it and ends a failed run with exit(), whose
 * code SMPI's launcher returns. */
#include <starpu_simgrid_wrap.h>
#undef main
#define main tess_simgrid_app_main
int tess_simgrid_app_main(int argc, char **argv);
#endif

#define TESS_APP_PATH 512

/* The settings every app has, by section. */
typedef struct {
  int n[3];                     /* grid.n */
  char periodic[8];             /* grid.periodic: a subset of xyz, or none */
  long steps;                   /* run.steps: the step to stop at */
  int warmup;                   /* run.warmup: steps before the timed chunks */
  int check_every;              /* run.check_every: finite checks (0: at outputs only) */
  char dir[TESS_APP_PATH];      /* output.dir */
  int every;                    /* output.every: progress lines */
  int snapshot_every;           /* output.snapshot_every */
  char snapshot_vars[256];      /* output.snapshot_vars: "all" or names, comma-separated */
  char dump[TESS_APP_PATH];     /* output.dump: final variables, raw float64 (tests) */
  int checkpoint_every;         /* checkpoint.every */
  int checkpoint_keep;          /* checkpoint.keep */
  char restart[TESS_APP_PATH];  /* checkpoint.restart: a file, "latest" or "" */
  char mode[16], device[16];    /* runtime.mode, runtime.device */
  char precision[16];           /* runtime.precision */
  int tiles, procs[3];          /* runtime.tiles, runtime.procs */
  char trace[TESS_APP_PATH];    /* runtime.trace */
  char log[8], topo[8];         /* runtime.log, runtime.topo */
  char mpi_direct[8];           /* runtime.mpi_direct */
  int profile;                  /* runtime.profile */
  int wrap;                     /* runtime.wrap */
  int unpack_in_class;          /* runtime.unpack_in_class */
  char task_log[TESS_APP_PATH]; /* debug.task_log: "" or a path prefix (FILE.<rank>) */
  int dry_run;                  /* run.dry_run: check the settings, start and write nothing */
  const char *vars; /* not a setting: the app's variables as its loop names them ("E,H") */
} tess_app_settings;

typedef struct {
  const char *prog;
  tess_config_t cfg;
  tess_app_settings s;
  tess_mode mode;
  tess_device device;
  tess_precision precision;
  int root;   /* rank 0 */
  int writes; /* the run writes files: <app>.ini is saved once the loop has checked its settings */
  int agreed; /* 0: setting up; 1: every rank is set up; -(exit code): every rank knows it failed */
  int stopped_by;  /* the signal (SIGTERM, SIGINT) that stopped the run after its checkpoint */
  int periodic[3]; /* grid.periodic, parsed */
} tess_app;

/* What an app gives the loop. Callbacks are collective (every rank calls them at the same
 * step); they print on rank 0 only and return a tess_err (non-zero stops the run). */
typedef struct {
  int nvars;
  const tess_snap_var *vars; /* the app's variables: snapshots, dumps and finite-check names */
  int nattrs;
  const tess_attr *attrs; /* physics parameters stored in snapshots */
  double dt;              /* time step; choose_dt may change it */
  int dt_every;           /* choose_dt runs at multiples of this step (0: before every chunk) */
  void *ctx;
  tess_err (*choose_dt)(void *ctx, tess_sim_t sim, double *dt);                    /* or NULL */
  tess_err (*progress)(void *ctx, tess_sim_t sim, double steps_per_s, double eta); /* or NULL */
  tess_err (*output)(void *ctx, tess_sim_t sim, long step); /* extra output at snapshots */
  /* Restart (apps/common/restart.c, docs/reliability.md): the settings defining the physics and
   * discretisation that a restart may change, comma-separated keys (NULL: none); a changed one
   * recomputes dt from this run's settings: dt > 0 above is that dt, or (dt = 0, a dt chosen
   * from the fields) choose_dt runs at the restart step. */
  const char *restart_may_change;
  /* The stability limit of dt for these settings (and the current fields), or NULL: none
   * known. A restart refuses a checkpoint whose dt exceeds it (by more than the drift of a
   * field-dependent limit), and a recomputed dt above it. */
  tess_err (*dt_limit)(void *ctx, tess_sim_t sim, double *limit);
  double *dt_in_use; /* or NULL: kept equal to the dt the loop steps with, for progress lines */
} tess_app_loop;

/* The common defaults: grid n, 100 steps, no progress lines, no snapshots, no checkpoints
 * (keep 2), output in "<prog>-out", overlap mode on the CPU. `vars`: the names of the app's
 * variables (those of its tess_app_loop), comma-separated: output.snapshot_vars is checked
 * against them before MPI starts (also in a dry run). Apps change what they need and hand the
 * result to tess_app_begin. */
void tess_app_defaults(tess_app_settings *s, const char *prog, const int n[3], const char *vars);
/* Before MPI. Takes `defaults` (tess_app_defaults), adds the common settings and the app's
 * table to a configuration and parses argv. Returns 0: go on; 1: --help or --print-config done
 * (exit 0); 2: bad input, message printed (exit 2). The app then checks its own values and
 * reports them with tess_app_prints() (exit 2). */
int tess_app_begin(tess_app *app, const char *prog, const tess_app_settings *defaults,
                   const tess_opt *opts, size_t nopts, int argc, char **argv);
/* 1 on the one rank that prints: before MPI starts, the launcher's rank 0 (mpirun exports the
 * rank), so that bad input is reported once and not by every rank. */
int tess_app_prints(void);
/* Before MPI: refuses the run after a message printed by tess_app_prints()'s rank: frees the
 * configuration and returns 2 (the exit status), the other ranks only after a wait, so that
 * mpirun does not end the job before that message is out. */
int tess_app_refuse(tess_app *app);
/* MPI, StarPU, the output directory (when the run writes any file; `writes` adds the app's own
 * outputs), the configuration printed and saved there. 0, or 1 after a message. */
int tess_app_start(tess_app *app, int *argc, char ***argv, int writes);
/* Applies runtime.mode/device/tiles/procs to a created simulation. */
tess_err tess_app_configure(tess_app *app, tess_sim_t sim);
/* The time loop above. 0: done (or stopped by a signal after its checkpoint: SIGTERM and SIGINT
 * set app->stopped_by, and tess_app_main then returns 128 + the signal); 1: failed,
 * message printed on rank 0 (the caller then calls tess_app_fail). It starts with the end of
 * setup: every rank meets there, so a setting found bad after MPI started (a grid too small
 * for the stencil, a precision a kernel lacks, too little memory) ends every rank cleanly. */
int tess_app_run(tess_app *app, tess_sim_t sim, const tess_app_loop *loop);
/* Ends a failed run on this rank; does not return. When every rank knows of the failure (an
 * error during setup, met by every rank at the start of tess_app_run, or a refused output
 * directory), the job ends cleanly: StarPU and MPI down, exit 2 for bad input (1 otherwise),
 * no MPI_ABORT. Otherwise (an error in the loop) it aborts the job. A rank still inside a
 * collective of the setup cannot meet: a failing rank waits 60 s for the others, then aborts. */
void tess_app_fail(tess_app *app);
/* Finalizes and frees. 0, or 1 when finalizing found an output incomplete (a trace). */
int tess_app_end(tess_app *app);

/* An app's body: builds and runs its simulation on a started app. 0: done; 1: failed after a
 * message (tess_app_fail: a clean end when every rank knows, else the job is aborted); 2: bad
 * settings that every rank found alike (exit 2). */
typedef int (*tess_app_body)(tess_app *app, void *ctx);
/* Settings checks of an app before MPI starts (NULL: none): 0, or non-zero after a message
 * printed where tess_app_prints() (exit 2). */
typedef int (*tess_app_check)(tess_app *app, void *ctx);
/* The whole main of an app: line-buffered stdout, tess_app_begin with `defaults` and the app's
 * table, check, tess_app_start, body, tess_app_end. With run.dry_run (--dry-run) it stops after
 * the check (the app's, then output.snapshot_vars against the app's variables, `vars` of
 * tess_app_defaults): one line "<prog>: settings OK (dry run; nothing started or written)" on the
 * printing rank and status 0, without MPI, StarPU or any file (bad input: 2, as always). `writes`
 * (or NULL): a setting of the app's table saying it writes files of its own (read after parsing:
 * the output directory is then checked writable). Returns main's exit status (0, or 2 for bad
 * input); failures end in tess_app_fail. */
int tess_app_main(const char *prog, const tess_app_settings *defaults, const tess_opt *opts,
                  size_t nopts, const int *writes, tess_app_check check, tess_app_body body,
                  void *ctx, int argc, char **argv);
/* A simulation of the settings' grid with spacing h (NULL: 1), configured by
 * tess_app_configure. */
tess_err tess_app_sim(tess_app *app, const double h[3], tess_sim_t *sim);
/* The slice z = nz/2 of a field gathered to rank 0 (`all`: [nz][ny][nx] there, unused
 * elsewhere) as <output.dir>/<name>.png, colours over [-lim, lim], grids narrower than 256 cells
 * magnified to about 512 pixels. Collective: 0 on every rank, or -1 after rank 0's message. */
int tess_app_png(const tess_app *app, const double *all, const char *name, double lim);

/* Before MPI (an app's settings check, also of a dry run): spec, the value of boundary.<field>,
 * against grid.periodic; the field is read across every axis of extent > 1, so each of its
 * faces on a non-periodic such axis needs a condition. 0, or -1 after a message naming the bad
 * part, printed where tess_app_prints() (the app then exits 2). */
int tess_app_boundary_check(const tess_app *app, const char *field, const char *spec);
/* The conditions of spec for every component of field (after tess_app_configure set the
 * periodicity). */
tess_err tess_app_boundary(tess_app *app, tess_sim_t sim, int field, const char *spec);

/* "name" of component comp of field (from the loop's variables), for messages. */
const char *tess_app_var_name(const tess_app_loop *loop, int field, int comp, char *buf,
                              size_t len);

#endif

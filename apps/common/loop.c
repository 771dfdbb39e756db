/* loop.c — the time loop of every app (tess_app_run, see app.h).
 *
 * The loop, one chunk of at most 10 steps at a time:
 *
 *   step s: finite check? -> new dt? -> progress line? -> snapshot? -> checkpoint?
 *           -> (s == steps: done) -> tess_sim_run(chunk) -> signal poll
 *           -> (signal: checkpoint, stop or go on)
 *
 * Chunks end at every step where the settings want something, so all of it happens between
 * tess_sim_run calls, outside the timed region; only chunks after run.warmup are timed.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "app_impl.h"
#include "cli.h"
#include "image.h"
#include "restart.h"

#define CHUNK 10 /* steps per tess_sim_run: bounds the reaction time to signals */

/* ---- the loop's pieces ------------------------------------------------------------------- */

typedef struct {
  tess_app *app;
  tess_sim_t sim;
  const tess_app_loop *loop;
  int sel[64], nsel; /* selected snapshot variables */
  double dt;
  char *config;                  /* the effective configuration, for snapshots and checkpoints */
  char from[TESS_APP_PATH + 64]; /* the checkpoint restarted from, or "" */
} run_state;

/* output.snapshot_vars -> indices into loop->vars; 0 or -1 after a message on rank 0. */
static int select_vars(run_state *r) {
  const char *names[64];
  const int n = r->loop->nvars < 64 ? r->loop->nvars : 64;
  for (int i = 0; i < n; i++)
    names[i] = r->loop->vars[i].name;
  return tess_app_select_names(r->app->prog, r->app->s.snapshot_vars, n, names, r->sel, &r->nsel,
                               r->app->root);
}

/* 0 when every value of the app's variables is finite (scratch fields are not checked); else
 * -1 after naming the first bad value. last_ok < 0: the state was just read from the
 * checkpoint r->from. */
static int check_finite(run_state *r, long last_ok) {
#ifdef TESS_SIMGRID
  (void)r, (void)last_ok;
  return 0; /* no values to check (simulate_refuses) */
#endif
  int fields[64], n = 0;
  for (int i = 0; i < r->loop->nvars && n < 64; i++) {
    int seen = 0;
    for (int k = 0; k < n; k++)
      seen |= fields[k] == r->loop->vars[i].field;
    if (!seen) fields[n++] = r->loop->vars[i].field;
  }
  tess_nonfinite nf;
  if (tess_sim_check_finite(r->sim, n, fields, &nf)) return -1;
  if (!nf.found) return 0;
  if (r->app->root) {
    char name[64], what[128];
    const char *field = tess_sim_field_name(r->sim, nf.field);
    tess_app_var_name(r->loop, nf.field, nf.comp, name, sizeof name);
    if (strcmp(name, field))
      snprintf(what, sizeof what, "field '%s' (%s)", field, name);
    else
      snprintf(what, sizeof what, "field '%s'", field);
    if (last_ok < 0)
      fprintf(stderr,
              "%s: checkpoint '%s' holds a non-finite value (%g) at step %ld: %s, global cell "
              "(%ld, %ld, %ld); refused\n",
              r->app->prog, r->from, nf.value, tess_sim_step(r->sim), what, nf.cell[0], nf.cell[1],
              nf.cell[2]);
    else
      fprintf(stderr,
              "%s: non-finite value (%g) at step %ld (time %.9g; last check passed at step %ld%s%s"
              "%s): %s, global cell (%ld, %ld, %ld)\n",
              r->app->prog, nf.value, tess_sim_step(r->sim), tess_sim_time(r->sim), last_ok,
              r->from[0] ? ", in a run restarted from '" : "", r->from, r->from[0] ? "'" : "", what,
              nf.cell[0], nf.cell[1], nf.cell[2]);
  }
  r->app->agreed = -1; /* every rank found it (collective): a clean end */
  return -1;
}

static int write_snapshot(run_state *r) {
  tess_snap_var vars[64];
  for (int i = 0; i < r->nsel; i++)
    vars[i] = r->loop->vars[r->sel[i]];
  char path[TESS_APP_PATH + 64];
  snprintf(path, sizeof path, "%s/%s_%08ld.vtkhdf", r->app->s.dir, r->app->prog,
           tess_sim_step(r->sim));
  if (tess_sim_snapshot(r->sim, path, r->nsel, vars, r->loop->nattrs, r->loop->attrs, r->config))
    return -1;
  return r->loop->output ? (r->loop->output(r->loop->ctx, r->sim, tess_sim_step(r->sim)) ? -1 : 0)
                         : 0;
}

static int write_checkpoint(run_state *r, const char *why) {
  const tess_app_settings *s = &r->app->s;
  char path[TESS_APP_PATH + 64], state[64];
  /* The state the run needs beyond the fields: dt, exactly (hex float). */
  snprintf(state, sizeof state, "dt=%a", r->dt);
  int ok = 1;
  /* a signal may ask for a checkpoint in a run that writes nothing else: make the directory */
  if (r->app->root)
    ok = tess_cli_output_dir(r->app->prog, s->dir) == 0 &&
         tess_checkpoint_path(s->dir, r->app->prog, tess_sim_step(r->sim), path, sizeof path) ==
             TESS_OK;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (!ok || tess_sim_checkpoint_write(r->sim, path, state, r->config)) return -1;
  if (r->app->root) {
    printf("checkpoint %s (%s)\n", path, why);
    ok = tess_checkpoint_rotate(s->dir, r->app->prog, s->checkpoint_keep) == TESS_OK;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : -1;
}

/* The loaded state's finite check for tess_app_restart. */
static int check_loaded(void *r) { return check_finite(r, -1); }

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int dump(run_state *r) {
  const tess_app_loop *l = r->loop;
  const int *n = r->app->s.n;
  const size_t cells = (size_t)n[0] * n[1] * n[2];
  size_t ncomp = 0;
  for (int i = 0; i < l->nvars; i++)
    ncomp += (size_t)l->vars[i].ncomp;
  double *all = r->app->root ? malloc(cells * ncomp * sizeof(double)) : NULL;
  int ok = !r->app->root || all;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  size_t k = 0;
  for (int i = 0; ok && i < l->nvars; i++)
    for (int c = 0; ok && c < l->vars[i].ncomp; c++, k++)
      ok = tess_sim_gather(r->sim, l->vars[i].field, l->vars[i].comp + c,
                           all ? all + k * cells : NULL) == TESS_OK;
  if (ok && r->app->root)
    ok = tess_cli_write_raw(r->app->prog, r->app->s.dump, all, k * cells) == 0;
  free(all);
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok ? 0 : -1;
}

/* debug.task_log: this rank's tasks of the last tess_sim_run call to "<prefix>.<rank>", written
 * beside and renamed into place, so a file by that name is complete. */
static int write_task_log(const tess_app *app, tess_sim_t sim) {
  char path[TESS_APP_PATH + 16], tmp[TESS_APP_PATH + 24];
  snprintf(path, sizeof path, "%s.%d", app->s.task_log, tess_rank());
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "%s: cannot write the task log '%s': %s\n", app->prog, tmp, strerror(errno));
    return -1;
  }
  size_t nrec = 0;
  const tess_task_record *rec = tess_sim_task_log(sim, &nrec);
  fprintf(f, "kind,tile,dir,dirs,stage,step,t_end,t_start,worker\n");
  for (size_t i = 0; i < nrec; i++)
    fprintf(f, "%s,%d,%d,0x%07x,%d,%ld,%.9f,%.9f,%d\n", tess_task_kind_name(rec[i].kind),
            rec[i].tile, rec[i].dir, rec[i].dirs, rec[i].stage, rec[i].step, rec[i].t_end,
            rec[i].t_start, rec[i].worker);
  if (fclose(f) || rename(tmp, path)) {
    fprintf(stderr, "%s: cannot write the task log '%s': %s\n", app->prog, path, strerror(errno));
    remove(tmp);
    return -1;
  }
  return 0;
}

static int next_multiple(long step, int every, int chunk) {
  if (every <= 0) return chunk;
  const long left = every - step % every;
  return left < chunk ? (int)left : chunk;
}

/* Adds what the halo path did since c0 to *acc. */
static void count_halo(tess_sim_t sim, const tess_halo_counts *c0, tess_halo_counts *acc) {
  tess_halo_counts c;
  tess_sim_halo_counts(sim, &c);
  acc->steps += c.steps - c0->steps;
  acc->tasks += c.tasks - c0->tasks;
  acc->packs += c.packs - c0->packs;
  acc->unpacks += c.unpacks - c0->unpacks;
  acc->hosted += c.hosted - c0->hosted;
  acc->messages_sent += c.messages_sent - c0->messages_sent;
  acc->messages_received += c.messages_received - c0->messages_received;
  acc->bytes_sent += c.bytes_sent - c0->bytes_sent;
  acc->bytes_received += c.bytes_received - c0->bytes_received;
}

/* The run summary's halo line, per step of the timed chunks: this path's messages and bytes
 * between ranks and its tasks, the mean over ranks and the busiest rank (collective). */
static void print_halo(const tess_app *app, const tess_halo_counts *h, long steps) {
  const double mine[8] = {
      (double)h->messages_sent,  (double)h->bytes_sent, (double)h->messages_received,
      (double)h->bytes_received, (double)h->tasks,      (double)h->packs,
      (double)h->unpacks,        (double)h->hosted};
  double sum[8], max[8];
  int nranks;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  MPI_Reduce(mine, sum, 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, max, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  /* one rank whose tiles share memory: no halo path to report */
  if (!app->root || (nranks == 1 && max[5] + max[6] + max[7] == 0)) return;
  const double per = (double)steps * nranks;
  printf("halo messages per step and rank: sent %g (%.0f bytes), received %g (%.0f bytes); "
         "busiest of %d rank(s): sent %g (%.0f bytes); %.1f tasks per step and rank (%.1f pack, "
         "%.1f unpack, %.1f unpacked by compute tasks)\n",
         sum[0] / per, sum[1] / per, sum[2] / per, sum[3] / per, nranks, max[0] / (double)steps,
         max[1] / (double)steps, sum[4] / per, sum[5] / per, sum[6] / per, sum[7] / per);
}

int tess_app_run(tess_app *app, tess_sim_t sim, const tess_app_loop *loop) {
  const tess_app_settings *s = &app->s;
  run_state r = {.app = app, .sim = sim, .loop = loop, .dt = loop->dt};
  int err = 1;
  double *chunk_ms = NULL;
  const int bad_vars = select_vars(&r); /* the last check of the settings, then setup is over */
  if (!app->agreed) tess_app_meet(app, bad_vars ? 2 : 0);
  if (app->agreed < 0 || tess_app_save_ini(app)) return 1;
  if (!(r.config = tess_config_to_string(app->cfg))) return 1;
  if (s->restart[0] &&
      tess_app_restart(app, sim, loop, r.config, &r.dt, r.from, sizeof r.from, check_loaded,
                       &r)) { /* refused checkpoints are agreed by every rank */
    app->agreed = -1;
    goto done;
  }
  if (s->task_log[0]) tess_sim_set_task_log(sim, 1);
  const long start = tess_sim_step(sim);
  const size_t cells = (size_t)s->n[0] * s->n[1] * s->n[2];
  int nchunks = 0, cap = 0;
  long timed_steps = 0, last_ok = start;
  tess_halo_counts halo = {0}; /* over the timed chunks */
  double wall = 0;

  for (;;) {
    const long step = tess_sim_step(sim);
    const int end = step >= s->steps, first = step == start;
    const int line = s->every > 0 && (step % s->every == 0 || end);
    const int snap =
        s->snapshot_every > 0 && step % s->snapshot_every == 0 && !(first && s->restart[0]);
    const int ckpt = s->checkpoint_every > 0 && !first && (step % s->checkpoint_every == 0 || end);
    if (line || snap || ckpt || end || (s->check_every > 0 && step % s->check_every == 0)) {
      if (check_finite(&r, last_ok)) goto done;
      last_ok = step;
    }
    /* the step for the next chunk, chosen before the outputs: progress lines show the dt in
     * use (also the first one, and after a restart) and checkpoints store it */
    if (!end && loop->choose_dt && step % (loop->dt_every > 0 ? loop->dt_every : 1) == 0 &&
        loop->choose_dt(loop->ctx, sim, &r.dt))
      goto done;
    if (!end && !(r.dt > 0 && isfinite(r.dt))) { /* the same on every rank (chosen on root) */
      if (app->root)
        fprintf(stderr,
                "%s: the time step at step %ld is %g (it must be a finite number > 0; a stability "
                "limit that went to 0 means the fields are out of range)\n",
                app->prog, step, r.dt);
      app->agreed = -1;
      goto done;
    }
    if (loop->dt_in_use) *loop->dt_in_use = r.dt;
    if (line && loop->progress) {
      const double rate = wall > 0 ? (double)timed_steps / wall : 0;
      if (loop->progress(loop->ctx, sim, rate, rate > 0 ? (double)(s->steps - step) / rate : 0))
        goto done;
    }
    if (snap && write_snapshot(&r)) goto done;
    if (ckpt && write_checkpoint(&r, end ? "end of run" : "checkpoint.every")) goto done;
    if (end) break;

    int chunk = (int)(s->steps - step < CHUNK ? s->steps - step : CHUNK);
    const int stops[] = {s->every, s->snapshot_every, s->checkpoint_every, s->check_every,
                         loop->choose_dt ? loop->dt_every : 0};
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
      chunk = next_multiple(step, stops[i], chunk);
    if (step < s->warmup && s->warmup - step < chunk) chunk = (int)(s->warmup - step);
    tess_halo_counts c0;
    tess_sim_halo_counts(sim, &c0);
    const double w0 = MPI_Wtime();
    if (tess_sim_run(sim, chunk, r.dt)) goto done;
    const double w = MPI_Wtime() - w0;
    if (step >= s->warmup) {
      wall += w;
      timed_steps += chunk;
      count_halo(sim, &c0, &halo);
      if (nchunks == cap) {
        double *grown = realloc(chunk_ms, sizeof(double) * (size_t)(cap = 2 * cap + 64));
        if (!grown) {
          fprintf(stderr, "%s: out of memory for the timing of chunk %d\n", app->prog, nchunks);
          goto done;
        }
        chunk_ms = grown;
      }
      chunk_ms[nchunks++] = 1e3 * w / chunk;
    }
    const int sig = tess_signal_poll(MPI_COMM_WORLD);
    if (sig) {
      const char *name = sig == SIGUSR1   ? "SIGUSR1"
                         : sig == SIGUSR2 ? "SIGUSR2"
                         : sig == SIGINT  ? "SIGINT"
                                          : "SIGTERM";
      if (check_finite(&r, last_ok) || write_checkpoint(&r, name)) goto done;
      if (sig != SIGUSR1) {
        if (app->root)
          printf("stopped by %s at step %ld; continue with --restart latest\n", name,
                 tess_sim_step(sim));
        if (sig != SIGUSR2) app->stopped_by = sig; /* SIGUSR2: a planned stop, status 0 */
        err = 0;
        goto done;
      }
    }
  }
  if (nchunks > 0) print_halo(app, &halo, timed_steps); /* collective */
  if (app->root && nchunks > 0) {
    const double ms = 1e3 * wall / (double)timed_steps;
    qsort(chunk_ms, (size_t)nchunks, sizeof(double), cmp_double);
    const double med = chunk_ms[nchunks / 2], p90 = chunk_ms[(nchunks * 9) / 10];
    printf("time per step %.3f ms over %ld timed steps (%s mode)\n", ms, timed_steps, s->mode);
    printf("median %.3f ms per step (p90 %.3f) over %d chunks of up to %d steps after %d warm-up "
           "steps: %.3f ns per cell per step\n",
           med, p90, nchunks, CHUNK, s->warmup, 1e6 * med / (double)cells);
  }
  if (s->dump[0] && dump(&r)) goto done;
  if (s->task_log[0] && write_task_log(app, sim)) goto done;
  err = 0;
done:
  free(chunk_ms);
  free(r.config);
  return err;
}

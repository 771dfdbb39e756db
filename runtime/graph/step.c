/* step.c — executing the step program: for each stage, exchange the stale halos it reads,
 * then submit its classes; swaps only relabel storage.
 *
 * Overlapped mode submits all `nsteps` steps without waiting: StarPU's data dependencies
 * alone order the tasks, so step k+1's packs start as soon as the segments they read are
 * done. Bulk-synchronous mode is the A/B baseline: every exchange is waited for before any
 * computation, and every computation before the next exchange.
 */
#include <starpu_mpi.h>
#include <time.h>

#include "error.h"
#include "sim.h"

static tess_err run_stage(tess_sim_t sim, int index, tess_op *op, tess_chain *chain) {
  const tess_stage *st = &op->stage;
  op->in_stale = 0;
  if (!op->wrap) /* a wrapping kernel reads no halo */
    for (int k = 0; k < st->nin; k++) {
      tess_field *f = &sim->field[st->in[k]];
      op->in_valid[k] = f->halo_valid;
      if (op->in_dirs[k] & ~f->halo_valid) op->in_stale |= 1u << k;
      f->halo_valid |= op->in_dirs[k];
    }
  TESS_CALL(tess_halo_exchange(sim, index, op));
  if (sim->mode == TESS_MODE_BULK) TESS_STARPU_CALL(starpu_task_wait_for_all());
  TESS_CALL(tess_submit_compute(sim, index, op, chain));
  if (sim->mode == TESS_MODE_BULK) TESS_STARPU_CALL(starpu_task_wait_for_all());
  /* a kernel that wrote its outputs' periodic images left their halos across those axes
   * current: no copies there */
  const uint32_t valid = tess_image_dirs(op->images);
  for (int k = 0; k < st->nout; k++)
    sim->field[st->out[k]].halo_valid = valid;
  return TESS_OK;
}

static void run_swap(tess_sim_t sim, const tess_op *op) {
  tess_field *a = &sim->field[op->swap[0]], *b = &sim->field[op->swap[1]];
  const int slot = a->slot;
  const uint32_t valid = a->halo_valid;
  a->slot = b->slot;
  a->halo_valid = b->halo_valid;
  b->slot = slot;
  b->halo_valid = valid;
}

/* CPU time of the calling thread: submission competes with the workers for the cores, so its
 * wall time alone does not say what it costs. */
static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

tess_err tess_sim_run(tess_sim_t sim, int nsteps, double dt) {
  TESS_CHECK(sim->is_setup, TESS_ERR_STATE, "tess_sim_run needs tess_sim_setup first");
  TESS_CHECK(nsteps >= 0, TESS_ERR_ARG, "number of steps %d is invalid (allowed: >= 0)", nsteps);
  sim->dt = dt;
  pthread_mutex_lock(&sim->log_lock);
  sim->log_len = 0;
  pthread_mutex_unlock(&sim->log_lock);
  const long ntasks0 = sim->ntasks, nhandles0 = sim->nhandles;
  const double t_submit = tess_now(), cpu_submit = thread_cpu();
  /* A rank whose only tile is its own neighbour runs the call as a chain (tasks.c): the first
   * step is submitted alone so the device starts while the host builds the rest (measured on
   * an H100, MHD 128^3: the call's host work is ~0.3 ms per 10 steps, otherwise all idle) */
  const int lone = sim->lone && sim->mode == TESS_MODE_OVERLAP;
  tess_chain chain = {{0}, NULL, 0};
  for (int s = 0; s < nsteps; s++) {
    for (int i = 0; i < sim->nops; i++) {
      tess_op *op = sim->op[i];
      if (op->kind == TESS_OP_STAGE)
        TESS_CALL(run_stage(sim, i, op, lone ? &chain : NULL));
      else
        run_swap(sim, op);
    }
    sim->time += dt;
    sim->step++;
    if (s == 0) TESS_CALL(tess_chain_submit(sim, &chain));
    /* kept tasks (tokens.c) hold ~6 KB each: a long call lets them go now and then */
    if (sim->nkept > 65536) TESS_CALL(tess_task_quiesce(sim));
  }
  TESS_CALL(tess_chain_submit(sim, &chain));
  sim->halo.steps += nsteps;
  sim->halo.tasks = sim->ntasks;
  const double t0 = tess_now(), cpu0 = thread_cpu();
  TESS_CALL(tess_task_quiesce(sim)); /* tokens.c: waits for every task, lets the kept ones go */
  TESS_STARPU_CALL(starpu_mpi_wait_for_all(sim->comm));
  if (tess_log_enabled(TESS_LOG_INFO) && nsteps > 0) {
    int nstages = 0;
    for (int i = 0; i < sim->nops; i++)
      nstages += sim->op[i]->kind == TESS_OP_STAGE;
    const long n = sim->ntasks - ntasks0;
    /* handles a task: StarPU works out each one's implicit dependencies at submission (tokens
     * are not handles of tasks: tokens.c orders them; docs/halo-path.md) */
    tess_log(TESS_LOG_INFO,
             "run: %d steps to step %ld: %ld tasks (%.1f per tile and stage), %.1f us per task "
             "to submit (%.1f us of this thread's CPU time), %.3f s waiting for them; %.1f "
             "handles a task",
             nsteps, sim->step, n, (double)n / ((double)nsteps * nstages * sim->ntiles),
             n ? 1e6 * (t0 - t_submit) / (double)n : 0.0,
             n ? 1e6 * (cpu0 - cpu_submit) / (double)n : 0.0, tess_now() - t0,
             n ? (double)(sim->nhandles - nhandles0) / (double)n : 0.0);
  }
  return TESS_OK;
}

tess_err tess_sim_halo_counts(const tess_sim_t sim, tess_halo_counts *counts) {
  TESS_CHECK(sim && counts, TESS_ERR_ARG, "tess_sim_halo_counts needs a sim and a result");
  *counts = sim->halo;
  return TESS_OK;
}

tess_err tess_sim_set_task_log(tess_sim_t sim, int on) {
  sim->log_on = on;
  /* the tasks' start times and workers (tasks.c); for the whole process from here on */
  if (on) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  return TESS_OK;
}

const tess_task_record *tess_sim_task_log(tess_sim_t sim, size_t *count) {
  *count = sim->log_len;
  return sim->log;
}

tess_err tess_sim_debug_delay(tess_sim_t sim, int tile, int dir, double seconds) {
  TESS_CHECK(!sim->is_setup, TESS_ERR_STATE, "tess_sim_debug_delay must be called before setup");
  TESS_CHECK(dir >= 0 && dir < TESS_NDIRS && dir != TESS_DIR_CENTER, TESS_ERR_ARG,
             "delay direction %d is invalid (allowed: 0..26 except 13)", dir);
  TESS_CHECK(seconds >= 0, TESS_ERR_ARG, "delay %g s is invalid (allowed: >= 0)", seconds);
  sim->delay = (tess_delay){tile, dir, seconds, seconds > 0};
  return TESS_OK;
}

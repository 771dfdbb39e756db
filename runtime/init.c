/* init.c — process-wide start and stop: MPI (multi-threaded: StarPU-MPI progresses requests
 * on its own thread while the application calls collectives), then StarPU with the workers the
 * chosen device needs, then StarPU-MPI on MPI_COMM_WORLD. */
#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "sim.h"
#include "tessera.h"

static int my_rank = -1, my_size = 0, started_mpi = 0;
static char trace_dir[1024];

int tess_rank(void) { return my_rank; }
int tess_nranks(void) { return my_size; }

/* Distinct GPUs behind this rank's CUDA workers, in worker order (STARPU_NWORKER_PER_CUDA may
 * give several workers per GPU). */
int tess_cuda_devids(int devs[STARPU_NMAXWORKERS]) {
  int ids[STARPU_NMAXWORKERS], ndev = 0;
  if (my_rank < 0) return 0;
  const int n = (int)starpu_worker_get_ids_by_type(STARPU_CUDA_WORKER, ids, STARPU_NMAXWORKERS);
  for (int i = 0; i < n; i++) {
    int d = starpu_worker_get_devid(ids[i]), seen = 0;
    for (int j = 0; j < ndev; j++)
      seen |= devs[j] == d;
    if (!seen) devs[ndev++] = d;
  }
  return ndev;
}

int tess_ncuda_devices(void) {
  int devs[STARPU_NMAXWORKERS];
  return tess_cuda_devids(devs);
}

/* Ranks sharing a node would each bind their StarPU workers to the same first cores and
 * fight over them (seen on 2 H200s: 134 ms instead of ~2 ms per step). Until hwloc placement
 * (topology/) does better, give each node-local rank a disjoint contiguous range of cores:
 * its workers on all but the last, the StarPU-MPI thread on the last. Settings the user made
 * (STARPU_WORKERS_CPUID, STARPU_WORKERS_NOBIND, STARPU_NCPU) win. */
static void split_cores(const tess_init_opts *opts) {
  MPI_Comm local;
  int lrank, lsize;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_size(local, &lsize);
  MPI_Comm_free(&local);
  if (lsize <= 1 || getenv("STARPU_WORKERS_CPUID") || getenv("STARPU_WORKERS_NOBIND")) return;
  const long per = sysconf(_SC_NPROCESSORS_ONLN) / lsize;
  if (per < 3) { /* too few cores to split: let the OS schedule */
    setenv("STARPU_WORKERS_NOBIND", "1", 0);
    setenv("STARPU_MPI_NOBIND", "1", 0);
    if (!getenv("STARPU_NCPU") && opts->ncpu <= 0) setenv("STARPU_NCPU", "1", 0);
    return;
  }
  const long first = lrank * per, last = first + per - 1;
  char buf[64];
  snprintf(buf, sizeof buf, "%ld-%ld", first, last - 1);
  setenv("STARPU_WORKERS_CPUID", buf, 0);
  snprintf(buf, sizeof buf, "%ld", last);
  setenv("STARPU_MPI_THREAD_CPUID", buf, 0);
  /* CUDA driver threads take cores from the same range: one per GPU, one GPU per rank assumed */
  const long ncpu = per - 1 - (opts->device == TESS_DEVICE_CPU ? 0 : 1);
  snprintf(buf, sizeof buf, "%ld", ncpu > 0 ? ncpu : 1);
  if (opts->ncpu <= 0) setenv("STARPU_NCPU", buf, 0);
  tess_log(TESS_LOG_INFO, "node-local rank %d of %d: cores %ld-%ld", lrank, lsize, first, last);
}

/* Every rank writes DIR/prof_file_<user>_<rank>; rank 0 creates DIR first. */
static tess_err setup_trace(const char *dir) {
  trace_dir[0] = 0;
  if (!dir || !*dir) return TESS_OK;
  TESS_CHECK(strlen(dir) < sizeof trace_dir - 2 && !strchr(dir, '\''), TESS_ERR_ARG,
             "trace directory '%s' is invalid (at most %zu characters, no single quote)", dir,
             sizeof trace_dir - 2);
  int ok = 1;
  if (my_rank == 0) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && test -w '%s'", dir, dir);
    ok = system(cmd) == 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  TESS_CHECK(ok, TESS_ERR_IO, "cannot create a writable trace directory '%s'", dir);
  snprintf(trace_dir, sizeof trace_dir, "%s", dir);
  char prefix[1100];
  snprintf(prefix, sizeof prefix, "%s/", dir);
  setenv("STARPU_FXT_TRACE", "1", 1);
  setenv("STARPU_FXT_PREFIX", prefix, 1);
  return TESS_OK;
}

/* Rank 0, after MPI_Finalize: starpu_fxt_tool writes its outputs into the current directory. */
static void merge_trace(void) {
  char cmd[4096];
  snprintf(
      cmd, sizeof cmd,
      "cd '%s' && tool=$(command -v starpu_fxt_tool || echo '%s/starpu_fxt_tool') && "
      "\"$tool\" -c $(for f in prof_file_*; do printf ' -i %%s' \"$f\"; done) > fxt_tool.log 2>&1",
      trace_dir, TESS_STARPU_BINDIR);
  if (system(cmd) == 0)
    fprintf(stderr, "tessera: trace in %s/: paje.trace (ViTE), dag.dot, tasks.rec\n", trace_dir);
  else
    fprintf(stderr,
            "tessera: error: starpu_fxt_tool failed on %s/prof_file_* (see %s/fxt_tool.log)\n",
            trace_dir, trace_dir);
}

tess_err tess_init(int *argc, char ***argv, const tess_init_opts *opts) {
  const tess_init_opts defaults = TESS_INIT_OPTS_DEFAULT;
  if (!opts) opts = &defaults;
  int inited = 0, provided = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    TESS_MPI_CALL(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
    started_mpi = 1;
  } else {
    MPI_Query_thread(&provided);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &my_size);
  TESS_CHECK(
      provided >= MPI_THREAD_SERIALIZED, TESS_ERR_MPI,
      "the MPI library provides thread level %d; StarPU-MPI needs at least MPI_THREAD_SERIALIZED",
      provided);

  /* StarPU built with FxT records a trace unless told not to; tracing is opt-in here. StarPU's
   * own warnings (uncalibrated models, FxT) are noise for users unless they debug. */
  TESS_CALL(setup_trace(opts->trace_dir ? opts->trace_dir : getenv("TESS_TRACE")));
  setenv("STARPU_FXT_TRACE", "0", 0);
  /* dmdas (data-aware, priority-sorted, model-based) respects the pack > outer > inner
   * priorities and the per-tile worker masks; StarPU's default (lws) bounces masked tasks
   * between workers: 8.2 ms vs 2.2 ms per 256^3 heat step on an H100. */
  setenv("STARPU_SCHED", "dmdas", 0);
  if (!tess_log_enabled(TESS_LOG_DEBUG)) setenv("STARPU_SILENT", "1", 0);

  split_cores(opts);

  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (opts->ncpu > 0) conf.ncpus = opts->ncpu;
  conf.ncuda = opts->device == TESS_DEVICE_CPU ? 0 : opts->ncuda;
  conf.nopencl = 0;
  const int r = starpu_mpi_init_conf(argc, argv, 0, MPI_COMM_WORLD, &conf);
  TESS_CHECK(r == 0, TESS_ERR_STARPU, "StarPU failed to start (starpu_mpi_init_conf returned %d)",
             r);
  /* TESS_PROFILE=1: StarPU's per-worker and bus summaries at finalize (where time goes). */
  if (getenv("TESS_PROFILE")) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  tess_log(TESS_LOG_INFO, "StarPU started: %u CPU and %u CUDA workers",
           starpu_cpu_worker_get_count(), starpu_cuda_worker_get_count());
  return TESS_OK;
}

tess_err tess_finalize(void) {
  if (getenv("TESS_PROFILE") && my_rank == 0) {
    starpu_profiling_worker_helper_display_summary();
    starpu_profiling_bus_helper_display_summary();
  }
  starpu_mpi_shutdown(); /* writes each rank's FxT file */
  const int rank = my_rank;
  if (started_mpi) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
  }
  my_rank = -1;
  if (trace_dir[0] && rank == 0) merge_trace();
  return TESS_OK;
}

void tess_abort(int code) {
  fflush(stdout);
  fflush(stderr);
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  exit(code);
}

/* init.c — process-wide start and stop: MPI (multi-threaded: StarPU-MPI progresses requests
 * on its own thread while the application calls collectives), then StarPU with the workers the
 * chosen device needs, then StarPU-MPI on MPI_COMM_WORLD. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#ifdef TESS_SIMGRID
#include "pack.h" /* tess_simgrid_setup */
#endif
#include "sim.h"
#include "topology.h"
#include "tessera.h"

static int my_rank = -1, my_size = 0, started_mpi = 0, started_starpu = 0, profile = 0;
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

/* CUDA workers per GPU, before placement, which sizes the core sets by them (a core per CUDA
 * worker). A GPU's tasks are many small launches, and StarPU 1.3 runs a task's whole life on the
 * thread that drives its worker: popping, launching, noticing the end, releasing the data,
 * pushing the successors. With StarPU's default, one thread for all of a GPU's workers, that
 * thread was the limit (MHD 32^3 in 8 buffered tiles on an H100: 30 us a task); four workers a
 * GPU, each its own thread and stream with 32 tasks in flight, ran that case 9.43 -> 5.34 ms a
 * step, 128^3 9.54 -> 5.63, 256^3 15.63 -> 12.86 (docs/halo-path.md). Eight where the rank has
 * the cores and its GPUs to itself (tess_topo_cuda_workers_per_gpu): 8 buffered tiles 5.0-5.2 ->
 * 3.6-3.8 ms at 128^3 and 13.1-13.3 -> 12.2-12.4 at 256^3, one tile unchanged, 8 overlapped
 * tiles 1.23-1.25 -> 1.26-1.29; two ranks sharing one GPU with eight workers each crowded 16
 * cores and ran 7-46x slower (H100 hosts of 16 cores, 2026-12-07-h100-cuda-workers.csv). A user's
 * STARPU_NWORKER_PER_CUDA, or STARPU_CUDA_THREAD_PER_DEV (StarPU's per-device threads; it refuses
 * both set), wins. In the SimGrid build StarPU runs one worker a GPU whatever is asked (its
 * blocking drivers reduce STARPU_NWORKER_PER_CUDA to 1; docs/simulation.md). */
static void choose_cuda_workers(const tess_init_opts *opts, int nlocal, tess_topo_t topo) {
  if (opts->device == TESS_DEVICE_CPU) return;
#ifdef TESS_SIMGRID
  (void)nlocal, (void)topo; /* one worker a simulated GPU: what StarPU's blocking drivers allow */
  setenv("STARPU_NWORKER_PER_CUDA", "1", 0);
#else
  int per_gpu = 4; /* no topology: the setting that fits any node */
  if (topo) {
    const char *env = getenv("STARPU_NCUDA");
    const int limit = opts->ncuda > 0 ? opts->ncuda : env && atoi(env) > 0 ? atoi(env) : 0;
    per_gpu = tess_topo_cuda_workers_per_gpu(tess_topo_ncores(topo), tess_topo_ngpus(topo), nlocal,
                                             limit);
  }
  char buf[8];
  snprintf(buf, sizeof buf, "%d", per_gpu);
  setenv("STARPU_NWORKER_PER_CUDA", buf, 0);
  if (!getenv("STARPU_CUDA_THREAD_PER_DEV")) setenv("STARPU_CUDA_THREAD_PER_WORKER", "1", 0);
#endif
  setenv("STARPU_CUDA_PIPELINE", "32", 0);
}

/* Placement of this rank on its node (topology/, hwloc), exported as StarPU and UCX variables
 * before MPI and StarPU start: one rank per GPU on GPU nodes, NUMA domains or equal blocks of
 * cores on CPU nodes; settings the user made win. opts->topo = gpu|numa|node|cores forces a
 * mode (an error when the ranks do not fit it), off leaves StarPU's defaults. A single
 * rank per node keeps StarPU's defaults (all GPUs, all cores). When the node has fewer cores than
 * ranks (CI: several ranks on 2 cores), ranks run unbound with one worker each: two ranks bound to
 * the same cores were 60x slower on 2 H200s (134 vs 2 ms per step).
 * A CPU rank binds a worker to each of its cores but those of the MPI and main threads
 * (tess_topo_fit_cpu_workers; STARPU_NCPU or opts->ncpu asks for more). When its MPI thread has
 * no core of its own (one or two cores per rank, or workers asked for every core), halos between
 * CPU tiles go by Tessera's own MPI requests (direct.c, whose progress thread naps when idle)
 * unless mpi_direct says otherwise: StarPU-MPI 1.3's progress thread polls without pause while a
 * receive is posted, which is always, and took a worker's core (2 ranks on 2 cores, heat order
 * 6 96^3: 115-130 ms a step against 21-26 ms; docs/halo-path.md). StarPU 1.3.10's other way, its
 * MPI thread running a worker (STARPU_MPI_DRIVER_CALL_FREQUENCY), hangs our runs: that thread
 * runs the worker only while it polls, and with no request pending it sleeps, its tasks with it.
 * `note` receives one line saying what was decided, for the start-up print. */
static tess_err place_rank(const tess_init_opts *opts, int lrank, int nlocal, char *note,
                           size_t size) {
  const char *want = opts->topo && strcmp(opts->topo, "auto") ? opts->topo : NULL;
  const int by_hand = getenv("STARPU_WORKERS_CPUID") || getenv("STARPU_WORKERS_COREID") ||
                      getenv("STARPU_WORKERS_NOBIND") || getenv("STARPU_MPI_NOBIND");
  const int direct_auto = !opts->mpi_direct || !strcmp(opts->mpi_direct, "auto");
  const int placing = want ? strcmp(want, "off") != 0 : nlocal > 1;
  int use_cuda = opts->device != TESS_DEVICE_CPU;
  tess_topo_mode mode;
  if (placing && want) TESS_CALL(tess_topo_mode_parse(want, &mode));
  /* one read of the node for the CUDA workers and the placement */
  tess_topo_t topo = NULL;
  tess_err e = placing || use_cuda ? tess_topo_load(NULL, &topo) : TESS_OK;
  choose_cuda_workers(opts, nlocal, e ? NULL : topo);
  snprintf(note, size, "%s",
           want ? "StarPU's defaults (topo off)" : "one rank on this node, StarPU's defaults");
  if (!placing) {
    tess_topo_destroy(&topo);
    return TESS_OK;
  }
  tess_topo_share share;
  if (!e && tess_topo_ngpus(topo) == 0) use_cuda = 0; /* device auto on a node without GPUs */
  /* More ranks than cores (CI), or than GPUs (ranks sharing a GPU, as the GPU checks do):
   * nothing to assign, run unbound below without an error message. */
  const int crowded = !e && !want &&
                      (nlocal > tess_topo_ncores(topo) ||
                       (use_cuda && tess_topo_ngpus(topo) > 0 && nlocal > tess_topo_ngpus(topo)));
  if (!e && !crowded) {
    if (!want) mode = tess_topo_default_mode(topo, nlocal, use_cuda);
    e = tess_topo_assign(topo, mode, lrank, nlocal, NULL, 0, &share);
  }
  if (!e && !crowded && !use_cuda) {
    const char *env = getenv("STARPU_NCPU");
    tess_topo_fit_cpu_workers(&share, opts->ncpu > 0 ? opts->ncpu : env ? atoi(env) : 0);
  }
  const int roomy = !e && !crowded && (!use_cuda || share.ncores >= share.ngpu + 2);
  int shared = 0;
  if (!e && (roomy || want)) {
    char buf[16];
    if (opts->ncpu > 0) {
      snprintf(buf, sizeof buf, "%d", opts->ncpu);
      setenv("STARPU_NCPU", buf, 0);
    }
    tess_topo_export_env(&share, use_cuda);
    if (tess_log_enabled(TESS_LOG_INFO)) tess_topo_print(stderr, topo, &share, 1, 0);
    shared = share.mpi_shared;
    snprintf(note, size,
             "%d ranks on this node (mode %s), local rank %d: %d %s worker(s) on cores L#%d-L#%d, "
             "MPI thread on L#%d%s, main thread on L#%d",
             nlocal, tess_topo_mode_name(mode), lrank, share.ncores, use_cuda ? "GPU/CPU" : "CPU",
             share.cores[0], share.cores[share.ncores - 1], share.mpi_core,
             shared ? " (shared with a worker)" : "", share.main_core);
  } else if (!want) {
    setenv("STARPU_WORKERS_NOBIND", "1", 0);
    setenv("STARPU_MPI_NOBIND", "1", 0);
    if (opts->ncpu <= 0) setenv("STARPU_NCPU", "1", 0);
    shared = 1;
    snprintf(note, size, "%d ranks on this node of %d cores: unbound, one worker per rank", nlocal,
             e ? 0 : tess_topo_ncores(topo));
    e = TESS_OK;
  }
  if (by_hand)
    snprintf(note, size, "set by the user (STARPU_WORKERS_CPUID/COREID/NOBIND, STARPU_MPI_NOBIND)");
  else if (shared && !use_cuda && direct_auto) {
    tess_direct_cpu_auto(1);
    const size_t len = strlen(note);
    snprintf(note + len, size - len,
             "; the MPI thread has no core of its own, so halos between CPU tiles go by Tessera's "
             "MPI requests (mpi_direct auto)");
  }
  tess_topo_destroy(&topo);
  return e;
}

/* `dir` and its missing parents, as mkdir -p does, with the C library: a name is only a name
 * (a leading '-' or a quote reaches no shell). 0, or the errno of the first failure. */
static int make_dirs(const char *dir) {
  char p[sizeof trace_dir];
  snprintf(p, sizeof p, "%s", dir);
  for (char *c = p + 1;; c++) {
    if (*c != '/' && *c) continue;
    const char keep = *c;
    *c = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) return errno;
    *c = keep;
    if (!keep) break;
  }
  struct stat st;
  if (stat(p, &st) != 0) return errno;
  if (!S_ISDIR(st.st_mode)) return ENOTDIR;
  /* access() says yes to root on a read-only mount: a probe file answers for everyone */
  char probe[sizeof trace_dir + 32];
  snprintf(probe, sizeof probe, "%s/.tessera-write-test", p);
  const int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) return errno;
  close(fd);
  unlink(probe);
  return 0;
}

/* Every rank writes DIR/prof_file_<user>_<rank>; rank 0 creates DIR first. Collective (one
 * broadcast), before StarPU starts: a refusal here ends every rank alike. */
static tess_err setup_trace(const char *dir) {
  trace_dir[0] = 0;
  if (!dir || !*dir) return TESS_OK;
  TESS_CHECK(strlen(dir) < sizeof trace_dir - 2, TESS_ERR_ARG,
             "trace directory '%.64s...' is too long (at most %zu characters)", dir,
             sizeof trace_dir - 2);
  int err = 0;
  if (my_rank == 0) err = make_dirs(dir);
  MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
  TESS_CHECK(!err, TESS_ERR_IO, "cannot create a writable trace directory '%s': %s", dir,
             strerror(err));
  snprintf(trace_dir, sizeof trace_dir, "%s", dir);
  char prefix[1100];
  snprintf(prefix, sizeof prefix, "%s/", dir);
  setenv("STARPU_FXT_TRACE", "1", 1);
  setenv("STARPU_FXT_PREFIX", prefix, 1);
  return TESS_OK;
}

#define TRACE_SLACK (256 * 1024) /* less free space than this after a trace: it hit a full disk */

/* Bytes free for unprivileged writes on the filesystem of `dir`, or -1. */
static long long free_bytes(const char *dir) {
  struct statvfs v;
  if (statvfs(dir, &v) != 0) return -1;
  return (long long)v.f_bavail * (long long)v.f_frsize;
}

/* The per-rank FxT files of the trace directory as "-i name" arguments; their count, or -1 after
 * a message (an empty one: the rank's trace was never written). */
static int trace_inputs(char **args, int cap, char names[][256]) {
  DIR *d = opendir(trace_dir);
  if (!d) {
    fprintf(stderr, "tessera: error: cannot read the trace directory '%s': %s\n", trace_dir,
            strerror(errno));
    return -1;
  }
  int n = 0, bad = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, "prof_file_", 10) || n * 2 + 2 >= cap) continue;
    char p[sizeof trace_dir + 300];
    snprintf(p, sizeof p, "%s/%s", trace_dir, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0 || st.st_size == 0) {
      fprintf(stderr, "tessera: error: the rank trace '%s' is empty (not written)\n", p);
      bad = 1;
    }
    snprintf(names[n], 256, "%s", e->d_name);
    args[2 * n] = "-i";
    args[2 * n + 1] = names[n];
    n++;
  }
  closedir(d);
  if (!n && !bad) fprintf(stderr, "tessera: error: no rank trace in '%s'\n", trace_dir);
  return bad || !n ? -1 : n;
}

/* starpu_fxt_tool -c -i prof_file_... run in the trace directory (it writes there), stdout and
 * stderr into fxt_tool.log; its exit status, or -1. fork/exec, no shell: names stay names. */
static int run_fxt_tool(char **args) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (chdir(trace_dir) != 0) _exit(126);
    const int fd = open("fxt_tool.log", O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    execvp("starpu_fxt_tool", args);
    char tool[1024];
    snprintf(tool, sizeof tool, "%s/starpu_fxt_tool", TESS_STARPU_BINDIR);
    execv(tool, args);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Rank 0, after MPI_Finalize: starpu_fxt_tool merges the ranks' files. Neither FxT nor the tool
 * reports a full disk in its exit status (FxT prints "write buffer: No space left on device" and
 * goes on; the tool leaves cut-short files), so the outputs are checked: each present and not
 * empty, and room left on the filesystem. A trace that fails a check is removed (its raw
 * prof_file_* stay) and the run fails: no half-trace that looks complete. TESS_OK or
 * TESS_ERR_IO after a message. */
static tess_err merge_trace(void) {
  static const char *const outputs[] = {"paje.trace",    "dag.dot",  "tasks.rec",    "trace.rec",
                                        "activity.data", "data.rec", "distrib.data", "trace.html"};
  char *args[2 * 256 + 3] = {"starpu_fxt_tool", "-c"};
  static char names[256][256];
  const int n = trace_inputs(args + 2, 2 * 256, names);
  const char *why = NULL;
  char whybuf[1400];
  if (n < 0) why = "a rank's trace is missing or empty";
  const int rc = n < 0 ? -1 : run_fxt_tool(args);
  if (!why && rc != 0) {
    snprintf(whybuf, sizeof whybuf, "starpu_fxt_tool exited with status %d (see %s/fxt_tool.log)",
             rc, trace_dir);
    why = whybuf;
  }
  for (size_t i = 0; !why && i < 3; i++) { /* the three a user opens; the rest may be empty */
    char p[sizeof trace_dir + 32];
    snprintf(p, sizeof p, "%s/%s", trace_dir, outputs[i]);
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
      snprintf(whybuf, sizeof whybuf, "'%s' was not written%s%s", p, errno ? ": " : "",
               errno ? strerror(errno) : "");
      why = whybuf;
    }
  }
  const long long left = free_bytes(trace_dir);
  if (!why && left >= 0 && left < TRACE_SLACK) {
    snprintf(whybuf, sizeof whybuf,
             "%s (%lld bytes left on its filesystem: the trace files are likely cut short)",
             strerror(ENOSPC), left);
    why = whybuf;
  }
  if (!why) {
    fprintf(stderr, "tessera: trace in %s/: paje.trace (ViTE), dag.dot, tasks.rec\n", trace_dir);
    return TESS_OK;
  }
  for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) {
    char p[sizeof trace_dir + 32];
    snprintf(p, sizeof p, "%s/%s", trace_dir, outputs[i]);
    unlink(p);
  }
  fprintf(stderr,
          "tessera: error: the trace in '%s' is incomplete: %s; its merged files were removed\n",
          trace_dir, why);
  return TESS_ERR_IO;
}

/* The kernels' CPU sweeps may use what -march=TESS_KERNEL_ARCH allowed (TESS_KERNEL_ISA, found by
 * CMake); a CPU without one of those features would die on an illegal instruction in the first
 * sweep. TESS_TEST_CPU_LACKS=<feature> pretends one is missing (the test of this refusal). */
static tess_err check_cpu_isa(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  /* the features CMakeLists.txt looks for (__builtin_cpu_supports takes literals only) */
#define HAS(f)                                                                                     \
  { f, __builtin_cpu_supports(f) }
  const struct {
    const char *name;
    int has;
  } cpu[] = {HAS("sse3"),    HAS("ssse3"),    HAS("sse4.1"),   HAS("sse4.2"),  HAS("popcnt"),
             HAS("avx"),     HAS("avx2"),     HAS("fma"),      HAS("bmi"),     HAS("bmi2"),
             HAS("avx512f"), HAS("avx512dq"), HAS("avx512bw"), HAS("avx512vl")};
#undef HAS
  const char *lacks = getenv("TESS_TEST_CPU_LACKS");
  char isa[] = TESS_KERNEL_ISA, missing[256] = "";
  for (char *f = strtok(isa, " "); f; f = strtok(NULL, " "))
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++)
      if (!strcmp(f, cpu[i].name) && (!cpu[i].has || (lacks && !strcmp(lacks, f)))) {
        strncat(missing, " ", sizeof missing - strlen(missing) - 1);
        strncat(missing, f, sizeof missing - strlen(missing) - 1);
      }
  TESS_CHECK(!*missing, TESS_ERR_ARG,
             "this CPU lacks%s, which Tessera's kernels were built to use (TESS_CPU_ARCH=%s on "
             "the build machine): rebuild here, or for a level every node has "
             "(TESS_CPU_ARCH=x86-64-v3 scripts/build.sh, or TESS_CPU_ARCH= for the compiler's "
             "default; docs/kernels.md)",
             missing, TESS_KERNEL_ARCH);
#endif
  return TESS_OK;
}

tess_err tess_init(int *argc, char ***argv, const tess_init_opts *opts) {
  const tess_init_opts defaults = TESS_INIT_OPTS_DEFAULT;
  if (!opts) opts = &defaults;
  TESS_CALL(check_cpu_isa());
  TESS_CALL(tess_log_set(opts->log));
  TESS_CALL(tess_direct_choose(opts->mpi_direct));
  profile = opts->profile;
  int inited = 0, provided = 0;
  tess_task_heap_policy(); /* StarPU's per-task allocations keep their pages (tasks.c) */
  MPI_Initialized(&inited);
  /* Before MPI_Init when the launcher tells the node-local rank: UCX reads UCX_NET_DEVICES
   * there. */
  int lrank, nlocal, placed = 0;
  char note[512];
  if (!inited && tess_topo_local_rank_env(&lrank, &nlocal)) {
    TESS_CALL(place_rank(opts, lrank, nlocal, note, sizeof note));
    placed = 1;
  }
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
  TESS_CALL(setup_trace(opts->trace_dir));
  setenv("STARPU_FXT_TRACE", "0", 0);
  if (!tess_log_enabled(TESS_LOG_DEBUG)) setenv("STARPU_SILENT", "1", 0);

  /* The authoritative node-local rank; warns when a node's ranks are not contiguous. */
  TESS_CALL(tess_topo_local_rank(MPI_COMM_WORLD, &lrank, &nlocal));
  if (!placed) TESS_CALL(place_rank(opts, lrank, nlocal, note, sizeof note));

  struct starpu_conf conf;
  starpu_conf_init(&conf);
  if (opts->ncpu > 0) conf.ncpus = opts->ncpu;
#if defined(TESS_HAVE_CUDA) || defined(TESS_SIMGRID) /* SimGrid: simulated GPUs */
  conf.ncuda = opts->device == TESS_DEVICE_CPU ? 0 : opts->ncuda;
#else /* built without CUDA kernels (TESS_ENABLE_CUDA=OFF): no GPU worker, whatever StarPU has */
  TESS_CHECK(opts->device != TESS_DEVICE_CUDA, TESS_ERR_ARG,
             "device 'cuda' was requested, but Tessera was built without CUDA kernels "
             "(TESS_ENABLE_CUDA=OFF or no nvcc): use device 'cpu' or 'auto'");
  conf.ncuda = 0;
#endif
  conf.nopencl = 0;
  /* With GPUs (simulated ones too), dmdas (data-aware, priority-sorted, model-based) respects
   * the pack > outer > inner priorities and the per-tile worker masks; lws bounces masked tasks
   * between workers: 8.2 ms vs 2.2 ms per 256^3 heat step on an H100. A rank of CPU workers
   * alone has no masks, and there lws's local queues beat dmdas's model upkeep (heat 128^3 on 16
   * cores 0.69 against 1.10 ms a step, docs/halo-path.md). dmdas measures a task kind until its
   * model is calibrated; lws asks no model, so StarPU would keep no history, which the
   * program's cost model reads (program.c): there every task is measured (STARPU_CALIBRATE
   * overrides). */
  const int cpu_only = conf.ncuda == 0;
  setenv("STARPU_SCHED", cpu_only ? "lws" : "dmdas", 0);
  if (cpu_only) conf.calibrate = 1;
#ifdef TESS_SIMGRID
  tess_simgrid_setup();
#endif
  const int r = starpu_mpi_init_conf(argc, argv, 0, MPI_COMM_WORLD, &conf);
  TESS_CHECK(r == 0, TESS_ERR_STARPU, "StarPU failed to start (starpu_mpi_init_conf returned %d)",
             r);
  started_starpu = 1;
  /* opts->profile: StarPU's per-worker and bus summaries at finalize (where time goes). */
  if (profile) starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
  int devs[STARPU_NMAXWORKERS];
  const int ndev = tess_cuda_devids(devs);
  char list[128] = "";
  for (int i = 0; i < ndev && strlen(list) < sizeof list - 8; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? "," : "", devs[i]);
  tess_log(TESS_LOG_INFO, "StarPU started: %u CPU and %u CUDA workers (CUDA devices: %s)",
           starpu_cpu_worker_get_count(), starpu_cuda_worker_get_count(), ndev ? list : "none");
  /* The placement decision, once per run (rank 0's; the others' differ only in their cores). */
  if (my_rank == 0)
    printf("placement: %s; %u CPU and %u CUDA worker(s) per rank, scheduler %s\n", note,
           starpu_cpu_worker_get_count(), starpu_cuda_worker_get_count(), getenv("STARPU_SCHED"));
  return TESS_OK;
}

/* Only what this process started is stopped: an error before StarPU-MPI started (a refused
 * trace directory) must not wait in starpu_mpi_shutdown, whose barrier needs a StarPU-MPI that
 * is not there. */
tess_err tess_finalize(void) {
  if (profile && my_rank == 0 && started_starpu) {
    starpu_profiling_worker_helper_display_summary();
    starpu_profiling_bus_helper_display_summary();
  }
  const int traced = started_starpu && trace_dir[0];
  if (started_starpu) {
    tess_direct_shutdown(); /* no halo message is in flight once every sim is destroyed */
    starpu_mpi_shutdown();  /* writes each rank's FxT file */
    tess_comm_pool_free();  /* the simulations' communicators StarPU-MPI knew (comms.c) */
    tess_task_models_free();
    started_starpu = 0;
  }
  const int rank = my_rank;
  if (started_mpi) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
  }
  my_rank = -1;
  tess_err e = TESS_OK;
  if (traced && rank == 0) e = merge_trace();
  trace_dir[0] = 0;
  return e;
}

void tess_abort(int code) {
  fflush(stdout);
  fflush(stderr);
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) {
    /* Argument errors are printed by rank 0 only (every rank finds the same one); a faster
     * rank's MPI_Abort must not kill rank 0 before its message is out. Half a second, then
     * the whole job ends either way. */
    if (my_rank > 0) {
      const struct timespec half = {0, 500000000L};
      nanosleep(&half, NULL);
    }
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  exit(code);
}

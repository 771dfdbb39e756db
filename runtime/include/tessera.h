/* tessera.h — the public API of Tessera, a StarPU task-graph runtime for overlapped stencils.
 *
 * An app says *what*: a global grid, fields (each a group of `ncomp` scalar components), and a
 * step program: an ordered list of stages (a kernel + its stencil footprint + the fields it reads
 * through the footprint and the fields it writes at the cell) and buffer swaps. The runtime says
 * *how*: it decomposes the grid over MPI ranks (process grid minimising halo volume, Morton
 * placement) and each rank's block into tiles, splits every tile into an inner segment, 26 outer
 * segments and 26 halo segments, derives from the footprints which halo segments each outer
 * segment needs, and submits per tile and stage
 *
 *     pack(d) -> exchange(d) -> unpack(d) -> outer(d')      and     inner
 *
 * as StarPU tasks whose data dependencies let every outer segment start as soon as its own
 * halos have arrived. No barrier or wait-all sits inside the time loop (except in the
 * bulk-synchronous baseline mode).
 *
 * Life cycle (PETSc style): tess_init -> tess_sim_create -> set/add -> tess_sim_setup ->
 * tess_sim_fill / tess_sim_run / tess_sim_gather ... -> tess_sim_destroy -> tess_finalize.
 * Every function returns a tess_err; 0 is success. Functions marked "collective" must be called
 * by every rank of the communicator in the same order.
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <mpi.h>
#include <stddef.h>

#include "tessera_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ------------------------------------------------------------------------------ */
#define TESS_ERR_LIST(X)                                                                           \
  X(TESS_OK, "ok")                                                                                 \
  X(TESS_ERR_ARG, "invalid argument")                                                              \
  X(TESS_ERR_STATE, "call out of order")                                                           \
  X(TESS_ERR_MEM, "out of memory")                                                                 \
  X(TESS_ERR_STARPU, "StarPU error")                                                               \
  X(TESS_ERR_MPI, "MPI error")                                                                     \
  X(TESS_ERR_CUDA, "CUDA error")                                                                   \
  X(TESS_ERR_IO, "I/O error")
#define TESS_X_ENUM(name, text) name,
typedef enum { TESS_ERR_LIST(TESS_X_ENUM) TESS_ERR_COUNT } tess_err;
const char *tess_err_name(tess_err e);
/* The code of the last error raised on this process (TESS_OK when none was). */
tess_err tess_last_error(void);

/* ---- finite sets, each with its printable names (X-macro lists) ----------------------------- */
#define TESS_MODE_LIST(X)                                                                          \
  X(TESS_MODE_OVERLAP, "overlap")   /* per-segment dataflow (the default) */                       \
  X(TESS_MODE_BULK, "bulk")         /* pack all, exchange all, wait, unpack all, compute all */    \
  X(TESS_MODE_BUFFERED, "buffered") /* dataflow, every neighbour through a buffer: A/B, tests */
typedef enum { TESS_MODE_LIST(TESS_X_ENUM) TESS_MODE_COUNT } tess_mode;

#define TESS_DEVICE_LIST(X)                                                                        \
  X(TESS_DEVICE_CPU, "cpu")                                                                        \
  X(TESS_DEVICE_CUDA, "cuda")                                                                      \
  X(TESS_DEVICE_AUTO, "auto") /* CUDA when StarPU found a GPU, else CPU */
typedef enum { TESS_DEVICE_LIST(TESS_X_ENUM) TESS_DEVICE_COUNT } tess_device;

/* How a program with temporaries (tess_sim_add_temporary) gets their halos (docs/multistage.md):
 * exchange them like any field, or compute each producing stage on its owned box grown by the
 * extent its consumers read (derived backwards from their footprints), so that only the
 * program's first inputs are exchanged, once per step, with the summed width. */
#define TESS_STRATEGY_LIST(X)                                                                      \
  X(TESS_STRATEGY_AUTO, "auto") /* a cost model picks one at setup and says why (the default) */   \
  X(TESS_STRATEGY_EXCHANGE, "exchange")                                                            \
  X(TESS_STRATEGY_RECOMPUTE, "recompute")
typedef enum { TESS_STRATEGY_LIST(TESS_X_ENUM) TESS_STRATEGY_COUNT } tess_strategy;

const char *tess_mode_name(tess_mode m);
const char *tess_strategy_name(tess_strategy s);
tess_err tess_strategy_parse(const char *s, tess_strategy *out);
const char *tess_device_name(tess_device d);
/* Parse a name into an enum value; TESS_ERR_ARG with a message listing the allowed names. */
tess_err tess_mode_parse(const char *s, tess_mode *m);
tess_err tess_device_parse(const char *s, tess_device *d);
const char *tess_precision_name(tess_precision p); /* "double", "single" */
tess_err tess_precision_parse(const char *s, tess_precision *p);

/* ---- process-wide start and stop ------------------------------------------------------------ */
typedef struct {
  tess_device device;    /* which workers StarPU starts: CPU only, or CUDA (+ CPU) */
  int ncpu;              /* CPU workers per rank; 0: StarPU's default (or STARPU_NCPU) */
  int ncuda;             /* CUDA devices per rank; -1: all StarPU finds (or STARPU_NCUDA) */
  const char *trace_dir; /* record an FxT trace on every rank and merge it there at
                            tess_finalize (paje.trace for ViTE, dag.dot, tasks.rec); NULL: off */
  /* The runtime's switches (apps: the runtime.* settings, e.g. TESSERA_RUNTIME_LOG=info or
   * --log info). The library reads no environment variable of its own; NULL: the default. */
  const char *log;        /* error | warn | info | debug: what the library prints (warn) */
  const char *topo;       /* auto | off | gpu | numa | node | cores: rank placement (auto) */
  const char *mpi_direct; /* auto | on | off: halos between ranks by Tessera's own MPI requests
                             on the buffers' memory (auto: GPU tiles and a CUDA-aware MPI) */
  int profile;            /* 1: StarPU's worker and bus summaries at tess_finalize */
} tess_init_opts;
#define TESS_INIT_OPTS_DEFAULT                                                                     \
  { TESS_DEVICE_CPU, 0, -1, NULL, NULL, NULL, NULL, 0 }
/* Choices of the string switches above, "a|b|c" (for settings tables and messages). */
#define TESS_LOG_CHOICES        "error|warn|info|debug"
#define TESS_TOPO_CHOICES       "auto|off|gpu|numa|node|cores"
#define TESS_MPI_DIRECT_CHOICES "auto|on|off"

/* Collective over MPI_COMM_WORLD: MPI (threaded), StarPU and StarPU-MPI. */
tess_err tess_init(int *argc, char ***argv, const tess_init_opts *opts);
/* Collective: shuts StarPU-MPI, StarPU and MPI down (only what tess_init started: safe after a
 * tess_init that failed on every rank alike); with tracing on, rank 0 then merges the per-rank
 * FxT files with starpu_fxt_tool into the trace directory and checks the result: TESS_ERR_IO
 * on rank 0 after a message when the trace is incomplete (a full disk), its merged files
 * removed. */
tess_err tess_finalize(void);
/* Ends every rank of the job at once with `code` (use after an error on one rank). */
void tess_abort(int code);
int tess_rank(void);
int tess_nranks(void);
/* Signals that ask a run to stop or to checkpoint. tess_signal_watch installs handlers for
 * SIGTERM, SIGINT, SIGUSR2 (stop requests) and SIGUSR1 (a checkpoint request) that only record
 * the signal; a run polls with tess_signal_poll, collective over comm: the signal any rank
 * received since the last poll, stop requests first, or 0, on every rank. Open MPI's mpirun
 * forwards SIGUSR1 and SIGUSR2 to the ranks (it answers SIGTERM by killing the job after a
 * grace period), so `kill -USR2 <mpirun pid>` is the graceful stop under mpirun. */
void tess_signal_watch(void);
int tess_signal_poll(MPI_Comm comm);

/* Number of GPUs StarPU drives in this rank (0 on CPU runs). */
int tess_ncuda_devices(void);

/* ---- simulations ---------------------------------------------------------------------------- */
typedef struct tess_sim_s *tess_sim_t;

/* A stage of the step program: `kernel` updates every owned cell of the fields in `out`,
 * reading the fields in `in` through its footprint (halos are exchanged automatically when
 * stale) and the fields in `out` at the cell itself when bit i of `out_read` is set.
 * A stage must not write a field it reads through a footprint of radius > 0.
 * `params` (params_size bytes) is copied and handed to the kernel as tess_region.params. */
typedef struct {
  const tess_kernel *kernel;
  int nin;
  int in[TESS_MAX_IO];
  int nout;
  int out[TESS_MAX_IO];
  unsigned out_read;
  const void *params;
  size_t params_size;
} tess_stage;

/* Collective. Creates a simulation on `comm` for a global grid of n[0] x n[1] x n[2] cells,
 * periodic in every axis unless tess_sim_set_periodic says otherwise (n[2] = 1 makes it 2D,
 * n[1] = n[2] = 1 1D). */
tess_err tess_sim_create(MPI_Comm comm, const int n[3], tess_sim_t *sim);
/* NULL-safe; sets *sim to NULL. Collective. */
void tess_sim_destroy(tess_sim_t *sim);

/* Configuration, before tess_sim_setup (TESS_ERR_STATE after). */
tess_err tess_sim_set_mode(tess_sim_t sim, tess_mode mode);
tess_err tess_sim_set_device(tess_sim_t sim, tess_device device);
/* on (default): a lone periodic tile's kernels that can read their input at its periodic images
 * (tess_kernel.wraps) do so, and kernels that can write their outputs' images (tess_kernel.images)
 * along the axes every tile spans whole do so, and those halos are not copied; off: the runtime
 * copies them (A/B). */
tess_err tess_sim_set_wrap(tess_sim_t sim, int on);
/* on (default): a buffered link (from a tile of this rank or of another) is unpacked by the
 * first class task that reads it, before its kernel, where the other readers' waits contain that
 * class's (docs/halo-path.md); off: every such link has an unpack task of its own (A/B: more
 * tasks, a shorter chain from an arrival to the classes that read it). */
tess_err tess_sim_set_unpack_in_class(tess_sim_t sim, int on);
/* tiles_per_rank 0 (default): one per GPU; CPU tiles: about 2 per CPU worker, each of at least
 * 32768 owned cells, 1 when the rank has a single worker (sim.c, auto_tiles, says why). */
tess_err tess_sim_set_tiles(tess_sim_t sim, int tiles_per_rank);
tess_err tess_sim_set_procs(tess_sim_t sim, const int p[3]); /* forced process grid */
tess_err tess_sim_set_spacing(tess_sim_t sim, const double h[3]);
/* Element type of every field (default TESS_FP64). Setup refuses TESS_FP32 when a stage's
 * kernel has no single-precision version. Fill, gather, statistics and checks convert to and
 * from double at the host; snapshots and checkpoints store the simulation's own type. */
tess_err tess_sim_set_precision(tess_sim_t sim, tess_precision prec);
tess_precision tess_sim_precision(const tess_sim_t sim);
tess_err tess_sim_add_field(tess_sim_t sim, const char *name, int ncomp, int *field_id);
/* A temporary: a field only the step program uses (an intermediate result). It is never
 * checkpointed, and finite checks of all fields leave it out; with the recompute strategy its
 * halos are computed by its producer instead of exchanged. */
tess_err tess_sim_add_temporary(tess_sim_t sim, const char *name, int ncomp, int *field_id);
tess_err tess_sim_add_stage(tess_sim_t sim, const tess_stage *stage);
/* Before setup: exchange, recompute or auto (the default). */
tess_err tess_sim_set_strategy(tess_sim_t sim, tess_strategy s);
/* After setup: the strategy in effect (exchange or recompute), and the cost model's reason. */
tess_strategy tess_sim_strategy(const tess_sim_t sim, const char **why);
/* Machine figures of the auto strategy's cost model (docs/multistage.md §4). A figure left 0
 * is measured (StarPU's bus calibration, its history of this program's stage tasks) or, where
 * StarPU has no measure, a documented fallback. Latencies in microseconds: a round of dependent
 * tasks, a halo piece within a rank, across ranks; bandwidths in GB/s: halo bytes within a rank,
 * across ranks, and the bytes a stage sweeps (inputs + outputs per cell). */
typedef struct {
  double round_us, local_us, remote_us;
  double local_gbs, remote_gbs, mem_gbs;
} tess_machine;
#define TESS_MACHINE_KEYS "round_us, local_us, remote_us, local_gbs, remote_gbs, mem_gbs"
/* Parses "key=value,key=value" (keys TESS_MACHINE_KEYS, values finite numbers > 0; "" gives
 * all 0) into *m. 0 on success; -1 with a message naming the value and what is allowed. */
int tess_machine_parse(const char *spec, tess_machine *m, char *msg, size_t len);
/* Before setup: figures that override the measured ones (0: keep measuring that one). */
tess_err tess_sim_set_machine(tess_sim_t sim, const tess_machine *m);
/* A swap exchanges the storage behind two fields of the same ncomp (double buffering). */
tess_err tess_sim_add_swap(tess_sim_t sim, int field_a, int field_b);

/* ---- physical boundaries (docs/boundaries.md) ----------------------------------------------
 * A grid is periodic along every axis unless told otherwise. Along a non-periodic axis the two
 * outer faces of the grid are physical: nothing wraps around, and every field read through a
 * footprint across that axis needs a condition on both faces, which fills its ghost cells there
 * (a task per tile and face in the graph). Faces sit on the cell faces of the cell-centred grid:
 * ghost k (k = 1 next to the face) mirrors owned cell k - 1.
 *
 *   dirichlet(v)    value v on the face:            g_k = 2 v - u_{k-1}
 *   neumann(g)      outward normal derivative g:     g_k = u_{k-1} + (2k - 1) h g
 *   symmetric       even mirror:                     g_k = u_{k-1}
 *   antisymmetric   odd mirror (0 on the face):      g_k = -u_{k-1}
 *   outflow         linear extrapolation:            g_k = u_0 + k (u_0 - u_1)
 *   function        Dirichlet with the value fn(face point, component, time) (C API, CPU tiles)
 */
/* (TESS_BC_LIST and tess_bc_kind are in tessera_kernel.h: kernels that fill walls see them.) */
const char *tess_bc_kind_name(tess_bc_kind k);
/* Faces 0..5: x-, x+, y-, y+, z-, z+ (face = 2 axis + (high side)). */
const char *tess_face_name(int face);
/* A boundary function: the value on the face at x (physical coordinates, cell centres (i + 1/2) h
 * along the face, the face's own coordinate 0 or n h across it), for component comp at time t
 * (the time at the start of the step). Called on CPU workers, concurrently: thread-safe. */
typedef double (*tess_bc_fn)(const double x[3], int comp, double t, void *ctx);
typedef struct {
  tess_bc_kind kind;
  double value;  /* dirichlet: the face value; neumann: the outward normal derivative */
  tess_bc_fn fn; /* function */
  void *ctx;
} tess_bc;
/* Parses "face:kind(value),..." (faces x-, x+, y-, y+, z-, z+, a bare axis x, y, z for both its
 * faces, all; kinds dirichlet(v), neumann(g), symmetric, antisymmetric, outflow; "" or "none":
 * no condition). periodic (or NULL) refuses conditions on periodic axes. bc[face] receives each
 * condition, bit f of *set says face f has one. 0, or -1 with a message naming the bad part and
 * what is allowed (field: the field's name, for the message). */
int tess_bc_parse(const char *spec, const char *field, const int periodic[3], tess_bc bc[6],
                  unsigned *set, char *msg, size_t len);
/* Parses grid.periodic: a subset of "xyz", or "none". 0, or -1 with a message. */
int tess_periodic_parse(const char *spec, int periodic[3], char *msg, size_t len);
/* Before setup: which axes wrap around (default: all three). */
tess_err tess_sim_set_periodic(tess_sim_t sim, const int periodic[3]);
void tess_sim_periodic(const tess_sim_t sim, int periodic[3]);
/* Before setup: the condition of component comp (-1: every component) of field on face
 * (0..5). Setup refuses a condition on a periodic axis, and a field read across a non-periodic
 * axis without a condition on each of its faces (naming field, component and face). */
tess_err tess_sim_set_boundary(tess_sim_t sim, int field, int comp, int face, const tess_bc *bc);
/* Before setup: every condition of a spec (tess_bc_parse) for every component of field. */
tess_err tess_sim_set_boundary_spec(tess_sim_t sim, int field, const char *spec);
/* A one-line text of the periodicity and every field's conditions ("periodic=z; u: x-:..."), the
 * same on every rank: snapshots and checkpoints record it, a restart compares it. */
int tess_sim_boundary_text(const tess_sim_t sim, char *buf, size_t len);

/* Collective: validates, decomposes, allocates tiles and registers StarPU data. */
tess_err tess_sim_setup(tess_sim_t sim);

/* Initial data: fn(global cell index, component, ctx) for every owned cell. Synchronous;
 * fn runs on StarPU's CPU workers in parallel, so it must be thread-safe (a pure function of
 * its arguments, as the initial state should be anyway). */
typedef double (*tess_init_fn)(const long g[3], int comp, void *ctx);
tess_err tess_sim_fill(tess_sim_t sim, int field, tess_init_fn fn, void *ctx);

/* Collective. Submits `nsteps` executions of the step program, each advancing time by dt,
 * then waits for them (the only synchronisation point). */
tess_err tess_sim_run(tess_sim_t sim, int nsteps, double dt);

/* Collective. Root (rank 0 of comm) receives component `comp` of `field` on the whole grid,
 * global: [n2][n1][n0], x fastest. Other ranks may pass NULL. Synchronous. */
tess_err tess_sim_gather(tess_sim_t sim, int field, int comp, double *global);

typedef struct {
  double sum, min, max, sumsq;
  long count;
} tess_stats;
/* Collective: statistics of one component over the whole grid, on every rank. */
tess_err tess_sim_stats(tess_sim_t sim, int field, int comp, tess_stats *st);

/* The first non-finite value of the given fields (nfields = 0: all), in the order (field,
 * global cell x + nx (y + ny z), component): the same answer whatever the decomposition.
 * found = 0 when every value is finite. Scratch fields hold stale or poisoned (NaN) values
 * between steps: leave them out. */
typedef struct {
  int found;
  int field, comp;
  long cell[3]; /* global cell index */
  double value; /* NaN, +Inf or -Inf */
} tess_nonfinite;
/* Collective, synchronous (reads every field on the host: a full copy for GPU tiles). */
tess_err tess_sim_check_finite(tess_sim_t sim, int nfields, const int *fields, tess_nonfinite *nf);
/* The name given to tess_sim_add_field. */
const char *tess_sim_field_name(tess_sim_t sim, int field);

double tess_sim_time(tess_sim_t sim);
long tess_sim_step(tess_sim_t sim);
/* Process grid and tile grid chosen by setup (per rank). */
void tess_sim_layout(tess_sim_t sim, int procs[3], int tiles[3]);
/* Prints a one-paragraph description of the decomposition on rank 0 (stdout). */
void tess_sim_describe(tess_sim_t sim);

/* ---- introspection for tests and tracing ---------------------------------------------------- */
#define TESS_TASK_KIND_LIST(X)                                                                     \
  X(TESS_TASK_PACK, "pack")                                                                        \
  X(TESS_TASK_EXCHANGE, "exchange")                                                                \
  X(TESS_TASK_UNPACK, "unpack")                                                                    \
  X(TESS_TASK_COPY, "copy") /* same-node halos: neighbours' owned boxes straight into the halo */  \
  X(TESS_TASK_INNER, "inner")                                                                      \
  X(TESS_TASK_OUTER, "outer")                                                                      \
  X(TESS_TASK_BOUNDARY, "boundary") /* ghost fills at a physical face (docs/boundaries.md) */
typedef enum { TESS_TASK_KIND_LIST(TESS_X_ENUM) TESS_TASK_KIND_COUNT } tess_task_kind;
const char *tess_task_kind_name(tess_task_kind k);

/* One completed task, recorded when the task log is on. A task covers several directions (as
 * indices 0..26, see tess_dir_index): an inner or outer task updates the owned segments in
 * `dirs` (bit 13 = (0,0,0) = the inner segment; segment d is the owned cells next to halo d);
 * a pack, unpack or copy moves the halo directions in `dirs` of the receiving tile. dir is the
 * one direction that names the task (13 for the task that waits on no remote halo); times in
 * seconds since setup, on StarPU's clock (simulated time in the SimGrid build); t_start and the
 * worker from StarPU's profiling, which tess_sim_set_task_log turns on. */
typedef struct {
  tess_task_kind kind;
  int tile;      /* global tile id (pack: the sending tile) */
  int dir;       /* naming direction */
  unsigned dirs; /* the directions covered (bit i = direction index i) */
  int stage;     /* index of the stage in the program */
  long step;
  double t_end;
  double t_start; /* when the kernel began (NaN: StarPU recorded none) */
  int worker;     /* StarPU's worker id (starpu_worker_get_name names it) */
} tess_task_record;

tess_err tess_sim_set_task_log(tess_sim_t sim, int on);

/* What this rank's halo path did since tess_sim_setup: halo messages to and from other ranks and
 * their payload bytes, pack and unpack tasks, unpacks done inside a compute task (hosted), all
 * tasks, and the steps tess_sim_run ran. Counted at submission, so complete once tess_sim_run
 * returns. Local to the rank, not collective. */
typedef struct {
  long steps, tasks, packs, unpacks, hosted;
  long messages_sent, messages_received;
  long bytes_sent, bytes_received;
} tess_halo_counts;
tess_err tess_sim_halo_counts(const tess_sim_t sim, tess_halo_counts *counts);
/* Records of this rank's tasks completed so far (valid until the next run or destroy). */
const tess_task_record *tess_sim_task_log(tess_sim_t sim, size_t *count);

/* Debugging, before tess_sim_setup (CPU tiles only): after each kernel call, run the kernel
 * again with the cells of each input outside its declared reach poisoned, one halo direction at
 * a time; a changed output names the stage, the input field and the direction on stderr and
 * aborts. Many times slower: for small grids. */
tess_err tess_sim_set_footprint_check(tess_sim_t sim, int on);

/* Test hook, before tess_sim_setup: the exchange of halo direction `dir` into global tile `tile`
 * goes through its own buffer (even between tiles of one memory node) and is held back by
 * `seconds` (emulating one slow link) without occupying a worker. */
tess_err tess_sim_debug_delay(tess_sim_t sim, int tile, int dir, double seconds);

/* Direction vectors d in {-1,0,1}^3 <-> index (d0+1) + 3(d1+1) + 9(d2+1); 13 is (0,0,0). */
static inline int tess_dir_index(const int d[3]) {
  return (d[0] + 1) + 3 * (d[1] + 1) + 9 * (d[2] + 1);
}
static inline void tess_dir_vector(int i, int d[3]) {
  d[0] = i % 3 - 1;
  d[1] = (i / 3) % 3 - 1;
  d[2] = i / 9 - 1;
}

#ifdef __cplusplus
}
#endif
#endif

/* sim.h — the simulation object shared by the runtime's files (internal).
 *
 *   sim.c      create / configure / setup / destroy: decomposition, tiles, StarPU handles
 *   plan.c     per tile: links (halo sources), classes (tasks), what each class reads
 *   tasks.c    the StarPU codelets of stages, class tasks and chains, task log, debug delay
 *   halo.c     halo exchange of one stage: per link pack -> (StarPU copy | MPI) -> unpack,
 *              or local box copies (pack.c, pack_cuda.cu: the box-move kernels)
 *   direct.c   halo messages between ranks by MPI on the buffers' own (GPU) memory
 *   step.c     the step program: stages and swaps, overlapped or bulk-synchronous
 *   io.c       fill, gather, statistics (the synchronisation points users ask for)
 *
 * Grids of three levels: the process grid P (one block per rank), the tile grid T inside a
 * rank, and the global tile grid G = P * T. A tile's global coordinate is
 * rank_coord * T + local_coord; its id is its lexicographic index in G.
 */
#ifndef TESS_SIM_H
#define TESS_SIM_H

#include <pthread.h>
#include <starpu.h>

#include "fpcheck.h"
#include "plan.h"
#include "segments.h"
#include "tessera.h"

#define TESS_MAX_FIELDS 16
#define TESS_NAME_LEN   32

typedef struct {
  char name[TESS_NAME_LEN];
  int nc;
  int slot;            /* storage slot currently behind this field (swaps change it) */
  int temporary;       /* tess_sim_add_temporary: not checkpointed */
  int local;           /* recompute strategy: its halo is computed by its producer's extent */
  int wlo[3], whi[3];  /* halo width per axis, low and high side (program.c) */
  uint32_t halo_valid; /* halo directions holding current data */
  tess_bc *bc;         /* conditions at the physical faces: [face][nc] (NULL: none set) */
} tess_field;

typedef enum { TESS_OP_STAGE, TESS_OP_SWAP } tess_op_kind;

typedef struct {
  tess_op_kind kind;
  tess_stage stage; /* params points at a private copy */
  int swap[2];
  /* derived at setup: pieces read per compute piece, halo directions needed */
  tess_pieceset reads[TESS_NPIECES];
  uint32_t halo_dirs;
  /* derived at setup (program.c): the reach of each input (one-sided, clipped to axes of
   * extent > 1), the extent the stage computes on (owned box grown by ext), the halo
   * directions each exchanged input needs, and which inputs are produced locally (their halo
   * written by an earlier stage's extent, recompute strategy) */
  tess_reach reach[TESS_MAX_IO];
  tess_reach ext;
  int grown;       /* ext is not zero */
  unsigned images; /* axes (bits) along which the kernel writes its outputs' periodic images
                    * (tess_stage_periodic; tess_region.images) */
  int wrap;        /* the kernel reads its inputs periodically, without their halos (idem) */
  uint32_t in_dirs[TESS_MAX_IO];
  unsigned in_local;
  tess_pieceset lreads[TESS_NPIECES]; /* pieces of local inputs read (reads: exchanged ones) */
  uint32_t in_stale; /* while submitting: inputs (bit k) whose halos this stage refreshes */
  uint32_t in_valid[TESS_MAX_IO]; /* while submitting: input k's halo directions current before
                                   * this stage (local copies skip them: halo.c) */
  tess_fpcheck *check;         /* tess_sim_set_footprint_check: what the check names (NULL: off) */
  struct starpu_codelet cl[3]; /* inner, outer, chain: the same kernel, told apart in traces */
} tess_op;

typedef struct {
  void *base; /* on the tile's memory node; sim->esize each */
  /* dependency tokens (void handles, plan.h): the owned cells of each class, and the halo
   * cells each incoming link fills */
  starpu_data_handle_t own[TESS_NDIRS];
  starpu_data_handle_t halo[TESS_MAX_LINKS];
} tess_storage;

typedef struct {
  int id;            /* global tile id */
  int gcoord[3];     /* coordinate in the global tile grid G */
  long origin[3];    /* global index of the first owned cell */
  unsigned node;     /* StarPU memory node of the storage */
  int cuda;          /* 1: runs on a GPU */
  tess_plan *plan;   /* links, classes, reads (plan.h) */
  uint32_t *workers; /* bitmap of the workers allowed to run this tile's tasks */
  unsigned workers_len;
  tess_storage slot[TESS_MAX_FIELDS];
  /* a token the tile's pack writes and its inner class reads, so that the pack runs first
   * (sim->pack_first; tess_submit_compute); packed: the tile's pack of the stage being
   * submitted writes it */
  starpu_data_handle_t pack_token;
  int packed;
} tess_tile;

typedef struct {
  int tile, dir;
  double seconds;
  int active;
} tess_delay;

struct tess_sim_s {
  MPI_Comm comm;
  int rank, nranks;
  int n[3];
  double h[3];
  int periodic[3]; /* tess_sim_set_periodic: axes that wrap around (default all) */
  tess_mode mode;
  tess_device device;
  int direct;    /* halos between ranks by our own MPI tasks on the buffers' memory (direct.c) */
  int has_xcomm; /* xcomm: their communicator, a duplicate of comm */
  MPI_Comm xcomm;
  tess_precision prec;
  size_t esize; /* bytes per element: 8 (TESS_FP64) or 4 (TESS_FP32) */
  int tiles_req;
  int procs_req[3];
  int is_setup;
  int fpcheck;            /* tess_sim_set_footprint_check */
  tess_strategy strategy; /* requested; at setup: the one in effect */
  char strategy_why[768]; /* auto: both estimates, the machine figures and their sources */
  tess_machine machine;   /* tess_sim_set_machine: overrides of the cost model's figures */

  int nfields;
  tess_field field[TESS_MAX_FIELDS];
  int nops;
  tess_op *op[TESS_MAX_OPS];

  /* decided at setup */
  int ghost[3];   /* ghost width per axis: the widest field halo on that axis (program.c) */
  int pack_first; /* a tile's inner class waits for its pack (halo.c: the scheduler has no
                   * priority order) */
  int P[3], T[3], G[3];
  int tn[3];  /* owned extent of a tile */
  int dim[3]; /* padded tile extent */
  int rank_coord[3];
  int ntiles; /* on this rank */
  tess_tile *tile;
  int lone;    /* the rank's only tile is its own neighbour everywhere, through local links */
  int no_wrap; /* tess_sim_set_wrap(sim, 0): a lone tile's halos copied even for wrapping kernels */
  int no_unpack_in_class; /* tess_sim_set_unpack_in_class(sim, 0): unpack tasks for every link */

  double time, dt;
  long step;
  long ntasks;   /* tasks submitted (tasks.c), for the run's log line */
  long nhandles; /* their handles (buffers; tokens are not handles of tasks), likewise */
  struct starpu_task **kept; /* tasks submitted since the last quiesce, kept for their successors */
  size_t nkept, capkept;
  unsigned epoch;        /* bumped by tess_task_quiesce: older token records are empty */
  tess_halo_counts halo; /* halo.c counts messages, packs, unpacks; step.c steps and tasks */
  double t0;             /* the task log's origin, on StarPU's clock (s) */

  struct tess_names *names; /* interned task names (names.c) */

  pthread_mutex_t log_lock;
  int log_on;
  tess_task_record *log;
  size_t log_len, log_cap;
  tess_delay delay;
};

/* io.c: a host view of the owned cells of a tile: element (c, x, y, z)
 * of the tile, for x, y, z in box (padded tile coordinates), at
 * ptr + (x - box.lo[0]) + ldy ((y - box.lo[1]) nc + c) + ldz (z - box.lo[2]). */
typedef struct {
  void *ptr; /* double or float elements, as the simulation's precision */
  tess_precision prec;
  size_t ldy, ldz;
  int nc;
  tess_box box;
} tess_view;
/* Element i of a view, converted to or from double. */
static inline double tess_view_get(const tess_view *v, size_t i) {
  return v->prec == TESS_FP32 ? (double)((const float *)v->ptr)[i] : ((const double *)v->ptr)[i];
}
static inline void tess_view_set(const tess_view *v, size_t i, double x) {
  if (v->prec == TESS_FP32)
    ((float *)v->ptr)[i] = (float)x;
  else
    ((double *)v->ptr)[i] = x;
}
typedef void (*tess_view_fn)(const tess_sim_t sim, const tess_tile *t, const tess_view *v,
                             void *ctx);
/* Calls fn on a host view of every owned piece of `field` of every local tile, each acquired
 * on main RAM in `mode` for the time of the call. Synchronous. */
tess_err tess_for_each_owned_view(tess_sim_t sim, int field, enum starpu_data_access_mode mode,
                                  tess_view_fn fn, void *ctx);

/* init.c */
int tess_cuda_devids(int devs[STARPU_NMAXWORKERS]);

/* program.c: the step program's shape, derived at setup. tess_program_widths: each input's
 * reach, (strategy recompute) each stage's extent, each field's halo widths and sim->ghost;
 * tess_program_dirs (after the grids): the pieces and halo directions each stage reads;
 * tess_program_choose: the strategy (auto: the cost model) and the grids it needs. */
tess_err tess_program_choose(tess_sim_t sim);
void tess_program_dirs(tess_sim_t sim);
void tess_program_describe(const tess_sim_t sim);
int tess_program_has_temporaries(const tess_sim_t sim); /* read by some stage */
/* The boxes stage op computes of class c of tile t: its pieces grown by the stage's extent. */
int tess_program_boxes(const tess_sim_t sim, const tess_plan *p, const tess_op *op, int c,
                       tess_box *box);
/* sim.c: the grids for the current widths (sim->ghost) */
tess_err tess_sim_choose_grids(tess_sim_t sim);

/* boundary.c: physical faces (docs/boundaries.md). tess_boundary_check (setup, after the
 * widths): conditions where and only where they are needed; tess_boundary_walled: some axis with
 * ghosts is not periodic; tess_boundary_physical: whether halo direction h of the tile at gcoord
 * lies across a physical face, and the axis whose condition fills it (the first physical one of
 * x, y, z: its other components are then periodic, inter-tile or physical ones of a later
 * axis, filled before it); tess_boundary_moves: the ghost fill moves of halo direction h of
 * input k of op on tile x (moves NULL: count them). */
tess_err tess_boundary_check(tess_sim_t sim);
int tess_boundary_walled(const tess_sim_t sim);
int tess_boundary_physical(const tess_sim_t sim, const int gcoord[3], const int h[3], int *axis);
struct tess_moves_s;
int tess_boundary_moves(const tess_sim_t sim, const tess_op *op, int k, const tess_tile *x, int h,
                        struct tess_moves_s *moves);
void tess_boundary_free(tess_sim_t sim);

/* sim.c */
int tess_sim_tile_owner(const tess_sim_t sim, const int gcoord[3], int *local_index);
void tess_sim_tile_gcoord(const tess_sim_t sim, int rank, int local_index, int gcoord[3]);
size_t tess_sim_storage_bytes(const tess_sim_t sim, int nc);

/* tokens.c */
/* A dependency token: a void handle that orders the tasks reading and writing one piece of a
 * tile (a class of a slot, a halo, a tile's pack). Tessera orders them itself (tokens.c): the
 * record, the handle's user data, holds its last writer and the readers since. */
typedef struct {
  unsigned epoch;
  struct starpu_task *writer;
  int nread, capread;
  struct starpu_task **readers;
} tess_token;
enum { TESS_MAXTOK = 96 };
void tess_token_register(starpu_data_handle_t *h);
void tess_token_unregister(starpu_data_handle_t h);
typedef struct {
  struct starpu_codelet *cl;
  void *arg; /* malloc'd, freed by StarPU */
  size_t arg_size;
  int nbuf;
  starpu_data_handle_t handle[STARPU_NMAXBUFS];
  enum starpu_data_access_mode mode[STARPU_NMAXBUFS];
  int ntok; /* tokens: ordered by tess_token_order through explicit task dependencies */
  tess_token *tok[TESS_MAXTOK];
  enum starpu_data_access_mode tmode[TESS_MAXTOK];
  int priority;
  const tess_tile *tile; /* restricts the task to the tile's workers; NULL: any worker */
  tess_task_kind kind;
  int log_tile, dir, stage;
  uint32_t dirs;
} tess_task_spec;
/* Declares a task's dependencies through its spec's tokens, before its submission, and makes
 * room in sim->kept for tess_task_submit to keep it. */
tess_err tess_token_order(tess_sim_t sim, struct starpu_task *t, const tess_task_spec *spec);
/* Waits for every task and lets go of the kept ones (the end of a run, I/O, destroy). */
tess_err tess_task_quiesce(tess_sim_t sim);

/* tasks.c */
tess_err tess_task_submit(tess_sim_t sim, const tess_task_spec *spec);
/* Keeps freed task memory in the process (glibc's trim threshold, tasks.c); once per process. */
void tess_task_heap_policy(void);
void tess_task_spec_add(tess_task_spec *spec, starpu_data_handle_t h,
                        enum starpu_data_access_mode m);
/* Adds the class tokens in `classes` of storage st. */
void tess_task_spec_add_own(tess_task_spec *spec, const tess_storage *st, uint32_t classes,
                            enum starpu_data_access_mode m);
tess_err tess_op_init_codelet(tess_sim_t sim, tess_op *op, int index);
void tess_task_models_free(void); /* after starpu_shutdown */
/* A simulation's communicator (comms.c): a duplicate of parent, or one a simulation on the same
 * ranks gave back; given back with starpu_mpi_used when StarPU-MPI may have carried its halos, and
 * freed then only by tess_comm_pool_free, after starpu_mpi_shutdown. */
tess_err tess_comm_take(MPI_Comm parent, MPI_Comm *out);
void tess_comm_give(MPI_Comm *comm, int starpu_mpi_used);
void tess_comm_pool_free(void);
tess_err tess_task_gate(tess_sim_t sim, starpu_data_handle_t h);
/* A task being built from several stage blocks (tasks.c: a lone tile's run in one task). */
typedef struct {
  tess_task_spec spec;
  void *arg;
  size_t size;
} tess_chain;
/* Submits the classes of stage op of every tile, or with chain != NULL appends them to it. */
tess_err tess_submit_compute(tess_sim_t sim, int op_index, const tess_op *op, tess_chain *chain);
/* Setup, after the plans: sim->lone, and for each stage how the kernel handles periodic halos,
 * where it can (on the tile's device, the stage updating the owned box, no extent, no physical
 * face): op->wrap, a lone tile's kernel (two ghost widths long on every axis with ghosts) reads
 * its inputs at their periodic images (tess_region.wrap), so their halos are not copied; else
 * op->images, the axes every tile spans whole (its own neighbour across them, through a local
 * copy), along which the kernel writes its outputs' images (tess_region.images), so the halos
 * across those axes alone are current without that copy. */
void tess_stage_periodic(tess_sim_t sim);
/* The halo directions across the given axes (bits) alone: those images keep current. */
uint32_t tess_image_dirs(unsigned axes);
tess_err tess_chain_submit(tess_sim_t sim, tess_chain *chain);
double tess_now(void);

/* names.c */
const char *tess_task_name(tess_sim_t sim, tess_task_kind kind, int tile, int dir, int stage);
unsigned tess_task_kind_color(tess_task_kind kind);
void tess_names_free(tess_sim_t sim);

/* direct.c: halo messages by MPI on the buffers' own memory (GPU memory when MPI is
 * CUDA-aware). tess_direct_choose (tess_init) takes tess_init_opts.mpi_direct = on | off | auto;
 * tess_direct_setup (collective) then decides (auto: GPU tiles and a CUDA-aware MPI) whether
 * sim->direct is on; tess_direct_submit sends (R) or receives (W) buf, on tile t's memory node,
 * in buf's sequential order. */
tess_err tess_direct_choose(const char *mode);
/* tess_init: auto also takes CPU tiles when on is set (the placement left this rank's MPI thread
 * no core of its own: StarPU-MPI's would poll a worker's core; this path's naps when idle). */
void tess_direct_cpu_auto(int on);
tess_err tess_direct_setup(tess_sim_t sim);
tess_err tess_direct_submit(tess_sim_t sim, const tess_tile *t, starpu_data_handle_t buf, int send,
                            int peer, int tag);
void tess_direct_release(tess_sim_t sim);
void tess_direct_shutdown(void); /* tess_finalize: stops the progress thread */

struct tess_moves_s; /* pack.h */
/* halo.c: the exchange of the stale inputs of stage op (op->in_stale): packs, transfers and
 * unpacks of buffered links, and the local fill task of tiles of several classes. A tile of
 * one class does its local copies in its compute task: tess_halo_local adds them (moves, and
 * the tokens they read and write) to that task; moves may be NULL to count them (the return:
 * the moves a list needs room for). */
tess_err tess_halo_exchange(tess_sim_t sim, int op_index, const tess_op *op);
int tess_halo_local(const tess_sim_t sim, const tess_op *op, const tess_tile *x,
                    struct tess_moves_s *moves, tess_task_spec *spec);
/* The unpacks class c of tile x does in its task this stage (plan.h): with spec (empty so far)
 * adds their buffers (R, as buffers 0..) and halo tokens (W); with moves appends their moves,
 * referring to those buffers. Returns the moves a list needs room for (0: none). */
int tess_halo_hosted(const tess_sim_t sim, const tess_op *op, const tess_tile *x, int c,
                     struct tess_moves_s *moves, tess_task_spec *spec);
/* The class of tile x that unpacks its incoming link k in its own task at stage op_index (plan.h),
 * or -1 (a task of its own): the first reader in submission order, if its buffered reads are
 * contained in every other reader's; none for the held-back test link or a link whose ghosts a
 * fill reads. */
int tess_halo_unpack_host(const tess_sim_t sim, int op_index, const tess_tile *x, int k);
/* The order tile x's classes are submitted in for stage op_index (a class that unpacks a link
 * before the other classes reading it). */
void tess_halo_class_order(const tess_sim_t sim, int op_index, const tess_tile *x, int *order);

/* Priorities: data leaving the tile first (the critical path), then the outer segments that
 * wait on it, then the inner bulk (Astaroth's stream priorities). */
enum { TESS_PRIO_INNER = 0, TESS_PRIO_OUTER = 1, TESS_PRIO_HALO = 2 };

#endif

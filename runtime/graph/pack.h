/* pack.h — the runtime's data movement: lists of box copies between tile arrays and buffers.
 *
 * Every halo operation is a list of moves. A move copies a box of ext cells over all nc
 * components from one array to another; an array is either a tile in the layout of
 * tessera_kernel.h ([Z][Y][nc][X], padded extent dim) or a contiguous buffer region, which is
 * the same layout with dim = ext and lo = 0:
 *
 *     tile [Z][Y][nc][X]                    buf [ext2][ext1][nc][ext0], x fastest
 *     +--------------------+
 *     |      +-----+       |   pack   ->
 *     |      | box |       |   <- unpack    one row of ext0 values per (z, y, c)
 *     |      +-----+       |
 *     +--------------------+
 *
 * pack (tiles -> buffers), unpack (buffer -> tiles) and fill (tile -> tile, on one memory node:
 * a neighbour's owned cells, or a tile's own, into a halo) are the same operation; a side whose
 * pointer is NULL is one of the task's buffers (buffers[buf], a vector) at element offset `off`.
 * One pack task fills the buffers of every buffered link its tile sends (one per receiving
 * tile), so each receiver's unpack still waits for its own buffer only.
 *
 * Tile pointers travel in the cl_arg, not as StarPU handles: the runtime's handles only carry
 * dependencies (runtime/graph/plan.h), so the caller pins each task to a worker of the memory node
 * the tiles live on and keeps nothing else alive: the list is copied into the cl_arg.
 */
#ifndef TESS_PACK_H
#define TESS_PACK_H

#include <starpu.h> /* struct starpu_codelet, cudaStream_t (TESS_HAVE_CUDA: CUDA kernels built) */

#ifdef __cplusplus
extern "C" {
#endif

/* One side of a move: an array (tile base, or NULL: the task's buffer number `buf` at element
 * `off`), its padded extent, and the box's first cell in it. */
typedef struct {
  void *ptr;
  size_t off;
  int buf;
  int dim[3];
  int lo[3];
} tess_side;

/* A ghost fill at a physical face (boundary.c), in place of a copy when kind != 0: the dst box
 * (ghost cells of one component) is computed from the same tile's cells along the normal:
 * ghost k = side (x_axis - face) >= 1 from u_j, the cell at face - side j (owned cells, or for an
 * edge or corner the ghosts another fill or copy wrote first). */
typedef struct {
  int kind;             /* tess_bc_kind; 0 (TESS_BC_NONE): the move is a copy */
  int axis, side, face; /* normal axis, -1 low / +1 high face, padded index of u_0 */
  int comp;             /* the component filled */
  double value;         /* dirichlet: the face value; neumann: h times the outward derivative */
  /* function kind (CPU tiles): fn(x, comp, t, ctx) with x the face point of each ghost row */
  double (*fn)(const double x[3], int comp, double t, void *ctx);
  void *ctx;
  double t, h[3];
  long origin[3];  /* global index of the tile's padded cell (0, 0, 0) */
  long n[3];       /* the grid, for the face coordinate n h */
  int periodic[3]; /* tangential axes to wrap the ghost's position along */
} tess_bcfill;

typedef struct {
  tess_side src, dst;
  int ext[3]; /* box extent; an empty box (some ext <= 0) is a no-op */
  int nc;     /* components; both arrays have nc components per row */
  tess_bcfill bc;
} tess_move;

/* The most buffers one task moves: a tile sends to at most its 26 neighbours. */
#define TESS_MOVES_MAXBUF 26

/* A list of moves of esize-byte elements (8: double, 4: float; copies are bitwise), one task's
 * cl_arg: allocate with tess_moves_new, StarPU frees it. */
typedef struct tess_moves_s {
  int n, cap;
  int esize;
  int nbuf;                             /* the task's buffers: buffers[0..nbuf) */
  size_t buffer_len[TESS_MOVES_MAXBUF]; /* elements each buffer must hold */
  tess_move m[];
} tess_moves;

tess_moves *tess_moves_new(int cap, int esize);
/* Bytes of a list of cap moves; an empty list of cap moves in memory of that size. */
size_t tess_moves_size(int cap);
void tess_moves_init(tess_moves *l, int cap, int esize);
size_t tess_moves_bytes(const tess_moves *l);
/* Elements of move m (ext product times nc). */
size_t tess_move_count(const tess_move *m);

/* Synchronous, on the calling thread; buf[0..l->nbuf): the buffers the NULL sides refer to
 * (NULL when the list has none). */
void tess_moves_cpu(const tess_moves *l, void *const *buf);
/* A StarPU CUDA function: f, or in the SimGrid build (no CUDA kernels, simulated GPUs) a
 * placeholder StarPU never calls (runtime/simulate.c). */
#ifdef TESS_HAVE_CUDA
#define TESS_SIM_CUDA(f) f
#else
void tess_simgrid_task_placeholder(void *buffers[], void *arg);
#define TESS_SIM_CUDA(f) tess_simgrid_task_placeholder
#endif
#ifdef TESS_SIMGRID
/* TESS_SIM_MODELS=synthetic (runtime/simulate.c): model m gives every task a time from its size
 * instead of calibrated histories; tess_simgrid_setup does it to the box-move models, before
 * StarPU starts, and says so on rank 0. */
void tess_simgrid_model(struct starpu_perfmodel *m);
void tess_simgrid_setup(void);
#endif

/* The pointers of a task's buffers 0..l->nbuf (StarPU vectors) for the moves l, each checked
 * against the elements and element size the moves need (a plan bug otherwise: aborts). */
void tess_moves_buffers(void *buffers[], const tess_moves *l, void *out[TESS_MOVES_MAXBUF]);
/* One ghost fill move (m->bc.kind != 0) on the CPU (boundary.c). */
void tess_bcfill_cpu(const tess_move *m, int esize);
#ifdef TESS_HAVE_CUDA
/* Asynchronous: enqueue on stream s and return; tiles and buf are device pointers. A launch
 * failure is reported through StarPU and aborts. */
void tess_moves_cuda(const tess_moves *l, void *const *buf, cudaStream_t s);
/* Ghost fill moves m[0..n) on stream s in one launch (boundary_cuda.cu); none of them may read
 * cells another of them writes (pack_cuda.cu batches them so). */
enum { TESS_BCFILL_BATCH = 32 };
void tess_bcfill_cuda(const tess_move *const *m, int n, int esize, cudaStream_t s);
#endif

/* Codelets (nbuffers = STARPU_VARIABLE_NBUFFERS, so every task sets its own modes), cl_arg a
 * tess_moves:
 *   tess_pack_cl:   buffers[0..nbuf) STARPU_W vectors (one per receiving tile), then
 *                   dependency-only handles;
 *   tess_unpack_cl: buffers[0] STARPU_R vector, then dependency-only handles;
 *   tess_fill_cl:   dependency-only handles (no buffer).
 * CUDA versions are STARPU_CUDA_ASYNC on the worker's stream. History-based perf models,
 * indexed by the moved volume only, so the dependency handles do not split the history. */
extern struct starpu_codelet tess_pack_cl;
extern struct starpu_codelet tess_unpack_cl;
extern struct starpu_codelet tess_fill_cl;
/* tess_boundary_cl: ghost fills at a physical face (moves with bc.kind != 0), dependency-only
 * handles. */
extern struct starpu_codelet tess_boundary_cl;

#ifdef __cplusplus
}
#endif
#endif

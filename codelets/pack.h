/* pack.h — halo packing: copy a box of cells between a tile array and a contiguous buffer.
 *
 * A halo segment (or an outer segment that feeds a neighbour's halo) is a box of cells over
 * all nc components of a tile array in the layout of tessera_kernel.h. MPI and the device
 * copy engines want it contiguous, so pack/unpack move it to and from a buffer:
 *
 *     tile [Z][Y][nc][X]                    buf [hi2-lo2][hi1-lo1][nc][hi0-lo0], x fastest
 *     +--------------------+
 *     |      +-----+       |   pack   ->
 *     |      | box |       |   <- unpack    one row of hi0-lo0 values per (z, y, c)
 *     |      +-----+       |
 *     +--------------------+
 *
 * The tile pointer travels in the cl_arg, not as a StarPU handle: the runtime registers the
 * tile as pieces (segments) whose handles order the pack/unpack tasks against the compute
 * tasks that touch them, but a box may straddle several pieces, so the task addresses the
 * tile through its base pointer. The caller therefore pins each pack/unpack task to a worker
 * of the memory node `tile` lives on, and keeps the tess_pack_args alive until the task ends.
 */
#ifndef TESS_PACK_H
#define TESS_PACK_H

#include <starpu.h> /* struct starpu_codelet, STARPU_USE_CUDA, cudaStream_t */

#ifdef __cplusplus
extern "C" {
#endif

/* A box [lo, hi) of a tile of padded extent dim, over all nc components. An empty box
 * (hi_i <= lo_i on some axis, or nc <= 0) is a no-op. */
typedef struct {
  int lo[3], hi[3]; /* box in padded tile coordinates */
  int dim[3];       /* padded tile extent X, Y, Z */
  int nc;           /* components */
  int esize;        /* bytes per element: 8 (double) or 4 (float); copies are bitwise */
  void *tile;       /* tile base, [Z][Y][nc][X]; valid on the memory node the task runs on */
} tess_pack_args;

/* A same-node halo copy: the box `src` of one tile straight into the box of the same extent
 * starting at dst_lo of another (or the same) tile of equal padded extent and nc -- pack and
 * unpack fused, for neighbours whose storage shares a memory node (no buffer, no transfer). */
typedef struct {
  tess_pack_args src;
  int dst_lo[3];
  void *dst_tile; /* elements of src.esize bytes */
} tess_copy_args;

/* All the halo boxes of a tile that is its own neighbour (periodic, alone in its grid), filled
 * from its own owned cells: box i copies the extent ext[i] from src_lo[i] to dst_lo[i] inside
 * `tile`. The runtime runs them inside a solo tile's stage task, before its kernel. */
#define TESS_WRAP_MAX 26
typedef struct tess_wrap_args_s {
  int n;
  int src_lo[TESS_WRAP_MAX][3], dst_lo[TESS_WRAP_MAX][3], ext[TESS_WRAP_MAX][3];
  int dim[3], nc, esize;
  void *tile;
} tess_wrap_args;

/* Synchronous, on the calling thread. buf: [hi2-lo2][hi1-lo1][nc][hi0-lo0], x fastest. */
void tess_pack_cpu_box(const tess_pack_args *a, void *buf);
void tess_unpack_cpu_box(const tess_pack_args *a, const void *buf);
void tess_copy_cpu_box(const tess_copy_args *a);
void tess_wrap_cpu(const tess_wrap_args *a);

#ifdef STARPU_USE_CUDA
/* Asynchronous: enqueue one kernel on stream s and return; tile and buf are device
 * pointers. A launch failure is reported through StarPU and aborts. */
void tess_pack_cuda_box(const tess_pack_args *a, void *buf, cudaStream_t s);
void tess_unpack_cuda_box(const tess_pack_args *a, const void *buf, cudaStream_t s);
void tess_copy_cuda_box(const tess_copy_args *a, cudaStream_t s);
void tess_wrap_cuda(const tess_wrap_args *a, cudaStream_t s);
#endif

/* Codelets, nbuffers = STARPU_VARIABLE_NBUFFERS (so every task sets its own modes):
 *   tess_pack_cl:   buffers[0] STARPU_W vector of esize-byte elements (the buffer); further: the
 *                   tile pieces the box covers, typically STARPU_R, only for dependencies.
 *   tess_unpack_cl: buffers[0] STARPU_R vector of esize-byte elements; further: the covered
 *                   pieces, STARPU_W (or STARPU_RW when a piece is only partly overwritten).
 *   tess_halo_copy_cl: only dependency buffers: the source pieces STARPU_R, then the
 *                   destination halo pieces STARPU_W; cl_arg a tess_copy_args.
 * cl_arg: a tess_pack_args (task->cl_arg, by pointer). The vector holds at least the box
 * volume times nc elements. CUDA versions are STARPU_CUDA_ASYNC on the worker's stream.
 * History-based perf models "tess_pack" / "tess_unpack", indexed by box extents and nc only,
 * so the dependency-only pieces do not split the history. */
extern struct starpu_codelet tess_pack_cl;
extern struct starpu_codelet tess_unpack_cl;
extern struct starpu_codelet tess_halo_copy_cl;

#ifdef __cplusplus
}
#endif
#endif

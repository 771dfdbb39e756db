/* pack.c — box-move lists: the StarPU codelets and the CPU copy.
 *
 * Every (z, y, c) row of a box is contiguous in both arrays (same [..][..][nc][x] ordering, only
 * the row length differs), so the CPU copy is one memcpy per row. The CUDA copy lives in
 * pack_cuda.cu; the codelet functions below only unwrap StarPU's arguments.
 */
#include "pack.h"

#include <stdlib.h>
#include <string.h>

#include "tessera_kernel.h"

size_t tess_moves_size(int cap) { return sizeof(tess_moves) + (size_t)cap * sizeof(tess_move); }

void tess_moves_init(tess_moves *l, int cap, int esize) {
  memset(l, 0, sizeof *l);
  l->cap = cap;
  l->esize = esize;
}

tess_moves *tess_moves_new(int cap, int esize) {
  tess_moves *l = malloc(tess_moves_size(cap));
  if (l) tess_moves_init(l, cap, esize);
  return l;
}

size_t tess_moves_bytes(const tess_moves *l) { return tess_moves_size(l->cap); }

size_t tess_move_count(const tess_move *m) {
  if (m->nc <= 0) return 0;
  size_t n = (size_t)m->nc;
  for (int i = 0; i < 3; i++) {
    if (m->ext[i] <= 0) return 0;
    n *= (size_t)m->ext[i];
  }
  return n;
}

/* Address of row (c, y, z) of the box in one side (esize-byte elements). */
static char *row(const tess_side *s, void *const *buf, int nc, int esize, int c, int y, int z) {
  char *base = s->ptr ? (char *)s->ptr : (char *)buf[s->buf] + s->off * (size_t)esize;
  return base + TESS_IDX(s->dim[0], s->dim[1], nc, c, s->lo[0], s->lo[1] + y, s->lo[2] + z) * esize;
}

void tess_moves_cpu(const tess_moves *l, void *const *buf) {
  for (int i = 0; i < l->n; i++) {
    const tess_move *m = &l->m[i];
    if (!tess_move_count(m)) continue;
    if (m->bc.kind) {
      tess_bcfill_cpu(m, l->esize);
      continue;
    }
    const size_t len = (size_t)m->ext[0] * l->esize;
    for (int z = 0; z < m->ext[2]; z++)
      for (int y = 0; y < m->ext[1]; y++)
        for (int c = 0; c < m->nc; c++)
          memcpy(row(&m->dst, buf, m->nc, l->esize, c, y, z),
                 row(&m->src, buf, m->nc, l->esize, c, y, z), len);
  }
}

/* ---- StarPU glue ------------------------------------------------------------------------- */

/* The buffer handles come from the runtime's halo plan; a short one would be a plan bug that
 * silently corrupts memory, so check them on every task (cheap next to the copy). */
void tess_moves_buffers(void *buffers[], const tess_moves *l, void *out[TESS_MOVES_MAXBUF]) {
  for (int b = 0; b < l->nbuf; b++) {
    STARPU_ASSERT_MSG(STARPU_VECTOR_GET_ELEMSIZE(buffers[b]) == (size_t)l->esize,
                      "halo buffer elements must be of the tile's size");
    STARPU_ASSERT_MSG(STARPU_VECTOR_GET_NX(buffers[b]) >= l->buffer_len[b],
                      "halo buffer %d of %u elements is shorter than its moves (%zu)", b,
                      (unsigned)STARPU_VECTOR_GET_NX(buffers[b]), l->buffer_len[b]);
    out[b] = (void *)STARPU_VECTOR_GET_PTR(buffers[b]);
  }
}

static void moves_cpu_func(void *buffers[], void *cl_arg) {
  void *buf[TESS_MOVES_MAXBUF];
  tess_moves_buffers(buffers, cl_arg, buf);
  tess_moves_cpu(cl_arg, buf);
}

#ifdef TESS_HAVE_CUDA
static void moves_cuda_func(void *buffers[], void *cl_arg) {
  void *buf[TESS_MOVES_MAXBUF];
  tess_moves_buffers(buffers, cl_arg, buf);
  tess_moves_cuda(cl_arg, buf, starpu_cuda_get_local_stream());
}
#endif

/* The default footprint hashes the sizes of all buffers (void handles for the dependencies);
 * the cost depends on the volume moved. */
static uint32_t moves_footprint(struct starpu_task *task) {
  const tess_moves *l = task->cl_arg;
  size_t n = 0;
  for (int i = 0; i < l->n; i++)
    n += tess_move_count(&l->m[i]);
  return starpu_hash_crc32c_be((uint32_t)(n * (size_t)l->esize), (uint32_t)l->n);
}

#define MOVES_MODEL(var, sym)                                                                      \
  static struct starpu_perfmodel var = {                                                           \
      .type = STARPU_HISTORY_BASED, .symbol = sym, .footprint = moves_footprint}
MOVES_MODEL(pack_model, "tess_pack");
MOVES_MODEL(unpack_model, "tess_unpack");
MOVES_MODEL(fill_model, "tess_fill");
MOVES_MODEL(boundary_model, "tess_boundary");

#if defined(TESS_HAVE_CUDA) || defined(TESS_SIMGRID)
#define MOVES_CUDA                                                                                 \
  .cuda_funcs = {TESS_SIM_CUDA(moves_cuda_func)}, .cuda_flags = {STARPU_CUDA_ASYNC},
#else
#define MOVES_CUDA
#endif
#define MOVES_CODELET(var, nm, rgb, mdl)                                                           \
  struct starpu_codelet var = {.name = nm,                                                         \
                               .color = rgb,                                                       \
                               .cpu_funcs = {moves_cpu_func},                                      \
                               MOVES_CUDA.nbuffers = STARPU_VARIABLE_NBUFFERS,                     \
                               .model = &mdl}
/* colours: the palette of names.c (blue leaves the tile, green arrives, teal same node) */
MOVES_CODELET(tess_pack_cl, "pack", 0x2b83ba, pack_model);
MOVES_CODELET(tess_unpack_cl, "unpack", 0xabdda4, unpack_model);
MOVES_CODELET(tess_fill_cl, "fill", 0x66c2a5, fill_model);
MOVES_CODELET(tess_boundary_cl, "boundary", 0xfee08b, boundary_model);

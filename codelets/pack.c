/* pack.c — halo pack/unpack: the StarPU codelets and the CPU reference copy.
 *
 * Every (z, y, c) row of the box is contiguous in both the tile and the buffer (same
 * [..][..][nc][x] ordering, only the row length differs), so the CPU copy is one memcpy per
 * row. The CUDA copy lives in pack_cuda.cu; the codelet functions below only unwrap StarPU's
 * arguments and hand them to either copy.
 */
#include "pack.h"

#include <string.h>

#include "tessera_kernel.h"

/* Elements of the box over all components; 0 for an empty box. */
static size_t tess_pack_count(const tess_pack_args *a) {
  if (a->nc <= 0) return 0;
  size_t n = (size_t)a->nc;
  for (int i = 0; i < 3; i++) {
    if (a->hi[i] <= a->lo[i]) return 0;
    n *= (size_t)(a->hi[i] - a->lo[i]);
  }
  return n;
}

/* Address in the tile of the first cell of row (c, y, z) of the box. */
static char *tess_pack_row(const tess_pack_args *a, int c, int y, int z) {
  return (char *)a->tile + TESS_IDX(a->dim[0], a->dim[1], a->nc, c, a->lo[0], y, z) * a->esize;
}

void tess_pack_cpu_box(const tess_pack_args *a, void *buf) {
  if (tess_pack_count(a) == 0) return;
  const size_t len = (size_t)(a->hi[0] - a->lo[0]) * a->esize;
  char *b = buf;
  for (int z = a->lo[2]; z < a->hi[2]; z++)
    for (int y = a->lo[1]; y < a->hi[1]; y++)
      for (int c = 0; c < a->nc; c++, b += len)
        memcpy(b, tess_pack_row(a, c, y, z), len);
}

void tess_unpack_cpu_box(const tess_pack_args *a, const void *buf) {
  if (tess_pack_count(a) == 0) return;
  const size_t len = (size_t)(a->hi[0] - a->lo[0]) * a->esize;
  const char *b = buf;
  for (int z = a->lo[2]; z < a->hi[2]; z++)
    for (int y = a->lo[1]; y < a->hi[1]; y++)
      for (int c = 0; c < a->nc; c++, b += len)
        memcpy(tess_pack_row(a, c, y, z), b, len);
}

void tess_copy_cpu_box(const tess_copy_args *a) {
  const tess_pack_args *s = &a->src;
  if (tess_pack_count(s) == 0) return;
  const tess_pack_args d = {.lo = {a->dst_lo[0], a->dst_lo[1], a->dst_lo[2]},
                            .dim = {s->dim[0], s->dim[1], s->dim[2]},
                            .nc = s->nc,
                            .esize = s->esize,
                            .tile = a->dst_tile};
  const size_t len = (size_t)(s->hi[0] - s->lo[0]) * s->esize;
  for (int z = 0; z < s->hi[2] - s->lo[2]; z++)
    for (int y = 0; y < s->hi[1] - s->lo[1]; y++)
      for (int c = 0; c < s->nc; c++)
        memcpy(tess_pack_row(&d, c, d.lo[1] + y, d.lo[2] + z),
               tess_pack_row(s, c, s->lo[1] + y, s->lo[2] + z), len);
}

void tess_wrap_cpu(const tess_wrap_args *a) {
  for (int i = 0; i < a->n; i++) {
    tess_copy_args c = {.src = {.dim = {a->dim[0], a->dim[1], a->dim[2]},
                                .nc = a->nc,
                                .esize = a->esize,
                                .tile = a->tile},
                        .dst_tile = a->tile};
    for (int k = 0; k < 3; k++) {
      c.src.lo[k] = a->src_lo[i][k];
      c.src.hi[k] = a->src_lo[i][k] + a->ext[i][k];
      c.dst_lo[k] = a->dst_lo[i][k];
    }
    tess_copy_cpu_box(&c);
  }
}

/* ---- StarPU glue ------------------------------------------------------------------------- */

/* The buffer handle comes from the runtime's halo plan; a short one would be a plan bug that
 * silently corrupts memory, so check it on every task (cheap next to the copy). */
static void *tess_pack_buffer(void *buffers[], const tess_pack_args *a) {
  STARPU_ASSERT_MSG(STARPU_VECTOR_GET_ELEMSIZE(buffers[0]) == (size_t)a->esize,
                    "pack buffer elements must be of the tile's size");
  STARPU_ASSERT_MSG(STARPU_VECTOR_GET_NX(buffers[0]) >= tess_pack_count(a),
                    "pack buffer of %u elements is shorter than the box (%zu)",
                    (unsigned)STARPU_VECTOR_GET_NX(buffers[0]), tess_pack_count(a));
  return (void *)STARPU_VECTOR_GET_PTR(buffers[0]);
}

static void tess_pack_cpu_func(void *buffers[], void *cl_arg) {
  const tess_pack_args *a = cl_arg;
  tess_pack_cpu_box(a, tess_pack_buffer(buffers, a));
}

static void tess_unpack_cpu_func(void *buffers[], void *cl_arg) {
  const tess_pack_args *a = cl_arg;
  tess_unpack_cpu_box(a, tess_pack_buffer(buffers, a));
}

static void tess_copy_cpu_func(void *buffers[], void *cl_arg) {
  (void)buffers;
  tess_copy_cpu_box(cl_arg);
}

#ifdef STARPU_USE_CUDA
static void tess_copy_cuda_func(void *buffers[], void *cl_arg) {
  (void)buffers;
  tess_copy_cuda_box(cl_arg, starpu_cuda_get_local_stream());
}

static void tess_pack_cuda_func(void *buffers[], void *cl_arg) {
  const tess_pack_args *a = cl_arg;
  tess_pack_cuda_box(a, tess_pack_buffer(buffers, a), starpu_cuda_get_local_stream());
}

static void tess_unpack_cuda_func(void *buffers[], void *cl_arg) {
  const tess_pack_args *a = cl_arg;
  tess_unpack_cuda_box(a, tess_pack_buffer(buffers, a), starpu_cuda_get_local_stream());
}
#endif

/* The default footprint hashes the sizes of all buffers, which would give every set of
 * dependency-only pieces its own history although the cost depends on the box alone. */
static uint32_t tess_pack_footprint(struct starpu_task *task) {
  const tess_pack_args *a = task->cl_arg;
  uint32_t h = starpu_hash_crc32c_be((uint32_t)(a->nc * a->esize), 0);
  for (int i = 0; i < 3; i++)
    h = starpu_hash_crc32c_be((uint32_t)(a->hi[i] > a->lo[i] ? a->hi[i] - a->lo[i] : 0), h);
  return h;
}

static uint32_t tess_copy_footprint(struct starpu_task *task) {
  const tess_copy_args *a = task->cl_arg;
  struct starpu_task t = {.cl_arg = (void *)&a->src};
  return tess_pack_footprint(&t);
}

static struct starpu_perfmodel tess_copy_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "tess_halo_copy",
    .footprint = tess_copy_footprint,
};

static struct starpu_perfmodel tess_pack_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "tess_pack",
    .footprint = tess_pack_footprint,
};

static struct starpu_perfmodel tess_unpack_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "tess_unpack",
    .footprint = tess_pack_footprint,
};

struct starpu_codelet tess_pack_cl = {
    .name = "pack",
    .color = 0x2b83ba, /* blue: data leaving the tile (same palette as tasks.c) */
    .cpu_funcs = {tess_pack_cpu_func},
#ifdef STARPU_USE_CUDA
    .cuda_funcs = {tess_pack_cuda_func},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &tess_pack_model,
};

struct starpu_codelet tess_unpack_cl = {
    .name = "unpack",
    .color = 0xabdda4, /* green: data arriving */
    .cpu_funcs = {tess_unpack_cpu_func},
#ifdef STARPU_USE_CUDA
    .cuda_funcs = {tess_unpack_cuda_func},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &tess_unpack_model,
};

struct starpu_codelet tess_halo_copy_cl = {
    .name = "halo_copy",
    .color = 0xabdda4, /* green, like unpack: it fills a halo */
    .cpu_funcs = {tess_copy_cpu_func},
#ifdef STARPU_USE_CUDA
    .cuda_funcs = {tess_copy_cuda_func},
    .cuda_flags = {STARPU_CUDA_ASYNC},
#endif
    .nbuffers = STARPU_VARIABLE_NBUFFERS,
    .model = &tess_copy_model,
};

/* io.c — the synchronisation points users ask for: fill initial data (as CPU tasks, one per
 * piece), gather a component to rank 0, global statistics. Gather and statistics visit the
 * owned pieces of every local tile through
 * starpu_data_acquire_on_node, which brings a GPU tile's piece to host memory (and, for writes,
 * invalidates the GPU copy so the next task fetches it back).
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sim.h"

/* A host view of one acquired piece: element (c, x, y, z) of the tile, for x, y, z in box. */
typedef struct {
  double *ptr;
  size_t ldy, ldz;
  int nc;
  tess_box box;
} piece_view;

static inline double *view_at(const piece_view *v, int c, int x, int y, int z) {
  return v->ptr + (size_t)(x - v->box.lo[0]) + v->ldy * (size_t)((y - v->box.lo[1]) * v->nc + c) +
         v->ldz * (size_t)(z - v->box.lo[2]);
}

/* Every owned piece's handle of `field` on every local tile, in a fixed order. */
typedef tess_err (*handle_fn)(tess_sim_t sim, const tess_tile *t, int piece, starpu_data_handle_t h,
                              int nc, void *ctx);

static tess_err for_each_owned_handle(tess_sim_t sim, int field, handle_fn fn, void *ctx) {
  TESS_CHECK(sim->is_setup, TESS_ERR_STATE, "the simulation is not set up");
  TESS_CHECK(field >= 0 && field < sim->nfields, TESS_ERR_ARG, "field id %d is invalid", field);
  const tess_field *f = &sim->field[field];
  for (int l = 0; l < sim->ntiles; l++)
    for (int p = 0; p < TESS_NPIECES; p++) {
      starpu_data_handle_t h = sim->tile[l].slot[f->slot].piece[p];
      if (h && tess_piece_owned(p)) TESS_CALL(fn(sim, &sim->tile[l], p, h, f->nc, ctx));
    }
  return TESS_OK;
}

/* ...and a host view of each, acquired on main RAM in `mode` for the time of fn. */
typedef void (*piece_fn)(const tess_sim_t sim, const tess_tile *t, const piece_view *v, void *ctx);

typedef struct {
  enum starpu_data_access_mode mode;
  piece_fn fn;
  void *ctx;
} acquire_ctx;

static tess_err visit_acquired(tess_sim_t sim, const tess_tile *t, int piece,
                               starpu_data_handle_t h, int nc, void *arg) {
  const acquire_ctx *a = arg;
  /* On main RAM explicitly: plain starpu_data_acquire() would acquire on the home node, which
   * is the GPU for a GPU tile. */
  TESS_STARPU_CALL(starpu_data_acquire_on_node(h, STARPU_MAIN_RAM, a->mode));
  const struct starpu_block_interface *b = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
  piece_view v = {(double *)b->ptr, b->ldy, b->ldz, nc, {{0}, {0}}};
  tess_piece_box(sim->tn, sim->ghost, piece, &v.box);
  a->fn(sim, t, &v, a->ctx);
  starpu_data_release_on_node(h, STARPU_MAIN_RAM);
  return TESS_OK;
}

static tess_err for_each_owned_piece(tess_sim_t sim, int field, enum starpu_data_access_mode mode,
                                     piece_fn fn, void *ctx) {
  acquire_ctx a = {mode, fn, ctx};
  return for_each_owned_handle(sim, field, visit_acquired, &a);
}

/* Fill: value of component k at global cell g = fn(g, k, ctx) for every owned cell. */
typedef struct {
  tess_init_fn fn;
  void *ctx;
  long shift[3]; /* global index = padded tile coordinate + shift */
} fill_ctx;

static void fill_view(const fill_ctx *c, const piece_view *v) {
  for (int z = v->box.lo[2]; z < v->box.hi[2]; z++)
    for (int y = v->box.lo[1]; y < v->box.hi[1]; y++)
      for (int x = v->box.lo[0]; x < v->box.hi[0]; x++) {
        const long g[3] = {x + c->shift[0], y + c->shift[1], z + c->shift[2]};
        for (int k = 0; k < v->nc; k++)
          *view_at(v, k, x, y, z) = c->fn(g, k, c->ctx);
      }
}

static void fill_piece(const tess_sim_t sim, const tess_tile *t, const piece_view *v, void *arg) {
  fill_ctx c = *(fill_ctx *)arg;
  for (int i = 0; i < 3; i++)
    c.shift[i] = t->origin[i] - sim->ghost[i];
  fill_view(&c, v);
}

/* One StarPU task per piece on the CPU workers: a 512^3 MHD state is 1.07 G values, minutes
 * on one thread. The piece is written on main RAM (W: nothing is fetched); a GPU tile's first
 * task then brings it home. */
typedef struct {
  fill_ctx c;
  int nc;
  tess_box box;
} fill_arg;

static void fill_task(void *buffers[], void *cl_arg) {
  const fill_arg *a = cl_arg;
  const piece_view v = {(double *)STARPU_BLOCK_GET_PTR(buffers[0]),
                        STARPU_BLOCK_GET_LDY(buffers[0]), STARPU_BLOCK_GET_LDZ(buffers[0]), a->nc,
                        a->box};
  fill_view(&a->c, &v);
}

static struct starpu_codelet fill_cl = {
    .cpu_funcs = {fill_task}, .nbuffers = 1, .modes = {STARPU_W}, .name = "fill"};

static tess_err submit_fill(tess_sim_t sim, const tess_tile *t, int piece, starpu_data_handle_t h,
                            int nc, void *ctx) {
  fill_arg *arg = malloc(sizeof *arg);
  TESS_CHECK(arg, TESS_ERR_MEM, "cannot allocate a fill task");
  arg->c = *(const fill_ctx *)ctx;
  for (int i = 0; i < 3; i++)
    arg->c.shift[i] = t->origin[i] - sim->ghost[i];
  arg->nc = nc;
  tess_piece_box(sim->tn, sim->ghost, piece, &arg->box);
  struct starpu_task *task = starpu_task_create();
  task->cl = &fill_cl;
  task->cl_arg = arg;
  task->cl_arg_size = sizeof *arg;
  task->cl_arg_free = 1;
  task->handles[0] = h;
  TESS_STARPU_CALL(starpu_task_submit(task));
  return TESS_OK;
}

tess_err tess_sim_fill(tess_sim_t sim, int field, tess_init_fn fn, void *ctx) {
  fill_ctx c = {fn, ctx, {0, 0, 0}};
  if (starpu_cpu_worker_get_count() == 0) { /* no CPU worker: fill on this thread */
    TESS_CALL(for_each_owned_piece(sim, field, STARPU_W, fill_piece, &c));
  } else {
    TESS_CALL(for_each_owned_handle(sim, field, submit_fill, &c));
    TESS_STARPU_CALL(starpu_task_wait_for_all());
  }
  sim->field[field].halo_valid = 0;
  return TESS_OK;
}

/* Gather: each rank packs its tiles' owned cells, tile after tile, [tz][ty][tx] each. */
typedef struct {
  int comp;
  double *buf;
} gather_ctx;

static void gather_piece(const tess_sim_t sim, const tess_tile *t, const piece_view *v, void *arg) {
  gather_ctx *c = arg;
  const int *tn = sim->tn, *g = sim->ghost;
  double *dst = c->buf + (size_t)(t - sim->tile) * tn[0] * tn[1] * tn[2];
  for (int z = v->box.lo[2]; z < v->box.hi[2]; z++)
    for (int y = v->box.lo[1]; y < v->box.hi[1]; y++)
      for (int x = v->box.lo[0]; x < v->box.hi[0]; x++)
        dst[(x - g[0]) + (size_t)tn[0] * ((y - g[1]) + (size_t)tn[1] * (z - g[2]))] =
            *view_at(v, c->comp, x, y, z);
}

tess_err tess_sim_gather(tess_sim_t sim, int field, int comp, double *global) {
  TESS_CHECK(field >= 0 && field < sim->nfields && comp >= 0 && comp < sim->field[field].nc,
             TESS_ERR_ARG, "field %d component %d is invalid", field, comp);
  const size_t tcells = (size_t)sim->tn[0] * sim->tn[1] * sim->tn[2];
  const size_t mine = tcells * (size_t)sim->ntiles;
  gather_ctx c = {comp, malloc(mine * sizeof(double))};
  double *all = sim->rank == 0 ? malloc(mine * (size_t)sim->nranks * sizeof(double)) : NULL;
  tess_err err = TESS_OK;
  if (!c.buf || (sim->rank == 0 && !all))
    err = TESS_ERROR(TESS_ERR_MEM, "cannot allocate gather buffers");
  else
    TESS_CALL_GOTO(err, done, for_each_owned_piece(sim, field, STARPU_R, gather_piece, &c));
  /* Every rank takes part in the collective even after a local failure, so nobody hangs. */
  if (MPI_Gather(c.buf, (int)mine, MPI_DOUBLE, all, (int)mine, MPI_DOUBLE, 0, sim->comm) !=
      MPI_SUCCESS)
    err = TESS_ERROR(TESS_ERR_MPI, "MPI_Gather failed");
  if (!err && sim->rank == 0) {
    for (int r = 0; r < sim->nranks; r++)
      for (int l = 0; l < sim->ntiles; l++) {
        int gc[3];
        tess_sim_tile_gcoord(sim, r, l, gc);
        const double *src = all + ((size_t)r * sim->ntiles + l) * tcells;
        for (int z = 0; z < sim->tn[2]; z++)
          for (int y = 0; y < sim->tn[1]; y++)
            memcpy(global + (size_t)gc[0] * sim->tn[0] +
                       (size_t)sim->n[0] * ((size_t)gc[1] * sim->tn[1] + y +
                                            (size_t)sim->n[1] * ((size_t)gc[2] * sim->tn[2] + z)),
                   src + (size_t)sim->tn[0] * (y + (size_t)sim->tn[1] * z),
                   sizeof(double) * sim->tn[0]);
      }
  }
done:
  free(c.buf);
  free(all);
  return err;
}

typedef struct {
  int comp;
  tess_stats s;
} stats_ctx;

static void stats_piece(const tess_sim_t sim, const tess_tile *t, const piece_view *v, void *arg) {
  (void)sim;
  (void)t;
  stats_ctx *c = arg;
  for (int z = v->box.lo[2]; z < v->box.hi[2]; z++)
    for (int y = v->box.lo[1]; y < v->box.hi[1]; y++)
      for (int x = v->box.lo[0]; x < v->box.hi[0]; x++) {
        const double u = *view_at(v, c->comp, x, y, z);
        c->s.sum += u;
        c->s.sumsq += u * u;
        if (u < c->s.min) c->s.min = u;
        if (u > c->s.max) c->s.max = u;
        c->s.count++;
      }
}

tess_err tess_sim_stats(tess_sim_t sim, int field, int comp, tess_stats *st) {
  TESS_CHECK(field >= 0 && field < sim->nfields && comp >= 0 && comp < sim->field[field].nc,
             TESS_ERR_ARG, "field %d component %d is invalid", field, comp);
  stats_ctx c = {comp, {0, DBL_MAX, -DBL_MAX, 0, 0}};
  TESS_CALL(for_each_owned_piece(sim, field, STARPU_R, stats_piece, &c));
  double sums[2] = {c.s.sum, c.s.sumsq}, gsums[2];
  long gcount;
  TESS_MPI_CALL(MPI_Allreduce(sums, gsums, 2, MPI_DOUBLE, MPI_SUM, sim->comm));
  TESS_MPI_CALL(MPI_Allreduce(&c.s.min, &st->min, 1, MPI_DOUBLE, MPI_MIN, sim->comm));
  TESS_MPI_CALL(MPI_Allreduce(&c.s.max, &st->max, 1, MPI_DOUBLE, MPI_MAX, sim->comm));
  TESS_MPI_CALL(MPI_Allreduce(&c.s.count, &gcount, 1, MPI_LONG, MPI_SUM, sim->comm));
  st->sum = gsums[0];
  st->sumsq = gsums[1];
  st->count = gcount;
  return TESS_OK;
}

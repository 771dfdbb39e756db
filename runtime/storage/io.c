/* io.c — the synchronisation points users ask for: fill initial data, gather a component to
 * rank 0, global statistics, the finite check. All of them visit the owned pieces of every
 * local tile, after acquiring the tile's dependency tokens: a CPU tile's cells in place, a GPU
 * tile's through host slabs (visit_staged). snapshot.c
 * and checkpoint.c use the same visit (tess_for_each_owned_view).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "sim.h"

typedef tess_view piece_view;

/* Element index of (c, x, y, z) in a view (tess_view_get / tess_view_set take it). */
static inline size_t view_at(const piece_view *v, int c, int x, int y, int z) {
  return (size_t)(x - v->box.lo[0]) + v->ldy * (size_t)((y - v->box.lo[1]) * v->nc + c) +
         v->ldz * (size_t)(z - v->box.lo[2]);
}

/* The owned box of a tile, in padded coordinates. */
static void owned_box(const tess_sim_t sim, tess_box *b) {
  for (int i = 0; i < 3; i++) {
    b->lo[i] = sim->ghost[i];
    b->hi[i] = sim->ghost[i] + sim->tn[i];
  }
}

typedef void (*piece_fn)(const tess_sim_t sim, const tess_tile *t, const piece_view *v, void *ctx);

typedef struct {
  enum starpu_data_access_mode mode;
  piece_fn fn;
  void *ctx;
} acquire_ctx;

#ifdef TESS_HAVE_CUDA
/* A GPU tile's owned cells, visited through host slabs of at most 256 MB: planes copied down
 * (R) with cudaMemcpy2D, handed to fn, copied back up (W). Never a host copy of the whole tile,
 * which for a 512^3 MHD tile (8.9 GB) would mean a pinned allocation of that size and a second
 * copy of the state. A W-only visit skips the download: its callers (fill, restart) write
 * every cell of the view. */
static tess_err visit_staged(tess_sim_t sim, const tess_tile *t, const tess_storage *st, int nc,
                             const acquire_ctx *a) {
  tess_box box;
  owned_box(sim, &box);
  const size_t es = sim->esize, ldy = (size_t)sim->dim[0], ldz = ldy * sim->dim[1] * (size_t)nc;
  char *dev = (char *)st->base +
              es * TESS_IDX(sim->dim[0], sim->dim[1], nc, 0, box.lo[0], box.lo[1], box.lo[2]);
  const size_t bx = (size_t)(box.hi[0] - box.lo[0]), rows = (size_t)(box.hi[1] - box.lo[1]) * nc;
  const size_t plane = bx * rows, nz = (size_t)(box.hi[2] - box.lo[2]);
  size_t slab = plane ? ((size_t)1 << 28) / (plane * es) : 1;
  slab = slab < 1 ? 1 : slab > nz ? nz : slab;
  char *buf = malloc(plane * slab * es);
  tess_err err =
      buf ? TESS_OK
          : TESS_ERROR(TESS_ERR_MEM, "cannot allocate %zu bytes of staging", plane * slab * es);
  int old = -1;
  cudaGetDevice(&old);
  cudaSetDevice(starpu_memory_node_get_devid(t->node));
  for (size_t z0 = 0; !err && z0 < nz; z0 += slab) {
    const size_t n = nz - z0 < slab ? nz - z0 : slab;
    for (size_t k = 0; !err && (a->mode & STARPU_R) && k < n; k++)
      if (cudaMemcpy2D(buf + k * plane * es, bx * es, dev + ldz * (z0 + k) * es, ldy * es, bx * es,
                       rows, cudaMemcpyDefault) != cudaSuccess)
        err = TESS_ERROR(TESS_ERR_CUDA, "copying tile %d to the host failed", t->id);
    piece_view v = {buf, sim->prec, bx, plane, nc, box};
    v.box.lo[2] = box.lo[2] + (int)z0;
    v.box.hi[2] = v.box.lo[2] + (int)n;
    if (!err) a->fn(sim, t, &v, a->ctx);
    for (size_t k = 0; !err && (a->mode & STARPU_W) && k < n; k++)
      if (cudaMemcpy2D(dev + ldz * (z0 + k) * es, ldy * es, buf + k * plane * es, bx * es, bx * es,
                       rows, cudaMemcpyDefault) != cudaSuccess)
        err = TESS_ERROR(TESS_ERR_CUDA, "copying to tile %d on its GPU failed", t->id);
  }
  if (old >= 0) cudaSetDevice(old);
  free(buf);
  return err;
}
#endif

/* Every local tile's owned cells of `field`, in a fixed order, once every task has ended (the
 * tokens order tasks only: tokens.c), seen by fn through the tile's base pointer: in place on a
 * CPU tile, through host slabs on a GPU tile (written back where `mode` writes). */
static tess_err for_each_owned_piece(tess_sim_t sim, int field, enum starpu_data_access_mode mode,
                                     piece_fn fn, void *ctx) {
  TESS_CHECK(sim->is_setup, TESS_ERR_STATE, "the simulation is not set up");
  TESS_CHECK(field >= 0 && field < sim->nfields, TESS_ERR_ARG, "field id %d is invalid", field);
  const tess_field *f = &sim->field[field];
  const acquire_ctx a = {mode, fn, ctx};
  TESS_CALL(tess_task_quiesce(sim));
  for (int l = 0; l < sim->ntiles; l++) {
    const tess_tile *t = &sim->tile[l];
    const tess_storage *st = &t->slot[f->slot];
    tess_err err = TESS_OK;
#ifdef TESS_HAVE_CUDA
    if (t->node != STARPU_MAIN_RAM)
      err = visit_staged(sim, t, st, f->nc, &a);
    else
#elif defined(TESS_SIMGRID)
    /* SimGrid: a simulated GPU's memory is an address range, not memory; nothing to visit */
    if (t->node != STARPU_MAIN_RAM)
      ;
    else
#endif
    {
      piece_view v = {
          NULL,  sim->prec, (size_t)sim->dim[0], (size_t)sim->dim[0] * sim->dim[1] * (size_t)f->nc,
          f->nc, {{0}, {0}}};
      owned_box(sim, &v.box);
      v.ptr = (char *)st->base + sim->esize * TESS_IDX(sim->dim[0], sim->dim[1], f->nc, 0,
                                                       v.box.lo[0], v.box.lo[1], v.box.lo[2]);
      a.fn(sim, t, &v, a.ctx);
    }
    TESS_CALL(err);
  }
  return TESS_OK;
}

tess_err tess_for_each_owned_view(tess_sim_t sim, int field, enum starpu_data_access_mode mode,
                                  tess_view_fn fn, void *ctx) {
  return for_each_owned_piece(sim, field, mode, fn, ctx);
}

/* Fill: value of component k at global cell g = fn(g, k, ctx) for every owned cell. */
typedef struct {
  tess_init_fn fn;
  void *ctx;
  long shift[3]; /* global index = padded tile coordinate + shift */
} fill_ctx;

static void fill_rows(const fill_ctx *c, const piece_view *v, int z0, int z1) {
  for (int z = z0; z < z1; z++)
    for (int y = v->box.lo[1]; y < v->box.hi[1]; y++)
      for (int x = v->box.lo[0]; x < v->box.hi[0]; x++) {
        const long g[3] = {x + c->shift[0], y + c->shift[1], z + c->shift[2]};
        for (int k = 0; k < v->nc; k++)
          tess_view_set(v, view_at(v, k, x, y, z), c->fn(g, k, c->ctx));
      }
}

typedef struct {
  const fill_ctx *c;
  const piece_view *v;
  int z0, z1;
} fill_part;

static void *fill_thread(void *arg) {
  const fill_part *p = arg;
  fill_rows(p->c, p->v, p->z0, p->z1);
  return NULL;
}

/* A 512^3 MHD state is 1.07 G values, most of them in one tile: minutes on one thread, so big views
 * are filled by one thread per core, in z slabs. */
static void fill_piece(const tess_sim_t sim, const tess_tile *t, const piece_view *v, void *arg) {
  fill_ctx c = *(fill_ctx *)arg;
  for (int i = 0; i < 3; i++)
    c.shift[i] = t->origin[i] - sim->ghost[i];
  const int nz = v->box.hi[2] - v->box.lo[2];
  const long cells = (long)nz * (v->box.hi[1] - v->box.lo[1]) * (v->box.hi[0] - v->box.lo[0]);
  long nt = sysconf(_SC_NPROCESSORS_ONLN);
  if (nt > 64) nt = 64;
  if (nt > nz) nt = nz;
  if (cells < (1L << 20) || nt < 2) {
    fill_rows(&c, v, v->box.lo[2], v->box.hi[2]);
    return;
  }
  pthread_t th[64];
  fill_part part[64];
  int started = 0;
  for (; started < nt; started++) {
    part[started] = (fill_part){&c, v, v->box.lo[2] + (int)(nz * started / nt),
                                v->box.lo[2] + (int)(nz * (started + 1) / nt)};
    if (pthread_create(&th[started], NULL, fill_thread, &part[started])) break;
  }
  if (started < nt) /* no more threads: the rest on this one */
    fill_rows(&c, v, v->box.lo[2] + (int)(nz * started / nt), v->box.hi[2]);
  for (int i = 0; i < started; i++)
    pthread_join(th[i], NULL);
}

tess_err tess_sim_fill(tess_sim_t sim, int field, tess_init_fn fn, void *ctx) {
  fill_ctx c = {fn, ctx, {0, 0, 0}};
  const double t0 = tess_now();
  TESS_CALL(for_each_owned_piece(sim, field, STARPU_W, fill_piece, &c));
  tess_log(TESS_LOG_INFO, "fill of field '%s': %.3f s", sim->field[field].name, tess_now() - t0);
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
            tess_view_get(v, view_at(v, c->comp, x, y, z));
}

tess_err tess_sim_gather(tess_sim_t sim, int field, int comp, double *global) {
  TESS_CHECK(field >= 0 && field < sim->nfields && comp >= 0 && comp < sim->field[field].nc,
             TESS_ERR_ARG, "field %d component %d is invalid", field, comp);
  const size_t tcells = (size_t)sim->tn[0] * sim->tn[1] * sim->tn[2];
  const size_t mine = tcells * (size_t)sim->ntiles;
  /* zeroed: a SimGrid build visits no simulated GPU memory, and gathers zeros from it */
  gather_ctx c = {comp, calloc(mine, sizeof(double))};
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
        const double u = tess_view_get(v, view_at(v, c->comp, x, y, z));
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

/* ---- finite check ------------------------------------------------------------------------ */

/* The first non-finite value of a rank, ordered by (field, global linear cell index,
 * component): key = (field * ncells + cell) * nc_max + comp, so the smallest key over all ranks
 * is the same cell whatever the decomposition. */
typedef struct {
  int field, nc_max;
  long key, n[3];
  double value;
} finite_ctx;

static void finite_piece(const tess_sim_t sim, const tess_tile *t, const piece_view *v, void *arg) {
  finite_ctx *c = arg;
  const long ncells = c->n[0] * c->n[1] * c->n[2];
  for (int z = v->box.lo[2]; z < v->box.hi[2]; z++)
    for (int y = v->box.lo[1]; y < v->box.hi[1]; y++)
      for (int k = 0; k < v->nc; k++)
        for (int x = v->box.lo[0]; x < v->box.hi[0]; x++) {
          const double u = tess_view_get(v, view_at(v, k, x, y, z));
          if (isfinite(u)) continue;
          const long g[3] = {t->origin[0] + x - sim->ghost[0], t->origin[1] + y - sim->ghost[1],
                             t->origin[2] + z - sim->ghost[2]};
          const long cell = g[0] + c->n[0] * (g[1] + c->n[1] * g[2]);
          const long key = ((long)c->field * ncells + cell) * c->nc_max + k;
          if (key < c->key) {
            c->key = key;
            c->value = u;
          }
        }
}

tess_err tess_sim_check_finite(tess_sim_t sim, int nfields, const int *fields, tess_nonfinite *nf) {
  TESS_CHECK(nf, TESS_ERR_ARG, "tess_sim_check_finite needs a result struct");
  TESS_CHECK(nfields <= 0 || fields, TESS_ERR_ARG, "tess_sim_check_finite: fields is NULL");
  finite_ctx c = {0, 1, LONG_MAX, {sim->n[0], sim->n[1], sim->n[2]}, 0};
  for (int f = 0; f < sim->nfields; f++)
    if (sim->field[f].nc > c.nc_max) c.nc_max = sim->field[f].nc;
  for (int i = 0; i < (nfields > 0 ? nfields : sim->nfields); i++) {
    c.field = nfields > 0 ? fields[i] : i;
    if (nfields <= 0 && sim->field[i].temporary) continue; /* stale between steps */
    TESS_CALL(for_each_owned_piece(sim, c.field, STARPU_R, finite_piece, &c));
  }
  long key;
  TESS_MPI_CALL(MPI_Allreduce(&c.key, &key, 1, MPI_LONG, MPI_MIN, sim->comm));
  memset(nf, 0, sizeof *nf);
  if (key == LONG_MAX) return TESS_OK;
  /* The owner tells what it saw: 0 NaN, 1 +Inf, 2 -Inf. */
  int kind = key != c.key ? -1 : isnan(c.value) ? 0 : c.value > 0 ? 1 : 2, gkind;
  TESS_MPI_CALL(MPI_Allreduce(&kind, &gkind, 1, MPI_INT, MPI_MAX, sim->comm));
  const long ncells = c.n[0] * c.n[1] * c.n[2], cell = (key / c.nc_max) % ncells;
  nf->found = 1;
  nf->field = (int)(key / c.nc_max / ncells);
  nf->comp = (int)(key % c.nc_max);
  nf->cell[0] = cell % c.n[0];
  nf->cell[1] = (cell / c.n[0]) % c.n[1];
  nf->cell[2] = cell / (c.n[0] * c.n[1]);
  nf->value = gkind == 0 ? NAN : gkind == 1 ? INFINITY : -INFINITY;
  return TESS_OK;
}

/* sim.c — a simulation's life cycle: create, configure, setup (validate, decompose, allocate
 * tiles and register their pieces with StarPU), destroy. See sim.h for the grids' vocabulary. */
#include "sim.h"

#include <math.h>
#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decomp.h"
#include "error.h"

static const char axis_name[3] = {'x', 'y', 'z'};

tess_err tess_sim_create(MPI_Comm comm, const int n[3], tess_sim_t *out) {
  *out = NULL;
  for (int i = 0; i < 3; i++)
    TESS_CHECK(n[i] >= 1, TESS_ERR_ARG, "grid extent n%c = %d is invalid (allowed: >= 1)",
               axis_name[i], n[i]);
  tess_sim_t sim = calloc(1, sizeof *sim);
  TESS_CHECK(sim, TESS_ERR_MEM, "cannot allocate a simulation");
  const tess_err e = tess_comm_take(comm, &sim->comm);
  if (e) {
    free(sim);
    return e;
  }
  MPI_Comm_rank(sim->comm, &sim->rank);
  MPI_Comm_size(sim->comm, &sim->nranks);
  for (int i = 0; i < 3; i++) {
    sim->n[i] = n[i];
    sim->h[i] = 1.0;
  }
  sim->mode = TESS_MODE_OVERLAP;
  sim->device = TESS_DEVICE_AUTO;
  sim->prec = TESS_FP64;
  sim->esize = sizeof(double);
  sim->strategy = TESS_STRATEGY_AUTO;
  sim->periodic[0] = sim->periodic[1] = sim->periodic[2] = 1;
  pthread_mutex_init(&sim->log_lock, NULL);
  *out = sim;
  return TESS_OK;
}

#define TESS_CHECK_NOT_SETUP(sim)                                                                  \
  TESS_CHECK(!(sim)->is_setup, TESS_ERR_STATE, "%s must be called before tess_sim_setup", __func__)

tess_err tess_sim_set_mode(tess_sim_t sim, tess_mode mode) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK((unsigned)mode < TESS_MODE_COUNT, TESS_ERR_ARG, "mode %d is invalid", (int)mode);
  sim->mode = mode;
  return TESS_OK;
}

tess_err tess_sim_set_device(tess_sim_t sim, tess_device device) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK((unsigned)device < TESS_DEVICE_COUNT, TESS_ERR_ARG, "device %d is invalid",
             (int)device);
  sim->device = device;
  return TESS_OK;
}

tess_err tess_sim_set_wrap(tess_sim_t sim, int on) {
  TESS_CHECK_NOT_SETUP(sim);
  sim->no_wrap = !on;
  return TESS_OK;
}

tess_err tess_sim_set_unpack_in_class(tess_sim_t sim, int on) {
  TESS_CHECK_NOT_SETUP(sim);
  sim->no_unpack_in_class = !on;
  return TESS_OK;
}

tess_err tess_sim_set_precision(tess_sim_t sim, tess_precision prec) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK((unsigned)prec < TESS_PRECISION_COUNT, TESS_ERR_ARG, "precision %d is invalid",
             (int)prec);
  sim->prec = prec;
  sim->esize = prec == TESS_FP32 ? sizeof(float) : sizeof(double);
  return TESS_OK;
}

tess_precision tess_sim_precision(const tess_sim_t sim) { return sim->prec; }

tess_err tess_sim_set_tiles(tess_sim_t sim, int tiles) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK(tiles >= 0 && tiles <= 4096, TESS_ERR_ARG,
             "tiles per rank = %d is invalid (allowed: 1..4096, or 0 for automatic)", tiles);
  sim->tiles_req = tiles;
  return TESS_OK;
}

tess_err tess_sim_set_procs(tess_sim_t sim, const int p[3]) {
  TESS_CHECK_NOT_SETUP(sim);
  for (int i = 0; i < 3; i++)
    sim->procs_req[i] = p[i];
  return TESS_OK;
}

tess_err tess_sim_set_spacing(tess_sim_t sim, const double h[3]) {
  TESS_CHECK_NOT_SETUP(sim);
  for (int i = 0; i < 3; i++) {
    TESS_CHECK(h[i] > 0 && isfinite(h[i]), TESS_ERR_ARG,
               "grid spacing h%c = %g is invalid (allowed: > 0)", axis_name[i], h[i]);
    sim->h[i] = h[i];
  }
  return TESS_OK;
}

tess_err tess_sim_add_field(tess_sim_t sim, const char *name, int ncomp, int *id) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK(sim->nfields < TESS_MAX_FIELDS, TESS_ERR_ARG, "too many fields (at most %d)",
             TESS_MAX_FIELDS);
  TESS_CHECK(ncomp >= 1 && ncomp <= 64, TESS_ERR_ARG,
             "field '%s' has %d components (allowed: 1..64)", name, ncomp);
  tess_field *f = &sim->field[sim->nfields];
  snprintf(f->name, sizeof f->name, "%s", name);
  f->nc = ncomp;
  f->slot = sim->nfields;
  *id = sim->nfields++;
  return TESS_OK;
}

tess_err tess_sim_add_temporary(tess_sim_t sim, const char *name, int ncomp, int *id) {
  TESS_CALL(tess_sim_add_field(sim, name, ncomp, id));
  sim->field[*id].temporary = 1;
  return TESS_OK;
}

tess_err tess_sim_set_strategy(tess_sim_t sim, tess_strategy s) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK((unsigned)s < TESS_STRATEGY_COUNT, TESS_ERR_ARG, "strategy %d is invalid", (int)s);
  sim->strategy = s;
  return TESS_OK;
}

tess_err tess_sim_set_footprint_check(tess_sim_t sim, int on) {
  TESS_CHECK_NOT_SETUP(sim);
  sim->fpcheck = on != 0;
  return TESS_OK;
}

/* What the footprint check of stage op names: reaches, kernel and field names. */
static tess_err fpcheck_init(tess_sim_t sim, tess_op *op) {
  tess_fpcheck *fc = op->check = calloc(1, sizeof *fc);
  TESS_CHECK(fc, TESS_ERR_MEM, "cannot allocate a footprint check");
  const tess_stage *st = &op->stage;
  snprintf(fc->kernel, sizeof fc->kernel, "%s", st->kernel->name ? st->kernel->name : "?");
  fc->shape = st->kernel->shape;
  for (int k = 0; k < st->nin; k++) {
    fc->reach[k] = op->reach[k];
    snprintf(fc->in_name[k], sizeof fc->in_name[k], "%s", sim->field[st->in[k]].name);
  }
  for (int k = 0; k < st->nout; k++)
    snprintf(fc->out_name[k], sizeof fc->out_name[k], "%s", sim->field[st->out[k]].name);
  return TESS_OK;
}

tess_strategy tess_sim_strategy(const tess_sim_t sim, const char **why) {
  if (why) *why = sim->strategy_why;
  return sim->strategy;
}

static tess_err check_field(tess_sim_t sim, int f, const char *what) {
  TESS_CHECK(f >= 0 && f < sim->nfields, TESS_ERR_ARG, "%s field id %d is invalid (allowed: 0..%d)",
             what, f, sim->nfields - 1);
  return TESS_OK;
}

static tess_err check_stage(tess_sim_t sim, const tess_stage *st) {
  const tess_kernel *k = st->kernel;
  TESS_CHECK(k && k->cpu, TESS_ERR_ARG, "a stage needs a kernel with a CPU function");
  TESS_CHECK((unsigned)k->shape < TESS_SHAPE_COUNT, TESS_ERR_ARG, "kernel '%s': invalid shape %d",
             k->name, (int)k->shape);
  TESS_CHECK(k->radius >= 0 && k->radius <= 8, TESS_ERR_ARG,
             "kernel '%s': stencil radius %d is invalid (allowed: 0..8)", k->name, k->radius);
  TESS_CHECK(k->nreach == 0 || (k->nreach >= st->nin && k->nreach <= TESS_MAX_IO), TESS_ERR_ARG,
             "kernel '%s' declares the reach of %d inputs, the stage has %d (allowed: 0, or "
             "%d..%d)",
             k->name, k->nreach, st->nin, st->nin, TESS_MAX_IO);
  for (int j = 0; j < k->nreach; j++)
    for (int i = 0; i < 3; i++)
      TESS_CHECK(k->reach[j].lo[i] <= 0 && k->reach[j].lo[i] >= -8 && k->reach[j].hi[i] >= 0 &&
                     k->reach[j].hi[i] <= 8,
                 TESS_ERR_ARG,
                 "kernel '%s': input %d reaches [%d, %d] along %c (allowed: -8..0 and 0..8)",
                 k->name, j, k->reach[j].lo[i], k->reach[j].hi[i], axis_name[i]);
  TESS_CHECK(st->nin >= 0 && st->nin <= TESS_MAX_IO && st->nout >= 1 && st->nout <= TESS_MAX_IO,
             TESS_ERR_ARG, "kernel '%s': %d inputs and %d outputs (allowed: 0..%d and 1..%d)",
             k->name, st->nin, st->nout, TESS_MAX_IO, TESS_MAX_IO);
  for (int i = 0; i < st->nin; i++)
    TESS_CALL(check_field(sim, st->in[i], "input"));
  for (int i = 0; i < st->nout; i++)
    TESS_CALL(check_field(sim, st->out[i], "output"));
  for (int i = 0; i < st->nin + st->nout; i++)
    for (int j = 0; j < i; j++) {
      const int a = i < st->nin ? st->in[i] : st->out[i - st->nin];
      const int b = j < st->nin ? st->in[j] : st->out[j - st->nin];
      TESS_CHECK(a != b, TESS_ERR_ARG,
                 "kernel '%s': field '%s' appears twice among the stage's inputs and outputs "
                 "(a stage must not write a field it reads through its footprint)",
                 k->name, sim->field[a].name);
    }
  return TESS_OK;
}

tess_err tess_sim_add_stage(tess_sim_t sim, const tess_stage *stage) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK(sim->nops < TESS_MAX_OPS, TESS_ERR_ARG, "too many operations (at most %d)",
             TESS_MAX_OPS);
  TESS_CALL(check_stage(sim, stage));
  tess_op *op = calloc(1, sizeof *op);
  TESS_CHECK(op, TESS_ERR_MEM, "cannot allocate a stage");
  op->kind = TESS_OP_STAGE;
  op->stage = *stage;
  if (stage->params_size) {
    void *copy = malloc(stage->params_size);
    if (!copy) {
      free(op);
      return TESS_ERROR(TESS_ERR_MEM, "cannot copy stage parameters");
    }
    memcpy(copy, stage->params, stage->params_size);
    op->stage.params = copy;
  }
  sim->op[sim->nops++] = op;
  return TESS_OK;
}

tess_err tess_sim_add_swap(tess_sim_t sim, int a, int b) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK(sim->nops < TESS_MAX_OPS, TESS_ERR_ARG, "too many operations (at most %d)",
             TESS_MAX_OPS);
  TESS_CALL(check_field(sim, a, "swap"));
  TESS_CALL(check_field(sim, b, "swap"));
  TESS_CHECK(sim->field[a].nc == sim->field[b].nc, TESS_ERR_ARG,
             "cannot swap '%s' (%d components) with '%s' (%d components)", sim->field[a].name,
             sim->field[a].nc, sim->field[b].name, sim->field[b].nc);
  tess_op *op = calloc(1, sizeof *op);
  TESS_CHECK(op, TESS_ERR_MEM, "cannot allocate a swap");
  op->kind = TESS_OP_SWAP;
  op->swap[0] = a;
  op->swap[1] = b;
  sim->op[sim->nops++] = op;
  return TESS_OK;
}

/* ---- setup ------------------------------------------------------------------------------ */

int tess_sim_tile_owner(const tess_sim_t sim, const int gcoord[3], int *local_index) {
  int rc[3], lc[3];
  for (int i = 0; i < 3; i++) {
    rc[i] = gcoord[i] / sim->T[i];
    lc[i] = gcoord[i] % sim->T[i];
  }
  if (local_index) *local_index = tess_decomp_index(sim->T, lc);
  return tess_decomp_index(sim->P, rc);
}

void tess_sim_tile_gcoord(const tess_sim_t sim, int rank, int local_index, int gcoord[3]) {
  int rc[3], lc[3];
  tess_decomp_coord(sim->P, rank, rc);
  tess_decomp_coord(sim->T, local_index, lc);
  for (int i = 0; i < 3; i++)
    gcoord[i] = rc[i] * sim->T[i] + lc[i];
}

size_t tess_sim_storage_bytes(const tess_sim_t sim, int nc) {
  return (size_t)sim->dim[0] * sim->dim[1] * sim->dim[2] * (size_t)nc * sim->esize;
}

static int uses_cuda(const tess_sim_t sim) {
  return sim->device == TESS_DEVICE_CUDA ||
         (sim->device == TESS_DEVICE_AUTO && tess_ncuda_devices() > 0);
}

/* Default tiles per rank. GPUs: one per GPU (a GPU runs one tile's kernel at a time well; more
 * tiles only add tasks), reduced until the tiles are at least 2*ghost wide.
 * CPUs: about TESS_TILES_PER_WORKER tiles per CPU worker, so that every worker has work and the
 * scheduler can even out tiles that finish at different times, but no tile under
 * TESS_MIN_TILE_CELLS owned cells (a task costs 10-30 us to submit and run, and a smaller tile's
 * sweep would not hide it), and one tile for a single worker (splitting then only adds tasks).
 * Measured (docs/cpu-node.md, 2026-12-07-h100-cpu-node.csv): 16-core H100 hosts, heat order 2,
 * 15 workers, tiles cut z first: 32 tiles (1x4x8) against 64 (2x4x8, the earlier default of 4
 * per worker) 0.245 / 0.295 against 0.350 / 0.409 ms a step at 128^3 in two sweeps and faster
 * than the default's 64 in 4 of 4 alternating rounds, at 256^3 best in both sweeps and faster
 * in 3 of 4 rounds (2 of 4 against 64 asked by --tiles, the same cut); 16 tiles slower
 * than 32 in both sweeps. Before any split, 8 tiles for 15 workers (no divisor of 128 near 15)
 * left 7 workers idle. Of the counts that cut the block evenly, the one nearest the target (by
 * ratio) wins, ties to the larger; bench/cpu-node.sh sweeps 1, 2, 4 and 8 per worker against
 * this default. */
#define TESS_TILES_PER_WORKER 2
#define TESS_MIN_TILE_CELLS   32768L
/* walls: as tess_decomp_tiles_walls's periodic[] (0 on the axes the block spans whole between
 * physical faces). Tiles are cut across z first, then y, then x (decomp.h's weighted cut), on
 * GPUs and CPUs alike: an x cut leaves halo rows of r elements, a cache line each to copy. */
static int tiles_fit(const int block[3], const int *radius, const int walls[3], int tiles,
                     int T[3]) {
  if (tess_decomp_tiles_walls(block, tiles, radius, walls, 1, T) != 0) return 0;
  int ok = 1;
  for (int i = 0; i < 3; i++)
    ok &= block[i] == 1 || block[i] / T[i] >= 2 * radius[i];
  return ok;
}

static int auto_tiles(tess_sim_t sim, const int block[3], const int *radius, const int walls[3]) {
  if (uses_cuda(sim)) {
    const int want = tess_ncuda_devices();
    for (int tiles = want > 0 ? want : 1; tiles >= 1; tiles--)
      if (tiles_fit(block, radius, walls, tiles, sim->T)) return 1;
    return 0;
  }
  const int workers = (int)starpu_cpu_worker_get_count();
  const long cells = (long)block[0] * block[1] * block[2];
  long target = workers > 1 ? (long)TESS_TILES_PER_WORKER * workers : 1;
  if (target > cells / TESS_MIN_TILE_CELLS) target = cells / TESS_MIN_TILE_CELLS;
  if (target < 1) target = 1;
  int best = 0, T[3];
  double best_off = 0.0;
  for (long tiles = 1; tiles <= 2 * target; tiles++) {
    if (!tiles_fit(block, radius, walls, (int)tiles, T)) continue;
    const double off = fabs(log((double)tiles / (double)target));
    if (best == 0 || off <= best_off + 1e-12) {
      best = (int)tiles, best_off = off;
      memcpy(sim->T, T, sizeof T);
    }
  }
  tess_log(TESS_LOG_INFO,
           "tiling: %d tile(s) per rank for %d CPU worker(s) (default: about %d per worker, at "
           "least %ld cells each; aimed at %ld; --tiles N overrides)",
           best ? best : 1, workers, TESS_TILES_PER_WORKER, TESS_MIN_TILE_CELLS, target);
  return best > 0;
}

/* The process and tile grids for the halo widths in sim->ghost (per axis). */
tess_err tess_sim_choose_grids(tess_sim_t sim) {
  const int *radius = sim->ghost;
  char grid[64];
  snprintf(grid, sizeof grid, "%dx%dx%d", sim->n[0], sim->n[1], sim->n[2]);
  if (sim->procs_req[0] > 0) {
    const int *p = sim->procs_req;
    TESS_CHECK(p[0] > 0 && p[1] > 0 && p[2] > 0 && p[0] * p[1] * p[2] == sim->nranks, TESS_ERR_ARG,
               "process grid %dx%dx%d does not match %d ranks", p[0], p[1], p[2], sim->nranks);
    for (int i = 0; i < 3; i++) {
      TESS_CHECK(sim->n[i] % p[i] == 0, TESS_ERR_ARG,
                 "grid %s is not divisible by the process grid %dx%dx%d (n%c = %d, p%c = %d)", grid,
                 p[0], p[1], p[2], axis_name[i], sim->n[i], axis_name[i], p[i]);
      sim->P[i] = p[i];
    }
  } else if (tess_decomp_procs_walls(sim->n, sim->nranks, radius, sim->periodic, 1, sim->P) !=
             0) { /* every rank's block cut z first, then y: its x halos cost most (decomp.c) */
    return TESS_ERROR(
        TESS_ERR_ARG,
        "grid %s cannot be divided evenly over %d ranks (no process grid p0*p1*p2 = %d "
        "with every p_i dividing n_i)",
        grid, sim->nranks, sim->nranks);
  }
  int block[3], walls[3]; /* walls: 0 on the axes whose both physical faces the block holds */
  for (int i = 0; i < 3; i++) {
    block[i] = sim->n[i] / sim->P[i];
    walls[i] = sim->periodic[i] || sim->P[i] > 1;
  }
  if (sim->tiles_req > 0) {
    if (tess_decomp_tiles_walls(block, sim->tiles_req, radius, walls, 1, sim->T) != 0)
      return TESS_ERROR(TESS_ERR_ARG,
                        "the %dx%dx%d block of each rank cannot be divided evenly into %d tiles",
                        block[0], block[1], block[2], sim->tiles_req);
  } else if (!auto_tiles(sim, block, radius, walls)) {
    sim->T[0] = sim->T[1] = sim->T[2] = 1;
  }
  for (int i = 0; i < 3; i++) {
    sim->G[i] = sim->P[i] * sim->T[i];
    sim->tn[i] = sim->n[i] / sim->G[i];
    sim->dim[i] = sim->tn[i] + 2 * sim->ghost[i];
    TESS_CHECK(sim->n[i] == 1 || sim->tn[i] >= 2 * radius[i], TESS_ERR_ARG,
               "grid %s is too small for stencil radius %d along %c: a tile is %d cells along "
               "%c (%d ranks x %d tiles on that axis), at least 2*radius = %d are needed",
               grid, radius[i], axis_name[i], sim->tn[i], axis_name[i], sim->P[i], sim->T[i],
               2 * radius[i]);
  }
  sim->ntiles = sim->T[0] * sim->T[1] * sim->T[2];
  tess_decomp_coord(sim->P, sim->rank, sim->rank_coord);
  return TESS_OK;
}

/* Workers allowed to run a tile's tasks: all CPU workers, or the CUDA workers of one GPU. */
static tess_err place_tiles(tess_sim_t sim) {
  const int nw = (int)starpu_worker_get_count();
  const int words = (nw + 31) / 32;
  const int ndev = tess_ncuda_devices(), use_cuda = uses_cuda(sim);
  TESS_CHECK(!use_cuda || ndev > 0, TESS_ERR_ARG,
             "device 'cuda' was requested but StarPU started no CUDA worker on rank %d", sim->rank);
  int devids[STARPU_NMAXWORKERS];
  const int ndevids = tess_cuda_devids(devids);
  if (!use_cuda) {
    TESS_CHECK(starpu_cpu_worker_get_count() > 0, TESS_ERR_ARG,
               "device 'cpu' was requested but StarPU started no CPU worker");
  }
  for (int l = 0; l < sim->ntiles; l++) {
    tess_tile *t = &sim->tile[l];
    t->workers = calloc((size_t)words, sizeof(uint32_t));
    TESS_CHECK(t->workers, TESS_ERR_MEM, "cannot allocate a worker mask");
    t->workers_len = (unsigned)words;
    t->cuda = use_cuda;
    t->node = STARPU_MAIN_RAM;
    const int dev = use_cuda ? devids[l % ndevids] : -1;
    for (int w = 0; w < nw; w++) {
      const enum starpu_worker_archtype type = starpu_worker_get_type(w);
      const int mine = use_cuda ? type == STARPU_CUDA_WORKER && starpu_worker_get_devid(w) == dev
                                : type == STARPU_CPU_WORKER;
      if (!mine) continue;
      t->workers[w / 32] |= 1u << (w % 32);
      t->node = starpu_worker_get_memory_node((unsigned)w);
    }
  }
  return TESS_OK;
}

/* Before allocating: the bytes each memory node of this rank must hold (every field of every
 * tile living there), against what the node has: the machine's RAM for main memory (shared by
 * the ranks of a node), the GPU's memory as StarPU measured it. A request past either, or past
 * what a size_t can count, is refused with the numbers, not left to fail in malloc. */
static tess_err check_memory(tess_sim_t sim) {
  const double gib = 1024.0 * 1024.0 * 1024.0;
  char grid[64];
  snprintf(grid, sizeof grid, "%dx%dx%d", sim->n[0], sim->n[1], sim->n[2]);
  for (int l = 0; l < sim->ntiles; l++) {
    const unsigned node = sim->tile[l].node;
    int first = 1, tiles = 0;
    for (int k = 0; k < l; k++)
      first &= sim->tile[k].node != node;
    if (!first) continue;
    long double need = 0;
    for (int k = 0; k < sim->ntiles; k++) {
      if (sim->tile[k].node != node) continue;
      tiles++;
      for (int f = 0; f < sim->nfields; f++)
        need += (long double)sim->dim[0] * sim->dim[1] * sim->dim[2] * sim->field[f].nc *
                (long double)sim->esize;
    }
    long double have = -1;
    if (node == STARPU_MAIN_RAM) {
      const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
      if (pages > 0 && page > 0) have = (long double)pages * page;
    } else {
      const starpu_ssize_t total = starpu_memory_get_total(node);
      if (total > 0) have = (long double)total;
    }
    const char *where = node == STARPU_MAIN_RAM ? "main memory" : "its GPU";
    TESS_CHECK(need < (long double)SIZE_MAX / 2, TESS_ERR_MEM,
               "grid %s needs %.3Lg GiB on %s of rank %d (%d tile(s) of %dx%dx%d padded cells, %d "
               "field(s)): more than can be addressed",
               grid, need / gib, where, sim->rank, tiles, sim->dim[0], sim->dim[1], sim->dim[2],
               sim->nfields);
    TESS_CHECK(have < 0 || need <= have, TESS_ERR_MEM,
               "grid %s needs %.1Lf GiB on %s of rank %d (%d tile(s) of %dx%dx%d padded cells, "
               "%d field(s), %zu bytes per value); it has %.1Lf GiB",
               grid, need / gib, where, sim->rank, tiles, sim->dim[0], sim->dim[1], sim->dim[2],
               sim->nfields, sim->esize, have / gib);
  }
  return TESS_OK;
}

static tess_err allocate_storage(tess_sim_t sim, tess_tile *t, int slot, int nc) {
  tess_storage *st = &t->slot[slot];
  const size_t bytes = tess_sim_storage_bytes(sim, nc);
  if (t->node == STARPU_MAIN_RAM) {
    TESS_STARPU_CALL(starpu_malloc(&st->base, bytes));
#ifndef TESS_SIMGRID /* there no task reads a cell, and the tiles share pages (simulate.c) */
    /* Poison: a cell read before anything wrote it shows up as NaN, never as a plausible 0. */
    const tess_view all = {.ptr = st->base, .prec = sim->prec};
    for (size_t i = 0; i < bytes / sim->esize; i++)
      tess_view_set(&all, i, NAN);
#endif
  } else {
    st->base = (void *)starpu_malloc_on_node(t->node, bytes);
  }
  TESS_CHECK(st->base, TESS_ERR_MEM,
             "cannot allocate %zu bytes for field slot %d on memory node %u", bytes, slot, t->node);
  for (int c = 0; c < t->plan->nclass; c++)
    tess_token_register(&st->own[c]);
  for (int l = 0; l < t->plan->nin; l++)
    tess_token_register(&st->halo[l]);
  return TESS_OK;
}

/* Whether StarPU's scheduler is one of the priority-sorted ones, under which a tile's pack
 * (priority TESS_PRIO_HALO) runs before its inner class (TESS_PRIO_INNER) without being told.
 * Under the others (dmda and eager keep no priority order; lws), the inner class waits for the
 * pack (sim->pack_first): a simulated 64-GPU run under dmda 18.8 -> 16.3 ms a step, and on 2
 * cores (lws) 1.5-8.6% faster a round; under dmdas, Tessera's scheduler for GPU ranks, the
 * dependency only added the pack's completion before the inner class could start (simulated 64
 * GPUs 18.6 -> 18.8 ms). docs/simulation.md. */
static int sched_orders_by_priority(void) {
  const struct starpu_sched_policy *p = starpu_sched_ctx_get_sched_policy(0); /* the global one */
  const char *name = p && p->policy_name ? p->policy_name : "";
  return strstr(name, "prio") || !strcmp(name, "dmdas") || !strcmp(name, "dmdasd") ||
         !strcmp(name, "dmdap");
}

tess_err tess_sim_setup(tess_sim_t sim) {
  TESS_CHECK_NOT_SETUP(sim);
  TESS_CHECK(sim->nfields > 0, TESS_ERR_ARG, "the simulation has no field");
  int nstages = 0;
  for (int i = 0; i < sim->nops; i++)
    nstages += sim->op[i]->kind == TESS_OP_STAGE;
  TESS_CHECK(nstages > 0, TESS_ERR_ARG, "the step program has no stage");
  TESS_CALL(tess_program_choose(sim));

  sim->tile = calloc((size_t)sim->ntiles, sizeof *sim->tile);
  TESS_CHECK(sim->tile, TESS_ERR_MEM, "cannot allocate %d tiles", sim->ntiles);
  for (int l = 0; l < sim->ntiles; l++) {
    tess_tile *t = &sim->tile[l];
    tess_sim_tile_gcoord(sim, sim->rank, l, t->gcoord);
    t->id = t->gcoord[0] + sim->G[0] * (t->gcoord[1] + sim->G[1] * t->gcoord[2]);
    for (int i = 0; i < 3; i++)
      t->origin[i] = (long)t->gcoord[i] * sim->tn[i];
  }
  for (int i = 0; sim->prec == TESS_FP32 && i < sim->nops; i++) {
    const tess_kernel *k = sim->op[i]->kind == TESS_OP_STAGE ? sim->op[i]->stage.kernel : NULL;
    TESS_CHECK(!k || k->cpu_f32, TESS_ERR_ARG,
               "kernel '%s' has no single-precision version (use precision 'double')", k->name);
  }
  TESS_CALL(place_tiles(sim));
  TESS_CALL(tess_direct_setup(sim));
  sim->pack_first = !sched_orders_by_priority();
  tess_log(TESS_LOG_INFO, "scheduler: %s",
           sim->pack_first ? "no priority order: a tile's inner class waits for its pack"
                           : "queues in priority order (packs first)");
  for (int i = 0; sim->tile[0].cuda && i < sim->nops; i++) {
    const tess_kernel *k = sim->op[i]->kind == TESS_OP_STAGE ? sim->op[i]->stage.kernel : NULL;
    TESS_CHECK(!k || k->cuda, TESS_ERR_ARG,
               "kernel '%s' has no CUDA version, but the tiles are on GPUs (use device 'cpu')",
               k->name);
    TESS_CHECK(!k || sim->prec != TESS_FP32 || k->cuda_f32, TESS_ERR_ARG,
               "kernel '%s' has no single-precision CUDA version, but the tiles are on GPUs (use "
               "device 'cpu' or precision 'double')",
               k->name);
  }
  tess_program_dirs(sim);
  TESS_CALL(tess_boundary_check(sim)); /* after what each stage reads, and the tiles' devices */
  TESS_CHECK(!sim->fpcheck || !sim->tile[0].cuda, TESS_ERR_ARG,
             "the footprint check runs on CPU tiles only (use device 'cpu')");
  for (int i = 0; i < sim->nops; i++)
    if (sim->op[i]->kind == TESS_OP_STAGE) {
      TESS_CALL(tess_op_init_codelet(sim, sim->op[i], i));
      if (sim->fpcheck) TESS_CALL(fpcheck_init(sim, sim->op[i]));
    }
  TESS_CHECK(tess_plan_build(sim) == 0, TESS_ERR_MEM, "cannot allocate the tiles' plans");
  TESS_CALL(tess_plan_check_writers(sim));
  tess_stage_periodic(sim);
  TESS_CALL(check_memory(sim));
  for (int l = 0; l < sim->ntiles; l++) {
    for (int f = 0; f < sim->nfields; f++)
      TESS_CALL(allocate_storage(sim, &sim->tile[l], f, sim->field[f].nc));
    tess_token_register(&sim->tile[l].pack_token);
  }
  sim->t0 = starpu_timing_now() * 1e-6; /* the task log's clock (tasks.c) */
  sim->is_setup = 1;
  tess_log(TESS_LOG_INFO,
           "setup: grid %dx%dx%d, process grid %dx%dx%d, %d tiles/rank (%dx%dx%d), "
           "tile %dx%dx%d, ghost %dx%dx%d, mode %s, %s precision",
           sim->n[0], sim->n[1], sim->n[2], sim->P[0], sim->P[1], sim->P[2], sim->ntiles, sim->T[0],
           sim->T[1], sim->T[2], sim->tn[0], sim->tn[1], sim->tn[2], sim->ghost[0], sim->ghost[1],
           sim->ghost[2], tess_mode_name(sim->mode), tess_precision_name(sim->prec));
  tess_program_describe(sim);
  tess_plan_describe(sim);
  return TESS_OK;
}

void tess_sim_layout(tess_sim_t sim, int procs[3], int tiles[3]) {
  for (int i = 0; i < 3; i++) {
    if (procs) procs[i] = sim->P[i];
    if (tiles) tiles[i] = sim->T[i];
  }
}

void tess_sim_describe(tess_sim_t sim) {
  if (sim->rank != 0) return;
  printf("grid %dx%dx%d on %d rank(s): process grid %dx%dx%d%s, %d tile(s) per rank (%dx%dx%d) "
         "of %dx%dx%d cells on %s, ghost width %dx%dx%d, %s mode, %s precision%s\n",
         sim->n[0], sim->n[1], sim->n[2], sim->nranks, sim->P[0], sim->P[1], sim->P[2],
         tess_decomp_is_pow2(sim->P) ? " (Morton order)" : "", sim->ntiles, sim->T[0], sim->T[1],
         sim->T[2], sim->tn[0], sim->tn[1], sim->tn[2], sim->tile[0].cuda ? "CUDA" : "CPU",
         sim->ghost[0], sim->ghost[1], sim->ghost[2], tess_mode_name(sim->mode),
         tess_precision_name(sim->prec),
         sim->tile[0].plan->nclass == 1 ? " (one task per tile and stage)" : "");
  const int temps = tess_program_has_temporaries(sim);
  if (temps) printf("strategy %s: %s\n", tess_strategy_name(sim->strategy), sim->strategy_why);
}

double tess_sim_time(tess_sim_t sim) { return sim->time; }
long tess_sim_step(tess_sim_t sim) { return sim->step; }
const char *tess_sim_field_name(tess_sim_t sim, int field) {
  return field >= 0 && field < sim->nfields ? sim->field[field].name : "?";
}

void tess_sim_destroy(tess_sim_t *psim) {
  if (!psim || !*psim) return;
  tess_sim_t sim = *psim;
  if (sim->is_setup) {
    tess_task_quiesce(sim); /* every task ended, the kept ones let go */
    starpu_mpi_wait_for_all(sim->comm);
  }
  free(sim->kept);
  tess_direct_release(sim);
  for (int l = 0; sim->tile && l < sim->ntiles; l++) {
    tess_tile *t = &sim->tile[l];
    for (int f = 0; f < sim->nfields; f++) {
      tess_storage *st = &t->slot[f];
      for (int c = 0; c < TESS_NDIRS; c++)
        if (st->own[c]) tess_token_unregister(st->own[c]);
      for (int c = 0; c < TESS_MAX_LINKS; c++)
        if (st->halo[c]) tess_token_unregister(st->halo[c]);
      if (!st->base) continue;
      if (t->node == STARPU_MAIN_RAM)
        starpu_free(st->base);
      else
        starpu_free_on_node(t->node, (uintptr_t)st->base,
                            tess_sim_storage_bytes(sim, sim->field[f].nc));
    }
    if (t->pack_token) tess_token_unregister(t->pack_token);
    free(t->workers);
  }
  tess_plan_release(sim);
  free(sim->tile);
  for (int i = 0; i < sim->nops; i++) {
    if (sim->op[i]->kind == TESS_OP_STAGE) free((void *)sim->op[i]->stage.params);
    free(sim->op[i]->check);
    free(sim->op[i]);
  }
  free(sim->log);
  tess_boundary_free(sim);
  tess_names_free(sim);
  pthread_mutex_destroy(&sim->log_lock);
  tess_comm_give(&sim->comm, sim->is_setup && sim->nranks > 1);
  free(sim);
  *psim = NULL;
}

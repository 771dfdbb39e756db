/* tasks.c — turning specs into StarPU tasks: the codelet of each stage, one task per class of
 * each tile (plan.h), submission with the tile's worker restriction and priority, the
 * completion log, and the debug delay gate.
 *
 * A stage task's dependencies are tokens (void handles, ordered by tokens.c): the class tokens it
 * reads (R) and writes (W/RW), the halo tokens of the links it reads; a class that unpacks links
 * (plan.h) has their buffers as its handles (R vectors) and writes their halo tokens. The kernel
 * addresses the
 * tile through the base pointers in its tess_region, which are valid because a tile's tasks
 * only run on workers of the memory node its storage lives on; stage_check() checks that on
 * every call.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__GLIBC__) && !defined(TESS_SIMGRID) /* SMPI's malloc macros (smpicc) clash */
#include <malloc.h>
#endif

#include "error.h"
#include "pack.h"
#include "sim.h"

double tess_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The cl_arg of a stage task: a stage_arg, then a chain of blocks, each a stage_block, the
 * stage's parameters and (a tile of one class) the moves of its local halo copies, which run
 * before the kernel on the same stream. A task is one block, except on a rank whose only tile
 * has no neighbour but itself: there one task runs many stages (tess_chain: step.c
 * cuts a tess_sim_run call after its first step), since nothing can overlap with it and each
 * task boundary idles the device. */
typedef struct {
  unsigned node; /* the memory node the tile lives on */
  int nblock;
  long cells; /* updated per task run: the perf model's footprint */
} stage_arg;

typedef struct {
  tess_region r;
  const tess_kernel *kernel;
  int nbox; /* the class's boxes, one kernel call each */
  tess_box box[TESS_NDIRS];
  const tess_fpcheck *check; /* the footprint check (sim.c), NULL: off */
  size_t size;      /* bytes of the block, parameters and moves included (16-byte multiple) */
  size_t moves_at;  /* offset of the tess_moves in the block, 0: none */
  size_t unpack_at; /* offset of the hosted unpacks' tess_moves (buffers 0..), 0: none */
} stage_block;

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

static stage_block *first_block(stage_arg *a) {
  return (stage_block *)((char *)a + round16(sizeof *a));
}

/* Checks the promise that makes base pointers valid: the task runs on a worker of the tile's
 * memory node. */
static stage_arg *stage_check(void *cl_arg) {
  stage_arg *a = cl_arg;
  const int w = starpu_worker_get_id();
  if (w < 0 || starpu_worker_get_memory_node((unsigned)w) != a->node) {
    fprintf(stderr, "tessera: kernel '%s' runs on a memory node that does not hold its tile\n",
            first_block(a)->kernel->name);
    abort();
  }
  return a;
}

/* Block b's region, pointed at its parameters (cl_arg may have moved), its moves and its hosted
 * unpacks (with the pointers of their buffers). */
static const tess_moves *block_prepare(stage_block *b, void *buffers[], const tess_moves **unpack,
                                       void *buf[TESS_MOVES_MAXBUF]) {
  b->r.params = b + 1;
  *unpack = b->unpack_at ? (const tess_moves *)((char *)b + b->unpack_at) : NULL;
  if (*unpack) tess_moves_buffers(buffers, *unpack, buf);
  return b->moves_at ? (const tess_moves *)((char *)b + b->moves_at) : NULL;
}

static void set_box(tess_region *r, const tess_box *box) {
  for (int i = 0; i < 3; i++) {
    r->lo[i] = box->lo[i];
    r->hi[i] = box->hi[i];
  }
}

static void stage_cpu(void *buffers[], void *cl_arg) {
  stage_arg *a = stage_check(cl_arg);
  stage_block *b = first_block(a);
  for (int k = 0; k < a->nblock; k++, b = (stage_block *)((char *)b + b->size)) {
    const tess_moves *unpack;
    void *buf[TESS_MOVES_MAXBUF];
    const tess_moves *moves = block_prepare(b, buffers, &unpack, buf);
    if (unpack) tess_moves_cpu(unpack, buf);
    if (moves) tess_moves_cpu(moves, NULL);
    const tess_cpu_fn fn = b->r.prec == TESS_FP32 ? b->kernel->cpu_f32 : b->kernel->cpu;
    for (int i = 0; i < b->nbox; i++) {
      set_box(&b->r, &b->box[i]);
      fn(&b->r);
      if (b->check) tess_fpcheck_box(&b->r, fn, b->check);
    }
  }
}

#ifdef TESS_HAVE_CUDA
/* A kernel that fills walls itself (tess_kernel.fills) takes a block's moves when they are only
 * face fills of its input 0, one component, one per face (a lone walled tile's): r->walls then
 * lists them and the fill launch before the kernel is saved (heat 256^3 on one GPU: about 10 us
 * a step, most of it the x faces, one 32-byte sector per ghost cell, which the kernel's own plane
 * loads read anyway). Anything else (copies, edges, corners, functions, other fields) keeps the
 * moves, and r->nwalls is 0. */
static int take_walls(tess_region *r, const tess_moves *m) {
  r->nwalls = 0;
  if (r->nin < 1 || r->in_nc[0] != 1 || m->n > TESS_MAX_WALLS) return 0;
  unsigned seen = 0;
  tess_wall w[TESS_MAX_WALLS];
  for (int i = 0; i < m->n; i++) {
    const tess_move *v = &m->m[i];
    const tess_bcfill *bc = &v->bc;
    if (!bc->kind || bc->kind == TESS_BC_FUNCTION || v->nc != 1 || bc->comp != 0 ||
        v->dst.ptr != (const void *)r->in[0] || v->src.ptr != v->dst.ptr)
      return 0;
    const int a = bc->axis, g = r->ghost[a], n = r->dim[a] - 2 * g, depth = v->ext[a];
    const unsigned bit = 1u << (2 * a + (bc->side > 0));
    if (seen & bit || bc->face != (bc->side < 0 ? g : g + n - 1) || depth < 1 ||
        v->dst.lo[a] != (bc->side < 0 ? g - depth : g + n))
      return 0;
    for (int t = 0; t < 3; t++)
      if (t != a && (v->dst.lo[t] != r->ghost[t] || v->ext[t] != r->dim[t] - 2 * r->ghost[t]))
        return 0;
    seen |= bit;
    w[i] = (tess_wall){.kind = bc->kind,
                       .axis = a,
                       .side = bc->side,
                       .face = bc->face,
                       .depth = depth,
                       .value = bc->value};
  }
  for (int i = 0; i < m->n; i++)
    r->wall[i] = w[i];
  r->nwalls = m->n;
  return 1;
}

static void stage_cuda(void *buffers[], void *cl_arg) {
  stage_arg *a = stage_check(cl_arg);
  cudaStream_t s = starpu_cuda_get_local_stream();
  stage_block *b = first_block(a);
  for (int k = 0; k < a->nblock; k++, b = (stage_block *)((char *)b + b->size)) {
    const tess_moves *unpack;
    void *buf[TESS_MOVES_MAXBUF];
    const tess_moves *moves = block_prepare(b, buffers, &unpack, buf);
    if (unpack) tess_moves_cuda(unpack, buf, s);
    b->r.nwalls = 0;
    if (moves && !(!unpack && (b->kernel->fills & TESS_FILLS_CUDA) && take_walls(&b->r, moves)))
      tess_moves_cuda(moves, NULL, s);
    const tess_cuda_fn fn = b->r.prec == TESS_FP32 ? b->kernel->cuda_f32 : b->kernel->cuda;
    for (int i = 0; i < b->nbox; i++) {
      set_box(&b->r, &b->box[i]);
      fn(&b->r, s);
    }
  }
}
#endif

/* The default footprint hashes the buffers' sizes, all 0 for tokens: the cells updated tell
 * tasks of one codelet apart instead (classes differ in size, chains in length). */
static uint32_t stage_footprint(struct starpu_task *task) {
  const stage_arg *a = task->cl_arg;
  return starpu_hash_crc32c_be((uint32_t)a->cells, (uint32_t)(a->cells >> 32));
}

/* The size StarPU records with each history entry: the cells updated (program.c reads them
 * back to measure the stages' bandwidth for the strategy cost model). */
static size_t stage_size(struct starpu_task *task, unsigned nimpl) {
  (void)nimpl;
  return (size_t)((const stage_arg *)task->cl_arg)->cells;
}

/* StarPU keeps every performance model a task used registered, by address, until
 * starpu_shutdown, which saves its history and clears it: a model must outlive the sim whose
 * codelets used it. So models live for the process (freed by tess_finalize), one per symbol,
 * shared by later sims running the same stage (they share the history file anyway). */
typedef struct tess_model {
  struct tess_model *next;
  struct starpu_perfmodel model;
  char symbol[64];
} tess_model;
static tess_model *models;
static pthread_mutex_t models_lock = PTHREAD_MUTEX_INITIALIZER;

static struct starpu_perfmodel *stage_model(const char *symbol) {
  pthread_mutex_lock(&models_lock);
  tess_model *m = models;
  while (m && strcmp(m->symbol, symbol) != 0)
    m = m->next;
  if (!m && (m = calloc(1, sizeof *m))) {
    snprintf(m->symbol, sizeof m->symbol, "%s", symbol);
    m->model.type = STARPU_HISTORY_BASED;
    m->model.symbol = m->symbol;
    m->model.footprint = stage_footprint;
    m->model.size_base = stage_size;
#ifdef TESS_SIMGRID
    tess_simgrid_model(&m->model);
#endif
    m->next = models;
    models = m;
  }
  pthread_mutex_unlock(&models_lock);
  return m ? &m->model : NULL;
}

void tess_task_models_free(void) {
  pthread_mutex_lock(&models_lock);
  while (models) {
    tess_model *next = models->next;
    free(models);
    models = next;
  }
  pthread_mutex_unlock(&models_lock);
}

tess_err tess_op_init_codelet(tess_sim_t sim, tess_op *op, int index) {
  const tess_kernel *k = op->stage.kernel;
  (void)sim;
  static const char *const part[3] = {"inner", "outer", "chain"};
  for (int outer = 0; outer < 3; outer++) {
    struct starpu_codelet *cl = &op->cl[outer];
    starpu_codelet_init(cl);
    cl->cpu_funcs[0] = stage_cpu;
    cl->where = STARPU_CPU;
#if defined(TESS_HAVE_CUDA) || defined(TESS_SIMGRID)
    if (k->cuda) {
      cl->cuda_funcs[0] = TESS_SIM_CUDA(stage_cuda);
      cl->cuda_flags[0] = STARPU_CUDA_ASYNC;
      cl->where |= STARPU_CUDA;
    }
#endif
    cl->nbuffers = STARPU_VARIABLE_NBUFFERS;
    cl->name = k->name;
    cl->color = tess_task_kind_color(outer == 1 ? TESS_TASK_OUTER : TESS_TASK_INNER);
    /* inner and outer classes, and chains, differ in size and shape: separate histories */
    char symbol[64];
    snprintf(symbol, sizeof symbol, "tess_%s_%d_%s", k->name ? k->name : "stage", index,
             part[outer]);
    cl->model = stage_model(symbol);
    TESS_CHECK(cl->model, TESS_ERR_MEM, "cannot allocate a performance model");
  }
  return TESS_OK;
}

static int is_token(starpu_data_handle_t h) {
  return starpu_data_get_interface_id(h) == STARPU_VOID_INTERFACE_ID &&
         starpu_data_get_user_data(h) != NULL;
}

/* A handle already in the task gets the union of both modes: StarPU then orders the task once
 * against that handle's other users; a token goes to the task's tokens instead. */
void tess_task_spec_add(tess_task_spec *spec, starpu_data_handle_t h,
                        enum starpu_data_access_mode m) {
  if (is_token(h)) {
    tess_token *k = starpu_data_get_user_data(h);
    for (int i = 0; i < spec->ntok; i++)
      if (spec->tok[i] == k) {
        spec->tmode[i] |= m;
        return;
      }
    if (spec->ntok >= TESS_MAXTOK) {
      fprintf(stderr, "tessera: a task needs more than %d dependency tokens\n", TESS_MAXTOK);
      abort();
    }
    spec->tok[spec->ntok] = k;
    spec->tmode[spec->ntok++] = m;
    return;
  }
  for (int i = 0; i < spec->nbuf; i++)
    if (spec->handle[i] == h) {
      spec->mode[i] |= m;
      return;
    }
  if (spec->nbuf >= STARPU_NMAXBUFS) {
    fprintf(stderr, "tessera: a task needs more than STARPU_NMAXBUFS = %d buffers\n",
            STARPU_NMAXBUFS);
    abort();
  }
  spec->handle[spec->nbuf] = h;
  spec->mode[spec->nbuf++] = m;
}

void tess_task_spec_add_own(tess_task_spec *spec, const tess_storage *st, uint32_t classes,
                            enum starpu_data_access_mode m) {
  for (int c = 0; c < TESS_NDIRS; c++)
    if ((classes >> c) & 1) tess_task_spec_add(spec, st->own[c], m);
}

/* StarPU 1.3 allocates a task and a job (~6 KB: 64 buffer slots in each) for every task on the
 * submitting thread, and a worker frees them when the task ends. Under glibc's default trim
 * threshold (128 KB) the heap's top went back to the kernel and was faulted in again chunk after
 * chunk, each give-back flushing the TLBs of the workers' cores (perf, 8 buffered tiles: page
 * faults under StarPU's calloc, TLB shootdowns). A 64 MB threshold keeps those pages. Once per
 * process, unless the user set one (MALLOC_TRIM_THRESHOLD_, GLIBC_TUNABLES). */
void tess_task_heap_policy(void) {
#if defined(__GLIBC__) && !defined(TESS_SIMGRID) /* a simulated run's heap is not timed */
  static int done;
  if (done) return;
  done = 1;
  const char *tunables = getenv("GLIBC_TUNABLES");
  if (getenv("MALLOC_TRIM_THRESHOLD_") || (tunables && strstr(tunables, "trim_threshold"))) return;
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

/* ---- completion log and delay gate -------------------------------------------------------- */

typedef struct {
  tess_sim_t sim;
  tess_task_record rec;
} log_arg;

static double seconds(struct timespec ts) { return starpu_timing_timespec_to_us(&ts) * 1e-6; }

/* The task's callback: its times from StarPU's profiling record (start and end of the kernel),
 * else the callback's own time, after the task released its data. */
static void log_done(void *arg) {
  log_arg *a = arg;
  tess_sim_t sim = a->sim;
  const struct starpu_task *task = starpu_task_get_current();
  const struct starpu_profiling_task_info *pi = task ? task->profiling_info : NULL;
  const int timed = pi && pi->end_time.tv_sec + pi->end_time.tv_nsec > 0;
  a->rec.t_end = (timed ? seconds(pi->end_time) : starpu_timing_now() * 1e-6) - sim->t0;
  a->rec.t_start = timed ? seconds(pi->start_time) - sim->t0 : (double)NAN;
  a->rec.worker = timed ? pi->workerid : starpu_worker_get_id();
  pthread_mutex_lock(&sim->log_lock);
  if (sim->log_len == sim->log_cap) {
    size_t cap = sim->log_cap ? 2 * sim->log_cap : 1024;
    tess_task_record *grown = realloc(sim->log, cap * sizeof *grown);
    if (grown) {
      sim->log = grown;
      sim->log_cap = cap;
    }
  }
  if (sim->log_len < sim->log_cap) sim->log[sim->log_len++] = a->rec;
  pthread_mutex_unlock(&sim->log_lock);
}

/* The delay gate is two no-op tasks on the held-back buffer: G1 runs right after the buffer's
 * producer and its callback starts a timer; G2 also waits for a tag the timer notifies. No
 * worker sleeps, so every other task keeps running -- exactly a slow link. */
typedef struct {
  starpu_tag_t tag;
  double seconds;
} gate_arg;

static void *gate_timer(void *arg) {
  gate_arg *g = arg;
  struct timespec ts = {(time_t)g->seconds,
                        (long)((g->seconds - (double)(time_t)g->seconds) * 1e9)};
  nanosleep(&ts, NULL);
  starpu_tag_notify_from_apps(g->tag);
  free(g);
  return NULL;
}

static void gate_start(void *arg) {
  pthread_t th;
  pthread_create(&th, NULL, gate_timer, arg);
  pthread_detach(th);
}

static void gate_noop(void *buffers[], void *cl_arg) {
  (void)buffers;
  (void)cl_arg;
}

static struct starpu_codelet gate_cl = {
    .cpu_funcs = {gate_noop},
    .nbuffers = 1,
    .modes = {STARPU_RW},
    .name = "delay",
};

tess_err tess_task_submit(tess_sim_t sim, const tess_task_spec *spec) {
  struct starpu_task *t = starpu_task_create();
  t->cl = spec->cl;
  t->cl_arg = spec->arg;
  t->cl_arg_size = spec->arg_size;
  t->cl_arg_free = 1;
  t->nbuffers = spec->nbuf;
  for (int i = 0; i < spec->nbuf; i++) {
    STARPU_TASK_SET_HANDLE(t, spec->handle[i], i);
    STARPU_TASK_SET_MODE(t, spec->mode[i], i);
  }
  t->priority = spec->priority;
  t->name = tess_task_name(sim, spec->kind, spec->log_tile, spec->dir, spec->stage);
  t->color = tess_task_kind_color(spec->kind);
  if (spec->tile) {
    t->workerids = spec->tile->workers;
    t->workerids_len = spec->tile->workers_len;
  }
  if (sim->log_on) {
    log_arg *a = malloc(sizeof *a);
    TESS_CHECK(a, TESS_ERR_MEM, "cannot allocate a log record");
    a->sim = sim;
    a->rec = (tess_task_record){spec->kind, spec->log_tile, spec->dir,
                                spec->dirs, spec->stage,    sim->step,
                                0,          (double)NAN,    -1};
    t->callback_func = log_done;
    t->callback_arg = a;
    t->callback_arg_free = 1;
  }
  sim->ntasks++;
  sim->nhandles += spec->nbuf;
  TESS_CALL(tess_token_order(sim, t, spec)); /* tokens.c: its dependencies; kept */
  const int r = starpu_task_submit(t);
  TESS_CHECK(r == 0, TESS_ERR_STARPU, "starpu_task_submit(%s) returned %d", t->name, r);
  sim->kept[sim->nkept++] = t;
  return TESS_OK;
}

/* Holds `h` back by the configured delay: submitted between its producer and its consumer. */
tess_err tess_task_gate(tess_sim_t sim, starpu_data_handle_t h) {
  static starpu_tag_t next_tag = 0x7e55a0000000ull; /* test hook: a private tag range */
  gate_arg *g = malloc(sizeof *g);
  TESS_CHECK(g, TESS_ERR_MEM, "cannot allocate a gate");
  g->tag = next_tag++;
  g->seconds = sim->delay.seconds;
  const starpu_tag_t release = next_tag++;
  starpu_tag_declare_deps(release, 1, g->tag);
  struct starpu_task *t1 = starpu_task_create(), *t2 = starpu_task_create();
  t1->cl = t2->cl = &gate_cl;
  t1->handles[0] = t2->handles[0] = h;
  t1->priority = t2->priority = STARPU_MAX_PRIO;
  t1->callback_func = gate_start;
  t1->callback_arg = g;
  t2->use_tag = 1;
  t2->tag_id = release;
  TESS_STARPU_CALL(starpu_task_submit(t1));
  TESS_STARPU_CALL(starpu_task_submit(t2));
  return TESS_OK;
}

/* The axes along which every tile is its own periodic neighbour, at least two ghost widths
 * long, with every halo direction that stays inside the tile (across those axes only) filled by
 * a local copy from the tile itself and every other direction by another link: there a kernel
 * may write its outputs' periodic images (op->images), which leaves those halos current without
 * the copy. Every tile's classes then span those axes whole (a class is the set of pieces that
 * wait on the same buffered links, and no buffered link tells the two sides of such an axis
 * apart), so a class that reads an image reads the cells it mirrors too and already waits for the
 * class that wrote them. 0: none, or a tile whose copies and links do not split so (the held-back
 * test link, the buffered mode's links to the tile itself). */
static unsigned image_axes(const tess_sim_t sim) {
  unsigned axes = 0;
  for (int a = 0; a < 3; a++) {
    if (!sim->ghost[a] || sim->G[a] > 1) continue;
    if (!sim->periodic[a] || sim->dim[a] - 2 * sim->ghost[a] < 2 * sim->ghost[a]) return 0;
    axes |= 1u << a;
  }
  if (!axes || sim->delay.active) return 0; /* walls: excluded per stage (`can` below) */
  const uint32_t mine = tess_image_dirs(axes);
  for (int t = 0; t < sim->ntiles; t++) {
    const tess_tile *x = &sim->tile[t];
    for (int k = 0; k < x->plan->nin; k++) {
      const tess_link *l = &x->plan->in[k];
      const int self = l->src_gid == x->id && !l->buffered && !l->physical;
      if (self ? (l->dirs & ~mine) != 0 : (l->dirs & mine) != 0) return 0;
    }
  }
  return axes;
}

uint32_t tess_image_dirs(unsigned axes) {
  uint32_t dirs = 0;
  for (int d = 0; d < TESS_NDIRS; d++) {
    int h[3], in = d != TESS_DIR_CENTER;
    tess_dir_vector(d, h);
    for (int a = 0; a < 3; a++)
      in &= h[a] == 0 || ((axes >> a) & 1);
    dirs |= (uint32_t)in << d;
  }
  return dirs;
}

void tess_stage_periodic(tess_sim_t sim) {
  const tess_tile *t = &sim->tile[0];
  const tess_plan *p = t->plan;
  sim->lone = sim->ntiles == 1 && p->nclass == 1;
  for (int k = 0; k < p->nin; k++)
    sim->lone &= p->in[k].src_gid == t->id && !p->in[k].buffered;
  int long_enough = 1; /* kernels may assume one image per axis and cell */
  for (int a = 0; a < 3; a++)
    long_enough &= sim->ghost[a] == 0 || sim->dim[a] - 2 * sim->ghost[a] >= 2 * sim->ghost[a];
  const unsigned dev = t->cuda ? TESS_IMAGES_CUDA : TESS_IMAGES_CPU;
  const unsigned axes = sim->no_wrap ? 0u : image_axes(sim);
  /* GPU kernels wrap in 3D only: their z-marches fold the wrap into what they form once per
   * plane, while on a 2D tile they run cell by cell and wrap every read (Cahn-Hilliard fused
   * 4096^2 on an H100: 0.71 ms a step against 0.40-0.48 with the halos copied). */
  const int flat = sim->n[2] == 1;
  for (int i = 0; i < sim->nops; i++) {
    tess_op *op = sim->op[i];
    /* images and wrapped reads are periodic by definition: not along a physical face */
    const int can = op->kind == TESS_OP_STAGE && !op->grown && !tess_boundary_walled(sim);
    op->wrap = can && sim->lone && long_enough && !sim->no_wrap &&
               (op->stage.kernel->wraps & dev) != 0 && !(t->cuda && flat);
    op->images = can && !op->wrap && (op->stage.kernel->images & dev) != 0 ? axes : 0u;
  }
}

/* Appends one block (stage op of class c of tile) to chain ch: its region, boxes, parameters
 * and local copies, and its tokens to ch->spec. */
static tess_err chain_append(tess_sim_t sim, int op_index, const tess_op *op, tess_tile *tile,
                             int c, tess_chain *ch) {
  const tess_stage *st = &op->stage;
  const tess_plan *p = tile->plan;
  /* a tile of one class copies its local halos first, in this task */
  const int nmoves = p->nclass == 1 ? tess_halo_local(sim, op, tile, NULL, NULL) : 0;
  /* and a class may unpack links first (plan.h): their buffers open the task's (a lone tile's
   * chain has no buffered link, so they are never behind another block's handles) */
  const int nunpack = tess_halo_hosted(sim, op, tile, c, NULL, NULL);
  if (nunpack) {
    TESS_CHECK(ch->spec.nbuf == 0, TESS_ERR_STATE, "hosted unpacks in a chain of stages");
    tess_halo_hosted(sim, op, tile, c, NULL, &ch->spec);
  }
  const size_t moves_at = round16(sizeof(stage_block) + st->params_size);
  const size_t moves_bytes = nmoves ? tess_moves_size(nmoves) : 0;
  const size_t unpack_at = round16(moves_at + moves_bytes);
  const size_t size = round16(unpack_at + (nunpack ? tess_moves_size(nunpack) : 0));
  const size_t head = ch->size ? ch->size : round16(sizeof(stage_arg));
  char *grown = realloc(ch->arg, head + size);
  TESS_CHECK(grown, TESS_ERR_MEM, "cannot allocate a task argument");
  ch->arg = grown;
  ch->size = head + size;
  stage_arg *a = ch->arg;
  if (head == round16(sizeof(stage_arg))) *a = (stage_arg){.node = tile->node};
  a->nblock++;
  stage_block *b = (stage_block *)(grown + head);
  memset(b, 0, size);
  b->size = size;
  b->kernel = st->kernel;
  b->check = op->check;
  b->nbox = tess_program_boxes(sim, p, op, c, b->box);
  for (int i = 0; i < b->nbox; i++)
    a->cells += tess_box_cells(&b->box[i]);
  if (st->params_size) memcpy(b + 1, st->params, st->params_size);
  tess_region *r = &b->r;
  for (int i = 0; i < 3; i++) {
    r->dim[i] = sim->dim[i];
    r->ghost[i] = sim->ghost[i];
    r->origin[i] = tile->origin[i] - sim->ghost[i];
    r->global[i] = sim->n[i];
    r->h[i] = sim->h[i];
  }
  r->nin = st->nin;
  r->nout = st->nout;
  r->prec = sim->prec;
  r->t = sim->time;
  r->dt = sim->dt;
  r->stage = op_index;
  r->images = op->images;
  r->wrap = op->wrap;
  r->out_read = st->out_read;
  tess_task_spec *spec = &ch->spec;
  for (int k = 0; k < st->nout; k++) {
    const tess_field *f = &sim->field[st->out[k]];
    r->out[k] = tile->slot[f->slot].base; /* or out_f: the same pointer, typed by r->prec */
    r->out_nc[k] = f->nc;
    tess_task_spec_add(spec, tile->slot[f->slot].own[c],
                       (st->out_read >> k) & 1 ? STARPU_RW : STARPU_W);
  }
  for (int k = 0; k < st->nin; k++) {
    const tess_field *f = &sim->field[st->in[k]];
    const tess_storage *s = &tile->slot[f->slot];
    r->in[k] = s->base;
    r->in_nc[k] = f->nc;
    tess_task_spec_add_own(spec, s, p->reads_cls[op_index][c], STARPU_R);
    /* halo tokens of local links are private to a one-class tile's task: skipped */
    for (int j = 0; j < p->nin; j++)
      if (((p->reads_in[op_index][c] >> j) & 1) && (p->nclass > 1 || p->in[j].buffered))
        tess_task_spec_add(spec, s->halo[j], STARPU_R);
  }
  if (nmoves) {
    tess_moves *mv = (tess_moves *)((char *)b + moves_at);
    tess_moves_init(mv, nmoves, (int)sim->esize);
    tess_halo_local(sim, op, tile, mv, spec);
    b->moves_at = moves_at;
  }
  if (nunpack) {
    tess_moves *mv = (tess_moves *)((char *)b + unpack_at);
    tess_moves_init(mv, nunpack, (int)sim->esize);
    tess_halo_hosted(sim, op, tile, c, mv, NULL);
    b->unpack_at = unpack_at;
  }
  return TESS_OK;
}

tess_err tess_chain_submit(tess_sim_t sim, tess_chain *ch) {
  if (!ch->arg) return TESS_OK;
  ch->spec.arg = ch->arg;
  ch->spec.arg_size = ch->size;
  ch->arg = NULL;
  ch->size = 0;
  const tess_err e = tess_task_submit(sim, &ch->spec);
  memset(&ch->spec, 0, sizeof ch->spec);
  return e;
}

/* One task per class of each tile: the class's boxes of the stage's outputs, reading the class
 * tokens and halo tokens its footprint reaches (plan.h); or, with a chain, one more block of
 * the chain's task. */
tess_err tess_submit_compute(tess_sim_t sim, int op_index, const tess_op *op, tess_chain *chain) {
  for (int l = 0; l < sim->ntiles; l++) {
    tess_tile *tile = &sim->tile[l];
    const tess_plan *p = tile->plan;
    int order[TESS_NDIRS];
    tess_halo_class_order(sim, op_index, tile, order);
    for (int i = 0; i < p->nclass; i++) {
      const int c = order[i];
      const tess_class *cls = &p->cls[c];
      const int inner = cls->waits == 0;
      tess_chain one = {{0}, NULL, 0}, *ch = chain ? chain : &one;
      if (!ch->arg)
        ch->spec = (tess_task_spec){.cl = (struct starpu_codelet *)&op->cl[chain ? 2 : !inner],
                                    .tile = tile,
                                    .log_tile = tile->id,
                                    .dir = cls->rep,
                                    .dirs = cls->pieces,
                                    .stage = op_index,
                                    .kind = inner ? TESS_TASK_INNER : TESS_TASK_OUTER,
                                    .priority = inner ? TESS_PRIO_INNER : TESS_PRIO_OUTER};
      tess_err e = chain_append(sim, op_index, op, tile, c, ch);
      /* The tile's pack is on the path to its neighbours' outer classes; its inner class is the
       * bulk of the stage. Reading the token the pack writes (a handle at the end: the kernel
       * does not see it) makes the inner class wait for the pack (sim->pack_first): dmda ran a
       * GPU's inner class first when both became ready together, delaying every message of the
       * stage by its length (docs/simulation.md: 64 simulated GPUs 18.8 -> 16.3 ms a step). */
      if (!e && inner && !chain && tile->packed)
        tess_task_spec_add(&ch->spec, tile->pack_token, STARPU_R);
      if (!e && !chain) e = tess_chain_submit(sim, ch);
      if (e) {
        free(ch->arg);
        ch->arg = NULL;
        return e;
      }
    }
  }
  return TESS_OK;
}

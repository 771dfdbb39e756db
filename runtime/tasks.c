/* tasks.c — turning specs into StarPU tasks: the codelet of each stage, submission with the
 * tile's worker restriction and priority, the completion log, and the debug delay gate.
 *
 * A stage's codelet has a variable number of buffers: the pieces it reads (R) and writes
 * (W/RW). The buffers carry the dependencies; the kernel addresses the tile through the base
 * pointers in its tess_region, which are valid because a tile's tasks only run on workers of
 * the memory node where its pieces live (their home node), so StarPU never moves them.
 * stage_check() verifies that promise on every call.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "pack.h"
#include "sim.h"

double tess_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The cl_arg of a stage task: this struct, the halo wraps of a solo tile, then the stage's
 * parameter block. */
typedef struct {
  tess_region r;
  const tess_kernel *kernel;
  uintptr_t expect0; /* where buffer 0 must point on the executing node */
  int nwrap;         /* solo tile: tess_wrap_args that follow, run before the kernel */
} stage_arg;

static tess_wrap_args *stage_wraps(stage_arg *a) { return (tess_wrap_args *)(a + 1); }

static const tess_region *stage_region(void *buffers[], void *cl_arg) {
  stage_arg *a = cl_arg;
  a->r.params = stage_wraps(a) + a->nwrap; /* the copies follow the struct (cl_arg may move) */
  if (STARPU_BLOCK_GET_PTR(buffers[0]) != a->expect0) {
    fprintf(stderr, "tessera: kernel '%s' runs on a memory node that does not hold its tile\n",
            a->kernel->name);
    abort();
  }
  return &a->r;
}

static void stage_cpu(void *buffers[], void *cl_arg) {
  const tess_region *r = stage_region(buffers, cl_arg);
  const tess_kernel *k = ((stage_arg *)cl_arg)->kernel;
  for (int i = 0; i < ((stage_arg *)cl_arg)->nwrap; i++)
    tess_wrap_cpu(&stage_wraps(cl_arg)[i]);
  (r->prec == TESS_FP32 ? k->cpu_f32 : k->cpu)(r);
}

#ifdef STARPU_USE_CUDA
static void stage_cuda(void *buffers[], void *cl_arg) {
  const tess_region *r = stage_region(buffers, cl_arg);
  const tess_kernel *k = ((stage_arg *)cl_arg)->kernel;
  for (int i = 0; i < ((stage_arg *)cl_arg)->nwrap; i++)
    tess_wrap_cuda(&stage_wraps(cl_arg)[i], starpu_cuda_get_local_stream());
  (r->prec == TESS_FP32 ? k->cuda_f32 : k->cuda)(r, starpu_cuda_get_local_stream());
}
#endif

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
  for (int outer = 0; outer < 2; outer++) {
    struct starpu_codelet *cl = &op->cl[outer];
    starpu_codelet_init(cl);
    cl->cpu_funcs[0] = stage_cpu;
    cl->where = STARPU_CPU;
#ifdef STARPU_USE_CUDA
    if (k->cuda) {
      cl->cuda_funcs[0] = stage_cuda;
      cl->cuda_flags[0] = STARPU_CUDA_ASYNC;
      cl->where |= STARPU_CUDA;
    }
#endif
    cl->nbuffers = STARPU_VARIABLE_NBUFFERS;
    cl->name = k->name;
    cl->color = tess_task_kind_color(outer ? TESS_TASK_OUTER : TESS_TASK_INNER);
    /* inner and outer segments differ in size and shape: separate histories */
    char symbol[64];
    snprintf(symbol, sizeof symbol, "tess_%s_%d_%s", k->name ? k->name : "stage", index,
             outer ? "outer" : "inner");
    cl->model = stage_model(symbol);
    TESS_CHECK(cl->model, TESS_ERR_MEM, "cannot allocate a performance model");
  }
  return TESS_OK;
}

void tess_task_spec_add(tess_task_spec *spec, starpu_data_handle_t h,
                        enum starpu_data_access_mode m) {
  if (spec->nbuf >= STARPU_NMAXBUFS) {
    fprintf(stderr, "tessera: a task needs more than STARPU_NMAXBUFS = %d buffers\n",
            STARPU_NMAXBUFS);
    abort();
  }
  spec->handle[spec->nbuf] = h;
  spec->mode[spec->nbuf++] = m;
}

void tess_task_spec_add_pieces(tess_task_spec *spec, const tess_storage *st,
                               const tess_pieceset *set, enum starpu_data_access_mode m) {
  for (int p = 0; p < TESS_NPIECES; p++)
    if (tess_pieceset_has(set, p) && st->piece[p]) tess_task_spec_add(spec, st->piece[p], m);
}

/* ---- completion log and delay gate -------------------------------------------------------- */

typedef struct {
  tess_sim_t sim;
  tess_task_record rec;
} log_arg;

static void log_done(void *arg) {
  log_arg *a = arg;
  tess_sim_t sim = a->sim;
  a->rec.t_end = tess_now() - sim->t0;
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
    a->rec = (tess_task_record){spec->kind, spec->log_tile, spec->dir, spec->stage, sim->step, 0};
    t->callback_func = log_done;
    t->callback_arg = a;
    t->callback_arg_free = 1;
  }
  const int r = starpu_task_submit(t);
  TESS_CHECK(r == 0, TESS_ERR_STARPU, "starpu_task_submit(%s) returned %d", t->name, r);
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

tess_err tess_submit_compute(tess_sim_t sim, int op_index, const tess_op *op) {
  const tess_stage *st = &op->stage;
  for (int l = 0; l < sim->ntiles; l++) {
    const tess_tile *tile = &sim->tile[l];
    /* p = -1: a solo tile's whole owned region in one task on its whole handles */
    for (int p = tile->solo ? -1 : 0; p < (tile->solo ? 0 : TESS_NPIECES); p++) {
      int a[3] = {2, 2, 2};
      if (p >= 0) {
        tess_piece_coord(p, a);
        if (!tess_piece_owned(p)) continue;
        const tess_storage *out0 = &tile->slot[sim->field[st->out[0]].slot];
        if (!out0->piece[p]) continue;
      }

      /* a solo tile refills the halos its inputs need first, in this task (halo.c) */
      int nwrap = 0;
      for (int k = 0; k < st->nin && p < 0; k++)
        nwrap += sim->field[st->in[k]].wrap_due != 0;
      const size_t arg_size = sizeof(stage_arg) + nwrap * sizeof(tess_wrap_args) + st->params_size;
      stage_arg *arg = malloc(arg_size);
      TESS_CHECK(arg, TESS_ERR_MEM, "cannot allocate a task argument");
      memset(arg, 0, sizeof *arg);
      arg->nwrap = nwrap;
      tess_region *r = &arg->r;
      tess_box b;
      if (p >= 0)
        tess_piece_box(sim->tn, sim->ghost, p, &b);
      else
        for (int i = 0; i < 3; i++) {
          b.lo[i] = sim->ghost[i];
          b.hi[i] = sim->ghost[i] + sim->tn[i];
        }
      for (int i = 0; i < 3; i++) {
        r->lo[i] = b.lo[i];
        r->hi[i] = b.hi[i];
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
      if (st->params_size) memcpy(stage_wraps(arg) + nwrap, st->params, st->params_size);
      arg->kernel = st->kernel;

      const int inner = (a[0] - 1) + 3 * (a[1] - 1) + 9 * (a[2] - 1) == TESS_DIR_CENTER;
      tess_task_spec spec = {.cl = (struct starpu_codelet *)&op->cl[!inner],
                             .arg = arg,
                             .arg_size = arg_size,
                             .tile = tile,
                             .log_tile = tile->id,
                             .dir = (a[0] - 1) + 3 * (a[1] - 1) + 9 * (a[2] - 1),
                             .stage = op_index};
      spec.kind = spec.dir == TESS_DIR_CENTER ? TESS_TASK_INNER : TESS_TASK_OUTER;
      spec.priority = spec.dir == TESS_DIR_CENTER ? TESS_PRIO_INNER : TESS_PRIO_OUTER;
      /* Buffer 0 is the first output piece: stage_check() compares its address. */
      for (int k = 0; k < st->nout; k++) {
        const tess_field *f = &sim->field[st->out[k]];
        const tess_storage *s = &tile->slot[f->slot];
        r->out[k] = s->base; /* or out_f: the same pointer, typed by r->prec */
        r->out_nc[k] = f->nc;
        if (p < 0) /* RW: the whole handle also holds halos this task leaves alone */
          tess_task_spec_add(&spec, s->whole, STARPU_RW);
        else
          tess_task_spec_add(&spec, s->piece[p], (st->out_read >> k) & 1 ? STARPU_RW : STARPU_W);
      }
      arg->expect0 = (uintptr_t)r->out[0];
      if (p >= 0)
        arg->expect0 += sim->esize * TESS_IDX(sim->dim[0], sim->dim[1], r->out_nc[0], 0, b.lo[0],
                                              b.lo[1], b.lo[2]);
      for (int k = 0, w = 0; k < st->nin; k++) {
        tess_field *f = &sim->field[st->in[k]];
        const tess_storage *s = &tile->slot[f->slot];
        r->in[k] = s->base;
        r->in_nc[k] = f->nc;
        int dup = 0; /* an input that is also an output is already in, RW */
        for (int j = 0; j < st->nout && p < 0; j++)
          dup |= st->out[j] == st->in[k];
        const int wraps = p < 0 && f->wrap_due; /* its halos are written here: RW */
        if (wraps) {
          tess_halo_wrap_args(sim, tile, f->slot, f->nc, f->wrap_due, stage_wraps(arg) + w++);
          f->wrap_due = 0;
        }
        if (p < 0 && !dup)
          tess_task_spec_add(&spec, s->whole, wraps ? STARPU_RW : STARPU_R);
        else if (p >= 0)
          tess_task_spec_add_pieces(&spec, s, &op->reads[p], STARPU_R);
      }
      TESS_CALL(tess_task_submit(sim, &spec));
    }
  }
  return TESS_OK;
}

/* direct.c — halo messages between ranks sent by MPI straight from the memory the buffers live
 * in: GPU memory with a CUDA-aware MPI, instead of StarPU-MPI's staging through main RAM.
 *
 * StarPU-MPI 1.3 acquires every buffer it sends or receives on main RAM, so with GPU tiles each
 * halo crosses PCIe twice more than it must. Here a message is what StarPU-MPI makes of it, on
 * another node: an acquisition of the buffer, in the data's sequential order, on the memory
 * node of its tile (the GPU), with a callback that posts the request on the buffer's pointer:
 *
 *   send (buffer R, after the pack that fills it):        MPI_Isend
 *   receive (buffer W, after the unpack that last read it): MPI_Irecv
 *
 * No worker waits. A progress thread polls the requests (MPI_Testsome) and releases each
 * acquisition when its request completes: only then may the next pack overwrite a buffer being
 * sent, or the unpack read a buffer being received. With CPU tiles, a CPU worker that finds no
 * task polls too (StarPU's idle hook), and the thread then naps 200 us between polls: on a rank
 * of one core the thread would otherwise wait behind the worker's spinning for each message.
 * Successive messages of one (peer, tag) are matched in order (MPI's non-overtaking rule); the
 * acquisitions post them in order on both sides. (The other way, a task that delays its own end
 * with starpu_task_end_dep_add, fails: releasing it from a thread that is not a worker trips dmda's
 * post-execution hook.) The messages are not tasks, so they are not in the task log or the trace.
 *
 * Messages use a duplicate of the simulation's communicator, so their tags never meet
 * StarPU-MPI's. Whether to use this path is decided at setup (tess_direct_wanted), the same on
 * every rank.
 */
#include <limits.h>
#include <sched.h>
#include <mpi.h>
#ifndef TESS_SIMGRID /* SimGrid's MPI (SMPI) has no CUDA-aware transfers */
#include <mpi-ext.h> /* MPIX_Query_cuda_support (Open MPI); after mpi.h */
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "sim.h"

/* One message: an acquisition of `buf` on `node`, released when its request completes (below). */
typedef struct xfer_arg_s {
  MPI_Comm comm;
  starpu_data_handle_t buf;
  unsigned node;
  int dev; /* CUDA device of node, -1 for main RAM */
  int peer, tag, send;
  struct xfer_arg_s *next; /* in a list of completed messages */
} xfer_arg;
static void xfer_done(xfer_arg *a);

/* ---- progress: the requests in flight, each with its message --------------------------------- */
static struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  pthread_t thread;
  int started, stop;
  int dev;  /* CUDA device made current in the thread (-1: none) */
  int hook; /* CPU workers' idle hook (-1: none) */
  int n, cap;
  MPI_Request *req;
  int *done;      /* MPI_Testsome's indices */
  xfer_arg **msg; /* the message each request belongs to */
} pe = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .hook = -1};

/* A CUDA-aware MPI calls the CUDA driver API on device buffers (IPC handles, events), which
 * needs a current context in the calling thread: the progress thread takes the device of the
 * first GPU message; a poster borrows its tile's device (and gives the thread's own back). */
static int use_device(int dev) {
  int old = -1;
#ifdef TESS_HAVE_CUDA
  /* always set: a thread that never touched CUDA reports device 0 but has no context yet */
  if (dev >= 0 && cudaGetDevice(&old) == cudaSuccess) cudaSetDevice(dev);
#else
  (void)dev;
#endif
  return old;
}

/* One MPI_Testsome over the requests in flight (pe.lock held): drops the completed ones and
 * returns their messages as a list, to be finished (finish_all) once the lock is released. */
static xfer_arg *poll_locked(void) {
  int ndone = 0;
  if (MPI_Testsome(pe.n, pe.req, &ndone, pe.done, MPI_STATUSES_IGNORE) != MPI_SUCCESS) {
    fprintf(stderr, "tessera: MPI_Testsome on the halo messages failed\n");
    tess_abort(1);
  }
  if (ndone == MPI_UNDEFINED || ndone == 0) return NULL;
  xfer_arg *list = NULL;
  for (int i = ndone - 1; i >= 0; i--) { /* the list in completion order */
    pe.msg[pe.done[i]]->next = list;
    list = pe.msg[pe.done[i]];
    pe.msg[pe.done[i]] = NULL;
  }
  int k = 0; /* keep the others, in order */
  for (int i = 0; i < pe.n; i++)
    if (pe.msg[i]) {
      pe.req[k] = pe.req[i];
      pe.msg[k++] = pe.msg[i];
    }
  pe.n = k;
  return list;
}

static int finish_all(xfer_arg *list) { /* may start other tasks: outside the lock */
  int n = 0;
  for (xfer_arg *next; list; list = next, n++) {
    next = list->next;
    xfer_done(list);
  }
  return n;
}

static void *progress_loop(void *unused) {
  (void)unused;
  use_device(pe.dev);
  int idle = 0;
  pthread_mutex_lock(&pe.lock);
  for (;;) {
    if (pe.n == 0) {
      if (pe.stop) break;
      pthread_cond_wait(&pe.cond, &pe.lock);
      continue;
    }
    xfer_arg *list = poll_locked();
    const int hooked = pe.hook >= 0;
    pthread_mutex_unlock(&pe.lock);
    if (finish_all(list))
      idle = 0;
    else if (++idle > 64 || hooked) { /* nothing for a while, or idle workers poll too */
      const struct timespec nap = {0, hooked ? 200000 : 20000};
      nanosleep(&nap, NULL);
    }
    pthread_mutex_lock(&pe.lock);
  }
  pthread_mutex_unlock(&pe.lock);
  return NULL;
}

/* StarPU calls this in a CPU worker that found no task to run (no lock of StarPU's held). A
 * worker that shares its core with the progress thread spins there anyway (StarPU 1.3 never lets
 * the last awake worker sleep); polling here finishes a message as soon as the worker is free,
 * where a woken progress thread may wait for the spinning worker's time slice. */
static unsigned idle_poll(void *unused) {
  (void)unused;
  xfer_arg *list = NULL;
  if (!pthread_mutex_trylock(&pe.lock)) { /* else someone is polling */
    list = pe.n ? poll_locked() : NULL;
    pthread_mutex_unlock(&pe.lock);
  }
  if (!finish_all(list)) sched_yield(); /* to a thread sharing the core, if one waits */
  return 1;
}

static void progress_add(MPI_Request req, xfer_arg *msg, int dev) {
  pthread_mutex_lock(&pe.lock);
  if (!pe.started) {
    pe.stop = 0;
    pe.dev = dev;
    if (pthread_create(&pe.thread, NULL, progress_loop, NULL)) {
      fprintf(stderr, "tessera: cannot start the MPI progress thread\n");
      tess_abort(1);
    }
    pe.started = 1;
  }
  if (pe.n == pe.cap) {
    const int cap = pe.cap ? 2 * pe.cap : 256;
    MPI_Request *r = realloc(pe.req, (size_t)cap * sizeof *r);
    if (r) pe.req = r;
    int *d = r ? realloc(pe.done, (size_t)cap * sizeof *d) : NULL;
    if (d) pe.done = d;
    xfer_arg **t = d ? realloc(pe.msg, (size_t)cap * sizeof *t) : NULL;
    if (!t) {
      fprintf(stderr, "tessera: out of memory for halo requests\n");
      tess_abort(1);
    }
    pe.msg = t;
    pe.cap = cap;
  }
  pe.req[pe.n] = req;
  pe.msg[pe.n++] = msg;
  pthread_cond_signal(&pe.cond);
  pthread_mutex_unlock(&pe.lock);
}

void tess_direct_shutdown(void) {
  pthread_mutex_lock(&pe.lock);
  if (pe.hook >= 0) starpu_idle_hook_deregister(pe.hook);
  pe.hook = -1;
  const int started = pe.started;
  pe.stop = 1;
  pthread_cond_signal(&pe.cond);
  pthread_mutex_unlock(&pe.lock);
  if (started) pthread_join(pe.thread, NULL);
  free(pe.req);
  free(pe.done);
  free(pe.msg);
  pe.req = NULL;
  pe.done = NULL;
  pe.msg = NULL;
  pe.n = pe.cap = pe.started = 0;
}

/* ---- one message: an acquisition of the buffer on its tile's node, released when done ----------
 */
/* StarPU calls this when the buffer is ready on `node` in the requested mode: after the pack
 * that fills it (send) or after the unpack that last read it (receive). */
static void xfer_post(void *arg) {
  xfer_arg *a = arg;
  const struct starpu_vector_interface *v = starpu_data_get_interface_on_node(a->buf, a->node);
  const size_t bytes = (size_t)v->nx * v->elemsize;
  if (bytes > (size_t)INT_MAX) {
    fprintf(stderr, "tessera: a halo message of %zu bytes exceeds MPI's int count\n", bytes);
    tess_abort(1);
  }
  MPI_Request req;
  void *ptr = (void *)v->ptr;
  const int old = use_device(a->dev);
  const int rc = a->send ? MPI_Isend(ptr, (int)bytes, MPI_BYTE, a->peer, a->tag, a->comm, &req)
                         : MPI_Irecv(ptr, (int)bytes, MPI_BYTE, a->peer, a->tag, a->comm, &req);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "tessera: MPI_%s of a halo (peer %d, tag %d, %zu bytes) failed: %s\n",
            a->send ? "Isend" : "Irecv", a->peer, a->tag, bytes, msg);
    tess_abort(1);
  }
  if (old >= 0 && old != a->dev) use_device(old);
  progress_add(req, a, a->dev);
}

/* Once the request completed (the progress thread, or an idle CPU worker). */
static void xfer_done(xfer_arg *a) {
  starpu_data_release_on_node(a->buf, (int)a->node);
  free(a);
}

tess_err tess_direct_submit(tess_sim_t sim, const tess_tile *t, starpu_data_handle_t buf, int send,
                            int peer, int tag) {
  xfer_arg *a = malloc(sizeof *a);
  TESS_CHECK(a, TESS_ERR_MEM, "cannot allocate a halo message");
  const int dev = t->node == STARPU_MAIN_RAM ? -1 : starpu_memory_node_get_devid(t->node);
  *a = (xfer_arg){sim->xcomm, buf, t->node, dev, peer, tag, send, NULL};
  TESS_STARPU_CALL(starpu_data_acquire_on_node_cb_sequential_consistency(
      buf, (int)t->node, send ? STARPU_R : STARPU_W, xfer_post, a, 1));
  return TESS_OK;
}

/* ---- the choice -------------------------------------------------------------------------------
 */
static int cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)     /* the extension exists, built with CUDA or not: */
  return MPIX_Query_cuda_support() == 1; /* what the library loaded at run time says */
#else
  return 0;
#endif
}

static int choice = -1;  /* tess_init_opts.mpi_direct: -1 auto, 0 off, 1 on */
static int cpu_auto = 0; /* auto on CPU tiles: on when the rank's MPI thread shares a core */

void tess_direct_cpu_auto(int on) { cpu_auto = on; }

tess_err tess_direct_choose(const char *mode) {
  if (!mode || !strcmp(mode, "auto"))
    choice = -1;
  else if (!strcmp(mode, "on"))
    choice = 1;
  else if (!strcmp(mode, "off"))
    choice = 0;
  else
    return TESS_ERROR(TESS_ERR_ARG, "mpi_direct '%s' is invalid (allowed: %s)", mode,
                      TESS_MPI_DIRECT_CHOICES);
  return TESS_OK;
}

tess_err tess_direct_setup(tess_sim_t sim) {
  const int gpu = sim->ntiles > 0 && sim->tile[0].cuda;
#ifdef TESS_SIMGRID /* a simulated rank's messages all go through StarPU-MPI (simgrid_mpi.h) */
  const int want = 0;
  (void)gpu, (void)cuda_aware, (void)cpu_auto;
#else
  const int want = choice >= 0 ? choice : gpu ? cuda_aware() : cpu_auto;
#endif
  /* every rank must exchange the same way, or messages would never meet */
  TESS_MPI_CALL(MPI_Allreduce(&want, &sim->direct, 1, MPI_INT, MPI_MIN, sim->comm));
  if (sim->direct) {
    int flag = 0, *tag_ub = NULL;
    MPI_Comm_get_attr(sim->comm, MPI_TAG_UB, &tag_ub, &flag);
    const long ntags = (long)sim->nfields * sim->G[0] * sim->G[1] * sim->G[2] * TESS_NDIRS;
    TESS_CHECK(flag && tag_ub && ntags - 1 <= *tag_ub, TESS_ERR_ARG,
               "%ld halo tags are needed but MPI allows tags up to %d only (mpi_direct "
               "'off' exchanges through StarPU-MPI instead)",
               ntags, flag && tag_ub ? *tag_ub : 0);
    TESS_MPI_CALL(MPI_Comm_dup(sim->comm, &sim->xcomm));
    sim->has_xcomm = 1;
    pthread_mutex_lock(&pe.lock); /* CPU tiles: idle CPU workers poll the requests too */
    if (!gpu && pe.hook < 0) pe.hook = starpu_idle_hook_register(idle_poll, NULL);
    pthread_mutex_unlock(&pe.lock);
  }
  tess_log(TESS_LOG_INFO, "halos between ranks: %s",
           sim->direct
               ? (gpu ? "MPI from GPU memory (CUDA-aware MPI)" : "MPI from main RAM (direct.c)")
           : gpu ? "StarPU-MPI, staged through main RAM"
                 : "StarPU-MPI");
  return TESS_OK;
}

void tess_direct_release(tess_sim_t sim) {
  if (sim->has_xcomm) MPI_Comm_free(&sim->xcomm);
  sim->has_xcomm = 0;
}

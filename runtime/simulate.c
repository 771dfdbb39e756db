/* simulate.c — what the SimGrid build of the runtime (docs/simulation.md) needs and the others
 * do not: GPU functions for StarPU's codelets where there are no CUDA kernels, and synthetic task
 * times for running without calibrated models. StarPU in SimGrid mode schedules a task on a
 * simulated GPU when its codelet has a CUDA function, and takes the task's time from the
 * codelet's performance model instead of calling it. */
#ifdef TESS_SIMGRID
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/version.h>
#include <smpi/smpi.h>
#include <starpu_mpi.h>
#include <xbt/config.h>

#include "pack.h"
#include "tessera_kernel.h"

void tess_simgrid_kernel_placeholder(const tess_region *r, void *stream) {
  (void)r, (void)stream;
  fprintf(stderr, "tessera: a GPU kernel was called in the SimGrid build (it has none)\n");
  abort();
}

void tess_simgrid_task_placeholder(void *buffers[], void *arg) {
  (void)buffers, (void)arg;
  fprintf(stderr, "tessera: a GPU task ran in the SimGrid build (StarPU should simulate it)\n");
  abort();
}

/* Synthetic times (TESS_SIM_MODELS=synthetic), for checking that a run goes through end to end
 * where no model was calibrated: they are no prediction. A task costs LAUNCH_US plus the bytes
 * it moves at a memory bandwidth (GPU: HBM's order; CPU: one core's): a stage task 100 bytes per
 * cell it updates (its model's size), a box-move task its cells read and written, any other task
 * its buffers. */
#define LAUNCH_US            5.0
#define GPU_BYTES_PER_US     2.0e6 /* 2 TB/s */
#define CPU_BYTES_PER_US     1.0e4 /* 10 GB/s */
#define STAGE_BYTES_PER_CELL 100.0

/* Derived models (TESS_SIM_MODELS=measured:FILE): coefficients a script derives from measured
 * runs (sim/derive_models.py; docs/simulation.md), one per line, '#' comments:
 *   task_us U        every task's fixed cost
 *   move_gbps G      box moves (pack, unpack, fill, boundary): bytes read and written at G GB/s
 *   cell_ns K NS     a stage task of kernel K: NS ns per cell it updates (chains: all stages')
 *   outer_factor F   the outer classes (thin slabs along the cut faces): F x NS per cell
 *   cpu_factor F     a task on a CPU core: F x its GPU time
 * A task costs task_us plus its cells or bytes at those rates; not StarPU-calibrated. */
#define MAX_KERNELS 16
enum { MODELS_CALIBRATED, MODELS_SYNTHETIC, MODELS_MEASURED };
static struct {
  int loaded, kind;
  char file[256];
  double task_us, move_gbps, outer_factor, cpu_factor;
  int nk;
  struct {
    char name[64];
    double ns;
  } k[MAX_KERNELS];
} md;

static void load_measured(const char *file) {
  snprintf(md.file, sizeof md.file, "%s", file);
  FILE *f = fopen(file, "r");
  if (!f) {
    fprintf(stderr, "tessera: TESS_SIM_MODELS=measured:%s: cannot open the file\n", file);
    exit(2);
  }
  md.task_us = md.move_gbps = md.outer_factor = md.cpu_factor = -1;
  char line[512], key[64], name[64];
  double v;
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    n++;
    char *c = strchr(line, '#');
    if (c) *c = '\0';
    if (sscanf(line, "%63s", key) != 1) continue;
    int ok = 1;
    if (!strcmp(key, "cell_ns")) {
      ok = sscanf(line, "%*s %63s %lf", name, &v) == 2 && v >= 0 && md.nk < MAX_KERNELS;
      if (ok) {
        snprintf(md.k[md.nk].name, sizeof md.k[0].name, "%s", name);
        md.k[md.nk++].ns = v;
      }
    } else {
      double *dst = !strcmp(key, "task_us")        ? &md.task_us
                    : !strcmp(key, "move_gbps")    ? &md.move_gbps
                    : !strcmp(key, "outer_factor") ? &md.outer_factor
                    : !strcmp(key, "cpu_factor")   ? &md.cpu_factor
                                                   : NULL;
      ok = dst && sscanf(line, "%*s %lf", &v) == 1 && v >= 0;
      if (ok) *dst = v;
    }
    if (!ok) {
      fprintf(stderr, "tessera: %s:%d: invalid line (see runtime/simulate.c)\n", file, n);
      exit(2);
    }
  }
  fclose(f);
  if (md.task_us < 0 || md.move_gbps <= 0 || md.outer_factor < 0 || md.cpu_factor < 0 ||
      md.nk == 0) {
    fprintf(stderr,
            "tessera: %s: needs task_us, move_gbps, outer_factor, cpu_factor and a cell_ns\n",
            file);
    exit(2);
  }
}

static int models_kind(void) {
  if (md.loaded) return md.kind;
  const char *v = getenv("TESS_SIM_MODELS");
  md.loaded = 1;
  if (!v || !*v || !strcmp(v, "calibrated"))
    md.kind = MODELS_CALIBRATED;
  else if (!strcmp(v, "synthetic"))
    md.kind = MODELS_SYNTHETIC;
  else if (!strncmp(v, "measured:", 9) && v[9]) {
    md.kind = MODELS_MEASURED;
    load_measured(v + 9);
  } else {
    fprintf(stderr,
            "tessera: TESS_SIM_MODELS='%s' is invalid (allowed: calibrated, synthetic, "
            "measured:FILE)\n",
            v);
    exit(2);
  }
  return md.kind;
}

static int is_moves(const struct starpu_codelet *cl) {
  return cl == &tess_pack_cl || cl == &tess_unpack_cl || cl == &tess_fill_cl ||
         cl == &tess_boundary_cl;
}

/* A stage task's per-cell cost in a derived model, by its model's symbol,
 * tess_<kernel>_<index>_<class> (runtime/graph/tasks.c); *outer: an outer class. */
static double stage_ns(const char *symbol, int *outer) {
  const char *k = strncmp(symbol, "tess_", 5) ? symbol : symbol + 5;
  const char *part = strrchr(k, '_');
  const char *end = part;
  while (end && end > k && end[-1] != '_')
    end--;
  size_t len = end && end > k ? (size_t)(end - 1 - k) : strlen(k);
  *outer = part && !strcmp(part, "_outer");
  for (int i = 0; i < md.nk; i++)
    if (strlen(md.k[i].name) == len && !strncmp(md.k[i].name, k, len)) return md.k[i].ns;
  fprintf(stderr, "tessera: %s has no cell_ns line for the stage model %s\n", md.file, symbol);
  exit(2);
}

static double model_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch,
                         unsigned nimpl) {
  const struct starpu_perfmodel *m = task->cl->model;
  const int measured = md.kind == MODELS_MEASURED;
  const int gpu = arch->ndevices > 0 && arch->devices[0].type == STARPU_CUDA_WORKER;
  double bytes = 0, us = measured ? md.task_us : LAUNCH_US;
  if (is_moves(task->cl)) {
    const tess_moves *l = task->cl_arg;
    for (int i = 0; i < l->n; i++)
      bytes += 2.0 * (double)tess_move_count(&l->m[i]) * (double)l->esize;
  } else if (m && m->size_base) {
    const double cells = (double)m->size_base(task, nimpl);
    if (!measured)
      bytes = STAGE_BYTES_PER_CELL * cells;
    else {
      int outer;
      const double ns = stage_ns(m->symbol, &outer);
      us += 1e-3 * cells * ns * (outer ? md.outer_factor : 1.0);
    }
  } else {
    for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); i++)
      bytes += (double)starpu_data_get_size(STARPU_TASK_GET_HANDLE(task, i));
  }
  if (measured) return (us + bytes / (md.move_gbps * 1e3)) * (gpu ? 1.0 : md.cpu_factor);
  return us + bytes / (gpu ? GPU_BYTES_PER_US : CPU_BYTES_PER_US);
}

void tess_simgrid_model(struct starpu_perfmodel *m) {
  if (models_kind() == MODELS_CALIBRATED) return;
  m->type = STARPU_PER_ARCH;
  m->arch_cost_function = model_cost;
}

/* What a simulated rank costs the one process that simulates them all (docs/simulation.md,
 * "What the simulation costs"): two fixes, both for this build only.
 *
 * 1. Host buffers. StarPU-MPI sends and receives the halo buffers from their main-memory
 *    replicas, which StarPU allocates for real, and SMPI copies every message's payload from the
 *    sender's buffer into the receiver's: memory for every rank's replicas, and most of the wall
 *    time in memcpy and page faults. Their bytes mean nothing here (no kernel runs, GPU copies are
 *    simulated), so StarPU's large main-memory allocations (starpu_malloc_set_hooks) come from
 *    one span of address space per rank that SMPI knows as shared (SMPI_SHARED_MALLOC): SMPI does
 *    not copy a payload whose source is shared, nothing else writes them, so their pages are
 *    never touched. One span, not one SMPI allocation per buffer: a mapping each would pass the
 *    kernel's limit of mappings (vm.max_map_count) at a few hundred ranks. SMPI maps it from a
 *    sparse file ("local" shared malloc; the "global" kind would map and populate it MiB by MiB).
 *    The spans of all ranks alias one file, so an allocation whose bytes matter must stay out:
 *    the small ones (the values of simgrid_mpi.c's collectives, FOLD_MIN) keep malloc. */
#define FOLD_MIN  ((size_t)64 << 10)
#define FOLD_SPAN ((size_t)32 << 30) /* address space per rank, never touched */
static struct {
  char *base;
  size_t used;
  int tried;
  struct fold_block {
    char *p;
    size_t n;
    int live;
  } * b;
  int nb, cap;
} fold; /* per rank: SMPI privatizes the globals of each rank */

static int fold_malloc(unsigned node, void **a, size_t dim, int flags) {
  (void)node, (void)flags;
  const size_t n = (dim + 4095) & ~(size_t)4095;
  if (dim >= FOLD_MIN && !fold.tried) {
    fold.tried = 1;
    fold.base = SMPI_SHARED_MALLOC(FOLD_SPAN);
  }
  if (dim >= FOLD_MIN && fold.base) {
    for (int i = 0; i < fold.nb; i++) /* a freed block of this size (buffers recur) */
      if (!fold.b[i].live && fold.b[i].n == n) {
        fold.b[i].live = 1;
        *a = fold.b[i].p;
        return 0;
      }
    if (fold.used + n <= FOLD_SPAN && fold.nb == fold.cap) { /* grow the list, or keep it */
      struct fold_block *b = realloc(fold.b, (2 * (size_t)fold.cap + 64) * sizeof *b);
      if (b) fold.b = b, fold.cap = 2 * fold.cap + 64;
    }
    if (fold.used + n <= FOLD_SPAN && fold.nb < fold.cap) {
      fold.b[fold.nb++] = (struct fold_block){fold.base + fold.used, n, 1};
      *a = fold.base + fold.used;
      fold.used += n;
      return 0;
    }
  }
  *a = malloc(dim);
  return *a ? 0 : -ENOMEM;
}

static int fold_free(unsigned node, void *a, size_t dim, int flags) {
  (void)node, (void)dim, (void)flags;
  if (fold.base && (char *)a >= fold.base && (char *)a < fold.base + FOLD_SPAN) {
    for (int i = 0; i < fold.nb; i++)
      if (fold.b[i].p == (char *)a) fold.b[i].live = 0;
    return 0;
  }
  free(a);
  return 0;
}

/* 2. Actors. In SimGrid mode StarPU-MPI starts an actor for every MPI request it posts ("wait
 *    for mpi transfer", _starpu_mpi_simgrid_wait_req), through starpu_pthread_create_on, which
 *    takes a reference on it that only starpu_pthread_join drops; nobody joins these, so every
 *    request's actor stays allocated with its stack (and a guard page, two kernel mappings) to
 *    the end of the run: memory and mappings growing with ranks x steps. This build's
 *    sg_actor_ref, which StarPU's static code binds to, takes no reference for those actors:
 *    SimGrid frees them when they end. Every other reference goes to SimGrid's. */
#define SG_STR(x)            #x
#define SG_LIB(major, minor) "libsimgrid.so." SG_STR(major) "." SG_STR(minor)
void sg_actor_ref(const_sg_actor_t actor) {
  static void (*simgrid_ref)(const_sg_actor_t);
  if (!strcmp(sg_actor_get_name(actor), "wait for mpi transfer")) return;
  if (!simgrid_ref) {
    void *lib = dlopen(SG_LIB(SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR), RTLD_LAZY);
    if (lib) *(void **)&simgrid_ref = dlsym(lib, "sg_actor_ref");
    if (!simgrid_ref) {
      fprintf(stderr, "tessera: SimGrid's sg_actor_ref not found (%s)\n", dlerror());
      abort();
    }
  }
  simgrid_ref(actor);
}

/* 3. Whole-grid arrays. An app's rank 0 may allocate arrays of the whole grid (the MHD app's
 *    diagnostics gather), which no simulated run fills: past a few hundred GPUs one is larger
 *    than the machine, and SMPI's malloc aborts. The allocations of GRID_SHARED bytes or more
 *    (smpicc routes malloc through SMPI) are SMPI-shared the same way: address space, no memory.
 *    Nothing of that size holds a value a simulated run reads. */
#define GRID_SHARED ((double)(1u << 30))

void tess_simgrid_setup(void) {
  /* "local" shared malloc: one sparse file mapped once per allocation (the span above, the
   * arrays of 3.); nothing else in this program uses SMPI's shared malloc */
  sg_cfg_set_string("smpi/shared-malloc", "local");
  sg_cfg_set_double("smpi/auto-shared-malloc-thresh", GRID_SHARED);
  starpu_malloc_set_hooks(fold_malloc, fold_free);
  const struct starpu_codelet *cl[] = {&tess_pack_cl, &tess_unpack_cl, &tess_fill_cl,
                                       &tess_boundary_cl};
  for (size_t i = 0; i < sizeof cl / sizeof cl[0]; i++)
    tess_simgrid_model(cl[i]->model);
  if (starpu_mpi_world_rank() != 0) return;
  if (md.kind == MODELS_SYNTHETIC)
    printf("simulate: TESS_SIM_MODELS=synthetic: task times are %.0f us plus their bytes at "
           "%.0f GB/s (GPU) or %.0f GB/s (CPU), not calibrated: the step times are no "
           "prediction\n",
           LAUNCH_US, GPU_BYTES_PER_US * 1e-3, CPU_BYTES_PER_US * 1e-3);
  if (md.kind == MODELS_MEASURED)
    printf("simulate: TESS_SIM_MODELS=measured:%s: task times %.1f us plus cells at per-cell "
           "costs derived from measured runs (outer classes x%.2f), box moves at %.0f GB/s; "
           "not StarPU-calibrated\n",
           md.file, md.task_us, md.outer_factor, md.move_gbps);
}
#else
typedef int tess_simulate_unused; /* ISO C: a translation unit is not empty */
#endif

/* simulate.c — what the SimGrid build of the runtime (docs/simulation.md) needs and the others
 * do not: GPU functions for StarPU's codelets where there are no CUDA kernels, and synthetic task
 * times for running without calibrated models. StarPU in SimGrid mode schedules a task on a
 * simulated GPU when its codelet has a CUDA function, and takes the task's time from the
 * codelet's performance model instead of calling it. */
#ifdef TESS_SIMGRID
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <starpu_mpi.h>

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

static int is_moves(const struct starpu_codelet *cl) {
  return cl == &tess_pack_cl || cl == &tess_unpack_cl || cl == &tess_fill_cl ||
         cl == &tess_boundary_cl;
}

static double synthetic_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch,
                             unsigned nimpl) {
  const struct starpu_perfmodel *m = task->cl->model;
  double bytes = 0;
  if (is_moves(task->cl)) {
    const tess_moves *l = task->cl_arg;
    for (int i = 0; i < l->n; i++)
      bytes += 2.0 * (double)tess_move_count(&l->m[i]) * (double)l->esize;
  } else if (m && m->size_base) {
    bytes = STAGE_BYTES_PER_CELL * (double)m->size_base(task, nimpl);
  } else {
    for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); i++)
      bytes += (double)starpu_data_get_size(STARPU_TASK_GET_HANDLE(task, i));
  }
  const int gpu = arch->ndevices > 0 && arch->devices[0].type == STARPU_CUDA_WORKER;
  return LAUNCH_US + bytes / (gpu ? GPU_BYTES_PER_US : CPU_BYTES_PER_US);
}

static int synthetic(void) {
  const char *v = getenv("TESS_SIM_MODELS");
  if (!v || !*v || !strcmp(v, "calibrated")) return 0;
  if (!strcmp(v, "synthetic")) return 1;
  fprintf(stderr, "tessera: TESS_SIM_MODELS='%s' is invalid (allowed: calibrated, synthetic)\n", v);
  exit(2);
}

void tess_simgrid_model(struct starpu_perfmodel *m) {
  if (!synthetic()) return;
  m->type = STARPU_PER_ARCH;
  m->arch_cost_function = synthetic_cost;
}

void tess_simgrid_setup(void) {
  const struct starpu_codelet *cl[] = {&tess_pack_cl, &tess_unpack_cl, &tess_fill_cl,
                                       &tess_boundary_cl};
  for (size_t i = 0; i < sizeof cl / sizeof cl[0]; i++)
    tess_simgrid_model(cl[i]->model);
  if (synthetic() && starpu_mpi_world_rank() == 0)
    printf("simulate: TESS_SIM_MODELS=synthetic: task times are %.0f us plus their bytes at "
           "%.0f GB/s (GPU) or %.0f GB/s (CPU), not calibrated: the step times are no "
           "prediction\n",
           LAUNCH_US, GPU_BYTES_PER_US * 1e-3, CPU_BYTES_PER_US * 1e-3);
}
#else
typedef int tess_simulate_unused; /* ISO C: a translation unit is not empty */
#endif

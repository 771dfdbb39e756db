/* simulate.c — what the SimGrid build of the runtime (docs/simulation.md) needs and the others
 * do not: GPU functions for StarPU's codelets where there are no CUDA kernels. StarPU in SimGrid
 * mode schedules a task on a simulated GPU when its codelet has a CUDA function, and takes the
 * task's time from the calibrated performance model instead of calling it. */
#ifdef TESS_SIMGRID
#include <stdio.h>
#include <stdlib.h>

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
#else
typedef int tess_simulate_unused; /* ISO C: a translation unit is not empty */
#endif

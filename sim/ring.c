/* ring.c — the smallest StarPU-MPI program with the shape of a Tessera step, for checking that
 * a StarPU + SimGrid build simulates GPUs and MPI end to end (tests/simulation.sh).
 *
 * Every rank owns one block (BYTES) and, each step, runs a "work" task on it on a (simulated)
 * GPU, then a "mix" task that reads its left neighbour's block (a halo exchange through
 * StarPU-MPI) and writes its own:
 *
 *     rank r:  work(b_r) -> mix(b_r, b_{r-1}) -> work(b_r) -> ...
 *                              ^ b_{r-1} arrives from rank r-1 over the simulated network
 *
 * The tasks' times come from cost functions (WORK_US, MIX_US on the command line), not from
 * calibrated models, so the simulated time has an independent prediction: at least
 * steps * (work + mix), plus the transfers. The CUDA implementation is a placeholder that
 * SimGrid never calls (StarPU only needs it to exist to schedule the task on a CUDA worker).
 *
 *     ring STEPS WORK_US MIX_US BYTES      prints "simulated_us <t> ranks <p>" on rank 0
 */
#include <starpu.h>
#include <starpu_mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work_us, mix_us;

static double work_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch,
                        unsigned nimpl) {
  (void)task, (void)arch, (void)nimpl;
  return work_us;
}
static double mix_cost(struct starpu_task *task, struct starpu_perfmodel_arch *arch,
                       unsigned nimpl) {
  (void)task, (void)arch, (void)nimpl;
  return mix_us;
}
static struct starpu_perfmodel work_model = {.type = STARPU_PER_ARCH,
                                             .arch_cost_function = work_cost};
static struct starpu_perfmodel mix_model = {.type = STARPU_PER_ARCH,
                                            .arch_cost_function = mix_cost};

/* Never called in SimGrid mode: only its address matters. */
static void gpu_placeholder(void *buffers[], void *arg) {
  (void)buffers, (void)arg;
  abort();
}

static struct starpu_codelet work_cl = {.cuda_funcs = {gpu_placeholder},
                                        .nbuffers = 1,
                                        .modes = {STARPU_RW},
                                        .model = &work_model,
                                        .name = "work"};
static struct starpu_codelet mix_cl = {.cuda_funcs = {gpu_placeholder},
                                       .nbuffers = 2,
                                       .modes = {STARPU_RW, STARPU_R},
                                       .model = &mix_model,
                                       .name = "mix"};

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: ring STEPS WORK_US MIX_US BYTES\n");
    return 2;
  }
  int steps = atoi(argv[1]);
  work_us = atof(argv[2]);
  mix_us = atof(argv[3]);
  long bytes = atol(argv[4]);
  if (steps < 1 || work_us <= 0 || mix_us <= 0 || bytes < 8) {
    fprintf(stderr, "ring: STEPS >= 1, WORK_US > 0, MIX_US > 0, BYTES >= 8 (got %s %s %s %s)\n",
            argv[1], argv[2], argv[3], argv[4]);
    return 2;
  }
  int ret = starpu_mpi_init_conf(&argc, &argv, 1, MPI_COMM_WORLD, NULL);
  if (ret == -ENODEV) return 77;
  STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_init_conf");
  int rank, size;
  starpu_mpi_comm_rank(MPI_COMM_WORLD, &rank);
  starpu_mpi_comm_size(MPI_COMM_WORLD, &size);
  if (starpu_cuda_worker_get_count() == 0) {
    fprintf(stderr, "ring: no (simulated) CUDA worker; is STARPU_NCUDA 0?\n");
    starpu_mpi_shutdown();
    return 77;
  }

  size_t n = (size_t)bytes / sizeof(double);
  double *mine = calloc(n, sizeof *mine);
  starpu_data_handle_t *h = calloc((size_t)size, sizeof *h);
  for (int r = 0; r < size; r++) {
    if (r == rank)
      starpu_vector_data_register(&h[r], STARPU_MAIN_RAM, (uintptr_t)mine, n, sizeof *mine);
    else
      starpu_vector_data_register(&h[r], -1, 0, n, sizeof *mine);
    starpu_mpi_data_register(h[r], r, r);
  }

  starpu_mpi_barrier(MPI_COMM_WORLD);
  double t0 = starpu_timing_now();
  for (int s = 0; s < steps; s++)
    for (int r = 0; r < size; r++) {
      starpu_mpi_task_insert(MPI_COMM_WORLD, &work_cl, STARPU_RW, h[r], 0);
      if (size > 1)
        starpu_mpi_task_insert(MPI_COMM_WORLD, &mix_cl, STARPU_RW, h[r], STARPU_R,
                               h[(r + size - 1) % size], 0);
      else
        starpu_mpi_task_insert(MPI_COMM_WORLD, &mix_cl, STARPU_RW, h[r], STARPU_R, h[r], 0);
    }
  starpu_mpi_wait_for_all(MPI_COMM_WORLD);
  starpu_mpi_barrier(MPI_COMM_WORLD);
  double t1 = starpu_timing_now();
  if (rank == 0) printf("simulated_us %.1f ranks %d\n", t1 - t0, size);

  for (int r = 0; r < size; r++)
    starpu_data_unregister(h[r]);
  free(h);
  free(mine);
  starpu_mpi_shutdown();
  return 0;
}

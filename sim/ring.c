/* ring.c — the smallest StarPU-MPI program with the shape of a Tessera step, for checking that
 * a StarPU + SimGrid build simulates GPUs and MPI end to end (tests/simulation.sh).
 *
 * Every rank owns two blocks of BYTES, u and v. Each step, on a (simulated) GPU, "work" writes
 * u from v, then "mix" writes v from u and the left neighbour's u (a halo exchange through
 * StarPU-MPI):
 *
 *     rank r:  work(u_r <- v_r) -> mix(v_r <- u_r, u_{r-1}) -> work(u_r <- v_r) -> ...
 *                                           ^ u_{r-1} from rank r-1: GPU -> host -> network
 *                                             -> host -> GPU
 *
 * The tasks' times come from cost functions (WORK_US, MIX_US on the command line), not from
 * calibrated models, so the simulated time has a prediction made without the simulator: with
 * one rank steps * (work + mix); with more, each step's critical path is work, u's trip to the
 * right neighbour, mix. The CUDA implementation is a placeholder that SimGrid never calls
 * (StarPU only needs it to exist to schedule the task on a CUDA worker).
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
                                        .nbuffers = 2,
                                        .modes = {STARPU_W, STARPU_R},
                                        .model = &work_model,
                                        .name = "work"};
static struct starpu_codelet mix_cl = {.cuda_funcs = {gpu_placeholder},
                                       .nbuffers = 3,
                                       .modes = {STARPU_W, STARPU_R, STARPU_R},
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
  double *mine = calloc(2 * n, sizeof *mine);
  starpu_data_handle_t *u = calloc((size_t)size, sizeof *u), *v = calloc((size_t)size, sizeof *v);
  for (int r = 0; r < size; r++) {
    if (r == rank) {
      starpu_vector_data_register(&u[r], STARPU_MAIN_RAM, (uintptr_t)mine, n, sizeof *mine);
      starpu_vector_data_register(&v[r], STARPU_MAIN_RAM, (uintptr_t)(mine + n), n, sizeof *mine);
    } else {
      starpu_vector_data_register(&u[r], -1, 0, n, sizeof *mine);
      starpu_vector_data_register(&v[r], -1, 0, n, sizeof *mine);
    }
    starpu_mpi_data_register(u[r], 2 * r, r);
    starpu_mpi_data_register(v[r], 2 * r + 1, r);
  }

  starpu_mpi_barrier(MPI_COMM_WORLD);
  double t0 = starpu_timing_now();
  for (int s = 0; s < steps; s++)
    for (int r = 0; r < size; r++) {
      starpu_mpi_task_insert(MPI_COMM_WORLD, &work_cl, STARPU_W, u[r], STARPU_R, v[r], 0);
      starpu_mpi_task_insert(MPI_COMM_WORLD, &mix_cl, STARPU_W, v[r], STARPU_R, u[r], STARPU_R,
                             u[(r + size - 1) % size], 0);
    }
  starpu_mpi_wait_for_all(MPI_COMM_WORLD);
  starpu_mpi_barrier(MPI_COMM_WORLD);
  double t1 = starpu_timing_now();
  if (rank == 0) printf("simulated_us %.1f ranks %d\n", t1 - t0, size);

  for (int r = 0; r < size; r++) {
    starpu_data_unregister(u[r]);
    starpu_data_unregister(v[r]);
  }
  free(u);
  free(v);
  free(mine);
  starpu_mpi_shutdown();
  return 0;
}

/* test_badinput_api — the library refuses bad compositions with TESS_ERR_ARG: a stencil
 * radius beyond what the runtime supports, a stage writing a field it reads through its
 * footprint, unknown fields, and setters after setup (TESS_ERR_STATE). */
#include <stdio.h>

#include "heat.h"
#include "tessera.h"

static int failures = 0;
#define EXPECT_ERR(expr, code)                                                                     \
  do {                                                                                             \
    tess_err e_ = (expr);                                                                          \
    if (e_ != (code)) {                                                                            \
      printf("FAIL: %s returned %s, expected %s\n", #expr, tess_err_name(e_),                      \
             tess_err_name(code));                                                                 \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static void noop(const tess_region *r) { (void)r; }

int main(int argc, char **argv) {
  if (tess_init(&argc, &argv, NULL)) return 1;
  const int n[3] = {32, 32, 1};
  tess_sim_t sim;
  int u, v;
  EXPECT_ERR(tess_sim_create(MPI_COMM_WORLD, (int[3]){0, 4, 4}, &sim), TESS_ERR_ARG);
  EXPECT_ERR(tess_sim_create(MPI_COMM_WORLD, n, &sim), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "u", 1, &u), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "v", 1, &v), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "w", 0, &v), TESS_ERR_ARG);
  const tess_kernel wide = {.name = "wide", .cpu = noop, .shape = TESS_SHAPE_STAR, .radius = 12};
  EXPECT_ERR(tess_sim_add_stage(
                 sim, &(tess_stage){.kernel = &wide, .nin = 1, .in = {u}, .nout = 1, .out = {v}}),
             TESS_ERR_ARG);
  EXPECT_ERR(
      tess_sim_add_stage(
          sim,
          &(tess_stage){.kernel = &tess_heat2_kernel, .nin = 1, .in = {u}, .nout = 1, .out = {u}}),
      TESS_ERR_ARG);
  EXPECT_ERR(
      tess_sim_add_stage(
          sim,
          &(tess_stage){.kernel = &tess_heat2_kernel, .nin = 1, .in = {7}, .nout = 1, .out = {v}}),
      TESS_ERR_ARG);
  EXPECT_ERR(tess_sim_setup(sim), TESS_ERR_ARG); /* no stage yet */
  const tess_heat_params prm = {1};
  EXPECT_ERR(tess_sim_add_stage(sim, &(tess_stage){.kernel = &tess_heat2_kernel,
                                                   .nin = 1,
                                                   .in = {u},
                                                   .nout = 1,
                                                   .out = {v},
                                                   .params = &prm,
                                                   .params_size = sizeof prm}),
             TESS_OK);
  EXPECT_ERR(tess_sim_setup(sim), TESS_OK);
  EXPECT_ERR(tess_sim_set_tiles(sim, 2), TESS_ERR_STATE);
  EXPECT_ERR(tess_sim_run(sim, -1, 1e-4), TESS_ERR_ARG);
  tess_sim_destroy(&sim);
  if (sim) {
    printf("FAIL: destroy did not clear the handle\n");
    failures++;
  }
  tess_sim_destroy(&sim); /* NULL-safe */

  /* single precision needs a single-precision version of every stage's kernel */
  EXPECT_ERR(tess_sim_create(MPI_COMM_WORLD, n, &sim), TESS_OK);
  EXPECT_ERR(tess_sim_set_precision(sim, (tess_precision)7), TESS_ERR_ARG);
  EXPECT_ERR(tess_sim_set_precision(sim, TESS_FP32), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "u", 1, &u), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "v", 1, &v), TESS_OK);
  const tess_kernel f64_only = {
      .name = "f64_only", .cpu = noop, .shape = TESS_SHAPE_STAR, .radius = 1};
  EXPECT_ERR(
      tess_sim_add_stage(
          sim, &(tess_stage){.kernel = &f64_only, .nin = 1, .in = {u}, .nout = 1, .out = {v}}),
      TESS_OK);
  EXPECT_ERR(tess_sim_setup(sim), TESS_ERR_ARG);
  tess_sim_destroy(&sim);

  /* footprints per input: a reach outside -8..8 or on the wrong side, too few inputs declared;
   * temporaries: read before the step writes them, or swapped */
  const tess_kernel deep = {.name = "deep",
                            .cpu = noop,
                            .shape = TESS_SHAPE_STAR,
                            .nreach = 1,
                            .reach = {{{-9, 0, 0}, {1, 0, 0}}}};
  const tess_kernel side = {.name = "side",
                            .cpu = noop,
                            .shape = TESS_SHAPE_STAR,
                            .nreach = 1,
                            .reach = {{{1, 0, 0}, {1, 0, 0}}}};
  const tess_kernel one = {.name = "one",
                           .cpu = noop,
                           .shape = TESS_SHAPE_STAR,
                           .nreach = 1,
                           .reach = {{{-1, 0, 0}, {1, 0, 0}}}};
  int t;
  EXPECT_ERR(tess_sim_create(MPI_COMM_WORLD, n, &sim), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "u", 1, &u), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "v", 1, &v), TESS_OK);
  EXPECT_ERR(tess_sim_add_temporary(sim, "t", 1, &t), TESS_OK);
  EXPECT_ERR(tess_sim_set_strategy(sim, (tess_strategy)9), TESS_ERR_ARG);
  EXPECT_ERR(tess_sim_add_stage(
                 sim, &(tess_stage){.kernel = &deep, .nin = 1, .in = {u}, .nout = 1, .out = {v}}),
             TESS_ERR_ARG);
  EXPECT_ERR(tess_sim_add_stage(
                 sim, &(tess_stage){.kernel = &side, .nin = 1, .in = {u}, .nout = 1, .out = {v}}),
             TESS_ERR_ARG);
  EXPECT_ERR(tess_sim_add_stage(
                 sim, &(tess_stage){.kernel = &one, .nin = 2, .in = {u, t}, .nout = 1, .out = {v}}),
             TESS_ERR_ARG);
  EXPECT_ERR(tess_sim_add_stage(
                 sim, &(tess_stage){.kernel = &one, .nin = 1, .in = {t}, .nout = 1, .out = {v}}),
             TESS_OK);
  EXPECT_ERR(tess_sim_add_stage(
                 sim, &(tess_stage){.kernel = &one, .nin = 1, .in = {u}, .nout = 1, .out = {t}}),
             TESS_OK);
  EXPECT_ERR(tess_sim_setup(sim), TESS_ERR_ARG); /* t read before written */
  tess_sim_destroy(&sim);
  EXPECT_ERR(tess_sim_create(MPI_COMM_WORLD, n, &sim), TESS_OK);
  EXPECT_ERR(tess_sim_add_field(sim, "u", 1, &u), TESS_OK);
  EXPECT_ERR(tess_sim_add_temporary(sim, "t", 1, &t), TESS_OK);
  EXPECT_ERR(tess_sim_add_stage(
                 sim, &(tess_stage){.kernel = &one, .nin = 1, .in = {u}, .nout = 1, .out = {t}}),
             TESS_OK);
  EXPECT_ERR(tess_sim_add_swap(sim, u, t), TESS_OK);
  EXPECT_ERR(tess_sim_setup(sim), TESS_ERR_ARG); /* a temporary swapped */
  tess_sim_destroy(&sim);
  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  tess_finalize();
  return failures ? 1 : 0;
}

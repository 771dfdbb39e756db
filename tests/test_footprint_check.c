/* test_footprint_check [good|bad|diag|diag_ok] — the footprint check (tess_sim_set_footprint_check)
 * on two kernels. `good` and `bad`: one reads u at x-1 and x+1; `good` declares both, and the run
 * passes; `bad` declares only x[0,1]: the check must abort naming the stage, the field and the
 * direction -x. `diag` and `diag_ok`: one reads u at (x+1, y+1) and (x-1, y), declared inside
 * the reach box x[-1,1] y[-1,1]; as a star (`diag`) the diagonal is undeclared and the check must
 * abort naming direction ++; as star_diag (`diag_ok`) it is declared and the run passes (ctest
 * runs the aborting ones through expect_fail.sh). */
#include <stdio.h>
#include <string.h>

#include "tessera.h"

static void diff_x(const tess_region *r) {
  for (int y = r->lo[1]; y < r->hi[1]; y++)
    for (int x = r->lo[0]; x < r->hi[0]; x++) {
      const size_t i = TESS_IDX(r->dim[0], r->dim[1], 1, 0, x, y, 0);
      r->out[0][i] = r->in[0][i + 1] - r->in[0][i - 1];
    }
}

static void diag_xy(const tess_region *r) {
  for (int y = r->lo[1]; y < r->hi[1]; y++)
    for (int x = r->lo[0]; x < r->hi[0]; x++) {
      const size_t i = TESS_IDX(r->dim[0], r->dim[1], 1, 0, x, y, 0);
      const size_t ne = TESS_IDX(r->dim[0], r->dim[1], 1, 0, x + 1, y + 1, 0);
      r->out[0][i] = r->in[0][ne] - r->in[0][i - 1];
    }
}

static double ramp(const long g[3], int comp, void *ctx) {
  (void)comp;
  (void)ctx;
  return (double)(g[0] * g[0]) + 0.5 * (double)g[1];
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "good";
  const int bad = !strcmp(mode, "bad"), diag = !strncmp(mode, "diag", 4);
  if (tess_init(&argc, &argv, NULL)) return 1;
  const tess_kernel k =
      diag
          ? (tess_kernel){.name = "corner",
                          .cpu = diag_xy,
                          .shape = strcmp(mode, "diag_ok") ? TESS_SHAPE_STAR : TESS_SHAPE_STAR_DIAG,
                          .nreach = 1,
                          .reach = {{{-1, -1, 0}, {1, 1, 0}}}}
          : (tess_kernel){.name = "peek",
                          .cpu = diff_x,
                          .shape = TESS_SHAPE_STAR,
                          .nreach = 1,
                          .reach = {{{bad ? 0 : -1, 0, 0}, {1, 0, 0}}}};
  tess_sim_t sim = NULL;
  int u, v;
  const int n[3] = {16, 12, 1};
  int ok = !tess_sim_create(MPI_COMM_WORLD, n, &sim) &&
           !tess_sim_set_device(sim, TESS_DEVICE_CPU) && !tess_sim_set_tiles(sim, 2) &&
           !tess_sim_set_footprint_check(sim, 1) && !tess_sim_add_field(sim, "u", 1, &u) &&
           !tess_sim_add_field(sim, "v", 1, &v) &&
           !tess_sim_add_stage(
               sim, &(tess_stage){.kernel = &k, .nin = 1, .in = {u}, .nout = 1, .out = {v}}) &&
           !tess_sim_setup(sim) && !tess_sim_fill(sim, u, ramp, NULL) && !tess_sim_run(sim, 2, 1);
  printf("%s\n", ok ? "passed: no read outside the declared footprint" : "FAILED: setup or run");
  tess_sim_destroy(&sim);
  tess_finalize();
  return ok ? 0 : 1;
}

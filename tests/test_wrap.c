/* test_wrap — tess_region.wrap through the runtime, on the CPU: a lone periodic tile whose
 * kernel says it wraps (TESS_WRAP_CPU) reads its input at the periodic images (tess_wrap)
 * instead of the ghost layers, and no halo is copied for it.
 *
 * Program, 12 x 10 x 8 cells, 6 steps: A: u -> v, a lopsided 7-point average that wraps; B:
 * v -> u, the same average reading the ghost layers, so v's halos must still be copied before B
 * (A leaves its output's ghosts as they are). Compared bitwise with tess_sim_gather against the
 * same program where A reads the ghost layers too (every halo copied), one tile and two tiles
 * (where the runtime must not ask for wrap: the tile is not its own neighbour), and one tile
 * with tess_sim_set_wrap(sim, 0). A's calls with r->wrap set are counted: the wrapping one-tile
 * run must have them, the two-tile and wrap-off runs none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cahn_hilliard.h"
#include "heat.h"
#include "maxwell.h"
#include "tessera.h"

static int wrap_calls;

static void average(const tess_region *r) {
  const int *d = r->dim, *g = r->ghost, w = r->wrap;
  if (w) wrap_calls++;
  for (int z = r->lo[2]; z < r->hi[2]; z++)
    for (int y = r->lo[1]; y < r->hi[1]; y++)
      for (int x = r->lo[0]; x < r->hi[0]; x++) {
        /* the six neighbours, at their periodic images when wrapping */
        const int xm = w ? tess_wrap(x - 1, g[0], d[0]) : x - 1;
        const int xp = w ? tess_wrap(x + 1, g[0], d[0]) : x + 1;
        const int ym = w ? tess_wrap(y - 1, g[1], d[1]) : y - 1;
        const int yp = w ? tess_wrap(y + 1, g[1], d[1]) : y + 1;
        const int zm = w ? tess_wrap(z - 1, g[2], d[2]) : z - 1;
        const int zp = w ? tess_wrap(z + 1, g[2], d[2]) : z + 1;
#define U(i, j, k) r->in[0][TESS_IDX(d[0], d[1], 1, 0, i, j, k)]
        r->out[0][TESS_IDX(d[0], d[1], 1, 0, x, y, z)] =
            0.40 * U(x, y, z) + 0.11 * U(xm, y, z) + 0.09 * U(xp, y, z) + 0.12 * U(x, ym, z) +
            0.08 * U(x, yp, z) + 0.13 * U(x, y, zm) + 0.07 * U(x, y, zp);
#undef U
      }
}

static double ramp(const long g[3], int comp, void *ctx) {
  (void)comp;
  (void)ctx;
  return (double)(g[0] * g[0]) + 3.0 * (double)g[1] + 0.5 * (double)(g[2] * g[2] * g[2]);
}

enum { NX = 12, NY = 10, NZ = 8, NCELLS = NX * NY * NZ, STEPS = 6 };

/* Runs the program on `tiles` tiles, A wrapping or not, the runtime allowing wraps or not
 * (tess_sim_set_wrap); u after STEPS steps into `u_out`. */
static int run(int tiles, int a_wraps, int allow, double *u_out) {
  const tess_kernel a = {.name = a_wraps ? "average_wrap" : "average_a",
                         .cpu = average,
                         .shape = TESS_SHAPE_STAR,
                         .radius = 1,
                         .wraps = a_wraps ? TESS_WRAP_CPU : 0u};
  const tess_kernel b = {
      .name = "average_b", .cpu = average, .shape = TESS_SHAPE_STAR, .radius = 1};
  const int n[3] = {NX, NY, NZ};
  tess_sim_t sim = NULL;
  int u, v;
  const int ok =
      !tess_sim_create(MPI_COMM_WORLD, n, &sim) && !tess_sim_set_device(sim, TESS_DEVICE_CPU) &&
      !tess_sim_set_wrap(sim, allow) && !tess_sim_set_tiles(sim, tiles) &&
      !tess_sim_add_field(sim, "u", 1, &u) && !tess_sim_add_field(sim, "v", 1, &v) &&
      !tess_sim_add_stage(
          sim, &(tess_stage){.kernel = &a, .nin = 1, .in = {u}, .nout = 1, .out = {v}}) &&
      !tess_sim_add_stage(
          sim, &(tess_stage){.kernel = &b, .nin = 1, .in = {v}, .nout = 1, .out = {u}}) &&
      !tess_sim_setup(sim) && !tess_sim_fill(sim, u, ramp, NULL) &&
      !tess_sim_run(sim, STEPS, 1.0) && !tess_sim_gather(sim, u, 0, u_out);
  tess_sim_destroy(&sim);
  return ok;
}

int main(int argc, char **argv) {
  if (tess_init(&argc, &argv, NULL)) return 1;
  static double copied[NCELLS], wrapped[NCELLS], two[NCELLS], off[NCELLS];
  int ok = run(1, 0, 1, copied);
  wrap_calls = 0;
  ok = ok && run(1, 1, 1, wrapped);
  const int lone_calls = wrap_calls;
  wrap_calls = 0;
  ok = ok && run(2, 1, 1, two);
  const int two_calls = wrap_calls;
  wrap_calls = 0;
  ok = ok && run(1, 1, 0, off); /* the runtime told not to wrap: it copies */
  const int off_calls = wrap_calls;
  if (!ok) {
    printf("FAILED: setup or run\n");
  } else {
    const int same1 = !memcmp(copied, wrapped, sizeof copied),
              same2 = !memcmp(copied, two, sizeof copied),
              same3 = !memcmp(copied, off, sizeof copied);
    printf("one tile: %d of A's calls wrapped, u %s the copying run's; two tiles: %d wrapped, u "
           "%s; one tile, wrap off: %d wrapped, u %s\n",
           lone_calls, same1 ? "bitwise equal to" : "DIFFERS from", two_calls,
           same2 ? "bitwise equal" : "DIFFERS", off_calls, same3 ? "bitwise equal" : "DIFFERS");
    ok = same1 && same2 && same3 && lone_calls > 0 && two_calls == 0 && off_calls == 0;
  }
  /* The stencil layer's records: the kernels staged in 3D read their images on the GPU, the
   * per-cell ones leave the copies to the runtime (stencil/cpu.h's opt-in). */
  const int staged = tess_heat2_kernel.wraps == TESS_WRAP_CUDA &&
                     tess_heat6_kernel.wraps == TESS_WRAP_CUDA &&
                     tess_ch_fused_kernel.wraps == TESS_WRAP_CUDA &&
                     tess_maxwell_rk3_kernel.wraps == TESS_WRAP_CUDA,
            cells = tess_ch_mu_kernel.wraps == 0 && tess_ch_update_kernel.wraps == 0;
  printf("stencil records: staged kernels %s on the GPU, per-cell kernels %s\n",
         staged ? "wrap" : "DO NOT wrap", cells ? "copy" : "DO NOT copy");
  ok = ok && staged && cells;
  printf("%s\n", ok ? "passed" : "FAILED");
  tess_finalize();
  return ok ? 0 : 1;
}

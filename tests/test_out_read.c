/* test_out_read — tess_region.out_read through the runtime: a kernel learns which of its outputs
 * its stage reads (tess_stage.out_read, the field the runtime also hands StarPU as read-write),
 * so it may fetch them ahead (the stencil layer's staged GPU launch prefetches them).
 *
 * Program, 8 x 8 x 8 cells on 2 tiles, 3 steps: A: v = u (writes v, out_read 0); B: v = v + u
 * (reads v at the cell, out_read 1). Every call of A must see out_read 0 and every call of B bit 0
 * set; v must end as 2u (B read what A wrote). */
#include <stdio.h>

#include "tessera.h"

enum { N = 8, NCELLS = N * N * N, STEPS = 3 };

static int calls_a, calls_b, wrong;

static void set_v(const tess_region *r) {
  calls_a++;
  if (r->out_read != 0) wrong++;
  const int *d = r->dim;
  for (int z = r->lo[2]; z < r->hi[2]; z++)
    for (int y = r->lo[1]; y < r->hi[1]; y++)
      for (int x = r->lo[0]; x < r->hi[0]; x++) {
        const long i = TESS_IDX(d[0], d[1], 1, 0, x, y, z);
        r->out[0][i] = r->in[0][i];
      }
}

static void add_u(const tess_region *r) {
  calls_b++;
  if (r->out_read != 1u) wrong++;
  const int *d = r->dim;
  for (int z = r->lo[2]; z < r->hi[2]; z++)
    for (int y = r->lo[1]; y < r->hi[1]; y++)
      for (int x = r->lo[0]; x < r->hi[0]; x++) {
        const long i = TESS_IDX(d[0], d[1], 1, 0, x, y, z);
        r->out[0][i] = r->out[0][i] + r->in[0][i];
      }
}

static double ramp(const long g[3], int comp, void *ctx) {
  (void)comp;
  (void)ctx;
  return (double)(g[0] + 10 * g[1] + 100 * g[2]);
}

int main(int argc, char **argv) {
  if (tess_init(&argc, &argv, NULL)) return 1;
  const tess_kernel a = {.name = "set_v", .cpu = set_v, .shape = TESS_SHAPE_STAR, .radius = 0};
  const tess_kernel b = {.name = "add_u", .cpu = add_u, .shape = TESS_SHAPE_STAR, .radius = 0};
  const int n[3] = {N, N, N};
  static double v[NCELLS];
  tess_sim_t sim = NULL;
  int fu, fv;
  int ok = !tess_sim_create(MPI_COMM_WORLD, n, &sim) &&
           !tess_sim_set_device(sim, TESS_DEVICE_CPU) && !tess_sim_set_tiles(sim, 2) &&
           !tess_sim_add_field(sim, "u", 1, &fu) && !tess_sim_add_field(sim, "v", 1, &fv) &&
           !tess_sim_add_stage(
               sim, &(tess_stage){.kernel = &a, .nin = 1, .in = {fu}, .nout = 1, .out = {fv}}) &&
           !tess_sim_add_stage(
               sim,
               &(tess_stage){
                   .kernel = &b, .nin = 1, .in = {fu}, .nout = 1, .out = {fv}, .out_read = 1u}) &&
           !tess_sim_setup(sim) && !tess_sim_fill(sim, fu, ramp, NULL) &&
           !tess_sim_run(sim, STEPS, 1.0) && !tess_sim_gather(sim, fv, 0, v);
  tess_sim_destroy(&sim);
  int bad = 0;
  for (int i = 0; ok && i < NCELLS; i++) {
    const long g[3] = {i % N, i / N % N, i / (N * N)};
    bad += v[i] != 2 * ramp(g, 0, NULL);
  }
  printf("A called %d times, B %d; out_read as the stage says in all but %d; v = 2u in all but %d "
         "of %d cells\n",
         calls_a, calls_b, wrong, bad, NCELLS);
  ok = ok && calls_a > 0 && calls_b > 0 && wrong == 0 && bad == 0;
  printf("%s\n", ok ? "passed" : "FAILED");
  tess_finalize();
  return ok ? 0 : 1;
}

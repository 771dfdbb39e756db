/* test_snapshot — a snapshot holds exactly the fields: the program writes one with
 * tess_sim_snapshot and the same fields gathered to rank 0 as raw float64, and
 * snapshot_readback.py compares the two bitwise (and opens the file with VTK's reader).
 *
 * usage: test_snapshot OUTDIR [tiles [cpu|cuda]]
 * Heat (radius 1) on a 24 x 20 x 16 grid for the scalar u and the 3-vector v, 3 steps (odd, so
 * both swaps have left the fields in their second storage slot). Writes into OUTDIR:
 *   snap.vtkhdf   variables u (u), velocity (v, components 0..2), vy (v, component 1);
 *                 attributes kappa, dt and a text
 *   u.raw         [nz][ny][nx] float64;  v.raw  [nz][ny][nx][3] float64 (native order)
 *   clock.txt     "step time" (time as a C99 hex float: read back exactly)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"
#include "tessera.h"
#include "tessera_io.h"

static double init(const long g[3], int comp, void *ctx) {
  (void)ctx;
  return sin(0.37 * (double)g[0] + 0.11 * comp) * cos(0.23 * (double)g[1] - 0.05 * (double)g[2]) +
         1e-3 * (double)(g[0] + 31 * g[1] + 977 * g[2]) + comp;
}

static int write_raw(const char *dir, const char *name, const double *v, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "wb");
  const int ok = fp && fwrite(v, sizeof *v, n, fp) == n;
  if (fp) fclose(fp);
  if (!ok) printf("FAIL: cannot write %s\n", path);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_snapshot OUTDIR [tiles [cpu|cuda]]\n");
    return 2;
  }
  const char *dir = argv[1];
  const int tiles = argc > 2 ? atoi(argv[2]) : 0;
  tess_device device = TESS_DEVICE_CPU;
  if (argc > 3 && tess_device_parse(argv[3], &device)) return 2;
  if (tess_init(&argc, &argv, NULL)) return 1;
  const int n[3] = {24, 20, 16};
  const double dt = 0.05, h[3] = {0.5, 0.25, 1.0};
  const tess_heat_params prm = {0.01};
  tess_sim_t sim = NULL;
  int u, un, v, vn;
  if (tess_sim_create(MPI_COMM_WORLD, n, &sim) || tess_sim_set_device(sim, device) ||
      tess_sim_set_tiles(sim, tiles) || tess_sim_set_spacing(sim, h) ||
      tess_sim_add_field(sim, "u", 1, &u) || tess_sim_add_field(sim, "u_new", 1, &un) ||
      tess_sim_add_field(sim, "v", 3, &v) || tess_sim_add_field(sim, "v_new", 3, &vn))
    tess_abort(1);
  for (int k = 0; k < 2; k++) {
    const int in = k ? v : u, out = k ? vn : un;
    if (tess_sim_add_stage(sim, &(tess_stage){.kernel = &tess_heat2_kernel,
                                              .nin = 1,
                                              .in = {in},
                                              .nout = 1,
                                              .out = {out},
                                              .params = &prm,
                                              .params_size = sizeof prm}) ||
        tess_sim_add_swap(sim, in, out))
      tess_abort(1);
  }
  if (tess_sim_setup(sim) || tess_sim_fill(sim, u, init, NULL) ||
      tess_sim_fill(sim, v, init, NULL) || tess_sim_run(sim, 3, dt))
    tess_abort(1);
  tess_sim_describe(sim);

  const tess_snap_var vars[] = {{u, 0, 1, "u"}, {v, 0, 3, "velocity"}, {v, 1, 1, "vy"}};
  const tess_attr attrs[] = {{"kappa", prm.kappa}, {"dt", dt}};
  if (tess_rank() == 0) printf("an empty file name must be refused:\n");
  fflush(stdout);
  if (tess_sim_snapshot(sim, "", 0, NULL, 0, NULL, NULL) != TESS_ERR_ARG) {
    printf("FAIL: an empty file name was accepted\n");
    tess_abort(1);
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/snap.vtkhdf", dir);
  if (tess_sim_snapshot(sim, path, 3, vars, 2, attrs, "grid = 24,20,16\nkappa = 0.01\n"))
    tess_abort(1);

  const size_t cells = (size_t)n[0] * n[1] * n[2];
  const int root = tess_rank() == 0;
  double *su = root ? malloc(cells * sizeof(double)) : NULL;
  double *sv = root ? malloc(3 * cells * sizeof(double)) : NULL;
  double *vv = root ? malloc(3 * cells * sizeof(double)) : NULL;
  int fail = 0;
  if (root && (!su || !sv || !vv)) tess_abort(1);
  if (tess_sim_gather(sim, u, 0, su)) tess_abort(1);
  for (int c = 0; c < 3; c++)
    if (tess_sim_gather(sim, v, c, sv ? sv + c * cells : NULL)) tess_abort(1);
  if (root) {
    for (size_t i = 0; i < cells; i++)
      for (int c = 0; c < 3; c++)
        vv[3 * i + c] = sv[c * cells + i];
    char clock[128];
    snprintf(clock, sizeof clock, "%ld %a\n", tess_sim_step(sim), tess_sim_time(sim));
    fail |= write_raw(dir, "u.raw", su, cells) || write_raw(dir, "v.raw", vv, 3 * cells);
    snprintf(path, sizeof path, "%s/clock.txt", dir);
    FILE *fp = fopen(path, "w");
    fail |= !fp || fputs(clock, fp) < 0;
    if (fp) fclose(fp);
    printf("snapshot written at step %ld, t = %g\n", tess_sim_step(sim), tess_sim_time(sim));
  }
  free(su);
  free(sv);
  free(vv);
  tess_sim_destroy(&sim);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  tess_finalize();
  return fail;
}

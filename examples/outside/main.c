/* heat-outside — an app built only against an installed Tessera (find_package(Tessera) or
 * pkg-config tessera): the heat equation on a periodic 32^3 grid, 2nd order, one stage and one
 * swap. It checks two things independent of the runtime: the total of u is conserved (the
 * periodic Laplacian sums to zero) to 1e-12 relative, and a single Fourier mode decays by the
 * discrete factor (1 - 4 kappa dt / h^2 sin^2(pi / n))^steps to 1e-12. Exit 0 when both hold.
 */
#include <math.h>
#include <stdio.h>

#include "heat.h"
#include "tessera.h"

enum { N = 32, STEPS = 20 };
static const double PI = 3.14159265358979323846;

static double mode(const long g[3], int comp, void *ctx) {
  (void)comp;
  (void)ctx;
  return 1.0 + sin(2 * PI * (double)g[0] / N);
}

int main(int argc, char **argv) {
  if (tess_init(&argc, &argv, NULL)) return 1;
  const int n[3] = {N, N, N};
  const tess_heat_params prm = {0.1};
  const double dt = 1.0;
  tess_sim_t sim = NULL;
  int u, un;
  tess_stats a, b;
  if (tess_sim_create(MPI_COMM_WORLD, n, &sim) || tess_sim_add_field(sim, "u", 1, &u) ||
      tess_sim_add_field(sim, "u_new", 1, &un) ||
      tess_sim_add_stage(sim, &(tess_stage){.kernel = &tess_heat2_kernel,
                                            .nin = 1,
                                            .in = {u},
                                            .nout = 1,
                                            .out = {un},
                                            .params = &prm,
                                            .params_size = sizeof prm}) ||
      tess_sim_add_swap(sim, u, un) || tess_sim_setup(sim) || tess_sim_fill(sim, u, mode, NULL) ||
      tess_sim_stats(sim, u, 0, &a) || tess_sim_run(sim, STEPS, dt) ||
      tess_sim_stats(sim, u, 0, &b))
    tess_abort(1);
  const double s = sin(PI / N), factor = pow(1 - 4 * prm.kappa * dt * s * s, STEPS);
  const double mass = fabs(b.sum - a.sum) / a.sum, amp = fabs((b.max - 1) - factor * (a.max - 1));
  const int ok = mass < 1e-12 && amp < 1e-12;
  if (tess_rank() == 0)
    printf("%s: heat-outside: total conserved to %.1e, mode decayed by %.12f (expected %.12f)\n",
           ok ? "ok" : "FAIL", mass, (b.max - 1) / (a.max - 1), factor);
  tess_sim_destroy(&sim);
  tess_finalize();
  return ok ? 0 : 1;
}

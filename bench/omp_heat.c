/* omp_heat.c — the anchor of bench/cpu-node.sh: what a plain OpenMP loop does with the cores of
 * a node on the step Tessera's heat app runs at order 2 (double, periodic box), so that the
 * runtime's figures have something to be divided by.
 *
 * One step is a ghost fill (the six periodic faces, one cell wide: the 7-point star reads no
 * edge or corner) and a 7-point sweep into a second array, then a swap, as the app's
 * double-buffered stage does. The arrays are first touched by the threads that sweep them
 * (static schedule over z, the same in every loop), so pages land on their NUMA domain.
 *
 *   u, v: [n+2][n+2][n+2], x fastest, ghost width 1
 *
 * Usage: omp_heat N STEPS [WARMUP]   (threads from OMP_NUM_THREADS)
 * Prints: "omp_heat n=N threads=T median_ms=M min_ms=m checksum=S". The checksum (sum of u, a
 * conserved quantity of the periodic heat equation) guards against a sweep the compiler dropped.
 * Build: gcc -O3 -march=native -fopenmp omp_heat.c -o omp_heat (bench/cpu-node.sh does).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static inline size_t at(int n, int i, int j, int k) {
  const size_t s = (size_t)n + 2;
  return ((size_t)k * s + (size_t)j) * s + (size_t)i;
}

/* Periodic faces; x faces last so that they see the y and z copies (not needed by the star, but
 * it keeps the ghost layer a true periodic image). */
static void fill_ghosts(int n, double *u) {
#pragma omp for schedule(static)
  for (int k = 1; k <= n; k++)
    for (int i = 1; i <= n; i++) {
      u[at(n, i, 0, k)] = u[at(n, i, n, k)];
      u[at(n, i, n + 1, k)] = u[at(n, i, 1, k)];
    }
#pragma omp for schedule(static)
  for (int j = 0; j <= n + 1; j++)
    for (int i = 1; i <= n; i++) {
      u[at(n, i, j, 0)] = u[at(n, i, j, n)];
      u[at(n, i, j, n + 1)] = u[at(n, i, j, 1)];
    }
#pragma omp for schedule(static)
  for (int k = 0; k <= n + 1; k++)
    for (int j = 0; j <= n + 1; j++) {
      u[at(n, 0, j, k)] = u[at(n, n, j, k)];
      u[at(n, n + 1, j, k)] = u[at(n, 1, j, k)];
    }
}

static void sweep(int n, double c, const double *restrict u, double *restrict v) {
  const size_t sy = (size_t)n + 2, sz = sy * sy;
#pragma omp for schedule(static)
  for (int k = 1; k <= n; k++)
    for (int j = 1; j <= n; j++) {
      const double *restrict p = u + at(n, 0, j, k);
      double *restrict q = v + at(n, 0, j, k);
#pragma omp simd
      for (int i = 1; i <= n; i++)
        q[i] = p[i] + c * (p[i - 1] + p[i + 1] + p[i - sy] + p[i + sy] + p[i - sz] + p[i + sz] -
                           6.0 * p[i]);
    }
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s N STEPS [WARMUP]\n", argv[0]);
    return 2;
  }
  const int n = atoi(argv[1]), steps = atoi(argv[2]), warmup = argc > 3 ? atoi(argv[3]) : 5;
  if (n < 4 || n > 4096 || steps < 1 || warmup < 0) {
    fprintf(stderr, "omp_heat: N must be in [4, 4096] and STEPS >= 1 (got %s, %s)\n", argv[1],
            argv[2]);
    return 2;
  }
  const size_t cells = ((size_t)n + 2) * ((size_t)n + 2) * ((size_t)n + 2);
  double *u = malloc(cells * sizeof *u), *v = malloc(cells * sizeof *v);
  double *t = malloc((size_t)steps * sizeof *t);
  if (!u || !v || !t) {
    fprintf(stderr, "omp_heat: cannot allocate 2 x %zu doubles\n", cells);
    return 1;
  }
  const double c = 0.1; /* dt kappa / h^2, under the 1/6 stability limit */
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int k = 0; k <= n + 1; k++)
      for (int j = 0; j <= n + 1; j++)
        for (int i = 0; i <= n + 1; i++) {
          u[at(n, i, j, k)] = (double)((i * 7 + j * 13 + k * 29) % 17) / 17.0;
          v[at(n, i, j, k)] = 0.0;
        }
  }
  for (int s = -warmup; s < steps; s++) {
    const double t0 = omp_get_wtime();
#pragma omp parallel
    {
      fill_ghosts(n, u);
      sweep(n, c, u, v);
    }
    const double t1 = omp_get_wtime();
    double *w = u;
    u = v;
    v = w;
    if (s >= 0) t[s] = (t1 - t0) * 1e3;
  }
  double sum = 0.0;
  for (int k = 1; k <= n; k++)
    for (int j = 1; j <= n; j++)
      for (int i = 1; i <= n; i++)
        sum += u[at(n, i, j, k)];
  qsort(t, (size_t)steps, sizeof *t, cmp);
  printf("omp_heat n=%d threads=%d median_ms=%.4f min_ms=%.4f checksum=%.10e\n", n,
         omp_get_max_threads(), t[steps / 2], t[0], sum);
  free(u);
  free(v);
  free(t);
  return 0;
}

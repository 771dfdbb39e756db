/* hdiff_reference NX NY NZ COEFF STEPS INIT FINAL [FLUXES MIN_LIMITED] — a serial reference for
 * tess-hdiff, written from the formulas of the issue on the global periodic array (no tiles, no
 * halos, no runtime code): reads the app's raw float64 dump of the initial state (INIT), runs
 * STEPS steps, and requires the app's final state (FINAL) to be bitwise equal. With FLUXES (the
 * app's --dump-fluxes: fli then flj of the last step) it also recomputes the last step's fluxes,
 * counts those the limiter zeroed (unlimited value not 0, limited 0), requires at least
 * MIN_LIMITED of them, and requires the app's fluxes to be bitwise the reference's, so the app
 * zeroed exactly the same ones. Exit 0 pass, 1 fail, 2 usage or I/O. Built with
 * -ffp-contract=off, like the kernels: the same sums in the same order round the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long nx, ny, nz;

static long at(long x, long y, long z) {
  x = (x % nx + nx) % nx;
  y = (y % ny + ny) % ny;
  return x + nx * (y + ny * z);
}

static double *load(const char *path, long n) {
  FILE *f = fopen(path, "rb");
  double *v = malloc((size_t)n * sizeof *v);
  if (!f || !v || fread(v, sizeof *v, (size_t)n, f) != (size_t)n || fgetc(f) != EOF) {
    fprintf(stderr, "hdiff_reference: cannot read %ld values from '%s'\n", n, path);
    exit(2);
  }
  fclose(f);
  return v;
}

static double lap_of(const double *u, long x, long y, long z) {
  return u[at(x - 1, y, z)] + u[at(x + 1, y, z)] + u[at(x, y - 1, z)] + u[at(x, y + 1, z)] -
         4 * u[at(x, y, z)];
}

/* the flux from cell c to its neighbour d (unlimited in *raw) */
static double flux(const double *u, const double *lap, long c, long d, double *raw) {
  const double f = lap[d] - lap[c];
  *raw = f;
  return f * (u[d] - u[c]) > 0 ? 0 : f;
}

/* one step of u into out; fluxes into fli, flj and their unlimited values into ri, rj */
static void step(const double *u, double *out, double coeff, double *lap, double *fli, double *flj,
                 double *ri, double *rj) {
  for (long z = 0; z < nz; z++)
    for (long y = 0; y < ny; y++)
      for (long x = 0; x < nx; x++)
        lap[at(x, y, z)] = lap_of(u, x, y, z);
  for (long z = 0; z < nz; z++)
    for (long y = 0; y < ny; y++)
      for (long x = 0; x < nx; x++) {
        const long c = at(x, y, z);
        fli[c] = flux(u, lap, c, at(x + 1, y, z), &ri[c]);
        flj[c] = flux(u, lap, c, at(x, y + 1, z), &rj[c]);
      }
  for (long z = 0; z < nz; z++)
    for (long y = 0; y < ny; y++)
      for (long x = 0; x < nx; x++) {
        const long c = at(x, y, z);
        out[c] = u[c] - coeff * ((fli[c] - fli[at(x - 1, y, z)]) + (flj[c] - flj[at(x, y - 1, z)]));
      }
}

static long differ(const double *a, const double *b, long n, const char *what) {
  long bad = 0;
  double worst = 0;
  for (long i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof a[i])) {
      bad++;
      worst = fmax(worst, fabs(a[i] - b[i]));
    }
  printf("%s: %ld of %ld values differ from the reference (max |diff| %.3e)\n", what, bad, n,
         worst);
  return bad;
}

int main(int argc, char **argv) {
  if (argc != 8 && argc != 10) {
    fprintf(stderr, "usage: hdiff_reference NX NY NZ COEFF STEPS INIT FINAL [FLUXES MIN]\n");
    return 2;
  }
  nx = atol(argv[1]);
  ny = atol(argv[2]);
  nz = atol(argv[3]);
  const double coeff = atof(argv[4]);
  const long steps = atol(argv[5]), n = nx * ny * nz;
  if (n <= 0 || steps < 1) return 2;
  double *u = load(argv[6], n), *app = load(argv[7], n), *out = malloc(n * sizeof *out);
  double *w[5];
  for (int i = 0; i < 5; i++)
    if (!(w[i] = malloc(n * sizeof(double)))) return 2;
  for (long s = 0; s < steps; s++) {
    step(u, out, coeff, w[0], w[1], w[2], w[3], w[4]);
    double *t = u;
    u = out;
    out = t;
  }
  int fail = differ(app, u, n, "final state") != 0;
  if (argc == 10) {
    const double *fl = load(argv[8], 2 * n);
    long limited = 0, app_zero = 0, mismatch = 0;
    for (int d = 0; d < 2; d++)
      for (long i = 0; i < n; i++) {
        const double ref = w[1 + d][i], raw = w[3 + d][i], got = fl[d * n + i];
        const int lim = raw != 0 && ref == 0;
        limited += lim;
        app_zero += got == 0 && raw != 0;
        mismatch += lim != (got == 0 && raw != 0);
      }
    printf("last step's fluxes: the reference limits %ld, the app zeroes %ld (of %ld nonzero "
           "raw fluxes), %ld cells disagree\n",
           limited, app_zero, 2 * n, mismatch);
    fail |= differ(fl, w[1], n, "fli") != 0 || differ(fl + n, w[2], n, "flj") != 0;
    fail |= mismatch != 0;
    if (limited < atol(argv[9])) {
      printf("FAIL: the limiter acted on %ld fluxes, at least %s expected\n", limited, argv[9]);
      fail = 1;
    }
  }
  puts(fail ? "FAIL" : "ok");
  return fail;
}

/* test_mhd_derivatives — the MHD codelet's difference operators converge at order 6.
 *
 * usage: test_mhd_derivatives
 * On the periodic box [0, 2 pi)^3 with N = 16, 32, 64, 128 cells per axis, samples
 *
 *     f = sin(x + 0.3) cos(2 y + 0.5) sin(z + 0.7)
 *
 * into a padded array laid out like a tile ([Z][Y][nc][X] with nc = 2, so the y and z strides
 * are those the kernel uses) and compares every operator of mhd.h against the exact
 * derivative: d1 and d2 along x, y, z, and the mixed dxy, dxz, dyz. The maximum error over the
 * grid must fall with a least-squares slope (log error vs log h) of 6.0 +- 0.2. No MPI, no
 * StarPU. Prints a table of errors and slopes; returns 0 on pass, 1 on failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mhd.h"

#define NLEVELS 4
#define NOPS    9
#define G       TESS_MHD_RADIUS
#define NCOMP   2 /* component 1 holds f; component 0 is filler that must never be read */

static const double two_pi = 6.283185307179586476925286766559;
static const double kx = 1.0, ky = 2.0, kz = 1.0, px = 0.3, py = 0.5, pz = 0.7;

static double f_exact(double x, double y, double z) {
  return sin(kx * x + px) * cos(ky * y + py) * sin(kz * z + pz);
}

/* Exact derivatives: op 0..2 d/dx_a, 3..5 d2/dx_a^2, 6..8 mixed xy, xz, yz. */
static double deriv_exact(int op, double x, double y, double z) {
  const double sx = sin(kx * x + px), cx = cos(kx * x + px);
  const double sy = sin(ky * y + py), cy = cos(ky * y + py);
  const double sz = sin(kz * z + pz), cz = cos(kz * z + pz);
  switch (op) {
  case 0:
    return kx * cx * cy * sz;
  case 1:
    return -ky * sx * sy * sz;
  case 2:
    return kz * sx * cy * cz;
  case 3:
    return -kx * kx * sx * cy * sz;
  case 4:
    return -ky * ky * sx * cy * sz;
  case 5:
    return -kz * kz * sx * cy * sz;
  case 6:
    return -kx * ky * cx * sy * sz;
  case 7:
    return kx * kz * cx * cy * cz;
  default:
    return -ky * kz * sx * sy * cz;
  }
}

static const char *op_name[NOPS] = {"d1 x", "d1 y", "d1 z", "d2 x", "d2 y",
                                    "d2 z", "dxy",  "dxz",  "dyz"};

/* Max error of every operator on an N^3 grid; -1 when out of memory. */
static int errors_at(int N, double err[NOPS]) {
  const int X = N + 2 * G, Y = N + 2 * G, Z = N + 2 * G;
  double *a = malloc((size_t)X * Y * Z * NCOMP * sizeof *a);
  if (!a) return -1;
  const double h = two_pi / N;
  for (int z = 0; z < Z; z++)
    for (int y = 0; y < Y; y++)
      for (int x = 0; x < X; x++) {
        /* ghosts hold the periodic image: the function is evaluated at the wrapped index */
        const int gx = (x - G + N) % N, gy = (y - G + N) % N, gz = (z - G + N) % N;
        a[TESS_IDX(X, Y, NCOMP, 0, x, y, z)] = nan("");
        a[TESS_IDX(X, Y, NCOMP, 1, x, y, z)] = f_exact(gx * h, gy * h, gz * h);
      }
  const ptrdiff_t s[3] = {1, (ptrdiff_t)NCOMP * X, (ptrdiff_t)NCOMP * X * Y};
  const double inv_h = 1.0 / h, inv_h2 = 1.0 / (h * h);
  for (int op = 0; op < NOPS; op++)
    err[op] = 0.0;
  for (int z = G; z < G + N; z++)
    for (int y = G; y < G + N; y++)
      for (int x = G; x < G + N; x++) {
        const double *f = a + TESS_IDX(X, Y, NCOMP, 1, x, y, z);
        const double px_ = (x - G) * h, py_ = (y - G) * h, pz_ = (z - G) * h;
        double v[NOPS];
        for (int ax = 0; ax < 3; ax++) {
          v[ax] = tess_mhd_d1(f, s[ax], inv_h);
          v[3 + ax] = tess_mhd_d2(f, s[ax], inv_h2);
        }
        v[6] = tess_mhd_dxy(f, s[0], s[1], inv_h2);
        v[7] = tess_mhd_dxy(f, s[0], s[2], inv_h2);
        v[8] = tess_mhd_dxy(f, s[1], s[2], inv_h2);
        for (int op = 0; op < NOPS; op++) {
          const double e = fabs(v[op] - deriv_exact(op, px_, py_, pz_));
          if (!(e <= err[op])) /* also catches NaN: a read of the filler component */
            err[op] = e;
        }
      }
  free(a);
  return 0;
}

int main(void) {
  const int N[NLEVELS] = {16, 32, 64, 128};
  double err[NLEVELS][NOPS];
  for (int l = 0; l < NLEVELS; l++)
    if (errors_at(N[l], err[l])) {
      fprintf(stderr, "test_mhd_derivatives: out of memory at N = %d\n", N[l]);
      return 1;
    }

  int fail = 0;
  printf("max error of the 6th-order operators on sin(x+0.3) cos(2y+0.5) sin(z+0.7), [0,2pi)^3\n");
  printf("%-6s", "op");
  for (int l = 0; l < NLEVELS; l++)
    printf("   N=%-8d", N[l]);
  printf("   slope   pairwise\n");
  for (int op = 0; op < NOPS; op++) {
    /* least-squares slope of log(err) against log(h) */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int l = 0; l < NLEVELS; l++) {
      const double lx = log(two_pi / N[l]), ly = log(err[l][op]);
      sx += lx;
      sy += ly;
      sxx += lx * lx;
      sxy += lx * ly;
    }
    const double slope = (NLEVELS * sxy - sx * sy) / (NLEVELS * sxx - sx * sx);
    const int ok = isfinite(slope) && fabs(slope - 6.0) <= 0.2;
    printf("%-6s", op_name[op]);
    for (int l = 0; l < NLEVELS; l++)
      printf("   %-10.3e", err[l][op]);
    printf("   %5.3f  ", slope);
    for (int l = 1; l < NLEVELS; l++)
      printf(" %5.2f", log(err[l - 1][op] / err[l][op]) / log(2.0));
    printf("   %s\n", ok ? "ok" : "FAIL");
    fail |= !ok;
  }
  printf("%s: fitted slopes %s 6.0 +- 0.2\n", fail ? "FAIL" : "PASS", fail ? "outside" : "within");
  return fail;
}

/* hdiff_reference [--periodic AXES --bc SPEC] NX NY NZ COEFF STEPS INIT FINAL [FLUXES MIN_LIMITED]
 * — a serial reference for tess-hdiff, written from the formulas of the issue on the global
 * array (no tiles, no halos, no runtime code): reads the app's raw float64 dump of the initial
 * state (INIT), runs STEPS steps, and requires the app's final state (FINAL) to be bitwise equal.
 * With FLUXES (the app's --dump-fluxes: fli then flj of the last step) it also recomputes the
 * last step's fluxes, counts those the limiter zeroed (unlimited value not 0, limited 0),
 * requires at least MIN_LIMITED of them, and requires the app's fluxes to be bitwise the
 * reference's, so the app zeroed exactly the same ones. Exit 0 pass, 1 fail, 2 usage or I/O.
 * Built with -ffp-contract=off, like the kernels: the same sums in the same order round the
 * same way.
 *
 * Walls: --periodic names the axes that wrap (as grid.periodic; default xyz) and --bc the
 * conditions of `in` at the physical faces of x and y (boundary.in's face:kind(value) list;
 * z is never read across). Each step first extends `in` two cells beyond every face: a periodic
 * axis wraps; a physical ghost takes the condition of its first physical axis, x before y,
 * evaluated on cells whose other coordinates may themselves be ghosts (docs/boundaries.md), with
 * ghost k (k = 1 next to the face) from u_0, u_1 and u_{k-1} counted inward:
 *
 *   dirichlet(v) 2 v - u_{k-1}    neumann(g) u_{k-1} + (2k - 1) g (spacing 1)
 *   symmetric    u_{k-1}          antisymmetric -u_{k-1}     outflow u_0 + k (u_0 - u_1)
 *
 * lap, fli and flj are then computed wherever out reads them, ghosts included. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PERIODIC, DIRICHLET, NEUMANN, SYMMETRIC, ANTISYMMETRIC, OUTFLOW };
static const char *const kind_name[] = {"",          "dirichlet",     "neumann",
                                        "symmetric", "antisymmetric", "outflow"};

#define G 2 /* ghost cells on each horizontal side: lap on [-1, n], in on [-2, n + 1] */

static long nx, ny, nz, px, py;
static int kind[4] = {PERIODIC, PERIODIC, PERIODIC, PERIODIC}; /* x-, x+, y-, y+ */
static double value[4];

/* padded index: x in [-G, nx + G), y in [-G, ny + G) */
static long at(long x, long y, long z) { return (x + G) + px * ((y + G) + py * z); }

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

/* in at any (x, y) within G of the grid; u: [nz][ny][nx] */
static double val(const double *u, long x, long y, long z) {
  const long n[2] = {nx, ny};
  long c[2] = {x, y};
  for (int a = 0; a < 2; a++)
    if (kind[2 * a] == PERIODIC) c[a] = (c[a] % n[a] + n[a]) % n[a];
  for (int a = 0; a < 2; a++) {
    if (c[a] >= 0 && c[a] < n[a]) continue;
    const int hi = c[a] >= n[a], f = 2 * a + hi;
    const long k = hi ? c[a] - n[a] + 1 : -c[a];
    long q[3][2] = {{c[0], c[1]}, {c[0], c[1]}, {c[0], c[1]}}; /* u_0, u_1, u_{k-1} */
    const long inward[3] = {0, 1, k - 1};
    for (int j = 0; j < 3; j++)
      q[j][a] = hi ? n[a] - 1 - inward[j] : inward[j];
    const double u0 = val(u, q[0][0], q[0][1], z), u1 = val(u, q[1][0], q[1][1], z),
                 uk = val(u, q[2][0], q[2][1], z), v = value[f];
    switch (kind[f]) {
    case DIRICHLET:
      return 2.0 * v - uk;
    case NEUMANN:
      return uk + (double)(2 * k - 1) * v;
    case SYMMETRIC:
      return uk;
    case ANTISYMMETRIC:
      return -uk;
    default:
      return u0 + (double)k * (u0 - u1);
    }
  }
  return u[c[0] + nx * (c[1] + ny * z)];
}

/* the flux from cell c to its neighbour d (unlimited in *raw) */
static double flux(const double *e, const double *lap, long c, long d, double *raw) {
  const double f = lap[d] - lap[c];
  *raw = f;
  return f * (e[d] - e[c]) > 0 ? 0 : f;
}

/* One step of u into out ([nz][ny][nx]); e, lap, fli, flj, ri, rj padded: in extended, the
 * temporaries and the fluxes' unlimited values. */
static void step(const double *u, double *out, double coeff, double *e, double *lap, double *fli,
                 double *flj, double *ri, double *rj) {
  const long sy = px; /* the j neighbour in the padded layout */
  for (long z = 0; z < nz; z++)
    for (long y = -G; y < ny + G; y++)
      for (long x = -G; x < nx + G; x++)
        e[at(x, y, z)] = val(u, x, y, z);
  for (long z = 0; z < nz; z++)
    for (long y = -1; y <= ny; y++)
      for (long x = -1; x <= nx; x++) {
        const long c = at(x, y, z);
        lap[c] = e[c - 1] + e[c + 1] + e[c - sy] + e[c + sy] - 4 * e[c];
      }
  for (long z = 0; z < nz; z++)
    for (long y = -1; y < ny; y++)
      for (long x = -1; x < nx; x++) {
        const long c = at(x, y, z);
        fli[c] = flux(e, lap, c, c + 1, &ri[c]);
        flj[c] = flux(e, lap, c, c + sy, &rj[c]);
      }
  for (long z = 0; z < nz; z++)
    for (long y = 0; y < ny; y++)
      for (long x = 0; x < nx; x++) {
        const long c = at(x, y, z);
        out[x + nx * (y + ny * z)] =
            e[c] - coeff * ((fli[c] - fli[c - 1]) + (flj[c] - flj[c - sy]));
      }
}

/* --bc SPEC into kind[] and value[]: faces x-, x+, y-, y+, x, y, all (z faces ignored) */
static int parse_bc(const char *spec, const int periodic[2]) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
    char *colon = strchr(item, ':');
    if (!colon) return -1;
    *colon = 0;
    unsigned faces = !strcmp(item, "all")  ? 15u
                     : !strcmp(item, "x")  ? 3u
                     : !strcmp(item, "y")  ? 12u
                     : !strcmp(item, "x-") ? 1u
                     : !strcmp(item, "x+") ? 2u
                     : !strcmp(item, "y-") ? 4u
                     : !strcmp(item, "y+") ? 8u
                                           : 0u;
    if (!faces && item[0] != 'z') return -1;
    char *paren = strchr(colon + 1, '(');
    const size_t klen = paren ? (size_t)(paren - colon - 1) : strlen(colon + 1);
    int k = 0;
    for (int i = DIRICHLET; i <= OUTFLOW; i++)
      if (strlen(kind_name[i]) == klen && !strncmp(colon + 1, kind_name[i], klen)) k = i;
    if (!k) return -1;
    for (int f = 0; f < 4; f++)
      if ((faces >> f) & 1 && !periodic[f / 2]) {
        kind[f] = k;
        value[f] = paren ? atof(paren + 1) : 0;
      }
  }
  for (int f = 0; f < 4; f++)
    if (!periodic[f / 2] && kind[f] == PERIODIC) return -1;
  return 0;
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
  const char *periodic = "xyz", *bc = "";
  while (argc > 2 && (!strcmp(argv[1], "--periodic") || !strcmp(argv[1], "--bc"))) {
    *(argv[1][2] == 'p' ? &periodic : &bc) = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc != 8 && argc != 10) {
    fprintf(stderr, "usage: hdiff_reference [--periodic AXES --bc SPEC] NX NY NZ COEFF STEPS "
                    "INIT FINAL [FLUXES MIN]\n");
    return 2;
  }
  nx = atol(argv[1]);
  ny = atol(argv[2]);
  nz = atol(argv[3]);
  const int wraps[2] = {strchr(periodic, 'x') || nx == 1, strchr(periodic, 'y') || ny == 1};
  if (parse_bc(bc, wraps)) {
    fprintf(stderr,
            "hdiff_reference: --bc '%s' is not a condition for every physical face of "
            "x and y (--periodic %s)\n",
            bc, periodic);
    return 2;
  }
  px = nx + 2 * G;
  py = ny + 2 * G;
  const double coeff = atof(argv[4]);
  const long steps = atol(argv[5]), n = nx * ny * nz, pn = px * py * nz;
  if (n <= 0 || steps < 1) return 2;
  double *u = load(argv[6], n), *app = load(argv[7], n), *out = malloc(n * sizeof *out);
  double *w[6]; /* e, lap, fli, flj, ri, rj: padded */
  for (int i = 0; i < 6; i++)
    if (!(w[i] = calloc((size_t)pn, sizeof(double)))) return 2;
  for (long s = 0; s < steps; s++) {
    step(u, out, coeff, w[0], w[1], w[2], w[3], w[4], w[5]);
    double *t = u;
    u = out;
    out = t;
  }
  /* the last step's fluxes and their unlimited values on the owned cells */
  double *owned[4];
  for (int i = 0; i < 4; i++) {
    if (!(owned[i] = malloc((size_t)n * sizeof(double)))) return 2;
    for (long z = 0; z < nz; z++)
      for (long y = 0; y < ny; y++)
        for (long x = 0; x < nx; x++)
          owned[i][x + nx * (y + ny * z)] = w[2 + i][at(x, y, z)];
  }
  int fail = differ(app, u, n, "final state") != 0;
  if (argc == 10) {
    const double *fl = load(argv[8], 2 * n);
    long limited = 0, app_zero = 0, mismatch = 0;
    for (int d = 0; d < 2; d++)
      for (long i = 0; i < n; i++) {
        const double ref = owned[d][i], raw = owned[2 + d][i], got = fl[d * n + i];
        const int lim = raw != 0 && ref == 0;
        limited += lim;
        app_zero += got == 0 && raw != 0;
        mismatch += lim != (got == 0 && raw != 0);
      }
    printf("last step's fluxes: the reference limits %ld, the app zeroes %ld (of %ld nonzero "
           "raw fluxes), %ld cells disagree\n",
           limited, app_zero, 2 * n, mismatch);
    fail |= differ(fl, owned[0], n, "fli") != 0 || differ(fl + n, owned[1], n, "flj") != 0;
    fail |= mismatch != 0;
    if (limited < atol(argv[9])) {
      printf("FAIL: the limiter acted on %ld fluxes, at least %s expected\n", limited, argv[9]);
      fail = 1;
    }
  }
  puts(fail ? "FAIL" : "ok");
  return fail;
}

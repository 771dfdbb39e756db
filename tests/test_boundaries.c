/* test_boundaries — ghost fills at physical faces through the task graph, against a serial
 * reference that knows nothing of tiles, links or tasks.
 *
 * Program: two fields of 2 components, `a` and `b`; each step b = K(a), swap. K is a box stencil
 * of radius r (1..3) with a distinct weight per offset, so a wrong ghost value anywhere it
 * reaches -- faces, edges, corners -- changes the result. Component 0 and 1 carry different
 * conditions per face (every kind, the function kind too), some axes periodic.
 *
 * The reference holds the whole grid and evaluates a cell outside it recursively by the rule of
 * docs/boundaries.md: wrap every periodic axis first; then the first physical axis (x, y, z) of
 * the cell's direction writes it by its face's formula from the cells mirrored along that axis,
 * themselves evaluated by the same rule. Every configuration (ranks, tiles, modes) must match the
 * reference bitwise, in double, and match each other bitwise in single precision.
 *
 *   test_boundaries [tiles...]      (run under mpiexec -np 1, 2 or 3)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

enum { NC = 2, MAXN = 16 };

typedef struct {
  int r;
} kparams;

static double weight(int i, int j, int k) {
  return 1.0 / (3.0 + (i + 3) + 7.0 * (j + 3) + 49.0 * (k + 3));
}

/* b = sum over the box of radius r of w(o) a(x + o), per component; axes of extent 1 not read */
static void box_cpu(const tess_region *R) {
  const int r = ((const kparams *)R->params)->r, *d = R->dim;
  int rr[3];
  for (int i = 0; i < 3; i++)
    rr[i] = R->global[i] > 1 ? r : 0;
  for (int z = R->lo[2]; z < R->hi[2]; z++)
    for (int y = R->lo[1]; y < R->hi[1]; y++)
      for (int c = 0; c < NC; c++)
        for (int x = R->lo[0]; x < R->hi[0]; x++) {
          double s = 0;
          for (int k = -rr[2]; k <= rr[2]; k++)
            for (int j = -rr[1]; j <= rr[1]; j++)
              for (int i = -rr[0]; i <= rr[0]; i++)
                s += weight(i, j, k) * R->in[0][TESS_IDX(d[0], d[1], NC, c, x + i, y + j, z + k)];
          R->out[0][TESS_IDX(d[0], d[1], NC, c, x, y, z)] = s;
        }
}

static void box_cpu_f32(const tess_region *R) {
  const int r = ((const kparams *)R->params)->r, *d = R->dim;
  int rr[3];
  for (int i = 0; i < 3; i++)
    rr[i] = R->global[i] > 1 ? r : 0;
  for (int z = R->lo[2]; z < R->hi[2]; z++)
    for (int y = R->lo[1]; y < R->hi[1]; y++)
      for (int c = 0; c < NC; c++)
        for (int x = R->lo[0]; x < R->hi[0]; x++) {
          float s = 0;
          for (int k = -rr[2]; k <= rr[2]; k++)
            for (int j = -rr[1]; j <= rr[1]; j++)
              for (int i = -rr[0]; i <= rr[0]; i++)
                s += (float)weight(i, j, k) *
                     R->in_f[0][TESS_IDX(d[0], d[1], NC, c, x + i, y + j, z + k)];
          R->out_f[0][TESS_IDX(d[0], d[1], NC, c, x, y, z)] = s;
        }
}

static const tess_kernel kernels[3] = {
    {.name = "box1", .cpu = box_cpu, .cpu_f32 = box_cpu_f32, .shape = TESS_SHAPE_BOX, .radius = 1},
    {.name = "box2", .cpu = box_cpu, .cpu_f32 = box_cpu_f32, .shape = TESS_SHAPE_BOX, .radius = 2},
    {.name = "box3", .cpu = box_cpu, .cpu_f32 = box_cpu_f32, .shape = TESS_SHAPE_BOX, .radius = 3},
};

static double face_fn(const double x[3], int comp, double t, void *ctx) {
  (void)ctx;
  return 0.25 * x[0] - 0.5 * x[1] + 0.125 * x[2] + comp + 0.75 * t;
}

static double init(const long g[3], int comp, void *ctx) {
  (void)ctx;
  return sin(0.7 * (double)g[0] + 1.3 * (double)g[1] + 0.4 * (double)g[2] + 2.1 * comp) +
         0.01 * (double)(g[0] * g[1]);
}

typedef struct {
  const char *name;
  int n[3], periodic[3], r;
  const char *spec[NC]; /* per component */
  int fn_face;          /* a face of component 1 given the function kind instead (-1: none) */
} config;

static const config configs[] = {
    {"2d-walls-r1",
     {12, 12, 1},
     {0, 0, 1},
     1,
     {"x-:dirichlet(1.5),x+:neumann(-0.5),y-:symmetric,y+:antisymmetric",
      "x:outflow,y-:neumann(2),y+:dirichlet(-1)"},
     -1},
    {"2d-walls-r3",
     {36, 24, 1},
     {0, 0, 1},
     3,
     {"x-:neumann(0.25),x+:dirichlet(2),y-:antisymmetric,y+:outflow",
      "x-:symmetric,x+:outflow,y:dirichlet(0.5)"},
     0},
    {"3d-x-periodic-y-r2",
     {24, 24, 8},
     {0, 1, 0},
     2,
     {"x-:dirichlet(1),x+:neumann(1),z-:outflow,z+:symmetric",
      "x:antisymmetric,z-:dirichlet(-2),z+:neumann(0)"},
     5},
    {"3d-none-periodic-r1",
     {8, 6, 12},
     {0, 0, 0},
     1,
     {"x-:dirichlet(0),x+:symmetric,y-:neumann(3),y+:outflow,z-:antisymmetric,z+:dirichlet(1)",
      "all:outflow"},
     2},
    {"3d-z-only-r3",
     {12, 12, 36},
     {1, 1, 0},
     3,
     {"z-:dirichlet(3),z+:neumann(-1)", "z:outflow"},
     -1},
};

/* ---- the serial reference ------------------------------------------------------------------ */

typedef struct {
  const config *c;
  const double *u; /* [z][y][x][comp] */
  tess_bc bc[NC][6];
  double h[3], t;
} ref;

static double ref_at(const ref *R, long p[3], int comp) {
  const int *n = R->c->n;
  for (int i = 0; i < 3; i++) /* periodic axes first: a wrapped cell is an owned one */
    if (R->c->periodic[i]) p[i] = ((p[i] % n[i]) + n[i]) % n[i];
  int a = -1;
  for (int i = 0; i < 3 && a < 0; i++)
    if (p[i] < 0 || p[i] >= n[i]) a = i;
  if (a < 0) return R->u[((p[2] * n[1] + p[1]) * n[0] + p[0]) * NC + comp];
  const int side = p[a] < 0 ? -1 : 1, face = side < 0 ? 0 : n[a] - 1;
  const int k = side * (int)(p[a] - face);
  const tess_bc *b = &R->bc[comp][2 * a + (side > 0)];
  long q[3] = {p[0], p[1], p[2]};
  double u[3];
  const int js[3] = {0, 1, k - 1};
  for (int j = 0; j < 3; j++) {
    long s[3] = {q[0], q[1], q[2]};
    s[a] = face - side * js[j];
    u[j] = ref_at(R, s, comp);
  }
  double v = b->value;
  if (b->kind == TESS_BC_FUNCTION) {
    double x[3];
    for (int i = 0; i < 3; i++)
      x[i] = ((double)p[i] + 0.5) * R->h[i];
    x[a] = side < 0 ? 0.0 : n[a] * R->h[a];
    v = b->fn(x, comp, R->t, NULL);
  }
  switch (b->kind) {
  case TESS_BC_DIRICHLET:
  case TESS_BC_FUNCTION:
    return 2.0 * v - u[2];
  case TESS_BC_NEUMANN:
    return u[2] + (double)(2 * k - 1) * (R->h[a] * v);
  case TESS_BC_SYMMETRIC:
    return u[2];
  case TESS_BC_ANTISYMMETRIC:
    return -u[2];
  case TESS_BC_OUTFLOW:
    return u[0] + (double)k * (u[0] - u[1]);
  default:
    fprintf(stderr, "reference: no condition on a physical face\n");
    exit(1);
  }
}

/* steps of b = K(a) on the whole grid, a: [z][y][x][comp] in place */
static void reference(const config *c, const tess_bc bc[NC][6], const double h[3], double dt,
                      int steps, double *a) {
  const int *n = c->n;
  const size_t cells = (size_t)n[0] * n[1] * n[2];
  double *b = malloc(cells * NC * sizeof *b);
  int rr[3];
  for (int i = 0; i < 3; i++)
    rr[i] = n[i] > 1 ? c->r : 0;
  ref R = {c, a, {{{0}}}, {h[0], h[1], h[2]}, 0};
  memcpy(R.bc, bc, sizeof R.bc);
  for (int s = 0; s < steps; s++) {
    R.t = s * dt;
    for (long z = 0; z < n[2]; z++)
      for (long y = 0; y < n[1]; y++)
        for (int comp = 0; comp < NC; comp++)
          for (long x = 0; x < n[0]; x++) {
            double sum = 0;
            for (int k = -rr[2]; k <= rr[2]; k++)
              for (int j = -rr[1]; j <= rr[1]; j++)
                for (int i = -rr[0]; i <= rr[0]; i++) {
                  long p[3] = {x + i, y + j, z + k};
                  sum += weight(i, j, k) * ref_at(&R, p, comp);
                }
            b[((z * n[1] + y) * n[0] + x) * NC + comp] = sum;
          }
    memcpy(a, b, cells * NC * sizeof *a);
  }
  free(b);
}

/* ---- the runtime ----------------------------------------------------------------------------- */

static int parse_all(const config *c, tess_bc bc[NC][6]) {
  for (int comp = 0; comp < NC; comp++) {
    unsigned set;
    char msg[512];
    if (tess_bc_parse(c->spec[comp], "a", c->periodic, bc[comp], &set, msg, sizeof msg)) {
      fprintf(stderr, "%s: %s\n", c->name, msg);
      return -1;
    }
  }
  if (c->fn_face >= 0) bc[1][c->fn_face] = (tess_bc){TESS_BC_FUNCTION, 0, face_fn, NULL};
  return 0;
}

enum { STEPS = 3 };

/* Runs config c; the gathered `a` (both components, [z][y][x][comp]) into out on rank 0. */
static int run(const config *c, int tiles, tess_mode mode, tess_precision prec, double *out) {
  const double h[3] = {0.5, 0.25, 0.125}, dt = 0.1;
  tess_bc bc[NC][6];
  if (parse_all(c, bc)) return 0;
  const kparams prm = {c->r};
  tess_sim_t sim = NULL;
  int a, b;
  int ok = !tess_sim_create(MPI_COMM_WORLD, c->n, &sim) &&
           !tess_sim_set_device(sim, TESS_DEVICE_CPU) && !tess_sim_set_tiles(sim, tiles) &&
           !tess_sim_set_mode(sim, mode) && !tess_sim_set_precision(sim, prec) &&
           !tess_sim_set_spacing(sim, h) && !tess_sim_set_periodic(sim, c->periodic) &&
           !tess_sim_add_field(sim, "a", NC, &a) && !tess_sim_add_field(sim, "b", NC, &b);
  for (int comp = 0; ok && comp < NC; comp++)
    for (int f = 0; ok && f < 6; f++)
      if (bc[comp][f].kind != TESS_BC_NONE)
        ok = !tess_sim_set_boundary(sim, a, comp, f, &bc[comp][f]);
  ok = ok &&
       !tess_sim_add_stage(sim, &(tess_stage){.kernel = &kernels[c->r - 1],
                                              .nin = 1,
                                              .in = {a},
                                              .nout = 1,
                                              .out = {b},
                                              .params = &prm,
                                              .params_size = sizeof prm}) &&
       !tess_sim_add_swap(sim, a, b) && !tess_sim_setup(sim) &&
       !tess_sim_fill(sim, a, init, NULL) && !tess_sim_run(sim, STEPS, dt);
  const size_t cells = (size_t)c->n[0] * c->n[1] * c->n[2];
  double *one = tess_rank() == 0 ? malloc(cells * sizeof *one) : NULL;
  for (int comp = 0; ok && comp < NC; comp++) {
    ok = !tess_sim_gather(sim, a, comp, one);
    for (size_t i = 0; ok && one && i < cells; i++)
      out[i * NC + comp] = one[i];
  }
  free(one);
  tess_sim_destroy(&sim);
  return ok;
}

int main(int argc, char **argv) {
  if (tess_init(&argc, &argv, NULL)) return 1;
  const int root = tess_rank() == 0;
  int fail = 0;
  const int tile_counts[] = {1, 2, 3};
  for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++) {
    const config *c = &configs[ci];
    const size_t cells = (size_t)c->n[0] * c->n[1] * c->n[2], len = cells * NC;
    double *want = malloc(len * sizeof *want), *got = malloc(len * sizeof *got),
           *f32 = malloc(len * sizeof *f32);
    tess_bc bc[NC][6];
    if (parse_all(c, bc)) return 1;
    for (long z = 0; z < c->n[2]; z++)
      for (long y = 0; y < c->n[1]; y++)
        for (long x = 0; x < c->n[0]; x++)
          for (int comp = 0; comp < NC; comp++)
            want[((z * c->n[1] + y) * c->n[0] + x) * NC + comp] =
                init((const long[3]){x, y, z}, comp, NULL);
    reference(c, bc, (const double[3]){0.5, 0.25, 0.125}, 0.1, STEPS, want);
    int have_f32 = 0;
    for (size_t ti = 0; ti < sizeof tile_counts / sizeof tile_counts[0]; ti++)
      for (int m = 0; m < TESS_MODE_COUNT; m++)
        for (int p = 0; p < 2; p++) {
          const int tiles = tile_counts[ti];
          if (p && m != TESS_MODE_OVERLAP) continue; /* single: every tiling, one mode */
          if (!run(c, tiles, (tess_mode)m, p ? TESS_FP32 : TESS_FP64, got)) {
            /* a tiling the grid refuses (too thin for the radius) is skipped, said aloud */
            if (root)
              printf("%-22s %d rank(s) %d tile(s) %-8s %s: not run (the grid refuses it)\n",
                     c->name, tess_nranks(), tiles, tess_mode_name((tess_mode)m),
                     p ? "single" : "double");
            continue;
          }
          if (!root) continue;
          const double *cmp = p ? f32 : want;
          if (p && !have_f32) { /* the first single-precision run is the others' reference */
            memcpy(f32, got, len * sizeof *got);
            have_f32 = 1;
            double e = 0;
            for (size_t i = 0; i < len; i++)
              e = fmax(e, fabs(got[i] - want[i]) / (1 + fabs(want[i])));
            const int close = e < 1e-4;
            printf("%-22s %d rank(s) %d tile(s) %-8s single: %s (relative to double %.2e)\n",
                   c->name, tess_nranks(), tiles, tess_mode_name((tess_mode)m),
                   close ? "ok" : "FAIL", e);
            fail |= !close;
            continue;
          }
          size_t bad = len;
          for (size_t i = 0; i < len && bad == len; i++)
            if (memcmp(&got[i], &cmp[i], sizeof got[i])) bad = i;
          if (bad == len) {
            printf("%-22s %d rank(s) %d tile(s) %-8s %s: bitwise\n", c->name, tess_nranks(), tiles,
                   tess_mode_name((tess_mode)m), p ? "single" : "double");
          } else {
            const size_t cell = bad / NC;
            printf("%-22s %d rank(s) %d tile(s) %-8s %s: FAIL at cell (%zu,%zu,%zu) comp %zu: "
                   "%.17g, expected %.17g\n",
                   c->name, tess_nranks(), tiles, tess_mode_name((tess_mode)m),
                   p ? "single" : "double", cell % c->n[0], cell / c->n[0] % c->n[1],
                   cell / c->n[0] / c->n[1], bad % NC, got[bad], cmp[bad]);
            fail = 1;
          }
        }
    free(want);
    free(got);
    free(f32);
  }
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  tess_finalize();
  return fail;
}

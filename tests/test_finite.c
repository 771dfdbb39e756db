/* test_finite — tess_sim_check_finite names the same first bad value whatever the decomposition.
 *
 * usage: test_finite [--tiles T]
 * A 24x20x16 grid with two fields, "u" (1 component) and "v" (3 components). Every value is
 * finite except: v component 2 at cell (5, 7, 3), v component 0 at cell (2, 9, 3) (a later cell
 * in x + nx (y + ny z) order, lower component), u at cell (20, 19, 15) (+Inf, field u comes
 * first) — checked in turn by removing the winner each time, so each rule of the order
 * (field, then cell, then component) is exercised. The expected answers are written here, not
 * computed by the code under test; ctest runs this on 1, 2 and 3 ranks and with several tiles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"
#include "tessera.h"

typedef struct {
  int stage; /* which bad values are present: 0 all, 1 without u's, 2 also without v[2]'s */
} bad_ctx;

static int at(const long g[3], long x, long y, long z) {
  return g[0] == x && g[1] == y && g[2] == z;
}

static double u_value(const long g[3], int comp, void *arg) {
  const bad_ctx *c = arg;
  (void)comp;
  if (c->stage == 0 && at(g, 20, 19, 15)) return INFINITY;
  return 0.001 * (double)(g[0] + 3 * g[1] + 7 * g[2]);
}

static double v_value(const long g[3], int comp, void *arg) {
  const bad_ctx *c = arg;
  if (c->stage <= 1 && comp == 2 && at(g, 5, 7, 3)) return NAN;
  if (comp == 0 && at(g, 2, 9, 3)) return -INFINITY;
  return 1.0 + comp;
}

/* Checks fields u and v (u_new is never written: its NaN poison is not part of the test). */
static int expect(tess_sim_t sim, const int fields[2], const char *what, int field, int comp,
                  long x, long y, long z, double value) {
  tess_nonfinite nf;
  if (tess_sim_check_finite(sim, 2, fields, &nf)) return 1;
  const int same_kind = isnan(value) ? isnan(nf.value) : nf.value == value;
  const int ok = nf.found && nf.field == field && nf.comp == comp && nf.cell[0] == x &&
                 nf.cell[1] == y && nf.cell[2] == z && same_kind;
  if (tess_rank() == 0)
    printf("%s %s: found %d, field %d comp %d cell (%ld, %ld, %ld) value %g (want field %d comp %d "
           "cell (%ld, %ld, %ld) value %g)\n",
           ok ? "ok  " : "FAIL", what, nf.found, nf.field, nf.comp, nf.cell[0], nf.cell[1],
           nf.cell[2], nf.value, field, comp, x, y, z, value);
  return !ok;
}

int main(int argc, char **argv) {
  int tiles = 1;
  if (argc > 2 && !strcmp(argv[1], "--tiles")) tiles = atoi(argv[2]);
  if (tess_init(&argc, &argv, NULL)) return 1;
  const int n[3] = {24, 20, 16};
  const tess_heat_params prm = {1.0};
  tess_sim_t sim = NULL;
  int u, un, v, fail = 0;
  if (tess_sim_create(MPI_COMM_WORLD, n, &sim) || tess_sim_set_tiles(sim, tiles) ||
      tess_sim_add_field(sim, "u", 1, &u) || tess_sim_add_field(sim, "u_new", 1, &un) ||
      tess_sim_add_field(sim, "v", 3, &v) ||
      tess_sim_add_stage(sim, &(tess_stage){.kernel = &tess_heat2_kernel,
                                            .nin = 1,
                                            .in = {u},
                                            .nout = 1,
                                            .out = {un},
                                            .params = &prm,
                                            .params_size = sizeof prm}) ||
      tess_sim_setup(sim))
    tess_abort(1);
  bad_ctx c = {0};
  const int fields[2] = {u, v};
  for (c.stage = 0; c.stage <= 3; c.stage++) {
    if (tess_sim_fill(sim, u, u_value, &c) || tess_sim_fill(sim, v, v_value, &c)) tess_abort(1);
    tess_nonfinite nf;
    switch (c.stage) {
    case 0: /* u comes before v, whatever the cells */
      fail |= expect(sim, fields, "field order", u, 0, 20, 19, 15, INFINITY);
      break;
    case 1: /* in v: (5,7,3) is cell 1901, (2,9,3) is 1946: the cell decides before the component */
      fail |= expect(sim, fields, "cell order", v, 2, 5, 7, 3, NAN);
      break;
    case 2:
      fail |= expect(sim, fields, "last one left", v, 0, 2, 9, 3, -INFINITY);
      break;
    default: /* u alone is finite now: v's -Inf is not looked at */
      if (tess_sim_check_finite(sim, 1, fields, &nf)) tess_abort(1);
      if (tess_rank() == 0)
        printf("%s only field u: found %d\n", nf.found ? "FAIL" : "ok  ", nf.found);
      fail |= nf.found;
    }
  }
  tess_sim_destroy(&sim);
  tess_finalize();
  return fail;
}

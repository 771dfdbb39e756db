/* test_bcfill — the order of accuracy of each ghost formula (runtime/include/tessera_bc.h), depth
 * by depth, on a smooth function with no symmetry about the face: the error of ghost k against the
 * function at the ghost's centre, at h and h/2, falls at the order docs/boundaries.md states
 * (dirichlet 2, neumann 3, outflow 2), for k = 1..3 (stencil radius 3); and the mirrors are
 * exact on fields of their parity (symmetric on an even one, antisymmetric and dirichlet(0) on
 * an odd one, neumann(0) on an even one). */
#include <math.h>
#include <stdio.h>

#include "tessera.h" /* tess_bc_kind_name */
#include "tessera_bc.h"

static double f(double x) { return exp(0.7 * x) + sin(2.0 * x + 0.3); }
static double df(double x) { return 0.7 * exp(0.7 * x) + 2.0 * cos(2.0 * x + 0.3); }

/* ghost k of kind at spacing h, face at x = 0, owned cells at (j + 1/2) h; v as the kind needs */
static double ghost(int kind, int k, double h, double (*u)(double), double v) {
  const double u0 = u(0.5 * h), u1 = u(1.5 * h), uk = u((k - 0.5) * h);
  return tess_bc_ghost(kind, k, kind == TESS_BC_NEUMANN ? h * v : v, u0, u1, uk);
}

static double even(double x) { return cos(1.3 * x) + x * x; }
static double odd(double x) { return sin(1.3 * x) + x * x * x; }

int main(void) {
  int fail = 0;
  const struct {
    int kind;
    double order;
  } cases[] = {{TESS_BC_DIRICHLET, 2}, {TESS_BC_NEUMANN, 3}, {TESS_BC_OUTFLOW, 2}};
  for (int c = 0; c < 3; c++)
    for (int k = 1; k <= 3; k++) {
      double e[2];
      for (int r = 0; r < 2; r++) {
        const double h = 0.02 / (1 << r);
        /* the face's own data: the value there (dirichlet), the outward derivative (neumann) */
        const double v = cases[c].kind == TESS_BC_NEUMANN ? -df(0) : f(0);
        e[r] = fabs(ghost(cases[c].kind, k, h, f, v) - f(-(k - 0.5) * h));
      }
      const double p = log2(e[0] / e[1]);
      const int ok = fabs(p - cases[c].order) < 0.1;
      printf("%-9s ghost %d: error %.3e -> %.3e, order %.3f (stated %.0f)%s\n",
             tess_bc_kind_name(cases[c].kind), k, e[0], e[1], p, cases[c].order,
             ok ? "" : "  FAIL");
      fail |= !ok;
    }
  /* parity: exact to round-off at every depth */
  for (int k = 1; k <= 3; k++) {
    const double h = 0.1, x = -(k - 0.5) * h;
    const double es = fabs(ghost(TESS_BC_SYMMETRIC, k, h, even, 0) - even(x));
    const double ea = fabs(ghost(TESS_BC_ANTISYMMETRIC, k, h, odd, 0) - odd(x));
    const double ed = fabs(ghost(TESS_BC_DIRICHLET, k, h, odd, 0) - odd(x));
    const double en = fabs(ghost(TESS_BC_NEUMANN, k, h, even, 0) - even(x));
    const int ok = es < 1e-15 && ea < 1e-15 && ed < 1e-15 && en < 1e-15;
    printf("ghost %d: symmetric/even %.1e, antisymmetric/odd %.1e, dirichlet(0)/odd %.1e, "
           "neumann(0)/even %.1e%s\n",
           k, es, ea, ed, en, ok ? "" : "  FAIL");
    fail |= !ok;
  }
  return fail;
}

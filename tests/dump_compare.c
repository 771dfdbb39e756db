/* dump_compare [--single[=CELLS]] A B [max_ulp] — compares two raw float64 dumps of equal size:
 * prints the maximum absolute difference and the maximum difference in units in the last place
 * (digest section 5: ulp(m) = 2^(floor(log2|m|) - 52), minimum normal for m = 0).
 * Exit 0 when max ulp <= max_ulp (default 0: bitwise), 1 otherwise, 2 on I/O errors.
 *
 * --single: B is a single-precision run of what A computed in double. Errors are in float ULPs
 * of the largest |value| of each variable (a dump is its variables one after the other, CELLS
 * values each; without =CELLS the whole dump is one): ulp = 2^(floor(log2 max|A|) - 23). Per
 * cell ULPs mean nothing here, since a float result near 0 is off by any number of its own ULPs.
 * Every value of B must be a float (else the run did not store single precision), and B must
 * differ from A somewhere (else the test could not tell single from double arithmetic). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *load(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = ftell(f) / (long)sizeof(double);
  rewind(f);
  double *v = malloc((size_t)*n * sizeof(double) + 1);
  if (v && fread(v, sizeof(double), (size_t)*n, f) != (size_t)*n) {
    free(v);
    v = NULL;
  }
  fclose(f);
  return v;
}

int main(int argc, char **argv) {
  const int single = argc > 1 && !strncmp(argv[1], "--single", 8);
  const long block = single && argv[1][8] == '=' ? atol(argv[1] + 9) : 0;
  argv += single;
  argc -= single;
  if (argc < 3) {
    fprintf(stderr, "usage: dump_compare [--single] A B [max_ulp]\n");
    return 2;
  }
  const double tol = argc > 3 ? atof(argv[3]) : 0;
  long na, nb;
  double *a = load(argv[1], &na), *b = load(argv[2], &nb);
  if (!a || !b || na != nb) {
    fprintf(stderr, "dump_compare: cannot read '%s' and '%s' as dumps of equal size\n", argv[1],
            argv[2]);
    return 2;
  }
  double max_abs = 0, max_ulp = 0, scale = 0;
  long worst = 0, not_float = 0;
  const long bn = block > 0 ? block : na;
  for (long i = 0; i < na; i++) {
    if (isnan(a[i]) || isnan(b[i])) {
      max_ulp = INFINITY;
      worst = i;
      break;
    }
    if (single && i % bn == 0) { /* a new variable: its largest value sets the unit */
      scale = 0;
      for (long j = i; j < i + bn && j < na; j++)
        scale = fmax(scale, fabs(a[j]));
    }
    const double m = single ? scale : fabs(a[i]);
    const double ulp = single ? (m > 0 ? ldexp(1.0, ilogb(m) - 23) : (double)FLT_MIN)
                              : (m > 0 ? ldexp(1.0, ilogb(m) - 52) : DBL_MIN);
    not_float += single && (double)(float)b[i] != b[i];
    const double d = fabs(a[i] - b[i]);
    if (d > max_abs) max_abs = d;
    if (d / ulp > max_ulp) {
      max_ulp = d / ulp;
      worst = i;
    }
  }
  printf("cells %ld  max |a-b| %.3e  max %s ulp %.2f (cell %ld)\n", na, max_abs,
         single ? "float" : "double", max_ulp, worst);
  if (single && not_float) printf("FAIL: %ld values of B are not floats\n", not_float);
  if (single && max_abs == 0) printf("FAIL: B equals A bitwise: no single-precision arithmetic\n");
  return max_ulp <= tol && !not_float && (!single || max_abs > 0) ? 0 : 1;
}

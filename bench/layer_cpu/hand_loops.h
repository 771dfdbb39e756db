/* hand_loops.h — per pass (hand.c includes it for `real` = double, then float): the bench's plain
 * hand-written loops, each the same arithmetic in the same order as its kernel's cell function,
 * so the layer's output must match them bit for bit. Written as one would by hand: restrict
 * pointers, a row loop over x marked `ivdep` (GCC does not trust restrict on local pointers and
 * would version the loop on alias checks, or give up on Maxwell's), every axis and component
 * spelled out. Fields [Z][Y][nc][X]
 * (tessera_kernel.h), n^3 owned cells of a cube with ghost width g, X = Y = Z = n + 2g. */

/* ((b0 u + b1 (u[+s] + u[-s])) + b2 (...)) + b3 (...), then * 1/h^2: heat_cell.h's heat_d2 */
static inline real HAND(d2)(const real *restrict p, long s, int R, const real *b, real ih) {
  real acc = b[0] * p[0];
  for (int j = 1; j <= R; j++)
    acc = acc + b[j] * (p[j * s] + p[-j * s]);
  return acc * ih;
}

/* heat, radius R (1 or 3, a constant where inlined); k = coef, 1/h^2 (x, y, z), b0..b3. */
static inline void HAND(heat_r)(const real *restrict u, real *restrict o, int n, int g, int R,
                                const real *k) {
  const long X = n + 2 * g, sy = X, sz = X * X;
  const real coef = k[0], ihx = k[1], ihy = k[2], ihz = k[3], b[4] = {k[4], k[5], k[6], k[7]};
  for (long z = g; z < g + n; z++)
    for (long y = g; y < g + n; y++) {
      const real *restrict a = u + z * sz + y * sy;
      real *restrict w = o + z * sz + y * sy;
      _Pragma("GCC ivdep") for (long x = g; x < g + n; x++) {
        const real *restrict p = a + x;
        const real lap =
            (HAND(d2)(p, 1, R, b, ihx) + HAND(d2)(p, sy, R, b, ihy)) + HAND(d2)(p, sz, R, b, ihz);
        w[x] = p[0] + coef * lap;
      }
    }
}
void HAND(heat)(const real *u, real *o, int n, int g, int R, const real *k) {
  if (R == 1)
    HAND(heat_r)(u, o, n, g, 1, k);
  else
    HAND(heat_r)(u, o, n, g, 3, k);
}

/* mu at p (ch_cell.h's ch_mu_at); k: -B, U, K, coef, c0, c1, 1/h^2 (x, y, z). */
static inline real HAND(ch_mu)(const real *restrict p, long sy, long sz, const real *k) {
  const real v = p[0];
  const real lap =
      (((p[1] + p[-1]) - (real)2 * v) * k[6] + ((p[sy] + p[-sy]) - (real)2 * v) * k[7]) +
      ((p[sz] + p[-sz]) - (real)2 * v) * k[8];
  return (k[0] * v + k[1] * ((v * v) * v)) - k[2] * lap;
}

/* Cahn–Hilliard fused (ch_fused, one input): mu recomputed at the cell and its six neighbours,
 * as the layer's per-cell CPU sweep does, then c1 (v + coef lap mu). */
void HAND(ch)(const real *restrict u, real *restrict o, int n, int g, const real *k) {
  const long X = n + 2 * g, sy = X, sz = X * X;
  for (long z = g; z < g + n; z++)
    for (long y = g; y < g + n; y++) {
      const real *restrict a = u + z * sz + y * sy;
      real *restrict w = o + z * sz + y * sy;
      _Pragma("GCC ivdep") for (long x = g; x < g + n; x++) {
        const real *restrict p = a + x;
        const real m0 = HAND(ch_mu)(p, sy, sz, k);
        const real lx =
            ((HAND(ch_mu)(p + 1, sy, sz, k) + HAND(ch_mu)(p - 1, sy, sz, k)) - (real)2 * m0) * k[6];
        const real ly =
            ((HAND(ch_mu)(p + sy, sy, sz, k) + HAND(ch_mu)(p - sy, sy, sz, k)) - (real)2 * m0) *
            k[7];
        const real lz =
            ((HAND(ch_mu)(p + sz, sy, sz, k) + HAND(ch_mu)(p - sz, sy, sz, k)) - (real)2 * m0) *
            k[8];
        w[x] = k[5] * (p[0] + k[3] * ((lx + ly) + lz));
      }
    }
}

/* 6th-order first difference along stride s (maxwell_cell.h's mw_d1); a: the weights. */
static inline real HAND(d1)(const real *restrict p, long s, const real *a, real ih) {
  real d = a[0] * (p[s] - p[-s]);
  d = d + a[1] * (p[2 * s] - p[-2 * s]);
  d = d + a[2] * (p[3 * s] - p[-3 * s]);
  return d * ih;
}

/* Maxwell RK3 substep (maxwell_cell.h), components E0..2, H0..2; k in maxwell.h's MW_* slots. */
static inline void HAND(maxwell_r)(const real *restrict u, real *restrict o, int n, int g,
                                   const real *k, int rd) {
  const long X = n + 2 * g, sy = 6 * X, sz = sy * X;
  const real beta = k[0], gap = k[1], dt = k[3], ce = k[4], ch = k[5];
  const real ihx = k[6], ihy = k[7], ihz = k[8], *aw = k + 9;
  for (long z = g; z < g + n; z++)
    for (long y = g; y < g + n; y++) {
      const real *restrict a = u + z * sz + y * sy;
      real *restrict w = o + z * sz + y * sy;
      _Pragma("GCC ivdep") for (long x = g; x < g + n; x++) {
        const real *restrict e0 = a + x, *restrict e1 = e0 + X, *restrict e2 = e0 + 2 * X;
        const real *restrict h0 = e0 + 3 * X, *restrict h1 = e0 + 4 * X, *restrict h2 = e0 + 5 * X;
        /* F_i = coef (curl of the other field)_i; g = dt rhs (+ gap (u - out) from substep 1) */
#define HAND_MW(i, coef, curl)                                                                     \
  do {                                                                                             \
    const real v = e0[(i)*X], old = w[(i)*X + x], gg = dt * ((coef) * (curl));                     \
    w[(i)*X + x] = v + beta * (rd ? gap * (v - old) + gg : gg); /* rd: a constant */               \
  } while (0)
        HAND_MW(0, ce, HAND(d1)(h2, sy, aw, ihy) - HAND(d1)(h1, sz, aw, ihz));
        HAND_MW(1, ce, HAND(d1)(h0, sz, aw, ihz) - HAND(d1)(h2, 1, aw, ihx));
        HAND_MW(2, ce, HAND(d1)(h1, 1, aw, ihx) - HAND(d1)(h0, sy, aw, ihy));
        HAND_MW(3, ch, HAND(d1)(e2, sy, aw, ihy) - HAND(d1)(e1, sz, aw, ihz));
        HAND_MW(4, ch, HAND(d1)(e0, sz, aw, ihz) - HAND(d1)(e2, 1, aw, ihx));
        HAND_MW(5, ch, HAND(d1)(e1, 1, aw, ihx) - HAND(d1)(e0, sy, aw, ihy));
#undef HAND_MW
      }
    }
}
void HAND(maxwell)(const real *u, real *o, int n, int g, const real *k) {
  if (k[2] != 0) /* substeps 1 and 2 read the old output */
    HAND(maxwell_r)(u, o, n, g, k, 1);
  else
    HAND(maxwell_r)(u, o, n, g, k, 0);
}

/* Gray–Scott (rd2_cell.h), components u, v; k in rd2.h's RD2_* slots. */
void HAND(rd2)(const real *restrict u, real *restrict o, int n, int g, const real *k) {
  const long X = n + 2 * g, sy = 2 * X, sz = sy * X;
  for (long z = g; z < g + n; z++)
    for (long y = g; y < g + n; y++) {
      const real *restrict a = u + z * sz + y * sy;
      real *restrict w = o + z * sz + y * sy;
      _Pragma("GCC ivdep") for (long x = g; x < g + n; x++) {
        const real *restrict p = a + x, *restrict q = p + X;
        const real lu =
            ((((p[1] + p[-1]) + (p[sy] + p[-sy])) + (p[sz] + p[-sz])) - (real)6 * p[0]) * k[5];
        const real lv =
            ((((q[1] + q[-1]) + (q[sy] + q[-sy])) + (q[sz] + q[-sz])) - (real)6 * q[0]) * k[5];
        const real uu = p[0], v = q[0], uvv = (uu * v) * v;
        w[x] = uu + k[0] * ((k[1] * lu - uvv) + k[3] * ((real)1 - uu));
        w[X + x] = v + k[0] * ((k[2] * lv + uvv) - k[4] * v);
      }
    }
}

/* test_decomposer.c — the decomposer against the paper's oracles (seed digest 2.3-2.4).
 *
 * Tables A.1 (node level) and A.2 (device level) must come out exactly, for every radius
 * r = 1..4, which also checks the tie-break. The Morton placement must reproduce the digest's
 * bit formula, agree with the cube column of Table A.1, be a bijection, and keep aligned groups
 * of 8 ranks in 2x2x2 blocks. Edge cases: non-power-of-two counts, counts dividing nothing,
 * 2D grids. The GPU variant's axis order. Prints one line per failed check; returns 0 on pass, 1
 * on failure.
 */
#include <stdio.h>

#include "decomp.h"

static int failures, checks;

static void check(int ok, const char *what, const int got[3], const int want[3], int ctx) {
  checks++;
  if (ok) return;
  failures++;
  if (got && want)
    printf("FAIL %s [%d]: got (%d,%d,%d), want (%d,%d,%d)\n", what, ctx, got[0], got[1], got[2],
           want[0], want[1], want[2]);
  else
    printf("FAIL %s [%d]\n", what, ctx);
}

static int eq3(const int a[3], const int b[3]) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

static const int grids[3][3] = {{512, 512, 512}, {1024, 512, 512}, {1024, 1024, 512}};
static const int counts[7] = {1, 2, 4, 8, 16, 32, 64};

/* [grid][count] -> P, transcribed from the digest. */
static const int table_a1[3][7][3] = {
    {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {4, 2, 2}, {4, 4, 2}, {4, 4, 4}},
    {{1, 1, 1}, {2, 1, 1}, {4, 1, 1}, {4, 2, 1}, {4, 2, 2}, {8, 2, 2}, {8, 4, 2}},
    {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {4, 2, 1}, {4, 4, 1}, {4, 4, 2}, {8, 4, 2}}};
static const int table_a2[3][7][3] = {
    {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {4, 2, 2}, {4, 4, 2}, {4, 4, 4}},
    {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {4, 2, 2}, {8, 2, 2}, {8, 4, 2}},
    {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {2, 2, 2}, {4, 2, 2}, {4, 4, 2}, {8, 4, 2}}};

static void test_tables(void) {
  for (int r = 1; r <= 4; r++)
    for (int g = 0; g < 3; g++)
      for (int c = 0; c < 7; c++) {
        int p[3] = {0, 0, 0}, ctx = 1000 * r + 100 * g + counts[c];
        int rc = tess_decomp_procs(grids[g], counts[c], r, p);
        check(rc == 0 && eq3(p, table_a1[g][c]), "Table A.1 (ctx = 1000r+100grid+count)", p,
              table_a1[g][c], ctx);
        rc = tess_decomp_tiles(grids[g], counts[c], r, p);
        check(rc == 0 && eq3(p, table_a2[g][c]), "Table A.2 (ctx = 1000r+100grid+count)", p,
              table_a2[g][c], ctx);
      }
}

static void test_bijection(const int p[3]) {
  int size = p[0] * p[1] * p[2], seen[512] = {0}, ok = 1;
  for (int k = 0; k < size; k++) {
    int c[3];
    tess_decomp_coord(p, k, c);
    int in = c[0] >= 0 && c[0] < p[0] && c[1] >= 0 && c[1] < p[1] && c[2] >= 0 && c[2] < p[2];
    int lin = in ? c[0] + p[0] * (c[1] + p[1] * c[2]) : 0;
    if (!in || seen[lin]++ || tess_decomp_index(p, c) != k) ok = 0;
  }
  check(ok, "coord/index bijection on p (ctx = p0*10000+p1*100+p2)", NULL, NULL,
        p[0] * 10000 + p[1] * 100 + p[2]);
}

static void test_morton(void) {
  /* P* = morton^-1(C_P - 1) + (1,1,1) and the cube column of Table A.1. */
  for (int c = 1; c < 7; c++) {
    int m[3];
    tess_morton_decode3((unsigned)counts[c] - 1, m);
    int pstar[3] = {m[0] + 1, m[1] + 1, m[2] + 1};
    check(eq3(pstar, table_a1[0][c]), "P* = morton^-1(C_P-1)+1 vs Table A.1 cube", pstar,
          table_a1[0][c], counts[c]);
  }
  /* The same holds beyond the table: cube 4096^3, C_P = 2^1 .. 2^12. */
  const int cube[3] = {4096, 4096, 4096};
  for (int e = 1; e <= 12; e++) {
    int m[3], p[3] = {0, 0, 0};
    tess_morton_decode3((1u << e) - 1, m);
    int pstar[3] = {m[0] + 1, m[1] + 1, m[2] + 1};
    check(tess_decomp_procs(cube, 1 << e, 3, p) == 0 && eq3(p, pstar),
          "decomp_procs on 4096^3 vs Morton P*", p, pstar, 1 << e);
  }
  /* Digest's bit formula: i = abcdef_2 -> (cf, be, ad); 46 = 101110_2 -> (10, 01, 11). */
  const int p4[3] = {4, 4, 4}, want46[3] = {2, 1, 3};
  int c[3];
  tess_decomp_coord(p4, 46, c);
  check(eq3(c, want46), "coord (4,4,4) k=46", c, want46, 46);
  tess_morton_decode3(46, c);
  check(eq3(c, want46), "morton_decode3 k=46", c, want46, 46);
  const int p2[3] = {2, 2, 2};
  for (int k = 0; k < 8; k++) {
    int want[3] = {k & 1, (k >> 1) & 1, (k >> 2) & 1};
    tess_decomp_coord(p2, k, c);
    check(eq3(c, want), "coord (2,2,2)", c, want, k);
  }
  /* Unequal axes (8,2,4) take 3,1,2 bits: x y z x z x, so bit 4 -> z bit 1, bit 5 -> x bit 2. */
  const int p824[3] = {8, 2, 4}, want16[3] = {0, 0, 2}, want32[3] = {4, 0, 0};
  tess_decomp_coord(p824, 16, c);
  check(eq3(c, want16), "coord (8,2,4) k=16", c, want16, 16);
  tess_decomp_coord(p824, 32, c);
  check(eq3(c, want32), "coord (8,2,4) k=32", c, want32, 32);
  /* Non-power-of-two grids fall back to lexicographic, x fastest. */
  const int p651[3] = {6, 5, 1}, want13[3] = {1, 2, 0};
  tess_decomp_coord(p651, 13, c);
  check(eq3(c, want13), "coord (6,5,1) k=13", c, want13, 13);

  const int grids_b[6][3] = {{3, 1, 1}, {6, 5, 1}, {4, 2, 1}, {8, 2, 4}, {4, 4, 4}, {1, 1, 1}};
  for (int g = 0; g < 6; g++)
    test_bijection(grids_b[g]);

  /* Locality: ranks 8b .. 8b+7 on (4,4,4) fill one aligned 2x2x2 block. */
  for (int b = 0; b < 8; b++) {
    int lo[3], hi[3], ok = 1;
    tess_decomp_coord(p4, 8 * b, lo);
    for (int i = 0; i < 3; i++)
      hi[i] = lo[i];
    for (int k = 8 * b + 1; k < 8 * b + 8; k++) {
      tess_decomp_coord(p4, k, c);
      for (int i = 0; i < 3; i++) {
        if (c[i] < lo[i]) lo[i] = c[i];
        if (c[i] > hi[i]) hi[i] = c[i];
      }
    }
    /* 8 distinct coordinates (bijection, checked above) inside a 2x2x2 box fill it. */
    for (int i = 0; i < 3; i++)
      ok &= hi[i] - lo[i] == 1 && lo[i] % 2 == 0;
    check(ok, "8 consecutive ranks on (4,4,4) form a 2x2x2 block", lo, hi, b);
  }
}

static void test_edges(void) {
  int p[3] = {0, 0, 0};
  const int n3[3] = {48, 32, 32};
  int rc = tess_decomp_procs(n3, 3, 3, p);
  check(rc == 0 && p[0] * p[1] * p[2] == 3 && n3[0] % p[0] == 0 && n3[1] % p[1] == 0 &&
            n3[2] % p[2] == 0,
        "3 ranks on 48x32x32", p, n3, 3);
  rc = tess_decomp_tiles(n3, 3, 3, p);
  check(rc == 0 && p[0] == 3, "3 tiles on 48x32x32", p, n3, 3);

  const int n64[3] = {64, 64, 64};
  check(tess_decomp_procs(n64, 7, 3, p) == -1, "7 ranks on 64^3 must fail", NULL, NULL, 7);
  check(tess_decomp_tiles(n64, 7, 3, p) == -1, "7 tiles on 64^3 must fail", NULL, NULL, 7);
  check(tess_decomp_procs(n64, 0, 3, p) == -1, "count 0 must fail", NULL, NULL, 0);

  /* 2D: z is never split, even when splitting it would be allowed by the count. */
  const int n2d[3] = {1024, 512, 1};
  for (int e = 0; e <= 10; e++) {
    int ok = tess_decomp_procs(n2d, 1 << e, 2, p) == 0 && p[2] == 1 && p[0] * p[1] == 1 << e;
    ok &= tess_decomp_tiles(n2d, 1 << e, 2, p) == 0 && p[2] == 1 && p[0] * p[1] == 1 << e;
    check(ok, "2D grid 1024x512x1 never splits z", p, n2d, 1 << e);
  }
  /* A 2D square splits into a square grid: 16 ranks on 512^2 -> (4,4,1). */
  const int sq[3] = {512, 512, 1}, want44[3] = {4, 4, 1};
  check(tess_decomp_procs(sq, 16, 3, p) == 0 && eq3(p, want44), "16 ranks on 512^2", p, want44, 16);

  /* Large counts stay fast and valid: 4096 = 2^12 and 3000 ranks on 6000x4000x3000. */
  const int big[3] = {6000, 4000, 3000};
  rc = tess_decomp_procs(big, 3000, 3, p);
  check(rc == 0 && p[0] * p[1] * p[2] == 3000 && big[0] % p[0] == 0 && big[1] % p[1] == 0 &&
            big[2] % p[2] == 0,
        "3000 ranks on 6000x4000x3000", p, big, 3000);
}

/* GPU tiles: cuts across z first, then y, then x (decomp.h's weighted face cells), never a
 * block thinner than 2r along a cut axis when another shape fits, the paper's cost on ties. */
static void test_gpu(void) {
  int p[3];
  const int r3[3] = {3, 3, 3}, cube[3] = {256, 256, 256};
  const int w4[3] = {1, 1, 4}, w8[3] = {1, 2, 4}, w2[3] = {1, 1, 2};
  check(tess_decomp_procs_axes(cube, 4, r3, 1, p) == 0 && eq3(p, w4), "gpu: 4 on 256^3", p, w4, 4);
  check(tess_decomp_tiles_axes(cube, 4, r3, 1, p) == 0 && eq3(p, w4), "gpu: 4 tiles on 256^3", p,
        w4, 4);
  /* 1x1x8 and 1x2x4 add the same slab work; 1x2x4 moves fewer halo cells */
  check(tess_decomp_procs_axes(cube, 8, r3, 1, p) == 0 && eq3(p, w8), "gpu: 8 on 256^3", p, w8, 8);
  check(tess_decomp_procs_axes(cube, 2, r3, 1, p) == 0 && eq3(p, w2), "gpu: 2 on 256^3", p, w2, 2);
  /* z too thin to cut (8 / 2 < 2r): y instead */
  const int flat[3] = {256, 256, 8}, wy[3] = {1, 2, 1};
  check(tess_decomp_procs_axes(flat, 2, r3, 1, p) == 0 && eq3(p, wy), "gpu: 2 on 256x256x8", p, wy,
        2);
  /* 2D: rows (y) before columns */
  const int sq[3] = {512, 512, 1}, r2d[3] = {2, 2, 0}, w2d[3] = {1, 4, 1};
  check(tess_decomp_procs_axes(sq, 4, r2d, 1, p) == 0 && eq3(p, w2d), "gpu: 4 on 512^2", p, w2d, 4);
  /* nothing read across z: cutting it costs nothing */
  const int col[3] = {256, 256, 64}, rxy[3] = {2, 2, 0}, wz[3] = {1, 1, 4};
  check(tess_decomp_procs_axes(col, 4, rxy, 1, p) == 0 && eq3(p, wz), "gpu: 4 on 256^2x64, r_z 0",
        p, wz, 4);
  /* gpu = 0 is the paper's choice */
  const int paper[3] = {2, 2, 1};
  check(tess_decomp_procs_axes(cube, 4, r3, 0, p) == 0 && eq3(p, paper), "cpu: 4 on 256^3", p,
        paper, 4);
}

int main(void) {
  test_tables();
  test_morton();
  test_edges();
  test_gpu();
  printf("test_decomposer: %d of %d checks failed\n", failures, checks);
  return failures ? 1 : 0;
}

/* test_segments — the footprint -> needed-halo-segments rule (digest 2.7).
 *
 * The runtime derives an outer segment's halo needs geometrically (which pieces the footprint
 * touches, segments.c). This test compares that with the closed-form rule, written here
 * independently: outer segment d needs halo h iff h != 0, every h_i is 0 or d_i, and the
 * footprint reaches h (star: one non-zero component, star_diag: at most two, box: any).
 * It also checks that the 125 pieces tile the padded box exactly, and the counts of halo
 * segments that are ever packed: 6/18/26 in 3D, 4/8/8 in 2D.
 */
#include <stdio.h>

#include "segments.h"
#include "tessera.h"

static int failures = 0;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

static int closed_form_needs(tess_shape shape, const int d[3], const int h[3]) {
  int nz = 0;
  for (int i = 0; i < 3; i++) {
    if (h[i] != 0 && h[i] != d[i]) return 0;
    nz += h[i] != 0;
  }
  if (nz == 0) return 0;
  return shape == TESS_SHAPE_STAR ? nz == 1 : shape == TESS_SHAPE_STAR_DIAG ? nz <= 2 : 1;
}

static const char *shape_name[] = {"star", "star_diag", "box"};

static void check(tess_shape shape, int r, const int n[3], int expect_packed) {
  int g[3];
  for (int i = 0; i < 3; i++)
    g[i] = n[i] > 1 ? r : 0;
  /* pieces tile the padded box exactly */
  long cells = 0;
  for (int p = 0; p < TESS_NPIECES; p++) {
    tess_box b;
    tess_piece_box(n, g, p, &b);
    cells += tess_box_cells(&b);
  }
  EXPECT(cells == (long)(n[0] + 2 * g[0]) * (n[1] + 2 * g[1]) * (n[2] + 2 * g[2]),
         "pieces cover %ld cells", cells);

  uint32_t packed = 0;
  for (int di = 0; di < TESS_NDIRS; di++) {
    int d[3];
    tess_dir_vector(di, d);
    int off_axis = 0;
    for (int i = 0; i < 3; i++)
      off_axis |= d[i] != 0 && n[i] == 1;
    tess_box sb;
    tess_piece_box(n, g, tess_segment_piece(d), &sb);
    if (off_axis || tess_box_empty(&sb)) continue; /* no such segment (flat axis, or n = 2r) */
    tess_pieceset reads;
    tess_footprint_reads(n, g, shape, r, tess_segment_piece(d), &reads);
    const uint32_t got = tess_halo_dirs_in(n, g, &reads);
    packed |= got;
    for (int hi = 0; hi < TESS_NDIRS; hi++) {
      int h[3];
      tess_dir_vector(hi, h);
      const int want = closed_form_needs(shape, d, h);
      EXPECT(((got >> hi) & 1) == (uint32_t)want,
             "%s r=%d n=%dx%dx%d: segment (%d,%d,%d) halo (%d,%d,%d): runtime %d, rule %d",
             shape_name[shape], r, n[0], n[1], n[2], d[0], d[1], d[2], h[0], h[1], h[2],
             (int)((got >> hi) & 1), want);
    }
  }
  EXPECT(__builtin_popcount(packed) == expect_packed,
         "%s r=%d n=%dx%dx%d: %d halo segments packed, expected %d", shape_name[shape], r, n[0],
         n[1], n[2], __builtin_popcount(packed), expect_packed);
}

int main(void) {
  const int cube[3] = {12, 12, 12}, slab[3] = {16, 8, 1}, thin[3] = {6, 9, 7};
  for (int r = 1; r <= 3; r++) {
    check(TESS_SHAPE_STAR, r, cube, 6);
    check(TESS_SHAPE_STAR_DIAG, r, cube, 18);
    check(TESS_SHAPE_BOX, r, cube, 26);
    check(TESS_SHAPE_STAR, r, slab, 4);
    check(TESS_SHAPE_STAR_DIAG, r, slab, 8);
    check(TESS_SHAPE_BOX, r, slab, 8);
  }
  /* tiles exactly 2r wide: the inner segment is empty, the rule must still hold */
  check(TESS_SHAPE_STAR_DIAG, 3, thin, 18);
  check(TESS_SHAPE_BOX, 3, thin, 26);

  /* the MHD stencil: 55 points at r = 3; corners never read */
  const int all[3] = {1, 1, 1};
  EXPECT(tess_footprint_offsets(TESS_SHAPE_STAR_DIAG, 3, all, NULL) == 55,
         "MHD stencil point count");
  EXPECT(tess_footprint_offsets(TESS_SHAPE_STAR, 3, all, NULL) == 19, "star point count");
  EXPECT(tess_footprint_offsets(TESS_SHAPE_BOX, 3, all, NULL) == 343, "box point count");
  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}

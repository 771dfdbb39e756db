/* segments.c — piece geometry and the footprint -> pieces-read rule (see segments.h). */
#include "segments.h"

#include <stdlib.h>

#include "tessera.h"

int tess_box_empty(const tess_box *b) {
  for (int i = 0; i < 3; i++)
    if (b->hi[i] <= b->lo[i]) return 1;
  return 0;
}

long tess_box_cells(const tess_box *b) {
  if (tess_box_empty(b)) return 0;
  return (long)(b->hi[0] - b->lo[0]) * (b->hi[1] - b->lo[1]) * (b->hi[2] - b->lo[2]);
}

static void interval(int n, int g, int a, int *lo, int *hi) {
  const int edges[6] = {0, g, 2 * g, n, n + g, n + 2 * g};
  *lo = edges[a];
  *hi = edges[a + 1];
  if (g == 0) { /* inactive axis: the whole extent is the single "inner" interval */
    *lo = 0;
    *hi = a == 2 ? n : 0;
  }
}

void tess_piece_box(const int n[3], const int g[3], int p, tess_box *b) {
  int a[3];
  tess_piece_coord(p, a);
  for (int i = 0; i < 3; i++)
    interval(n[i], g[i], a[i], &b->lo[i], &b->hi[i]);
}

int tess_segment_piece(const int d[3]) {
  const int a[3] = {d[0] + 2, d[1] + 2, d[2] + 2};
  return tess_piece_index(a);
}

void tess_halo_box(const int n[3], const int g[3], const int h[3], tess_box *b) {
  for (int i = 0; i < 3; i++) {
    b->lo[i] = h[i] < 0 ? 0 : h[i] > 0 ? n[i] + g[i] : g[i];
    b->hi[i] = h[i] < 0 ? g[i] : h[i] > 0 ? n[i] + 2 * g[i] : n[i] + g[i];
  }
}

void tess_halo_pieces(const int n[3], const int g[3], const int h[3], tess_pieceset *s) {
  s->w[0] = s->w[1] = 0;
  int lo[3], hi[3];
  for (int i = 0; i < 3; i++) {
    lo[i] = h[i] < 0 ? 0 : h[i] > 0 ? 4 : 1;
    hi[i] = h[i] < 0 ? 0 : h[i] > 0 ? 4 : 3;
  }
  int a[3];
  for (a[2] = lo[2]; a[2] <= hi[2]; a[2]++)
    for (a[1] = lo[1]; a[1] <= hi[1]; a[1]++)
      for (a[0] = lo[0]; a[0] <= hi[0]; a[0]++) {
        tess_box b;
        tess_piece_box(n, g, tess_piece_index(a), &b);
        if (!tess_box_empty(&b)) tess_pieceset_add(s, tess_piece_index(a));
      }
}

void tess_send_box(const int n[3], const int g[3], const int d[3], tess_box *b) {
  for (int i = 0; i < 3; i++) {
    b->lo[i] = d[i] < 0 ? g[i] : d[i] > 0 ? n[i] : g[i];
    b->hi[i] = d[i] < 0 ? 2 * g[i] : d[i] > 0 ? n[i] + g[i] : n[i] + g[i];
  }
}

int tess_footprint_reaches(tess_shape shape, const int h[3]) {
  const int nonzero = (h[0] != 0) + (h[1] != 0) + (h[2] != 0);
  switch (shape) {
  case TESS_SHAPE_STAR:
    return nonzero <= 1;
  case TESS_SHAPE_STAR_DIAG:
    return nonzero <= 2;
  case TESS_SHAPE_BOX:
    return 1;
  default:
    return 0;
  }
}

/* An offset belongs to the footprint if it lies on an axis (star), on an axis or an in-plane
 * diagonal k(e_i +- e_j) (star_diag), or anywhere in the cube (box). */
static int in_footprint(tess_shape shape, const int o[3]) {
  int nonzero = 0, mag = 0, same = 1;
  for (int i = 0; i < 3; i++)
    if (o[i]) {
      if (mag && abs(o[i]) != mag) same = 0;
      mag = abs(o[i]);
      nonzero++;
    }
  switch (shape) {
  case TESS_SHAPE_STAR:
    return nonzero <= 1;
  case TESS_SHAPE_STAR_DIAG:
    return nonzero <= 1 || (nonzero == 2 && same);
  case TESS_SHAPE_BOX:
    return 1;
  default:
    return 0;
  }
}

int tess_footprint_offsets(tess_shape shape, int r, const int active[3], int (*off)[3]) {
  tess_reach reach;
  for (int i = 0; i < 3; i++) {
    reach.lo[i] = active[i] ? -r : 0;
    reach.hi[i] = active[i] ? r : 0;
  }
  return tess_reach_offsets(shape, &reach, off);
}

int tess_reach_offsets(tess_shape shape, const tess_reach *r, int (*off)[3]) {
  int count = 0, o[3];
  for (o[2] = r->lo[2]; o[2] <= r->hi[2]; o[2]++)
    for (o[1] = r->lo[1]; o[1] <= r->hi[1]; o[1]++)
      for (o[0] = r->lo[0]; o[0] <= r->hi[0]; o[0]++)
        if (in_footprint(shape, o)) {
          if (off) {
            off[count][0] = o[0];
            off[count][1] = o[1];
            off[count][2] = o[2];
          }
          count++;
        }
  return count;
}

static int boxes_meet(const tess_box *a, const tess_box *b) {
  for (int i = 0; i < 3; i++)
    if (a->hi[i] <= b->lo[i] || b->hi[i] <= a->lo[i]) return 0;
  return 1;
}

void tess_footprint_reads(const int n[3], const int g[3], tess_shape shape, int r, int seg,
                          tess_pieceset *reads) {
  const int active[3] = {g[0] > 0, g[1] > 0, g[2] > 0};
  int(*off)[3] = malloc(sizeof(int[3]) * (size_t)tess_footprint_offsets(shape, r, active, NULL));
  const int noff = tess_footprint_offsets(shape, r, active, off);
  tess_box s;
  tess_piece_box(n, g, seg, &s);
  reads->w[0] = reads->w[1] = 0;
  tess_box_reads(n, g, &s, noff, (const int(*)[3])off, reads);
  free(off);
}

void tess_piece_grown(const int n[3], const int g[3], int seg, const tess_reach *e, tess_box *b) {
  int a[3];
  tess_piece_box(n, g, seg, b);
  tess_piece_coord(seg, a);
  for (int i = 0; i < 3 && !tess_box_empty(b); i++)
    if (g[i] > 0) {
      if (a[i] == 1) b->lo[i] += e->lo[i];
      if (a[i] == 3) b->hi[i] += e->hi[i];
    }
}

int tess_piece_clamp(int q) {
  int a[3];
  tess_piece_coord(q, a);
  for (int i = 0; i < 3; i++)
    a[i] = a[i] < 1 ? 1 : a[i] > 3 ? 3 : a[i];
  return tess_piece_index(a);
}

void tess_box_reads(const int n[3], const int g[3], const tess_box *s, int noff,
                    const int (*off)[3], tess_pieceset *reads) {
  tess_box p;
  for (int q = 0; q < TESS_NPIECES; q++) {
    tess_piece_box(n, g, q, &p);
    if (tess_box_empty(&p) || tess_box_empty(s)) continue;
    for (int k = 0; k < noff; k++) {
      tess_box moved = *s;
      for (int i = 0; i < 3; i++) {
        moved.lo[i] += off[k][i];
        moved.hi[i] += off[k][i];
      }
      if (boxes_meet(&moved, &p)) {
        tess_pieceset_add(reads, q);
        break;
      }
    }
  }
}

uint32_t tess_halo_dirs_in(const int n[3], const int g[3], const tess_pieceset *reads) {
  uint32_t dirs = 0;
  for (int i = 0; i < TESS_NDIRS; i++) {
    if (i == TESS_DIR_CENTER) continue;
    int h[3];
    tess_dir_vector(i, h);
    tess_pieceset hp;
    tess_halo_pieces(n, g, h, &hp);
    if ((hp.w[0] & reads->w[0]) || (hp.w[1] & reads->w[1])) dirs |= 1u << i;
  }
  return dirs;
}

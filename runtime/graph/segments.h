/* segments.h — how a tile is cut into pieces, and which pieces a footprint reads.
 *
 * Along each axis a padded tile of owned extent n and ghost width g is cut into 5 intervals:
 *
 *      0: halo low    1: outer low    2: inner      3: outer high    4: halo high
 *     [0, g)         [g, 2g)         [2g, n)       [n, n+g)         [n+g, n+2g)
 *
 * so the tile is 5^3 = 125 pieces (empty ones, e.g. on an axis of extent 1 where g = 0, are
 * skipped). The owned region is the 27 pieces with coordinates in 1..3: the inner segment
 * (2,2,2) and the 26 outer segments; direction d in {-1,0,1}^3 names outer segment d + 2.
 * Halo segment h is the union of pieces with coordinate 0 (h_i = -1), 4 (+1) or 1..3 (0) --
 * the 26 halo segments of the Astaroth paper, each split into at most 9 pieces so that the
 * halo and owned pieces never overlap. Each piece is one StarPU handle: the data dependencies
 * StarPU derives from them *are* the per-segment dependency rule of digest section 2.7.
 */
#ifndef TESS_SEGMENTS_H
#define TESS_SEGMENTS_H

#include <stdint.h>

#include "tessera_kernel.h"

#define TESS_NPIECES    125
#define TESS_NDIRS      27
#define TESS_DIR_CENTER 13

typedef struct {
  int lo[3], hi[3];
} tess_box;

typedef struct {
  uint64_t w[2];
} tess_pieceset; /* a set of piece indices 0..124 */

static inline int tess_piece_index(const int a[3]) { return a[0] + 5 * (a[1] + 5 * a[2]); }
static inline void tess_piece_coord(int p, int a[3]) {
  a[0] = p % 5;
  a[1] = (p / 5) % 5;
  a[2] = p / 25;
}
/* A piece of the owned region (coordinates 1..3 on every axis): a segment, not a halo piece. */
static inline int tess_piece_owned(int p) {
  int a[3];
  tess_piece_coord(p, a);
  return a[0] >= 1 && a[0] <= 3 && a[1] >= 1 && a[1] <= 3 && a[2] >= 1 && a[2] <= 3;
}
static inline void tess_pieceset_add(tess_pieceset *s, int p) { s->w[p >> 6] |= 1ull << (p & 63); }
static inline int tess_pieceset_has(const tess_pieceset *s, int p) {
  return (s->w[p >> 6] >> (p & 63)) & 1;
}

int tess_box_empty(const tess_box *b);
long tess_box_cells(const tess_box *b);
/* Piece p of a tile with owned extent n and ghost width g. */
void tess_piece_box(const int n[3], const int g[3], int p, tess_box *b);
/* Outer/inner segment d (d = 0: inner) as a piece index. */
int tess_segment_piece(const int d[3]);
/* Halo segment h: its box and its pieces. */
void tess_halo_box(const int n[3], const int g[3], const int h[3], tess_box *b);
void tess_halo_pieces(const int n[3], const int g[3], const int h[3], tess_pieceset *s);
/* What a tile sends towards its neighbour in direction d (that neighbour's halo -d). */
void tess_send_box(const int n[3], const int g[3], const int d[3], tess_box *b);

/* Footprint offsets of a shape and radius, restricted to active axes; returns the count
 * (at most (2r+1)^3); off may be NULL to only count. */
int tess_footprint_offsets(tess_shape shape, int r, const int active[3], int (*off)[3]);
/* Whether a footprint of this shape reaches a cell displaced by (sign pattern) h. */
int tess_footprint_reaches(tess_shape shape, const int h[3]);

/* Offsets of `shape` inside one-sided reach r (lo <= o <= hi per axis); off may be NULL. */
int tess_reach_offsets(tess_shape shape, const tess_reach *r, int (*off)[3]);
/* Adds to `reads` every piece that some cell of box s + some offset falls into. */
void tess_box_reads(const int n[3], const int g[3], const tess_box *s, int noff,
                    const int (*off)[3], tess_pieceset *reads);
/* Piece `seg` of the owned region grown by extent e (outer pieces on the tile's boundary move
 * their outside faces by e.lo / e.hi): the pieces of a stage computing on owned + e. */
void tess_piece_grown(const int n[3], const int g[3], int seg, const tess_reach *e, tess_box *b);
/* The owned piece nearest to halo piece q (coordinates 0 -> 1, 4 -> 3). */
int tess_piece_clamp(int q);

/* Pieces read when updating piece `seg` with the footprint: every piece that some cell of
 * `seg` + some offset falls into. */
void tess_footprint_reads(const int n[3], const int g[3], tess_shape shape, int r, int seg,
                          tess_pieceset *reads);
/* Halo directions (bit i = direction index i) whose segments overlap a piece set. */
uint32_t tess_halo_dirs_in(const int n[3], const int g[3], const tess_pieceset *reads);

#endif

/* fpcheck.c — the footprint check (tess_sim_set_footprint_check, CPU tiles): after a stage's
 * kernel has computed a box, it runs again once per input and halo direction, on a copy of that
 * input whose cells in that direction that no declared offset reads are poisoned, into scratch
 * outputs. The cells read are the box moved by each offset of the kernel's shape within the
 * input's reach (a star's diagonals are not among them: a kernel reading (x+1, y+1) under a
 * star footprint changes the output at the box's corner). Any output cell of the box that then
 * differs from the real run read an undeclared cell: the stage, input field, direction and cell
 * are named and the run aborts. Two poisons (NaN, and a plausible finite value, since a NaN that
 * only enters a comparison may leave the output unchanged). Slow: for small grids.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpcheck.h"
#include "segments.h"

static size_t elems(const tess_region *r, int nc) {
  return (size_t)r->dim[0] * r->dim[1] * r->dim[2] * (size_t)nc;
}

/* Sets to v every cell of array a (nc components) in [lo, hi) that mask leaves 0. */
static void poison(const tess_region *r, void *a, int nc, const int lo[3], const int hi[3],
                   const unsigned char *mask, double v) {
  for (int z = lo[2]; z < hi[2]; z++)
    for (int y = lo[1]; y < hi[1]; y++)
      for (int x = lo[0]; x < hi[0]; x++) {
        if (mask[((size_t)z * r->dim[1] + y) * r->dim[0] + x]) continue;
        for (int c = 0; c < nc; c++) {
          const size_t i = TESS_IDX(r->dim[0], r->dim[1], nc, c, x, y, z);
          if (r->prec == TESS_FP32)
            ((float *)a)[i] = (float)v;
          else
            ((double *)a)[i] = v;
        }
      }
}

/* Marks in mask (one byte per cell) the cells the box reads through the offsets of `shape`
 * within reach. */
static void mark_read(const tess_region *r, tess_shape shape, const tess_reach *reach,
                      unsigned char *mask) {
  const int noff = tess_reach_offsets(shape, reach, NULL);
  int(*off)[3] = malloc(sizeof(int[3]) * (size_t)noff);
  if (!off) abort();
  tess_reach_offsets(shape, reach, off);
  memset(mask, 0, (size_t)r->dim[0] * r->dim[1] * r->dim[2]);
  for (int k = 0; k < noff; k++) {
    int lo[3], hi[3];
    for (int i = 0; i < 3; i++) {
      lo[i] = r->lo[i] + off[k][i] < 0 ? 0 : r->lo[i] + off[k][i];
      hi[i] = r->hi[i] + off[k][i] > r->dim[i] ? r->dim[i] : r->hi[i] + off[k][i];
    }
    for (int z = lo[2]; z < hi[2]; z++)
      for (int y = lo[1]; y < hi[1]; y++)
        if (lo[0] < hi[0])
          memset(mask + ((size_t)z * r->dim[1] + y) * r->dim[0] + lo[0], 1,
                 (size_t)(hi[0] - lo[0]));
  }
  free(off);
}

/* Whether mask leaves some cell of [lo, hi) unmarked. */
static int any_unread(const tess_region *r, const unsigned char *mask, const int lo[3],
                      const int hi[3]) {
  for (int z = lo[2]; z < hi[2]; z++)
    for (int y = lo[1]; y < hi[1]; y++)
      for (int x = lo[0]; x < hi[0]; x++)
        if (!mask[((size_t)z * r->dim[1] + y) * r->dim[0] + x]) return 1;
  return 0;
}

/* The first cell of the box where out and ref differ bitwise, or -1. */
static long first_change(const tess_region *r, const void *out, const void *ref, int nc,
                         int cell[3]) {
  const size_t es = r->prec == TESS_FP32 ? sizeof(float) : sizeof(double);
  for (int z = r->lo[2]; z < r->hi[2]; z++)
    for (int y = r->lo[1]; y < r->hi[1]; y++)
      for (int c = 0; c < nc; c++)
        for (int x = r->lo[0]; x < r->hi[0]; x++) {
          const size_t i = TESS_IDX(r->dim[0], r->dim[1], nc, c, x, y, z);
          if (memcmp((const char *)out + i * es, (const char *)ref + i * es, es)) {
            cell[0] = x;
            cell[1] = y;
            cell[2] = z;
            return (long)i;
          }
        }
  return -1;
}

static long wrap(long v, long n) { return (v % n + n) % n; }

void tess_fpcheck_box(const tess_region *r, tess_cpu_fn fn, const tess_fpcheck *fc) {
  static const char sign[3] = {'-', '0', '+'};
#define TESS_X_SHAPE_NAME(e, text) text,
  static const char *const shape_name[] = {TESS_SHAPE_LIST(TESS_X_SHAPE_NAME)};
  static const double poisons[2] = {NAN, -7.25e3};
  const size_t es = r->prec == TESS_FP32 ? sizeof(float) : sizeof(double);
  void *scratch[TESS_MAX_IO] = {NULL};
  for (int j = 0; j < r->nout; j++)
    if (!(scratch[j] = malloc(elems(r, r->out_nc[j]) * es))) abort();
  void *copy = NULL;
  unsigned char *mask = malloc((size_t)r->dim[0] * r->dim[1] * r->dim[2]);
  if (!mask) abort();
  for (int k = 0; k < r->nin; k++) {
    if (!(copy = realloc(copy, elems(r, r->in_nc[k]) * es))) abort();
    mark_read(r, fc->shape, &fc->reach[k], mask);
    for (int d = 0; d < 27; d++) { /* the cells in direction d from the box, unread */
      int lo[3], hi[3], h[3] = {d % 3 - 1, (d / 3) % 3 - 1, d / 9 - 1}, empty = 0;
      for (int i = 0; i < 3; i++) {
        lo[i] = h[i] < 0 ? 0 : h[i] > 0 ? r->hi[i] : r->lo[i];
        hi[i] = h[i] < 0 ? r->lo[i] : h[i] > 0 ? r->dim[i] : r->hi[i];
        empty |= lo[i] >= hi[i];
      }
      empty = empty || !any_unread(r, mask, lo, hi);
      for (int pv = 0; pv < 2 && !empty; pv++) {
        memcpy(copy, r->in[k], elems(r, r->in_nc[k]) * es);
        poison(r, copy, r->in_nc[k], lo, hi, mask, poisons[pv]);
        tess_region rr = *r;
        rr.in[k] = copy;
        for (int j = 0; j < r->nout; j++) {
          memcpy(scratch[j], r->out[j], elems(r, r->out_nc[j]) * es);
          rr.out[j] = scratch[j];
        }
        fn(&rr);
        for (int j = 0; j < r->nout; j++) {
          int cell[3];
          if (first_change(r, scratch[j], r->out[j], r->out_nc[j], cell) < 0) continue;
          fprintf(stderr,
                  "tessera: footprint check: stage %d ('%s') reads input %d ('%s') outside its "
                  "declared reach x[%d,%d] y[%d,%d] z[%d,%d] (shape %s), in direction %c%c%c "
                  "(output '%s' at global cell %ld,%ld,%ld changes when those cells change)\n",
                  r->stage, fc->kernel, k, fc->in_name[k], fc->reach[k].lo[0], fc->reach[k].hi[0],
                  fc->reach[k].lo[1], fc->reach[k].hi[1], fc->reach[k].lo[2], fc->reach[k].hi[2],
                  shape_name[fc->shape < TESS_SHAPE_COUNT ? fc->shape : 0], sign[h[0] + 1],
                  sign[h[1] + 1], sign[h[2] + 1], fc->out_name[j],
                  wrap(r->origin[0] + cell[0], r->global[0]),
                  wrap(r->origin[1] + cell[1], r->global[1]),
                  wrap(r->origin[2] + cell[2], r->global[2]));
          abort();
        }
      }
    }
  }
  free(copy);
  free(mask);
  for (int j = 0; j < r->nout; j++)
    free(scratch[j]);
}

/* region.h — small checks on a tess_region shared by the codelets (C and CUDA): whether it is
 * empty, whether its stencil stays inside the padded tile, and the CUDA block shape for rows
 * of a given width. */
#ifndef TESS_REGION_H
#define TESS_REGION_H

#include "tessera_kernel.h"

/* Nothing to update (some axis has hi <= lo): callers return without launching anything. */
static inline int tess_region_empty(const tess_region *r) {
  for (int i = 0; i < 3; i++)
    if (r->hi[i] <= r->lo[i]) return 1;
  return 0;
}

/* The region plus a stencil of `radius` on every active axis (dim > 1) lies inside the padded
 * tile. False means the runtime derived too small a ghost width or a wrong region: the kernel
 * would read someone else's memory. */
static inline int tess_region_fits(const tess_region *r, int radius) {
  for (int i = 0; i < 3; i++) {
    const int reach = r->dim[i] > 1 ? radius : 0;
    if (r->lo[i] - reach < 0 || r->hi[i] + reach > r->dim[i]) return 0;
  }
  return 1;
}

/* CUDA: 128 threads per block with x fastest; rows narrower than 128 (the thin x slabs of
 * outer segments) get narrower blocks stacked in y rather than mostly idle lanes. */
static inline unsigned tess_row_block_x(int n0) { return n0 > 64 ? 128u : n0 > 32 ? 64u : 32u; }

#endif

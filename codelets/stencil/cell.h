/* cell.h — per pass (no include guard: passes.h includes it once per element type): placing a
 * cell, stepping it along x, moving it along an axis, and a two-level kernel's composed cell. */

/* The cell at padded tile coordinates (x, y, z). Unused field slots stay NULL. */
TESS_HD tess_cell TESS_FN(tess_cell_at)(const tess_stencil_plan *p, long long x, long long y,
                                        long long z) {
  tess_cell c = {{0}, {0}, p, TESS_PLAN_K(p), (int)x, (int)y, (int)z};
  for (int f = 0; f < TESS_MAX_IO; f++) { /* each field its own strides (component counts) */
    if (f < p->nin) c.in[f] = (const real *)p->in[f] + x + y * p->ipos[f][1] + z * p->ipos[f][2];
    if (f < p->nout) c.out[f] = (real *)p->out[f] + x + y * p->opos[f][1] + z * p->opos[f][2];
  }
#ifdef __CUDACC__ /* nothing staged: every read from device memory */
  c.nc = p->nc, c.nin = p->nin, c.nw = 0, c.qr = 0, c.qb = 0, c.q = NULL;
  c.pl = c.plm = c.plp = NULL, c.wp = c.fs = 0, c.xr = c.yr = NULL, c.ys = 0;
  c.act = p->active[0] | p->active[1] << 1 | p->active[2] << 2;
  c.wr = 0, c.os = p->sc;
#endif
  return c;
}

#ifndef __CUDACC__
/* After a CPU sweep's row (y, z): the periodic images of its output cells along the axes
 * p->images (tess_region.images), copied from the row while it is in cache. Along x the owned
 * cells within g of an end, [g, 2g) and [n, n + g), go n across; the row goes to its images
 * along y, z and both, each with its x images. */
TESS_HD void TESS_FN(tess_row_images)(const tess_stencil_plan *p, int y, int z) {
  const int im = p->images, g = p->ghost[0], n = p->dim[0] - 2 * g;
  const int dy = im & 2 ? tess_image_shift(y, p->ghost[1], p->dim[1]) : 0;
  const int dz = im & 4 ? tess_image_shift(z, p->ghost[2], p->dim[2]) : 0;
  const int x0 = p->lo[0], x1 = x0 + p->n[0];
  const int a0 = x0 > g ? x0 : g, a1 = im & 1 ? (x1 < 2 * g ? x1 : 2 * g) : a0;
  const int b0 = x0 > n ? x0 : n, b1 = im & 1 ? (x1 < n + g ? x1 : n + g) : b0;
  for (int o = 0; o < p->nout; o++) {
    const long long sy = p->opos[o][1], sz = p->opos[o][2], nc = sy / p->dim[0];
    for (long long c = 0; c < nc; c++) {
      real *row = (real *)p->out[o] + z * sz + y * sy + c * p->dim[0];
      for (int m = 0; m < 4; m++) { /* the row itself, then its images along y, z, both */
        if (((m & 1) && !dy) || ((m & 2) && !dz)) continue;
        real *to = row + (m & 1 ? dy * sy : 0) + (m & 2 ? dz * sz : 0);
        if (m)
          for (int x = x0; x < x1; x++)
            to[x] = row[x];
        for (int x = a0; x < a1; x++)
          to[x + n] = row[x];
        for (int x = b0; x < b1; x++)
          to[x - n] = row[x];
      }
    }
  }
}
#endif

#ifdef __CUDACC__
/* A device-memory read at offset (dx, dy, dz) from the cell; with c->wr at the periodic image
 * of that point (tess_region.wrap: a lone tile's ghost layers are not current). The pointers
 * stay at the cell unwrapped, so the offset to the image is taken relative to the cell. */
TESS_HD real TESS_FN(tess_mem)(const tess_cell *c, int f, int comp, int dx, int dy, int dz) {
  if (c->wr) {
    const tess_stencil_plan *p = c->p;
    if (p->active[0]) dx = tess_wrap(c->cx + dx, p->ghost[0], p->dim[0]) - c->cx;
    if (p->active[1]) dy = tess_wrap(c->cy + dy, p->ghost[1], p->dim[1]) - c->cy;
    if (p->active[2]) dz = tess_wrap(c->cz + dz, p->ghost[2], p->dim[2]) - c->cz;
  }
  return TESS_IN_MEM(c, f, comp, dx, dy, dz);
}

/* TESS_AX on the GPU: a staged input's offsets along z (and the cell itself) come from the
 * registers q or the planes pl, its offsets along x and y from registers xr, yr (loaded once
 * for a thread's cells: its column along y, its rows or pairs along x) or the cell's plane; the
 * rest from device memory. The same values either way, so the arithmetic and its bits do not
 * change. */
TESS_HD real TESS_FN(tess_ax)(const tess_cell *c, int f, int comp, int a, int k) {
  if (f < c->nw) {
    const int i = f * c->nc + comp;
    if (c->xr && i == 0 && a < 2) return a == 0 ? c->xr[k] : c->yr[k * c->ys];
    if (a == 2 || k == 0)
      return c->q ? c->q[i * (2 * c->qr + 1) + (c->qb + c->qr + k) % (2 * c->qr + 1)]
                  : (k == 0  ? c->pl
                     : k < 0 ? c->plm
                             : c->plp)[i * c->fs];
    return c->pl[i * c->fs + (a == 0 ? k : k * c->wp)];
  }
  if (c->wr) return TESS_FN(tess_mem)(c, f, comp, a == 0 ? k : 0, a == 1 ? k : 0, a == 2 ? k : 0);
  return TESS_AX_MEM(c, f, comp, a, k);
}

/* TESS_IN on the GPU: staged along z or in the cell's plane, device memory otherwise. */
TESS_HD real TESS_FN(tess_in)(const tess_cell *c, int f, int comp, int dx, int dy, int dz) {
  if (f < c->nw && dx == 0 && dy == 0) return TESS_FN(tess_ax)(c, f, comp, 2, dz);
  if (f < c->nw && dz == 0) return c->pl[(f * c->nc + comp) * c->fs + dx + dy * c->wp];
  return TESS_FN(tess_mem)(c, f, comp, dx, dy, dz);
}
#endif

/* The inputs of c seen from s steps along axis a (a stencil offset: none on inactive axes). */
TESS_HD tess_cell TESS_FN(tess_cell_shift)(const tess_cell *c, int a, int s) {
  tess_cell d = *c;
  for (int f = 0; f < TESS_MAX_IO; f++)
    if (f < c->p->nin) d.in[f] += s * c->p->ist[f][a];
  /* the coordinates follow (TESS_GLOBAL; tess_mem wraps active axes only) */
  d.cx += a == 0 ? s : 0, d.cy += a == 1 ? s : 0, d.cz += a == 2 ? s : 0;
  return d;
}

#ifndef TESS_MID_UNROLL
#define TESS_MID_UNROLL TESS_UNROLL
#endif

/* Two-level kernels (TESS_STENCIL2): m[0] = inner at the cell, m[1 + 2a] / m[2 + 2a] = inner at
 * +e_a / -e_a for the active axes a (left unset on inactive ones). The CUDA z-march reads the
 * same values from shared memory instead of recomputing them. (clang-format would fold the loop
 * behind TESS_MID_UNROLL into one line.) */
// clang-format off
#define TESS_MID_AT(c, inner, m)                                                                   \
  do {                                                                                             \
    (m)[0] = inner(c);                                                                             \
    TESS_MID_UNROLL /* m stays in registers (its index a constant) */                              \
    for (int a_ = 0; a_ < 3; a_++)                                                                 \
      if (TESS_ACTIVE(c, a_)) {                                                                    \
        const tess_cell cp_ = TESS_FN(tess_cell_shift)(c, a_, 1);                                  \
        const tess_cell cm_ = TESS_FN(tess_cell_shift)(c, a_, -1);                                 \
        (m)[1 + 2 * a_] = inner(&cp_);                                                             \
        (m)[2 + 2 * a_] = inner(&cm_);                                                             \
      }                                                                                            \
  } while (0)
// clang-format on

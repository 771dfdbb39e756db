/* cell.h — per pass (no include guard: passes.h includes it once per element type): placing a
 * cell, stepping it along x, moving it along an axis, and a two-level kernel's composed cell. */

/* The cell at padded tile coordinates (x, y, z). Unused field slots stay NULL. */
TESS_HD tess_cell TESS_FN(tess_cell_at)(const tess_stencil_plan *p, long long x, long long y,
                                        long long z) {
  tess_cell c = {{0}, {0}, p, TESS_PLAN_K(p)};
  const long long i = x + y * p->pos[1] + z * p->pos[2];
  for (int f = 0; f < TESS_MAX_IO; f++) {
    if (f < p->nin) c.in[f] = (const real *)p->in[f] + i;
    if (f < p->nout) c.out[f] = (real *)p->out[f] + i;
  }
  return c;
}

/* The next cell along x (every field has x stride 1). */
TESS_HD void TESS_FN(tess_cell_next)(tess_cell *c) {
  for (int f = 0; f < TESS_MAX_IO; f++) {
    if (c->in[f]) c->in[f]++;
    if (c->out[f]) c->out[f]++;
  }
}

/* The inputs of c seen from s steps along axis a (a stencil offset: none on inactive axes). */
TESS_HD tess_cell TESS_FN(tess_cell_shift)(const tess_cell *c, int a, int s) {
  tess_cell d = *c;
  for (int f = 0; f < TESS_MAX_IO; f++)
    if (f < c->p->nin) d.in[f] += s * c->p->st[a];
  return d;
}

/* Two-level kernels (TESS_STENCIL2): m[0] = inner at the cell, m[1 + 2a] / m[2 + 2a] = inner at
 * +e_a / -e_a for the active axes a (left unset on inactive ones). The CUDA z-march reads the
 * same values from shared memory instead of recomputing them. */
#define TESS_MID_AT(c, inner, m)                                                                   \
  do {                                                                                             \
    (m)[0] = inner(c);                                                                             \
    for (int a_ = 0; a_ < 3; a_++)                                                                 \
      if (TESS_ACTIVE(c, a_)) {                                                                    \
        const tess_cell cp_ = TESS_FN(tess_cell_shift)(c, a_, 1);                                  \
        const tess_cell cm_ = TESS_FN(tess_cell_shift)(c, a_, -1);                                 \
        (m)[1 + 2 * a_] = inner(&cp_);                                                             \
        (m)[2 + 2 * a_] = inner(&cm_);                                                             \
      }                                                                                            \
  } while (0)

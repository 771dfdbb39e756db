/* stencil.c — the host side every stencil kernel shares: the checks of a region against the
 * kernel's spec, the plan (strides, pointers, constants in double and rounded once to float)
 * and the one error path. See stencil.h. */
#include "stencil.h"

#include <stdio.h>
#include <stdlib.h>

#include "region.h"

void tess_stencil_fail(const char *kernel, const char *file, int line, const char *msg) {
  fprintf(stderr, "%s:%d: %s kernel: %s\n", file, line, kernel, msg);
  abort();
}

int tess_stencil_plan_make(const tess_stencil_spec *s, const tess_region *r, tess_stencil_plan *p) {
  if (tess_region_empty(r)) return 0;
  const char *n = s->name;
  TESS_STENCIL_REQUIRE(n, r->nin >= s->nin_min && r->nin <= s->nin_max,
                       "wrong number of input fields for this kernel");
  TESS_STENCIL_REQUIRE(n, r->nout == s->nout, "wrong number of output fields for this kernel");
  TESS_STENCIL_REQUIRE(n, r->nin + r->nout > 0, "no fields");
  const int nc = s->nc ? s->nc : r->nin ? r->in_nc[0] : r->out_nc[0];
  for (int f = 0; f < r->nin; f++) {
    TESS_STENCIL_REQUIRE(n, r->in[f] != NULL, "missing input array");
    TESS_STENCIL_REQUIRE(n, r->in_nc[f] == nc, "an input field has the wrong number of components");
    for (int o = 0; o < r->nout; o++) /* outputs are written while inputs are read around them */
      TESS_STENCIL_REQUIRE(n, (const void *)r->in[f] != (const void *)r->out[o],
                           "an output aliases an input");
  }
  for (int o = 0; o < r->nout; o++) {
    TESS_STENCIL_REQUIRE(n, r->out[o] != NULL, "missing output array");
    TESS_STENCIL_REQUIRE(n, r->out_nc[o] == nc,
                         "an output field has the wrong number of components");
  }
  TESS_STENCIL_REQUIRE(n, r->params != NULL || !s->consts, "missing the stage's params block");
  TESS_STENCIL_REQUIRE(n, tess_region_fits(r, s->radius),
                       "region plus stencil radius leaves the padded tile");

  *p = (tess_stencil_plan){
      .nin = r->nin, .nout = r->nout, .nc = nc, .sc = r->dim[0], .prec = r->prec};
  for (int a = 0; a < 3; a++) {
    p->lo[a] = r->lo[a];
    p->n[a] = r->hi[a] - r->lo[a];
    p->active[a] = r->dim[a] > 1;
    p->dim[a] = r->dim[a];
    p->ghost[a] = r->ghost[a];
  }
  p->wrap = r->wrap != 0;
  p->pos[0] = 1; /* [Z][Y][nc][X] */
  p->pos[1] = (long long)r->dim[0] * nc;
  p->pos[2] = p->pos[1] * r->dim[1];
  for (int a = 0; a < 3; a++)
    p->st[a] = p->active[a] ? p->pos[a] : 0;
  for (int f = 0; f < r->nin; f++)
    p->in[f] = r->in[f];
  for (int o = 0; o < r->nout; o++)
    p->out[o] = r->out[o];
  if (s->consts) s->consts(r, p->k);
  for (int i = 0; i < TESS_STENCIL_MAXK; i++)
    p->kf[i] = (float)p->k[i];
  return 1;
}

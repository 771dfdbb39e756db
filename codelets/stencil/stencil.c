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
  /* Components: a field the spec lists has its count; the others s->nc, or when that is 0
   * all alike (the first of them sets it). */
  int any = s->nc;
  for (int f = 0; f < r->nin + r->nout && !any; f++) {
    const int in = f < r->nin, i = in ? f : f - r->nin;
    if (!(in ? s->in_nc[i] : s->out_nc[i])) any = in ? r->in_nc[i] : r->out_nc[i];
  }
  int nc = -1; /* the count every field has, 0 once two differ */
  for (int f = 0; f < r->nin + r->nout; f++) {
    const int in = f < r->nin, i = in ? f : f - r->nin;
    const int want = in ? (s->in_nc[i] ? s->in_nc[i] : any) : (s->out_nc[i] ? s->out_nc[i] : any);
    const int have = in ? r->in_nc[i] : r->out_nc[i];
    TESS_STENCIL_REQUIRE(n, have == want,
                         in ? "an input field has the wrong number of components"
                            : "an output field has the wrong number of components");
    nc = nc < 0 || nc == have ? have : 0;
  }
  for (int f = 0; f < r->nin; f++) {
    TESS_STENCIL_REQUIRE(n, r->in[f] != NULL, "missing input array");
    for (int o = 0; o < r->nout; o++) /* outputs are written while inputs are read around them */
      TESS_STENCIL_REQUIRE(n, (const void *)r->in[f] != (const void *)r->out[o],
                           "an output aliases an input");
  }
  for (int o = 0; o < r->nout; o++)
    TESS_STENCIL_REQUIRE(n, r->out[o] != NULL, "missing output array");
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
  p->images = r->images;
  p->reads_out = r->out_read & 1;
  p->nwall = r->nwalls;
  for (int i = 0; i < r->nwalls; i++)
    p->wall[i] = r->wall[i];
  /* [Z][Y][nc][X]: x stride 1, y stride X nc, z stride X Y nc, per field */
  const long long X = r->dim[0], Y = r->dim[1];
  for (int f = 0; f < TESS_MAX_IO; f++) {
    const long long ni = f < r->nin ? r->in_nc[f] : 0, no = f < r->nout ? r->out_nc[f] : 0;
    const long long pi[3] = {1, X * ni, X * ni * Y};
    for (int a = 0; a < 3; a++) {
      p->ipos[f][a] = pi[a];
      p->ist[f][a] = p->active[a] ? pi[a] : 0;
    }
    p->opos[f][0] = 1, p->opos[f][1] = X * no, p->opos[f][2] = X * no * Y;
  }
  const int f0 = r->nin ? 0 : -1; /* field 0's layout: input 0, or output 0 without inputs */
  for (int a = 0; a < 3; a++) {
    p->pos[a] = f0 == 0 ? p->ipos[0][a] : p->opos[0][a];
    p->st[a] = p->active[a] ? p->pos[a] : 0;
    p->origin[a] = r->origin[a];
    p->global[a] = r->global[a];
    p->h[a] = r->h[a];
  }
  for (int f = 0; f < r->nin; f++)
    p->in[f] = r->in[f];
  for (int o = 0; o < r->nout; o++)
    p->out[o] = r->out[o];
  if (s->consts) s->consts(r, p->k);
  for (int i = 0; i < TESS_STENCIL_MAXK; i++)
    p->kf[i] = (float)p->k[i];
  return 1;
}

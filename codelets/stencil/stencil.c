/* stencil.c — the host side every stencil kernel shares: the checks of a region against the
 * kernel's spec, the plan (strides, pointers, constants in double and rounded once to float)
 * and the one error path. See stencil.h. */
#include "stencil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void tess_stencil_row_images(const tess_stencil_plan *p, int y, int z) {
  const int im = p->images;
  const int dy = im & 2 ? tess_image_shift(y, p->ghost[1], p->dim[1]) : 0;
  const int dz = im & 4 ? tess_image_shift(z, p->ghost[2], p->dim[2]) : 0;
  const int g = p->ghost[0], n = p->dim[0] - 2 * g, x0 = p->lo[0], x1 = x0 + p->n[0];
  /* x images: owned cells within g of an end, [g, 2g) and [n, n + g), clipped to the row */
  const int a0 = x0 > g ? x0 : g, a1 = x1 < 2 * g ? x1 : 2 * g;
  const int b0 = x0 > n ? x0 : n, b1 = x1 < n + g ? x1 : n + g;
  const size_t es = p->prec == TESS_FP32 ? sizeof(float) : sizeof(double);
  for (int o = 0; o < p->nout; o++) {
    const long long X = p->dim[0], nc = p->opos[o][1] / X;
    for (long long c = 0; c < nc; c++) {
      char *row = (char *)p->out[o] + es * (size_t)(z * p->opos[o][2] + y * p->opos[o][1] + c * X);
      for (int m = 0; m < 4; m++) { /* the row itself, then its images along y, z, both */
        if (((m & 1) && !dy) || ((m & 2) && !dz)) continue;
        char *to = row + es * (size_t)((m & 1 ? dy * p->opos[o][1] : 0) +
                                       (m & 2 ? dz * p->opos[o][2] : 0));
        if (m) memcpy(to + es * (size_t)x0, row + es * (size_t)x0, es * (size_t)(x1 - x0));
        if (!(im & 1)) continue;
        if (a1 > a0)
          memcpy(to + es * (size_t)(a0 + n), row + es * (size_t)a0, es * (size_t)(a1 - a0));
        if (b1 > b0)
          memcpy(to + es * (size_t)(b0 - n), row + es * (size_t)b0, es * (size_t)(b1 - b0));
      }
    }
  }
}

/* skel.c — the skeleton kernel's CPU side and record (the stencil layer builds them from
 * skel_cell.h); the constants in double, once per task. */
#include "skel.h"

#include "stencil/stencil.h"

static void skel_consts(const tess_region *r, double *k) {
  k[SKEL_DT] = ((const skel_params *)r->params)->dt;
  for (int a = 0; a < 3; a++)
    k[SKEL_IH2 + a] = 1.0 / (r->h[a] * r->h[a]);
}

#define TESS_STENCIL_SOURCE "skel_cell.h"
#include "stencil/cpu.h"

/* rd2.c — the bench's reaction–diffusion kernel through the stencil layer (rd2_cell.h). */
#include "rd2.h"

#include "stencil/stencil.h"

static void rd2_consts(const tess_region *r, double *k) {
  const rd2_params *p = r->params;
  k[RD2_DT] = p->dt, k[RD2_DU] = p->Du, k[RD2_DV] = p->Dv, k[RD2_F] = p->F;
  k[RD2_FK] = p->F + p->k;
  k[RD2_IH2] = 1.0 / (r->h[0] * r->h[0]);
}

#define TESS_STENCIL_SOURCE "rd2_cell.h"
#include "stencil/cpu.h"

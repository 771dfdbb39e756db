/* rd2.h — the bench's two-component reaction–diffusion kernel (rd2_cell.h): params and slots. */
#ifndef BENCH_RD2_H
#define BENCH_RD2_H

#include "tessera_kernel.h"

typedef struct {
  double dt, Du, Dv, F, k;
} rd2_params;

enum { RD2_DT, RD2_DU, RD2_DV, RD2_F, RD2_FK, RD2_IH2 };

extern const tess_kernel tess_rd2_kernel;

#endif

/* fpcheck.h — the footprint check of a stage's kernel on one box (fpcheck.c; internal). */
#ifndef TESS_FPCHECK_H
#define TESS_FPCHECK_H

#include "tessera_kernel.h"

#define TESS_FPCHECK_NAME 32

/* What the check needs besides the region: the declared reach of each input, names. */
typedef struct {
  tess_shape shape; /* the kernel's: which offsets inside each reach it reads */
  tess_reach reach[TESS_MAX_IO];
  char kernel[TESS_FPCHECK_NAME];
  char in_name[TESS_MAX_IO][TESS_FPCHECK_NAME], out_name[TESS_MAX_IO][TESS_FPCHECK_NAME];
} tess_fpcheck;

/* Runs fn on r again with undeclared cells of each input poisoned; on a difference in r's box,
 * names the stage, input and direction on stderr and aborts. r's box must be computed already. */
void tess_fpcheck_box(const tess_region *r, tess_cpu_fn fn, const tess_fpcheck *fc);

#endif

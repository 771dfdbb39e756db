/* rd2_cuda.cu — the bench kernel's CUDA side (rd2_cell.h through the stencil layer): a CUDA build
 * of Tessera links every kernel's GPU entry, so a CPU-only bench kernel needs it too. */
#define TESS_STENCIL_SOURCE "rd2_cell.h"
#include "stencil/cuda.cuh"

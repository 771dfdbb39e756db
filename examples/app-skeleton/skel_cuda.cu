/* skel_cuda.cu — the skeleton kernel's GPU side: skel_cell.h through the stencil layer. */
#define TESS_STENCIL_SOURCE "skel_cell.h"
#include "stencil/cuda.cuh"

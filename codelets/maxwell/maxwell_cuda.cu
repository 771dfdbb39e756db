/* maxwell_cuda.cu — the Maxwell kernel on the GPU: maxwell_cell.h through the stencil layer. */
#define TESS_STENCIL_SOURCE "maxwell_cell.h"
#include "stencil/cuda.cuh"

/* heat_cuda.cu — the heat kernels on the GPU: heat_cell.h through the stencil layer. */
#define TESS_STENCIL_SOURCE "heat_cell.h"
#include "stencil/cuda.cuh"

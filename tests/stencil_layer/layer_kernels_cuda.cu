/* layer_kernels_cuda.cu — the test kernels of layer_cell.h on the GPU (built, not run here: the
 * per-cell path is what kernels of mixed component counts take). */
#define TESS_STENCIL_SOURCE "layer_cell.h"
#include "stencil/cuda.cuh"

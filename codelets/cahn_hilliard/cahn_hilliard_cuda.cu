/* cahn_hilliard_cuda.cu — the Cahn–Hilliard kernels on the GPU: ch_cell.h through the stencil
 * layer (ch_fused in 3D z-marches with mu planes in shared memory, stencil/cuda.cuh). */
#define TESS_STENCIL_SOURCE "ch_cell.h"
#include "stencil/cuda.cuh"

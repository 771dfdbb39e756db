/* host_kernels.c — host_cell.h's kernel, built from CPU sources only (tessera_add_kernel with no
 * CUDA files). */
#include "stencil/stencil.h"

#define TESS_STENCIL_SOURCE "host_cell.h"
#include "stencil/cpu.h"

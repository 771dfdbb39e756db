/* layer_kernels.c — the test kernels of layer_cell.h on the CPU (and their records). */
#include "stencil/stencil.h"

#define TESS_STENCIL_SOURCE "layer_cell.h"
#include "stencil/cpu.h"

/* passes.h — compiles the cell source TESS_STENCIL_SOURCE twice, `real` = double then float.
 *
 * Included once by cpu.h or cuda.cuh after they define TESS_HD (how a cell function is
 * declared), TESS_STENCIL and TESS_STENCIL2 (what a kernel line expands to). In each pass:
 *   real          the element type
 *   tess_cell     tess_cell_f64 / tess_cell_f32
 *   TESS_FN(n)    n_f64 / n_f32: the pass's own name for a cell function or helper
 *   TESS_PUB(n)   n / n_f32: the public name (tess_heat6_cpu, tess_heat6_cpu_f32)
 */
#define TESS_CAT_(a, b) a##b
#define TESS_CAT(a, b)  TESS_CAT_(a, b)
#define TESS_FN(n)      TESS_CAT(n, TESS_SFX)
#define TESS_PUB(n)     TESS_CAT(n, TESS_PUB_SFX)

#define real           double
#define tess_cell      tess_cell_f64
#define TESS_SFX       _f64
#define TESS_PUB_SFX   /* none: the double versions keep the plain names */
#define TESS_PLAN_K(p) ((p)->k)
#define TESS_PASS_LAST 0
#include "stencil/cell.h"
#include TESS_STENCIL_SOURCE
#undef real
#undef tess_cell
#undef TESS_SFX
#undef TESS_PUB_SFX
#undef TESS_PLAN_K
#undef TESS_PASS_LAST

#define real           float
#define tess_cell      tess_cell_f32
#define TESS_SFX       _f32
#define TESS_PUB_SFX   _f32
#define TESS_PLAN_K(p) ((p)->kf)
#define TESS_PASS_LAST 1
#include "stencil/cell.h"
#include TESS_STENCIL_SOURCE

/* hdiff_cells.h — the cell expressions of hdiff_cell.h for double (names ending _f64) and float
 * (_f32). The includer defines HD_QUAL, HD_ADD, HD_SUB and HD_MUL (see hdiff_cell.h). */
#define HD_T        double
#define HD_FN(name) name##_f64
#include "hdiff_cell.h"
#undef HD_T
#undef HD_FN
#define HD_T        float
#define HD_FN(name) name##_f32
#include "hdiff_cell.h"
#undef HD_T
#undef HD_FN

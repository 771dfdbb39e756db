/* hand.c — the bench's hand-written loops (hand.h) in double and float, built with the same
 * flags as the layer's kernels (tessera_add_kernel: -O3 -ffp-contract=off). */
#include "hand.h"

#define real    double
#define HAND(n) hand_##n##_f64
#include "hand_loops.h"
#undef real
#undef HAND

#define real    float
#define HAND(n) hand_##n##_f32
#include "hand_loops.h"

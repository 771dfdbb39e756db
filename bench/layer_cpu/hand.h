/* hand.h — the bench's hand-written loops (hand_loops.h), double (_f64) and float (_f32). */
#ifndef BENCH_HAND_H
#define BENCH_HAND_H

#define HAND_DECL(real, s)                                                                         \
  void hand_heat_##s(const real *u, real *o, int n, int g, int R, const real *k);                  \
  void hand_ch_##s(const real *u, real *o, int n, int g, const real *k);                           \
  void hand_maxwell_##s(const real *u, real *o, int n, int g, const real *k);                      \
  void hand_rd2_##s(const real *u, real *o, int n, int g, const real *k);
HAND_DECL(double, f64)
HAND_DECL(float, f32)

#endif

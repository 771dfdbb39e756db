/* noise.h — reproducible pseudo-random numbers for initial states: a pure function of what is
 * hashed (a global cell index, a seed, a component), so every decomposition and every rank
 * count fills the same values. The mix is splitmix64's finaliser (a bijection of 64 bits).
 */
#ifndef TESS_APPS_NOISE_H
#define TESS_APPS_NOISE_H

#include <stdint.h>

static inline uint64_t tess_noise_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* The top 53 bits of tess_noise_mix(x) as a double in [0, 1). */
static inline double tess_noise_unit(uint64_t x) {
  return (double)(tess_noise_mix(x) >> 11) * 0x1.0p-53;
}

#endif

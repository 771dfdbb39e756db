/* config_fixture.h — the "app variables" both configuration tests parse into (test_config.c,
 * fuzz_config.c), with their defaults. Each test keeps its own option table over them.
 * out holds at most 31 characters: test_config.c asserts that limit. */
#ifndef TESS_CONFIG_FIXTURE_H
#define TESS_CONFIG_FIXTURE_H

#include <string.h>

static struct vars {
  int steps, nx, n[3], check;
  long seed;
  double nu, cs0, h[3];
  char mode[16], out[32];
} v;

static void defaults(void) {
  memset(&v, 0, sizeof v);
  v.steps = 100;
  v.nx = 64;
  v.n[0] = v.n[1] = v.n[2] = 32;
  v.seed = 1;
  v.nu = 5e-3;
  v.cs0 = 1;
  v.h[0] = v.h[1] = v.h[2] = 0.1;
  strcpy(v.mode, "overlap");
  strcpy(v.out, "out");
}

#endif

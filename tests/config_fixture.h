/* config_fixture.h — the "app variables" both configuration tests parse into (test_config.c,
 * fuzz_config.c), their defaults, and the option table over them (test_config.c asserts its
 * messages and help text; fuzz_config.c adds one option with open bounds on both sides).
 * out holds at most 31 characters: test_config.c asserts that limit. */
#ifndef TESS_CONFIG_FIXTURE_H
#define TESS_CONFIG_FIXTURE_H

#include <math.h>
#include <string.h>

#include "tessera_config.h"

static struct vars {
  int steps, nx, n[3], check;
  long seed;
  double nu, cs0, mu0, h[3];
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
  v.mu0 = 1.4;
  v.h[0] = v.h[1] = v.h[2] = 0.1;
  strcpy(v.mode, "overlap");
  strcpy(v.out, "out");
}

static const tess_opt fixture_opts[] = {
    {.key = "run.steps",
     .type = TESS_OPT_INT,
     .ptr = &v.steps,
     .flag = "steps",
     .help = "time steps",
     .min = 0,
     .max = HUGE_VAL},
    {.key = "run.seed",
     .type = TESS_OPT_LONG,
     .ptr = &v.seed,
     .flag = "seed",
     .help = "random seed"},
    {.key = "grid.nx",
     .type = TESS_OPT_INT,
     .ptr = &v.nx,
     .flag = "nx",
     .help = "cells in x",
     .min = 1,
     .max = 1000000},
    {.key = "grid.n",
     .type = TESS_OPT_INTS3,
     .ptr = v.n,
     .flag = "grid",
     .help = "cells",
     .min = 1,
     .max = 4096},
    {.key = "grid.h",
     .type = TESS_OPT_DOUBLES3,
     .ptr = v.h,
     .help = "spacing",
     .min = 0,
     .max = HUGE_VAL,
     .open = TESS_OPT_OPEN_MIN},
    {.key = "physics.nu", .type = TESS_OPT_DOUBLE, .ptr = &v.nu, .flag = "nu", .help = "viscosity"},
    {.key = "physics.cs0",
     .type = TESS_OPT_DOUBLE,
     .ptr = &v.cs0,
     .flag = "cs0",
     .help = "sound speed",
     .min = 0,
     .max = HUGE_VAL,
     .open = TESS_OPT_OPEN_MIN},
    {.key = "runtime.mode",
     .type = TESS_OPT_STRING,
     .ptr = v.mode,
     .size = sizeof v.mode,
     .flag = "mode",
     .help = "schedule",
     .choices = "overlap|bulk"},
    {.key = "io.out",
     .type = TESS_OPT_STRING,
     .ptr = v.out,
     .size = sizeof v.out,
     .flag = "out",
     .help = "output directory"},
    {.key = "io.check",
     .type = TESS_OPT_BOOL,
     .ptr = &v.check,
     .flag = "check",
     .help = "check the result"},
};

#endif

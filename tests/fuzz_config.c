/* fuzz_config — libFuzzer target for the configuration parser (runtime/settings/config.c).
 *
 * Every input is fed, each time to a fresh configuration over one fixed option table, as
 *   1. INI text (tess_config_parse_string, up to the first NUL),
 *   2. an INI file holding the bytes as they are (NULs included; tess_config_parse_file),
 *   3. a command line, one argument per line (tess_config_parse; --config is left out so that
 *      the fuzzer cannot make it read /dev/stdin or other files of the machine),
 *   4. --set arguments, one "section.key=value" per line,
 *   5. an environment, one NAME=value per line (tess_config_parse_env).
 * After each: no crash, no leak, no undefined behaviour (ASan, LSan, UBSan abort the run), a
 * message iff an error and the message one line of printable text, and the values reached
 * (after success or failure) written with tess_config_to_string and parsed back into a fresh
 * configuration give the same values bit for bit.
 *
 * Build (tests/CMakeLists.txt does this when clang can link -fsanitize=fuzzer):
 *   clang -fsanitize=fuzzer,address,undefined fuzz_config.c config.c -linih -lm
 * Run: fuzz_config -max_total_time=20 CORPUS_DIR tests/fuzz/config
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config_fixture.h"
#include "tessera_config.h"

/* struct vars v, defaults() and fixture_opts: config_fixture.h */

/* fixture_opts (config_fixture.h), plus an interval open at both ends */
static const tess_opt extra[] = {
    {.key = "physics.mu0",
     .type = TESS_OPT_DOUBLE,
     .ptr = &v.mu0,
     .flag = "mu0",
     .help = "permeability",
     .min = 0,
     .max = 10,
     .open = TESS_OPT_OPEN_MIN | TESS_OPT_OPEN_MAX},
};

static FILE *devnull;
static char ini_path[64];

static tess_config_t make(void) {
  tess_config_t cfg = NULL;
  if (tess_config_create("fuzz", &cfg) ||
      tess_config_add(cfg, fixture_opts, sizeof fixture_opts / sizeof *fixture_opts) ||
      tess_config_add(cfg, extra, sizeof extra / sizeof *extra))
    abort();
  tess_config_set_output(cfg, devnull); /* --help and --print-config run, quietly */
  return cfg;
}

static int same(const struct vars *a, const struct vars *b) {
  return a->steps == b->steps && a->nx == b->nx && a->check == b->check && a->seed == b->seed &&
         !memcmp(a->n, b->n, sizeof a->n) && !memcmp(&a->nu, &b->nu, sizeof a->nu) &&
         !memcmp(&a->cs0, &b->cs0, sizeof a->cs0) && !memcmp(&a->mu0, &b->mu0, sizeof a->mu0) &&
         !memcmp(a->h, b->h, sizeof a->h) && !strcmp(a->mode, b->mode) && !strcmp(a->out, b->out);
}

/* The invariants, after one parse of cfg that returned rc. */
static void check(tess_config_t cfg, tess_err rc) {
  const char *m = tess_config_error(cfg);
  if ((rc == TESS_OK) != (m[0] == 0)) {
    fprintf(stderr, "return code %d but message \"%s\"\n", (int)rc, m);
    abort();
  }
  for (const char *c = m; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) {
      fprintf(stderr, "control character in message \"%s\"\n", m);
      abort();
    }
  char *text = tess_config_to_string(cfg);
  if (!text) abort();
  const struct vars reached = v;
  defaults();
  tess_config_t back = make();
  if (tess_config_parse_string(back, text, "written") != TESS_OK || !same(&reached, &v)) {
    fprintf(stderr, "round trip failed: %s\n--- written:\n%s", tess_config_error(back), text);
    abort();
  }
  tess_config_destroy(&back);
  free(text);
}

/* Splits buf at newlines into args[1..] (args[0] = "fuzz"), each line after `prefix` when
 * there is one; returns argc, or 0 when a line would make the command-line parser read a
 * file. args is NULL-terminated either way. */
enum { MAX_ARGS = 64 };
static char *args[2 * MAX_ARGS + 2];
static int split(char *buf, char *prefix, int cmdline) {
  int n = 1;
  args[0] = "fuzz";
  args[1] = NULL;
  for (char *p = buf; p && n < 2 * MAX_ARGS;) {
    char *next = strchr(p, '\n');
    if (next) *next++ = 0;
    if (cmdline && !strncmp(p, "--config", 8)) return 0;
    if (prefix) args[n++] = prefix;
    args[n++] = p;
    p = next;
  }
  args[n] = NULL;
  return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!devnull) {
    devnull = fopen("/dev/null", "w");
    snprintf(ini_path, sizeof ini_path, "/tmp/fuzz_config.%ld.ini", (long)getpid());
  }
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  tess_config_t cfg;
  for (int mode = 0; mode < 5; mode++) {
    memcpy(buf, data, size);
    buf[size] = 0;
    defaults();
    cfg = make();
    tess_err rc = TESS_OK;
    int argc = mode >= 2 ? split(buf, mode == 3 ? "--set" : NULL, mode != 4) : 1, exit_now = 0;
    if (mode == 0) { /* INI text */
      rc = tess_config_parse_string(cfg, buf, "fuzz.ini");
    } else if (mode == 1) { /* the same bytes as a file, NULs included */
      FILE *f = fopen(ini_path, "wb");
      if (!f || fwrite(data, 1, size, f) != size || fclose(f)) abort();
      rc = tess_config_parse_file(cfg, ini_path);
      unlink(ini_path);
    } else if (mode == 4) { /* an environment */
      rc = tess_config_parse_env(cfg, args);
    } else if (argc) { /* a command line, or --set arguments */
      rc = tess_config_parse(cfg, argc, args, &exit_now);
      if (exit_now && rc) abort();
    }
    check(cfg, rc);
    tess_config_destroy(&cfg);
  }
  free(buf);
  return 0;
}

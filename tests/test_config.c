/* test_config — the configuration layer (runtime/settings/config.c) alone, without MPI or StarPU:
 * precedence defaults < environment < files < command line, every user-facing message (with
 * file:line), strict value parsing and ranges, the write -> parse round trip bit for bit,
 * atomic saves, --help and --print-config. Returns 0 when every check passes, 1 otherwise. */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_fixture.h"
#include "tessera_config.h"

static int failures = 0;
#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL line %d: %s\n", __LINE__, #cond);                                               \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

/* struct vars v, defaults() and fixture_opts: config_fixture.h */

static tess_config_t make(void) {
  tess_config_t cfg = NULL;
  CHECK(tess_config_create("test", &cfg) == TESS_OK);
  CHECK(tess_config_add(cfg, fixture_opts, sizeof fixture_opts / sizeof *fixture_opts) == TESS_OK);
  tess_config_set_output(cfg, NULL);
  return cfg;
}

static char dir[64];
static char *path(const char *name) {
  static char p[4][128];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
  return p[k];
}
static void put(const char *name, const char *text) {
  FILE *f = fopen(path(name), "w");
  fputs(text, f);
  fclose(f);
}
static int exists(const char *p) { return access(p, F_OK) == 0; }

/* Parses argv (NULL-terminated) with a fresh table; returns the code, keeps the message. */
static char msg[1024];
static tess_err run(const char *const *args) {
  char *argv[32];
  int argc = 0;
  argv[argc++] = "test";
  while (*args)
    argv[argc++] = (char *)*args++;
  argv[argc] = NULL;
  defaults();
  tess_config_t cfg = make();
  int exit_now = -1;
  const tess_err rc = tess_config_parse(cfg, argc, argv, &exit_now);
  snprintf(msg, sizeof msg, "%s", tess_config_error(cfg));
  CHECK((rc == TESS_OK) == (msg[0] == 0)); /* a message iff an error */
  CHECK(exit_now == 0);
  tess_config_destroy(&cfg);
  CHECK(cfg == NULL);
  return rc;
}
#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Expects failure with a message containing `want`. */
static void expect(tess_err rc, const char *want, int line) {
  if (rc == TESS_OK || !strstr(msg, want)) {
    printf("FAIL line %d: expected an error containing \"%s\", got %d \"%s\"\n", line, want,
           (int)rc, msg);
    failures++;
  }
}
#define EXPECT(rc, want) expect((rc), (want), __LINE__)

/* Keeps cfg's message for EXPECT. */
static tess_err keep(tess_config_t cfg, tess_err rc) {
  snprintf(msg, sizeof msg, "%s", tess_config_error(cfg));
  return rc;
}

static tess_err text(const char *ini) {
  defaults();
  tess_config_t cfg = make();
  const tess_err rc = tess_config_parse_string(cfg, ini, "run.ini");
  snprintf(msg, sizeof msg, "%s", tess_config_error(cfg));
  tess_config_destroy(&cfg);
  return rc;
}

static void test_precedence(void) {
  put("a.ini", "[run]\nsteps = 7\n[physics]\nnu = 0.25\n");
  put("b.ini", "[physics]\nnu = 0.5\n");
  setenv("TESSERA_RUN_STEPS", "5", 1);
  setenv("TESSERA_PHYSICS_CS0", "2.5", 1);
  defaults();
  tess_config_t cfg = make();
  CHECK(!strcmp(tess_config_source(cfg, "run.steps"), "default"));
  CHECK(tess_config_parse(cfg, 1, (char *[]){"test", NULL}, NULL) == TESS_OK);
  CHECK(v.steps == 5 && v.cs0 == 2.5); /* env over default */
  CHECK(!strcmp(tess_config_source(cfg, "run.steps"), "env TESSERA_RUN_STEPS"));
  CHECK(tess_config_source(cfg, "run.bogus") == NULL);
  tess_config_destroy(&cfg);

  CHECK(run(ARGS("--config", path("a.ini"))) == TESS_OK);
  CHECK(v.steps == 7 && v.nu == 0.25 && v.cs0 == 2.5); /* file over env */
  CHECK(run(ARGS("--config", path("a.ini"), "--config", path("b.ini"))) == TESS_OK);
  CHECK(v.nu == 0.5); /* later file wins */
  /* flags over files wherever they stand; later flags win */
  CHECK(run(ARGS("--steps", "9", "--config", path("a.ini"))) == TESS_OK && v.steps == 9);
  CHECK(run(ARGS("--steps=9", "--set", "run.steps=11")) == TESS_OK && v.steps == 11);
  CHECK(run(ARGS("--set=run.steps=11", "--steps", "9")) == TESS_OK && v.steps == 9);
  CHECK(run(ARGS("--set", "physics.cs0 = 3", "--cs0", "4", "--set", "physics.nu=1")) == TESS_OK);
  CHECK(v.cs0 == 4 && v.nu == 1 && v.steps == 5);

  defaults();
  cfg = make();
  CHECK(tess_config_parse(cfg, 5, (char *[]){"test", "--config", path("a.ini"), "--steps", "8"},
                          NULL) == TESS_OK);
  CHECK(!strcmp(tess_config_source(cfg, "run.steps"), "--steps"));
  char where[160];
  snprintf(where, sizeof where, "%s:4", path("a.ini"));
  CHECK(!strcmp(tess_config_source(cfg, "physics.nu"), where));
  CHECK(!strcmp(tess_config_source(cfg, "physics.cs0"), "env TESSERA_PHYSICS_CS0"));
  tess_config_destroy(&cfg);
  unsetenv("TESSERA_RUN_STEPS");
  unsetenv("TESSERA_PHYSICS_CS0");

  /* argv is not modified */
  char *argv[] = {"test", "--steps", "3", "--", "x", NULL};
  char *copy[6];
  memcpy(copy, argv, sizeof argv);
  defaults();
  cfg = make();
  CHECK(tess_config_parse(cfg, 5, argv, NULL) == TESS_ERR_ARG);
  tess_config_destroy(&cfg);
  CHECK(!memcmp(copy, argv, sizeof argv));
}

static void test_messages(void) {
  /* files */
  EXPECT(text("[run]\nsteps = 1\n[physics]\nbogus = 3\n"),
         "run.ini:4: unknown key 'bogus' in section [physics] (known: nu, cs0)");
  EXPECT(text("# c\n\n[grid]\n\nnx = sixteen\n"),
         "run.ini:5: malformed value 'sixteen' for grid.nx (expected an integer in [1, 1000000])");
  EXPECT(text("[physics]\ncs0 = 0\n"),
         "run.ini:2: value 0 for physics.cs0 is out of range (allowed: (0, inf))");
  EXPECT(text("# header\nnx = 16\n"),
         "run.ini:2: key 'nx' outside any section (write it under [grid])");
  EXPECT(text("[grid]\nnx = 16\nny 16\n"), "run.ini:3: syntax error");
  EXPECT(text("[grid\nnx = 16\n"), "run.ini:1: syntax error");
  EXPECT(text("[solver]\nnx = 16\n"),
         "run.ini:1: unknown section [solver] (known sections: run, grid, physics, runtime, io)");
  EXPECT(text("[run]\nsteps = 1\n[solver]\n"), "run.ini:3: unknown section [solver]");
  EXPECT(text("[grid] nx = 5\n"), "run.ini:1: text after [grid]"); /* libinih drops it */
  EXPECT(text("[grid]\n\n# c\n  nx = 0x10\n"), "run.ini:4: malformed value '0x10'");
  /* the first error wins, even when a later line has another */
  EXPECT(text("[grid]\nnx = 0\nny 16\n"), "run.ini:2: value 0 for grid.nx is out of range");
  EXPECT(text("[grid]\nny 16\nnx = 0\n"), "run.ini:2: syntax error");
  EXPECT(text("[grid]\nnx =\n"), "run.ini:2: malformed value '' for grid.nx");
  EXPECT(text("[runtime]\nmode = fast\n"),
         "run.ini:2: malformed value 'fast' for runtime.mode (allowed: overlap, bulk)");
  char lng[400];
  snprintf(lng, sizeof lng, "[io]\n\nout = %0250d\n", 1);
  EXPECT(text(lng), "run.ini:3: line too long");
  EXPECT(run(ARGS("--config", path("missing.ini"))), "cannot read config file '");
  EXPECT(run(ARGS("--config", path("missing.ini"))), "missing.ini': No such file or directory");
  EXPECT(run(ARGS("--config", dir)), "Is a directory");
  FILE *f = fopen(path("nul.ini"), "wb");
  fwrite("[run]\nsteps = 1\0 2\n", 1, 19, f);
  fclose(f);
  EXPECT(run(ARGS("--config", path("nul.ini"))), "nul.ini:2: NUL character");

  /* flags */
  EXPECT(run(ARGS("--steps", "ten")),
         "--steps: malformed value 'ten' for run.steps (expected an integer in [0, 2147483647])");
  EXPECT(run(ARGS("--bogus")), "unknown option '--bogus' (see --help)");
  EXPECT(run(ARGS("--bogus=3")), "unknown option '--bogus' (see --help)");
  EXPECT(run(ARGS("--ste", "5")), /* no abbreviations, but a hint */
         "unknown option '--ste' (see --help; did you mean --steps?)");
  EXPECT(run(ARGS("--step", "5")), "unknown option '--step' (see --help; did you mean --steps?)");
  EXPECT(run(ARGS("--sett", "a=b")), "(see --help; did you mean --set?)");
  EXPECT(run(ARGS("-x")), "unknown option '-x' (see --help)");
  EXPECT(run(ARGS("--steps")), "option '--steps' needs a value");
  EXPECT(run(ARGS("--help=1")), "option '--help' takes no value");
  /* a missing value must not swallow the next option (found by the apps' settings fuzzer:
   * "--out --dry-run" ran the whole simulation into a directory named "--dry-run") */
  EXPECT(run(ARGS("--out", "--check")),
         "option '--out' needs a value, got the option '--check' (write --out=VALUE for a value "
         "that starts with --)");
  EXPECT(run(ARGS("--set", "--check")), "option '--set' needs a value, got the option '--check'");
  EXPECT(run(ARGS("--steps", "--")), "option '--steps' needs a value, got the option '--'");
  CHECK(run(ARGS("--out=--check")) == TESS_OK && !strcmp(v.out, "--check"));
  CHECK(run(ARGS("--nu", "-1e-3")) == TESS_OK); /* a negative number is a value */
  EXPECT(run(ARGS("--set", "nx")), "--set expects section.key=value, got 'nx'");
  EXPECT(run(ARGS("--set", "nx=3")), "--set expects section.key=value, got 'nx=3'");
  EXPECT(run(ARGS("--set", "physics.bogus=1")), "--set: unknown key 'physics.bogus' (known: nu");
  EXPECT(run(ARGS("--set", "solver.x=1")), "--set: unknown key 'solver.x' (known sections: run");
  EXPECT(run(ARGS("--mode", "fast")),
         "--mode: malformed value 'fast' for runtime.mode (allowed: overlap, bulk)");
  EXPECT(run(ARGS("x")), "unexpected argument 'x'");
  EXPECT(run(ARGS("--steps", "3", "--", "--nx")), "unexpected argument '--nx'");
  EXPECT(run(ARGS("--cs0", "-1")),
         "--cs0: value -1 for physics.cs0 is out of range (allowed: (0, inf))");
  EXPECT(run(ARGS("--check", "no")), "unexpected argument 'no'"); /* bools: --check=no */
  /* syntax is checked before anything is read: the bad option wins over a missing file */
  EXPECT(run(ARGS("--config", path("missing.ini"), "--bogus")), "unknown option '--bogus'");

  /* environment */
  setenv("TESSERA_RUN_STEPS", "x", 1);
  EXPECT(run(ARGS("--steps", "3")),
         "environment TESSERA_RUN_STEPS='x': malformed value 'x' for run.steps (expected an "
         "integer");
  unsetenv("TESSERA_RUN_STEPS");
  setenv("TESSERA_FOO", "1", 1);
  EXPECT(run(ARGS("--steps", "3")), "unknown environment variable TESSERA_FOO");
  unsetenv("TESSERA_FOO");
  setenv("TESSERA_CACHE", "/tmp", 1); /* the scripts' own */
  CHECK(run(ARGS("--steps", "3")) == TESS_OK);
  unsetenv("TESSERA_CACHE");
  defaults();
  tess_config_t cfg = make();
  char *envp[] = {"PATH=/bin", "TESSERA_GRID_N=8,8,1", "TESSERA_IO_CHECK=on", "TESSERA_=1", NULL};
  EXPECT(keep(cfg, tess_config_parse_env(cfg, envp)), "unknown environment variable TESSERA_ (no");
  CHECK(v.n[0] == 8 && v.n[2] == 1 && v.check == 1);
  tess_config_destroy(&cfg);
}

static void test_values(void) {
  /* comments: '#' and ';' at a line's start or after a blank; indented lines are not
   * continuations; a key once per file */
  CHECK(text("[physics] # the physics\n  nu = 0.25 # viscosity\n  cs0 = 2 ;c\n;x\n") == TESS_OK);
  CHECK(v.nu == 0.25 && v.cs0 == 2);
  EXPECT(text("[physics]\ncs0 = 2;c\n"), "run.ini:2: malformed value '2;c' for physics.cs0");
  CHECK(text("\xef\xbb\xbf[run]\r\nsteps: 4\r\n[io]\nout =\n") == TESS_OK);
  CHECK(v.steps == 4 && v.out[0] == 0);
  EXPECT(text("[run]\nsteps = 3\n\nsteps: 4\n"),
         "run.ini:4: run.steps is set twice in this file (first on line 2)");
  EXPECT(text("[io]\nout = a = b\n"), "run.ini:2: value 'a = b' for io.out holds ' = '");
  CHECK(text("[io]\nout = a=b\n") == TESS_OK && !strcmp(v.out, "a=b"));
  CHECK(text("") == TESS_OK && v.steps == 100);
  /* bools */
  const char *yes[] = {"true", "YES", "on", "1"}, *no[] = {"False", "no", "OFF", "0"};
  for (int k = 0; k < 4; k++) {
    CHECK(run(ARGS("--set", "io.check=x", "--check")) != TESS_OK);
    char a[32];
    snprintf(a, sizeof a, "--check=%s", yes[k]);
    CHECK(run(ARGS(a)) == TESS_OK && v.check == 1);
    snprintf(a, sizeof a, "--check=%s", no[k]);
    CHECK(run(ARGS("--check", a)) == TESS_OK && v.check == 0);
  }
  CHECK(run(ARGS("--check")) == TESS_OK && v.check == 1);
  EXPECT(run(ARGS("--check=maybe")), "malformed value 'maybe' for io.check (expected true or");
  /* 3-vectors */
  CHECK(run(ARGS("--grid", " 4, 5 ,6 ")) == TESS_OK && v.n[0] == 4 && v.n[1] == 5 && v.n[2] == 6);
  EXPECT(run(ARGS("--grid", "4,5")), "malformed value '4,5' for grid.n (expected three integers "
                                     "a,b,c, each in [1, 4096])");
  EXPECT(run(ARGS("--grid", "4,5,6,7")), "malformed value '4,5,6,7'");
  EXPECT(run(ARGS("--grid", "4,,6")), "malformed value '4,,6'");
  EXPECT(run(ARGS("--grid", "4,x,6")), "malformed value '4,x,6'");
  EXPECT(run(ARGS("--grid", "4,0,6")),
         "value 4,0,6 for grid.n is out of range (allowed: [1, 4096])");
  CHECK(run(ARGS("--set", "grid.h=0.5,1e-3,2")) == TESS_OK && v.h[1] == 1e-3);
  EXPECT(run(ARGS("--set", "grid.h=0.5,0,2")), "out of range (allowed: (0, inf))");
  /* integers: whole decimal numbers that fit */
  const char *bad_int[] = {"1.5", "1e3", "0x10", "3 4", "", " ", "+", "12abc"};
  for (size_t k = 0; k < sizeof bad_int / sizeof *bad_int; k++) {
    char a[32];
    snprintf(a, sizeof a, "run.steps=%s", bad_int[k]);
    EXPECT(run(ARGS("--set", a)), "malformed value");
  }
  EXPECT(run(ARGS("--steps", "99999999999")), "value 99999999999 for run.steps is out of range");
  EXPECT(run(ARGS("--steps", "-1")), "out of range (allowed: [0, 2147483647])");
  CHECK(run(ARGS("--set", "run.steps=+12")) == TESS_OK && v.steps == 12);
  CHECK(run(ARGS("--set", "run.seed=-9223372036854775808")) == TESS_OK &&
        v.seed == -9223372036854775807L - 1);
  EXPECT(run(ARGS("--set", "run.seed=9223372036854775808")), "out of range");
  /* doubles: finite */
  const char *bad_dbl[] = {"nan", "inf", "-Infinity", "1e999", "1,5", "", "0.5x"};
  for (size_t k = 0; k < sizeof bad_dbl / sizeof *bad_dbl; k++) {
    char a[32];
    snprintf(a, sizeof a, "physics.nu=%s", bad_dbl[k]);
    EXPECT(run(ARGS("--set", a)), "malformed value");
  }
  CHECK(run(ARGS("--set", "physics.nu=-1e-310")) == TESS_OK && v.nu == -1e-310);
  /* one rule for numbers: decimal, and nothing that silently becomes 0 */
  EXPECT(run(ARGS("--set", "physics.nu=0x10")), "numbers are decimal: 16, not 0x10");
  EXPECT(run(ARGS("--steps", "0x10")), "numbers are decimal: 16, not 0x10");
  EXPECT(run(ARGS("--set", "physics.nu=1e-400")), "too small for a double: it would be 0");
  CHECK(run(ARGS("--cs0", "1e-300")) == TESS_OK && v.cs0 == 1e-300);
  /* strings: fit, no comment characters, no control characters */
  CHECK(run(ARGS("--out", "  a b=c:d  ")) == TESS_OK && !strcmp(v.out, "a b=c:d"));
  EXPECT(run(ARGS("--out", "a#b")), "malformed value 'a#b' for io.out (text cannot hold '#'");
  /* found by the apps' settings fuzzer: accepted from a flag, its printed configuration was
   * then refused ("value ... holds ' = '") when read back */
  EXPECT(run(ARGS("--out", "a = b")), "malformed value 'a = b' for io.out (text cannot hold '=' "
                                      "next to a blank");
  EXPECT(run(ARGS("--set", "io.out=x= y")), "malformed value 'x= y' for io.out");
  CHECK(run(ARGS("--out", "a=b")) == TESS_OK && !strcmp(v.out, "a=b"));
  EXPECT(run(ARGS("--out", "a;b")), "malformed value 'a;b'");
  EXPECT(run(ARGS("--out", "a\tb")), "malformed value 'a?b'");
  EXPECT(run(ARGS("--out", "0123456789012345678901234567890123")),
         "(expected text of at most 31 characters)");
  CHECK(run(ARGS("--out", "0123456789012345678901234567890")) == TESS_OK);
  /* open bounds on integers */
  int pos = 1;
  tess_config_t c2;
  CHECK(tess_config_create("t", &c2) == TESS_OK);
  const tess_opt po = {.key = "a.pos",
                       .type = TESS_OPT_INT,
                       .ptr = &pos,
                       .min = 0,
                       .max = 10,
                       .open = TESS_OPT_OPEN_MIN | TESS_OPT_OPEN_MAX};
  CHECK(tess_config_add(c2, &po, 1) == TESS_OK);
  EXPECT(keep(c2, tess_config_set(c2, "a.pos", "0", NULL)), "value 0 for a.pos is out of range "
                                                            "(allowed: [1, 9])");
  CHECK(tess_config_set(c2, "a.pos", "10", NULL) != TESS_OK);
  CHECK(tess_config_set(c2, "a.pos", "9", NULL) == TESS_OK && pos == 9);
  tess_config_destroy(&c2);
  /* a refused value leaves the variable alone */
  defaults();
  tess_config_t cfg = make();
  CHECK(tess_config_set(cfg, "run.steps", "12", NULL) == TESS_OK && v.steps == 12);
  CHECK(!strcmp(tess_config_source(cfg, "run.steps"), "set"));
  EXPECT(keep(cfg, tess_config_set(cfg, "run.steps", "-3", "api")), "api: value -3 for run.steps");
  CHECK(v.steps == 12 && !strcmp(tess_config_source(cfg, "run.steps"), "set"));
  CHECK(tess_config_set(cfg, "grid.n", "1,2,3", NULL) == TESS_OK);
  CHECK(tess_config_set(cfg, "grid.n", "1,2,0", NULL) != TESS_OK && v.n[2] == 3);
  CHECK(tess_config_set(cfg, "run.steps", "13", NULL) == TESS_OK && !tess_config_error(cfg)[0]);
  tess_config_destroy(&cfg);
}

/* Every value written and read back, bit for bit. */
static void test_round_trip(void) {
  const double awkward[] = {0.1, 1.0 / 3, -0.0, 5e-324, DBL_MAX, -DBL_MIN, 1e22, 2.5e-7};
  for (size_t k = 0; k < sizeof awkward / sizeof *awkward; k++) {
    defaults();
    tess_config_t cfg = make();
    char a[64];
    snprintf(a, sizeof a, "%.17g", awkward[k]);
    CHECK(tess_config_set(cfg, "physics.nu", a, "--set") == TESS_OK);
    CHECK(tess_config_set(cfg, "grid.h", "0.1,0.2,0.30000000000000004", NULL) == TESS_OK);
    CHECK(tess_config_set(cfg, "run.seed", "-9223372036854775807", NULL) == TESS_OK);
    CHECK(tess_config_set(cfg, "io.out", "dir with spaces/and=signs", NULL) == TESS_OK);
    CHECK(tess_config_set(cfg, "io.check", "yes", NULL) == TESS_OK);
    CHECK(tess_config_set(cfg, "runtime.mode", "bulk", NULL) == TESS_OK);
    char *s = tess_config_to_string(cfg);
    CHECK(s != NULL);
    tess_config_destroy(&cfg);
    struct vars before;
    memcpy(&before, &v, sizeof v);
    defaults();
    cfg = make();
    CHECK(s && tess_config_parse_string(cfg, s, "written") == TESS_OK);
    CHECK(!memcmp(&before, &v, sizeof v));
    CHECK(!strcmp(tess_config_source(cfg, "physics.nu"), "written:13"));
    if (k == 0) CHECK(s && strstr(s, "\nnu = 0.1  # viscosity [--set, default 0.005]\n"));
    if (k == 0) CHECK(s && strstr(s, "\n[grid]\nnx = 64  # cells in x [default]\n"));
    tess_config_destroy(&cfg);
    free(s);
  }
}

static void test_save(void) {
  defaults();
  tess_config_t cfg = make();
  CHECK(tess_config_set(cfg, "run.steps", "42", "--steps") == TESS_OK);
  const char *p = path("saved.ini");
  CHECK(tess_config_save(cfg, p) == TESS_OK);
  CHECK(exists(p) && !exists(path("saved.ini.tmp")));
  defaults();
  tess_config_t back = make();
  CHECK(tess_config_parse_file(back, p) == TESS_OK && v.steps == 42);
  tess_config_destroy(&back);
  /* a directory that does not exist: an error naming the file, nothing left behind */
  EXPECT(keep(cfg, tess_config_save(cfg, "/nonexistent-tessera/x.ini")),
         "cannot write config file '/nonexistent-tessera/x.ini': No such file or directory");
  CHECK(!exists("/nonexistent-tessera/x.ini.tmp"));
  /* a write that fails half way (file size limit, even as root): the old file stays whole */
  struct rlimit old, small = {64, 64};
  getrlimit(RLIMIT_FSIZE, &old);
  small.rlim_max = old.rlim_max;
  signal(SIGXFSZ, SIG_IGN);
  CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
  const tess_err rc = tess_config_save(cfg, path("saved.ini"));
  snprintf(msg, sizeof msg, "%s", tess_config_error(cfg));
  setrlimit(RLIMIT_FSIZE, &old);
  EXPECT(rc, "File too large");
  CHECK(!exists(path("saved.ini.tmp")));
  defaults();
  back = make();
  CHECK(tess_config_parse_file(back, p) == TESS_OK && v.steps == 42);
  tess_config_destroy(&back);
  /* the target is a directory: rename fails, the temporary file goes */
  mkdir(path("adir"), 0700);
  EXPECT(keep(cfg, tess_config_save(cfg, path("adir"))), "Is a directory");
  CHECK(!exists(path("adir.tmp")));
  tess_config_destroy(&cfg);
}

static void test_help(void) {
  defaults();
  tess_config_t cfg = make();
  FILE *out = tmpfile();
  tess_config_set_output(cfg, out);
  int exit_now = 0;
  CHECK(tess_config_parse(cfg, 4, (char *[]){"test", "--steps", "3", "--help", NULL}, &exit_now) ==
        TESS_OK);
  CHECK(exit_now == 1 && v.steps == 100); /* help parses nothing */
  char buf[8192] = "";
  rewind(out);
  buf[fread(buf, 1, sizeof buf - 1, out)] = 0;
  CHECK(strstr(buf, "usage: test ") && strstr(buf, "--config FILE") && strstr(buf, "--set"));
  CHECK(strstr(buf, "\n[grid]\n  nx = 64   --nx\n      cells in x; an integer in [1, 1000000]\n"));
  CHECK(strstr(buf, "mode = overlap   --mode\n      schedule; allowed: overlap, bulk\n"));
  CHECK(strstr(buf, "cs0 = 1   --cs0\n      sound speed; a finite number in (0, inf)\n"));
  CHECK(strstr(buf, "TESSERA_<SECTION>_<KEY>"));
  fclose(out);
  out = tmpfile();
  tess_config_set_output(cfg, out);
  CHECK(tess_config_parse(cfg, 3, (char *[]){"test", "--print-config", "--steps=4", NULL},
                          &exit_now) == TESS_OK);
  CHECK(exit_now == 1 && v.steps == 4);
  rewind(out);
  buf[fread(buf, 1, sizeof buf - 1, out)] = 0;
  CHECK(strstr(buf, "[run]\nsteps = 4  # time steps [--steps, default 100]\n"));
  fclose(out);
  tess_config_destroy(&cfg);
  tess_config_destroy(&cfg); /* NULL-safe */
  tess_config_destroy(NULL);
}

/* Bad tables are refused whole, with a message. */
static void test_table(void) {
  int a = 1, b = 5;
  char s[4] = "abc";
  const struct {
    tess_opt o;
    const char *want;
  } bad[] = {
      {{.key = "Run.steps", .type = TESS_OPT_INT, .ptr = &a}, "is not section.name"},
      {{.key = "steps", .type = TESS_OPT_INT, .ptr = &a}, "is not section.name"},
      {{.key = "run.", .type = TESS_OPT_INT, .ptr = &a}, "is not section.name"},
      {{.key = "run.x", .type = TESS_OPT_INT, .ptr = NULL}, "bad type, pointer"},
      {{.key = "run.x", .type = TESS_OPT_INT, .ptr = &a, .flag = "help"}, "Tessera's own"},
      {{.key = "run.x", .type = TESS_OPT_INT, .ptr = &a, .flag = "--x"}, "flag '--x'"},
      {{.key = "run.x", .type = TESS_OPT_INT, .ptr = &b, .min = 0, .max = 4}, "default '5'"},
      {{.key = "run.x", .type = TESS_OPT_STRING, .ptr = s, .size = 4, .choices = "a|b"},
       "default 'abc'"},
      {{.key = "run.x", .type = TESS_OPT_STRING, .ptr = s, .size = 3}, "bad type, pointer, size"},
      {{.key = "run.steps", .type = TESS_OPT_INT, .ptr = &a}, "clashes with run.steps"},
      {{.key = "run.y", .type = TESS_OPT_INT, .ptr = &a, .flag = "nx"}, "clashes with grid.nx"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    defaults();
    tess_config_t cfg = make();
    const tess_opt two[] = {{.key = "run.ok", .type = TESS_OPT_INT, .ptr = &a}, bad[k].o};
    EXPECT(keep(cfg, tess_config_add(cfg, two, 2)), bad[k].want);
    CHECK(tess_config_source(cfg, "run.ok") == NULL); /* all or nothing */
    tess_config_destroy(&cfg);
  }
  tess_config_t cfg;
  CHECK(tess_config_create("t", &cfg) == TESS_OK);
  const tess_opt clash[] = {{.key = "a_b.c", .type = TESS_OPT_INT, .ptr = &a},
                            {.key = "a.b_c", .type = TESS_OPT_INT, .ptr = &a}};
  CHECK(tess_config_add(cfg, clash, 2) == TESS_ERR_ARG &&
        strstr(tess_config_error(cfg), "TESSERA_A_B_C"));
  tess_config_destroy(&cfg);
}

/* The start-up line names only the settings whose value differs from the default: one given
 * its default's value again (--steps 100, nu = 5e-3 written as 0.005) is not counted. */
static void test_summary(void) {
  defaults();
  tess_config_t cfg = make();
  char *argv[] = {"test", "--steps", "100", "--nu", "0.005", "--cs0", "3", NULL};
  CHECK(tess_config_parse(cfg, 7, argv, NULL) == TESS_OK);
  char line[1024] = "";
  FILE *f = fmemopen(line, sizeof line - 1, "w");
  CHECK(f != NULL);
  if (f) {
    tess_config_summary(cfg, f);
    fclose(f);
  }
  CHECK(strstr(line, "test: 1 setting not at the default: physics.cs0 = 3 [--cs0]") == line);
  CHECK(!strstr(line, "run.steps") && !strstr(line, "physics.nu"));
  tess_config_destroy(&cfg);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/test_config.XXXXXX");
  if (!mkdtemp(dir)) return 1;
  test_precedence();
  test_messages();
  test_values();
  test_round_trip();
  test_save();
  test_help();
  test_table();
  test_summary();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) printf("note: could not remove %s\n", dir);
  printf("%s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}

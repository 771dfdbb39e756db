/* tessera_config.h — the configuration layer every Tessera app uses: one option table, four
 * sources, one precedence, one printout.
 *
 * An app describes each setting once (a tess_opt: key "section.name", type, the app's variable,
 * range or choices, optional command-line flag, one line of help) and hands the table to a
 * tess_config_t. Values then come from, later sources winning:
 *
 *     defaults          the values already in the app's variables when the table is added
 *   < environment       TESSERA_<SECTION>_<NAME>=value      (TESSERA_RUN_STEPS=100)
 *   < config files      --config FILE, in command-line order (INI, read with libinih)
 *   < command line      the table's flags (--steps 100) and --set section.key=value, in order
 *
 * INI files: "[section]" lines, then "name = value" (or "name: value") lines. '#' and ';' start
 * a comment anywhere on a line, so string values cannot contain them; leading blanks are
 * ignored (no multi-line values); a line holds at most 198 characters before its comment. A key
 * given twice wins the second time (in one file as across files). Values are checked
 * strictly: integers are whole decimal numbers (strtol, nothing left over), numbers are
 * finite, booleans are true/false, yes/no, on/off or 1/0, 3-vectors are "a,b,c", strings fit
 * their buffer, hold no control characters and are one of the choices when choices are given;
 * numbers out of their range, unknown keys, sections, flags and TESSERA_* variables are errors
 * naming where they came from (file:line, flag, variable). Blanks around values are ignored.
 *
 * Every function returns a tess_err (TESS_ERR_ARG for bad input, TESS_ERR_IO for files,
 * TESS_ERR_MEM) and leaves a one-line message in tess_config_error(); the app prints it as
 * "<prog>: <message>". Nothing here is collective or talks to MPI or StarPU: every rank parses
 * the same argv and files and gets the same result; print and save on one rank. A failed
 * parse may have stored the values before the failing one; a failed tess_config_set stores
 * nothing. Not thread-safe (getopt_long's global state).
 *
 * A table is one setting a line with the shorthands below (key, type, variable, flag or NULL,
 * help, then any of .min/.max/.open/.choices); the variables hold the defaults:
 *
 *     double kappa = 1;  int wave = 1;  char init[16] = "sine";
 *     const tess_opt opts[] = {
 *         TESS_OPT_ENTRY("physics.kappa", TESS_OPT_DOUBLE, &kappa, "kappa", "diffusivity",
 *                        TESS_OPT_POSITIVE),
 *         TESS_OPT_ENTRY("init.wave", TESS_OPT_INT, &wave, "wave", "periods", .min = 1, .max = 64),
 *         TESS_OPT_STRING_ENTRY("init.kind", init, NULL, "initial state", .choices = "sine|bump"),
 *     };
 */
#ifndef TESSERA_CONFIG_H
#define TESSERA_CONFIG_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TESS_OPT_INT,      /* int *                                                     */
  TESS_OPT_LONG,     /* long *                                                    */
  TESS_OPT_DOUBLE,   /* double *                                                  */
  TESS_OPT_STRING,   /* char[size]                                                */
  TESS_OPT_BOOL,     /* int *, 0 or 1                                             */
  TESS_OPT_INTS3,    /* int[3], written "a,b,c"; the range applies to each        */
  TESS_OPT_DOUBLES3, /* double[3], written "x,y,z"; the range applies to each     */
} tess_opt_type;

/* tess_opt.open: exclude a bound from the range ((0, inf) for a positive double). */
#define TESS_OPT_OPEN_MIN 1
#define TESS_OPT_OPEN_MAX 2

/* One setting. Use designated initialisers (or TESS_OPT_ENTRY below); the strings must outlive the
 * tess_config_t (string literals). A range is given by min < max (either may be -HUGE_VAL /
 * HUGE_VAL); min >= max (e.g. both left 0) means no range: any finite number, or any value of the
 * integer type. */
typedef struct {
  const char *key;     /* "section.name", both parts [a-z0-9_], 40 characters at most */
  tess_opt_type type;  /* what ptr points to (see above) */
  void *ptr;           /* the app's variable; holds the default before tess_config_add */
  size_t size;         /* TESS_OPT_STRING: buffer size; longer values (and > 150) are errors */
  const char *flag;    /* command-line flag without "--" ([a-z0-9-]: "steps"), or NULL */
  const char *help;    /* one line */
  double min, max;     /* allowed closed range for numbers (see above) */
  const char *choices; /* TESS_OPT_STRING: "a|b|c" allowed values, or NULL */
  int open;            /* TESS_OPT_OPEN_MIN | TESS_OPT_OPEN_MAX: open bounds, or 0 */
} tess_opt;

/* One setting of a table: key, type, a pointer to the variable, flag (NULL: none), then the help
 * line and any of .min/.max/.open/.choices. */
#define TESS_OPT_ENTRY(k, t, p, fl, ...)                                                           \
  { .key = (k), .type = (t), .ptr = (p), .flag = (fl), .help = __VA_ARGS__ }
/* A TESS_OPT_STRING setting held in a char array `buf` (not a pointer: .size is sizeof buf). */
#define TESS_OPT_STRING_ENTRY(k, buf, fl, ...)                                                     \
  {                                                                                                \
    .key = (k), .type = TESS_OPT_STRING, .ptr = (buf), .size = sizeof(buf), .flag = (fl),          \
    .help = __VA_ARGS__                                                                            \
  }
/* Ranges for an entry's tail: a positive number (0, inf), a non-negative one [0, inf). */
#define TESS_OPT_POSITIVE    .min = 0, .max = HUGE_VAL, .open = TESS_OPT_OPEN_MIN
#define TESS_OPT_NONNEGATIVE .min = 0, .max = HUGE_VAL

typedef struct tess_config_s *tess_config_t;

/* `prog` names the program in --help and in the printout. */
tess_err tess_config_create(const char *prog, tess_config_t *cfg);
/* NULL-safe; sets *cfg to NULL. Does not touch the app's variables. */
void tess_config_destroy(tess_config_t *cfg);
/* Adds n options; the table is copied (not the strings). TESS_ERR_ARG for a malformed key or
 * flag, a key, flag or environment name given twice, a flag that Tessera reserves (config, set,
 * help, print-config), or a default that its own range or choices refuse. */
tess_err tess_config_add(tess_config_t cfg, const tess_opt *opts, size_t n);
/* Where --help and --print-config write (default stdout; NULL: nowhere, e.g. on ranks > 0). */
void tess_config_set_output(tess_config_t cfg, FILE *out);

/* The whole precedence in one call: the environment (tess_config_parse_env(cfg, NULL)), then
 * every --config FILE in order, then the table's flags and --set key=value in order. Also
 * knows --help/-h (usage to the output, nothing parsed) and --print-config (the effective
 * configuration to the output, after parsing); after either, *exit_now = 1 (else 0) and the
 * app should exit with status 0. Bool flags take no separate value: --check or --check=false.
 * A separate value cannot start with "--" ("--out --dry-run" is refused, not read as the
 * directory "--dry-run"; write --out=--dry-run for such a value).
 * No abbreviations of long options; "--" ends the options; a non-option argument is an error.
 * argv is not modified. */
tess_err tess_config_parse(tess_config_t cfg, int argc, char *const argv[], int *exit_now);
/* TESSERA_<SECTION>_<NAME> variables of envp (NULL: the process environment). A TESSERA_*
 * variable that names no key is an error, except TESSERA_CACHE and TESSERA_RT (scripts). */
tess_err tess_config_parse_env(tess_config_t cfg, char *const envp[]);
/* One INI file; messages name `path` and the line. */
tess_err tess_config_parse_file(tess_config_t cfg, const char *path);
/* INI text; `name` stands for the file name in messages. */
tess_err tess_config_parse_string(tess_config_t cfg, const char *text, const char *name);
/* One value by key ("run.steps"); `where` (e.g. "--set", NULL: "set") prefixes messages and is
 * recorded as the value's source. Nothing is stored when the value is refused. */
tess_err tess_config_set(tess_config_t cfg, const char *key, const char *value, const char *where);

/* The message of the last failed call, "" after a successful one. Owned by cfg. */
const char *tess_config_error(tess_config_t cfg);
/* Where a key's value came from: "default", "env TESSERA_RUN_STEPS", "run.ini:12", "--steps",
 * "--set"; NULL for an unknown key. Owned by cfg. */
const char *tess_config_source(tess_config_t cfg, const char *key);

/* The effective configuration as INI text, sections in table order, one line per key:
 * "name = value  # help [source, default D]". Doubles are written with the fewest digits that
 * read back to the same double, so parsing the text reproduces every value bit for bit. */
tess_err tess_config_write(tess_config_t cfg, FILE *f);
/* One line: the settings whose value is not the default, "key = value [source]" each. */
void tess_config_summary(tess_config_t cfg, FILE *f);
/* tess_config_write to "<path>.tmp", fsync, rename to path: path is either the old file or
 * the complete new one; the temporary file is removed on error (TESS_ERR_IO, message). */
tess_err tess_config_save(tess_config_t cfg, const char *path);
/* tess_config_write into a malloc'd string (free() it), e.g. for checkpoints; NULL on error. */
char *tess_config_to_string(tess_config_t cfg);
/* The --help text: flags, then every key by section with its type, default, range or choices,
 * flag and help. */
void tess_config_usage(tess_config_t cfg, FILE *f);

#ifdef __cplusplus
}
#endif
#endif

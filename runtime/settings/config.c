/* config.c — options from defaults, environment, INI files and the command line (see
 * tessera_config.h for the rules users see).
 *
 * Everything funnels into one function, set_value(): it parses and checks a value against its
 * entry (type, range, choices) and only then stores it in the app's variable and records where
 * it came from. The sources differ only in how they find the entry and name the place:
 *
 *   tess_config_parse_env  TESSERA_RUN_STEPS=x  -> entry by env name -> "environment ..='x'"
 *   parse_source           INI file or string   -> libinih, on_key   -> "run.ini:12"
 *   walk                   argv, getopt_long    -> flag or --set k=v -> "--steps", "--set"
 *
 * libinih is fed through our own line reader (read_line) rather than its file or string
 * front ends, which fixes what Debian's libinih 55 does on its own: '#' (and ';') comments are
 * cut anywhere on a line (libinih: ';' after a blank only); leading blanks are dropped (else an
 * indented line is glued to the previous value as a multi-line continuation); a line longer
 * than libinih's buffer is an error (else it is split silently in two); "[section]" lines are
 * checked here (libinih ignores text after ']' and calls us for keys only). The reader also
 * counts lines, since Debian's build passes no line number to the handler.
 *
 * tess_config_parse walks argv three times with getopt_long: check it all (unknown options,
 * missing values, stray arguments, --help), then after the environment read the --config
 * files, then apply the flags and --set; so files rank below flags wherever they stand. This
 * file needs libc and libinih only (no MPI or StarPU calls): the unit test and the fuzzer link
 * it alone.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "tessera_config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

extern char **environ;

enum { LINE = 200, MAX_PART = 40, MAX_STRING = 150, QUOTE = 64 };
/* Variables named TESSERA_* that scripts use for themselves, not keys. */
static const char *const env_allowed[] = {"TESSERA_CACHE", "TESSERA_RT"};
static const char *const reserved_flags[] = {"config", "set", "help", "print-config"};

typedef struct {
  tess_opt o;
  size_t dot;     /* o.key[dot] == '.' */
  char env[96];   /* TESSERA_SECTION_NAME */
  char def[LINE]; /* the default, as written */
  char from[256]; /* where the value came from */
} entry;

struct tess_config_s {
  char prog[64];
  entry *e;
  size_t n;
  FILE *out;
  char err[1024];
};

typedef union {
  int i[3];
  long l;
  double d[3];
} parsed;

static tess_err fail(tess_config_t cfg, tess_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static tess_err fail(tess_config_t cfg, tess_err code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cfg->err, sizeof cfg->err, fmt, ap);
  va_end(ap);
  return code;
}

/* User text for a message: control characters as '?', cut after 56 characters. */
static const char *quote(const char *s, char b[QUOTE]) {
  size_t n = 0;
  for (; s[n] && n < QUOTE - 8; n++)
    b[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
  strcpy(b + n, s[n] ? "..." : "");
  return b;
}

/* The fewest of 15..17 significant digits that read back to the same double. */
static void fmt_double(double x, char *b, size_t n) {
  for (int p = 15; p <= 17; p++) {
    snprintf(b, n, "%.*g", p, x);
    if (strtod(b, NULL) == x) return;
  }
}

static int is_int_type(tess_opt_type t) {
  return t == TESS_OPT_INT || t == TESS_OPT_LONG || t == TESS_OPT_INTS3;
}
static int is_vec_type(tess_opt_type t) { return t == TESS_OPT_INTS3 || t == TESS_OPT_DOUBLES3; }
static int has_range(const tess_opt *o) { return o->min < o->max; }
static size_t max_len(const tess_opt *o) {
  return o->size - 1 < MAX_STRING ? o->size - 1 : MAX_STRING;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  for (size_t n = strlen(s); n > 0 && isspace((unsigned char)s[n - 1]); n--)
    s[n - 1] = 0;
  return s;
}

/* The allowed integers [lo, hi]: the type's limits, narrowed by the range. */
static void int_bounds(const tess_opt *o, long *lo, long *hi) {
  *lo = o->type == TESS_OPT_LONG ? LONG_MIN : INT_MIN;
  *hi = o->type == TESS_OPT_LONG ? LONG_MAX : INT_MAX;
  if (!has_range(o)) return;
  if (o->min > (double)*lo)
    *lo = (long)ceil(o->min) + ((o->open & TESS_OPT_OPEN_MIN) && o->min == ceil(o->min));
  if (o->max < (double)*hi)
    *hi = (long)floor(o->max) - ((o->open & TESS_OPT_OPEN_MAX) && o->max == floor(o->max));
}

static int in_range(const tess_opt *o, double x) {
  if (!has_range(o)) return 1;
  return (o->open & TESS_OPT_OPEN_MIN ? x > o->min : x >= o->min) &&
         (o->open & TESS_OPT_OPEN_MAX ? x < o->max : x <= o->max);
}

static void range_text(const tess_opt *o, char *b, size_t n) {
  if (is_int_type(o->type)) {
    long lo, hi;
    int_bounds(o, &lo, &hi);
    snprintf(b, n, "[%ld, %ld]", lo, hi);
    return;
  }
  char lo[32], hi[32];
  fmt_double(o->min, lo, sizeof lo);
  fmt_double(o->max, hi, sizeof hi);
  snprintf(b, n, "%c%s, %s%c", (o->open & TESS_OPT_OPEN_MIN) || isinf(o->min) ? '(' : '[', lo, hi,
           (o->open & TESS_OPT_OPEN_MAX) || isinf(o->max) ? ')' : ']');
}

/* What a value must look like: "expected an integer in [1, 1000000]", "allowed: a, b". */
static void describe(const tess_opt *o, char *b, size_t n) {
  static const char *const what[] = {
      "an integer", "an integer",           "a finite number",           "text",
      "a boolean",  "three integers a,b,c", "three finite numbers x,y,z"};
  char r[256];
  if (o->type == TESS_OPT_STRING && o->choices) {
    size_t k = 0;
    for (const char *c = o->choices; *c && k + 3 < sizeof r; c++)
      k += *c == '|' ? (size_t)snprintf(r + k, sizeof r - k, ", ") : (r[k] = *c, 1);
    r[k] = 0;
    snprintf(b, n, "allowed: %s", r);
  } else if (o->type == TESS_OPT_STRING) {
    snprintf(b, n, "expected text of at most %zu characters", max_len(o));
  } else if (o->type == TESS_OPT_BOOL) {
    snprintf(b, n, "expected true or false (or yes/no, on/off, 1/0)");
  } else if (!is_int_type(o->type) && !has_range(o)) {
    snprintf(b, n, "expected %s", what[o->type]);
  } else {
    range_text(o, r, sizeof r);
    snprintf(b, n, "expected %s%s %s", what[o->type], is_vec_type(o->type) ? ", each in" : " in",
             r);
  }
}

static int in_choices(const char *choices, const char *s) {
  const size_t n = strlen(s);
  for (const char *c = choices;;) {
    const char *bar = strchr(c, '|');
    const size_t k = bar ? (size_t)(bar - c) : strlen(c);
    if (k == n && !strncmp(c, s, n)) return 1;
    if (!bar) return 0;
    c = bar + 1;
  }
}

/* A number as users write it: decimal digits, an optional point and exponent. strtod and
 * strtol accept more (hexadecimal for reals only, "inf", "nan"): one rule for every type. */
static int decimal(const char *p, const char **why) {
  for (const char *c = p; *c; c++)
    if (!isdigit((unsigned char)*c) && !strchr("+-.eE", *c)) {
      const char *d = p + (*p == '+' || *p == '-');
      *why =
          d[0] == '0' && (d[1] == 'x' || d[1] == 'X') ? "numbers are decimal: 16, not 0x10" : NULL;
      return 0;
    }
  return 1;
}

/* 0: valid (numbers in *v); 1: malformed (*why says how, or NULL: see describe); 2: out of
 * range. Strings are checked only: they are copied from s when stored. */
static int parse_value(const tess_opt *o, const char *s, parsed *v, const char **why) {
  *why = NULL;
  if (o->type == TESS_OPT_STRING) {
    for (const char *c = s; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == '#' || *c == ';') {
        *why = "text cannot hold '#', ';' or control characters";
        return 1;
      }
    /* what an INI line cannot hold either: the printed configuration must read back */
    if (strstr(s, " =") || strstr(s, "= ")) {
      *why = "text cannot hold '=' next to a blank: an INI line would read it as two values";
      return 1;
    }
    return strlen(s) > max_len(o) || (o->choices && !in_choices(o->choices, s));
  }
  if (o->type == TESS_OPT_BOOL) {
    static const char *const words[] = {"false", "true", "no", "yes", "off", "on", "0", "1"};
    for (int k = 0; k < 8; k++)
      if (!strcasecmp(s, words[k])) return v->i[0] = k % 2, 0;
    return 1;
  }
  char buf[LINE], *p = buf;
  if (strlen(s) >= sizeof buf) return 1;
  strcpy(buf, s);
  int out = 0;
  for (int k = 0, n = is_vec_type(o->type) ? 3 : 1; k < n; k++) {
    char *comma = strchr(p, ','), *end;
    if ((k < n - 1) != (comma != NULL)) return 1;
    if (comma) *comma = 0;
    p = trim(p);
    errno = 0;
    if (!decimal(p, why)) return 1;
    if (is_int_type(o->type)) {
      long x = strtol(p, &end, 10), lo, hi;
      if (end == p || *end) return 1;
      int_bounds(o, &lo, &hi);
      if (errno == ERANGE || x < lo || x > hi)
        out = 1;
      else if (o->type == TESS_OPT_LONG)
        v->l = x;
      else
        v->i[k] = (int)x;
    } else {
      const double x = strtod(p, &end);
      if (end == p || *end || !isfinite(x)) return 1;
      if (errno == ERANGE && x == 0) { /* underflow: 1e-400 would silently mean 0 */
        *why = "too small for a double: it would be 0 (the smallest is 4.9e-324)";
        return 1;
      }
      out |= !in_range(o, x);
      v->d[k] = x;
    }
    if (comma) p = comma + 1;
  }
  return out ? 2 : 0;
}

static void format_value(const tess_opt *o, char *b, size_t n) {
  if (o->type == TESS_OPT_STRING || o->type == TESS_OPT_BOOL) {
    snprintf(b, n, "%s",
             o->type == TESS_OPT_STRING ? (const char *)o->ptr
                                        : (*(const int *)o->ptr ? "true" : "false"));
    return;
  }
  char x[32];
  for (int c = 0, k = 0; c < (is_vec_type(o->type) ? 3 : 1); c++) {
    if (o->type == TESS_OPT_LONG)
      snprintf(x, sizeof x, "%ld", *(const long *)o->ptr);
    else if (is_int_type(o->type))
      snprintf(x, sizeof x, "%d", ((const int *)o->ptr)[c]);
    else
      fmt_double(((const double *)o->ptr)[c], x, sizeof x);
    k += snprintf(b + k, n - (size_t)k, "%s%s", c ? "," : "", x);
  }
}

/* The one place values are stored: parse and check `raw` for entry e, then store it and
 * remember `from`. Messages are "<prefix>: malformed value ...". */
static tess_err set_value(tess_config_t cfg, entry *e, const char *raw, const char *prefix,
                          const char *from) {
  const tess_opt *o = &e->o;
  char buf[LINE + 2], q[QUOTE], d[320];
  const int fits = (size_t)snprintf(buf, sizeof buf, "%s", raw) < sizeof buf - 1;
  char *s = trim(buf);
  const char *why = NULL, *sep = prefix ? ": " : "";
  parsed v;
  const int r = fits ? parse_value(o, s, &v, &why) : 1;
  if (r == 1 && !why) describe(o, d, sizeof d), why = d;
  if (r == 1)
    return fail(cfg, TESS_ERR_ARG, "%s%smalformed value '%s' for %s (%s)", prefix ? prefix : "",
                sep, quote(s, q), o->key, why);
  if (r == 2) {
    range_text(o, d, sizeof d);
    return fail(cfg, TESS_ERR_ARG, "%s%svalue %s for %s is out of range (allowed: %s)",
                prefix ? prefix : "", sep, quote(s, q), o->key, d);
  }
  static const size_t bytes[] = {sizeof(int), sizeof(long),    sizeof(double),    0,
                                 sizeof(int), 3 * sizeof(int), 3 * sizeof(double)};
  if (o->type == TESS_OPT_STRING)
    memcpy(o->ptr, s, strlen(s) + 1);
  else
    memcpy(o->ptr, &v, bytes[o->type]);       /* every member of `parsed` starts at offset 0 */
  for (size_t k = 0; k < sizeof e->from; k++) /* one line, for the printout */
    if (!(e->from[k] = (unsigned char)from[k] < 0x20 && from[k] ? '?' : from[k])) break;
  e->from[sizeof e->from - 1] = 0;
  return TESS_OK;
}

/* ---- keys ---------------------------------------------------------------------------------- */

static entry *find_key(tess_config_t cfg, const char *key) {
  for (size_t i = 0; i < cfg->n; i++)
    if (!strcmp(cfg->e[i].o.key, key)) return &cfg->e[i];
  return NULL;
}

/* The entry `name` of section sec[0..len), or (name NULL) the section's first entry. */
static entry *find_in(tess_config_t cfg, const char *sec, size_t len, const char *name) {
  for (size_t i = 0; i < cfg->n; i++) {
    entry *e = &cfg->e[i];
    if (e->dot == len && !strncmp(e->o.key, sec, len) &&
        (!name || !strcmp(e->o.key + len + 1, name)))
      return e;
  }
  return NULL;
}

/* "known: a, b, c" (the names of a known section) or "known sections: x, y". */
static void known(tess_config_t cfg, const char *sec, size_t len, char *b, size_t n) {
  const int names = find_in(cfg, sec, len, NULL) != NULL;
  size_t k = (size_t)snprintf(b, n, names ? "known: " : "known sections: "), count = 0;
  for (size_t i = 0; i < cfg->n; i++) {
    const entry *e = &cfg->e[i];
    if (names ? e->dot != len || strncmp(e->o.key, sec, len)
              : find_in(cfg, e->o.key, e->dot, NULL) != e)
      continue;
    const char *t = names ? e->o.key + e->dot + 1 : e->o.key;
    const size_t tl = names ? strlen(t) : e->dot;
    if (k + tl + 8 >= n) {
      snprintf(b + k, n - k, ", ...");
      return;
    }
    k += (size_t)snprintf(b + k, n - k, "%s%.*s", count++ ? ", " : "", (int)tl, t);
  }
}

/* The message for a key of an INI file that matches none (its section is known, or ""). */
static tess_err unknown(tess_config_t cfg, const char *where, const char *sec, const char *name) {
  char qn[QUOTE], qs[QUOTE], list[512];
  known(cfg, sec, strlen(sec), list, sizeof list);
  if (!*sec) {
    for (size_t i = 0; i < cfg->n; i++)
      if (!strcmp(cfg->e[i].o.key + cfg->e[i].dot + 1, name))
        return fail(cfg, TESS_ERR_ARG, "%s: key '%s' outside any section (write it under [%.*s])",
                    where, quote(name, qn), (int)cfg->e[i].dot, cfg->e[i].o.key);
    return fail(cfg, TESS_ERR_ARG, "%s: key '%s' outside any section (%s)", where, quote(name, qn),
                list);
  }
  return fail(cfg, TESS_ERR_ARG, "%s: unknown key '%s' in section [%s] (%s)", where,
              quote(name, qn), quote(sec, qs), list);
}

/* A value by full key, for --set and tess_config_set. */
static tess_err set_key(tess_config_t cfg, const char *key, const char *value, const char *where) {
  entry *e = find_key(cfg, key);
  if (e) return set_value(cfg, e, value, where, where ? where : "set");
  char q[QUOTE], list[512];
  const char *dot = strchr(key, '.');
  known(cfg, key, dot ? (size_t)(dot - key) : 0, list, sizeof list);
  return fail(cfg, TESS_ERR_ARG, "%s%sunknown key '%s' (%s)", where ? where : "", where ? ": " : "",
              quote(key, q), list);
}

tess_err tess_config_set(tess_config_t cfg, const char *key, const char *value, const char *where) {
  if (!cfg || !key || !value) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  return set_key(cfg, key, value, where);
}

/* ---- environment --------------------------------------------------------------------------- */

tess_err tess_config_parse_env(tess_config_t cfg, char *const envp[]) {
  if (!cfg) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  for (char *const *p = envp ? envp : environ; p && *p; p++) {
    const char *eq = strchr(*p, '=');
    if (!eq || strncmp(*p, "TESSERA_", 8)) continue;
    char name[128], q[QUOTE], where[256], from[136];
    snprintf(name, sizeof name, "%.*s", (int)(eq - *p < 120 ? eq - *p : 120), *p);
    int allowed = 0;
    for (size_t k = 0; k < sizeof env_allowed / sizeof *env_allowed; k++)
      allowed |= !strcmp(name, env_allowed[k]);
    entry *e = NULL;
    for (size_t i = 0; i < cfg->n && !e; i++)
      if (!strcmp(cfg->e[i].env, name)) e = &cfg->e[i];
    if (allowed) continue;
    if (!e)
      return fail(cfg, TESS_ERR_ARG,
                  "unknown environment variable %s (no such key; see --help). Every TESSERA_* "
                  "variable is read as a setting: a variable meant for anything else needs a "
                  "name without the TESSERA_ prefix",
                  quote(name, q));
    snprintf(where, sizeof where, "environment %s='%s'", name, quote(eq + 1, q));
    snprintf(from, sizeof from, "env %s", name);
    tess_err rc = set_value(cfg, e, eq + 1, where, from);
    if (rc) return rc;
  }
  return TESS_OK;
}

/* ---- INI files ----------------------------------------------------------------------------- */

typedef struct {
  tess_config_t cfg;
  const char *name; /* the file name in messages */
  const char *text; /* the source: a string, */
  FILE *f;          /* or a file */
  int line, bad;    /* lines handed to libinih; the line of the first error we found, or 0 */
  int read_errno;
  int *seen; /* per entry: the line that set it in this source, or 0 */
} source;

/* After an error: libinih gets an empty line, then the end of the input. */
static char *refuse(source *s, char *buf) {
  s->bad = s->line;
  strcpy(buf, "\n");
  return buf;
}

/* libinih ignores text after "[section]" and calls us for keys only: section lines are checked
 * here, so that an unknown section is named on its own line. */
static char *check_section(source *s, char *buf) {
  char *close = strchr(buf, ']'), *after = close ? close + 1 : NULL, q[QUOTE], list[512];
  if (!close) return buf; /* libinih reports the syntax error */
  *close = 0;
  while (isspace((unsigned char)*after))
    after++;
  const size_t len = (size_t)(close - buf - 1);
  if (*after) {
    fail(s->cfg, TESS_ERR_ARG, "%s:%d: text after [%s]", s->name, s->line, quote(buf + 1, q));
  } else if (!find_in(s->cfg, buf + 1, len, NULL)) {
    known(s->cfg, buf + 1, len, list, sizeof list);
    fail(s->cfg, TESS_ERR_ARG, "%s:%d: unknown section [%s] (%s)", s->name, s->line,
         quote(buf + 1, q), list);
  } else {
    *close = ']';
    return buf;
  }
  return refuse(s, buf);
}

/* libinih's reader: one line per call (so libinih's count is ours), comment cut, leading
 * blanks dropped; NUL characters and lines that do not fit libinih's buffer are errors. */
static char *read_line(char *buf, int num, void *stream) {
  source *s = stream;
  int c, n = 0, any = 0, comment = 0, nul = 0, longer = 0;
  if (s->bad) return NULL; /* stop at the first error */
  for (;;) {
    c = s->f ? getc(s->f) : *s->text ? (unsigned char)*s->text++ : EOF;
    if (c == EOF || c == '\n') break;
    any = 1;
    /* a comment starts a line or follows a blank: "0.04;0873" is a malformed value, not 0.04 */
    comment |= (c == '#' || c == ';') && (n == 0 || isspace((unsigned char)buf[n - 1]));
    if (comment || (n == 0 && isspace(c))) continue;
    nul |= c == 0;
    if (n < num - 2)
      buf[n++] = (char)c;
    else
      longer = 1;
  }
  if (c == EOF && s->f && ferror(s->f)) s->read_errno = errno;
  if (c == EOF && !any) return NULL;
  s->line++;
  strcpy(buf + n, "\n");
  if (nul || longer) {
    if (nul)
      fail(s->cfg, TESS_ERR_ARG, "%s:%d: NUL character", s->name, s->line);
    else
      fail(s->cfg, TESS_ERR_ARG, "%s:%d: line too long (at most %d characters before a comment)",
           s->name, s->line, num - 2);
    return refuse(s, buf);
  }
  return buf[0] == '[' ? check_section(s, buf) : buf;
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
  source *s = user;
  char where[512];
  snprintf(where, sizeof where, "%s:%d", s->name, s->line);
  entry *e = *section ? find_in(s->cfg, section, strlen(section), name) : NULL;
  int *first = e && s->seen ? &s->seen[e - s->cfg->e] : NULL;
  char q[QUOTE];
  tess_err rc;
  if (first && *first)
    rc = fail(s->cfg, TESS_ERR_ARG, "%s: %s is set twice in this file (first on line %d)", where,
              e->o.key, *first);
  else if (e && (strstr(value, " =") || strstr(value, "= ")))
    rc = fail(s->cfg, TESS_ERR_ARG,
              "%s: value '%s' for %s holds ' = ' (one key = value per line; a value may hold '=' "
              "only without blanks around it)",
              where, quote(value, q), e->o.key);
  else
    rc = e ? set_value(s->cfg, e, value, where, where) : unknown(s->cfg, where, section, name);
  if (first && !rc) *first = s->line;
  if (rc) s->bad = s->line;
  return rc == TESS_OK;
}

static tess_err parse_source(source *s) {
  s->seen = calloc(s->cfg->n ? s->cfg->n : 1, sizeof *s->seen);
  if (!s->seen) return fail(s->cfg, TESS_ERR_MEM, "%s: out of memory", s->name);
  const int r = ini_parse_stream(read_line, s, on_key, s);
  free(s->seen);
  s->seen = NULL;
  if (s->read_errno)
    return fail(s->cfg, TESS_ERR_IO, "cannot read config file '%s': %s", s->name,
                strerror(s->read_errno));
  if (r > 0 && (!s->bad || r < s->bad))
    return fail(s->cfg, TESS_ERR_ARG,
                "%s:%d: syntax error (expected [section], key = value or "
                "a comment)",
                s->name, r);
  if (s->bad) return TESS_ERR_ARG;
  return r < 0 ? fail(s->cfg, TESS_ERR_MEM, "%s: out of memory", s->name) : TESS_OK;
}

tess_err tess_config_parse_file(tess_config_t cfg, const char *path) {
  if (!cfg || !path) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return fail(cfg, TESS_ERR_IO, "cannot read config file '%s': %s", path, strerror(errno));
  source s = {.cfg = cfg, .name = path, .f = f};
  const tess_err rc = parse_source(&s);
  fclose(f);
  return rc;
}

tess_err tess_config_parse_string(tess_config_t cfg, const char *text, const char *name) {
  if (!cfg || !text) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  source s = {.cfg = cfg, .name = name ? name : "(string)", .text = text};
  return parse_source(&s);
}

/* ---- command line -------------------------------------------------------------------------- */

enum { OPT_CONFIG = 0x100, OPT_SET, OPT_PRINT, OPT_FLAG };

/* Edit distance (insertions, deletions, substitutions), capped at 9. */
static int distance(const char *a, int na, const char *b) {
  const int nb = (int)strlen(b);
  if (na > 40 || nb > 40) return 9;
  int d[41][41];
  for (int i = 0; i <= na; i++)
    d[i][0] = i;
  for (int j = 0; j <= nb; j++)
    d[0][j] = j;
  for (int i = 1; i <= na; i++)
    for (int j = 1; j <= nb; j++) {
      int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      d[i][j] = v;
    }
  return d[na][nb] < 9 ? d[na][nb] : 9;
}

/* " (did you mean --steps?)" for the long option nearest to the unknown name (at most 2 edits,
 * or a prefix of it), else "". */
static const char *suggest(const struct option *lo, const char *name, int len, char *buf,
                           size_t n) {
  int best = 3, at = -1;
  for (int k = 0; lo[k].name; k++) {
    int dist = distance(name, len, lo[k].name);
    if (len >= 3 && !strncmp(lo[k].name, name, (size_t)len)) dist = 1; /* --ste: --steps */
    if (dist < best) best = dist, at = k;
  }
  if (at < 0) return "";
  snprintf(buf, n, "; did you mean --%s?", lo[at].name);
  return buf;
}

/* One pass over argv. Pass 0 checks it all and notes --help and --print-config; pass 1 reads
 * the --config files; pass 2 applies flags and --set. */
static tess_err walk(tess_config_t cfg, int argc, char *const argv[], const struct option *lo,
                     int pass, int *help, int *print) {
  char q[QUOTE];
  optind = 0; /* glibc: start afresh */
  opterr = 0;
  for (;;) {
    const int at = optind > 0 ? optind : 1;
    int li = -1;
    const int c = getopt_long(argc, argv, "-:h", lo, &li); /* '-': in order, no permuting */
    const char *arg = at < argc ? argv[at] : "";
    const int len = (int)strcspn(arg, "=");
    tess_err rc = TESS_OK;
    if (c == -1) break;
    if (pass == 0) {
      if (c == 1) return fail(cfg, TESS_ERR_ARG, "unexpected argument '%s'", quote(optarg, q));
      if (c == ':')
        return fail(cfg, TESS_ERR_ARG, "option '%.*s' needs a value", len, quote(arg, q));
      if (c == '?' && (optopt == 'h' || optopt == OPT_PRINT))
        return fail(cfg, TESS_ERR_ARG, "option '%.*s' takes no value", len, quote(arg, q));
      if (c == '?' && optopt)
        return fail(cfg, TESS_ERR_ARG, "unknown option '-%c' (see --help)",
                    isprint(optopt) ? optopt : '?');
      /* getopt_long takes unambiguous abbreviations; we do not (they break when options are
       * added). */
      if (c == '?' || (li >= 0 && (strncmp(arg, "--", 2) || len != 2 + (int)strlen(lo[li].name) ||
                                   strncmp(arg + 2, lo[li].name, strlen(lo[li].name))))) {
        char hint[96] = "";
        if (!strncmp(arg, "--", 2)) suggest(lo, arg + 2, len - 2, hint, sizeof hint);
        return fail(cfg, TESS_ERR_ARG, "unknown option '%.*s' (see --help%s)",
                    len < QUOTE - 8 ? len : QUOTE - 8, quote(arg, q), hint);
      }
      /* "--out --dry-run": getopt takes the next option as the value, and the option is lost
       * (here: a run instead of a dry run). A separate value cannot look like a long option. */
      if (optarg && li >= 0 && arg[len] != '=' && !strncmp(optarg, "--", 2))
        return fail(cfg, TESS_ERR_ARG,
                    "option '--%s' needs a value, got the option '%s' (write --%s=VALUE for a "
                    "value that starts with --)",
                    lo[li].name, quote(optarg, q), lo[li].name);
      *help |= c == 'h';
      *print |= c == OPT_PRINT;
    } else if (pass == 1 && c == OPT_CONFIG) {
      rc = tess_config_parse_file(cfg, optarg);
    } else if (pass == 2 && c == OPT_SET) {
      const char *eq = strchr(optarg, '='), *dot = strchr(optarg, '.');
      char key[LINE];
      if (!eq || !dot || dot > eq || eq - optarg >= LINE)
        return fail(cfg, TESS_ERR_ARG, "--set expects section.key=value, got '%s'",
                    quote(optarg, q));
      snprintf(key, sizeof key, "%.*s", (int)(eq - optarg), optarg);
      rc = set_key(cfg, trim(key), eq + 1, "--set");
    } else if (pass == 2 && c >= OPT_FLAG) {
      char flag[64];
      snprintf(flag, sizeof flag, "--%s", lo[li].name);
      rc = set_value(cfg, &cfg->e[c - OPT_FLAG], optarg ? optarg : "true", flag, flag);
    }
    if (rc) return rc;
  }
  if (pass == 0 && optind < argc) /* what follows "--" */
    return fail(cfg, TESS_ERR_ARG, "unexpected argument '%s'", quote(argv[optind], q));
  return TESS_OK;
}

tess_err tess_config_parse(tess_config_t cfg, int argc, char *const argv[], int *exit_now) {
  int dummy, help = 0, print = 0;
  if (!exit_now) exit_now = &dummy;
  *exit_now = 0;
  if (!cfg || argc < 0 || (argc > 0 && !argv)) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  struct option *lo = calloc(cfg->n + 5, sizeof *lo);
  if (!lo) return fail(cfg, TESS_ERR_MEM, "out of memory");
  lo[0] = (struct option){"config", required_argument, NULL, OPT_CONFIG};
  lo[1] = (struct option){"set", required_argument, NULL, OPT_SET};
  lo[2] = (struct option){"print-config", no_argument, NULL, OPT_PRINT};
  lo[3] = (struct option){"help", no_argument, NULL, 'h'};
  for (size_t i = 0, k = 4; i < cfg->n; i++)
    if (cfg->e[i].o.flag)
      lo[k++] =
          (struct option){cfg->e[i].o.flag,
                          cfg->e[i].o.type == TESS_OPT_BOOL ? optional_argument : required_argument,
                          NULL, OPT_FLAG + (int)i};
  const int saved_optind = optind, saved_opterr = opterr;
  tess_err rc = walk(cfg, argc, argv, lo, 0, &help, &print);
  if (!rc && help) {
    if (cfg->out) tess_config_usage(cfg, cfg->out);
    *exit_now = 1;
  } else {
    if (!rc) rc = tess_config_parse_env(cfg, NULL);
    if (!rc) rc = walk(cfg, argc, argv, lo, 1, &help, &print);
    if (!rc) rc = walk(cfg, argc, argv, lo, 2, &help, &print);
    if (!rc && print && cfg->out) rc = tess_config_write(cfg, cfg->out);
    *exit_now = !rc && print;
  }
  optind = saved_optind;
  opterr = saved_opterr;
  free(lo);
  return rc;
}

/* ---- output -------------------------------------------------------------------------------- */

/* Calls fn(cfg, e, f, first) for every entry, grouped by section in order of first mention. */
static void by_section(tess_config_t cfg, FILE *f, void (*fn)(const entry *, FILE *, int)) {
  for (size_t i = 0; i < cfg->n; i++) {
    const entry *s = &cfg->e[i];
    if (find_in(cfg, s->o.key, s->dot, NULL) != s) continue;
    for (size_t j = i; j < cfg->n; j++)
      if (cfg->e[j].dot == s->dot && !strncmp(cfg->e[j].o.key, s->o.key, s->dot))
        fn(&cfg->e[j], f, j == i);
  }
}

static void write_entry(const entry *e, FILE *f, int first) {
  char v[LINE];
  format_value(&e->o, v, sizeof v);
  if (first) fprintf(f, "\n[%.*s]\n", (int)e->dot, e->o.key);
  fprintf(f, "%s = %s  # ", e->o.key + e->dot + 1, v);
  for (const char *h = e->o.help; *h; h++)
    fputc((unsigned char)*h < 0x20 ? ' ' : *h, f);
  if (strcmp(e->from, "default"))
    fprintf(f, " [%s, default %s]\n", e->from, e->def);
  else
    fprintf(f, " [default]\n");
}

void tess_config_summary(tess_config_t cfg, FILE *f) {
  if (!cfg || !f) return;
  int n = 0;
  for (size_t i = 0; i < cfg->n; i++)
    n += strcmp(cfg->e[i].from, "default") != 0;
  fprintf(f, "%s: %d setting%s not at the default%s", cfg->prog, n, n == 1 ? "" : "s",
          n ? ":" : "");
  for (size_t i = 0, k = 0; i < cfg->n; i++) {
    const entry *e = &cfg->e[i];
    if (!strcmp(e->from, "default")) continue;
    char v[LINE];
    format_value(&e->o, v, sizeof v);
    fprintf(f, "%s %s = %s [%s]", k++ ? "," : "", e->o.key, v, e->from);
  }
  fprintf(f, "\n");
  fflush(f);
}

tess_err tess_config_write(tess_config_t cfg, FILE *f) {
  if (!cfg || !f) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  fprintf(f, "# %s: effective configuration (defaults < environment < files < command line)\n",
          cfg->prog);
  by_section(cfg, f, write_entry);
  if (fflush(f) || ferror(f))
    return fail(cfg, TESS_ERR_IO, "cannot write the configuration: %s", strerror(errno));
  return TESS_OK;
}

static void usage_entry(const entry *e, FILE *f, int first) {
  char d[320];
  describe(&e->o, d, sizeof d);
  if (first) fprintf(f, "\n[%.*s]\n", (int)e->dot, e->o.key);
  fprintf(f, "  %s = %s%s%s%s\n      %s; %s\n", e->o.key + e->dot + 1, e->def,
          e->o.flag ? "   --" : "", e->o.flag ? e->o.flag : "",
          e->o.flag && e->o.type == TESS_OPT_BOOL ? "[=BOOL]" : "", e->o.help,
          d + (strncmp(d, "expected ", 9) ? 0 : 9));
}

void tess_config_usage(tess_config_t cfg, FILE *f) {
  if (!cfg || !f) return;
  fprintf(
      f,
      "usage: %s [--config FILE]... [--set SECTION.KEY=VALUE]... [options]\n"
      "  --config FILE            read an INI file: [section] lines, then key = value lines;\n"
      "                           '#' and ';' start comments at a line's start or after a blank\n"
      "                           (later files win; a key once per file)\n"
      "  --set SECTION.KEY=VALUE  set any key below\n"
      "  --print-config           print the effective configuration and exit\n"
      "  -h, --help               print this help and exit\n"
      "Every key can also be set in the environment as TESSERA_<SECTION>_<KEY>.\n"
      "Precedence: defaults < environment < --config files < the other options, in order.\n"
      "Keys by section (key = default   --flag):\n",
      cfg->prog);
  by_section(cfg, f, usage_entry);
}

tess_err tess_config_save(tess_config_t cfg, const char *path) {
  if (!cfg || !path) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  const size_t n = strlen(path) + 5;
  char *tmp = malloc(n);
  if (!tmp) return fail(cfg, TESS_ERR_MEM, "out of memory");
  snprintf(tmp, n, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  int ok = f && !tess_config_write(cfg, f) && !fsync(fileno(f)), err = errno;
  if (f && fclose(f) && ok) ok = 0, err = errno;
  if (ok && rename(tmp, path)) ok = 0, err = errno;
  if (!ok && f) unlink(tmp);
  free(tmp);
  return ok ? TESS_OK
            : fail(cfg, TESS_ERR_IO, "cannot write config file '%s': %s", path, strerror(err));
}

char *tess_config_to_string(tess_config_t cfg) {
  char *text = NULL;
  size_t len = 0;
  if (!cfg) return NULL;
  FILE *f = open_memstream(&text, &len);
  if (!f) return fail(cfg, TESS_ERR_MEM, "out of memory"), NULL;
  const tess_err rc = tess_config_write(cfg, f);
  if (fclose(f) || rc) {
    free(text);
    return NULL;
  }
  return text;
}

/* ---- the table ------------------------------------------------------------------------------ */

/* 1..MAX_PART characters of [a-z0-9] and `extra`. */
static int valid_name(const char *s, size_t n, const char *extra) {
  if (n < 1 || n > MAX_PART) return 0;
  for (size_t k = 0; k < n; k++)
    if (!(islower((unsigned char)s[k]) || isdigit((unsigned char)s[k]) || strchr(extra, s[k])))
      return 0;
  return 1;
}

static tess_err check_opt(tess_config_t cfg, entry *e) {
  tess_opt *o = &e->o;
  char q[QUOTE];
  const char *dot = o->key ? strchr(o->key, '.') : NULL, *why = NULL;
  if (!dot || !valid_name(o->key, (size_t)(dot - o->key), "_") ||
      !valid_name(dot + 1, strlen(dot + 1), "_"))
    return fail(cfg, TESS_ERR_ARG, "tess_config_add: key '%s' is not section.name ([a-z0-9_])",
                o->key ? quote(o->key, q) : "(null)");
  e->dot = (size_t)(dot - o->key);
  if ((unsigned)o->type > TESS_OPT_DOUBLES3 || !o->ptr || isnan(o->min) || isnan(o->max) ||
      (o->type == TESS_OPT_STRING && (!o->size || !memchr(o->ptr, 0, o->size))))
    return fail(cfg, TESS_ERR_ARG, "tess_config_add: %s: bad type, pointer, size or range", o->key);
  if (o->flag && (!valid_name(o->flag, strlen(o->flag), "-") || !islower((unsigned char)*o->flag)))
    return fail(cfg, TESS_ERR_ARG, "tess_config_add: %s: flag '%s' is not [a-z][a-z0-9-]*", o->key,
                quote(o->flag, q));
  for (size_t k = 0; o->flag && k < sizeof reserved_flags / sizeof *reserved_flags; k++)
    if (!strcmp(o->flag, reserved_flags[k]))
      return fail(cfg, TESS_ERR_ARG, "tess_config_add: %s: flag --%s is Tessera's own", o->key,
                  o->flag);
  if (!o->help) o->help = "";
  size_t k = (size_t)snprintf(e->env, sizeof e->env, "TESSERA_");
  for (const char *c = o->key; *c; c++)
    e->env[k++] = *c == '.' ? '_' : (char)toupper(*c);
  e->env[k] = 0;
  for (size_t i = 0; i < cfg->n; i++) {
    const entry *x = &cfg->e[i];
    if (!strcmp(x->o.key, o->key) || !strcmp(x->env, e->env) ||
        (o->flag && x->o.flag && !strcmp(x->o.flag, o->flag)))
      return fail(cfg, TESS_ERR_ARG, "tess_config_add: %s clashes with %s (key, flag or %s)",
                  o->key, x->o.key, e->env);
  }
  parsed v;
  format_value(o, e->def, sizeof e->def);
  if (parse_value(o, e->def, &v, &why))
    return fail(cfg, TESS_ERR_ARG, "tess_config_add: the default '%s' of %s is not allowed",
                quote(e->def, q), o->key);
  strcpy(e->from, "default");
  return TESS_OK;
}

tess_err tess_config_add(tess_config_t cfg, const tess_opt *opts, size_t n) {
  if (!cfg || (n && !opts)) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  if (!n) return TESS_OK;
  entry *e = realloc(cfg->e, (cfg->n + n) * sizeof *e);
  if (!e) return fail(cfg, TESS_ERR_MEM, "out of memory");
  cfg->e = e;
  const size_t n0 = cfg->n;
  for (size_t i = 0; i < n; i++) {
    memset(&cfg->e[cfg->n], 0, sizeof *e);
    cfg->e[cfg->n].o = opts[i];
    const tess_err rc = check_opt(cfg, &cfg->e[cfg->n]);
    if (rc) {
      cfg->n = n0; /* all or nothing */
      return rc;
    }
    cfg->n++;
  }
  return TESS_OK;
}

tess_err tess_config_create(const char *prog, tess_config_t *cfg) {
  if (!cfg) return TESS_ERR_ARG;
  *cfg = calloc(1, sizeof **cfg);
  if (!*cfg) return TESS_ERR_MEM;
  quote(prog ? prog : "tessera", (*cfg)->prog);
  (*cfg)->out = stdout;
  return TESS_OK;
}

void tess_config_destroy(tess_config_t *cfg) {
  if (!cfg || !*cfg) return;
  free((*cfg)->e);
  free(*cfg);
  *cfg = NULL;
}

void tess_config_set_output(tess_config_t cfg, FILE *out) {
  if (cfg) cfg->out = out;
}

const char *tess_config_error(tess_config_t cfg) { return cfg ? cfg->err : ""; }

const char *tess_config_source(tess_config_t cfg, const char *key) {
  const entry *e = cfg && key ? find_key(cfg, key) : NULL;
  return e ? e->from : NULL;
}

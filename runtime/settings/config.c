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
 * files, then apply the flags and --set; so files rank below flags wherever they stand.
 *
 * This file holds the table, the values and the printouts; config_sources.c the three
 * sources. Both need libc and libinih only (no MPI or StarPU calls): the unit test and the
 * fuzzer link them alone.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "config_impl.h"

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

/* Flags the command line itself uses. */
static const char *const reserved_flags[] = {"config", "set", "help", "print-config"};

tess_err cfg_fail(tess_config_t cfg, tess_err code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cfg->err, sizeof cfg->err, fmt, ap);
  va_end(ap);
  return code;
}

/* User text for a message: control characters as '?', cut after 56 characters. */
const char *cfg_quote(const char *s, char b[QUOTE]) {
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

char *cfg_trim(char *s) {
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
    p = cfg_trim(p);
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
tess_err cfg_set_value(tess_config_t cfg, entry *e, const char *raw, const char *prefix,
                       const char *from) {
  const tess_opt *o = &e->o;
  char buf[LINE + 2], q[QUOTE], d[320];
  const int fits = (size_t)snprintf(buf, sizeof buf, "%s", raw) < sizeof buf - 1;
  char *s = cfg_trim(buf);
  const char *why = NULL, *sep = prefix ? ": " : "";
  parsed v;
  const int r = fits ? parse_value(o, s, &v, &why) : 1;
  if (r == 1 && !why) describe(o, d, sizeof d), why = d;
  if (r == 1)
    return cfg_fail(cfg, TESS_ERR_ARG, "%s%smalformed value '%s' for %s (%s)", prefix ? prefix : "",
                    sep, cfg_quote(s, q), o->key, why);
  if (r == 2) {
    range_text(o, d, sizeof d);
    return cfg_fail(cfg, TESS_ERR_ARG, "%s%svalue %s for %s is out of range (allowed: %s)",
                    prefix ? prefix : "", sep, cfg_quote(s, q), o->key, d);
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
entry *cfg_find_in(tess_config_t cfg, const char *sec, size_t len, const char *name) {
  for (size_t i = 0; i < cfg->n; i++) {
    entry *e = &cfg->e[i];
    if (e->dot == len && !strncmp(e->o.key, sec, len) &&
        (!name || !strcmp(e->o.key + len + 1, name)))
      return e;
  }
  return NULL;
}

/* "known: a, b, c" (the names of a known section) or "known sections: x, y". */
void cfg_known(tess_config_t cfg, const char *sec, size_t len, char *b, size_t n) {
  const int names = cfg_find_in(cfg, sec, len, NULL) != NULL;
  size_t k = (size_t)snprintf(b, n, names ? "known: " : "known sections: "), count = 0;
  for (size_t i = 0; i < cfg->n; i++) {
    const entry *e = &cfg->e[i];
    if (names ? e->dot != len || strncmp(e->o.key, sec, len)
              : cfg_find_in(cfg, e->o.key, e->dot, NULL) != e)
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
tess_err cfg_unknown(tess_config_t cfg, const char *where, const char *sec, const char *name) {
  char qn[QUOTE], qs[QUOTE], list[512];
  cfg_known(cfg, sec, strlen(sec), list, sizeof list);
  if (!*sec) {
    for (size_t i = 0; i < cfg->n; i++)
      if (!strcmp(cfg->e[i].o.key + cfg->e[i].dot + 1, name))
        return cfg_fail(cfg, TESS_ERR_ARG,
                        "%s: key '%s' outside any section (write it under [%.*s])", where,
                        cfg_quote(name, qn), (int)cfg->e[i].dot, cfg->e[i].o.key);
    return cfg_fail(cfg, TESS_ERR_ARG, "%s: key '%s' outside any section (%s)", where,
                    cfg_quote(name, qn), list);
  }
  return cfg_fail(cfg, TESS_ERR_ARG, "%s: unknown key '%s' in section [%s] (%s)", where,
                  cfg_quote(name, qn), cfg_quote(sec, qs), list);
}

/* A value by full key, for --set and tess_config_set. */
tess_err cfg_set_key(tess_config_t cfg, const char *key, const char *value, const char *where) {
  entry *e = find_key(cfg, key);
  if (e) return cfg_set_value(cfg, e, value, where, where ? where : "set");
  char q[QUOTE], list[512];
  const char *dot = strchr(key, '.');
  cfg_known(cfg, key, dot ? (size_t)(dot - key) : 0, list, sizeof list);
  return cfg_fail(cfg, TESS_ERR_ARG, "%s%sunknown key '%s' (%s)", where ? where : "",
                  where ? ": " : "", cfg_quote(key, q), list);
}

tess_err tess_config_set(tess_config_t cfg, const char *key, const char *value, const char *where) {
  if (!cfg || !key || !value) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  return cfg_set_key(cfg, key, value, where);
}

/* ---- output -------------------------------------------------------------------------------- */

/* Calls fn(cfg, e, f, first) for every entry, grouped by section in order of first mention. */
static void by_section(tess_config_t cfg, FILE *f, void (*fn)(const entry *, FILE *, int)) {
  for (size_t i = 0; i < cfg->n; i++) {
    const entry *s = &cfg->e[i];
    if (cfg_find_in(cfg, s->o.key, s->dot, NULL) != s) continue;
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

/* Whether e's value differs from its default: a source that sets the default's value again
 * (`--steps 1000` where 1000 is the default) changes nothing worth naming. Values compare by
 * their printed form, which reads back to the same value (fmt_double). */
static int not_default(const entry *e, char *v, size_t n) {
  format_value(&e->o, v, n);
  return strcmp(e->from, "default") != 0 && strcmp(v, e->def) != 0;
}

void tess_config_summary(tess_config_t cfg, FILE *f) {
  if (!cfg || !f) return;
  int n = 0;
  char v[LINE];
  for (size_t i = 0; i < cfg->n; i++)
    n += not_default(&cfg->e[i], v, sizeof v);
  fprintf(f, "%s: %d setting%s not at the default%s", cfg->prog, n, n == 1 ? "" : "s",
          n ? ":" : "");
  for (size_t i = 0, k = 0; i < cfg->n; i++) {
    const entry *e = &cfg->e[i];
    if (!not_default(e, v, sizeof v)) continue;
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
    return cfg_fail(cfg, TESS_ERR_IO, "cannot write the configuration: %s", strerror(errno));
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
  if (!tmp) return cfg_fail(cfg, TESS_ERR_MEM, "out of memory");
  snprintf(tmp, n, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  int ok = f && !tess_config_write(cfg, f) && !fsync(fileno(f)), err = errno;
  if (f && fclose(f) && ok) ok = 0, err = errno;
  if (ok && rename(tmp, path)) ok = 0, err = errno;
  if (!ok && f) unlink(tmp);
  free(tmp);
  return ok ? TESS_OK
            : cfg_fail(cfg, TESS_ERR_IO, "cannot write config file '%s': %s", path, strerror(err));
}

char *tess_config_to_string(tess_config_t cfg) {
  char *text = NULL;
  size_t len = 0;
  if (!cfg) return NULL;
  FILE *f = open_memstream(&text, &len);
  if (!f) return cfg_fail(cfg, TESS_ERR_MEM, "out of memory"), NULL;
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
    return cfg_fail(cfg, TESS_ERR_ARG, "tess_config_add: key '%s' is not section.name ([a-z0-9_])",
                    o->key ? cfg_quote(o->key, q) : "(null)");
  e->dot = (size_t)(dot - o->key);
  if ((unsigned)o->type > TESS_OPT_DOUBLES3 || !o->ptr || isnan(o->min) || isnan(o->max) ||
      (o->type == TESS_OPT_STRING && (!o->size || !memchr(o->ptr, 0, o->size))))
    return cfg_fail(cfg, TESS_ERR_ARG, "tess_config_add: %s: bad type, pointer, size or range",
                    o->key);
  if (o->flag && (!valid_name(o->flag, strlen(o->flag), "-") || !islower((unsigned char)*o->flag)))
    return cfg_fail(cfg, TESS_ERR_ARG, "tess_config_add: %s: flag '%s' is not [a-z][a-z0-9-]*",
                    o->key, cfg_quote(o->flag, q));
  for (size_t k = 0; o->flag && k < sizeof reserved_flags / sizeof *reserved_flags; k++)
    if (!strcmp(o->flag, reserved_flags[k]))
      return cfg_fail(cfg, TESS_ERR_ARG, "tess_config_add: %s: flag --%s is Tessera's own", o->key,
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
      return cfg_fail(cfg, TESS_ERR_ARG, "tess_config_add: %s clashes with %s (key, flag or %s)",
                      o->key, x->o.key, e->env);
  }
  parsed v;
  format_value(o, e->def, sizeof e->def);
  if (parse_value(o, e->def, &v, &why))
    return cfg_fail(cfg, TESS_ERR_ARG, "tess_config_add: the default '%s' of %s is not allowed",
                    cfg_quote(e->def, q), o->key);
  strcpy(e->from, "default");
  return TESS_OK;
}

tess_err tess_config_add(tess_config_t cfg, const tess_opt *opts, size_t n) {
  if (!cfg || (n && !opts)) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  if (!n) return TESS_OK;
  entry *e = realloc(cfg->e, (cfg->n + n) * sizeof *e);
  if (!e) return cfg_fail(cfg, TESS_ERR_MEM, "out of memory");
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
  cfg_quote(prog ? prog : "tessera", (*cfg)->prog);
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

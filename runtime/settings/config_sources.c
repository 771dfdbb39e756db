/* config_sources.c — where values come from: the environment (TESSERA_SECTION_NAME), INI files
 * and strings (libinih fed by our own line reader), and the command line (getopt_long, three
 * walks). Every value ends in cfg_set_value() of config.c; the rules are in config.c's header.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "config_impl.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#ifdef TESS_SIMGRID
/* smpicc turns getopt_long into SMPI's, which restores its own saved optind on every call and so
 * undoes walk()'s restart of each pass; the parse never yields to another simulated rank, so
 * glibc's own is right here. */
#undef getopt_long
#endif
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

extern char **environ;

/* Variables named TESSERA_* that scripts use for themselves, not keys. */
static const char *const env_allowed[] = {"TESSERA_CACHE", "TESSERA_RT"};

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
      return cfg_fail(cfg, TESS_ERR_ARG,
                      "unknown environment variable %s (no such key; see --help). Every TESSERA_* "
                      "variable is read as a setting: a variable meant for anything else needs a "
                      "name without the TESSERA_ prefix",
                      cfg_quote(name, q));
    snprintf(where, sizeof where, "environment %s='%s'", name, cfg_quote(eq + 1, q));
    snprintf(from, sizeof from, "env %s", name);
    tess_err rc = cfg_set_value(cfg, e, eq + 1, where, from);
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
    cfg_fail(s->cfg, TESS_ERR_ARG, "%s:%d: text after [%s]", s->name, s->line,
             cfg_quote(buf + 1, q));
  } else if (!cfg_find_in(s->cfg, buf + 1, len, NULL)) {
    cfg_known(s->cfg, buf + 1, len, list, sizeof list);
    cfg_fail(s->cfg, TESS_ERR_ARG, "%s:%d: unknown section [%s] (%s)", s->name, s->line,
             cfg_quote(buf + 1, q), list);
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
      cfg_fail(s->cfg, TESS_ERR_ARG, "%s:%d: NUL character", s->name, s->line);
    else
      cfg_fail(s->cfg, TESS_ERR_ARG,
               "%s:%d: line too long (at most %d characters before a comment)", s->name, s->line,
               num - 2);
    return refuse(s, buf);
  }
  return buf[0] == '[' ? check_section(s, buf) : buf;
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
  source *s = user;
  char where[512];
  snprintf(where, sizeof where, "%s:%d", s->name, s->line);
  entry *e = *section ? cfg_find_in(s->cfg, section, strlen(section), name) : NULL;
  int *first = e && s->seen ? &s->seen[e - s->cfg->e] : NULL;
  char q[QUOTE];
  tess_err rc;
  if (first && *first)
    rc = cfg_fail(s->cfg, TESS_ERR_ARG, "%s: %s is set twice in this file (first on line %d)",
                  where, e->o.key, *first);
  else if (e && (strstr(value, " =") || strstr(value, "= ")))
    rc = cfg_fail(
        s->cfg, TESS_ERR_ARG,
        "%s: value '%s' for %s holds ' = ' (one key = value per line; a value may hold '=' "
        "only without blanks around it)",
        where, cfg_quote(value, q), e->o.key);
  else
    rc = e ? cfg_set_value(s->cfg, e, value, where, where)
           : cfg_unknown(s->cfg, where, section, name);
  if (first && !rc) *first = s->line;
  if (rc) s->bad = s->line;
  return rc == TESS_OK;
}

static tess_err parse_source(source *s) {
  s->seen = calloc(s->cfg->n ? s->cfg->n : 1, sizeof *s->seen);
  if (!s->seen) return cfg_fail(s->cfg, TESS_ERR_MEM, "%s: out of memory", s->name);
  const int r = ini_parse_stream(read_line, s, on_key, s);
  free(s->seen);
  s->seen = NULL;
  if (s->read_errno)
    return cfg_fail(s->cfg, TESS_ERR_IO, "cannot read config file '%s': %s", s->name,
                    strerror(s->read_errno));
  if (r > 0 && (!s->bad || r < s->bad))
    return cfg_fail(s->cfg, TESS_ERR_ARG,
                    "%s:%d: syntax error (expected [section], key = value or "
                    "a comment)",
                    s->name, r);
  if (s->bad) return TESS_ERR_ARG;
  return r < 0 ? cfg_fail(s->cfg, TESS_ERR_MEM, "%s: out of memory", s->name) : TESS_OK;
}

tess_err tess_config_parse_file(tess_config_t cfg, const char *path) {
  if (!cfg || !path) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f)
    return cfg_fail(cfg, TESS_ERR_IO, "cannot read config file '%s': %s", path, strerror(errno));
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
      if (c == 1)
        return cfg_fail(cfg, TESS_ERR_ARG, "unexpected argument '%s'", cfg_quote(optarg, q));
      if (c == ':')
        return cfg_fail(cfg, TESS_ERR_ARG, "option '%.*s' needs a value", len, cfg_quote(arg, q));
      if (c == '?' && (optopt == 'h' || optopt == OPT_PRINT))
        return cfg_fail(cfg, TESS_ERR_ARG, "option '%.*s' takes no value", len, cfg_quote(arg, q));
      if (c == '?' && optopt)
        return cfg_fail(cfg, TESS_ERR_ARG, "unknown option '-%c' (see --help)",
                        isprint(optopt) ? optopt : '?');
      /* getopt_long takes unambiguous abbreviations; we do not (they break when options are
       * added). */
      if (c == '?' || (li >= 0 && (strncmp(arg, "--", 2) || len != 2 + (int)strlen(lo[li].name) ||
                                   strncmp(arg + 2, lo[li].name, strlen(lo[li].name))))) {
        char hint[96] = "";
        if (!strncmp(arg, "--", 2)) suggest(lo, arg + 2, len - 2, hint, sizeof hint);
        return cfg_fail(cfg, TESS_ERR_ARG, "unknown option '%.*s' (see --help%s)",
                        len < QUOTE - 8 ? len : QUOTE - 8, cfg_quote(arg, q), hint);
      }
      /* "--out --dry-run": getopt takes the next option as the value, and the option is lost
       * (here: a run instead of a dry run). A separate value cannot look like a long option. */
      if (optarg && li >= 0 && arg[len] != '=' && !strncmp(optarg, "--", 2))
        return cfg_fail(cfg, TESS_ERR_ARG,
                        "option '--%s' needs a value, got the option '%s' (write --%s=VALUE for a "
                        "value that starts with --)",
                        lo[li].name, cfg_quote(optarg, q), lo[li].name);
      *help |= c == 'h';
      *print |= c == OPT_PRINT;
    } else if (pass == 1 && c == OPT_CONFIG) {
      rc = tess_config_parse_file(cfg, optarg);
    } else if (pass == 2 && c == OPT_SET) {
      const char *eq = strchr(optarg, '='), *dot = strchr(optarg, '.');
      char key[LINE];
      if (!eq || !dot || dot > eq || eq - optarg >= LINE)
        return cfg_fail(cfg, TESS_ERR_ARG, "--set expects section.key=value, got '%s'",
                        cfg_quote(optarg, q));
      snprintf(key, sizeof key, "%.*s", (int)(eq - optarg), optarg);
      rc = cfg_set_key(cfg, cfg_trim(key), eq + 1, "--set");
    } else if (pass == 2 && c >= OPT_FLAG) {
      char flag[64];
      snprintf(flag, sizeof flag, "--%s", lo[li].name);
      rc = cfg_set_value(cfg, &cfg->e[c - OPT_FLAG], optarg ? optarg : "true", flag, flag);
    }
    if (rc) return rc;
  }
  if (pass == 0 && optind < argc) /* what follows "--" */
    return cfg_fail(cfg, TESS_ERR_ARG, "unexpected argument '%s'", cfg_quote(argv[optind], q));
  return TESS_OK;
}

tess_err tess_config_parse(tess_config_t cfg, int argc, char *const argv[], int *exit_now) {
  int dummy, help = 0, print = 0;
  if (!exit_now) exit_now = &dummy;
  *exit_now = 0;
  if (!cfg || argc < 0 || (argc > 0 && !argv)) return TESS_ERR_ARG;
  cfg->err[0] = 0;
  struct option *lo = calloc(cfg->n + 5, sizeof *lo);
  if (!lo) return cfg_fail(cfg, TESS_ERR_MEM, "out of memory");
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

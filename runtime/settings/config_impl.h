/* config_impl.h — what config.c (values, keys, the table, printing) and config_sources.c
 * (environment, INI files, the command line) share: the entry table and the one path that
 * stores a value. Private to runtime/settings/. */
#ifndef TESS_CONFIG_IMPL_H
#define TESS_CONFIG_IMPL_H

#include "tessera_config.h"

#include <stddef.h>
#include <stdio.h>

enum { LINE = 200, MAX_PART = 40, MAX_STRING = 150, QUOTE = 64 };

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

/* The message of the failing call (cfg->err), returning `code`. */
tess_err cfg_fail(tess_config_t cfg, tess_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* User text for a message: control characters as '?', cut after 56 characters. */
const char *cfg_quote(const char *s, char b[QUOTE]);
char *cfg_trim(char *s);
/* Parse and check `raw` for entry e, then store it and remember `from`. */
tess_err cfg_set_value(tess_config_t cfg, entry *e, const char *raw, const char *prefix,
                       const char *from);
/* A value by full key (--set, tess_config_set); `where` names the place for messages. */
tess_err cfg_set_key(tess_config_t cfg, const char *key, const char *value, const char *where);
/* The entry `name` of section sec[0..len), or (name NULL) the section's first entry. */
entry *cfg_find_in(tess_config_t cfg, const char *sec, size_t len, const char *name);
/* "known: a, b, c" (the names of a known section) or "known sections: x, y". */
void cfg_known(tess_config_t cfg, const char *sec, size_t len, char *b, size_t n);
/* The message for a key of an INI file that matches none (its section is known, or ""). */
tess_err cfg_unknown(tess_config_t cfg, const char *where, const char *sec, const char *name);

#endif

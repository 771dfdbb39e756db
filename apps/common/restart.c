/* restart.c — the one restart rule of every app, for the settings (see restart.h).
 *
 * A checkpoint holds the effective configuration of the run that wrote it (the text of
 * tess_config_to_string: "[section]" lines, then "name = value  # help [source]" lines). A
 * restarted run compares it, setting by setting, with its own:
 *
 *   not defining (output, checkpoint, runtime, init, run length)   ignored
 *   defining and equal                                              nothing to say
 *   defining, changed, in the app's may-change list                 applied and announced
 *   defining, changed, not in the list                              refused, every one listed
 *
 * Values are compared as the configuration prints them (doubles with 17 digits), so "equal"
 * means bitwise equal.
 */
#include "restart.h"

#include <stdio.h>
#include <string.h>

/* Settings that do not define the physics or the discretisation: where the output goes, how long
 * the run is, how the work is spread over ranks and workers, and the initial condition (a restart
 * does not start from it). Everything else must match the checkpoint. */
static int defining(const char *key) {
  static const char *const free_sections[] = {"output.", "checkpoint.", "runtime.", "init.",
                                              "debug."};
  static const char *const free_keys[] = {"run.steps", "run.warmup", "run.dry_run",
                                          "run.check_every", "run.check"};
  for (size_t i = 0; i < sizeof free_sections / sizeof *free_sections; i++)
    if (!strncmp(key, free_sections[i], strlen(free_sections[i]))) return 0;
  for (size_t i = 0; i < sizeof free_keys / sizeof *free_keys; i++)
    if (!strcmp(key, free_keys[i])) return 0;
  return 1;
}

/* The next "key = value" of a configuration text from *pos: key as "section.name", value
 * without its comment. 1, or 0 at the end. */
static int next_setting(const char **pos, char section[64], char key[160], char val[512]) {
  for (const char *p = *pos; *p;) {
    const char *eol = strchr(p, '\n');
    const size_t len = eol ? (size_t)(eol - p) : strlen(p);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    p += len + (eol ? 1 : 0);
    *pos = p;
    if (line[0] == '[') {
      char *end = strchr(line, ']');
      if (end) *end = 0;
      snprintf(section, 64, "%.63s", line + 1);
      continue;
    }
    char *eq = strstr(line, " = ");
    if (line[0] == '#' || !eq || !section[0]) continue;
    *eq = 0;
    char *v = eq + 3, *comment = strstr(v, "  # ");
    if (comment) *comment = 0;
    snprintf(key, 160, "%.63s.%.95s", section, line);
    snprintf(val, 512, "%.511s", v);
    return 1;
  }
  return 0;
}

/* The value of `key` in a configuration text; 1, or 0 when it holds none. */
static int lookup(const char *text, const char *key, char val[512]) {
  char section[64] = "", k[160];
  for (const char *p = text; next_setting(&p, section, k, val);)
    if (!strcmp(k, key)) return 1;
  return 0;
}

/* Is `key` in the comma-separated list? */
static int listed(const char *list, const char *key) {
  const size_t n = strlen(key);
  for (const char *p = list; p && *p;) {
    const char *c = strchr(p, ',');
    const size_t len = c ? (size_t)(c - p) : strlen(p);
    if (len == n && !strncmp(p, key, n)) return 1;
    p = c ? c + 1 : NULL;
  }
  return 0;
}

int tess_restart_compare(const char *prog, const char *path, const char *old_cfg,
                         const char *new_cfg, const char *may_change, int print, int *nchanged) {
  *nchanged = 0;
  if (!old_cfg || !strchr(old_cfg, '[')) {
    if (print)
      fprintf(stderr,
              "%s: checkpoint '%s' records no settings, so a restart cannot check that it "
              "continues the same physics; refused\n",
              prog, path);
    return -1;
  }
  char section[64] = "", key[160], val[512], old[512];
  int refused = 0;
  for (const char *p = new_cfg; next_setting(&p, section, key, val);) {
    if (!defining(key)) continue;
    if (!lookup(old_cfg, key, old)) {
      if (print)
        printf("note: checkpoint '%s' does not record %s (written by an older version); this "
               "run uses %s\n",
               path, key, val);
      continue;
    }
    if (!strcmp(old, val)) continue;
    if (listed(may_change, key)) {
      if (print) printf("restart: %s changed from %s to %s (allowed)\n", key, old, val);
      (*nchanged)++;
      continue;
    }
    if (print) {
      if (!refused)
        fprintf(stderr, "%s: checkpoint '%s' was written with other settings than this run's:\n",
                prog, path);
      fprintf(stderr, "  %s: %s (checkpoint) -> %s (this run)\n", key, old, val);
    }
    refused++;
  }
  if (refused && print)
    fprintf(stderr,
            "%s: refused: a restart continues the checkpoint's physics and discretisation; of "
            "these, this app lets only %s change (docs/reliability.md)\n",
            prog, may_change && *may_change ? may_change : "none");
  return refused ? -1 : 0;
}

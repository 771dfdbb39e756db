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
 * means bitwise equal. tess_app_restart then applies the rest of the rule: the checkpoint's
 * dt and clock against the stability limit, its fields finite, the dt to continue with.
 */
#include "restart.h"

#include <math.h>
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

#define DT_DRIFT 1.5 /* a checkpoint's dt may exceed the limit now by this factor (see below) */

/* The restart rule (docs/reliability.md): the checkpoint, then its settings against this run's
 * (restart.c), then its dt and clock against the stability limit, then its fields finite. Every
 * refusal is agreed by every rank (the checks are collective or rank 0's answer broadcast). */
int tess_app_restart(tess_app *app, tess_sim_t sim, const tess_app_loop *loop, const char *config,
                     double *dt_out, char *from, size_t from_len, int (*check_loaded)(void *),
                     void *arg) {
  const tess_app_settings *s = &app->s;
  const int root = app->root;
  const char *prog = app->prog;
  char path[TESS_APP_PATH + 64];
  int ok = 1;
  if (root) {
    if (strcmp(s->restart, "latest"))
      snprintf(path, sizeof path, "%s", s->restart);
    else
      ok = tess_checkpoint_latest(s->dir, prog, path, sizeof path) == TESS_OK;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  snprintf(from, from_len, "%s", path);
  tess_ckpt_info info = {0};
  if (!ok || tess_sim_checkpoint_read(sim, path, &info)) return -1;
  double ckpt_dt = 0;
  const char *dt = info.app_state ? strstr(info.app_state, "dt=") : NULL;
  if (!dt || sscanf(dt + 3, "%la", &ckpt_dt) != 1) {
    if (root)
      fprintf(stderr,
              "%s: checkpoint '%s' holds no time step (app state '%s'); was it written "
              "by another program?\n",
              prog, path, info.app_state ? info.app_state : "");
    tess_ckpt_info_free(&info);
    return -1;
  }
  int changed = 0;
  ok = !tess_restart_compare(prog, path, info.config, config, loop->restart_may_change, root,
                             &changed);
  tess_ckpt_info_free(&info);
  if (!ok) return -1;
  const long step = tess_sim_step(sim);
  const double time = tess_sim_time(sim);
  if (!(ckpt_dt > 0) || !isfinite(ckpt_dt)) {
    if (root)
      fprintf(stderr, "%s: checkpoint '%s' holds the time step %g (allowed: a finite number > 0)\n",
              prog, path, ckpt_dt);
    return -1;
  }
  if (step > s->steps) {
    if (root)
      fprintf(stderr, "%s: checkpoint '%s' is at step %ld, past run.steps = %ld\n", prog, path,
              step, s->steps);
    return -1;
  }
  /* Its fields before anything is computed from them (the limit below may be). */
  if (check_loaded(arg)) return -1;
  /* The dt to continue with: a dt fixed by the settings is this run's (equal to the
   * checkpoint's unless a setting changed); a dt chosen from the fields is the checkpoint's
   * (bitwise the uninterrupted run), or chosen anew when a setting changed. */
  *dt_out = loop->dt > 0 ? loop->dt : ckpt_dt;
  if (changed && !(loop->dt > 0) && loop->choose_dt && loop->choose_dt(loop->ctx, sim, &*dt_out))
    return -1;
  double limit = HUGE_VAL;
  if (loop->dt_limit && loop->dt_limit(loop->ctx, sim, &limit)) return -1;
  /* A limit that depends on the fields moves between the steps where dt is chosen: the
   * checkpoint's dt, chosen up to dt_every steps before, may exceed today's limit by a little,
   * a forged one by far. A dt fixed by the settings is the user's to choose. */
  const double bound = DT_DRIFT * fmax(limit, loop->dt);
  const char *why = NULL;
  if (!changed && ckpt_dt > bound)
    why = "the checkpoint's time step exceeds the stability limit of these settings";
  else if (changed && *dt_out > limit * (1 + 1e-12) && *dt_out != loop->dt)
    why = "the time step recomputed for the changed settings exceeds their stability limit";
  else if ((step == 0) != (time == 0) ||
           (!changed && loop->dt > 0 && time > (double)step * bound * (1 + 1e-12)))
    why = "its time is not one that its steps can reach with a stable time step";
  if (why) {
    if (root)
      fprintf(stderr,
              "%s: checkpoint '%s' (step %ld, time %.17g, dt %.17g) refused: %s (limit %.9g%s)\n",
              prog, path, step, time, ckpt_dt, why, limit,
              changed ? "" : ", times 1.5 for the drift between choices");
    return -1;
  }
  if (root) {
    printf("restarted from %s at step %ld, time %.9g\n", path, step, time);
    if (*dt_out != ckpt_dt)
      printf("restart: dt %.9g from this run's settings (the checkpoint's was %.9g; stability "
             "limit %.9g); time advances by it from step %ld\n",
             *dt_out, ckpt_dt, limit, step);
    if (*dt_out > limit)
      printf("warning: the time step %.9g set by this run's settings exceeds the stability limit "
             "%.9g of the restarted state\n",
             *dt_out, limit);
  }
  return 0;
}

/* restart.h — the settings a restart may change (restart.c holds the rule).
 */
#ifndef TESS_APP_RESTART_H
#define TESS_APP_RESTART_H

/* The effective configuration stored in checkpoint `path` (old_cfg) against this run's
 * (new_cfg). Every setting defining the physics or the discretisation (all but output.*,
 * checkpoint.*, runtime.*, init.*, debug.* and the run's length) must be equal, or listed in
 * `may_change` (comma-separated keys, or NULL). 0: the run may continue, *nchanged allowed
 * settings differ (each announced "restart: KEY changed from OLD to NEW (allowed)" on stdout
 * where `print`); -1: refused, every difference listed (old -> new) on stderr where `print`. */
int tess_restart_compare(const char *prog, const char *path, const char *old_cfg,
                         const char *new_cfg, const char *may_change, int print, int *nchanged);

#endif

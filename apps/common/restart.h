/* restart.h — the settings a restart may change (restart.c holds the rule).
 */
#ifndef TESS_APP_RESTART_H
#define TESS_APP_RESTART_H

#include <stddef.h>

#include "app.h"

/* The effective configuration stored in checkpoint `path` (old_cfg) against this run's
 * (new_cfg). Every setting defining the physics or the discretisation (all but output.*,
 * checkpoint.*, runtime.*, init.*, debug.* and the run's length) must be equal, or listed in
 * `may_change` (comma-separated keys, or NULL). 0: the run may continue, *nchanged allowed
 * settings differ (each announced "restart: KEY changed from OLD to NEW (allowed)" on stdout
 * where `print`); -1: refused, every difference listed (old -> new) on stderr where `print`. */
int tess_restart_compare(const char *prog, const char *path, const char *old_cfg,
                         const char *new_cfg, const char *may_change, int print, int *nchanged);

/* The restart of tess_app_run (collective): reads checkpoint.restart into sim, compares the
 * settings (above, against this run's `config`), checks dt and the clock against the loop's
 * dt_limit and the loaded fields (check_loaded(arg): 0, or -1 after naming a non-finite
 * value), and sets *dt_out to the dt to continue with, announcing one that differs from the
 * checkpoint's. `from` receives the checkpoint's path. 0, or -1 after a message on rank 0;
 * every rank returns the same. */
int tess_app_restart(tess_app *app, tess_sim_t sim, const tess_app_loop *loop, const char *config,
                     double *dt_out, char *from, size_t from_len, int (*check_loaded)(void *),
                     void *arg);

#endif

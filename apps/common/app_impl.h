/* app_impl.h — what app.c (settings, start-up) and loop.c (the time loop) share; private to
 * apps/common. */
#ifndef TESS_APP_IMPL_H
#define TESS_APP_IMPL_H

#include "app.h"

/* output.snapshot_vars (`list`) -> indices into names[0..n) (sel[], *nsel); 0, or -1 after a
 * message on stderr where `print`: an empty name, a name given twice, an unknown name. */
int tess_app_select_names(const char *prog, const char *list, int n, const char *const names[],
                          int sel[64], int *nsel, int print);

/* Every rank, once: code 0 (set up), 2 (bad input) or 1 (another failure); the largest code is
 * every rank's answer (app->agreed), reached with a deadline (app.c). */
void tess_app_meet(tess_app *app, int code);
/* <output.dir>/<app>.ini once the loop has checked what only it can. Collective; 0 or 1. */
int tess_app_save_ini(tess_app *app);

#endif

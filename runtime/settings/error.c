/* error.c — error raising/tracing and the leveled logger (see error.h). Its own library
 * (tessera_error), below both the runtime and topology/: it asks MPI for the rank itself, so it
 * calls nothing of theirs and the two libraries no longer depend on each other. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int log_level = TESS_LOG_WARN;

/* This process's rank in MPI_COMM_WORLD; -1 outside MPI's lifetime. */
static int world_rank(void) {
  int on = 0, off = 0, r = -1;
  MPI_Initialized(&on);
  if (on) MPI_Finalized(&off);
  if (on && !off) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

static const char *level_tag[] = {"error", "warning", "info", "debug"};

int tess_log_enabled(tess_log_level level) { return (int)level <= log_level; }

tess_err tess_log_set(const char *name) {
  static const char *names[] = {"error", "warn", "info", "debug"};
  if (!name) return TESS_OK;
  for (int i = 0; i < 4; i++)
    if (!strcmp(name, names[i])) {
      log_level = i;
      return TESS_OK;
    }
  return TESS_ERROR(TESS_ERR_ARG, "log level '%s' is invalid (allowed: %s)", name,
                    TESS_LOG_CHOICES);
}

static void vlog(tess_log_level level, const char *fmt, va_list ap) {
  char msg[2048];
  vsnprintf(msg, sizeof msg, fmt, ap);
  fprintf(stderr, "tessera[%d] %s: %s\n", world_rank(), level_tag[level], msg);
}

void tess_log(tess_log_level level, const char *fmt, ...) {
  if (!tess_log_enabled(level)) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(level, fmt, ap);
  va_end(ap);
}

/* Argument errors are deterministic across ranks, so only rank 0 prints them. */
static int should_print(tess_err code) { return code != TESS_ERR_ARG || world_rank() <= 0; }

static tess_err last_error = TESS_OK;
tess_err tess_last_error(void) { return last_error; }

tess_err tess_error_raise(tess_err code, const char *file, int line, const char *func,
                          const char *fmt, ...) {
  last_error = code;
  if (!should_print(code)) return code;
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "tessera[%d] error (%s): %s\n", world_rank(), tess_err_name(code), msg);
  if (tess_log_enabled(TESS_LOG_INFO)) fprintf(stderr, "  at %s:%d (%s)\n", file, line, func);
  return code;
}

tess_err tess_error_trace(tess_err code, const char *file, int line, const char *func) {
  if (should_print(code) && tess_log_enabled(TESS_LOG_INFO))
    fprintf(stderr, "  from %s:%d (%s)\n", file, line, func);
  return code;
}

#define TESS_X_NAME(name, text) text,
static const char *err_names[] = {TESS_ERR_LIST(TESS_X_NAME)};
static const char *mode_names[] = {TESS_MODE_LIST(TESS_X_NAME)};
static const char *device_names[] = {TESS_DEVICE_LIST(TESS_X_NAME)};
static const char *kind_names[] = {TESS_TASK_KIND_LIST(TESS_X_NAME)};
static const char *precision_names[] = {TESS_PRECISION_LIST(TESS_X_NAME)};

const char *tess_err_name(tess_err e) { return (unsigned)e < TESS_ERR_COUNT ? err_names[e] : "?"; }
const char *tess_mode_name(tess_mode m) {
  return (unsigned)m < TESS_MODE_COUNT ? mode_names[m] : "?";
}
const char *tess_device_name(tess_device d) {
  return (unsigned)d < TESS_DEVICE_COUNT ? device_names[d] : "?";
}
const char *tess_precision_name(tess_precision p) {
  return (unsigned)p < TESS_PRECISION_COUNT ? precision_names[p] : "?";
}
const char *tess_task_kind_name(tess_task_kind k) {
  return (unsigned)k < TESS_TASK_KIND_COUNT ? kind_names[k] : "?";
}

static tess_err parse_name(const char *s, const char *const *names, int n, const char *what,
                           int *out) {
  for (int i = 0; i < n; i++)
    if (s && !strcmp(s, names[i])) {
      *out = i;
      return TESS_OK;
    }
  char allowed[256] = "";
  for (int i = 0; i < n; i++) {
    strncat(allowed, names[i], sizeof allowed - strlen(allowed) - 1);
    if (i + 1 < n) strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
  }
  return TESS_ERROR(TESS_ERR_ARG, "unknown %s '%s' (allowed: %s)", what, s ? s : "(null)", allowed);
}

tess_err tess_mode_parse(const char *s, tess_mode *m) {
  int v = 0; /* set by parse_name on success; gcc -O3 cannot see it */
  TESS_CALL(parse_name(s, mode_names, TESS_MODE_COUNT, "mode", &v));
  *m = (tess_mode)v;
  return TESS_OK;
}

tess_err tess_device_parse(const char *s, tess_device *d) {
  int v = 0; /* set by parse_name on success; gcc -O3 cannot see it */
  TESS_CALL(parse_name(s, device_names, TESS_DEVICE_COUNT, "device", &v));
  *d = (tess_device)v;
  return TESS_OK;
}

tess_err tess_precision_parse(const char *s, tess_precision *p) {
  int v = 0; /* set by parse_name on success; gcc -O3 cannot see it */
  TESS_CALL(parse_name(s, precision_names, TESS_PRECISION_COUNT, "precision", &v));
  *p = (tess_precision)v;
  return TESS_OK;
}

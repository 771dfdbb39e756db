/* error.h — the runtime's one error path and its logger (internal to runtime/).
 *
 * Every fallible call returns a tess_err. TESS_CHECK raises an error with a formatted message;
 * TESS_CALL propagates one, adding a "  from file:line (function)" line, so a failure prints
 * the path it took (PETSc's traceback idea). Messages go through the logger, which is quiet
 * below its level (tess_init_opts.log: error|warn|info|debug; default warn).
 * Argument errors are printed by rank 0 only: every rank validates the same input, and one
 * clear message beats N copies.
 */
#ifndef TESS_ERROR_H
#define TESS_ERROR_H

#include "tessera.h"

typedef enum { TESS_LOG_ERROR, TESS_LOG_WARN, TESS_LOG_INFO, TESS_LOG_DEBUG } tess_log_level;

void tess_log(tess_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tess_log_enabled(tess_log_level level);
/* The level by name (TESS_LOG_CHOICES); NULL keeps it. TESS_ERR_ARG for another name. */
tess_err tess_log_set(const char *name);
tess_err tess_error_raise(tess_err code, const char *file, int line, const char *func,
                          const char *fmt, ...) __attribute__((format(printf, 5, 6)));
tess_err tess_error_trace(tess_err code, const char *file, int line, const char *func);

#define TESS_ERROR(code, ...) tess_error_raise((code), __FILE__, __LINE__, __func__, __VA_ARGS__)

#define TESS_CHECK(cond, code, ...)                                                                \
  do {                                                                                             \
    if (!(cond)) return TESS_ERROR((code), __VA_ARGS__);                                           \
  } while (0)

#define TESS_CALL(expr)                                                                            \
  do {                                                                                             \
    tess_err tess_e_ = (expr);                                                                     \
    if (tess_e_) return tess_error_trace(tess_e_, __FILE__, __LINE__, __func__);                   \
  } while (0)

/* StarPU and MPI report errors as ints; wrap them. */
#define TESS_STARPU_CALL(expr)                                                                     \
  do {                                                                                             \
    int tess_r_ = (expr);                                                                          \
    if (tess_r_) return TESS_ERROR(TESS_ERR_STARPU, "%s returned %d", #expr, tess_r_);             \
  } while (0)

#define TESS_MPI_CALL(expr)                                                                        \
  do {                                                                                             \
    int tess_r_ = (expr);                                                                          \
    if (tess_r_ != MPI_SUCCESS) return TESS_ERROR(TESS_ERR_MPI, "%s returned %d", #expr, tess_r_); \
  } while (0)

/* A variant that jumps to a cleanup label with `err` set. */
#define TESS_CALL_GOTO(err, label, expr)                                                           \
  do {                                                                                             \
    (err) = (expr);                                                                                \
    if (err) {                                                                                     \
      tess_error_trace((err), __FILE__, __LINE__, __func__);                                       \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

#endif

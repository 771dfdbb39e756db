/* signals.c — SIGTERM, SIGINT, SIGUSR2 and SIGUSR1 as requests a run answers between steps.
 *
 * A handler may only touch a sig_atomic_t, so it records the signal and returns; the run asks
 * tess_signal_poll between chunks of steps. The poll is a collective MAX over the ranks (each
 * rank gets its own copy of a signal mpirun forwards, or only one rank gets one sent by hand),
 * so every rank takes the same decision at the same step: checkpoint, and stop or go on.
 * Priority: a stop request (SIGTERM, SIGINT, SIGUSR2) outranks a checkpoint request (SIGUSR1).
 */
#include <signal.h>

#include "tessera.h"

static volatile sig_atomic_t pending; /* 0, 1 = SIGUSR1, 2 = SIGTERM, SIGINT or SIGUSR2 */
static volatile sig_atomic_t pending_signo;

static void on_signal(int signo) {
  const int level = signo == SIGUSR1 ? 1 : 2;
  if (level >= pending) {
    pending = level;
    pending_signo = signo;
  }
}

void tess_signal_watch(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
}

int tess_signal_poll(MPI_Comm comm) {
  /* (level, signo) in one int, so that the maximum picks the level first. */
  const int code = pending * 256 + pending_signo;
  pending = pending_signo = 0;
  int gcode = 0;
  if (MPI_Allreduce(&code, &gcode, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) return 0;
  return gcode % 256;
}

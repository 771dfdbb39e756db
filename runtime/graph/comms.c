/* comms.c — the communicators simulations exchange halos on.
 *
 * Each simulation talks on a communicator of its own, a duplicate of the one it was created on,
 * so its tags never meet another's. StarPU-MPI 1.3 keeps every communicator it has carried a
 * message on in a list, with a receive for message envelopes posted on each, again and again,
 * and has no call to forget one: freeing such a communicator makes StarPU-MPI post on freed
 * memory (a crash in MPI_Irecv, seen with three ranks on two cores). So a communicator StarPU-MPI
 * may have seen is never freed while StarPU-MPI runs: it goes back to a pool when its simulation
 * ends, and the next simulation created on the same group of ranks takes it instead of a new
 * duplicate (every communicator in StarPU-MPI's list costs its progress loop an MPI_Test, so the
 * list must not grow with each simulation). tess_finalize frees the pool after StarPU-MPI.
 *
 * Every rank of a group takes the same communicator: simulations are created and destroyed
 * collectively and in the same order on every rank of their group (their destruction ends with a
 * barrier on the simulation's communicator), so the pool holds the communicators of one group in
 * the same order everywhere, and each rank takes the first one congruent to the parent.
 */
#include <stdlib.h>

#include "error.h"
#include "sim.h"

static struct {
  pthread_mutex_t lock;
  int n, cap;
  MPI_Comm *comm;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

tess_err tess_comm_take(MPI_Comm parent, MPI_Comm *out) {
#ifndef TESS_SIMGRID /* simgrid_mpi.h: every communicator is MPI_COMM_WORLD there */
  pthread_mutex_lock(&pool.lock);
  for (int i = 0; i < pool.n; i++) {
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(parent, pool.comm[i], &same);
    if (same != MPI_CONGRUENT) continue;
    *out = pool.comm[i];
    for (int k = i + 1; k < pool.n; k++)
      pool.comm[k - 1] = pool.comm[k]; /* keep the order */
    pool.n--;
    pthread_mutex_unlock(&pool.lock);
    return TESS_OK;
  }
  pthread_mutex_unlock(&pool.lock);
#endif
  TESS_MPI_CALL(MPI_Comm_dup(parent, out));
  return TESS_OK;
}

void tess_comm_give(MPI_Comm *comm, int starpu_mpi_used) {
  if (!starpu_mpi_used) {
    MPI_Comm_free(comm);
    return;
  }
  pthread_mutex_lock(&pool.lock);
  if (pool.n == pool.cap) {
    const int cap = pool.cap ? 2 * pool.cap : 8;
    MPI_Comm *c = realloc(pool.comm, (size_t)cap * sizeof *c);
    if (!c) { /* nowhere to keep it: left alone, never freed, which is safe */
      pthread_mutex_unlock(&pool.lock);
      *comm = MPI_COMM_NULL;
      return;
    }
    pool.comm = c;
    pool.cap = cap;
  }
  pool.comm[pool.n++] = *comm;
  *comm = MPI_COMM_NULL;
  pthread_mutex_unlock(&pool.lock);
}

void tess_comm_pool_free(void) {
  pthread_mutex_lock(&pool.lock);
  for (int i = 0; i < pool.n; i++)
    MPI_Comm_free(&pool.comm[i]);
  free(pool.comm);
  pool.comm = NULL;
  pool.n = pool.cap = 0;
  pthread_mutex_unlock(&pool.lock);
}

/* comm_guard.c — preloaded into a test (LD_PRELOAD), it keeps every communicator the program
 * frees alive and aborts on any receive posted on one afterwards: a use after free that a reused
 * address would otherwise hide (StarPU-MPI keeps receives posted on each communicator it has
 * seen; runtime/sim.c keeps a simulation's communicator until StarPU-MPI has shut down). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static MPI_Comm freed[4096];
static int nfreed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int MPI_Comm_free(MPI_Comm *comm) {
  pthread_mutex_lock(&lock);
  const int kept = nfreed < (int)(sizeof freed / sizeof freed[0]);
  if (kept) freed[nfreed++] = *comm;
  pthread_mutex_unlock(&lock);
  if (!kept) return PMPI_Comm_free(comm);
  *comm = MPI_COMM_NULL; /* as MPI_Comm_free does; the object stays, so no address is reused */
  return MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nfreed; i++)
    if (freed[i] == comm) {
      fprintf(stderr, "comm_guard: MPI_Irecv (tag %d) on a communicator freed before\n", tag);
      fflush(stderr);
      PMPI_Abort(MPI_COMM_WORLD, 3);
    }
  pthread_mutex_unlock(&lock);
  return PMPI_Irecv(buf, count, type, source, tag, comm, req);
}

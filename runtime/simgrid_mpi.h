/* simgrid_mpi.h — MPI for the SimGrid build (docs/simulation.md): every MPI call of Tessera goes
 * through StarPU-MPI there. Included before every C file of that build only (-include, from
 * cmake/TesseraSimgrid.cmake); the normal builds never see it.
 *
 * Why: in StarPU's SimGrid + MPI mode the SMPI rank is StarPU's MPI thread, and the application's
 * main() runs in another SimGrid actor, which SimGrid 3.32's SMPI does not treat as the rank (its
 * receives wait on the actor's own mailbox, not the rank's). So the application may only talk to
 * StarPU-MPI, whose thread makes the MPI calls. The macros below turn the MPI calls Tessera makes
 * into calls of simgrid_mpi.c, which does them with StarPU-MPI:
 *
 *   - rank and size: StarPU-MPI's (starpu_mpi_world_rank/size); every communicator is
 *     MPI_COMM_WORLD (StarPU-MPI in SimGrid mode knows no other), MPI_Comm_dup returns it, and
 *     MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) a one-rank communicator (a simulated rank is a
 *     node of its own);
 *   - collectives (broadcast, reduce, allreduce, gather, allgather, barrier): point-to-point
 *     messages of StarPU-MPI (starpu_mpi_send / recv of temporary handles) through rank 0, with
 *     their own tags; MPI_Iallreduce completes at once (MPI_Test then finds MPI_REQUEST_NULL);
 *   - MPI_Wtime: the simulated clock (starpu_timing_now);
 *   - MPI_Initialized: true (StarPU started MPI), MPI_Finalized: false, MPI_Query_thread:
 *     MPI_THREAD_SERIALIZED (one actor runs at a time), MPI_Abort: the process ends.
 *
 * Collectives need StarPU started (they return MPI_ERR_OTHER after a message otherwise); a type
 * or operation other than those Tessera uses is refused the same way. The halo path on GPU
 * memory (graph/direct.c) is off in this build and keeps its own MPI calls. */
#ifndef TESS_SIMGRID_MPI_H
#define TESS_SIMGRID_MPI_H

#include <mpi.h>

int tess_sg_initialized(int *flag);
int tess_sg_finalized(int *flag);
int tess_sg_query_thread(int *provided);
int tess_sg_comm_rank(MPI_Comm comm, int *rank);
int tess_sg_comm_size(MPI_Comm comm, int *size);
int tess_sg_comm_dup(MPI_Comm comm, MPI_Comm *out);
int tess_sg_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out);
int tess_sg_comm_free(MPI_Comm *comm);
int tess_sg_barrier(MPI_Comm comm);
int tess_sg_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);
int tess_sg_reduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, int root,
                   MPI_Comm comm);
int tess_sg_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm);
int tess_sg_iallreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm, MPI_Request *req);
int tess_sg_test(MPI_Request *req, int *flag, MPI_Status *status);
int tess_sg_gather(const void *in, int incount, MPI_Datatype intype, void *out, int outcount,
                   MPI_Datatype outtype, int root, MPI_Comm comm);
int tess_sg_allgather(const void *in, int incount, MPI_Datatype intype, void *out, int outcount,
                      MPI_Datatype outtype, MPI_Comm comm);
double tess_sg_wtime(void);
int tess_sg_abort(MPI_Comm comm, int code);

#define MPI_Initialized(...)     tess_sg_initialized(__VA_ARGS__)
#define MPI_Finalized(...)       tess_sg_finalized(__VA_ARGS__)
#define MPI_Query_thread(...)    tess_sg_query_thread(__VA_ARGS__)
#define MPI_Comm_rank(...)       tess_sg_comm_rank(__VA_ARGS__)
#define MPI_Comm_size(...)       tess_sg_comm_size(__VA_ARGS__)
#define MPI_Comm_dup(...)        tess_sg_comm_dup(__VA_ARGS__)
#define MPI_Comm_split_type(...) tess_sg_comm_split_type(__VA_ARGS__)
#define MPI_Comm_free(...)       tess_sg_comm_free(__VA_ARGS__)
#define MPI_Barrier(...)         tess_sg_barrier(__VA_ARGS__)
#define MPI_Bcast(...)           tess_sg_bcast(__VA_ARGS__)
#define MPI_Reduce(...)          tess_sg_reduce(__VA_ARGS__)
#define MPI_Allreduce(...)       tess_sg_allreduce(__VA_ARGS__)
#define MPI_Iallreduce(...)      tess_sg_iallreduce(__VA_ARGS__)
#define MPI_Test(...)            tess_sg_test(__VA_ARGS__)
#define MPI_Gather(...)          tess_sg_gather(__VA_ARGS__)
#define MPI_Allgather(...)       tess_sg_allgather(__VA_ARGS__)
#define MPI_Wtime()              tess_sg_wtime()
#define MPI_Abort(...)           tess_sg_abort(__VA_ARGS__)

#endif

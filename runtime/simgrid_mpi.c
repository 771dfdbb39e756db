/* simgrid_mpi.c — Tessera's MPI calls done with StarPU-MPI, for the SimGrid build (why and what:
 * simgrid_mpi.h). Collectives are messages through rank 0; every collective takes the next tag
 * of a private range, and every rank calls the collectives in the same order (as MPI requires),
 * so the tags meet. */
#ifdef TESS_SIMGRID
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <starpu.h>
#include <starpu_mpi.h>

#include "simgrid_mpi.h"

/* Above the halo tags (halo.c: stage x tiles x directions) and the task tags (tasks.c). */
#define TAG_BASE ((starpu_mpi_tag_t)0x7e55c0000000000LL)
static starpu_mpi_tag_t next_tag = TAG_BASE;

/* MPI_Comm_split_type's one-rank communicator: an address no MPI communicator has. */
static int self_marker;
#define COMM_SELF ((MPI_Comm)(void *)&self_marker)

static int refuse(const char *what, const char *why) {
  fprintf(stderr, "tessera: %s in the SimGrid build: %s\n", what, why);
  return MPI_ERR_OTHER;
}

static size_t type_size(MPI_Datatype t) {
  if (t == MPI_CHAR || t == MPI_BYTE) return 1;
  if (t == MPI_INT || t == MPI_UNSIGNED) return sizeof(int);
  if (t == MPI_LONG || t == MPI_UNSIGNED_LONG) return sizeof(long);
  if (t == MPI_LONG_LONG || t == MPI_UNSIGNED_LONG_LONG) return sizeof(long long);
  if (t == MPI_UINT64_T || t == MPI_INT64_T) return 8;
  if (t == MPI_FLOAT) return sizeof(float);
  if (t == MPI_DOUBLE) return sizeof(double);
  return 0;
}

/* acc[i] = acc[i] op in[i]; 0, or -1 for a type or operation this layer does not have. */
#define FOLD(T)                                                                                    \
  do {                                                                                             \
    T *a = acc;                                                                                    \
    const T *b = in;                                                                               \
    for (int i = 0; i < n; i++)                                                                    \
      if (op == MPI_SUM)                                                                           \
        a[i] = a[i] + b[i];                                                                        \
      else if (op == MPI_PROD)                                                                     \
        a[i] = a[i] * b[i];                                                                        \
      else if (op == MPI_MAX)                                                                      \
        a[i] = a[i] < b[i] ? b[i] : a[i];                                                          \
      else if (op == MPI_MIN)                                                                      \
        a[i] = b[i] < a[i] ? b[i] : a[i];                                                          \
      else if (op == MPI_LAND)                                                                     \
        a[i] = a[i] && b[i];                                                                       \
      else if (op == MPI_LOR)                                                                      \
        a[i] = a[i] || b[i];                                                                       \
      else                                                                                         \
        return -1;                                                                                 \
    return 0;                                                                                      \
  } while (0)

static int fold(void *acc, const void *in, int n, MPI_Datatype t, MPI_Op op) {
  if (t == MPI_INT) FOLD(int);
  if (t == MPI_UNSIGNED) FOLD(unsigned);
  if (t == MPI_LONG) FOLD(long);
  if (t == MPI_UNSIGNED_LONG) FOLD(unsigned long);
  if (t == MPI_LONG_LONG || t == MPI_INT64_T) FOLD(long long);
  if (t == MPI_UNSIGNED_LONG_LONG || t == MPI_UINT64_T) FOLD(unsigned long long);
  if (t == MPI_FLOAT) FOLD(float);
  if (t == MPI_DOUBLE) FOLD(double);
  if (t == MPI_CHAR) FOLD(char);
  return -1;
}

/* One message of `bytes` at buf to or from `peer`, through StarPU-MPI's thread. */
static int xfer(const void *buf, size_t bytes, int peer, starpu_mpi_tag_t tag, int send) {
  starpu_data_handle_t h;
  starpu_variable_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)buf, bytes);
  MPI_Status st;
  const int rc = send ? starpu_mpi_send(h, peer, tag, MPI_COMM_WORLD)
                      : starpu_mpi_recv(h, peer, tag, MPI_COMM_WORLD, &st);
  starpu_data_unregister(h);
  return rc ? refuse(send ? "a send" : "a receive", "StarPU-MPI failed") : MPI_SUCCESS;
}

/* A collective needs StarPU-MPI's thread, which runs once StarPU started. */
static int ready(const char *what) {
  if (starpu_is_initialized()) return 1;
  refuse(what, "it needs StarPU started (the application has no MPI of its own here)");
  return 0;
}

int tess_sg_initialized(int *flag) {
  *flag = 1; /* StarPU started MPI before the application's main */
  return MPI_SUCCESS;
}

int tess_sg_finalized(int *flag) {
  *flag = 0; /* StarPU finalizes MPI after the application's main */
  return MPI_SUCCESS;
}

int tess_sg_query_thread(int *provided) {
  *provided = MPI_THREAD_SERIALIZED; /* SimGrid runs one actor at a time */
  return MPI_SUCCESS;
}

int tess_sg_comm_rank(MPI_Comm comm, int *rank) {
  *rank = comm == COMM_SELF ? 0 : starpu_mpi_world_rank();
  return MPI_SUCCESS;
}

int tess_sg_comm_size(MPI_Comm comm, int *size) {
  *size = comm == COMM_SELF ? 1 : starpu_mpi_world_size();
  return MPI_SUCCESS;
}

int tess_sg_comm_dup(MPI_Comm comm, MPI_Comm *out) {
  *out = comm == COMM_SELF ? COMM_SELF : MPI_COMM_WORLD; /* StarPU-MPI's only communicator */
  return MPI_SUCCESS;
}

int tess_sg_comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out) {
  (void)comm, (void)key, (void)info;
  if (type != MPI_COMM_TYPE_SHARED)
    return refuse("MPI_Comm_split_type", "only MPI_COMM_TYPE_SHARED is available");
  *out = COMM_SELF; /* a simulated rank is a node of its own */
  return MPI_SUCCESS;
}

int tess_sg_comm_free(MPI_Comm *comm) {
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int tess_sg_barrier(MPI_Comm comm) {
  if (comm == COMM_SELF) return MPI_SUCCESS;
  if (!ready("MPI_Barrier")) return MPI_ERR_OTHER;
  return starpu_mpi_barrier(MPI_COMM_WORLD) ? refuse("MPI_Barrier", "StarPU-MPI failed")
                                            : MPI_SUCCESS;
}

int tess_sg_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const size_t bytes = (size_t)count * type_size(type);
  if (!type_size(type)) return refuse("MPI_Bcast", "a datatype Tessera does not use");
  const int me = comm == COMM_SELF ? 0 : starpu_mpi_world_rank();
  const int n = comm == COMM_SELF ? 1 : starpu_mpi_world_size();
  if (n == 1 || bytes == 0) return MPI_SUCCESS;
  if (!ready("MPI_Bcast")) return MPI_ERR_OTHER;
  const starpu_mpi_tag_t tag = next_tag++;
  if (me != root) return xfer(buf, bytes, root, tag, 0);
  for (int r = 0; r < n; r++)
    if (r != root && xfer(buf, bytes, r, tag, 1)) return MPI_ERR_OTHER;
  return MPI_SUCCESS;
}

int tess_sg_reduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, int root,
                   MPI_Comm comm) {
  const size_t bytes = (size_t)count * type_size(type);
  const int me = comm == COMM_SELF ? 0 : starpu_mpi_world_rank();
  const int n = comm == COMM_SELF ? 1 : starpu_mpi_world_size();
  if (!type_size(type)) return refuse("MPI_Reduce", "a datatype Tessera does not use");
  if (bytes == 0) return MPI_SUCCESS;
  if (in != MPI_IN_PLACE && me == root) memcpy(out, in, bytes);
  if (n == 1) return MPI_SUCCESS;
  if (!ready("MPI_Reduce")) return MPI_ERR_OTHER;
  const starpu_mpi_tag_t tag = next_tag++;
  if (me != root) return xfer(in == MPI_IN_PLACE ? out : in, bytes, root, tag, 1);
  void *tmp = malloc(bytes);
  if (!tmp) return refuse("MPI_Reduce", "out of memory");
  int rc = MPI_SUCCESS;
  for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
    if (r == root) continue;
    rc = xfer(tmp, bytes, r, tag, 0);
    if (rc == MPI_SUCCESS && fold(out, tmp, count, type, op))
      rc = refuse("MPI_Reduce", "an operation Tessera does not use");
  }
  free(tmp);
  return rc;
}

int tess_sg_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm) {
  const int rc = tess_sg_reduce(in, out, count, type, op, 0, comm);
  return rc ? rc : tess_sg_bcast(out, count, type, 0, comm);
}

int tess_sg_iallreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm, MPI_Request *req) {
  *req = MPI_REQUEST_NULL; /* done on return */
  return tess_sg_allreduce(in, out, count, type, op, comm);
}

int tess_sg_test(MPI_Request *req, int *flag, MPI_Status *status) {
  (void)status;
  if (*req != MPI_REQUEST_NULL) return refuse("MPI_Test", "only completed requests exist");
  *flag = 1;
  return MPI_SUCCESS;
}

int tess_sg_gather(const void *in, int incount, MPI_Datatype intype, void *out, int outcount,
                   MPI_Datatype outtype, int root, MPI_Comm comm) {
  const size_t bytes = (size_t)incount * type_size(intype);
  if (!type_size(intype) || bytes != (size_t)outcount * type_size(outtype))
    return refuse("MPI_Gather", "a datatype Tessera does not use, or unlike sizes");
  const int me = comm == COMM_SELF ? 0 : starpu_mpi_world_rank();
  const int n = comm == COMM_SELF ? 1 : starpu_mpi_world_size();
  if (bytes == 0) return MPI_SUCCESS;
  char *o = out;
  if (in != MPI_IN_PLACE && me == root) memcpy(o + (size_t)root * bytes, in, bytes);
  if (n == 1) return MPI_SUCCESS;
  if (!ready("MPI_Gather")) return MPI_ERR_OTHER;
  const starpu_mpi_tag_t tag = next_tag++;
  if (me != root) return xfer(in, bytes, root, tag, 1);
  for (int r = 0; r < n; r++)
    if (r != root && xfer(o + (size_t)r * bytes, bytes, r, tag, 0)) return MPI_ERR_OTHER;
  return MPI_SUCCESS;
}

int tess_sg_allgather(const void *in, int incount, MPI_Datatype intype, void *out, int outcount,
                      MPI_Datatype outtype, MPI_Comm comm) {
  const int rc = tess_sg_gather(in, incount, intype, out, outcount, outtype, 0, comm);
  int n = 1;
  tess_sg_comm_size(comm, &n);
  return rc ? rc : tess_sg_bcast(out, outcount * n, outtype, 0, comm);
}

/* StarPU-MPI's messages, through MPI's profiling interface (StarPU's static code binds to these;
 * they call SMPI's PMPI_ functions). StarPU-MPI sends a vector or variable handle (the halo
 * buffers, the collectives above) as one element of a contiguous derived type
 * (MPI_Type_contiguous of its bytes), and SMPI copies the message of a derived type into a buffer
 * of its own on each side (smpi::Request::init_buffer): two allocations and three copies of every
 * halo message, which the shared host buffers (simulate.c) are there to avoid. A type without gaps
 * (lower bound 0, extent = size) goes as the same bytes of MPI_BYTE instead: the same message, the
 * same simulated time, and SMPI sees the buffer itself. */
static int as_bytes(int count, MPI_Datatype t, int *bytes) {
  int size;
  MPI_Aint lb, extent;
  if (t == MPI_BYTE || PMPI_Type_size(t, &size) != MPI_SUCCESS ||
      PMPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS)
    return 0;
  if (lb != 0 || extent != size || (long long)count * size > INT_MAX) return 0;
  *bytes = count * size;
  return 1;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dst, int tag, MPI_Comm comm,
              MPI_Request *req) {
  int n;
  return as_bytes(count, t, &n) ? PMPI_Isend(buf, n, MPI_BYTE, dst, tag, comm, req)
                                : PMPI_Isend(buf, count, t, dst, tag, comm, req);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype t, int dst, int tag, MPI_Comm comm,
               MPI_Request *req) {
  int n;
  return as_bytes(count, t, &n) ? PMPI_Issend(buf, n, MPI_BYTE, dst, tag, comm, req)
                                : PMPI_Issend(buf, count, t, dst, tag, comm, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype t, int src, int tag, MPI_Comm comm,
              MPI_Request *req) {
  int n;
  return as_bytes(count, t, &n) ? PMPI_Irecv(buf, n, MPI_BYTE, src, tag, comm, req)
                                : PMPI_Irecv(buf, count, t, src, tag, comm, req);
}

double tess_sg_wtime(void) {
  return starpu_timing_now() * 1e-6; /* the simulated clock, in microseconds */
}

int tess_sg_abort(MPI_Comm comm, int code) {
  (void)comm;
  fflush(stdout);
  fflush(stderr);
  _exit(code); /* the whole simulation: every simulated rank is in this process */
}
#else
typedef int tess_simgrid_mpi_unused; /* ISO C: a translation unit is not empty */
#endif

/* topo_env.c — handing a share to StarPU and UCX, and finding the node-local rank.
 *
 * StarPU 1.3 reads its placement from the environment at starpu_init: STARPU_NCUDA and
 * STARPU_WORKERS_CUDAID (which GPUs), STARPU_NCPU, and STARPU_WORKERS_CPUID (one logical PU
 * per worker, CUDA workers first: their entries bind the driver threads), plus
 * STARPU_MPI_THREAD_CPUID and STARPU_MAIN_THREAD_CPUID. UCX, which Open MPI uses, reads
 * UCX_NET_DEVICES when MPI_Init opens it: to reach MPI it must be exported before MPI_Init,
 * hence tess_topo_local_rank_env, which reads the launcher's variables instead of asking MPI.
 */
#include <stdlib.h>
#include <string.h>

#include "topo_impl.h"

static void set_default(const char *name, const char *value) {
  if (getenv(name)) {
    tess_log(TESS_LOG_DEBUG, "topology: keeping %s=%s set by the user", name, getenv(name));
    return;
  }
  setenv(name, value, 0);
  tess_log(TESS_LOG_DEBUG, "topology: %s=%s", name, value);
}

static void join(char *buf, size_t size, const int *v, int n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len + 12 < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? " " : "", v[i]);
}

void tess_topo_export_env(const tess_topo_share *s, int use_cuda) {
  char buf[TESS_TOPO_MAX_CORES * 5];
  const int ndrv = use_cuda ? s->ngpu : 0; /* without CUDA, driver cores become CPU workers */
  if (use_cuda) {
    join(buf, sizeof buf, s->gpu_cuda, s->ngpu);
    if (s->ngpu) set_default("STARPU_WORKERS_CUDAID", buf);
    snprintf(buf, sizeof buf, "%d", s->ngpu);
    set_default("STARPU_NCUDA", buf);
  }
  /* The user who binds by hand (or not at all) owns every CPU-side setting. */
  if (!getenv("STARPU_WORKERS_CPUID") && !getenv("STARPU_WORKERS_COREID") &&
      !getenv("STARPU_WORKERS_NOBIND")) {
    join(buf, sizeof buf, s->cores, s->ncores);
    set_default("STARPU_WORKERS_CPUID", buf);
    /* StarPU binds its CUDA workers first, STARPU_NWORKER_PER_CUDA of them per GPU */
    const char *wpg_env = getenv("STARPU_NWORKER_PER_CUDA");
    const int wpg = wpg_env && atoi(wpg_env) > 0 ? atoi(wpg_env) : 1;
    const int ncpu = s->ncores - ndrv * wpg;
    snprintf(buf, sizeof buf, "%d", ncpu > 0 ? ncpu : 1);
    set_default("STARPU_NCPU", buf);
    snprintf(buf, sizeof buf, "%d", s->mpi_core);
    set_default("STARPU_MPI_THREAD_CPUID", buf);
    snprintf(buf, sizeof buf, "%d", s->main_core);
    set_default("STARPU_MAIN_THREAD_CPUID", buf);
  }
  set_default("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  if (s->nic[0]) set_default("UCX_NET_DEVICES", s->nic);
}

/* Slurm's SLURM_STEP_TASKS_PER_NODE: "4(x2),3" = 4 tasks on nodes 0-1, 3 on node 2. */
static int slurm_tasks_on_node(const char *s, int node) {
  while (s && *s) {
    int n = 0, rep = 1, used = 0;
    if (sscanf(s, "%d%n", &n, &used) != 1) return -1;
    s += used;
    if (sscanf(s, "(x%d)%n", &rep, &used) == 1) s += used;
    if (node < rep) return n;
    node -= rep;
    if (*s == ',') s++;
  }
  return -1;
}

int tess_topo_local_rank_env(int *local_rank, int *nlocal) {
  static const char *pairs[][2] = {{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
                                   {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (getenv(pairs[i][0]) && getenv(pairs[i][1])) {
      *local_rank = atoi(getenv(pairs[i][0]));
      *nlocal = atoi(getenv(pairs[i][1]));
      return *local_rank >= 0 && *local_rank < *nlocal;
    }
  const char *id = getenv("SLURM_LOCALID"), *node = getenv("SLURM_NODEID");
  if (id && node) {
    *local_rank = atoi(id);
    *nlocal = slurm_tasks_on_node(getenv("SLURM_STEP_TASKS_PER_NODE"), atoi(node));
    return *local_rank >= 0 && *local_rank < *nlocal;
  }
  return 0;
}

int tess_topo_check_contiguous(const int *ranks, int nlocal, int warn) {
  int ok = 1;
  for (int i = 1; i < nlocal; i++)
    ok &= ranks[i] == ranks[0] + i;
  if (!ok && warn) {
    char list[256];
    tess_topo_format_list(list, sizeof list, ranks, nlocal);
    tess_log(TESS_LOG_WARN,
             "the %d ranks on this node are not contiguous (ranks %s, in node-local order): the "
             "Morton placement assumes consecutive ranks per node, so neighbouring subdomains may "
             "land on different nodes; launch with --map-by slot or core (Open MPI) or "
             "--distribution=block (Slurm)",
             nlocal, list);
  }
  return ok;
}

tess_err tess_topo_local_rank(MPI_Comm comm, int *local_rank, int *nlocal) {
  MPI_Comm local;
  int rank;
  TESS_MPI_CALL(MPI_Comm_rank(comm, &rank));
  TESS_MPI_CALL(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local));
  MPI_Comm_rank(local, local_rank);
  MPI_Comm_size(local, nlocal);
  int *ranks = malloc((size_t)*nlocal * sizeof *ranks);
  if (!ranks) {
    MPI_Comm_free(&local);
    return TESS_ERROR(TESS_ERR_MEM, "out of memory");
  }
  const int rc = MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, local);
  if (rc == MPI_SUCCESS) tess_topo_check_contiguous(ranks, *nlocal, *local_rank == 0);
  free(ranks);
  MPI_Comm_free(&local);
  TESS_CHECK(rc == MPI_SUCCESS, TESS_ERR_MPI, "MPI_Allgather on the node communicator returned %d",
             rc);
  return TESS_OK;
}

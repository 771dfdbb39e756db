/* topology.h — which GPU(s), cores and NIC each MPI rank of a node uses.
 *
 * The node is read once with hwloc (this machine, or an XML export of another one):
 * NUMA domains and their cores, NVIDIA GPUs (PCI vendor 0x10de, class 0x0300/0x0302, found
 * through hwloc's PCI objects, so no CUDA/NVML plugin is needed) and NICs (OpenFabrics and
 * Ethernet OS devices), each with its place in the tree. A placement mode then splits the
 * node between its nlocal ranks. Every rank computes the whole node's plan from the same
 * input and keeps its own share, so no communication is needed and no core is given twice:
 *
 *     hwloc tree --tess_topo_load--> topo --tess_topo_assign(mode, local rank)--> share
 *     share --tess_topo_export_env--> STARPU_* / UCX_NET_DEVICES  (read by starpu_init, UCX)
 *
 * Core ids are hwloc *logical* PU indexes (L#, the first PU of each core), which is what
 * StarPU 1.3 reads in STARPU_WORKERS_CPUID, STARPU_MPI_THREAD_CPUID and
 * STARPU_MAIN_THREAD_CPUID (it binds with hwloc_get_obj_by_depth(pu_depth, id)). They differ
 * from the OS numbers (P#) that taskset shows as soon as cores have 2 hardware threads.
 * GPUs are CUDA ordinals, matched to hwloc's PCI devices by PCI bus id.
 *
 * Nothing here is collective except tess_topo_local_rank. Functions are synchronous.
 */
#ifndef TESS_TOPOLOGY_H
#define TESS_TOPOLOGY_H

#include <mpi.h>
#include <stdio.h>

#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tess_topo_s *tess_topo_t;

/* Placement modes and their names (as given to tessera-topo --mode). */
#define TESS_TOPO_MODE_LIST(X)                                                                     \
  X(TESS_TOPO_PER_GPU, "gpu")     /* one rank per GPU: the default on GPU nodes */                 \
  X(TESS_TOPO_PER_NUMA, "numa")   /* one rank per NUMA domain, with the GPUs attached to it */     \
  X(TESS_TOPO_PER_NODE, "node")   /* one rank drives every GPU and core of the node */             \
  X(TESS_TOPO_PER_CORES, "cores") /* CPU only: the cores split in equal blocks, no GPU */
typedef enum { TESS_TOPO_MODE_LIST(TESS_X_ENUM) TESS_TOPO_MODE_COUNT } tess_topo_mode;
const char *tess_topo_mode_name(tess_topo_mode m);
tess_err tess_topo_mode_parse(const char *s, tess_topo_mode *m);

#define TESS_TOPO_MAX_GPUS  8   /* per rank */
#define TESS_TOPO_MAX_CORES 256 /* per rank; a rank owning more uses its first 256 */

/* One rank's share of the node. */
typedef struct {
  tess_topo_mode mode;
  int local_rank, nlocal;
  int ngpu;                             /* GPUs this rank drives, nearest first */
  int gpu_cuda[TESS_TOPO_MAX_GPUS];     /* their CUDA ordinals */
  char gpu_pci[TESS_TOPO_MAX_GPUS][16]; /* and PCI bus ids, "0000:17:00.0" */
  int numa; /* OS index (P#) of its home NUMA node: its first GPU's, or its first domain */
  /* Worker cores in StarPU's order: cores[0..ngpu-1] run the CUDA driver threads (one per
   * GPU, each near its GPU), cores[ngpu..ncores-1] the CPU workers. */
  int ncores;
  int cores[TESS_TOPO_MAX_CORES];
  /* Cores of the StarPU-MPI progress thread (nearest the NIC) and of the main (submitting)
   * thread: apart from cores[] and each other when the rank owns ngpu + 2 cores or more (3
   * for a CPU-only rank); with fewer, they double up with cores of the same rank. */
  int mpi_core, main_core;
  /* 1 when the MPI thread shares a CPU worker's core (tess_topo_fit_cpu_workers: the rank has no
   * core to spare for it). StarPU-MPI 1.3's progress thread polls without pause while any
   * receive is posted, so such a rank should not hand its halos to StarPU-MPI. */
  int mpi_shared;
  char nic[64]; /* UCX device name, "mlx5_0:1" or "eth0"; "" when the node has no NIC */
} tess_topo_share;

/* Reads the topology of this machine (xml_path NULL) or of an hwloc XML export. Not
 * collective; it reads sysfs (or the file) and takes a few ms. TESS_ERR_IO if hwloc fails. */
tess_err tess_topo_load(const char *xml_path, tess_topo_t *topo);
/* NULL-safe; sets *topo to NULL. */
void tess_topo_destroy(tess_topo_t *topo);

int tess_topo_ngpus(tess_topo_t topo);  /* NVIDIA GPUs hwloc found */
int tess_topo_nnuma(tess_topo_t topo);  /* NUMA domains that hold cores */
int tess_topo_ncores(tess_topo_t topo); /* physical cores (allowed to this process) */
/* The mode to use when none is given: gpu when use_cuda and the node has GPUs, else numa when
 * the ranks fit one per NUMA domain, else cores. */
tess_topo_mode tess_topo_default_mode(tess_topo_t topo, int nlocal, int use_cuda);

/* One rank's share of the node for `nlocal` ranks placed with `mode`. Not collective: every
 * rank calls it with the same arguments but its own local_rank. cuda_pci_bus_ids[i] is the
 * PCI bus id CUDA reports for ordinal i (cudaDeviceGetPCIBusId, any case, 4 or 8 digit
 * domain); only those GPUs are used. NULL: every GPU hwloc sees, numbered in PCI bus order
 * (true with CUDA_DEVICE_ORDER=PCI_BUS_ID and no CUDA_VISIBLE_DEVICES; XML tests use this).
 * TESS_ERR_ARG, naming the count and what the mode allows, when the ranks do not fit. */
tess_err tess_topo_assign(tess_topo_t topo, tess_topo_mode mode, int local_rank, int nlocal,
                          const char *const *cuda_pci_bus_ids, int ncuda, tess_topo_share *out);

/* Re-deals a CPU-only rank's own cores (s->cores, mpi_core, main_core; the GPU driver cores count
 * as CPU cores) for `nworkers` CPU workers; 0 asks for the default. With n cores:
 *   nworkers <= n - 2 (default when n >= 3): the MPI and main threads keep cores of their own;
 *   nworkers == n - 1: the main thread (asleep while tasks run) joins the MPI thread's core;
 *   nworkers >= n (default when n < 3): a worker on every core, the MPI and main threads on the
 *     last one with it (mpi_shared = 1); more workers than cores cycle over the cores.
 * Synchronous, no hwloc call. */
void tess_topo_fit_cpu_workers(tess_topo_share *s, int nworkers);

/* CUDA workers (StarPU driver threads, a stream each) a GPU for a rank of a node of ncores cores
 * and ngpus GPUs shared by nlocal ranks: 8 where the rank's share of the cores holds 8 a GPU and
 * 4 more (a CPU worker, the main and MPI threads) and no other rank uses its GPUs, else 4.
 * gpus_limit > 0 caps the rank's GPUs (STARPU_NCUDA). Measured in docs/halo-path.md. */
int tess_topo_cuda_workers_per_gpu(int ncores, int ngpus, int nlocal, int gpus_limit);

/* Sets, without overriding what the user set: STARPU_NCUDA and STARPU_WORKERS_CUDAID (when
 * use_cuda), STARPU_WORKERS_CPUID, STARPU_NCPU, STARPU_MPI_THREAD_CPUID,
 * STARPU_MAIN_THREAD_CPUID, CUDA_DEVICE_ORDER=PCI_BUS_ID and UCX_NET_DEVICES. Call before
 * starpu_init; UCX_NET_DEVICES only reaches MPI if set before MPI_Init. Not thread-safe
 * (setenv). With use_cuda 0 the GPU driver cores become CPU workers. */
void tess_topo_export_env(const tess_topo_share *s, int use_cuda);

/* Prints the node (topo may be NULL) and the shares of n ranks as a table, or as one JSON
 * object when json is non-zero. */
void tess_topo_print(FILE *f, tess_topo_t topo, const tess_topo_share *shares, int n, int json);

/* ---- node-local ranks -------------------------------------------------------------------- */
/* Before MPI_Init: the node-local rank and count the launcher exported (Open MPI
 * OMPI_COMM_WORLD_LOCAL_RANK/SIZE, MPICH MPI_LOCALRANKID/MPI_LOCALNRANKS, Slurm
 * SLURM_LOCALID with SLURM_STEP_TASKS_PER_NODE). Returns 1 when found, else 0. */
int tess_topo_local_rank_env(int *local_rank, int *nlocal);
/* Collective over comm: the rank and count within this node (MPI_Comm_split_type SHARED),
 * then a contiguity check (tess_topo_check_contiguous) whose warning local rank 0 prints. */
tess_err tess_topo_local_rank(MPI_Comm comm, int *local_rank, int *nlocal);
/* 1 when the ranks in comm of the node's ranks, in local-rank order (ranks[i] for local
 * rank i), are consecutive and increasing, as Morton placement assumes; else 0, and a
 * warning naming them when warn is set. */
int tess_topo_check_contiguous(const int *ranks, int nlocal, int warn);

#ifdef __cplusplus
}
#endif
#endif

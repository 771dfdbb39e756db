/* topo_impl.h — what tess_topo_load keeps of the hwloc tree (internal to topology/).
 *
 * Cores, NUMA domains, GPUs and NICs are flat arrays in hwloc's logical (tree) order, each
 * pointing back into the hwloc tree for distances. A "domain" is a NUMA node holding at
 * least one core (memory-only nodes such as KNL's MCDRAM or CXL memory are not domains).
 */
#ifndef TESS_TOPO_IMPL_H
#define TESS_TOPO_IMPL_H

#include <hwloc.h>

#include "error.h"
#include "topology.h"

typedef struct {
  int pu;     /* hwloc logical index of the core's first PU (the id StarPU takes) */
  int domain; /* index into tess_topo_s.dom */
  int pkg;    /* logical index of its package, 0 if none */
} topo_core;

typedef struct {
  hwloc_obj_t numa; /* the NUMANode object */
  hwloc_obj_t cpu;  /* its first normal (non-memory) ancestor: where its cores hang */
  int ncores, pkg;
} topo_domain;

typedef struct {
  hwloc_obj_t pci;        /* the PCI device */
  unsigned long long key; /* domain:bus:dev.fn as one number, for ordering and matching */
  char busid[16];
  int domain; /* -1: hwloc does not know its locality */
} topo_gpu;

typedef struct {
  hwloc_obj_t osdev;
  char name[32]; /* as UCX_NET_DEVICES takes it: "mlx5_0:1" or "eth0" */
  int fabric;    /* OpenFabrics (InfiniBand, RoCE) rather than a plain network interface */
  int domain;
} topo_nic;

struct tess_topo_s {
  hwloc_topology_t hw;
  char source[256]; /* XML path, or "this machine" */
  int is_this_machine;
  int npackages, npus;
  int ncores, ndom, ngpus, nnics;
  topo_core *core;
  topo_domain *dom;
  topo_gpu *gpu;
  topo_nic *nic;
};

/* Tree distance (edges) between two objects; a large number when they share no ancestor. */
int tess_topo_hops(hwloc_obj_t a, hwloc_obj_t b);
/* Domain local to an object (its first non-I/O ancestor); -1 when that is the whole machine
 * of a multi-domain node. */
int tess_topo_domain_of(const struct tess_topo_s *t, hwloc_obj_t obj);
/* PCI bus id text -> key; 0 when it does not parse. */
unsigned long long tess_topo_busid_key(const char *s);
/* "0-3,8,10-11" from ids (runs of consecutive values). */
void tess_topo_format_list(char *buf, size_t size, const int *v, int n);

#endif

/* topo_print.c — the node and its ranks' shares as a table or as JSON (tessera-topo, logs). */
#include <string.h>

#include "topo_impl.h"

/* Names of the GPUs (1) or NICs (0) local to domain d (d = -1: locality unknown). */
static void devices_of(tess_topo_t t, int d, int gpus, char *buf, size_t size, int json) {
  size_t len = 0;
  buf[0] = '\0';
  const int n = gpus ? t->ngpus : t->nnics;
  for (int i = 0; i < n && len + 40 < size; i++) {
    if ((gpus ? t->gpu[i].domain : t->nic[i].domain) != d) continue;
    const char *name = gpus ? t->gpu[i].busid : t->nic[i].name;
    len += (size_t)snprintf(buf + len, size - len, json ? "%s\"%s\"" : "%s%s",
                            len ? (json ? "," : " ") : "", name);
  }
}

static void print_node(FILE *f, tess_topo_t t, int json) {
  char gpus[1024], nics[1024];
  if (json) {
    fprintf(f, "  \"source\": \"%s\",\n  \"packages\": %d, \"cores\": %d, \"pus\": %d,\n",
            t->source, t->npackages, t->ncores, t->npus);
    fprintf(f, "  \"core_ids\": \"hwloc logical PU index (STARPU_WORKERS_CPUID)\",\n  \"numa\": [");
  } else {
    fprintf(f,
            "node: %s: %d package(s), %d NUMA domain(s), %d cores, %d PUs, %d NVIDIA GPU(s), %d "
            "NIC(s)\n",
            t->source, t->npackages, t->ndom, t->ncores, t->npus, t->ngpus, t->nnics);
  }
  for (int d = -1, printed = 0; d < t->ndom; d++) {
    devices_of(t, d, 1, gpus, sizeof gpus, json);
    devices_of(t, d, 0, nics, sizeof nics, json);
    if (d < 0 && !gpus[0] && !nics[0]) continue;
    const int os = d < 0 ? -1 : (int)t->dom[d].numa->os_index, nc = d < 0 ? 0 : t->dom[d].ncores;
    if (json)
      fprintf(f, "%s\n    {\"os_index\": %d, \"cores\": %d, \"gpus\": [%s], \"nics\": [%s]}",
              printed++ ? "," : "", os, nc, gpus, nics);
    else if (d < 0)
      fprintf(f, "  locality unknown: GPUs %s  NICs %s\n", gpus[0] ? gpus : "-",
              nics[0] ? nics : "-");
    else
      fprintf(f, "  numa %d: %d cores  GPUs %s  NICs %s\n", os, nc, gpus[0] ? gpus : "-",
              nics[0] ? nics : "-");
  }
  if (json) fprintf(f, "\n  ],\n");
}

/* A JSON array body: "0, 2, 4". */
static void json_list(char *buf, size_t size, const int *v, int n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len + 14 < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? ", " : "", v[i]);
}

void tess_topo_print(FILE *f, tess_topo_t topo, const tess_topo_share *shares, int n, int json) {
  char drv[256], cpu[2048], gpus[512];
  if (json) fprintf(f, "{\n");
  if (topo) print_node(f, topo, json);
  const char *mode = n > 0 ? tess_topo_mode_name(shares[0].mode) : "none";
  if (json)
    fprintf(f, "  \"mode\": \"%s\",\n  \"ranks\": [", mode);
  else
    fprintf(f,
            "mode %s, %d rank(s); cores are hwloc logical PU indexes (L#), as StarPU takes "
            "them\n%4s %5s  %-20s %-10s %-16s %5s %5s  %s\n",
            mode, n, "rank", "numa", "cuda (pci)", "gpu-driver", "cpu-workers", "mpi", "main",
            "nic");
  for (int r = 0; r < n; r++) {
    const tess_topo_share *s = &shares[r];
    void (*list)(char *, size_t, const int *, int) = json ? json_list : tess_topo_format_list;
    list(drv, sizeof drv, s->cores, s->ngpu);
    list(cpu, sizeof cpu, s->cores + s->ngpu, s->ncores - s->ngpu);
    size_t len = 0;
    gpus[0] = '\0';
    if (json)
      for (int g = 0; g < s->ngpu; g++)
        len += (size_t)snprintf(gpus + len, sizeof gpus - len, "%s{\"cuda\": %d, \"pci\": \"%s\"}",
                                g ? ", " : "", s->gpu_cuda[g], s->gpu_pci[g]);
    else if (s->ngpu == 1)
      snprintf(gpus, sizeof gpus, "%d (%s)", s->gpu_cuda[0], s->gpu_pci[0]);
    else
      tess_topo_format_list(gpus, sizeof gpus, s->gpu_cuda, s->ngpu);
    if (json)
      fprintf(f,
              "%s\n    {\"local_rank\": %d, \"numa\": %d, \"gpus\": [%s], \"driver_cores\": [%s], "
              "\"cpu_cores\": [%s], \"mpi_core\": %d, \"main_core\": %d, \"nic\": \"%s\"}",
              r ? "," : "", s->local_rank, s->numa, gpus, drv, cpu, s->mpi_core, s->main_core,
              s->nic);
    else
      fprintf(f, "%4d %5d  %-20s %-10s %-16s %5d %5d  %s\n", s->local_rank, s->numa,
              s->ngpu ? gpus : "-", s->ngpu ? drv : "-", cpu[0] ? cpu : "-", s->mpi_core,
              s->main_core, s->nic[0] ? s->nic : "-");
  }
  if (json) fprintf(f, "\n  ]\n}\n");
}

/* tessera-topo — prints how Tessera would place its ranks on this node, or on the node an hwloc
 * XML export describes: each rank's GPU(s), cores (StarPU workers, MPI thread, main thread)
 * and NIC. No MPI needed.
 *
 *   tessera-topo [--xml FILE] [--ranks N] [--mode gpu|numa|node|cores] [--json] [--env R]
 *
 * --ranks defaults to what the mode is made for (one per GPU, per NUMA domain; 1 for node);
 * --mode to gpu on GPU nodes, else numa (cores if the ranks outnumber the NUMA domains).
 * --env R prints the environment rank R would get (shell syntax), instead of the map.
 * Exit status: 0, 1 when the ranks do not fit the mode or the file cannot be read, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "topology.h"

static int usage(const char *msg) {
  fprintf(stderr,
          "tessera-topo: %s\nusage: tessera-topo [--xml FILE] [--ranks N] [--mode "
          "gpu|numa|node|cores] [--json] [--env RANK]\n",
          msg);
  return 2;
}

static void print_env(const tess_topo_share *s) {
  static const char *names[] = {
      "STARPU_NCUDA",         "STARPU_WORKERS_CUDAID",   "STARPU_NCPU",
      "STARPU_WORKERS_CPUID", "STARPU_MPI_THREAD_CPUID", "STARPU_MAIN_THREAD_CPUID",
      "CUDA_DEVICE_ORDER",    "UCX_NET_DEVICES"};
  tess_topo_export_env(s, 1);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (getenv(names[i])) printf("export %s='%s'\n", names[i], getenv(names[i]));
}

int main(int argc, char **argv) {
  const char *xml = NULL, *mode_name = NULL;
  int ranks = 0, json = 0, env_rank = -1, ranks_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--json"))
      json = 1;
    else if (!strcmp(a, "--xml") && v)
      xml = v, i++;
    else if (!strcmp(a, "--mode") && v)
      mode_name = v, i++;
    else if (!strcmp(a, "--ranks") && v)
      ranks = atoi(v), ranks_given = 1, i++;
    else if (!strcmp(a, "--env") && v)
      env_rank = atoi(v), i++;
    else if (!strcmp(a, "--help") || !strcmp(a, "-h"))
      return usage("placement of ranks on a node"), 0;
    else {
      char msg[256];
      snprintf(msg, sizeof msg, "unknown option '%s'", a);
      return usage(msg);
    }
  }
  if (ranks_given && ranks < 1) return usage("--ranks needs a positive number");
  tess_topo_t topo = NULL;
  if (tess_topo_load(xml, &topo)) return 1;
  tess_topo_mode mode = tess_topo_default_mode(topo, ranks > 0 ? ranks : tess_topo_nnuma(topo), 1);
  if (mode_name && tess_topo_mode_parse(mode_name, &mode)) return tess_topo_destroy(&topo), 2;
  if (ranks <= 0)
    ranks = mode == TESS_TOPO_PER_GPU    ? tess_topo_ngpus(topo)
            : mode == TESS_TOPO_PER_NODE ? 1
                                         : tess_topo_nnuma(topo);
  if (env_rank >= ranks) return tess_topo_destroy(&topo), usage("--env RANK must be below --ranks");
  tess_topo_share *shares = calloc((size_t)(ranks > 0 ? ranks : 1), sizeof *shares);
  int rc = shares ? 0 : 1;
  for (int r = 0; r < ranks && !rc; r++)
    if (tess_topo_assign(topo, mode, r, ranks, NULL, 0, &shares[r])) rc = 1;
  if (!rc && env_rank >= 0)
    print_env(&shares[env_rank]);
  else if (!rc)
    tess_topo_print(stdout, topo, shares, ranks, json);
  free(shares);
  tess_topo_destroy(&topo);
  return rc;
}

/* test_topology.c — placement of ranks on GPUs, cores and NICs (topology/).
 *
 *   test_topology own DIR    hand-written nodes in DIR (tests/topology/, *.xml): exact shares
 *   test_topology real DIR   every hwloc XML export in DIR (real machines from hwloc's test
 *                            suite): invariants for every mode and rank count; 77 if empty
 *   test_topology mpi        under mpiexec: node-local ranks from MPI and from the launcher
 *
 * Invariants, checked against hwloc directly rather than against topology/'s own tables:
 * no core shared between ranks; in gpu mode each GPU driven by exactly one rank; each GPU's
 * driver core inside the GPU's locality when that holds 3 cores per rank driving GPUs there;
 * the NIC local to the GPU when a NIC of its kind is; ranks of a NUMA domain contiguous;
 * a clear error naming the count and the limit when ranks outnumber what the mode allows.
 * Returns 0 (pass), 1 (fail) or 77 (skip).
 */
#include <dirent.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "topology.h"

static int failures = 0;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failures++;                                                                                  \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                  \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
    }                                                                                              \
  } while (0)

/* ---- stderr capture, to check messages ---------------------------------------------------- */
static FILE *cap;
static int saved_fd = -1;
static char captured[8192];
static void capture_begin(void) {
  fflush(stderr);
  cap = tmpfile();
  saved_fd = dup(2);
  dup2(fileno(cap), 2);
}
static const char *capture_end(void) {
  fflush(stderr);
  dup2(saved_fd, 2);
  close(saved_fd);
  rewind(cap);
  const size_t n = fread(captured, 1, sizeof captured - 1, cap);
  captured[n] = '\0';
  fclose(cap);
  return captured;
}

/* ---- invariants ---------------------------------------------------------------------------- */
static int allowed(tess_topo_t t, tess_topo_mode m, int ngpus) {
  return m == TESS_TOPO_PER_GPU    ? ngpus
         : m == TESS_TOPO_PER_NUMA ? tess_topo_nnuma(t)
         : m == TESS_TOPO_PER_NODE ? 1
                                   : tess_topo_ncores(t);
}

/* Locality of a GPU or NIC as hwloc sees it: the cpuset of its first non-I/O ancestor. */
static hwloc_const_cpuset_t gpu_locality(hwloc_topology_t hw, const char *busid) {
  hwloc_obj_t o = hwloc_get_pcidev_by_busidstring(hw, busid);
  return o ? hwloc_get_non_io_ancestor_obj(hw, o)->cpuset : NULL;
}
static hwloc_obj_t nic_osdev(hwloc_topology_t hw, const char *name) {
  const size_t len = strcspn(name, ":,");
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(hw, o));)
    if (strlen(o->name) == len && !strncmp(o->name, name, len)) return o;
  return NULL;
}
static int pu_in(hwloc_topology_t hw, int pu, hwloc_const_cpuset_t set) {
  hwloc_obj_t o = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, (unsigned)pu);
  return o && hwloc_bitmap_isincluded(o->cpuset, set);
}

/* Places n ranks with mode m (bus ids: CUDA's view, or NULL) and checks every invariant. */
static void check_plan(const char *name, tess_topo_t t, hwloc_topology_t hw, tess_topo_mode m,
                       int n, const char *const *busids, int ncuda) {
  const char *mn = tess_topo_mode_name(m);
  const int ngpus = busids ? ncuda : tess_topo_ngpus(t), limit = allowed(t, m, ngpus);
  tess_topo_share *s = calloc((size_t)n, sizeof *s);
  if (n > limit) { /* must fail, naming the count and the limit */
    capture_begin();
    const tess_err e = tess_topo_assign(t, m, 0, n, busids, ncuda, s);
    const char *msg = capture_end();
    char want[128];
    if (m == TESS_TOPO_PER_GPU && limit == 0)
      snprintf(want, sizeof want, "mode 'gpu' needs GPUs");
    else
      snprintf(want, sizeof want, "%d ranks on this node, but mode '%s' allows", n, mn);
    EXPECT(e == TESS_ERR_ARG && strstr(msg, want),
           "%s: %d ranks in mode %s: want error '%s', got %d '%s'", name, n, mn, want, (int)e, msg);
    free(s);
    return;
  }
  for (int r = 0; r < n; r++)
    if (tess_topo_assign(t, m, r, n, busids, ncuda, &s[r])) {
      EXPECT(0, "%s: %d ranks in mode %s: rank %d failed", name, n, mn, r);
      free(s);
      return;
    }
  const int maxpu = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
  int *owner = malloc((size_t)maxpu * sizeof *owner),
      *driven = calloc((size_t)ngpus + 1, sizeof *driven);
  for (int p = 0; p < maxpu; p++)
    owner[p] = -1;
  for (int r = 0; r < n; r++) {
    EXPECT(s[r].ncores >= 1 && s[r].ncores >= s[r].ngpu,
           "%s/%s/%d: rank %d has %d cores for %d GPUs", name, mn, n, r, s[r].ncores, s[r].ngpu);
    int ids[TESS_TOPO_MAX_CORES + 2], k = 0;
    for (int i = 0; i < s[r].ncores; i++)
      ids[k++] = s[r].cores[i];
    ids[k++] = s[r].mpi_core;
    ids[k++] = s[r].main_core;
    for (int i = 0; i < k; i++) {
      EXPECT(ids[i] >= 0 && ids[i] < maxpu, "%s/%s/%d: rank %d: core %d is not a PU", name, mn, n,
             r, ids[i]);
      if (ids[i] < 0 || ids[i] >= maxpu) continue;
      EXPECT(owner[ids[i]] < 0 || owner[ids[i]] == r, "%s/%s/%d: core %d shared by ranks %d and %d",
             name, mn, n, ids[i], owner[ids[i]], r);
      owner[ids[i]] = r;
    }
    for (int g = 0; g < s[r].ngpu; g++)
      driven[s[r].gpu_cuda[g]]++;
    if (r > 0 && s[r].numa != s[r - 1].numa)
      for (int q = 0; q < r - 1; q++)
        EXPECT(s[q].numa != s[r].numa, "%s/%s/%d: ranks of NUMA %d not contiguous (%d, %d)", name,
               mn, n, s[r].numa, q, r);
  }
  for (int g = 0; g < ngpus; g++) {
    if (m == TESS_TOPO_PER_GPU || m == TESS_TOPO_PER_NODE)
      EXPECT(driven[g] == 1, "%s/%s/%d: GPU %d driven by %d ranks", name, mn, n, g, driven[g]);
    else
      EXPECT(driven[g] <= 1, "%s/%s/%d: GPU %d driven by %d ranks", name, mn, n, g, driven[g]);
  }
  for (int r = 0; r < n; r++)
    for (int g = 0; g < s[r].ngpu; g++) {
      hwloc_const_cpuset_t loc = gpu_locality(hw, s[r].gpu_pci[g]);
      if (!loc) continue;
      int sharing = 0; /* ranks driving a GPU of the same locality */
      for (int q = 0; q < n; q++)
        for (int h = 0; h < s[q].ngpu; h++)
          if (gpu_locality(hw, s[q].gpu_pci[h]) &&
              hwloc_bitmap_isequal(gpu_locality(hw, s[q].gpu_pci[h]), loc)) {
            sharing++;
            break;
          }
      const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(hw, loc, HWLOC_OBJ_CORE);
      if (cores >= 3 * sharing && !hwloc_bitmap_isequal(loc, hwloc_get_root_obj(hw)->cpuset))
        EXPECT(pu_in(hw, s[r].cores[g], loc),
               "%s/%s/%d: rank %d drives GPU %s from core %d, outside its locality", name, mn, n, r,
               s[r].gpu_pci[g], s[r].cores[g]);
      /* The NIC: local to the GPU whenever one of the chosen kind is. */
      hwloc_obj_t nic = s[r].nic[0] ? nic_osdev(hw, s[r].nic) : NULL;
      if (g > 0 || !nic) continue;
      int local_exists = 0;
      for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(hw, o));)
        if (o->attr->osdev.type == nic->attr->osdev.type &&
            hwloc_bitmap_isincluded(hwloc_get_non_io_ancestor_obj(hw, o)->cpuset, loc))
          local_exists = 1;
      if (local_exists)
        EXPECT(hwloc_bitmap_isincluded(hwloc_get_non_io_ancestor_obj(hw, nic)->cpuset, loc),
               "%s/%s/%d: rank %d: NIC %s is not on the side of GPU %s", name, mn, n, r, s[r].nic,
               s[r].gpu_pci[g]);
    }
  free(owner);
  free(driven);
  free(s);
}

/* Loads an XML file twice: through topology/ and plainly through hwloc, for the checks. */
static int load(const char *path, tess_topo_t *t, hwloc_topology_t *hw) {
  hwloc_topology_init(hw);
  hwloc_topology_set_io_types_filter(*hw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_set_xml(*hw, path) < 0 || hwloc_topology_load(*hw) < 0 ||
      tess_topo_load(path, t)) {
    EXPECT(0, "cannot load %s", path);
    hwloc_topology_destroy(*hw);
    return 0;
  }
  return 1;
}

static void check_all_modes(const char *name, tess_topo_t t, hwloc_topology_t hw,
                            const char *const *busids, int ncuda) {
  for (int m = 0; m < TESS_TOPO_MODE_COUNT; m++) {
    const int limit = allowed(t, (tess_topo_mode)m, busids ? ncuda : tess_topo_ngpus(t));
    const int counts[] = {1, 2, 3, limit - 1, limit, limit + 1};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
      if (counts[i] >= 1 && (i < 3 ? counts[i] <= limit : 1))
        check_plan(name, t, hw, (tess_topo_mode)m, counts[i], busids, ncuda);
  }
}

static tess_topo_share share_of(tess_topo_t t, tess_topo_mode m, int r, int n) {
  tess_topo_share s;
  memset(&s, 0, sizeof s);
  EXPECT(tess_topo_assign(t, m, r, n, NULL, 0, &s) == TESS_OK, "assign %s %d/%d failed",
         tess_topo_mode_name(m), r, n);
  return s;
}

/* ---- the hand-written nodes ---------------------------------------------------------------- */
static void own_gpu4(tess_topo_t t) {
  /* The paper's node: 2 sockets x 16 cores x 2 threads, 2 GPUs + 1 NIC behind each socket's
   * switch. One rank per GPU: 8 cores each, numbered by logical PU (even: 2 threads/core). */
  EXPECT(tess_topo_ngpus(t) == 4 && tess_topo_nnuma(t) == 2 && tess_topo_ncores(t) == 32,
         "gpu4 counts");
  EXPECT(tess_topo_default_mode(t, 4, 1) == TESS_TOPO_PER_GPU &&
             tess_topo_default_mode(t, 4, 0) == TESS_TOPO_PER_CORES &&
             tess_topo_default_mode(t, 2, 0) == TESS_TOPO_PER_NUMA,
         "gpu4: default modes");
  const char *pci[] = {"0000:03:00.0", "0000:04:00.0", "0000:43:00.0", "0000:44:00.0"};
  for (int r = 0; r < 4; r++) {
    tess_topo_share s = share_of(t, TESS_TOPO_PER_GPU, r, 4);
    EXPECT(s.ngpu == 1 && s.gpu_cuda[0] == r && !strcmp(s.gpu_pci[0], pci[r]), "gpu4: rank %d GPU",
           r);
    EXPECT(s.numa == r / 2, "gpu4: rank %d on NUMA %d", r, s.numa);
    EXPECT(!strcmp(s.nic, r < 2 ? "mlx5_0:1" : "mlx5_1:1"), "gpu4: rank %d NIC %s", r, s.nic);
    EXPECT(s.ncores == 6 && s.cores[0] == 16 * r, "gpu4: rank %d has %d worker cores from %d", r,
           s.ncores, s.cores[0]);
    for (int i = 0; i < s.ncores; i++)
      EXPECT(s.cores[i] % 2 == 0, "gpu4: core %d not a first PU", s.cores[i]);
    EXPECT(s.mpi_core == 16 * r + 14 && s.main_core == 16 * r + 12, "gpu4: rank %d mpi %d main %d",
           r, s.mpi_core, s.main_core);
  }
  tess_topo_share s = share_of(t, TESS_TOPO_PER_NODE, 0, 1); /* one rank drives all */
  EXPECT(s.ngpu == 4 && !strcmp(s.nic, "mlx5_0:1,mlx5_1:1"), "gpu4 node mode: %d GPUs, NIC %s",
         s.ngpu, s.nic);
  EXPECT(s.cores[2] >= 32 && s.cores[3] >= 32, "gpu4 node mode: drivers of GPUs 2, 3 on socket 1");
  s = share_of(t, TESS_TOPO_PER_NUMA, 1, 2);
  EXPECT(s.ngpu == 2 && s.gpu_cuda[0] == 2 && s.gpu_cuda[1] == 3 && s.ncores == 14 &&
             !strcmp(s.nic, "mlx5_1:1"),
         "gpu4 numa mode: rank 1");

  /* CUDA's numbering is not PCI order: match by bus id (any case, 4 or 8 digit domain). */
  const char *cuda[] = {"0000:44:00.0", "0000:03:00.0", "00000000:43:00.0", "0000:04:00.0"};
  const int want[] = {1, 3, 2, 0};
  for (int r = 0; r < 4; r++) {
    EXPECT(tess_topo_assign(t, TESS_TOPO_PER_GPU, r, 4, cuda, 4, &s) == TESS_OK, "bus ids");
    EXPECT(s.gpu_cuda[0] == want[r] && !strcmp(s.gpu_pci[0], pci[r]),
           "gpu4 by bus id: rank %d got CUDA %d (%s), want %d", r, s.gpu_cuda[0], s.gpu_pci[0],
           want[r]);
  }
  const char *visible[] = {"0000:43:00.0"}; /* CUDA_VISIBLE_DEVICES=2 */
  EXPECT(tess_topo_assign(t, TESS_TOPO_PER_GPU, 0, 1, visible, 1, &s) == TESS_OK &&
             s.gpu_cuda[0] == 0 && s.numa == 1 && !strcmp(s.nic, "mlx5_1:1"),
         "gpu4: one visible GPU on socket 1");

  /* The environment StarPU and UCX read; what the user set stays. */
  const char *vars[] = {"STARPU_NCUDA",
                        "STARPU_WORKERS_CUDAID",
                        "STARPU_NCPU",
                        "STARPU_WORKERS_CPUID",
                        "STARPU_WORKERS_COREID",
                        "STARPU_WORKERS_NOBIND",
                        "STARPU_MPI_THREAD_CPUID",
                        "STARPU_MAIN_THREAD_CPUID",
                        "UCX_NET_DEVICES"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    unsetenv(vars[i]);
  setenv("UCX_NET_DEVICES", "all", 1);
  s = share_of(t, TESS_TOPO_PER_GPU, 1, 4);
  tess_topo_export_env(&s, 1);
  const char *expect[][2] = {{"STARPU_NCUDA", "1"},
                             {"STARPU_WORKERS_CUDAID", "1"},
                             {"STARPU_NCPU", "5"},
                             {"STARPU_WORKERS_CPUID", "16 18 20 22 24 26"},
                             {"STARPU_MPI_THREAD_CPUID", "30"},
                             {"STARPU_MAIN_THREAD_CPUID", "28"},
                             {"UCX_NET_DEVICES", "all"}};
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
    const char *v = getenv(expect[i][0]);
    EXPECT(v && !strcmp(v, expect[i][1]), "env %s = '%s', want '%s'", expect[i][0],
           v ? v : "(unset)", expect[i][1]);
  }
}

static void own_gpu8(tess_topo_t t) {
  /* 8 GPUs, 4 NICs, 2 sockets x 2 NUMA domains x 12 cores; a switch per domain. */
  for (int r = 0; r < 8; r++) {
    tess_topo_share s = share_of(t, TESS_TOPO_PER_GPU, r, 8);
    char nic[16];
    snprintf(nic, sizeof nic, "mlx5_%d:1", r / 2);
    EXPECT(s.ngpu == 1 && s.gpu_cuda[0] == r && s.numa == r / 2 && !strcmp(s.nic, nic),
           "gpu8: rank %d: GPU %d NUMA %d NIC %s", r, s.gpu_cuda[0], s.numa, s.nic);
    for (int i = 0; i < s.ncores; i++)
      EXPECT(s.cores[i] / 12 == r / 2, "gpu8: rank %d core %d off its domain", r, s.cores[i]);
    EXPECT(s.ncores == 4 && s.mpi_core / 12 == r / 2 && s.main_core / 12 == r / 2, "gpu8: rank %d",
           r);
  }
  for (int r = 0; r < 4; r++) {
    tess_topo_share s = share_of(t, TESS_TOPO_PER_NUMA, r, 4);
    char nic[16];
    snprintf(nic, sizeof nic, "mlx5_%d:1", r);
    EXPECT(s.ngpu == 2 && s.gpu_cuda[0] == 2 * r && s.gpu_cuda[1] == 2 * r + 1 &&
               !strcmp(s.nic, nic),
           "gpu8 numa mode: rank %d", r);
  }
  tess_topo_share s = share_of(t, TESS_TOPO_PER_NODE, 0, 1);
  EXPECT(s.ngpu == 8 && !strcmp(s.nic, "mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"), "gpu8 node mode: %s",
         s.nic);
  for (int g = 0; g < 8; g++)
    EXPECT(s.cores[g] / 12 == g / 2, "gpu8 node mode: driver of GPU %d", g);
}

static void own_gpu1(tess_topo_t t) {
  /* 1 socket, 8 cores x 2 threads, 1 GPU of class VGA (0x0300), an Ethernet NIC only. */
  tess_topo_share s = share_of(t, TESS_TOPO_PER_GPU, 0, 1);
  EXPECT(s.ngpu == 1 && !strcmp(s.gpu_pci[0], "0000:03:00.0") && !strcmp(s.nic, "enp5s0") &&
             s.ncores == 6 && s.mpi_core == 14 && s.main_core == 12,
         "gpu1: one rank");
  s = share_of(t, TESS_TOPO_PER_CORES, 3, 4); /* CPU only: 2 cores per rank */
  EXPECT(s.ngpu == 0 && s.ncores >= 1 && s.mpi_core == 14, "gpu1 cores mode: rank 3");
  EXPECT(tess_topo_default_mode(t, 1, 1) == TESS_TOPO_PER_GPU, "gpu1: default mode");
}

/* The H200 host's shape (16 cores, 1 GPU) with CPU ranks: every rank count and worker count of
 * bench/cpu-node.sh. Checked against the rank's block as tess_topo_assign dealt it (its workers,
 * MPI and main cores): the re-deal keeps exactly those cores, gives each worker its own core
 * while there are cores enough, and puts the MPI thread beside a worker only when asked for more
 * workers than the block has cores to spare (or by default when the block has under 3 cores). */
static void own_cpu16(tess_topo_t t) {
  EXPECT(tess_topo_ncores(t) == 16 && tess_topo_ngpus(t) == 1, "cpu16 counts");
  EXPECT(tess_topo_default_mode(t, 16, 0) == TESS_TOPO_PER_CORES, "cpu16: default mode cores");
  static const int plan[][2] = {{1, 15}, {1, 14}, {1, 0},  {2, 7}, {2, 8}, {2, 6},
                                {2, 0},  {4, 4},  {4, 3},  {4, 0}, {8, 2}, {8, 1},
                                {8, 0},  {16, 1}, {16, 0}, {16, 2}};
  for (size_t p = 0; p < sizeof plan / sizeof plan[0]; p++) {
    const int nlocal = plan[p][0], w = plan[p][1];
    int owner[16];
    for (int c = 0; c < 16; c++)
      owner[c] = -1;
    for (int r = 0; r < nlocal; r++) {
      tess_topo_share s = share_of(t, TESS_TOPO_PER_CORES, r, nlocal);
      int block[16] = {0}, n = 0, after[16] = {0};
      for (int i = 0; i < s.ncores; i++)
        block[s.cores[i]] = 1;
      block[s.mpi_core] = block[s.main_core] = 1;
      for (int c = 0; c < 16; c++)
        n += block[c];
      tess_topo_fit_cpu_workers(&s, w);
      const int want = w > 0 ? w : n >= 3 ? n - 2 : n, shared = want >= n;
      for (int i = 0; i < s.ncores; i++)
        after[s.cores[i]]++;
      after[s.mpi_core] |= 1;
      after[s.main_core] |= 1;
      int same = 1, twice = 0, mpi_on_worker = 0, main_on_worker = 0;
      for (int i = 0; i < s.ncores; i++)
        twice |= after[s.cores[i]] > 1;
      for (int c = 0; c < 16; c++)
        same &= (after[c] > 0) == block[c];
      for (int i = 0; i < s.ncores; i++) {
        mpi_on_worker |= s.cores[i] == s.mpi_core;
        main_on_worker |= s.cores[i] == s.main_core;
      }
      EXPECT(same, "cpu16 %dx%d rank %d: the re-deal changed the rank's cores", nlocal, w, r);
      EXPECT(n == 16 / nlocal, "cpu16 %dx%d rank %d: %d cores, 16/%d expected", nlocal, w, r, n,
             nlocal);
      EXPECT(s.ncores == (want < n ? want : n), "cpu16 %dx%d rank %d: %d workers for %d wanted",
             nlocal, w, r, s.ncores, want);
      EXPECT(s.mpi_shared == shared && mpi_on_worker == shared,
             "cpu16 %dx%d rank %d: MPI thread %s a worker's core (mpi_shared %d)", nlocal, w, r,
             mpi_on_worker ? "on" : "off", s.mpi_shared);
      EXPECT(main_on_worker == shared && (want <= n - 2) == (s.main_core != s.mpi_core),
             "cpu16 %dx%d rank %d: main thread on L#%d (MPI L#%d)", nlocal, w, r, s.main_core,
             s.mpi_core);
      EXPECT(!twice, "cpu16 %dx%d rank %d: two workers on one core", nlocal, w, r);
      for (int c = 0; c < 16; c++)
        if (block[c]) {
          EXPECT(owner[c] < 0, "cpu16 %dx%d: core %d given to ranks %d and %d", nlocal, w, c,
                 owner[c], r);
          owner[c] = r;
        }
    }
  }
}

/* The driver threads a GPU (tess_topo_cuda_workers_per_gpu): 8 where the rank's cores hold 8 a
 * GPU and 4 more and no rank shares its GPU, else 4. */
static void check_cuda_workers(void) {
  static const struct {
    int ncores, ngpus, nlocal, limit, want;
  } c[] = {{16, 1, 1, 0, 8}, /* the lent H100/H200 host, one rank */
           {16, 1, 2, 0, 4}, /* two ranks sharing its GPU (8 each ran 7-46x slower) */
           {11, 1, 1, 0, 4}, /* too few cores for 8 + 4 */
           {12, 1, 1, 0, 8},  {64, 4, 4, 0, 8}, /* one rank a GPU, 16 cores each */
           {64, 4, 1, 0, 8},                    /* one rank driving 4 GPUs: 36 of 64 cores */
           {32, 4, 1, 0, 4},  {32, 4, 1, 1, 8}, /* STARPU_NCUDA=1: one GPU's threads */
           {128, 8, 8, 0, 8}, {64, 8, 8, 0, 4}, /* 8 cores a GPU */
           {16, 0, 1, 0, 4},  {16, 2, 0, 0, 4}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    const int got =
        tess_topo_cuda_workers_per_gpu(c[i].ncores, c[i].ngpus, c[i].nlocal, c[i].limit);
    EXPECT(got == c[i].want,
           "%d cores, %d GPUs, %d ranks, limit %d: %d CUDA workers a GPU, want %d", c[i].ncores,
           c[i].ngpus, c[i].nlocal, c[i].limit, got, c[i].want);
  }
}

static int run_own(const char *dir) {
  check_cuda_workers();
  static const struct {
    const char *file;
    void (*check)(tess_topo_t);
  } nodes[] = {{"gpu4-nic2-2s.xml", own_gpu4},
               {"gpu8-nic4-2s.xml", own_gpu8},
               {"gpu1-1s.xml", own_gpu1},
               {"gpu1-16c-1s.xml", own_cpu16}};
  for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, nodes[i].file);
    tess_topo_t t;
    hwloc_topology_t hw;
    if (!load(path, &t, &hw)) continue;
    nodes[i].check(t);
    check_all_modes(nodes[i].file, t, hw, NULL, 0);
    tess_topo_destroy(&t);
    EXPECT(t == NULL, "destroy must NULL the handle");
    hwloc_topology_destroy(hw);
  }
  /* This machine loads, and its default placement holds. */
  tess_topo_t t;
  EXPECT(tess_topo_load(NULL, &t) == TESS_OK, "this machine");
  tess_topo_share s = share_of(t, tess_topo_default_mode(t, 1, 1), 0, 1);
  EXPECT(s.ncores >= 1, "this machine: one rank gets cores");
  tess_topo_destroy(&t);
  tess_topo_destroy(&t); /* NULL-safe */

  /* Bad input: a missing file, an unknown mode. */
  capture_begin();
  const tess_err e1 = tess_topo_load("/nonexistent/node.xml", &t);
  tess_topo_mode m;
  const tess_err e2 = tess_topo_mode_parse("socket", &m);
  const char *msg = capture_end();
  EXPECT(e1 == TESS_ERR_IO && strstr(msg, "/nonexistent/node.xml"), "missing XML: %s", msg);
  EXPECT(e2 == TESS_ERR_ARG &&
             strstr(msg, "unknown placement mode 'socket' (allowed: gpu, numa, node, cores)"),
         "bad mode: %s", msg);

  /* Contiguity of node-local ranks (Morton placement relies on it). */
  const int ok[] = {4, 5, 6, 7}, strided[] = {0, 2, 4, 6}, reversed[] = {3, 2, 1, 0};
  capture_begin();
  const int c1 = tess_topo_check_contiguous(ok, 4, 1),
            c2 = tess_topo_check_contiguous(strided, 4, 1);
  const int c3 = tess_topo_check_contiguous(reversed, 4, 0);
  msg = capture_end();
  EXPECT(c1 && !c2 && !c3, "contiguity: %d %d %d", c1, c2, c3);
  EXPECT(strstr(msg, "not contiguous (ranks 0,2,4,6") && !strstr(msg, "3,2,1,0"),
         "contiguity warning: %s", msg);

  /* Node-local rank from the launcher, before MPI_Init. */
  int lr = -1, nl = -1;
  unsetenv("OMPI_COMM_WORLD_LOCAL_RANK");
  unsetenv("MPI_LOCALRANKID");
  setenv("SLURM_LOCALID", "1", 1);
  setenv("SLURM_NODEID", "2", 1);
  setenv("SLURM_STEP_TASKS_PER_NODE", "4(x2),3", 1);
  EXPECT(tess_topo_local_rank_env(&lr, &nl) && lr == 1 && nl == 3, "Slurm local rank %d of %d", lr,
         nl);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4", 1);
  EXPECT(tess_topo_local_rank_env(&lr, &nl) && lr == 2 && nl == 4, "Open MPI local rank %d of %d",
         lr, nl);
  return failures ? 1 : 0;
}

/* ---- real machines ------------------------------------------------------------------------ */
/* The CUDA devices hwloc's CUDA plugin saw when the file was made ("cudaN" OS devices), in
 * CUDA's order: exactly the bus ids CUDA would report there. */
static int cuda_view(hwloc_topology_t hw, char ids[][16], const char **ptr) {
  int n = 0;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(hw, o));) {
    int k;
    if (sscanf(o->name, "cuda%d", &k) != 1 || k < 0 || k >= 16 || !o->parent ||
        o->parent->type != HWLOC_OBJ_PCI_DEVICE)
      continue;
    const struct hwloc_pcidev_attr_s *p = &o->parent->attr->pcidev;
    snprintf(ids[k], 16, "%04x:%02x:%02x.%x", p->domain, p->bus, p->dev, p->func);
    n = k + 1 > n ? k + 1 : n;
  }
  for (int k = 0; k < n; k++)
    ptr[k] = ids[k];
  return n;
}

static int run_real(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return printf("skip: no directory %s\n", dir), 77;
  int files = 0, with_gpus = 0;
  for (struct dirent *e; (e = readdir(d));) {
    const size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".xml")) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    tess_topo_t t;
    hwloc_topology_t hw;
    if (!load(path, &t, &hw)) continue;
    files++;
    with_gpus += tess_topo_ngpus(t) > 0;
    check_all_modes(e->d_name, t, hw, NULL, 0);
    char ids[16][16];
    const char *ptr[16];
    const int ncuda = cuda_view(hw, ids, ptr);
    if (ncuda > 0) { /* match CUDA's own numbering by bus id */
      check_all_modes(e->d_name, t, hw, ptr, ncuda);
      for (int r = 0; r < ncuda; r++) {
        tess_topo_share s;
        EXPECT(tess_topo_assign(t, TESS_TOPO_PER_GPU, r, ncuda, ptr, ncuda, &s) == TESS_OK &&
                   !strcmp(ids[s.gpu_cuda[0]], s.gpu_pci[0]),
               "%s: CUDA ordinal %d is %s, not %s", e->d_name, s.gpu_cuda[0], ids[s.gpu_cuda[0]],
               s.gpu_pci[0]);
      }
      printf("%s: CUDA numbering (%d devices) matched by PCI bus id\n", e->d_name, ncuda);
    }
    printf("%s: %d cores, %d NUMA, %d GPUs: checked\n", e->d_name, tess_topo_ncores(t),
           tess_topo_nnuma(t), tess_topo_ngpus(t));
    tess_topo_destroy(&t);
    hwloc_topology_destroy(hw);
  }
  closedir(d);
  if (!files) return printf("skip: no XML file in %s\n", dir), 77;
  EXPECT(with_gpus > 0, "no real machine with NVIDIA GPUs among %d files", files);
  printf("%d real machines, %d with NVIDIA GPUs\n", files, with_gpus);
  return failures ? 1 : 0;
}

/* ---- MPI: node-local ranks ---------------------------------------------------------------- */
static int run_mpi(void) {
  int provided, rank, size, lr, nl, elr, enl;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT(tess_topo_local_rank(MPI_COMM_WORLD, &lr, &nl) == TESS_OK, "tess_topo_local_rank");
  EXPECT(lr == rank && nl == size, "one node: local rank %d of %d, world %d of %d", lr, nl, rank,
         size);
  if (tess_topo_local_rank_env(&elr, &enl))
    EXPECT(elr == lr && enl == nl, "launcher says %d of %d, MPI %d of %d", elr, enl, lr, nl);
  tess_topo_t t;
  tess_topo_share s;
  memset(&s, 0, sizeof s);
  if (tess_topo_load(NULL, &t) == TESS_OK && nl <= tess_topo_ncores(t)) {
    EXPECT(tess_topo_assign(t, TESS_TOPO_PER_CORES, lr, nl, NULL, 0, &s) == TESS_OK, "assign");
    tess_topo_share *all = malloc((size_t)size * sizeof *all);
    MPI_Allgather(&s, (int)sizeof s, MPI_BYTE, all, (int)sizeof s, MPI_BYTE, MPI_COMM_WORLD);
    for (int q = 0; q < size; q++)
      for (int i = 0; i < all[q].ncores; i++)
        for (int p = 0; p < q; p++)
          for (int j = 0; j < all[p].ncores; j++)
            EXPECT(all[q].cores[i] != all[p].cores[j], "ranks %d and %d share core %d", p, q,
                   all[q].cores[i]);
    if (rank == 0) tess_topo_print(stdout, t, all, size, 0);
    free(all);
  }
  tess_topo_destroy(&t);
  int total = failures;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "own")) return run_own(argv[2]);
  if (argc >= 3 && !strcmp(argv[1], "real")) return run_real(argv[2]);
  if (argc >= 2 && !strcmp(argv[1], "mpi")) return run_mpi();
  fprintf(stderr, "usage: test_topology own DIR | real DIR | mpi\n");
  return 1;
}

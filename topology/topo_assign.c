/* topo_assign.c — splitting a node between its ranks.
 *
 * Every rank computes the plan of the whole node (cheap, deterministic) and keeps its share,
 * so the shares never overlap without any communication. The plan, in four passes:
 *
 *   1. GPUs: the usable GPUs, ordered by NUMA domain then PCI bus id, go to ranks in
 *      contiguous balanced blocks (gpu, node modes), or with their domain (numa mode);
 *   2. cores: each domain's cores are split in contiguous blocks between the ranks it serves
 *      (those with a GPU there in gpu mode, its rank in numa/node modes);
 *   3. top-up: a rank owning fewer cores than it has threads to place (a driver per GPU, the
 *      MPI and the main thread, or one CPU worker) takes unowned cores, nearest first;
 *   4. roles: within its cores a rank puts each GPU's driver in the GPU's domain, the MPI
 *      thread near its NIC, the main thread at home, and CPU workers on the rest. Its NIC is
 *      the one nearest its GPU in the PCI tree (an InfiniBand/RoCE one when the node has
 *      any), ties going to the least used, so that two GPUs behind one switch share its NIC.
 */
#include <stdlib.h>
#include <string.h>

#include "topo_impl.h"

typedef struct {
  int cuda;   /* CUDA ordinal */
  int gpu;    /* index into t->gpu, -1 when hwloc does not know this device */
  int domain; /* -1: unknown */
  unsigned long long key;
  char busid[16];
} usable_gpu;

typedef struct {
  int ngpu, gpu[TESS_TOPO_MAX_GPUS]; /* indices into the usable list */
  int home;                          /* domain */
} rank_plan;

static int cmp_usable(const void *a, const void *b) {
  const usable_gpu *x = a, *y = b;
  const unsigned dx = (unsigned)x->domain, dy = (unsigned)y->domain; /* -1 sorts last */
  if (dx != dy) return dx < dy ? -1 : 1;
  return (x->key > y->key) - (x->key < y->key);
}

/* The GPUs this process may drive, with their CUDA ordinals. */
static tess_err usable_gpus(tess_topo_t t, const char *const *busids, int ncuda, usable_gpu *u,
                            int *nu) {
  *nu = 0;
  if (!busids) {
    if (t->is_this_machine && getenv("CUDA_VISIBLE_DEVICES") && t->ngpus)
      tess_log(TESS_LOG_WARN,
               "CUDA_VISIBLE_DEVICES is set but no CUDA bus ids were given: GPUs are numbered in "
               "PCI bus order of all %d GPUs, which CUDA may not follow",
               t->ngpus);
    for (int g = 0; g < t->ngpus; g++)
      u[(*nu)++] = (usable_gpu){g, g, t->gpu[g].domain, t->gpu[g].key, ""};
  } else {
    for (int i = 0; i < ncuda; i++) {
      const unsigned long long key = tess_topo_busid_key(busids[i]);
      TESS_CHECK(key, TESS_ERR_ARG, "CUDA device %d: cannot read PCI bus id '%s'", i, busids[i]);
      usable_gpu v = {i, -1, -1, key, ""};
      for (int g = 0; g < t->ngpus; g++)
        if (t->gpu[g].key == key) v.gpu = g, v.domain = t->gpu[g].domain;
      if (v.gpu < 0)
        tess_log(TESS_LOG_WARN,
                 "CUDA device %d (PCI %s) is not among the GPUs hwloc found in %s: its locality is "
                 "unknown",
                 i, busids[i], t->source);
      u[(*nu)++] = v;
    }
  }
  for (int i = 0; i < *nu; i++)
    if (u[i].gpu >= 0)
      memcpy(u[i].busid, t->gpu[u[i].gpu].busid, sizeof u[i].busid);
    else
      snprintf(u[i].busid, sizeof u[i].busid, "%.15s", busids[u[i].cuda]);
  qsort(u, (size_t)*nu, sizeof *u, cmp_usable);
  return TESS_OK;
}

static tess_err check_fit(tess_topo_t t, tess_topo_mode mode, int nlocal, int ngpu) {
  const char *m = tess_topo_mode_name(mode);
  TESS_CHECK(nlocal >= 1, TESS_ERR_ARG, "%d ranks on this node: at least 1 is needed", nlocal);
  switch (mode) {
  case TESS_TOPO_PER_GPU:
    TESS_CHECK(ngpu > 0, TESS_ERR_ARG,
               "mode 'gpu' needs GPUs, and %s has none (use numa, node or cores)", t->source);
    TESS_CHECK(nlocal <= ngpu, TESS_ERR_ARG,
               "%d ranks on this node, but mode '%s' allows at most %d (one per GPU)", nlocal, m,
               ngpu);
    break;
  case TESS_TOPO_PER_NUMA:
    TESS_CHECK(nlocal <= t->ndom, TESS_ERR_ARG,
               "%d ranks on this node, but mode '%s' allows at most %d (one per NUMA domain)",
               nlocal, m, t->ndom);
    break;
  case TESS_TOPO_PER_NODE:
    TESS_CHECK(nlocal == 1, TESS_ERR_ARG,
               "%d ranks on this node, but mode '%s' allows 1 (one rank drives the whole node)",
               nlocal, m);
    break;
  case TESS_TOPO_PER_CORES:
    TESS_CHECK(nlocal <= t->ncores, TESS_ERR_ARG,
               "%d ranks on this node, but mode '%s' allows at most %d (one per core)", nlocal, m,
               t->ncores);
    break;
  default:
    return TESS_ERROR(TESS_ERR_ARG, "unknown placement mode %d", (int)mode);
  }
  return TESS_OK;
}

/* Pass 1: GPUs and home domains. */
static tess_err place_gpus(tess_topo_t t, tess_topo_mode mode, int nlocal, const usable_gpu *u,
                           int nu, rank_plan *rp) {
  for (int r = 0; r < nlocal; r++) {
    rank_plan *p = &rp[r];
    const int d0 = r * t->ndom / nlocal, d1 = (r + 1) * t->ndom / nlocal;
    p->home = d0;
    if (mode == TESS_TOPO_PER_GPU || mode == TESS_TOPO_PER_NODE) {
      const int g0 = r * nu / nlocal, g1 = (r + 1) * nu / nlocal;
      for (int g = g0; g < g1; g++) {
        TESS_CHECK(p->ngpu < TESS_TOPO_MAX_GPUS, TESS_ERR_ARG,
                   "local rank %d would drive %d GPUs; at most %d are supported", r, g1 - g0,
                   TESS_TOPO_MAX_GPUS);
        p->gpu[p->ngpu++] = g;
      }
      if (p->ngpu && u[p->gpu[0]].domain >= 0) p->home = u[p->gpu[0]].domain;
    } else if (mode == TESS_TOPO_PER_NUMA) {
      for (int g = 0; g < nu; g++)
        if (u[g].domain >= d0 && u[g].domain < d1) {
          TESS_CHECK(p->ngpu < TESS_TOPO_MAX_GPUS, TESS_ERR_ARG,
                     "local rank %d would drive more than %d GPUs", r, TESS_TOPO_MAX_GPUS);
          p->gpu[p->ngpu++] = g;
        }
    }
  }
  if (mode == TESS_TOPO_PER_NUMA) /* GPUs of unknown locality: to the ranks with fewest */
    for (int g = 0; g < nu; g++) {
      if (u[g].domain >= 0) continue;
      int best = 0;
      for (int r = 1; r < nlocal; r++)
        if (rp[r].ngpu < rp[best].ngpu) best = r;
      TESS_CHECK(rp[best].ngpu < TESS_TOPO_MAX_GPUS, TESS_ERR_ARG, "too many GPUs per rank");
      rp[best].gpu[rp[best].ngpu++] = g;
    }
  return TESS_OK;
}

/* Does rank r share the cores of domain d? In gpu mode: when one of its GPUs is there (or it
 * has no GPU of known locality and d is its home); otherwise when d is one of its domains. */
static int in_domain(tess_topo_t t, tess_topo_mode mode, int nlocal, const usable_gpu *u,
                     const rank_plan *p, int r, int d) {
  if (mode != TESS_TOPO_PER_GPU) return d >= r * t->ndom / nlocal && d < (r + 1) * t->ndom / nlocal;
  int known = 0;
  for (int i = 0; i < p->ngpu; i++) {
    if (u[p->gpu[i]].domain == d) return 1;
    known |= u[p->gpu[i]].domain >= 0;
  }
  return !known && p->home == d;
}

/* Passes 2 and 3: owner[c] = the rank owning core c, or -1. */
static tess_err place_cores(tess_topo_t t, tess_topo_mode mode, int nlocal, const usable_gpu *u,
                            const rank_plan *rp, int *owner) {
  for (int c = 0; c < t->ncores; c++)
    owner[c] = -1;
  if (mode == TESS_TOPO_PER_CORES) {
    for (int c = 0; c < t->ncores; c++)
      owner[c] = (int)((long)c * nlocal / t->ncores);
    return TESS_OK;
  }
  int *ranks = malloc((size_t)nlocal * sizeof *ranks);
  TESS_CHECK(ranks, TESS_ERR_MEM, "out of memory placing %d ranks", nlocal);
  for (int d = 0; d < t->ndom; d++) { /* d's cores in contiguous blocks, one per rank in d */
    int m = 0;
    for (int r = 0; r < nlocal; r++)
      if (in_domain(t, mode, nlocal, u, &rp[r], r, d)) ranks[m++] = r;
    for (int c = 0, i = 0; c < t->ncores && m; c++)
      if (t->core[c].domain == d) owner[c] = ranks[(long)i++ * m / t->dom[d].ncores];
  }
  free(ranks);
  for (int r = 0; r < nlocal; r++) { /* top-up from unowned cores: home, package, anywhere */
    const int need = rp[r].ngpu + 2 > 3 ? rp[r].ngpu + 2 : 3;
    int have = 0;
    for (int c = 0; c < t->ncores; c++)
      have += owner[c] == r;
    for (int pass = 0; pass < 3 && have < need; pass++)
      for (int c = 0; c < t->ncores && have < need; c++) {
        const topo_core *k = &t->core[c];
        const int near =
            pass == 2 || (pass == 0 ? k->domain == rp[r].home : k->pkg == t->dom[rp[r].home].pkg);
        if (owner[c] < 0 && near) owner[c] = r, have++;
      }
    TESS_CHECK(have > 0, TESS_ERR_ARG,
               "local rank %d gets no core: %s has %d cores for %d ranks in mode '%s'", r,
               t->source, t->ncores, nlocal, tess_topo_mode_name(mode));
    if (have < need)
      tess_log(TESS_LOG_INFO, "local rank %d has %d core(s) for %d threads: some share a core", r,
               have, need);
  }
  return TESS_OK;
}

/* The NIC nearest an object, ties to the least used; -1 when the node has none. */
static int nearest_nic(tess_topo_t t, hwloc_obj_t from, const int *users) {
  int any_fabric = 0, best = -1, best_hops = 0;
  for (int i = 0; i < t->nnics; i++)
    any_fabric |= t->nic[i].fabric;
  for (int i = 0; i < t->nnics; i++) {
    if (t->nic[i].fabric != any_fabric) continue;
    const int h = tess_topo_hops(from, t->nic[i].osdev);
    if (best < 0 || h < best_hops || (h == best_hops && users[i] < users[best]))
      best = i, best_hops = h;
  }
  return best;
}

/* The first (last) unused one of a rank's n cores mine[] in domain d, else in any domain; -1
 * when all are used. */
static int pick(tess_topo_t t, const int *mine, const int *used, int n, int d, int last) {
  for (int any = 0; any < 2; any++)
    for (int k = 0; k < n; k++) {
      const int i = last ? n - 1 - k : k;
      if (!used[i] && (any || t->core[mine[i]].domain == d)) return i;
    }
  return -1;
}

/* Pass 4 for one rank: NICs, then roles of its cores. `users` counts ranks per NIC so far. */
static void fill_share(tess_topo_t t, int r, const rank_plan *p, const usable_gpu *u,
                       const int *owner, int *users, tess_topo_share *s) {
  s->ngpu = p->ngpu;
  s->numa = (int)t->dom[p->home].numa->os_index;
  int nic_dom = -1, picked[TESS_TOPO_MAX_GPUS], npicked = 0;
  for (int i = 0; i < (p->ngpu ? p->ngpu : 1); i++) { /* the NIC nearest each GPU, or home */
    const usable_gpu *g = p->ngpu ? &u[p->gpu[i]] : NULL;
    const int k =
        nearest_nic(t, g && g->gpu >= 0 ? t->gpu[g->gpu].pci : t->dom[p->home].cpu, users);
    int seen = k < 0;
    for (int j = 0; j < npicked; j++)
      seen |= picked[j] == k;
    if (seen) continue;
    picked[npicked++] = k;
    const size_t len = strlen(s->nic);
    if (len + strlen(t->nic[k].name) + 2 > sizeof s->nic) break;
    snprintf(s->nic + len, sizeof s->nic - len, "%s%s", len ? "," : "", t->nic[k].name);
    users[k]++;
    if (nic_dom < 0) nic_dom = t->nic[k].domain;
  }
  for (int i = 0; i < p->ngpu; i++) {
    s->gpu_cuda[i] = u[p->gpu[i]].cuda;
    memcpy(s->gpu_pci[i], u[p->gpu[i]].busid, sizeof s->gpu_pci[i]);
  }

  int mine[TESS_TOPO_MAX_CORES], n = 0, used[TESS_TOPO_MAX_CORES] = {0};
  for (int c = 0; c < t->ncores && n < TESS_TOPO_MAX_CORES; c++)
    if (owner[c] == r) mine[n++] = c;
  int drv[TESS_TOPO_MAX_GPUS];
  for (int i = 0; i < p->ngpu; i++) {
    drv[i] = pick(t, mine, used, n, u[p->gpu[i]].domain, 0);
    if (drv[i] < 0) drv[i] = i % n; /* fewer cores than GPUs: drivers share */
    used[drv[i]] = 1;
  }
  int im = pick(t, mine, used, n, nic_dom >= 0 ? nic_dom : p->home, 1);
  if (im >= 0) used[im] = 1;
  int imain = pick(t, mine, used, n, p->home, 1);
  if (imain >= 0) used[imain] = 1;
  if (im < 0) im = n - 1; /* too few cores: the MPI and main threads double up */
  if (imain < 0) imain = im;
  s->mpi_core = t->core[mine[im]].pu;
  s->main_core = t->core[mine[imain]].pu;
  s->ncores = 0;
  for (int i = 0; i < p->ngpu; i++)
    s->cores[s->ncores++] = t->core[mine[drv[i]]].pu;
  for (int i = 0; i < n; i++)
    if (!used[i]) s->cores[s->ncores++] = t->core[mine[i]].pu;
  if (s->ncores == 0) s->cores[s->ncores++] = s->main_core; /* a CPU rank needs one worker */
  for (int i = 0; i < s->ncores; i++)
    s->mpi_shared |= s->cores[i] == s->mpi_core;
}

tess_err tess_topo_assign(tess_topo_t t, tess_topo_mode mode, int local_rank, int nlocal,
                          const char *const *cuda_pci_bus_ids, int ncuda, tess_topo_share *out) {
  TESS_CHECK(t && out, TESS_ERR_ARG, "tess_topo_assign: NULL argument");
  TESS_CHECK(local_rank >= 0 && local_rank < nlocal, TESS_ERR_ARG, "local rank %d is outside 0..%d",
             local_rank, nlocal - 1);
  const int maxu = cuda_pci_bus_ids ? ncuda : t->ngpus;
  usable_gpu *u = calloc((size_t)maxu + 1, sizeof *u);
  rank_plan *rp = calloc((size_t)nlocal, sizeof *rp);
  int *owner = calloc((size_t)t->ncores, sizeof *owner),
      *users = calloc((size_t)t->nnics + 1, sizeof *users);
  tess_err err = TESS_OK;
  int nu = 0;
  if (!u || !rp || !owner || !users) {
    err = TESS_ERROR(TESS_ERR_MEM, "out of memory placing %d ranks", nlocal);
    goto cleanup;
  }
  TESS_CALL_GOTO(err, cleanup, usable_gpus(t, cuda_pci_bus_ids, ncuda, u, &nu));
  if (mode == TESS_TOPO_PER_CORES) nu = 0; /* CPU only */
  TESS_CALL_GOTO(err, cleanup, check_fit(t, mode, nlocal, nu));
  TESS_CALL_GOTO(err, cleanup, place_gpus(t, mode, nlocal, u, nu, rp));
  TESS_CALL_GOTO(err, cleanup, place_cores(t, mode, nlocal, u, rp, owner));
  for (int r = 0; r <= local_rank; r++) { /* earlier ranks first: they weigh on NIC balance */
    memset(out, 0, sizeof *out);
    out->mode = mode;
    out->local_rank = r;
    out->nlocal = nlocal;
    fill_share(t, r, &rp[r], u, owner, users, out);
  }
cleanup:
  free(u);
  free(rp);
  free(owner);
  free(users);
  return err;
}

void tess_topo_fit_cpu_workers(tess_topo_share *s, int nworkers) {
  /* The rank's cores: workers' first (drivers included), then main's, then MPI's (near its NIC) */
  int pool[TESS_TOPO_MAX_CORES + 2], n = 0;
  const int cand[2] = {s->main_core, s->mpi_core};
  for (int i = 0; i < s->ncores + 2; i++) {
    const int c = i < s->ncores ? s->cores[i] : cand[i - s->ncores];
    int seen = 0;
    for (int j = 0; j < n; j++)
      seen |= pool[j] == c;
    if (!seen) pool[n++] = c;
  }
  if (nworkers <= 0) nworkers = n >= 3 ? n - 2 : n;
  const int mpi = s->mpi_core;
  s->ngpu = 0;
  s->ncores = 0;
  s->mpi_shared = nworkers >= n;
  if (nworkers <= n - 2) {
    for (int i = 0; i < n && s->ncores < nworkers; i++)
      if (pool[i] != mpi && pool[i] != s->main_core) s->cores[s->ncores++] = pool[i];
  } else if (nworkers == n - 1) {
    s->main_core = mpi;
    for (int i = 0; i < n; i++)
      if (pool[i] != mpi) s->cores[s->ncores++] = pool[i];
  } else {
    s->main_core = mpi;
    for (int i = 0; i < n && s->ncores < TESS_TOPO_MAX_CORES; i++)
      s->cores[s->ncores++] = pool[i];
  }
}

int tess_topo_cuda_workers_per_gpu(int ncores, int ngpus, int nlocal, int gpus_limit) {
  if (nlocal < 1 || ngpus < nlocal) return 4; /* ranks share a GPU, or none: four a GPU */
  int gpus = ngpus / nlocal;                  /* the rank's: the placement deals them out */
  if (gpus_limit > 0 && gpus_limit < gpus) gpus = gpus_limit;
  return ncores / nlocal >= 8 * gpus + 4 ? 8 : 4;
}

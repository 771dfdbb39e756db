/* topology.c — reading the node with hwloc: cores, NUMA domains, NVIDIA GPUs and NICs.
 *
 * GPUs are found among hwloc's PCI objects (vendor 0x10de, class 0x0300 VGA or 0x0302 3D),
 * so the CUDA and NVML plugins, absent from Debian's hwloc, are not needed, and an XML export
 * of any machine works the same as this machine. NICs are OS devices: OpenFabrics ones
 * (mlx5_0: InfiniBand or RoCE, what UCX prefers) and network interfaces (eth0). Locality of
 * a device is the NUMA domain below its first non-I/O ancestor in the tree.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "topo_impl.h"

#define TESS_X_NAME(name, text) text,
static const char *mode_names[] = {TESS_TOPO_MODE_LIST(TESS_X_NAME)};

const char *tess_topo_mode_name(tess_topo_mode m) {
  return (unsigned)m < TESS_TOPO_MODE_COUNT ? mode_names[m] : "?";
}

tess_err tess_topo_mode_parse(const char *s, tess_topo_mode *m) {
  for (int i = 0; i < TESS_TOPO_MODE_COUNT; i++)
    if (s && !strcmp(s, mode_names[i])) {
      *m = (tess_topo_mode)i;
      return TESS_OK;
    }
  char allowed[128] = "";
  for (int i = 0; i < TESS_TOPO_MODE_COUNT; i++) {
    strncat(allowed, mode_names[i], sizeof allowed - strlen(allowed) - 1);
    if (i + 1 < TESS_TOPO_MODE_COUNT) strncat(allowed, ", ", sizeof allowed - strlen(allowed) - 1);
  }
  return TESS_ERROR(TESS_ERR_ARG, "unknown placement mode '%s' (allowed: %s)", s ? s : "(null)",
                    allowed);
}

int tess_topo_hops(hwloc_obj_t a, hwloc_obj_t b) {
  int da = 0;
  for (hwloc_obj_t x = a; x; x = x->parent, da++) {
    int db = 0;
    for (hwloc_obj_t y = b; y; y = y->parent, db++)
      if (x == y) return da + db;
  }
  return INT_MAX / 4;
}

int tess_topo_domain_of(const struct tess_topo_s *t, hwloc_obj_t obj) {
  hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t->hw, obj);
  if (!anc || !anc->cpuset) return -1;
  for (int d = 0; d < t->ndom; d++) /* attached below a domain (a cache, a core) */
    if (hwloc_bitmap_isincluded(anc->cpuset, t->dom[d].numa->cpuset)) return d;
  if (!anc->parent && t->ndom > 1) return -1; /* attached to the machine: locality unknown */
  for (int d = 0; d < t->ndom; d++)           /* attached above (a package of SNC domains) */
    if (hwloc_bitmap_isincluded(t->dom[d].numa->cpuset, anc->cpuset)) return d;
  return -1;
}

unsigned long long tess_topo_busid_key(const char *s) {
  unsigned dom = 0, bus, dev, fn;
  if (!s) return 0;
  if (sscanf(s, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) {
    dom = 0;
    if (sscanf(s, "%x:%x.%x", &bus, &dev, &fn) != 3) return 0;
  }
  return (unsigned long long)dom << 24 | (bus & 0xff) << 16 | (dev & 0x1f) << 8 | (fn & 7);
}

/* Cores, and the NUMA nodes holding them; falls back to PUs on trees without Core objects. */
static tess_err read_cores(struct tess_topo_s *t) {
  const int nnuma = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);
  const hwloc_obj_type_t ctype =
      hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  t->ncores = hwloc_get_nbobjs_by_type(t->hw, ctype);
  t->npus = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PU);
  t->npackages = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PACKAGE);
  t->core = calloc((size_t)t->ncores + 1, sizeof *t->core);
  t->dom = calloc((size_t)nnuma + 1, sizeof *t->dom);
  int *numa_of_dom = calloc((size_t)nnuma + 1, sizeof *numa_of_dom);
  TESS_CHECK(t->core && t->dom && numa_of_dom, TESS_ERR_MEM, "out of memory reading the topology");
  TESS_CHECK(t->ncores > 0, TESS_ERR_IO, "hwloc found no core in %s", t->source);

  /* A core belongs to the first NUMA node (in logical order: DRAM before MCDRAM) covering it. */
  for (int c = 0; c < t->ncores; c++) {
    hwloc_obj_t o = hwloc_get_obj_by_type(t->hw, ctype, (unsigned)c);
    hwloc_obj_t pu = hwloc_get_next_obj_inside_cpuset_by_type(t->hw, o->cpuset, HWLOC_OBJ_PU, NULL);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->hw, HWLOC_OBJ_PACKAGE, o);
    t->core[c].pu = pu ? (int)pu->logical_index : c;
    t->core[c].pkg = pkg ? (int)pkg->logical_index : 0;
    int numa = 0;
    for (int n = 0; n < nnuma; n++)
      if (hwloc_bitmap_isincluded(
              o->cpuset, hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)n)->cpuset)) {
        numa = n;
        break;
      }
    t->core[c].domain = numa; /* a NUMA index for now, a domain index below */
  }
  /* Keep the NUMA nodes that hold cores, in logical order. */
  for (int n = 0; n < nnuma; n++) {
    int count = 0;
    for (int c = 0; c < t->ncores; c++)
      count += t->core[c].domain == n;
    if (!count) continue;
    topo_domain *d = &t->dom[t->ndom];
    d->numa = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE, (unsigned)n);
    d->cpu = d->numa->parent;
    while (d->cpu && !hwloc_obj_type_is_normal(d->cpu->type))
      d->cpu = d->cpu->parent;
    d->ncores = count;
    numa_of_dom[t->ndom++] = n;
  }
  for (int c = 0; c < t->ncores; c++)
    for (int d = 0; d < t->ndom; d++)
      if (numa_of_dom[d] == t->core[c].domain) {
        t->core[c].domain = d;
        t->dom[d].pkg = t->core[c].pkg;
        break;
      }
  free(numa_of_dom);
  return TESS_OK;
}

static int cmp_gpu(const void *a, const void *b) {
  const topo_gpu *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static tess_err read_gpus(struct tess_topo_s *t) {
  int n = 0;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t->hw, o));)
    n++;
  t->gpu = calloc((size_t)n + 1, sizeof *t->gpu);
  TESS_CHECK(t->gpu, TESS_ERR_MEM, "out of memory reading the topology");
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(t->hw, o));) {
    const struct hwloc_pcidev_attr_s *p = &o->attr->pcidev;
    if (p->vendor_id != 0x10de || (p->class_id != 0x0300 && p->class_id != 0x0302)) continue;
    topo_gpu *g = &t->gpu[t->ngpus++];
    g->pci = o;
    snprintf(g->busid, sizeof g->busid, "%04x:%02x:%02x.%x", p->domain, p->bus, p->dev, p->func);
    g->key = tess_topo_busid_key(g->busid);
    g->domain = tess_topo_domain_of(t, o);
  }
  qsort(t->gpu, (size_t)t->ngpus, sizeof *t->gpu, cmp_gpu); /* PCI bus order */
  return TESS_OK;
}

/* UCX names an InfiniBand/RoCE device with its port: the first active one (state 4). */
static int active_port(hwloc_obj_t osdev) {
  int first = 0;
  for (unsigned i = 0; i < osdev->infos_count; i++) {
    int port;
    char rest[16];
    if (sscanf(osdev->infos[i].name, "Port%d%15s", &port, rest) != 2) continue;
    if (!strcmp(rest, "State") && !strcmp(osdev->infos[i].value, "4")) return port;
    if (!first) first = port;
  }
  return first ? first : 1;
}

/* An InfiniBand or RoCE adapter shows as an OpenFabrics device (mlx5_0) and a network
 * interface (ib0) on the same PCI function: it is one NIC, named the OpenFabrics way. */
static int has_fabric_sibling(hwloc_obj_t osdev) {
  for (hwloc_obj_t o = osdev->parent ? osdev->parent->io_first_child : NULL; o; o = o->next_sibling)
    if (o->type == HWLOC_OBJ_OS_DEVICE && o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS)
      return 1;
  return 0;
}

static tess_err read_nics(struct tess_topo_s *t) {
  int n = 0;
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(t->hw, o));)
    n++;
  t->nic = calloc((size_t)n + 1, sizeof *t->nic);
  TESS_CHECK(t->nic, TESS_ERR_MEM, "out of memory reading the topology");
  for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(t->hw, o));) {
    const hwloc_obj_osdev_type_t type = o->attr->osdev.type;
    if (type != HWLOC_OBJ_OSDEV_OPENFABRICS && type != HWLOC_OBJ_OSDEV_NETWORK) continue;
    if (type == HWLOC_OBJ_OSDEV_NETWORK && has_fabric_sibling(o)) continue;
    topo_nic *nic = &t->nic[t->nnics++];
    nic->osdev = o;
    nic->fabric = type == HWLOC_OBJ_OSDEV_OPENFABRICS;
    if (nic->fabric)
      snprintf(nic->name, sizeof nic->name, "%.24s:%d", o->name, active_port(o));
    else
      snprintf(nic->name, sizeof nic->name, "%.31s", o->name);
    nic->domain = tess_topo_domain_of(t, o);
  }
  return TESS_OK;
}

tess_err tess_topo_load(const char *xml_path, tess_topo_t *topo) {
  TESS_CHECK(topo, TESS_ERR_ARG, "tess_topo_load: topo is NULL");
  *topo = NULL;
  struct tess_topo_s *t = calloc(1, sizeof *t);
  TESS_CHECK(t, TESS_ERR_MEM, "out of memory reading the topology");
  snprintf(t->source, sizeof t->source, "%s", xml_path ? xml_path : "this machine");
  t->is_this_machine = !xml_path;
  tess_err err = TESS_OK;
  if (hwloc_topology_init(&t->hw) < 0) {
    free(t);
    return TESS_ERROR(TESS_ERR_IO, "hwloc_topology_init failed");
  }
  /* GPUs, NICs and the bridges leading to them; not every PCI function of the node. */
  hwloc_topology_set_io_types_filter(t->hw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (xml_path && hwloc_topology_set_xml(t->hw, xml_path) < 0) {
    err = TESS_ERROR(TESS_ERR_IO, "cannot read hwloc XML file '%s'", xml_path);
    goto fail;
  }
  if (hwloc_topology_load(t->hw) < 0) {
    err = TESS_ERROR(TESS_ERR_IO, "hwloc cannot load the topology of %s", t->source);
    goto fail;
  }
  TESS_CALL_GOTO(err, fail, read_cores(t));
  TESS_CALL_GOTO(err, fail, read_gpus(t));
  TESS_CALL_GOTO(err, fail, read_nics(t));
  tess_log(TESS_LOG_DEBUG,
           "topology of %s: %d packages, %d NUMA domains, %d cores, %d GPUs, %d NICs", t->source,
           t->npackages, t->ndom, t->ncores, t->ngpus, t->nnics);
  *topo = t;
  return TESS_OK;
fail:
  tess_topo_destroy(&t);
  return err;
}

void tess_topo_destroy(tess_topo_t *topo) {
  if (!topo || !*topo) return;
  struct tess_topo_s *t = *topo;
  if (t->hw) hwloc_topology_destroy(t->hw);
  free(t->core);
  free(t->dom);
  free(t->gpu);
  free(t->nic);
  free(t);
  *topo = NULL;
}

int tess_topo_ngpus(tess_topo_t topo) { return topo ? topo->ngpus : 0; }
int tess_topo_nnuma(tess_topo_t topo) { return topo ? topo->ndom : 0; }
int tess_topo_ncores(tess_topo_t topo) { return topo ? topo->ncores : 0; }

tess_topo_mode tess_topo_default_mode(tess_topo_t topo, int nlocal, int use_cuda) {
  if (use_cuda && tess_topo_ngpus(topo) > 0) return TESS_TOPO_PER_GPU;
  return nlocal <= tess_topo_nnuma(topo) ? TESS_TOPO_PER_NUMA : TESS_TOPO_PER_CORES;
}

void tess_topo_format_list(char *buf, size_t size, const int *v, int n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len < size; i++) {
    int j = i;
    while (j + 1 < n && v[j + 1] == v[j] + 1)
      j++;
    int w = j > i ? snprintf(buf + len, size - len, "%s%d-%d", i ? "," : "", v[i], v[j])
                  : snprintf(buf + len, size - len, "%s%d", i ? "," : "", v[i]);
    len += w > 0 ? (size_t)w : 0;
    i = j;
  }
}

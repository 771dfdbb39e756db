/* checkpoint.c — the full state of a simulation in one HDF5 file, and restart from it.
 *
 *     /                 attrs tessera_checkpoint = 2 (format version), grid = [nx ny nz],
 *     │                       spacing = [hx hy hz], step (int64), time, app_state, config,
 *     │                       header_checksum (uint64)
 *     └── fields
 *         └── <field>   float64 [nz][ny][nx] (1 component) or [nz][ny][nx][nc],
 *                       attr checksum (uint64)
 *
 * Every field the app added is stored (all components, every register), as a global array, so
 * a run with another number of ranks or tiles reads it just as well: each rank reads the
 * hyperslab of its own block.
 *
 * Integrity. The file uses the HDF5 1.10 format, whose superblock, object headers (attributes
 * included: strings are fixed-length, inside the header) and indexes carry checksums that HDF5
 * verifies on every read; a truncated file fails to open (its end of file is recorded).
 * Raw data has no HDF5 checksum, so each field carries ours, which does not depend on the
 * decomposition: with v the bits of the value of component c at global cell (x, y, z) and
 * i = ((z ny + y) nx + x) nc + c its index in the dataset,
 *
 *     checksum = sum over all i of  mix(v XOR mix(i + golden))   (mod 2^64)
 *
 * (mix: the splitmix64 finaliser, golden = 0x9e3779b97f4a7c15). The sum does not depend on the
 * order of the terms, so every rank sums its block and MPI adds the partial sums; the index in
 * the mix catches values moved to the wrong place, and any change of a value changes its term.
 *
 * HDF5's checksums are rewritten by whoever edits the file, so the header has ours too: the
 * same mix over the version, grid, spacing, step, time and both strings (header_hash), then, on a
 * grid with physical faces, their text (walls_hash: a restart with other faces is refused). An
 * edited step (which would restart "at step 5" from the state of step 4) is refused, as are a
 * negative step and a time that is not a finite number >= 0. Version 1 files (before the header
 * checksum) are refused: their header cannot be checked, and an edited step would pass.
 *
 * Reading: rank 0 first opens the file alone and checks its structure against the simulation
 * (format, grid, spacing, fields); only when all is well do the ranks open it together, so no
 * rank waits in a collective call on a damaged file. The fields are read into host buffers and
 * their checksums verified before anything in the simulation changes.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "h5util.h"
#include "tessera_io.h"

#define TESS_CKPT_VERSION 2
#define TESS_CKPT_OLDEST  2 /* version 1 had no header_checksum: not trusted */

static inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* This rank's part of the checksum of one field: buf is its block [z][y][x][nc]. */
static uint64_t block_checksum(tess_sim_t sim, const tess_h5_block *b, int nc, const double *buf) {
  uint64_t sum = 0;
  size_t k = 0;
  for (hsize_t z = b->lo[2]; z < b->lo[2] + b->n[2]; z++)
    for (hsize_t y = b->lo[1]; y < b->lo[1] + b->n[1]; y++) {
      const uint64_t row = ((uint64_t)z * (uint64_t)sim->n[1] + y) * (uint64_t)sim->n[0];
      for (uint64_t i = (row + b->lo[0]) * (uint64_t)nc; i < (row + b->lo[0] + b->n[0]) * nc;
           i++, k++) {
        uint64_t v;
        memcpy(&v, &buf[k], sizeof v);
        sum += mix64(v ^ mix64(i + 0x9e3779b97f4a7c15ull));
      }
    }
  return sum;
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  h = mix64(h ^ mix64(n + 0x9e3779b97f4a7c15ull));
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = 0;
    memcpy(&w, c + i, n - i < 8 ? n - i : 8);
    h = mix64(h ^ w) + i;
  }
  return h;
}

/* The header's checksum: every attribute but itself, in a fixed order. */
static uint64_t header_hash(int version, const int grid[3], const double h3[3], long long step,
                            double time, const char *app_state, const char *config) {
  uint64_t h = hash_bytes(0, &version, sizeof version);
  h = hash_bytes(h, grid, 3 * sizeof *grid);
  h = hash_bytes(h, h3, 3 * sizeof *h3);
  h = hash_bytes(h, &step, sizeof step);
  h = hash_bytes(h, &time, sizeof time);
  h = hash_bytes(h, app_state, strlen(app_state));
  return hash_bytes(h, config, strlen(config));
}

/* ---- write ----------------------------------------------------------------------------------- */

/* The periodicity and the conditions at physical faces (boundary.c), which a restart must
 * share: another set would continue a different problem from the same fields. Their text is
 * folded into the header checksum after the other attributes (no attribute of its own: the file
 * keeps its layout, and checkpoints written before it, periodic, hash without it), so a restart
 * with other faces finds a checksum that matches only with the writer's faces and is refused.
 * The refusal names the writer's settings as its stored configuration gives them (faces()). */
static uint64_t walls_hash(uint64_t sum, const char *walls) {
  return walls ? hash_bytes(sum, walls, strlen(walls)) : sum;
}

static int write_header(tess_sim_t sim, hid_t file, const char *app_state, const char *config) {
  const int version = TESS_CKPT_VERSION;
  const long long step = sim->step;
  char walls[1024];
  tess_sim_boundary_text(sim, walls, sizeof walls);
  const uint64_t plain = header_hash(version, sim->n, sim->h, step, sim->time, app_state, config);
  const uint64_t sum = strcmp(walls, "periodic=xyz") ? walls_hash(plain, walls) : plain;
  return tess_h5_attr_write(file, "tessera_checkpoint", H5T_NATIVE_INT, 1, &version) ||
         tess_h5_attr_write(file, "header_checksum", H5T_NATIVE_UINT64, 1, &sum) ||
         tess_h5_attr_write(file, "grid", H5T_NATIVE_INT, 3, sim->n) ||
         tess_h5_attr_write(file, "spacing", H5T_NATIVE_DOUBLE, 3, sim->h) ||
         tess_h5_attr_write(file, "step", H5T_NATIVE_LLONG, 1, &step) ||
         tess_h5_attr_write(file, "time", H5T_NATIVE_DOUBLE, 1, &sim->time) ||
         tess_h5_attr_write_str(file, "app_state", app_state) ||
         tess_h5_attr_write_str(file, "config", config);
}

/* Collective: one field, all components, with its checksum. */
static void write_field(tess_sim_t sim, hid_t group, int f, const char *tmp, tess_h5_status *s) {
  const tess_field *fd = &sim->field[f];
  tess_h5_block b;
  tess_h5_rank_block(sim, &b);
  double *buf = malloc(tess_h5_block_cells(&b) * (size_t)fd->nc * sizeof(double));
  uint64_t mine = 0, sum = 0;
  if (!buf)
    TESS_H5_FAIL(s, TESS_ERR_MEM, "cannot allocate the buffer of field '%s'", fd->name);
  else if (tess_h5_pack(sim, f, 0, fd->nc, buf))
    TESS_H5_FAIL(s, TESS_ERR_STARPU, "cannot read field '%s' from its tiles", fd->name);
  else
    mine = block_checksum(sim, &b, fd->nc, buf);
  if (!tess_h5_agree(sim->comm, s)) {
    char why[256];
    MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, sim->comm);
    const hid_t d = tess_h5_dataset_create(group, fd->name, sim->n, fd->nc, sim->prec);
    if (tess_h5_block_io(sim->comm, d, &b, fd->nc, buf, 1) || d < 0 ||
        tess_h5_attr_write(d, "checksum", H5T_NATIVE_UINT64, 1, &sum))
      TESS_H5_FAIL(s, TESS_ERR_IO, "writing field '%s' to '%s' failed: %s", fd->name, tmp,
                   tess_h5_write_reason(tmp, why, sizeof why));
    if (d >= 0) H5Dclose(d);
    tess_h5_agree(sim->comm, s);
  }
  free(buf);
}

tess_err tess_sim_checkpoint_write(tess_sim_t sim, const char *path, const char *app_state,
                                   const char *config) {
  TESS_CHECK(sim && sim->is_setup, TESS_ERR_STATE, "checkpoints need tess_sim_setup first");
  TESS_CHECK(path && *path, TESS_ERR_ARG, "checkpoint: no file name given");
  for (int f = 0; f < sim->nfields; f++) {
    const char *bad = tess_h5_bad_name(sim->field[f].name);
    TESS_CHECK(!bad, TESS_ERR_ARG, "checkpoint '%s': the name of field %d %s", path, f, bad);
  }
  tess_h5_status s = {0};
  char *tmp = NULL, why[256];
  hid_t file;
  if (!tess_h5_create(sim, path, &tmp, &file, &s)) {
    const hid_t g = tess_h5_group_create(file, "fields");
    if (g < 0 || write_header(sim, file, app_state, config))
      TESS_H5_FAIL(&s, TESS_ERR_IO, "writing the header of '%s' failed: %s", tmp,
                   tess_h5_write_reason(tmp, why, sizeof why));
    for (int f = 0; f < sim->nfields && !tess_h5_agree(sim->comm, &s); f++)
      if (!sim->field[f].temporary) write_field(sim, g, f, tmp, &s);
    if (g >= 0) H5Gclose(g);
  }
  if (tess_h5_finish(sim, path, tmp, file, &s))
    return tess_error_trace(s.err, __FILE__, __LINE__, __func__);
  return TESS_OK;
}

/* ---- read ------------------------------------------------------------------------------------ */

/* What rank 0 learns from the file and every rank needs. */
typedef struct {
  long long step;
  double time;
  uint64_t checksum[TESS_MAX_FIELDS];
  char *app_state, *config;
} header;

/* "a, b, c": the names of the datasets in a group (for messages). */
static herr_t add_name(hid_t g, const char *name, const H5L_info_t *info, void *arg) {
  (void)g;
  (void)info;
  char *list = arg;
  const size_t len = strlen(list);
  snprintf(list + len, 512 - len, "%s%s", len ? ", " : "", name);
  return 0;
}

/* Fields a checkpoint holds: all but the temporaries. */
static int saved_fields(const tess_sim_t sim) {
  int n = 0;
  for (int f = 0; f < sim->nfields; f++)
    n += !sim->field[f].temporary;
  return n;
}

static void run_fields(tess_sim_t sim, char list[512]) {
  list[0] = 0;
  for (int f = 0; f < sim->nfields; f++)
    if (!sim->field[f].temporary) add_name(0, sim->field[f].name, NULL, list);
}

/* The writer's periodicity and boundary settings as its stored configuration (INI text, the
 * app's --dump-config form) gives them: "grid.periodic = z; boundary.u = x:dirichlet(0)"; the
 * default periodicity when the text names none. */
static void faces(const char *config, char *out, size_t len) {
  const char *section = "", *p = config;
  size_t n = 0, slen = 0;
  int named = 0;
  out[0] = 0;
  while (p && *p) {
    const char *end = strchr(p, '\n'), *stop = end ? end : p + strlen(p);
    if (*p == '[') {
      section = p + 1;
      slen = strcspn(section, "]\n");
    } else {
      const int grid = slen == 4 && !strncmp(section, "grid", 4);
      const int bc = slen == 8 && !strncmp(section, "boundary", 8);
      const size_t key = strcspn(p, " =\n");
      const char *eq = memchr(p, '=', (size_t)(stop - p)), *hash = strstr(p, "  #");
      const char *v = eq ? eq + 1 : stop, *vend = hash && hash < stop ? hash : stop;
      while (v < vend && *v == ' ')
        v++;
      while (vend > v && vend[-1] == ' ')
        vend--;
      const int want = (grid && key == 8 && !strncmp(p, "periodic", 8)) || (bc && key > 0);
      if (want && eq && vend > v && *p != '#' && *p != ';') {
        n += (size_t)snprintf(out + (n < len ? n : len), n < len ? len - n : 0, "%s%s.%.*s = %.*s",
                              n ? "; " : "", grid ? "grid" : "boundary", (int)key, p,
                              (int)(vend - v), v);
        named |= grid;
      }
    }
    p = end ? end + 1 : NULL;
  }
  if (!named)
    snprintf(out + (n < len ? n : len), n < len ? len - n : 0, "%sgrid.periodic = xyz",
             n ? "; " : "");
}

#define REFUSE(...)                                                                                \
  do {                                                                                             \
    TESS_H5_FAIL(s, TESS_ERR_IO, __VA_ARGS__);                                                     \
    goto done;                                                                                     \
  } while (0)

/* One field's dataset against the simulation's field f; fills its checksum. */
static void check_field(tess_sim_t sim, const char *path, hid_t g, int f, header *h,
                        tess_h5_status *s) {
  const tess_field *fd = &sim->field[f];
  char why[256];
  hid_t type = -1, space = -1;
  hsize_t dims[4] = {0, 0, 0, 1};
  const hid_t d = H5Dopen2(g, fd->name, H5P_DEFAULT);
  if (d < 0 || (type = H5Dget_type(d)) < 0 || (space = H5Dget_space(d)) < 0)
    REFUSE("checkpoint '%s' is damaged: cannot open field '%s': %s", path, fd->name,
           tess_h5_reason(why, sizeof why));
  const int ndims = H5Sget_simple_extent_ndims(space);
  const size_t esize = H5Tget_size(type);
  if (H5Tget_class(type) != H5T_FLOAT || (esize != 4 && esize != 8))
    REFUSE("checkpoint '%s' is damaged: field '%s' is neither float64 nor float32", path, fd->name);
  if (esize != sim->esize)
    REFUSE("checkpoint '%s' holds field '%s' in %s precision, this run uses %s (allowed: the "
           "checkpoint's own precision)",
           path, fd->name, esize == 4 ? "single" : "double", tess_precision_name(sim->prec));
  if (ndims < 3 || ndims > 4 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 ||
      dims[0] != (hsize_t)sim->n[2] || dims[1] != (hsize_t)sim->n[1] ||
      dims[2] != (hsize_t)sim->n[0] || dims[3] < 1 || (ndims == 4 && dims[3] == 1))
    REFUSE("checkpoint '%s' is damaged: field '%s' is not an array of the grid", path, fd->name);
  if (dims[3] != (hsize_t)fd->nc)
    REFUSE("checkpoint '%s' has field '%s' with %llu components, this run %d", path, fd->name,
           (unsigned long long)dims[3], fd->nc);
  if (tess_h5_attr_read(d, "checksum", H5T_NATIVE_UINT64, 1, &h->checksum[f]))
    REFUSE("checkpoint '%s' is damaged: field '%s' has no checksum", path, fd->name);
  if (H5Dget_storage_size(d) != (hsize_t)esize * dims[0] * dims[1] * dims[2] * dims[3])
    REFUSE("checkpoint '%s' is damaged: field '%s' is incomplete", path, fd->name);
done:
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  if (d >= 0) H5Dclose(d);
}

/* Rank 0, alone: is `path` a checkpoint this simulation can continue from? */
static void check_file(tess_sim_t sim, const char *path, header *h, tess_h5_status *s) {
  static const unsigned char magic[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8] = {0};
  char why[256], have[512], want[512];
  hid_t file = -1, g = -1;
  FILE *fp = fopen(path, "rb");
  if (!fp) REFUSE("cannot read checkpoint '%s': %s", path, strerror(errno));
  const size_t got = fread(head, 1, sizeof head, fp);
  fclose(fp);
  if (got < sizeof head || memcmp(head, magic, sizeof magic))
    REFUSE("checkpoint '%s' is not an HDF5 file", path);
  const hid_t fapl = tess_h5_fapl(MPI_COMM_NULL);
  file = fapl < 0 ? -1 : H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (file < 0) tess_h5_remember();
  if (fapl >= 0) H5Pclose(fapl);
  if (file < 0)
    REFUSE("checkpoint '%s' is damaged (truncated or corrupt): %s", path,
           tess_h5_reason(why, sizeof why));
  int version, grid[3];
  double h3[3];
  const htri_t tessera = H5Aexists(file, "tessera_checkpoint");
  if (tessera == 0)
    REFUSE("'%s' is not a Tessera checkpoint (no attribute 'tessera_checkpoint')", path);
  if (tessera < 0 || tess_h5_attr_read(file, "tessera_checkpoint", H5T_NATIVE_INT, 1, &version))
    REFUSE("checkpoint '%s' is damaged: %s", path, tess_h5_reason(why, sizeof why));
  if (version >= 1 && version < TESS_CKPT_OLDEST)
    REFUSE("checkpoint '%s' has format version %d, which has no header checksum: its step, time "
           "and settings cannot be checked, so it is not read (this build reads versions %d to %d)",
           path, version, TESS_CKPT_OLDEST, TESS_CKPT_VERSION);
  if (version < TESS_CKPT_OLDEST || version > TESS_CKPT_VERSION)
    REFUSE("checkpoint '%s' has format version %d, this build reads versions %d to %d", path,
           version, TESS_CKPT_OLDEST, TESS_CKPT_VERSION);
  if (tess_h5_attr_read(file, "grid", H5T_NATIVE_INT, 3, grid) ||
      tess_h5_attr_read(file, "spacing", H5T_NATIVE_DOUBLE, 3, h3) ||
      tess_h5_attr_read(file, "step", H5T_NATIVE_LLONG, 1, &h->step) ||
      tess_h5_attr_read(file, "time", H5T_NATIVE_DOUBLE, 1, &h->time) ||
      !(h->app_state = tess_h5_attr_read_str(file, "app_state")) ||
      !(h->config = tess_h5_attr_read_str(file, "config")))
    REFUSE("checkpoint '%s' is damaged: its header is incomplete (%s)", path,
           tess_h5_reason(why, sizeof why));
  char walls[1024];
  tess_sim_boundary_text(sim, walls, sizeof walls);
  uint64_t sum;
  if (tess_h5_attr_read(file, "header_checksum", H5T_NATIVE_UINT64, 1, &sum))
    REFUSE("checkpoint '%s' has an edited or damaged header: its checksum does not match (step "
           "%lld, time %.17g)",
           path, h->step, h->time);
  /* a periodic run hashes without the text (as every checkpoint written before it) */
  const uint64_t plain = header_hash(version, grid, h3, h->step, h->time, h->app_state, h->config);
  const int periodic = !strcmp(walls, "periodic=xyz");
  if (sum != (periodic ? plain : walls_hash(plain, walls))) {
    char theirs[1200];
    faces(h->config, theirs, sizeof theirs);
    if (!periodic && sum == plain)
      REFUSE("checkpoint '%s' was written with other physical faces: periodic=xyz; this run has "
             "'%s' (a restart needs the same grid.periodic and boundary settings)",
             path, walls);
    /* the checksum failed, so the stored settings may be damaged too: quoted as they read */
    if (periodic)
      REFUSE("checkpoint '%s' has an edited or damaged header: its checksum does not match (step "
             "%lld, time %.17g), or it was written with other physical faces (its settings: %s; "
             "this run: %s)",
             path, h->step, h->time, theirs, walls);
    REFUSE("checkpoint '%s' was written with other physical faces than this run's (its settings: "
           "%s; this run: '%s'), or has an edited or damaged header: its checksum does not match "
           "(step %lld, time %.17g)",
           path, theirs, walls, h->step, h->time);
  }
  if (h->step < 0) REFUSE("checkpoint '%s' is at step %lld (allowed: >= 0)", path, h->step);
  if (!(h->time >= 0) || !isfinite(h->time))
    REFUSE("checkpoint '%s' is at time %g (allowed: a finite number >= 0)", path, h->time);
  if (memcmp(grid, sim->n, sizeof grid))
    REFUSE("checkpoint '%s' has grid %dx%dx%d, this run %dx%dx%d", path, grid[0], grid[1], grid[2],
           sim->n[0], sim->n[1], sim->n[2]);
  if (memcmp(h3, sim->h, sizeof h3))
    REFUSE("checkpoint '%s' has grid spacing %.17g x %.17g x %.17g, this run %.17g x %.17g x %.17g",
           path, h3[0], h3[1], h3[2], sim->h[0], sim->h[1], sim->h[2]);
  H5G_info_t gi;
  g = H5Gopen2(file, "fields", H5P_DEFAULT);
  if (g < 0 || H5Gget_info(g, &gi) < 0)
    REFUSE("checkpoint '%s' is damaged: no group 'fields' (%s)", path,
           tess_h5_reason(why, sizeof why));
  have[0] = 0;
  H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, add_name, have);
  run_fields(sim, want);
  const int nsaved = saved_fields(sim);
  if (gi.nlinks != (hsize_t)nsaved)
    REFUSE("checkpoint '%s' has %llu fields (%s), this run %d (%s)", path,
           (unsigned long long)gi.nlinks, have, nsaved, want);
  for (int f = 0; f < sim->nfields && !s->err; f++) {
    if (sim->field[f].temporary) continue;
    const htri_t there = H5Lexists(g, sim->field[f].name, H5P_DEFAULT);
    if (there == 0)
      REFUSE("checkpoint '%s' has no field '%s' (it has: %s; this run: %s)", path,
             sim->field[f].name, have, want);
    if (there < 0) REFUSE("checkpoint '%s' is damaged: %s", path, tess_h5_reason(why, sizeof why));
    check_field(sim, path, g, f, h, s);
  }
done:
  if (g >= 0) H5Gclose(g);
  if (file >= 0 && H5Fclose(file) < 0)
    TESS_H5_FAIL(s, TESS_ERR_IO, "checkpoint '%s' is damaged: %s", path,
                 tess_h5_reason(why, sizeof why));
}

/* Rank 0's header to every rank, in two steps: sizes (and allocation of the strings on the
 * other ranks, which the caller agrees on), then the strings. */
static int bcast_header(tess_sim_t sim, header *h, long long len[2]) {
  MPI_Bcast(&h->step, 1, MPI_LONG_LONG, 0, sim->comm);
  MPI_Bcast(&h->time, 1, MPI_DOUBLE, 0, sim->comm);
  MPI_Bcast(h->checksum, sim->nfields, MPI_UINT64_T, 0, sim->comm);
  char **str[2] = {&h->app_state, &h->config};
  int bad = 0;
  for (int i = 0; i < 2; i++) {
    len[i] = sim->rank == 0 ? (long long)strlen(*str[i]) : 0;
    MPI_Bcast(&len[i], 1, MPI_LONG_LONG, 0, sim->comm);
    if (sim->rank != 0) *str[i] = calloc((size_t)len[i] + 1, 1);
    bad |= !*str[i];
  }
  return bad ? -1 : 0;
}

static void bcast_strings(tess_sim_t sim, header *h, const long long len[2]) {
  char *str[2] = {h->app_state, h->config};
  for (int i = 0; i < 2; i++) /* in pieces of 1 GiB: MPI counts are ints */
    for (long long at = 0; at < len[i]; at += 1 << 30)
      MPI_Bcast(str[i] + at, (int)(len[i] - at < (1 << 30) ? len[i] - at : 1 << 30), MPI_CHAR, 0,
                sim->comm);
}

/* Collective: every field into bufs (each rank its block), with its checksum verified. */
static void read_fields(tess_sim_t sim, const char *path, const header *h, double **bufs,
                        tess_h5_status *s) {
  tess_h5_block b;
  tess_h5_rank_block(sim, &b);
  char why[256];
  for (int f = 0; f < sim->nfields; f++)
    if (!sim->field[f].temporary &&
        !(bufs[f] = malloc(tess_h5_block_cells(&b) * (size_t)sim->field[f].nc * sizeof(double))))
      TESS_H5_FAIL(s, TESS_ERR_MEM, "cannot allocate a buffer for field '%s'", sim->field[f].name);
  if (tess_h5_agree(sim->comm, s)) return;
  const hid_t fapl = tess_h5_fapl(sim->comm);
  const hid_t file = fapl < 0 ? -1 : H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (file < 0) tess_h5_remember();
  if (fapl >= 0) H5Pclose(fapl);
  if (file < 0)
    TESS_H5_FAIL(s, TESS_ERR_IO, "cannot open checkpoint '%s' on every rank: %s", path,
                 tess_h5_reason(why, sizeof why));
  uint64_t sum[TESS_MAX_FIELDS] = {0}, total[TESS_MAX_FIELDS];
  for (int f = 0; f < sim->nfields && !tess_h5_agree(sim->comm, s); f++) {
    const tess_field *fd = &sim->field[f];
    if (fd->temporary) continue;
    char name[TESS_NAME_LEN + 8];
    snprintf(name, sizeof name, "fields/%s", fd->name);
    const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0) tess_h5_remember(); /* the reason, before the calls below clear it */
    if (tess_h5_block_io(sim->comm, d, &b, fd->nc, bufs[f], 0) || d < 0)
      TESS_H5_FAIL(s, TESS_ERR_IO, "reading field '%s' of checkpoint '%s' failed: %s", fd->name,
                   path, tess_h5_reason(why, sizeof why));
    else
      sum[f] = block_checksum(sim, &b, fd->nc, bufs[f]);
    if (d >= 0) H5Dclose(d);
  }
  if (file >= 0) H5Fclose(file);
  if (tess_h5_agree(sim->comm, s)) return;
  MPI_Allreduce(sum, total, sim->nfields, MPI_UINT64_T, MPI_SUM, sim->comm);
  for (int f = 0; f < sim->nfields && sim->rank == 0; f++)
    if (total[f] != h->checksum[f])
      REFUSE("checkpoint '%s' is corrupt: field '%s' has checksum %016llx, the file says %016llx",
             path, sim->field[f].name, (unsigned long long)total[f],
             (unsigned long long)h->checksum[f]);
done:
  tess_h5_agree(sim->comm, s);
}

tess_err tess_sim_checkpoint_read(tess_sim_t sim, const char *path, tess_ckpt_info *info) {
  TESS_CHECK(sim && sim->is_setup, TESS_ERR_STATE, "restart needs tess_sim_setup first");
  TESS_CHECK(path && *path, TESS_ERR_ARG, "restart: no checkpoint file name given");
  tess_h5_quiet();
  tess_h5_status s = {0};
  header h = {0};
  double *bufs[TESS_MAX_FIELDS] = {NULL};
  if (sim->rank == 0) check_file(sim, path, &h, &s);
  if (!tess_h5_agree(sim->comm, &s)) {
    long long len[2];
    if (bcast_header(sim, &h, len))
      TESS_H5_FAIL(&s, TESS_ERR_MEM, "cannot allocate the checkpoint's texts");
    if (!tess_h5_agree(sim->comm, &s)) {
      bcast_strings(sim, &h, len);
      read_fields(sim, path, &h, bufs, &s);
    }
  }
  /* Verified: only now does the simulation change. */
  for (int f = 0; f < sim->nfields && !s.err; f++) {
    if (sim->field[f].temporary) continue;
    if (tess_h5_unpack(sim, f, bufs[f]))
      TESS_H5_FAIL(&s, TESS_ERR_STARPU, "cannot store field '%s' in its tiles", sim->field[f].name);
    sim->field[f].halo_valid = 0;
  }
  for (int f = 0; f < sim->nfields; f++)
    free(bufs[f]);
  if (!tess_h5_agree(sim->comm, &s)) {
    sim->step = (long)h.step;
    sim->time = h.time;
    if (info) {
      *info = (tess_ckpt_info){(long)h.step, h.time, h.app_state, h.config};
      h.app_state = h.config = NULL;
    }
  }
  free(h.app_state);
  free(h.config);
  if (s.err) return tess_error_trace(s.err, __FILE__, __LINE__, __func__);
  return TESS_OK;
}

void tess_ckpt_info_free(tess_ckpt_info *info) {
  if (!info) return;
  free(info->app_state);
  free(info->config);
  info->app_state = info->config = NULL;
}

/* ---- files of a run -------------------------------------------------------------------------- */

tess_err tess_checkpoint_path(const char *dir, const char *prefix, long step, char *path,
                              size_t len) {
  TESS_CHECK(prefix && *prefix && step >= 0, TESS_ERR_ARG, "checkpoint name: bad prefix or step");
  const int n = snprintf(path, len, "%s/%s_%08ld.h5", dir && *dir ? dir : ".", prefix, step);
  TESS_CHECK(n >= 0 && (size_t)n < len, TESS_ERR_ARG,
             "checkpoint name '%s/%s_%08ld.h5' is longer than %zu bytes", dir && *dir ? dir : ".",
             prefix, step, len);
  return TESS_OK;
}

/* The step of "<prefix>_<digits>.h5" (tmp: "....h5.tmp"), or -1. */
static long name_step(const char *name, const char *prefix, int tmp) {
  const size_t lp = strlen(prefix);
  if (strncmp(name, prefix, lp) || name[lp] != '_') return -1;
  const char *p = name + lp + 1, *q = p;
  while (*q >= '0' && *q <= '9')
    q++;
  if (q == p || q - p > 18 || strcmp(q, tmp ? ".h5.tmp" : ".h5")) return -1;
  return strtol(p, NULL, 10);
}

typedef struct {
  long step;
  char path[4096];
} ckpt_file;

/* The complete checkpoints in dir, newest first (malloc'd, *count of them); with remove_tmp,
 * deletes the temporary files that runs which died while writing left behind. */
static tess_err list_files(const char *dir, const char *prefix, int remove_tmp, ckpt_file **files,
                           int *count) {
  TESS_CHECK(prefix && *prefix, TESS_ERR_ARG, "checkpoint prefix is empty");
  if (!dir || !*dir) dir = ".";
  DIR *dp = opendir(dir);
  TESS_CHECK(dp, TESS_ERR_IO, "cannot read directory '%s': %s", dir, strerror(errno));
  int n = 0, cap = 0;
  ckpt_file *v = NULL;
  struct dirent *e;
  while ((e = readdir(dp))) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (remove_tmp && name_step(e->d_name, prefix, 1) >= 0) unlink(p);
    const long step = name_step(e->d_name, prefix, 0);
    if (step < 0) continue;
    if (n == cap) {
      ckpt_file *w = realloc(v, (size_t)(cap = 2 * cap + 8) * sizeof *v);
      if (!w) {
        free(v);
        closedir(dp);
        return TESS_ERROR(TESS_ERR_MEM, "cannot list directory '%s'", dir);
      }
      v = w;
    }
    v[n].step = step;
    memcpy(v[n++].path, p, sizeof p);
  }
  closedir(dp);
  for (int i = 1; i < n; i++) /* insertion sort, newest first: a run keeps a handful */
    for (int j = i; j > 0 && v[j].step > v[j - 1].step; j--) {
      const ckpt_file t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  *files = v;
  *count = n;
  return TESS_OK;
}

tess_err tess_checkpoint_latest(const char *dir, const char *prefix, char *path, size_t len) {
  ckpt_file *files;
  int n;
  TESS_CALL(list_files(dir, prefix, 0, &files, &n));
  const int fits = n > 0 && strlen(files[0].path) < len;
  if (fits) strcpy(path, files[0].path);
  free(files);
  TESS_CHECK(n > 0, TESS_ERR_IO, "no checkpoint '%s_<step>.h5' in directory '%s'", prefix,
             dir && *dir ? dir : ".");
  TESS_CHECK(fits, TESS_ERR_ARG, "the newest checkpoint's name is longer than %zu bytes", len);
  return TESS_OK;
}

tess_err tess_checkpoint_rotate(const char *dir, const char *prefix, int keep) {
  TESS_CHECK(keep >= 1, TESS_ERR_ARG, "checkpoints to keep = %d is invalid (allowed: >= 1)", keep);
  ckpt_file *files;
  int n;
  TESS_CALL(list_files(dir, prefix, 1, &files, &n));
  tess_err err = TESS_OK;
  for (int i = keep; i < n && !err; i++)
    if (unlink(files[i].path) != 0 && errno != ENOENT)
      err = TESS_ERROR(TESS_ERR_IO, "cannot delete old checkpoint '%s': %s", files[i].path,
                       strerror(errno));
  free(files);
  return err;
}

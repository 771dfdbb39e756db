/* test_checkpoint — checkpoint and restart: bitwise continuation over decompositions, refusal of
 * damaged or mismatched files, atomic writes and rotation.
 *
 * usage: test_checkpoint MODE DIR [--grid NX,NY,NZ] [--tiles T] [--fields VARIANT] [--file F]
 *                                 [--device cpu|cuda]
 *   write    3 steps, checkpoint DIR/ck_00000003.h5, 4 more steps; the fields gathered at step 3
 *            and 7 go to DIR/at3.raw and DIR/ref.raw, the clock to DIR/clock.txt.
 *   restart  reads the newest checkpoint of DIR (or F), checks fields and clock against at3,
 *            runs the 4 remaining steps with the dt of the app state, compares with ref.raw:
 *            every bit equal to the uninterrupted run. A refused checkpoint exits 1 when the
 *            simulation is unchanged (fields and clock), 0 with FAIL printed otherwise.
 *   damage   from DIR/ck_00000003.h5, the damaged files the refusal tests read (listed below).
 *   sweep    (1 rank) flips every byte of the file's metadata and every 97th byte of its data,
 *            one at a time, and cuts the file at every 53rd length and each of the last 64:
 *            each must be refused, the simulation must stay unchanged, and no HDF5 object may
 *            stay open.
 *   inject   (several ranks) a checkpoint whose writes fail on the last rank only must end the
 *            job (tests/CMakeLists.txt checks the exit, the message and the files left).
 *   atomic   failed writes leave no file (missing directory, destination a directory, and with
 *            --file SMALLDIR a file system too small for the file); latest and rotate pick and
 *            keep the newest by step.
 * The heat program: fields u, u_new (1 component), v, v_new (3), two heat stages and swaps.
 * --fields extra|renamed|ncomp changes it (one more field, u renamed rho, v with 2 components).
 */
#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heat.h"
#include "tessera.h"
#include "tessera_io.h"

#define MAXF 5
static const tess_heat_params prm = {0.02};
static const double DT = 0.125;

typedef struct {
  int n[3], tiles;
  const char *fields, *file;
  tess_device device;
} opts;

typedef struct {
  tess_sim_t sim;
  int nf, nc[MAXF];
} prog;

static double init(const long g[3], int comp, void *ctx) {
  (void)ctx;
  return sin(0.37 * (double)g[0] + 0.11 * comp) * cos(0.23 * (double)g[1] - 0.05 * (double)g[2]) +
         1e-3 * (double)(g[0] + 31 * g[1] + 977 * g[2]) + comp;
}

static tess_err build(const opts *o, prog *p) {
  const int ren = !strcmp(o->fields, "renamed"), vnc = strcmp(o->fields, "ncomp") ? 3 : 2;
  const char *names[MAXF] = {ren ? "rho" : "u", ren ? "rho_new" : "u_new", "v", "v_new", "w"};
  const int nc[MAXF] = {1, 1, vnc, vnc, 1};
  p->nf = strcmp(o->fields, "extra") ? 4 : 5;
  tess_err e = tess_sim_create(MPI_COMM_WORLD, o->n, &p->sim);
  if (!e) e = tess_sim_set_device(p->sim, o->device);
  if (!e) e = tess_sim_set_tiles(p->sim, o->tiles);
  for (int f = 0, id; f < p->nf && !e; f++)
    e = tess_sim_add_field(p->sim, names[f], p->nc[f] = nc[f], &id);
  for (int k = 0; k < 2 && !e; k++) {
    e = tess_sim_add_stage(p->sim, &(tess_stage){.kernel = &tess_heat2_kernel,
                                                 .nin = 1,
                                                 .in = {2 * k},
                                                 .nout = 1,
                                                 .out = {2 * k + 1},
                                                 .params = &prm,
                                                 .params_size = sizeof prm});
    if (!e) e = tess_sim_add_swap(p->sim, 2 * k, 2 * k + 1);
  }
  if (!e) e = tess_sim_setup(p->sim);
  if (!e) e = tess_sim_fill(p->sim, 0, init, NULL);
  if (!e) e = tess_sim_fill(p->sim, 2, init, NULL);
  return e;
}

/* Every component of every field, gathered on rank 0 (NULL elsewhere), malloc'd; *len values. */
static double *gather_all(const prog *p, const int n[3], size_t *len) {
  const size_t cells = (size_t)n[0] * n[1] * n[2];
  size_t total = 0;
  for (int f = 0; f < p->nf; f++)
    total += cells * (size_t)p->nc[f];
  double *all = tess_rank() == 0 ? malloc(total * sizeof(double)) : NULL, *at = all;
  if (tess_rank() == 0 && !all) tess_abort(1);
  for (int f = 0; f < p->nf; f++)
    for (int c = 0; c < p->nc[f]; c++, at = at ? at + cells : NULL)
      if (tess_sim_gather(p->sim, f, c, at)) tess_abort(1);
  *len = total;
  return all;
}

static char *joined(const char *dir, const char *name) {
  static char buf[4][1024];
  static int i;
  char tmp[sizeof buf[0]]; /* dir may be an earlier result: format apart, then copy */
  snprintf(tmp, sizeof tmp, "%s/%s", dir, name);
  i = (i + 1) % 4;
  memcpy(buf[i], tmp, sizeof tmp);
  return buf[i];
}

static void save(const char *path, const void *v, size_t bytes) {
  FILE *fp = fopen(path, "wb");
  if (!fp || fwrite(v, 1, bytes, fp) != bytes) {
    printf("FAIL: cannot write %s\n", path);
    tess_abort(1);
  }
  fclose(fp);
}

/* Rank 0: 0 when `path` holds exactly these bytes. */
static int differs(const char *path, const void *v, size_t bytes) {
  FILE *fp = fopen(path, "rb");
  char *buf = malloc(bytes + 1);
  const size_t got = fp && buf ? fread(buf, 1, bytes + 1, fp) : 0;
  const int d = got != bytes || memcmp(buf, v, bytes);
  if (fp) fclose(fp);
  free(buf);
  return d;
}

/* ---- write and restart ----------------------------------------------------------------------- */

static int do_write(const opts *o, const char *dir) {
  prog p;
  if (build(o, &p) || tess_sim_run(p.sim, 3, DT)) tess_abort(1);
  char path[1024], state[128];
  snprintf(state, sizeof state, "dt=%a seed=42", DT);
  if (tess_checkpoint_path(dir, "ck", tess_sim_step(p.sim), path, sizeof path) ||
      tess_sim_checkpoint_write(p.sim, path, state, "grid = 24,20,16\nkappa = 0.02\n"))
    tess_abort(1);
  size_t len;
  double *at3 = gather_all(&p, o->n, &len);
  char clock[128];
  snprintf(clock, sizeof clock, "%ld %a", tess_sim_step(p.sim), tess_sim_time(p.sim));
  if (tess_sim_run(p.sim, 4, DT)) tess_abort(1);
  double *ref = gather_all(&p, o->n, &len);
  if (tess_rank() == 0) {
    save(joined(dir, "at3.raw"), at3, len * sizeof(double));
    save(joined(dir, "ref.raw"), ref, len * sizeof(double));
    save(joined(dir, "clock.txt"), clock, strlen(clock));
    printf("wrote %s at step 3 and the reference at step %ld\n", path, tess_sim_step(p.sim));
  }
  free(at3);
  free(ref);
  tess_sim_destroy(&p.sim);
  return 0;
}

static int do_restart(const opts *o, const char *dir) {
  prog p;
  if (build(o, &p)) tess_abort(1);
  tess_sim_describe(p.sim);
  char path[1024] = "";
  if (o->file)
    snprintf(path, sizeof path, "%s", o->file);
  else if (tess_rank() == 0 && tess_checkpoint_latest(dir, "ck", path, sizeof path))
    tess_abort(1);
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  size_t len;
  double *before = gather_all(&p, o->n, &len), *now;
  tess_ckpt_info info;
  if (tess_sim_checkpoint_read(p.sim, path, &info)) {
    /* Refused: the simulation must be as it was. Exit 1 (what the refusal tests expect), or 0
     * with FAIL when something changed, which makes expect_fail.sh report the test failed. */
    now = gather_all(&p, o->n, &len);
    int same = tess_sim_step(p.sim) == 0 && tess_sim_time(p.sim) == 0 &&
               (tess_rank() || !memcmp(before, now, len * sizeof(double)));
    MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (tess_rank() == 0)
      printf("refused '%s'%s\n", path,
             same ? "; the simulation is unchanged" : "; FAIL: the simulation changed");
    free(before);
    free(now);
    tess_sim_destroy(&p.sim);
    return same ? 1 : 0;
  }
  free(before);
  int fail = 0;
  double dt = 0;
  if (sscanf(info.app_state, "dt=%la seed=42", &dt) != 1 || dt != DT) {
    printf("FAIL: app state '%s' did not come back\n", info.app_state);
    fail = 1;
  }
  char clock[128];
  snprintf(clock, sizeof clock, "%ld %a", info.step, info.time);
  now = gather_all(&p, o->n, &len);
  if (tess_rank() == 0) {
    if (differs(joined(dir, "clock.txt"), clock, strlen(clock)) ||
        info.step != tess_sim_step(p.sim)) {
      printf("FAIL: clock %s differs from the writer's\n", clock);
      fail = 1;
    }
    if (differs(joined(dir, "at3.raw"), now, len * sizeof(double))) {
      printf("FAIL: the fields read back differ from those written\n");
      fail = 1;
    }
  }
  free(now);
  if (tess_sim_run(p.sim, 4, dt)) tess_abort(1);
  now = gather_all(&p, o->n, &len);
  if (tess_rank() == 0) {
    if (differs(joined(dir, "ref.raw"), now, len * sizeof(double))) {
      printf("FAIL: after restart + 4 steps the fields differ from the uninterrupted run\n");
      fail = 1;
    }
    printf("%s: restart from '%s' (step %ld, config %zu bytes), %d ranks, step %ld bitwise %s\n",
           fail ? "FAIL" : "ok", path, info.step, strlen(info.config), tess_nranks(),
           tess_sim_step(p.sim), fail ? "differs" : "identical to the uninterrupted run");
  }
  free(now);
  tess_ckpt_info_free(&info);
  tess_sim_destroy(&p.sim);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return fail ? 2 : 0;
}

/* ---- damaged files --------------------------------------------------------------------------- */

static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) ? -1 : (long)st.st_size;
}

static char *slurp(const char *path, long *size) {
  *size = file_size(path);
  FILE *fp = fopen(path, "rb");
  char *buf = *size > 0 ? malloc((size_t)*size) : NULL;
  if (!fp || !buf || fread(buf, 1, (size_t)*size, fp) != (size_t)*size) {
    printf("FAIL: cannot read %s\n", path);
    exit(1);
  }
  fclose(fp);
  return buf;
}

/* Where the parts of a checkpoint lie: the raw data of each field, and the object header of
 * each dataset and of the root group (metadata that HDF5's checksums cover). */
typedef struct {
  int n;
  long data[MAXF][2]; /* offset, bytes */
  long header[MAXF + 1];
} layout;

static void find_layout(const char *path, layout *l) {
  const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  const char *names[4] = {"fields/u", "fields/u_new", "fields/v", "fields/v_new"};
  H5O_info_t oi;
  l->n = 4;
  for (int i = 0; i < 4; i++) {
    const hid_t d = H5Dopen2(f, names[i], H5P_DEFAULT);
    l->data[i][0] = (long)H5Dget_offset(d);
    l->data[i][1] = (long)H5Dget_storage_size(d);
    H5Oget_info2(d, &oi, H5O_INFO_BASIC);
    l->header[i] = (long)oi.addr;
    H5Dclose(d);
  }
  H5Oget_info2(f, &oi, H5O_INFO_BASIC);
  l->header[4] = (long)oi.addr;
  H5Fclose(f);
}

static int in_data(const layout *l, long off) {
  for (int i = 0; i < l->n; i++)
    if (off >= l->data[i][0] && off < l->data[i][0] + l->data[i][1]) return 1;
  return 0;
}

static void write_damaged(const char *path, const char *good, long size, long cut, long flip) {
  char *copy = malloc((size_t)size);
  memcpy(copy, good, (size_t)size);
  if (flip >= 0) copy[flip] ^= 0x01;
  save(path, copy, (size_t)(cut >= 0 ? cut : size));
  free(copy);
}

/* DIR/NAME: a copy of the good file with root attribute `attr` overwritten (HDF5 recomputes its
 * own checksums, as any editor does). 0 or -1. */
static int edited(const char *dir, const char *name, const char *good, long size, const char *attr,
                  hid_t type, const void *value) {
  write_damaged(joined(dir, name), good, size, -1, -1);
  const hid_t f = H5Fopen(joined(dir, name), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t a = f < 0 ? -1 : H5Aopen(f, attr, H5P_DEFAULT);
  const int bad = a < 0 || H5Awrite(a, type, value) < 0;
  if (a >= 0) H5Aclose(a);
  if (f >= 0) H5Fclose(f);
  return bad ? -1 : 0;
}

static int do_damage(const char *dir) {
  const char *ck = joined(dir, "ck_00000003.h5");
  long size;
  char *good = slurp(ck, &size);
  layout l;
  find_layout(ck, &l);
  /* truncated: inside the superblock, after the metadata, in the middle of a field's data, the
   * last byte gone */
  write_damaged(joined(dir, "cut_header.h5"), good, size, 40, -1);
  write_damaged(joined(dir, "cut_meta.h5"), good, size, l.data[0][0] - 1, -1);
  write_damaged(joined(dir, "cut_data.h5"), good, size, l.data[2][0] + l.data[2][1] / 2, -1);
  write_damaged(joined(dir, "cut_last.h5"), good, size, size - 1, -1);
  /* one flipped bit: in the superblock (its base address), in the object header of v (the
   * dataspace's dimensions follow the header's start), in the root group's header (the
   * attributes), in the data of u and of v */
  write_damaged(joined(dir, "flip_super.h5"), good, size, -1, 13);
  write_damaged(joined(dir, "flip_header.h5"), good, size, -1, l.header[2] + 24);
  write_damaged(joined(dir, "flip_root.h5"), good, size, -1, l.header[4] + 40);
  write_damaged(joined(dir, "flip_data_u.h5"), good, size, -1, l.data[0][0] + 1000);
  write_damaged(joined(dir, "flip_data_v.h5"), good, size, -1, l.data[2][0] + l.data[2][1] - 3);
  save(joined(dir, "not_hdf5.h5"), "hello, this is not a checkpoint\n", 32);
  /* a newer format version, the old one without a header checksum; header values edited as a
   * user would (HDF5 rewrites its own checksums): step 3 -> 4, step -7, time NaN, dt 1024 in the
   * app state */
  const int v3 = 3, v1 = 1;
  const long long step4 = 4, step_neg = -7;
  const double nan = NAN;
  int bad = edited(dir, "version.h5", good, size, "tessera_checkpoint", H5T_NATIVE_INT, &v3) ||
            edited(dir, "version1.h5", good, size, "tessera_checkpoint", H5T_NATIVE_INT, &v1) ||
            edited(dir, "step_edited.h5", good, size, "step", H5T_NATIVE_LLONG, &step4) ||
            edited(dir, "step_negative.h5", good, size, "step", H5T_NATIVE_LLONG, &step_neg) ||
            edited(dir, "time_nan.h5", good, size, "time", H5T_NATIVE_DOUBLE, &nan);
  write_damaged(joined(dir, "dt_edited.h5"), good, size, -1, -1);
  const hid_t f = H5Fopen(joined(dir, "dt_edited.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
  bad |= f < 0 || H5Adelete(f, "app_state") < 0;
  const hid_t ty = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
  H5Tset_size(ty, 10);
  const hid_t a = H5Acreate2(f, "app_state", ty, sp, H5P_DEFAULT, H5P_DEFAULT);
  bad |= a < 0 || H5Awrite(a, ty, "dt=0x1p10") < 0;
  H5Aclose(a);
  H5Sclose(sp);
  H5Tclose(ty);
  H5Fclose(f);
  const hid_t g = H5Fcreate(joined(dir, "foreign.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(g);
  free(good);
  printf("damaged copies of %s (%ld bytes; data of u at %ld, v at %ld) written\n", ck, size,
         l.data[0][0], l.data[2][0]);
  return bad;
}

/* ---- flip sweep ------------------------------------------------------------------------------ */

static int do_sweep(const opts *o, const char *dir) {
  prog p;
  if (build(o, &p) || tess_sim_run(p.sim, 3, DT)) tess_abort(1);
  const char *ck = joined(dir, "sweep_src.h5"), *bad = joined(dir, "sweep.h5");
  if (tess_sim_checkpoint_write(p.sim, ck, "dt=0x1p-3", "config")) tess_abort(1);
  if (tess_sim_run(p.sim, 1, DT)) tess_abort(1); /* the state now differs from the file's */
  size_t len;
  double *before = gather_all(&p, o->n, &len);
  long size;
  char *good = slurp(ck, &size);
  layout l;
  find_layout(ck, &l);
  fflush(stderr);
  const int saved = dup(2);
  if (!freopen("/dev/null", "w", stderr)) return 1; /* one refusal message per offset */
  int tried = 0, missed = 0, leaked = 0;
  char missed_at[4096] = "";
  for (long off = 0; off < size; off++) {
    const int data = in_data(&l, off);
    if (data && off % 97) continue;
    write_damaged(bad, good, size, -1, off);
    tess_ckpt_info info;
    tried++;
    if (!tess_sim_checkpoint_read(p.sim, bad, &info)) {
      tess_ckpt_info_free(&info);
      if (missed++ < 40)
        snprintf(missed_at + strlen(missed_at), sizeof missed_at - strlen(missed_at), " %ld%s", off,
                 data ? "(data)" : "");
      /* restore the state the later comparison expects */
      if (tess_sim_checkpoint_read(p.sim, ck, NULL) || tess_sim_run(p.sim, 1, DT)) tess_abort(1);
    }
    if (H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0) leaked++;
  }
  int cuts = 0, cut_missed = 0;
  for (long cut = 0; cut < size; cut += cut < size - 64 ? 53 : 1, cuts++) {
    write_damaged(bad, good, size, cut, -1);
    if (!tess_sim_checkpoint_read(p.sim, bad, NULL)) {
      cut_missed++;
      if (tess_sim_checkpoint_read(p.sim, ck, NULL) || tess_sim_run(p.sim, 1, DT)) tess_abort(1);
    }
  }
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  double *after = gather_all(&p, o->n, &len);
  const int changed = memcmp(before, after, len * sizeof(double)) != 0 || tess_sim_step(p.sim) != 4;
  printf("%d of %ld bytes flipped (all metadata, every 97th data byte): %d accepted%s%s; "
         "%d left HDF5 objects open; %d truncations: %d accepted; the state %s\n",
         tried, size, missed, missed ? " at" : "", missed_at, leaked, cuts, cut_missed,
         changed ? "CHANGED (FAIL)" : "is unchanged");
  free(before);
  free(after);
  free(good);
  tess_sim_destroy(&p.sim);
  return missed || leaked || cut_missed || changed;
}

/* ---- atomic writes and rotation -------------------------------------------------------------- */

static int expect_absent(const char *path, int *fail) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  struct stat st;
  const int left = (!stat(path, &st) && !S_ISDIR(st.st_mode)) || !stat(tmp, &st);
  if (left) printf("FAIL: '%s' or its .tmp remains after a failed write\n", path);
  *fail |= left;
  return left;
}

static int do_atomic(const opts *o, const char *dir) {
  prog p;
  if (build(o, &p) || tess_sim_run(p.sim, 1, DT)) tess_abort(1);
  int fail = 0;
  const int root = tess_rank() == 0;
  /* 1: the directory does not exist */
  const char *nodir = joined(dir, "missing/ck.h5");
  if (tess_sim_checkpoint_write(p.sim, nodir, "", "") != TESS_ERR_IO) fail = 1;
  if (root) expect_absent(nodir, &fail);
  /* 2: the destination is a directory: the rename fails after a complete write */
  const char *isdir = joined(dir, "isdir.h5");
  if (root) mkdir(isdir, 0755), mkdir(joined(isdir, "x"), 0755);
  MPI_Barrier(MPI_COMM_WORLD);
  if (tess_sim_checkpoint_write(p.sim, isdir, "", "") != TESS_ERR_IO) fail = 1;
  if (root) expect_absent(isdir, &fail);
  /* 3: the file system fills up mid-write (checkpoint_atomic.sh mounts a small tmpfs there) */
  if (o->file) {
    const char *full = joined(o->file, "full.h5");
    if (tess_sim_checkpoint_write(p.sim, full, "", "") != TESS_ERR_IO) fail = 1;
    if (root) expect_absent(full, &fail);
    if (root) printf("%s: a full file system\n", fail ? "FAIL" : "ok");
  }
  /* 4: latest and rotate, by step number, whatever the padding */
  char path[1024];
  for (long step = 1; step <= 3; step++)
    if (tess_checkpoint_path(dir, "ck", step, path, sizeof path) ||
        tess_sim_checkpoint_write(p.sim, path, "", ""))
      tess_abort(1);
  if (root) {
    save(joined(dir, "ck_12.h5"), "x", 1);           /* newest, unpadded */
    save(joined(dir, "ck_00000007.h5.tmp"), "x", 1); /* left by a crash */
    save(joined(dir, "ck_x.h5"), "x", 1);            /* not ours */
    save(joined(dir, "other_00000020.h5"), "x", 1);  /* not ours */
    if (tess_checkpoint_latest(dir, "ck", path, sizeof path) ||
        strcmp(path, joined(dir, "ck_12.h5"))) {
      printf("FAIL: latest is '%s', expected ck_12.h5\n", path);
      fail = 1;
    }
    if (tess_checkpoint_rotate(dir, "ck", 2)) fail = 1;
    const char *kept[] = {"ck_12.h5", "ck_00000003.h5", "ck_x.h5", "other_00000020.h5"};
    const char *gone[] = {"ck_00000001.h5", "ck_00000002.h5", "ck_00000007.h5.tmp"};
    for (int i = 0; i < 4; i++)
      if (file_size(joined(dir, kept[i])) < 0) {
        printf("FAIL: rotate deleted %s\n", kept[i]);
        fail = 1;
      }
    for (int i = 0; i < 3; i++)
      if (file_size(joined(dir, gone[i])) >= 0) {
        printf("FAIL: rotate kept %s\n", gone[i]);
        fail = 1;
      }
    if (tess_checkpoint_rotate(dir, "ck", 0) != TESS_ERR_ARG ||
        tess_checkpoint_latest(joined(dir, "none"), "ck", path, sizeof path) != TESS_ERR_IO)
      fail = 1;
    printf("%s: failed writes leave no file; latest/rotate by step\n", fail ? "FAIL" : "ok");
  }
  tess_sim_destroy(&p.sim);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return fail;
}

/* ---- a write that fails on the last rank only -------------------------------------------- */

/* DIR/good.h5, then DIR/bad.h5 with every collective write of the last rank failing: the job
 * must end inside that call (h5util.c aborts every rank). Returning from it is the failure. */
static int do_inject(const opts *o, const char *dir) {
  prog p;
  if (build(o, &p) || tess_sim_run(p.sim, 1, DT)) tess_abort(1);
  if (tess_sim_checkpoint_write(p.sim, joined(dir, "good.h5"), "dt=0x1p-3", "")) tess_abort(1);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tess_io_debug_fail_writes(size - 1);
  const tess_err e = tess_sim_checkpoint_write(p.sim, joined(dir, "bad.h5"), "dt=0x1p-3", "");
  if (tess_rank() == 0)
    printf("FAIL: the failed write returned (%s) instead of ending the job\n", tess_err_name(e));
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test_checkpoint write|restart|damage|sweep|atomic DIR [options]\n");
    return 2;
  }
  const char *mode = argv[1], *dir = argv[2];
  opts o = {{24, 20, 16}, 0, "std", NULL, TESS_DEVICE_CPU};
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--grid"))
      sscanf(argv[i + 1], "%d,%d,%d", &o.n[0], &o.n[1], &o.n[2]);
    else if (!strcmp(argv[i], "--tiles"))
      o.tiles = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--fields"))
      o.fields = argv[i + 1];
    else if (!strcmp(argv[i], "--file"))
      o.file = argv[i + 1];
    else if (!strcmp(argv[i], "--device") && tess_device_parse(argv[i + 1], &o.device))
      return 2;
    else if (!strcmp(argv[i], "--chunk")) /* values a collective block write moves at most */
      tess_io_debug_chunk_values(atol(argv[i + 1]));
  }
  if (!strcmp(mode, "damage")) return do_damage(dir); /* plain HDF5, no runtime */
  if (tess_init(&argc, &argv, NULL)) return 1;
  int rc = 2;
  if (!strcmp(mode, "write"))
    rc = do_write(&o, dir);
  else if (!strcmp(mode, "restart"))
    rc = do_restart(&o, dir);
  else if (!strcmp(mode, "sweep"))
    rc = do_sweep(&o, dir);
  else if (!strcmp(mode, "atomic"))
    rc = do_atomic(&o, dir);
  else if (!strcmp(mode, "inject"))
    rc = do_inject(&o, dir);
  tess_finalize();
  return rc;
}

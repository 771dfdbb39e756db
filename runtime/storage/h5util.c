/* h5util.c — shared by the snapshot and checkpoint writers (see h5util.h for the contract).
 *
 * Data path of one field, per rank:
 *
 *     tiles (pieces on CPU or GPU) --acquire on main RAM, copy--> block buffer [z][y][x][c]
 *     block buffer --H5Dwrite, hyperslab [lo, lo+n) of the global dataset, MPI-IO collective-->
 *
 * and the reverse for reading. The block is the rank's part of the global grid, so the file
 * never depends on the decomposition.
 */
#include "h5util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "error.h"

void tess_h5_rank_block(const tess_sim_t sim, tess_h5_block *b) {
  for (int i = 0; i < 3; i++) {
    b->n[i] = (hsize_t)sim->T[i] * (hsize_t)sim->tn[i];
    b->lo[i] = (hsize_t)sim->rank_coord[i] * b->n[i];
  }
}

size_t tess_h5_block_cells(const tess_h5_block *b) {
  return (size_t)b->n[0] * (size_t)b->n[1] * (size_t)b->n[2];
}

/* Copies between every owned piece of `field` and buf (tess_h5_pack's layout). */
typedef struct {
  int comp, ncomp, to_tiles;
  double *buf;
  tess_h5_block b;
} copy_ctx;

static void copy_view(const tess_sim_t sim, const tess_tile *t, const tess_view *v, void *arg) {
  const copy_ctx *c = arg;
  long shift[3]; /* block index = padded tile coordinate + shift */
  for (int i = 0; i < 3; i++)
    shift[i] = t->origin[i] - sim->ghost[i] - (long)c->b.lo[i];
  const tess_box *box = &v->box;
  for (int z = box->lo[2]; z < box->hi[2]; z++)
    for (int y = box->lo[1]; y < box->hi[1]; y++)
      for (int k = c->comp; k < c->comp + c->ncomp; k++) {
        const size_t row = v->ldz * (size_t)(z - box->lo[2]) +
                           v->ldy * ((size_t)(y - box->lo[1]) * (size_t)v->nc + (size_t)k);
        const size_t cell0 =
            (size_t)(box->lo[0] + shift[0]) +
            c->b.n[0] * ((size_t)(y + shift[1]) + c->b.n[1] * (size_t)(z + shift[2]));
        double *p = c->buf + cell0 * (size_t)c->ncomp + (size_t)(k - c->comp);
        for (int x = 0; x < box->hi[0] - box->lo[0]; x++)
          if (c->to_tiles)
            tess_view_set(v, row + (size_t)x, p[(size_t)x * c->ncomp]);
          else
            p[(size_t)x * c->ncomp] = tess_view_get(v, row + (size_t)x);
      }
}

static tess_err copy_pieces(tess_sim_t sim, int field, int comp, int ncomp, double *buf,
                            int to_tiles) {
  TESS_CHECK(sim->is_setup, TESS_ERR_STATE, "the simulation is not set up");
  copy_ctx c = {comp, ncomp, to_tiles, buf, {{0}, {0}}};
  tess_h5_rank_block(sim, &c.b);
  TESS_CALL(tess_for_each_owned_view(sim, field, to_tiles ? STARPU_W : STARPU_R, copy_view, &c));
  return TESS_OK;
}

tess_err tess_h5_pack(tess_sim_t sim, int field, int comp, int ncomp, double *buf) {
  return copy_pieces(sim, field, comp, ncomp, buf, 0);
}

tess_err tess_h5_unpack(tess_sim_t sim, int field, const double *buf) {
  /* copy_pieces only reads buf in this direction */
  return copy_pieces(sim, field, 0, sim->field[field].nc, (double *)buf, 1);
}

/* ---- outcome of a collective phase ----------------------------------------------------------- */

void tess_h5_fail_at(tess_h5_status *s, tess_err code, const char *file, int line, const char *func,
                     const char *fmt, ...) {
  if (s->err) return;
  s->err = code;
  s->file = file;
  s->line = line;
  s->func = func;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->msg, sizeof s->msg, fmt, ap);
  va_end(ap);
}

tess_err tess_h5_agree(MPI_Comm comm, tess_h5_status *s) {
  int rank, first, worst;
  MPI_Comm_rank(comm, &rank);
  const int mine = s->err ? rank : INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce((int[]){(int)s->err}, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (worst) {
    if (rank == first && !s->printed)
      tess_error_raise(s->err, s->file, s->line, s->func, "%s", s->msg);
    s->printed = 1; /* one rank has spoken for this failure and what follows from it */
  }
  s->err = (tess_err)worst;
  return s->err;
}

/* ---- HDF5 ------------------------------------------------------------------------------------ */

/* HDF5 clears its error stack on entry to every API call, so the reason of a failure is gone
 * after the next call (a H5Pclose in the cleanup): tess_h5_remember keeps it, called right
 * after the failed call. (Walking the stack from an automatic error handler instead would be
 * simpler, but makes HDF5 1.10 leak and report "infinite loop closing library" at exit.) */
static char last_reason[256];

static herr_t innermost(unsigned n, const H5E_error2_t *e, void *arg) {
  (void)arg;
  if (n == 0) snprintf(last_reason, sizeof last_reason, "%s", *e->desc ? e->desc : e->func_name);
  return 0;
}

void tess_h5_quiet(void) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  last_reason[0] = 0;
}

/* The MPI-IO driver's stack says only "file write failed": the cause is in errno, which the
 * callers clear before the call that may fail. Only causes a user can act on are added, so that
 * a stale errno of some earlier, harmless call is not shown as the reason. */
void tess_h5_remember(void) {
  const int err = errno;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, NULL);
  H5Eclear2(H5E_DEFAULT);
  if (err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO) {
    const char *cause = strerror(err);
    const size_t n = strlen(last_reason);
    if (!strstr(last_reason, cause) && n + 3 < sizeof last_reason)
      snprintf(last_reason + n, sizeof last_reason - n, "%s%s", n ? ": " : "", cause);
  }
}

const char *tess_h5_reason(char *buf, size_t len) {
  tess_h5_remember();
  snprintf(buf, len, "%s", *last_reason ? last_reason : "unknown HDF5 error");
  last_reason[0] = 0;
  return buf;
}

#define TESS_H5_FULL (1024 * 1024) /* less free than this after a failed write: a full disk */

const char *tess_h5_write_reason(const char *path, char *buf, size_t len) {
  tess_h5_reason(buf, len);
  const char *cause = strerror(ENOSPC);
  if (!path || strstr(buf, cause)) return buf;
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *(slash == dir ? slash + 1 : slash) = 0;
  else
    snprintf(dir, sizeof dir, ".");
  struct statvfs v;
  if (statvfs(dir, &v) != 0) return buf;
  const unsigned long long left = (unsigned long long)v.f_bavail * v.f_frsize;
  const size_t n = strlen(buf);
  if (left < TESS_H5_FULL && n + 2 < len)
    snprintf(buf + n, len - n, ": %s (%llu bytes left on the filesystem of '%s')", cause, left,
             dir);
  return buf;
}

hid_t tess_h5_fapl(MPI_Comm comm) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
  int bad = H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) < 0;
  /* No aggregation blocks: metadata and small data are laid end to end, so the file has no
   * unused bytes in which a flipped bit would go unnoticed (data or checksummed metadata). */
  bad |= H5Pset_meta_block_size(fapl, 0) < 0 || H5Pset_small_data_block_size(fapl, 0) < 0;
#if H5_VERSION_GE(1, 10, 7)
  /* Parallel file systems often lack flock(); the tmp + rename protocol is our lock. */
  bad |= H5Pset_file_locking(fapl, 0, 1) < 0;
#endif
  if (comm != MPI_COMM_NULL) {
    bad |= H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0;
    /* Metadata is read by one rank and broadcast, not by every rank at once. */
    bad |= H5Pset_all_coll_metadata_ops(fapl, 1) < 0;
    bad |= H5Pset_coll_metadata_write(fapl, 1) < 0;
  }
  if (bad) {
    tess_h5_remember();
    H5Pclose(fapl);
    return -1;
  }
  return fapl;
}

hid_t tess_h5_dataset_create(hid_t loc, const char *name, const int n[3], int ncomp,
                             tess_precision prec) {
  const hsize_t dims[4] = {(hsize_t)n[2], (hsize_t)n[1], (hsize_t)n[0], (hsize_t)ncomp};
  const hid_t space = H5Screate_simple(ncomp == 1 ? 3 : 4, dims, NULL);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  hid_t d = -1;
  if (space >= 0 && dcpl >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
      H5Pset_obj_track_times(dcpl, 0) >= 0)
    d = H5Dcreate2(loc, name, prec == TESS_FP32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, space,
                   H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d < 0) tess_h5_remember();
  if (dcpl >= 0) H5Pclose(dcpl);
  if (space >= 0) H5Sclose(space);
  return d;
}

hid_t tess_h5_group_create(hid_t loc, const char *name) {
  const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  hid_t g = -1;
  if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) >= 0)
    g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  if (g < 0) tess_h5_remember();
  if (gcpl >= 0) H5Pclose(gcpl);
  return g;
}

static int fail_writes_rank = -1; /* tess_io_debug_fail_writes */

void tess_io_debug_fail_writes(int rank) { fail_writes_rank = rank; }

static size_t chunk_values = (size_t)1 << 27; /* 1 GiB of doubles; tess_io_debug_chunk_values */

void tess_io_debug_chunk_values(long values) {
  chunk_values = values > 0 ? (size_t)values : (size_t)1 << 27;
}

int tess_h5_block_io(MPI_Comm comm, hid_t dset, const tess_h5_block *b, int ncomp, double *buf,
                     int write) {
  const int rank = ncomp == 1 ? 3 : 4;
  const size_t plane = (size_t)b->n[0] * b->n[1] * (size_t)ncomp;
  const size_t max_values = chunk_values;
  const hsize_t dz = plane >= max_values ? 1 : (hsize_t)(max_values / plane);
  const hid_t fspace = dset < 0 ? -1 : H5Dget_space(dset), dxpl = H5Pcreate(H5P_DATASET_XFER);
  int ok = fspace >= 0 && dxpl >= 0 && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) >= 0;
  if (!ok && dset >= 0) tess_h5_remember(); /* dset < 0: the caller remembered why */
  int me = -1, all = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  /* Every rank's block has the same extent (the ranks divide the grid evenly), so all make the
   * same number of collective calls; each only once every rank's calls so far have worked: a
   * rank whose write failed (a full disk) stops, and the others must not wait for it in the
   * next call. */
  for (hsize_t z = 0; z < b->n[2]; z += dz) {
    if (comm != MPI_COMM_NULL) MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!ok || !all) break;
    const hsize_t nz = b->n[2] - z < dz ? b->n[2] - z : dz;
    const hsize_t start[4] = {b->lo[2] + z, b->lo[1], b->lo[0], 0};
    const hsize_t count[4] = {nz, b->n[1], b->n[0], (hsize_t)ncomp};
    const hid_t mspace = H5Screate_simple(rank, count, NULL);
    ok = mspace >= 0 && H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0;
    double *at = buf + (size_t)z * plane;
    errno = 0; /* tess_h5_remember reads the cause of a failed write from it */
    if (ok)
      ok = (write ? H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, at)
                  : H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, at)) >= 0;
    if (!ok) tess_h5_remember();
    if (mspace >= 0) H5Sclose(mspace);
    if (ok && write && me == fail_writes_rank) { /* after the collective call: the others go on */
      snprintf(last_reason, sizeof last_reason, "injected failure (tess_io_debug_fail_writes)");
      ok = 0;
    }
  }
  if (dxpl >= 0) H5Pclose(dxpl);
  if (fspace >= 0) H5Sclose(fspace);
  return ok ? 0 : -1; /* 0 also where another rank's failure stopped this one: the caller's
                       * tess_h5_agree reports that failure */
}

int tess_h5_attr_write(hid_t obj, const char *name, hid_t type, int n, const void *v) {
  const hsize_t dim = (hsize_t)n;
  const hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL);
  hid_t a = space < 0 ? -1 : H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const int ok = a >= 0 && H5Awrite(a, type, v) >= 0;
  if (!ok) tess_h5_remember();
  if (a >= 0) H5Aclose(a);
  if (space >= 0) H5Sclose(space);
  return ok ? 0 : -1;
}

int tess_h5_attr_write_str(hid_t obj, const char *name, const char *s) {
  if (!s) s = "";
  const size_t len = strlen(s);
  const hid_t type = H5Tcopy(H5T_C_S1);
  /* NULLPAD, as numpy's fixed-length bytes: h5py and VTK read it without conversion. An empty
   * string is stored as one NUL (HDF5 strings are at least one byte). */
  int ok = type >= 0 && H5Tset_size(type, len ? len : 1) >= 0 &&
           H5Tset_strpad(type, H5T_STR_NULLPAD) >= 0;
  if (!ok) tess_h5_remember();
  if (ok) ok = tess_h5_attr_write(obj, name, type, 1, len ? s : "\0") == 0;
  if (type >= 0) H5Tclose(type);
  return ok ? 0 : -1;
}

/* An open attribute of exactly n elements, or -1. */
static hid_t attr_open(hid_t obj, const char *name, hssize_t n) {
  if (H5Aexists(obj, name) <= 0) {
    tess_h5_remember();
    return -1;
  }
  const hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  const hid_t space = a < 0 ? -1 : H5Aget_space(a);
  const int ok = space >= 0 && H5Sget_simple_extent_npoints(space) == n;
  if (!ok) tess_h5_remember();
  if (space >= 0) H5Sclose(space);
  if (!ok && a >= 0) H5Aclose(a);
  return ok ? a : -1;
}

int tess_h5_attr_read(hid_t obj, const char *name, hid_t type, int n, void *v) {
  const hid_t a = attr_open(obj, name, n);
  const int ok = a >= 0 && H5Aread(a, type, v) >= 0;
  if (!ok) tess_h5_remember();
  if (a >= 0) H5Aclose(a);
  return ok ? 0 : -1;
}

char *tess_h5_attr_read_str(hid_t obj, const char *name) {
  const hid_t a = attr_open(obj, name, 1);
  const hid_t type = a < 0 ? -1 : H5Aget_type(a);
  char *s = NULL;
  if (type >= 0 && H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type)) {
    const size_t len = H5Tget_size(type);
    s = calloc(len + 1, 1);
    if (s && H5Aread(a, type, s) < 0) {
      tess_h5_remember();
      free(s);
      s = NULL;
    }
  }
  if (type >= 0) H5Tclose(type);
  if (a >= 0) H5Aclose(a);
  return s;
}

const char *tess_h5_bad_name(const char *name) {
  if (!name || !*name) return "is empty";
  if (strchr(name, '/')) return "contains a '/'";
  if (!strcmp(name, ".")) return "is '.'";
  return NULL;
}

/* ---- atomic files ---------------------------------------------------------------------------- */

tess_err tess_h5_create(tess_sim_t sim, const char *path, char **tmp, hid_t *file,
                        tess_h5_status *s) {
  *file = -1;
  *tmp = malloc(strlen(path) + 5);
  if (!*tmp)
    TESS_H5_FAIL(s, TESS_ERR_MEM, "cannot allocate a file name");
  else
    sprintf(*tmp, "%s.tmp", path);
  if (!s->err && sim->rank == 0) {
    const int fd = open(*tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
      TESS_H5_FAIL(s, TESS_ERR_IO, "cannot create '%s': %s", *tmp, strerror(errno));
    else
      close(fd);
  }
  if (tess_h5_agree(sim->comm, s)) return s->err;
  tess_h5_quiet();
  const hid_t fapl = tess_h5_fapl(sim->comm), fcpl = H5Pcreate(H5P_FILE_CREATE);
  /* The root group without timestamps, as every object here (tess_h5_group_create). */
  const int ok = fapl >= 0 && fcpl >= 0 && H5Pset_obj_track_times(fcpl, 0) >= 0;
  *file = ok ? H5Fcreate(*tmp, H5F_ACC_TRUNC, fcpl, fapl) : -1;
  if (*file < 0) tess_h5_remember();
  if (fcpl >= 0) H5Pclose(fcpl);
  if (fapl >= 0) H5Pclose(fapl);
  char why[256];
  if (*file < 0)
    TESS_H5_FAIL(s, TESS_ERR_IO, "cannot create '%s' with HDF5: %s", *tmp,
                 tess_h5_reason(why, sizeof why));
  return tess_h5_agree(sim->comm, s);
}

/* fsync a file or directory by name; 0 or an errno value. */
static int sync_path(const char *path, int dir) {
  const int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return errno;
  const int r = fsync(fd) ? errno : 0;
  close(fd);
  return r;
}

/* A rename is durable once the directory holding the name is synced. */
static void sync_parent(const char *path) {
  char *dir = strdup(path); /* at least 2 bytes: path is not empty */
  if (!dir) return;
  char *slash = strrchr(dir, '/');
  if (!slash)
    strcpy(dir, ".");
  else
    slash[slash == dir] = 0; /* "/name" -> "/", "a/b/name" -> "a/b" */
  sync_path(dir, 1);
  free(dir);
}

/* A parallel file that failed to be written cannot be closed reliably: H5Fclose is collective
 * and after a failed write the ranks' HDF5 states may differ (seen with a full disk, on 2 ranks
 * that both failed: one waiting in MPI_File_close's barrier, the other in the metadata cache's,
 * until the batch limit; another time the close worked). So the job ends here, within seconds: the
 * failure's message, the .tmp removed (the file it was to replace is untouched), one line saying
 * why, and MPI_Abort for every rank. */
static void abandon(tess_sim_t sim, const char *tmp, tess_h5_status *s, int say) {
  if (!s->printed) tess_error_raise(s->err, s->file, s->line, s->func, "%s", s->msg);
  if (tmp) unlink(tmp); /* any rank may: the others may be stuck; ENOENT is fine */
  if (say)
    fprintf(stderr,
            "tessera[%d]: error: a parallel write of '%s' failed on some rank; HDF5 cannot close "
            "the file after that, so all ranks stop now (the .tmp is removed, older files are "
            "intact)\n",
            sim->rank, tmp ? tmp : "?");
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

tess_err tess_h5_finish(tess_sim_t sim, const char *path, char *tmp, hid_t file,
                        tess_h5_status *s) {
  char why[256];
  const int parallel = file >= 0 && sim->nranks > 1;
  if (parallel && s->err == TESS_ERR_IO) abandon(sim, tmp, s, sim->rank == 0); /* agreed */
  /* MPI_File_sync on every rank: the data other nodes wrote is on disk, not only in caches */
  errno = 0; /* as in tess_h5_block_io */
  if (!s->err && file >= 0 && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
    TESS_H5_FAIL(s, TESS_ERR_IO, "flushing '%s' failed: %s", tmp,
                 tess_h5_write_reason(tmp, why, sizeof why));
    if (parallel) abandon(sim, tmp, s, 1); /* the others may wait inside the flush */
  }
  if (file >= 0 && H5Fclose(file) < 0) {
    TESS_H5_FAIL(s, TESS_ERR_IO, "closing '%s' failed: %s", tmp,
                 tess_h5_write_reason(tmp, why, sizeof why));
    if (parallel) abandon(sim, tmp, s, 1);
  }
  tess_h5_agree(sim->comm, s);
  if (sim->rank == 0 && tmp) {
    int e;
    if (!s->err && (e = sync_path(tmp, 0)) != 0)
      TESS_H5_FAIL(s, TESS_ERR_IO, "cannot sync '%s' to disk: %s", tmp, strerror(e));
    if (!s->err && rename(tmp, path) != 0)
      TESS_H5_FAIL(s, TESS_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
    if (s->err)
      unlink(tmp);
    else
      sync_parent(path);
  }
  free(tmp);
  return tess_h5_agree(sim->comm, s);
}

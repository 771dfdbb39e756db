/* h5util.h — what snapshot.c and checkpoint.c share (internal to runtime/): the rank's block
 * of the grid and its copy to and from the tiles, collective block I/O of one dataset, HDF5
 * attributes, and the agreement of all ranks on one outcome after every collective phase.
 *
 * Why the agreement: a parallel HDF5 call is collective, so a rank that skipped one after a
 * local failure would leave the others waiting forever. Every phase therefore ends with
 * tess_h5_agree, after which all ranks hold the same error code and the lowest failing rank
 * has printed its one message; the callers go on only when it is TESS_OK.
 */
#ifndef TESS_H5UTIL_H
#define TESS_H5UTIL_H

#include <hdf5.h>
#include <stdint.h>

#include "sim.h"

/* The block of the global grid a rank owns: the union of its tiles, the same extent on every
 * rank (the decomposition is even), cells [lo, lo + n) per axis. */
typedef struct {
  hsize_t lo[3], n[3];
} tess_h5_block;
void tess_h5_rank_block(const tess_sim_t sim, tess_h5_block *b);
size_t tess_h5_block_cells(const tess_h5_block *b);

/* Host copy of components comp .. comp+ncomp-1 of `field` on the rank's block,
 *     buf: [n2][n1][n0][ncomp], x fastest after the component,
 * and back (unpack writes every component: ncomp = the field's). Synchronous: every owned piece
 * is acquired on main RAM (a GPU tile's piece comes home; unpack invalidates the GPU copy). */
tess_err tess_h5_pack(tess_sim_t sim, int field, int comp, int ncomp, double *buf);
tess_err tess_h5_unpack(tess_sim_t sim, int field, const double *buf);

/* ---- outcome of a collective phase ----------------------------------------------------------- */
typedef struct {
  tess_err err; /* TESS_OK until the first failure on this rank */
  int printed;
  const char *file, *func;
  int line;
  char msg[1536];
} tess_h5_status;

void tess_h5_fail_at(tess_h5_status *s, tess_err code, const char *file, int line, const char *func,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Records the first failure of this rank (later ones are consequences and are dropped). */
#define TESS_H5_FAIL(s, code, ...)                                                                 \
  tess_h5_fail_at((s), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* Collective: every rank gets the worst code of all; the lowest failing rank prints its message
 * (once). Returns the agreed code. */
tess_err tess_h5_agree(MPI_Comm comm, tess_h5_status *s);

/* ---- HDF5 ------------------------------------------------------------------------------------ */
/* Turns HDF5's automatic error printing off: its stack of a dozen lines per rank becomes one
 * message of ours. Call before any HDF5 call of a public entry point. */
void tess_h5_quiet(void);
/* Keeps the most specific message of HDF5's error stack (e.g. "truncated file: eof = ..."):
 * call right after a failed HDF5 call, before any other (the next clears the stack). The
 * helpers here do it themselves. */
void tess_h5_remember(void);
/* The message kept (or on the stack now), forgotten once returned. */
const char *tess_h5_reason(char *buf, size_t len);
/* tess_h5_reason for a failed write of `path`, naming a full disk ("No space left on device",
 * with the bytes left on the filesystem of path's directory) where HDF5's stack does not. */
const char *tess_h5_write_reason(const char *path, char *buf, size_t len);
/* File access: MPI-IO on comm, or the serial POSIX driver for MPI_COMM_NULL; in both the HDF5
 * 1.10 file format, whose superblock, object headers and indexes carry checksums. */
hid_t tess_h5_fapl(MPI_Comm comm);

/* A float64 (or, for TESS_FP32, float32) dataset [n2][n1][n0] (ncomp = 1) or
 * [n2][n1][n0][ncomp], allocated, never filled. Block I/O converts from and to the double
 * buffers of tess_h5_pack, exactly (a single-precision simulation's values are floats). */
hid_t tess_h5_dataset_create(hid_t loc, const char *name, const int n[3], int ncomp,
                             tess_precision prec);
/* A group, like H5Gcreate2's, with no timestamps in its header. Objects here record no times
 * (nor does the file's root group), so identical runs write byte-identical files. */
hid_t tess_h5_group_create(hid_t loc, const char *name);
/* Collective over comm (the file's): each rank writes (or reads) its block, buf as in
 * tess_h5_pack, in z slabs of at most 1 GiB per call (MPI-IO counts are ints), the next slab
 * only once every rank's last call worked. dset < 0 (a failed open or create) takes part and
 * fails. Returns -1 where this rank's own call failed, else 0 (the caller's tess_h5_agree
 * reports another rank's failure). */
int tess_h5_block_io(MPI_Comm comm, hid_t dset, const tess_h5_block *b, int ncomp, double *buf,
                     int write);

/* Attributes: n values of a native type, or a string. 0 or -1 (the HDF5 stack says why).
 * Strings are fixed-length (stored inside the checksummed object header, not in the global
 * heap that variable-length strings use, which has no checksum). */
int tess_h5_attr_write(hid_t obj, const char *name, hid_t type, int n, const void *v);
int tess_h5_attr_write_str(hid_t obj, const char *name, const char *s);
/* -1 when missing or not of n values. */
int tess_h5_attr_read(hid_t obj, const char *name, hid_t type, int n, void *v);
/* malloc'd, NULL when missing or not a string. */
char *tess_h5_attr_read_str(hid_t obj, const char *name);

/* A name HDF5 would not store as one link: empty, with a '/', or "." (NULL: fine). */
const char *tess_h5_bad_name(const char *name);

/* ---- atomic files ---------------------------------------------------------------------------- */
/* Collective: creates "<path>.tmp" (rank 0 first tries a plain create, so that an unwritable
 * destination is reported with the system's reason), open on every rank in *file. */
tess_err tess_h5_create(tess_sim_t sim, const char *path, char **tmp, hid_t *file,
                        tess_h5_status *s);
/* Collective: closes the file (when open); with s->err == TESS_OK rank 0 then fsyncs it and
 * renames it to `path`, otherwise (or when that fails) removes it. Frees tmp. Returns the
 * agreed outcome. A file of several ranks that failed to be written (an I/O error), or whose
 * flush or close failed on a rank, cannot be closed collectively: the job is aborted instead,
 * after the message and the removal of the .tmp (h5util.c, abandon). */
tess_err tess_h5_finish(tess_sim_t sim, const char *path, char *tmp, hid_t file, tess_h5_status *s);

#endif

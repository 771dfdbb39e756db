/* tessera_io.h — snapshots for ParaView and checkpoints for restart (parallel HDF5).
 *
 * Both kinds of file are written collectively by all ranks into one file: every rank writes its
 * own block of the global grid through an HDF5 hyperslab (MPI-IO, collective). A file is first
 * written as "<path>.tmp" and renamed by rank 0 once the collective close succeeded, so a file
 * under its final name is always complete; on an error the temporary file is removed.
 *
 *   snapshot    selected components of fields, in the VTKHDF ImageData layout (ParaView and VTK
 *               >= 9.1 open it directly; h5py reads it too), with the step, time, numeric
 *               parameters and a free text (the effective configuration) as attributes.
 *   checkpoint  every field of the simulation (all components, every register), the clock
 *               (step, time), the app's own state as text (dt, RNG seed, ...), the configuration
 *               text, the grid, and a checksum per field. Restart reads it into a simulation
 *               of the same grid and fields with any number of ranks and tiles, so that the
 *               run continues bitwise identically.
 *
 * Errors: every rank returns the same tess_err; one rank prints one message naming the file and
 * the reason (TESS_ERR_IO for files, TESS_ERR_ARG for bad arguments).
 */
#ifndef TESSERA_IO_H
#define TESSERA_IO_H

#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- snapshots ------------------------------------------------------------------------------- */

/* One array of a snapshot: component `comp` of `field` (ncomp = 1), or the vector of components
 * comp, comp+1, comp+2 (ncomp = 3). `name` is the array's name in ParaView (no '/'). */
typedef struct {
  int field, comp, ncomp;
  const char *name;
} tess_snap_var;

/* A numeric parameter stored as an attribute (name: no '/', not step, time or text). */
typedef struct {
  const char *name;
  double value;
} tess_attr;

/* Collective, synchronous. Writes one VTKHDF ImageData file (layout in snapshot.c): each
 * variable as /VTKHDF/PointData/<name>, float64 [nz][ny][nx] or [nz][ny][nx][3], one point
 * per cell at x = g h (the convention of the legacy VTK writer of the apps); the attributes
 * step, time, `text` (may be NULL) and `attrs` on the group /Tessera. */
tess_err tess_sim_snapshot(tess_sim_t sim, const char *path, int nvar, const tess_snap_var *vars,
                           int nattr, const tess_attr *attrs, const char *text);

/* ---- checkpoints ----------------------------------------------------------------------------- */

/* What a checkpoint holds besides the fields. From tess_sim_checkpoint_read: the strings are
 * malloc'd (free with tess_ckpt_info_free), identical on every rank. */
typedef struct {
  long step;
  double time;
  char *app_state; /* free-form text the app needs to continue bitwise ("dt=... seed=...") */
  char *config;    /* the effective configuration of the run that wrote it */
} tess_ckpt_info;

/* Collective, synchronous. Writes every field of the simulation, its clock, `app_state` and
 * `config` (either may be NULL: stored as "") to `path` atomically (path.tmp, fsync, rename). */
tess_err tess_sim_checkpoint_write(tess_sim_t sim, const char *path, const char *app_state,
                                   const char *config);

/* Collective, synchronous, after tess_sim_setup. Validates `path` against the simulation
 * (a readable HDF5 file, the format version, grid extents and spacing, the fields' names and
 * components), reads every field, verifies the checksums, and only then stores the fields in
 * the tiles and sets the clock (step, time). A refused file (TESS_ERR_IO, message naming the
 * file and both values of what differs) leaves the simulation unchanged. The fields are
 * buffered in host memory until verified: one copy of the rank's state. `info` (may be NULL)
 * is filled on success only. */
tess_err tess_sim_checkpoint_read(tess_sim_t sim, const char *path, tess_ckpt_info *info);
/* NULL-safe; frees the strings and sets them to NULL. */
void tess_ckpt_info_free(tess_ckpt_info *info);

/* Not collective (call on one rank, e.g. rank 0, and broadcast the outcome). Checkpoints are
 * named "<dir>/<prefix>_<step>.h5", the step zero-padded to 8 digits by tess_checkpoint_path.
 *   path:   the name of the checkpoint of `step` (TESS_ERR_ARG when it does not fit in len).
 *   latest: the newest complete one, by step (TESS_ERR_IO when there is none).
 *   rotate: deletes all but the newest `keep` (>= 1) and any leftover "<prefix>_<step>.h5.tmp"
 *           of a run that died while writing. */
tess_err tess_checkpoint_path(const char *dir, const char *prefix, long step, char *path,
                              size_t len);
tess_err tess_checkpoint_latest(const char *dir, const char *prefix, char *path, size_t len);
tess_err tess_checkpoint_rotate(const char *dir, const char *prefix, int keep);

/* Test hook: from now on every collective block write of a snapshot or checkpoint on MPI rank
 * `rank` (of MPI_COMM_WORLD) reports a failure after taking part in the collective call, as a
 * full disk on that rank would; -1 turns it off. */
void tess_io_debug_fail_writes(int rank);
/* Test hook: block I/O of checkpoints and snapshots moves at most `values` values a collective call
 * (0: the default, 2^27, 1 GiB of doubles), so that small grids take the path of large blocks. */
void tess_io_debug_chunk_values(long values);

#ifdef __cplusplus
}
#endif
#endif

/* snapshot.c — selected fields in one VTKHDF file per snapshot, written by all ranks.
 *
 *     /                                 (HDF5 1.10 format)
 *     ├── VTKHDF                        attrs Version = [1 0], Type = "ImageData",
 *     │   │                               WholeExtent = [0 nx-1 0 ny-1 0 nz-1] (int64),
 *     │   │                               Origin = [0 0 0], Spacing = [hx hy hz],
 *     │   │                               Direction = identity (9 doubles)
 *     │   └── PointData
 *     │       ├── <scalar>              float64 [nz][ny][nx]
 *     │       └── <vector>              float64 [nz][ny][nx][3]
 *     └── Tessera                       attrs step (int64), time, text, <parameter> ...
 *
 * Point data, one point per cell at x = g h: the convention of the legacy VTK writer of the
 * apps, and the form VTK 9.1's reader handles (it reads ImageData cell arrays with the point
 * extent and fails). VTK 9.1 (ParaView 5.10) also crashes on any single-plane image (nz = 1,
 * WholeExtent z = [0 0]: a bug of that reader), so a 2D grid is written as two identical planes,
 * z = 0 and z = hz (WholeExtent z = [0 1], datasets [2][ny][nx]): a slab ParaView opens.
 * Our own attributes sit in a sibling group so that no parameter name can collide with the
 * attributes VTK reads.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "h5util.h"
#include "tessera_io.h"

static tess_err check_args(tess_sim_t sim, const char *path, int nvar, const tess_snap_var *vars,
                           int nattr, const tess_attr *attrs) {
  TESS_CHECK(sim && sim->is_setup, TESS_ERR_STATE, "tess_sim_snapshot needs tess_sim_setup first");
  TESS_CHECK(path && *path, TESS_ERR_ARG, "snapshot: no file name given");
  TESS_CHECK(nvar >= 0 && (nvar == 0 || vars), TESS_ERR_ARG, "snapshot '%s': %d variables", path,
             nvar);
  TESS_CHECK(nattr >= 0 && (nattr == 0 || attrs), TESS_ERR_ARG, "snapshot '%s': %d attributes",
             path, nattr);
  for (int i = 0; i < nvar; i++) {
    const tess_snap_var *v = &vars[i];
    const char *bad = tess_h5_bad_name(v->name);
    TESS_CHECK(!bad, TESS_ERR_ARG, "snapshot '%s': variable %d's name %s", path, i, bad);
    TESS_CHECK(v->field >= 0 && v->field < sim->nfields, TESS_ERR_ARG,
               "snapshot '%s': variable '%s' names field id %d (allowed: 0..%d)", path, v->name,
               v->field, sim->nfields - 1);
    const tess_field *f = &sim->field[v->field];
    TESS_CHECK(v->ncomp == 1 || v->ncomp == 3, TESS_ERR_ARG,
               "snapshot '%s': variable '%s' has %d components (allowed: 1 or 3)", path, v->name,
               v->ncomp);
    TESS_CHECK(v->comp >= 0 && v->comp + v->ncomp <= f->nc, TESS_ERR_ARG,
               "snapshot '%s': variable '%s' takes components %d..%d of field '%s', which has %d",
               path, v->name, v->comp, v->comp + v->ncomp - 1, f->name, f->nc);
    for (int j = 0; j < i; j++)
      TESS_CHECK(strcmp(vars[j].name, v->name), TESS_ERR_ARG,
                 "snapshot '%s': two variables are named '%s'", path, v->name);
  }
  for (int i = 0; i < nattr; i++) {
    const char *name = attrs[i].name, *bad = tess_h5_bad_name(name);
    TESS_CHECK(!bad, TESS_ERR_ARG, "snapshot '%s': attribute %d's name %s", path, i, bad);
    TESS_CHECK(strcmp(name, "step") && strcmp(name, "time") && strcmp(name, "text"), TESS_ERR_ARG,
               "snapshot '%s': attribute name '%s' is reserved (step, time, text)", path, name);
    for (int j = 0; j < i; j++)
      TESS_CHECK(strcmp(attrs[j].name, name), TESS_ERR_ARG,
                 "snapshot '%s': two attributes are named '%s'", path, name);
  }
  return TESS_OK;
}

/* Planes along z in the file: a 2D grid's plane twice (see the top of the file). */
static int planes(const tess_sim_t sim) { return sim->n[2] == 1 ? 2 : sim->n[2]; }

/* Collective: the groups and attributes; 0 or -1. */
static int write_metadata(tess_sim_t sim, hid_t file, int nattr, const tess_attr *attrs,
                          const char *text) {
  const int version[2] = {1, 0};
  const long long extent[6] = {0, sim->n[0] - 1, 0, sim->n[1] - 1, 0, planes(sim) - 1};
  const double origin[3] = {0, 0, 0}, direction[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const long long step = sim->step;
  char walls[1024]; /* periodicity and the conditions at physical faces (boundary.c) */
  tess_sim_boundary_text(sim, walls, sizeof walls);
  hid_t vtk = tess_h5_group_create(file, "VTKHDF");
  hid_t ours = tess_h5_group_create(file, "Tessera");
  int bad = vtk < 0 || ours < 0;
  if (!bad)
    bad = tess_h5_attr_write(vtk, "Version", H5T_NATIVE_INT, 2, version) ||
          tess_h5_attr_write_str(vtk, "Type", "ImageData") ||
          tess_h5_attr_write(vtk, "WholeExtent", H5T_NATIVE_LLONG, 6, extent) ||
          tess_h5_attr_write(vtk, "Origin", H5T_NATIVE_DOUBLE, 3, origin) ||
          tess_h5_attr_write(vtk, "Spacing", H5T_NATIVE_DOUBLE, 3, sim->h) ||
          tess_h5_attr_write(vtk, "Direction", H5T_NATIVE_DOUBLE, 9, direction) ||
          tess_h5_attr_write(ours, "step", H5T_NATIVE_LLONG, 1, &step) ||
          tess_h5_attr_write(ours, "time", H5T_NATIVE_DOUBLE, 1, &sim->time) ||
          tess_h5_attr_write_str(ours, "text", text) ||
          tess_h5_attr_write_str(ours, "boundaries", walls);
  for (int i = 0; i < nattr && !bad; i++)
    bad = tess_h5_attr_write(ours, attrs[i].name, H5T_NATIVE_DOUBLE, 1, &attrs[i].value);
  if (vtk >= 0) H5Gclose(vtk);
  if (ours >= 0) H5Gclose(ours);
  return bad ? -1 : 0;
}

/* Collective: whether `bad` is set on any rank. */
static int any_rank(MPI_Comm comm, int bad) {
  int any;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  return any;
}

/* Collective: one variable, packed from the tiles, written by every rank's block. */
static tess_err write_var(tess_sim_t sim, hid_t group, const tess_snap_var *v, const char *tmp,
                          tess_h5_status *s) {
  tess_h5_block b;
  tess_h5_rank_block(sim, &b);
  double *buf = malloc(tess_h5_block_cells(&b) * (size_t)v->ncomp * sizeof(double));
  if (!buf)
    TESS_H5_FAIL(s, TESS_ERR_MEM, "cannot allocate the buffer of snapshot variable '%s'", v->name);
  else if (tess_h5_pack(sim, v->field, v->comp, v->ncomp, buf))
    TESS_H5_FAIL(s, TESS_ERR_STARPU, "cannot read field '%s' from its tiles",
                 sim->field[v->field].name);
  if (!tess_h5_agree(sim->comm, s)) {
    char why[256];
    const int n[3] = {sim->n[0], sim->n[1], planes(sim)};
    const hid_t d = tess_h5_dataset_create(group, v->name, n, v->ncomp, sim->prec);
    int bad = d < 0;
    /* The 2D plane is written twice (top of the file), each a collective write: every rank
     * makes the second only if no rank's first failed (a write can fail on one rank only, and
     * a rank that skipped a collective call the others make would hang them). */
    const int copies = sim->n[2] == 1 ? 2 : 1;
    for (int z = 0; z < copies && !any_rank(sim->comm, bad); z++) {
      tess_h5_block bz = b;
      bz.lo[2] += (hsize_t)z;
      bad = tess_h5_block_io(sim->comm, d, &bz, v->ncomp, buf, 1) != 0;
    }
    if (bad)
      TESS_H5_FAIL(s, TESS_ERR_IO, "writing variable '%s' to '%s' failed: %s", v->name, tmp,
                   tess_h5_write_reason(tmp, why, sizeof why));
    if (d >= 0) H5Dclose(d);
    tess_h5_agree(sim->comm, s);
  }
  free(buf);
  return s->err;
}

tess_err tess_sim_snapshot(tess_sim_t sim, const char *path, int nvar, const tess_snap_var *vars,
                           int nattr, const tess_attr *attrs, const char *text) {
  TESS_CALL(check_args(sim, path, nvar, vars, nattr, attrs));
  tess_h5_status s = {0};
  char *tmp = NULL, why[256];
  hid_t file;
  if (!tess_h5_create(sim, path, &tmp, &file, &s)) {
    if (write_metadata(sim, file, nattr, attrs, text))
      TESS_H5_FAIL(&s, TESS_ERR_IO, "writing the attributes of '%s' failed: %s", tmp,
                   tess_h5_write_reason(tmp, why, sizeof why));
    hid_t g = -1;
    if (!tess_h5_agree(sim->comm, &s)) {
      g = tess_h5_group_create(file, "VTKHDF/PointData");
      if (g < 0)
        TESS_H5_FAIL(&s, TESS_ERR_IO, "cannot create group PointData in '%s': %s", tmp,
                     tess_h5_reason(why, sizeof why));
    }
    for (int i = 0; i < nvar && !tess_h5_agree(sim->comm, &s); i++)
      write_var(sim, g, &vars[i], tmp, &s);
    if (g >= 0) H5Gclose(g);
  }
  if (tess_h5_finish(sim, path, tmp, file, &s))
    return tess_error_trace(s.err, __FILE__, __LINE__, __func__);
  return TESS_OK;
}

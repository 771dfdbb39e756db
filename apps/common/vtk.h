/* vtk.h — snapshots of a run's fields that ParaView and VisIt open directly.
 *
 * The legacy VTK format (one header, then raw big-endian arrays) rather than XML .vti: it needs
 * no library, the file is the array bytes plus a few text lines, and any tool that reads VTK
 * reads it. One file holds every field of one instant, as point data on a uniform grid
 * (DATASET STRUCTURED_POINTS, which VTK loads as vtkImageData).
 *
 * Synchronous, runs on the calling thread, touches no runtime state: call it from one rank with
 * data already gathered to the host.
 */
#ifndef TESS_APPS_VTK_H
#define TESS_APPS_VTK_H

/* Writes the scalar fields of an nx x ny x nz grid as one legacy VTK file (version 3.0), binary.
 *
 *   fields[k]: [nz][ny][nx] float64, x fastest, i.e. fields[k][x + nx*(y + ny*z)], no ghosts;
 *              stored big-endian, as the legacy format requires, so they read back bit-exact.
 *   names[k]:  the array name ParaView shows; non-empty, printable ASCII without spaces or '%'
 *              (the legacy reader splits on whitespace and decodes %XX), distinct.
 *   h:         grid spacing per axis, finite and > 0; the origin is 0 0 0, so point (x, y, z)
 *              sits at (x h[0], y h[1], z h[2]).
 *   title:     the header's title line (e.g. "step 100 time 0.5"), may be NULL; line breaks
 *              become spaces and it is cut to the format's 255 characters.
 *
 * ParaView's legacy reader loads every field. A plain vtkStructuredPointsReader or
 * vtkDataSetReader loads only the first SCALARS block unless ReadAllScalarsOn() is called.
 *
 * Written atomically: to "<path>.tmp", flushed to disk, then rename(2)d over <path>; the
 * temporary is removed on any failure, so a half-written file never exists under <path>. Two
 * writers of the same path at once are not supported (they share the temporary).
 *
 * Returns 0, or -1 after printing "tessera: cannot write '<path>': <reason>" to stderr. */
int tess_vtk_write(const char *path, const char *title, int nx, int ny, int nz, const double h[3],
                   int nfields, const char *const *names, const double *const *fields);

#endif

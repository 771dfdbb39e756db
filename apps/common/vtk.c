/* vtk.c — legacy VTK snapshots (see vtk.h for the contract).
 *
 * The file, text lines then one binary block per field:
 *
 *     # vtk DataFile Version 3.0
 *     <title>
 *     BINARY
 *     DATASET STRUCTURED_POINTS
 *     DIMENSIONS nx ny nz
 *     ORIGIN 0 0 0
 *     SPACING hx hy hz               (%.17g: the doubles read back exactly)
 *     POINT_DATA nx*ny*nz
 *     SCALARS <name> double 1        \
 *     LOOKUP_TABLE default            | once per field
 *     <nx*ny*nz big-endian float64>   |
 *     "\n"                           /  (VTK's own writer ends each block so)
 *
 * The arrays are converted to big-endian through a fixed 64 KiB buffer, so memory does not grow
 * with the grid. The conversion takes bytes off a uint64_t by shifts, which is right on either
 * host byte order without asking which one this is.
 *
 * The temporary-file handling repeats that of image.c on purpose: each output format is one
 * file with no private header, and the two copies are a dozen lines each.
 */
#include "vtk.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(double) == 8, "the VTK writer stores IEEE-754 binary64 doubles");

enum { TESS_VTK_CHUNK = 8192 }; /* doubles per fwrite: a 64 KiB buffer */

static int tess_vtk_fail(const char *path, const char *reason) {
  fprintf(stderr, "tessera: cannot write '%s': %s\n", path, reason);
  return -1;
}

/* Why a name would not survive the legacy reader: it reads names with operator>> (whitespace
 * ends them) and decodes %XX escapes. Returns NULL when the name is fine. */
static const char *tess_vtk_bad_name(const char *name) {
  if (!name || !*name) return "is empty";
  for (const char *c = name; *c; c++) {
    if (*c <= ' ' || *c > '~') return "has a space or a non-printable character";
    if (*c == '%') return "has a '%'";
  }
  return NULL;
}

/* Appends n doubles to fp in big-endian order; returns 0, or an errno value. */
static int tess_vtk_put_doubles(FILE *fp, const double *v, size_t n, unsigned char *buf) {
  while (n > 0) {
    size_t m = n < TESS_VTK_CHUNK ? n : TESS_VTK_CHUNK;
    for (size_t i = 0; i < m; i++) {
      uint64_t u;
      memcpy(&u, &v[i], 8);
      for (int b = 0; b < 8; b++)
        buf[8 * i + (size_t)b] = (unsigned char)(u >> (56 - 8 * b));
    }
    if (fwrite(buf, 8, m, fp) != m) return errno ? errno : EIO;
    v += m;
    n -= m;
  }
  return 0;
}

/* Writes everything after fopen; returns 0, or an errno value. */
static int tess_vtk_put_file(FILE *fp, const char *title, const int n[3], const double h[3],
                             size_t npoints, int nfields, const char *const *names,
                             const double *const *fields, unsigned char *buf) {
  /* The title is one line of at most 255 characters (the reader's buffer is 256). */
  char line[256];
  size_t len = 0;
  for (const char *c = title ? title : ""; *c && len < sizeof line - 1; c++)
    line[len++] = (*c == '\n' || *c == '\r') ? ' ' : *c;
  line[len] = '\0';

  if (fprintf(fp,
              "# vtk DataFile Version 3.0\n%s\nBINARY\nDATASET STRUCTURED_POINTS\n"
              "DIMENSIONS %d %d %d\nORIGIN 0 0 0\nSPACING %.17g %.17g %.17g\nPOINT_DATA %zu\n",
              line, n[0], n[1], n[2], h[0], h[1], h[2], npoints) < 0)
    return errno ? errno : EIO;
  for (int k = 0; k < nfields; k++) {
    if (fprintf(fp, "SCALARS %s double 1\nLOOKUP_TABLE default\n", names[k]) < 0)
      return errno ? errno : EIO;
    int e = tess_vtk_put_doubles(fp, fields[k], npoints, buf);
    if (e) return e;
    if (fputc('\n', fp) == EOF) return errno ? errno : EIO;
  }
  /* fsync before rename: otherwise a crash soon after could leave <path> naming a file whose
   * blocks never reached the disk, the very half-written file the rename exists to prevent. */
  if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) return errno ? errno : EIO;
  return 0;
}

int tess_vtk_write(const char *path, const char *title, int nx, int ny, int nz, const double h[3],
                   int nfields, const char *const *names, const double *const *fields) {
  char reason[320];
  if (!path || !*path) return tess_vtk_fail(path ? path : "(null)", "no path given");
  if (nx < 1 || ny < 1 || nz < 1) {
    snprintf(reason, sizeof reason, "invalid grid %d x %d x %d", nx, ny, nz);
    return tess_vtk_fail(path, reason);
  }
  if (!h || !isfinite(h[0]) || !isfinite(h[1]) || !isfinite(h[2]) || !(h[0] > 0) || !(h[1] > 0) ||
      !(h[2] > 0)) {
    if (h)
      snprintf(reason, sizeof reason, "invalid spacing %g %g %g", h[0], h[1], h[2]);
    else
      snprintf(reason, sizeof reason, "no spacing given");
    return tess_vtk_fail(path, reason);
  }
  if (nfields < 1 || !names || !fields) return tess_vtk_fail(path, "no fields given");
  for (int k = 0; k < nfields; k++) {
    const char *why = tess_vtk_bad_name(names[k]);
    if (why) {
      snprintf(reason, sizeof reason, "field %d name '%.200s' %s", k, names[k] ? names[k] : "",
               why);
      return tess_vtk_fail(path, reason);
    }
    for (int j = 0; j < k; j++)
      if (!strcmp(names[j], names[k])) {
        snprintf(reason, sizeof reason, "field name '%.200s' given twice", names[k]);
        return tess_vtk_fail(path, reason);
      }
    if (!fields[k]) {
      snprintf(reason, sizeof reason, "field '%.200s' has no data", names[k]);
      return tess_vtk_fail(path, reason);
    }
  }
  /* Each factor is < 2^31, so the product fits 64 bits; size_t may be narrower. */
  uint64_t np = (uint64_t)nx * (uint64_t)ny * (uint64_t)nz;
  if (np > SIZE_MAX / 8) return tess_vtk_fail(path, "grid too large for this machine");
  size_t npoints = (size_t)np;

  size_t plen = strlen(path);
  char *tmp = malloc(plen + 5);
  unsigned char *buf = malloc((size_t)TESS_VTK_CHUNK * 8);
  if (!tmp || !buf) {
    free(tmp);
    free(buf);
    return tess_vtk_fail(path, strerror(ENOMEM));
  }
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp", 5);

  FILE *fp = fopen(tmp, "wb");
  if (!fp) {
    int e = errno;
    free(tmp);
    free(buf);
    return tess_vtk_fail(path, strerror(e));
  }
  const int n[3] = {nx, ny, nz};
  int e = tess_vtk_put_file(fp, title, n, h, npoints, nfields, names, fields, buf);
  free(buf);
  if (fclose(fp) != 0 && !e) e = errno ? errno : EIO;
  if (e) {
    snprintf(reason, sizeof reason, "%s", strerror(e));
  } else if (rename(tmp, path) != 0) {
    snprintf(reason, sizeof reason, "rename from '%.200s': %s", tmp, strerror(errno));
    e = -1;
  }
  if (e) remove(tmp);
  free(tmp);
  return e ? tess_vtk_fail(path, reason) : 0;
}

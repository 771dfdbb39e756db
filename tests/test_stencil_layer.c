/* test_stencil_layer.c — the stencil layer's CPU sweeps (codelets/stencil/cpu.h) on kernels whose
 * fields differ in component count, and cell functions that read where they are; no StarPU.
 *
 *   mixed counts   mix_vs (a 2-component state beside a 1-component coefficient) and mix_sv (a
 *                  2-component output of a 1-component source), tests/stencil_layer/layer_cell.h,
 *                  on 3D, 2D and 1D tiles (the sweep's specialised and general row loops), in
 *                  double and float, against serial loops written here with the same order of
 *                  operations: equal bit for bit.
 *   global index   `where` writes each cell's global index, its periodic image and its centre's x
 *                  coordinate; run on one 12 x 10 x 6 tile and on tiles of two decompositions,
 *                  each over its owned box grown by one ghost layer: every cell must hold the
 *                  values of its own global position (ghost cells outside [0, n) unwrapped,
 *                  wrapped in the second component), whatever the tile.
 *   CPU side only  host_sv (host_cell.h, built with no CUDA file) links in a CUDA build too, has
 *                  no GPU launcher in its record and gives mix_sv's bits.
 * Exit 0 when all hold, 1 with the first difference named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_kernel.h"

extern const tess_kernel tess_mix_vs_kernel, tess_mix_sv_kernel, tess_where_kernel;
extern const tess_kernel tess_host_sv_kernel; /* CPU sources only (host_kernels.c) */

#define IDX(d, nc, c, x, y, z) TESS_IDX((d)[0], (d)[1], nc, c, x, y, z)

static int fails;
static void fail(const char *what, int f32, const int n[3], int c, int x, int y, int z, double got,
                 double want) {
  if (fails++ < 5)
    fprintf(stderr,
            "test_stencil_layer: %s (%s, grid %dx%dx%d): comp %d cell (%d,%d,%d) = %.17g, "
            "expected %.17g\n",
            what, f32 ? "float" : "double", n[0], n[1], n[2], c, x, y, z, got, want);
}

/* The reference loops, per element type (the same arithmetic as layer_cell.h, in its order). */
#define REF(real, s)                                                                               \
  static void ref_vs_##s(const real *u, const real *a, real *o, const int d[3], const int g[3],    \
                         const int n[3]) {                                                         \
    for (int z = g[2]; z < g[2] + n[2]; z++)                                                       \
      for (int y = g[1]; y < g[1] + n[1]; y++)                                                     \
        for (int x = g[0]; x < g[0] + n[0]; x++)                                                   \
          for (int c = 0; c < 2; c++) {                                                            \
            const int ex = n[0] > 1, ey = n[1] > 1, ez = n[2] > 1;                                 \
            const real sum = ((u[IDX(d, 2, c, x + ex, y, z)] + u[IDX(d, 2, c, x - ex, y, z)]) +    \
                              (u[IDX(d, 2, c, x, y + ey, z)] + u[IDX(d, 2, c, x, y - ey, z)])) +   \
                             (u[IDX(d, 2, c, x, y, z + ez)] + u[IDX(d, 2, c, x, y, z - ez)]);      \
            const real v = u[IDX(d, 2, c, x, y, z)];                                               \
            o[IDX(d, 2, c, x, y, z)] = v + a[IDX(d, 1, 0, x, y, z)] * (sum - (real)6 * v);         \
          }                                                                                        \
  }                                                                                                \
  static void ref_sv_##s(const real *u, real *o, const int d[3], const int g[3], const int n[3]) { \
    for (int z = g[2]; z < g[2] + n[2]; z++)                                                       \
      for (int y = g[1]; y < g[1] + n[1]; y++)                                                     \
        for (int x = g[0]; x < g[0] + n[0]; x++) {                                                 \
          const int ex = n[0] > 1, ey = n[1] > 1;                                                  \
          const real v = u[IDX(d, 1, 0, x, y, z)];                                                 \
          o[IDX(d, 2, 0, x, y, z)] =                                                               \
              u[IDX(d, 1, 0, x + ex, y, z)] - u[IDX(d, 1, 0, x, y - ey, z)];                       \
          o[IDX(d, 2, 1, x, y, z)] = v * v;                                                        \
        }                                                                                          \
  }
REF(double, f64)
REF(float, f32)

static double val(const void *a, int f32, size_t i) {
  return f32 ? (double)((const float *)a)[i] : ((const double *)a)[i];
}

/* A tile of n owned cells and ghost width 1 on active axes: extents, ghosts, a region. */
static void tile(tess_region *r, const int n[3], const long off[3], const long glob[3], int f32) {
  memset(r, 0, sizeof *r);
  for (int a = 0; a < 3; a++) {
    r->ghost[a] = glob[a] > 1;
    r->dim[a] = n[a] + 2 * r->ghost[a];
    r->lo[a] = r->ghost[a], r->hi[a] = r->ghost[a] + n[a];
    r->origin[a] = off[a] - r->ghost[a], r->global[a] = glob[a];
    r->h[a] = 1.0 / (double)glob[a];
  }
  r->prec = f32 ? TESS_FP32 : TESS_FP64;
}

static void *field(const tess_region *r, int nc, int f32, unsigned seed) {
  const size_t cnt = (size_t)nc * r->dim[0] * r->dim[1] * r->dim[2];
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  unsigned char *a = malloc(cnt * es);
  if (!a) abort();
  for (size_t i = 0; i < cnt; i++) {
    seed = seed * 1103515245u + 12345u;
    const double v = 0.1 + (double)(seed >> 8 & 0xffff) / 65536.0;
    if (f32)
      ((float *)a)[i] = (float)v;
    else
      ((double *)a)[i] = v;
  }
  return a;
}

static void mixed(const int n[3], int f32) {
  const long zero[3] = {0, 0, 0}, glob[3] = {n[0], n[1], n[2]};
  tess_region r;
  tile(&r, n, zero, glob, f32);
  const size_t cells = (size_t)r.dim[0] * r.dim[1] * r.dim[2], es = f32 ? 4 : 8;
  void *u = field(&r, 2, f32, 1), *a = field(&r, 1, f32, 2), *s = field(&r, 1, f32, 3);
  void *o = calloc(2 * cells, es), *w = calloc(2 * cells, es);
  if (!o || !w) abort();
  /* mix_vs: in (u: 2, a: 1) -> out 2 */
  r.nin = 2, r.nout = 1, r.in_nc[0] = 2, r.in_nc[1] = 1, r.out_nc[0] = 2;
  r.in[0] = u, r.in[1] = a, r.out[0] = o;
  (f32 ? tess_mix_vs_kernel.cpu_f32 : tess_mix_vs_kernel.cpu)(&r);
  if (f32)
    ref_vs_f32(u, a, w, r.dim, r.lo, n);
  else
    ref_vs_f64(u, a, w, r.dim, r.lo, n);
  for (size_t i = 0; i < 2 * cells; i++)
    if (memcmp((char *)o + i * es, (char *)w + i * es, es))
      fail("mix_vs differs from the serial loop", f32, n, (int)(i / r.dim[0] % 2),
           (int)(i % r.dim[0]), 0, 0, val(o, f32, i), val(w, f32, i));
  /* mix_sv: in (s: 1) -> out 2 */
  memset(o, 0, 2 * cells * es), memset(w, 0, 2 * cells * es);
  r.nin = 1, r.in_nc[0] = 1, r.in[0] = s;
  (f32 ? tess_mix_sv_kernel.cpu_f32 : tess_mix_sv_kernel.cpu)(&r);
  if (f32)
    ref_sv_f32(s, w, r.dim, r.lo, n);
  else
    ref_sv_f64(s, w, r.dim, r.lo, n);
  for (size_t i = 0; i < 2 * cells; i++)
    if (memcmp((char *)o + i * es, (char *)w + i * es, es))
      fail("mix_sv differs from the serial loop", f32, n, (int)(i / r.dim[0] % 2),
           (int)(i % r.dim[0]), 0, 0, val(o, f32, i), val(w, f32, i));
  /* host_sv (a kernel with no CUDA side, in any build): the same bits as the serial loop */
  memset(o, 0, 2 * cells * es);
  (f32 ? tess_host_sv_kernel.cpu_f32 : tess_host_sv_kernel.cpu)(&r);
  for (size_t i = 0; i < 2 * cells; i++)
    if (memcmp((char *)o + i * es, (char *)w + i * es, es))
      fail("host_sv differs from the serial loop", f32, n, (int)(i / r.dim[0] % 2),
           (int)(i % r.dim[0]), 0, 0, val(o, f32, i), val(w, f32, i));
  free(u), free(a), free(s), free(o), free(w);
}

/* `where` on every tile of a split of the global grid into t[0] x t[1] x t[2] tiles. */
static void where(const int t[3], int f32) {
  const long glob[3] = {12, 10, 6};
  const int gn[3] = {12, 10, 6};
  for (int tz = 0; tz < t[2]; tz++)
    for (int ty = 0; ty < t[1]; ty++)
      for (int tx = 0; tx < t[0]; tx++) {
        const int ti[3] = {tx, ty, tz};
        int n[3];
        long off[3];
        for (int a = 0; a < 3; a++) {
          off[a] = glob[a] * ti[a] / t[a];
          n[a] = (int)(glob[a] * (ti[a] + 1) / t[a] - off[a]);
        }
        tess_region r;
        tile(&r, n, off, glob, f32);
        for (int a = 0; a < 3; a++) /* the owned box grown by the ghost layer */
          r.lo[a] = 0, r.hi[a] = r.dim[a];
        void *in = field(&r, 1, f32, 4), *o = field(&r, 3, f32, 5);
        r.nin = 1, r.nout = 1, r.in_nc[0] = 1, r.out_nc[0] = 3, r.in[0] = in, r.out[0] = o;
        (f32 ? tess_where_kernel.cpu_f32 : tess_where_kernel.cpu)(&r);
        for (int z = 0; z < r.dim[2]; z++)
          for (int y = 0; y < r.dim[1]; y++)
            for (int x = 0; x < r.dim[0]; x++) {
              const long g[3] = {r.origin[0] + x, r.origin[1] + y, r.origin[2] + z};
              long w[3];
              for (int a = 0; a < 3; a++)
                w[a] = (g[a] % glob[a] + glob[a]) % glob[a];
              const double want[3] = {(double)(g[0] + 1000 * g[1] + 1000000 * g[2]),
                                      (double)(w[0] + 1000 * w[1] + 1000000 * w[2]),
                                      ((double)g[0] + 0.5) * r.h[0]};
              for (int c = 0; c < 3; c++) {
                const double wc = f32 ? (double)(float)want[c] : want[c];
                const double got = val(o, f32, IDX(r.dim, 3, c, x, y, z));
                if (got != wc)
                  fail("where: not the cell's global position", f32, gn, c, x, y, z, got, wc);
              }
            }
        free(in), free(o);
      }
}

int main(void) {
  const int grids[][3] = {{12, 10, 6}, {12, 10, 1}, {12, 1, 1}, {7, 5, 3}};
  for (int f32 = 0; f32 < 2; f32++) {
    for (int g = 0; g < 4; g++)
      mixed(grids[g], f32);
    const int splits[][3] = {{1, 1, 1}, {2, 2, 1}, {3, 1, 2}};
    for (int s = 0; s < 3; s++)
      where(splits[s], f32);
  }
  if (tess_host_sv_kernel.cuda || tess_host_sv_kernel.cuda_f32) {
    fprintf(stderr,
            "test_stencil_layer: host_sv, built from CPU sources only, has a GPU launcher\n");
    fails++;
  }
  if (fails) {
    fprintf(stderr, "test_stencil_layer: %d differences\n", fails);
    return 1;
  }
  printf("test_stencil_layer: mixed component counts equal the serial loops bit for bit; cells "
         "see their global index on every tile; a CPU-only kernel links\n");
  return 0;
}

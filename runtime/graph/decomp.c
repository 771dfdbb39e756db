/* decomp.c — process grid, tile grid and Morton placement (see decomp.h and seed digest 2.3-2.4).
 *
 * Both grid choices enumerate every ordered factorisation p0*p1*p2 == count whose factors divide
 * the grid (equal blocks are a hard rule of the design), score it with a 64-bit cell count, and
 * keep the cheapest. The enumeration runs from the lexicographically largest p downwards and only
 * a strictly cheaper candidate replaces the incumbent, so ties go to the largest p: bigger factors
 * on x first. The ties that occur are permutations of one block shape (the cost is symmetric in
 * the block extents n_i/p_i), and this rule reproduces Tables A.1 and A.2 of the paper exactly
 * for every radius checked, r = 1..299 (so r = 1..4, the 2nd- to 8th-order stencils, all do):
 * the tables do not pin down the radius the authors used; r = 3 (6th order MHD) is our default.
 * Largest-first is also MPI_Dims_create's convention (non-increasing dims), so users see no new
 * surprise.
 *
 * The Morton placement deals the bits of a rank index over the axes round-robin. For a cube
 * grid with C_P a power of two, morton^-1(C_P - 1) + (1,1,1) is then the same P as the
 * decomposer picks, and each aligned group of 8 consecutive ranks is a 2x2x2 block, which is
 * why consecutive ranks are placed on one node.
 */
#include "decomp.h"

#include <stdint.h>

/* Which Eq. the cost follows. */
typedef enum { TESS_COST_PROCS, TESS_COST_TILES } tess_cost_kind;

/* GPU tiles: what one cut along axis i costs the z-marching kernels, per cell of the block's two
 * faces across i. A cut makes the tile's outer classes slabs r_i cells thick: across z they are
 * whole planes, which the kernels march like the inner box (and whose halos are contiguous);
 * across y they fill a few of a thread block's rows; across x a few of its 32-64 columns, and
 * their halos are rows of r elements. The weights are the MHD kernel's time per cell on such slabs
 * (one H100, 256^2 x 3 slabs, fp64: x 0.99, y 0.46-0.61, z 0.27 ns; bench/results/
 * 2026-11-25-h100-mhd-kernel-floor.txt); on 4 H200s the z-first cut made MHD 512^3 1.22x and
 * CH 512^3 2.6x faster than the paper's 2x2x1 (2026-11-27-h200x4-zcut.txt). CPU ranks' blocks
 * are cut the same way: their x halos are also rows of r elements, a cache line each to pack
 * and unpack; on 16 cores, heat 128^3 and 256^3, 16 ranks of one worker ran 0.70-0.87x the time
 * on 1x4x4 as on the paper's 4x2x2, and 8 ranks of two 0.54-0.82x on 1x2x4 as on 2x2x2
 * (2026-12-06-h100-cpu-procs.csv). CPU tiles within a rank are cut the same way: on 2
 * cores, 8 tiles on 1x2x4 against the paper's 2x2x2: MHD 64^3 0.85-0.95x the time in 5 paired
 * rounds, heat order 2 128^3 median 0.66x (5 rounds), heat order 6 96^3 median 0.93x and 1.05x
 * in two runs (9 and 5 rounds; 0.53-1.69x round by round), its buffered path 0.62-0.96x in all
 * 9 rounds of one run (2026-12-07-cpu2-tile-cut.txt). */
static const int64_t gpu_axis_weight[3] = {4, 2, 1};

/* Cells of one block, with each axis extended by ext[i]. */
static int64_t tess_cells(const int n[3], const int p[3], const int ext[3]) {
  int64_t c = 1;
  for (int i = 0; i < 3; i++)
    c *= (int64_t)(n[i] / p[i] + ext[i]);
  return c;
}

/* Eq. 7 without its factor 2 (it does not change the argmin), or Eq. 12's Q_inter. An axis of
 * extent 1 is a 2D/1D problem: it has no halo at all. */
static int64_t tess_cost(const int n[3], const int p[3], const int r[3], const int periodic[3],
                         tess_cost_kind kind) {
  int halo[3], inner[3];
  for (int i = 0; i < 3; i++) {
    /* a non-periodic axis has no halo at its two physical faces: the worst block has halos on
     * both sides only from 3 blocks on, on one side with 2, on none when the axis is not cut */
    const int sides = periodic[i] ? 2 : p[i] >= 3 ? 2 : p[i] - 1;
    halo[i] = n[i] > 1 ? sides * r[i] : 0;
    /* C_N' for the node level; C_L'' for tiles: only cut axes give a neighbour tile in the same
     * node, reached over the cheaper intra-node links, and only on r cells per side. */
    inner[i] = kind == TESS_COST_TILES && p[i] >= 2 ? r[i] : 0;
  }
  return tess_cells(n, p, halo) - tess_cells(n, p, inner);
}

/* The GPU cost of cutting n into blocks n/p: the weighted cells of the faces across each cut;
 * a block thinner than 2 r_i along a cut axis (which the runtime refuses) ranks after all others.
 */
static int64_t tess_cost_gpu(const int n[3], const int p[3], const int r[3]) {
  int64_t c = 0;
  for (int i = 0; i < 3; i++)
    if (p[i] >= 2 && n[i] / p[i] < 2 * r[i]) return INT64_MAX;
  for (int i = 0; i < 3; i++) {
    if (p[i] < 2) continue; /* p_i divides n_i: a flat axis is never cut */
    int64_t face = 2 * (int64_t)r[i];
    for (int j = 0; j < 3; j++)
      if (j != i) face *= n[j] / p[j];
    c += gpu_axis_weight[i] * face;
  }
  return c;
}

/* gpu: rank by tess_cost_gpu first, then by the paper's cost. */
static int tess_decomp_best(const int n[3], int count, const int radius[3], const int periodic[3],
                            tess_cost_kind kind, int gpu, int p[3]) {
  if (count < 1 || radius[0] < 0 || radius[1] < 0 || radius[2] < 0 || n[0] < 1 || n[1] < 1 ||
      n[2] < 1)
    return -1;
  int found = 0;
  int64_t best = 0, best_gpu = 0;
  int best_thin = 0;
  for (int p0 = count; p0 >= 1; p0--) {
    if (count % p0 || n[0] % p0) continue;
    int rest = count / p0;
    for (int p1 = rest; p1 >= 1; p1--) {
      if (rest % p1 || n[1] % p1 || n[2] % (rest / p1)) continue;
      const int q[3] = {p0, p1, rest / p1};
      /* a block thinner than 2 r_i across a cut axis is refused by the runtime: any block
       * that fits ranks before it */
      int thin = 0;
      for (int i = 0; i < 3; i++)
        thin |= q[i] >= 2 && n[i] / q[i] < 2 * radius[i];
      const int64_t cost = tess_cost(n, q, radius, periodic, kind);
      const int64_t cost_gpu = gpu ? tess_cost_gpu(n, q, radius) : 0;
      if (!found || thin < best_thin || (thin == best_thin && cost_gpu < best_gpu) ||
          (thin == best_thin && cost_gpu == best_gpu && cost < best)) {
        best_thin = thin;
        found = 1;
        best = cost;
        best_gpu = cost_gpu;
        for (int i = 0; i < 3; i++)
          p[i] = q[i];
      }
    }
  }
  return found ? 0 : -1;
}

static const int all_periodic[3] = {1, 1, 1};

int tess_decomp_procs(const int n[3], int count, int radius, int p[3]) {
  const int r[3] = {radius, radius, radius};
  return tess_decomp_best(n, count, r, all_periodic, TESS_COST_PROCS, 0, p);
}

int tess_decomp_tiles(const int n[3], int count, int radius, int p[3]) {
  const int r[3] = {radius, radius, radius};
  return tess_decomp_best(n, count, r, all_periodic, TESS_COST_TILES, 0, p);
}

int tess_decomp_procs_axes(const int n[3], int count, const int r[3], int gpu, int p[3]) {
  return tess_decomp_best(n, count, r, all_periodic, TESS_COST_PROCS, gpu, p);
}

int tess_decomp_tiles_axes(const int n[3], int count, const int r[3], int gpu, int p[3]) {
  return tess_decomp_best(n, count, r, all_periodic, TESS_COST_TILES, gpu, p);
}

int tess_decomp_procs_walls(const int n[3], int count, const int r[3], const int periodic[3],
                            int gpu, int p[3]) {
  return tess_decomp_best(n, count, r, periodic, TESS_COST_PROCS, gpu, p);
}

int tess_decomp_tiles_walls(const int n[3], int count, const int r[3], const int periodic[3],
                            int gpu, int p[3]) {
  return tess_decomp_best(n, count, r, periodic, TESS_COST_TILES, gpu, p);
}

static int tess_is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

static int tess_log2(int v) {
  int b = 0;
  while ((1 << b) < v)
    b++;
  return b;
}

int tess_decomp_is_pow2(const int p[3]) {
  return tess_is_pow2(p[0]) && tess_is_pow2(p[1]) && tess_is_pow2(p[2]);
}

void tess_decomp_coord(const int p[3], int k, int c[3]) {
  if (!tess_decomp_is_pow2(p)) {
    c[0] = k % p[0];
    c[1] = k / p[0] % p[1];
    c[2] = k / p[0] / p[1];
    return;
  }
  const int bits[3] = {tess_log2(p[0]), tess_log2(p[1]), tess_log2(p[2])};
  int used[3] = {0, 0, 0};
  c[0] = c[1] = c[2] = 0;
  /* Round-robin over the axes that still have bits to take; bit j of k goes to the next one. */
  for (int j = 0, a = 0; j < bits[0] + bits[1] + bits[2]; a = (a + 1) % 3) {
    if (used[a] == bits[a]) continue;
    c[a] |= ((k >> j) & 1) << used[a];
    used[a]++;
    j++;
  }
}

int tess_decomp_index(const int p[3], const int c[3]) {
  if (!tess_decomp_is_pow2(p)) return c[0] + p[0] * (c[1] + p[1] * c[2]);
  const int bits[3] = {tess_log2(p[0]), tess_log2(p[1]), tess_log2(p[2])};
  int used[3] = {0, 0, 0}, k = 0;
  for (int j = 0, a = 0; j < bits[0] + bits[1] + bits[2]; a = (a + 1) % 3) {
    if (used[a] == bits[a]) continue;
    k |= ((c[a] >> used[a]) & 1) << j;
    used[a]++;
    j++;
  }
  return k;
}

void tess_morton_decode3(unsigned k, int c[3]) {
  c[0] = c[1] = c[2] = 0;
  for (int j = 0; j < 32; j++)
    c[j % 3] |= (int)((k >> j) & 1u) << (j / 3);
}

/* cuda_walls.cuh — a lone walled tile's ghost fills done by the stencil layer's CUDA paths
 * (tess_region.walls: the runtime hands a kernel that opts in the face fills of its input 0
 * instead of launching them itself, runtime/graph/tasks.c). Every value comes from tessera_bc.h's
 * formula with the arguments the runtime's fill gives it (runtime/graph/boundary_cuda.cu), so
 * the bits are the same whichever fills.
 *
 * How each path gets its ghosts:
 *   zk (cuda_staged.cuh)  where the blocks' rows divide the tile's (a thread's own cells are
 *                         then never ghosts): x and y written into each plane's shared-memory
 *                         window as it lands, from the owned cells it holds (tess_slot_patch),
 *                         since a ghost column along x costs a 32-byte sector per cell to fill
 *                         in memory; z: the ghost planes a block copies, written to memory by
 *                         the block first (tess_walls_fill). The ghost layer is the kernel's
 *                         scratch (tess_region): its x and y ghosts are left as they were.
 *   any other path        one launch over every wall's ghost cells first (tess_stencil_walls,
 *                         cuda.cuh), as the runtime's fill would.
 */
#ifndef TESS_STENCIL_CUDA_WALLS_CUH
#define TESS_STENCIL_CUDA_WALLS_CUH

#include "stencil.h"
#include "tessera_bc.h"

namespace {

/* Ghost k of wall w from u_0, u_1 (read by outflow only) and u_{k-1} along its normal. */
template <typename T>
__device__ __forceinline__ T tess_wall_value(const tess_wall &w, int k, T u0, T u1, T uk) {
  const double a0 = w.kind == TESS_BC_OUTFLOW ? (double)u0 : 0.0;
  const double a1 = w.kind == TESS_BC_OUTFLOW ? (double)u1 : 0.0;
  return (T)tess_bc_ghost(w.kind, k, w.value, a0, a1, (double)uk);
}

/* Ghost cell (x, y, z) (padded coordinates) of wall w of input 0: its value; *at its element.
 * No array is indexed by the axis (it would live in local memory): selects instead. */
template <typename T>
__device__ __forceinline__ T tess_wall_cell(const tess_stencil_plan &p, const tess_wall &w, int x,
                                            int y, int z, long long &at) {
  const T *u = (const T *)p.in[0];
  const int pa = w.axis == 0 ? x : w.axis == 1 ? y : z;
  const long long s = w.axis == 0 ? p.ipos[0][0] : w.axis == 1 ? p.ipos[0][1] : p.ipos[0][2];
  at = x + y * p.ipos[0][1] + z * p.ipos[0][2];
  const int k = w.side * (pa - w.face);
  const long long u0 = at + (long long)(w.face - pa) * s, in = -(long long)w.side * s;
  return tess_wall_value<T>(w, k, u[u0], u[u0 + in], u[u0 + (long long)(k - 1) * in]);
}

/* The ghost cells inside the box [lo, hi) (padded coordinates) of the walls whose axis is in
 * `axes` (bit a: axis a), by threads tid of nt, into input 0's ghost layer. A wall covers the
 * owned cells of its tangential axes only (tess_region.walls: no edges). Four cells a thread in
 * flight: their reads are issued before the writes (a write may alias a later read, so the
 * compiler would not reorder them). */
template <typename T>
__device__ __forceinline__ void tess_walls_fill(const tess_stencil_plan &p, const int lo[3],
                                                const int hi[3], unsigned axes, int tid, int nt) {
  constexpr int F = 4;
  T *u = (T *)p.in[0]; /* the input's ghost layer is the kernel's to fill */
  for (int i = 0; i < p.nwall; i++) {
    const tess_wall w = p.wall[i];
    if (!(axes >> w.axis & 1)) continue;
    int b[3], e[3];
#pragma unroll
    for (int a = 0; a < 3; a++) {
      int l = p.ghost[a], h = p.dim[a] - p.ghost[a];
      if (a == w.axis) l = w.side < 0 ? w.face - w.depth : w.face + 1, h = l + w.depth;
      b[a] = max(l, lo[a]);
      e[a] = min(h, hi[a]) - b[a];
    }
    if (e[0] <= 0 || e[1] <= 0 || e[2] <= 0) continue;
    const int cells = e[0] * e[1] * e[2];
    for (int j0 = tid; j0 < cells; j0 += F * nt) {
      T v[F];
      long long at[F];
#pragma unroll
      for (int f = 0; f < F; f++) {
        const int j = min(j0 + f * nt, cells - 1), r = j / e[0]; /* past the end: a repeat */
        v[f] =
            tess_wall_cell<T>(p, w, b[0] + (j - r * e[0]), b[1] + r % e[1], b[2] + r / e[1], at[f]);
      }
#pragma unroll
      for (int f = 0; f < F; f++)
        if (j0 + f * nt < cells) u[at[f]] = v[f];
    }
  }
}

/* The x and y walls' ghost cells in a block's plane window (a slot of WS x H elements, element
 * (c, r) at padded (bx + c, by + r)), as segments of columns x rows: built once per block
 * (tess_slot_walls_make), then every landed plane is patched in place (tess_slot_patch). */
struct tess_slot_seg {
  int first;          /* the segment's first cell in the block's patch list */
  int c0, r0, ncol;   /* its box in the slot */
  int axis, side, fs; /* the wall's normal (0: x, 1: y), side, and u_0's slot column / row */
  int kind, depth;
  double value;
};
struct tess_slot_walls {
  int n, total;
  tess_slot_seg s[4];
};

/* Thread 0 builds it (in shared memory); the caller synchronizes. Cells the window does not
 * copy (beyond the reach of the region) are left out. */
__device__ __forceinline__ void tess_slot_walls_make(const tess_stencil_plan &p, int bx, int by,
                                                     int WS, int H, int R, tess_slot_walls &sw) {
  sw.n = sw.total = 0;
  const int xe = min(bx + WS, p.lo[0] + p.n[0] + R), ye = min(by + H, p.lo[1] + p.n[1] + R);
  for (int i = 0; i < p.nwall; i++) {
    const tess_wall &w = p.wall[i];
    if (w.axis > 1) continue;
    int l[2], h[2];
    for (int a = 0; a < 2; a++) {
      l[a] = p.ghost[a], h[a] = p.dim[a] - p.ghost[a];
      if (a == w.axis) l[a] = w.side < 0 ? w.face - w.depth : w.face + 1, h[a] = l[a] + w.depth;
    }
    const int x0 = max(l[0], bx), x1 = min(h[0], xe), y0 = max(l[1], by), y1 = min(h[1], ye);
    if (x0 >= x1 || y0 >= y1) continue;
    tess_slot_seg &g = sw.s[sw.n++];
    g = tess_slot_seg{
        sw.total, x0 - bx, y0 - by, x1 - x0, w.axis, w.side, w.face - (w.axis ? by : bx),
        w.kind,   w.depth, w.value};
    sw.total += (x1 - x0) * (y1 - y0);
  }
}

/* A thread's share of a block's patch list, P cells at most (the list is the same for every
 * plane, so it is decoded once): each cell's slot element, its u_0, the step inward along the
 * normal, its ghost index k (0: no cell) and its segment (for the kind and value). */
template <int P> struct tess_slot_patch {
  int at[P], u0[P], in[P], k[P], seg[P];

  __device__ __forceinline__ tess_slot_patch(const tess_slot_walls &sw, int W, int tid, int nt,
                                             bool on) {
#pragma unroll
    for (int q = 0; q < P; q++) {
      const int i = tid + q * nt;
      k[q] = 0, at[q] = u0[q] = in[q] = seg[q] = 0;
      if (!on || i >= sw.total) continue; /* off: sw is never read */
      int s = 0;
      while (s + 1 < sw.n && i >= sw.s[s + 1].first)
        s++;
      const tess_slot_seg &g = sw.s[s];
      const int j = i - g.first, r = g.r0 + j / g.ncol, c = g.c0 + j % g.ncol;
      const int a = g.axis ? r : c, step = g.axis ? W : 1;
      seg[q] = s, k[q] = g.side * (a - g.fs), at[q] = r * W + c;
      u0[q] = at[q] + (g.fs - a) * step, in[q] = -g.side * step;
    }
  }

  /* Writes the cells into a landed plane's slot from its owned cells. It reads owned cells only
   * and writes ghosts only, so it may run while other threads read the slot's owned cells; the
   * ghosts are read after the next barrier. */
  template <typename T>
  __device__ __forceinline__ void apply(T *slot, const tess_slot_walls &sw) const {
#pragma unroll
    for (int q = 0; q < P; q++)
      if (k[q]) {
        const tess_slot_seg &g = sw.s[seg[q]];
        const tess_wall w = {g.kind, g.axis, g.side, g.fs, g.depth, g.value};
        slot[at[q]] = tess_wall_value<T>(w, k[q], slot[u0[q]], slot[u0[q] + in[q]],
                                         slot[u0[q] + (k[q] - 1) * in[q]]);
      }
  }
};

} // namespace

#endif

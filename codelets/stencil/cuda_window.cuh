/* cuda_window.cuh — what the staged z-marches of the stencil layer (cuda_staged.cuh) copy into
 * shared memory and how: a block's plane window with its ring (tess_flat: element by element;
 * tess_pairs: pairs that device memory aligns, for two cells a thread along x), the cp.async
 * copies behind them, the ring cells of a two-level kernel's inner values, and the periodic wrap
 * of a lone tile folded into the copy pointers (tess_wrap_rc, tess_zwrap). Device code only;
 * included by cuda_staged.cuh. */
#ifndef TESS_STENCIL_CUDA_WINDOW_CUH
#define TESS_STENCIL_CUDA_WINDOW_CUH

#include "stencil.h"

namespace {

/* ---- z-march with staged inputs (3D) -----------------------------------------------------------
 * A block owns a column of cells and walks up to zc planes along z. cp.async copies each plane,
 * with a ring of R cells around the block, into a ring of shared slots D planes ahead (one read
 * of device memory per cell and input, no registers held by the reads in flight); each thread
 * keeps its own cells' values along z in a register ring. */

/* The cell at window coordinates (lx, ly) of a ring-r window of width BX + 2r, for h < ring size:
 * r rows above, r rows below, then r cells left and right of each of the BY middle rows. */
template <int BX, int BY, int r>
__device__ __forceinline__ void tess_ring_pos(int h, int &lx, int &ly) {
  constexpr int W = BX + 2 * r;
  if (h < 2 * r * W) {
    const int row = h / W;
    lx = h - row * W;
    ly = row < r ? row : BY + row;
  } else {
    const int j = h - 2 * r * W, c = j % (2 * r);
    ly = r + j / (2 * r);
    lx = c < r ? c : BX + c;
  }
}

/* A ring-r window around a block of BX x BY cells: its width, height and ring cells. */
template <int BX, int BY, int r> struct tess_ring {
  static constexpr int W = BX + 2 * r, H = BY + 2 * r, N = W * H - BX * BY;
};

/* Periodic wrap of region coordinate c along axis a (WR: tess_region.wrap), else c itself. */
template <bool WR>
__device__ __forceinline__ int tess_wrap_rc(const tess_stencil_plan &p, int a, int c) {
  if constexpr (WR)
    return tess_wrap(p.lo[a] + c, p.ghost[a], p.dim[a]) - p.lo[a];
  else
    return c;
}

/* The z-march's plane counter under wrap: pointers formed at the image of plane z (wrapped
 * once, tess_wrap_rc) move up one plane a step and back by the owned extent when they pass the
 * top of the owned box; kz is the padded z of the plane they point at. */
template <bool WR> struct tess_zwrap {
  int kz;
  __device__ __forceinline__ tess_zwrap(const tess_stencil_plan &p, int z) {
    kz = p.lo[2] + tess_wrap_rc<WR>(p, 2, z);
  }
  /* the pointers' step for this plane: sz, or sz minus the owned extent's planes */
  __device__ __forceinline__ long long step(const tess_stencil_plan &p, long long sz) {
    if constexpr (WR) {
      const int top = p.dim[2] - p.ghost[2];
      if (++kz == top) {
        kz = p.ghost[2];
        return sz - (long long)(top - p.ghost[2]) * sz;
      }
    }
    return sz;
  }
};

/* Device-memory element of region cell (x, y, z) of input f, component comp. */
template <typename T>
__device__ __forceinline__ const T *tess_elem(const tess_stencil_plan &p, int f, int comp, int x,
                                              int y, int z) {
  return (const T *)p.in[f] + (p.lo[0] + x) + (long long)(p.lo[1] + y) * p.pos[1] +
         (long long)(p.lo[2] + z) * p.pos[2] + (long long)comp * p.sc;
}

/* Asynchronous copies of one element into shared memory (cp.async, sm_80 on), in groups. */
template <typename T> __device__ __forceinline__ void tess_cp(T *smem, const T *g) {
  asm volatile(
      "cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(smem)),
      "l"(g), "n"(sizeof(T)));
}
/* A hint: bring the line of g into L2 (no register waits for it). */
__device__ __forceinline__ void tess_prefetch_l2(const void *g) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(g));
}
__device__ __forceinline__ void tess_cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void tess_cp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__host__ __device__ constexpr int tess_gcd(int a, int b) { return b ? tess_gcd(b, a % b) : a; }
__host__ __device__ constexpr int tess_lcm(int a, int b) { return a / tess_gcd(a, b) * b; }
/* Planes in flight for radius R when the launch does not say (D = 0): the slot ring (R + 1 + D
 * planes) then is a multiple of the register queue (2R + 1), so one unrolled round of the z
 * loop puts every slot and queue index at a compile-time constant. */
__host__ __device__ constexpr int tess_depth(int R, int D) { return D ? D : R >= 2 ? R : 4 * R; }

/* A block's plane window of element copies: rows y0 - r .. y0 + BY + r - 1, WS = BX + 2r columns
 * from region x xs; thread t copies elements t, t + NT, ... keeping 32-bit offsets from the
 * plane's base pointer (x / y wrap folded in once: offsets stay within one plane, so the launch
 * needs planes of at most INT_MAX elements) and a mask of those inside the reach. */
template <typename T, int BX, int BY, int r, int NT, bool WR = false> struct tess_flat {
  static constexpr int WS = BX + 2 * r, H = BY + 2 * r, N = WS * H;
  static constexpr int SL = (N + NT - 1) / NT;
  static_assert(SL <= 32, "one mask bit per element a thread");
  const T *base; /* region cell (0, 0) of the plane to copy next (under WR: of its image) */
  int off[SL], t;
  unsigned ok;
  tess_zwrap<WR> zw;
  __device__ __forceinline__ tess_flat(const tess_stencil_plan &p, int xs, int y0, int z, int tid)
      : t(tid), zw(p, z) {
    base = tess_elem<T>(p, 0, 0, 0, 0, tess_wrap_rc<WR>(p, 2, z));
    ok = 0;
    for (int s = 0; s < SL; s++) {
      const int e = tid + s * NT, row = e / WS, gx = xs + e - row * WS, gy = y0 - r + row;
      const bool in = e < N && gx < p.n[0] + r && gy < p.n[1] + r;
      ok |= (unsigned)in << s;
      off[s] = in ? tess_wrap_rc<WR>(p, 0, gx) + tess_wrap_rc<WR>(p, 1, gy) * (int)p.pos[1] : 0;
    }
  }
  /* NC components of the field (planes p.sc elements apart in device memory), each to its own
   * window, PL elements apart in w */
  template <int NC = 1, int PL = 0>
  __device__ __forceinline__ void copy(const tess_stencil_plan &p, T *w, bool go, long long sz) {
    if (go)
#pragma unroll
      for (int c = 0; c < NC; c++)
        for (int s = 0; s < SL; s++)
          if (ok >> s & 1) tess_cp(w + c * PL + t + s * NT, base + c * p.sc + off[s]);
    base += zw.step(p, sz);
  }
};

/* ---- pairs (tess_stencil_zp2, cuda_staged.cuh) ----------------------------------------------- */

template <typename T> struct tess_pair_of;
template <> struct tess_pair_of<double> { typedef double2 V; };
template <> struct tess_pair_of<float> { typedef float2 V; };

/* Asynchronous copy of one pair: n of its 2 sizeof(T) bytes from g, the rest zero-filled. */
template <typename T> __device__ __forceinline__ void tess_cp_pair(T *smem, const T *g, int n) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  if constexpr (sizeof(T) == 8)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(g), "r"(n));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(g), "r"(n));
}

/* Asynchronous copy of one element: n of its sizeof(T) bytes from g (n = 0: zero-filled). */
template <typename T> __device__ __forceinline__ void tess_cp_elem(T *smem, const T *g, int n) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(g), "n"(sizeof(T)),
               "r"(n));
}

/* A block's plane window of pairs: rows y0 - r .. y0 + BY + r - 1, WS columns starting at the
 * pair-aligned region x xs (the ring r, plus one column when r is odd so that the own pairs stay
 * aligned). Each of NT threads copies up to SL pairs a plane. */
template <typename T, int BX, int BY, int r, int NT, bool WR = false> struct tess_pairs {
  static constexpr int P = r & 1, WS = BX + 2 * r + 2 * P, H = BY + 2 * r, NP = WS / 2 * H;
  static constexpr int SL = (NP + NT - 1) / NT;
  const T *src[SL];
  int dst[SL], nb[SL]; /* nb: bytes to read (0: none) */
  /* WR: a pair whose images are not one aligned pair (it straddles the x seam, or the owned
   * extent is odd) is copied as two elements, the second from src + d1 (d1 = 0: a pair) */
  int d1[SL];
  tess_zwrap<WR> zw;
  __device__ __forceinline__ tess_pairs(const tess_stencil_plan &p, int xs, int y0, int z, int tid)
      : zw(p, z) {
    const int zi = tess_wrap_rc<WR>(p, 2, z);
    for (int s = 0; s < SL; s++) {
      const int i = tid + s * NT, row = i / (WS / 2), pc = i - row * (WS / 2);
      const int gx = xs + 2 * pc, gy = y0 - r + row;
      /* a pair reaching into [-r, n + r) along x (its low half may lie before -r: still inside
       * the row, the pair of lo[0] - r starting at lo[0] - r - 1 >= 0 at the lowest) */
      const bool ok = i < NP && gy < p.n[1] + r && gx + 1 >= -r && gx < p.n[0] + r;
      nb[s] = !ok ? 0 : gx + 1 < p.n[0] + r ? 2 * (int)sizeof(T) : (int)sizeof(T);
      dst[s] = row * WS + 2 * pc;
      const int wx = ok ? tess_wrap_rc<WR>(p, 0, gx) : 0;
      src[s] = tess_elem<T>(p, 0, 0, wx, ok ? tess_wrap_rc<WR>(p, 1, gy) : 0, zi);
      d1[s] = 0;
      if constexpr (WR) {
        const int wx1 = nb[s] > (int)sizeof(T) ? tess_wrap_rc<WR>(p, 0, gx + 1) : wx + 1;
        if (ok && (wx1 != wx + 1 || ((wx - gx) & 1))) d1[s] = wx1 - wx;
      }
    }
  }
  __device__ __forceinline__ void copy(const tess_stencil_plan &p, T *w, bool go, long long sz) {
    if (go)
      for (int s = 0; s < SL; s++)
        if (nb[s]) {
          if (WR && d1[s]) { /* two elements; the second zero-filled past the reach */
            tess_cp_elem(w + dst[s], src[s], (int)sizeof(T));
            tess_cp_elem(w + dst[s] + 1, src[s] + d1[s], nb[s] - (int)sizeof(T));
          } else {
            tess_cp_pair(w + dst[s], src[s], nb[s]);
          }
        }
    const long long d = zw.step(p, sz);
    for (int s = 0; s < SL; s++)
      src[s] += d;
  }
};

/* Loads n pairs from shared memory at w (pair-aligned) into v[0 .. 2n-1]. */
template <typename T, int n> __device__ __forceinline__ void tess_ld_pairs(T *v, const T *w) {
  typedef typename tess_pair_of<T>::V V;
#pragma unroll
  for (int i = 0; i < n; i++) {
    const V a = ((const V *)w)[i];
    v[2 * i] = a.x, v[2 * i + 1] = a.y;
  }
}

/* The two results of a thread to device memory: one pair store where both are its own. */
template <typename T>
__device__ __forceinline__ void tess_st_pair(T *o, const T *res, bool m0, bool m1) {
  typedef typename tess_pair_of<T>::V V;
  if (m0 && m1) {
    V v;
    v.x = res[0], v.y = res[1];
    *(V *)o = v;
  } else {
    if (m0) o[0] = res[0];
    if (m1) o[1] = res[1];
  }
}

} // namespace

#endif

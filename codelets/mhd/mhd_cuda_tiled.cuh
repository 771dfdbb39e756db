/* mhd_cuda_tiled.cuh — the MHD tiled kernel: one block per (x, y) tile marching along z through
 * a ring of planes in shared memory, filled with cp.async element copies one step ahead
 * (mhd_cuda.cu's header says what it measured and when it is taken). Its geometry (tile_geom),
 * work items (tile_of), copy plan, accessor and per-step compute are shared with the
 * tensor-copy march (mhd_cuda_tma.cuh). Part of mhd_cuda.cu, which includes it inside namespace
 * tess_mhd_gpu after mhd_cuda_cell.cuh; not a header of its own. */

/* ---- tiled kernel ------------------------------------------------------------------------- */

/* Shared-memory layout, in elements of T after the exp table (TAB elements: 256 words for
 * double, 32 for float). Ring slot (one plane z, 8 slots, slot z & 7): ux, uy, uz, ax, ay, az
 * (ridx order), each [X0-3, X0+TX+3) x [Y0-3, Y0+TY+3) with pitch W. Centre slot (2 slots,
 * z & 1): lnrho, ss, the same shape. MINB: the blocks per SM the kernel is built for: 2 where
 * two fit in the 228 KiB of an sm_90 SM (1 KiB reserved per block), which caps registers at 128
 * per thread. XM >= 0: the tensor-copy march (mhd_tiled_tma_kernel; XM = the padded row's X mod
 * 4): rows W = TX + 12 wide, each rectangle at FULL >= W H elements from the last (128 bytes
 * apart), the column X0 - 3 sig + XS(c) elements into its row, and 8 mbarriers at byte BAR0. */
template <int TX, int TY, class T, int XM = -1> struct tile_geom {
  static constexpr bool TM = XM >= 0;
  static constexpr int NT = TX * TY, NW = NT / 32, W = TM ? TX + 12 : TX + 6, H = TY + 6,
                       AREA = W * H, FULL = TM ? (AREA + 31) / 32 * 32 : AREA;
  static constexpr int RS = 6 * FULL, CS = 2 * FULL;
  static constexpr int TAB = exp_words<T>() * (int)(sizeof(unsigned long long) / sizeof(T));
  static constexpr int RING0 = TAB, CEN0 = RING0 + 8 * RS, TOTAL = CEN0 + 2 * CS;
  static constexpr int BAR0 = TOTAL * (int)sizeof(T); /* TM: the ring slots' mbarriers (bytes) */
  static constexpr size_t SMEM = (size_t)BAR0 + (TM ? 8 * 8 : 0);
  static constexpr int MINB = 2 * (SMEM + 1024) <= 228 * 1024 ? 2 : 1;
  /* position of component c (ux, uy, uz, ax, ay, az) in a ring slot */
  static constexpr __host__ __device__ int ridx(int c) { return c < 4 ? c - 1 : c - 2; }
  /* TM: how much further in component c's data sits in its box (tma_boxes) */
  static constexpr __host__ __device__ int XS(int c) { return XM == 2 && (c & 1) ? 2 : 0; }
  static_assert(NT % 32 == 0, "whole warps");
  static_assert(!TM || ((RING0 * sizeof(T)) % 128 == 0 && (FULL * sizeof(T)) % 128 == 0 &&
                        (W * sizeof(T)) % 16 == 0 && BAR0 % 8 == 0),
                "tensor copies land 128-byte aligned, in rows of 16-byte multiples");
};

struct tile_item {
  int X0, Y0, z0, z1;
};

/* Block b's tile and planes: item b (tile b mod ntx nty, chunk b / ntx nty) while b < full;
 * past it piece (b - full) / tail of item full + (b - full) mod tail, tail = items - full. The
 * pieces of the last wave's items go piece by piece, so blocks running at once march
 * neighbouring tiles at the same planes (their halo rows shared in L2). */
template <int TX, int TY, class T> TMG_HD tile_item tile_of(const kparams<T> &p, int b) {
  int i = b, piece = -1;
  if (b >= p.full) {
    const int tail = p.items - p.full;
    piece = (b - p.full) / tail;
    i = p.full + (b - p.full) % tail;
  }
  const int tiles = p.ntx * p.nty;
  const int zc = i / tiles, t = i - zc * tiles;
  const int ty = t / p.ntx, tx = t - ty * p.ntx;
  tile_item it;
  it.X0 = p.lo[0] + tx * TX;
  it.Y0 = p.lo[1] + ty * TY;
  it.z0 = p.lo[2] + zc * p.zlen;
  it.z1 = it.z0 + p.zlen < p.hi[2] ? it.z0 + p.zlen : p.hi[2];
  if (piece >= 0) {
    it.z0 += piece * p.tlen;
    it.z1 = it.z0 + p.tlen < it.z1 ? it.z0 + p.tlen : it.z1;
  }
  return it;
}

/* One element, global -> shared, asynchronously (4 or 8 bytes: rows need not be aligned); dst:
 * its shared-memory address (device) and pointer (host emulation). */
template <class T> TMG_HD void cp_async(unsigned dst, T *dst_host, const T *src) {
#ifdef __CUDA_ARCH__
  (void)dst_host;
  if constexpr (sizeof(T) == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
#else
  (void)dst;
  *dst_host = *src;
#endif
}
TMG_HD void cp_async_commit() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
TMG_HD void cp_async_wait_all() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/* The shared-memory address of sm[i] (device; 0 on the host, where cp_async takes the pointer). */
template <class T> TMG_HD unsigned smem_addr(const T *sm, int i) {
#ifdef __CUDA_ARCH__
  return (unsigned)__cvta_generic_to_shared(sm) + (unsigned)(i * (int)sizeof(T));
#else
  (void)sm;
  (void)i;
  return 0;
#endif
}

TMG_HD int imin(int a, int b) { return a < b ? a : b; }

/* p, as a value nvcc cannot see through (device): what is added to it later stays one 64-bit
 * add of a 32-bit offset (IMAD.WIDE) instead of being reassociated onto the kernel parameter
 * it came from (64-bit adds, shifts and a reload of the parameter for every address). */
template <class T> TMG_HD const T *opaque(const T *p) {
#ifdef __CUDA_ARCH__
  asm("" : "+l"(p));
#endif
  return p;
}

/* a * b as one 32 x 32 -> 64-bit multiply (IMAD.WIDE), for a plane's offset (the launcher keeps
 * a plane under 2^31 elements): from (long long)a * b nvcc made a 64-bit multiply (3 IMADs and
 * a sign extension). */
TMG_HD long long mul_wide(int a, int b) {
#ifdef __CUDA_ARCH__
  long long r;
  asm("mul.wide.s32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
  return r;
#else
  return (long long)a * b;
#endif
}

/* What a thread copies of every plane rectangle (W x H, row-major, as a component's plane lies
 * in shared memory): elements e = tid + k NT, k < NK, each as a 32-bit offset from the plane's
 * component 0 (row at its image times sy, plus column at its image; the launcher keeps a plane
 * of the tile under 2^31 elements), formed once per block: every plane and component reuses
 * them, so a copy is an add, an IMAD.WIDE and the cp.async. Elements past the region's reach
 * (cw columns, rh rows: partial tiles at the high end) take the offset of the nearest element
 * within it: copied, never read, and nothing outside [lo - 3, hi + 3) is addressed. Only the
 * last k can fall past the rectangle (e >= FULL); it is skipped there.
 * Before (rows to warps, each lane a column, a row's offset and the WR form's row wrap formed
 * per row and plane, a branch per row in single): the copies were 343 of the float kernel's
 * 1709 instructions a cell (ncu source counters, 32 x 16 wrapping, 256^3, H100,
 * 2026-11-28-h100-mhd-copy-plan.txt). */
template <int TX, int TY, class T> struct tile_copy {
  typedef tile_geom<TX, TY, T> G;
  static constexpr int NK = (G::FULL + G::NT - 1) / G::NT;
  int off[NK];
};

template <int TX, int TY, bool WR = false, class T>
TMG_HD tile_copy<TX, TY, T> copy_plan(const kparams<T> &p, const tile_item &it, int tid) {
  typedef tile_geom<TX, TY, T> G;
  const int cw = imin(G::W, p.hi[0] + 3 - (it.X0 - 3)), rh = imin(G::H, p.hi[1] + 3 - (it.Y0 - 3));
  tile_copy<TX, TY, T> c;
#pragma unroll
  for (int k = 0; k < tile_copy<TX, TY, T>::NK; k++) {
    const int e = tid + k * G::NT, r = imin(e / G::W, rh - 1), col = imin(e % G::W, cw - 1);
    c.off[k] = wrapc<WR>(p, 1, it.Y0 - 3 + r) * (int)p.sy + wrapc<WR>(p, 0, it.X0 - 3 + col);
  }
  return c;
}

/* Plane z (at its image in the WR form) of the NC components at element offsets coff[] (c X)
 * into shared memory at sm + dst, one W x H rectangle after the other. opaque() keeps nvcc
 * from reassociating the plane's pointer onto p.in (64-bit adds and parameter reloads per
 * address); the plain form takes the identity for z (wrapc<false>), not tess_wrap with zero
 * ghost widths (3-5% slower in single, H100, bench/results/2026-11-27-h100-plain-copy.txt). */
template <int TX, int TY, int NC, bool WR, class T>
TMG_HD void copy_plane(const kparams<T> &p, T *sm, int dst, int z, const int (&coff)[NC],
                       const tile_copy<TX, TY, T> &c, int tid) {
  typedef tile_geom<TX, TY, T> G;
  constexpr int NK = tile_copy<TX, TY, T>::NK;
  const T *plane = opaque(p.in + mul_wide(wrapc<WR>(p, 2, z), (int)p.sz));
  const unsigned base = smem_addr(sm, dst + tid);
#pragma unroll
  for (int i = 0; i < NC; i++)
#pragma unroll
    for (int k = 0; k < NK; k++) {
      const int e = i * G::FULL + k * G::NT;
      if (k == NK - 1 && tid + k * G::NT >= G::FULL) continue;
      cp_async(base + (unsigned)(e * (int)sizeof(T)), sm + dst + tid + e,
               plane + (coff[i] + c.off[k]));
    }
}

/* Plane z of the six components of u and A, full with halo, into ring slot z & 7. */
template <int TX, int TY, bool WR = false, class T>
TMG_HD void issue_ring(const kparams<T> &p, T *sm, int z, const tile_copy<TX, TY, T> &c, int tid) {
  typedef tile_geom<TX, TY, T> G;
  const int X = (int)p.X;
  const int coff[6] = {X, 2 * X, 3 * X, 5 * X, 6 * X, 7 * X}; /* ring slot order: tile_geom::ridx */
  copy_plane<TX, TY, 6, WR>(p, sm, G::RING0 + (z & 7) * G::RS, z, coff, c, tid);
}

/* Plane z of lnrho and ss, full with halo, into centre slot z & 1. */
template <int TX, int TY, bool WR = false, class T>
TMG_HD void issue_centre(const kparams<T> &p, T *sm, int z, const tile_copy<TX, TY, T> &c,
                         int tid) {
  typedef tile_geom<TX, TY, T> G;
  const int coff[2] = {0, 4 * (int)p.X};
  copy_plane<TX, TY, 2, WR>(p, sm, G::CEN0 + (z & 1) * G::CS, z, coff, c, tid);
}

/* What a thread keeps from step to step: lnrho and ss at z - 3 .. z + 3 of its cell. */
template <class T> struct tile_state { T ql[7], qs[7]; };

template <int TX, int TY, class T, int XM = -1> struct tile_acc {
  typedef tile_geom<TX, TY, T, XM> G;
  const T *sm;
  int cen;        /* centre slot + the thread's offset in a full plane */
  int rfu[7];     /* ring slot of z + d - 3 + the thread's offset in a full plane */
  T ql[7], qs[7]; /* lnrho, ss at z - 3 .. z + 3 (copies of tile_state's) */
  template <int AX> TMG_HD bool active() const { return true; }
  template <int C, int DX, int DY, int DZ> TMG_HD T get() const {
    static_assert(C >= 0 && C < 8 && DZ >= -3 && DZ <= 3, "stencil point");
    if constexpr (C == 0 || C == 4) {
      if constexpr (DZ != 0 || (DX == 0 && DY == 0)) {
        static_assert(DX == 0 && DY == 0, "lnrho, ss: off-centre planes at the cell only");
        return C == 0 ? ql[DZ + 3] : qs[DZ + 3];
      } else {
        return sm[cen + (C == 0 ? 0 : G::FULL) + DY * G::W + DX];
      }
    } else {
      return sm[rfu[DZ + 3] + G::ridx(C) * G::FULL + G::XS(C) + DY * G::W + DX];
    }
  }
};

/* The accessor of the thread at (tx, ty) of the tile for step zc; sig: how far in the tile's
 * column X0 - 3 sits in its rows (tensor copies: tma_boxes). */
template <int TX, int TY, int XM = -1, class T>
TMG_HD tile_acc<TX, TY, T, XM> make_acc(const T *sm, int zc, int tx, int ty,
                                        const tile_state<T> &st, int sig = 0) {
  typedef tile_geom<TX, TY, T, XM> G;
  tile_acc<TX, TY, T, XM> a;
  a.sm = sm;
  const int o_full = (ty + 3) * G::W + tx + 3 + sig;
  a.cen = G::CEN0 + (zc & 1) * G::CS + o_full;
#pragma unroll
  for (int i = 0; i < 7; i++)
    a.rfu[i] = G::RING0 + ((zc - 3 + i) & 7) * G::RS + o_full;
#pragma unroll
  for (int i = 0; i < 7; i++) {
    a.ql[i] = st.ql[i];
    a.qs[i] = st.qs[i];
  }
  return a;
}

template <int TX, int TY, bool WR = false, class T>
TMG_HD void tile_prologue(const kparams<T> &p, const tile_item &it, int tid, tile_state<T> &st) {
  const int x = it.X0 + tid % TX, y = it.Y0 + tid / TX;
  const bool valid = x < p.hi[0] && y < p.hi[1];
  const long long col = x + y * p.sy;
#pragma unroll
  for (int i = 0; i < 7; i++) {
    const long long cell = col + wrapc<WR>(p, 2, it.z0 - 3 + i) * p.sz;
    st.ql[i] = valid ? ldg(p.in + cell) : T(0);
    st.qs[i] = valid ? ldg(p.in + cell + 4 * p.X) : T(0);
  }
}

template <int TX, int TY, class T, bool WR = false, int XM = -1>
TMG_HD void tile_compute(const kparams<T> &p, const T *sm, const unsigned long long *tab,
                         const tile_item &it, int zc, int tid, tile_state<T> &st, int sig = 0) {
  const int tx = tid % TX, ty = tid / TX;
  const int x = it.X0 + tx, y = it.Y0 + ty;
  const bool valid = x < p.hi[0] && y < p.hi[1];
  const long long cell = x + y * p.sy + zc * p.sz;
  T nl = T(0), ns = T(0), old[8];
  if (valid && zc + 1 < it.z1) { /* next step's z + 3 of lnrho, ss */
    const long long next =
        WR ? x + y * p.sy + mul_wide(wrapc<WR>(p, 2, zc + 4), (int)p.sz) : cell + 4 * p.sz;
    nl = ldg(p.in + next);
    ns = ldg(p.in + next + 4 * p.X);
  }
#pragma unroll
  for (int c = 0; c < 8; c++)
    old[c] = valid && p.c.substep > 0 ? p.out[cell + c * p.X] : T(0);

  const tile_acc<TX, TY, T, XM> a = make_acc<TX, TY, XM>(sm, zc, tx, ty, st, sig);
  T res[8];
  cell_update<T>(a, p, tab, x, old, res);
  if (valid) {
#pragma unroll
    for (int c = 0; c < 8; c++)
      p.out[cell + c * p.X] = res[c];
  }
#pragma unroll
  for (int i = 0; i < 6; i++) {
    st.ql[i] = st.ql[i + 1];
    st.qs[i] = st.qs[i + 1];
  }
  st.ql[6] = nl;
  st.qs[6] = ns;
}

template <int TX, int TY, class T, bool WR = false>
__global__ void __launch_bounds__(TX *TY, (tile_geom<TX, TY, T>::MINB))
    mhd_tiled_kernel(const kparams<T> p) {
  typedef tile_geom<TX, TY, T> G;
  extern __shared__ __align__(16) unsigned char sm_bytes[];
  T *sm = reinterpret_cast<T *>(sm_bytes);
  const int tid = threadIdx.x;
  const tile_item it = tile_of<TX, TY>(p, blockIdx.x);
  for (int i = tid; i < exp_words<T>(); i += G::NT)
    reinterpret_cast<unsigned long long *>(sm_bytes)[i] = exp_word<T>(i);
  const tile_copy<TX, TY, T> plan = copy_plan<TX, TY, WR>(p, it, tid);
  for (int z = it.z0 - 3; z <= it.z0 + 3; z++)
    issue_ring<TX, TY, WR>(p, sm, z, plan, tid);
  issue_centre<TX, TY, WR>(p, sm, it.z0, plan, tid);
  cp_async_commit();
  tile_state<T> st;
  tile_prologue<TX, TY, WR>(p, it, tid, st);
  for (int zc = it.z0; zc < it.z1; zc++) {
    cp_async_wait_all();  /* this step's planes (issued one step ago) have landed ... */
    __syncthreads();      /* ... for every thread, and everyone is done with the last step */
    if (zc + 1 < it.z1) { /* into the slots the last step read last: plane zc - 4, centre zc - 1 */
      issue_ring<TX, TY, WR>(p, sm, zc + 4, plan, tid);
      issue_centre<TX, TY, WR>(p, sm, zc + 1, plan, tid);
    }
    cp_async_commit();
    tile_compute<TX, TY, T, WR>(p, sm, reinterpret_cast<const unsigned long long *>(sm_bytes), it,
                                zc, tid, st);
  }
}

/* mhd_cuda_tma.cuh — the MHD float 32 x 16 march with its planes brought by Hopper's tensor
 * memory accelerator (tma.cuh), and its launcher: part of mhd_cuda.cu, which includes it inside
 * namespace tess_mhd_gpu after its own launch helpers (launch_blocks, check_launch); not a header
 * of its own. mhd_cuda.cu's header says what the march is and what it measured. */

/* When the float 32 x 16 march takes tensor copies (launch_tma). TMA_ALWAYS: wherever they
 * apply, a lone tile's march filling its own ghosts wherever its columns fit at once;
 * TMA_FILL: the same but a lone tile's ghosts always by fill_images (benchmark builds). */
enum tma_use { TMA_NEVER, TMA_AUTO, TMA_ALWAYS, TMA_FILL };

/* ---- the march (device) ----------------------------------------------------------------------
 * The same march, but a few threads bring each plane: one box (tma.cuh) per component, 8 per
 * step instead of ~13 element copies a thread, and nothing of it through the load/store pipe. Rows
 * in shared memory are W = TX + 12 wide, so that a box starts at a 16-byte boundary (TMA's rule) at
 * or below the rectangle's first column X0 - 3, sig = (X0 - 3) mod 4 earlier, for every component:
 * all components' rows start at 16-byte boundaries where the padded row X is a multiple of 4 (XM =
 * 0). Where X = 2 mod 4 (XM = 2) those of the odd components (ux, uz, ax, az) are 8 bytes off:
 * their boxes start 2 elements earlier still, and the accessor reads them 2 further in
 * (tile_geom::XS). Odd X (never a tile of the runtime: even extents, even ghosts) takes the element
 * copies. Each ring slot has an mbarrier; the centre plane zc + 1 comes on ring plane zc + 4's. */

/* Ring plane z's slot's mbarrier (shared address). */
template <int TX, int TY, int XM, class T> TMG_HD unsigned tma_bar(const T *sm, int z) {
  return smem_addr(sm, 0) + tile_geom<TX, TY, T, XM>::BAR0 + 8u * (unsigned)(z & 7);
}

/* Boxes [i0, i1) of ring plane z: 0-5 u and A (ring slot order: tile_geom::ridx), 6-7 centre
 * plane zcen's lnrho and ss, into their slots, completing on ring slot z & 7's mbarrier. A ghost
 * plane is read at its periodic image where p.wg[2] > 0 (the march that fills its own ghosts:
 * mhd_cuda_fill.cuh). */
template <int TX, int TY, int XM, class T>
TMG_HD void tma_boxes(const kparams<T> &p, const CUtensorMap *tm, const tess_tma_host &h, T *sm,
                      const tile_item &it, int sig, int z, int zcen, int i0, int i1) {
  typedef tile_geom<TX, TY, T, XM> G;
  const unsigned s0 = smem_addr(sm, 0), bar = tma_bar<TX, TY, XM>(sm, z);
  const int X = (int)p.X, x0 = it.X0 - 3 - sig, y0 = it.Y0 - 3;
  const int zr = tess_wrap(z, p.wg[2], p.dim[2]), zcr = tess_wrap(zcen, p.wg[2], p.dim[2]);
  constexpr int comp[8] = {1, 2, 3, 5, 6, 7, 0, 4};
#pragma unroll
  for (int i = 0; i < 8; i++) {
    if (i < i0 || i >= i1) continue;
    const int dst = i < 6 ? G::RING0 + (z & 7) * G::RS + i * G::FULL
                          : G::CEN0 + (zcen & 1) * G::CS + (i - 6) * G::FULL;
    tess_tma_box<G::W, G::H>(s0 + (unsigned)dst * sizeof(T), sm + dst, tm, h,
                             comp[i] * X + x0 - (i < 6 ? G::XS(comp[i]) : 0), y0, i < 6 ? zr : zcr,
                             bar);
  }
}

/* Thread 0: ring plane z and, with cen, centre plane zcen, all announced and issued. */
template <int TX, int TY, int XM, class T>
TMG_HD void tma_plane(const kparams<T> &p, const CUtensorMap *tm, const tess_tma_host &h, T *sm,
                      const tile_item &it, int sig, int z, int zcen, bool cen) {
  typedef tile_geom<TX, TY, T, XM> G;
  tess_mbar_expect(tma_bar<TX, TY, XM>(sm, z), (unsigned)((cen ? 8 : 6) * G::AREA * sizeof(T)));
  tma_boxes<TX, TY, XM>(p, tm, h, sm, it, sig, z, zcen, 0, cen ? 8 : 6);
}

/* In the march, a step's 8 boxes are issued by lane 0 of warps 0 .. TMA_ISSUERS - 1, 8 /
 * TMA_ISSUERS each, so that no one warp carries them all. H200, float, 256^3, the plain march:
 * 3.09-3.11 ms a step with 1 or 2, 3.06 with 4, 2.91-2.93 with 8 issuing warps
 * (bench/results/2026-11-28-h200-mhd-warp-boxes.txt, run 2). */
constexpr int TMA_ISSUERS = 8;
/* Issuer j's part of a step's copies: ring plane z and centre plane z - 3, thread 0 announcing
 * their bytes. A box may land before they are announced: the phase also waits for thread 0's
 * one arrival, and the barrier's byte count may go below zero until then. */
template <int TX, int TY, int XM, class T>
TMG_HD void tma_step(const kparams<T> &p, const CUtensorMap *tm, const tess_tma_host &h, T *sm,
                     const tile_item &it, int sig, int z, int j) {
  typedef tile_geom<TX, TY, T, XM> G;
  if (j == 0) tess_mbar_expect(tma_bar<TX, TY, XM>(sm, z), 8u * G::AREA * (unsigned)sizeof(T));
  tma_boxes<TX, TY, XM>(p, tm, h, sm, it, sig, z, z - 3, 8 * j / TMA_ISSUERS,
                        8 * (j + 1) / TMA_ISSUERS);
}

/* Until ring plane z (and the centre plane on its barrier) has landed: the block issued planes
 * z0 - 3, z0 - 2, ... in turn, so plane z is its slot's ((z - z0 + 3) / 8)-th phase. */
template <int TX, int TY, int XM, class T>
TMG_HD void tma_wait(const T *sm, const tile_item &it, int z) {
  tess_mbar_wait(tma_bar<TX, TY, XM>(sm, z), (unsigned)((z - it.z0 + 3) >> 3) & 1u);
}

/* AH: the march fills its x and y ghosts (mhd_cuda_fill.cuh); g0, g1 are their widths, count
 * the batches' counters (else unused). */
template <int TX, int TY, class T, int XM, bool AH>
__global__ void __launch_bounds__(TX *TY, (tile_geom<TX, TY, T, XM>::MINB))
    mhd_tiled_tma_kernel(const kparams<T> p, const __grid_constant__ CUtensorMap tm,
                         const tess_tma_host h, unsigned *count, int g0, int g1) {
  typedef tile_geom<TX, TY, T, XM> G;
  extern __shared__ __align__(128) unsigned char sm_tma[];
  T *sm = reinterpret_cast<T *>(sm_tma);
  const int tid = threadIdx.x;
  const tile_item it = tile_of<TX, TY>(p, blockIdx.x);
  const int sig = (it.X0 - 3) & 3;
  const int fn = p.dim[2] - 2 * p.wg[2], pro = FILL_AHEAD < fn ? FILL_AHEAD : fn;
  fill_share f = {-1, 0};
  T fv = T(0);
  if (AH) { /* the first FILL_AHEAD planes' ghosts, before anyone reads them */
    f = fill_share_of(p, g0, g1, (int)blockIdx.x, (int)gridDim.x, tid);
    fill_first(p, f, pro);
    __syncthreads();
    if (tid == 0) fill_publish(count, 0, fill_batches(pro, fn));
  }
  for (int i = tid; i < exp_words<T>(); i += G::NT)
    reinterpret_cast<unsigned long long *>(sm_tma)[i] = exp_word<T>(i);
  if (tid == 0) {
    for (int i = 0; i < 8; i++)
      tess_mbar_init(tma_bar<TX, TY, XM>(sm, i));
    tess_mbar_fence_init();
    for (int z = it.z0 - 3; z <= it.z0 + 3; z++) {
      if (AH && fill_waits(p, z, z == it.z0 - 3)) fill_wait(p, count, z, gridDim.x);
      tma_plane<TX, TY, XM>(p, &tm, h, sm, it, sig, z, it.z0, z == it.z0 + 3);
    }
  }
  __syncthreads(); /* the barriers are set up before anyone waits on them */
  tile_state<T> st;
  tile_prologue<TX, TY, AH>(p, it, tid, st);
  for (int z = it.z0 - 3; z <= it.z0 + 2; z++)
    tma_wait<TX, TY, XM>(sm, it, z);
  for (int zc = it.z0; zc < it.z1; zc++) {
    tma_wait<TX, TY, XM>(sm, it, zc + 3); /* this step's planes have landed ... */
    __syncthreads();                      /* ... and everyone is done with the last step */
    if (AH) { /* step s stores fill index pro + s - 1 (loaded a step ago), loads pro + s */
      const int k = pro + (zc - it.z0);
      /* counted by the last warp, which issues no copies, so that its fence delays none (3.14
       * against 3.15-3.16 ms, H200, 2026-11-28-h200-mhd-warp-boxes.txt run 3) */
      if (tid == G::NT - 1 && zc > it.z0) fill_publish_step(count, k, pro, fn);
      fill_next(p, f, k, pro, fv);
    }
    if ((tid & 31) == 0 && tid < 32 * TMA_ISSUERS && zc + 1 < it.z1) {
      if (AH && fill_waits(p, zc + 4, zc == it.z0)) /* each issuer's first wait is here */
        fill_wait(p, count, zc + 4, gridDim.x);
      tess_tma_fence(); /* into the slots the last step read last */
      tma_step<TX, TY, XM>(p, &tm, h, sm, it, sig, zc + 4, tid >> 5);
    }
    tile_compute<TX, TY, T, AH, XM>(p, sm, reinterpret_cast<const unsigned long long *>(sm_tma), it,
                                    zc, tid, st, sig);
  }
}

/* ---- the launcher (host) ----------------------------------------------------------------------
 */

/* Whether a float 32 x 16 tiled launch may take tensor copies (mhd_tiled_tma_kernel): an sm_90
 * device, rows an even number of elements, an array TMA can cut boxes from (tma.cuh). h: its host
 * view (also the emulation's). */
static bool tma_view(const kparams<float> &p, tess_tma_host *h) {
  typedef tile_geom<32, 16, float, 0> G;
  const long long dim[3] = {p.sy, p.dim[1], p.dim[2]}, pitch[2] = {p.sy, p.sz};
  return p.X % 2 == 0 && tess_tma_view(h, p.in, dim, pitch, G::W, G::H);
}

/* A lone periodic tile pays for its ghost fill (fill_images) with the tensor copies where the fill
 * moves at most a tenth as many elements as the tile owns: from 192^3 on for a cube (9.7%; 160^3:
 * 11.7%). H100, float, the kernel alone, fill + tensor copies against the WR form's element
 * copies: +4% at 128^3, -0.5 to +0.1% at 160^3, -1% at 192^3, -3.5% at 224^3, -5% at 256^3, -6%
 * at 512^3 (bench/results/2026-11-28-h100-mhd-tma.txt, run 10). A ratio rather than a size: a
 * thin tile's ghost planes are many for its cells. */
constexpr long long TMA_FILL_MAX_TENTHS = 1;

/* Whether `use` asks for tensor copies on region p (TMA_AUTO: not for a lone tile whose fill
 * would not pay); the layout's own conditions are tma_view's. */
static bool tma_wanted(const kparams<float> &p, tma_use use) {
  const bool wrap = p.wg[0] | p.wg[1] | p.wg[2];
  if (use != TMA_AUTO) return use != TMA_NEVER;
  const long long cells =
      (long long)(p.hi[0] - p.lo[0]) * (p.hi[1] - p.lo[1]) * (p.hi[2] - p.lo[2]);
  return !wrap || 10 * fill_count(p) <= TMA_FILL_MAX_TENTHS * 8 * cells;
}

/* Plans region q for the march that fills its own x and y ghosts (AH) on `slots` blocks resident
 * at once: a block a whole column of tiles, all at once, one fill element a plane a thread at
 * most (for a cube, n >= 192); false where that does not apply. always: wherever the columns fit
 * (TMA_ALWAYS); else only where the z-chunk plan takes whole columns anyway (the columns about fill
 * the device). */
template <class T> static bool plan_ahead(kparams<T> &q, int slots, bool always) {
  typedef tile_geom<32, 16, T, 0> G;
  const int g = q.wg[2], n = q.dim[2] - 2 * g;
  if (g < 1 || q.lo[2] != g || q.hi[2] != g + n) return false; /* every owned plane */
  plan_tiles<32, 16>(q, slots, false);
  const int cols = q.ntx * q.nty;
  if (cols > slots || (!always && q.items != cols)) return false;
  q.zlen = q.tlen = n, q.items = q.full = cols, q.tpc = 1;
  return fill_batches(n, n) <= q.dim[0] && /* the counters' row */
         fill_elems(q, q.wg[0], q.wg[1]) <= (long long)G::NT * cols && q.sz < INT_MAX;
}

/* The march that fills its own x and y ghosts (AH) on a lone periodic tile, where plan_ahead
 * says it applies: its counters in the input's first ghost plane (scratch; the march reads z at
 * its image), cleared first. False (nothing launched) where it does not apply. */
template <int XM>
static bool launch_ahead(kparams<float> &p, cudaStream_t s, const CUtensorMap &tm,
                         const tess_tma_host &h, bool always) {
  typedef tile_geom<32, 16, float, XM> G;
  const auto kern = mhd_tiled_tma_kernel<32, 16, float, XM, true>;
  kparams<float> q = p;
  if (!plan_ahead(q, resident_blocks(kern, G::NT, G::SMEM), always)) return false;
  const int g0 = q.wg[0], g1 = q.wg[1], n = q.dim[2] - 2 * q.wg[2];
  unsigned *count = reinterpret_cast<unsigned *>(const_cast<float *>(q.in));
  const cudaError_t err = cudaMemsetAsync(count, 0, fill_batches(n, n) * sizeof(unsigned), s);
  if (err != cudaSuccess) TESS_MHD_CUDA_REPORT(err);
  q.wg[0] = q.wg[1] = 0; /* the march: x and y ghosts current when read, z at its image */
  kern<<<q.items, G::NT, G::SMEM, s>>>(q, tm, h, count, g0, g1);
  check_launch();
  p = q;
  return true;
}

/* The float 32 x 16 march with tensor copies, a lone periodic tile's ghosts filled first; false
 * (nothing launched) where it is not wanted (tma_wanted) or does not apply. */
static bool launch_tma(kparams<float> &p, cudaStream_t s, bool split, int force, tma_use use) {
  typedef tile_geom<32, 16, float, 0> G;
  const bool wrap = p.wg[0] | p.wg[1] | p.wg[2];
  if (!tma_wanted(p, use)) return false;
  CUtensorMap tm;
  tess_tma_host h;
  if (!tma_view(p, &h) || !tess_tma_device() || !tess_tma_map(&tm, h, G::W, G::H)) return false;
  const bool always = use == TMA_ALWAYS;
  if (wrap && !force && use != TMA_FILL &&
      (p.X % 4 == 0 ? launch_ahead<0>(p, s, tm, h, always) : launch_ahead<2>(p, s, tm, h, always)))
    return true;
  if (wrap) {
    fill_images(p, s);
    p.wg[0] = p.wg[1] = p.wg[2] = 0; /* the ghosts are current now: the plain march */
  }
  if (p.X % 4 == 0)
    launch_blocks<32, 16>(mhd_tiled_tma_kernel<32, 16, float, 0, false>, G::NT, G::SMEM, p, s,
                          split, force, tm, h, (unsigned *)nullptr, 0, 0);
  else
    launch_blocks<32, 16>(mhd_tiled_tma_kernel<32, 16, float, 2, false>, G::NT,
                          tile_geom<32, 16, float, 2>::SMEM, p, s, split, force, tm, h,
                          (unsigned *)nullptr, 0, 0);
  return true;
}

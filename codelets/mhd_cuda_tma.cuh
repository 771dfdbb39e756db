/* mhd_cuda_tma.cuh — the MHD float 32 x 16 march with its planes brought by Hopper's tensor
 * memory accelerator (tma.cuh), and its launcher: part of mhd_cuda.cu, which includes it inside
 * namespace tess_mhd_gpu after its own launch helpers (launch_blocks, check_launch); not a header
 * of its own. mhd_cuda.cu's header says what the march is and what it measured. */

/* When the float 32 x 16 march takes tensor copies (launch_tma). */
enum tma_use { TMA_NEVER, TMA_AUTO, TMA_ALWAYS };

/* ---- the march (device) ----------------------------------------------------------------------
 * The same march, but one thread brings each plane: one box (tma.cuh) per component, 8 per step
 * instead of ~13 element copies a thread, and nothing of it through the other threads' load/store
 * pipe. Rows in shared memory are W = TX + 12 wide, so that a box starts at a 16-byte boundary
 * (TMA's rule) at or below the rectangle's first column X0 - 3, sig = (X0 - 3) mod 4 earlier,
 * for every component: all components' rows start at 16-byte boundaries where the padded row X
 * is a multiple of 4 (XM = 0). Where X = 2 mod 4 (XM = 2) those of the odd components (ux, uz,
 * ax, az) are 8 bytes off: their boxes start 2 elements earlier still, and the accessor reads
 * them 2 further in (tile_geom::XS). Odd X (never a tile of the runtime: even extents, even
 * ghosts) takes the element copies. Each ring slot has an mbarrier; the centre plane zc + 1
 * comes on ring plane zc + 4's. */

/* Thread 0: ring plane z (u and A) and, with cen, centre plane zcen (lnrho, ss) into their
 * slots, on ring slot z & 7's mbarrier. */
template <int TX, int TY, int XM, class T>
TMG_HD void tma_plane(const kparams<T> &p, const CUtensorMap *tm, const tess_tma_host &h, T *sm,
                      const tile_item &it, int sig, int z, int zcen, bool cen) {
  typedef tile_geom<TX, TY, T, XM> G;
  const unsigned s0 = smem_addr(sm, 0), bar = s0 + G::BAR0 + 8u * (unsigned)(z & 7);
  const int X = (int)p.X, x0 = it.X0 - 3 - sig, y0 = it.Y0 - 3;
  tess_mbar_expect(bar, (unsigned)((cen ? 8 : 6) * G::AREA * (int)sizeof(T)));
  constexpr int comp[6] = {1, 2, 3, 5, 6, 7}; /* ring slot order: tile_geom::ridx */
#pragma unroll
  for (int i = 0; i < 6; i++) {
    const int dst = G::RING0 + (z & 7) * G::RS + i * G::FULL;
    tess_tma_box<G::W, G::H>(s0 + (unsigned)dst * sizeof(T), sm + dst, tm, h,
                             comp[i] * X + x0 - G::XS(comp[i]), y0, z, bar);
  }
  if (cen)
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int dst = G::CEN0 + (zcen & 1) * G::CS + i * G::FULL;
      tess_tma_box<G::W, G::H>(s0 + (unsigned)dst * sizeof(T), sm + dst, tm, h, 4 * i * X + x0, y0,
                               zcen, bar);
    }
}

/* Until ring plane z (and the centre plane on its barrier) has landed: the block issued planes
 * z0 - 3, z0 - 2, ... in turn, so plane z is its slot's ((z - z0 + 3) / 8)-th phase. */
template <int TX, int TY, int XM, class T>
TMG_HD void tma_wait(const T *sm, const tile_item &it, int z) {
  typedef tile_geom<TX, TY, T, XM> G;
  tess_mbar_wait(smem_addr(sm, 0) + G::BAR0 + 8u * (unsigned)(z & 7),
                 (unsigned)((z - it.z0 + 3) >> 3) & 1u);
}

template <int TX, int TY, class T, int XM>
__global__ void __launch_bounds__(TX *TY, (tile_geom<TX, TY, T, XM>::MINB))
    mhd_tiled_tma_kernel(const kparams<T> p, const __grid_constant__ CUtensorMap tm,
                         const tess_tma_host h) {
  typedef tile_geom<TX, TY, T, XM> G;
  extern __shared__ __align__(128) unsigned char sm_tma[];
  T *sm = reinterpret_cast<T *>(sm_tma);
  const int tid = threadIdx.x;
  const tile_item it = tile_of<TX, TY>(p, blockIdx.x);
  const int sig = (it.X0 - 3) & 3;
  for (int i = tid; i < exp_words<T>(); i += G::NT)
    reinterpret_cast<unsigned long long *>(sm_tma)[i] = exp_word<T>(i);
  if (tid == 0) {
    for (int i = 0; i < 8; i++)
      tess_mbar_init(smem_addr(sm, 0) + G::BAR0 + 8u * (unsigned)i);
    tess_mbar_fence_init();
    for (int z = it.z0 - 3; z <= it.z0 + 3; z++)
      tma_plane<TX, TY, XM>(p, &tm, h, sm, it, sig, z, it.z0, z == it.z0 + 3);
  }
  __syncthreads(); /* the barriers are set up before anyone waits on them */
  tile_state<T> st;
  tile_prologue<TX, TY>(p, it, tid, st);
  for (int z = it.z0 - 3; z <= it.z0 + 2; z++)
    tma_wait<TX, TY, XM>(sm, it, z);
  for (int zc = it.z0; zc < it.z1; zc++) {
    tma_wait<TX, TY, XM>(sm, it, zc + 3); /* this step's planes have landed ... */
    __syncthreads();                      /* ... and everyone is done with the last step */
    if (tid == 0 && zc + 1 < it.z1) {     /* into the slots the last step read last */
      tess_tma_fence();
      tma_plane<TX, TY, XM>(p, &tm, h, sm, it, sig, zc + 4, zc + 1, true);
    }
    tile_compute<TX, TY, T, false, XM>(p, sm, reinterpret_cast<const unsigned long long *>(sm_tma),
                                       it, zc, tid, st, sig);
  }
}

/* A lone periodic tile (WR) under tensor copies: its input's ghost layers (stale, says
 * tess_region.wrap: scratch) first take the owned cells' periodic images, then the plain march
 * reads them. One pass, element e of the ghost shell (fill_count): first the x ghosts of the
 * owned rows (row e / 2g, ghost e mod 2g: 12-byte pieces), then the whole rows (8 components,
 * all dim[0] elements: contiguous) whose y or z is a ghost, the z ghost planes first. */
template <class T> TMG_HD void fill_ghost(const kparams<T> &p, long long e) {
  const int g0 = p.wg[0], g1 = p.wg[1], g2 = p.wg[2];
  const int n0 = p.dim[0] - 2 * g0, n1 = p.dim[1] - 2 * g1, n2 = p.dim[2] - 2 * g2;
  const long long xs = 16LL * g0 * n1 * n2; /* the x ghosts of the owned rows */
  int x, y, z, c;
  if (e < xs) {
    const int j = (int)(e % (2 * g0));
    const long long row = e / (2 * g0), yz = row / 8;
    c = (int)(row % 8), y = g1 + (int)(yz % n1), z = g2 + (int)(yz / n1);
    x = j < g0 ? j : n0 + j;
  } else {
    const long long k = e - xs, rg = k / (8LL * p.dim[0]), zp = 2LL * g2 * p.dim[1];
    const int ck = (int)(k % (8LL * p.dim[0]));
    c = ck / p.dim[0], x = ck % p.dim[0];
    if (rg < zp) {
      const int zi = (int)(rg / p.dim[1]);
      z = zi < g2 ? zi : n2 + zi, y = (int)(rg % p.dim[1]);
    } else {
      const int yi = (int)((rg - zp) % (2 * g1));
      z = g2 + (int)((rg - zp) / (2 * g1)), y = yi < g1 ? yi : n1 + yi;
    }
  }
  T *io = const_cast<T *>(p.in);
  io[x + c * p.X + y * p.sy + z * p.sz] =
      io[tess_wrap(x, g0, p.dim[0]) + c * p.X + tess_wrap(y, g1, p.dim[1]) * p.sy +
         tess_wrap(z, g2, p.dim[2]) * p.sz];
}
/* Elements of the ghost shell. */
template <class T> TMG_HD long long fill_count(const kparams<T> &p) {
  const long long g1 = p.wg[1], g2 = p.wg[2], n1 = p.dim[1] - 2 * g1, n2 = p.dim[2] - 2 * g2;
  return 16LL * p.wg[0] * n1 * n2 + 8LL * p.dim[0] * (2 * g2 * p.dim[1] + n2 * 2 * g1);
}
template <class T> __global__ void mhd_fill_kernel(const kparams<T> p, long long n) {
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n;
       e += (long long)gridDim.x * blockDim.x)
    fill_ghost(p, e);
}

/* ---- the launcher (host) ----------------------------------------------------------------------
 */

/* The ghost layers of a lone periodic tile's input (fill_ghost), in one launch. */
template <class T> static void fill_images(const kparams<T> &p, cudaStream_t s) {
  const long long n = fill_count(p), blocks = (n + 255) / 256;
  mhd_fill_kernel<T><<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, s>>>(p, n);
  check_launch();
}

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
 * at 512^3 (bench/results/2026-11-28-h100-mhd-s12.txt, call 10). A ratio rather than a size: a
 * thin tile's ghost planes are many for its cells. */
constexpr long long TMA_FILL_MAX_TENTHS = 1;

/* Whether `use` asks for tensor copies on region p (TMA_AUTO: not for a lone tile whose fill
 * would not pay); the layout's own conditions are tma_view's. */
static bool tma_wanted(const kparams<float> &p, tma_use use) {
  const bool wrap = p.wg[0] | p.wg[1] | p.wg[2];
  if (use != TMA_AUTO) return use == TMA_ALWAYS;
  const long long cells =
      (long long)(p.hi[0] - p.lo[0]) * (p.hi[1] - p.lo[1]) * (p.hi[2] - p.lo[2]);
  return !wrap || 10 * fill_count(p) <= TMA_FILL_MAX_TENTHS * 8 * cells;
}

/* The float 32 x 16 march with tensor copies, a lone periodic tile's ghosts filled first; false
 * (nothing launched) where it is not wanted (tma_wanted) or does not apply. */
static bool launch_tma(kparams<float> &p, cudaStream_t s, bool split, int force, tma_use use) {
  typedef tile_geom<32, 16, float, 0> G;
  const bool wrap = p.wg[0] | p.wg[1] | p.wg[2];
  if (!tma_wanted(p, use)) return false;
  CUtensorMap tm;
  tess_tma_host h;
  const long long dim[3] = {p.sy, p.dim[1], p.dim[2]}, pitch[2] = {p.sy, p.sz};
  if (!tma_view(p, &h) || !tess_tma_device() ||
      !tess_tma_map(&tm, &h, p.in, dim, pitch, G::W, G::H))
    return false;
  if (wrap) {
    fill_images(p, s);
    p.wg[0] = p.wg[1] = p.wg[2] = 0; /* the ghosts are current now: the plain march */
  }
  if (p.X % 4 == 0)
    launch_blocks<32, 16>(mhd_tiled_tma_kernel<32, 16, float, 0>, G::NT, G::SMEM, p, s, split,
                          force, tm, h);
  else
    launch_blocks<32, 16>(mhd_tiled_tma_kernel<32, 16, float, 2>, G::NT,
                          tile_geom<32, 16, float, 2>::SMEM, p, s, split, force, tm, h);
  return true;
}

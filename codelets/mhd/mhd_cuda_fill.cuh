/* mhd_cuda_fill.cuh — a lone periodic tile's ghosts for the MHD float march with tensor copies
 * (mhd_cuda_tma.cuh), which cannot wrap a box: a kernel that writes them before the march
 * (fill_images), and the pieces of the march that fills them itself, ahead of its own step (AH).
 * Part of mhd_cuda.cu, which includes it inside namespace tess_mhd_gpu before mhd_cuda_tma.cuh;
 * not a header of its own. */

/* ---- a kernel before the march -------------------------------------------------------------- */

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

/* The ghost layers of a lone periodic tile's input (fill_ghost), in one launch. */
template <class T> static void fill_images(const kparams<T> &p, cudaStream_t s) {
  const long long n = fill_count(p), blocks = (n + 255) / 256;
  mhd_fill_kernel<T><<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, s>>>(p, n);
  check_launch();
}

/* ---- a lone tile's x and y ghosts filled by its own march, ahead of it (AH) --------------------
 * Where the march is one wave of blocks, each taking a whole column of tiles in z (plan_ahead),
 * it fills its input's x and y ghosts itself instead of a kernel before it (fill_images): every
 * block a slice of each owned plane's ghosts (fill_share), FILL_AHEAD planes ahead of its own
 * step, each thread loading its element in one step and storing it in the next, so that nobody
 * waits on the load. Each block counts the batches of FILL_BATCH planes it has finished in a
 * device counter (fill_publish), and each thread that issues boxes waits for a plane's batch to
 * be finished by every block before its box reads the plane (fill_wait, where fill_waits). The
 * march reads z at its periodic image (p.wg = {0, 0, g}: tile_prologue and tile_compute's WR z,
 * tma_boxes), so the ghost planes are never filled; the first one (the input's scratch:
 * tess_region.wrap) holds the counters. Every block must be resident at once (it waits on all the
 * others): one wave, else fill_images. H200, float, 256^3, ncu: 1.00-1.03 ms a substep
 * against 1.03-1.05 with fill_images first and 0.97-0.98 for the plain march, no wrap
 * (bench/results/2026-11-28-h200-mhd-warp-boxes.txt, run 9). */
constexpr int FILL_AHEAD = 40, FILL_BATCH = 16;

/* Fill index k (0 <= k < n) of owned padded plane w (in [g, g + n)), and back: the order the
 * march needs them, the images of the low ghost planes ([n, n + g)) first, then [g, n). */
TMG_HD int fill_plane_of(int k, int g, int n) { return k < g ? n + k : k; }
TMG_HD int fill_index_of(int w, int g, int n) { return w >= n ? w - n : w; }
/* The batch (counter) holding padded plane z's image, for the march's view p (p.wg[2] = g). */
template <class T> TMG_HD int fill_batch_of(const kparams<T> &p, int z) {
  const int g = p.wg[2], n = p.dim[2] - 2 * g;
  return fill_index_of(tess_wrap(z, g, p.dim[2]), g, n) / FILL_BATCH;
}
/* Batches of FILL_BATCH fill indices all stored once indices [0, m) are. */
TMG_HD int fill_batches(int m, int n) {
  return m >= n ? (n + FILL_BATCH - 1) / FILL_BATCH : m / FILL_BATCH;
}

/* A plane's ghost elements that boxes read, with ghost widths g0, g1 (p.wg is the march's):
 * the x ghosts of its owned rows (rows (y, c), 2 g0 each), then its y ghost rows whole (rows
 * (y, c), dim[0] each). Element e's offset in its plane, and that of the owned cell it takes. */
template <class T> TMG_HD int fill_elems(const kparams<T> &p, int g0, int g1) {
  return 16 * g0 * (p.dim[1] - 2 * g1) + 16 * g1 * p.dim[0];
}
template <class T>
TMG_HD void fill_pair(const kparams<T> &p, int g0, int g1, int e, int &dst, int &src) {
  const int d0 = p.dim[0], d1 = p.dim[1], n0 = d0 - 2 * g0, n1 = d1 - 2 * g1, xs = 16 * g0 * n1;
  int x, y, c;
  if (e < xs) {
    const int r = e / (2 * g0), j = e - r * 2 * g0;
    c = r & 7, y = g1 + (r >> 3), x = j < g0 ? j : n0 + j;
  } else {
    const int k = e - xs, r = k / d0, yi = r >> 3;
    x = k - r * d0, c = r & 7, y = yi < g1 ? yi : n1 + yi;
  }
  dst = x + c * (int)p.X + y * (int)p.sy;
  src = tess_wrap(x, g0, d0) + c * (int)p.X + tess_wrap(y, g1, d1) * (int)p.sy;
}

/* Thread tid's element of block b of nb's slice of every plane's fill (one at most: plan_ahead;
 * offsets in the plane, which fit an int: plan_ahead). */
struct fill_share {
  int dst, src; /* dst < 0: no element */
};
template <class T>
TMG_HD fill_share fill_share_of(const kparams<T> &p, int g0, int g1, int b, int nb, int tid) {
  const int ne = fill_elems(p, g0, g1), per = (ne + nb - 1) / nb, e = b * per + tid;
  fill_share f = {-1, 0};
  if (tid < per && e < ne) fill_pair(p, g0, g1, e, f.dst, f.src);
  return f;
}
/* Fill indices [0, m) of this thread's share, FILL_FIRST planes' loads in flight at once (before
 * the march; every block waits for them, so their latency is the launch's). */
constexpr int FILL_FIRST = 8;
template <class T> TMG_HD void fill_first(const kparams<T> &p, const fill_share &f, int m) {
  const int g = p.wg[2], n = p.dim[2] - 2 * g;
  T *io = const_cast<T *>(p.in);
  for (int k0 = 0; f.dst >= 0 && k0 < m; k0 += FILL_FIRST) {
    T v[FILL_FIRST];
#pragma unroll
    for (int i = 0; i < FILL_FIRST; i++)
      if (k0 + i < m) v[i] = io[fill_plane_of(k0 + i, g, n) * p.sz + f.src];
#pragma unroll
    for (int i = 0; i < FILL_FIRST; i++)
      if (k0 + i < m) io[fill_plane_of(k0 + i, g, n) * p.sz + f.dst] = v[i];
  }
}
/* In the march: stores fill index k - 1 (v, loaded a step ago) where it is not below `from`,
 * and loads index k into v. */
template <class T>
TMG_HD void fill_next(const kparams<T> &p, const fill_share &f, int k, int from, T &v) {
  const int g = p.wg[2], n = p.dim[2] - 2 * g;
  T *io = const_cast<T *>(p.in);
  if (f.dst >= 0 && k - 1 >= from && k - 1 < n) io[fill_plane_of(k - 1, g, n) * p.sz + f.dst] = v;
  if (f.dst >= 0 && k < n) v = io[fill_plane_of(k, g, n) * p.sz + f.src];
}

#ifdef __CUDA_ARCH__
__device__ __forceinline__ unsigned ld_acquire(const unsigned *a) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
  return v;
}
#endif

/* An issuing thread: until every one of nb blocks has finished the batch holding padded plane
 * z's image, then orders the box reads after the fill's stores. Each block counts its batches in
 * order, each after a fence behind all its fill stores so far, so a batch finished by all means
 * every earlier one is too: the march waits only where a plane's batch is not its last plane's
 * (fill_waits). A batch that never finishes is a bug: after 2^26 polls (tens of seconds) the
 * kernel traps (a launch failure, reported) rather than hang. On the host (the emulation runs
 * the blocks a step at a time, every block's counting before anyone's waiting) an unfinished
 * batch is that bug, named. */
template <class T>
TMG_HD void fill_wait(const kparams<T> &p, const unsigned *count, int z, unsigned nb) {
  const unsigned *c = count + fill_batch_of(p, z);
#ifdef __CUDA_ARCH__
  for (unsigned i = 0; ld_acquire(c) < nb; i++) {
    if (i == 1u << 26) __trap();
    __nanosleep(32);
  }
  asm volatile("fence.proxy.async.global;" ::: "memory");
#else
  if (*c < nb) {
    fprintf(stderr, "fill_wait: plane %d read before its batch was filled (%u of %u blocks)\n", z,
            *c, nb);
    abort();
  }
#endif
}
/* Whether an issuing thread waits (fill_wait) before its boxes read plane z: at its first plane
 * (first), then where z's batch is not plane z - 1's (the image of a ghost plane is in batch 0). */
template <class T> TMG_HD bool fill_waits(const kparams<T> &p, int z, bool first) {
  return first || fill_batch_of(p, z) != fill_batch_of(p, z - 1);
}
/* One thread, after a barrier: batches [from, to) finished by this block (the barrier ordered its
 * threads' stores before). */
TMG_HD void fill_publish(unsigned *count, int from, int to) {
#ifdef __CUDA_ARCH__
  if (from < to) __threadfence();
  for (int j = from; j < to; j++)
    atomicAdd(count + j, 1u);
#else
  for (int j = from; j < to; j++)
    count[j]++;
#endif
}
/* fill_publish at the start of march step k = pro + (zc - z0) after the first: fill indices
 * [0, k - 1) are stored now, [0, max(k - 2, pro)) were a step ago (n: the owned planes). */
TMG_HD void fill_publish_step(unsigned *count, int k, int pro, int n) {
  fill_publish(count, fill_batches(k - 2 > pro ? k - 2 : pro, n), fill_batches(k - 1, n));
}

/* mhd_kernel_emulate.cuh — the MHD kernels' own code run on the host, one "thread" after
 * another with the barriers in between (--emulate): tiled, float march with tensor copies,
 * fill-ahead and generic kernels.
 * Part of mhd_kernel_bench.cu (one translation unit: included there, after what it uses). */

template <int TX, int TY, bool WR, class T> static void emulate_tiled(G::kparams<T> p) {
  typedef G::tile_geom<TX, TY, T> TG;
  G::plan_tiles<TX, TY>(p, 8, true); /* few slots: z chunks of several planes, each marched */
  G::force_pieces(p, 3);             /* where none are planned: the last row's items in 3 pieces */
  std::vector<T> sm(TG::TOTAL);
  const int items = G::tiles_total(p);
  std::vector<G::tile_state<T>> st(TG::NT);
  for (int b = 0; b < items; b++) {
    std::fill(sm.begin(), sm.end(), (T)NAN); /* reading a plane that never arrived shows */
    std::memcpy(sm.data(), prec<T>::tab(), prec<T>::tab_bytes());
    const G::tile_item it = G::tile_of<TX, TY>(p, b);
    std::vector<G::tile_copy<TX, TY, T>> plan(TG::NT);
    for (int tid = 0; tid < TG::NT; tid++)
      plan[tid] = G::copy_plan<TX, TY, WR>(p, it, tid);
    for (int z = it.z0 - 3; z <= it.z0 + 3; z++)
      for (int tid = 0; tid < TG::NT; tid++)
        G::issue_ring<TX, TY, WR>(p, sm.data(), z, plan[tid], tid);
    for (int tid = 0; tid < TG::NT; tid++)
      G::issue_centre<TX, TY, WR>(p, sm.data(), it.z0, plan[tid], tid);
    for (int tid = 0; tid < TG::NT; tid++)
      G::tile_prologue<TX, TY, WR>(p, it, tid, st[tid]);
    for (int zc = it.z0; zc < it.z1; zc++) {
      if (zc + 1 < it.z1)
        for (int tid = 0; tid < TG::NT; tid++) {
          G::issue_ring<TX, TY, WR>(p, sm.data(), zc + 4, plan[tid], tid);
          G::issue_centre<TX, TY, WR>(p, sm.data(), zc + 1, plan[tid], tid);
        }
      for (int tid = 0; tid < TG::NT; tid++)
        G::tile_compute<TX, TY, T, WR>(p, sm.data(),
                                       reinterpret_cast<const unsigned long long *>(sm.data()), it,
                                       zc, tid, st[tid]);
    }
  }
}

/* The tensor-copy march (mhd_tiled_tma_kernel) step by step on planned region p, the boxes as
 * host copies. */
template <int XM> static void emulate_tma_march(G::kparams<float> p, const tess_tma_host &h) {
  typedef G::tile_geom<32, 16, float, XM> TG;
  std::vector<float> sm(TG::TOTAL);
  std::vector<G::tile_state<float>> st(TG::NT);
  for (int b = 0; b < G::tiles_total(p); b++) {
    std::fill(sm.begin(), sm.end(), NAN); /* reading what no box brought shows */
    std::memcpy(sm.data(), prec<float>::tab(), prec<float>::tab_bytes());
    const G::tile_item it = G::tile_of<32, 16>(p, b);
    const int sig = (it.X0 - 3) & 3;
    for (int z = it.z0 - 3; z <= it.z0 + 3; z++)
      G::tma_plane<32, 16, XM>(p, nullptr, h, sm.data(), it, sig, z, it.z0, z == it.z0 + 3);
    for (int tid = 0; tid < TG::NT; tid++)
      G::tile_prologue<32, 16>(p, it, tid, st[tid]);
    for (int zc = it.z0; zc < it.z1; zc++) {
      if (zc + 1 < it.z1)
        for (int j = 0; j < G::TMA_ISSUERS; j++)
          G::tma_step<32, 16, XM>(p, nullptr, h, sm.data(), it, sig, zc + 4, j);
      for (int tid = 0; tid < TG::NT; tid++)
        G::tile_compute<32, 16, float, false, XM>(
            p, sm.data(), reinterpret_cast<const unsigned long long *>(sm.data()), it, zc, tid,
            st[tid], sig);
    }
  }
}

/* The march that fills its own ghosts (mhd_tiled_tma_kernel with AH) on planned region q (q.wg
 * the tile's ghost widths), its blocks as the device might interleave them: in turn, each as far
 * as it can go before a plane it waits for (where the kernel's issuers wait: their first plane,
 * then each plane whose batch is not the last one's: fill_waits) is not yet counted by every
 * block (block 0 first: the most a block can run ahead of the others). A schedule that counts a
 * plane before its ghosts are stored, or skips a wait it needs, shows as a stale (NaN) ghost read
 * by a block ahead; one that never counts it, as a block that cannot go on (reported, abort); a
 * read of a plane no block counts, as fill_wait's abort. Each block's steps keep the kernel's
 * order: count finished batches, fill, wait, march. The counters live apart from the array here, so
 * a read of the first ghost plane (NaN) shows. */
template <int XM> static void emulate_ahead(G::kparams<float> q, const tess_tma_host &h) {
  typedef G::tile_geom<32, 16, float, XM> TG;
  const int g0 = q.wg[0], g1 = q.wg[1], g = q.wg[2], nb = q.items, n = q.dim[2] - 2 * g;
  const int pro = G::FILL_AHEAD < n ? G::FILL_AHEAD : n;
  G::kparams<float> p = q;
  p.wg[0] = p.wg[1] = 0; /* the march's view: z at its image */
  std::vector<unsigned> count(G::fill_batches(n, n), 0u);
  /* fill_wait's condition */
  const auto counted = [&](int z) { return count[G::fill_batch_of(p, z)] >= (unsigned)nb; };
  struct block {
    std::vector<float> sm, fv;
    std::vector<G::tile_state<float>> st;
    std::vector<G::fill_share> f;
    G::tile_item it;
    int sig, zc = -1;    /* -1: its first planes not yet issued */
    bool filled = false; /* this step's counting and filling done */
  };
  std::vector<block> bs(nb);
  for (int b = 0; b < nb; b++) { /* each block's start: the first FILL_AHEAD planes, counted */
    block &k = bs[b];
    k.fv.assign(TG::NT, 0.0f), k.st.resize(TG::NT), k.f.resize(TG::NT);
    k.sm.assign(TG::TOTAL, NAN);
    std::memcpy(k.sm.data(), prec<float>::tab(), prec<float>::tab_bytes());
    k.it = G::tile_of<32, 16>(p, b), k.sig = (k.it.X0 - 3) & 3;
    for (int tid = 0; tid < TG::NT; tid++) {
      k.f[tid] = G::fill_share_of(p, g0, g1, b, nb, tid);
      G::fill_first(p, k.f[tid], pro);
    }
    G::fill_publish(count.data(), 0, G::fill_batches(pro, n));
  }
  /* One step of block k, or false where it must wait. */
  const auto advance = [&](block &k) {
    if (k.zc < 0) {
      for (int z = k.it.z0 - 3; z <= k.it.z0 + 3; z++)
        if (G::fill_waits(p, z, z == k.it.z0 - 3) && !counted(z)) return false;
      for (int z = k.it.z0 - 3; z <= k.it.z0 + 3; z++) {
        if (G::fill_waits(p, z, z == k.it.z0 - 3)) G::fill_wait(p, count.data(), z, (unsigned)nb);
        G::tma_plane<32, 16, XM>(p, nullptr, h, k.sm.data(), k.it, k.sig, z, k.it.z0,
                                 z == k.it.z0 + 3);
      }
      for (int tid = 0; tid < TG::NT; tid++)
        G::tile_prologue<32, 16, true>(p, k.it, tid, k.st[tid]);
      k.zc = k.it.z0;
      return true;
    }
    if (k.zc >= k.it.z1) return false;
    const int zc = k.zc, kf = pro + (zc - k.it.z0);
    if (!k.filled) {
      if (zc > k.it.z0) G::fill_publish_step(count.data(), kf, pro, n);
      for (int tid = 0; tid < TG::NT; tid++)
        G::fill_next(p, k.f[tid], kf, pro, k.fv[tid]);
      k.filled = true;
    }
    if (zc + 1 < k.it.z1) {
      if (G::fill_waits(p, zc + 4, zc == k.it.z0) && !counted(zc + 4)) return false;
      if (G::fill_waits(p, zc + 4, zc == k.it.z0))
        G::fill_wait(p, count.data(), zc + 4, (unsigned)nb);
      for (int j = 0; j < G::TMA_ISSUERS; j++)
        G::tma_step<32, 16, XM>(p, nullptr, h, k.sm.data(), k.it, k.sig, zc + 4, j);
    }
    for (int tid = 0; tid < TG::NT; tid++)
      G::tile_compute<32, 16, float, true, XM>(
          p, k.sm.data(), reinterpret_cast<const unsigned long long *>(k.sm.data()), k.it, zc, tid,
          k.st[tid], k.sig);
    k.zc++, k.filled = false;
    return true;
  };
  for (bool moved = true; moved;) {
    moved = false;
    for (block &k : bs)
      while (advance(k))
        moved = true;
  }
  for (const block &k : bs)
    if (k.zc < k.it.z1) {
      std::fprintf(stderr, "emulate_ahead: blocks wait on each other (block at plane %d)\n", k.zc);
      std::abort();
    }
}

/* launch_tma on the host: a lone periodic tile's march filling its own ghosts where it applies
 * (emulate_ahead), else the fill (fill_images), then the plain march. */
template <int XM>
static void emulate_tma(G::kparams<float> p, const tess_tma_host &h, G::tma_use use) {
  G::kparams<float> q = p;
  if ((p.wg[0] | p.wg[1] | p.wg[2]) && use != G::TMA_FILL &&
      G::plan_ahead(q, 1 << 20, use == G::TMA_ALWAYS)) {
    emulate_ahead<XM>(q, h);
    return;
  }
  if (p.wg[0] | p.wg[1] | p.wg[2]) { /* G::fill_images */
    for (long long e = 0; e < G::fill_count(p); e++)
      G::fill_ghost(p, e);
    p.wg[0] = p.wg[1] = p.wg[2] = 0;
  }
  G::plan_tiles<32, 16>(p, 8, true);
  G::force_pieces(p, 3);
  emulate_tma_march<XM>(p, h);
}

template <class T> static void emulate(const tess_region *r, int kind) {
  G::kparams<T> p;
  if (!G::make_kparams(r, p)) return;
  if (kind == G::KIND_AUTO) kind = G::auto_kind(p);
  if (!(p.c.active[0] && p.c.active[1] && p.c.active[2])) kind = G::KIND_GENERIC;
  const bool wr = p.wg[0] | p.wg[1] | p.wg[2]; /* as launch_tiled and launch_generic pick */
  if (kind == G::KIND_TILED_WHOLE || kind == G::KIND_TILED_PIECES)
    kind = G::KIND_TILED; /* the emulation cuts pieces always */
  tess_tma_host h;        /* as launch_tile and launch_tma pick */
  if constexpr (sizeof(T) == 4) {
    const G::tma_use use = kind == G::KIND_TILED_TMA    ? G::TMA_ALWAYS
                           : kind == G::KIND_TILED_FILL ? G::TMA_FILL
                           : kind == G::KIND_TILED      ? G::TMA_AUTO
                                                        : G::TMA_NEVER;
    if (G::tall_tile(p) && G::tma_wanted(p, use) && G::tma_view(p, &h)) {
      p.X % 4 == 0 ? emulate_tma<0>(p, h, use) : emulate_tma<2>(p, h, use);
      return;
    }
  }
  if (kind == G::KIND_TILED_COPIES || kind == G::KIND_TILED_TMA || kind == G::KIND_TILED_FILL)
    kind = G::KIND_TILED;
  if (kind == G::KIND_TILED && G::tall_tile(p))
    wr ? emulate_tiled<32, 16, true>(p) : emulate_tiled<32, 16, false>(p);
  else if (kind == G::KIND_TILED || kind == G::KIND_TILED32X8)
    wr ? emulate_tiled<32, 8, true>(p) : emulate_tiled<32, 8, false>(p);
  else if (kind == G::KIND_TILED16)
    wr ? emulate_tiled<16, 16, true>(p) : emulate_tiled<16, 16, false>(p);
  else
    for (int z = p.lo[2]; z < p.hi[2]; z++)
      for (int y = p.lo[1]; y < p.hi[1]; y++)
        for (int x = p.lo[0]; x < p.hi[0]; x++)
          wr ? G::generic_cell<T, true>(p, prec<T>::tab(), x, y, z)
             : G::generic_cell<T, false>(p, prec<T>::tab(), x, y, z);
}

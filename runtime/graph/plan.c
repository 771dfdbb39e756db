/* plan.c — links, classes and the reads of each class (see plan.h). Pure geometry: every rank
 * derives the same links for the same pair of tiles, in the same order with the same moves, so
 * a sender's pack and a receiver's unpack agree on the buffer layout without talking. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sim.h"

static void neighbour(const tess_sim_t sim, const int gc[3], const int d[3], int out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = ((gc[i] + d[i]) % sim->G[i] + sim->G[i]) % sim->G[i];
}

static int gid_of(const tess_sim_t sim, const int gc[3]) {
  return gc[0] + sim->G[0] * (gc[1] + sim->G[1] * gc[2]);
}

/* Two moves that continue each other along one axis (and agree on the others) become one. */
static int merge_pair(tess_boxmove *a, const tess_boxmove *b) {
  for (int i = 0; i < 3; i++) {
    int ok = a->src_lo[i] + a->ext[i] == b->src_lo[i] && a->dst_lo[i] + a->ext[i] == b->dst_lo[i];
    for (int j = 0; j < 3 && ok; j++)
      ok = j == i ||
           (a->src_lo[j] == b->src_lo[j] && a->dst_lo[j] == b->dst_lo[j] && a->ext[j] == b->ext[j]);
    if (ok) {
      a->ext[i] += b->ext[i];
      return 1;
    }
  }
  return 0;
}

void tess_boxmoves_merge(tess_boxmove *mv, int *n) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (int a = 0; a < *n && !changed; a++)
      for (int b = 0; b < *n && !changed; b++)
        if (a != b && merge_pair(&mv[a], &mv[b])) {
          memmove(&mv[b], &mv[b + 1], (size_t)(*n - b - 1) * sizeof *mv);
          (*n)--;
          changed = 1;
        }
  }
}

static int delayed(const tess_sim_t sim, int gid, int h) {
  return sim->delay.active && sim->delay.tile == gid && sim->delay.dir == h;
}

/* The incoming links of the tile at xc (on any rank), for the halo directions in `need`. A tile
 * on this rank knows its neighbours' memory nodes; for the others only rank matters here (we
 * build their links only to find what this rank sends them). */
static int links_of(const tess_sim_t sim, const int xc[3], uint32_t need, tess_link *link,
                    int dir_link[TESS_NDIRS]) {
  int xl, n = 0;
  const int xgid = gid_of(sim, xc), xrank = tess_sim_tile_owner(sim, xc, &xl);
  for (int h = 0; h < TESS_NDIRS; h++) {
    if (dir_link) dir_link[h] = -1;
    int hv[3], d[3], nc3[3], nl;
    tess_dir_vector(h, hv);
    tess_box hb, sb;
    tess_halo_box(sim->tn, sim->ghost, hv, &hb);
    if (h == TESS_DIR_CENTER || !((need >> h) & 1) || tess_box_empty(&hb)) continue;
    int axis;
    if (tess_boundary_physical(sim, xc, hv, &axis)) {
      /* a physical face: a link of its own, from the tile itself, whose moves are fills
       * (boundary.c); its source box, for the classes it reads: the owned cells along the
       * normal, as deep as the ghosts and at least 2 (outflow reads u_0 and u_1) */
      tess_link *l = &link[n];
      memset(l, 0, sizeof *l);
      l->dst_gid = l->src_gid = xgid;
      l->dst_rank = l->src_rank = xrank;
      l->dst_local = l->src_local = xrank == sim->rank ? xl : -1;
      l->physical = 1;
      l->rep = h;
      l->dirs = 1u << h;
      l->nmove = 1;
      const int depth = hb.hi[axis] - hb.lo[axis] > 2 ? hb.hi[axis] - hb.lo[axis] : 2;
      for (int i = 0; i < 3; i++) {
        l->mv[0].src_lo[i] = l->mv[0].dst_lo[i] = hb.lo[i];
        l->mv[0].ext[i] = hb.hi[i] - hb.lo[i];
      }
      l->mv[0].src_lo[axis] = hv[axis] < 0 ? sim->ghost[axis] : hb.lo[axis] - depth;
      l->mv[0].ext[axis] = depth;
      l->volume = tess_box_cells(&hb);
      if (dir_link) dir_link[h] = n;
      n++;
      continue;
    }
    for (int i = 0; i < 3; i++)
      d[i] = -hv[i];
    tess_send_box(sim->tn, sim->ghost, d, &sb);
    neighbour(sim, xc, hv, nc3);
    const int ngid = gid_of(sim, nc3), nrank = tess_sim_tile_owner(sim, nc3, &nl);
    const int held = delayed(sim, xgid, h);
    int k = 0;
    while (k < n && !(link[k].src_gid == ngid && !link[k].physical && !held &&
                      !delayed(sim, xgid, link[k].rep)))
      k++;
    if (k == n) {
      tess_link *l = &link[n++];
      memset(l, 0, sizeof *l);
      l->dst_gid = xgid;
      l->src_gid = ngid;
      l->dst_rank = xrank;
      l->src_rank = nrank;
      l->dst_local = xrank == sim->rank ? xl : -1;
      l->src_local = nrank == sim->rank ? nl : -1;
      l->buffered = held || nrank != xrank || sim->mode == TESS_MODE_BUFFERED ||
                    (xrank == sim->rank && sim->tile[xl].node != sim->tile[nl].node);
      l->rep = h;
    }
    tess_link *l = &link[k];
    l->dirs |= 1u << h;
    if (dir_link) dir_link[h] = k;
    tess_boxmove *m = &l->mv[l->nmove++];
    for (int i = 0; i < 3; i++) {
      m->src_lo[i] = sb.lo[i];
      m->dst_lo[i] = hb.lo[i];
      m->ext[i] = hb.hi[i] - hb.lo[i];
    }
    l->volume += tess_box_cells(&hb);
  }
  for (int k = 0; k < n; k++)
    tess_boxmoves_merge(link[k].mv, &link[k].nmove);
  /* an edge or corner fill reads the ghosts of its direction without the fill's axis */
  for (int k = 0; dir_link && k < n; k++) {
    int hv[3], axis;
    tess_dir_vector(link[k].rep, hv);
    if (!link[k].physical || !tess_boundary_physical(sim, xc, hv, &axis)) continue;
    hv[axis] = 0;
    const int from = tess_dir_index(hv);
    if (from != TESS_DIR_CENTER && dir_link[from] >= 0) link[k].pre |= 1u << dir_link[from];
  }
  return n;
}

static int piece_dir(int p) {
  int a[3];
  tess_piece_coord(p, a);
  return (a[0] - 1) + 3 * (a[1] - 1) + 9 * (a[2] - 1);
}

/* The halo direction a halo piece lies in. */
static int halo_dir(int q) {
  int a[3], h[3];
  tess_piece_coord(q, a);
  for (int i = 0; i < 3; i++)
    h[i] = a[i] == 0 ? -1 : a[i] == 4 ? 1 : 0;
  return tess_dir_index(h);
}

static int nonzero(int dir) {
  int d[3];
  tess_dir_vector(dir, d);
  return (d[0] != 0) + (d[1] != 0) + (d[2] != 0);
}

static void build_classes(const tess_sim_t sim, tess_plan *p) {
  p->nclass = 0;
  for (int q = 0; q < TESS_NPIECES; q++) {
    p->piece_class[q] = -1;
    tess_box b;
    tess_piece_box(sim->tn, sim->ghost, q, &b);
    if (!tess_piece_owned(q) || tess_box_empty(&b)) continue;
    uint32_t waits = 0;
    for (int o = 0; o < sim->nops; o++) {
      const tess_op *op = sim->op[o];
      for (int r = 0; op->kind == TESS_OP_STAGE && r < TESS_NPIECES; r++) {
        if (!tess_pieceset_has(&op->reads[q], r) || tess_piece_owned(r)) continue;
        const int l = p->dir_link[halo_dir(r)];
        if (l >= 0 && p->in[l].buffered) waits |= 1u << l;
      }
    }
    int c = 0;
    while (c < p->nclass && p->cls[c].waits != waits)
      c++;
    if (c == p->nclass) {
      p->cls[c] = (tess_class){.waits = waits, .rep = piece_dir(q)};
      p->nclass++;
    }
    tess_class *k = &p->cls[c];
    k->pieces |= 1u << piece_dir(q);
    if (waits == 0)
      k->rep = TESS_DIR_CENTER;
    else if (nonzero(piece_dir(q)) < nonzero(k->rep))
      k->rep = piece_dir(q);
    p->piece_class[q] = c;
  }
  /* the boxes of each class, merged where pieces line up */
  for (int c = 0; c < p->nclass; c++) {
    tess_boxmove mv[TESS_NDIRS];
    int n = 0;
    for (int q = 0; q < TESS_NPIECES; q++) {
      if (p->piece_class[q] != c) continue;
      tess_box b;
      tess_piece_box(sim->tn, sim->ghost, q, &b);
      for (int i = 0; i < 3; i++) {
        mv[n].src_lo[i] = mv[n].dst_lo[i] = b.lo[i];
        mv[n].ext[i] = b.hi[i] - b.lo[i];
      }
      n++;
    }
    tess_boxmoves_merge(mv, &n);
    p->cls[c].nbox = n;
    for (int k = 0; k < n; k++)
      for (int i = 0; i < 3; i++) {
        p->cls[c].box[k].lo[i] = mv[k].dst_lo[i];
        p->cls[c].box[k].hi[i] = mv[k].dst_lo[i] + mv[k].ext[i];
      }
  }
}

static void build_reads(const tess_sim_t sim, tess_plan *p) {
  memset(p->reads_cls, 0, sizeof p->reads_cls);
  memset(p->reads_in, 0, sizeof p->reads_in);
  for (int o = 0; o < sim->nops; o++) {
    const tess_op *op = sim->op[o];
    if (op->kind != TESS_OP_STAGE) continue;
    for (int q = 0; q < TESS_NPIECES; q++) {
      const int c = p->piece_class[q];
      if (c < 0) continue;
      for (int r = 0; r < TESS_NPIECES; r++) {
        if (!tess_pieceset_has(&op->reads[q], r)) continue;
        if (tess_piece_owned(r)) {
          if (p->piece_class[r] >= 0) p->reads_cls[o][c] |= 1u << p->piece_class[r];
        } else if (p->dir_link[halo_dir(r)] >= 0) {
          p->reads_in[o][c] |= 1u << p->dir_link[halo_dir(r)];
        }
      }
      /* inputs computed on the producer's extent: the class whose grown pieces wrote them */
      for (int r = 0; r < TESS_NPIECES; r++) {
        const int pc =
            tess_pieceset_has(&op->lreads[q], r) ? p->piece_class[tess_piece_clamp(r)] : -1;
        if (pc >= 0) p->reads_cls[o][c] |= 1u << pc;
      }
    }
  }
}

uint32_t tess_plan_classes_in(const tess_sim_t sim, const tess_plan *p, const int lo[3],
                              const int ext[3]) {
  uint32_t set = 0;
  for (int q = 0; q < TESS_NPIECES; q++) {
    if (p->piece_class[q] < 0) continue;
    tess_box b;
    tess_piece_box(sim->tn, sim->ghost, q, &b);
    int meet = 1;
    for (int i = 0; i < 3; i++)
      meet &= b.lo[i] < lo[i] + ext[i] && lo[i] < b.hi[i];
    if (meet) set |= 1u << p->piece_class[q];
  }
  return set;
}

static uint32_t link_classes(const tess_sim_t sim, const tess_link *l) {
  const tess_plan *src = sim->tile[l->src_local].plan;
  uint32_t set = 0;
  for (int k = 0; k < l->nmove; k++)
    set |= tess_plan_classes_in(sim, src, l->mv[k].src_lo, l->mv[k].ext);
  return set;
}

int tess_plan_build(tess_sim_t sim) {
  uint32_t need = 0;
  for (int o = 0; o < sim->nops; o++)
    if (sim->op[o]->kind == TESS_OP_STAGE) need |= sim->op[o]->halo_dirs;
  for (int t = 0; t < sim->ntiles; t++) {
    tess_tile *x = &sim->tile[t];
    tess_plan *p = x->plan = calloc(1, sizeof *p);
    if (!p) return -1;
    p->nin = links_of(sim, x->gcoord, need, p->in, p->dir_link);
    build_classes(sim, p);
    build_reads(sim, p);
  }
  /* what each tile sends to tiles of other ranks: their links whose source it is */
  for (int t = 0; t < sim->ntiles; t++) {
    tess_tile *n = &sim->tile[t];
    tess_plan *p = n->plan;
    for (int d = 0; d < TESS_NDIRS; d++) {
      int dv[3], xc[3];
      tess_dir_vector(d, dv);
      neighbour(sim, n->gcoord, dv, xc);
      if (d == TESS_DIR_CENTER || tess_sim_tile_owner(sim, xc, NULL) == sim->rank) continue;
      tess_link theirs[TESS_MAX_LINKS];
      const int nl = links_of(sim, xc, need, theirs, NULL);
      for (int k = 0; k < nl; k++) {
        if (theirs[k].src_gid != n->id) continue;
        int dup = 0;
        for (int j = 0; j < p->nout; j++)
          dup |= p->out[j].dst_gid == theirs[k].dst_gid && p->out[j].rep == theirs[k].rep;
        if (!dup) p->out[p->nout++] = theirs[k];
      }
    }
  }
  for (int t = 0; t < sim->ntiles; t++) {
    tess_plan *p = sim->tile[t].plan;
    for (int k = 0; k < p->nin; k++) {
      const tess_link *l = &p->in[k];
      if (l->src_local >= 0) p->in[k].src_classes = link_classes(sim, l);
      if (!l->buffered) continue;
      p->buffered |= 1u << k;
      if (l->src_local < 0) continue;
      tess_plan *src = sim->tile[l->src_local].plan; /* its sender packs it (halo.c) */
      src->feed[src->nfeed++] = (tess_feed){t, k};
    }
    for (int k = 0; k < p->nout; k++)
      p->out[k].src_classes = link_classes(sim, &p->out[k]);
  }
  return 0;
}

/* Tasks of one stage that exchanges every link, on tile t: classes, the local fill (its own
 * task only when there are several classes), unpacks (as the first stage would host them), and
 * one pack for all it sends. */
void tess_plan_describe(const tess_sim_t sim) {
  if (!tess_log_enabled(TESS_LOG_INFO)) return;
  int first = 0;
  while (first < sim->nops - 1 && sim->op[first]->kind != TESS_OP_STAGE)
    first++;
  for (int t = 0; t < sim->ntiles; t++) {
    const tess_plan *p = sim->tile[t].plan;
    int local = 0, buffered = 0, unpacks = 0;
    int walls = 0;
    for (int k = 0; k < p->nin; k++) {
      if (p->in[k].physical) {
        walls++;
        continue;
      }
      p->in[k].buffered ? buffered++ : local++;
      unpacks += p->in[k].buffered && (p->in[k].src_local < 0 ||
                                       tess_halo_unpack_host(sim, first, &sim->tile[t], k) < 0);
    }
    const int packs = p->nout + p->nfeed > 0; /* one for all it sends (halo.c) */
    const int fill = p->nclass > 1 && local > 0;
    tess_log(TESS_LOG_INFO,
             "plan: tile %d: %d class(es), %d local + %d buffered link(s) in, %d out, %d "
             "physical halo direction(s); tasks per exchanging stage: %d compute + %d fill + %d "
             "unpack + %d pack + %d boundary = %d (%d buffered link(s) unpack in a compute task "
             "that reads them, halo.c)",
             sim->tile[t].id, p->nclass, local, buffered, p->nout, walls, p->nclass, fill, unpacks,
             packs, p->nclass > 1 ? walls : 0,
             p->nclass + fill + unpacks + packs + (p->nclass > 1 ? walls : 0), buffered - unpacks);
  }
}

tess_err tess_plan_check_writers(struct tess_sim_s *sim) {
  uint32_t need = 0;
  for (int o = 0; o < sim->nops; o++)
    if (sim->op[o]->kind == TESS_OP_STAGE) need |= sim->op[o]->halo_dirs;
  for (int t = 0; t < sim->ntiles; t++) {
    const tess_plan *p = sim->tile[t].plan;
    for (int d = 0; d < TESS_NDIRS; d++) {
      int h[3], writers = 0;
      tess_dir_vector(d, h);
      tess_box hb;
      tess_halo_box(sim->tn, sim->ghost, h, &hb);
      if (d == TESS_DIR_CENTER || !((need >> d) & 1) || tess_box_empty(&hb)) continue;
      for (int k = 0; k < p->nin; k++)
        writers += (p->in[k].dirs >> d) & 1;
      TESS_CHECK(writers == 1 && p->dir_link[d] >= 0, TESS_ERR_STATE,
                 "tile %d: halo direction %d has %d writers (exactly one is allowed)",
                 sim->tile[t].id, d, writers);
      const tess_link *l = &p->in[p->dir_link[d]];
      int axis;
      if (!l->physical) continue;
      TESS_CHECK(tess_boundary_physical(sim, sim->tile[t].gcoord, h, &axis), TESS_ERR_STATE,
                 "tile %d: halo direction %d is filled as a physical face but is none",
                 sim->tile[t].id, d);
      /* the ghosts it extends: written before it, by one writer, never by itself */
      h[axis] = 0;
      /* (a physical one has one non-zero component fewer: its fill runs first, halo.c) */
      const int from = tess_dir_index(h);
      if (from == TESS_DIR_CENTER) continue;
      const int src = p->dir_link[from];
      TESS_CHECK(src >= 0 && (p->in[src].dirs >> from & 1) && src != p->dir_link[d] &&
                     ((l->pre >> src) & 1),
                 TESS_ERR_STATE,
                 "tile %d: the fill of halo direction %d reads direction %d, which nothing "
                 "fills before it",
                 sim->tile[t].id, d, from);
    }
  }
  return TESS_OK;
}

void tess_plan_release(tess_sim_t sim) {
  for (int t = 0; sim->tile && t < sim->ntiles; t++) {
    tess_plan *p = sim->tile[t].plan;
    if (!p) continue;
    for (int k = 0; k < p->nin + p->nout; k++) {
      tess_link *l = k < p->nin ? &p->in[k] : &p->out[k - p->nin];
      for (int o = 0; o < TESS_MAX_OPS; o++)
        if (l->buf[o]) starpu_data_unregister(l->buf[o]);
    }
    free(p);
    sim->tile[t].plan = NULL;
  }
}

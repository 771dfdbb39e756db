/* halo.c — the halo exchange of one stage, link by link (plan.h), as tasks StarPU orders by
 * their tokens.
 *
 * A buffered link from tile N into tile X carries every stale input of the stage at once, in a
 * buffer of its own; N fills the buffers of all its buffered links in one pack task:
 *
 *   N: pack (every link it sends: all boxes, all fields) -> buffer of link N->X, N->Y, ...
 *      --(same rank: StarPU copies it, GPU<->GPU direct)-->
 *      --(other rank: starpu_mpi_isend / irecv, host-staged, or MPI on the buffers' own memory,
 *         direct.c)-->
 *   buffer -> X: unpack -> X's halo token of that link -> the classes whose footprint reads it
 *
 * The unpack is done by the first class task that reads the link (unpack_host, plan.h), before
 * its kernel, for a link from this rank or another (the class then waits for the receive); where
 * no class can, it is a task of its own.
 * A local link (N on X's memory node, or N = X) is a list of box copies from N's owned cells
 * into X's halo: done by X's only compute task when X has one class, else by one fill task per
 * tile and stage ("copy" in the logs), before the classes that read them.
 *
 * pack reads only the class tokens of N whose cells it sends, an unpack writes only its link's
 * halo token, so each receiver's chain depends on nothing but its own neighbours' data (digest
 * 2.7). Receives are posted before the packs (NekCEM's order). The buffers of a link are per
 * stage (each stage may carry other fields); StarPU orders pack-after-send (reuse) and
 * unpack-after-receive.
 */
#include "error.h"
#include "sim.h"

#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

/* The boxes link l moves of input k of op: the link's halo directions that the input reads,
 * each clipped to the field's halo widths (one-sided, per axis), merged where they line up.
 * Pure geometry, so sender and receiver enumerate the same list. Returns the count. */
static int input_moves(const tess_sim_t sim, const tess_op *op, int k, const tess_link *l,
                       tess_boxmove *mv) {
  const tess_field *f = &sim->field[op->stage.in[k]];
  const int *tn = sim->tn, *g = sim->ghost;
  int n = 0;
  uint32_t dirs = l->dirs & op->in_dirs[k];
  if (!l->buffered && !l->physical) dirs &= ~op->in_valid[k]; /* a copy skips what is current */
  for (int d = 0; d < TESS_NDIRS; d++) {
    if (!(dirs >> d & 1)) continue;
    int h[3], lo[3], hi[3];
    tess_dir_vector(d, h);
    for (int i = 0; i < 3; i++) {
      lo[i] = h[i] < 0 ? g[i] - f->wlo[i] : h[i] > 0 ? tn[i] + g[i] : g[i];
      hi[i] = h[i] < 0 ? g[i] : h[i] > 0 ? tn[i] + g[i] + f->whi[i] : tn[i] + g[i];
    }
    if (lo[0] >= hi[0] || lo[1] >= hi[1] || lo[2] >= hi[2]) continue;
    for (int i = 0; i < 3; i++) {
      mv[n].dst_lo[i] = lo[i];
      mv[n].src_lo[i] = lo[i] - h[i] * tn[i];
      mv[n].ext[i] = hi[i] - lo[i];
    }
    n++;
  }
  tess_boxmoves_merge(mv, &n);
  return n;
}

/* The fills of a physical link l of tile x for the stale inputs of op (moves NULL: count). */
static int fill_moves(const tess_sim_t sim, const tess_op *op, const tess_link *l,
                      const tess_tile *x, tess_moves *mv) {
  int n = 0;
  for (int k = 0; k < op->stage.nin; k++)
    if (((op->in_stale >> k) & 1) && ((op->in_dirs[k] >> l->rep) & 1))
      n += tess_boundary_moves(sim, op, k, x, l->rep, mv);
  return n;
}

/* Moves and elements (per component count) link l carries for the inputs in `set` of op. */
static int link_moves(const tess_sim_t sim, const tess_op *op, uint32_t set, const tess_link *l,
                      long *elements) {
  int n = 0;
  long e = 0;
  if (l->physical) { /* never buffered: only counted for the task that fills */
    if (elements) *elements = 0;
    return fill_moves(sim, op, l, &sim->tile[l->dst_local], NULL);
  }
  for (int k = 0; k < op->stage.nin; k++) {
    if (!((set >> k) & 1)) continue;
    tess_boxmove mv[TESS_MAX_LINKS];
    const int m = input_moves(sim, op, k, l, mv);
    n += m;
    for (int b = 0; b < m; b++)
      e += (long)mv[b].ext[0] * mv[b].ext[1] * mv[b].ext[2] * sim->field[op->stage.in[k]].nc;
  }
  if (elements) *elements = e;
  return n;
}

static void set_side(tess_side *s, void *tile, const int dim[3], const int lo[3], size_t off,
                     int buf, const int ext[3]) {
  s->ptr = tile;
  s->off = off;
  s->buf = tile ? 0 : buf;
  for (int i = 0; i < 3; i++) {
    s->dim[i] = tile ? dim[i] : ext[i];
    s->lo[i] = tile ? lo[i] : 0;
  }
}

enum side { PACK, UNPACK, FILL };

/* Appends link l's moves of the stale inputs of op, fields after fields, in the buffer's order
 * when one side is the buffer (both ranks enumerate the same list); buf: the task's buffer
 * number that side refers to. */
static void add_moves(const tess_sim_t sim, const tess_op *op, const tess_link *l, enum side s,
                      int buf, tess_moves *mv) {
  size_t off = 0;
  for (int k = 0; k < op->stage.nin; k++) {
    if (!((op->in_stale >> k) & 1)) continue;
    const tess_field *f = &sim->field[op->stage.in[k]];
    void *src = s != UNPACK ? sim->tile[l->src_local].slot[f->slot].base : NULL;
    void *dst = s != PACK ? sim->tile[l->dst_local].slot[f->slot].base : NULL;
    tess_boxmove bms[TESS_MAX_LINKS];
    const int nb = input_moves(sim, op, k, l, bms);
    for (int b = 0; b < nb; b++) {
      const tess_boxmove *bm = &bms[b];
      tess_move *m = &mv->m[mv->n++];
      memset(m, 0, sizeof *m); /* a copy: bc.kind 0 */
      m->nc = f->nc;
      for (int i = 0; i < 3; i++)
        m->ext[i] = bm->ext[i];
      set_side(&m->src, src, sim->dim, bm->src_lo, off, buf, bm->ext);
      set_side(&m->dst, dst, sim->dim, bm->dst_lo, off, buf, bm->ext);
      off += tess_move_count(m);
    }
  }
  if (s != FILL) {
    mv->buffer_len[buf] = off;
    if (buf >= mv->nbuf) mv->nbuf = buf + 1;
  }
}

/* Whether link l refreshes input k of op now: the input is stale, and a local copy has a box
 * of it to move (its current directions are skipped). */
static int carries(const tess_sim_t sim, const tess_op *op, int k, const tess_link *l) {
  if (!((op->in_stale >> k) & 1)) return 0;
  if (l->buffered || l->physical) return 1;
  tess_boxmove mv[TESS_MAX_LINKS];
  return input_moves(sim, op, k, l, mv) > 0;
}

/* Adds, for each input the link refreshes, the source tile's class tokens that link l reads. */
static void add_source_tokens(const tess_sim_t sim, const tess_op *op, const tess_link *l,
                              tess_task_spec *spec) {
  for (int k = 0; k < op->stage.nin; k++)
    if (carries(sim, op, k, l))
      tess_task_spec_add_own(spec, &sim->tile[l->src_local].slot[sim->field[op->stage.in[k]].slot],
                             l->src_classes, STARPU_R);
}

static void add_halo_token(const tess_sim_t sim, const tess_op *op, const tess_tile *x, int link,
                           tess_task_spec *spec) {
  for (int k = 0; k < op->stage.nin; k++)
    if (carries(sim, op, k, &x->plan->in[link]))
      tess_task_spec_add(spec, x->slot[sim->field[op->stage.in[k]].slot].halo[link], STARPU_W);
}

/* Physical links of a tile in the order their fills must run: faces, edges, corners (an edge
 * fill reads the face ghosts of its other axis, boundary.c). Returns the count. */
static int fills_in_order(const tess_plan *p, int *order) {
  int n = 0;
  for (int nz = 1; nz <= 3; nz++)
    for (int k = 0; k < p->nin; k++) {
      int h[3];
      tess_dir_vector(p->in[k].rep, h);
      if (p->in[k].physical && (h[0] != 0) + (h[1] != 0) + (h[2] != 0) == nz) order[n++] = k;
    }
  return n;
}

int tess_halo_local(const tess_sim_t sim, const tess_op *op, const tess_tile *x, tess_moves *moves,
                    tess_task_spec *spec) {
  int n = 0;
  const tess_plan *p = x->plan;
  for (int k = 0; op->in_stale && k < p->nin; k++) {
    const tess_link *l = &p->in[k];
    const int nl = l->buffered || l->physical ? 0 : link_moves(sim, op, op->in_stale, l, NULL);
    if (!nl) continue;
    n += nl;
    if (moves) add_moves(sim, op, l, FILL, 0, moves);
    if (spec) { /* the halo token is private to a one-class tile's only task: not needed */
      add_source_tokens(sim, op, l, spec);
      if (p->nclass > 1) add_halo_token(sim, op, x, k, spec);
    }
  }
  /* a tile of one class fills its physical faces here too, after the copies (an edge fill may
   * read their cells); with several classes each face is a task of its own (boundary tasks) */
  int order[TESS_MAX_LINKS];
  const int nf = op->in_stale && p->nclass == 1 ? fills_in_order(p, order) : 0;
  for (int i = 0; i < nf; i++) {
    const tess_link *l = &p->in[order[i]];
    const int nl = fill_moves(sim, op, l, x, NULL);
    if (!nl) continue;
    n += nl;
    if (moves) fill_moves(sim, op, l, x, moves);
    if (spec) add_source_tokens(sim, op, l, spec);
  }
  return n;
}

/* The boundary tasks of the tiles of several classes: one per physical halo direction, after
 * the copies and unpacks (submitted first), faces before edges before corners. Each reads the
 * classes whose owned cells it mirrors and the halo tokens of the ghosts it extends, and writes
 * its own halo token, which the classes reading that direction wait for. */
static tess_err submit_fills(tess_sim_t sim, int op_index, const tess_op *op) {
  for (int t = 0; t < sim->ntiles; t++) {
    tess_tile *x = &sim->tile[t];
    const tess_plan *p = x->plan;
    int order[TESS_MAX_LINKS];
    const int nf = p->nclass > 1 ? fills_in_order(p, order) : 0;
    for (int i = 0; i < nf; i++) {
      const int k = order[i];
      const tess_link *l = &p->in[k];
      const int nm = fill_moves(sim, op, l, x, NULL);
      if (!nm) continue;
      tess_moves *mv = tess_moves_new(nm, (int)sim->esize);
      TESS_CHECK(mv, TESS_ERR_MEM, "cannot allocate ghost fills");
      fill_moves(sim, op, l, x, mv);
      tess_task_spec spec = {.cl = &tess_boundary_cl,
                             .arg = mv,
                             .arg_size = tess_moves_bytes(mv),
                             .priority = TESS_PRIO_HALO,
                             .tile = x,
                             .kind = TESS_TASK_BOUNDARY,
                             .log_tile = x->id,
                             .dir = l->rep,
                             .dirs = l->dirs,
                             .stage = op_index};
      add_source_tokens(sim, op, l, &spec);
      for (int j = 0; j < p->nin; j++)
        if ((l->pre >> j) & 1)
          for (int q = 0; q < op->stage.nin; q++)
            if ((op->in_stale >> q) & 1)
              tess_task_spec_add(&spec, x->slot[sim->field[op->stage.in[q]].slot].halo[j],
                                 STARPU_R);
      add_halo_token(sim, op, x, k, &spec);
      TESS_CALL(tess_task_submit(sim, &spec));
    }
  }
  return TESS_OK;
}

/* The link's buffer for stage op, sized for the `count` elements of the inputs it refreshes now
 * (link_moves; the same on both ranks): a stage that refreshes other inputs than last time gets
 * a buffer of the new size. */
static starpu_data_handle_t link_buffer(const tess_sim_t sim, tess_link *l, int op_index,
                                        long count) {
  if (l->buf[op_index] && starpu_vector_get_nx(l->buf[op_index]) != (uint32_t)count) {
    starpu_data_unregister_submit(l->buf[op_index]);
    l->buf[op_index] = NULL;
  }
  if (!l->buf[op_index])
    starpu_vector_data_register(&l->buf[op_index], -1, 0, (uint32_t)count, sim->esize);
  return l->buf[op_index];
}

static int64_t tag_of(const tess_sim_t sim, int op_index, const tess_link *l) {
  const int64_t ntiles = (int64_t)sim->G[0] * sim->G[1] * sim->G[2];
  return ((int64_t)op_index * ntiles + l->dst_gid) * TESS_NDIRS + l->rep;
}

/* The unpack task of link `link` of tile x from its buffer (`nmoves` box moves, link_moves). */
static tess_err submit_unpack(tess_sim_t sim, const tess_op *op, int op_index, tess_tile *x,
                              int link, starpu_data_handle_t buf, int nmoves) {
  const tess_link *l = &x->plan->in[link];
  if (sim->delay.active && sim->delay.tile == x->id && ((l->dirs >> sim->delay.dir) & 1))
    TESS_CALL(tess_task_gate(sim, buf));
  tess_moves *mv = tess_moves_new(nmoves, (int)sim->esize);
  TESS_CHECK(mv, TESS_ERR_MEM, "cannot allocate halo moves");
  add_moves(sim, op, l, UNPACK, 0, mv);
  tess_task_spec spec = {.cl = &tess_unpack_cl,
                         .arg = mv,
                         .arg_size = tess_moves_bytes(mv),
                         .priority = TESS_PRIO_HALO,
                         .tile = x,
                         .kind = TESS_TASK_UNPACK,
                         .log_tile = x->id,
                         .dir = l->rep,
                         .dirs = l->dirs,
                         .stage = op_index};
  tess_task_spec_add(&spec, buf, STARPU_R);
  add_halo_token(sim, op, x, link, &spec);
  sim->halo.unpacks++;
  return tess_task_submit(sim, &spec);
}

/* Submission order key of class c: the buffered links its footprint reads this stage, then c. */
static int class_key(const tess_plan *p, int op_index, int c) {
  return __builtin_popcount(p->reads_in[op_index][c] & p->buffered) * TESS_NDIRS + c;
}

void tess_halo_class_order(const tess_sim_t sim, int op_index, const tess_tile *x, int *order) {
  (void)sim;
  const tess_plan *p = x->plan;
  for (int c = 0; c < p->nclass; c++) { /* insertion sort by class_key: at most 27 */
    int i = c;
    while (i > 0 && class_key(p, op_index, order[i - 1]) > class_key(p, op_index, c)) {
      order[i] = order[i - 1];
      i--;
    }
    order[i] = c;
  }
}

int tess_halo_unpack_host(const tess_sim_t sim, int op_index, const tess_tile *x, int k) {
  const tess_plan *p = x->plan;
  const tess_link *l = &p->in[k];
  if (sim->no_unpack_in_class) return -1;
  if (sim->delay.active && sim->delay.tile == x->id && ((l->dirs >> sim->delay.dir) & 1)) return -1;
  for (int j = 0; j < p->nin; j++)
    if (p->in[j].physical && ((p->in[j].pre >> k) & 1)) return -1;
  int host = -1;
  for (int c = 0; c < p->nclass; c++)
    if (((p->reads_in[op_index][c] >> k) & 1) &&
        (host < 0 || class_key(p, op_index, c) < class_key(p, op_index, host)))
      host = c;
  for (int c = 0; host >= 0 && c < p->nclass; c++)
    if (((p->reads_in[op_index][c] >> k) & 1) &&
        (p->reads_in[op_index][host] & p->buffered & ~p->reads_in[op_index][c]))
      return -1;
  return host;
}

int tess_halo_hosted(const tess_sim_t sim, const tess_op *op, const tess_tile *x, int c,
                     tess_moves *moves, tess_task_spec *spec) {
  const tess_plan *p = x->plan;
  int n = 0, nb = 0;
  for (int k = 0; k < p->nin; k++) {
    if (p->host[k] != c) continue;
    n += p->host_moves[k];
    if (moves) add_moves(sim, op, &p->in[k], UNPACK, nb, moves);
    if (spec) tess_task_spec_add(spec, p->host_buf[k], STARPU_R);
    nb++;
  }
  for (int k = 0; spec && k < p->nin; k++)
    if (p->host[k] == c) add_halo_token(sim, op, x, k, spec);
  return n;
}

/* Gives link k of tile x (its buffer buf, nmoves moves) to the class that unpacks it
 * (tess_halo_unpack_host; tess_submit_compute then adds the moves to that class's task). 0: no
 * such class, the link needs an unpack task. */
static int host_unpack(tess_sim_t sim, int op_index, tess_tile *x, int k, starpu_data_handle_t buf,
                       int nmoves) {
  const int host = tess_halo_unpack_host(sim, op_index, x, k);
  if (host < 0) return 0;
  x->plan->host[k] = host;
  x->plan->host_buf[k] = buf;
  x->plan->host_moves[k] = nmoves;
  sim->halo.hosted++;
  return 1;
}

/* A buffered link a tile sends this stage: to another rank (x NULL) or to tile x of this rank
 * (its incoming link number k). */
typedef struct {
  tess_link *l;
  tess_tile *x;
  int k, nmoves;
  starpu_data_handle_t buf;
} sending;

/* Class tokens a pack of the links in `classes` reads: one per class and stale input. */
static int pack_tokens(const tess_op *op, uint32_t classes) {
  return __builtin_popcount(classes) * __builtin_popcount(op->in_stale);
}

/* One pack task on tile n for the links snd[0..count): each into its own buffer
 * (buffers[0..count), W), reading the union of the class tokens of n the links read. It is named
 * by the direction it sends to when it serves one link, else by 0; dirs: the receivers' halo
 * directions it fills (the task log's convention for packs). */
static tess_err submit_pack(tess_sim_t sim, const tess_op *op, int op_index, tess_tile *n,
                            const sending *snd, int count) {
  int nmoves = 0;
  for (int i = 0; i < count; i++)
    nmoves += snd[i].nmoves;
  tess_moves *mv = tess_moves_new(nmoves, (int)sim->esize);
  TESS_CHECK(mv, TESS_ERR_MEM, "cannot allocate halo moves");
  uint32_t dirs = 0;
  for (int i = 0; i < count; i++) {
    add_moves(sim, op, snd[i].l, PACK, i, mv);
    dirs |= snd[i].l->dirs;
  }
  tess_task_spec spec = {.cl = &tess_pack_cl,
                         .arg = mv,
                         .arg_size = tess_moves_bytes(mv),
                         .priority = TESS_PRIO_HALO,
                         .tile = n,
                         .kind = TESS_TASK_PACK,
                         .log_tile = n->id,
                         .dir = count == 1 ? TESS_NDIRS - 1 - snd[0].l->rep : TESS_DIR_CENTER,
                         .dirs = dirs,
                         .stage = op_index};
  for (int i = 0; i < count; i++) /* the buffers first: buffers[i] is the moves' buffer i */
    tess_task_spec_add(&spec, snd[i].buf, STARPU_W);
  for (int i = 0; i < count; i++)
    add_source_tokens(sim, op, snd[i].l, &spec);
  if (sim->pack_first && !n->packed) { /* the tile's first pack of the stage */
    tess_task_spec_add(&spec, n->pack_token, STARPU_W);
    n->packed = 1;
  }
  sim->halo.packs++;
  return tess_task_submit(sim, &spec);
}

/* The sends of tile n this stage: one pack for all of them (several only where one task would
 * exceed StarPU's buffers per task), then each buffer's message or unpack. Links to other ranks
 * come first in each pack's list: they are the longest path. */
static tess_err send_tile(tess_sim_t sim, const tess_op *op, int op_index, tess_tile *n) {
  sending snd[TESS_MOVES_MAXBUF];
  int count = 0;
  long elements;
  for (int k = 0; k < n->plan->nout; k++) {
    tess_link *l = &n->plan->out[k];
    const int nm = link_moves(sim, op, op->in_stale, l, &elements);
    if (nm) snd[count++] = (sending){l, NULL, k, nm, link_buffer(sim, l, op_index, elements)};
  }
  for (int f = 0; f < n->plan->nfeed; f++) {
    tess_tile *x = &sim->tile[n->plan->feed[f].tile];
    const int k = n->plan->feed[f].link;
    tess_link *l = &x->plan->in[k];
    const int nm = link_moves(sim, op, op->in_stale, l, &elements);
    if (nm) snd[count++] = (sending){l, x, k, nm, link_buffer(sim, l, op_index, elements)};
  }
  for (int first = 0; first < count;) {
    int last = first;
    uint32_t classes = 0;
    while (last < count && (last - first + 1) + sim->pack_first +
                                   pack_tokens(op, classes | snd[last].l->src_classes) <=
                               STARPU_NMAXBUFS) /* + the tile's pack token */
      classes |= snd[last++].l->src_classes;
    if (last == first) last++; /* one link alone always fits (plan.c keeps links small) */
    TESS_CALL(submit_pack(sim, op, op_index, n, &snd[first], last - first));
    for (int i = first; i < last; i++) {
      const sending *s = &snd[i];
      if (s->x) {
        if (!host_unpack(sim, op_index, s->x, s->k, s->buf, s->nmoves))
          TESS_CALL(submit_unpack(sim, op, op_index, s->x, s->k, s->buf, s->nmoves));
        continue;
      }
      const int64_t tag = tag_of(sim, op_index, s->l);
      sim->halo.messages_sent++;
      sim->halo.bytes_sent += (long)starpu_vector_get_nx(s->buf) * (long)sim->esize;
      if (sim->direct)
        TESS_CALL(tess_direct_submit(sim, n, s->buf, 1, s->l->dst_rank, (int)tag));
      else
        TESS_STARPU_CALL(
            starpu_mpi_isend_detached(s->buf, s->l->dst_rank, tag, sim->comm, NULL, NULL));
    }
    first = last;
  }
  return TESS_OK;
}

tess_err tess_halo_exchange(tess_sim_t sim, int op_index, const tess_op *op) {
  for (int t = 0; t < sim->ntiles; t++) {
    sim->tile[t].packed = 0;
    for (int k = 0; k < TESS_MAX_LINKS; k++)
      sim->tile[t].plan->host[k] = -1;
  }
  if (!op->in_stale) return TESS_OK;
  long count; /* per link: its box moves (0: nothing to carry, no message, no task), elements */
  int nm;

  /* 1. receives from other ranks */
  for (int t = 0; t < sim->ntiles; t++) {
    tess_tile *x = &sim->tile[t];
    for (int k = 0; k < x->plan->nin; k++) {
      tess_link *l = &x->plan->in[k];
      if (!l->buffered || l->src_local >= 0 || !(nm = link_moves(sim, op, op->in_stale, l, &count)))
        continue;
      starpu_data_handle_t buf = link_buffer(sim, l, op_index, count);
      const int64_t tag = tag_of(sim, op_index, l);
      sim->halo.messages_received++;
      sim->halo.bytes_received += count * (long)sim->esize;
      if (sim->direct)
        TESS_CALL(tess_direct_submit(sim, x, buf, 0, l->src_rank, (int)tag));
      else
        TESS_STARPU_CALL(starpu_mpi_irecv_detached(buf, l->src_rank, tag, sim->comm, NULL, NULL));
      if (!host_unpack(sim, op_index, x, k, buf, nm))
        TESS_CALL(submit_unpack(sim, op, op_index, x, k, buf, nm));
    }
  }

  /* 2. one pack per tile for all it sends, then the messages and this rank's unpacks */
  for (int t = 0; t < sim->ntiles; t++)
    TESS_CALL(send_tile(sim, op, op_index, &sim->tile[t]));

  /* 3. local copies of tiles of several classes (a tile of one class copies in its task) */
  for (int t = 0; t < sim->ntiles; t++) {
    tess_tile *x = &sim->tile[t];
    const int n = x->plan->nclass > 1 ? tess_halo_local(sim, op, x, NULL, NULL) : 0;
    if (!n) continue;
    tess_moves *mv = tess_moves_new(n, (int)sim->esize);
    TESS_CHECK(mv, TESS_ERR_MEM, "cannot allocate halo moves");
    uint32_t dirs = 0;
    for (int k = 0; k < x->plan->nin; k++)
      dirs |= x->plan->in[k].buffered || x->plan->in[k].physical ? 0 : x->plan->in[k].dirs;
    tess_task_spec spec = {.cl = &tess_fill_cl,
                           .arg = mv,
                           .arg_size = tess_moves_bytes(mv),
                           .priority = TESS_PRIO_HALO,
                           .tile = x,
                           .kind = TESS_TASK_COPY,
                           .log_tile = x->id,
                           .dir = TESS_DIR_CENTER,
                           .dirs = dirs,
                           .stage = op_index};
    tess_halo_local(sim, op, x, mv, &spec);
    TESS_CALL(tess_task_submit(sim, &spec));
  }

  /* 4. ghost fills at physical faces of tiles of several classes */
  return submit_fills(sim, op_index, op);
}

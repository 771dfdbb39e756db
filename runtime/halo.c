/* halo.c — the halo exchange of one field, as tasks and transfers StarPU orders by data.
 *
 * For every halo direction h a stage needs, tile X receives from its neighbour N = X + h what
 * N sends towards d = -h:
 *
 *   N: pack(d)  ->  sendbuf[N][d]  --(same rank: StarPU copies the buffer, GPU<->GPU direct)-->
 *                                  --(other rank: starpu_mpi_isend / irecv, host-staged, or
 *                                     MPI on the buffers' own memory, direct.c)-->
 * recvbuf[X][h] X: unpack(h) -> halo pieces of X at h  ->  the outer segments whose footprint reads
 * them
 *
 * When N and X keep their storage on the same memory node (tiles of one GPU, or all CPU tiles
 * of a rank; also a tile that is its own periodic neighbour) the chain collapses into one
 * halo_copy task, box to box, that reads N's send pieces and writes X's halo pieces: one task
 * instead of two plus a buffer (kind "copy", logged and named as X's halo h).
 *
 * A solo tile (one rank, one tile, on a GPU: sim.c) has no exchange: the stage task that reads
 * a field refills the field's halos from its own cells (tess_halo_wrap_args) before its kernel,
 * on the same stream, so a stage is one task.
 *
 * pack reads only the owned pieces it sends, unpack writes only the halo pieces of its
 * direction, so each chain depends on nothing but its own data (digest 2.7). Receives are
 * posted before the packs (NekCEM's order). Exchange choice: StarPU-MPI detached requests on
 * the buffer handles -- StarPU then orders send-after-pack, pack-after-send (reuse) and
 * unpack-after-receive from the handles alone, with no task of ours polling MPI.
 */
#include "decomp.h"
#include "error.h"
#include "sim.h"

#include <starpu_mpi.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

/* The send region of a direction as a piece set: owned intervals 1 (d=-1), 3 (d=+1), 1..3 (0). */
static void send_pieces(const tess_sim_t sim, const int d[3], tess_pieceset *s) {
  s->w[0] = s->w[1] = 0;
  int a[3];
  for (a[2] = 1; a[2] <= 3; a[2]++)
    for (a[1] = 1; a[1] <= 3; a[1]++)
      for (a[0] = 1; a[0] <= 3; a[0]++) {
        int ok = 1;
        for (int i = 0; i < 3; i++)
          ok &= d[i] == 0 || a[i] == (d[i] < 0 ? 1 : 3);
        tess_box b;
        tess_piece_box(sim->tn, sim->ghost, tess_piece_index(a), &b);
        if (ok && !tess_box_empty(&b)) tess_pieceset_add(s, tess_piece_index(a));
      }
}

static void neighbour(const tess_sim_t sim, const int gc[3], const int d[3], int out[3]) {
  for (int i = 0; i < 3; i++)
    out[i] = ((gc[i] + d[i]) % sim->G[i] + sim->G[i]) % sim->G[i];
}

static starpu_data_handle_t buffer(const tess_sim_t sim, starpu_data_handle_t *h, int nc,
                                   const tess_box *b) {
  if (!*h) starpu_vector_data_register(h, -1, 0, (uint32_t)(tess_box_cells(b) * nc), sim->esize);
  return *h;
}

static tess_pack_args box_args(const tess_sim_t sim, const tess_storage *st, int nc,
                               const tess_box *b) {
  tess_pack_args a = {.nc = nc, .esize = (int)sim->esize, .tile = st->base};
  for (int i = 0; i < 3; i++) {
    a.lo[i] = b->lo[i];
    a.hi[i] = b->hi[i];
    a.dim[i] = sim->dim[i];
  }
  return a;
}

/* The same, malloc'd for a task's cl_arg (StarPU frees it); NULL when out of memory. */
static tess_pack_args *pack_args(const tess_sim_t sim, const tess_storage *st, int nc,
                                 const tess_box *b) {
  tess_pack_args *a = malloc(sizeof *a);
  if (a) *a = box_args(sim, st, nc, b);
  return a;
}

static int64_t tag_of(const tess_sim_t sim, int slot, int tile_id, int h) {
  const int64_t ntiles = (int64_t)sim->G[0] * sim->G[1] * sim->G[2];
  return ((int64_t)slot * ntiles + tile_id) * TESS_NDIRS + h;
}

static int delayed(const tess_sim_t sim, int tile_id, int h) {
  return sim->delay.active && sim->delay.tile == tile_id && sim->delay.dir == h;
}

static tess_err submit_unpack(tess_sim_t sim, int stage, tess_tile *x, int slot, int nc, int hi,
                              starpu_data_handle_t src) {
  int h[3];
  tess_dir_vector(hi, h);
  tess_box hb;
  tess_halo_box(sim->tn, sim->ghost, h, &hb);
  tess_storage *st = &x->slot[slot];
  if (delayed(sim, x->id, hi)) TESS_CALL(tess_task_gate(sim, src));
  tess_task_spec spec = {.cl = &tess_unpack_cl,
                         .arg = pack_args(sim, st, nc, &hb),
                         .arg_size = sizeof(tess_pack_args),
                         .priority = TESS_PRIO_HALO,
                         .tile = x,
                         .kind = TESS_TASK_UNPACK,
                         .log_tile = x->id,
                         .dir = hi,
                         .stage = stage};
  TESS_CHECK(spec.arg, TESS_ERR_MEM, "cannot allocate unpack arguments");
  tess_task_spec_add(&spec, src, STARPU_R);
  tess_pieceset hp;
  tess_halo_pieces(sim->tn, sim->ghost, h, &hp);
  tess_task_spec_add_pieces(&spec, st, &hp, STARPU_W);
  return tess_task_submit(sim, &spec);
}

/* Tile n's send box sb (pieces sp) straight into tile x's halo hi, on their common node. */
static tess_err submit_copy(tess_sim_t sim, int stage, tess_tile *n, tess_tile *x, int slot, int nc,
                            int hi, const tess_box *sb, const tess_pieceset *sp) {
  int h[3];
  tess_dir_vector(hi, h);
  tess_box hb;
  tess_halo_box(sim->tn, sim->ghost, h, &hb);
  tess_copy_args *a = malloc(sizeof *a);
  TESS_CHECK(a, TESS_ERR_MEM, "cannot allocate halo copy arguments");
  a->src = box_args(sim, &n->slot[slot], nc, sb);
  for (int i = 0; i < 3; i++)
    a->dst_lo[i] = hb.lo[i];
  a->dst_tile = x->slot[slot].base;
  tess_task_spec spec = {.cl = &tess_halo_copy_cl,
                         .arg = a,
                         .arg_size = sizeof *a,
                         .priority = TESS_PRIO_HALO,
                         .tile = x,
                         .kind = TESS_TASK_COPY,
                         .log_tile = x->id,
                         .dir = hi,
                         .stage = stage};
  tess_task_spec_add_pieces(&spec, &n->slot[slot], sp, STARPU_R);
  tess_pieceset hp;
  tess_halo_pieces(sim->tn, sim->ghost, h, &hp);
  tess_task_spec_add_pieces(&spec, &x->slot[slot], &hp, STARPU_W);
  return tess_task_submit(sim, &spec);
}

void tess_halo_wrap_args(const tess_sim_t sim, const tess_tile *x, int slot, int nc, uint32_t dirs,
                         tess_wrap_args *a) {
  memset(a, 0, sizeof *a);
  for (int i = 0; i < 3; i++)
    a->dim[i] = sim->dim[i];
  a->nc = nc;
  a->esize = (int)sim->esize;
  a->tile = x->slot[slot].base;
  for (int hi = 0; hi < TESS_NDIRS; hi++) {
    if (!((dirs >> hi) & 1)) continue;
    int h[3], d[3];
    tess_dir_vector(hi, h);
    for (int i = 0; i < 3; i++)
      d[i] = -h[i];
    tess_box sb, hb;
    tess_send_box(sim->tn, sim->ghost, d, &sb);
    tess_halo_box(sim->tn, sim->ghost, h, &hb);
    if (tess_box_empty(&hb)) continue;
    for (int i = 0; i < 3; i++) {
      a->src_lo[a->n][i] = sb.lo[i];
      a->dst_lo[a->n][i] = hb.lo[i];
      a->ext[a->n][i] = hb.hi[i] - hb.lo[i];
    }
    a->n++;
  }
}

tess_err tess_halo_exchange(tess_sim_t sim, int field, uint32_t dirs, int stage) {
  const int slot = sim->field[field].slot, nc = sim->field[field].nc;
  if (sim->ntiles == 1 && sim->tile[0].solo) { /* the stage's own task refills them first */
    sim->field[field].wrap_due |= dirs;
    return TESS_OK;
  }

  /* 1. receives from remote neighbours */
  for (int l = 0; l < sim->ntiles; l++) {
    tess_tile *x = &sim->tile[l];
    for (int hi = 0; hi < TESS_NDIRS; hi++) {
      if (!((dirs >> hi) & 1)) continue;
      int h[3], nc3[3], nl;
      tess_dir_vector(hi, h);
      neighbour(sim, x->gcoord, h, nc3);
      const int owner = tess_sim_tile_owner(sim, nc3, &nl);
      if (owner == sim->rank) continue;
      tess_box hb;
      tess_halo_box(sim->tn, sim->ghost, h, &hb);
      starpu_data_handle_t rb = buffer(sim, &x->slot[slot].recvbuf[hi], nc, &hb);
      const int64_t tag = tag_of(sim, slot, x->id, hi);
      if (sim->direct) {
        TESS_CALL(tess_direct_submit(sim, x, rb, 0, owner, (int)tag));
      } else {
        TESS_STARPU_CALL(starpu_mpi_irecv_detached(rb, owner, tag, sim->comm, NULL, NULL));
      }
      TESS_CALL(submit_unpack(sim, stage, x, slot, nc, hi, rb));
    }
  }

  /* 2. same-node copies; elsewhere packs, then the local unpack or the send */
  for (int l = 0; l < sim->ntiles; l++) {
    tess_tile *n = &sim->tile[l];
    tess_storage *st = &n->slot[slot];
    for (int hi = 0; hi < TESS_NDIRS; hi++) {
      if (!((dirs >> hi) & 1)) continue;
      int h[3], d[3], xc[3], xl;
      tess_dir_vector(hi, h);
      for (int i = 0; i < 3; i++)
        d[i] = -h[i];
      const int di = tess_dir_index(d);
      neighbour(sim, n->gcoord, d, xc); /* the tile receiving this data in its halo h */
      const int owner = tess_sim_tile_owner(sim, xc, &xl);

      tess_box sb;
      tess_send_box(sim->tn, sim->ghost, d, &sb);
      tess_pieceset sp;
      send_pieces(sim, d, &sp);
      if (owner == sim->rank && sim->tile[xl].node == n->node &&
          !delayed(sim, sim->tile[xl].id, hi)) {
        TESS_CALL(submit_copy(sim, stage, n, &sim->tile[xl], slot, nc, hi, &sb, &sp));
        continue;
      }
      starpu_data_handle_t buf = buffer(sim, &st->sendbuf[di], nc, &sb);
      tess_task_spec spec = {.cl = &tess_pack_cl,
                             .arg = pack_args(sim, st, nc, &sb),
                             .arg_size = sizeof(tess_pack_args),
                             .priority = TESS_PRIO_HALO,
                             .tile = n,
                             .kind = TESS_TASK_PACK,
                             .log_tile = n->id,
                             .dir = di,
                             .stage = stage};
      TESS_CHECK(spec.arg, TESS_ERR_MEM, "cannot allocate pack arguments");
      tess_task_spec_add(&spec, buf, STARPU_W);
      tess_task_spec_add_pieces(&spec, st, &sp, STARPU_R);
      TESS_CALL(tess_task_submit(sim, &spec));

      if (owner == sim->rank) {
        TESS_CALL(submit_unpack(sim, stage, &sim->tile[xl], slot, nc, hi, buf));
      } else {
        const int xg = xc[0] + sim->G[0] * (xc[1] + sim->G[1] * xc[2]);
        const int64_t tag = tag_of(sim, slot, xg, hi);
        if (sim->direct) {
          TESS_CALL(tess_direct_submit(sim, n, buf, 1, owner, (int)tag));
        } else {
          TESS_STARPU_CALL(starpu_mpi_isend_detached(buf, owner, tag, sim->comm, NULL, NULL));
        }
      }
    }
  }
  return TESS_OK;
}

void tess_halo_release(tess_sim_t sim) {
  for (int l = 0; sim->tile && l < sim->ntiles; l++)
    for (int f = 0; f < sim->nfields; f++)
      for (int d = 0; d < TESS_NDIRS; d++) {
        tess_storage *st = &sim->tile[l].slot[f];
        if (st->sendbuf[d]) starpu_data_unregister(st->sendbuf[d]);
        if (st->recvbuf[d]) starpu_data_unregister(st->recvbuf[d]);
        st->sendbuf[d] = st->recvbuf[d] = NULL;
      }
}

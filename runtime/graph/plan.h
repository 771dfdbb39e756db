/* plan.h — the shape of the task graph of every tile, derived once at setup (internal).
 *
 * Links. Each halo direction h of a tile X (one the step program reads) is filled from the
 * tile N = X + h. The directions are grouped by N: one *link* per source tile, which moves all
 * of its boxes (for every field a stage needs) at once:
 *
 *   local link     N on the same memory node as X (N may be X itself, the periodic wrap):
 *                  X's halo boxes are copied straight from N's owned cells;
 *   buffered link  N on another rank or memory node (or the debug-delayed direction): one pack
 *                  on N into one buffer, one transfer (StarPU copy or MPI), one unpack on X.
 *
 * Classes. X's owned region, cut into the 27 pieces of segments.h, is grouped by the set of
 * buffered links each piece's footprint reads: pieces that wait on the same remote arrivals
 * are one class, and each class of each stage is one task. A tile with no buffered link (one
 * GPU, any number of tiles; CPU tiles of one rank) is a single class: one task per stage,
 * which also does its local copies. With a 1x1x4 process grid a tile has 3 classes (inner,
 * low z slab, high z slab), whatever the footprint.
 *
 * Unpacks. A buffered link is unpacked by one of the classes that read its halo, in that
 * class's task, before its kernel: the reader whose buffered reads are contained in every other
 * reader's (the face class of a face link), submitted first, so no class waits on an arrival
 * its own footprint does not read. A link from another rank is unpacked so too, its class
 * waiting for the receive. A link no such class exists for, one an edge or corner fill reads,
 * the held-back test link, or every link with tess_sim_set_unpack_in_class(sim, 0), has an
 * unpack task.
 *
 * Tokens. Dependencies are carried by StarPU "void" handles (no memory; kernels address the
 * tile through its base pointer, on the tile's own memory node): per tile and storage slot,
 * one per class (its owned cells) and one per incoming link (the halo cells it fills).
 */
#ifndef TESS_PLAN_H
#define TESS_PLAN_H

#include <starpu.h>
#include <stdint.h>

#include "segments.h"
#include "tessera.h"

#define TESS_MAX_OPS   64
#define TESS_MAX_LINKS (TESS_NDIRS - 1)

/* A box copy between two tiles of equal padded extent (source and destination coordinates). */
typedef struct {
  int src_lo[3], dst_lo[3], ext[3];
} tess_boxmove;

/* Merges moves that continue each other along one axis (in place; *n shrinks). */
void tess_boxmoves_merge(tess_boxmove *mv, int *n);

typedef struct {
  int dst_gid, src_gid;     /* receiving and sending tile (global ids) */
  int dst_rank, src_rank;   /* their ranks */
  int dst_local, src_local; /* their indices on this rank, -1 elsewhere */
  int buffered;             /* through a buffer: other rank or memory node, or held back */
  int rep;                  /* lowest direction index (names, tags) */
  uint32_t dirs;            /* halo directions of the receiver it fills */
  long volume;              /* cells moved per component */
  int nmove;
  tess_boxmove mv[TESS_MAX_LINKS];
  /* a physical face (boundary.c): ghost fills from the tile's own cells, one link per halo
   * direction; pre: the links whose halo cells its fills also read (an edge or corner reads the
   * ghosts of the face it extends, written by a copy, an unpack or another fill) */
  int physical;
  uint32_t pre;
  uint32_t src_classes;                   /* classes of the source tile its moves read */
  starpu_data_handle_t buf[TESS_MAX_OPS]; /* per stage, created on first use (buffered only) */
} tess_link;

typedef struct {
  uint32_t pieces; /* owned pieces (bit = direction index; 13 = inner) */
  uint32_t waits;  /* buffered incoming links (bit = link index) its pieces read */
  int rep;         /* direction naming it: 13 for the class without remote waits */
  int nbox;
  tess_box box[TESS_NDIRS];
} tess_class;

/* A buffered link between tiles of this rank, seen from its sender: the receiving tile (local
 * index) and the link's number among that tile's incoming links. */
typedef struct {
  int tile, link;
} tess_feed;

typedef struct {
  int nin;
  tess_link in[TESS_MAX_LINKS]; /* incoming links, this tile receiving */
  uint32_t buffered;            /* the buffered ones among them (bit = link index) */
  int nout;
  tess_link out[TESS_MAX_LINKS]; /* links to tiles on other ranks, this tile sending */
  /* buffered links into this rank's tiles, this tile sending (with out: at most one link per
   * halo direction of a receiver whose neighbour it is, so nout + nfeed <= TESS_MAX_LINKS) */
  int nfeed;
  tess_feed feed[TESS_MAX_LINKS];
  int dir_link[TESS_NDIRS]; /* incoming link of each halo direction, -1: none */
  int nclass;
  tess_class cls[TESS_NDIRS];
  int piece_class[TESS_NPIECES]; /* owned piece -> class, -1 elsewhere */
  /* per stage op and class: classes (own cells) and incoming links (halos) its footprint reads */
  uint32_t reads_cls[TESS_MAX_OPS][TESS_NDIRS];
  uint32_t reads_in[TESS_MAX_OPS][TESS_NDIRS];
  /* the stage being submitted (halo.c sets it, tasks.c reads it): per incoming link, the class
   * whose task unpacks it (-1: an unpack task of its own, or nothing to unpack), its buffer and
   * box moves */
  int host[TESS_MAX_LINKS];
  starpu_data_handle_t host_buf[TESS_MAX_LINKS];
  int host_moves[TESS_MAX_LINKS];
} tess_plan;

struct tess_sim_s;
/* Builds every local tile's plan (after the ops' footprint reads are known). */
int tess_plan_build(struct tess_sim_s *sim);
/* After the plans: every halo direction a stage reads has exactly one writer (a link: a copy,
 * an unpack or a fill), and every edge or corner fill at a physical face reads ghosts that
 * another writer fills before it. TESS_ERR_STATE naming tile and direction otherwise. */
tess_err tess_plan_check_writers(struct tess_sim_s *sim);
/* Classes of tile t whose owned cells the given box (padded coordinates) meets. */
uint32_t tess_plan_classes_in(struct tess_sim_s *sim, const tess_plan *p, const int lo[3],
                              const int ext[3]);
/* Logs (TESSERA_RUNTIME_LOG=info) tasks per tile and stage. */
void tess_plan_describe(struct tess_sim_s *sim);
void tess_plan_release(struct tess_sim_s *sim);

#endif

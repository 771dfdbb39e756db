/* test_overlap — per-segment dependencies hold: with one halo direction of tile 0 held back,
 * the owned segments that do not read that halo finish before it arrives, whatever tasks the
 * runtime groups them into.
 *
 * usage: test_overlap overlap|bulk [delay_seconds]
 * Runs one heat step on a 24^3 grid (any rank count), delaying halo (+1,0,0) of tile 0 by a
 * second without occupying a worker. From the task completion log of tile 0 (each compute
 * record lists the segments its task updated) it checks, using the closed-form rule of digest
 * 2.7 (segment d needs halo h iff h is a sub-direction of d):
 *   - every segment that needs the delayed halo completes after its unpack,
 *   - every other segment (inner included) completes before it,
 * so no task mixes segments that need the halo with segments that do not.
 * In bulk mode every segment waits for every halo, so the second check fails: ctest runs
 * that variant with WILL_FAIL to prove the test notices a graph regressed to a wait-all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"
#include "tessera.h"

static int is_subdir(const int h[3], const int d[3]) {
  for (int i = 0; i < 3; i++)
    if (h[i] != 0 && h[i] != d[i]) return 0;
  return 1;
}

int main(int argc, char **argv) {
  tess_mode mode = TESS_MODE_OVERLAP;
  if (argc > 1 && tess_mode_parse(argv[1], &mode)) return 2;
  const double delay = argc > 2 ? atof(argv[2]) : 1.0;
  if (tess_init(&argc, &argv, NULL)) return 1;

  const int n[3] = {24, 24, 24}, hdir[3] = {1, 0, 0};
  const int hidx = tess_dir_index(hdir);
  const tess_heat_params prm = {1.0};
  tess_sim_t sim = NULL;
  int u, un, fail = 0;
  if (tess_sim_create(MPI_COMM_WORLD, n, &sim) || tess_sim_set_mode(sim, mode) ||
      tess_sim_set_device(sim, TESS_DEVICE_CPU) || tess_sim_add_field(sim, "u", 1, &u) ||
      tess_sim_add_field(sim, "u_new", 1, &un) ||
      tess_sim_add_stage(sim, &(tess_stage){.kernel = &tess_heat2_kernel,
                                            .nin = 1,
                                            .in = {u},
                                            .nout = 1,
                                            .out = {un},
                                            .params = &prm,
                                            .params_size = sizeof prm}) ||
      tess_sim_debug_delay(sim, 0, hidx, delay) || tess_sim_setup(sim) ||
      tess_sim_set_task_log(sim, 1))
    tess_abort(1);
  if (tess_sim_run(sim, 1, 1e-4)) tess_abort(1);

  size_t nrec;
  const tess_task_record *rec = tess_sim_task_log(sim, &nrec);
  double t_gate = -1;
  for (size_t i = 0; i < nrec; i++)
    if (rec[i].kind == TESS_TASK_UNPACK && rec[i].tile == 0 && ((rec[i].dirs >> hidx) & 1))
      t_gate = rec[i].t_end;
  if (tess_rank() == 0) { /* tile 0 sits on rank 0 (Morton/lexicographic coordinate 0) */
    int early = 0, late = 0;
    if (t_gate < 0) {
      printf("FAIL: no unpack of the delayed halo on tile 0 was recorded\n");
      fail = 1;
    }
    for (size_t i = 0; i < nrec && !fail; i++) {
      const tess_task_record *r = &rec[i];
      if (r->tile != 0 || (r->kind != TESS_TASK_OUTER && r->kind != TESS_TASK_INNER)) continue;
      for (int s = 0; s < 27 && !fail; s++) {
        if (!((r->dirs >> s) & 1)) continue;
        int d[3];
        tess_dir_vector(s, d);
        const int needs = s != 13 && is_subdir(hdir, d);
        if (needs && r->t_end < t_gate) {
          printf("FAIL: segment (%d,%d,%d) finished at %.3f s, before its halo arrived at %.3f s\n",
                 d[0], d[1], d[2], r->t_end, t_gate);
          fail = 1;
        } else if (!needs && r->t_end > t_gate) {
          printf("FAIL: segment (%d,%d,%d) does not need halo (+1,0,0) but finished at %.3f s, "
                 "after it arrived at %.3f s (a wait-all, or grouped with one that needs it?)\n",
                 d[0], d[1], d[2], r->t_end, t_gate);
          fail = 1;
        }
        needs ? late++ : early++;
      }
    }
    printf("%s mode: delayed halo arrived at %.3f s; %d segments finished before it, %d after\n",
           tess_mode_name(mode), t_gate, early, late);
    if (!fail && (early != 27 - 9 || late != 9)) {
      printf("FAIL: expected 18 segments before and 9 after\n");
      fail = 1;
    }
  }
  tess_sim_destroy(&sim);
  MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
  tess_finalize();
  return fail;
}

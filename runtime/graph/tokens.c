/* tokens.c — the order of a tile's tasks, kept by Tessera rather than inferred by StarPU.
 *
 * A dependency token orders the tasks reading and writing one piece of a tile (a class of a
 * slot, a halo, a tile's pack). StarPU would order a token's users itself (sequential
 * consistency), but it works that out per handle at every submission, which was most of the
 * submitting thread's time on the buffered path (docs/halo-path.md). The rule is the same here,
 * kept in the token's record in submission order: a reader depends on the last writer; a writer
 * on the readers since it, or on the last writer if none read.
 *
 * Tasks are kept (not destroyed at their end) so that a successor can name them, until
 * tess_task_quiesce: after it every dependency is met, so records of an older epoch count as
 * empty. Tokens stay void handles (consistency off) only to carry their record where the plan
 * passes handles; storage/io.c quiesces before it touches a tile.
 */
#include <stdlib.h>

#include "error.h"
#include "sim.h"

void tess_token_register(starpu_data_handle_t *h) {
  starpu_void_data_register(h);
  starpu_data_set_sequential_consistency_flag(*h, 0);
  tess_token *k = calloc(1, sizeof *k);
  if (!k) {
    fprintf(stderr, "tessera: cannot allocate a dependency token\n");
    abort();
  }
  starpu_data_set_user_data(*h, k);
}

void tess_token_unregister(starpu_data_handle_t h) {
  tess_token *k = starpu_data_get_user_data(h);
  if (k) free(k->readers);
  free(k);
  starpu_data_unregister(h);
}

static void add_pred(struct starpu_task **pred, int *n, struct starpu_task *t) {
  for (int i = 0; i < *n; i++)
    if (pred[i] == t) return;
  pred[(*n)++] = t;
}

/* Declares t's dependencies through its tokens, records t as their newest user, and keeps t. */
tess_err tess_token_order(tess_sim_t sim, struct starpu_task *t, const tess_task_spec *spec) {
  if (sim->nkept == sim->capkept) {
    const size_t c = sim->capkept ? 2 * sim->capkept : 1024;
    struct starpu_task **k = realloc(sim->kept, c * sizeof *k);
    TESS_CHECK(k, TESS_ERR_MEM, "cannot allocate the list of tasks in flight");
    sim->kept = k;
    sim->capkept = c;
  }
  t->destroy = 0; /* kept until tess_task_quiesce: later tasks may name it */
  int npred = 0, cap = 0;
  for (int i = 0; i < spec->ntok; i++) {
    tess_token *k = spec->tok[i];
    if (k->epoch != sim->epoch) *k = (tess_token){sim->epoch, NULL, 0, k->capread, k->readers};
    cap += (spec->tmode[i] & STARPU_W) ? k->nread + 1 : 1;
  }
  struct starpu_task *stack[256], **pred = cap <= 256 ? stack : malloc((size_t)cap * sizeof *pred);
  TESS_CHECK(pred, TESS_ERR_MEM, "cannot allocate task dependencies");
  for (int i = 0; i < spec->ntok; i++) {
    const tess_token *k = spec->tok[i];
    if ((spec->tmode[i] & STARPU_W) && k->nread)
      for (int j = 0; j < k->nread; j++)
        add_pred(pred, &npred, k->readers[j]);
    else if (k->writer)
      add_pred(pred, &npred, k->writer);
  }
  if (npred) starpu_task_declare_deps_array(t, (unsigned)npred, pred);
  if (pred != stack) free(pred);
  for (int i = 0; i < spec->ntok; i++) {
    tess_token *k = spec->tok[i];
    if (spec->tmode[i] & STARPU_W) {
      k->writer = t;
      k->nread = 0;
    } else {
      if (k->nread == k->capread) {
        const int c = k->capread ? 2 * k->capread : 8;
        struct starpu_task **r = realloc(k->readers, (size_t)c * sizeof *r);
        TESS_CHECK(r, TESS_ERR_MEM, "cannot allocate a token's readers");
        k->readers = r;
        k->capread = c;
      }
      k->readers[k->nread++] = t;
    }
  }
  return TESS_OK; /* tess_task_submit keeps t once submitted: room was made above */
}

/* Waits for every task, then lets go of the kept ones. Destroying them one by one as each ends
 * (detach = 0, starpu_task_wait in submission order) was tried so that the devices would not
 * idle meanwhile; it wakes this thread once a task and ran slower on 2 cores
 * (docs/halo-path.md). */
tess_err tess_task_quiesce(tess_sim_t sim) {
  TESS_STARPU_CALL(starpu_task_wait_for_all());
  for (size_t i = 0; i < sim->nkept; i++)
    starpu_task_destroy(sim->kept[i]);
  sim->nkept = 0;
  sim->epoch++;
  return TESS_OK;
}

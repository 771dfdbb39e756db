/* hdiff_program — the strategy setup picks for a program with temporaries on a grid with
 * physical faces (docs/multistage.md §6), through the C API on hdiff's four kernels:
 *
 *   walls, no conditions on the temporaries:  auto and recompute give recompute; exchange is
 *                                             refused (TESS_ERR_ARG), the message naming it
 *   walls, conditions on every temporary:     exchange is kept and runs (temporaries filled)
 *   walls on z only (never read across):      exchange is kept (nothing forces recompute)
 *   a temporary read across a wall that cannot be recomputed (its producer writes a field too)
 *                                             is refused
 *
 * Exit 0 pass, 1 fail. Messages of the refusals go to stderr (the runtime's logger). */
#include <stdio.h>
#include <string.h>

#include "hdiff.h"
#include "tessera.h"

static int failures = 0;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL: " __VA_ARGS__);                                                                \
      printf("\n");                                                                                \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

static double ramp(const long g[3], int comp, void *ctx) {
  (void)comp;
  (void)ctx;
  return (double)((g[0] * 7 + g[1] * 3) % 11) - 5;
}

typedef struct {
  int periodic[3];
  const char *bc_in, *bc_tmp; /* conditions of in; of lap, fli and flj (NULL: none) */
  tess_strategy request;
} setup_case;

/* Builds hdiff on 16x16x2 and sets it up: the setup's code, the strategy in *got. */
static tess_err build(const setup_case *c, tess_strategy *got, int run) {
  tess_sim_t sim = NULL;
  int in, out, lap, fli, flj;
  const tess_hdiff_params prm = {0.02};
  tess_err e = tess_sim_create(MPI_COMM_WORLD, (const int[3]){16, 16, 2}, &sim);
  if (!e) e = tess_sim_set_periodic(sim, c->periodic);
  if (!e) e = tess_sim_set_strategy(sim, c->request);
  if (!e) e = tess_sim_add_field(sim, "in", 1, &in);
  if (!e) e = tess_sim_add_field(sim, "out", 1, &out);
  if (!e) e = tess_sim_add_temporary(sim, "lap", 1, &lap);
  if (!e) e = tess_sim_add_temporary(sim, "fli", 1, &fli);
  if (!e) e = tess_sim_add_temporary(sim, "flj", 1, &flj);
  if (!e && c->bc_in) e = tess_sim_set_boundary_spec(sim, in, c->bc_in);
  for (int i = 0; !e && c->bc_tmp && i < 3; i++)
    e = tess_sim_set_boundary_spec(sim, (int[]){lap, fli, flj}[i], c->bc_tmp);
  const tess_stage st[4] = {
      {.kernel = &tess_hdiff_lap_kernel, .nin = 1, .in = {in}, .nout = 1, .out = {lap}},
      {.kernel = &tess_hdiff_fli_kernel, .nin = 2, .in = {lap, in}, .nout = 1, .out = {fli}},
      {.kernel = &tess_hdiff_flj_kernel, .nin = 2, .in = {lap, in}, .nout = 1, .out = {flj}},
      {.kernel = &tess_hdiff_out_kernel,
       .nin = 3,
       .in = {in, fli, flj},
       .nout = 1,
       .out = {out},
       .params = &prm,
       .params_size = sizeof prm}};
  for (int i = 0; !e && i < 4; i++)
    e = tess_sim_add_stage(sim, &st[i]);
  if (!e) e = tess_sim_add_swap(sim, in, out);
  if (!e) e = tess_sim_setup(sim);
  if (!e) *got = tess_sim_strategy(sim, NULL);
  if (!e && run) e = tess_sim_fill(sim, in, ramp, NULL);
  if (!e && run) e = tess_sim_run(sim, 3, 1);
  tess_sim_destroy(&sim);
  return e;
}

static void noop(const tess_region *r) { (void)r; }

int main(int argc, char **argv) {
  if (tess_init(&argc, &argv, NULL)) return 1;
  const tess_strategy A = TESS_STRATEGY_AUTO, R = TESS_STRATEGY_RECOMPUTE,
                      X = TESS_STRATEGY_EXCHANGE;
  const struct {
    setup_case c;
    tess_err code;
    tess_strategy want;
    int run;
  } cases[] = {
      {{{0, 0, 1}, "all:outflow", NULL, A}, TESS_OK, R, 1},
      {{{0, 1, 1}, "x-:dirichlet(1),x+:symmetric", NULL, R}, TESS_OK, R, 1},
      {{{1, 0, 1}, "y:neumann(0.5)", NULL, X}, TESS_ERR_ARG, X, 0},
      {{{0, 0, 1}, "all:outflow", "all:symmetric", X}, TESS_OK, X, 1},
      {{{0, 0, 1}, "all:outflow", "all:symmetric", A}, TESS_OK, X, 0},
      {{{1, 1, 0}, NULL, NULL, X}, TESS_OK, X, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    tess_strategy got = (tess_strategy)-1;
    const tess_err e = build(&cases[i].c, &got, cases[i].run);
    printf("case %zu: periodic %d%d%d, in '%s', temporaries '%s', request %s: %s, strategy %s\n", i,
           cases[i].c.periodic[0], cases[i].c.periodic[1], cases[i].c.periodic[2],
           cases[i].c.bc_in ? cases[i].c.bc_in : "", cases[i].c.bc_tmp ? cases[i].c.bc_tmp : "",
           tess_strategy_name(cases[i].c.request), tess_err_name(e),
           e ? "-" : tess_strategy_name(got));
    EXPECT(e == cases[i].code, "case %zu: %s, expected %s", i, tess_err_name(e),
           tess_err_name(cases[i].code));
    EXPECT(e || got == cases[i].want, "case %zu: strategy %s, expected %s", i,
           tess_strategy_name(got), tess_strategy_name(cases[i].want));
  }

  /* t is written together with the field v: not recomputable, and read across the x faces */
  const tess_kernel both = {.name = "both", .cpu = noop, .shape = TESS_SHAPE_STAR, .radius = 1};
  const tess_kernel use = {.name = "use", .cpu = noop, .shape = TESS_SHAPE_STAR, .radius = 1};
  tess_sim_t sim = NULL;
  int u, v, w, t;
  tess_err e = tess_sim_create(MPI_COMM_WORLD, (const int[3]){16, 16, 1}, &sim);
  if (!e) e = tess_sim_set_periodic(sim, (const int[3]){0, 1, 1});
  if (!e) e = tess_sim_add_field(sim, "u", 1, &u);
  if (!e) e = tess_sim_add_field(sim, "v", 1, &v);
  if (!e) e = tess_sim_add_field(sim, "w", 1, &w);
  if (!e) e = tess_sim_add_temporary(sim, "t", 1, &t);
  if (!e) e = tess_sim_set_boundary_spec(sim, u, "x:outflow");
  if (!e)
    e = tess_sim_add_stage(
        sim, &(tess_stage){.kernel = &both, .nin = 1, .in = {u}, .nout = 2, .out = {t, v}});
  if (!e)
    e = tess_sim_add_stage(
        sim, &(tess_stage){.kernel = &use, .nin = 1, .in = {t}, .nout = 1, .out = {w}});
  EXPECT(!e, "building the mixed program: %s", tess_err_name(e));
  if (!e) e = tess_sim_setup(sim);
  printf("mixed producer: %s\n", tess_err_name(e));
  EXPECT(e == TESS_ERR_ARG, "a temporary that cannot be recomputed, read across a wall: %s",
         tess_err_name(e));
  tess_sim_destroy(&sim);

  printf("%s (%d failures)\n", failures ? "FAILED" : "passed", failures);
  tess_finalize();
  return failures ? 1 : 0;
}

/* layer_cpu — the stencil layer's CPU sweep against plain hand-written loops of the same
 * arithmetic (hand_loops.h), built with the same flags, one thread, same grid, in one run
 * (bench/layer-cpu.sh runs it). Each case first checks that the two agree bit for bit (the
 * order of operations is the layer's contract), then times them in alternating rounds and
 * prints the best time of each and their ratio, layer / hand, as the last column: times are the
 * thread's CPU time, and the best round is the least disturbed by other jobs of a shared
 * machine.
 *
 *   layer_cpu [--grid N] [--rounds R] [--only NAME]       (default 128^3, 7 rounds) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cahn_hilliard.h"
#include "hand.h"
#include "heat.h"
#include "maxwell.h"
#include "mhd.h" /* TESS_MHD_RK3_ALPHA / _BETA (maxwell's integrator) */
#include "rd2.h"
#include "tessera_kernel.h"

typedef struct {
  const char *name;
  const tess_kernel *k;
  int g, nc;
} bench_case;

/* The calling thread's CPU time: on a shared machine the time other jobs hold the core is not
 * counted (what they leave in the caches still is). */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Values in [0.25, 0.75), reproducible (a 64-bit LCG's top bits). */
static void fill(void *a, size_t n, int f32, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    const double v = 0.25 + 0.5 * (double)(seed >> 11) / 9007199254740992.0;
    if (f32)
      ((float *)a)[i] = (float)v;
    else
      ((double *)a)[i] = v;
  }
}

/* The constants in the slots of each kernel, in double, as its host function computes them. */
static void consts(const char *name, double h, double *k, void *params) {
  memset(k, 0, 16 * sizeof *k);
  if (!strncmp(name, "heat", 4)) {
    const double b2[4] = {-2.0, 1.0, 0.0, 0.0};
    const double b6[4] = {-49.0 / 18.0, 3.0 / 2.0, -3.0 / 20.0, 1.0 / 90.0};
    tess_heat_params *p = params;
    p->kappa = 0.1;
    k[HEAT_COEF] = 1e-5 * p->kappa; /* dt * kappa, dt = 1e-5 */
    for (int a = 0; a < 3; a++)
      k[HEAT_IH2 + a] = 1.0 / (h * h);
    for (int i = 0; i < 4; i++)
      k[HEAT_B + i] = name[4] == '2' ? b2[i] : b6[i];
  } else if (!strcmp(name, "ch_fused")) {
    tess_ch_params *p = params;
    *p = (tess_ch_params){.M = 1, .B = 1, .U = 1, .K = 1e-3, .dt = 1e-7, .c0 = 0, .c1 = 1};
    k[CH_NEG_B] = -p->B, k[CH_U] = p->U, k[CH_K] = p->K, k[CH_COEF] = p->dt * p->M;
    k[CH_C0] = p->c0, k[CH_C1] = p->c1;
    for (int a = 0; a < 3; a++)
      k[CH_IH2 + a] = 1.0 / (h * h);
  } else if (!strcmp(name, "maxwell_rk3")) {
    tess_maxwell_params *p = params;
    *p = (tess_maxwell_params){.eps = 1, .mu = 1, .dt = 0.3 * h, .substep = 1};
    const double alpha[3] = TESS_MHD_RK3_ALPHA, beta[3] = TESS_MHD_RK3_BETA;
    k[MW_BETA] = beta[1], k[MW_GAP] = alpha[1] / beta[0], k[MW_READ] = 1, k[MW_DT] = p->dt;
    k[MW_CE] = 1.0 / p->eps, k[MW_CH] = -1.0 / p->mu;
    for (int a = 0; a < 3; a++)
      k[MW_IH + a] = 1.0 / h;
    k[MW_A] = 3.0 / 4.0, k[MW_A + 1] = -3.0 / 20.0, k[MW_A + 2] = 1.0 / 60.0;
  } else { /* rd2 */
    rd2_params *p = params;
    *p = (rd2_params){.dt = 1e-3, .Du = 2e-5, .Dv = 1e-5, .F = 0.04, .k = 0.06};
    k[RD2_DT] = p->dt, k[RD2_DU] = p->Du, k[RD2_DV] = p->Dv, k[RD2_F] = p->F;
    k[RD2_FK] = p->F + p->k, k[RD2_IH2] = 1.0 / (h * h);
  }
}

#define HAND_CALL(s, real, kk)                                                                     \
  do {                                                                                             \
    if (!strncmp(c->name, "heat", 4))                                                              \
      hand_heat_##s(u, o, n, c->g, c->name[4] == '2' ? 1 : 3, kk);                                 \
    else if (!strcmp(c->name, "ch_fused"))                                                         \
      hand_ch_##s(u, o, n, c->g, kk);                                                              \
    else if (!strcmp(c->name, "maxwell_rk3"))                                                      \
      hand_maxwell_##s(u, o, n, c->g, kk);                                                         \
    else                                                                                           \
      hand_rd2_##s(u, o, n, c->g, kk);                                                             \
  } while (0)

static void hand(const bench_case *c, int f32, const void *uv, void *ov, int n, const double *k) {
  if (f32) {
    float kf[16];
    for (int i = 0; i < 16; i++)
      kf[i] = (float)k[i]; /* rounded once, as the layer does */
    const float *u = uv;
    float *o = ov;
    HAND_CALL(f32, float, kf);
  } else {
    const double *u = uv;
    double *o = ov;
    HAND_CALL(f64, double, k);
  }
}

/* One case: 0 when the layer and the hand loop agree bit for bit, 1 otherwise. */
static int run(const bench_case *c, int f32, int n, int rounds) {
  const int X = n + 2 * c->g;
  const size_t cnt = (size_t)c->nc * X * X * X, es = f32 ? sizeof(float) : sizeof(double);
  void *u = aligned_alloc(64, cnt * es), *ol = aligned_alloc(64, cnt * es),
       *oh = aligned_alloc(64, cnt * es);
  if (!u || !ol || !oh) {
    fprintf(stderr, "layer_cpu: out of memory for %d^3\n", n);
    exit(2);
  }
  fill(u, cnt, f32, 1), fill(ol, cnt, f32, 2), memcpy(oh, ol, cnt * es);
  double k[16];
  union {
    tess_heat_params heat;
    tess_ch_params ch;
    tess_maxwell_params mw;
    rd2_params rd;
  } params;
  const double h = 1.0 / n;
  consts(c->name, h, k, &params);
  tess_region r = {.nin = 1,
                   .nout = 1,
                   .in_nc = {c->nc},
                   .out_nc = {c->nc},
                   .prec = f32 ? TESS_FP32 : TESS_FP64,
                   .params = &params,
                   .dt = 1e-5};
  for (int a = 0; a < 3; a++) {
    r.lo[a] = c->g, r.hi[a] = c->g + n, r.dim[a] = X, r.ghost[a] = c->g;
    r.origin[a] = -c->g, r.global[a] = n, r.h[a] = h;
  }
  r.in[0] = u, r.out[0] = ol;
  const tess_cpu_fn layer = f32 ? c->k->cpu_f32 : c->k->cpu;
  double t0 = now();
  layer(&r);
  const double t1 = now() - t0;
  hand(c, f32, u, oh, n, k);
  const int same = !memcmp(ol, oh, cnt * es);
  /* short sweeps get more rounds (about 50 ms of each per requested round): the best of many
   * is what a loaded machine leaves undisturbed */
  const double more = t1 > 0 ? 0.05 / t1 : 1;
  rounds = more > 1 ? (int)(rounds * (more < 16 ? more : 16)) : rounds;
  if (rounds > 1024) rounds = 1024;
  static double tl[1024], th[1024];
  for (int i = 0; i < rounds; i++) { /* alternate which goes first: a loaded machine drifts */
    for (int s = 0; s < 2; s++) {
      t0 = now();
      if ((s ^ i) & 1)
        hand(c, f32, u, oh, n, k);
      else
        layer(&r);
      (((s ^ i) & 1) ? th : tl)[i] = now() - t0;
    }
  }
  qsort(tl, (size_t)rounds, sizeof *tl, cmp), qsort(th, (size_t)rounds, sizeof *th, cmp);
  const double ml = 1e3 * tl[0], mh = 1e3 * th[0]; /* best: a loaded machine only adds */
  printf("%-12s %-6s %5d^3 %3d %10.3f %10.3f %-8s %6.2f\n", c->name, f32 ? "single" : "double", n,
         c->nc, ml, mh, same ? "yes" : "NO", ml / mh);
  fflush(stdout);
  free(u), free(ol), free(oh);
  return !same;
}

int main(int argc, char **argv) {
  int n = 128, rounds = 7;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--grid") && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr,
              "layer_cpu: unknown argument '%s' (allowed: --grid N, --rounds R, --only "
              "KERNEL)\n",
              argv[i]);
      return 2;
    }
  }
  if (n < 8 || n > 1024 || rounds < 1 || rounds > 64) {
    fprintf(stderr, "layer_cpu: --grid %d / --rounds %d out of range (8..1024, 1..64)\n", n,
            rounds);
    return 2;
  }
  const bench_case cases[] = {{"heat2", &tess_heat2_kernel, 1, 1},
                              {"heat6", &tess_heat6_kernel, 3, 1},
                              {"ch_fused", &tess_ch_fused_kernel, 2, 1},
                              {"maxwell_rk3", &tess_maxwell_rk3_kernel, 3, 6},
                              {"rd2", &tess_rd2_kernel, 1, 2}};
  printf("# kernel     prec     grid  nc   layer_ms    hand_ms bitwise  layer/hand\n");
  int bad = 0;
  for (int f32 = 0; f32 < 2; f32++)
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
      if (!only || !strcmp(only, cases[i].name)) bad |= run(&cases[i], f32, n, rounds);
  if (bad) fprintf(stderr, "layer_cpu: the layer and a hand loop differ (see 'bitwise')\n");
  return bad;
}

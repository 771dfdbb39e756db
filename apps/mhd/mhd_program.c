/* mhd_program.c — the MHD step program (three RK3 substeps and their swaps) and the initial
 * conditions of mhd_program.h. Uses only the public API and the MHD codelet's header.
 *
 * Messages about bad parameters go to stderr on rank 0 only: every rank checks the same input,
 * and one clear message beats N copies (the runtime's own convention).
 */
#include "mhd_program.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "noise.h"

#define TESS_MHD_TWO_PI 6.283185307179586476925286766559

__attribute__((format(printf, 1, 2))) static tess_err tess_mhd_arg_error(const char *fmt, ...) {
  if (tess_rank() <= 0) { /* before MPI every rank prints: it may be the only one left */
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mhd: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
  }
  return TESS_ERR_ARG;
}

/* ---- step program ------------------------------------------------------------------------- */

static tess_err tess_mhd_params_check(const tess_mhd_params *p) {
  if (!p) return tess_mhd_arg_error("missing MHD parameters");
  const struct {
    const char *name;
    double v;
  } all[] = {{"nu", p->nu},
             {"zeta", p->zeta},
             {"eta", p->eta},
             {"mu0", p->mu0},
             {"cs0", p->cs0},
             {"cp", p->cp},
             {"gamma", p->gamma},
             {"lnT0", p->lnT0},
             {"lnrho0", p->lnrho0},
             {"K", p->K},
             {"heating", p->heating},
             {"B_ext[0]", p->B_ext[0]},
             {"B_ext[1]", p->B_ext[1]},
             {"B_ext[2]", p->B_ext[2]},
             {"force_amp", p->force_amp},
             {"dt", p->dt}};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (!isfinite(all[i].v))
      return tess_mhd_arg_error("parameter %s = %g is invalid (allowed: finite)", all[i].name,
                                all[i].v);
  if (p->mu0 <= 0.0) return tess_mhd_arg_error("mu0 = %g is invalid (allowed: > 0)", p->mu0);
  if (p->cp <= 0.0) return tess_mhd_arg_error("cp = %g is invalid (allowed: > 0)", p->cp);
  if (p->dt < 0.0)
    return tess_mhd_arg_error("dt = %g is invalid (allowed: > 0, or 0 for the runtime's step)",
                              p->dt);
  if (p->nu < 0.0 || p->zeta < 0.0 || p->eta < 0.0 || p->K < 0.0)
    return tess_mhd_arg_error("nu = %g, zeta = %g, eta = %g, K = %g: diffusivities must be >= 0",
                              p->nu, p->zeta, p->eta, p->K);
  return TESS_OK;
}

tess_err tess_mhd_add_rk3(tess_sim_t sim, int state, int state_out, const tess_mhd_params *p) {
  tess_err e = tess_mhd_params_check(p);
  if (e) return e;
  for (int k = 0; k < 3; k++) {
    tess_mhd_params sub = *p;
    sub.substep = k;
    const tess_stage st = {.kernel = &tess_mhd_rk3_kernel,
                           .nin = 1,
                           .in = {state},
                           .nout = 1,
                           .out = {state_out},
                           .out_read = k > 0 ? 1u : 0u, /* u^(k-1) is read at the cell */
                           .params = &sub,
                           .params_size = sizeof sub};
    if ((e = tess_sim_add_stage(sim, &st)) || (e = tess_sim_add_swap(sim, state, state_out)))
      return e;
  }
  return TESS_OK;
}

/* ---- initial conditions ------------------------------------------------------------------- */

#define TESS_MHD_X_IC_NAME(name, text) text,
static const char *const tess_mhd_ic_names[] = {TESS_MHD_IC_LIST(TESS_MHD_X_IC_NAME)};

const char *tess_mhd_ic_name(tess_mhd_ic_kind k) {
  return (unsigned)k < TESS_MHD_IC_COUNT ? tess_mhd_ic_names[k] : "?";
}

tess_err tess_mhd_ic_parse(const char *s, tess_mhd_ic_kind *k) {
  for (int i = 0; i < TESS_MHD_IC_COUNT; i++)
    if (s && !strcmp(s, tess_mhd_ic_names[i])) {
      *k = (tess_mhd_ic_kind)i;
      return TESS_OK;
    }
  return tess_mhd_arg_error("unknown initial condition '%s' (allowed: random, sound, alfven, abc)",
                            s ? s : "(null)");
}

tess_mhd_ic tess_mhd_ic_default(tess_mhd_ic_kind kind, const int n[3], const double h[3],
                                const tess_mhd_params *phys) {
  tess_mhd_ic ic;
  memset(&ic, 0, sizeof ic);
  ic.kind = kind;
  ic.seed = 1;
  for (int a = 0; a < 3; a++) {
    ic.n[a] = n[a];
    ic.h[a] = h[a];
  }
  ic.amp = 1e-3;
  ic.mode = 1;
  ic.phys = *phys;
  ic.lnrho_bg = phys->lnrho0;
  ic.ss_bg = 0.0;
  ic.t = 0.0;
  return ic;
}

tess_err tess_mhd_ic_check(const tess_mhd_ic *ic) {
  if (!ic || (unsigned)ic->kind >= TESS_MHD_IC_COUNT)
    return tess_mhd_arg_error("invalid initial condition");
  for (int a = 0; a < 3; a++) {
    if (ic->n[a] < 1)
      return tess_mhd_arg_error(
          "initial condition: grid extent n%c = %d is invalid (allowed: >= 1)", "xyz"[a],
          ic -> n[a]);
    if (!(ic->h[a] > 0.0) || !isfinite(ic->h[a]))
      return tess_mhd_arg_error("initial condition: spacing h%c = %g is invalid (allowed: > 0)",
                                "xyz"[a], ic -> h[a]);
  }
  if (ic->mode < 1)
    return tess_mhd_arg_error("initial condition: mode %d is invalid (allowed: >= 1)", ic->mode);
  if (!isfinite(ic->amp) || !isfinite(ic->lnrho_bg) || !isfinite(ic->ss_bg) || !isfinite(ic->t))
    return tess_mhd_arg_error("initial condition: amp, lnrho_bg, ss_bg and t must be finite");
  if (ic->kind != TESS_MHD_IC_RANDOM && ic->phys.cp <= 0.0)
    return tess_mhd_arg_error("initial condition: cp = %g is invalid (allowed: > 0)", ic->phys.cp);
  if (ic->kind == TESS_MHD_IC_ALFVEN && !(ic->phys.B_ext[0] > 0.0 && ic->phys.mu0 > 0.0))
    return tess_mhd_arg_error(
        "alfven initial condition needs B_ext[0] = B0 > 0 (is %g) and mu0 > 0 "
        "(is %g)",
        ic->phys.B_ext[0], ic->phys.mu0);
  return TESS_OK;
}

static double tess_mhd_uniform(unsigned long seed, const long g[3], int comp) {
  uint64_t z = tess_noise_mix((uint64_t)seed);
  z = tess_noise_mix(z ^ (uint64_t)g[0]);
  z = tess_noise_mix(z ^ (uint64_t)g[1]);
  z = tess_noise_mix(z ^ (uint64_t)g[2]);
  return tess_noise_unit(z ^ (uint64_t)comp); /* 53 random bits: [0, 1) */
}

static double tess_mhd_k(const tess_mhd_ic *ic, int a) {
  return TESS_MHD_TWO_PI * (double)ic->mode / ((double)ic->n[a] * ic->h[a]);
}

double tess_mhd_ic_phase_speed(const tess_mhd_ic *ic) {
  switch (ic->kind) {
  case TESS_MHD_IC_SOUND:
    return sqrt(tess_mhd_cs2(&ic->phys, ic->lnrho_bg, ic->ss_bg));
  case TESS_MHD_IC_ALFVEN:
    return ic->phys.B_ext[0] / sqrt(ic->phys.mu0 * exp(ic->lnrho_bg));
  default:
    return 0.0;
  }
}

double tess_mhd_ic_value(const long g[3], int comp, void *ctx) {
  const tess_mhd_ic *ic = ctx;
  if (ic->kind == TESS_MHD_IC_RANDOM) return tess_mhd_uniform(ic->seed, g, comp);

  double x[3], k[3];
  for (int a = 0; a < 3; a++) {
    x[a] = (double)g[a] * ic->h[a];
    k[a] = tess_mhd_k(ic, a);
  }
  const double phi = k[0] * x[0] - k[0] * tess_mhd_ic_phase_speed(ic) * ic->t;
  switch (comp) {
  case TESS_MHD_LNRHO:
    return ic->lnrho_bg + (ic->kind == TESS_MHD_IC_SOUND ? ic->amp * cos(phi) : 0.0);
  case TESS_MHD_SS:
    return ic->ss_bg;
  default:
    break;
  }
  switch (ic->kind) {
  case TESS_MHD_IC_SOUND:
    return comp == TESS_MHD_UX ? ic->amp * tess_mhd_ic_phase_speed(ic) * cos(phi) : 0.0;
  case TESS_MHD_IC_ALFVEN:
    if (comp == TESS_MHD_UY) return -ic->amp / sqrt(ic->phys.mu0 * exp(ic->lnrho_bg)) * cos(phi);
    if (comp == TESS_MHD_AZ) return -ic->amp / k[0] * sin(phi);
    return 0.0;
  case TESS_MHD_IC_ABC:
    switch (comp) {
    case TESS_MHD_AX:
      return ic->amp * (sin(k[2] * x[2]) / k[2] + cos(k[1] * x[1]) / k[1]);
    case TESS_MHD_AY:
      return ic->amp * (sin(k[0] * x[0]) / k[0] + cos(k[2] * x[2]) / k[2]);
    case TESS_MHD_AZ:
      return ic->amp * (sin(k[1] * x[1]) / k[1] + cos(k[0] * x[0]) / k[0]);
    default:
      return 0.0; /* u = 0 */
    }
  default:
    return 0.0;
  }
}

tess_err tess_mhd_fill(tess_sim_t sim, int state, const tess_mhd_ic *ic) {
  tess_err e = tess_mhd_ic_check(ic);
  if (e) return e;
  return tess_sim_fill(sim, state, tess_mhd_ic_value, (void *)ic);
}

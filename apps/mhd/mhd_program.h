/* mhd_program.h — the MHD step program and initial conditions, shared by the MHD app and the
 * tests.
 *
 * A step is Astaroth's register-free RK3 on two 8-component fields (codelets/mhd/mhd.h):
 *
 *     stage mhd_rk3 substep 0   in = state (stencil)   out = state_out (write)
 *     swap state <-> state_out
 *     stage mhd_rk3 substep 1   in = state (stencil)   out = state_out (read at the cell + write)
 *     swap state <-> state_out
 *     stage mhd_rk3 substep 2   in = state (stencil)   out = state_out (read at the cell + write)
 *     swap state <-> state_out
 *
 * so `state` holds u(t + dt) after each step and `state_out` holds scratch. Three halo
 * exchanges of all 8 components per step, derived by the runtime from the star_diag footprint.
 *
 * Initial conditions are tess_init_fn callbacks (value from the global cell index only, so
 * identical whatever the decomposition), chosen by a tess_mhd_ic struct passed as ctx.
 */
#ifndef TESS_MHD_PROGRAM_H
#define TESS_MHD_PROGRAM_H

#include "mhd.h"
#include "tessera.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds the three RK3 substeps (with p->substep = 0, 1, 2; the rest of *p as given) and a swap
 * after each to the step program of `sim`. state and state_out: fields of 8 components.
 * Before tess_sim_setup. Checks the parameters (mu0, cp > 0, dt >= 0, finite values) and
 * returns TESS_ERR_ARG with a message on rank 0 naming the bad value. Not collective by itself,
 * but every rank must build the same program. */
tess_err tess_mhd_add_rk3(tess_sim_t sim, int state, int state_out, const tess_mhd_params *p);

/* ---- initial conditions ------------------------------------------------------------------- */

#define TESS_MHD_IC_LIST(X)                                                                        \
  X(TESS_MHD_IC_RANDOM, "random") /* Astaroth's benchmark: every component uniform in [0, 1) */    \
  X(TESS_MHD_IC_SOUND, "sound")   /* travelling sound wave along x */                              \
  X(TESS_MHD_IC_ALFVEN, "alfven") /* travelling Alfven wave along x on B_ext = (B0, 0, 0) */       \
  X(TESS_MHD_IC_ABC, "abc")       /* B = curl A = amp * ABC field: div B = 0 by construction */
#define TESS_MHD_X_IC_ENUM(name, text) name,
typedef enum { TESS_MHD_IC_LIST(TESS_MHD_X_IC_ENUM) TESS_MHD_IC_COUNT } tess_mhd_ic_kind;
const char *tess_mhd_ic_name(tess_mhd_ic_kind k);
/* TESS_ERR_ARG with a message listing the allowed names. */
tess_err tess_mhd_ic_parse(const char *s, tess_mhd_ic_kind *k);

/* With x_a = g_a h_a (global cell index times spacing), L_a = n_a h_a, k_a = 2 pi mode / L_a,
 * rho_bg = exp(lnrho_bg), phase phi = k_x x - omega t, and every component not listed = 0:
 *
 *   random  component c of cell g = uniform [0, 1) from a hash of (seed, g, c)
 *   sound   lnrho = lnrho_bg + amp cos phi,  ux = amp c_s cos phi,  ss = ss_bg
 *           c_s = sqrt(tess_mhd_cs2(phys, lnrho_bg, ss_bg))
 *               = cs0 exp((gamma ss_bg / cp + (gamma - 1)(lnrho_bg - lnrho0)) / 2),
 *           omega = c_s k_x: the linear isentropic wave of the equations in mhd.h
 *           (= cs0 for ss_bg = 0 and lnrho_bg = lnrho0), damped by nu, zeta and K
 *   alfven  lnrho = lnrho_bg, ss = ss_bg, uy = -(amp / sqrt(mu0 rho_bg)) cos phi,
 *           az = -(amp / k_x) sin phi, so that b_y = -d az/dx = amp cos phi on the imposed
 *           field phys.B_ext = (B0, 0, 0), B0 > 0 (set it in the stage params too);
 *           omega = v_A k_x, v_A = B0 / sqrt(mu0 rho_bg); damped by nu and eta
 *   abc     lnrho = lnrho_bg, ss = ss_bg, u = 0,
 *           A = amp (sin(k_z z) + cos(k_y y), sin(k_x x) + cos(k_z z), sin(k_y y) + cos(k_x x)) / k
 *           with 1/k replaced by 1/k_a per term (k_a of the term's argument), so that
 *           B = curl A = amp (sin k_z z + cos k_y y, sin k_x x + cos k_z z, sin k_y y + cos k_x x)
 *           exactly: divergence-free by construction (and force-free, Beltrami, when
 *           k_x = k_y = k_z). On a 2D grid (n_z = 1, z = 0) the z terms are constants.
 *
 * t evaluates the travelling waves at a later time: the linear, non-dissipative solution. */
typedef struct {
  tess_mhd_ic_kind kind;
  unsigned long seed;   /* random */
  int n[3];             /* global grid extent */
  double h[3];          /* grid spacing */
  double amp;           /* wave amplitude (sound: of lnrho; alfven: of b_y; abc: of B) */
  int mode;             /* periods across the box along each axis */
  double lnrho_bg;      /* background ln rho */
  double ss_bg;         /* background entropy */
  double t;             /* evaluate the wave solution at time t (0: the initial condition) */
  tess_mhd_params phys; /* the physics the wave speeds come from (alfven: B0 = phys.B_ext[0]) */
} tess_mhd_ic;

/* kind, seed 1, amp 1e-3, mode 1, lnrho_bg = phys.lnrho0, ss_bg 0, t 0. */
tess_mhd_ic tess_mhd_ic_default(tess_mhd_ic_kind kind, const int n[3], const double h[3],
                                const tess_mhd_params *phys);

/* Checks the struct (extents, spacing, mode >= 1, alfven: B0 > 0 and mu0 > 0); TESS_ERR_ARG
 * with a message on rank 0. */
tess_err tess_mhd_ic_check(const tess_mhd_ic *ic);

/* tess_init_fn: ctx is a const tess_mhd_ic *. Thread-safe, no state. */
double tess_mhd_ic_value(const long g[3], int comp, void *ctx);

/* Phase speed omega / k_x of the sound and Alfven ICs (0 for the others). */
double tess_mhd_ic_phase_speed(const tess_mhd_ic *ic);

/* Checks ic, then fills the 8 components of `state` with it. Synchronous; collective. */
tess_err tess_mhd_fill(tess_sim_t sim, int state, const tess_mhd_ic *ic);

#ifdef __cplusplus
}
#endif
#endif

/* mhd_reference.h — a deliberately plain serial CPU model of the MHD solver, for tests.
 *
 * Written apart from codelets/mhd/mhd.c (it shares only tess_mhd_params and the component order of
 * mhd.h): whole padded grids, one array per component, periodic ghosts filled by copying,
 * every derivative into its own array, then the right-hand side into its own arrays, then
 * Williamson's RK3 in the classic two-register form
 *
 *     q <- alpha_k q + dt F(u);   u <- u + beta_k q        (k = 1, 2, 3; q = 0 before k = 1)
 *
 * which is mathematically the same as the codelet's register-free form (digest 3.1.4). The
 * ULP comparison of the two (test_mhd_reference) measures how closely they agree in floating
 * point. p->dt and p->substep are ignored: the step is the argument dt.
 */
#ifndef TESS_MHD_REFERENCE_H
#define TESS_MHD_REFERENCE_H

#include "mhd.h"

/* Advances one full RK3 step in place. fields[c]: component c (tess_mhd_var order) on the
 * whole periodic grid, [n2][n1][n0], x fastest (what tess_sim_gather returns); h: spacing.
 * An axis of extent 1 is inactive: derivatives along it are 0. Returns 0, or -1 when out of
 * memory or when an active axis is shorter than the stencil radius 3. */
int mhd_ref_step(int n[3], double h[3], const tess_mhd_params *p, double dt, double *fields[8]);

/* The same with a choice of the RK3 form: the classic two-register form above (what
 * mhd_ref_step uses), or Astaroth's register-free form of mhd.h
 *
 *     u^(k+1) = u^k + beta_k [ (alpha_k / beta_(k-1)) (u^k - u^(k-1)) + dt F(u^k) ]
 *
 * evaluated exactly as written there. The two are equal in exact arithmetic; in floating point
 * they differ by about one rounding of the intermediate states u^1, u^2, which is many ULPs of
 * a result near 0 (see test_mhd_reference). */
typedef enum { MHD_REF_RK_CLASSIC, MHD_REF_RK_REGISTER_FREE } mhd_ref_rk_form;
int mhd_ref_step_form(int n[3], double h[3], const tess_mhd_params *p, double dt, double *fields[8],
                      mhd_ref_rk_form form);

#endif

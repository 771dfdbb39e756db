/* cahn_hilliard.h — the Cahn–Hilliard equation as tessera kernels.
 *
 *     du/dt = M Lap(mu),    mu = -B u + U u^3 - K Lap(u)           (periodic, 2D or 3D)
 *
 * Lap is the 2nd-order discrete Laplacian over the active axes (dim[i] > 1, i.e. ghost[i] > 0).
 * One field component (nc = 1) everywhere. Three kernels, two ways to take a step:
 *
 *     split:  mu  = ch_mu(v)                      star, radius 1: Lap(v) needs v at +-e_i
 *             out = ch_update(mu, v [, w])        star, radius 1: Lap(mu) needs mu at +-e_i;
 *                                                 v and w are read at the cell only
 *     fused:  out = ch_fused(v [, w])             star_diag, radius 2: Lap(mu) needs mu at the
 *                                                 cell and at +-e_i, and mu there needs v at
 *                                                 their own +-e_j, i.e. at every offset with
 *                                                 |dx|+|dy|+|dz| <= 2: +-2e_i and +-e_i+-e_j
 *                                                 (i != j), which star_diag radius 2 covers
 *                                                 (star radius 2 misses the in-plane diagonals)
 *
 *     out = c1 * (v + (dt*M) * Lap(mu))                 (no w: nin = 2 split / 1 fused)
 *     out = (c0*w) + (c1 * (v + (dt*M) * Lap(mu)))      (w:    nin = 3 split / 2 fused)
 *
 * Forward Euler is one update with c1 = 1 and no w. Heun is an Euler step to u* followed by
 * one with w = u_n, v = u*, c0 = c1 = 0.5. The split version costs a field and a halo
 * exchange of mu per stage; the fused one costs a wider halo and recomputing mu.
 *
 * Bitwise reproducibility: a cell's value depends only on the input values, never on the
 * region or the tiling; the CPU and CUDA versions produce identical bits; and ch_fused gives
 * the same bits as ch_mu followed by ch_update. All evaluate, in this order, without fused
 * multiply-adds:
 *
 *     d_a(f)  = ((f[+e_a] + f[-e_a]) - 2*f[0]) * inv_h2[a]
 *     Lap(f)  = (d_x + d_y) + d_z                        (inactive axes skipped, not added as 0)
 *     mu(v)   = (((-B)*v) + (U*((v*v)*v))) - (K*Lap(v))
 *     out     = c1 * (v + (dt*M) * Lap(mu))     [then  (c0*w) + that]
 *
 * with -B, 1/h^2 and dt*M computed once on the host (cahn_hilliard.c). ch_fused evaluates
 * mu(v) at each of the 2d+1 points of Lap(mu) with that same expression. The arithmetic is
 * ch_cell.h, written once for CPU and CUDA, double and single (the stencil layer); single
 * precision runs the same sequence in float on the constants rounded once to float.
 */
#ifndef TESS_CAHN_HILLIARD_H
#define TESS_CAHN_HILLIARD_H

#include "tessera_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  double M, B, U, K; /* mobility, and the free-energy coefficients */
  double dt;         /* time step (the runtime's r->dt is also available but this one is used) */
  double c0, c1;     /* combination weights: see the file comment */
} tess_ch_params;    /* the stage's params block, for all three kernels */

/* in[0] = v; out[0] = mu(v). */
extern const tess_kernel tess_ch_mu_kernel; /* "ch_mu", TESS_SHAPE_STAR, radius 1 */
/* in[0] = mu (stencil), in[1] = v (cell), optional in[2] = w (cell, iff nin == 3). */
extern const tess_kernel tess_ch_update_kernel; /* "ch_update", TESS_SHAPE_STAR, radius 1 */
/* in[0] = v (stencil), optional in[1] = w (cell, iff nin == 2). */
extern const tess_kernel tess_ch_fused_kernel; /* "ch_fused", TESS_SHAPE_STAR_DIAG, radius 2 */

/* ---- analysis helpers for apps and tests: host only, no StarPU --------------------------- */

/* Largest stable time step of forward Euler (and of Heun, same real-axis stability interval
 * [-2, 0]) for the linearisation about u0: sigma(lambda) = -M lambda (K lambda - B + 3 U u0^2),
 * lambda in [0, lambda_max], lambda_max = sum over active axes of 4/h_i^2. Returns
 * 2 / max(-sigma) over that interval (maximum at lambda_max when K > 0), or INFINITY if
 * nothing is unstable (-sigma <= 0 on the whole interval: no decaying mode the integrator
 * could overshoot; modes with sigma > 0 grow in the equation itself, at any dt). */
double tess_ch_dt_limit(double M, double B, double U, double K, double u0, const double h[3],
                        const int active[3]);
/* Discrete linear growth rate of a Fourier mode whose discrete Laplacian symbol is lambda
 * (>= 0; the mode's Lap eigenvalue is -lambda): sigma = M lambda (B - 3 U u0^2 - K lambda). */
double tess_ch_growth_rate(double M, double B, double U, double K, double u0, double lambda);

/* The constants' slots (cahn_hilliard.c fills them, ch_cell.h reads them). */
enum { CH_NEG_B, CH_U, CH_K, CH_COEF, CH_C0, CH_C1, CH_IH2 /* 1/h^2 per axis: 3 slots */ };

#ifdef __cplusplus
}
#endif
#endif

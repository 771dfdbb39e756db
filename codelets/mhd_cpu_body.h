/* mhd_cpu_body.h — the body of the MHD kernel's CPU version, written once for both precisions.
 *
 * mhd.c includes this file twice (there is no include guard on purpose):
 *
 *   real = double, TESS_MHD_FN(f) = f         ->  tess_mhd_rk3_cpu       (and its helpers)
 *   real = float,  TESS_MHD_FN(f) = f##_f32   ->  tess_mhd_rk3_cpu_f32
 *
 * with TESS_MHD_K(x) = (real)(x): every literal coefficient is written as a double expression
 * and rounded to `real` once (an identity for double, so the double version is the code it
 * was before, operation for operation); TESS_MHD_EXP: exp or expf; TESS_MHD_PREC: the
 * tess_precision the region must carry; TESS_MHD_IN(r), TESS_MHD_OUT(r): its arrays of that
 * type. Everything else (tess_mhd_pair, TESS_MHD_REQUIRE, the component enum) comes from mhd.c.
 * The walk through a cell is described there; the CUDA kernel mirrors it in both precisions.
 */

/* Geometry of one tile, shared by every cell of a region. */
typedef struct {
  ptrdiff_t comp;      /* element distance between components of one cell */
  ptrdiff_t stride[3]; /* element distance to the next cell along x, y, z */
  int active[3];       /* axis has a stencil (extent > 1) */
  real inv_h[3];       /* 1 / h */
  real inv_h2[3];      /* 1 / h^2 */
  real inv_hh[3];      /* 1 / (h_a h_b) for the pairs xy, xz, yz */
} TESS_MHD_FN(tess_mhd_geom);

/* The params block's numbers as the right-hand side uses them, each rounded to `real` once
 * from its double value (gm1, cs0sq and eta_mu0 are products or differences of params, taken
 * in double: the double version's left-to-right evaluation of gamma - 1, cs0 * cs0 and
 * eta * mu0 gives the same values). */
typedef struct {
  real nu, zeta, eta, mu0, cp, gamma, gm1, lnT0, lnrho0, K, heating, B_ext[3], cs0sq, eta_mu0;
  int has_force;
} TESS_MHD_FN(tess_mhd_coef);

/* Everything F needs at one cell. */
typedef struct {
  real val[TESS_MHD_NC];     /* the state */
  real grad[TESS_MHD_NC][3]; /* d f / d x_a */
  real d2[TESS_MHD_NC][3];   /* d^2 f / d x_a^2 */
  real graddiv_u[3];         /* grad div u */
  real graddiv_a[3];         /* grad div A */
} TESS_MHD_FN(tess_mhd_derivs);

/* d^2 v_b / (d x_a d x_b) summed over b: component a of grad div v, for the vector v whose
 * x component is at v[0] (components `comp` apart). */
static void TESS_MHD_FN(tess_mhd_graddiv)(const real *v, const TESS_MHD_FN(tess_mhd_geom) * g,
                                          const real d2[3][3], real out[3]) {
  real mixed[3][3] = {{TESS_MHD_K(0.0)}}; /* mixed[a][b] = d^2 v_b / (dx_a dx_b), a != b */
  for (int q = 0; q < 3; q++) {
    const int a = tess_mhd_pair[q][0], b = tess_mhd_pair[q][1];
    if (!g->active[a] || !g->active[b]) continue;
    mixed[a][b] =
        TESS_MHD_FN(tess_mhd_dxy)(v + b * g->comp, g->stride[a], g->stride[b], g->inv_hh[q]);
    mixed[b][a] =
        TESS_MHD_FN(tess_mhd_dxy)(v + a * g->comp, g->stride[a], g->stride[b], g->inv_hh[q]);
  }
  out[0] = d2[0][0] + mixed[0][1] + mixed[0][2];
  out[1] = mixed[1][0] + d2[1][1] + mixed[1][2];
  out[2] = mixed[2][0] + mixed[2][1] + d2[2][2];
}

/* f: component 0 of the cell. */
static void TESS_MHD_FN(tess_mhd_cell_derivs)(const real *f, const TESS_MHD_FN(tess_mhd_geom) * g,
                                              TESS_MHD_FN(tess_mhd_derivs) * d) {
  for (int c = 0; c < TESS_MHD_NC; c++) {
    const real *fc = f + c * g->comp;
    d->val[c] = fc[0];
    for (int a = 0; a < 3; a++) {
      d->grad[c][a] =
          g->active[a] ? TESS_MHD_FN(tess_mhd_d1)(fc, g->stride[a], g->inv_h[a]) : TESS_MHD_K(0.0);
      d->d2[c][a] =
          g->active[a] ? TESS_MHD_FN(tess_mhd_d2)(fc, g->stride[a], g->inv_h2[a]) : TESS_MHD_K(0.0);
    }
  }
  TESS_MHD_FN(tess_mhd_graddiv)(f + UX * g->comp, g, (const real(*)[3])(d->d2 + UX), d->graddiv_u);
  TESS_MHD_FN(tess_mhd_graddiv)(f + AX * g->comp, g, (const real(*)[3])(d->d2 + AX), d->graddiv_a);
}

static real TESS_MHD_FN(dot3)(const real a[3], const real b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void TESS_MHD_FN(cross3)(const real a[3], const real b[3], real out[3]) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

/* F at one cell; force_y is the y body force there (0 without forcing). */
static void TESS_MHD_FN(tess_mhd_rhs)(const TESS_MHD_FN(tess_mhd_derivs) * d,
                                      const TESS_MHD_FN(tess_mhd_coef) * p, real force_y,
                                      real F[TESS_MHD_NC]) {
  const real lnrho = d->val[LNRHO], ss = d->val[SS];
  const real *u = &d->val[UX];
  const real *grad_lnrho = d->grad[LNRHO], *grad_ss = d->grad[SS];
  const real(*grad_u)[3] = (const real(*)[3])(d->grad + UX); /* grad_u[i][a] = d u_i / d x_a */
  const real(*grad_a)[3] = (const real(*)[3])(d->grad + AX);

  real lap[TESS_MHD_NC];
  for (int c = 0; c < TESS_MHD_NC; c++)
    lap[c] = d->d2[c][0] + d->d2[c][1] + d->d2[c][2];
  const real *lap_u = &lap[UX], *lap_a = &lap[AX];

  const real div_u = grad_u[0][0] + grad_u[1][1] + grad_u[2][2];

  /* B = curl A + B_ext, j = (grad div A - Lap A) / mu0 */
  const real B[3] = {grad_a[2][1] - grad_a[1][2] + p->B_ext[0],
                     grad_a[0][2] - grad_a[2][0] + p->B_ext[1],
                     grad_a[1][0] - grad_a[0][1] + p->B_ext[2]};
  real j[3];
  for (int i = 0; i < 3; i++)
    j[i] = (d->graddiv_a[i] - lap_a[i]) / p->mu0;

  /* Traceless rate of strain */
  real S[3][3];
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      S[i][k] = TESS_MHD_K(0.5) * (grad_u[i][k] + grad_u[k][i]);
  S[0][0] =
      TESS_MHD_K(2.0 / 3.0) * grad_u[0][0] - TESS_MHD_K(1.0 / 3.0) * (grad_u[1][1] + grad_u[2][2]);
  S[1][1] =
      TESS_MHD_K(2.0 / 3.0) * grad_u[1][1] - TESS_MHD_K(1.0 / 3.0) * (grad_u[0][0] + grad_u[2][2]);
  S[2][2] =
      TESS_MHD_K(2.0 / 3.0) * grad_u[2][2] - TESS_MHD_K(1.0 / 3.0) * (grad_u[0][0] + grad_u[1][1]);
  real SS_contract = TESS_MHD_K(0.0);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++)
      SS_contract += S[i][k] * S[i][k];

  /* Equation of state */
  const real rho = TESS_MHD_EXP(lnrho), inv_rho = TESS_MHD_K(1.0) / rho;
  const real eos = p->gamma * ss / p->cp + p->gm1 * (lnrho - p->lnrho0);
  const real cs2 = p->cs0sq * TESS_MHD_EXP(eos);
  const real lnT = p->lnT0 + eos;
  const real inv_rhoT = TESS_MHD_K(1.0) / (rho * TESS_MHD_EXP(lnT));

  /* Continuity */
  F[LNRHO] = -TESS_MHD_FN(dot3)(u, grad_lnrho) - div_u;

  /* Momentum */
  real jxB[3];
  TESS_MHD_FN(cross3)(j, B, jxB);
  for (int i = 0; i < 3; i++) {
    const real advection = TESS_MHD_FN(dot3)(grad_u[i], u);
    const real pressure = cs2 * (grad_ss[i] / p->cp + grad_lnrho[i]);
    const real S_grad_lnrho = TESS_MHD_FN(dot3)(S[i], grad_lnrho);
    const real viscous = p->nu * (lap_u[i] + TESS_MHD_K(1.0 / 3.0) * d->graddiv_u[i] +
                                  TESS_MHD_K(2.0) * S_grad_lnrho) +
                         p->zeta * d->graddiv_u[i];
    F[UX + i] = -advection - pressure + jxB[i] * inv_rho + viscous;
  }
  if (p->has_force) F[UX + 1] += force_y;

  /* Entropy */
  const real grad_lnT[3] = {p->gamma * grad_ss[0] / p->cp + p->gm1 * grad_lnrho[0],
                            p->gamma * grad_ss[1] / p->cp + p->gm1 * grad_lnrho[1],
                            p->gamma * grad_ss[2] / p->cp + p->gm1 * grad_lnrho[2]};
  const real lap_lnT = p->gamma * lap[SS] / p->cp + p->gm1 * lap[LNRHO];
  const real heat = p->heating + p->eta_mu0 * TESS_MHD_FN(dot3)(j, j) +
                    TESS_MHD_K(2.0) * rho * p->nu * SS_contract + p->zeta * rho * div_u * div_u;
  const real conduction = p->K * inv_rho * (lap_lnT + TESS_MHD_FN(dot3)(grad_lnT, grad_lnT));
  F[SS] = -TESS_MHD_FN(dot3)(u, grad_ss) + inv_rhoT * heat + conduction;

  /* Induction */
  real uxB[3];
  TESS_MHD_FN(cross3)(u, B, uxB);
  for (int i = 0; i < 3; i++)
    F[AX + i] = uxB[i] + p->eta * lap_a[i];
}

/* ---- the kernel --------------------------------------------------------------------------- */

void TESS_MHD_FN(tess_mhd_rk3_cpu)(const tess_region *r) {
  if (tess_region_empty(r)) return;

  TESS_MHD_REQUIRE(r->prec == TESS_MHD_PREC, "region precision is not the kernel's");
  TESS_MHD_REQUIRE(r->nin == 1 && r->nout == 1, "needs one input (u^k) and one output (u^(k-1))");
  TESS_MHD_REQUIRE(TESS_MHD_IN(r) && TESS_MHD_OUT(r), "missing field array");
  TESS_MHD_REQUIRE(r->in_nc[0] == TESS_MHD_NC && r->out_nc[0] == TESS_MHD_NC,
                   "input and output need 8 components (lnrho, ux, uy, uz, ss, ax, ay, az)");
  TESS_MHD_REQUIRE(TESS_MHD_IN(r) != (const real *)TESS_MHD_OUT(r), "output aliases the input");
  TESS_MHD_REQUIRE(r->params != NULL, "missing tess_mhd_params");
  const tess_mhd_params *p = r->params;
  TESS_MHD_REQUIRE(p->substep >= 0 && p->substep <= 2, "substep must be 0, 1 or 2");
  TESS_MHD_REQUIRE(tess_region_fits(r, TESS_MHD_RADIUS),
                   "region plus stencil radius leaves the padded tile");

  TESS_MHD_FN(tess_mhd_geom) g;
  const ptrdiff_t X = r->dim[0], Y = r->dim[1];
  g.comp = X;
  g.stride[0] = 1;
  g.stride[1] = TESS_MHD_NC * X;
  g.stride[2] = TESS_MHD_NC * X * Y;
  for (int a = 0; a < 3; a++) {
    g.active[a] = r->dim[a] > 1;
    g.inv_h[a] = TESS_MHD_K(1.0 / r->h[a]);
    g.inv_h2[a] = TESS_MHD_K(1.0 / (r->h[a] * r->h[a]));
  }
  for (int q = 0; q < 3; q++)
    g.inv_hh[q] = TESS_MHD_K(1.0 / (r->h[tess_mhd_pair[q][0]] * r->h[tess_mhd_pair[q][1]]));

  const TESS_MHD_FN(tess_mhd_coef) coef = {
      .nu = TESS_MHD_K(p->nu),
      .zeta = TESS_MHD_K(p->zeta),
      .eta = TESS_MHD_K(p->eta),
      .mu0 = TESS_MHD_K(p->mu0),
      .cp = TESS_MHD_K(p->cp),
      .gamma = TESS_MHD_K(p->gamma),
      .gm1 = TESS_MHD_K(p->gamma - 1.0),
      .lnT0 = TESS_MHD_K(p->lnT0),
      .lnrho0 = TESS_MHD_K(p->lnrho0),
      .K = TESS_MHD_K(p->K),
      .heating = TESS_MHD_K(p->heating),
      .B_ext = {TESS_MHD_K(p->B_ext[0]), TESS_MHD_K(p->B_ext[1]), TESS_MHD_K(p->B_ext[2])},
      .cs0sq = TESS_MHD_K(p->cs0 * p->cs0),
      .eta_mu0 = TESS_MHD_K(p->eta * p->mu0),
      .has_force = p->force_amp != 0.0,
  };

  const double alpha[3] = TESS_MHD_RK3_ALPHA, beta_d[3] = TESS_MHD_RK3_BETA;
  const int k = p->substep;
  const real beta = TESS_MHD_K(beta_d[k]);
  const real dt = TESS_MHD_K(p->dt > 0.0 ? p->dt : r->dt);
  const real ab = TESS_MHD_K(k > 0 ? alpha[k] / beta_d[k - 1] : 0.0);
  const double two_pi = 6.283185307179586476925286766559;

  for (int z = r->lo[2]; z < r->hi[2]; z++)
    for (int y = r->lo[1]; y < r->hi[1]; y++)
      for (int x = r->lo[0]; x < r->hi[0]; x++) {
        const size_t cell = TESS_IDX(X, Y, TESS_MHD_NC, 0, x, y, z);
        const real *in = TESS_MHD_IN(r) + cell;
        real *out = TESS_MHD_OUT(r) + cell;

        /* a function of x alone: computed in double, rounded once */
        real force_y = TESS_MHD_K(0.0);
        if (coef.has_force) {
          long gx = (r->origin[0] + x) % r->global[0];
          if (gx < 0) gx += r->global[0];
          force_y = TESS_MHD_K(
              p->force_amp * sin(two_pi * (double)((long)p->force_k * gx) / (double)r->global[0]));
        }

        TESS_MHD_FN(tess_mhd_derivs) d;
        real F[TESS_MHD_NC];
        TESS_MHD_FN(tess_mhd_cell_derivs)(in, &g, &d);
        TESS_MHD_FN(tess_mhd_rhs)(&d, &coef, force_y, F);

        for (int c = 0; c < TESS_MHD_NC; c++) {
          const real u = in[c * X];
          if (k == 0)
            out[c * X] = u + beta * (dt * F[c]);
          else
            out[c * X] = u + beta * (ab * (u - out[c * X]) + dt * F[c]);
        }
      }
}

/* The parameters are this instantiation's: the next one defines its own. */
#undef real
#undef TESS_MHD_FN
#undef TESS_MHD_K
#undef TESS_MHD_EXP
#undef TESS_MHD_PREC
#undef TESS_MHD_IN
#undef TESS_MHD_OUT

/* cpu.h — the CPU side of the stencil layer (stencil.h): include after defining
 * TESS_STENCIL_SOURCE. For each kernel line of the cell source it defines
 *
 *   tess_<name>_cpu, tess_<name>_cpu_f32      the sweeps (synchronous, calling thread)
 *   tess_<name>_cuda, tess_<name>_cuda_f32    (CUDA builds) check and plan here, then call
 *                                             tess_<name>_go_f64/_f32 from cuda.cuh
 *   const tess_kernel tess_<name>_kernel      the record: footprint, radius, all four
 *
 * The sweep walks z, y, then x along unit-stride rows. Compile with -ffp-contract=off. */
#include "stencil.h"

#define TESS_HD static inline

/* The record and the public functions; `sweep` is the pass's function over a plan. */
#define TESS_STENCIL_ENTRY(nm, shape_, radius_, consts_, sweep, ...)                               \
  static const tess_stencil_spec TESS_FN(tess_spec_##nm) = {                                       \
      .name = #nm, .shape = shape_, .radius = radius_, .consts = consts_, __VA_ARGS__};            \
  void TESS_PUB(tess_##nm##_cpu)(const tess_region *r) {                                           \
    tess_stencil_plan p;                                                                           \
    if (tess_stencil_plan_make(&TESS_FN(tess_spec_##nm), r, &p)) sweep(&p);                        \
  }                                                                                                \
  TESS_STENCIL_CUDA_ENTRY(nm)                                                                      \
  TESS_STENCIL_RECORD(nm, shape_, radius_)

#ifdef TESS_HAVE_CUDA
#define TESS_STENCIL_CUDA_ENTRY(nm)                                                                \
  void TESS_FN(tess_##nm##_go)(const tess_stencil_plan *p, void *stream);                          \
  void TESS_PUB(tess_##nm##_cuda)(const tess_region *r, void *stream) {                            \
    tess_stencil_plan p;                                                                           \
    if (tess_stencil_plan_make(&TESS_FN(tess_spec_##nm), r, &p))                                   \
      TESS_FN(tess_##nm##_go)(&p, stream);                                                         \
  }
#define TESS_STENCIL_CUDA_DECL(nm)                                                                 \
  void tess_##nm##_cuda(const tess_region *r, void *stream);                                       \
  void tess_##nm##_cuda_f32(const tess_region *r, void *stream);
#else
#define TESS_STENCIL_CUDA_ENTRY(nm)
#define TESS_STENCIL_CUDA_DECL(nm)
#endif

/* Emitted once, in the float pass, when both versions exist. */
#define TESS_STENCIL_RECORD(nm, shape_, radius_)                                                   \
  TESS_CAT(TESS_STENCIL_RECORD_, TESS_PASS_LAST)(nm, shape_, radius_)
#define TESS_STENCIL_RECORD_0(nm, shape_, radius_)
#define TESS_STENCIL_RECORD_1(nm, shape_, radius_)                                                 \
  void tess_##nm##_cpu(const tess_region *r);                                                      \
  TESS_STENCIL_CUDA_DECL(nm)                                                                       \
  const tess_kernel tess_##nm##_kernel = {                                                         \
      .name = #nm,                                                                                 \
      .cpu = tess_##nm##_cpu,                                                                      \
      .cuda = TESS_CUDA_FN(tess_##nm##_cuda),                                                      \
      .shape = shape_,                                                                             \
      .radius = radius_,                                                                           \
      .cpu_f32 = tess_##nm##_cpu_f32,                                                              \
      .cuda_f32 = TESS_CUDA_FN(tess_##nm##_cuda_f32),                                              \
      .wraps = TESS_STENCIL_WRAPS(nm),                                                             \
  };

/* A lone tile's periodic halos (tess_kernel.wraps): every CUDA path of the layer can read them at
 * their images (cuda.cuh, WR), but only the staged z-marches gain from it; the per-cell paths
 * lost (one H100, lone tiles against halo copies: Maxwell 256^3 7.75 vs 4.70 ms, Cahn-Hilliard
 * composed 512^3 2.73 vs 2.18; the staged CH fused 0.943 vs 1.025, heat 0.868 vs 0.935). So a
 * kernel whose 3D launch is staged opts in with `#define TESS_STENCIL_WRAP_<name> ~,
 * TESS_WRAP_CUDA` before its TESS_STENCIL line; any other wraps nowhere (the runtime copies). */
#define TESS_STENCIL_WRAPS(nm)          TESS_STENCIL_SECOND(TESS_STENCIL_WRAP_##nm, 0u, ~)
#define TESS_STENCIL_SECOND(...)        TESS_STENCIL_SECOND_(__VA_ARGS__)
#define TESS_STENCIL_SECOND_(a, b, ...) b

/* One cell function per cell: out = f(inputs around the cell). The rows run on a local copy of
 * the plan (outputs cannot alias it) whose active axes, strides and field count are constants
 * for the common layouts (3D, 2D in xy, one input and one output), so that GCC folds the cell
 * function's branches on them and vectorises the row. */
#define TESS_STENCIL(nm, shape_, radius_, cell, consts_, ...)                                      \
  static inline void TESS_FN(tess_rows_##nm)(const tess_stencil_plan *plan, int a2, int io) {      \
    tess_stencil_plan q = *plan;                                                                   \
    if (a2 >= 0) { /* a known layout: x and y active, z as a2 */                                   \
      q.active[0] = q.active[1] = 1, q.active[2] = a2;                                             \
      q.st[0] = 1, q.st[1] = q.pos[1], q.st[2] = a2 ? q.pos[2] : 0;                                \
    }                                                                                              \
    if (io) q.nin = q.nout = 1;                                                                    \
    for (int z = q.lo[2]; z < q.lo[2] + q.n[2]; z++)                                               \
      for (int y = q.lo[1]; y < q.lo[1] + q.n[1]; y++) {                                           \
        const tess_cell row = TESS_FN(tess_cell_at)(&q, q.lo[0], y, z);                            \
        for (int x = 0; x < q.n[0]; x++) {                                                         \
          tess_cell c = row;                                                                       \
          for (int f = 0; f < TESS_MAX_IO; f++) {                                                  \
            c.in[f] = row.in[f] ? row.in[f] + x : NULL;                                            \
            c.out[f] = row.out[f] ? row.out[f] + x : NULL;                                         \
          }                                                                                        \
          cell(&c);                                                                                \
        }                                                                                          \
      }                                                                                            \
  }                                                                                                \
  static void TESS_FN(tess_sweep_##nm)(const tess_stencil_plan *p) {                               \
    const int xy = p->active[0] && p->active[1], io = p->nin == 1 && p->nout == 1;                 \
    if (xy && p->active[2])                                                                        \
      io ? TESS_FN(tess_rows_##nm)(p, 1, 1) : TESS_FN(tess_rows_##nm)(p, 1, 0);                    \
    else if (xy)                                                                                   \
      io ? TESS_FN(tess_rows_##nm)(p, 0, 1) : TESS_FN(tess_rows_##nm)(p, 0, 0);                    \
    else                                                                                           \
      TESS_FN(tess_rows_##nm)(p, -1, 0);                                                           \
  }                                                                                                \
  TESS_STENCIL_ENTRY(nm, shape_, radius_, consts_, TESS_FN(tess_sweep_##nm), __VA_ARGS__)

/* Two levels: outer(c, m) reads inner at the cell and its star neighbours of radius 1 (m, see
 * cell.h); here inner is recomputed at each of them, as a per-cell kernel must. */
#define TESS_STENCIL2(nm, shape_, radius_, inner, outer, consts_, ...)                             \
  static inline void TESS_FN(tess_two_##nm)(const tess_cell *c) {                                  \
    real m[7];                                                                                     \
    TESS_MID_AT(c, inner, m);                                                                      \
    outer(c, m);                                                                                   \
  }                                                                                                \
  TESS_STENCIL(nm, shape_, radius_, TESS_FN(tess_two_##nm), consts_, __VA_ARGS__)

#include "stencil/passes.h"

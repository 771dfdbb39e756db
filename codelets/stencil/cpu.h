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

/* Inlined at each call, whatever its size: the calls' literal arguments are what specialises
 * a row loop (GCC's own cloning gives up on the larger kernels and leaves them scalar). */
#if defined(__GNUC__)
#define TESS_INLINE static inline __attribute__((always_inline))
#else
#define TESS_INLINE static inline
#endif

/* One row loop for one layout, a function of its own (not inlined into the sweep: each loop is
 * optimised alone, so the plan's copy stays in scalars and its strides loop-invariant). */
#if defined(__GNUC__)
#define TESS_NOINLINE __attribute__((noinline))
#else
#define TESS_NOINLINE
#endif
#define TESS_ROWS_AT(nm, v, a2, io, one)                                                           \
  static TESS_NOINLINE void TESS_FN(tess_rows_##nm##_##v)(const tess_stencil_plan *p) {            \
    TESS_FN(tess_rows_##nm)(p, a2, io, one);                                                       \
  }

/* The row loop's iterations are independent (see TESS_STENCIL below). */
#if defined(__GNUC__) && !defined(__clang__)
#define TESS_IVDEP _Pragma("GCC ivdep")
#elif defined(__clang__)
#define TESS_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define TESS_IVDEP
#endif

/* The record and the public functions; `sweep` is the pass's function over a plan. */
#define TESS_STENCIL_ENTRY(nm, shape_, radius_, sweep)                                             \
  void TESS_PUB(tess_##nm##_cpu)(const tess_region *r) {                                           \
    tess_stencil_plan p;                                                                           \
    if (tess_stencil_plan_make(&TESS_FN(tess_spec_##nm), r, &p)) sweep(&p);                        \
  }                                                                                                \
  TESS_STENCIL_CUDA_ENTRY(nm)                                                                      \
  TESS_STENCIL_RECORD(nm, shape_, radius_)

#if defined(TESS_HAVE_CUDA) && !defined(TESS_KERNEL_NO_CUDA) /* (TESS_KERNEL_NO_CUDA: below) */
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

/* A kernel built from CPU sources only (tessera_add_kernel without CUDA files defines
 * TESS_KERNEL_NO_CUDA) has no launcher to link, even in a CUDA build: its record's GPU entries
 * stay NULL and the runtime refuses GPU tiles for it (sim.c). */
#ifdef TESS_KERNEL_NO_CUDA
#define TESS_STENCIL_CUDA_FN(f) NULL
#else
#define TESS_STENCIL_CUDA_FN(f) TESS_CUDA_FN(f)
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
      .cuda = TESS_STENCIL_CUDA_FN(tess_##nm##_cuda),                                              \
      .shape = shape_,                                                                             \
      .radius = radius_,                                                                           \
      .cpu_f32 = tess_##nm##_cpu_f32,                                                              \
      .cuda_f32 = TESS_STENCIL_CUDA_FN(tess_##nm##_cuda_f32),                                      \
      .wraps = TESS_STENCIL_WRAPS(nm),                                                             \
      .images = TESS_IMAGES_CPU,                                                                   \
      .fills = TESS_STENCIL_FILLS(nm),                                                             \
  };

/* A lone tile's periodic halos (tess_kernel.wraps): every CUDA path of the layer can read them at
 * their images (cuda.cuh, WR), but only the staged z-marches gain from it; the per-cell paths
 * lost (one H100, lone tiles against halo copies: Maxwell 256^3 7.75 vs 4.70 ms, Cahn-Hilliard
 * composed 512^3 2.73 vs 2.18; the staged CH fused 0.943 vs 1.025, heat 0.868 vs 0.935). So a
 * kernel whose 3D launch is staged opts in with `#define TESS_STENCIL_WRAP_<name> ~,
 * TESS_WRAP_CUDA` before its TESS_STENCIL line; any other wraps nowhere (the runtime copies). */
#define TESS_STENCIL_WRAPS(nm) TESS_STENCIL_SECOND(TESS_STENCIL_WRAP_##nm, 0u, ~)
/* A lone walled tile's ghost fills (tess_kernel.fills): every CUDA path of the layer honours
 * tess_region.walls, but only the one-level staged z-march (zk) fills them as its blocks stage
 * their planes, at no launch of its own (heat 256^3 on an H100: a separate fill launch cost about
 * 10 us a step, 8% of it); the others launch the same fill first, as the runtime would. A kernel
 * opts in with `#define TESS_STENCIL_FILL_<name> ~, TESS_FILLS_CUDA` before its TESS_STENCIL line.
 */
#define TESS_STENCIL_FILLS(nm)          TESS_STENCIL_SECOND(TESS_STENCIL_FILL_##nm, 0u, ~)
#define TESS_STENCIL_SECOND(...)        TESS_STENCIL_SECOND_(__VA_ARGS__)
#define TESS_STENCIL_SECOND_(a, b, ...) b

/* One cell function per cell: out = f(inputs around the cell), row by row. What GCC needs to
 * vectorise a row (look with -fopt-info-vec; every kernel of the tree and bench/layer_cpu's
 * vectorise in double and float):
 *   - the row as a plain counted loop whose body is the cell function with each field's pointer
 *     at base + x: no branch in it (unused field slots point at a used field's row, never read;
 *     a NULL there would put a branch and a possible trap in every cell);
 *   - `ivdep` on it: outputs never alias inputs (tess_stencil_plan_make checks it), so no cell
 *     reads what another cell of the row writes; without it GCC versions the loop on runtime
 *     alias checks for every pair of pointers and gives up past ten (Maxwell: six components,
 *     radius 3);
 *   - the loop-invariant facts as compile-time constants in a local copy of the plan (outputs
 *     cannot alias it): active axes, strides along inactive axes (0) and along x (1), field
 *     counts and, where the spec fixes them or the region has one, component counts, so that
 *     the cell function's loops over axes and components unroll and its branches fold.
 * Each (layout, fields) pair below is one such loop; the rest take the general one. */
#define TESS_STENCIL(nm, shape_, radius_, cell, consts_, ...)                                      \
  static const tess_stencil_spec TESS_FN(tess_spec_##nm) = {                                       \
      .name = #nm, .shape = shape_, .radius = radius_, .consts = consts_, __VA_ARGS__};            \
  TESS_INLINE void TESS_FN(tess_rows_##nm)(const tess_stencil_plan *plan, int a2, int io,          \
                                           int one) {                                              \
    tess_stencil_plan q = *plan;                                                                   \
    if (a2 >= 0) { /* a known layout: x and y active, z as a2 */                                   \
      q.active[0] = q.active[1] = 1, q.active[2] = a2;                                             \
      for (int f = 0; f < TESS_MAX_IO; f++)                                                        \
        q.ist[f][0] = 1, q.ist[f][1] = q.ipos[f][1], q.ist[f][2] = a2 ? q.ipos[f][2] : 0;          \
    }                                                                                              \
    if (io) q.nin = q.nout = 1;                                                                    \
    if (one) q.nc = 1;                                                                             \
    if (TESS_FN(tess_spec_##nm).nc) q.nc = TESS_FN(tess_spec_##nm).nc; /* a constant */            \
    const int n0 = q.n[0];                                                                         \
    for (int z = q.lo[2]; z < q.lo[2] + q.n[2]; z++)                                               \
      for (int y = q.lo[1]; y < q.lo[1] + q.n[1]; y++) {                                           \
        tess_cell row = TESS_FN(tess_cell_at)(&q, q.lo[0], y, z);                                  \
        for (int f = 0; f < TESS_MAX_IO; f++) { /* unused slots: a used row (never read) */        \
          if (f >= q.nin) row.in[f] = q.nin ? row.in[0] : row.out[0];                              \
          if (f >= q.nout) row.out[f] = q.nout ? row.out[0] : (real *)row.in[0];                   \
        }                                                                                          \
        TESS_IVDEP                                                                                 \
        for (int x = 0; x < n0; x++) {                                                             \
          tess_cell c = row;                                                                       \
          for (int f = 0; f < TESS_MAX_IO; f++)                                                    \
            c.in[f] = row.in[f] + x, c.out[f] = row.out[f] + x;                                    \
          c.cx = row.cx + x;                                                                       \
          cell(&c);                                                                                \
        }                                                                                          \
        if (q.images) TESS_FN(tess_row_images)(&q, y, z);                                          \
      }                                                                                            \
  }                                                                                                \
  TESS_ROWS_AT(nm, 3d_one, 1, 1, 1)                                                                \
  TESS_ROWS_AT(nm, 3d_io, 1, 1, 0)                                                                 \
  TESS_ROWS_AT(nm, 3d, 1, 0, 0)                                                                    \
  TESS_ROWS_AT(nm, 2d_one, 0, 1, 1)                                                                \
  TESS_ROWS_AT(nm, 2d_io, 0, 1, 0)                                                                 \
  TESS_ROWS_AT(nm, 2d, 0, 0, 0)                                                                    \
  TESS_ROWS_AT(nm, any, -1, 0, 0)                                                                  \
  static void TESS_FN(tess_sweep_##nm)(const tess_stencil_plan *p) {                               \
    const int xy = p->active[0] && p->active[1], io = p->nin == 1 && p->nout == 1;                 \
    const int one = io && p->nc == 1 && !TESS_FN(tess_spec_##nm).nc;                               \
    if (xy && p->active[2])                                                                        \
      one  ? TESS_FN(tess_rows_##nm##_3d_one)(p)                                                   \
      : io ? TESS_FN(tess_rows_##nm##_3d_io)(p)                                                    \
           : TESS_FN(tess_rows_##nm##_3d)(p);                                                      \
    else if (xy)                                                                                   \
      one  ? TESS_FN(tess_rows_##nm##_2d_one)(p)                                                   \
      : io ? TESS_FN(tess_rows_##nm##_2d_io)(p)                                                    \
           : TESS_FN(tess_rows_##nm##_2d)(p);                                                      \
    else                                                                                           \
      TESS_FN(tess_rows_##nm##_any)(p);                                                            \
  }                                                                                                \
  TESS_STENCIL_ENTRY(nm, shape_, radius_, TESS_FN(tess_sweep_##nm))

/* Two levels: outer(c, m) reads inner at the cell and its star neighbours of radius 1 (m, see
 * cell.h); here inner is recomputed at each of them, as a per-cell kernel must. */
#define TESS_STENCIL2(nm, shape_, radius_, inner, outer, consts_, ...)                             \
  static inline void TESS_FN(tess_two_##nm)(const tess_cell *c) {                                  \
    real m[7] = {0}; /* inactive axes' slots: unset by TESS_MID_AT, never read */                  \
    TESS_MID_AT(c, inner, m);                                                                      \
    outer(c, m);                                                                                   \
  }                                                                                                \
  TESS_STENCIL(nm, shape_, radius_, TESS_FN(tess_two_##nm), consts_, __VA_ARGS__)

#include "stencil/passes.h"

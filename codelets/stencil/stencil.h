/* stencil.h — write a stencil kernel once: one cell function for CPU and CUDA, double and single.
 *
 * A kernel author writes a *cell source* (e.g. codelets/heat/heat_cell.h): cell functions over the
 * accessors below, in the element type `real`, and one TESS_STENCIL line per kernel naming its
 * footprint, its cell function and its host function for constants. Two tiny files compile it:
 *
 *     heat.c        constants in double on the host; #define TESS_STENCIL_SOURCE "heat_cell.h"
 *                   #include "stencil/cpu.h"     -> tess_heat6_cpu/_cpu_f32, the tess_kernel
 *     heat_cuda.cu  #define TESS_STENCIL_SOURCE "heat_cell.h"
 *                   #include "stencil/cuda.cuh"  -> the CUDA launches, double and float
 *
 * Each includes the cell source twice (stencil/passes.h): `real` = double, then float, with
 * TESS_FN(name) giving each pass its own names (name_f64, name_f32). The layer owns the loops,
 * the launch geometry, the region and field checks (one error path: tess_stencil_fail), and the
 * constants: the author's host function computes them in double once per task, the layer rounds
 * them once to float for single precision, and both backends read the same numbers.
 *
 * Bitwise CPU == GPU: the cell function is the same text on both sides, the C side is compiled
 * with -ffp-contract=off and the CUDA side with -fmad=false (codelets/CMakeLists.txt), so no
 * multiply-add is fused on either side and each +, -, *, / rounds once, as IEEE 754 requires.
 * Cell functions use only + - * / (no libm: exp or sin differ between the two sides).
 *
 * A cell sees (accessors, all macros so they cost nothing):
 *     TESS_IN(c, f, comp, dx, dy, dz)   input f, component comp, at offset (dx, dy, dz)
 *     TESS_AX(c, f, comp, a, k)         input f at k steps along axis a (0 on an inactive axis:
 *                                       the cell itself, so odd differences vanish exactly)
 *     TESS_OUT(c, f, comp)              output f at the cell (an lvalue)
 *     TESS_K(c, i)                      constant i (the host function's k[i], in `real`)
 *     TESS_ACTIVE(c, a), TESS_NIN(c)    axis a has extent > 1; number of input fields
 *     TESS_NC(c)                        components of every field (0 when they differ)
 *     TESS_GLOBAL(c, a), TESS_COORD(c, a)  the cell's global index and centre along axis a
 * Tile layout (tessera_kernel.h): a field of nc components is [Z][Y][nc][X], x fastest. Fields
 * may differ in components (tess_stencil_spec.in_nc, out_nc): each has its own y and z strides,
 * all share the component stride (the padded x extent).
 *
 * On the GPU the accessors read wherever the launch staged the input (stencil/cuda.cuh: a
 * z-march keeps a column's values along z in registers and the plane in shared memory), so a
 * cell function never names memory itself; the values, hence the bits, are the same. A
 * TESS_STENCIL2 kernel's inner reads input 0 within one cell (axes and in-plane diagonals)
 * and its outer reads input 0 only at the cell: what the staged launch holds.
 */
#ifndef TESS_STENCIL_H
#define TESS_STENCIL_H

#include "tessera_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TESS_STENCIL_MAXK 32 /* constants per kernel */

/* What a kernel accepts, checked before every sweep (tess_stencil_plan_make). */
typedef struct {
  const char *name;
  tess_shape shape;
  int radius;
  int nin_min, nin_max, nout; /* input fields in [nin_min, nin_max]; exactly nout outputs */
  int nc; /* components of every field not listed below; 0: any, but all the same */
  /* (On the CUDA side the kernel line's options are read at compile time as a C++20 designated
   * initializer, so give them in this order: cuda.cuh's tess_spec_ct.) */
  /* Mixed component counts: input f has in_nc[f] components, output o out_nc[o] (0: as nc
   * says), e.g. a 3-component state beside a 1-component coefficient. */
  int in_nc[TESS_MAX_IO], out_nc[TESS_MAX_IO];
  void (*consts)(const tess_region *r, double *k); /* host, double; NULL: none */
} tess_stencil_spec;

/* Everything a sweep needs, by value (CUDA kernels take it as a __grid_constant__ argument). */
typedef struct {
  int lo[3], n[3];              /* region start and extent (padded tile coordinates) */
  int nin, nout, nc, active[3]; /* nc: components of every field, 0 when they differ */
  long long sc;                 /* component stride (the padded x extent, every field alike) */
  long long pos[3];             /* element strides along x, y, z of field 0 (of every field */
  long long st[3];              /* when nc != 0); st: the same, 0 on inactive axes */
  long long ipos[TESS_MAX_IO][3], ist[TESS_MAX_IO][3]; /* per input: pos, st of its layout */
  long long opos[TESS_MAX_IO][3];                      /* per output: pos */
  const void *in[TESS_MAX_IO];                         /* double or float elements, by prec */
  void *out[TESS_MAX_IO];
  tess_precision prec;
  int dim[3], ghost[3]; /* padded tile extent and ghost widths (periodic wrap) */
  int wrap;             /* tess_region.wrap: read beyond the owned box at its image */
  int images;    /* tess_region.images: the axes whose images the CPU sweep writes (cell.h) */
  int reads_out; /* tess_region.out_read bit 0: output 0 is read (cuda.cuh fetches it ahead) */
  int nwall;     /* tess_region.walls: faces of input 0 to fill first (cuda.cuh) */
  tess_wall wall[TESS_MAX_WALLS];
  double k[TESS_STENCIL_MAXK]; /* the host function's constants */
  float kf[TESS_STENCIL_MAXK]; /* the same, each rounded once to float */
  long long origin[3];         /* global index of padded cell (0, 0, 0) (tess_region.origin) */
  long long global[3];         /* global grid extent */
  double h[3];                 /* grid spacing */
} tess_stencil_plan;

/* The cell a cell function updates: pointers at the cell, per element type. On the GPU a cell
 * also says where its inputs are staged (TESS_CELL_WINDOW, cuda.cuh): with q == NULL and no
 * planes every read goes to device memory. */
#ifdef __CUDACC__
#define TESS_CELL_WINDOW(T)                                                                        \
  int nc, nin, act; /* TESS_NC, TESS_NIN, the active axes as bits (constants in a z-march) */      \
  int nw;           /* inputs 0..nw-1 are staged; the others are read from device memory */        \
  int qr, qb;       /* registers: input i = f nc + comp at z offset k (|k| <= qr) is q[i Q +   */  \
  const T *q; /* (qb + qr + k) mod Q], Q = 2 qr + 1 (a ring); NULL: z offsets -1, 0, 1     */      \
              /* from the shared planes plm, pl, plp */                                            \
  const T *pl, *plm, *plp; /* shared memory: the cell in its plane, and below and above it */      \
  int wp, fs;              /* a plane's row pitch, and its stride between inputs */                \
  const T *xr, *yr; /* registers (input 0, component 0): x offset k at xr[k], y at yr[k ys] */     \
  int ys;           /* (xr NULL: x and y offsets from the plane pl) */                             \
  int wr; /* device-memory reads wrap (tess_wrap) around the cell at padded coordinates     */     \
          /* (cx, cy, cz); the pointers stay at the cell unwrapped                           */    \
  long long os; /* TESS_OUT's stride between components: p->sc, or 1 where out[] points to */      \
                /* the launch's registers (cuda_staged.cuh: the output loaded a plane ahead) */
#else
#define TESS_CELL_WINDOW(T)
#endif
/* cx, cy, cz: the cell's padded tile coordinates (TESS_GLOBAL; a CPU sweep that never reads
 * them drops them, as it drops every unused member of its local cell). */
typedef struct {
  const double *in[TESS_MAX_IO];
  double *out[TESS_MAX_IO];
  const tess_stencil_plan *p;
  const double *k;
  int cx, cy, cz;
  TESS_CELL_WINDOW(double)
} tess_cell_f64;
typedef struct {
  const float *in[TESS_MAX_IO];
  float *out[TESS_MAX_IO];
  const tess_stencil_plan *p;
  const float *k;
  int cx, cy, cz;
  TESS_CELL_WINDOW(float)
} tess_cell_f32;

/* TESS_LD: a read of an input (on the GPU through the read-only path: inputs never alias the
 * outputs of a sweep, tess_stencil_plan_make checks it). */
#ifdef __CUDACC__
#define TESS_LD(ref) __ldg(&(ref))
#else
#define TESS_LD(ref) (ref)
#endif
#define TESS_IN_MEM(c, f, comp, dx, dy, dz)                                                        \
  TESS_LD((c)->in[f][(comp) * (c)->p->sc + (dx) * (c)->p->ist[f][0] + (dy) * (c)->p->ist[f][1] +   \
                     (dz) * (c)->p->ist[f][2]])
#define TESS_AX_MEM(c, f, comp, a, k)                                                              \
  TESS_LD((c)->in[f][(comp) * (c)->p->sc + (k) * (c)->p->ist[f][a]])
#ifdef __CUDACC__ /* staged reads where the launch staged them (cell.h's tess_ax, tess_in) */
#define TESS_IN(c, f, comp, dx, dy, dz) TESS_FN(tess_in)(c, f, comp, dx, dy, dz)
#define TESS_AX(c, f, comp, a, k)       TESS_FN(tess_ax)(c, f, comp, a, k)
#define TESS_ACTIVE(c, a)               (((c)->act >> (a)) & 1)
#define TESS_NIN(c)                     ((c)->nin)
#define TESS_NC(c)                      ((c)->nc)
#else
#define TESS_IN(c, f, comp, dx, dy, dz) TESS_IN_MEM(c, f, comp, dx, dy, dz)
#define TESS_AX(c, f, comp, a, k)       TESS_AX_MEM(c, f, comp, a, k)
#define TESS_ACTIVE(c, a)               ((c)->p->active[a])
#define TESS_NIN(c)                     ((c)->p->nin)
#define TESS_NC(c)                      ((c)->p->nc)
#endif
/* TESS_UNROLL before a cell function's loop of fixed count (components, axes, taps): unrolled
 * on both sides, so that on the CPU the row loop around the cell vectorises (GCC leaves a loop
 * of six components with `% 3` in its indices rolled, and the row scalar). */
#if defined(__CUDACC__)
#define TESS_UNROLL _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__clang__)
#define TESS_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#define TESS_UNROLL _Pragma("unroll")
#else
#define TESS_UNROLL
#endif
#ifdef __CUDACC__
#define TESS_OUT(c, f, comp) ((c)->out[f][(comp) * (c)->os])
#else
#define TESS_OUT(c, f, comp) ((c)->out[f][(comp) * (c)->p->sc])
#endif
#define TESS_K(c, i) ((c)->k[i])
/* Where the cell is: its global index along axis a (origin + padded coordinate: a cell of a
 * ghost layer, which a grown region computes, lies outside [0, TESS_GLOBAL_N) there), that
 * index brought into [0, TESS_GLOBAL_N) on a periodic axis, its centre's coordinate
 * (TESS_GLOBAL + 1/2) h_a (in double), and the global extent. Nothing is computed for a kernel
 * that does not read them. */
#define TESS_GLOBAL(c, a)   ((c)->p->origin[a] + ((a) == 0 ? (c)->cx : (a) == 1 ? (c)->cy : (c)->cz))
#define TESS_GLOBAL_N(c, a) ((c)->p->global[a])
#define TESS_GLOBAL_WRAP(c, a)                                                                     \
  ((TESS_GLOBAL(c, a) % TESS_GLOBAL_N(c, a) + TESS_GLOBAL_N(c, a)) % TESS_GLOBAL_N(c, a))
#define TESS_COORD(c, a) (((double)TESS_GLOBAL(c, a) + 0.5) * (c)->p->h[a])

/* The one error path of every kernel: "<file>:<line>: <kernel> kernel: <message>", abort. A
 * failed check means a runtime bug (codelets return void; StarPU's own codelets abort too). */
#ifdef __cplusplus
[[noreturn]]
#else
_Noreturn
#endif
void tess_stencil_fail(const char *kernel, const char *file, int line, const char *msg);
#define TESS_STENCIL_REQUIRE(name, cond, msg)                                                      \
  do {                                                                                             \
    if (!(cond)) tess_stencil_fail(name, __FILE__, __LINE__, msg);                                 \
  } while (0)

/* Checks r against the spec (fields, components, aliasing, footprint inside the padded tile)
 * and fills p, constants included. 0: empty region (nothing to do); 1: sweep it. */
int tess_stencil_plan_make(const tess_stencil_spec *s, const tess_region *r, tess_stencil_plan *p);

#ifdef __cplusplus
}
#endif
#endif

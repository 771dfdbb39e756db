/* tessera_kernel.h — what a stencil kernel sees: the region to update and the tile's arrays.
 *
 * Included by the public API and by every codelet (C and CUDA), so it depends on nothing.
 *
 * Tile storage of a field with nc components and ghost width g = (g0, g1, g2) (g_i = 0 on an
 * axis of extent 1):
 *
 *     a: [Z][Y][nc][X], x fastest,   X = n0 + 2 g0,  Y = n1 + 2 g1,  Z = n2 + 2 g2
 *     element (c, x, y, z) at  TESS_IDX(X, Y, nc, c, x, y, z)
 *
 * x, y, z are padded tile coordinates; owned cells are [g_i, g_i + n_i). Components of one
 * row sit next to each other, so every box of cells over all components is one strided 3D
 * block (what StarPU's block interface describes): halo segments move as single handles.
 */
#ifndef TESSERA_KERNEL_H
#define TESSERA_KERNEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESS_MAX_IO 4 /* fields a stage may read (or write) */

#define TESS_IDX(X, Y, nc, c, x, y, z)                                                             \
  ((size_t)(x) +                                                                                   \
   (size_t)(X) * ((size_t)(c) + (size_t)(nc) * ((size_t)(y) + (size_t)(Y) * (size_t)(z))))

/* Stencil footprint shapes, each of a given radius r:
 *   star       axis points +-k e_i, k <= r                        (Laplacians)
 *   star_diag  axis points + in-plane diagonals k(e_i +- e_j)     (Astaroth's MHD stencil; no
 *              3D diagonals, so corner halos are never read)
 *   box        every point within Chebyshev distance r */
#define TESS_SHAPE_LIST(X)                                                                         \
  X(TESS_SHAPE_STAR, "star")                                                                       \
  X(TESS_SHAPE_STAR_DIAG, "star_diag")                                                             \
  X(TESS_SHAPE_BOX, "box")
#define TESS_X_SHAPE_ENUM(name, text) name,
typedef enum { TESS_SHAPE_LIST(TESS_X_SHAPE_ENUM) TESS_SHAPE_COUNT } tess_shape;

/* Element type of every field of a simulation (tess_sim_set_precision). */
#define TESS_PRECISION_LIST(X)                                                                     \
  X(TESS_FP64, "double")                                                                           \
  X(TESS_FP32, "single")
typedef enum { TESS_PRECISION_LIST(TESS_X_SHAPE_ENUM) TESS_PRECISION_COUNT } tess_precision;

/* Boundary kinds of a physical face (tessera.h says what each means; tessera_bc.h computes). */
#define TESS_BC_LIST(X)                                                                            \
  X(TESS_BC_NONE, "none")                                                                          \
  X(TESS_BC_DIRICHLET, "dirichlet")                                                                \
  X(TESS_BC_NEUMANN, "neumann")                                                                    \
  X(TESS_BC_SYMMETRIC, "symmetric")                                                                \
  X(TESS_BC_ANTISYMMETRIC, "antisymmetric")                                                        \
  X(TESS_BC_OUTFLOW, "outflow")                                                                    \
  X(TESS_BC_FUNCTION, "function")
typedef enum { TESS_BC_LIST(TESS_X_SHAPE_ENUM) TESS_BC_COUNT } tess_bc_kind;

/* A physical face of a tile whose ghosts a kernel fills (tess_region.walls): ghost cells at
 * padded coordinate face + side k along `axis` (k = 1 .. depth), over the owned cells of the other
 * two axes; the boundary kind (tess_bc_kind) and its value as the runtime's fill takes them. */
#define TESS_MAX_WALLS 6
typedef struct {
  int kind, axis, side, face, depth;
  double value;
} tess_wall;

/* The argument every kernel receives. Host memory; CUDA launchers pass what they need by
 * value. Array pointers live on the memory node the task runs on (host or device). */
typedef struct tess_region {
  int lo[3], hi[3]; /* cells to update: [lo, hi) in padded tile coordinates */
  int dim[3];       /* padded tile extent (X, Y, Z) */
  int ghost[3];     /* ghost width per axis */
  long origin[3];   /* global index of padded cell (0,0,0): owned start - ghost (may be < 0) */
  long global[3];   /* global grid extent, for wrapping global indices */
  double h[3];      /* grid spacing */
  int nin, nout;
  int in_nc[TESS_MAX_IO], out_nc[TESS_MAX_IO];
  tess_precision prec; /* which of the array views below is valid */
  union {              /* [Z][Y][nc][X] each */
    const double *in[TESS_MAX_IO];
    const float *in_f[TESS_MAX_IO]; /* TESS_FP32 */
  };
  union {
    double *out[TESS_MAX_IO];
    float *out_f[TESS_MAX_IO]; /* TESS_FP32 */
  };
  const void *params; /* the stage's parameter block (host memory) */
  double t, dt;       /* time at the start of the step, and the step */
  int stage;          /* index of the stage in the step program */
  /* Axes as bits (1 x, 2 y, 4 z; 0: none; only for a kernel whose record sets `images` for
   * this device): along each of them the tile is its own periodic neighbour, at least two ghost
   * widths long, and [lo, hi) lies in its owned box; besides each output cell the kernel writes
   * the cell's periodic images along those axes in the ghost layers (tess_image_shift: every
   * combination of those axes' shifts but none), so the outputs' halos across those axes are
   * current without a copy. A lone tile gets every axis with ghosts. */
  int images;
  /* Nonzero (only for a kernel whose record sets `wraps` for this device; never with `images`):
   * the same conditions, but the inputs' ghost layers are NOT current: the kernel reads every
   * point beyond the owned box at its periodic image inside it (tess_wrap), so no halo is
   * copied before the stage; the outputs' ghost layers are left as they are. The inputs' ghost
   * layers are the kernel's scratch: it may write the periodic images there first and read them,
   * or keep its own state there (the MHD CUDA kernel does both for a large lone tile,
   * codelets/mhd/mhd_cuda_fill.cuh). */
  int wrap;
  /* Bit o set: output o is read at the cell before it is written (tess_stage.out_read: an RK
   * stage's u_old); a kernel may fetch it ahead (the stencil layer's staged GPU launch does). */
  unsigned out_read;
  /* nwalls > 0 (only for a kernel whose record sets TESS_FILLS_CUDA, on a GPU): the ghost cells
   * of input 0 (one component) at these physical faces are NOT current, and the kernel fills
   * them before it reads them, each with tessera_bc.h's formula (ghost k = side (c - face) of
   * the face's cells, from u_j at face - side j along the normal), into the input's ghost layer,
   * so that the layer ends as the runtime's fill would leave it. Only faces: a tile whose fills
   * reach edges or corners, or read another fill's ghosts, never gets walls. */
  int nwalls;
  tess_wall wall[TESS_MAX_WALLS];
} tess_region;

/* The periodic helpers below are for host code and CUDA kernels alike. */
#ifdef __CUDACC__
#define TESS_PERIODIC_HD __host__ __device__
#else
#define TESS_PERIODIC_HD
#endif

/* Periodic images (tess_region.images): the shift, in cells, from owned coordinate c to its
 * image along an axis of padded extent dim and ghost width g (an owned cell within g of an edge
 * has an image n = dim - 2g cells across), or 0. The runtime asks for images only where
 * n >= 2g, so a cell has at most one shift per axis; its images are every combination of its
 * axes' shifts but none (a corner cell has 7). */
TESS_PERIODIC_HD static inline int tess_image_shift(int c, int g, int dim) {
  const int n = dim - 2 * g;
  return g == 0 ? 0 : c < 2 * g ? n : c >= n ? -n : 0;
}

/* Periodic wrap (tess_region.wrap): padded coordinate c (in [0, dim)) of an axis of padded
 * extent dim and ghost width g, moved to its periodic image in the owned range [g, dim - g);
 * with g = 0, c itself. */
TESS_PERIODIC_HD static inline int tess_wrap(int c, int g, int dim) {
  const int n = dim - 2 * g;
  return c < g ? c + n : c >= g + n ? c - n : c;
}
typedef void (*tess_cpu_fn)(const tess_region *r);
/* `stream` is the cudaStream_t of the StarPU worker (starpu_cuda_get_local_stream()). */
typedef void (*tess_cuda_fn)(const tess_region *r, void *stream);

/* For tess_kernel.cuda: the launcher when the build has CUDA kernels, NULL otherwise. The
 * SimGrid build (docs/simulation.md) has no CUDA kernels but simulated GPUs: StarPU never calls
 * a GPU function there, it only needs one to exist to place the kernel's tasks on a GPU. */
#ifdef TESS_HAVE_CUDA
#define TESS_CUDA_FN(f) f
#elif defined(TESS_SIMGRID)
void tess_simgrid_kernel_placeholder(const tess_region *r, void *stream);
#define TESS_CUDA_FN(f) tess_simgrid_kernel_placeholder
#else
#define TESS_CUDA_FN(f) NULL
#endif

/* The offsets a kernel reads of one input, per axis and side: every o with lo[i] <= o[i] <= hi[i]
 * (lo[i] <= 0 <= hi[i]) that the kernel's shape admits (star: one nonzero coordinate; star_diag:
 * also two of equal magnitude; box: all). lo = hi = 0 on an axis: the input is not read across
 * that axis, so it has no ghost, halo piece or message there (and no say in how it is split). */
typedef struct {
  int lo[3], hi[3];
} tess_reach;

/* A kernel with its footprint: what an app composes stages from. The fp32 functions run the
 * stage on a single-precision simulation (region.prec == TESS_FP32, arrays in_f / out_f); a
 * kernel without cpu_f32 refuses single precision at setup.
 *
 * Footprint: with nreach = 0 (records that leave it out) every input is read through `shape`
 * with `radius` along every axis of extent > 1. With nreach > 0, input k (k < nreach, which must
 * cover the stage's inputs) is read at the offsets of reach[k] filtered by `shape`, and `radius`
 * is not used. The kernel must compute any box [lo, hi) it is given, owned cells or not: a stage
 * run with an extent (recompute strategy, docs/multistage.md) computes on its owned box grown by
 * that extent, reading its inputs at the grown box plus the declared reach. */
typedef struct {
  const char *name;
  tess_cpu_fn cpu;   /* required: also the reference the CUDA version is checked against */
  tess_cuda_fn cuda; /* NULL when there is no GPU version */
  tess_shape shape;
  int radius;
  tess_cpu_fn cpu_f32;   /* NULL: no single-precision version */
  tess_cuda_fn cuda_f32; /* NULL: no single-precision GPU version */
  int nreach;            /* 0: symmetric `radius` on every axis for every input */
  tess_reach reach[TESS_MAX_IO];
  unsigned images; /* TESS_IMAGES_CPU | TESS_IMAGES_CUDA: honours tess_region.images there */
  unsigned wraps;  /* TESS_WRAP_CPU | TESS_WRAP_CUDA: honours tess_region.wrap there (preferred
                      to images: nothing extra is stored; on GPUs asked for on 3D grids only) */
  unsigned fills;  /* TESS_FILLS_CUDA: honours tess_region.walls on a GPU (a lone walled tile's
                      fill then costs no launch of its own) */
} tess_kernel;
#define TESS_IMAGES_CPU  1u
#define TESS_IMAGES_CUDA 2u
#define TESS_WRAP_CPU    TESS_IMAGES_CPU
#define TESS_WRAP_CUDA   TESS_IMAGES_CUDA
#define TESS_FILLS_CUDA  TESS_IMAGES_CUDA

#ifdef __cplusplus
}
#endif
#endif

/* decomp.h — how the global grid is cut into rank blocks, and each rank block into device tiles
 * (internal to runtime/; pure C11, no MPI or StarPU).
 *
 * Two levels, as in the Astaroth paper (seed digest 2.3): tess_decomp_procs picks the process
 * grid P that minimises the worst-case halo traffic per rank (Eq. 5/7); tess_decomp_tiles then
 * splits one rank's block N' over its devices with a P' that minimises the inter-node part of
 * each tile's halo (Eq. 10-13). Both are brute force over factorisations; counts up to a few
 * thousand take microseconds. tess_decomp_coord places rank (or tile) k in that grid along a
 * Morton curve (digest 2.4) so that consecutive ranks, which share a node, form compact blocks.
 *
 * All functions are pure, synchronous and thread-safe. Arrays are (x, y, z), x fastest.
 */
#ifndef TESS_DECOMP_H
#define TESS_DECOMP_H

/* Node level (Eq. 5/7): among all p0*p1*p2 == count with p_i dividing n_i (so p_i == 1 where
 * n_i == 1), the one minimising Q = 2*(prod(n_i/p_i + 2r*[n_i>1]) - prod(n_i/p_i)).
 * Ties: the lexicographically largest p (larger factors on x first). Returns 0, or -1 when no
 * factorisation divides the grid or an argument is out of range (count < 1, n_i < 1, r < 0). */
int tess_decomp_procs(const int n[3], int count, int radius, int p[3]);

/* Device level (Eq. 10-13): same rules, minimising C_M'' - C_L'' with
 * C_M'' = prod(n_i/p_i + 2r*[n_i>1]) and C_L'' = prod(n_i/p_i + r*[p_i>=2]). */
int tess_decomp_tiles(const int n[3], int count, int radius, int p[3]);

/* The same with a halo width per axis (r_i = 0: nothing read across axis i, so cutting it
 * costs nothing). gpu != 0 (what the runtime asks for every rank's block and every tile grid;
 * 0 keeps the paper's rule, which its tables check): ranked first by the work their
 * cuts add, sum over cut axes of w_i * 2 r_i * (the block's face across i), w = (4, 2, 1)
 * (decomp.c says why), then by the cost above: cuts across z first, then y, then x. */
int tess_decomp_procs_axes(const int n[3], int count, const int r[3], int gpu, int p[3]);
int tess_decomp_tiles_axes(const int n[3], int count, const int r[3], int gpu, int p[3]);

/* Every grid choice ranks first the candidates whose blocks are at least 2 r_i thick across
 * each cut axis (the runtime refuses thinner ones), then by the costs below. */

/* The same where the axes with periodic[i] = 0 end in physical faces: a block at such a face
 * has no halo there, so the worst block along that axis has 2 r_i halo cells with 3 or more
 * blocks, r_i with 2, none with 1 (the periodic cost counts 2 r_i always: the wrap-around is a
 * halo too). For tiles, pass as walled only the axes the rank's block spans whole. */
int tess_decomp_procs_walls(const int n[3], int count, const int r[3], const int periodic[3],
                            int gpu, int p[3]);
int tess_decomp_tiles_walls(const int n[3], int count, const int r[3], const int periodic[3],
                            int gpu, int p[3]);

/* 1 if every p_i is a power of two (1 included), else 0. */
int tess_decomp_is_pow2(const int p[3]);

/* Rank/tile index k (0 <= k < p0*p1*p2) <-> coordinate c in the grid p. For power-of-two grids:
 * the Morton curve generalised to unequal axes — bits of k are dealt to x, y, z in turn,
 * skipping an axis once its log2(p_i) bits are used (bit 0 -> x; for cubes this is exactly
 * tess_morton_decode3). Other grids: lexicographic, x fastest. */
void tess_decomp_coord(const int p[3], int k, int c[3]);
int tess_decomp_index(const int p[3], const int c[3]);

/* The digest's plain morton^-1: bits dealt to x, y, z in turn with no limits, so
 * i = abcdef_2 -> (cf, be, ad). Used for P* = morton^-1(C_P - 1) + (1,1,1). */
void tess_morton_decode3(unsigned k, int c[3]);

#endif

/* image.h — PNG pictures of a 2D scalar slice, for apps that want to look at a field without
 * ParaView (a quick check that a wave moves, that a blob diffuses, that nothing went NaN).
 *
 * Colour map: ColorBrewer RdBu, 11-class (Cynthia Brewer, colorbrewer2.org), reversed so that
 * low values are blue and high values red, interpolated piecewise-linearly in sRGB between its
 * 11 stops. Its centre stop is a near-white #f7f7f7, so with a symmetric range [-a, a] zero is
 * white, the sign reads at a glance, and the dark ends (#053061, #67001f) mark the extremes.
 *
 * Synchronous, runs on the calling thread, touches no runtime state: call it from one rank with
 * data already gathered to the host.
 */
#ifndef TESS_APPS_IMAGE_H
#define TESS_APPS_IMAGE_H

/* Writes a w x h image of values[y*w + x] (values: [h][w], x fastest). Row 0 at the top of the
 * picture is y = h-1, i.e. y grows upwards like a physicist's plot. [vmin, vmax] maps through
 * the RdBu map above (vmin -> dark blue, the midpoint -> white, vmax -> dark red); values
 * outside are clamped, NaN is drawn black. vmin == vmax is allowed (values below are blue,
 * equal white, above red); vmin > vmax or a non-finite bound is an error. `scale` >= 1 repeats
 * each cell scale x scale pixels (small grids).
 *
 * Written atomically: to "<path>.tmp", flushed to disk, then rename(2)d over <path>; the
 * temporary is removed on any failure, so a half-written PNG never exists under <path>. Two
 * writers of the same path at once are not supported (they share the temporary).
 *
 * Returns 0, or -1 after printing "tessera: cannot write '<path>': <reason>" to stderr. */
int tess_png_write_slice(const char *path, const double *values, int w, int h, double vmin,
                         double vmax, int scale);

#endif

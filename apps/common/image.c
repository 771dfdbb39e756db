/* image.c — PNG slices through libpng (see image.h for the contract and the colour map).
 *
 * The picture is built one pixel row at a time (a row of w*scale RGB triplets), each row handed
 * to libpng `scale` times, so memory stays O(width) however large the grid.
 *
 *     values[y][x] --colour map--> row (RGB8, x repeated scale times) --png_write_row x scale-->
 *     "<path>.tmp" --fflush, fsync, fclose--> rename(2) --> "<path>"
 *
 * libpng reports errors by longjmp. The setjmp lives in tess_png_encode alone, which modifies no
 * local it reads after the jump, so no variable needs `volatile`; the caller owns the file and
 * the buffers and cleans them up on either outcome. Our own write callback (instead of libpng's
 * stdio one) keeps errno, so a full disk reads "No space left on device", not "Write Error".
 *
 * The temporary-file helpers repeat those in vtk.c on purpose: each output format is one file
 * with no private header, and the two copies are a dozen lines each.
 */
#include "image.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ColorBrewer RdBu 11-class, from the blue end (t = 0) to the red end (t = 1), stop i at t = i/10.
 */
static const unsigned char tess_rdbu[11][3] = {
    {5, 48, 97},     /* #053061 */
    {33, 102, 172},  /* #2166ac */
    {67, 147, 195},  /* #4393c3 */
    {146, 197, 222}, /* #92c5de */
    {209, 229, 240}, /* #d1e5f0 */
    {247, 247, 247}, /* #f7f7f7 */
    {253, 219, 199}, /* #fddbc7 */
    {244, 165, 130}, /* #f4a582 */
    {214, 96, 77},   /* #d6604d */
    {178, 24, 43},   /* #b2182b */
    {103, 0, 31},    /* #67001f */
};

/* State shared with libpng's callbacks: where to write and why it failed. */
typedef struct {
  FILE *fp;
  int err;       /* errno of a failed write or flush, 0 if libpng itself complained */
  char msg[200]; /* libpng's message, used when err == 0 */
} tess_png_ctx;

static int tess_png_fail(const char *path, const char *reason) {
  fprintf(stderr, "tessera: cannot write '%s': %s\n", path, reason);
  return -1;
}

static void tess_png_on_error(png_structp png, png_const_charp msg) {
  tess_png_ctx *ctx = png_get_error_ptr(png);
  snprintf(ctx->msg, sizeof ctx->msg, "libpng: %s", msg);
  png_longjmp(png, 1);
}

/* Warnings (e.g. about ancillary chunks) do not make the picture wrong; the app stays quiet. */
static void tess_png_on_warning(png_structp png, png_const_charp msg) {
  (void)png;
  (void)msg;
}

static void tess_png_on_write(png_structp png, png_bytep data, size_t len) {
  tess_png_ctx *ctx = png_get_io_ptr(png);
  if (fwrite(data, 1, len, ctx->fp) != len) {
    ctx->err = errno ? errno : EIO;
    png_error(png, "write failed");
  }
}

static void tess_png_on_flush(png_structp png) {
  tess_png_ctx *ctx = png_get_io_ptr(png);
  if (fflush(ctx->fp) != 0) {
    ctx->err = errno ? errno : EIO;
    png_error(png, "flush failed");
  }
}

/* Colour of one value; t in [0, 1] is the position in [vmin, vmax] after clamping. */
static void tess_png_colour(double v, double vmin, double vmax, unsigned char rgb[3]) {
  if (isnan(v)) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  double t;
  if (v < vmin)
    t = 0.0;
  else if (v > vmax)
    t = 1.0;
  else if (vmax > vmin)
    t = (v - vmin) / (vmax - vmin);
  else
    t = 0.5; /* vmin == vmax == v: the centre of the map */
  double s = t * 10.0;
  int k = (int)s;
  if (k > 9) k = 9;
  double f = s - k;
  for (int c = 0; c < 3; c++) {
    double a = tess_rdbu[k][c], b = tess_rdbu[k + 1][c];
    rgb[c] = (unsigned char)(a + f * (b - a) + 0.5);
  }
}

/* Runs the whole libpng encode; returns 0, or -1 with ctx->err / ctx->msg saying why. */
static int tess_png_encode(png_structp png, png_infop info, tess_png_ctx *ctx, const double *values,
                           int w, int h, double vmin, double vmax, int scale, unsigned char *row) {
  if (setjmp(png_jmpbuf(png))) return -1;

  png_set_write_fn(png, ctx, tess_png_on_write, tess_png_on_flush);
  png_set_IHDR(png, info, (png_uint_32)w * (png_uint_32)scale, (png_uint_32)h * (png_uint_32)scale,
               8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);

  /* The range and the map travel with the picture, so a PNG found later still says what the
   * colours mean. */
  char comment[160];
  snprintf(comment, sizeof comment,
           "colour map ColorBrewer RdBu (piecewise linear); vmin %.17g; vmax %.17g; NaN black",
           vmin, vmax);
  png_text text[2];
  memset(text, 0, sizeof text);
  text[0].compression = PNG_TEXT_COMPRESSION_NONE;
  text[0].key = (png_charp) "Software";
  text[0].text = (png_charp) "tessera";
  text[1].compression = PNG_TEXT_COMPRESSION_NONE;
  text[1].key = (png_charp) "Comment";
  text[1].text = comment;
  png_set_text(png, info, text, 2);

  png_write_info(png, info);
  for (int r = 0; r < h; r++) {
    const double *src = values + (size_t)(h - 1 - r) * (size_t)w; /* top row is y = h-1 */
    unsigned char *dst = row;
    for (int x = 0; x < w; x++) {
      unsigned char rgb[3];
      tess_png_colour(src[x], vmin, vmax, rgb);
      for (int s = 0; s < scale; s++, dst += 3)
        memcpy(dst, rgb, 3);
    }
    for (int s = 0; s < scale; s++)
      png_write_row(png, row);
  }
  png_write_end(png, info);
  return 0;
}

int tess_png_write_slice(const char *path, const double *values, int w, int h, double vmin,
                         double vmax, int scale) {
  char reason[256];
  if (!path || !*path) return tess_png_fail(path ? path : "(null)", "no path given");
  if (!values) return tess_png_fail(path, "no values given");
  if (w < 1 || h < 1 || scale < 1) {
    snprintf(reason, sizeof reason, "invalid size %d x %d at scale %d", w, h, scale);
    return tess_png_fail(path, reason);
  }
  /* PNG caps each side at 2^31-1 pixels; libpng then applies its own (smaller) limit. */
  if ((long long)w * scale > 0x7fffffffLL || (long long)h * scale > 0x7fffffffLL) {
    snprintf(reason, sizeof reason, "image of %d x %d cells at scale %d is too large", w, h, scale);
    return tess_png_fail(path, reason);
  }
  if (!isfinite(vmin) || !isfinite(vmax) || vmin > vmax) {
    snprintf(reason, sizeof reason, "invalid colour range [%g, %g]", vmin, vmax);
    return tess_png_fail(path, reason);
  }

  size_t plen = strlen(path);
  char *tmp = malloc(plen + 5);
  unsigned char *row = malloc((size_t)w * (size_t)scale * 3);
  if (!tmp || !row) {
    free(tmp);
    free(row);
    return tess_png_fail(path, strerror(ENOMEM));
  }
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp", 5);

  tess_png_ctx ctx = {0};
  ctx.fp = fopen(tmp, "wb");
  if (!ctx.fp) {
    int e = errno;
    free(tmp);
    free(row);
    return tess_png_fail(path, strerror(e));
  }

  int rc = -1;
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, tess_png_on_error, tess_png_on_warning);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info) {
    snprintf(reason, sizeof reason, "libpng could not start (out of memory?)");
  } else if (tess_png_encode(png, info, &ctx, values, w, h, vmin, vmax, scale, row) != 0) {
    snprintf(reason, sizeof reason, "%s", ctx.err ? strerror(ctx.err) : ctx.msg);
  } else if (fflush(ctx.fp) != 0 || fsync(fileno(ctx.fp)) != 0) {
    /* fsync before rename: otherwise a crash soon after could leave <path> naming a file whose
     * blocks never reached the disk, the very half-written PNG the rename exists to prevent. */
    snprintf(reason, sizeof reason, "%s", strerror(errno));
  } else {
    rc = 0;
  }
  png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
  free(row);

  if (fclose(ctx.fp) != 0 && rc == 0) {
    snprintf(reason, sizeof reason, "%s", strerror(errno));
    rc = -1;
  }
  if (rc == 0 && rename(tmp, path) != 0) {
    snprintf(reason, sizeof reason, "rename from '%s': %s", tmp, strerror(errno));
    rc = -1;
  }
  if (rc != 0) remove(tmp);
  free(tmp);
  return rc == 0 ? 0 : tess_png_fail(path, reason);
}

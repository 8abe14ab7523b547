/* Fuzz target: the PNG decoder (codecs/png).
 *
 * Every input goes through png_decode.  What decodes must have its
 * dimensions within the limits and palette indices within its palette,
 * and encode to a PNG that decodes to the same image; what does not must
 * fail with a diagnostic and no image.  Any violation abort()s.  Built
 * with clang -fsanitize=fuzzer (tests/fuzz.sh) or with
 * tests/fuzz_driver.c. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "png.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_image(const struct png_image *img)
{
	size_t n = (size_t)img->width * img->height;
	if (!img->width || !img->height || img->width > PNG_MAX_SIDE ||
	    img->height > PNG_MAX_SIDE || n > PNG_MAX_PIXELS || img->ncolors > PNG_MAX_COLORS)
		abort();
	for (size_t i = 0; img->ncolors && i < n; i++)
		if (img->pixels[i] >= img->ncolors)
			abort();
	uint8_t *out;
	size_t len;
	struct png_image back;
	if (png_encode(img, &out, &len, NULL) != MH_OK ||
	    png_decode(out, len, &back, NULL) != MH_OK)
		abort();
	if (back.width != img->width || back.height != img->height ||
	    back.ncolors != img->ncolors ||
	    memcmp(back.pixels, img->pixels, n * png_pixel_size(img)) ||
	    memcmp(back.palette, img->palette, 4 * (size_t)img->ncolors))
		abort();
	png_free(&back);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct png_image img;
	struct mh_diag d = {0};
	enum mh_err err = png_decode(data, size, &img, &d);
	if (err == MH_OK)
		check_image(&img);
	else if (d.code != err || !d.msg[0] || img.pixels || d.offset > size)
		abort();
	png_free(&img);
	return 0;
}

/* image.c: an image's size and tokens (see image.h). */
#include "tokens/image.h"

#include "base/base64.h"

#include <math.h>
#include <string.h>

static bool jpeg_size(const unsigned char *b, size_t n, long *wd, long *ht)
{
	size_t i = 2;
	while (i + 9 < n) {
		if (b[i] != 0xFF)
			return false;
		unsigned mk = b[i + 1];
		size_t seg = (size_t)b[i + 2] << 8 | b[i + 3];
		if (mk >= 0xC0 && mk <= 0xCF && mk != 0xC4 && mk != 0xC8 && mk != 0xCC) {
			*ht = (long)b[i + 5] << 8 | b[i + 6];
			*wd = (long)b[i + 7] << 8 | b[i + 8];
			return true;
		}
		i += 2 + seg;
	}
	return false;
}

bool image_size(const char *b64, long *wd, long *ht)
{
	unsigned char buf[65536]; /* a JPEG's frame header comes after its tables (an EXIF block is up to 64 KB) */
	if (!b64)
		return false;
	size_t n = base64_decode_prefix(b64, buf, sizeof buf);
	long w = 0, h = 0;
	if (n >= 24 && !memcmp(buf, "\x89PNG", 4)) {
		w = (long)buf[16] << 24 | (long)buf[17] << 16 | (long)buf[18] << 8 | buf[19];
		h = (long)buf[20] << 24 | (long)buf[21] << 16 | (long)buf[22] << 8 | buf[23];
	} else if (n >= 10 && !memcmp(buf, "GIF8", 4)) {
		w = (long)buf[7] << 8 | buf[6];
		h = (long)buf[9] << 8 | buf[8];
	} else if (!(n >= 4 && buf[0] == 0xFF && buf[1] == 0xD8 && jpeg_size(buf, n, &w, &h))) {
		return false;
	}
	if (w <= 0 || h <= 0 || w > 100000 || h > 100000)
		return false;
	*wd = w;
	*ht = h;
	return true;
}

/* Anthropic: long edge scaled to 1568 at most, then width*height/750. */
static long anthropic_tokens(long wd, long ht)
{
	double w = (double)wd, h = (double)ht, s = fmax(w, h) > 1568 ? 1568 / fmax(w, h) : 1;
	return (long)ceil(floor(w * s) * floor(h * s) / 750);
}

/* OpenAI (gpt-4o's documented rule): fit 2048x2048, shortest side to 768,
 * 170 per 512-pixel tile plus 85. */
static long openai_tokens(long wd, long ht)
{
	double w = (double)wd, h = (double)ht;
	if (fmax(w, h) > 2048) {
		double s = 2048 / fmax(w, h);
		w *= s, h *= s;
	}
	if (fmin(w, h) > 768) {
		double s = 768 / fmin(w, h);
		w *= s, h *= s;
	}
	return 85 + 170 * (long)(ceil(w / 512) * ceil(h / 512));
}

long image_tokens(int rule, long wd, long ht)
{
	if (rule == IMAGE_OPENAI_LOW)
		return 85;
	return rule == IMAGE_ANTHROPIC ? anthropic_tokens(wd, ht) : openai_tokens(wd, ht);
}

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

/* WebP (RIFF "WEBP"): the first chunk's header holds the size. VP8X (the
 * extended format): canvas width-1 and height-1, 24 bits little-endian each,
 * at bytes 24 and 27; VP8L (lossless): after the signature byte 0x2F, width-1
 * and height-1 in 14 bits each; VP8 (lossy): after the 3-byte frame tag and
 * the start code 9D 01 2A, width and height in the low 14 bits of two
 * 16-bit little-endian words. */
static bool webp_size(const unsigned char *b, size_t n, long *wd, long *ht)
{
	if (n < 30 || memcmp(b, "RIFF", 4) || memcmp(b + 8, "WEBP", 4))
		return false;
	if (!memcmp(b + 12, "VP8X", 4)) {
		*wd = 1 + ((long)b[24] | (long)b[25] << 8 | (long)b[26] << 16);
		*ht = 1 + ((long)b[27] | (long)b[28] << 8 | (long)b[29] << 16);
	} else if (!memcmp(b + 12, "VP8L", 4) && b[20] == 0x2F) {
		*wd = 1 + ((long)(b[22] & 0x3F) << 8 | b[21]);
		*ht = 1 + ((long)(b[24] & 0x0F) << 10 | (long)b[23] << 2 | (b[22] & 0xC0) >> 6);
	} else if (!memcmp(b + 12, "VP8 ", 4) && b[23] == 0x9D && b[24] == 0x01 && b[25] == 0x2A) {
		*wd = ((long)b[27] << 8 | b[26]) & 0x3FFF;
		*ht = ((long)b[29] << 8 | b[28]) & 0x3FFF;
	} else {
		return false;
	}
	return true;
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
	} else if (!(n >= 4 && buf[0] == 0xFF && buf[1] == 0xD8 && jpeg_size(buf, n, &w, &h)) &&
		   !webp_size(buf, n, &w, &h)) {
		return false;
	}
	if (w <= 0 || h <= 0 || w > 100000 || h > 100000)
		return false;
	*wd = w;
	*ht = h;
	return true;
}

/* Anthropic, from its vision guide (docs.anthropic.com/en/docs/vision,
 * "Evaluate image size"): "If your image's long edge is more than 1568
 * pixels, or your image is more than ~1,600 tokens, it will first be scaled
 * down, preserving aspect ratio, until it's within the size limits", and
 * tokens = (width px * height px)/750. So the scale is the smaller of what
 * brings the long edge to 1568 and what brings width*height to 1,600 tokens
 * (1,200,000 pixels); the scaled sides are whole pixels. */
#define ANTHROPIC_LONG_EDGE 1568.0
#define ANTHROPIC_MAX_PIXELS (1600.0 * 750)
static long anthropic_tokens(long wd, long ht)
{
	double w = (double)wd, h = (double)ht;
	double s = fmin(1, fmin(ANTHROPIC_LONG_EDGE / fmax(w, h), sqrt(ANTHROPIC_MAX_PIXELS / (w * h))));
	double sw = s < 1 ? floor(w * s + 1e-9) : w, sh = s < 1 ? floor(h * s + 1e-9) : h;
	return (long)ceil(fmax(sw, 1) * fmax(sh, 1) / 750);
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

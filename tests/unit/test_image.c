/* test_image.c: an image's size read from the first bytes of its base64
 * data (PNG, GIF, JPEG, WebP in its three forms) and its tokens by each
 * provider's rule (tokens/image.h), with exact figures. The headers are
 * written here byte by byte from the formats' specifications. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "tokens/image.h"

#include <stdlib.h>
#include <string.h>

/* bytes[0..n) as base64 text into out (room for 4*(n+2)/3+1). */
static void b64(const unsigned char *bytes, size_t n, char *out)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)bytes[i] << 16 | (i + 1 < n ? (unsigned)bytes[i + 1] << 8 : 0) |
			     (i + 2 < n ? bytes[i + 2] : 0);
		out[o++] = digits[v >> 18 & 63];
		out[o++] = digits[v >> 12 & 63];
		out[o++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? digits[v & 63] : '=';
	}
	out[o] = '\0';
}

static bool size_of(const unsigned char *bytes, size_t n, long *wd, long *ht)
{
	char text[256];
	b64(bytes, n, text);
	*wd = *ht = -1;
	return image_size(text, wd, ht);
}

static void test_png_gif_jpeg(void **state)
{
	(void)state;
	long w, h;
	/* PNG: signature, then the IHDR chunk: width and height, 32 bits big-endian */
	const unsigned char png[] = { 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 'I', 'H', 'D', 'R',
				      0, 0, 0x07, 0xD0, 0, 0, 0x03, 0xF0, 8, 6, 0, 0, 0 };
	assert_true(size_of(png, sizeof png, &w, &h));
	assert_int_equal(w, 2000);
	assert_int_equal(h, 1008);
	/* GIF: width and height, 16 bits little-endian, after "GIF89a" */
	const unsigned char gif[] = { 'G', 'I', 'F', '8', '9', 'a', 0x80, 0x02, 0xE0, 0x01, 0, 0, 0 };
	assert_true(size_of(gif, sizeof gif, &w, &h));
	assert_int_equal(w, 640);
	assert_int_equal(h, 480);
	/* JPEG: SOI, an APP0 segment to skip, then SOF0: height, width */
	const unsigned char jpeg[] = { 0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0, 0, 0xFF, 0xC0, 0x00, 0x11, 8,
				       0x02, 0x58, 0x03, 0x20, 3, 0, 0, 0, 0, 0, 0, 0 };
	assert_true(size_of(jpeg, sizeof jpeg, &w, &h));
	assert_int_equal(w, 800);
	assert_int_equal(h, 600);
}

static void test_webp(void **state)
{
	(void)state;
	long w, h;
	/* VP8X: flags, 3 reserved bytes, canvas width-1 and height-1 in 24 bits LE */
	const unsigned char vp8x[] = { 'R', 'I', 'F', 'F', 40, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'X',
				       10, 0, 0, 0, 0x10, 0, 0, 0, 0xCF, 0x07, 0x00, 0xEF, 0x03, 0x00, 0, 0 };
	assert_true(size_of(vp8x, sizeof vp8x, &w, &h));
	assert_int_equal(w, 2000);
	assert_int_equal(h, 1008);
	/* VP8L: signature 0x2F, then width-1 (14 bits) and height-1 (14 bits),
	 * LSB first: 1499 and 999 here */
	unsigned long bits = 1499ul | 999ul << 14;
	const unsigned char vp8l[] = { 'R', 'I', 'F', 'F', 40, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'L',
				       20, 0, 0, 0, 0x2F, (unsigned char)(bits & 0xFF), (unsigned char)(bits >> 8 & 0xFF),
				       (unsigned char)(bits >> 16 & 0xFF), (unsigned char)(bits >> 24 & 0xFF), 0, 0, 0,
				       0, 0 };
	assert_true(size_of(vp8l, sizeof vp8l, &w, &h));
	assert_int_equal(w, 1500);
	assert_int_equal(h, 1000);
	/* VP8 (lossy): a 3-byte frame tag, start code 9D 01 2A, then width and
	 * height in 16 bits LE (the top 2 bits a scale, ignored): 1024 x 768 */
	const unsigned char vp8[] = { 'R', 'I', 'F', 'F', 40, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', ' ',
				      20, 0, 0, 0, 0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x00, 0x44, 0x00, 0x03, 0, 0 };
	assert_true(size_of(vp8, sizeof vp8, &w, &h));
	assert_int_equal(w, 1024);
	assert_int_equal(h, 768);
	/* a RIFF that is not WebP, and a VP8 without its start code: unknown */
	unsigned char wav[sizeof vp8];
	memcpy(wav, vp8, sizeof vp8);
	memcpy(wav + 8, "WAVE", 4);
	assert_false(size_of(wav, sizeof wav, &w, &h));
	memcpy(wav, vp8, sizeof vp8);
	wav[23] = 0;
	assert_false(size_of(wav, sizeof wav, &w, &h));
	assert_false(size_of(vp8, 20, &w, &h)); /* cut short */
}

/* Anthropic: scaled down, aspect kept, to a long edge of 1568 and to 1,600
 * tokens (1,200,000 pixels) at most; then ceil(width*height/750). */
static void test_anthropic_rule(void **state)
{
	(void)state;
	static const long cases[][3] = {
		{ 200, 200, 54 },     /* the vision guide's own example: ~54 */
		{ 640, 480, 410 },    /* small: as it is */
		{ 1092, 1092, 1590 }, /* the guide's largest 1:1 size not resized: ~1590 */
		{ 1500, 1500, 1599 }, /* over 1,600 tokens: 1095 x 1095, not 3,000 */
		{ 3000, 3000, 1599 },
		{ 2000, 1008, 1599 }, /* both limits: the pixel one is the tighter, 1543 x 777 */
		{ 4000, 100, 82 },    /* the long edge only: 1568 x 39 */
		{ 1568, 700, 1464 },  /* at both limits' edge: as it is */
		{ 1, 1, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(image_tokens(IMAGE_ANTHROPIC, cases[i][0], cases[i][1]), cases[i][2]);
}

/* OpenAI (gpt-4o): fit 2048 x 2048, shortest side to 768, 170 per 512-px
 * tile plus 85; detail "low" 85. */
static void test_openai_rule(void **state)
{
	(void)state;
	assert_int_equal(image_tokens(IMAGE_OPENAI, 1024, 1024), 765);  /* 768 x 768: 4 tiles */
	assert_int_equal(image_tokens(IMAGE_OPENAI, 2048, 4096), 1105); /* 768 x 1536: 6 tiles */
	assert_int_equal(image_tokens(IMAGE_OPENAI, 640, 480), 425);    /* 2 tiles */
	assert_int_equal(image_tokens(IMAGE_OPENAI_LOW, 4000, 4000), 85);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_png_gif_jpeg),
		cmocka_unit_test(test_webp),
		cmocka_unit_test(test_anthropic_rule),
		cmocka_unit_test(test_openai_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

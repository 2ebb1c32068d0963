/* base64.c: base64 digits and decoding (see base64.h). */
#include "base/base64.h"

#include <stdint.h>

/* Each character's digit plus one (0: not a digit), both alphabets. */
#define D(c, v) [c] = (v) + 1
static const unsigned char digit1[256] = {
	D('A', 0),  D('B', 1),  D('C', 2),  D('D', 3),  D('E', 4),  D('F', 5),  D('G', 6),  D('H', 7),
	D('I', 8),  D('J', 9),  D('K', 10), D('L', 11), D('M', 12), D('N', 13), D('O', 14), D('P', 15),
	D('Q', 16), D('R', 17), D('S', 18), D('T', 19), D('U', 20), D('V', 21), D('W', 22), D('X', 23),
	D('Y', 24), D('Z', 25), D('a', 26), D('b', 27), D('c', 28), D('d', 29), D('e', 30), D('f', 31),
	D('g', 32), D('h', 33), D('i', 34), D('j', 35), D('k', 36), D('l', 37), D('m', 38), D('n', 39),
	D('o', 40), D('p', 41), D('q', 42), D('r', 43), D('s', 44), D('t', 45), D('u', 46), D('v', 47),
	D('w', 48), D('x', 49), D('y', 50), D('z', 51), D('0', 52), D('1', 53), D('2', 54), D('3', 55),
	D('4', 56), D('5', 57), D('6', 58), D('7', 59), D('8', 60), D('9', 61), D('+', 62), D('-', 62),
	D('/', 63), D('_', 63),
};
#undef D

int base64_digit(int c)
{
	return c >= 0 && c < 256 ? digit1[c] - 1 : -1;
}

long base64_decode(const char *s, size_t n, unsigned char *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t pads = 0;
	while (n > 0 && u[n - 1] == '=')
		n--, pads++;
	if (n % 4 == 1)
		return -1; /* six bits make no byte */
	if (pads && (pads > 2 || (n + pads) % 4 != 0))
		return -1; /* padded, but not to a whole group: "YWJj==", "YQ===" */
	size_t o = 0, i = 0;
	for (; i + 4 <= n; i += 4) { /* whole groups: three bytes each */
		unsigned a = digit1[u[i]], b = digit1[u[i + 1]], c = digit1[u[i + 2]], d = digit1[u[i + 3]];
		if (!a || !b || !c || !d)
			return -1;
		uint32_t v = (uint32_t)(a - 1) << 18 | (uint32_t)(b - 1) << 12 | (uint32_t)(c - 1) << 6 | (d - 1);
		out[o] = (unsigned char)(v >> 16);
		out[o + 1] = (unsigned char)(v >> 8);
		out[o + 2] = (unsigned char)v;
		o += 3;
	}
	uint32_t acc = 0;
	int bits = 0;
	for (; i < n; i++) { /* the last two or three digits */
		int v = digit1[u[i]] - 1;
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	if (acc & ((1u << bits) - 1))
		return -1; /* bits left over that are not zero: "YR==" would be a second "YQ==" */
	return (long)o;
}

size_t base64_decode_prefix(const char *s, unsigned char *out, size_t cap)
{
	size_t n = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (; *s && n < cap; s++) {
		int v = base64_digit((unsigned char)*s);
		if (v < 0)
			continue;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
		}
	}
	return n;
}

/* base64.c: base64 digits and decoding (see base64.h). */
#include "base64.h"

#include <stdint.h>

int base64_digit(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' || c == '-' ? 62 : c == '/' || c == '_' ? 63 : -1;
}

long base64_decode(const char *s, size_t n, unsigned char *out)
{
	while (n > 0 && s[n - 1] == '=')
		n--;
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		int v = base64_digit((unsigned char)s[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	return bits >= 6 ? -1 : (long)o;
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

/* base64.h: base64 digits and decoding (RFC 4648, the standard and the
 * URL-safe alphabets), for tiktoken rank files and for the image data in
 * provider requests. */
#ifndef CTXSCOPE_BASE64_H
#define CTXSCOPE_BASE64_H

#include <stddef.h>

/* The value of a base64 digit (A-Z a-z 0-9, + or -, / or _), or -1. */
int base64_digit(int c);
/* Decodes s[0..n) into out, which has room for n bytes; the length, or -1
 * when a character is not a digit, the length is impossible, the padding
 * is not exactly what completes the last group ("YQ==" or "YQ", never
 * "YQ=" or "YWJj=="), or the last digit has bits left over that are not
 * zero (each byte string has one spelling). */
long base64_decode(const char *s, size_t n, unsigned char *out);
/* Decodes the first bytes of the NUL-terminated base64 text s, at most cap,
 * skipping anything that is not a digit (line breaks); the count. */
size_t base64_decode_prefix(const char *s, unsigned char *out, size_t cap);

#endif

/* strbuf.h: a growable byte buffer with a sticky failure flag: append as much
 * as you like and check `failed` once at the end (sqlite's JsonString idea).
 * The data is always NUL-terminated once anything was appended. */
#ifndef CTXSCOPE_STRBUF_H
#define CTXSCOPE_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct strbuf {
	char *data;  /* owned; NULL until the first append */
	size_t len;  /* bytes, not counting the NUL */
	size_t cap;
	bool failed; /* an append ran out of memory; contents are then partial */
};

#define STRBUF_INIT { NULL, 0, 0, false }

void sb_init(struct strbuf *sb);
void sb_fini(struct strbuf *sb);      /* frees; NULL-safe */
void sb_reset(struct strbuf *sb);     /* len = 0, keeps memory, clears failed */

/* sb_append's way when there is no room (grows) or the buffer failed. */
bool sb_append_grow(struct strbuf *sb, const void *data, size_t n);
/* Inline when there is room: reports append a few bytes at a time, millions
 * of times. */
static inline bool sb_append(struct strbuf *sb, const void *data, size_t n)
{
	if (sb->failed || sb->cap - sb->len <= n)
		return sb_append_grow(sb, data, n);
	memcpy(sb->data + sb->len, data, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
	return true;
}
/* Room for `extra` more bytes (and the NUL) without another allocation;
 * false (and failed) when out of memory. */
bool sb_reserve(struct strbuf *sb, size_t extra);
static inline bool sb_puts(struct strbuf *sb, const char *s)
{
	return sb_append(sb, s, strlen(s));
}
static inline bool sb_putc(struct strbuf *sb, char c)
{
	return sb_append(sb, &c, 1);
}
bool sb_repeat(struct strbuf *sb, const char *s, size_t times);
bool sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* An integer with thousands separators: 1204 -> "1,204", -3402 -> "-3,402". */
bool sb_thousands(struct strbuf *sb, long long v);

/* The text so far ("" before any append). Borrowed; valid until the next append. */
const char *sb_str(const struct strbuf *sb);
/* Hands the buffer to the caller (free with cs_free) and resets sb.
 * Returns NULL when failed (the partial buffer is freed). */
char *sb_detach(struct strbuf *sb, size_t *out_len);

/* Format v with thousands separators into buf (at least 32 bytes); returns buf. */
char *fmt_thousands(char buf[32], long long v);
/* Exactly printf's "%.3f" of v into buf, without printf when the rounding
 * is certain (sentences per piece on every re-assembly). FIXED3_MAX holds
 * any double's (309 digits, sign, point, 3 decimals, NUL). */
#define FIXED3_MAX 320
char *fmt_fixed3(char buf[FIXED3_MAX], double v);
/* The same for printf's "%.2f" (the reports' priorities). */
char *fmt_fixed2(char buf[FIXED3_MAX], double v);
/* Exactly printf's "%.6g" of v into buf, by hand when the rounding is
 * certain (the reports' numbers, several per piece). */
#define GENERAL6_MAX 40
char *fmt_general6(char buf[GENERAL6_MAX], double v);

#endif

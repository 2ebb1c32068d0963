/* strbuf.c: growable buffer with sticky failure (see strbuf.h). */
#include "strbuf.h"

#include "alloc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void sb_init(struct strbuf *sb)
{
	*sb = (struct strbuf)STRBUF_INIT;
}

void sb_fini(struct strbuf *sb)
{
	if (!sb)
		return;
	cs_free(sb->data);
	sb_init(sb);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->failed = false;
	if (sb->data)
		sb->data[0] = '\0';
}

static bool grow(struct strbuf *sb, size_t extra)
{
	if (sb->failed)
		return false;
	if (extra > SIZE_MAX - sb->len - 1) {
		sb->failed = true;
		return false;
	}
	size_t need = sb->len + extra + 1;
	if (need <= sb->cap)
		return true;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	char *p = cs_realloc(sb->data, cap);
	if (!p) {
		sb->failed = true;
		return false;
	}
	sb->data = p;
	sb->cap = cap;
	return true;
}

bool sb_append(struct strbuf *sb, const void *data, size_t n)
{
	if (!grow(sb, n))
		return false;
	if (n)
		memcpy(sb->data + sb->len, data, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
	return true;
}

bool sb_puts(struct strbuf *sb, const char *s)
{
	return sb_append(sb, s, strlen(s));
}

bool sb_putc(struct strbuf *sb, char c)
{
	return sb_append(sb, &c, 1);
}

bool sb_repeat(struct strbuf *sb, const char *s, size_t times)
{
	size_t n = strlen(s);
	while (times--)
		if (!sb_append(sb, s, n))
			return false;
	return true;
}

bool sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	bool ok = n >= 0 && grow(sb, (size_t)n);
	if (ok) {
		vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, again);
		sb->len += (size_t)n;
	} else {
		sb->failed = true;
	}
	va_end(again);
	return ok;
}

bool sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bool ok = sb_vprintf(sb, fmt, ap);
	va_end(ap);
	return ok;
}

char *fmt_thousands(char buf[32], long long v)
{
	char digits[24];
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	int n = 0; /* digits by hand: this runs per piece on every re-assembly */
	char rev[24];
	do {
		rev[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	for (int i = 0; i < n; i++)
		digits[i] = rev[n - 1 - i];
	char *out = buf;
	if (v < 0)
		*out++ = '-';
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			*out++ = ',';
		*out++ = digits[i];
	}
	*out = '\0';
	return buf;
}

char *fmt_fixed3(char buf[FIXED3_MAX], double v)
{
	/* By hand when the rounding is certain: below 1e6, v * 1000 is within
	 * 1e-7 of the exact product, so a fraction farther than 1e-6 from one
	 * half rounds as printf rounds the exact value. Else printf itself. */
	double t = fabs(v) * 1000.0;
	if (!(t < 1e9)) {
		snprintf(buf, FIXED3_MAX, "%.3f", v);
		return buf;
	}
	double f = floor(t), frac = t - f;
	if (fabs(frac - 0.5) < 1e-6) {
		snprintf(buf, FIXED3_MAX, "%.3f", v);
		return buf;
	}
	unsigned long long q = (unsigned long long)f + (frac > 0.5);
	char rev[24];
	int n = 0;
	unsigned long long ip = q / 1000;
	do {
		rev[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	char *out = buf;
	if (signbit(v))
		*out++ = '-';
	while (n)
		*out++ = rev[--n];
	unsigned d = (unsigned)(q % 1000);
	*out++ = '.';
	*out++ = (char)('0' + d / 100);
	*out++ = (char)('0' + d / 10 % 10);
	*out++ = (char)('0' + d % 10);
	*out = '\0';
	return buf;
}

bool sb_thousands(struct strbuf *sb, long long v)
{
	char buf[32];
	return sb_puts(sb, fmt_thousands(buf, v));
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->data ? sb->data : "";
}

char *sb_detach(struct strbuf *sb, size_t *out_len)
{
	if (sb->failed) {
		sb_fini(sb);
		return NULL;
	}
	if (!sb->data && !sb_append(sb, "", 0))
		return NULL;
	char *p = sb->data;
	if (out_len)
		*out_len = sb->len;
	sb_init(sb);
	return p;
}

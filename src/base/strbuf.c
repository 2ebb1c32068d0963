/* strbuf.c: growable buffer with sticky failure (see strbuf.h). */
#include "base/strbuf.h"

#include "base/alloc.h"

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

bool sb_reserve(struct strbuf *sb, size_t extra)
{
	return grow(sb, extra);
}

bool sb_append_grow(struct strbuf *sb, const void *data, size_t n)
{
	if (!grow(sb, n))
		return false;
	if (n)
		memcpy(sb->data + sb->len, data, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
	return true;
}

bool sb_repeat(struct strbuf *sb, const char *s, size_t times)
{
	size_t n = strlen(s);
	if (n == 1 && times) { /* padding: at once */
		if (!grow(sb, times))
			return false;
		memset(sb->data + sb->len, s[0], times);
		sb->len += times;
		sb->data[sb->len] = '\0';
		return true;
	}
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

/* printf's "%.Nf" of v (N = 2 or 3) into buf: by hand when the rounding
 * is certain, else printf itself. */
static char *fixed(char buf[FIXED3_MAX], double v, int decimals)
{
	/* Below 1e9 / 10^N, v * 10^N is within 1e-7 of the exact product, so
	 * a fraction farther than 1e-6 from one half rounds as printf rounds
	 * the exact value. */
	unsigned scale = decimals == 2 ? 100 : 1000;
	double t = fabs(v) * scale;
	double f = floor(t), frac = t - f;
	if (!(t < 1e9) || fabs(frac - 0.5) < 1e-6) {
		snprintf(buf, FIXED3_MAX, decimals == 2 ? "%.2f" : "%.3f", v);
		return buf;
	}
	unsigned long long q = (unsigned long long)f + (frac > 0.5);
	char rev[24];
	int n = 0;
	unsigned long long ip = q / scale;
	do {
		rev[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	char *out = buf;
	if (signbit(v))
		*out++ = '-';
	while (n)
		*out++ = rev[--n];
	unsigned d = (unsigned)(q % scale);
	*out++ = '.';
	if (decimals == 3) {
		*out++ = (char)('0' + d / 100);
		d %= 100;
	}
	*out++ = (char)('0' + d / 10);
	*out++ = (char)('0' + d % 10);
	*out = '\0';
	return buf;
}

char *fmt_fixed3(char buf[FIXED3_MAX], double v)
{
	return fixed(buf, v, 3);
}

char *fmt_fixed2(char buf[FIXED3_MAX], double v)
{
	return fixed(buf, v, 2);
}

/* The exponent %.6g would show for 1e-4 <= a < 1e6; 99 outside. */
static int exponent6(double a)
{
	static const double p[] = { 1e5, 1e4, 1e3, 1e2, 1e1, 1e0, 1e-1, 1e-2, 1e-3, 1e-4 };
	if (!(a < 1e6)) /* and infinity, NaN */
		return 99;
	for (int i = 0; i < 10; i++)
		if (a >= p[i])
			return 5 - i;
	return 99;
}

char *fmt_general6(char buf[GENERAL6_MAX], double v)
{
	/* By hand for 1e-4 <= |v| < 1e6, where %.6g is fixed-point with 5 - X
	 * decimals: a * 10^(5-X) has 6 integer digits and is within 1e-9 of
	 * the exact product, so a fraction farther than 1e-6 from one half
	 * rounds as printf rounds the exact value. Else printf itself (zero,
	 * the exponent form, halves, a rounding that carries into a 7th digit). */
	static const double scale[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	double a = fabs(v);
	int x = exponent6(a);
	if (x == 99) {
		snprintf(buf, GENERAL6_MAX, "%.6g", v);
		return buf;
	}
	double t = a * scale[5 - x], f = floor(t), frac = t - f;
	unsigned long r = (unsigned long)f + (frac > 0.5);
	if (fabs(frac - 0.5) < 1e-6 || r < 100000 || r > 999999) {
		snprintf(buf, GENERAL6_MAX, "%.6g", v);
		return buf;
	}
	char d[6];
	for (int i = 5; i >= 0; i--, r /= 10)
		d[i] = (char)('0' + r % 10);
	char *out = buf;
	if (signbit(v))
		*out++ = '-';
	int last = 5; /* the last digit kept: trailing zeros of the fraction go */
	while (last > (x > 0 ? x : 0) && d[last] == '0')
		last--;
	if (x >= 0) {
		for (int i = 0; i <= x; i++)
			*out++ = d[i];
		if (last > x)
			*out++ = '.';
		for (int i = x + 1; i <= last; i++)
			*out++ = d[i];
	} else {
		*out++ = '0';
		*out++ = '.';
		for (int i = x + 1; i < 0; i++)
			*out++ = '0';
		for (int i = 0; i <= last; i++)
			*out++ = d[i];
	}
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

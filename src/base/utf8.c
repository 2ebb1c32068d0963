/* utf8.c: decoding, counting, classifying and display-sanitizing UTF-8
 * (see utf8.h). Widths are in utf8_width.c. */
#include "base/utf8.h"
#include "base/tune.h"

#include "base/strbuf.h"

#include <stdint.h>
#include <string.h>

size_t utf8_decode(const char *str, size_t n, int32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t len;
	int32_t v, min;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2, v = c & 0x1F, min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, v = c & 0x0F, min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, v = c & 0x07, min = 0x10000;
	} else {
		*cp = UTF8_INVALID;
		return 1;
	}
	if (n < len) {
		*cp = UTF8_INVALID;
		return 1;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			*cp = UTF8_INVALID;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
		*cp = UTF8_INVALID;
		return 1;
	}
	*cp = v;
	return len;
}

size_t utf8_encode(int32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t utf8_count_code_points(const char *s, size_t nbytes)
{
	size_t count = 0, i = 0;
	while (i < nbytes) {
		/* ASCII runs dominate real prompts: eight bytes at a time while a
		 * word has no high bit (this runs over every byte at load). */
		uint64_t word;
		if (nbytes - i >= sizeof word) {
			memcpy(&word, s + i, sizeof word);
			if (!(word & 0x8080808080808080ull)) {
				i += sizeof word;
				count += sizeof word;
				continue;
			}
		}
		if ((unsigned char)s[i] < 0x80) {
			i++;
			count++;
			continue;
		}
		int32_t cp;
		i += utf8_decode(s + i, nbytes - i, &cp);
		count++;
	}
	return count;
}

size_t utf8_bytes_for_code_points(const char *s, size_t nbytes, size_t code_points)
{
	size_t i = 0;
	while (i < nbytes && code_points > 0) {
		int32_t cp;
		i += (unsigned char)s[i] < 0x80 ? 1 : utf8_decode(s + i, nbytes - i, &cp);
		code_points--;
	}
	return i;
}

size_t utf8_offset_of_last_code_points(const char *s, size_t nbytes, size_t code_points)
{
	size_t total = utf8_count_code_points(s, nbytes);
	if (code_points >= total)
		return 0;
	return utf8_bytes_for_code_points(s, nbytes, total - code_points);
}

size_t utf8_count_lines(const char *s, size_t nbytes)
{
	/* Every newline ends a line, and so does the end of a text that does
	 * not end with one. Counted eight bytes at a time (a memchr call per
	 * line was most of a manifest's load on short-lined code): in x, a
	 * newline is a zero byte; `nonzero` has the high bit of each byte
	 * that is not (exact, no borrow between bytes); the multiply sums
	 * those bits into the top byte. */
	const uint64_t ones = 0x0101010101010101ull, low7 = 0x7F7F7F7F7F7F7F7Full;
	size_t newlines = 0, i = 0;
	for (; nbytes - i >= 8; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, sizeof w);
		uint64_t x = w ^ (ones * '\n');
		uint64_t nonzero = (((x & low7) + low7) | x) & ~low7;
		newlines += 8 - (size_t)(((nonzero >> 7) * ones) >> 56);
	}
	for (; i < nbytes; i++)
		newlines += s[i] == '\n';
	return newlines + (nbytes > 0 && s[nbytes - 1] != '\n');
}

size_t utf8_bytes_for_lines(const char *s, size_t nbytes, size_t lines)
{
	const char *p = s, *end = s + nbytes;
	while (p < end && lines > 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return nbytes;
		p = nl + 1;
		lines--;
	}
	return (size_t)(p - s);
}

size_t utf8_offset_of_last_lines(const char *s, size_t nbytes, size_t lines)
{
	size_t total = utf8_count_lines(s, nbytes);
	if (lines >= total)
		return 0;
	return utf8_bytes_for_lines(s, nbytes, total - lines);
}

bool utf8_is_bidi_control(int32_t cp)
{
	return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

bool utf8_is_tag(int32_t cp)
{
	return cp >= 0xE0000 && cp <= 0xE007F;
}

bool utf8_is_variation_selector(int32_t cp)
{
	return (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0100 && cp <= 0xE01EF) ||
	       (cp >= 0x180B && cp <= 0x180D) || cp == 0x180F;
}

enum utf8_class utf8_classify(int32_t cp)
{
	if (cp == UTF8_INVALID)
		return UTF8_BAD;
	if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
		return UTF8_CONTROL;
	if (cp < 0xAD)
		return UTF8_PRINTABLE;
	if (cp == 0xAD || utf8_is_bidi_control(cp) || utf8_is_tag(cp) ||
	    (cp >= 0x200B && cp <= 0x200D) || (cp >= 0x2060 && cp <= 0x2064) ||
	    cp == 0xFEFF || cp == 0x180E || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
	    (cp >= 0x1BCA0 && cp <= 0x1BCA3) || (cp >= 0x1D173 && cp <= 0x1D17A) ||
	    cp == 0x034F || (cp >= 0x206A && cp <= 0x206F) ||
	    cp == 0x115F || cp == 0x1160 || cp == 0x3164 || cp == 0xFFA0 || /* Hangul fillers */
	    cp == 0x17B4 || cp == 0x17B5 ||                                  /* Khmer inherent vowels */
	    cp == 0x2028 || cp == 0x2029)                                    /* line, paragraph separator */
		return UTF8_INVISIBLE;
	return UTF8_PRINTABLE;
}

size_t utf8_columns(const char *s, size_t nbytes)
{
	size_t cols = 0, i = 0;
	while (i < nbytes) {
		int32_t cp;
		i += utf8_decode(s + i, nbytes - i, &cp);
		cols += cp == UTF8_INVALID ? 1 : (size_t)utf8_columns_of_code_point(cp);
	}
	return cols;
}

size_t utf8_prefix_for_columns(const char *s, size_t nbytes, size_t columns, size_t *out_columns)
{
	size_t cols = 0, i = 0;
	while (i < nbytes) {
		int32_t cp;
		size_t len = utf8_decode(s + i, nbytes - i, &cp);
		size_t w = cp == UTF8_INVALID ? 1 : (size_t)utf8_columns_of_code_point(cp);
		if (cols + w > columns)
			break;
		cols += w;
		i += len;
	}
	if (out_columns)
		*out_columns = cols;
	return i;
}

static bool put_cp(struct strbuf *out, int32_t cp)
{
	char buf[4];
	return sb_append(out, buf, utf8_encode(cp, buf));
}

static bool put_control(struct strbuf *out, int32_t cp, unsigned flags)
{
	if (flags & UTF8_ASCII) {
		if (cp >= 0x80)
			return sb_putc(out, '?');
		char caret[2] = { '^', cp == 0x7F ? '?' : (char)(cp + 0x40) };
		return sb_append(out, caret, 2);
	}
	if (cp >= 0x80)
		return put_cp(out, 0xFFFD);
	return put_cp(out, cp == 0x7F ? 0x2421 : 0x2400 + cp);
}

/* In ASCII: the one-character stand-in of a common typographic mark (a
 * separator dot, dashes, quotes, an ellipsis), so that a `·` between words
 * never reads as `?` (the stand-in for what ASCII cannot show); 0: none. */
static char ascii_stand_in(int32_t cp)
{
	switch (cp) {
	case 0x00B7: case 0x2022: case 0x2502: return '|';
	case 0x2010: case 0x2011: case 0x2012: case 0x2013: case 0x2014: case 0x2212: case 0x2500: return '-';
	case 0x2018: case 0x2019: return '\'';
	case 0x201C: case 0x201D: return '"';
	case 0x2026: return '.'; /* never '~': in ASCII that flags a truncated piece */
	default: return 0;
	}
}

/* cp's class for display; a variation selector in a run of them (the one
 * before was one, or the next one is) is invisible. rest: what follows cp. */
static enum utf8_class display_class(int32_t cp, bool prev_vs, const char *rest, size_t n)
{
	if (!utf8_is_variation_selector(cp))
		return utf8_classify(cp);
	int32_t next = 0;
	if (n)
		utf8_decode(rest, n, &next);
	return prev_vs || utf8_is_variation_selector(next) ? UTF8_INVISIBLE : UTF8_PRINTABLE;
}


#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* The high bit of each byte of x that equals b, exactly. */
static inline uint64_t bytes_equal(uint64_t x, unsigned char b)
{
	uint64_t t = x ^ (ONES * b);
	return ~(((t & ~HIGHS) + ~HIGHS) | t) & HIGHS;
}

/* Whether a byte of x is outside printable ASCII (0x20..0x7E). */
static inline bool unprintable8(uint64_t x)
{
	return ((x & HIGHS) | ((x - ONES * 0x20) & ~x & HIGHS) | bytes_equal(x, 0x7F)) != 0;
}

/* How many bytes from s utf8_sanitize copies as they are: printable ASCII,
 * and under one_line no space right after a space (last: the byte before s
 * was one). Eight bytes a step. */
static size_t plain_span(const char *s, size_t n, bool one_line, bool last)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		if (unprintable8(x))
			break;
		if (one_line) {
			uint64_t sp = bytes_equal(x, ' ');
			if ((sp & (sp << 8)) || (last && s[i] == ' '))
				break;
		}
		last = s[i + 7] == ' ';
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c > 0x7E || (c == ' ' && one_line && last))
			break;
		last = c == ' ';
	}
	return i;
}

/* The general way's run of plain printable ASCII: spaces only without
 * one_line (it handles them itself). */
static size_t ascii_run(const char *s, size_t n, bool one_line)
{
	size_t run = 0;
	while (run < n && (unsigned char)s[run] > 0x20 && (unsigned char)s[run] < 0x7F)
		run++;
	while (!one_line && run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7F)
		run++;
	return run;
}

bool utf8_sanitize(struct strbuf *out, const char *s, size_t n, unsigned flags)
{
	size_t i = 0;
	bool last_space = false, prev_vs = false;
	bool one_line = flags & UTF8_ONE_LINE;
	while (i < n) {
		/* Copy the longest run of plain printable ASCII at once. */
		size_t run = i + (cs_tuned->utf8_fast ? plain_span(s + i, n - i, one_line, last_space)
					     : ascii_run(s + i, n - i, one_line));
		if (run > i) {
			if (!sb_append(out, s + i, run - i))
				return false;
			last_space = s[run - 1] == ' ';
			prev_vs = false;
			i = run;
			continue;
		}
		int32_t cp;
		size_t len = utf8_decode(s + i, n - i, &cp);
		i += len;
		bool was_vs = prev_vs;
		prev_vs = utf8_is_variation_selector(cp);
		if (cp == ' ' || ((flags & UTF8_ONE_LINE) && (cp == '\n' || cp == '\t'))) {
			if (!((flags & UTF8_ONE_LINE) && last_space) && !sb_putc(out, ' '))
				return false;
			last_space = true;
			continue;
		}
		last_space = false;
		bool ok;
		if ((cp == '\n' && (flags & UTF8_KEEP_NEWLINES)) || (cp == '\t' && (flags & UTF8_KEEP_TABS))) {
			ok = sb_putc(out, (char)cp);
		} else {
			switch (display_class(cp, was_vs, s + i, n - i)) {
			case UTF8_PRINTABLE:
				if (!(flags & UTF8_ASCII))
					ok = sb_append(out, s + i - len, len);
				else
					ok = sb_putc(out, ascii_stand_in(cp) ? ascii_stand_in(cp) : '?');
				break;
			case UTF8_CONTROL:
				ok = put_control(out, cp, flags);
				break;
			case UTF8_INVISIBLE:
				ok = (flags & UTF8_ASCII) ? sb_putc(out, '?') : put_cp(out, 0x25CA);
				break;
			case UTF8_BAD:
			default:
				ok = (flags & UTF8_ASCII) ? sb_putc(out, '?') : put_cp(out, 0xFFFD);
				break;
			}
		}
		if (!ok)
			return false;
	}
	return true;
}

const char *utf8_ellipsis(unsigned flags, size_t columns)
{
	return columns == 0 ? "" : !(flags & UTF8_ASCII) ? "\xe2\x80\xa6" : columns >= 2 ? ".." : ".";
}

size_t utf8_ellipsis_columns(unsigned flags, size_t columns)
{
	return !(flags & UTF8_ASCII) ? (columns ? 1 : 0) : columns >= 2 ? 2 : columns;
}

/* utf8_fit of text utf8_sanitize leaves as it is: a byte a column. */
static bool fit_plain(struct strbuf *out, const char *s, size_t n, size_t columns, unsigned flags, bool pad)
{
	if (n > columns) {
		size_t ell = utf8_ellipsis_columns(flags, columns);
		return sb_append(out, s, columns - ell) && sb_puts(out, utf8_ellipsis(flags, columns));
	}
	return sb_append(out, s, n) && (!pad || sb_repeat(out, " ", columns - n));
}

bool utf8_fit(struct strbuf *out, const char *s, size_t n, size_t columns, unsigned flags, bool pad)
{
	if (cs_tuned->utf8_fast && plain_span(s, n, flags & UTF8_ONE_LINE, false) == n)
		return fit_plain(out, s, n, columns, flags, pad);
	struct strbuf safe = STRBUF_INIT;
	if (!utf8_sanitize(&safe, s, n, flags)) {
		sb_fini(&safe);
		out->failed = true;
		return false;
	}
	size_t cols;
	size_t fit = utf8_prefix_for_columns(sb_str(&safe), safe.len, columns, &cols);
	bool ok;
	if (fit < safe.len && columns > 0) {
		/* Cut: reserve the ellipsis's columns ("…", or ".." in ASCII: "~" means truncated there). */
		size_t ell = utf8_ellipsis_columns(flags, columns);
		fit = utf8_prefix_for_columns(sb_str(&safe), safe.len, columns - ell, &cols);
		ok = sb_append(out, safe.data, fit) && sb_puts(out, utf8_ellipsis(flags, columns));
		cols += ell;
	} else {
		ok = sb_append(out, sb_str(&safe), fit);
	}
	while (ok && pad && cols < columns) {
		ok = sb_putc(out, ' ');
		cols++;
	}
	sb_fini(&safe);
	return ok;
}

/* hidden.c: finding and revealing hidden text (see hidden.h). */
#include "hidden.h"

#include "strbuf.h"
#include "utf8.h"

#include <stdio.h>
#include <string.h>

static const char *const class_names[] = {
#define HIDDEN_X_NAME(e, name) name,
	HIDDEN_CLASSES(HIDDEN_X_NAME)
#undef HIDDEN_X_NAME
};

const char *hidden_class_name(int cls)
{
	return cls >= 0 && cls < HIDDEN_COUNT ? class_names[cls] : "";
}

/* Pictographs, dingbats, skin tones, the emoji presentation selector and
 * the gender signs: what a ZWJ joins in an emoji sequence. */
static bool emoji_part(int32_t cp)
{
	return (cp >= 0x1F000 && cp <= 0x1FAFF) || (cp >= 0x2600 && cp <= 0x27BF) || cp == 0xFE0F ||
	       (cp >= 0x2190 && cp <= 0x21FF) || cp == 0x2B50 || cp == 0x2B55;
}

static bool zero_width(int32_t cp)
{
	return (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || cp == 0xFEFF || cp == 0x180E;
}

enum hidden_class hidden_classify(int32_t prev, int32_t cp, int32_t next)
{
	if (cp < 0xAD || utf8_classify(cp) != UTF8_INVISIBLE)
		return HIDDEN_NONE;
	if (utf8_is_bidi_control(cp))
		return HIDDEN_BIDI;
	if (utf8_is_tag(cp))
		return HIDDEN_TAG;
	if (cp == 0x200D && emoji_part(prev) && emoji_part(next))
		return HIDDEN_NONE;
	if (zero_width(cp))
		return HIDDEN_ZERO_WIDTH;
	return HIDDEN_FORMAT;
}

const char *hidden_name(int32_t cp, char buf[12])
{
	switch (cp) {
	case 0x061C: return "ALM";
	case 0x200E: return "LRM";
	case 0x200F: return "RLM";
	case 0x202A: return "LRE";
	case 0x202B: return "RLE";
	case 0x202C: return "PDF";
	case 0x202D: return "LRO";
	case 0x202E: return "RLO";
	case 0x2066: return "LRI";
	case 0x2067: return "RLI";
	case 0x2068: return "FSI";
	case 0x2069: return "PDI";
	case 0x200B: return "ZWSP";
	case 0x200C: return "ZWNJ";
	case 0x200D: return "ZWJ";
	case 0x2060: return "WJ";
	case 0xFEFF: return "BOM";
	case 0x180E: return "MVS";
	case 0x00AD: return "SHY";
	case 0x034F: return "CGJ";
	case 0x2061: return "FA";
	case 0x2062: return "IT";
	case 0x2063: return "IS";
	case 0x2064: return "IP";
	default: break;
	}
	snprintf(buf, 12, "U+%04X", (unsigned)cp);
	return buf;
}

/* The offset of the first byte >= 0x80 (the only place hidden text can
 * start) in s[from..n), or n. Eight bytes at a time: most text is ASCII. */
static size_t first_non_ascii(const char *s, size_t n, size_t from)
{
	size_t i = from;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ULL)
			break;
	}
	for (; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return i;
	return n;
}

/* Decodes the character at s[i..n) (0 past the end). */
static int32_t peek(const char *s, size_t n, size_t i, size_t *len)
{
	if (i >= n) {
		*len = 0;
		return 0;
	}
	int32_t cp;
	*len = utf8_decode(s + i, n - i, &cp);
	return cp;
}

bool hidden_scan(const char *s, size_t n, struct hidden_summary *out)
{
	struct hidden_summary sum = { 0 };
	size_t i = 0;
	int32_t prev = 0;
	size_t line_start = 0; /* byte offset where the current line starts */
	size_t counted_line = (size_t)-1; /* the line start already counted */
	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			size_t j = first_non_ascii(s, n, i);
			const char *nl = memchr(s + i, '\n', j - i);
			while (nl) { /* find the last newline of the ASCII run */
				line_start = (size_t)(nl - s) + 1;
				nl = memchr(s + line_start, '\n', j - line_start);
			}
			prev = (unsigned char)s[j - 1];
			i = j;
			continue;
		}
		size_t len, next_len;
		int32_t cp = peek(s, n, i, &len);
		int32_t next = cp == 0x200D ? peek(s, n, i + len, &next_len) : 0;
		enum hidden_class c = hidden_classify(prev, cp, next);
		if (c != HIDDEN_NONE) {
			sum.count[c]++;
			sum.total++;
			if (counted_line != line_start) {
				counted_line = line_start;
				sum.lines++;
			}
		}
		prev = cp;
		i += len;
	}
	if (out)
		*out = sum;
	return sum.total > 0;
}

/* The tag character's ASCII, or 0 when it encodes none (LANGUAGE TAG,
 * CANCEL TAG, the control range). */
static char tag_ascii(int32_t cp)
{
	int32_t c = cp - 0xE0000;
	return c >= 0x20 && c <= 0x7E ? (char)c : 0;
}

bool hidden_reveal(struct strbuf *out, const char *s, size_t n, bool ascii)
{
	const char *open = ascii ? "<<" : "\xc2\xab";   /* « */
	const char *close = ascii ? ">>" : "\xc2\xbb";  /* » */
	int32_t prev = 0;
	size_t i = 0;
	while (i < n) {
		size_t j = first_non_ascii(s, n, i);
		if (j > i) {
			if (!sb_append(out, s + i, j - i))
				return false;
			prev = (unsigned char)s[j - 1];
			i = j;
			continue;
		}
		size_t len, next_len;
		int32_t cp = peek(s, n, i, &len);
		int32_t next = peek(s, n, i + len, &next_len);
		enum hidden_class c = hidden_classify(prev, cp, next);
		if (c == HIDDEN_NONE) {
			if (!sb_append(out, s + i, len))
				return false;
		} else if (c == HIDDEN_TAG) {
			/* The whole run of tag characters, decoded. */
			sb_puts(out, open);
			sb_puts(out, "TAG: ");
			while (i < n && utf8_is_tag(cp)) {
				char a = tag_ascii(cp);
				if (a)
					sb_putc(out, a);
				i += len;
				cp = peek(s, n, i, &len);
			}
			if (!sb_puts(out, close))
				return false;
			prev = 0xE007F;
			continue;
		} else {
			/* A run of the same character shows once, with a count. */
			size_t times = 1;
			while (i + len * (times + 1) <= n && memcmp(s + i, s + i + len * times, len) == 0)
				times++;
			char buf[12];
			sb_puts(out, open);
			sb_puts(out, hidden_name(cp, buf));
			if (times > 1)
				sb_printf(out, ascii ? "x%zu" : "\xc3\x97%zu", times); /* × */
			if (!sb_puts(out, close))
				return false;
			len *= times;
		}
		prev = cp;
		i += len;
	}
	return !out->failed;
}

bool hidden_decode_tags(struct strbuf *out, const char *s, size_t n)
{
	bool in_run = false, any = false;
	size_t i = first_non_ascii(s, n, 0);
	while (i < n) {
		size_t len;
		int32_t cp = peek(s, n, i, &len);
		if (utf8_is_tag(cp)) {
			if (!in_run && any)
				sb_putc(out, ' ');
			in_run = any = true;
			char a = tag_ascii(cp);
			if (a)
				sb_putc(out, a);
			i += len;
			continue;
		}
		in_run = false;
		i = (unsigned char)s[i] < 0x80 ? first_non_ascii(s, n, i) : i + len;
	}
	return !out->failed;
}

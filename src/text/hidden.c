/* hidden.c: finding and revealing hidden text (see hidden.h). */
#include "text/hidden.h"

#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
	if (utf8_is_variation_selector(cp))
		return utf8_is_variation_selector(prev) || utf8_is_variation_selector(next) ? HIDDEN_VARIATION
											     : HIDDEN_NONE;
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
	case 0x115F: return "HCF";
	case 0x1160: return "HJF";
	case 0x3164: return "HF";
	case 0xFFA0: return "HWHF";
	case 0x17B4: return "KIVAQ";
	case 0x17B5: return "KIVAA";
	case 0x2028: return "LSEP";
	case 0x2029: return "PSEP";
	case 0x180F: return "FVS4";
	default: break;
	}
	if (cp >= 0x180B && cp <= 0x180D)
		snprintf(buf, 12, "FVS%d", (int)(cp - 0x180B + 1));
	else if (cp >= 0xFE00 && cp <= 0xFE0F)
		snprintf(buf, 12, "VS%d", (int)(cp - 0xFE00 + 1));
	else if (cp >= 0xE0100 && cp <= 0xE01EF)
		snprintf(buf, 12, "VS%d", (int)(cp - 0xE0100 + 17));
	else
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
			const char *nl = out ? memchr(s + i, '\n', j - i) : NULL; /* lines only for a summary */
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
		int32_t next = cp == 0x200D || utf8_is_variation_selector(cp) ? peek(s, n, i + len, &next_len) : 0;
		enum hidden_class c = hidden_classify(prev, cp, next);
		if (c != HIDDEN_NONE) {
			if (!out)
				return true; /* the answer is known: no summary asked for */
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

/* The byte a variation selector encodes (U+FE00..FE0F: 0..15,
 * U+E0100..E01EF: 16..255), or -1 (the Mongolian ones encode none). */
static int selector_byte(int32_t cp)
{
	if (cp >= 0xFE00 && cp <= 0xFE0F)
		return (int)(cp - 0xFE00);
	if (cp >= 0xE0100 && cp <= 0xE01EF)
		return (int)(cp - 0xE0100 + 16);
	return -1;
}

/* Appends the decoded run of tag characters (tags) or of byte-encoding
 * variation selectors starting at s[*i], as «TAG: text» or «VS: text»;
 * moves *i past it. */
static void reveal_run(struct strbuf *out, const char *s, size_t n, size_t *i, bool tags, const char *open,
		       const char *close)
{
	sb_puts(out, open);
	sb_puts(out, tags ? "TAG: " : "VS: ");
	size_t len;
	int32_t cp = peek(s, n, *i, &len);
	while (*i < n && (tags ? utf8_is_tag(cp) : selector_byte(cp) >= 0)) {
		int b = tags ? tag_ascii(cp) : selector_byte(cp);
		if (b || !tags)
			sb_putc(out, (char)b);
		*i += len;
		cp = peek(s, n, *i, &len);
	}
	sb_puts(out, close);
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
		} else if (c == HIDDEN_TAG || (c == HIDDEN_VARIATION && selector_byte(cp) >= 0)) {
			/* The whole run, decoded. */
			reveal_run(out, s, n, &i, c == HIDDEN_TAG, open, close);
			if (out->failed)
				return false;
			prev = c == HIDDEN_TAG ? 0xE007F : 0xFE00;
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

static bool run_char(int32_t cp, bool tags)
{
	return tags ? utf8_is_tag(cp) : selector_byte(cp) >= 0;
}

/* The text that runs of tag characters (tags) or of variation selectors
 * encode, runs joined with a space. A lone selector (an emoji's U+FE0F) is
 * no run. */
static bool decode_runs(struct strbuf *out, const char *s, size_t n, bool tags)
{
	bool any = false;
	size_t i = first_non_ascii(s, n, 0);
	while (i < n) {
		size_t len, end = i, count = 0;
		if (!run_char(peek(s, n, i, &len), tags)) {
			i = (unsigned char)s[i] < 0x80 ? first_non_ascii(s, n, i) : i + len;
			continue;
		}
		while (end < n && run_char(peek(s, n, end, &len), tags)) {
			end += len;
			count++;
		}
		if (count < (tags ? 1u : 2u)) {
			i = end;
			continue;
		}
		if (any)
			sb_putc(out, ' ');
		any = true;
		for (; i < end; i += len) {
			int32_t cp = peek(s, n, i, &len);
			int b = tags ? tag_ascii(cp) : selector_byte(cp);
			if (b || !tags)
				sb_putc(out, (char)b);
		}
	}
	return !out->failed;
}

bool hidden_decode_tags(struct strbuf *out, const char *s, size_t n)
{
	return decode_runs(out, s, n, true);
}

bool hidden_decode_selectors(struct strbuf *out, const char *s, size_t n)
{
	return decode_runs(out, s, n, false);
}

/* Up to the first byte >= 0x80, sixteen bytes at a time: the newlines are
 * counted on the way; from there on the three counts' own code runs (a
 * character there may need the one before it, hidden_classify's prev, so
 * hidden_scan starts one ASCII byte early). */
void hidden_measure(const char *s, size_t n, struct text_measure *out)
{
	size_t i = 0, newlines = 0, first = n;
#ifdef __SSE2__
	/* per byte lane, newlines seen (at most 255: summed every 255 steps) */
	const __m128i lf = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	__m128i lanes = zero;
	for (unsigned steps = 0; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned high = (unsigned)_mm_movemask_epi8(v);
		if (high) {
			first = i + (size_t)__builtin_ctz(high);
			break;
		}
		lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, lf));
		if (++steps == 255) {
			__m128i sum = _mm_sad_epu8(lanes, zero);
			newlines += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sum, 8));
			lanes = zero;
			steps = 0;
		}
	}
	__m128i sum = _mm_sad_epu8(lanes, zero);
	newlines += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sum, 8));
#endif
	for (; first == n && i < n; i++) {
		if ((unsigned char)s[i] >= 0x80) {
			first = i;
			break;
		}
		newlines += s[i] == '\n';
	}
	if (first == n) {
		out->code_points = n;
		out->lines = newlines + (n > 0 && s[n - 1] != '\n');
		out->hidden = false;
		return;
	}
	/* i <= first < n, and the newlines before i are counted */
	out->lines = newlines + utf8_count_lines(s + i, n - i);
	out->code_points = first + utf8_count_code_points(s + first, n - first);
	size_t from = first ? first - 1 : 0;
	out->hidden = hidden_scan(s + from, n - from, NULL);
}

/* fuzz_sanitize.c: the display boundary. The first byte picks utf8_sanitize
 * flags and a column count; the rest is text. The sanitized output must be
 * valid UTF-8 with no C0 (but kept \n, \t), DEL, C1 or invisible character;
 * ASCII mode must give pure ASCII; utf8_fit must give exactly the columns
 * asked (when padding) as utf8_columns measures them; a revealed text
 * (hidden.h) must hold no hidden character any more. */
#include "text/hidden.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_safe(const struct strbuf *sb, unsigned flags)
{
	const char *s = sb_str(sb);
	size_t i = 0;
	while (i < sb->len) {
		int32_t cp;
		size_t len = utf8_decode(s + i, sb->len - i, &cp);
		if (cp == UTF8_INVALID)
			abort();
		if ((flags & UTF8_ASCII) && cp >= 0x80)
			abort();
		bool kept = (cp == '\n' && (flags & UTF8_KEEP_NEWLINES) && !(flags & UTF8_ONE_LINE)) ||
			    (cp == '\t' && (flags & UTF8_KEEP_TABS) && !(flags & UTF8_ONE_LINE));
		if (!kept && utf8_classify(cp) != UTF8_PRINTABLE)
			abort();
		i += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0] & 0x0F;
	size_t columns = data[0] >> 4 ? (size_t)(data[0] >> 4) * 5 : 1;
	/* An exact-size copy: a read past the end is a heap overflow. */
	char *s = malloc(size - 1 ? size - 1 : 1);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	size_t n = size - 1;

	struct strbuf out = STRBUF_INIT;
	if (utf8_sanitize(&out, s, n, flags))
		check_safe(&out, flags);
	sb_reset(&out);
	if (utf8_fit(&out, s, n, columns, flags, true)) {
		check_safe(&out, flags);
		if (!(flags & (UTF8_KEEP_NEWLINES | UTF8_KEEP_TABS)) && utf8_columns(sb_str(&out), out.len) != columns)
			abort();
	}
	sb_reset(&out);
	if (utf8_fit(&out, s, n, columns, flags, false) && !(flags & (UTF8_KEEP_NEWLINES | UTF8_KEEP_TABS)) &&
	    utf8_columns(sb_str(&out), out.len) > columns)
		abort();
	sb_reset(&out);
	if (hidden_reveal(&out, s, n, flags & UTF8_ASCII)) {
		if (hidden_scan(sb_str(&out), out.len, NULL))
			abort();
		struct strbuf safe = STRBUF_INIT;
		if (utf8_sanitize(&safe, sb_str(&out), out.len, flags))
			check_safe(&safe, flags);
		sb_fini(&safe);
	}
	sb_reset(&out);
	hidden_decode_tags(&out, s, n);
	for (size_t i = 0; i < out.len; i++)
		if ((unsigned char)out.data[i] < 0x20 || (unsigned char)out.data[i] >= 0x7F)
			abort();
	sb_fini(&out);
	free(s);
	return 0;
}

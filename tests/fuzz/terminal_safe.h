/* tests/fuzz/terminal_safe.h: the harnesses' check of text meant for a
 * terminal: only \n and \t below 0x20, no DEL, no C1 (abort otherwise, so
 * libFuzzer keeps the input). */
#ifndef CTXSCOPE_FUZZ_TERMINAL_SAFE_H
#define CTXSCOPE_FUZZ_TERMINAL_SAFE_H

#include "base/strbuf.h"

#include <stdlib.h>

static inline void check_terminal_safe(const struct strbuf *sb)
{
	const unsigned char *s = (const unsigned char *)sb_str(sb);
	for (size_t i = 0; i < sb->len; i++) {
		if ((s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') || s[i] == 0x7F)
			abort();
		if (s[i] == 0xC2 && i + 1 < sb->len && s[i + 1] >= 0x80 && s[i + 1] < 0xA0)
			abort();
	}
}

#endif

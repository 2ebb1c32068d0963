/* count.h: `ctxscope count [--tokenizer NAME|PATH] [--format text|json] FILE...`:
 * per file (`-`: standard input, once) the token count (tokenizer.h,
 * o200k_base by default; exact, or approximate for claude, marked `≈`), the
 * systems' estimate (tokens/estimate.h) and their ratio; in JSON a list of
 * {path, tokens, tokenizer, kind: exact|approximate, estimate}. Parses its
 * own arguments (argv[0] is "count"). */
#ifndef CTXSCOPE_COUNT_H
#define CTXSCOPE_COUNT_H

#include "base/error.h"

#include <stdbool.h>

struct strbuf;

/* Writes the counts into out (ascii: `~` for `≈`, the terminal is not UTF-8). CS_EUSAGE for bad arguments, CS_EIO for a file
 * or a rank file that cannot be read, CS_ENOMEM. Nothing is written to out
 * on failure. */
int count_command(int argc, char **argv, bool ascii, struct strbuf *out, struct cs_error *err);

#endif

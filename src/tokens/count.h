/* count.h: `ctxscope count [--tokenizer NAME|PATH] [--format text|json] FILE...`:
 * per file the exact token count (tokenizer.h, o200k_base by default), the
 * systems' estimate (tokens/estimate.h) and their ratio; in JSON a list of
 * {path, tokens, estimate}. Parses its own arguments (argv[0] is "count"). */
#ifndef CTXSCOPE_COUNT_H
#define CTXSCOPE_COUNT_H

#include "base/error.h"

struct strbuf;

/* Writes the counts into out. CS_EUSAGE for bad arguments, CS_EIO for a file
 * or a rank file that cannot be read, CS_ENOMEM. Nothing is written to out
 * on failure. */
int count_command(int argc, char **argv, struct strbuf *out, struct cs_error *err);

#endif

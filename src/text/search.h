/* search.h: regular-expression search (pcre2) over an assembly, for the
 * inspector's `/` (find, n / N) and `\` (filter the piece list, `!` to
 * invert). A pattern is compiled once (search_pattern_compile) and run over
 * the rendered prompt, block by block, and over every piece's label and
 * text (search_run), or used as a predicate over pieces (search_filter).
 *
 * Matching: UTF mode with Unicode properties (\w, \d and case folding know
 * non-ASCII letters). Invalid UTF-8 in an input never makes a search fail:
 * each text is split once into runs of valid UTF-8 (utf8.h's strict
 * decoding), matched run by run with PCRE2_NO_UTF_CHECK, so an invalid byte
 * never matches and no match spans one (PCRE2_MATCH_INVALID_UTF's meaning,
 * without its check of the whole rest of the text at every call, which made
 * a search of `a` over 120 KB of a's take seconds). Smart case: case-insensitive unless the
 * pattern holds an upper-case letter outside an escape (`\W`, `\p{Lu}`, `\x{41}`
 * are not capitals; `Ä` is), as in ripgrep and vim; `(?i)` / `(?-i)` inside
 * the pattern still win. Empty matches are not hits (an empty pattern finds
 * nothing): a highlight of zero columns shows nothing.
 *
 * Cost: every pcre2_match call runs under a match limit and a depth limit,
 * so a pattern such as (a+)+$ on "aaaa...b" stops with CS_ELIMIT ("pattern
 * too costly") in milliseconds instead of hanging the UI; and a whole search
 * stops the same way past SEARCH_TIME_LIMIT_MS of matching (checked between
 * pcre2_match calls, on the monotonic clock), for patterns that stay just
 * under the limits but are run over many pieces.
 *
 * The prompt is searched block by block: a match cannot span two blocks, and
 * a messages array's role headers are not text (they are not in the
 * blocks).
 *
 * Errors are values: a pattern that does not compile is CS_EUSAGE with
 * pcre2's own message, err->column the 1-based character of the pattern
 * where it fails (and *offset_bytes the byte offset); too costly is
 * CS_ELIMIT; out of memory CS_ENOMEM (pcre2 allocates through alloc.h). */
#ifndef CTXSCOPE_SEARCH_H
#define CTXSCOPE_SEARCH_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct assembly;
struct source;
struct strbuf;

#define SEARCH_MATCH_LIMIT 1000000L /* backtracking steps per pcre2_match call: ~10 ms; a
                                       catastrophic pattern stops here, not after years */
#define SEARCH_DEPTH_LIMIT 10000U   /* backtracking depth (KiB of heap in pcre2 10.30+) */
#define SEARCH_TIME_LIMIT_MS 1500L /* a whole search_run / search_filter: each call is bounded
                                      by the match limit (~30 ms), but a pattern costly just
                                      under it, run over thousands of pieces, would add up */
#define SEARCH_MAX_HITS 100000      /* hits kept in each scope (prompt, pieces); past it that
                                       scope's counts stop and `capped` is set (a pattern like
                                       `.` on a large prompt) */

struct search_pattern; /* opaque: the compiled pattern and its pcre2 contexts */

/* Compiles `pattern` (NUL-terminated, UTF-8) into *out (free with
 * search_pattern_free). CS_OK; CS_EUSAGE with pcre2's message when it does
 * not compile (err->column: the character, 1-based; *offset_bytes, which may
 * be NULL: the byte offset in the pattern); CS_ENOMEM. *out is NULL on error. */
int search_pattern_compile(const char *pattern, struct search_pattern **out, size_t *offset_bytes,
			   struct cs_error *err);
/* NULL-safe. */
void search_pattern_free(struct search_pattern *p);
/* Whether smart case made the pattern case-insensitive. */
bool search_pattern_caseless(const struct search_pattern *p);
/* The pattern as given (borrowed from p). */
const char *search_pattern_text(const struct search_pattern *p);
/* Replaces SEARCH_TIME_LIMIT_MS for later searches with p (tests; a UI
 * that wants a shorter leash). 0: no time limit. */
void search_pattern_set_time_limit(struct search_pattern *p, long ms);
/* Whether a pattern would be case-insensitive under smart case: no upper-case
 * letter outside escapes. */
bool search_smart_caseless(const char *pattern);

/* Whether text[0..len) holds a (non-empty) match: *found. CS_OK, CS_ELIMIT
 * (too costly), CS_ENOMEM. */
int search_pattern_find(const struct search_pattern *p, const char *text, size_t len, bool *found,
			struct cs_error *err);

/* ---- search over an assembly ---------------------------------------------- */

enum search_target {
	SEARCH_BLOCK, /* a block's rendered text (the prompt view) */
	SEARCH_LABEL, /* a piece's label */
	SEARCH_TEXT,  /* a piece's full text */
};

enum search_scope {
	SEARCH_SCOPE_PROMPT, /* hits in blocks */
	SEARCH_SCOPE_PIECES, /* hits in labels and texts */
};

struct search_hit {
	enum search_target target;
	long index;   /* the block (SEARCH_BLOCK) or the piece */
	size_t start; /* byte offsets in that block's rendered text (asm_block_text), */
	size_t end;   /* the label or the piece's text; never inside a character */
	size_t key;   /* its place within its block or piece, for ordering: start, or for a
	                 piece's text, label bytes + 1 + start (the label comes first) */
};

struct search_result {
	struct search_hit *hits; /* owned: block hits in prompt order, then piece hits by piece
	                            (label before text), each by offset */
	size_t nhits, cap;
	size_t nprompt_hits;     /* hits[0 .. nprompt_hits) are SEARCH_BLOCK */
	long *block_hits;        /* owned: hits per block (nblocks of them) */
	size_t nblocks;
	long *piece_hits;        /* owned: hits per piece, label and text (npieces) */
	size_t npieces;
	long *piece_text_hits;   /* owned: hits per piece in its text only (npieces) */
	bool capped;             /* a scope stopped at SEARCH_MAX_HITS: counts are "at least" */
	size_t match_calls;      /* the work done: pcre2_match calls (a capped scope stops calling) */
};

/* Runs p over a's blocks and its source's pieces into *out (zeroed first;
 * free with search_result_fini, also after an error). CS_OK; CS_ELIMIT with
 * "pattern too costly" (out then holds no hits); CS_ENOMEM. */
int search_run(const struct search_pattern *p, const struct assembly *a, struct search_result *out,
	       struct cs_error *err);
/* Frees what r owns and zeroes it. NULL-safe. */
void search_result_fini(struct search_result *r);

/* n / N: the hit after (before, when backward) hit `current` among the hits
 * of the same scope, wrapping around. -1 when current is out of range. */
long search_step(const struct search_result *r, long current, bool backward);
/* The first hit of `scope` at or after (index, offset) (backward: the last at
 * or before), wrapping around: where n lands after the cursor moved. For
 * SEARCH_SCOPE_PIECES, offset counts in the label then on into the text
 * (label bytes + 1 + text offset); pass 0 for "from the start of the piece".
 * -1 when the scope has no hits. */
long search_from(const struct search_result *r, enum search_scope scope, long index, size_t offset,
		 bool backward);

/* The status line's count: "match 3 of 16 in the prompt (48 in pieces)",
 * "no match", "16 matches in the prompt, 48 in pieces" when current is -1;
 * "100,000+" for a capped scope. Appends to out; false on out of memory. */
bool search_describe(const struct search_result *r, long current, struct strbuf *out);

/* ---- filter --------------------------------------------------------------- */

/* The piece-list filter: keep[i] (npieces of them, caller's array) is
 * whether piece i's label or text matches, or does not when `invert`.
 * *kept (may be NULL) gets how many are kept. CS_OK, CS_ELIMIT (keep is then
 * all true: an unusable filter hides nothing), CS_ENOMEM. */
int search_filter(const struct search_pattern *p, const struct source *src, bool invert, bool *keep,
		  size_t *kept, struct cs_error *err);

#endif

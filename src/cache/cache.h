/* cache.h: prompt-cache analysis of an assembly: the cache profiles of the
 * providers (how entries form, minimum prefix, granularity, lookback, read
 * and write prices), where the breakpoints sit (the assembler's
 * BLOCK_BREAKPOINT flags plus the user's own), the first position where an
 * assembly's rendered prompt differs from a baseline's, and what the
 * difference costs: tokens read from the cache, written to it, and sent
 * uncached, at the profile's multipliers. Lints (cache/lint.c) catch the
 * classic cache-breakers. Works on any kind, by blocks, messages and flags.
 *
 * Comparison serialization: a document is its blocks' text, one after
 * another. A messages array is, per message, its role, a U+001E separator,
 * then its blocks' text, then U+001E; so a changed role, or a message split
 * in two, is a difference even when the concatenated text is not. A
 * position is reported in estimated tokens of the current assembly:
 * the diverging block's offset_tokens plus floor(code points of that block
 * before the first differing character / chars_per_token); a difference in
 * a role header is at the offset of the message's first block.
 *
 * Baseline: any assembly can be one. To re-pin it (the UI's `b`), keep the
 * assembly you want and compare later ones with it: an assembly borrows its
 * source, whose text edits never change, so it stays valid until its source
 * is freed. The baseline's own breakpoints (not the user's later overrides)
 * decide what it had cached. */
#ifndef CTXSCOPE_CACHE_H
#define CTXSCOPE_CACHE_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct assembly;
struct source;

#define CACHE_NAME_MAX 32    /* profile names: short identifiers */
#define CACHE_TEXT_MAX 160   /* source URL or note, as_of date */
#define CACHE_MAX_PROFILES 32 /* built-ins plus what a user file adds */

enum cache_mode {
	CACHE_EXPLICIT, /* entries only at marked breakpoints (anthropic) */
	CACHE_PREFIX,   /* automatic: the whole prompt's prefix, in units */
};

struct cache_profile {
	char name[CACHE_NAME_MAX];
	enum cache_mode mode;
	int max_breakpoints;    /* explicit: at most this many (0: no limit) */
	long min_prefix;        /* tokens: a shorter prefix never caches */
	long unit;              /* tokens a prefix cache stores in (1: any length) */
	long lookback;          /* explicit: blocks a read looks back from a breakpoint (0: no limit) */
	double read;            /* price of a cached token read, times the base input price */
	double write;           /* price of a token written to the cache, times the base (1: no premium) */
	double price_per_mtok;  /* base input price per million tokens; < 0 when unknown */
	bool exact;             /* the provider's tokenizer is public (OpenAI): priced in exact
	                           counts when there are some (cache_measure) */
	char source[CACHE_TEXT_MAX];
	char as_of[CACHE_TEXT_MAX];
};

/* The built-in profiles (anthropic, openai, gemini, deepseek, vllm), in that
 * order; *n gets their count. Static, read-only. */
const struct cache_profile *cache_builtin_profiles(size_t *n);
/* The profile a cache analysis of src's prompt runs under: p with the
 * figures of the model the prompt goes to (kind_ops.cache_tune) written into
 * *tuned, or p itself when the kind has none for it. *model (when model is
 * not NULL) gets that model's name, NULL when p is used as it is. */
const struct cache_profile *cache_tuned_profile(const struct source *src, const struct cache_profile *p,
						struct cache_profile *tuned, const char **model);
/* "explicit" or "prefix". */
const char *cache_mode_name(enum cache_mode mode);

/* ---- breakpoints ----------------------------------------------------------- */

/* The user's own breakpoint changes, keyed by piece id (or by block index
 * for blocks the assembler made), so they survive re-assembly. Owns its
 * strings. Zero-initialize, or cache_overrides_init; free with _fini. */
struct cache_override {
	char *piece_id;   /* owned; NULL when keyed by block */
	long block;       /* for made blocks; -1 when keyed by piece */
	bool on;          /* true: a breakpoint after it; false: none */
};
struct cache_overrides {
	struct cache_override *items;
	size_t n, cap;
};
void cache_overrides_init(struct cache_overrides *o);
void cache_overrides_fini(struct cache_overrides *o);
/* Sets (on) or removes (!on) a breakpoint after block `block` of a,
 * whatever the assembler decided. CS_EUSAGE when block is out of range,
 * CS_ENOMEM. */
int cache_overrides_set(struct cache_overrides *o, const struct assembly *a, size_t block, bool on,
			struct cs_error *err);
/* Flips the breakpoint after block `block` (the UI's toggle). */
int cache_overrides_toggle(struct cache_overrides *o, const struct assembly *a, size_t block,
			   struct cs_error *err);
/* Whether a breakpoint sits after block b: the user's override, else the
 * assembler's BLOCK_BREAKPOINT. o may be NULL. */
bool cache_is_breakpoint(const struct cache_overrides *o, const struct assembly *a, size_t b);

struct cache_breakpoint {
	size_t block;       /* the block it follows */
	long end_tokens;    /* the prefix it closes: block offset + tokens */
	bool in_limit;      /* among the first max_breakpoints (explicit) */
	bool over_min;      /* end_tokens >= min_prefix */
	long gap_blocks;    /* blocks since the previous breakpoint (or the start) */
	bool can_cache;     /* an entry forms here under the profile */
	bool user;          /* set or moved by the user */
};

/* ---- analysis ------------------------------------------------------------- */

/* Where two prompts first differ. */
struct cache_divergence {
	bool identical;       /* same serialization */
	long tokens;          /* identical prefix, in tokens of the current assembly */
	long base_tokens;     /* the same position in the baseline's tokens */
	long block;           /* current block where it differs; -1 when identical or past the end */
	long base_block;      /* baseline block where it differs; -1 likewise */
	long message;         /* current message (messages shape); -1 for documents */
};

/* What one request costs against a cache that holds the baseline's entries.
 * Token figures are estimates; cost is in base-price tokens (a token sent
 * uncached costs 1). */
struct cache_cost {
	long total;           /* prompt tokens */
	long read;            /* read from the cache */
	long written;         /* written to the cache by this request */
	long rewritten;       /* of written: tokens the baseline had cached (lost, then paid again) */
	long uncached;        /* sent without cache: total - read - written */
	long lost;            /* baseline-cached tokens this request cannot read */
	double cost;          /* read*read + written*write + uncached, in base tokens */
};

struct cache_analysis {
	const struct cache_profile *profile;  /* borrowed */
	struct cache_breakpoint *bps;         /* owned (cs_malloc), in prompt order */
	size_t nbps;
	size_t nbase_bps;
	struct cache_breakpoint *base_bps;    /* the baseline's, owned */
	struct cache_divergence div;
	struct cache_cost now;                /* this assembly after the baseline */
	struct cache_cost steady;             /* the baseline repeated on its own warm cache */
	double delta;                         /* now.cost - steady.cost, base tokens */
	bool exact;                           /* the token figures are exact counts (cache_measure) */
	/* what base_bps were found from, for cache_analyze_again: the baseline's
	 * serial (0: not to be kept) and the profile's figures they depend on */
	unsigned long base_serial;
	enum cache_mode base_mode;
	int base_max_breakpoints;
	long base_min_prefix;
};

/* Exact counts in place of the estimate (ctxscope-formats(5) §8): for a profile
 * whose provider has a public tokenizer (cache_profile.exact), its minimum
 * and steps are in real tokens. Per block of each assembly, and each whole
 * prompt; a position inside a block is its count in proportion. */
struct cache_measure {
	const long *now_blocks, *base_blocks;
	long now_total, base_total;
};

/* Finds the breakpoints of `a` under profile p (user overrides o may be
 * NULL) into *out (cs_malloc'd, caller frees with cs_free; NULL when none)
 * and their count. CS_OK or CS_ENOMEM. */
int cache_breakpoints(const struct assembly *a, const struct cache_overrides *o, const struct cache_profile *p,
		      struct cache_breakpoint **out, size_t *n, struct cs_error *err);

/* Where `now` first differs from `base` (both borrowed), compared span by
 * span without building either prompt. */
void cache_diverge(const struct assembly *base, const struct assembly *now, struct cache_divergence *out);

/* The tokens a prefix cache under p stores of a prefix of `tokens`:
 * floor(tokens / unit) * unit, or 0 below min_prefix. */
long cache_storable(const struct cache_profile *p, long tokens);

/* Analyses `now` against `base` (may be the same assembly: a warm repeat)
 * under p. Overrides apply to now (o_now) and to the baseline (o_base);
 * both may be NULL. Fills an (free with cache_analysis_fini). CS_OK or
 * CS_ENOMEM. */
int cache_analyze(const struct assembly *base, const struct cache_overrides *o_base, const struct assembly *now,
		  const struct cache_overrides *o_now, const struct cache_profile *p, struct cache_analysis *an,
		  struct cs_error *err);
/* cache_analyze in the tokens of m (NULL: the estimate, as cache_analyze). */
int cache_analyze_measured(const struct assembly *base, const struct cache_overrides *o_base,
			   const struct assembly *now, const struct cache_overrides *o_now, const struct cache_profile *p,
			   const struct cache_measure *m, struct cache_analysis *an, struct cs_error *err);
/* cache_analyze_measured in place of the analysis an holds (the one before,
 * or zeroed): the baseline's breakpoints are kept from it when they were
 * found in the same baseline assembly (its serial) under the same figures,
 * in estimated tokens and without overrides on the baseline; else found
 * again. The inspector's analysis after each edit, whose baseline rarely
 * changes: a walk of every block of the baseline saved. */
int cache_analyze_again(const struct assembly *base, const struct cache_overrides *o_base,
			const struct assembly *now, const struct cache_overrides *o_now, const struct cache_profile *p,
			const struct cache_measure *m, struct cache_analysis *an, struct cs_error *err);
void cache_analysis_fini(struct cache_analysis *an);

/* ---- lints (cache/lint.c) ------------------------------------------------- */

enum cache_lint_kind {
	LINT_OVER_LIMIT,   /* more breakpoints than the profile allows */
	LINT_UNDER_MIN,    /* a breakpoint whose prefix is under the minimum */
	LINT_LOOKBACK,     /* a breakpoint further than the lookback from the previous one */
	LINT_VOLATILE,     /* volatile text inside a cached layer */
	LINT_ORDER,        /* a frequently edited piece before stable ones */
};

struct cache_lint {
	enum cache_lint_kind kind;
	long block;          /* the block it points at */
	long piece;          /* its piece, -1 for made text */
	char *sentence;      /* owned (cs_malloc) */
};

/* A user pattern: name and PCRE2 source, both owned by whoever made it. */
struct cache_pattern {
	const char *name;
	const char *pattern;
};

struct cache_lints {
	struct cache_lint *items; /* owned */
	size_t n, cap;
};

/* "over-limit", "under-minimum", "lookback", "volatile", "order". */
const char *cache_lint_code(enum cache_lint_kind k);

/* Runs every lint on an analysed assembly: the breakpoints in an, the text of
 * a. extra (may be NULL, NULL-name terminated) adds patterns; a pattern that
 * does not compile is CS_EUSAGE naming it. Fills out (free with
 * cache_lints_fini). */
int cache_lint(const struct assembly *a, const struct cache_analysis *an, const struct cache_pattern *extra,
	       struct cache_lints *out, struct cs_error *err);
void cache_lints_fini(struct cache_lints *l);
/* Whether a pattern compiles: CS_OK, or CS_EUSAGE with a sentence naming it
 * and where it fails; CS_ENOMEM. */
int cache_pattern_check(const char *name, const char *pattern, struct cs_error *err);

#endif

/* models.h: model context limits and prices (ctxscope-formats(5) section 5): seed
 * 001's table, which the seeds' assemblies keep using as they do, and the
 * built-in model table every other kind judges by. A "provider:" prefix
 * and a -YYYYMMDD date suffix are stripped before a lookup; an unknown
 * model gets the seed's fallback of 128000 tokens (an unknown claude-*
 * model 200000 in model_limit). */
#ifndef CTXSCOPE_MODELS_H
#define CTXSCOPE_MODELS_H

#include <stdbool.h>

#define MODELS_FALLBACK_LIMIT 128000L

/* The context limit of model `ref` ("anthropic:claude-sonnet-4-20250514").
 * *known (may be NULL) says whether the table had it. */
long model_context_limit(const char *ref, bool *known);

/* The table's base name of ref (prefix and date suffix stripped) into buf. */
void model_base_name(const char *ref, char *buf, unsigned long n);

/* ---- the built-in model table (ctxscope-formats(5) section 5) -------------------
 * Every current Claude, GPT, o-series and Gemini id with its context
 * window, smallest cacheable prefix and prices, each row with where its
 * figures come from and when. The request kinds and Claude Code sessions
 * judge a prompt by it; the seeds' own assemblies keep their table above. */
struct model_info {
	const char *name;      /* base name: "claude-sonnet-4-5" (a provider: prefix and -YYYYMMDD stripped) */
	const char *provider;  /* "anthropic", "openai", "google" */
	long limit;            /* context window, tokens */
	long cache_min;        /* smallest prefix a cache keeps, tokens; 0 not known */
	double input, output;  /* USD per million tokens; < 0 not known */
	double cache_read;     /* USD per million tokens read from the cache; < 0 not known */
	double write_5m, write_1h; /* USD per million tokens written (5-minute, 1-hour entries); < 0 none or not known */
	const char *source;
	const char *as_of;
};

/* The row for ref ("anthropic:claude-sonnet-4-5-20250929", "gpt-4.1-mini"):
 * its base name, or the longest row name it starts with at a '-' boundary
 * not followed by a digit ("claude-opus-4" is not "claude-opus-4-5"); NULL
 * when none. */
const struct model_info *model_lookup(const char *ref);
/* The rows, for listings and tests; *n gets their count. */
const struct model_info *model_table(unsigned long *n);

#define MODELS_CLAUDE_FALLBACK 200000L /* every Claude model has at least this window */

/* The window to judge ref's prompts by: the table's; an unknown claude-*
 * id, 200,000 (*fallback says so); another unknown one, the seeds'
 * 128,000 fallback (*fallback too). fallback may be NULL. */
long model_limit(const char *ref, bool *fallback);

/* Whether the API sends, and charges as input, the thinking blocks of a
 * turn before the last user turn (one that is not only tool results) to
 * model ref (caching.md section 1): Opus 4.5 and later, Sonnet 4.6 and
 * later, Fable and Mythos keep them; older Opus and Sonnet and every Haiku
 * strip them. A name of no Claude family, or of one without a version,
 * is taken as sent (true). The Claude Code and request kinds both ask it. */
bool model_keeps_prior_thinking(const char *ref);

#endif

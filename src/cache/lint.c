/* cache/lint.c: the classic prompt-cache breakers, each pointing at a block
 * with a sentence:
 *   over-limit     more breakpoints than the profile allows (anthropic: 4);
 *   under-minimum  explicit caches: a breakpoint whose prefix is under the
 *                  profile's minimum: it silently never caches; automatic
 *                  prefix caches: the whole prompt is under the minimum;
 *   lookback       a breakpoint more than `lookback` blocks after the previous
 *                  one: an entry further back is not found;
 *   volatile       text that changes between requests (timestamps, dates,
 *                  UUIDs, long hex ids, epoch times, counters) in a block at
 *                  or before the last breakpoint, i.e. inside a cached layer;
 *   order          a frequently edited piece placed before stable ones, for
 *                  pieces that have a priority (their order is the user's to
 *                  change). "Frequently edited": its text matches a volatile
 *                  pattern, or its id looks like a log or tool output
 *                  (*.log, *.out, logs/, tmp/, output/, stdout, stderr, trace).
 * Patterns are PCRE2 with a match limit and a depth limit, so a user pattern
 * that backtracks badly gives up instead of hanging. A match that straddles
 * two blocks is not seen (each block is matched alone). */
#include "cache/cache.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdio.h>
#include <string.h>

#define LINT_MATCH_LIMIT 1000000 /* backtracking steps per match: bounds a bad user pattern */
#define LINT_DEPTH_LIMIT 10000   /* backtracking depth (KiB of heap for pcre2 10.30+) */
#define LINT_QUOTE_BYTES 48      /* of the matched text quoted in a sentence */
#define LINT_MAX_VOLATILE 8      /* volatile lints listed one by one; a long history with a
                                    timestamp per message gets one summary for the rest */

static const struct cache_pattern builtin_patterns[] = {
	{ "timestamp", "\\b\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:Z|[+-]\\d{2}:?\\d{2})?" },
	{ "date", "\\b(?:19|20)\\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])\\b" },
	{ "time", "\\b(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d\\b" },
	{ "uuid", "\\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\\b" },
	{ "hex-id", "\\b(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*[0-9])[0-9a-fA-F]{16,}\\b" },
	{ "epoch", "\\b1[6-9]\\d{8}(?:\\d{3})?\\b" },
	{ "counter", "(?i)\\b(?:turn|request|req|attempt|iteration|retry|build|run|job|seq)\\s*(?:#|no\\.)\\s*\\d+"
		     "|\\b(?:turn|job|run|build|request_id|req_id|seq)=\\d+" },
	{ NULL, NULL },
};

/* Ids that look like logs or tool output. */
static const char LOG_ID_PATTERN[] =
	"(?i)(?:\\.(?:log|out|err|trace)$|(?:^|/)(?:logs?|tmp|out|output)/|stdout|stderr|tool[-_]?output)";

const char *cache_lint_code(enum cache_lint_kind k)
{
	switch (k) {
	case LINT_OVER_LIMIT:
		return "over-limit";
	case LINT_UNDER_MIN:
		return "under-minimum";
	case LINT_LOOKBACK:
		return "lookback";
	case LINT_VOLATILE:
		return "volatile";
	case LINT_ORDER:
		return "order";
	}
	return "";
}

void cache_lints_fini(struct cache_lints *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		cs_free(l->items[i].sentence);
	cs_free(l->items);
	memset(l, 0, sizeof *l);
}

static int add_lint(struct cache_lints *l, const struct assembly *a, enum cache_lint_kind kind, size_t block,
		    struct strbuf *sentence, struct cs_error *err)
{
	if (sentence->failed)
		return cs_error_nomem(err);
	if (CS_GROW(l->items, l->cap, l->n + 1) != 0)
		return cs_error_nomem(err);
	char *text = cs_strdup(sb_str(sentence));
	if (!text)
		return cs_error_nomem(err);
	l->items[l->n++] = (struct cache_lint){ .kind = kind, .block = (long)block, .piece = a->blocks[block].piece,
						 .sentence = text };
	sb_reset(sentence);
	return CS_OK;
}

/* What a block is called in a sentence: its piece id, or its label. */
static void block_name(struct strbuf *out, const struct assembly *a, size_t b)
{
	const struct block *blk = &a->blocks[b];
	if (blk->piece >= 0)
		sb_puts(out, piece_name(&a->src->pieces[blk->piece])); /* as the list names it */
	else
		sb_printf(out, "%s (block %zu)", blk->label ? blk->label : "assembler text", b);
}

struct regex {
	const char *name;
	pcre2_code *code;
};

struct matcher {
	struct regex *re;
	size_t n;
	pcre2_code *log_id;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	pcre2_general_context *gc;
	bool nomem;   /* a match ran out of memory (sticky) */
};

/* JIT-compiled patterns run many times faster over a long prompt; a JIT
 * match that hits its own limits (they count differently) is run again by
 * the interpreter, so every answer is the interpreter's. */
static int match(struct matcher *m, const pcre2_code *code, const char *text, size_t len)
{
	int rc = pcre2_match(code, (PCRE2_SPTR)text, len, 0, 0, m->md, m->mc);
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
		rc = pcre2_match(code, (PCRE2_SPTR)text, len, 0, PCRE2_NO_JIT, m->md, m->mc);
	if (rc == PCRE2_ERROR_NOMEMORY || rc == PCRE2_ERROR_HEAP_FAILED)
		m->nomem = true;
	return rc;
}

static void matcher_fini(struct matcher *m)
{
	for (size_t i = 0; i < m->n; i++)
		pcre2_code_free(m->re[i].code);
	cs_free(m->re);
	pcre2_code_free(m->log_id);
	pcre2_match_data_free(m->md);
	pcre2_match_context_free(m->mc);
	pcre2_general_context_free(m->gc);
	memset(m, 0, sizeof *m);
}

static int compile(struct matcher *m, const char *name, const char *pattern, pcre2_code **out, struct cs_error *err)
{
	pcre2_compile_context *cc = pcre2_compile_context_create(m->gc);
	if (!cc)
		return cs_error_nomem(err);
	int code;
	PCRE2_SIZE offset;
	*out = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code,
			     &offset, cc);
	pcre2_compile_context_free(cc);
	if (*out) {
		(void)pcre2_jit_compile(*out, PCRE2_JIT_COMPLETE); /* without it (no JIT, no memory): the interpreter */
		return CS_OK;
	}
	if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAP_FAILED)
		return cs_error_nomem(err);
	PCRE2_UCHAR msg[256];
	pcre2_get_error_message(code, msg, sizeof msg);
	return cs_error_set(err, CS_EUSAGE, "volatile pattern \"%s\" does not compile at offset %zu: %s", name,
			    (size_t)offset, (const char *)msg);
}

static int matcher_init(struct matcher *m, const struct cache_pattern *extra, struct cs_error *err)
{
	memset(m, 0, sizeof *m);
	m->gc = pcre2_general_context_create(cs_pcre2_malloc, cs_pcre2_free, NULL);
	if (!m->gc)
		return cs_error_nomem(err);
	m->mc = pcre2_match_context_create(m->gc);
	m->md = pcre2_match_data_create(1, m->gc);
	if (!m->mc || !m->md)
		return cs_error_nomem(err);
	pcre2_set_match_limit(m->mc, LINT_MATCH_LIMIT);
	pcre2_set_depth_limit(m->mc, LINT_DEPTH_LIMIT);
	size_t total = 0;
	for (const struct cache_pattern *p = builtin_patterns; p->name; p++)
		total++;
	for (const struct cache_pattern *p = extra; p && p->name; p++)
		total++;
	m->re = cs_calloc(total, sizeof *m->re);
	if (!m->re)
		return cs_error_nomem(err);
	int rc = compile(m, "log-id", LOG_ID_PATTERN, &m->log_id, err);
	for (int pass = 0; pass < 2 && rc == CS_OK; pass++)
		for (const struct cache_pattern *p = pass ? extra : builtin_patterns; p && p->name && rc == CS_OK; p++) {
			m->re[m->n].name = p->name;
			rc = compile(m, p->name, p->pattern, &m->re[m->n].code, err);
			if (rc == CS_OK)
				m->n++;
		}
	return rc;
}

int cache_pattern_check(const char *name, const char *pattern, struct cs_error *err)
{
	struct matcher m;
	memset(&m, 0, sizeof m);
	m.gc = pcre2_general_context_create(cs_pcre2_malloc, cs_pcre2_free, NULL);
	if (!m.gc)
		return cs_error_nomem(err);
	pcre2_code *code = NULL;
	int rc = compile(&m, name, pattern, &code, err);
	pcre2_code_free(code);
	matcher_fini(&m);
	return rc;
}

/* The first volatile match in text: its pattern and where. false for none
 * (a match that hits a limit counts as none). any: whether there is one is
 * enough (the first pattern that matches answers; name and place unset). */
static bool find_volatile(struct matcher *m, const char *text, size_t len, bool any, const char **name, size_t *at,
			  size_t *mlen)
{
	bool found = false;
	for (size_t i = 0; i < m->n && !(any && found); i++) {
		int rc = match(m, m->re[i].code, text, len);
		if (rc < 0)
			continue;
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
		if (!found || ov[0] < *at) {
			found = true;
			*name = m->re[i].name;
			*at = ov[0];
			*mlen = ov[1] - ov[0];
		}
	}
	return found;
}

static bool looks_like_log(struct matcher *m, const char *id)
{
	return match(m, m->log_id, id, strlen(id)) >= 0;
}

static void quote(struct strbuf *out, const char *s, size_t n)
{
	size_t take = n;
	if (take > LINT_QUOTE_BYTES) {
		take = LINT_QUOTE_BYTES;
		while (take > 0 && ((unsigned char)s[take] & 0xC0) == 0x80)
			take--;
	}
	sb_putc(out, '"');
	sb_append(out, s, take);
	sb_puts(out, take < n ? "...\"" : "\"");
}

static int breakpoint_lints(const struct assembly *a, const struct cache_analysis *an, struct cache_lints *out,
			    struct strbuf *sb, struct cs_error *err)
{
	const struct cache_profile *p = an->profile;
	int rc = CS_OK;
	for (size_t i = 0; i < an->nbps && rc == CS_OK; i++) {
		const struct cache_breakpoint *bp = &an->bps[i];
		if (!bp->in_limit) {
			sb_puts(sb, "breakpoint ");
			sb_printf(sb, "%zu after ", i + 1);
			block_name(sb, a, bp->block);
			sb_printf(sb, " is over %s's limit of %d breakpoints: the request is refused, or the "
				      "breakpoint ignored, so nothing after breakpoint %d is cached",
				  p->name, p->max_breakpoints, p->max_breakpoints);
			rc = add_lint(out, a, LINT_OVER_LIMIT, bp->block, sb, err);
		}
		if (rc == CS_OK && p->mode == CACHE_EXPLICIT && !bp->over_min) {
			sb_puts(sb, "breakpoint after ");
			block_name(sb, a, bp->block);
			sb_printf(sb, " closes a prefix of %ld tokens, under %s's minimum of %ld: it silently never caches",
				  bp->end_tokens, p->name, p->min_prefix);
			rc = add_lint(out, a, LINT_UNDER_MIN, bp->block, sb, err);
		}
		if (rc == CS_OK && i > 0 && p->mode == CACHE_EXPLICIT && p->lookback > 0 && bp->gap_blocks > p->lookback) {
			sb_puts(sb, "breakpoint after ");
			block_name(sb, a, bp->block);
			sb_printf(sb, " is %ld blocks after the %s, more than %s's lookback of %ld: when a block in "
				      "between changes, the earlier cache entry is not found",
				  bp->gap_blocks, "previous breakpoint", p->name, p->lookback);
			rc = add_lint(out, a, LINT_LOOKBACK, bp->block, sb, err);
		}
	}
	if (rc == CS_OK && p->mode == CACHE_PREFIX && a->nblocks && a->total_tokens < p->min_prefix) {
		sb_printf(sb, "the whole prompt is %ld tokens, under %s's minimum of %ld: nothing of it caches",
			  a->total_tokens, p->name, p->min_prefix);
		rc = add_lint(out, a, LINT_UNDER_MIN, a->nblocks - 1, sb, err);
	}
	return rc;
}

int cache_lint(const struct assembly *a, const struct cache_analysis *an, const struct cache_pattern *extra,
	       struct cache_lints *out, struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	struct matcher m;
	bool *vol = NULL;
	long nvolatile = 0, more_block = -1;
	int rc = matcher_init(&m, extra, err);
	if (rc == CS_OK)
		rc = breakpoint_lints(a, an, out, &sb, err);
	/* the cached layers: every block up to the last breakpoint in the limit */
	size_t last = 0;
	bool any = false;
	for (size_t i = 0; i < an->nbps; i++)
		if (an->bps[i].in_limit)
			last = an->bps[i].block, any = true;
	if (rc == CS_OK && any) {
		vol = cs_calloc(last + 1, sizeof *vol);
		if (!vol)
			rc = cs_error_nomem(err);
	}
	for (size_t b = 0; rc == CS_OK && any && b <= last; b++) {
		sb_reset(&text);
		if (!asm_block_text(a, b, &text)) {
			rc = cs_error_nomem(err);
			break;
		}
		const char *name = "";
		size_t at = 0, len = 0;
		/* past the ones listed one by one, only whether it holds any counts */
		bool found = find_volatile(&m, sb_str(&text), text.len, nvolatile >= LINT_MAX_VOLATILE, &name, &at, &len);
		if (found)
			vol[b] = true;
		if (found && nvolatile++ >= LINT_MAX_VOLATILE) {
			if (more_block < 0)
				more_block = (long)b;
		} else if (found) {
			sb_puts(&sb, "volatile text ");
			quote(&sb, sb_str(&text) + at, len);
			sb_printf(&sb, " (%s) in ", name);
			block_name(&sb, a, b);
			sb_puts(&sb, ", inside a cached layer: if it changes between requests, the cache entry "
				     "holding it, and every one after it, is written again each time");
			rc = add_lint(out, a, LINT_VOLATILE, b, &sb, err);
		}
		long piece = a->blocks[b].piece;
		if (piece >= 0 && looks_like_log(&m, a->src->pieces[piece].id))
			vol[b] = true;
		if (rc == CS_OK && m.nomem)
			rc = cs_error_nomem(err);
	}
	if (rc == CS_OK && more_block >= 0) {
		sb_printf(&sb, "%ld more blocks in cached layers hold volatile text, the first ",
			  nvolatile - LINT_MAX_VOLATILE);
		block_name(&sb, a, (size_t)more_block);
		sb_printf(&sb, " (only the first %d are listed)", LINT_MAX_VOLATILE);
		rc = add_lint(out, a, LINT_VOLATILE, (size_t)more_block, &sb, err);
	}
	/* order: a volatile piece with a priority before stable pieces (the
	 * stable ones after b are all of them minus those up to b) */
	long all_stable = 0, all_tokens = 0, seen_stable = 0, seen_tokens = 0;
	for (size_t b = 0; rc == CS_OK && any && b <= last; b++)
		if (!vol[b] && a->blocks[b].piece >= 0)
			all_stable++, all_tokens += a->blocks[b].tokens;
	for (size_t b = 0; rc == CS_OK && any && b <= last; b++) {
		long piece = a->blocks[b].piece;
		if (!vol[b] && piece >= 0)
			seen_stable++, seen_tokens += a->blocks[b].tokens;
		if (!vol[b] || piece < 0 || a->src->pieces[piece].input_priority <= 0)
			continue;
		long stable = all_stable - seen_stable, tokens = all_tokens - seen_tokens;
		if (!stable)
			continue;
		block_name(&sb, a, b);
		sb_printf(&sb, " looks frequently edited (%s) but comes before %ld stable piece%s (%ld tokens): "
			       "lower its priority so it comes after them, and their cache survives its changes",
			  looks_like_log(&m, a->src->pieces[piece].id) ? "its path looks like a log or output"
								     : "its text holds volatile values",
			  stable, stable == 1 ? "" : "s", tokens);
		rc = add_lint(out, a, LINT_ORDER, b, &sb, err);
	}
	if (rc == CS_OK && m.nomem)
		rc = cs_error_nomem(err);
	cs_free(vol);
	matcher_fini(&m);
	sb_fini(&sb);
	sb_fini(&text);
	if (rc != CS_OK)
		cache_lints_fini(out);
	return rc;
}

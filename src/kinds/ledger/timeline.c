/* timeline.c: every turn on the session's thread replayed, with what the
 * cache should have done beside what the provider recorded. Each turn's
 * prompt is assembled as `--turn ID` would assemble it; the cache
 * prediction is that prompt sent after the previous turn of the same model
 * and provider (caches are per model; the first turn of a model against a
 * cold cache), under the built-in profile of the turn's provider.
 * The recorded figures are the turn row's usage columns. */
#include "ledger.h"

#include "base/alloc.h"
#include "assembly.h"
#include "cache/cache.h"
#include "emit.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <string.h>

/* The built-in profile named like the provider (anthropic, openai, ...),
 * else the first (anthropic). */
static const struct cache_profile *profile_of(const char *provider)
{
	size_t n;
	const struct cache_profile *p = cache_builtin_profiles(&n);
	for (size_t i = 0; provider && i < n; i++)
		if (strcmp(p[i].name, provider) == 0)
			return &p[i];
	return &p[0];
}

/* The head turn of the session the settings select (the last turn without
 * sessions), or -1. */
static long thread_head(const struct ledger *l)
{
	if (l->nsessions == 0)
		return l->nturns ? (long)l->nturns - 1 : -1;
	long s = ledger_pick_session(l, NULL);
	return s < 0 ? -1 : l->sessions[s].head;
}

/* Turn t's prompt, replayed: the source seen through a copy of its model
 * whose turn setting is t (src itself is not touched). */
static int replay(const struct source *src, long t, struct assembly *out, struct cs_error *err)
{
	struct ledger l = *(const struct ledger *)src->model;
	l.turn = l.turns[t].id;
	l.next = false;
	l.bare = true; /* only its blocks and totals are read */
	struct source s = *src;
	s.model = &l;
	memset(out, 0, sizeof *out);
	int rc = assemble(&s, out, err);
	out->src = src; /* the copy is gone once this returns; the pieces are src's */
	return rc;
}

/* Fills u for the turn whose prompt is now, sent after prev (NULL: cold). */
static int predict(const struct ledger_turn *t, const struct assembly *prev, const struct assembly *now,
		   struct ledger_turn_usage *u, struct cs_error *err)
{
	const struct cache_profile *p = profile_of(t->provider);
	struct cache_analysis an;
	int rc = cache_analyze(prev ? prev : now, NULL, now, NULL, p, &an, err);
	if (rc != CS_OK)
		return rc;
	u->profile = p->name;
	u->estimated = now->total_tokens;
	u->predicted_read = prev ? an.now.read : 0;
	u->predicted_written = prev ? an.now.written : an.now.read + an.now.written; /* cold: all it stores */
	u->recorded_input = t->input_tokens;
	u->recorded_read = t->cached_input_tokens;
	u->recorded_written = t->cache_write_tokens;
	cache_analysis_fini(&an);
	return CS_OK;
}

/* The last turn of each model seen so far (a cache is per model: a turn
 * reads only what an earlier turn of its own model and provider wrote). */
#define LEDGER_MODELS 8
struct last_of_model {
	const char *model, *provider; /* NULL: absent */
	struct assembly a;
	long turn;
	bool have;
};

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The slot of t's model: its own, else a free one, else the oldest (its
 * assembly freed). */
static struct last_of_model *slot_of(struct last_of_model *s, const struct ledger_turn *t)
{
	struct last_of_model *oldest = &s[0];
	for (size_t i = 0; i < LEDGER_MODELS; i++) {
		if (s[i].have && same_str(s[i].model, t->model) && same_str(s[i].provider, t->provider))
			return &s[i];
		if (!s[i].have)
			return &s[i];
		if (s[i].turn < oldest->turn)
			oldest = &s[i];
	}
	asm_fini(&oldest->a);
	oldest->have = false;
	return oldest;
}

int ledger_timeline(const struct source *src, struct ledger_turn_usage **out, size_t *n, struct cs_error *err)
{
	const struct ledger *l = src->model;
	*out = NULL;
	*n = 0;
	long head = thread_head(l);
	long *anc = NULL;
	size_t nanc = 0;
	if (head < 0)
		return CS_OK;
	if (ledger_ancestry(l, head, &anc, &nanc) != CS_OK)
		return cs_error_nomem(err);
	struct ledger_turn_usage *rows = cs_calloc(nanc ? nanc : 1, sizeof *rows);
	struct last_of_model last[LEDGER_MODELS];
	memset(last, 0, sizeof last);
	struct assembly now;
	int rc = rows ? CS_OK : cs_error_nomem(err);
	/* The last LEDGER_TIMELINE_MAX turns, and the one before them as the
	 * first one's cache: each turn is a whole assembly. */
	size_t first = 0, normal = 0;
	for (size_t i = nanc; i-- > 0;)
		if (!l->turns[anc[i]].compaction && ++normal == LEDGER_TIMELINE_MAX + 1) {
			first = i;
			break;
		}
	for (size_t i = first; rc == CS_OK && i < nanc; i++) {
		const struct ledger_turn *t = &l->turns[anc[i]];
		if (t->compaction)
			continue; /* a summarizing request, not a turn of the conversation */
		rc = replay(src, anc[i], &now, err);
		struct last_of_model *prev = slot_of(last, t);
		if (rc == CS_OK) {
			rows[*n].turn = anc[i];
			rows[*n].compared = prev->have ? prev->turn : -1;
			rc = predict(t, prev->have ? &prev->a : NULL, &now, &rows[*n], err);
		}
		if (prev->have)
			asm_fini(&prev->a);
		*prev = (struct last_of_model){ t->model, t->provider, now, anc[i], true };
		if (rc == CS_OK && (normal <= LEDGER_TIMELINE_MAX || i > first))
			(*n)++;
	}
	for (size_t i = 0; i < LEDGER_MODELS; i++)
		if (last[i].have)
			asm_fini(&last[i].a);
	cs_free(anc);
	if (rc != CS_OK) {
		cs_free(rows);
		*n = 0;
		return rc;
	}
	*out = rows;
	return CS_OK;
}

static void emit_recorded(struct emitter *em, const char *key, long v)
{
	if (v >= 0)
		emit_key_int(em, key, v);
	else
		emit_key_str(em, key, "not recorded");
}

int ledger_timeline_emit(const struct source *src, struct emitter *em)
{
	struct ledger_turn_usage *rows;
	size_t n;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = ledger_timeline(src, &rows, &n, &err);
	if (rc != CS_OK)
		return rc == CS_ENOMEM ? rc : CS_OK; /* a turn that does not replay: the report says so elsewhere */
	const struct ledger *l = src->model;
	emit_key(em, "timeline");
	emit_map_begin(em);
	emit_key_str(em, "note", "each turn on the thread replayed; predicted: that prompt sent after the previous "
		     "turn of its model under the provider's cache (the first of a model against a cold cache), estimated tokens; "
		     "recorded: the turn's usage columns, the provider's whole request");
	emit_key(em, "turns");
	emit_list_begin(em);
	for (size_t i = 0; i < n; i++) {
		const struct ledger_turn_usage *u = &rows[i];
		emit_map_begin(em);
		emit_key_str(em, "turn", l->turns[u->turn].id);
		emit_key_str(em, "profile", u->profile);
		if (u->compared >= 0)
			emit_key_str(em, "compared_with", l->turns[u->compared].id);
		emit_key_int(em, "estimated_input", u->estimated);
		emit_key_int(em, "predicted_read", u->predicted_read);
		emit_key_int(em, "predicted_written", u->predicted_written);
		emit_recorded(em, "recorded_input", u->recorded_input);
		emit_recorded(em, "recorded_read", u->recorded_read);
		emit_recorded(em, "recorded_written", u->recorded_written);
		emit_map_end(em);
	}
	emit_list_end(em);
	emit_map_end(em);
	cs_free(rows);
	return CS_OK;
}

/* A count for the view: thousands, or "-" when not recorded. */
static const char *count(char buf[32], long v)
{
	if (v < 0)
		return "-";
	return fmt_thousands(buf, v);
}

int ledger_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err)
{
	(void)step_at; /* a ledger holds no sequence to step through */
	struct ledger_turn_usage *rows;
	size_t n;
	int rc = ledger_timeline(src, &rows, &n, err);
	if (rc != CS_OK)
		return rc;
	const struct ledger *l = src->model;
	sb_printf(out, "%zu turn%s on the thread%s, predicted (estimated tokens) beside recorded\n", n, n == 1 ? "" : "s",
		  n == LEDGER_TIMELINE_MAX ? " (the last ones)" : "");
	sb_puts(out, "  recorded: the provider's whole request (tools and framing the export does not hold)\n");
	sb_puts(out, "  predicted: this prompt sent after the previous turn of its model, under its provider's cache\n\n");
	sb_puts(out, "     estimated    read  written  |  recorded input     read  written   turn\n");
	for (size_t i = 0; i < n; i++) {
		const struct ledger_turn_usage *u = &rows[i];
		char a[32], b[32], c[32], d[32], e[32], f[32];
		sb_printf(out, "  %12s %7s %8s  | %15s %8s %8s   ", count(a, u->estimated), count(b, u->predicted_read),
			  count(c, u->predicted_written), count(d, u->recorded_input), count(e, u->recorded_read),
			  count(f, u->recorded_written));
		const char *id = l->turns[u->turn].id;
		utf8_sanitize(out, id, strlen(id), text_flags);
		sb_printf(out, " (%s", u->profile);
		if (u->compared >= 0) {
			sb_puts(out, ", vs ");
			utf8_sanitize(out, l->turns[u->compared].id, strlen(l->turns[u->compared].id), text_flags);
		}
		sb_puts(out, ")\n");
	}
	cs_free(rows);
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

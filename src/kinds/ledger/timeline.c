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
#include "source.h"

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

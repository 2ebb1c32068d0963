/* usage.c (loom): the recorded usage of a loom tree (ctxscope-formats(5) section 1,
 * Aspen Grove's RawApiResponse records). Every model node on the path with
 * a raw response is a request that can be replayed: the path up to the
 * node's parent, assembled under the tree's settings, estimated, and set
 * beside the provider's tokenUsage.promptTokens. Shown (report.c) per model node
 * (the report's piece entries, the text report's note under the row, the
 * inspector's detail), as the timeline (kind_ops.timeline) and in total.
 * Decisions where ctxscope-formats(5) is silent:
 *   - "the tree's settings": a replay ignores the person's edits (piece
 *     exclusions, --budget, --strategy, --min-recent): it is what the app
 *     sent. It keeps the estimate's chars per token (the estimator being
 *     judged) and the loom-aware switch (whether the app rendered the
 *     loom-aware extensions is not recorded: the person says so);
 *   - the tree is the tree as saved: nodes, exclusions and the operational
 *     memory as they are now, not as they were when the request was sent;
 *   - of two responses for one node, the later responseTimestamp wins; when
 *     either has none, the later in the array;
 *   - a response for a model node the path does not use is counted, not
 *     replayed (it belongs to another branch);
 *   - a response without tokenUsage.promptTokens is a warning and ignored;
 *   - the exact count stands beside when the model has a public tokenizer
 *     (an OpenAI model; Claude's is not public) and its rank file is there. */
#include "loom_priv.h"

#include "base/alloc.h"
#include "assembly.h"
#include "tokens/exact.h"
#include "json/scan.h"
#include "source.h"
#include "tokens/tokenizer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading ------------------------------------------------------------- */

int loom_warn_at(struct loader *L, long piece, const struct jpath *at, const char *key, const char *fmt, ...)
{
	struct jpath leaf = JPATH_KEY(at, key);
	char path[CS_ERROR_PATH_MAX];
	jpath_format(key ? &leaf : at, path, sizeof path);
	long line = 0, col = 0;
	long off = json_locate(L->doc.data, L->doc.len, path);
	if (off >= 0)
		text_position(L->doc.data, L->doc.len, (size_t)off, &line, &col);
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (line > 0)
		return source_warn(L->src, piece, line, col, "%s (line %ld, column %ld): %s", path, line, col, msg);
	return source_warn(L->src, piece, line, col, "%s: %s", path, msg);
}

struct response {
	const char *id, *provider;
	long prompt, completion;
	long long ms;
};

/* One entry's fields; CS_OK with r->prompt < 0 when it is to be ignored
 * (a warning said why). */
static int read_response(struct loader *L, const cJSON *v, const struct jpath *ip, size_t *node, struct response *r)
{
	*node = NONE;
	r->prompt = r->completion = LOOM_NO_TOKENS;
	r->ms = LOOM_NO_TIME;
	if (!json_is_object(v))
		return loom_warn_at(L, -1, ip, NULL, "expected a raw response object, got %s; ignored", json_type_name(v));
	const char *id = json_string_value(json_member(v, "nodeId"));
	if (!id)
		return loom_warn_at(L, -1, ip, "nodeId", "no nodeId: the response names no node; ignored");
	size_t n = loom_node_index(L, id);
	if (n == NONE)
		return loom_warn_at(L, -1, ip, "nodeId", "no node \"%s\": the response is ignored", id);
	const struct tnode *t = &L->nodes[n];
	if (t->author != 1)
		return loom_warn_at(L, t->piece, ip, "nodeId",
				    "node %s is a human node: a raw response belongs to the model node it produced; "
				    "ignored", id);
	const cJSON *use = json_member(v, "tokenUsage");
	struct jpath up = JPATH_KEY(ip, "tokenUsage");
	char w[300];
	struct json_count_place pl = { .d = &L->doc, .first_line = 1 };
	long prompt = LOOM_NO_TOKENS;
	int got = json_count_at(&pl, use, &up, "promptTokens", &prompt, w, sizeof w);
	if (got == JSON_COUNT_BAD)
		return source_warn(L->src, t->piece, pl.line, pl.column, "%s; the response for node %s is ignored", w,
				   id);
	if (got == JSON_COUNT_ABSENT)
		return loom_warn_at(L, t->piece, ip, "tokenUsage",
				    "no tokenUsage.promptTokens (a whole number of 0 or more) for node %s; ignored", id);
	if (json_count_at(&pl, use, &up, "completionTokens", &r->completion, w, sizeof w) == JSON_COUNT_BAD) {
		int rc = source_warn(L->src, t->piece, pl.line, pl.column, "%s; left unknown", w);
		if (rc)
			return rc;
	}
	const char *ts = json_string_value(json_member(v, "responseTimestamp"));
	if (ts && !loom_parse_time(ts, &r->ms)) {
		r->ms = LOOM_NO_TIME;
		int rc = loom_warn_at(L, t->piece, ip, "responseTimestamp", "not an ISO 8601 time: \"%s\"; taken as absent",
				      ts);
		if (rc)
			return rc;
	}
	r->id = json_string_value(json_member(v, "id"));
	r->provider = json_string_value(json_member(v, "provider"));
	r->prompt = prompt;
	*node = n;
	return CS_OK;
}

/* Puts r on node n (index i in the array), or says why the one already
 * there stays. */
static int settle(struct loader *L, size_t n, long i, const struct response *r, const struct jpath *ip, long *first,
		  long long *first_ms)
{
	const struct tnode *t = &L->nodes[n];
	if (first[n] >= 0) {
		bool later = r->ms != LOOM_NO_TIME && first_ms[n] != LOOM_NO_TIME ? r->ms > first_ms[n] : true;
		int rc = loom_warn_at(L, t->piece, ip, "nodeId",
				      "a second response for node %s (also rawApiResponses[%ld]): %s", t->id, first[n],
				      later ? "this one, the later by responseTimestamp, wins"
					    : "the earlier one stays, the later by responseTimestamp");
		if (rc || !later)
			return rc;
	}
	first[n] = i;
	first_ms[n] = r->ms;
	if (t->piece < 0 || L->m->items[t->piece].use != LOOM_PRIMARY)
		return CS_OK; /* another branch's request */
	struct loom_item *it = &L->m->items[t->piece];
	it->prompt_tokens = r->prompt;
	it->completion_tokens = r->completion;
	it->response_ms = r->ms;
	it->response_index = i;
	it->response_id = loom_keep(L, r->id ? r->id : "");
	it->provider = loom_keep(L, r->provider ? r->provider : "");
	return it->response_id && it->provider ? CS_OK : loom_nomem(L);
}

int loom_read_responses(struct loader *L, const cJSON *root)
{
	const cJSON *arr = NULL;
	int rc = json_get_array(&L->doc, root, JPATH_ROOT, "rawApiResponses", JSON_OPTIONAL, &arr, L->err);
	if (rc || !arr)
		return rc;
	long *first = cs_malloc((L->nnodes ? L->nnodes : 1) * sizeof *first);
	long long *first_ms = cs_malloc((L->nnodes ? L->nnodes : 1) * sizeof *first_ms);
	if (!first || !first_ms) {
		cs_free(first);
		cs_free(first_ms);
		return loom_nomem(L);
	}
	for (size_t n = 0; n < L->nnodes; n++)
		first[n] = -1;
	struct jpath ap = JPATH_KEY(JPATH_ROOT, "rawApiResponses");
	long i = 0;
	const cJSON *v;
	JSON_EACH(v, arr)
	{
		struct jpath ip = JPATH_INDEX(&ap, i);
		struct response r;
		size_t n;
		rc = read_response(L, v, &ip, &n, &r);
		if (rc == CS_OK && n != NONE)
			rc = settle(L, n, i, &r, &ip, first, first_ms);
		if (rc)
			break;
		i++;
	}
	for (size_t n = 0; rc == CS_OK && n < L->nnodes; n++) {
		if (first[n] < 0)
			continue;
		long p = L->nodes[n].piece;
		if (p >= 0 && L->m->items[p].use == LOOM_PRIMARY)
			L->m->nresponses++;
		else
			L->m->responses_off_path++;
	}
	cs_free(first);
	cs_free(first_ms);
	return rc;
}

/* ---- replaying ----------------------------------------------------------- */

static bool is_model_step(const struct loom_item *it)
{
	return it->use == LOOM_PRIMARY && !strcmp(it->author_type, "model");
}

size_t loom_model_node(const struct source *src, size_t k, size_t *pos, long *piece)
{
	const struct loom *m = src->model;
	if (loom_prepare(src) == CS_OK) { /* the list made once (prep.c) */
		const struct loom_prep *pr = m->cache.prep;
		if (k < pr->nmodel) {
			if (pos)
				*pos = m->items[src->pieces[pr->model[k]].kind_index].path_pos;
			if (piece)
				*piece = pr->model[k];
		}
		return pr->nmodel;
	}
	size_t n = 0; /* out of memory: the walk */
	for (size_t i = 0; i < src->npieces; i++) {
		const struct loom_item *it = &m->items[src->pieces[i].kind_index];
		if (!is_model_step(it))
			continue;
		if (n++ == k) {
			if (pos)
				*pos = it->path_pos;
			if (piece)
				*piece = (long)i;
		}
	}
	return n;
}


/* The request that produced the node at path position pos: the source seen
 * through copies of its model and pieces (src itself is not touched). */
static int replay(const struct source *src, size_t pos, struct assembly *out, struct cs_error *err)
{
	const struct loom *m0 = src->model;
	if (loom_prepare(src) != CS_OK) /* made here, so that the copy below shares it */
		return cs_error_nomem(err);
	struct loom l = *m0;
	l.replay_pos = pos;
	l.min_recent_override = -1;
	l.cache.usage = NULL; /* shares the cache's prep, made above */
	struct piece *pieces = cs_malloc((src->npieces ? src->npieces : 1) * sizeof *pieces);
	if (!pieces)
		return cs_error_nomem(err);
	memcpy(pieces, src->pieces, src->npieces * sizeof *pieces);
	for (size_t i = 0; i < src->npieces; i++)
		pieces[i].user_excluded = -1;
	struct source s = *src;
	s.model = &l;
	s.pieces = pieces;
	s.settings.budget = -1;
	s.settings.strategy = STRAT_NONE;
	memset(out, 0, sizeof *out);
	int rc = assemble(&s, out, err);
	out->src = src; /* the copies are gone once this returns; the pieces' texts are src's */
	cs_free(pieces);
	return rc;
}

static void usage_free(struct loom_usage *u)
{
	if (!u)
		return;
	for (size_t k = 0; k < u->n; k++)
		cs_free(u->rows[k].note);
	cs_free(u->rows);
	cs_free(u);
}

void loom_usage_free(struct loom_usage *u)
{
	usage_free(u);
}

/* The exact tokenizer for the tree's model, opened, or NULL. */
static struct tokenizer *open_exact(const struct assembly *a, const char **name)
{
	*name = exact_auto_tokenizer(a);
	struct tokenizer *t = NULL;
	struct cs_error e;
	cs_error_clear(&e);
	if (*name && tokenizer_open(*name, &t, &e) != CS_OK)
		t = NULL;
	if (!t)
		*name = NULL;
	return t;
}

static int replay_row(const struct source *src, struct loom_usage *u, long piece, struct tokenizer **tok,
		      bool *tok_tried, struct cs_error *err)
{
	const struct loom *m = src->model;
	const struct loom_item *it = &m->items[src->pieces[piece].kind_index];
	struct assembly a;
	int rc = replay(src, it->path_pos, &a, err);
	if (rc != CS_OK)
		return rc; /* assemble() freed it */
	struct loom_usage_row *r = &u->rows[u->n++];
	*r = (struct loom_usage_row){ .piece = piece, .estimate = a.total_tokens, .recorded = it->prompt_tokens,
				      .exact = -1, .refused = (a.flags & ASM_ERROR) != 0 };
	if (!*tok_tried) {
		*tok_tried = true;
		*tok = open_exact(&a, &u->encoding);
	}
	if (*tok) {
		struct exact_counts x;
		if (exact_count(&x, *tok, &a, err) == CS_OK)
			r->exact = x.total;
		exact_fini(&x);
	}
	asm_fini(&a);
	return CS_OK;
}

int loom_usage_get(const struct source *src, const struct loom_usage **out, struct cs_error *err)
{
	const struct loom *m = src->model;
	struct loom_cache *c = loom_cache(src);
	if (c->usage && c->usage->chars_per_token == src->settings.chars_per_token &&
	    c->usage->loom_aware == m->loom_aware) {
		*out = c->usage;
		return CS_OK;
	}
	usage_free(c->usage);
	c->usage = NULL;
	size_t steps = loom_model_node(src, SIZE_MAX, NULL, NULL);
	struct loom_usage *u = cs_calloc(1, sizeof *u);
	if (u)
		u->rows = cs_calloc(steps ? steps : 1, sizeof *u->rows);
	if (!u || !u->rows) {
		usage_free(u);
		return cs_error_nomem(err);
	}
	u->chars_per_token = src->settings.chars_per_token;
	u->loom_aware = m->loom_aware;
	struct tokenizer *tok = NULL;
	bool tried = false;
	int rc = CS_OK;
	/* each replay is a whole assembly: the last LOOM_REPLAY_MAX model nodes */
	u->first = steps > LOOM_REPLAY_MAX ? steps - LOOM_REPLAY_MAX : 0;
	for (size_t i = 0, k = 0; rc == CS_OK && i < src->npieces && u->n < steps - u->first; i++)
		if (is_model_step(&m->items[src->pieces[i].kind_index]) && k++ >= u->first)
			rc = replay_row(src, u, (long)i, &tok, &tried, err);
	if (tok)
		tokenizer_close(tok);
	if (rc != CS_OK) {
		usage_free(u);
		return rc;
	}
	u->exact_sum = u->encoding ? 0 : -1;
	for (size_t k = 0; k < u->n; k++) {
		if (u->rows[k].recorded == LOOM_NO_TOKENS)
			continue; /* no record to judge the estimate by */
		u->nrecorded++;
		u->estimate_sum += u->rows[k].estimate;
		u->recorded_sum += u->rows[k].recorded;
		if (u->exact_sum >= 0)
			u->exact_sum = u->rows[k].exact >= 0 ? u->exact_sum + u->rows[k].exact : -1;
	}
	c->usage = u;
	*out = u;
	return CS_OK;
}

/* steps.c: a request log's requests one at a time. A block keeps its path
 * from request to request ("system[0]", "messages[3].content[1]"), so the
 * pieces are the paths over the whole log, in render order: the request
 * shown fills them with its blocks' text, and the others are dropped as not
 * in it. An edit to a piece reaches the block at that path in every
 * request, and the whole sequence is predicted again (what-if). The
 * `request` setting (and [ ]) picks the request shown; its body is read
 * again from the log, for dump. */
#include "request.h"

#include "base/alloc.h"
#include "cache/cache.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pieces: one per path, in an order every request keeps ------------ */

/* The union of the requests' paths: each new path goes right after the path
 * of the block before it in its request (a linked list), so a path a later
 * request inserts lands where that request has it. */
struct paths {
	struct strmap map;  /* path -> slot */
	size_t *next;       /* slot -> the next slot (STRMAP_NONE: last) */
	size_t *unit;       /* slot -> the unit that brought it */
	size_t n, head, tail;
};

static int add_path(struct paths *ps, const struct req_unit *units, size_t u, size_t after, size_t *slot)
{
	const char *path = units[u].path;
	*slot = strmap_get(&ps->map, path, strlen(path));
	if (*slot != STRMAP_NONE)
		return CS_OK;
	size_t s = ps->n++, old;
	if (strmap_put(&ps->map, path, strlen(path), s, &old) != 0)
		return CS_ENOMEM;
	ps->unit[s] = u;
	if (after == STRMAP_NONE) { /* first of its request: before everything */
		ps->next[s] = ps->head;
		ps->head = s;
	} else {
		ps->next[s] = ps->next[after];
		ps->next[after] = s;
	}
	if (ps->next[s] == STRMAP_NONE)
		ps->tail = s;
	*slot = s;
	return CS_OK;
}

static int label_piece(struct source *src, long i, const struct req_unit *u)
{
	struct piece *p = &src->pieces[i];
	p->id = u->path;
	p->role = u->role;
	p->layer = u->layer;
	char snip[48];
	size_t n = u->text_len < 40 ? u->text_len : 40;
	while (n < u->text_len && n > 0 && ((unsigned char)u->text[n] & 0xC0) == 0x80)
		n--;
	snprintf(snip, sizeof snip, "%.*s", (int)n, u->text);
	for (char *c = snip; *c; c++)
		if (*c == '\n' || *c == '\r' || *c == '\t')
			*c = ' ';
	p->label = arena_printf(&src->arena, "%s %s: %s%s", u->path, u->type, snip, n < u->text_len ? "..." : "");
	p->flags = u->image ? p->flags | PIECE_NOT_TEXT : p->flags & ~(unsigned)PIECE_NOT_TEXT;
	return p->label ? CS_OK : CS_ENOMEM;
}

/* The pieces in list order, each with the unit that brought it. */
static int pieces_in_order(struct source *src, struct request_model *m, struct paths *ps, size_t *slot_piece)
{
	for (size_t s = ps->head; s != STRMAP_NONE; s = ps->next[s]) {
		const struct req_unit *u = &m->units[ps->unit[s]];
		long i = source_add_piece(src);
		if (i < 0 || source_adopt_piece_text(src, i, u->text, u->text_len) != CS_OK ||
		    label_piece(src, i, u) != CS_OK)
			return CS_ENOMEM;
		src->pieces[i].kind_index = ps->unit[s];
		slot_piece[s] = (size_t)i;
	}
	return CS_OK;
}

int request_make_pieces(struct source *src, struct request_model *m, struct cs_error *err)
{
	struct paths ps = { .map = STRMAP_INIT, .head = STRMAP_NONE, .tail = STRMAP_NONE };
	size_t n = m->nunits ? m->nunits : 1;
	size_t *slot_of = cs_malloc(n * sizeof *slot_of);
	ps.next = cs_malloc(n * sizeof *ps.next);
	ps.unit = cs_malloc(n * sizeof *ps.unit);
	m->unit_piece = cs_malloc(n * sizeof *m->unit_piece);
	int rc = slot_of && ps.next && ps.unit && m->unit_piece ? CS_OK : CS_ENOMEM;
	for (size_t k = 0; rc == CS_OK && k < m->nreqs; k++) {
		const struct req_request *r = &m->reqs[k];
		size_t after = STRMAP_NONE;
		for (size_t u = r->first_unit; rc == CS_OK && u < r->first_unit + r->nunits; u++) {
			rc = add_path(&ps, m->units, u, after, &slot_of[u]);
			after = slot_of[u];
		}
	}
	size_t *slot_piece = rc == CS_OK ? cs_malloc((ps.n ? ps.n : 1) * sizeof *slot_piece) : NULL;
	if (rc == CS_OK)
		rc = slot_piece ? pieces_in_order(src, m, &ps, slot_piece) : CS_ENOMEM;
	for (size_t u = 0; rc == CS_OK && u < m->nunits; u++)
		m->unit_piece[u] = (uint32_t)slot_piece[slot_of[u]];
	cs_free(slot_piece);
	cs_free(slot_of);
	cs_free(ps.next);
	cs_free(ps.unit);
	strmap_fini(&ps.map);
	if (rc == CS_OK && src->npieces >= REQUEST_NO_PIECE)
		return cs_error_set(err, CS_ELIMIT, "more than %u blocks in one log", (unsigned)REQUEST_NO_PIECE - 1);
	m->piece_unit = rc == CS_OK ? cs_malloc((src->npieces ? src->npieces : 1) * sizeof *m->piece_unit) : NULL;
	if (!m->piece_unit)
		return cs_error_nomem(err);
	m->npiece_unit = src->npieces;
	if (!m->is_log)
		m->doc_request = m->current;
	m->ncore = 0; /* the packed units take the pieces at the next prediction */
	return request_select(src, m, m->current, err);
}

/* ---- one request shown ------------------------------------------------------ */

/* The node at `path` ("messages[3].content[1]", "system") under body. */
/* Where node_at last stood in an array at each depth: paths come in
 * order, so the next index is found by stepping on, not from the start
 * (json_item walks from the first element every time). */
#define NODE_MEMO_DEPTH 4
struct node_memo {
	const cJSON *array, *item;
	long index;
};

static const cJSON *array_item(const cJSON *array, long i, struct node_memo *memo)
{
	const cJSON *v = json_first(array);
	long at = 0;
	if (memo && memo->array == array && memo->index <= i)
		v = memo->item, at = memo->index;
	for (; v && at < i; at++)
		v = json_next(v);
	if (memo && v)
		*memo = (struct node_memo){ array, v, i };
	return v;
}

static const cJSON *node_at(const cJSON *body, const char *path, struct node_memo memo[NODE_MEMO_DEPTH])
{
	const cJSON *v = body;
	const char *p = path;
	int depth = 0;
	while (v && *p) {
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			char *end;
			long i = strtol(p + 1, &end, 10);
			if (*end != ']' || !json_is_array(v) || i < 0)
				return NULL;
			v = array_item(v, i, depth < NODE_MEMO_DEPTH ? &memo[depth] : NULL);
			depth++;
			p = end + 1;
			continue;
		}
		size_t n = strcspn(p, ".[");
		char key[64];
		if (n >= sizeof key || !json_is_object(v))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		v = json_member(v, key);
		p += n;
	}
	return v;
}

/* Request k's body read again from the log (its line's bytes, or its
 * element of the document), with every unit's node; on failure (the log
 * changed or went) no document and a warning: dump then says so. */
static int read_body(struct source *src, struct request_model *m, size_t k)
{
	if (m->doc_request < m->nreqs) {
		const struct req_request *was = &m->reqs[m->doc_request];
		for (size_t u = was->first_unit; u < was->first_unit + was->nunits; u++)
			m->units[u].node = NULL; /* only the request whose document it was has nodes */
	}
	m->doc_request = k;
	if (request_body_again(src, m, k) != CS_OK)
		return CS_ENOMEM;
	if (!m->body)
		return CS_OK;
	const struct req_request *r = &m->reqs[k];
	struct node_memo memo[NODE_MEMO_DEPTH] = { { 0 } };
	for (size_t u = r->first_unit; u < r->first_unit + r->nunits; u++)
		m->units[u].node = node_at(m->body, m->units[u].path, memo);
	return CS_OK;
}

int request_select(struct source *src, struct request_model *m, size_t k, struct cs_error *err)
{
	const struct req_request *r = &m->reqs[k];
	for (size_t i = 0; i < m->npiece_unit; i++)
		m->piece_unit[i] = REQUEST_NO_UNIT;
	for (size_t u = r->first_unit; u < r->first_unit + r->nunits; u++) {
		size_t i = m->unit_piece[u];
		const struct req_unit *unit = &m->units[u];
		struct piece *p = &src->pieces[i];
		m->piece_unit[i] = u;
		p->kind_index = u;
		p->role = unit->role;
		p->layer = unit->layer;
		if (p->text != unit->text && (source_adopt_piece_text(src, (long)i, unit->text, unit->text_len) != CS_OK ||
					      label_piece(src, (long)i, unit) != CS_OK))
			return cs_error_nomem(err);
	}
	m->current = k;
	m->provider = r->provider;
	if (m->is_log && m->doc_request != k && read_body(src, m, k) != CS_OK)
		return cs_error_nomem(err);
	if (m->predicted_for && m->predicted_for == request_whatif_sig(src))
		return request_current_lints(src, m, err); /* the sequence is as predicted: only its lints */
	m->predicted_for = 0;
	return request_repredict(src, m, err);
}

int request_select_want(struct source *src, long want, struct cs_error *err)
{
	struct request_model *m = src->model;
	return request_select(src, m, want >= 1 ? (size_t)want - 1 : m->nreqs - 1, err);
}

/* ---- what-if: edits re-predict the sequence --------------------------------- */

uint64_t request_whatif_sig(const struct source *src)
{
	const struct request_model *m = src->model;
	uint64_t h = 0;
	for (size_t i = 0; i < src->npieces; i++) {
		int8_t bp = m->bp_override ? m->bp_override[i] : 0;
		if (piece_excluded(&src->pieces[i]) || bp) {
			uint64_t v = (uint64_t)i * 4 + (uint64_t)piece_excluded(&src->pieces[i]) * 2 + (bp > 0);
			h = request_hash((const char *)&v, sizeof v, h ? h : REQUEST_HASH_SEED);
		}
	}
	if (m->model_override)
		h = request_hash(m->model_override, strlen(m->model_override) + 1, h ? h : REQUEST_HASH_SEED);
	return h ? h : 1;
}

const char *request_model_name(const struct request_model *m, const struct req_request *r)
{
	return m->model_override ? m->model_override : r->model;
}

int request_take_breakpoints(struct source *src, struct request_model *m, const struct cache_overrides *o,
			     struct cs_error *err)
{
	if (!m->bp_override && (!o || !o->n))
		return CS_OK;
	if (!m->bp_override && !(m->bp_override = cs_calloc(src->npieces ? src->npieces : 1, 1)))
		return cs_error_nomem(err);
	memset(m->bp_override, 0, src->npieces);
	m->bp_moved = 0;
	for (size_t i = 0; o && i < o->n; i++) {
		long piece = o->items[i].piece_id ? source_find_piece(src, o->items[i].piece_id) : -1;
		if (piece >= 0) {
			m->bp_moved += !m->bp_override[piece];
			m->bp_override[piece] = o->items[i].on ? 1 : -1;
		}
	}
	return CS_OK;
}

int request_breakpoints_edited(struct source *src, const struct cache_overrides *o, struct cs_error *err)
{
	int rc = request_take_breakpoints(src, src->model, o, err);
	return rc == CS_OK ? request_repredict(src, src->model, err) : rc;
}

void request_predicted(struct request_model *m, uint64_t sig)
{
	m->predicted_for = sig;
	m->edited = sig != 1;
	for (size_t i = 0; sig == 1 && i < m->nreqs; i++) {
		struct req_request *r = &m->reqs[i];
		r->loaded_read = r->pred_read;
		r->loaded_write = r->pred_write;
		r->loaded_uncached = r->pred_uncached;
	}
}

int request_repredict(struct source *src, struct request_model *m, struct cs_error *err)
{
	uint64_t sig = request_whatif_sig(src);
	if (sig == m->predicted_for)
		return CS_OK;
	m->nlints = 0;
	for (size_t i = 0; i < m->nreqs; i++) {
		struct req_request *r = &m->reqs[i];
		r->nbreakpoints = 0;
		r->compared = r->diff_unit = -1;
		r->diff_path = r->diff_now = r->diff_before = r->cause = NULL;
		r->broke = false;
	}
	int rc = request_predict(src, m, err);
	if (rc == CS_OK)
		request_predicted(m, sig);
	return rc;
}

/* A request's input cost in USD at its model's prices (< 0: unknown);
 * writes at the 1-hour price for the share its record says were 1-hour
 * ones (ctxscope-formats(5) section 7b), else the 5-minute price. */
static double cost(const struct req_model_facts *f, const struct req_request *r, long read, long write, long uncached)
{
	if (f->price_per_mtok < 0)
		return -1;
	double share = r->rec_write_1h > 0 && r->rec_write > 0 ? (double)r->rec_write_1h / (double)r->rec_write : 0;
	if (share > 1)
		share = 1;
	double w = (double)write * (share * f->write_1h + (1 - share) * f->write_5m);
	return f->price_per_mtok * ((double)uncached + (double)read * f->read + w) / 1e6;
}

void request_whatif_totals(const struct request_model *m, struct request_whatif *w)
{
	memset(w, 0, sizeof *w);
	struct facts_memo now_facts = { NULL, NULL }, was_facts = { NULL, NULL };
	int now_group = -1; /* now_facts' group: one model, so a request of it asks nothing */
	for (size_t k = 0; k < m->nreqs; k++) {
		const struct req_request *r = &m->reqs[k];
		w->read += r->pred_read;
		w->written += r->pred_write;
		w->uncached += r->pred_uncached;
		w->loaded_read += r->loaded_read;
		w->loaded_written += r->loaded_write;
		w->loaded_uncached += r->loaded_uncached;
		w->changed += r->pred_read != r->loaded_read || r->pred_write != r->loaded_write ||
			      r->pred_uncached != r->loaded_uncached;
		if (r->group != now_group || !now_facts.facts) {
			request_facts_memo(m, &now_facts, request_model_name(m, r));
			now_group = r->group;
		}
		/* as loaded: its own model's, the same as now's but under the `model` setting */
		const struct req_model_facts *f = m->model_override ? request_facts_memo(m, &was_facts, r->model) : now_facts.facts;
		double now = cost(now_facts.facts, r, r->pred_read, r->pred_write, r->pred_uncached);
		double was = cost(f, r, r->loaded_read, r->loaded_write, r->loaded_uncached);
		if (now < 0 || was < 0)
			w->priced = false;
		else if (k == 0 || w->priced)
			w->priced = true;
		w->cost += now;
		w->loaded_cost += was;
	}
}

void request_whatif_sentence(const struct source *src, struct strbuf *out)
{
	const struct request_model *m = src->model;
	if (!m->edited || m->nreqs < 2)
		return;
	struct request_whatif w;
	request_whatif_totals(m, &w);
	char a[32], b[32], c[32], d[32];
	sb_printf(out, "log: read %s (was %s), written %s (was %s)", fmt_thousands(a, w.read),
		  fmt_thousands(b, w.loaded_read), fmt_thousands(c, w.written), fmt_thousands(d, w.loaded_written));
	if (w.priced)
		sb_printf(out, ", $%.4f %s", fabs(w.loaded_cost - w.cost), w.cost <= w.loaded_cost ? "saved" : "more");
}

int request_edited(struct source *src, struct cs_error *err)
{
	return request_repredict(src, src->model, err);
}

/* ---- the setting and the sequence ------------------------------------------- */

static int set_request(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct request_model *m = src->model;
	struct setting_value v;
	int rc = setting_parse(s, text, NULL, &v, err);
	if (rc != CS_OK)
		return rc;
	long want = (long)v.number;
	if (want > (long)m->nreqs)
		return cs_error_set(err, CS_EUSAGE, "request %s: this %s has %zu request%s", text,
				    src->input_type ? src->input_type : src->kind->title,
				    m->nreqs, m->nreqs == 1 ? "" : "s");
	long old = m->want_request;
	m->want_request = want;
	rc = m->select(src, want, err);
	if (rc != CS_OK)
		m->want_request = old;
	return rc;
}

/* request N: the request shown, of a log or a session. */
/* model NAME: every request priced and cached as NAME (what-if); "" or
 * "recorded": each request's own. A name with no cache facts is refused. */
static int set_model(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	(void)s;
	struct request_model *m = src->model;
	if (!text[0] || !strcmp(text, "recorded")) {
		m->model_override = NULL;
		return CS_OK;
	}
	bool known = false;
	request_facts(m, text, &known);
	if (!known)
		return cs_error_set(err, CS_EUSAGE, "model %.80s: no cache facts for it (a %s model, or a profile of "
				    "your cache.yml)", text, request_providers[m->provider].models);
	const char *copy = arena_strdup(&src->arena, text);
	if (!copy)
		return cs_error_nomem(err);
	m->model_override = copy;
	return CS_OK;
}

static void get_model(const struct source *src, const struct setting *s, struct strbuf *out)
{
	(void)s;
	const struct request_model *m = src->model;
	sb_puts(out, m->model_override ? m->model_override : "recorded");
}

const struct setting request_settings[] = {
	{ .name = "request", .type = SETTING_INT, .arg = "N", .min = 1, .max = REQUEST_MAX_LINES, .unset = "last",
	  .def = "last", .help = "the request of a log or session to open, 1 for the first; last: the last one (on a "
				 "session's main chain)",
	  SETTING_FIELD(SETTING_IN_MODEL, struct request_model, want_request), .set = set_request },
	{ .name = "model", .type = SETTING_TEXT, .arg = "NAME", .def = "recorded",
	  .help = "what-if: every request priced and cached as this model (its minimum prefix, prices); recorded: "
		  "each request's own",
	  .set = set_model, .get = get_model },
	{ .name = NULL },
};

static size_t seq_count(const struct source *src)
{
	return ((const struct request_model *)src->model)->nreqs;
}

static size_t seq_current(const struct source *src)
{
	return ((const struct request_model *)src->model)->current;
}

const char *request_step_group(const struct request_model *m, size_t k, char *buf, size_t size)
{
	int g = k < m->nreqs ? m->reqs[k].group : -1;
	if (m->ngroups < 2 || g < 0 || (size_t)g >= m->ngroups)
		return NULL;
	snprintf(buf, size, "%c %s", m->groups[g].mark, m->groups[g].model ? m->groups[g].model : "(no model)");
	return buf;
}

static const char *seq_group(const struct source *src, size_t step, char *buf, size_t size)
{
	return request_step_group(src->model, step, buf, size);
}

const struct kind_sequence request_sequence = {
	.noun = "request", .setting = "request", .count = seq_count, .current = seq_current, .group = seq_group,
};

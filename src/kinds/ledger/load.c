/* ledger/load.c: reading a ledger export (ctxscope-formats(5) section 2): one JSON
 * array per agents.db table, as `sqlite3 -json` prints them, plus the
 * optional `assembly` block. Ids may be text or whole numbers (INTEGER
 * keys); JSON-valued columns (ancestry, query_message_ids) may be JSON text
 * or already parsed; is_subagent may be 0/1 or a boolean.
 * Errors, positioned at the row and column: a dangling id (parent, turn,
 * head, compaction, query or response message, ancestry entry), a thread
 * ancestry that disagrees with parent_turn_id, two compaction rows for one
 * turn, two rows with one id, a parent_turn_id cycle, a session whose head
 * turn is missing, a value of the wrong type.
 * Unsupported: tool_calls rows are read for their shape only (their results
 * are in `tool` messages, which is what the broker replays); timestamps and
 * context_json are not interpreted. A message row of the usual shape is read
 * straight from its bytes (quick.c); any other goes the tree's way here.
 * The kind's table and settings are kind.c. */
#include "ledger.h"
#include "base/tune.h"

#include "db.h"
#include "ids.h"
#include "quick.h"

#include "base/alloc.h"
#include "assembly.h"
#include "json/doc.h"
#include "json/scan.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define LEDGER_FEW_PIECES 64

struct loader {
	struct source *src;
	struct ledger *l;
	struct json_doc *d;
	struct ledger_db *db; /* the tables' rows come from here; NULL: from d */
	struct cs_error *err;
	long *msg_order; /* message indices sorted by id */
	size_t *turn_at; /* export read lazily: where each turn with links starts (SIZE_MAX: none) */
};

static int nomem(struct cs_error *err)
{
	return cs_error_nomem(err);
}

/* Whether v is an id written as a number: a whole one, below 1e15. */
static bool whole_id(const cJSON *v)
{
	double x = json_number_value(v, NAN);
	return x == floor(x) && fabs(x) < 1e15;
}

/* An id column: text or a whole number, copied into the arena. */
static int get_id(struct loader *ld, const cJSON *row, const struct jpath *at, const char *key, int required,
		  const char **out)
{
	const cJSON *v = json_member(row, key);
	if (!v || json_is_null(v)) {
		if (required)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, at, NULL, "missing \"%s\" (an id)", key);
		return CS_OK;
	}
	if (json_is_string(v)) {
		if (!json_string_value(v)[0])
			return json_fail(ld->d, ld->err, CS_ETYPE, at, key, "expected an id, got an empty string");
		*out = arena_strdup(&ld->src->arena, json_string_value(v));
	} else if (whole_id(v)) {
		*out = arena_printf(&ld->src->arena, "%.0f", json_number_value(v, 0));
	} else {
		return json_fail(ld->d, ld->err, CS_ETYPE, at, key, "expected an id (a string or a whole number), got %s",
				 json_type_name(v));
	}
	return *out ? CS_OK : nomem(ld->err);
}

static int get_text(struct loader *ld, const cJSON *row, const struct jpath *at, const char *key, int required,
		    const char **out)
{
	const char *s = NULL;
	int rc = json_get_string(ld->d, row, at, key, required, &s, ld->err);
	if (rc || !s)
		return rc;
	*out = arena_strdup(&ld->src->arena, s);
	return *out ? CS_OK : nomem(ld->err);
}

/* A token count (json_require_count): -1 when absent or null. */
static int get_count(struct loader *ld, const cJSON *row, const struct jpath *at, const char *key, long *out)
{
	*out = -1;
	return json_require_count(ld->d, row, at, key, out, ld->err);
}

/* A JSON-valued column: parsed JSON text or the value itself. *owned is set
 * when *out must be freed with json_tree_free. NULL when absent or null. */
static int get_json_column(struct loader *ld, const cJSON *row, const struct jpath *at, const char *key,
			   const cJSON **out, cJSON **owned)
{
	*out = NULL;
	*owned = NULL;
	const cJSON *v = json_member(row, key);
	if (!v || json_is_null(v))
		return CS_OK;
	if (json_is_string(v)) {
		if (!json_string_value(v)[0])
			return CS_OK;
		*owned = json_tree_parse_str(json_string_value(v));
		void *probe = *owned ? NULL : cs_malloc(64); /* a failed allocation looks like bad JSON */
		if (!*owned && !probe)
			return nomem(ld->err);
		cs_free(probe);
		if (!*owned)
			return json_fail(ld->d, ld->err, CS_ESYNTAX, at, key, "expected a JSON array as text, got %s",
					 "text that is not valid JSON");
		if (json_is_null(*owned)) {
			json_tree_free(*owned);
			*owned = NULL;
			return CS_OK;
		}
		*out = *owned;
	} else {
		*out = v;
	}
	if (!json_is_array(*out)) {
		json_tree_free(*owned);
		*owned = NULL;
		return json_fail(ld->d, ld->err, CS_ETYPE, at, key, "expected an array of ids, got %s", json_type_name(*out));
	}
	return CS_OK;
}

static long message_index(const struct loader *ld, const char *id)
{
	return ledger_find_sorted(ld->msg_order, ld->l->nmessages, id, ledger_message_id_of, ld->l);
}

/* A table's rows, from the export's array (one element at a time) or the
 * database's scan. */
struct rows {
	struct loader *ld;
	struct jpath path;  /* export: the table's */
	struct json_iter it; /* export: its rows */
	size_t left;        /* database: rows not yet handed over */
	bool present;      /* the table is there (the database has all six) */
	int rc;            /* the database's error, once rows_next returned NULL */
};

/* The table `key` (absent: no rows, present false). */
static int table(struct loader *ld, const char *key, struct rows *r, size_t *n)
{
	*r = (struct rows){ .ld = ld };
	*n = 0;
	int rc;
	if (ld->db) {
		r->present = true;
		rc = ledger_db_scan(ld->db, key, n, ld->err);
	} else {
		struct json_array arr;
		rc = json_get_lazy(ld->d, key, JSON_OPTIONAL, &arr, ld->err);
		r->path = JPATH_KEY(JPATH_ROOT, key);
		json_iter_init(&r->it, ld->d, &arr, &r->path);
		r->present = arr.present;
		*n = arr.count;
	}
	r->left = *n;
	if (rc == CS_OK && *n > (size_t)LEDGER_MAX_ROWS)
		return json_fail(ld->d, ld->err, CS_ELIMIT, JPATH_ROOT, key, "more than %ld rows", LEDGER_MAX_ROWS);
	return rc;
}

/* The next row (valid until the next call); NULL after the last or on an
 * error (r->rc). */
static const cJSON *rows_next(struct rows *r)
{
	const cJSON *row = NULL;
	if (!r->ld->db) { /* to the ']': the text after the last row is checked */
		if (r->present)
			r->rc = json_iter_next(&r->it, &row, r->ld->err);
		return row;
	}
	if (r->left == 0)
		return NULL;
	r->left--;
	r->rc = ledger_db_next(r->ld->db, &row, r->ld->err);
	return row;
}

static int row_object(struct loader *ld, const cJSON *row, const struct jpath *at)
{
	if (!json_is_object(row))
		return json_fail(ld->d, ld->err, CS_ETYPE, at, NULL, "expected a row (an object), got %s",
				 json_type_name(row));
	return CS_OK;
}

/* Whether a turn row has what read_turn_links reads. */
static bool has_links(const cJSON *row)
{
	const cJSON *q = json_member(row, "query_message_ids");
	const cJSON *r = json_member(row, "response_message_id");
	return (q && !json_is_null(q)) || (r && !json_is_null(r));
}

static int read_turns(struct loader *ld)
{
	struct rows r;
	const cJSON *row;
	size_t n;
	int rc = table(ld, "turns", &r, &n);
	if (rc)
		return rc;
	if (!r.present)
		return json_fail(ld->d, ld->err, CS_ESTRUCT, JPATH_ROOT, NULL, "missing \"turns\" (the turns table)");
	struct ledger *l = ld->l;
	l->turns = arena_alloc(&ld->src->arena, (n ? n : 1) * sizeof *l->turns);
	if (!l->turns)
		return nomem(ld->err);
	if (!ld->db && r.it.a.span && !(ld->turn_at = cs_malloc((n ? n : 1) * sizeof *ld->turn_at)))
		return nomem(ld->err);
	struct jpath tp = JPATH_KEY(JPATH_ROOT, "turns");
	size_t i = 0;
	while ((row = rows_next(&r))) {
		struct jpath at = JPATH_INDEX(&tp, i);
		if ((rc = row_object(ld, row, &at)))
			return rc;
		struct ledger_turn *t = &l->turns[i];
		*t = (struct ledger_turn){ .parent = -1, .response = -1, .compaction_row = -1 };
		const char *type = NULL;
		if ((rc = get_id(ld, row, &at, "id", JSON_REQUIRED, &t->id)) ||
		    (rc = get_id(ld, row, &at, "parent_turn_id", JSON_OPTIONAL, &t->parent_id)) ||
		    (rc = json_get_string(ld->d, row, &at, "turn_type", JSON_OPTIONAL, &type, ld->err)) ||
		    (rc = get_text(ld, row, &at, "status", JSON_OPTIONAL, &t->status)) ||
		    (rc = get_text(ld, row, &at, "model", JSON_OPTIONAL, &t->model)) ||
		    (rc = get_text(ld, row, &at, "provider", JSON_OPTIONAL, &t->provider)) ||
		    (rc = get_text(ld, row, &at, "role", JSON_OPTIONAL, &t->role)) ||
		    (rc = get_count(ld, row, &at, "input_tokens", &t->input_tokens)) ||
		    (rc = get_count(ld, row, &at, "output_tokens", &t->output_tokens)) ||
		    (rc = get_count(ld, row, &at, "cached_input_tokens", &t->cached_input_tokens)) ||
		    (rc = get_count(ld, row, &at, "cache_write_tokens", &t->cache_write_tokens)) ||
		    (rc = get_count(ld, row, &at, "reasoning_tokens", &t->reasoning_tokens)) ||
		    (rc = get_count(ld, row, &at, "total_tokens", &t->total_tokens)))
			return rc;
		if (type && strcmp(type, "normal") && strcmp(type, "compaction"))
			return json_fail(ld->d, ld->err, CS_ETYPE, &at, "turn_type",
					 "unknown turn_type \"%s\": expected normal or compaction", type);
		t->compaction = type && !strcmp(type, "compaction");
		if (ld->turn_at)
			ld->turn_at[i] = has_links(row) ? r.it.el_start : SIZE_MAX;
		if (t->role && strcmp(t->role, "manager") && strcmp(t->role, "worker") && strcmp(t->role, "unified"))
			return json_fail(ld->d, ld->err, CS_ETYPE, &at, "role",
					 "unknown role \"%s\": expected manager, worker or unified", t->role);
		i++;
	}
	if (r.rc)
		return r.rc;
	l->nturns = n;
	long a, b;
	if (!(l->turn_order = ledger_sort_ids(&ld->src->arena, l, n, ledger_turn_id_of, &a, &b)))
		return nomem(ld->err);
	if (a >= 0) {
		struct jpath at = JPATH_INDEX(&tp, b);
		return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "id", "turn id \"%s\" is also turns[%ld]'s",
				 l->turns[b].id, a);
	}
	for (i = 0; i < n; i++) {
		struct ledger_turn *t = &l->turns[i];
		if (!t->parent_id)
			continue;
		t->parent = ledger_turn_index(l, t->parent_id);
		if (t->parent < 0) {
			struct jpath at = JPATH_INDEX(&tp, i);
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "parent_turn_id",
					 "dangling id: no turn \"%s\" (turn %s's parent)", t->parent_id, t->id);
		}
	}
	/* parent_turn_id cycles, in O(turns): each walk stops at a turn already
	 * known to reach a root, or at one it visited itself (a cycle). */
	long *seen = cs_calloc(n ? n : 1, sizeof *seen); /* 0: unknown; i + 1: on walk i; -1: reaches a root */
	if (!seen)
		return nomem(ld->err);
	for (i = 0; i < n; i++) {
		long k = (long)i;
		while (k >= 0 && seen[k] == 0) {
			seen[k] = (long)i + 1;
			k = l->turns[k].parent;
		}
		if (k >= 0 && seen[k] == (long)i + 1) {
			cs_free(seen);
			struct jpath at = JPATH_INDEX(&tp, k);
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "parent_turn_id",
					 "parent_turn_id forms a cycle through turn %s", l->turns[k].id);
		}
		for (k = (long)i; k >= 0 && seen[k] == (long)i + 1; k = l->turns[k].parent)
			seen[k] = -1;
	}
	cs_free(seen);
	return CS_OK;
}

static int cmp_messages(const void *x, const void *y, const struct ledger *l)
{
	long a = *(const long *)x, b = *(const long *)y;
	long sa = l->messages[a].sequence, sb = l->messages[b].sequence;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return (a > b) - (a < b);
}

/* Insertion sort of a turn's message list by (sequence, input order); a
 * turn holds a handful of messages. */
static void sort_turn_messages(const struct ledger *l, long *m, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		long v = m[i];
		size_t j = i;
		while (j > 0 && cmp_messages(&m[j - 1], &v, l) > 0) {
			m[j] = m[j - 1];
			j--;
		}
		m[j] = v;
	}
}

/* Message i's piece, its turn found from turn_before (the turn of the
 * message before: a table sorted by turn names it or the next). in_input:
 * the content string in the input, or NULL; text its n bytes unescaped. */
static int message_piece(struct loader *ld, size_t i, const char *turn, long *turn_before, const struct jpath *at,
			 const char *in_input, const char *text, size_t n)
{
	struct ledger *l = ld->l;
	struct ledger_message *m = &l->messages[i];
	m->system = !strcmp(m->role, "system");
	m->turn = *turn_before = ledger_turn_near(l, *turn_before, turn);
	if (m->turn < 0)
		return json_fail(ld->d, ld->err, CS_ESTRUCT, at, "turn_id", "dangling id: no turn \"%s\"", turn);
	long piece = source_add_piece(ld->src);
	if (piece < 0)
		return nomem(ld->err);
	m->piece = piece;
	struct piece *p = &ld->src->pieces[piece];
	p->id = m->id;
	p->role = m->role;
	p->kind_index = i;
	p->label = arena_printf(&ld->src->arena, "turn %s \xC2\xB7 %s", l->turns[m->turn].id, m->role);
	if (!p->label || source_keep_piece_text(ld->src, piece, in_input, text, n))
		return nomem(ld->err);
	l->turns[m->turn].nmessages++;
	return CS_OK;
}

/* Message row i, the tree's way. */
static int read_message(struct loader *ld, struct rows *r, const cJSON *row, size_t i, long *turn_before)
{
	struct jpath mp = JPATH_KEY(JPATH_ROOT, "messages");
	struct jpath at = JPATH_INDEX(&mp, i);
	int rc;
	if ((rc = row_object(ld, row, &at)))
		return rc;
	struct ledger_message *m = &ld->l->messages[i];
	*m = (struct ledger_message){ .turn = -1, .piece = -1 };
	const char *turn = NULL, *content = "";
	if ((rc = get_id(ld, row, &at, "id", JSON_REQUIRED, &m->id)) ||
	    (rc = get_id(ld, row, &at, "turn_id", JSON_REQUIRED, &turn)) ||
	    (rc = get_text(ld, row, &at, "role", JSON_REQUIRED, &m->role)) ||
	    (rc = json_get_string(ld->d, row, &at, "content", JSON_OPTIONAL, &content, ld->err)) ||
	    (rc = json_get_long(ld->d, row, &at, "sequence", JSON_OPTIONAL, &m->sequence, ld->err)))
		return rc;
	if (strcmp(m->role, "user") && strcmp(m->role, "assistant") && strcmp(m->role, "system") &&
	    strcmp(m->role, "tool"))
		return json_fail(ld->d, ld->err, CS_ETYPE, &at, "role",
				 "unknown role \"%s\": expected user, assistant, system or tool", m->role);
	return message_piece(ld, i, turn, turn_before, &at, ld->db ? NULL : json_iter_string_at(&r->it, "content"),
			     content, strlen(content));
}


/* Message row i, when the quick way reads it (quick.h): what read_message
 * keeps of the same row, the content unescaped into scratch when it holds
 * escapes. *done false: the row is left to read_message. */
static int read_quick(struct loader *ld, struct rows *r, size_t i, long *turn_before, struct strbuf *scratch,
		      bool *done)
{
	*done = false;
	size_t start = cs_tuned->ledger_quick && !ld->db && r->present ? json_iter_peek(&r->it) : SIZE_MAX, end;
	struct ledger_quick_message q;
	if (start == SIZE_MAX || !ledger_quick_message(ld->d->data, ld->d->len, start, &q, &end))
		return CS_OK;
	*done = true;
	json_iter_skip(&r->it, start, end);
	struct ledger_message *m = &ld->l->messages[i];
	*m = (struct ledger_message){ .turn = -1, .piece = -1, .sequence = q.sequence,
				      .role = ledger_quick_roles[q.role] };
	const char *turn = arena_strndup(&ld->src->arena, q.turn, q.turn_len);
	if (!(m->id = arena_strndup(&ld->src->arena, q.id, q.id_len)) || !turn)
		return nomem(ld->err);
	const char *text = q.has_content ? q.content : "";
	size_t n = q.content_len;
	if (q.escaped) {
		sb_reset(scratch);
		if (!sb_append(scratch, q.content, n))
			return nomem(ld->err);
		n -= q.escaped;
		json_unescape_in_place(scratch->data, n);
		text = scratch->data;
	}
	struct jpath mp = JPATH_KEY(JPATH_ROOT, "messages");
	return message_piece(ld, i, turn, turn_before, &JPATH_INDEX(&mp, i), q.has_content ? q.content : NULL, text,
			     n);
}

static int read_messages(struct loader *ld)
{
	struct rows r;
	const cJSON *row;
	size_t n;
	int rc = table(ld, "messages", &r, &n);
	if (rc)
		return rc;
	struct ledger *l = ld->l;
	l->messages = arena_alloc(&ld->src->arena, (n ? n : 1) * sizeof *l->messages);
	/* a piece per message, and room for the few made later (summaries, the event...) */
	if (!l->messages || source_reserve_pieces(ld->src, ld->src->npieces + n + LEDGER_FEW_PIECES))
		return nomem(ld->err);
	struct jpath mp = JPATH_KEY(JPATH_ROOT, "messages");
	size_t i = 0;
	long turn_before = -1;
	struct strbuf scratch = STRBUF_INIT;
	for (;;) {
		bool done;
		if ((rc = read_quick(ld, &r, i, &turn_before, &scratch, &done)))
			break;
		if (!done && (!(row = rows_next(&r)) || (rc = read_message(ld, &r, row, i, &turn_before))))
			break;
		i++;
	}
	sb_fini(&scratch);
	if (rc)
		return rc;
	if (r.rc)
		return r.rc;
	l->nmessages = n;
	long a, b;
	if (!(ld->msg_order = ledger_sort_ids(&ld->src->arena, l, n, ledger_message_id_of, &a, &b)))
		return nomem(ld->err);
	if (a >= 0) {
		struct jpath at = JPATH_INDEX(&mp, b);
		return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "id", "message id \"%s\" is also messages[%ld]'s",
				 l->messages[b].id, a);
	}
	/* Each turn's messages, in sequence order. */
	for (size_t t = 0; t < l->nturns; t++) {
		struct ledger_turn *tt = &l->turns[t];
		tt->messages = arena_alloc(&ld->src->arena, (tt->nmessages ? tt->nmessages : 1) * sizeof(long));
		if (!tt->messages)
			return nomem(ld->err);
		tt->nmessages = 0;
	}
	for (i = 0; i < n; i++) {
		struct ledger_turn *tt = &l->turns[l->messages[i].turn];
		tt->messages[tt->nmessages++] = (long)i;
	}
	for (size_t t = 0; t < l->nturns; t++)
		sort_turn_messages(l, l->turns[t].messages, l->turns[t].nmessages);
	return CS_OK;
}

/* An id in a JSON-valued column: its text, a whole number printed into buf,
 * or NULL. */
static const char *id_text(const cJSON *e, char *buf, size_t n)
{
	if (whole_id(e)) {
		snprintf(buf, n, "%.0f", json_number_value(e, 0));
		return buf;
	}
	return json_string_value(e);
}

/* One turn's query_message_ids and response_message_id. */
static int turn_links(struct loader *ld, const cJSON *row, const struct jpath *at, size_t i)
{
	struct ledger_turn *t = &ld->l->turns[i];
	const char *resp = NULL;
	int rc = get_id(ld, row, at, "response_message_id", JSON_OPTIONAL, &resp);
	if (rc)
		return rc;
	if (resp && (t->response = message_index(ld, resp)) < 0)
		return json_fail(ld->d, ld->err, CS_ESTRUCT, at, "response_message_id", "dangling id: no message \"%s\"",
				 resp);
	const cJSON *q;
	cJSON *owned;
	if ((rc = get_json_column(ld, row, at, "query_message_ids", &q, &owned)) || !q)
		return rc;
	struct jpath qp = JPATH_KEY(at, "query_message_ids");
	size_t nq = json_length(q), k = 0;
	t->has_query = true;
	t->query = arena_alloc(&ld->src->arena, (nq ? nq : 1) * sizeof *t->query);
	if (!t->query) {
		json_tree_free(owned);
		return nomem(ld->err);
	}
	const cJSON *e;
	JSON_EACH(e, q) {
		struct jpath ep = JPATH_INDEX(&qp, k);
		char buf[32];
		const char *id = id_text(e, buf, sizeof buf);
		long m = id ? message_index(ld, id) : -1;
		if (!id)
			rc = json_fail(ld->d, ld->err, CS_ETYPE, &ep, NULL, "expected a message id, got %s", json_type_name(e));
		else if (m < 0)
			rc = json_fail(ld->d, ld->err, CS_ESTRUCT, &ep, NULL, "dangling id: no message \"%s\"", id);
		if (rc) {
			json_tree_free(owned);
			return rc;
		}
		t->query[k++] = m;
	}
	t->nquery = k;
	json_tree_free(owned);
	return CS_OK;
}

/* query_message_ids and response_message_id, once messages are known (an
 * export's turns with links parsed again from their place). */
static int read_turn_links(struct loader *ld)
{
	struct jpath tp = JPATH_KEY(JPATH_ROOT, "turns");
	int rc = CS_OK;
	if (ld->turn_at) {
		for (size_t i = 0; i < ld->l->nturns && !rc; i++) {
			const cJSON *row;
			if (ld->turn_at[i] != SIZE_MAX && !(rc = json_doc_element(ld->d, ld->turn_at[i], &row, ld->err)))
				rc = turn_links(ld, row, &JPATH_INDEX(&tp, i), i);
		}
		return rc;
	}
	struct rows r;
	const cJSON *row;
	size_t n;
	if ((rc = table(ld, "turns", &r, &n)))
		return rc;
	size_t i = 0;
	while ((row = rows_next(&r)))
		if ((rc = turn_links(ld, row, &JPATH_INDEX(&tp, i), i)))
			return rc;
		else
			i++;
	return r.rc;
}

static int read_threads(struct loader *ld)
{
	struct rows r;
	const cJSON *row;
	size_t n;
	int rc = table(ld, "threads", &r, &n);
	if (rc || !r.present)
		return rc;
	struct ledger *l = ld->l;
	struct jpath hp = JPATH_KEY(JPATH_ROOT, "threads");
	size_t i = 0;
	while ((row = rows_next(&r))) {
		struct jpath at = JPATH_INDEX(&hp, i++);
		if ((rc = row_object(ld, row, &at)))
			return rc;
		const char *turn_id = NULL;
		if ((rc = get_id(ld, row, &at, "turn_id", JSON_REQUIRED, &turn_id)))
			return rc;
		long turn = ledger_turn_index(l, turn_id);
		if (turn < 0)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "turn_id", "dangling id: no turn \"%s\"", turn_id);
		const cJSON *anc;
		cJSON *owned;
		if ((rc = get_json_column(ld, row, &at, "ancestry", &anc, &owned)))
			return rc;
		if (!anc)
			continue; /* walk parent_turn_id */
		struct jpath ap = JPATH_KEY(&at, "ancestry");
		size_t na = json_length(anc), k = 0;
		long *ids = arena_alloc(&ld->src->arena, (na ? na : 1) * sizeof *ids);
		if (!ids) {
			json_tree_free(owned);
			return nomem(ld->err);
		}
		const cJSON *e;
		rc = CS_OK;
		JSON_EACH(e, anc) {
			char buf[32];
			const char *id = id_text(e, buf, sizeof buf);
			long t = id ? ledger_turn_index(l, id) : -1;
			if (!id)
				rc = json_fail(ld->d, ld->err, CS_ETYPE, &ap, NULL, "ancestry[%zu]: expected a turn id, got %s",
					       k, json_type_name(e));
			else if (t < 0)
				rc = json_fail(ld->d, ld->err, CS_ESTRUCT, &ap, NULL, "ancestry[%zu]: dangling id: no turn \"%s\"",
					       k, id);
			else if (k == 0 && l->turns[t].parent >= 0)
				rc = json_fail(ld->d, ld->err, CS_ESTRUCT, &ap, NULL,
					       "ancestry starts at turn %s, but its parent_turn_id is %s (not a root)", id,
					       l->turns[t].parent_id);
			else if (k > 0 && l->turns[t].parent != ids[k - 1])
				rc = json_fail(ld->d, ld->err, CS_ESTRUCT, &ap, NULL,
					       "ancestry does not match parent_turn_id: turn %s follows %s, but its parent is %s",
					       id, l->turns[ids[k - 1]].id,
					       l->turns[t].parent_id ? l->turns[t].parent_id : "none (a root)");
			if (rc) {
				json_tree_free(owned);
				return rc;
			}
			ids[k++] = t;
		}
		json_tree_free(owned);
		if (k == 0 || ids[k - 1] != turn)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &ap, NULL,
					 "ancestry must end at the thread's own turn %s, but ends at %s", turn_id,
					 k ? l->turns[ids[k - 1]].id : "nothing (it is empty)");
		l->turns[turn].ancestry = ids;
		l->turns[turn].nancestry = k;
	}
	if (r.rc)
		return r.rc;
	return CS_OK;
}

static int read_compactions(struct loader *ld)
{
	struct rows r;
	const cJSON *row;
	size_t n;
	int rc = table(ld, "compactions", &r, &n);
	if (rc)
		return rc;
	struct ledger *l = ld->l;
	l->compactions = arena_alloc(&ld->src->arena, (n ? n : 1) * sizeof *l->compactions);
	if (!l->compactions)
		return nomem(ld->err);
	struct jpath cp = JPATH_KEY(JPATH_ROOT, "compactions");
	size_t i = 0;
	while ((row = rows_next(&r))) {
		struct jpath at = JPATH_INDEX(&cp, i);
		if ((rc = row_object(ld, row, &at)))
			return rc;
		struct ledger_compaction *c = &l->compactions[i];
		*c = (struct ledger_compaction){ .through = -1, .first_kept = -1 };
		const char *turn = NULL, *through = NULL, *first = NULL, *summary = NULL;
		if ((rc = get_id(ld, row, &at, "turn_id", JSON_REQUIRED, &turn)) ||
		    (rc = json_get_string(ld->d, row, &at, "summary", JSON_REQUIRED, &summary, ld->err)) ||
		    (rc = get_id(ld, row, &at, "summarized_through_turn_id", JSON_OPTIONAL, &through)) ||
		    (rc = get_id(ld, row, &at, "first_kept_turn_id", JSON_OPTIONAL, &first)) ||
		    (rc = get_count(ld, row, &at, "tokens_before", &c->tokens_before)) ||
		    (rc = get_count(ld, row, &at, "tokens_after", &c->tokens_after)) ||
		    (rc = get_text(ld, row, &at, "trigger", JSON_OPTIONAL, &c->trigger)))
			return rc;
		if ((c->turn = ledger_turn_index(l, turn)) < 0)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "turn_id", "dangling id: no turn \"%s\"", turn);
		if (through && (c->through = ledger_turn_index(l, through)) < 0)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "summarized_through_turn_id",
					 "dangling id: no turn \"%s\"", through);
		if (first && (c->first_kept = ledger_turn_index(l, first)) < 0)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "first_kept_turn_id",
					 "dangling id: no turn \"%s\"", first);
		struct ledger_turn *t = &l->turns[c->turn];
		if (t->compaction_row >= 0)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "turn_id",
					 "turn %s has two compaction rows (compactions[%ld] and compactions[%zu])", turn,
					 t->compaction_row, i);
		if (!t->compaction)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "turn_id",
					 "turn %s has a compaction row but its turn_type is not compaction", turn);
		t->compaction_row = (long)i;
		long piece = source_add_piece(ld->src);
		if (piece < 0)
			return nomem(ld->err);
		c->piece = piece;
		struct piece *p = &ld->src->pieces[piece];
		p->id = arena_printf(&ld->src->arena, "compaction:%s", turn);
		p->label = arena_printf(&ld->src->arena, "summary \xC2\xB7 turn %s", turn);
		p->role = "summary";
		p->kind_index = i;
		if (!p->id || !p->label || source_set_piece_text(ld->src, piece, summary, strlen(summary)))
			return nomem(ld->err);
		i++;
	}
	if (r.rc)
		return r.rc;
	l->ncompactions = n;
	for (size_t t = 0; t < l->nturns; t++)
		if (l->turns[t].compaction && l->turns[t].compaction_row < 0) {
			struct jpath tp = JPATH_KEY(JPATH_ROOT, "turns");
			struct jpath at = JPATH_INDEX(&tp, t);
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "turn_type",
					 "compaction turn %s has no row in compactions (no summary to apply)",
					 l->turns[t].id);
		}
	return CS_OK;
}

static int get_flag(struct loader *ld, const cJSON *row, const struct jpath *at, const char *key, bool *out)
{
	const cJSON *v = json_member(row, key);
	if (!v || json_is_null(v))
		return CS_OK;
	if (json_is_bool(v))
		*out = json_is_true(v);
	else if (json_is_number(v) && (json_number_value(v, 0) == 0 || json_number_value(v, 0) == 1))
		*out = json_number_value(v, 0) == 1;
	else
		return json_fail(ld->d, ld->err, CS_ETYPE, at, key, "expected 0, 1, true or false, got %s",
				 json_type_name(v));
	return CS_OK;
}

static int read_sessions(struct loader *ld)
{
	struct rows r;
	const cJSON *row;
	size_t n;
	int rc = table(ld, "sessions", &r, &n);
	if (rc)
		return rc;
	struct ledger *l = ld->l;
	l->sessions = arena_alloc(&ld->src->arena, (n ? n : 1) * sizeof *l->sessions);
	if (!l->sessions)
		return nomem(ld->err);
	struct jpath sp = JPATH_KEY(JPATH_ROOT, "sessions");
	size_t i = 0;
	while ((row = rows_next(&r))) {
		struct jpath at = JPATH_INDEX(&sp, i);
		if ((rc = row_object(ld, row, &at)))
			return rc;
		struct ledger_session *s = &l->sessions[i];
		*s = (struct ledger_session){ .head = -1 };
		const char *head = NULL;
		if ((rc = get_id(ld, row, &at, "label", JSON_REQUIRED, &s->label)) ||
		    (rc = get_id(ld, row, &at, "thread_id", JSON_REQUIRED, &head)) ||
		    (rc = get_id(ld, row, &at, "persona_id", JSON_OPTIONAL, &s->persona_id)) ||
		    (rc = get_text(ld, row, &at, "task_description", JSON_OPTIONAL, &s->task_description)) ||
		    (rc = get_text(ld, row, &at, "status", JSON_OPTIONAL, &s->status)) ||
		    (rc = get_flag(ld, row, &at, "is_subagent", &s->is_subagent)))
			return rc;
		if ((s->head = ledger_turn_index(l, head)) < 0)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "thread_id",
					 "session %s: its head turn \"%s\" is missing from turns", s->label, head);
		i++;
	}
	if (r.rc)
		return r.rc;
	size_t b, a;
	if (strmap_first_repeat(l->sessions, n, sizeof *l->sessions, offsetof(struct ledger_session, label), &b, &a))
		return nomem(ld->err);
	if (b < n)
		return json_fail(ld->d, ld->err, CS_ESTRUCT, &JPATH_INDEX(&sp, b), "label",
				 "session label \"%s\" is also sessions[%zu]'s", l->sessions[b].label, a);
	l->nsessions = n;
	return CS_OK;
}

/* A piece the assembly block adds (not a ledger row). */
static long made_piece(struct loader *ld, const char *id, const char *label, const char *role, const char *text)
{
	long piece = source_add_piece(ld->src);
	if (piece < 0)
		return -1;
	struct piece *p = &ld->src->pieces[piece];
	p->id = arena_strdup(&ld->src->arena, id);
	p->label = arena_strdup(&ld->src->arena, label);
	p->role = role;
	if (!p->id || !p->label || source_set_piece_text(ld->src, piece, text, strlen(text)))
		return -1;
	return piece;
}

static int read_event(struct loader *ld, const cJSON *ev, const struct jpath *at)
{
	struct ledger *l = ld->l;
	const char *content = NULL;
	int rc;
	const cJSON *t = json_member(ev, "time");
	if ((rc = json_get_string(ld->d, ev, at, "content", JSON_REQUIRED, &content, ld->err)) ||
	    (!json_is_number(t) && (rc = get_text(ld, ev, at, "time", JSON_OPTIONAL, &l->event_time))) ||
	    (rc = get_text(ld, ev, at, "timezone", JSON_OPTIONAL, &l->event_timezone)) ||
	    (rc = get_text(ld, ev, at, "platform", JSON_OPTIONAL, &l->event_platform)))
		return rc;
	if (json_is_number(t)) { /* epoch milliseconds */
		double ms = json_number_value(t, 0);
		time_t secs = (time_t)(ms / 1000);
		struct tm tm;
		char buf[40];
		if (!gmtime_r(&secs, &tm))
			return json_fail(ld->d, ld->err, CS_ETYPE, at, "time", "a time out of range");
		strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
		l->event_time = arena_printf(&ld->src->arena, "%s.%03ldZ", buf, (long)fmod(ms, 1000));
		if (!l->event_time)
			return nomem(ld->err);
	}
	const cJSON *acts = NULL, *e;
	if ((rc = json_get_array(ld->d, ev, at, "platformActions", JSON_OPTIONAL, &acts, ld->err)))
		return rc;
	if (acts) {
		size_t n = json_length(acts), k = 0;
		l->event_actions = arena_alloc(&ld->src->arena, (n ? n : 1) * sizeof *l->event_actions);
		if (!l->event_actions)
			return nomem(ld->err);
		struct jpath ap = JPATH_KEY(at, "platformActions");
		JSON_EACH(e, acts) {
			struct jpath ep = JPATH_INDEX(&ap, k);
			if (!json_is_string(e))
				return json_fail(ld->d, ld->err, CS_ETYPE, &ep, NULL, "expected an action name, got %s",
						 json_type_name(e));
			if (!(l->event_actions[k++] = arena_strdup(&ld->src->arena, json_string_value(e))))
				return nomem(ld->err);
		}
		l->nevent_actions = k;
	}
	const cJSON *hook = json_member(ev, "hookData");
	if (hook && !json_is_null(hook)) {
		if (json_is_string(hook)) {
			l->event_hook = arena_strdup(&ld->src->arena, json_string_value(hook));
		} else {
			/* seed 001's renderHookData is not specified: compact JSON. */
			char *s = json_print_compact(hook);
			if (!s)
				return nomem(ld->err);
			l->event_hook = arena_strdup(&ld->src->arena, s);
			json_text_free(s);
		}
		if (!l->event_hook)
			return nomem(ld->err);
	}
	if ((l->event = made_piece(ld, "event", "next event", "user", content)) < 0)
		return nomem(ld->err);
	return CS_OK;
}

static int read_budget(struct loader *ld, const cJSON *bud, const struct jpath *at)
{
	struct ledger *l = ld->l;
	int rc;
	if ((rc = get_count(ld, bud, at, "modelLimit", &l->model_limit)) ||
	    (rc = get_count(ld, bud, at, "reserveResponse", &l->reserve_response)) ||
	    (rc = get_count(ld, bud, at, "reserveTools", &l->reserve_tools)))
		return rc;
	return CS_OK;
}

/* assembly.systemPrompt's sections, made pieces. */
static int read_sections(struct loader *ld, const cJSON *as, const struct jpath *ap)
{
	struct ledger *l = ld->l;
	const cJSON *sections = NULL, *v;
	int rc = json_get_array(ld->d, as, ap, "systemPrompt", JSON_OPTIONAL, &sections, ld->err);
	if (rc || !sections)
		return rc;
	size_t n = json_length(sections), k = 0;
	if (!(l->sections = arena_alloc(&ld->src->arena, (n ? n : 1) * sizeof *l->sections)))
		return nomem(ld->err);
	struct jpath sp = JPATH_KEY(ap, "systemPrompt");
	JSON_EACH(v, sections) {
		struct jpath at = JPATH_INDEX(&sp, k);
		const char *layer = NULL, *name = NULL, *text = NULL;
		if ((rc = row_object(ld, v, &at)) ||
		    (rc = json_get_string(ld->d, v, &at, "layer", JSON_REQUIRED, &layer, ld->err)) ||
		    (rc = json_get_string(ld->d, v, &at, "name", JSON_REQUIRED, &name, ld->err)) ||
		    (rc = json_get_string(ld->d, v, &at, "text", JSON_REQUIRED, &text, ld->err)))
			return rc;
		int li = !strcmp(layer, "workspace") ? 0 : !strcmp(layer, "persona") ? 1 : -1;
		if (li < 0)
			return json_fail(ld->d, ld->err, CS_ETYPE, &at, "layer",
					 "unknown layer \"%s\": expected workspace or persona", layer);
		char id[300];
		snprintf(id, sizeof id, "system:%s", name);
		long piece = made_piece(ld, id, name, "system", text);
		if (piece < 0)
			return nomem(ld->err);
		ld->src->pieces[piece].layer = li;
		l->sections[k++] = (struct ledger_section){ li, piece };
	}
	l->nsections = k;
	return CS_OK;
}

static int read_assembly(struct loader *ld)
{
	struct ledger *l = ld->l;
	const cJSON *as = NULL;
	struct jpath ap = JPATH_KEY(JPATH_ROOT, "assembly");
	int rc = json_get_object(ld->d, ld->d->root, JPATH_ROOT, "assembly", JSON_OPTIONAL, &as, ld->err);
	if (rc || !as)
		return rc;
	if ((rc = get_id(ld, as, &ap, "session", JSON_OPTIONAL, &l->session)) ||
	    (rc = get_id(ld, as, &ap, "turn", JSON_OPTIONAL, &l->turn)) ||
	    (rc = json_get_bool(ld->d, as, &ap, "next", JSON_OPTIONAL, &l->next, ld->err)) ||
	    (rc = get_text(ld, as, &ap, "model", JSON_OPTIONAL, &l->model)) ||
	    (rc = get_text(ld, as, &ap, "role", JSON_OPTIONAL, &l->role)))
		return rc;
	if (l->role && strcmp(l->role, "manager") && strcmp(l->role, "worker") && strcmp(l->role, "unified"))
		return json_fail(ld->d, ld->err, CS_ETYPE, &ap, "role",
				 "unknown role \"%s\": expected manager, worker or unified", l->role);
	if (l->turn && ledger_turn_index(l, l->turn) < 0)
		return json_fail(ld->d, ld->err, CS_ESTRUCT, &ap, "turn", "dangling id: no turn \"%s\"", l->turn);

	if ((rc = read_sections(ld, as, &ap)))
		return rc;
	const char *env = NULL;
	if ((rc = json_get_string(ld->d, as, &ap, "nexusEnvironment", JSON_OPTIONAL, &env, ld->err)))
		return rc;
	if (env && (l->nexus_env = made_piece(ld, "nexus-environment", "Nexus environment", "system", env)) < 0)
		return nomem(ld->err);
	const cJSON *rt = NULL;
	if ((rc = json_get_object(ld->d, as, &ap, "runtime", JSON_OPTIONAL, &rt, ld->err)))
		return rc;
	if (rt) {
		struct jpath rp = JPATH_KEY(&ap, "runtime");
		if ((rc = get_text(ld, rt, &rp, "host", JSON_OPTIONAL, &l->runtime_host)) ||
		    (rc = get_text(ld, rt, &rp, "os", JSON_OPTIONAL, &l->runtime_os)) ||
		    (rc = get_text(ld, rt, &rp, "arch", JSON_OPTIONAL, &l->runtime_arch)))
			return rc;
	}
	const cJSON *mem = NULL, *v;
	if ((rc = json_get_array(ld->d, as, &ap, "memory", JSON_OPTIONAL, &mem, ld->err)))
		return rc;
	size_t n = json_length(mem), k = 0;
	if (mem && !(l->memory = arena_alloc(&ld->src->arena, (n ? n : 1) * sizeof *l->memory)))
		return nomem(ld->err);
	struct jpath mp = JPATH_KEY(&ap, "memory");
	JSON_EACH(v, mem) {
		struct jpath at = JPATH_INDEX(&mp, k);
		if (!json_is_string(v))
			return json_fail(ld->d, ld->err, CS_ETYPE, &at, NULL, "expected a memory text, got %s",
					 json_type_name(v));
		char id[32];
		snprintf(id, sizeof id, "memory[%zu]", k);
		long piece = made_piece(ld, id, id, "memory", json_string_value(v));
		if (piece < 0)
			return nomem(ld->err);
		l->memory[k++] = piece;
	}
	l->nmemory = k;
	const cJSON *ev = NULL;
	if ((rc = json_get_object(ld->d, as, &ap, "event", JSON_OPTIONAL, &ev, ld->err)))
		return rc;
	if (ev && (rc = read_event(ld, ev, &JPATH_KEY(&ap, "event"))))
		return rc;
	if (l->next && l->event < 0)
		return json_fail(ld->d, ld->err, CS_ESTRUCT, &ap, "next",
				 "next is true but there is no assembly.event to assemble the next turn with");
	const cJSON *bud = NULL;
	if ((rc = json_get_object(ld->d, as, &ap, "budget", JSON_OPTIONAL, &bud, ld->err)))
		return rc;
	if (bud && (rc = read_budget(ld, bud, &JPATH_KEY(&ap, "budget"))))
		return rc;
	return CS_OK;
}

/* tool_calls: checked for shape and dangling turns only. */
static int read_tool_calls(struct loader *ld)
{
	struct rows r;
	const cJSON *row;
	size_t n;
	int rc = table(ld, "tool_calls", &r, &n);
	if (rc || !r.present)
		return rc;
	struct jpath tp = JPATH_KEY(JPATH_ROOT, "tool_calls");
	size_t i = 0;
	while ((row = rows_next(&r))) {
		struct jpath at = JPATH_INDEX(&tp, i++);
		const char *turn = NULL;
		if ((rc = row_object(ld, row, &at)) || (rc = get_id(ld, row, &at, "turn_id", JSON_OPTIONAL, &turn)))
			return rc;
		if (turn && ledger_turn_index(ld->l, turn) < 0)
			return json_fail(ld->d, ld->err, CS_ESTRUCT, &at, "turn_id", "dangling id: no turn \"%s\"", turn);
	}
	if (r.rc)
		return r.rc;
	return CS_OK;
}

void ledger_free(void *model)
{
	cs_free(model); /* everything else lives in the source's arena */
}

/* The tables and the assembly block, from d (an export) or from db's rows
 * (then d holds only the assembly block). */
static int load_tables(struct source *src, struct json_doc *d, struct ledger_db *db, struct cs_error *err)
{
	struct ledger *l = cs_calloc(1, sizeof *l);
	if (!l)
		return nomem(err);
	src->model = l;
	l->nexus_env = l->event = -1;
	l->model_limit = l->reserve_response = l->reserve_tools = -1;
	struct loader ld = { .src = src, .l = l, .d = d, .db = db, .err = err };
	int rc = CS_OK;
	if (!json_is_object(d->root))
		rc = json_fail(d, err, CS_ETYPE, JPATH_ROOT, NULL,
			       "expected an object with one array per table (turns, messages, ...), got %s",
			       json_type_name(d->root));
	if (!rc)
		rc = read_turns(&ld);
	if (!rc)
		rc = read_messages(&ld);
	if (!rc)
		rc = read_turn_links(&ld);
	if (!rc)
		rc = read_threads(&ld);
	if (!rc)
		rc = read_compactions(&ld);
	if (!rc)
		rc = read_sessions(&ld);
	if (!rc)
		rc = read_tool_calls(&ld);
	if (!rc)
		rc = read_assembly(&ld);
	cs_free(ld.turn_at);
	if (rc)
		return rc;
	if (l->nsessions == 0 && (rc = source_warn(src, -1, 0, 0, "no sessions: assembling from the last turn's ancestry")))
		return nomem(err);
	/* Recorded usage a message can own: the response's output_tokens. */
	for (size_t t = 0; t < l->nturns; t++) {
		const struct ledger_turn *tt = &l->turns[t];
		if (tt->response >= 0 && tt->output_tokens >= 0) {
			struct piece *p = &src->pieces[l->messages[tt->response].piece];
			p->recorded_tokens = tt->output_tokens;
			p->flags |= PIECE_RECORDED;
		}
	}
	return CS_OK;
}

int ledger_load(struct source *src, const char *data, size_t len, struct cs_error *err)
{
	static const char *const lazy[] = { "turns", "messages", "threads", "compactions", "sessions", "tool_calls", NULL };
	struct json_doc d;
	int rc = json_doc_parse_lazy(&d, data, len, lazy, err);
	if (rc == CS_OK)
		rc = load_tables(src, &d, NULL, err);
	json_doc_free(&d);
	return rc;
}

/* agents.db itself: its rows read as the export's (db.h), one at a time;
 * errors told by table, row id and column (or the assembly file's
 * position). */
int ledger_load_db(struct source *src, const char *path, const char *assembly, struct cs_error *err)
{
	struct strbuf root = STRBUF_INIT;
	struct ledger_db *db;
	int rc = ledger_db_open(path, assembly, &db, &root, err);
	if (rc == CS_OK) {
		struct json_doc d;
		src->input_type = "ledger database";
		rc = json_doc_parse(&d, root.data, root.len, err);
		if (rc == CS_OK)
			rc = load_tables(src, &d, db, err);
		ledger_db_locate(db, path, assembly, err);
		json_doc_free(&d);
		ledger_db_close(db);
	} else if (err && !err->file[0]) {
		cs_error_file(err, path);
	}
	struct stat st;
	if (rc == CS_OK && stat(path, &st) == 0)
		src->input_bytes = (size_t)st.st_size;
	sb_fini(&root);
	return rc;
}

/* load.c: the anthropic and openai kinds: a request body, or a request log
 * (.jsonl) of bodies or captured {request, response} exchanges, into units
 * (parse.c), the current request's units as pieces, then the sequence's
 * predictions (sequence.c). */
#include "request.h"

#include "kinds/request/counted.h"

#include "base/alloc.h"
#include "assembly.h"
#include "json/reuse.h"
#include "json/scan.h"
#include "json/lines.h"
#include "kinds/loom/loom.h"
#include "source.h"
#include "base/fileio.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void request_model_free(void *model)
{
	struct request_model *m = model;
	if (!m)
		return;
	json_doc_free(&m->doc);
	request_counted_memo_free(m->counted_memo);
	cs_free(m->units);
	cs_free(m->reqs);
	cs_free(m->lints);
	cs_free(m->user_facts);
	cs_free(m->unit_piece);
	cs_free(m->piece_unit);
	cs_free(m->bp_override);
	request_predictions_free(m);
	cs_free(m->groups);
	arena_fini(&m->pred_arena);
	cs_free(m);
}

int request_lint(struct source *src, struct request_model *m, const char *code, long unit, bool error,
		 const char *fmt, ...)
{
	if (m->nlints == m->cap_lints) {
		size_t cap = m->cap_lints ? m->cap_lints * 2 : 8;
		struct req_lint *l = cs_realloc(m->lints, cap * sizeof *l);
		if (!l)
			return CS_ENOMEM;
		m->lints = l;
		m->cap_lints = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	(void)src;
	const char *s = arena_vprintf(&m->pred_arena, fmt, ap);
	va_end(ap);
	if (!s)
		return CS_ENOMEM;
	m->lints[m->nlints++] = (struct req_lint){ code, unit, s, error };
	return CS_OK;
}

/* ---- one body ----------------------------------------------------------- */

static int provider_for(const struct kind_ops *kind, const cJSON *body)
{
	const char *why;
	if (kind == &anthropic_kind)
		return REQ_ANTHROPIC;
	int p = request_provider_of(body, &why);
	if (p >= 0 && (p != REQ_ANTHROPIC || kind != &openai_kind))
		return p; /* a log shape's kind (a capture, LiteLLM...) carries any provider's bodies */
	return p == REQ_OPENAI_RESPONSES || (p < 0 && json_member(body, "input")) ? REQ_OPENAI_RESPONSES
										  : REQ_OPENAI_CHAT;
}

/* The body inside a line: the object itself, or an exchange's request
 * (or its body); *response gets the exchange's response (NULL none). */
const cJSON *request_unwrap(const cJSON *obj, const cJSON **response)
{
	*response = NULL;
	const cJSON *req = json_member(obj, "request");
	if (!json_is_object(req))
		return obj;
	*response = json_member(obj, "response");
	return json_is_object(json_member(req, "body")) ? json_member(req, "body") : req;
}

/* Takes the document of the request just parsed as the current one. */
static void make_current(struct request_model *m, struct json_doc *d, const cJSON *body)
{
	if (m->nreqs > 1) {
		const struct req_request *prev = &m->reqs[m->current];
		for (size_t u = prev->first_unit; u < prev->first_unit + prev->nunits; u++)
			m->units[u].node = NULL;
	}
	json_doc_free(&m->doc);
	m->doc = *d;
	m->body = body;
	m->current = m->nreqs - 1;
	memset(d, 0, sizeof *d);
}

static bool is_log(const char *path)
{
	size_t n = strlen(path);
	return n > 6 && !strcmp(path + n - 6, ".jsonl");
}

/* A body's own time: its "timestamp" or "time". */
static double body_time(const cJSON *obj)
{
	const cJSON *t = json_member(obj, "timestamp");
	return request_time_of(t ? t : json_member(obj, "time"));
}

/* One request (a single body), parsed and made the current one. */
static int take_request(struct source *src, struct request_model *m, struct json_doc *d, const cJSON *obj,
			struct cs_error *err)
{
	const cJSON *response;
	const cJSON *body = request_unwrap(obj, &response);
	if (!json_is_object(body))
		return json_fail(d, err, CS_ETYPE, JPATH_ROOT, NULL, "expected a request body (an object), got %s",
				 json_type_name(body));
	int provider = provider_for(src->kind, body);
	int rc = request_parse_body(src, m, d, body, JPATH_ROOT, provider, 0, true, err);
	if (rc != CS_OK)
		return rc;
	m->provider = provider;
	struct req_request *r = &m->reqs[m->nreqs - 1];
	r->time = body_time(obj);
	if (json_is_object(response) && request_read_usage(src, r, d, json_is_object(json_member(response, "body"))
					? json_member(response, "body") : response, "response", 0) != CS_OK)
		return cs_error_nomem(err);
	make_current(m, d, body);
	return CS_OK;
}

/* ---- a log: its records, whatever the shape -------------------------------- */

/* A result of a batch (its output or results file), kept by custom_id until
 * the requests are all read. */
struct result {
	const char *id;          /* arena */
	struct req_request fig;  /* its recorded figures */
};

struct log_load {
	struct source *src;
	struct request_model *m;
	const struct req_shape *forced; /* the kind's shape (--kind), NULL: each record's own */
	const char **ids;        /* per request: its custom_id (arena), NULL none */
	size_t cap_ids;
	struct result *results;
	size_t nresults, cap_results;
	long skipped;            /* records that hold no request */
	const char *first_skip;  /* the first one's reason (the error says it when none holds one) */
	long first_skip_at;
	const char *where;       /* a document's array ("log.entries"), NULL for lines */
};

static uint64_t account_hash(const char *s)
{
	return s ? request_hash(s, strlen(s), REQUEST_HASH_SEED) | 1 : 0;
}

static const char *record_name(char *buf, size_t n, const struct log_load *L, long line)
{
	if (L->where)
		snprintf(buf, n, "%s[%ld]", L->where, line - 1);
	else
		snprintf(buf, n, "line %ld", line);
	return buf;
}

static int keep_result(struct log_load *L, const struct json_doc *d, const struct req_record *rec, long line)
{
	if (L->nresults == L->cap_results) {
		size_t cap = L->cap_results ? L->cap_results * 2 : 16;
		struct result *r = cs_realloc(L->results, cap * sizeof *r);
		if (!r)
			return CS_ENOMEM;
		L->results = r;
		L->cap_results = cap;
	}
	struct result *x = &L->results[L->nresults];
	memset(x, 0, sizeof *x);
	x->fig.rec_write_1h = x->fig.rec_output = x->fig.rec_missed = -1;
	x->id = arena_strdup(&L->src->arena, rec->id);
	if (!x->id)
		return CS_ENOMEM;
	L->nresults++;
	return rec->result ? request_read_usage(L->src, &x->fig, d, rec->result, "response.body", L->where ? 0 : line)
			   : CS_OK;
}

static int keep_id(struct log_load *L, const char *id)
{
	size_t k = L->m->nreqs - 1;
	if (k >= L->cap_ids) {
		size_t cap = L->cap_ids ? L->cap_ids * 2 : 16;
		const char **ids = cs_realloc(L->ids, cap * sizeof *ids);
		if (!ids)
			return CS_ENOMEM;
		memset(ids + L->cap_ids, 0, (cap - L->cap_ids) * sizeof *ids);
		L->ids = ids;
		L->cap_ids = cap;
	}
	L->ids[k] = id ? arena_strdup(&L->src->arena, id) : NULL;
	return !id || L->ids[k] ? CS_OK : CS_ENOMEM;
}

/* The body of a record: its node, or its text parsed into *bd. CS_OK with
 * *body NULL and a warning when the text is not a JSON object. */
static int record_body(struct log_load *L, const struct req_record *rec, struct json_doc *bd, const cJSON **body,
		       long line)
{
	*body = rec->body;
	if (*body || !rec->body_text)
		return CS_OK;
	struct cs_error e;
	cs_error_clear(&e);
	int rc = json_doc_parse(bd, rec->body_text, strlen(rec->body_text), &e);
	if (rc == CS_ENOMEM)
		return rc;
	if (rc == CS_OK && json_is_object(bd->root)) {
		*body = bd->root;
		return CS_OK;
	}
	char name[64];
	return source_warn(L->src, -1, line, 1, "%s: the request body is not a JSON object (%s); skipped",
			   record_name(name, sizeof name, L, line), rc == CS_OK ? "another value" : e.message)
		       ? CS_ENOMEM : CS_OK;
}

/* The provider a record's body is written for: what the record says (its
 * URL), the kind's, or the body's look. */
static int record_provider(const struct log_load *L, const struct req_record *rec, const cJSON *body)
{
	if (L->src->kind == &anthropic_kind)
		return REQ_ANTHROPIC;
	if (rec->provider >= 0)
		return rec->provider;
	return provider_for(L->src->kind, body);
}

/* One record: a request with what its response recorded, a result kept for
 * its request, or something skipped with a warning that names it. */
static int take_record(struct log_load *L, const struct json_doc *d, const cJSON *obj, long line, size_t offset,
		       size_t length, struct cs_error *err)
{
	struct source *src = L->src;
	struct request_model *m = L->m;
	const struct req_shape *sh = L->forced ? L->forced : L->where ? L->m->shape : request_shape_of(obj);
	struct req_record rec = { .provider = -1, .time = -1 };
	char name[64];
	int rc = CS_OK;
	if (!sh) {
		const cJSON *resp;
		rec.body = request_unwrap(obj, &resp);
		rec.time = body_time(obj);
		rec.response = json_is_object(json_member(resp, "body")) ? json_member(resp, "body") : resp;
		rec.response = json_is_object(rec.response) ? rec.response : NULL;
		const char *why;
		if (!json_is_object(rec.body) ||
		    (request_provider_of(rec.body, &why) < 0 && !json_member(rec.body, "messages")))
			rec.skip = "not a request or a {request, response} exchange";
	} else if (!L->where && !sh->is(obj)) { /* a document's elements are its shape's by place */
		rec.skip = arena_printf(&src->arena, "not a %s record", sh->title);
	} else {
		rc = sh->take(src, obj, &rec);
	}
	if (rc != CS_OK || !(rec.skip || rec.body || rec.body_text))
		return rc != CS_OK ? cs_error_nomem(err) : CS_OK;
	if (rec.is_result)
		return keep_result(L, d, &rec, line) == CS_OK ? CS_OK : cs_error_nomem(err);
	if (rec.skip) {
		if (!L->skipped++) {
			L->first_skip = rec.skip;
			L->first_skip_at = line;
		}
		return source_warn(src, -1, line, 1, "%s: %s; skipped", record_name(name, sizeof name, L, line), rec.skip)
			       ? cs_error_nomem(err) : CS_OK;
	}
	if (m->nreqs >= REQUEST_MAX_LINES)
		return cs_error_set(err, CS_ELIMIT, "more than %d requests in one log", REQUEST_MAX_LINES);
	struct json_doc bd = { 0 };
	const cJSON *body;
	rc = record_body(L, &rec, &bd, &body, line);
	if (rc == CS_OK && body) {
		int provider = record_provider(L, &rec, body);
		rc = request_parse_body(src, m, bd.root ? &bd : d, body, JPATH_ROOT, provider, line, false, err);
		if (rc == CS_OK) {
			struct req_request *r = &m->reqs[m->nreqs - 1];
			r->time = rec.time;
			r->batch = rec.id != NULL; /* a custom_id: a batch's request */
			r->account = account_hash(rec.account);
			r->offset = offset;
			r->length = length;
			m->provider = provider;
			const char *where = rec.response_where ? rec.response_where : "response";
			long at = L->where ? 0 : line; /* a document's element: its place in the text */
			rc = rec.response ? request_read_usage(src, r, d, rec.response, where, at)
			     : rec.response_text ? request_read_usage_text(src, r, rec.response_text, strlen(rec.response_text), where, line)
						 : CS_OK;
			if (rc == CS_OK)
				rc = keep_id(L, rec.id);
			if (rc != CS_OK)
				rc = cs_error_nomem(err);
		}
	}
	json_doc_free(&bd);
	return rc;
}

static int log_line(struct log_load *L, struct json_reuse *pool, const char *s, size_t n, long line, bool last,
		    size_t offset, struct cs_error *err)
{
	struct source *src = L->src;
	struct json_doc d;
	int rc = json_reuse_parse(pool, &d, s, n, err);
	if (rc != CS_OK) {
		json_doc_free(&d);
		if (rc == CS_ENOMEM)
			return rc;
		long col = err->column;
		if (last) {
			cs_error_clear(err);
			return source_warn(src, -1, line, col,
					   "line %ld: malformed last line ignored (a log still being written?)", line)
				       ? CS_ENOMEM : CS_OK;
		}
		cs_error_pos(err, line, col);
		char msg[CS_ERROR_MSG_MAX];
		memcpy(msg, err->message, sizeof msg);
		return cs_error_set(err, (enum cs_status)rc, "line %ld: %s", line, msg);
	}
	if (!json_is_object(d.root)) {
		json_doc_free(&d);
		L->skipped++;
		return source_warn(src, -1, line, 1, "line %ld: not a request or a {request, response} exchange; skipped",
				   line) ? CS_ENOMEM : CS_OK;
	}
	rc = take_record(L, &d, d.root, line, offset, n, err);
	if (rc != CS_OK && rc != CS_ENOMEM && err->line <= 1) {
		long col = err->column;
		cs_error_pos(err, line, col);
		char msg[CS_ERROR_MSG_MAX];
		memcpy(msg, err->message, sizeof msg);
		cs_error_set(err, (enum cs_status)rc, "line %ld: %s", line, msg);
	}
	json_doc_free(&d);
	return rc;
}

static int load_lines(struct log_load *L, const char *data, size_t len, long *lines, struct cs_error *err)
{
	struct jsonl j;
	jsonl_init(&j, data, len);
	if (L->src->input_owned)
		jsonl_give_back(&j);
	const char *s;
	size_t n;
	bool last;
	struct json_reuse pool = JSON_REUSE_INIT;
	int rc = CS_OK;
	while (rc == CS_OK && jsonl_next(&j, &s, &n, &last))
		rc = log_line(L, &pool, s, n, j.line, last, (size_t)(s - data), err);
	json_reuse_fini(&pool);
	*lines = j.line;
	return rc;
}

/* A document's records (a HAR's entries, a batch's requests, or the one
 * LiteLLM payload a file holds). */
static int load_document(struct log_load *L, const struct req_shape *sh, const char *data, size_t len,
			 struct cs_error *err)
{
	struct json_doc d;
	int rc = json_doc_parse(&d, data, len, err);
	const cJSON *list = rc == CS_OK && sh->records ? sh->records(d.root, &L->where) : NULL;
	long i = 0;
	if (rc == CS_OK && !list)
		rc = take_record(L, &d, d.root, 1, 0, 0, err);
	const cJSON *el;
	JSON_EACH(el, list) {
		if (rc != CS_OK)
			break;
		i++;
		if (!json_is_object(el)) {
			char name[64];
			L->skipped++;
			rc = source_warn(L->src, -1, i, 1, "%s: not an object; skipped", record_name(name, sizeof name, L, i))
				     ? cs_error_nomem(err) : CS_OK;
			continue;
		}
		rc = take_record(L, &d, el, i, (size_t)(i - 1), 0, err);
		if (rc != CS_OK && rc != CS_ENOMEM) {
			char msg[CS_ERROR_MSG_MAX], name[64];
			memcpy(msg, err->message, sizeof msg);
			cs_error_set(err, (enum cs_status)rc, "%s: %s", record_name(name, sizeof name, L, i), msg);
		}
	}
	json_doc_free(&d);
	return rc;
}
/* A log by its content, whatever its name: two or more lines, the first
 * a whole JSON object that does not end the text. CS_OK or CS_ENOMEM. */
static int looks_like_log(const char *data, size_t len, bool *yes)
{
	*yes = false;
	const char *nl = memchr(data, '\n', len);
	if (!nl || jsonl_blank(nl + 1, len - (size_t)(nl - data) - 1))
		return CS_OK;
	size_t n = (size_t)(nl - data);
	while (n && (data[n - 1] == '\r' || data[n - 1] == ' '))
		n--;
	if (!n || data[0] != '{' || data[n - 1] != '}')
		return CS_OK;
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = json_doc_parse(&d, data, n, &err);
	*yes = rc == CS_OK && json_is_object(d.root);
	json_doc_free(&d);
	return rc == CS_ENOMEM ? CS_ENOMEM : CS_OK;
}

/* ---- batch results: joined to their requests by custom_id ------------------ */

static void apply_result(struct req_request *r, const struct req_request *f)
{
	r->recorded = f->recorded;
	r->rec_read = f->rec_read;
	r->rec_write = f->rec_write;
	r->rec_uncached = f->rec_uncached;
	r->rec_write_1h = f->rec_write_1h;
	r->rec_output = f->rec_output;
	r->rec_fast = f->rec_fast;
	r->rec_web_searches = f->rec_web_searches;
	r->rec_miss = f->rec_miss;
	r->rec_missed = f->rec_missed;
	r->response_id = f->response_id;
}

/* Every result to the request of its custom_id; a result with none, and
 * requests left without one, are said once each. */
static int join_results(struct log_load *L, const char *from)
{
	struct request_model *m = L->m;
	struct strmap ids = STRMAP_INIT;
	size_t old, joined = 0, orphans = 0;
	int rc = CS_OK;
	for (size_t k = 0; k < m->nreqs && k < L->cap_ids && rc == CS_OK; k++) {
		if (L->ids[k] && strmap_put(&ids, L->ids[k], strlen(L->ids[k]), k, &old) != 0)
			rc = CS_ENOMEM;
		else if (L->ids[k] && old != STRMAP_NONE &&
			 source_warn(L->src, -1, m->reqs[k].line, 1, "line %ld: custom_id \"%.60s\" again (line %ld has it): "
				     "its result goes to this one", m->reqs[k].line, L->ids[k], m->reqs[old].line))
			rc = CS_ENOMEM;
	}
	const char *orphan = NULL;
	for (size_t i = 0; i < L->nresults && rc == CS_OK; i++) {
		size_t k = strmap_get(&ids, L->results[i].id, strlen(L->results[i].id));
		if (k == STRMAP_NONE) {
			orphan = orphan ? orphan : L->results[i].id;
			orphans++;
			continue;
		}
		apply_result(&m->reqs[k], &L->results[i].fig);
		joined++;
	}
	strmap_fini(&ids);
	if (rc == CS_OK && orphans &&
	    source_warn(L->src, -1, 0, 0, "%s: %zu result%s with no request of that custom_id (the first: \"%.60s\")",
			from, orphans, orphans == 1 ? "" : "s", orphan))
		rc = CS_ENOMEM;
	if (rc == CS_OK && joined < m->nreqs &&
	    source_warn(L->src, -1, 0, 0, "%s: %zu of %zu requests have no result there", from, m->nreqs - joined,
			m->nreqs))
		rc = CS_ENOMEM;
	return rc;
}

/* The results file beside a batch's requests, by name: NAME_output.jsonl,
 * NAME-output.jsonl, NAME.output.jsonl, the same with "results", and
 * "input" in NAME read as "output" or "results". NULL none (arena). */
static const char *results_beside(struct source *src)
{
	const char *path = src->path;
	size_t n = strlen(path);
	size_t stem = n > 6 && !strcmp(path + n - 6, ".jsonl") ? n - 6 : n > 5 && !strcmp(path + n - 5, ".json") ? n - 5 : n;
	static const char *const tails[] = { "_output.jsonl", "-output.jsonl", ".output.jsonl",
					     "_results.jsonl", "-results.jsonl", ".results.jsonl" };
	for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
		const char *p = arena_printf(&src->arena, "%.*s%s", (int)stem, path, tails[i]);
		FILE *f = p ? fopen(p, "rb") : NULL;
		if (f) {
			fclose(f);
			return p;
		}
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *in = strstr(base, "input");
	for (int w = 0; in && w < 2; w++) {
		const char *p = arena_printf(&src->arena, "%.*s%s%s", (int)(in - path), path, w ? "results" : "output", in + 5);
		FILE *f = p && strcmp(p, path) ? fopen(p, "rb") : NULL;
		if (f) {
			fclose(f);
			return p;
		}
	}
	return NULL;
}

static int load_results(struct log_load *L, const char *path, struct cs_error *err)
{
	char *data;
	size_t len;
	struct cs_error e;
	cs_error_clear(&e);
	int rc = file_read(path, 0, &data, &len, NULL, &e);
	if (rc == CS_ENOMEM)
		return cs_error_nomem(err);
	if (rc != CS_OK)
		return source_warn(L->src, -1, 0, 0, "%s: not read (%s)", path, e.message) ? cs_error_nomem(err) : CS_OK;
	struct log_load R = { .src = L->src, .m = L->m, .forced = L->forced };
	size_t had = L->m->nreqs;
	long lines;
	rc = load_lines(&R, data, len, &lines, &e);
	cs_free(data);
	if (rc == CS_OK && L->m->nreqs > had) /* requests in a results file: not taken from there */
		L->m->nreqs = had;
	if (rc == CS_ENOMEM)
		return cs_error_nomem(err);
	if (rc != CS_OK)
		rc = source_warn(L->src, -1, e.line, e.column, "%s: %s; its results are not joined", path, e.message)
			     ? cs_error_nomem(err) : CS_OK;
	else {
		for (size_t i = 0; i < R.nresults && rc == CS_OK; i++) { /* moved to L */
			struct req_record rec = { .id = R.results[i].id };
			if (keep_result(L, NULL, &rec, 0) != CS_OK)
				rc = cs_error_nomem(err);
			else
				L->results[L->nresults - 1].fig = R.results[i].fig;
		}
	}
	cs_free(R.results);
	cs_free(R.ids);
	return rc;
}

/* ---- the whole file ----------------------------------------------------- */

static int load_log(struct source *src, struct request_model *m, const struct req_shape *sh, const char *data,
		    size_t len, struct cs_error *err)
{
	struct log_load L = { .src = src, .m = m, .forced = request_shape_named(src->kind->name) };
	long lines = 0;
	int rc = m->document ? load_document(&L, sh, data, len, err) : load_lines(&L, data, len, &lines, err);
	if (rc == CS_OK && m->nreqs && L.cap_ids && !L.nresults) {
		const char *beside = results_beside(src);
		if (beside) {
			rc = load_results(&L, beside, err);
			m->results_from = beside;
		}
	}
	if (rc == CS_OK && L.nresults && m->nreqs)
		rc = join_results(&L, m->results_from ? m->results_from : src->path) == CS_OK ? CS_OK : cs_error_nomem(err);
	if (rc == CS_OK && request_resolve_compared(m) != CS_OK)
		rc = cs_error_nomem(err);
	if (rc == CS_OK && !m->nreqs) {
		const char *what = sh ? sh->title : "this log";
		if (L.nresults && sh && sh->lacks)
			rc = cs_error_set(err, CS_ESTRUCT, "%s: %zu result%s, but no request: missing %s", what, L.nresults,
					  L.nresults == 1 ? "" : "s", sh->lacks);
		else if (L.skipped) {
			char name[64];
			rc = cs_error_set(err, CS_ESTRUCT, "%s: %ld record%s, none a request to a Messages, Chat Completions or "
					  "Responses endpoint (the first, %s: %.120s)", what, L.skipped, L.skipped == 1 ? "" : "s",
					  record_name(name, sizeof name, &L, L.first_skip_at), L.first_skip);
		}
		else
			rc = cs_error_set(err, CS_ESTRUCT, "no request in this log (%ld line%s)", lines, lines == 1 ? "" : "s");
	}
	cs_free(L.ids);
	cs_free(L.results);
	m->doc_request = REQUEST_NO_UNIT; /* the request shown is read again from the file (steps.c) */
	return rc;
}

int request_load(struct source *src, const char *data, size_t len, struct cs_error *err)
{
	struct request_model *m = cs_calloc(1, sizeof *m);
	if (!m)
		return cs_error_nomem(err);
	src->model = m;
	if (!(m->counted_memo = request_counted_memo_new()))
		return cs_error_nomem(err);
	m->want_request = -1;
	m->select = request_select_want;
	bool log = is_log(src->path), nomem = false;
	int rc = log ? CS_OK : looks_like_log(data, len, &log);
	const struct req_shape *sh = request_shape_named(src->kind->name); /* --kind, or the kind detected */
	if (!sh && rc == CS_OK)
		sh = request_detect_shape(src->path, data, len, &nomem);
	if (rc != CS_OK || nomem)
		return cs_error_nomem(err);
	m->shape = sh;
	m->document = sh && !log;
	if (log || sh) {
		m->is_log = true;
		src->input_type = sh ? sh->title : src->kind == &anthropic_kind ? "Anthropic request log" : "OpenAI request log";
		rc = load_log(src, m, sh, data, len, err);
	} else {
		struct json_doc d;
		rc = json_doc_parse(&d, data, len, err);
		if (rc == CS_OK && !json_is_object(d.root))
			rc = json_fail(&d, err, CS_ETYPE, JPATH_ROOT, NULL, "expected a request body (an object), got %s",
				       json_type_name(d.root));
		if (rc == CS_OK)
			rc = take_request(src, m, &d, d.root, err);
		if (rc == CS_OK) /* the body's numbers as written, for dump (its text is still as parsed) */
			rc = json_keep_number_text(&m->doc) == CS_OK ? CS_OK : cs_error_nomem(err);
		json_doc_free(&d);
	}
	if (rc == CS_OK && m->is_log) {
		m->current = m->nreqs - 1;
		m->provider = m->reqs[m->current].provider;
	}
	if (rc == CS_OK) /* the pieces, then the request shown with its predictions (steps.c) */
		rc = request_user_facts(src, m) == CS_OK ? request_make_pieces(src, m, err) : cs_error_nomem(err);
	return rc;
}

/* ---- a request's body again --------------------------------------------- */

/* rec's body into m->doc: its node in *whole (then the whole document
 * becomes m->doc), or its text parsed. */
static int body_from(struct source *src, struct request_model *m, struct json_doc *whole, const cJSON *obj)
{
	const struct req_shape *sh = m->shape && (m->document || m->shape->is(obj)) ? m->shape : request_shape_of(obj);
	struct req_record rec = { .provider = -1, .time = -1 };
	if (!sh) {
		const cJSON *resp;
		rec.body = request_unwrap(obj, &resp);
	} else if (sh->take(src, obj, &rec) != CS_OK) {
		return CS_ENOMEM;
	}
	if (json_is_object(rec.body)) {
		m->doc = *whole;
		m->body = rec.body;
		memset(whole, 0, sizeof *whole);
		return json_keep_number_text(&m->doc); /* for dump, while the text is there */
	}
	if (!rec.body_text)
		return CS_OK;
	struct cs_error e;
	cs_error_clear(&e);
	int rc = json_doc_parse(&m->doc, rec.body_text, strlen(rec.body_text), &e);
	if (rc == CS_OK && json_is_object(m->doc.root))
		m->body = m->doc.root;
	if (rc == CS_OK)
		rc = json_keep_number_text(&m->doc);
	return rc == CS_ENOMEM ? rc : CS_OK;
}

int request_body_again(struct source *src, struct request_model *m, size_t k)
{
	const struct req_request *r = &m->reqs[k];
	json_doc_free(&m->doc);
	memset(&m->doc, 0, sizeof m->doc);
	m->body = NULL;
	char *buf = NULL;
	size_t len = 0;
	struct cs_error e;
	cs_error_clear(&e);
	int rc;
	if (m->document) {
		rc = file_read(src->path, 0, &buf, &len, NULL, &e);
	} else {
		buf = cs_malloc(r->length + 1);
		FILE *f = buf ? fopen(src->path, "rb") : NULL;
		rc = !buf ? CS_ENOMEM
		     : f && fseek(f, (long)r->offset, SEEK_SET) == 0 && fread(buf, 1, r->length, f) == r->length ? CS_OK : CS_EIO;
		if (f)
			fclose(f);
		len = r->length;
	}
	struct json_doc whole = { 0 };
	if (rc == CS_OK)
		rc = json_doc_parse(&whole, buf, len, &e);
	const cJSON *obj = rc == CS_OK ? whole.root : NULL;
	if (obj && m->document && m->shape && m->shape->records) {
		const char *where;
		const cJSON *list = m->shape->records(obj, &where), *el;
		size_t i = 0;
		obj = NULL;
		JSON_EACH(el, list)
			if (i++ == r->offset) {
				obj = el;
				break;
			}
	}
	if (obj)
		rc = body_from(src, m, &whole, obj);
	json_doc_free(&whole);
	cs_free(buf);
	if (rc == CS_ENOMEM)
		return rc;
	return m->body || source_warn(src, -1, r->line, 1, "line %ld: could not read this request again (the log "
				      "changed?): dump has no body for it", r->line) == 0 ? CS_OK : CS_ENOMEM;
}

/* ---- detection ---------------------------------------------------------- */

/* The provider of a JSON text (a body, or an exchange's request): -1 when
 * it is neither; CS_ENOMEM (as -2) when memory ran out. */
static int provider_of_text(const char *data, size_t len)
{
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = json_doc_parse(&d, data, len, &err);
	const char *why;
	const cJSON *resp;
	int p = rc == CS_ENOMEM ? -2 : rc != CS_OK ? -1 : request_provider_of(request_unwrap(d.root, &resp), &why);
	json_doc_free(&d);
	return p;
}

/* The provider of the file: a body's, or a log's first line's. */
int request_detect_provider(const char *path, const char *data, size_t len)
{
	bool log = is_log(path);
	if (!log && looks_like_log(data, len, &log) != CS_OK)
		return -2;
	if (log) {
		struct jsonl j;
		jsonl_init(&j, data, len);
		const char *s;
		size_t n;
		return jsonl_next(&j, &s, &n, NULL) ? provider_of_text(s, n) : -1;
	}
	struct json_keys keys;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = json_scan_top_keys(data, len, &keys, &err);
	if (rc != CS_OK)
		return rc == CS_ENOMEM ? -2 : -1;
	bool maybe = json_keys_has(&keys, "messages") || json_keys_has(&keys, "input") ||
		     json_keys_has(&keys, "request");
	json_keys_fini(&keys);
	return maybe ? provider_of_text(data, len) : -1;
}

/* The shape of a JSON text's object: NULL none; *nomem when memory ran out. */
static const struct req_shape *shape_of_text(const char *data, size_t len, bool *nomem)
{
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = json_doc_parse(&d, data, len, &err);
	*nomem = rc == CS_ENOMEM;
	const struct req_shape *sh = rc == CS_OK ? request_shape_of(d.root) : NULL;
	json_doc_free(&d);
	return sh;
}

const struct req_shape *request_detect_shape(const char *path, const char *data, size_t len, bool *nomem)
{
	*nomem = false;
	bool log = is_log(path);
	if (!log && looks_like_log(data, len, &log) != CS_OK) {
		*nomem = true;
		return NULL;
	}
	if (log) {
		struct jsonl j;
		jsonl_init(&j, data, len);
		const char *s;
		size_t n;
		return jsonl_next(&j, &s, &n, NULL) ? shape_of_text(s, n, nomem) : NULL;
	}
	struct json_keys keys;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = json_scan_top_keys(data, len, &keys, &err);
	if (rc != CS_OK) {
		*nomem = rc == CS_ENOMEM;
		return NULL;
	}
	static const char *const tell[] = { "log", "requests", "request", "call_type", "startTime", "custom_id" };
	bool maybe = false;
	for (size_t i = 0; i < sizeof tell / sizeof *tell; i++)
		maybe |= json_keys_has(&keys, tell[i]);
	json_keys_fini(&keys);
	return maybe ? shape_of_text(data, len, nomem) : NULL;
}

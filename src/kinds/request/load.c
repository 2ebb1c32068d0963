/* load.c: the anthropic and openai kinds: a request body, or a request log
 * (.jsonl) of bodies or captured {request, response} exchanges, into units
 * (parse.c), the current request's units as pieces, then the sequence's
 * predictions (sequence.c). */
#include "request.h"

#include "base/alloc.h"
#include "assembly.h"
#include "json/reuse.h"
#include "json/scan.h"
#include "json/lines.h"
#include "kinds/loom/loom.h"
#include "source.h"
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const cJSON *get(const cJSON *obj, const char *key)
{
	return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

static long get_long(const cJSON *obj, const char *key, bool *found)
{
	const cJSON *v = get(obj, key);
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15)
		return 0;
	*found = true;
	return (long)v->valuedouble;
}

void request_model_free(void *model)
{
	struct request_model *m = model;
	if (!m)
		return;
	json_doc_free(&m->doc);
	cs_free(m->units);
	cs_free(m->reqs);
	cs_free(m->lints);
	cs_free(m->user_facts);
	cs_free(m->unit_piece);
	cs_free(m->piece_unit);
	cs_free(m->bp_override);
	cs_free(m->core);
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

/* ---- recorded usage ----------------------------------------------------- */

static void read_usage(struct req_request *r, const cJSON *response)
{
	const cJSON *body = get(response, "body") ? get(response, "body") : response;
	const cJSON *u = get(body, "usage");
	if (!cJSON_IsObject(u))
		return;
	bool found = false;
	if (get(u, "cache_read_input_tokens") || get(u, "cache_creation_input_tokens")) {
		r->rec_read = get_long(u, "cache_read_input_tokens", &found);
		r->rec_write = get_long(u, "cache_creation_input_tokens", &found);
		r->rec_uncached = get_long(u, "input_tokens", &found);
	} else {
		const char *total_key = get(u, "prompt_tokens") ? "prompt_tokens" : "input_tokens";
		const cJSON *details = get(u, "prompt_tokens_details") ? get(u, "prompt_tokens_details")
									: get(u, "input_tokens_details");
		long total = get_long(u, total_key, &found);
		r->rec_read = get_long(details, "cached_tokens", &found);
		r->rec_write = get_long(u, "cache_write_tokens", &found);
		r->rec_uncached = total - r->rec_read - r->rec_write;
		if (r->rec_uncached < 0)
			r->rec_uncached = 0;
	}
	r->recorded = found;
}

static double line_time(const cJSON *line)
{
	const cJSON *t = get(line, "timestamp") ? get(line, "timestamp") : get(line, "time");
	long long ms;
	if (cJSON_IsNumber(t) && t->valuedouble >= 0 && t->valuedouble < 1e12)
		return t->valuedouble;
	if (cJSON_IsString(t) && loom_parse_time(t->valuestring, &ms))
		return (double)ms / 1000.0;
	return -1;
}

/* ---- one body ----------------------------------------------------------- */

static int provider_for(const struct kind_ops *kind, const cJSON *body)
{
	const char *why;
	if (kind == &anthropic_kind)
		return REQ_ANTHROPIC;
	int p = request_provider_of(body, &why);
	return p == REQ_OPENAI_RESPONSES || (p < 0 && get(body, "input")) ? REQ_OPENAI_RESPONSES : REQ_OPENAI_CHAT;
}

/* The body inside a line: the object itself, or an exchange's request
 * (or its body); *response gets the exchange's response (NULL none). */
const cJSON *request_unwrap(const cJSON *obj, const cJSON **response)
{
	*response = NULL;
	const cJSON *req = get(obj, "request");
	if (!cJSON_IsObject(req))
		return obj;
	*response = get(obj, "response");
	return cJSON_IsObject(get(req, "body")) ? get(req, "body") : req;
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

/* One request (a body or a log line's), parsed and made the current one. */
static int take_request(struct source *src, struct request_model *m, struct json_doc *d, const cJSON *obj,
			long line, struct cs_error *err)
{
	const cJSON *response;
	const cJSON *body = request_unwrap(obj, &response);
	if (!cJSON_IsObject(body))
		return json_fail(d, err, CS_ETYPE, JPATH_ROOT, NULL, "expected a request body (an object), got %s",
				 json_type_name(body));
	int provider = provider_for(src->kind, body);
	int rc = request_parse_body(src, m, d, body, JPATH_ROOT, provider, line, true, err);
	if (rc != CS_OK)
		return rc;
	m->provider = provider;
	struct req_request *r = &m->reqs[m->nreqs - 1];
	r->time = line_time(obj);
	read_usage(r, response);
	make_current(m, d, body);
	return CS_OK;
}

/* ---- a log --------------------------------------------------------------- */

static bool is_log(const char *path)
{
	size_t n = strlen(path);
	return n > 6 && !strcmp(path + n - 6, ".jsonl");
}

/* Whether a log line holds a request (a body or an exchange). */
static bool is_request_line(const cJSON *obj)
{
	const cJSON *resp;
	const cJSON *body = request_unwrap(obj, &resp);
	const char *why;
	return cJSON_IsObject(body) && (request_provider_of(body, &why) >= 0 || get(body, "messages"));
}

static int log_line(struct source *src, struct request_model *m, struct json_reuse *pool, const char *s, size_t n,
		    long line, bool last, struct cs_error *err)
{
	struct json_doc d;
	int rc = json_reuse_parse(pool, &d, s, n, err);
	if (rc == CS_OK)
		json_reuse_keep(pool, &d); /* the request becomes the current one: its tree is kept */
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
	if (!cJSON_IsObject(d.root) || !is_request_line(d.root)) {
		json_doc_free(&d);
		return source_warn(src, -1, line, 1, "line %ld: not a request or a {request, response} exchange; skipped",
				   line) ? CS_ENOMEM : CS_OK;
	}
	if (m->nreqs >= REQUEST_MAX_LINES) {
		json_doc_free(&d);
		return cs_error_set(err, CS_ELIMIT, "more than %d requests in one log", REQUEST_MAX_LINES);
	}
	rc = take_request(src, m, &d, d.root, line, err);
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

static int load_log(struct source *src, struct request_model *m, const char *data, size_t len, struct cs_error *err)
{
	struct jsonl j;
	jsonl_init(&j, data, len);
	if (src->input_owned)
		jsonl_give_back(&j);
	const char *s;
	size_t n;
	bool last;
	struct json_reuse pool = JSON_REUSE_INIT;
	while (jsonl_next(&j, &s, &n, &last)) {
		size_t had = m->nreqs;
		int rc = log_line(src, m, &pool, s, n, j.line, last, err);
		if (rc != CS_OK) {
			json_reuse_fini(&pool);
			return rc;
		}
		if (m->nreqs > had) { /* where its body is, to read it again (steps.c) */
			m->reqs[had].offset = (size_t)(s - data);
			m->reqs[had].length = n;
		}
	}
	json_reuse_fini(&pool);
	if (!m->nreqs)
		return cs_error_set(err, CS_ESTRUCT, "no request in this log (%ld line%s)", j.line, j.line == 1 ? "" : "s");
	return CS_OK;
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
	*yes = rc == CS_OK && cJSON_IsObject(d.root);
	json_doc_free(&d);
	return rc == CS_ENOMEM ? CS_ENOMEM : CS_OK;
}

int request_load(struct source *src, const char *data, size_t len, struct cs_error *err)
{
	struct request_model *m = cs_calloc(1, sizeof *m);
	if (!m)
		return cs_error_nomem(err);
	src->model = m;
	m->want_request = -1;
	m->select = request_select_want;
	bool log = is_log(src->path);
	int rc = log ? CS_OK : looks_like_log(data, len, &log);
	if (rc != CS_OK)
		return cs_error_nomem(err);
	if (log) {
		m->is_log = true;
		src->input_type = src->kind == &anthropic_kind ? "Anthropic request log" : "OpenAI request log";
		rc = load_log(src, m, data, len, err);
	} else {
		struct json_doc d;
		rc = json_doc_parse(&d, data, len, err);
		if (rc == CS_OK && !cJSON_IsObject(d.root))
			rc = json_fail(&d, err, CS_ETYPE, JPATH_ROOT, NULL, "expected a request body (an object), got %s",
				       json_type_name(d.root));
		if (rc == CS_OK)
			rc = take_request(src, m, &d, d.root, 0, err);
		json_doc_free(&d);
	}
	if (rc == CS_OK) /* the current body's numbers as written, for dump (its text is still as parsed) */
		rc = json_keep_number_text(&m->doc) == CS_OK ? CS_OK : cs_error_nomem(err);
	if (rc == CS_OK) /* the pieces, then the request shown with its predictions (steps.c) */
		rc = request_user_facts(src, m) == CS_OK ? request_make_pieces(src, m, err) : cs_error_nomem(err);
	return rc;
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

/* usage.c: what a response recorded it cost (ctxscope-formats(5) section 6 and 6b): the
 * usage object of a response body, in the forms Anthropic, OpenAI (Chat
 * Completions and Responses) and LiteLLM write it, and the same from a
 * streamed response's server-sent events, with the provider's own cache
 * diagnostics. A figure that is not a whole number from 0 is a warning at
 * its line and column and stays unknown, never a silent 0. */
#include "request.h"

#include "base/alloc.h"
#include "source.h"

#include <stdio.h>
#include <string.h>

/* Where warnings go: the log line (0: the document's own lines). */
struct usage_at {
	struct source *src;
	const struct json_doc *d;
	const char *where;
	long line;
	bool foreign; /* d is a text held in a string of the file (a body_raw, an event) */
	bool bad;     /* a figure was refused */
	bool nomem;
};

/* obj[key] as a count (json_count_at, the one reader of counts): *out,
 * true; absent or null: false, *out unchanged; anything else: its warning,
 * false. */
static bool count_in(struct usage_at *at, const cJSON *obj, const char *sub, const char *key, long *out)
{
	char name[160], w[400];
	snprintf(name, sizeof name, "%s%s%s", at->where, sub ? "." : "", sub ? sub : "");
	struct json_count_place pl = { .d = at->d, .first_line = at->line, .foreign = at->foreign && at->line > 0,
				       .name = name };
	int rc = json_count_at(&pl, obj, NULL, key, out, w, sizeof w);
	if (rc != JSON_COUNT_BAD)
		return rc == JSON_COUNT_OK;
	at->bad = true;
	if (source_warn(at->src, -1, pl.line, pl.column, "%s; the recorded figure is left unknown", w))
		at->nomem = true;
	return false;
}

static bool count(struct usage_at *at, const cJSON *obj, const char *key, long *out)
{
	return count_in(at, obj, NULL, key, out);
}

static void diagnostics(struct usage_at *at, struct req_request *r, const cJSON *body)
{
	const cJSON *dg = json_member(body, "diagnostics");
	if (!json_is_object(dg))
		dg = json_member(body, "prompt_cache_diagnostics");
	const cJSON *why = json_member(dg, "cache_miss_reason");
	if (!why)
		return;
	if (json_is_null(why)) {
		r->rec_miss = "none";
		return;
	}
	const cJSON *type = json_member(why, "type");
	if (!json_is_string(type))
		return;
	r->rec_miss = arena_strndup(&at->src->arena, json_string_value(type), strnlen(json_string_value(type), 64));
	if (!r->rec_miss)
		at->nomem = true;
	count_in(at, why, "diagnostics.cache_miss_reason", "cache_missed_input_tokens", &r->rec_missed);
}

/* usage into r: Anthropic's (input_tokens is the uncached part) when it has
 * the cache fields or no total; else a total (prompt_tokens, or Responses'
 * input_tokens with its details) of which the cached part was read. */
static void read_usage(struct usage_at *at, struct req_request *r, const cJSON *u)
{
	long read = 0, write = 0, input = -1, total = -1, out = -1;
	bool any = false, total_form = json_member(u, "prompt_tokens") || json_member(u, "input_tokens_details") ||
				       json_member(u, "prompt_tokens_details");
	any |= count(at, u, "cache_read_input_tokens", &read);
	any |= count(at, u, "cache_creation_input_tokens", &write);
	if (!total_form) {
		any |= count(at, u, "input_tokens", &input);
		const cJSON *cc = json_member(u, "cache_creation");
		long h1 = -1;
		if (json_is_object(cc) && count_in(at, cc, "cache_creation", "ephemeral_1h_input_tokens", &h1))
			r->rec_write_1h = h1;
	} else {
		const cJSON *det = json_member(u, "prompt_tokens_details");
		det = det ? det : json_member(u, "input_tokens_details");
		long cached = 0;
		const char *dn = json_member(u, "prompt_tokens_details") ? "prompt_tokens_details" : "input_tokens_details";
		if (!json_member(u, "cache_read_input_tokens") && json_is_object(det) &&
		    count_in(at, det, dn, "cached_tokens", &cached))
			read = cached, any = true;
		if (!json_member(u, "cache_creation_input_tokens")) /* 5.6+: beside cached_tokens, or at the top */
			any |= json_is_object(det) && json_member(det, "cache_write_tokens")
				       ? count_in(at, det, dn, "cache_write_tokens", &write)
				       : count(at, u, "cache_write_tokens", &write);
		any |= count(at, u, json_member(u, "prompt_tokens") ? "prompt_tokens" : "input_tokens", &total);
		if (total >= 0)
			input = total - read - write > 0 ? total - read - write : 0;
	}
	if (count(at, u, "output_tokens", &out) || count(at, u, "completion_tokens", &out))
		r->rec_output = out;
	const cJSON *speed = json_member(u, "speed"), *server = json_member(u, "server_tool_use");
	if (json_is_string(speed)) /* what served it: billing follows it */
		r->rec_fast = !strcmp(json_string_value(speed), "fast");
	long searches = 0;
	if (json_is_object(server) && count_in(at, server, "server_tool_use", "web_search_requests", &searches))
		r->rec_web_searches = searches;
	if (!any || at->bad || input < 0)
		return; /* a figure refused: no half record */
	r->recorded = true;
	r->rec_read = read;
	r->rec_write = write;
	r->rec_uncached = input;
}

/* A response's usage and diagnostics, d read as `foreign` says. */
static int response_usage(struct source *src, struct req_request *r, const struct json_doc *d, const cJSON *response,
			  const char *where, long line, bool foreign)
{
	struct usage_at at = { src, d, where, line, foreign, false, false };
	const cJSON *u = json_member(response, "usage");
	diagnostics(&at, r, response);
	const char *id = json_opt_string(response, "id");
	if (id && *id && !r->response_id && !(r->response_id = arena_strndup(&src->arena, id, strnlen(id, 200))))
		at.nomem = true;
	if (json_is_object(u)) {
		char w[96];
		snprintf(w, sizeof w, "%s.usage", where);
		at.where = w;
		read_usage(&at, r, u);
	}
	return at.nomem ? CS_ENOMEM : CS_OK;
}

int request_read_usage(struct source *src, struct req_request *r, const struct json_doc *d, const cJSON *response,
		       const char *where, long line)
{
	return response_usage(src, r, d, response, where, line, false);
}

/* ---- server-sent events ----------------------------------------------------- */

/* One event's JSON: Anthropic's message_start (the usage, the
 * diagnostics), message_delta (the output so far), OpenAI's chunk with
 * usage, Responses' response.completed. */
static int sse_event(struct usage_at *at, struct req_request *r, const struct json_doc *d, long *out)
{
	const cJSON *ev = d->root;
	const cJSON *type = json_member(ev, "type");
	const char *t = json_is_string(type) ? json_string_value(type) : "";
	if (!strcmp(t, "message_start") || !strcmp(t, "response.completed") || !strcmp(t, "response.done")) {
		const cJSON *msg = json_member(ev, !strcmp(t, "message_start") ? "message" : "response");
		long keep = r->rec_output;
		int rc = response_usage(at->src, r, d, msg, at->where, at->line, true);
		if (rc == CS_OK && !strcmp(t, "message_start"))
			r->rec_output = keep; /* the final count comes with message_delta */
		return rc;
	}
	const cJSON *u = json_member(ev, "usage");
	if (!strcmp(t, "message_delta")) {
		struct usage_at a2 = *at;
		a2.d = d;
		count_in(&a2, u, "message_delta usage", "output_tokens", out);
		return a2.nomem ? CS_ENOMEM : CS_OK;
	}
	if (json_is_object(u) && json_member(ev, "choices")) /* OpenAI's final chunk */
		return response_usage(at->src, r, d, ev, at->where, at->line, true);
	return CS_OK;
}

static bool has(const char *s, size_t n, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = s; n >= k && (p = memchr(p, key[0], n - k + 1 - (size_t)(p - s))) != NULL; p++)
		if (!memcmp(p, key, k))
			return true;
	return false;
}

/* Whether an event's text can hold what sse_event reads (most of a
 * stream's events are text deltas: they are not parsed at all). */
static bool worth_parsing(const char *s, size_t n)
{
	static const char *const keys[] = { "message_start", "message_delta", "\"usage\"", "response.completed",
					    "response.done" };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		if (has(s, n, keys[i]))
			return true;
	return false;
}

static int sse(struct usage_at *at, struct req_request *r, const char *text, size_t len)
{
	long out = -1;
	int rc = CS_OK;
	for (size_t pos = 0; pos < len && rc == CS_OK;) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + 1;
		if (n < 5 || memcmp(s, "data:", 5))
			continue;
		s += 5, n -= 5;
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		while (n && (s[n - 1] == '\r' || s[n - 1] == ' '))
			n--;
		if (!n || *s != '{' || !worth_parsing(s, n))
			continue;
		struct json_doc d;
		struct cs_error e;
		cs_error_clear(&e);
		rc = json_doc_parse(&d, s, n, &e);
		if (rc == CS_OK)
			rc = sse_event(at, r, &d, &out);
		else if (rc != CS_ENOMEM)
			rc = source_warn(at->src, -1, at->line, 0, "line %ld: %s: an event is not JSON (%s); skipped", at->line,
					 at->where, e.message) ? CS_ENOMEM : CS_OK;
		json_doc_free(&d);
	}
	if (out >= 0)
		r->rec_output = out;
	return rc;
}

int request_read_usage_text(struct source *src, struct req_request *r, const char *text, size_t len, const char *where,
		       long line)
{
	struct usage_at at = { src, NULL, where, line, true, false, false };
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
		i++;
	if (i < len && text[i] == '{') {
		struct json_doc d;
		struct cs_error e;
		cs_error_clear(&e);
		int rc = json_doc_parse(&d, text, len, &e);
		if (rc == CS_OK)
			rc = response_usage(src, r, &d, d.root, where, line, true);
		else if (rc != CS_ENOMEM)
			rc = source_warn(src, -1, line, 0, "line %ld: %s is not JSON (%s): no recorded usage", line, where,
					 e.message) ? CS_ENOMEM : CS_OK;
		json_doc_free(&d);
		return rc;
	}
	return sse(&at, r, text, len);
}

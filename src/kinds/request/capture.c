/* capture.c: captured HTTP exchanges (ctxscope-formats(5) section 6b), as claude-trace,
 * claude-tap and similar proxies write them, one a line:
 * {request: {timestamp, method, url, headers, body}, response: {timestamp,
 * status_code, headers, body | body_raw}, logged_at}. The older form
 * {request: BODY, response: BODY} is the same shape without the HTTP. A
 * request to another endpoint (count_tokens, telemetry) is listed and
 * skipped; a streamed response's usage is in body_raw's events. */
#include "request.h"

#include "source.h"

#include <string.h>

/* {request: {url | method | body...}, response | logged_at}; a request that
 * is itself a body ({request: BODY, response: BODY}) is a plain log's
 * exchange, not a capture. */
static bool capture_is(const cJSON *obj)
{
	const cJSON *req = json_member(obj, "request");
	return json_is_object(req) && (json_member(obj, "response") || json_member(obj, "logged_at")) &&
	       (json_member(req, "url") || json_member(req, "method") || json_member(req, "body"));
}

/* Header names are case-insensitive. */
static bool same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a | 0x20) != (*b | 0x20))
			return false;
	return *a == *b;
}

const char *const request_account_headers[] = { "anthropic-workspace-id", "x-api-key", "authorization", "api-key",
						 NULL };

/* The API key or workspace a request was sent with (hashed by the reader,
 * never shown): a header, in any case. */
static const char *account_of(const cJSON *headers)
{
	for (size_t i = 0; request_account_headers[i]; i++)
		for (const cJSON *h = json_first(json_is_object(headers) ? headers : NULL); h; h = json_next(h))
			if (json_key(h) && json_is_string(h) && same_name(json_key(h), request_account_headers[i]))
				return json_string_value(h);
	return NULL;
}

static int capture_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	const cJSON *req = json_member(rec, "request"), *resp = json_member(rec, "response");
	const cJSON *url = json_member(req, "url"), *body = json_member(req, "body");
	if (json_is_string(url)) {
		out->provider = request_endpoint_provider(json_string_value(url));
		if (out->provider < 0) {
			out->skip = arena_printf(&src->arena, "a request to %.120s", json_string_value(url));
			return out->skip ? CS_OK : CS_ENOMEM;
		}
	}
	if (json_is_object(body))
		out->body = body;
	else if (json_is_string(body))
		out->body_text = json_string_value(body);
	else if (!json_member(req, "url"))
		out->body = req; /* {request: BODY, response: BODY} */
	else {
		out->skip = "a request without a body";
		return CS_OK;
	}
	out->time = request_time_of(json_member(req, "timestamp"));
	if (out->time < 0)
		out->time = request_time_of(json_member(rec, "timestamp"));
	if (out->time < 0)
		out->time = request_time_of(json_member(rec, "logged_at"));
	out->account = account_of(json_member(req, "headers"));
	const cJSON *rb = json_member(resp, "body"), *raw = json_member(resp, "body_raw");
	if (json_is_object(rb)) {
		out->response = rb;
		out->response_where = "response.body";
	} else if (json_is_string(raw)) {
		out->response_text = json_string_value(raw);
		out->response_where = "response.body_raw";
	} else if (json_is_string(rb)) {
		out->response_text = json_string_value(rb);
		out->response_where = "response.body";
	} else if (json_is_object(resp) && !json_member(resp, "status_code")) {
		out->response = resp;
		out->response_where = "response";
	}
	return CS_OK;
}

REQUEST_SHAPE(capture, "capture", "HTTP capture", .is = capture_is, .take = capture_take);

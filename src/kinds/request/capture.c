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
	return cJSON_IsObject(req) && (json_member(obj, "response") || json_member(obj, "logged_at")) &&
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

/* The API key or workspace a request was sent with (hashed by the reader,
 * never shown): a header, in any case. */
static const char *account_of(const cJSON *headers)
{
	static const char *const names[] = { "anthropic-workspace-id", "x-api-key", "authorization", "api-key" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		for (const cJSON *h = cJSON_IsObject(headers) ? headers->child : NULL; h; h = h->next)
			if (h->string && cJSON_IsString(h) && same_name(h->string, names[i]))
				return h->valuestring;
	return NULL;
}

static int capture_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	const cJSON *req = json_member(rec, "request"), *resp = json_member(rec, "response");
	const cJSON *url = json_member(req, "url"), *body = json_member(req, "body");
	if (cJSON_IsString(url)) {
		out->provider = request_endpoint_provider(url->valuestring);
		if (out->provider < 0) {
			out->skip = arena_printf(&src->arena, "a request to %.120s", url->valuestring);
			return out->skip ? CS_OK : CS_ENOMEM;
		}
	}
	if (cJSON_IsObject(body))
		out->body = body;
	else if (cJSON_IsString(body))
		out->body_text = body->valuestring;
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
	if (cJSON_IsObject(rb)) {
		out->response = rb;
		out->response_where = "response.body";
	} else if (cJSON_IsString(raw)) {
		out->response_text = raw->valuestring;
		out->response_where = "response.body_raw";
	} else if (cJSON_IsString(rb)) {
		out->response_text = rb->valuestring;
		out->response_where = "response.body";
	} else if (cJSON_IsObject(resp) && !json_member(resp, "status_code")) {
		out->response = resp;
		out->response_where = "response";
	}
	return CS_OK;
}

const struct req_shape request_shape_capture = {
	.name = "capture", .title = "HTTP capture", .is = capture_is, .take = capture_take,
};

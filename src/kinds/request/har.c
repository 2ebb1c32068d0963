/* har.c: HTTP Archive 1.2 (ctxscope-formats(5) section 6b), what browser dev tools and
 * mitmproxy export: {log: {entries: [{startedDateTime, request: {method,
 * url, headers, postData: {text}}, response: {status, content: {text,
 * encoding?}}}]}}. The bodies are strings: JSON, or server-sent events. */
#include "request.h"

#include "base/base64.h"
#include "source.h"

#include <string.h>

static const cJSON *har_records(const cJSON *root, const char **where)
{
	*where = "log.entries";
	const cJSON *e = json_member(json_member(root, "log"), "entries");
	return json_is_array(e) ? e : NULL;
}

static bool har_is(const cJSON *obj)
{
	const cJSON *log = json_member(obj, "log");
	return json_is_object(log) && json_is_array(json_member(log, "entries"));
}

static const char *header(const cJSON *headers, const char *name)
{
	const cJSON *h;
	JSON_EACH(h, headers) {
		const cJSON *n = json_member(h, "name"), *v = json_member(h, "value");
		if (!json_is_string(n) || !json_is_string(v))
			continue;
		const char *a = json_string_value(n), *b = name;
		while (*a && (*a | 0x20) == *b)
			a++, b++;
		if (!*a && !*b)
			return json_string_value(v);
	}
	return NULL;
}

static int har_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	const cJSON *req = json_member(rec, "request"), *resp = json_member(rec, "response");
	const cJSON *url = json_member(req, "url");
	out->provider = json_is_string(url) ? request_endpoint_provider(json_string_value(url)) : -1;
	if (out->provider < 0) {
		out->skip = arena_printf(&src->arena, "a request to %.120s",
					 json_is_string(url) ? json_string_value(url) : "(no url)");
		return out->skip ? CS_OK : CS_ENOMEM;
	}
	const cJSON *text = json_member(json_member(req, "postData"), "text");
	if (!json_is_string(text)) {
		out->skip = "a request without postData.text";
		return CS_OK;
	}
	out->body_text = json_string_value(text);
	out->time = request_time_of(json_member(rec, "startedDateTime"));
	out->account = NULL;
	for (size_t i = 0; request_account_headers[i] && !out->account; i++)
		out->account = header(json_member(req, "headers"), request_account_headers[i]);
	const cJSON *content = json_member(resp, "content"), *enc = json_member(content, "encoding");
	const cJSON *rt = json_member(content, "text");
	if (json_is_string(rt) && !(json_is_string(enc) && !strcmp(json_string_value(enc), "base64"))) {
		out->response_text = json_string_value(rt);
		out->response_where = "response.content.text";
	} else if (json_is_string(rt)) { /* base64 (mitmproxy writes bodies so) */
		size_t n = strlen(json_string_value(rt));
		unsigned char *buf = arena_alloc(&src->arena, n + 1);
		if (!buf)
			return CS_ENOMEM;
		long got = base64_decode(json_string_value(rt), n, buf);
		if (got >= 0) {
			buf[got] = 0;
			out->response_text = (const char *)buf;
		}
		out->response_where = "response.content.text (base64)";
	}
	return CS_OK;
}

REQUEST_SHAPE(har, "har", "HTTP Archive (HAR)", .is = har_is, .records = har_records, .take = har_take);

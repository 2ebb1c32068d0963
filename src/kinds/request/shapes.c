/* shapes.c: the table of log shapes (ctxscope-formats(5) section 6b). A shape is how one
 * tool writes its requests: an HTTP capture, LiteLLM's payload, a batch
 * file, a HAR. Each is one entry here and one file of its own (capture.c,
 * litellm.c, batch.c, har.c) that tells its records and reads one into a
 * struct req_record; the loader (load.c) does the rest the same way for
 * all. A new shape: its file, its line below, its kind in kind.c. */
#include "request.h"

#include "base/isotime.h"

#include <stdlib.h>
#include <string.h>

extern const struct req_shape request_shape_capture, request_shape_litellm, request_shape_openai_batch,
	request_shape_anthropic_batch, request_shape_har;

/* In the order they are tried: the most particular first (a LiteLLM line
 * has "response" too, but never "request"). */
const struct req_shape *const request_shapes[] = {
	&request_shape_har,
	&request_shape_anthropic_batch,
	&request_shape_openai_batch,
	&request_shape_capture,
	&request_shape_litellm,
	NULL,
};

const struct req_shape *request_shape_of(const cJSON *obj)
{
	if (!json_is_object(obj))
		return NULL;
	for (size_t i = 0; request_shapes[i]; i++)
		if (request_shapes[i]->is(obj))
			return request_shapes[i];
	return NULL;
}

const struct req_shape *request_shape_named(const char *name)
{
	for (size_t i = 0; name && request_shapes[i]; i++)
		if (!strcmp(request_shapes[i]->name, name))
			return request_shapes[i];
	return NULL;
}

/* The path of a URL (or the URL when it is a path), without its query. */
static void url_path(const char *url, const char **at, size_t *n)
{
	const char *s = strstr(url, "://");
	s = s ? strchr(s + 3, '/') : url;
	s = s ? s : "";
	size_t len = strcspn(s, "?#");
	*at = s;
	*n = len;
}

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);
	return n >= t && !memcmp(s + n - t, tail, t);
}

int request_endpoint_provider(const char *url)
{
	const char *p;
	size_t n;
	url_path(url, &p, &n);
	while (n && p[n - 1] == '/')
		n--;
	if (ends_with(p, n, "/messages"))
		return REQ_ANTHROPIC;
	if (ends_with(p, n, "/chat/completions"))
		return REQ_OPENAI_CHAT;
	if (ends_with(p, n, "/responses"))
		return REQ_OPENAI_RESPONSES;
	return -1;
}

double request_time_of(const cJSON *v)
{
	double x = json_number_value(v, -1);
	if (json_is_number(v))
		return x >= 0 && x < 1e11 ? x : x >= 1e11 && x < 1e14 ? x / 1000.0 /* milliseconds */ : -1;
	if (!json_is_string(v) || !json_string_value(v)[0])
		return -1;
	const char *s = json_string_value(v);
	char *end;
	double num = strtod(s, &end);
	if (end != s && !*end && num >= 0 && num < 1e11 && strchr(s, '-') == NULL)
		return num; /* "1764300000.25" */
	char buf[64];
	size_t n = strlen(s);
	if (n >= sizeof buf)
		return -1;
	memcpy(buf, s, n + 1);
	if (n > 10 && buf[10] == ' ') /* LiteLLM's "2026-11-28 10:00:00.123456" */
		buf[10] = 'T';
	char *dot = strchr(buf, '.');
	if (dot) { /* fractions past milliseconds (Python's microseconds) dropped */
		size_t d = 1;
		while (dot[d] >= '0' && dot[d] <= '9')
			d++;
		if (d > 4)
			memmove(dot + 4, dot + d, strlen(dot + d) + 1);
	}
	long long ms;
	return iso_time_parse(buf, &ms) ? (double)ms / 1000.0 : -1;
}

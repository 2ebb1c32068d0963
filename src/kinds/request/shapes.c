/* shapes.c: the table of log shapes (ctxscope-formats(5) section 6b). A shape is how one
 * tool writes its requests: an HTTP capture, LiteLLM's payload, a batch
 * file, a HAR. Each is a file of its own (capture.c, litellm.c, batch.c,
 * har.c) that tells its records, reads one into a struct req_record and
 * declares its shape and kind (REQUEST_SHAPE); the loader (load.c) does the
 * rest the same way for all. A new shape: its file and its line in
 * shape_list.h. */
#include "request.h"

#include "base/isotime.h"

#include <stdlib.h>
#include <string.h>

/* In shape_list.h's order: the most particular first. */
#define SHAPE_ENTRY(id) &request_shape_##id,
const struct req_shape *const request_shapes[] = { REQUEST_SHAPES(SHAPE_ENTRY) NULL };

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
	for (int i = 0; i < REQ_NPROVIDERS; i++)
		if (ends_with(p, n, request_providers[i].endpoint))
			return i;
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

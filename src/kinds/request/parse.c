/* parse.c: a provider request body into units (see request.h). Anthropic
 * and OpenAI share the walk: tools first, then the system text, then the
 * messages (or Responses input items), each block one unit. */
#include "request.h"

#include "base/alloc.h"
#include "base/base64.h"
#include "emit.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"
#include "tokens/image.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- JSON text and hashing ------------------------------------------------ */

/* Eight bytes a step (a multiply and a shift mix each word in; FNV-1a one
 * byte at a time was a seventh of a session's load), the tail by bytes. */
uint64_t request_hash(const char *s, size_t n, uint64_t h)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, sizeof w);
		h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static void newline(struct strbuf *out, int indent, int depth)
{
	if (!indent)
		return;
	sb_putc(out, '\n');
	for (int i = 0; i < indent * depth; i++)
		sb_putc(out, ' ');
}

static void json_number(struct strbuf *out, double v)
{
	if (!isfinite(v))
		sb_puts(out, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		sb_printf(out, "%.0f", v);
	else
		sb_printf(out, "%.17g", v);
}

void request_json(struct strbuf *out, const cJSON *v, int indent, int depth, bool (*skip)(const cJSON *, void *),
		  void *ctx)
{
	if (json_is_string(v)) {
		json_quote(out, json_string_value(v), strlen(json_string_value(v)));
	} else if (json_is_number(v)) {
		if (json_number_written(v)) /* as written (json_keep_number_text) */
			sb_puts(out, json_number_written(v));
		else
			json_number(out, json_number_value(v, 0));
	} else if (json_is_bool(v)) {
		sb_puts(out, json_is_true(v) ? "true" : "false");
	} else if (json_is_array(v) || json_is_object(v)) {
		bool obj = json_is_object(v);
		sb_putc(out, obj ? '{' : '[');
		size_t n = 0;
		const cJSON *c;
		JSON_EACH(c, v) {
			if (skip && skip(c, ctx))
				continue;
			sb_puts(out, n++ ? "," : "");
			newline(out, indent, depth + 1);
			if (obj) {
				json_quote(out, json_key(c), strlen(json_key(c)));
				sb_puts(out, indent ? ": " : ":");
			}
			request_json(out, c, indent, depth + 1, skip, ctx);
		}
		if (n)
			newline(out, indent, depth);
		sb_putc(out, obj ? '}' : ']');
	} else {
		sb_puts(out, "null");
	}
}

/* ---- helpers ---------------------------------------------------------- */

/* json_member's answer (the first member named key),
 * the names compared in line instead of by a strcmp call each (a log's
 * blocks are looked into a few times each, a million blocks a log; keys
 * are short). */
static const cJSON *get(const cJSON *obj, const char *key)
{
	if (!json_is_object(obj))
		return NULL;
	for (const cJSON *c = json_first(obj); c && json_key(c); c = json_next(c)) {
		const char *a = json_key(c), *b = key;
		while (*a && *a == *b)
			a++, b++;
		if (*a == *b)
			return c;
	}
	return NULL;
}

/* What one body's walk carries along. */
struct walk {
	struct source *src;
	struct request_model *m;
	const struct json_doc *d;
	struct req_request *r;
	long line;
	bool keep_nodes;
	int current_from;  /* first message of the current layer */
	int thinking_from; /* first message whose thinking is sent (request_thinking_from) */
	struct cs_error *err;
};

static bool skip_cache_control(const cJSON *c, void *ctx)
{
	(void)ctx; /* asked of every member a block's hash walks: the first byte tells most */
	return json_key(c) && json_key(c)[0] == 'c' && !strcmp(json_key(c), "cache_control");
}

/* The TTL of a block's cache_control in seconds (0 none); warns on a TTL
 * this reader does not know (taken as 5 minutes). */
static int block_ttl(struct walk *w, const cJSON *block, const char *path)
{
	const cJSON *cc = get(block, "cache_control");
	if (!json_is_object(cc))
		return 0;
	const char *ttl = json_opt_string(cc, "ttl");
	if (!ttl || !strcmp(ttl, "5m"))
		return 300;
	if (!strcmp(ttl, "1h"))
		return 3600;
	source_warn(w->src, -1, w->line, 0, "%s: cache_control ttl \"%.40s\" is not 5m or 1h; taken as 5m", path, ttl);
	return 300;
}

/* Whether a block's cache_control has scope "global": an entry shared
 * across sessions (Claude Code's system prompt, ctxscope-formats(5) section 7b). */
static bool is_global(const cJSON *block)
{
	const char *scope = json_opt_string(get(block, "cache_control"), "scope");
	return scope && !strcmp(scope, "global");
}

static uint64_t hash_node(const cJSON *v, uint64_t h, bool skip)
{
	char tag = json_is_string(v) ? 's' : json_is_number(v) ? 'n' : json_is_true(v) ? 't' : json_is_false(v) ? 'f'
		 : json_is_array(v) ? 'a' : json_is_object(v) ? 'o' : 'z';
	h = request_hash(&tag, 1, h);
	const char *s = json_string_value(v);
	double x = json_number_value(v, 0);
	if (tag == 's')
		return request_hash(s, strlen(s) + 1, h);
	if (tag == 'n')
		return request_hash((const char *)&x, sizeof x, h);
	if (tag != 'a' && tag != 'o')
		return h;
	const cJSON *c;
	JSON_EACH(c, v) {
		if (skip && skip_cache_control(c, NULL))
			continue;
		if (tag == 'o')
			h = request_hash(json_key(c), strlen(json_key(c)) + 1, h);
		h = hash_node(c, h, skip);
	}
	return request_hash(tag == 'a' ? "]" : "}", 1, h);
}

uint64_t request_hash_json(const cJSON *v, uint64_t h, bool skip_cache_control)
{
	return hash_node(v, h, skip_cache_control);
}

/* The unit at the same place in the request before, when it is this very
 * block (same hash, path and text), or NULL. */
static const struct req_unit *same_as_before(const struct walk *w, uint64_t hash, const char *path, const char *text,
					     size_t len)
{
	const struct request_model *m = w->m;
	if (m->nreqs < 2)
		return NULL;
	const struct req_request *prev = &m->reqs[m->nreqs - 2];
	if (w->r->nunits >= prev->nunits)
		return NULL;
	const struct req_unit *u = &m->units[prev->first_unit + w->r->nunits];
	return u->hash == hash && u->text_len == len && !strcmp(u->path, path) && !memcmp(u->text, text, len) ? u
														 : NULL;
}

/* Appends a unit; text copied into the arena. x (may be NULL): the images
 * its text holds (a tool result's), their tokens added to its text's. NULL
 * on out of memory. */
static struct req_unit *add_unit_x(struct walk *w, const cJSON *node, const char *path, const char *type,
				   const char *role, int layer, int message, const char *text, size_t len,
				   const struct req_nested *x)
{
	struct request_model *m = w->m;
	if (m->nunits == m->cap_units) {
		size_t cap = m->cap_units ? m->cap_units * 2 : 64;
		struct req_unit *u = cs_realloc(m->units, cap * sizeof *u);
		if (!u)
			return NULL;
		m->units = u;
		m->cap_units = cap;
	}
	struct req_unit *u = &m->units[m->nunits];
	uint64_t hash = hash_node(node, request_hash(role, strlen(role) + 1, REQUEST_HASH_SEED), true);
	const struct req_unit *same = same_as_before(w, hash, path, text, len);
	memset(u, 0, sizeof *u);
	if (same) { /* a log repeats its history: share the strings, skip the count */
		u->path = same->path;
		u->type = same->type;
		u->text = same->text;
		u->tokens = same->tokens;
	} else {
		u->path = arena_strdup(&w->src->arena, path);
		u->type = arena_strdup(&w->src->arena, type);
		u->text = arena_strndup(&w->src->arena, text, len);
		u->tokens = tokens_of_text(text, len, w->src->settings.chars_per_token) + (x ? x->tokens : 0);
	}
	if (!u->path || !u->type || !u->text)
		return NULL;
	u->role = role;
	u->text_len = len;
	u->layer = layer;
	u->message = message;
	u->node = w->keep_nodes ? node : NULL;
	u->hash = hash;
	u->ttl = block_ttl(w, node, path);
	u->global = u->ttl && is_global(node);
	u->nested_images = x ? x->tokens : 0;
	m->nunits++;
	w->r->nunits++;
	return u;
}

static struct req_unit *add_unit(struct walk *w, const cJSON *node, const char *path, const char *type,
				 const char *role, int layer, int message, const char *text, size_t len)
{
	return add_unit_x(w, node, path, type, role, layer, message, text, len, NULL);
}

/* The base64 data of an image block or part: an Anthropic source's data,
 * or what follows ";base64," in an OpenAI data URL; NULL for none (a URL,
 * a file). *media: the Anthropic media type, "inline" for a data URL. */
static const char *image_data(const cJSON *b, const char **media)
{
	const cJSON *s = get(b, "source"), *img = get(b, "image_url");
	*media = json_opt_string(s, "media_type");
	if (s)
		return json_opt_string(s, "data");
	const char *url = json_is_string(img) ? json_string_value(img) : json_opt_string(img, "url");
	const char *data = url && !strncmp(url, "data:", 5) && strstr(url, ";base64,") ? strstr(url, ";base64,") + 8 : NULL;
	*media = data ? "inline" : NULL;
	return data;
}

long request_image(struct strbuf *out, const cJSON *b, int rule, bool *sized)
{
	const char *media, *data = image_data(b, &media);
	const char *detail = json_opt_string(b, "detail") ? json_opt_string(b, "detail")
							 : json_opt_string(get(b, "image_url"), "detail");
	if (rule == IMAGE_OPENAI && detail && !strcmp(detail, "low"))
		rule = IMAGE_OPENAI_LOW;
	long wd = 0, ht = 0;
	bool known = data && image_size(data, &wd, &ht);
	if (sized)
		*sized = known;
	if (known) {
		sb_printf(out, "[image %.40s %ldx%ld]", media ? media : "", wd, ht);
		return image_tokens(rule, wd, ht);
	}
	sb_printf(out, "[image %.40s, size unknown]", media ? media : data ? "" : "by URL");
	return rule == IMAGE_OPENAI_LOW ? 85 : 0;
}

/* Page objects in a PDF's bytes: "/Type /Page" (any white space, not
 * "/Pages"), decoded from base64 a chunk at a time; *bytes the decoded size.
 * 0 when none is in plain sight (object streams compress them) or the text
 * is not plain base64. */
static long pdf_pages(const char *b64, size_t n, size_t *bytes)
{
	enum { CHUNK = 16384, TAIL = 32 }; /* CHUNK a whole number of base64 groups */
	unsigned char buf[TAIL + CHUNK]; /* base64_decode asks room for as many bytes as digits */
	size_t keep = 0;
	long pages = 0;
	*bytes = 0;
	for (size_t at = 0; at < n;) {
		size_t take = n - at > CHUNK ? CHUNK : n - at;
		long got = base64_decode(b64 + at, take, buf + keep);
		if (got < 0) {
			*bytes = n / 4 * 3;
			return 0;
		}
		*bytes += (size_t)got;
		at += take;
		size_t len = keep + (size_t)got, stop = at >= n ? len : len > TAIL ? len - TAIL : 0;
		for (size_t i = 0; i < stop; i++) {
			if (buf[i] != '/' || i + 5 > len || memcmp(buf + i, "/Type", 5))
				continue;
			size_t k = i + 5;
			while (k < len && (buf[k] == ' ' || buf[k] == '\r' || buf[k] == '\n' || buf[k] == '\t'))
				k++;
			pages += k + 5 < len && !memcmp(buf + k, "/Page", 5) && buf[k + 5] != 's';
		}
		keep = len - stop; /* the tail is looked at with the next chunk */
		memmove(buf, buf + stop, keep);
	}
	return pages;
}

long request_document(struct strbuf *out, const cJSON *b)
{
	const cJSON *s = get(b, "source");
	const char *type = json_opt_string(s, "type"), *media = json_opt_string(s, "media_type");
	const char *data = json_opt_string(s, "data");
	if (!type || strcmp(type, "base64") || !data || !media || strcmp(media, "application/pdf"))
		return -1;
	size_t bytes;
	long pages = pdf_pages(data, strlen(data), &bytes);
	bool counted = pages > 0;
	if (!counted)
		pages = bytes / 51200 + 1;
	sb_printf(out, "[document application/pdf, %ld page%s%s, estimated]", pages, pages == 1 ? "" : "s",
		  counted ? "" : " assumed (one a 50 KB)");
	return pages * REQUEST_PDF_PAGE_TOKENS;
}

long request_pdf_tokens(struct strbuf *out, const cJSON *b)
{
	long t = request_document(out, b);
	return t > 0 ? t : 0;
}

void request_result_text(struct strbuf *out, const cJSON *content, int rule, struct req_nested *x)
{
	if (json_is_string(content)) {
		sb_puts(out, json_string_value(content));
		return;
	}
	const cJSON *c;
	JSON_EACH(c, content) {
		long pdf;
		const char *t = json_opt_string(c, "text"), *type = json_opt_string(c, "type");
		sb_puts(out, out->len ? "\n" : "");
		if (t) {
			sb_puts(out, t);
		} else if (type && (!strcmp(type, "image") || !strcmp(type, "input_image") || !strcmp(type, "image_url"))) {
			x->tokens += request_image(out, c, rule, NULL);
			x->images++;
		} else if (type && !strcmp(type, "document") && (pdf = request_document(out, c)) >= 0) {
			x->tokens += pdf; /* a PDF: its estimate, counted as an image is */
			x->images++;
		} else if (type && !strcmp(type, "tool_reference")) {
			const char *name = json_opt_string(c, "tool_name") ? json_opt_string(c, "tool_name")
									   : json_opt_string(c, "name");
			sb_printf(out, "[tool reference: %s]", name ? name : "?");
		} else {
			request_json(out, c, 0, 0, NULL, NULL);
		}
	}
}

/* The rule images are counted by in the request being read. */
static int image_rule(const struct walk *w)
{
	return w->m->provider == REQ_ANTHROPIC ? IMAGE_ANTHROPIC : IMAGE_OPENAI;
}

/* An image unit: placeholder text, tokens by the provider's rule. */
static int add_image(struct walk *w, const cJSON *node, const char *path, const char *role, int layer, int message)
{
	struct strbuf text = STRBUF_INIT;
	bool sized;
	long tokens = request_image(&text, node, image_rule(w), &sized);
	struct req_unit *u = text.failed ? NULL
					 : add_unit(w, node, path, "image", role, layer, message, sb_str(&text), text.len);
	sb_fini(&text);
	if (!u)
		return cs_error_nomem(w->err);
	u->image = true;
	u->uncounted = tokens == 0;
	u->tokens = tokens;
	return CS_OK;
}

/* A base64 PDF's unit: its placeholder, its estimate (request_document),
 * counted as an image is (not as text); *added false when node is not one. */
static int add_pdf(struct walk *w, const cJSON *node, const char *path, const char *role, int layer, int message,
		   bool *added)
{
	struct strbuf text = STRBUF_INIT;
	long tokens = request_document(&text, node);
	*added = tokens >= 0;
	struct req_unit *u = !*added || text.failed
				     ? NULL
				     : add_unit(w, node, path, "document", role, layer, message, sb_str(&text), text.len);
	sb_fini(&text);
	if (*added && !u)
		return cs_error_nomem(w->err);
	if (u) {
		u->image = true;
		u->tokens = tokens;
	}
	return CS_OK;
}

/* ---- Anthropic ---------------------------------------------------------- */

static const char *const anthropic_known[] = {
	"text", "image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking", "search_result",
	"server_tool_use", "web_search_tool_result", "container_upload", "web_fetch_tool_result",
	"code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", NULL,
};

static bool known_type(const char *const *list, const char *t)
{
	for (; *list; list++)
		if (!strcmp(*list, t))
			return true;
	return false;
}

/* The text one Anthropic block renders to, into out. */
static void anthropic_block_text(struct strbuf *out, const char *type, const cJSON *b, struct req_nested *x)
{
	const char *s;
	if (!strcmp(type, "text") && (s = json_opt_string(b, "text"))) {
		sb_puts(out, s);
	} else if (!strcmp(type, "thinking") && (s = json_opt_string(b, "thinking"))) {
		sb_puts(out, s);
	} else if (!strcmp(type, "redacted_thinking")) {
		sb_puts(out, "[redacted thinking]");
	} else if (!strcmp(type, "tool_use") || !strcmp(type, "server_tool_use")) {
		sb_printf(out, "%s ", (s = json_opt_string(b, "name")) ? s : "tool");
		request_json(out, get(b, "input"), 0, 0, NULL, NULL);
	} else if (!strcmp(type, "tool_result")) {
		request_result_text(out, get(b, "content"), IMAGE_ANTHROPIC, x);
	} else if (!strcmp(type, "document") && (s = json_opt_string(get(b, "source"), "data")) &&
		   !strcmp(json_opt_string(get(b, "source"), "type") ? json_opt_string(get(b, "source"), "type") : "",
			   "text")) {
		sb_puts(out, s);
	} else {
		request_json(out, b, 0, 0, skip_cache_control, NULL);
	}
}

static int anthropic_block(struct walk *w, const cJSON *b, const struct jpath *at, const char *path,
			   const char *role, int layer, int message)
{
	if (!json_is_object(b))
		return json_fail(w->d, w->err, CS_ETYPE, at, NULL, "expected a content block (an object), got %s",
				 json_type_name(b));
	const char *type = NULL;
	int rc = json_get_string(w->d, b, at, "type", JSON_REQUIRED, &type, w->err);
	if (rc != CS_OK)
		return rc;
	if (message >= 0 && message < w->thinking_from &&
	    (!strcmp(type, "thinking") || !strcmp(type, "redacted_thinking"))) {
		w->r->stripped_thinking++; /* an earlier turn's thinking, which the API strips for this model: not sent */
		return CS_OK;
	}
	if (!strcmp(type, "image"))
		return add_image(w, b, path, role, layer, message);
	bool pdf = false;
	if (!strcmp(type, "document") && ((rc = add_pdf(w, b, path, role, layer, message, &pdf)) != CS_OK || pdf))
		return rc;
	/* a text or thinking block renders to its string as it stands: taken
	 * without a copy (a log repeats them request after request) */
	const char *plain = !strcmp(type, "text")       ? json_opt_string(b, "text")
			    : !strcmp(type, "thinking") ? json_opt_string(b, "thinking")
							: NULL;
	struct strbuf text = STRBUF_INIT;
	struct req_nested x = { 0, 0 };
	if (!plain)
		anthropic_block_text(&text, type, b, &x);
	struct req_unit *u = text.failed ? NULL
			     : add_unit_x(w, b, path, type, role, layer, message, plain ? plain : sb_str(&text),
					  plain ? strlen(plain) : text.len, &x);
	sb_fini(&text);
	if (!u)
		return cs_error_nomem(w->err);
	if (!known_type(anthropic_known, type)) {
		u->unknown = true;
		source_warn(w->src, -1, w->line, 0, "%s: unknown block type \"%.60s\", kept as it is (counted as its JSON)",
			    path, type);
	}
	struct req_unit *prev = w->m->nunits > 1 && w->r->nunits > 1 ? u - 1 : NULL;
	u->run = prev && prev->message == message && !strcmp(prev->type, type) &&
		 (!strcmp(type, "tool_use") || !strcmp(type, "tool_result"));
	return CS_OK;
}

static int anthropic_tools(struct walk *w, const cJSON *body)
{
	const cJSON *tools = NULL, *t;
	struct jpath at = JPATH_KEY(JPATH_ROOT, "tools");
	int rc = json_get_array(w->d, body, JPATH_ROOT, "tools", JSON_OPTIONAL, &tools, w->err);
	long i = 0;
	if (rc != CS_OK)
		return rc;
	JSON_EACH(t, tools) {
		struct jpath ti = JPATH_INDEX(&at, i);
		if (!json_is_object(t))
			return json_fail(w->d, w->err, CS_ETYPE, &ti, NULL, "expected a tool definition (an object), got %s",
					 json_type_name(t));
		char path[48];
		snprintf(path, sizeof path, "tools[%ld]", i++);
		const char *type = json_opt_string(t, "type");
		struct strbuf text = STRBUF_INIT;
		request_json(&text, t, 0, 0, skip_cache_control, NULL);
		struct req_unit *u = text.failed ? NULL
						 : add_unit(w, t, path, type ? type : "tool", "tools", RL_TOOLS, -1,
							    sb_str(&text), text.len);
		sb_fini(&text);
		if (!u)
			return cs_error_nomem(w->err);
	}
	return rc;
}

static int system_field(struct walk *w, const cJSON *body, const char *key, const char *role)
{
	const cJSON *sys = get(body, key);
	struct jpath at = JPATH_KEY(JPATH_ROOT, key);
	if (!sys || json_is_null(sys))
		return CS_OK;
	if (json_is_string(sys))
		return add_unit(w, sys, key, "text", role, RL_SYSTEM, -1, json_string_value(sys),
				strlen(json_string_value(sys)))
			       ? CS_OK
			       : cs_error_nomem(w->err);
	if (!json_is_array(sys))
		return json_fail(w->d, w->err, CS_ETYPE, JPATH_ROOT, key, "expected a string or a list of blocks, got %s",
				 json_type_name(sys));
	const cJSON *b;
	long i = 0;
	JSON_EACH(b, sys) {
		struct jpath bi = JPATH_INDEX(&at, i);
		char path[48];
		snprintf(path, sizeof path, "%s[%ld]", key, i++);
		int rc = anthropic_block(w, b, &bi, path, role, RL_SYSTEM, -1);
		if (rc != CS_OK)
			return rc;
	}
	return CS_OK;
}

/* Paths are made for every block of every request of a log: written here
 * instead of by snprintf (whose cost was a tenth of a log's load). out has
 * PATH_ROOM bytes; at is where to write; the new end is returned. */
#define PATH_ROOM 64
static size_t path_put(char *out, size_t at, const char *s)
{
	size_t n = strlen(s);
	if (n > PATH_ROOM - 1 - at)
		n = PATH_ROOM - 1 - at;
	memcpy(out + at, s, n);
	out[at + n] = '\0';
	return at + n;
}

/* name + "[i]" at out + at. */
static size_t path_index(char *out, size_t at, const char *name, long i)
{
	char digits[24], *d = digits + sizeof digits;
	unsigned long v = i < 0 ? 0ul - (unsigned long)i : (unsigned long)i;
	*--d = '\0';
	*--d = ']';
	do
		*--d = (char)('0' + v % 10);
	while (v /= 10);
	if (i < 0)
		*--d = '-';
	*--d = '[';
	return path_put(out, path_put(out, at, name), d);
}

/* The index of the last message with role user (-1 none). */
static int last_user(const cJSON *messages)
{
	int i = 0, last = -1;
	const cJSON *msg;
	JSON_EACH(msg, messages) {
		const char *role = json_opt_string(msg, "role");
		if (role && !strcmp(role, "user"))
			last = i;
		i++;
	}
	return last;
}

static int anthropic_messages(struct walk *w, const cJSON *body)
{
	const cJSON *messages = NULL, *msg;
	int rc = json_get_array(w->d, body, JPATH_ROOT, "messages", JSON_REQUIRED, &messages, w->err);
	if (rc != CS_OK)
		return rc;
	struct jpath at = JPATH_KEY(JPATH_ROOT, "messages");
	w->current_from = last_user(messages);
	w->thinking_from = request_thinking_from(messages, w->r->model);
	int i = 0;
	JSON_EACH(msg, messages) {
		struct jpath mi = JPATH_INDEX(&at, i);
		const char *role = NULL;
		if (!json_is_object(msg))
			return json_fail(w->d, w->err, CS_ETYPE, &mi, NULL, "expected a message (an object), got %s",
					 json_type_name(msg));
		if ((rc = json_get_string(w->d, msg, &mi, "role", JSON_REQUIRED, &role, w->err)) != CS_OK)
			return rc;
		role = arena_strdup(&w->src->arena, role);
		const cJSON *content = get(msg, "content");
		int layer = w->current_from >= 0 && i >= w->current_from ? RL_CURRENT : RL_HISTORY;
		char path[PATH_ROOM];
		size_t plen = path_index(path, 0, "messages", i);
		plen = path_put(path, plen, ".content");
		if (!role)
			return cs_error_nomem(w->err);
		if (json_is_string(content)) {
			if (!add_unit(w, content, path, "text", role, layer, i, json_string_value(content),
				      strlen(json_string_value(content))))
				return cs_error_nomem(w->err);
		} else if (json_is_array(content)) {
			struct jpath ci = JPATH_KEY(&mi, "content");
			const cJSON *b;
			int j = 0;
			JSON_EACH(b, content) {
				struct jpath bj = JPATH_INDEX(&ci, j);
				path_index(path, plen, "", j++);
				if ((rc = anthropic_block(w, b, &bj, path, role, layer, i)) != CS_OK)
					return rc;
			}
		} else {
			return json_fail(w->d, w->err, CS_ETYPE, &mi, "content",
					 "expected a string or a list of blocks, got %s", json_type_name(content));
		}
		i++;
	}
	return CS_OK;
}

/* ---- OpenAI ------------------------------------------------------------- */

static int openai_part(struct walk *w, const cJSON *p, const struct jpath *at, const char *path, const char *role,
		       int layer, int message)
{
	if (json_is_string(p))
		return add_unit(w, p, path, "text", role, layer, message, json_string_value(p),
				strlen(json_string_value(p)))
			       ? CS_OK
			       : cs_error_nomem(w->err);
	if (!json_is_object(p))
		return json_fail(w->d, w->err, CS_ETYPE, at, NULL, "expected a content part (an object), got %s",
				 json_type_name(p));
	const char *type = json_opt_string(p, "type");
	type = type ? type : "text";
	if (!strcmp(type, "image_url") || !strcmp(type, "input_image"))
		return add_image(w, p, path, role, layer, message);
	const char *text = json_opt_string(p, "text");
	struct strbuf sb = STRBUF_INIT;
	if (text)
		sb_puts(&sb, text);
	else
		request_json(&sb, p, 0, 0, NULL, NULL);
	struct req_unit *u = sb.failed ? NULL : add_unit(w, p, path, type, role, layer, message, sb_str(&sb), sb.len);
	sb_fini(&sb);
	return u ? CS_OK : cs_error_nomem(w->err);
}

/* A message's content (string, parts or null) as units. */
static int openai_content(struct walk *w, const cJSON *msg, const struct jpath *mi, const char *base,
			  const char *role, int layer, int i)
{
	const cJSON *content = get(msg, "content");
	char path[80];
	snprintf(path, sizeof path, "%s.content", base);
	if (json_is_string(content) || !content || json_is_null(content)) {
		if (!content || json_is_null(content))
			return CS_OK;
		return openai_part(w, content, mi, path, role, layer, i);
	}
	if (!json_is_array(content))
		return json_fail(w->d, w->err, CS_ETYPE, mi, "content", "expected a string or a list of parts, got %s",
				 json_type_name(content));
	struct jpath ci = JPATH_KEY(mi, "content");
	const cJSON *p;
	int j = 0;
	JSON_EACH(p, content) {
		struct jpath pj = JPATH_INDEX(&ci, j);
		snprintf(path, sizeof path, "%s.content[%d]", base, j++);
		int rc = openai_part(w, p, &pj, path, role, layer, i);
		if (rc != CS_OK)
			return rc;
	}
	return CS_OK;
}

/* A function call (Chat tool_calls entry or Responses item) as "name(arguments)". */
static int openai_call(struct walk *w, const cJSON *call, const char *path, const char *role, int layer, int i)
{
	const cJSON *fn = get(call, "function") ? get(call, "function") : call;
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "%s(", json_opt_string(fn, "name") ? json_opt_string(fn, "name") : "function");
	const char *args = json_opt_string(fn, "arguments");
	sb_puts(&sb, args ? args : "");
	sb_putc(&sb, ')');
	struct req_unit *u = sb.failed ? NULL
				       : add_unit(w, call, path, "tool_call", role, layer, i, sb_str(&sb), sb.len);
	sb_fini(&sb);
	return u ? CS_OK : cs_error_nomem(w->err);
}

static bool is_system_role(const char *role)
{
	return role && (!strcmp(role, "system") || !strcmp(role, "developer"));
}

/* One Chat message or Responses input item. */
static int openai_item(struct walk *w, const cJSON *msg, const struct jpath *mi, const char *base, int i,
		       bool leading)
{
	if (!json_is_object(msg))
		return json_fail(w->d, w->err, CS_ETYPE, mi, NULL, "expected a message (an object), got %s",
				 json_type_name(msg));
	const char *role = json_opt_string(msg, "role"), *type = json_opt_string(msg, "type");
	int layer = leading && is_system_role(role) ? RL_SYSTEM
		    : w->current_from >= 0 && i >= w->current_from ? RL_CURRENT : RL_HISTORY;
	char path[80];
	if (type && strcmp(type, "message")) {
		snprintf(path, sizeof path, "%s", base);
		if (!strcmp(type, "function_call"))
			return openai_call(w, msg, path, "assistant", layer, i);
		const cJSON *out = get(msg, "output");
		struct strbuf sb = STRBUF_INIT;
		struct req_nested x = { 0, 0 };
		if (json_is_string(out) || (json_is_array(out) && !strcmp(type, "function_call_output")))
			request_result_text(&sb, out, IMAGE_OPENAI, &x); /* a string, or input_text/input_image parts */
		else if (!strcmp(type, "reasoning") && json_is_array(get(msg, "summary")))
			request_result_text(&sb, get(msg, "summary"), IMAGE_OPENAI, &x);
		else
			request_json(&sb, msg, 0, 0, NULL, NULL);
		const char *r = !strcmp(type, "function_call_output") ? "tool" : "assistant";
		struct req_unit *u = sb.failed ? NULL
					       : add_unit_x(w, msg, path, type, r, layer, i, sb_str(&sb), sb.len, &x);
		sb_fini(&sb);
		return u ? CS_OK : cs_error_nomem(w->err);
	}
	if (!role)
		return json_fail(w->d, w->err, CS_ESTRUCT, mi, "role", "expected a role (or an item type)");
	role = arena_strdup(&w->src->arena, role);
	if (!role)
		return cs_error_nomem(w->err);
	int rc = openai_content(w, msg, mi, base, role, layer, i);
	const cJSON *calls = get(msg, "tool_calls"), *c;
	int j = 0;
	JSON_EACH(c, calls) {
		snprintf(path, sizeof path, "%s.tool_calls[%d]", base, j++);
		if (rc == CS_OK)
			rc = openai_call(w, c, path, role, layer, i);
	}
	struct req_unit *last = w->r->nunits ? &w->m->units[w->m->nunits - 1] : NULL;
	if (rc == CS_OK && last && !strcmp(role, "tool") && w->r->nunits > 1 && last[-1].message == i - 1 &&
	    !strcmp(last[-1].role, "tool"))
		last->run = true;
	return rc;
}

static int openai_items(struct walk *w, const cJSON *list, const char *key)
{
	struct jpath at = JPATH_KEY(JPATH_ROOT, key);
	w->current_from = last_user(list);
	bool leading = true;
	int i = 0;
	const cJSON *msg;
	JSON_EACH(msg, list) {
		struct jpath mi = JPATH_INDEX(&at, i);
		char base[48];
		snprintf(base, sizeof base, "%s[%d]", key, i);
		leading = leading && is_system_role(json_opt_string(msg, "role"));
		int rc = openai_item(w, msg, &mi, base, i, leading);
		if (rc != CS_OK)
			return rc;
		i++;
	}
	return CS_OK;
}

static int openai_body(struct walk *w, const cJSON *body, int provider)
{
	int rc = anthropic_tools(w, body);
	if (rc != CS_OK)
		return rc;
	if (provider == REQ_OPENAI_CHAT) {
		const cJSON *messages = NULL;
		rc = json_get_array(w->d, body, JPATH_ROOT, "messages", JSON_REQUIRED, &messages, w->err);
		return rc == CS_OK ? openai_items(w, messages, "messages") : rc;
	}
	/* State kept by the server: the prompt holds what the body does not show */
	const char *prev = json_opt_string(body, "previous_response_id");
	const cJSON *conv = get(body, "conversation");
	const char *conv_id = json_is_string(conv) ? json_string_value(conv) : json_opt_string(conv, "id");
	if ((prev || conv_id) &&
	    source_warn(w->src, -1, w->line, 0, "%s: the server adds %s \"%.60s\" to this prompt; only the body's own "
			"input is shown and counted", prev ? "previous_response_id" : "conversation",
			prev ? "the conversation up to response" : "the items of conversation", prev ? prev : conv_id))
		return cs_error_nomem(w->err);
	const cJSON *ins = get(body, "instructions");
	if (json_is_string(ins) && !add_unit(w, ins, "instructions", "text", "system", RL_SYSTEM, -1,
					     json_string_value(ins), strlen(json_string_value(ins))))
		return cs_error_nomem(w->err);
	const cJSON *input = get(body, "input");
	if (json_is_string(input))
		return add_unit(w, input, "input", "text", "user", RL_CURRENT, 0, json_string_value(input),
				strlen(json_string_value(input)))
			       ? CS_OK
			       : cs_error_nomem(w->err);
	if (!json_is_array(input))
		return json_fail(w->d, w->err, CS_ETYPE, JPATH_ROOT, "input", "expected a string or a list of items, got %s",
				 input ? json_type_name(input) : "nothing");
	return openai_items(w, input, "input");
}

/* ---- entry points ------------------------------------------------------- */

/* The settings that change what a prompt cache holds without being blocks
 * (caching.md sections 0 and 1, "what invalidates the cache"): Anthropic's
 * tool_choice, thinking and output_config (effort) invalidate the messages;
 * OpenAI's parallel_tool_calls, text (format, verbosity), response_format,
 * reasoning and reasoning_effort, verbosity and context_management are
 * rendered into the prefix. */
static const char *const anthropic_cache_settings[] = { "tool_choice", "thinking", "output_config", NULL };
static const char *const openai_cache_settings[] = { "parallel_tool_calls", "text",	 "response_format",
						     "reasoning",	    "reasoning_effort", "verbosity",
						     "context_management",  NULL };

static int cache_settings(struct source *src, struct req_request *r, const cJSON *body, int provider)
{
	const char *const *names = provider == REQ_ANTHROPIC ? anthropic_cache_settings : openai_cache_settings;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; names[i]; i++) {
		const cJSON *v = get(body, names[i]);
		if (!v)
			continue;
		sb_printf(&sb, "%s%s=", sb.len ? ", " : "", names[i]);
		request_json(&sb, v, 0, 0, NULL, NULL);
	}
	int rc = sb.failed ? CS_ENOMEM : CS_OK;
	if (rc == CS_OK && sb.len) {
		r->settings_hash = request_hash(sb_str(&sb), sb.len, 0x5e7715ull) | 1;
		r->settings = arena_strndup(&src->arena, sb_str(&sb), sb.len < 300 ? sb.len : 300);
		rc = r->settings ? CS_OK : CS_ENOMEM;
	}
	sb_fini(&sb);
	return rc;
}

/* The earlier response the body asks the provider to diagnose its cache
 * against (ctxscope-formats(5) section 6b): Anthropic's
 * diagnostics.previous_message_id, OpenAI's
 * prompt_cache_options.comparison_response_id. */
static int compared_named(struct source *src, struct req_request *r, const cJSON *body)
{
	const char *id = json_opt_string(get(body, "diagnostics"), "previous_message_id");
	if (!id)
		id = json_opt_string(get(body, "prompt_cache_options"), "comparison_response_id");
	if (!id || !*id)
		return CS_OK;
	r->asked_compare = arena_strndup(&src->arena, id, strnlen(id, 200));
	r->provider_compared = -1;
	return r->asked_compare ? CS_OK : CS_ENOMEM;
}

int request_provider_of(const cJSON *body, const char **why)
{
	*why = NULL;
	if (!json_is_object(body)) {
		*why = "not a JSON object";
		return -1;
	}
	const char *model = json_opt_string(body, "model");
	const cJSON *messages = get(body, "messages");
	if (json_is_array(messages)) {
		if (get(body, "system") || get(body, "cache_control") || get(body, "thinking"))
			return REQ_ANTHROPIC;
		const cJSON *msg, *b;
		JSON_EACH(msg, messages) {
			const char *role = json_opt_string(msg, "role");
			if (role && (!strcmp(role, "tool") || !strcmp(role, "developer") || !strcmp(role, "system")))
				return REQ_OPENAI_CHAT;
			if (get(msg, "tool_calls"))
				return REQ_OPENAI_CHAT;
			JSON_EACH(b, get(msg, "content")) {
				const char *t = json_opt_string(b, "type");
				if (t && known_type(anthropic_known, t) && strcmp(t, "text"))
					return REQ_ANTHROPIC;
				if (t && (!strcmp(t, "image_url") || !strcmp(t, "input_audio")))
					return REQ_OPENAI_CHAT;
			}
		}
		if (model && !strncmp(model, "claude", 6))
			return REQ_ANTHROPIC;
		if (model && (!strncmp(model, "gpt-", 4) || (model[0] == 'o' && model[1] >= '1' && model[1] <= '9')))
			return REQ_OPENAI_CHAT;
		*why = "\"messages\" without \"system\", a tool or developer role, \"tool_calls\", an Anthropic block type, "
		       "or a claude-/gpt-/oN model";
		return -1;
	}
	if (get(body, "input") && (get(body, "instructions") || model))
		return REQ_OPENAI_RESPONSES;
	*why = "no \"messages\" (a Messages or Chat body) and no \"input\" with \"instructions\" or \"model\" (a "
	       "Responses body)";
	return -1;
}

int request_parse_body(struct source *src, struct request_model *m, const struct json_doc *d, const cJSON *body,
		       const struct jpath *at, int provider, long line, bool keep_nodes, struct cs_error *err)
{
	(void)at;
	if (m->nreqs == m->cap_reqs) {
		size_t cap = m->cap_reqs ? m->cap_reqs * 2 : 8;
		struct req_request *r = cs_realloc(m->reqs, cap * sizeof *r);
		if (!r)
			return cs_error_nomem(err);
		m->reqs = r;
		m->cap_reqs = cap;
	}
	struct req_request *r = &m->reqs[m->nreqs];
	memset(r, 0, sizeof *r);
	r->first_unit = m->nunits;
	r->line = line;
	r->time = -1;
	r->compared = -1;
	r->diff_unit = -1;
	r->rec_write_1h = -1;
	r->rec_output = -1;
	r->rec_missed = -1;
	r->provider = provider;
	const char *model = json_opt_string(body, "model");
	r->model = arena_strdup(&src->arena, model ? model : "");
	const char *ret = json_opt_string(body, "prompt_cache_retention"), *speed = json_opt_string(body, "speed");
	r->retention = ret ? arena_strdup(&src->arena, ret) : NULL;
	r->rec_fast = speed && !strcmp(speed, "fast"); /* asked for: the record's usage.speed, if any, says what ran */
	if (cache_settings(src, r, body, provider) != CS_OK || compared_named(src, r, body) != CS_OK)
		return cs_error_nomem(err);
	if (!r->model)
		return cs_error_nomem(err);
	m->nreqs++;
	struct walk w = { src, m, d, r, line, keep_nodes, -1, 0, err };
	int saved = m->provider;
	m->provider = provider;
	int rc;
	if (provider == REQ_ANTHROPIC) {
		const cJSON *cc = get(body, "cache_control");
		r->auto_ttl = json_is_object(cc) ? block_ttl(&w, body, "cache_control") : 0;
		rc = anthropic_tools(&w, body);
		if (rc == CS_OK)
			rc = system_field(&w, body, "system", "system");
		if (rc == CS_OK)
			rc = anthropic_messages(&w, body);
	} else {
		rc = openai_body(&w, body, provider);
	}
	if (!keep_nodes)
		m->provider = saved;
	return rc;
}

/* counted.c: whole requests counted as the provider counts them (see
 * counted.h). */
#include "kinds/request/counted.h"

#include "base/alloc.h"
#include "base/fileio.h"
#include "base/strbuf.h"
#include "emit.h"
#include "json/doc.h"
#include "kinds/request/request.h"
#include "source.h"
#include "tokens/bpe.h"
#include "tokens/image.h"
#include "tokens/overhead.h"
#include "tokens/tokenizer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON as JavaScript writes it ------------------------------------------- */

/* Number.prototype.toString: the shortest digits that read back as v, then
 * plain notation for exponents -7 < e < 21, else d.ddde+N. */
static void js_number(struct strbuf *out, double v)
{
	if (!isfinite(v)) {
		sb_puts(out, "null");
		return;
	}
	if (v == 0) {
		sb_putc(out, '0');
		return;
	}
	char buf[40], digits[24];
	int p = 1;
	for (; p < 17; p++) {
		snprintf(buf, sizeof buf, "%.*e", p - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, sizeof buf, "%.*e", p - 1, v);
	const char *s = buf;
	if (*s == '-')
		sb_putc(out, '-'), s++;
	int k = 0;
	for (; *s && *s != 'e'; s++)
		if (*s != '.')
			digits[k++] = *s;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	int n = atoi(s + 1) + 1; /* the decimal point after n digits */
	if (k <= n && n <= 21) {
		sb_puts(out, digits);
		for (int i = k; i < n; i++)
			sb_putc(out, '0');
	} else if (0 < n && n <= 21) {
		sb_printf(out, "%.*s.%s", n, digits, digits + n);
	} else if (-6 < n && n <= 0) {
		sb_puts(out, "0.");
		for (int i = 0; i < -n; i++)
			sb_putc(out, '0');
		sb_puts(out, digits);
	} else {
		sb_putc(out, digits[0]);
		if (k > 1)
			sb_printf(out, ".%s", digits + 1);
		sb_printf(out, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
	}
}

static void js_string(struct strbuf *out, const char *s)
{
	sb_putc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': sb_puts(out, "\\\""); break;
		case '\\': sb_puts(out, "\\\\"); break;
		case '\b': sb_puts(out, "\\b"); break;
		case '\f': sb_puts(out, "\\f"); break;
		case '\n': sb_puts(out, "\\n"); break;
		case '\r': sb_puts(out, "\\r"); break;
		case '\t': sb_puts(out, "\\t"); break;
		default:
			if (*p < 0x20)
				sb_printf(out, "\\u%04x", *p);
			else
				sb_putc(out, (char)*p);
		}
	}
	sb_putc(out, '"');
}

void request_js_stringify(struct strbuf *out, const cJSON *v)
{
	if (json_is_string(v)) {
		js_string(out, json_string_value(v));
	} else if (json_is_number(v)) {
		js_number(out, json_number_value(v, 0));
	} else if (json_is_bool(v)) {
		sb_puts(out, json_is_true(v) ? "true" : "false");
	} else if (json_is_array(v) || json_is_object(v)) {
		bool obj = json_is_object(v);
		sb_putc(out, obj ? '{' : '[');
		const cJSON *c;
		size_t n = 0;
		JSON_EACH(c, v) {
			sb_puts(out, n++ ? "," : "");
			if (obj) {
				js_string(out, json_key(c));
				sb_putc(out, ':');
			}
			request_js_stringify(out, c);
		}
		sb_putc(out, obj ? '}' : ']');
	} else {
		sb_puts(out, "null");
	}
}

/* ---- counting text, remembered --------------------------------------------- */

/* Counts by text: a log repeats its history request after request. Keyed by
 * a 64-bit hash of the bytes, their length and the tokenizer. The table
 * grows with what it holds (a short session clears no megabyte), up to
 * MEMO_MAX slots; past half of that, counts are no longer remembered. */
struct memo_slot {
	uint64_t key; /* 0: empty */
	long count;
};

struct memo {
	struct memo_slot *slots; /* NULL until the first count */
	size_t used, cap;
};

#define MEMO_FIRST 256
#define MEMO_MAX (1u << 16)

/* The slot of key in m: where it is, else the empty one it would take. */
static size_t memo_find(const struct memo *m, uint64_t key)
{
	size_t mask = m->cap - 1, i = (size_t)key & mask;
	while (m->slots[i].key && m->slots[i].key != key)
		i = (i + 1) & mask;
	return i;
}

/* Doubles m (from MEMO_FIRST); false when it may not (full size, or out of
 * memory: counting goes on without remembering). */
static bool memo_grow(struct memo *m)
{
	size_t cap = m->cap ? m->cap * 2 : MEMO_FIRST;
	struct memo_slot *slots = cap <= MEMO_MAX ? cs_calloc(cap, sizeof *slots) : NULL;
	if (!slots)
		return false;
	struct memo bigger = { slots, m->used, cap };
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			slots[memo_find(&bigger, m->slots[i].key)] = m->slots[i];
	cs_free(m->slots);
	*m = bigger;
	return true;
}

struct cctx {
	long nested_images;     /* images inside tool results: the provider's rule (image.h) */
	struct tokenizer *t;
	const struct overhead *ov;
	const char *model;      /* the one ov was found for; NULL: the body's */
	long tool_prompt;       /* the tool-use system prompt, once when there are tools */
	bool strip_thinking;    /* the message counted is an earlier turn whose thinking the model strips */
	struct memo *memo;      /* shared by the requests of a file; NULL: none */
	struct strbuf sb;
	struct cs_error *err;
	int rc;
};

/* The tokens of s[0..n), remembered under key (a hash of the text, or of
 * the block it renders). */
static long enc_keyed(struct cctx *c, uint64_t key, const char *s, size_t n)
{
	if (c->rc != CS_OK || !n)
		return 0;
	key ^= (uint64_t)n * 0x9E3779B97F4A7C15ull ^ (uintptr_t)c->t;
	key = key ? key : 1;
	struct memo *m = c->memo;
	if (m && m->slots) {
		size_t i = memo_find(m, key);
		if (m->slots[i].key)
			return m->slots[i].count;
	}
	long got = 0;
	c->rc = tokenizer_count(c->t, s, n, &got, c->err);
	if (c->rc == CS_OK && m && (m->used < m->cap / 2 || memo_grow(m))) {
		m->slots[memo_find(m, key)] = (struct memo_slot){ key, got };
		m->used++;
	}
	return got;
}

static long enc(struct cctx *c, const char *s, size_t n)
{
	return n ? enc_keyed(c, bpe_hash((const unsigned char *)s, n), s, n) : 0;
}

static long enc_str(struct cctx *c, const char *s)
{
	return s ? enc(c, s, strlen(s)) : 0;
}

/* JSON.stringify(v)'s tokens. */
static long enc_json(struct cctx *c, const cJSON *v)
{
	sb_reset(&c->sb);
	request_js_stringify(&c->sb, v);
	if (c->sb.failed) {
		c->rc = cs_error_nomem(c->err);
		return 0;
	}
	return enc(c, sb_str(&c->sb), c->sb.len);
}

/* A part's total: its tokens times the content multiplier, rounded as
 * JavaScript's Math.round does. */
static long part(const struct cctx *c, long tokens)
{
	return (long)floor((double)tokens * c->ov->content_multiplier + 0.5);
}

/* An array's first element; NULL for anything else. */
static const cJSON *first(const cJSON *arr)
{
	return json_is_array(arr) ? json_first(arr) : NULL;
}

static bool is(const char *type, const char *want)
{
	return type && !strcmp(type, want);
}

/* ---- tools by their schema ---------------------------------------------------- */

/* String(v) of an enum value. */
static long enum_value(struct cctx *c, const cJSON *v)
{
	if (json_is_string(v))
		return enc_str(c, json_string_value(v));
	sb_reset(&c->sb);
	if (json_is_number(v))
		js_number(&c->sb, json_number_value(v, 0));
	else
		sb_puts(&c->sb, json_is_true(v) ? "true" : json_is_false(v) ? "false" : json_is_null(v) ? "null" : "");
	return enc(c, sb_str(&c->sb), c->sb.len);
}

static bool is_object_schema(const cJSON *s)
{
	const char *type = json_opt_string(s, "type");
	return is(type, "object") || (!type && json_is_object(json_member(s, "properties")));
}

/* The properties of an object schema, as the package walks a zod object:
 * each key, first or not, its description, its enum values, what an
 * object or an array of objects inside it holds. Depth is the parser's. */
static long schema_props(struct cctx *c, const cJSON *schema)
{
	const struct overhead *ov = c->ov;
	const cJSON *props = json_member(schema, "properties"), *p;
	if (!is_object_schema(schema) || !json_is_object(props))
		return 0;
	long tokens = 0;
	bool first = true;
	JSON_EACH(p, props) {
		tokens += enc_str(c, json_key(p)) + (first ? ov->per_first_prop : ov->per_additional_prop);
		first = false;
		const char *desc = json_opt_string(p, "description");
		if (desc && *desc)
			tokens += ov->per_prop_desc + enc_str(c, desc);
		const cJSON *values = json_member(p, "enum"), *v;
		if (json_is_array(values)) {
			tokens += ov->per_enum;
			JSON_EACH(v, values)
				tokens += enum_value(c, v);
		} else if (is_object_schema(p)) {
			tokens += ov->per_nested_object + schema_props(c, p);
		} else if (is(json_opt_string(p, "type"), "array") && json_is_object(json_member(p, "items"))) {
			const cJSON *items = json_member(p, "items");
			tokens += (is_object_schema(items) ? ov->per_array_of_objects : 0) + schema_props(c, items);
		}
	}
	return tokens;
}

/* tools[]: Anthropic {name, description, input_schema}, OpenAI Chat
 * {type: function, function: {name, description, parameters}}, Responses
 * {type: function, name, description, parameters}. */
static long tools_tokens(struct cctx *c, const cJSON *tools)
{
	if (!json_is_array(tools) || !json_length(tools))
		return 0;
	long tokens = c->tool_prompt;
	const cJSON *t;
	int i = 0;
	JSON_EACH(t, tools) {
		const cJSON *f = json_is_object(json_member(t, "function")) ? json_member(t, "function") : t;
		const char *desc = json_opt_string(f, "description");
		const cJSON *schema =
			json_member(f, "input_schema") ? json_member(f, "input_schema") : json_member(f, "parameters");
		tokens += enc_str(c, json_opt_string(f, "name")) +
			  (desc && *desc ? c->ov->per_desc + enc_str(c, desc) : 0) + schema_props(c, schema) +
			  (i++ ? c->ov->per_tool : 0);
	}
	return tokens;
}

/* ---- messages ----------------------------------------------------------------- */

/* A tool result's content (Anthropic tool_result, Responses function_call_output): the
 * string, or its text blocks joined by "\n"; its images by their rule (nested_images). */
static long result_text(struct cctx *c, const cJSON *content, int rule)
{
	if (json_is_string(content))
		return enc_str(c, json_string_value(content));
	struct strbuf joined = STRBUF_INIT, placeholder = STRBUF_INIT;
	const cJSON *b;
	JSON_EACH(b, content) {
		const char *t = json_opt_string(b, "text"), *type = json_opt_string(b, "type");
		if (t && (is(type, "text") || is(type, "input_text")))
			sb_printf(&joined, "%s%s", joined.len ? "\n" : "", t);
		else if (is(type, "image") || is(type, "input_image"))
			c->nested_images += request_image(&placeholder, b, rule, NULL);
		else if (is(type, "document")) /* a PDF: its estimate, as the kind's */
			c->nested_images += request_pdf_tokens(&placeholder, b);
	}
	sb_fini(&placeholder);
	long n = joined.failed ? (c->rc = cs_error_nomem(c->err), 0) : enc(c, sb_str(&joined), joined.len);
	sb_fini(&joined);
	return n;
}

/* An Anthropic content block's part total (images: 0, the kind counts them). */
static long anthropic_part(struct cctx *c, const cJSON *b)
{
	const char *type = json_opt_string(b, "type");
	if (!json_is_object(b))
		return json_is_string(b) ? part(c, enc_str(c, json_string_value(b))) : 0;
	if (is(type, "text"))
		return part(c, enc_str(c, json_opt_string(b, "text")));
	if (is(type, "thinking") && !c->strip_thinking)
		return part(c, enc_str(c, json_opt_string(b, "thinking")));
	if (is(type, "thinking") || is(type, "redacted_thinking") || is(type, "image"))
		return 0;
	if (is(type, "document"))
		return is(json_opt_string(json_member(b, "source"), "type"), "text")
			       ? part(c, enc_str(c, json_opt_string(json_member(b, "source"), "data")))
			       : 0;
	if (is(type, "tool_use") || is(type, "server_tool_use") || is(type, "mcp_tool_use")) {
		const cJSON *input = json_member(b, "input");
		return part(c, enc_str(c, json_opt_string(b, "name")) +
				       (input && !json_is_null(input) ? enc_json(c, input) : 0));
	}
	if (is(type, "tool_result") || is(type, "mcp_tool_result"))
		return part(c, enc_str(c, json_opt_string(b, "tool_use_id")) +
				       result_text(c, json_member(b, "content"), IMAGE_ANTHROPIC));
	return part(c, enc_json(c, b));
}

/* One message: its framing, its role, its content's parts. */
static long message(struct cctx *c, const char *role, const cJSON *content, long (*part_of)(struct cctx *, const cJSON *))
{
	long tokens = c->ov->per_message + enc_str(c, role);
	if (json_is_string(content))
		tokens += part(c, enc_str(c, json_string_value(content)));
	else if (json_is_array(content))
		for (const cJSON *b = json_first(content); b; b = json_next(b))
			tokens += part_of(c, b);
	return tokens;
}

static void anthropic_body(struct cctx *c, const cJSON *body, struct req_counted *out)
{
	const cJSON *sys = json_member(body, "system"), *msgs = json_member(body, "messages"), *m;
	int from = request_thinking_from(msgs, c->model ? c->model : json_opt_string(body, "model")), i = 0;
	if (json_is_string(sys) || json_is_array(sys))
		out->system = message(c, "system", sys, anthropic_part);
	for (m = first(msgs); m; m = json_next(m)) {
		c->strip_thinking = i++ < from; /* caching.md section 1 */
		out->messages += message(c, json_opt_string(m, "role"), json_member(m, "content"), anthropic_part);
	}
	c->strip_thinking = false;
	out->tools = tools_tokens(c, json_member(body, "tools"));
}

/* An OpenAI content part (Chat or Responses): text; images are the kind's. */
static long openai_part(struct cctx *c, const cJSON *p)
{
	const char *type = json_opt_string(p, "type");
	if (json_is_string(p))
		return part(c, enc_str(c, json_string_value(p)));
	if (is(type, "text") || is(type, "input_text") || is(type, "output_text"))
		return part(c, enc_str(c, json_opt_string(p, "text")));
	if (is(type, "refusal"))
		return part(c, enc_str(c, json_opt_string(p, "refusal")));
	return 0;
}

/* A tool call's part: its name and its arguments (a JSON string) parsed
 * and written again as JSON.stringify would, or as they are. */
static long openai_call(struct cctx *c, const char *name, const char *args)
{
	long tokens = enc_str(c, name);
	cJSON *parsed = args ? json_tree_parse_str(args) : NULL;
	tokens += parsed ? enc_json(c, parsed) : enc_str(c, args);
	json_tree_free(parsed);
	return part(c, tokens);
}

static long chat_message(struct cctx *c, const cJSON *m)
{
	const char *role = json_opt_string(m, "role");
	if (is(role, "tool"))
		return c->ov->per_message + enc_str(c, role) +
		       part(c,
			    enc_str(c, json_opt_string(m, "tool_call_id")) + enc_str(c, json_opt_string(m, "content")));
	long tokens = message(c, role, json_member(m, "content"), openai_part);
	const cJSON *call;
	for (call = first(json_member(m, "tool_calls")); call; call = json_next(call))
		tokens += openai_call(c, json_opt_string(json_member(call, "function"), "name"),
				      json_opt_string(json_member(call, "function"), "arguments"));
	return tokens;
}

/* A Responses input item: a message, a function call or its output. */
static long responses_item(struct cctx *c, const cJSON *it)
{
	const char *type = json_opt_string(it, "type");
	if (is(type, "function_call"))
		return c->ov->per_message + enc_str(c, "assistant") +
		       openai_call(c, json_opt_string(it, "name"), json_opt_string(it, "arguments"));
	if (is(type, "function_call_output"))
		return c->ov->per_message + enc_str(c, "tool") +
		       part(c, enc_str(c, json_opt_string(it, "call_id")) +
				       result_text(c, json_member(it, "output"), IMAGE_OPENAI));
	if (json_opt_string(it, "role"))
		return message(c, json_opt_string(it, "role"), json_member(it, "content"), openai_part);
	return 0; /* reasoning items and others: not sent back as text */
}

static void openai_body(struct cctx *c, int provider, const cJSON *body, struct req_counted *out)
{
	const cJSON *m;
	if (provider == REQ_OPENAI_CHAT) {
		for (m = first(json_member(body, "messages")); m; m = json_next(m)) {
			long n = chat_message(c, m);
			if (is(json_opt_string(m, "role"), "system") || is(json_opt_string(m, "role"), "developer"))
				out->system += n;
			else
				out->messages += n;
		}
	} else {
		const cJSON *ins = json_member(body, "instructions"), *input = json_member(body, "input");
		if (json_is_string(ins))
			out->system = message(c, "system", ins, openai_part);
		if (json_is_string(input))
			out->messages = message(c, "user", input, openai_part);
		for (m = first(input); m; m = json_next(m))
			out->messages += responses_item(c, m);
	}
	out->tools = tools_tokens(c, json_member(body, "tools"));
}

/* The tool-use system prompt for body: the table's figure (ai-tokenizer's,
 * measured with the default choice) moved by the difference Anthropic
 * lists between the request's tool_choice and auto (overhead.h). Anthropic
 * writes {type: auto|any|tool|none}, OpenAI's shapes (a Claude model behind
 * a proxy) "auto", "none", "required" or {type: function}. */
static void tool_prompt_of(struct cctx *c, const cJSON *body, struct req_counted *out)
{
	const cJSON *choice = json_member(body, "tool_choice");
	const char *type = json_is_string(choice) ? json_string_value(choice) : json_opt_string(choice, "type");
	bool any = is(type, "any") || is(type, "tool") || is(type, "required") || is(type, "function");
	bool nearest = false;
	const char *model = c->model ? c->model : json_opt_string(body, "model");
	long auto_none = overhead_tool_prompt(model, false, &nearest);
	long chosen = overhead_tool_prompt(model, any, &nearest);
	c->tool_prompt = c->ov->tools_exist + (auto_none >= 0 ? chosen - auto_none : 0);
	out->tool_choice = auto_none < 0 ? NULL : any ? "any" : "auto";
	out->tool_prompt_nearest = auto_none >= 0 && nearest;
}

static int count_with(struct cctx *c, int provider, const cJSON *body, long images, struct req_counted *out)
{
	out->tools = out->system = out->messages = 0;
	tool_prompt_of(c, body, out);
	if (provider == REQ_ANTHROPIC)
		anthropic_body(c, body, out);
	else
		openai_body(c, provider, body, out);
	out->images = images + c->nested_images;
	out->tool_prompt = out->tools ? c->tool_prompt : 0;
	out->tokens = c->rc == CS_OK ? c->ov->base + out->tools + out->system + out->messages + out->images : -1;
	snprintf(out->overheads, sizeof out->overheads, "%s", c->ov->id);
	out->approximate = tokenizer_approximate(c->t);
	return c->rc;
}

int request_count_body(struct tokenizer *t, const struct overhead *ov, int provider, const cJSON *body,
		       long image_tokens, struct req_counted *out, struct cs_error *err)
{
	struct cctx c = { .t = t, .ov = ov, .sb = STRBUF_INIT, .err = err, .rc = CS_OK };
	int rc = count_with(&c, provider, body, image_tokens, out);
	sb_fini(&c.sb);
	return rc;
}

/* ---- every request of a file --------------------------------------------------- */

#define COUNT_TOKENIZERS 4

struct counting {
	struct overheads table;
	bool have_table;
	struct { const char *name; struct tokenizer *t; bool missing; } toks[COUNT_TOKENIZERS];
	struct memo memo;
};

/* The tokenizer named (a built-in name: static), opened once; NULL when
 * its file is not there. */
static struct tokenizer *tokenizer_named(struct counting *k, const char *name, struct cs_error *err, int *rc)
{
	int i = 0;
	for (; i < COUNT_TOKENIZERS && k->toks[i].name; i++)
		if (!strcmp(k->toks[i].name, name))
			return k->toks[i].t;
	if (i == COUNT_TOKENIZERS)
		return NULL;
	k->toks[i].name = name;
	*rc = tokenizer_open(name, &k->toks[i].t, err);
	if (*rc == CS_EIO || *rc == CS_ESYNTAX)
		*rc = CS_OK, k->toks[i].missing = true, cs_error_clear(err);
	return k->toks[i].t;
}

/* The image tokens of request r: its image units, by the kind's rule. */
static long images_of(const struct request_model *m, const struct req_request *r)
{
	long n = 0;
	for (size_t u = r->first_unit; u < r->first_unit + r->nunits; u++)
		n += m->units[u].image ? m->units[u].tokens : 0;
	return n;
}

static bool has_prompt(const cJSON *o)
{
	return json_is_object(o) && (json_member(o, "messages") || json_member(o, "input") || json_member(o, "system"));
}

/* The request body a record holds, whatever the log's shape (ctxscope-formats(5)
 * 6b): a bare body; a capture's request.body (an object, or JSON text); a
 * batch line's body or params; a HAR entry's request.postData.text; a
 * LiteLLM payload (messages beside model). Text is parsed into *parsed
 * (the caller deletes it). NULL when none. */
static const cJSON *body_of(const cJSON *rec, cJSON **parsed)
{
	*parsed = NULL;
	const cJSON *req = json_member(rec, "request"), *resp;
	const cJSON *cands[] = { json_member(req, "body"), json_member(json_member(req, "postData"), "text"),
				 json_member(rec, "body"), json_member(rec, "params"),
				 json_is_object(req) ? request_unwrap(rec, &resp) : NULL, rec };
	for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
		const cJSON *c = cands[i];
		if (json_is_string(c) && (*parsed = json_tree_parse_str(json_string_value(c))) && has_prompt(*parsed))
			return *parsed;
		json_tree_free(*parsed);
		*parsed = NULL;
		if (has_prompt(c))
			return c;
	}
	return NULL;
}

/* Request i's record: its line of the log (the whole file for a body), or
 * for a document (a HAR, a batch's create body) its element of the
 * records, parsed once (*whole). */
static const cJSON *record_of(const struct request_model *m, size_t i, const char *buf, size_t len, cJSON **line,
			      cJSON **whole)
{
	const struct req_request *r = &m->reqs[i];
	*line = NULL;
	if (m->document && m->shape && m->shape->records) {
		if (!*whole)
			*whole = json_tree_parse(buf, len);
		const char *where;
		const cJSON *list = *whole ? m->shape->records(*whole, &where) : NULL, *el;
		size_t at = 0;
		JSON_EACH(el, list)
			if (at++ == r->offset)
				return el;
		return NULL;
	}
	size_t from = m->is_log ? r->offset : 0, n = m->is_log ? r->length : len;
	*line = from <= len && n <= len - from ? json_tree_parse(buf + from, n) : NULL;
	return *line;
}

static void count_one(struct counting *k, const struct request_model *m, size_t i, const char *buf, size_t len,
		      cJSON **whole, struct req_counted *out, struct cs_error *err, int *rc)
{
	const struct req_request *r = &m->reqs[i];
	const char *name = tokenizer_for_model(r->model);
	bool nearest = false;
	const struct overhead *ov = k->have_table ? overheads_for(&k->table, r->model, &nearest) : NULL;
	struct tokenizer *t = name ? tokenizer_named(k, name, err, rc) : NULL;
	*out = (struct req_counted){ .tokens = -1, .tokenizer = name, .nearest = nearest };
	if (*rc != CS_OK)
		return;
	if (!name)
		out->why = "no tokenizer for this model (neither Claude nor OpenAI)";
	else if (!t)
		out->why = tokenizer_name_approximate(name) ? "the claude encoding is missing (make deps)"
							    : "the rank file is missing (make deps)";
	else if (!ov)
		out->why = k->have_table ? "the model is not in ai-tokenizer's table" : "the models table is missing (make deps)";
	if (out->why)
		return;
	cJSON *line, *parsed;
	const cJSON *rec = record_of(m, i, buf, len, &line, whole);
	const cJSON *body = rec ? body_of(rec, &parsed) : (parsed = NULL);
	const char *why_not;
	int provider = body ? request_provider_of(body, &why_not) : -1;
	if (!json_is_object(body)) {
		out->why = "the request could not be read again (the file changed?)";
	} else {
		struct cctx c = { .t = t, .ov = ov, .model = r->model, .memo = &k->memo, .sb = STRBUF_INIT,
				  .err = err, .rc = CS_OK };
		*rc = count_with(&c, provider >= 0 ? provider : m->provider, body, images_of(m, r), out);
		sb_fini(&c.sb);
	}
	json_tree_free(parsed);
	json_tree_free(line);
}

/* A count of m's requests begun: the overheads table read (its absence said
 * in note), a result for each request; *counts NULL until counting_end. */
static int counting_begin(struct counting *k, const struct request_model *m, struct req_counted **c,
			  struct req_counted **counts, char *note, size_t note_size, struct cs_error *err)
{
	*counts = *c = NULL;
	note[0] = '\0';
	*k = (struct counting){ .have_table = false };
	struct cs_error why;
	cs_error_clear(&why);
	k->have_table = overheads_load(&k->table, NULL, &why) == CS_OK;
	if (!k->have_table && why.code == CS_ENOMEM)
		return cs_error_nomem(err);
	if (!k->have_table)
		cs_error_format(&why, note, note_size);
	*c = cs_calloc(m->nreqs ? m->nreqs : 1, sizeof **c);
	return *c ? CS_OK : cs_error_nomem(err);
}

/* Its end: tokenizers closed, table and memo freed; the results handed
 * over when rc is CS_OK, else freed. */
static int counting_end(struct counting *k, int rc, struct req_counted *c, struct req_counted **counts)
{
	for (int i = 0; i < COUNT_TOKENIZERS; i++)
		tokenizer_close(k->toks[i].t);
	overheads_fini(&k->table);
	cs_free(k->memo.slots);
	if (rc != CS_OK) {
		cs_free(c);
		return rc;
	}
	*counts = c;
	return CS_OK;
}

int request_count_all(const struct source *src, const struct request_model *m, struct req_counted **counts,
		      char *note, size_t note_size, struct cs_error *err)
{
	struct counting k;
	struct req_counted *c;
	int rc = counting_begin(&k, m, &c, counts, note, note_size, err);
	char *buf = NULL;
	size_t len = 0;
	struct cs_error why;
	bool read = rc == CS_OK && file_read(src->path, 0, &buf, &len, NULL, &why) == CS_OK;
	cJSON *whole = NULL; /* a document's records, parsed once */
	for (size_t i = 0; rc == CS_OK && i < m->nreqs; i++)
		count_one(&k, m, i, read ? buf : "", read ? len : 0, &whole, &c[i], err, &rc);
	json_tree_free(whole);
	for (int i = 0; i < COUNT_TOKENIZERS && k.toks[i].name && !note[0]; i++)
		if (k.toks[i].missing)
			snprintf(note, note_size, "%s: %s", k.toks[i].name,
				 tokenizer_name_approximate(k.toks[i].name) ? TOKENIZER_HOW_TO_GET_CLAUDE : TOKENIZER_HOW_TO_GET);
	cs_free(buf);
	return counting_end(&k, rc, c, counts);
}

static long recorded_prompt(const struct req_request *r)
{
	return r->recorded ? r->rec_uncached + r->rec_read + r->rec_write : -1;
}

/* ---- requests known by their blocks alone (Claude Code sessions) ----------- */

/* Request r from its units: per message its framing, its role, each
 * block's text as a part (images by the kind's rule); the unit that stands
 * for what the file does not hold (message -1) and tool definitions are
 * not counted: the record tells them (request_emit_units_counted). */
static int count_units(struct cctx *c, const struct request_model *m, const struct req_request *r,
		       struct req_counted *out)
{
	long msg = -2;
	out->tools = out->system = out->messages = out->images = 0;
	for (size_t u = r->first_unit; u < r->first_unit + r->nunits && c->rc == CS_OK; u++) {
		const struct req_unit *x = &m->units[u];
		if (x->message < 0)
			continue;
		if (x->message != msg) {
			msg = x->message;
			out->messages += c->ov->per_message + enc_str(c, x->role);
		}
		out->images += x->image ? x->tokens : x->nested_images; /* a tool result's images too, by their rule */
		if (!x->image) /* a unit's hash is its block's (its JSON): no need to hash its text again */
			out->messages += part(c, enc_keyed(c, bpe_mix(x->hash), x->text, x->text_len));
	}
	out->tokens = c->rc == CS_OK ? c->ov->base + out->messages + out->images : -1;
	snprintf(out->overheads, sizeof out->overheads, "%s", c->ov->id);
	out->approximate = tokenizer_approximate(c->t);
	return c->rc;
}

int request_count_units(const struct request_model *m, struct req_counted **counts, char *note, size_t note_size,
			struct cs_error *err)
{
	struct counting k;
	struct req_counted *c;
	int rc = counting_begin(&k, m, &c, counts, note, note_size, err);
	for (size_t i = 0; rc == CS_OK && i < m->nreqs; i++) {
		const struct req_request *r = &m->reqs[i];
		const char *name = tokenizer_for_model(r->model);
		bool nearest = false;
		const struct overhead *ov = k.have_table ? overheads_for(&k.table, r->model, &nearest) : NULL;
		struct tokenizer *t = name ? tokenizer_named(&k, name, err, &rc) : NULL;
		c[i] = (struct req_counted){ .tokens = -1, .tokenizer = name, .nearest = nearest };
		if (rc != CS_OK)
			break;
		c[i].why = !name ? "no tokenizer for this model" : !t ? "the claude encoding is missing (make deps)"
			   : !ov ? "the model is not in ai-tokenizer's table" : r->nunits < 2 ? "its prompt is not rebuilt" : NULL;
		if (c[i].why)
			continue;
		struct cctx cx = { .t = t, .ov = ov, .memo = &k.memo, .sb = STRBUF_INIT, .err = err, .rc = CS_OK };
		rc = count_units(&cx, m, r, &c[i]);
		sb_fini(&cx.sb);
	}
	return counting_end(&k, rc, c, counts);
}

void request_emit_units_counted(struct emitter *em, const struct request_model *m, size_t k, const struct req_counted *c)
{
	emit_key(em, "counted");
	emit_map_begin(em);
	if (c[k].tokens >= 0)
		emit_key_int(em, "tokens", c[k].tokens);
	emit_key_str(em, "tokenizer", c[k].tokenizer ? c[k].tokenizer : "none");
	emit_key_str(em, "kind", c[k].tokens < 0 ? "not counted" : c[k].approximate ? "approximate" : "exact");
	if (c[k].tokens < 0) {
		emit_key_str(em, "why", c[k].why ? c[k].why : "not counted");
	} else {
		emit_key_str(em, "what", "the transcript's messages (framing, roles, text, images); the system prompt, "
					 "tools and reminders are not in the file");
		emit_key_str(em, "overheads", c[k].overheads);
		long rec = recorded_prompt(&m->reqs[k]);
		if (rec > 0) /* the record calibrates what the file does not hold */
			emit_key_int(em, "not_in_transcript", rec - c[k].tokens);
	}
	emit_map_end(em);
}

/* (counted - recorded) / recorded, in percent. */
static double distance(long counted, long recorded)
{
	return 100.0 * (double)(counted - recorded) / (double)recorded;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One figure for each request both counted (c may be NULL: none) and
 * recorded, sorted, into *out (cs_calloc'd, caller frees; NULL when out of
 * memory): the record less the count with gap, else the distance in
 * percent, absolute. Returns how many; *counted: how many were counted. */
static size_t sorted_figures(const struct request_model *m, const struct req_counted *c, bool gap, double **out,
			     size_t *counted)
{
	double *d = cs_calloc(m->nreqs ? m->nreqs : 1, sizeof *d);
	size_t n = 0;
	*counted = 0;
	for (size_t k = 0; d && c && k < m->nreqs; k++) {
		long rec = recorded_prompt(&m->reqs[k]);
		*counted += c[k].tokens >= 0;
		if (c[k].tokens >= 0 && rec > 0)
			d[n++] = gap ? (double)(rec - c[k].tokens) : fabs(distance(c[k].tokens, rec));
	}
	if (n)
		qsort(d, n, sizeof *d, cmp_double);
	*out = d;
	return n;
}

static double median_of(const double *d, size_t n)
{
	return n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
}

void request_emit_units_summary(struct emitter *em, const struct request_model *m, const struct req_counted *c,
				const char *note)
{
	double *gap;
	size_t counted, n = sorted_figures(m, c, true, &gap, &counted);
	emit_key(em, "counted_not_in_transcript");
	emit_map_begin(em);
	if (note && note[0])
		emit_key_str(em, "note", note);
	emit_key_int(em, "requests", (long long)n);
	if (n) {
		emit_key_int(em, "median", (long long)gap[n / 2]);
		emit_key_int(em, "least", (long long)gap[0]);
		emit_key_int(em, "most", (long long)gap[n - 1]);
		emit_key_str(em, "what", "recorded prompt less the transcript counted (approximate): the system prompt, tools "
					 "and reminders the file does not hold; steady from request to request unless a "
					 "reminder is added, a negative one is a counting error");
	}
	emit_map_end(em);
	cs_free(gap);
}

/* ---- in the report ----------------------------------------------------------- */

void request_emit_counted(struct emitter *em, const struct req_counted *c)
{
	emit_map_begin(em);
	if (c->tokens >= 0)
		emit_key_int(em, "tokens", c->tokens);
	emit_key_str(em, "tokenizer", c->tokenizer ? c->tokenizer : "none");
	emit_key_str(em, "kind", c->tokens < 0 ? "not counted" : c->approximate ? "approximate" : "exact");
	if (c->tokens < 0) {
		emit_key_str(em, "why", c->why ? c->why : "not counted");
		emit_map_end(em);
		return;
	}
	emit_key_str(em, "overheads", c->overheads);
	if (c->nearest)
		emit_key_str(em, "overheads_note", "the model is not in ai-tokenizer's table: its family's nearest row");
	emit_key_int(em, "tools", c->tools);
	if (c->tools && c->tool_choice && !strcmp(c->tool_choice, "any")) { /* the prompt moved by tool_choice */
		emit_key_str(em, "tool_choice", c->tool_choice);
		emit_key_int(em, "tool_prompt", c->tool_prompt);
		if (c->tool_prompt_nearest)
			emit_key_str(em, "tool_prompt_note", "the model is not in Anthropic's tool-use list: the figures of "
							     "its family's nearest model");
	}
	emit_key_int(em, "system", c->system);
	emit_key_int(em, "messages", c->messages);
	emit_key_int(em, "images", c->images);
	emit_map_end(em);
}

void request_emit_distance(struct emitter *em, const struct request_model *m, size_t k, const struct req_counted *c)
{
	long rec = recorded_prompt(&m->reqs[k]);
	if (c->tokens < 0 || rec <= 0)
		return;
	emit_key(em, "counted_vs_recorded");
	emit_map_begin(em);
	emit_key_int(em, "recorded_prompt", rec);
	emit_key_int(em, "difference", c->tokens - rec);
	emit_key_num(em, "percent", floor(distance(c->tokens, rec) * 10 + 0.5) / 10);
	emit_map_end(em);
}

void request_emit_counted_summary(struct emitter *em, const struct request_model *m, const struct req_counted *c,
				  const char *note)
{
	double *d;
	size_t counted, within = 0, n = sorted_figures(m, c, false, &d, &counted);
	for (size_t i = 0; i < n; i++)
		within += d[i] <= 3.0;
	emit_key(em, "counted_vs_recorded");
	emit_map_begin(em);
	emit_key_int(em, "requests_counted", (long long)counted);
	emit_key_int(em, "requests_compared", (long long)n);
	if (note && note[0])
		emit_key_str(em, "note", note);
	if (n) {
		double median = median_of(d, n);
		char s[200];
		snprintf(s, sizeof s, "counted within %.1f%% of recorded over %zu request%s (median; at most %.1f%%); "
			 "%zu of %zu within 3%%", median, n, n == 1 ? "" : "s", d[n - 1], within, n);
		emit_key_str(em, "summary", s);
		emit_key_num(em, "median_percent", floor(median * 10 + 0.5) / 10);
		emit_key_num(em, "max_percent", floor(d[n - 1] * 10 + 0.5) / 10);
		emit_key_int(em, "within_3_percent", (long long)within);
	} else {
		emit_key_str(em, "summary", counted ? "no request with recorded usage to compare with"
						    : "no request counted");
	}
	emit_map_end(em);
	cs_free(d);
}

void request_counted_words(struct strbuf *out, const struct request_model *m, size_t k, const struct req_counted *c)
{
	if (!c || c[k].tokens < 0)
		return;
	char t[32];
	long rec = recorded_prompt(&m->reqs[k]);
	sb_printf(out, "; %s%s counted (%s)", c[k].approximate ? "\u2248" : "", fmt_thousands(t, c[k].tokens),
		  c[k].tokenizer);
	if (rec > 0 && c[k].tokens == rec) {
		sb_printf(out, ", equal to recorded");
	} else if (rec > 0) {
		double p = distance(c[k].tokens, rec);
		sb_printf(out, ", %.1f%% %s recorded %s", fabs(p), p < 0 ? "under" : "over", fmt_thousands(t, rec));
	}
}

void request_counted_cell(struct strbuf *out, const struct request_model *m, size_t k, const struct req_counted *c,
			  bool transcript, bool ascii)
{
	char t[32], cell[48], pct[32] = "-";
	if (!c || c[k].tokens < 0) {
		sb_printf(out, " %9s %7s", "-", "-");
		return;
	}
	snprintf(cell, sizeof cell, "%s%s", c[k].approximate ? (ascii ? "~" : "\u2248") : "", fmt_thousands(t, c[k].tokens));
	long rec = recorded_prompt(&m->reqs[k]);
	if (rec > 0 && transcript)
		fmt_thousands(pct, rec - c[k].tokens);
	else if (rec > 0)
		snprintf(pct, sizeof pct, "%+.1f%%", distance(c[k].tokens, rec));
	int pad = 9 - (int)strlen(t) - (c[k].approximate ? 1 : 0);
	sb_printf(out, " %*s%s %*s", pad > 0 ? pad : 0, "", cell, transcript ? 11 : 7, pct);
}

void request_counted_sentence(struct strbuf *out, const struct request_model *m, const struct req_counted *c,
			      bool transcript, const char *note)
{
	double *d;
	size_t counted, n = sorted_figures(m, c, false, &d, &counted);
	if (!counted) {
		sb_printf(out, "  counted: none%s%s\n", note && note[0] ? ": " : "", note ? note : "");
	} else if (transcript) {
		sb_puts(out, "  counted: the transcript's messages (approximate); not in file: the record less that count "
			     "(system prompt, tools, reminders)\n");
	} else if (!n) {
		sb_printf(out, "  counted (the whole request as the provider counts it): %zu request%s, no usage recorded to "
			  "compare with\n", counted, counted == 1 ? "" : "s");
	} else {
		sb_printf(out, "  counted (the whole request as the provider counts it): within %.1f%% of recorded over %zu "
			  "request%s (median; at most %.1f%%)\n", median_of(d, n), n,
			  n == 1 ? "" : "s", d[n - 1]);
	}
	cs_free(d);
}

struct req_counted_memo *request_counted_memo_new(void)
{
	return cs_calloc(1, sizeof(struct req_counted_memo));
}

void request_counted_memo_free(struct req_counted_memo *memo)
{
	if (memo)
		cs_free(memo->counts);
	cs_free(memo);
}

int request_counted(const struct source *src, const struct request_model *m, bool transcript,
		    const struct req_counted_memo **out, struct req_counted_memo **owned, struct cs_error *err)
{
	struct req_counted_memo *memo = m->counted_memo;
	*owned = NULL;
	*out = NULL;
	if (!memo && !(memo = *owned = request_counted_memo_new()))
		return cs_error_nomem(err);
	if (!memo->done) {
		int rc = transcript ? request_count_units(m, &memo->counts, memo->note, sizeof memo->note, err)
				    : request_count_all(src, m, &memo->counts, memo->note, sizeof memo->note, err);
		if (rc != CS_OK) {
			request_counted_memo_free(*owned);
			*owned = NULL;
			return rc;
		}
		memo->done = true;
	}
	*out = memo;
	return CS_OK;
}

/* emit.c: JSON, YAML and text renderings of one structured writer (emit.h). */
#include "emit.h"

#include "error.h"
#include "strbuf.h"
#include "utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void emit_init(struct emitter *em, struct strbuf *out, enum emit_format format, unsigned text_flags)
{
	memset(em, 0, sizeof *em);
	em->out = out;
	em->format = format;
	em->text_flags = text_flags;
}

static void indent(struct emitter *em, int n)
{
	sb_putc(em->out, '\n');
	for (int i = 0; i < n; i++)
		sb_putc(em->out, ' ');
}

static bool needs_escape(enum utf8_class c, int32_t cp)
{
	return c != UTF8_PRINTABLE || cp == 0x2028 || cp == 0x2029;
}

/* Quoted string for JSON (yaml = false) or YAML double-quoted style. */
static void quote(struct strbuf *out, const char *s, size_t n, bool yaml)
{
	sb_putc(out, '"');
	size_t i = 0;
	while (i < n) {
		size_t run = i;
		while (run < n && (unsigned char)s[run] >= 0x20 && (unsigned char)s[run] < 0x7F && s[run] != '"' &&
		       s[run] != '\\')
			run++;
		if (run > i) {
			sb_append(out, s + i, run - i);
			i = run;
			continue;
		}
		int32_t cp;
		size_t len = utf8_decode(s + i, n - i, &cp);
		enum utf8_class c = utf8_classify(cp);
		i += len;
		switch (cp) {
		case '"': sb_puts(out, "\\\""); continue;
		case '\\': sb_puts(out, "\\\\"); continue;
		case '\n': sb_puts(out, "\\n"); continue;
		case '\t': sb_puts(out, "\\t"); continue;
		case '\r': sb_puts(out, "\\r"); continue;
		default: break;
		}
		if (!needs_escape(c, cp)) {
			sb_append(out, s + i - len, len);
		} else if (cp == UTF8_INVALID) {
			sb_puts(out, "\\ufffd");
		} else if (cp > 0xFFFF) {
			if (yaml) {
				sb_printf(out, "\\U%08x", (unsigned)cp);
			} else {
				unsigned v = (unsigned)cp - 0x10000;
				sb_printf(out, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
			}
		} else {
			sb_printf(out, "\\u%04x", (unsigned)cp);
		}
	}
	sb_putc(out, '"');
}

void json_quote(struct strbuf *out, const char *s, size_t n)
{
	quote(out, s, n, false);
}

/* Positions the output for the next value (a scalar or a container's start). */
static void before_value(struct emitter *em, bool container)
{
	if (em->depth == 0)
		return;
	struct emit_frame *f = &em->stack[em->depth - 1];
	if (em->format == EMIT_JSON) {
		if (!f->list)
			return; /* after "key": */
		if (f->count)
			sb_putc(em->out, ',');
		indent(em, f->indent);
		f->count++;
		return;
	}
	if (!f->list) {
		if (!container)
			sb_putc(em->out, ' ');
		return; /* after "key:" */
	}
	if (f->count || !f->inline_first)
		indent(em, f->indent);
	sb_puts(em->out, "- ");
	f->count++;
}

static void push(struct emitter *em, bool list)
{
	bool in_list = em->depth > 0 && em->stack[em->depth - 1].list;
	int base = em->depth > 0 ? em->stack[em->depth - 1].indent : 0;
	before_value(em, true);
	if (em->format == EMIT_JSON)
		sb_putc(em->out, list ? '[' : '{');
	if (em->depth >= EMIT_MAX_DEPTH) {
		em->overflow = true;
		return;
	}
	struct emit_frame *f = &em->stack[em->depth++];
	f->list = list;
	f->count = 0;
	if (em->format == EMIT_JSON) {
		f->indent = em->depth == 1 ? 2 : base + 2;
		f->inline_first = false;
	} else {
		/* YAML/text: a container in a list starts after "- "; the root
		 * map starts at column 0. */
		f->indent = em->depth == 1 ? 0 : base + 2;
		f->inline_first = in_list || em->depth == 1;
	}
	em->after_key = false;
}

static void pop(struct emitter *em, bool list)
{
	if (em->depth == 0) {
		em->overflow = true;
		return;
	}
	struct emit_frame *f = &em->stack[--em->depth];
	if (em->format == EMIT_JSON) {
		if (f->count)
			indent(em, f->indent - 2);
		sb_putc(em->out, list ? ']' : '}');
	} else if (f->count == 0) {
		sb_puts(em->out, list ? " []" : " {}");
	}
}

void emit_map_begin(struct emitter *em) { push(em, false); }
void emit_map_end(struct emitter *em) { pop(em, false); }
void emit_list_begin(struct emitter *em) { push(em, true); }
void emit_list_end(struct emitter *em) { pop(em, true); }

void emit_key(struct emitter *em, const char *key)
{
	if (em->depth == 0) {
		em->overflow = true;
		return;
	}
	struct emit_frame *f = &em->stack[em->depth - 1];
	if (em->format == EMIT_JSON) {
		if (f->count)
			sb_putc(em->out, ',');
		indent(em, f->indent);
		sb_printf(em->out, "\"%s\": ", key);
	} else {
		if (f->count || !f->inline_first)
			indent(em, f->indent);
		sb_printf(em->out, "%s:", key);
	}
	f->count++;
	em->after_key = true;
}

void emit_strn(struct emitter *em, const char *s, size_t n)
{
	before_value(em, false);
	if (em->format == EMIT_TEXT)
		utf8_sanitize(em->out, s, n, em->text_flags | UTF8_ONE_LINE);
	else
		quote(em->out, s, n, em->format == EMIT_YAML);
	em->after_key = false;
}

void emit_str(struct emitter *em, const char *s)
{
	if (!s)
		emit_null(em);
	else
		emit_strn(em, s, strlen(s));
}

void emit_int(struct emitter *em, long long v)
{
	before_value(em, false);
	sb_printf(em->out, "%lld", v);
	em->after_key = false;
}

void emit_num(struct emitter *em, double v)
{
	if (!isfinite(v)) {
		emit_null(em);
		return;
	}
	before_value(em, false);
	char buf[40];
	snprintf(buf, sizeof buf, "%.6g", v);
	if (!strpbrk(buf, ".e") && fabs(v) < 1e15)
		strcat(buf, em->format == EMIT_TEXT ? "" : ".0");
	sb_puts(em->out, buf);
	em->after_key = false;
}

void emit_bool(struct emitter *em, bool v)
{
	before_value(em, false);
	sb_puts(em->out, v ? "true" : "false");
	em->after_key = false;
}

void emit_null(struct emitter *em)
{
	before_value(em, false);
	sb_puts(em->out, em->format == EMIT_TEXT ? "-" : "null");
	em->after_key = false;
}

void emit_key_str(struct emitter *em, const char *key, const char *s)
{
	emit_key(em, key);
	emit_str(em, s);
}

void emit_key_int(struct emitter *em, const char *key, long long v)
{
	emit_key(em, key);
	emit_int(em, v);
}

void emit_key_num(struct emitter *em, const char *key, double v)
{
	emit_key(em, key);
	emit_num(em, v);
}

void emit_key_bool(struct emitter *em, const char *key, bool v)
{
	emit_key(em, key);
	emit_bool(em, v);
}

int emit_finish(struct emitter *em)
{
	sb_putc(em->out, '\n');
	if (em->out->failed)
		return CS_ENOMEM;
	return em->overflow || em->depth != 0 ? CS_ESTATE : CS_OK;
}

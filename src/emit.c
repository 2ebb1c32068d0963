/* emit.c: JSON, YAML and text renderings of one structured writer (emit.h). */
#include "emit.h"

#include "base/error.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void emit_init(struct emitter *em, struct strbuf *out, enum emit_format format, unsigned text_flags)
{
	memset(em, 0, sizeof *em);
	em->out = out;
	em->format = format;
	em->text_flags = text_flags;
}

void emit_stream(struct emitter *em, FILE *f)
{
	em->sink = f;
}

/* Writes out to the sink and empties it; after a failed write (or out of
 * memory, which keeps out as it is) nothing more is written. */
static void write_sink(struct emitter *em)
{
	struct strbuf *out = em->out;
	if (out->failed)
		return;
	if (out->len && !ferror(em->sink))
		(void)fwrite(out->data, 1, out->len, em->sink);
	sb_reset(out);
}

void emit_drain(struct emitter *em)
{
	if (em->sink && em->out->len >= EMIT_CHUNK)
		write_sink(em);
}

int emit_flush(struct emitter *em)
{
	if (em->sink)
		write_sink(em);
	if (em->out->failed)
		return CS_ENOMEM;
	return em->sink && ferror(em->sink) ? CS_EIO : CS_OK;
}

/* Appends without a call when there is room (several per value). */
static inline void put(struct strbuf *out, const char *s, size_t n)
{
	if (out->cap - out->len > n) {
		memcpy(out->data + out->len, s, n);
		out->len += n;
		out->data[out->len] = '\0';
	} else {
		sb_append(out, s, n);
	}
}

static inline void put_c(struct strbuf *out, char c)
{
	if (out->cap - out->len > 1) {
		out->data[out->len++] = c;
		out->data[out->len] = '\0';
	} else {
		sb_putc(out, c);
	}
}

static void indent(struct emitter *em, int n)
{
	static const char spaces[] = "\n                                                                ";
	const int most = (int)sizeof spaces - 2;
	int k = n < most ? n : most;
	put(em->out, spaces, (size_t)k + 1); /* the newline and its spaces at once */
	for (n -= k; n > 0; n -= k) {
		k = n < most ? n : most;
		put(em->out, spaces + 1, (size_t)k);
	}
}

static bool needs_escape(enum utf8_class c, int32_t cp)
{
	return c != UTF8_PRINTABLE || cp == 0x2028 || cp == 0x2029;
}

/* Bytes copied as they are between quotes: printable ASCII but the quote and backslash. */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	/* 0x80-0xFF: zero */
};

/* Whether the 8 bytes at s are all plain, a word at a time: none below
 * 0x20, at or above 0x7F, a quote or a backslash. */
static inline bool plain8(const char *s)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t x, q, b, d;
	memcpy(&x, s, 8);
	q = x ^ (ones * '"');
	b = x ^ (ones * '\\');
	d = x ^ (ones * 0x7F);
	return !(((x - ones * 0x20) & ~x & highs) | (x & highs) | ((q - ones) & ~q & highs) |
		 ((b - ones) & ~b & highs) | ((d - ones) & ~d & highs));
}

/* Quoted string for JSON (yaml = false) or YAML double-quoted style of s[0..n). */
static void quote(struct strbuf *out, const char *s, size_t n, bool yaml)
{
	put_c(out, '"');
	size_t i = 0;
	for (;;) {
		size_t run = i;
		while (run + 8 <= n && plain8(s + run))
			run += 8;
		while (run < n && plain[(unsigned char)s[run]])
			run++;
		if (run > i) {
			put(out, s + i, run - i);
			i = run;
		}
		if (i >= n)
			break;
		int32_t cp;
		size_t len = utf8_decode(s + i, n - i, &cp);
		enum utf8_class c = utf8_classify(cp);
		i += len;
		switch (cp) {
		case '"': put(out, "\\\"", 2); continue;
		case '\\': put(out, "\\\\", 2); continue;
		case '\n': put(out, "\\n", 2); continue;
		case '\t': put(out, "\\t", 2); continue;
		case '\r': put(out, "\\r", 2); continue;
		default: break;
		}
		if (!needs_escape(c, cp)) {
			put(out, s + i - len, len);
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
	put_c(out, '"');
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
		emit_drain(em); /* between two items */
		if (f->count)
			put_c(em->out, ',');
		indent(em, f->indent);
		f->count++;
		return;
	}
	if (!f->list) {
		if (!container)
			put_c(em->out, ' ');
		return; /* after "key:" */
	}
	emit_drain(em);
	if (f->count || !f->inline_first)
		indent(em, f->indent);
	put(em->out, "- ", 2);
	f->count++;
}

static void push(struct emitter *em, bool list)
{
	bool in_list = em->depth > 0 && em->stack[em->depth - 1].list;
	int base = em->depth > 0 ? em->stack[em->depth - 1].indent : 0;
	before_value(em, true);
	if (em->format == EMIT_JSON)
		put_c(em->out, list ? '[' : '{');
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
		put_c(em->out, list ? ']' : '}');
	} else if (f->count == 0) {
		put(em->out, list ? " []" : " {}", 3);
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
	emit_drain(em); /* between two keys */
	size_t n = strlen(key);
	struct strbuf *out = em->out;
	bool json = em->format == EMIT_JSON;
	bool comma = json && f->count, newline = json || f->count || !f->inline_first;
	size_t spaces = newline ? (size_t)f->indent : 0;
	/* [,]\n<indent>"key": (JSON) or \n<indent>key: at once, in place */
	if (!sb_reserve(out, 6 + spaces + n))
		return;
	char *p = out->data + out->len;
	if (comma)
		*p++ = ',';
	if (newline) {
		*p++ = '\n';
		memset(p, ' ', spaces);
		p += spaces;
	}
	if (json)
		*p++ = '"';
	memcpy(p, key, n);
	p += n;
	if (json) {
		memcpy(p, "\": ", 3);
		p += 3;
	} else {
		*p++ = ':';
	}
	*p = '\0';
	out->len = (size_t)(p - out->data);
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
	char rev[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		rev[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		rev[n++] = '-';
	char buf[24];
	for (int i = 0; i < n; i++)
		buf[i] = rev[n - 1 - i];
	put(em->out, buf, (size_t)n);
	em->after_key = false;
}

void emit_num(struct emitter *em, double v)
{
	if (!isfinite(v)) {
		emit_null(em);
		return;
	}
	before_value(em, false);
	char buf[GENERAL6_MAX + 2];
	size_t n = strlen(fmt_general6(buf, v));
	put(em->out, buf, n);
	if (em->format != EMIT_TEXT && !memchr(buf, '.', n) && !memchr(buf, 'e', n) && fabs(v) < 1e15)
		put(em->out, ".0", 2); /* JSON and YAML: a number that reads as a float */
	em->after_key = false;
}

void emit_bool(struct emitter *em, bool v)
{
	before_value(em, false);
	put(em->out, v ? "true" : "false", v ? 4 : 5);
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
	put_c(em->out, '\n');
	int rc = emit_flush(em);
	if (rc != CS_OK)
		return rc;
	return em->overflow || em->depth != 0 ? CS_ESTATE : CS_OK;
}

/* emit.h: one structured writer with three renderings, JSON, YAML and
 * indented text, so a report is written once. Strings are escaped so that no
 * control, invisible or invalid byte from an input reaches the output raw:
 * JSON and YAML get \u escapes, text gets visible stand-ins (utf8.h).
 * Calls never fail one by one: out of memory is sticky in the strbuf, and
 * emit_finish reports it. With a sink (emit_stream) the output is written as
 * it is made, in chunks, so no whole document is ever held. */
#ifndef CTXSCOPE_EMIT_H
#define CTXSCOPE_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct strbuf;

enum emit_format { EMIT_JSON, EMIT_YAML, EMIT_TEXT };

#define EMIT_MAX_DEPTH 32
#define EMIT_CHUNK 65536 /* with a sink: out is written once it holds this much */

struct emit_frame {
	bool list;         /* a list, else a map */
	size_t count;      /* items (or keys) written */
	int indent;        /* spaces before its items */
	bool inline_first; /* YAML/text: the first item follows "- " on the same line */
};

struct emitter {
	struct strbuf *out;   /* borrowed */
	FILE *sink;           /* NULL: out keeps everything; else out is written here as it fills */
	enum emit_format format;
	unsigned text_flags;  /* utf8_sanitize flags for EMIT_TEXT (UTF8_ASCII) */
	struct emit_frame stack[EMIT_MAX_DEPTH];
	int depth;
	bool after_key;       /* a key was written; its value comes next */
	bool overflow;        /* nesting past EMIT_MAX_DEPTH (a bug, reported by emit_finish) */
};

void emit_init(struct emitter *em, struct strbuf *out, enum emit_format format, unsigned text_flags);
/* Streams into f: whenever out holds EMIT_CHUNK bytes between two values,
 * they are written to f and out is emptied (what out held before goes
 * first); emit_finish writes the rest. After a failed write (ferror(f)) the
 * rest is dropped and emit_finish says CS_EIO. */
void emit_stream(struct emitter *em, FILE *f);
/* For callers that append to em->out themselves (text tables): writes out
 * to the sink once it holds EMIT_CHUNK bytes. No-op without a sink. */
void emit_drain(struct emitter *em);
/* Writes all of out to the sink now. CS_OK, CS_ENOMEM (out failed), or
 * CS_EIO (a write failed). Without a sink: out's state only. */
int emit_flush(struct emitter *em);
void emit_map_begin(struct emitter *em);
void emit_map_end(struct emitter *em);
void emit_list_begin(struct emitter *em);
void emit_list_end(struct emitter *em);
void emit_key(struct emitter *em, const char *key); /* keys are plain identifiers */
void emit_str(struct emitter *em, const char *s);    /* NULL emits null */
void emit_strn(struct emitter *em, const char *s, size_t n);
void emit_int(struct emitter *em, long long v);
void emit_num(struct emitter *em, double v);         /* non-finite emits null */
void emit_bool(struct emitter *em, bool v);
void emit_null(struct emitter *em);

void emit_key_str(struct emitter *em, const char *key, const char *s);
void emit_key_int(struct emitter *em, const char *key, long long v);
void emit_key_num(struct emitter *em, const char *key, double v);
void emit_key_bool(struct emitter *em, const char *key, bool v);

/* Ends the output with a newline (and writes it out with a sink). CS_OK,
 * CS_ENOMEM when any append failed, CS_EIO when writing to the sink failed
 * (or the nesting was unbalanced: CS_ESTATE). */
int emit_finish(struct emitter *em);

/* Appends s[0..n) as a JSON string literal (quotes included). */
void json_quote(struct strbuf *out, const char *s, size_t n);

#endif

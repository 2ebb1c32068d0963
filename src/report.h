/* report.h: the assembly report, seed 002's `assembly_report` grown to every
 * kind: budget (max, reserved, effective, used, remaining), status flags,
 * per-layer totals, what went in (in prompt order, with tokens, truncation
 * and original tokens), what did not (reason code and a sentence), warnings,
 * and the kind's own sections. As text for people, YAML or JSON for tools. */
#ifndef CTXSCOPE_REPORT_H
#define CTXSCOPE_REPORT_H

#include "assembly.h"

#include <stdbool.h>
#include <stdio.h>

struct strbuf;

enum report_format { REPORT_TEXT, REPORT_YAML, REPORT_JSON };

/* Optional extra sections, written by other modules (cache analysis). */
struct emitter;
struct report_section {
	const char *name;
	int (*write)(const struct assembly *a, void *ctx, struct emitter *em);
	void *ctx;
};

/* Exact counts the text tables show beside the estimate (ctxscope-formats(5) §8):
 * each text counted on its own, by `encoding`. */
struct report_exact {
	const char *encoding;
	const long *pieces;                    /* per piece; -1: not in the prompt */
	const long *blocks;                    /* per block */
	const long *layers[ASM_MAX_GROUPINGS]; /* per grouping, per layer */
	const char *over;                      /* the sentence when only the estimate fits; NULL */
};

struct report_options {
	enum report_format format;
	bool ascii;                          /* text: the terminal is not UTF-8 */
	const struct report_section *extra;  /* NULL-named terminated; may be NULL */
	const struct report_exact *exact;    /* text: an exact column; NULL: none */
};

/* "text", "yaml", "json" -> format; false if unknown. */
bool report_format_from_name(const char *name, enum report_format *out);

/* Writes the report of a (and its source) into out. CS_OK or CS_ENOMEM. */
int report_write(const struct assembly *a, const struct report_options *opt, struct strbuf *out);
/* The same bytes written into f as they are made, through a buffer of about
 * EMIT_CHUNK (emit.h): the whole report is never held. CS_OK, CS_ENOMEM (what
 * came before is written), or CS_EIO when a write to f failed (ferror(f)).
 * f is not flushed. */
int report_stream(const struct assembly *a, const struct report_options *opt, FILE *f);

/* The exit status `report` ends with: 3 when the assembly is over its
 * limit, refused, or a must-have piece is missing; else 0. */
int report_exit_status(const struct assembly *a);

#endif

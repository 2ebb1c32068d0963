/* hidden_report.h: hidden text as the report tells it, piece by piece:
 * what the scanner (hidden.h) finds in a source's pieces. */
#ifndef CTXSCOPE_HIDDEN_REPORT_H
#define CTXSCOPE_HIDDEN_REPORT_H

#include <stdbool.h>

struct emitter;
struct source;

#define HIDDEN_REPORT_MAX_LINES 20    /* lines listed per piece: a watermarked file would flood the report */
#define HIDDEN_REPORT_LINE_COLUMNS 160 /* a revealed line is cut to this many columns */

/* Writes the report's hidden_text section value: a list, one entry per
 * piece with hidden text in its text or its id (id, the id revealed when
 * it hides something, counts per class, tag text decoded, and the lines
 * holding any, revealed). Emits an empty list when none. */
void hidden_report(const struct source *src, struct emitter *em);

/* Whether any piece of src holds hidden text (PIECE_HIDDEN) or has an id
 * that does. */
bool hidden_any(const struct source *src);

#endif

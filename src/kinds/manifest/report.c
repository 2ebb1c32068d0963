/* report.c: the working-set manifest's report additions: per file its line
 * limit and lines, the hint and suggested action the manifest gives (also the
 * piece's note), and the list's column (the file's priority and strategy). */
#include "manifest.h"

#include "assembly.h"
#include "emit.h"
#include "kind.h"
#include "source.h"

#include <stdio.h>

/* The list's column: the file's current priority and strategy ("0.95 middle"),
 * what the priority sort orders by and the detail pane names. */
bool manifest_piece_column(const struct source *src, const struct assembly *a, long piece,
			   char cell[KIND_COLUMN_WIDTH + 1])
{
	(void)a;
	const struct piece *p = &src->pieces[piece];
	snprintf(cell, KIND_COLUMN_WIDTH + 1, "%4.2f %s", p->priority,
		 p->strategy == STRAT_NONE ? "-" : strategy_name(p->strategy));
	return true;
}

const char *manifest_piece_note(const struct source *src, long piece)
{
	const struct manifest *m = src->model;
	const struct manifest_entry *me = &m->entries[src->pieces[piece].kind_index];
	return me->hint;
}

int manifest_report_piece(const struct source *src, const struct assembly *a, long piece,
				 struct emitter *em)
{
	(void)a;
	const struct manifest *m = src->model;
	const struct piece *p = &src->pieces[piece];
	const struct manifest_entry *me = &m->entries[p->kind_index];
	if (me->max_lines)
		emit_key_int(em, "max_lines", (long long)me->max_lines);
	emit_key_int(em, "lines", (long long)p->lines);
	if (me->hint)
		emit_key_str(em, "hint", me->hint);
	if (me->suggested)
		emit_key_str(em, "suggested_action", me->suggested);
	return CS_OK;
}

/* report.c: the memory snapshot's report additions: per item its scores
 * (given and derived), the tokens budgeted and estimated, its own query's
 * score, its task and arrival; for the snapshot the strategy (archetype,
 * weights, budget allocation); the piece's note (the derived scores) and the
 * list's column (the item's final score). */
#include "memory.h"

#include "assembly.h"
#include "emit.h"
#include "kind.h"
#include "source.h"

#include <math.h>
#include <stdio.h>

static const char *const weight_names[] = {
#define MW_X_NAME(e, name, key) name,
	MEMORY_WEIGHTS(MW_X_NAME)
#undef MW_X_NAME
};

/* The list's column: the item's final score as the current assembly ranks
 * it (the weights, the archetype and the update change it), what the score
 * sort orders by and the cutoff marker compares with. */
bool memory_piece_column(const struct source *src, const struct assembly *a, long piece,
			 char cell[KIND_COLUMN_WIDTH + 1])
{
	(void)src;
	if (!a || !a->results || isnan(a->results[piece].score))
		return false;
	snprintf(cell, KIND_COLUMN_WIDTH + 1, "%6.4f", a->results[piece].score);
	return true;
}

const char *memory_piece_note(const struct source *src, long piece)
{
	const struct memory *m = src->model;
	return m->items[src->pieces[piece].kind_index].note;
}

int memory_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em)
{
	(void)a;
	const struct memory *m = src->model;
	const struct piece *p = &src->pieces[piece];
	const struct memory_item *it = &m->items[p->kind_index];
	emit_key(em, "scores");
	emit_map_begin(em);
	for (int w = 0; w < MW_COUNT; w++)
		emit_key_num(em, weight_names[w], it->scores[w]);
	emit_map_end(em);
	emit_key_int(em, "budget_tokens", it->tokens);
	emit_key_str(em, "budget_tokens_from", it->tokens_given ? "snapshot tokens field" : "estimate of the content");
	emit_key_int(em, "estimated_tokens", p->tokens);
	if (it->timestamp)
		emit_key_str(em, "timestamp", it->timestamp);
	if (it->derived) {
		emit_key(em, "derived_scores");
		emit_list_begin(em);
		for (int w = 0; w < MW_COUNT; w++)
			if (it->derived & (1u << w))
				emit_str(em, weight_names[w]);
		emit_list_end(em);
	}
	if (!isnan(it->weight))
		emit_key_num(em, "weight", it->weight);
	if (it->type != MEM_PATTERN) {
		emit_key_str(em, "ranked_in_its_query_by", memory_own_score_name(it));
		emit_key_num(em, "query_score", memory_own_score(it));
	}
	if (it->task_id)
		emit_key_str(em, "task_id", it->task_id);
	if (it->arrival >= 0) /* newEvents[arrival]: replayed by update arrival + 1 */
		emit_key_int(em, "new_event", it->arrival + 1);
	return CS_OK;
}

int memory_report_extra(const struct source *src, const struct assembly *a, struct emitter *em)
{
	(void)a;
	const struct memory *m = src->model;
	const struct memory_strategy *s = &m->cur;
	size_t npresets;
	const struct memory_preset *presets = memory_presets(&npresets);
	emit_key(em, "strategy");
	emit_map_begin(em);
	emit_key_str(em, "archetype", s->archetype >= 0 ? presets[s->archetype].name : "none");
	emit_key_bool(em, "matches_preset", memory_matches_preset(s));
	emit_key(em, "weights");
	emit_map_begin(em);
	for (int w = 0; w < MW_COUNT; w++)
		emit_key_num(em, weight_names[w], s->weights[w]);
	emit_map_end(em);
	emit_key(em, "budget_allocation");
	emit_map_begin(em);
	for (int k = 0; k < MA_COUNT; k++)
		emit_key_num(em, memory_allocation_name(k), s->allocation[k]);
	emit_map_end(em);
	emit_key_bool(em, "allocation_caps", m->caps);
	emit_map_end(em);
	return CS_OK;
}

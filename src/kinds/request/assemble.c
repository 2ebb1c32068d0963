/* assemble.c: a request is its own assembly: the current request's units
 * in render order (tools, system, messages), a message per tools list,
 * system and message of the body; excluded blocks left out; cache
 * breakpoints flagged where cache_control (or automatic caching) puts them.
 * The budget is the model's context window less max_tokens. Images count
 * by the provider's formula, not by their placeholder text. */
#include "request.h"

#include "base/strbuf.h"

#include "assembly.h"
#include "models.h"
#include "source.h"

#include <string.h>

static const char *const layer_names[RL_COUNT] = { "tools", "system", "history", "current" };

const char *request_layer_name(int layer)
{
	return layer >= 0 && layer < RL_COUNT ? layer_names[layer] : "";
}

/* Images (and tool results holding some): their formula's tokens instead
 * of the placeholder's; offsets, layer totals and the prompt total follow. */
static void image_tokens(struct assembly *a, const struct request_model *m)
{
	long offset = 0, used = 0;
	for (size_t l = 0; l < a->groupings[0].nlayers; l++)
		a->groupings[0].layers[l].tokens = a->groupings[0].layers[l].budget_tokens = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		struct block *blk = &a->blocks[b];
		const struct req_unit *u = blk->piece >= 0 ? &m->units[a->src->pieces[blk->piece].kind_index] : NULL;
		if (u && (u->image || u->nested_images))
			blk->tokens = u->tokens;
		blk->offset_tokens = offset;
		offset += blk->tokens;
		used += blk->budget_tokens;
		if (blk->layer[0] >= 0) {
			a->groupings[0].layers[blk->layer[0]].tokens += blk->tokens;
			a->groupings[0].layers[blk->layer[0]].budget_tokens += blk->budget_tokens;
		}
	}
	a->total_tokens = offset;
	a->budget.used = used;
	a->budget.remaining = a->budget.usable - used;
}

static long max_tokens(const struct request_model *m)
{
	const cJSON *v = json_member(m->body, "max_tokens");
	if (!json_is_number(v))
		v = json_member(m->body, "max_completion_tokens");
	if (!json_is_number(v))
		v = json_member(m->body, "max_output_tokens");
	double x = json_number_value(v, 0);
	return x >= 0 && x < 1e12 ? (long)x : 0;
}

static void facts(struct assembly *a, const struct request_model *m, const struct req_request *r)
{
	bool known;
	const char *model = request_model_name(m, r);
	const struct req_model_facts *f = request_facts(m, model, &known);
	const struct request_provider *pv = &request_providers[m->provider];
	asm_fact(a, "api", "%s", pv->api);
	if (m->model_override)
		asm_fact(a, "model", "%s (what-if; sent as %s)", model, r->model[0] ? r->model : "none given");
	else
		asm_fact(a, "model", "%s", r->model[0] ? r->model : "(none given)");
	if (m->is_log)
		asm_fact(a, "request", "%zu of %zu (line %ld of the log)", m->current + 1, m->nreqs, r->line);
	if (r->stripped_thinking)
		asm_fact(a, "thinking", "%ld block%s of earlier turns not counted: the API strips earlier turns' thinking "
			 "for %s", r->stripped_thinking, r->stripped_thinking == 1 ? "" : "s", r->model);
	const char *unknown = known ? "" : " (model not in the table)";
	if (pv->breakpoints)
		asm_fact(a, "cache", "%ld breakpoint%s; minimum prefix %ld tokens%s", r->nbreakpoints,
			 r->nbreakpoints == 1 ? "" : "s", f->min_prefix, unknown);
	else
		asm_fact(a, "cache", "automatic prefix; from %ld tokens in 128-token steps%s", f->min_prefix, unknown);
	if (r->global_read) {
		struct strbuf sb = STRBUF_INIT;
		request_global_text(r, &sb);
		asm_fact(a, "global read", "%s", sb.failed ? "" : sb_str(&sb));
		sb_fini(&sb);
	}
}

/* The message key of a unit: tools and system are messages of their own. */
static int message_key(const struct req_unit *u)
{
	return u->layer == RL_TOOLS ? -3 : u->message < 0 ? -2 : u->message;
}

/* The blocks of the request shown, in its order; the pieces of the log's
 * other requests dropped as not in it. */
static void blocks(struct assembly *a, const struct source *src, const struct request_model *m,
		   const struct req_request *r)
{
	int key = -4;
	for (size_t k = 0; k < r->nunits; k++) {
		const struct req_unit *u = &m->units[r->first_unit + k];
		long i = m->unit_piece ? (long)m->unit_piece[r->first_unit + k] : (long)k;
		const struct piece *p = &src->pieces[i];
		if (piece_excluded(p)) {
			asm_drop(a, i, REASON_EXCLUDED_BY_USER, NULL);
			if (u->image || u->nested_images) /* left out at its real size, not its placeholder's */
				a->results[i].original_tokens = u->tokens;
			continue;
		}
		if (message_key(u) != key) {
			key = message_key(u);
			asm_message(a, key == -3 ? "tools" : u->role);
		}
		struct block *b = asm_block(a, i, u->layer, -1);
		asm_span(a, p->text, p->text_bytes, p->code_points);
		b->budget_tokens = u->image || u->nested_images ? u->tokens : p->tokens;
		b->media_tokens = u->image ? u->tokens : u->nested_images;
		if (u->image)
			b->flags |= BLOCK_MEDIA;
		if (u->ttl || (long)p->kind_index == (long)r->first_unit + r->auto_unit)
			b->flags |= BLOCK_BREAKPOINT;
		asm_whole(a, i, (long)a->nblocks - 1, b->budget_tokens);
	}
	for (size_t i = 0; i < m->npiece_unit; i++)
		if (m->piece_unit[i] == REQUEST_NO_UNIT)
			asm_drop(a, (long)i, m->unit_piece && src->pieces[i].kind_index > r->first_unit ? REASON_LATER
													 : REASON_NOT_IN_REQUEST, NULL);
}

int request_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	const struct request_model *m = src->model;
	const struct req_request *r = &m->reqs[m->current];
	if (asm_init(a, run, ASM_MESSAGES) != CS_OK)
		return cs_error_nomem(err);
	asm_grouping(a, "layer", layer_names, RL_COUNT);
	bool fallback;
	a->budget.limit = model_limit(request_model_name(m, r), &fallback);
	a->budget.reserve = max_tokens(m);
	a->budget.usable = a->budget.limit - a->budget.reserve;
	if (src->settings.budget >= 0) { /* b or --budget: the request is measured against it (nothing is dropped:
					  * a request is sent as recorded), over it is OVER */
		a->budget.usable = src->settings.budget;
		a->budget.limit = a->budget.usable + a->budget.reserve;
	}
	facts(a, m, r);
	blocks(a, src, m, r);
	for (size_t l = 0; l < m->nlints; l++)
		if (m->lints[l].error)
			asm_state(a, ASM_ERROR, "%s", m->lints[l].sentence);
	int rc = asm_finish(a, err);
	if (rc != CS_OK) {
		asm_fini(a);
		return rc;
	}
	image_tokens(a, m);
	if (m->is_log)
		request_assembly_step(a, m);
	if (a->budget.used > a->budget.usable) {
		a->over_by = a->budget.used - a->budget.usable;
		if (src->settings.budget >= 0)
			asm_state(a, ASM_OVER_LIMIT, "the request is %ld tokens over the budget you set (b, --budget); "
				  "it is sent as recorded, nothing is dropped", a->over_by);
		else
			asm_state(a, ASM_OVER_LIMIT, "the request is %ld tokens over %s's window less max_tokens", a->over_by,
				  request_model_name(m, r)[0] ? request_model_name(m, r) : "the model");
	}
	return CS_OK;
}

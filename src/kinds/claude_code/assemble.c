/* assemble.c: a Claude Code request as an assembly: the blocks of its
 * prompt in order (history, then the current turn), every other block of
 * the session dropped with its reason (compacted, later than the request,
 * or on another branch), its recorded usage beside the estimate, and the
 * part the transcript does not hold named as such, never hidden. */
#include "claude_code.h"

#include "base/alloc.h"
#include "base/strmap.h"
#include "assembly.h"
#include "emit.h"
#include "models.h"
#include "source.h"
#include "base/strbuf.h"

static const char *const layer_names[] = { "not in the transcript", "history", "current" };

static void facts(struct assembly *a, const struct cc_model *m)
{
	const struct req_request *r = &m->req.reqs[m->req.current];
	const struct cc_req *c = &m->creqs[m->req.current];
	if (m->req.model_override)
		asm_fact(a, "model", "%s (what-if; recorded %s)", m->req.model_override, r->model[0] ? r->model : "none");
	else
		asm_fact(a, "model", "%s", r->model[0] ? r->model : "(none recorded)");
	asm_fact(a, "request", "%zu of %zu (line %ld of the session)%s", m->req.current + 1, m->req.nreqs, r->line,
		 c->main ? "" : ", not on the main chain");
	if (c->boundary >= 0)
		asm_fact(a, "compacted", "the prompt starts after the compaction at line %ld",
			 m->lines[c->boundary].line);
	if (!r->recorded) {
		asm_fact(a, "recorded", "no usage recorded for this request");
		return;
	}
	const struct cc_line *l = &m->lines[c->last_line];
	a->recorded = (struct recorded){ .input = r->rec_uncached + r->rec_read + r->rec_write, .read = r->rec_read,
					 .written = r->rec_write,
					 .what = arena_printf(&a->arena, "request %zu", m->req.current + 1) };
	char n1[32], n2[32], n3[32], n4[32], n5[32];
	asm_fact(a, "recorded", "input %s: %s read, %s written, %s uncached; output %s", /* the cache's words */
		 fmt_thousands(n1, r->rec_uncached + r->rec_read + r->rec_write), fmt_thousands(n2, r->rec_read),
		 fmt_thousands(n3, r->rec_write), fmt_thousands(n4, r->rec_uncached),
		 fmt_thousands(n5, l->has_usage ? l->out : 0L));
	asm_fact(a, "estimate", "%s tokens in the transcript's messages", fmt_thousands(n1, c->estimate));
	asm_fact(a, "not in the transcript (system prompt, tools, reminders)", "%s tokens (recorded input less the "
		 "estimate)", fmt_thousands(n1, c->gap));
	asm_fact(a, "cache lifetime", "%s (%s)", c->ttl >= 3600 ? "1 hour" : "5 minutes",
		 c->ttl_assumed ? "assumed: the session records no split of its writes"
		 : r->rec_write_1h >= 0 && r->rec_write > 0 ? "recorded: usage.cache_creation"
							    : "the session's, as its other requests record it");
	if (c->global_read)
		asm_fact(a, "global read", "%s tokens read of Claude Code's system prompt, cached across sessions: text "
			 "the file does not hold, not a miss", fmt_thousands(n1, c->global_read));
}

/* The message ids of the assistant lines in the request's prompt, into
 * sent: a thinking block of one of them that is not in the prompt was
 * stripped (model_keeps_prior_thinking). Nothing when the model keeps
 * earlier thinking. CS_OK or CS_ENOMEM. */
static int sent_messages(const struct cc_model *m, const struct req_request *r, struct strmap *sent)
{
	if (model_keeps_prior_thinking(r->model))
		return CS_OK;
	for (size_t u = r->first_unit + 1; u < r->first_unit + r->nunits; u++) {
		const struct cc_line *l = &m->lines[m->blocks[m->unit_block[u]].line];
		size_t old;
		if (l->type == CL_ASSISTANT && l->msg_id && strmap_put(sent, l->msg_id, strlen(l->msg_id), u, &old))
			return CS_ENOMEM;
	}
	return CS_OK;
}

/* Why a block of the session is not in the request's prompt. */
static int drop_reason(const struct cc_model *m, const struct cc_req *c, const struct cc_block *blk,
		       const struct strmap *sent)
{
	const struct cc_line *l = &m->lines[blk->line];
	if (c->boundary >= 0 && blk->line < (size_t)c->boundary)
		return REASON_COMPACTED;
	if (blk->line >= c->first_line)
		return REASON_LATER;
	if (sent->n && blk->type == cc_known_type("thinking") && l->msg_id &&
	    strmap_get(sent, l->msg_id, strlen(l->msg_id)) != STRMAP_NONE)
		return REASON_STRIPPED;
	return REASON_OFF_PATH;
}

/* The part not in the transcript, first (as it is sent: tools and system
 * before the messages), its tokens the recorded input less the estimate
 * (none when no usage was recorded, or when the estimate is larger: a
 * counting error, warned about). */
static void hidden_block(struct assembly *a, const struct source *src, const struct cc_model *m, bool *in)
{
	const struct cc_req *c = &m->creqs[m->req.current];
	in[0] = true;
	if (piece_excluded(&src->pieces[0])) {
		asm_drop(a, 0, REASON_EXCLUDED_BY_USER, NULL);
		return;
	}
	asm_message(a, "system");
	struct block *b = asm_block(a, 0, 0, -1);
	const struct piece *p = &src->pieces[0];
	asm_span(a, p->text, p->text_bytes, p->code_points);
	b->budget_tokens = c->gap > 0 ? c->gap : 0;
	asm_whole(a, 0, (long)a->nblocks - 1, b->budget_tokens);
}

/* The prompt's blocks, in its order; in[piece] marks them. */
static void prompt_blocks(struct assembly *a, const struct source *src, const struct cc_model *m, bool *in)
{
	const struct req_request *r = &m->req.reqs[m->req.current];
	int msg = -1;
	hidden_block(a, src, m, in);
	for (size_t u = r->first_unit + 1; u < r->first_unit + r->nunits; u++) {
		const struct req_unit *unit = &m->req.units[u];
		long i = m->blocks[m->unit_block[u]].piece;
		if (i < 0 || in[i])
			continue;
		in[i] = true;
		const struct piece *p = &src->pieces[i];
		if (piece_excluded(p)) {
			asm_drop(a, i, REASON_EXCLUDED_BY_USER, NULL);
			continue;
		}
		if (unit->message != msg) {
			msg = unit->message;
			asm_message(a, unit->role);
		}
		struct block *b = asm_block(a, i, unit->layer - RL_HISTORY + 1, -1);
		asm_span(a, p->text, p->text_bytes, p->code_points);
		b->budget_tokens = p->tokens;
		asm_whole(a, i, (long)a->nblocks - 1, b->budget_tokens);
	}
}

int cc_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	const struct cc_model *m = src->model;
	const struct req_request *r = &m->req.reqs[m->req.current];
	const struct cc_req *c = &m->creqs[m->req.current];
	bool *in = cs_calloc(src->npieces ? src->npieces : 1, sizeof *in);
	if (!in || asm_init(a, run, ASM_MESSAGES) != CS_OK) {
		cs_free(in);
		return cs_error_nomem(err);
	}
	asm_grouping(a, "layer", layer_names, 3);
	bool fallback;
	const char *model = request_model_name(&m->req, r);
	a->budget.limit = model_limit(model, &fallback);
	a->budget.reserve = 0;
	a->budget.usable = a->budget.limit;
	if (src->settings.budget >= 0) /* b or --budget: measured against it, as a request is (nothing dropped) */
		a->budget.limit = a->budget.usable = src->settings.budget;
	facts(a, m);
	char lim[32];
	if (fallback)
		asm_fact(a, "limit", "%s tokens: a fallback, %s is not in the model table", fmt_thousands(lim, a->budget.limit),
			 model[0] ? model : "the model");
	if (r->recorded && c->rec_total > a->budget.limit)
		asm_fact(a, "limit wrong", "the recorded request (%ld tokens) is larger than the %s-token limit used: that "
			 "limit is wrong for %s", c->rec_total, fmt_thousands(lim, a->budget.limit), model[0] ? model : "the model");
	prompt_blocks(a, src, m, in);
	struct strmap sent = STRMAP_INIT;
	int rc = sent_messages(m, r, &sent);
	for (size_t i = 0; rc == CS_OK && i < src->npieces; i++)
		if (!in[i] && src->pieces[i].kind_index != CC_HIDDEN_PIECE)
			asm_drop(a, (long)i, drop_reason(m, c, &m->blocks[src->pieces[i].kind_index], &sent), NULL);
	strmap_fini(&sent);
	cs_free(in);
	if (rc != CS_OK) {
		asm_fini(a);
		return cs_error_nomem(err);
	}
	rc = asm_finish(a, err);
	if (rc != CS_OK) {
		asm_fini(a);
		return rc;
	}
	request_assembly_step(a, &m->req);
	if (a->budget.used > a->budget.usable) {
		a->over_by = a->budget.used - a->budget.usable;
		if (src->settings.budget >= 0)
			asm_state(a, ASM_OVER_LIMIT, "the messages are %ld tokens over the budget you set (b, --budget); "
				  "they are sent as recorded, nothing is dropped", a->over_by);
		else
			asm_state(a, ASM_OVER_LIMIT, "the messages are %ld tokens over %s's window", a->over_by,
				  request_model_name(&m->req, r)[0] ? request_model_name(&m->req, r) : "the model");
	}
	return CS_OK;
}

int cc_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em)
{
	(void)a;
	const struct cc_model *m = src->model;
	if (src->pieces[piece].kind_index == CC_HIDDEN_PIECE) {
		emit_key_str(em, "type", "not in the transcript");
		return CS_OK;
	}
	const struct cc_block *b = &m->blocks[src->pieces[piece].kind_index];
	emit_key_str(em, "type", m->lines[b->line].compact_summary ? "compact summary" : b->type);
	emit_key_int(em, "line", m->lines[b->line].line);
	return CS_OK;
}

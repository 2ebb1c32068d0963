/* assemble.c (ledger): the Nexus broker's context assembly (seed 001, with
 * seed 004 as settings; ctxscope-formats(5) section 2) over a loaded ledger export.
 *   1. Session: the chosen label's head turn; its thread's ancestry (given,
 *      or rebuilt from parent_turn_id). The replayed turn (default the head)
 *      cuts it: history is the ancestry before it, the event its query.
 *      With `next`, history is the whole ancestry and the event is
 *      assembly.event, rendered as seed 001's buildCurrentMessage.
 *   2. System prompt: assembly.systemPrompt sections (worker sessions get
 *      seed 001's worker header with the task description first), the Nexus
 *      environment and, for managers, the runtime line; otherwise the latest
 *      system message on the ancestry as one block.
 *   3. History: the latest compaction on it applies: its summary first
 *      (user role with the seed 001 marker, or system role bare, seed 004),
 *      then, by the first-kept rule, the turns from first_kept_turn_id up to
 *      the compaction, then the turns after it. Everything else before the
 *      compaction is dropped as compacted, naming the compaction turn.
 *   4. Budget: available = modelLimit - reserveResponse - reserveTools; when
 *      over, the turns a proactive compaction to 60% of available would
 *      summarize are named (they stay in: this is the prompt as built).
 * Every block is charged its estimate; recorded usage is shown beside it.
 * In phases: decide the view (view_resolve); each layer decides its
 * messages as it renders them (a message's fate depends on the layer it
 * falls in); what no layer placed is dropped (drops.c); then the budget is
 * explained. In the inspector a re-assembly takes the previous one's
 * results over and leaves the summarized history, which no exclusion or
 * budget changes, as it is (take_results). */
#include "ledger.h"

#include "drops.h"

#include "base/alloc.h"
#include "assembly.h"
#include "models.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { PHYS_SYSTEM, PHYS_HISTORY, PHYS_EVENT };
enum { CONC_WORKSPACE, CONC_PERSONA, CONC_SESSION, CONC_MEMORY, CONC_EVENT };

void ledger_view_fini(struct ledger_view *v)
{
	ledger_thread_free(v->own);
	v->own = NULL;
	v->th = NULL;
}

/* The position of turn on the path at or before `from` (exclusive), or
 * nowhere (from). The path holds a turn once (it follows parent_turn_id
 * from a root): looking back from the end finds the turns a view asks for
 * (the head, a compaction's first kept turn) in a few steps. */
static size_t position_before(const struct ledger_view *v, long turn, size_t from)
{
	for (size_t i = from; turn >= 0 && i-- > 0;)
		if (v->anc[i] == turn)
			return i;
	return from;
}

int ledger_view_resolve(const struct source *src, struct ledger_view *v, struct cs_error *err)
{
	const struct ledger *l = src->model;
	memset(v, 0, sizeof *v);
	v->turn = v->compaction = -1;
	if (l->nturns == 0)
		return cs_error_set(err, CS_ESTRUCT, "the ledger has no turns to assemble");
	if (l->nsessions) {
		v->session = ledger_pick_session(l, err);
		if (v->session < 0)
			return CS_EUSAGE;
		v->head = l->sessions[v->session].head;
	} else {
		v->session = -1;
		v->head = (long)l->nturns - 1;
	}
	v->th = ledger_thread_of(src, v->head, &v->own);
	if (!v->th)
		return cs_error_nomem(err);
	v->nanc = ledger_thread_ancestry(v->th, &v->anc);
	v->hist_end = v->nanc;
	v->sys_upto = v->nanc;
	if (!l->next) {
		v->turn = l->turn ? ledger_turn_index(l, l->turn) : v->head;
		size_t pos = position_before(v, v->turn, v->nanc);
		if (pos == v->nanc) {
			ledger_view_fini(v);
			return cs_error_set(err, CS_EUSAGE, "turn %s is not on the thread of session %s (head %s)",
					    l->turn, v->session >= 0 ? l->sessions[v->session].label : "(none)",
					    l->turns[v->head].id);
		}
		v->hist_end = pos;
		v->sys_upto = pos + 1;
	}
	const size_t *cpos; /* the thread's compaction turns: the latest before the event applies */
	for (size_t k = ledger_thread_compactions(v->th, &cpos); k-- > 0;)
		if (cpos[k] < v->hist_end) {
			v->cpos = cpos[k];
			v->compaction = v->anc[v->cpos];
			break;
		}
	v->kept_from = 0;
	v->fk_at = v->hist_end; /* where its first_kept_turn_id sits on the history (hist_end: not on it) */
	if (v->compaction >= 0) {
		v->kept_from = v->cpos + 1;
		long fk = l->compactions[l->turns[v->compaction].compaction_row].first_kept;
		v->fk_at = position_before(v, fk, v->hist_end);
		if (l->rule == LEDGER_RULE_FIRST_KEPT && v->fk_at < v->cpos) {
			v->kept_from = v->fk_at;
			v->first_kept_used = true;
		}
	}
	const struct ledger_turn *rt = &l->turns[v->turn >= 0 ? v->turn : v->head];
	v->role = l->role ? l->role : rt->role ? rt->role
		: (v->session >= 0 && l->sessions[v->session].is_subagent) ? "worker" : "manager";
	return CS_OK;
}

static bool is_blank(const struct piece *p)
{
	for (size_t i = 0; i < p->text_bytes; i++)
		if (!strchr(" \t\r\n", p->text[i]))
			return false;
	return true;
}

/* Charges the last block its estimate. */
static void charge_last(struct assembly *a)
{
	if (!a->nblocks)
		return;
	struct block *b = &a->blocks[a->nblocks - 1];
	b->budget_tokens = tokens_estimate(b->code_points, a->chars_per_token);
}

/* Whether the user left the piece out (then it is dropped). */
static bool user_out(struct assembly *a, long piece)
{
	if (!piece_excluded(&a->src->pieces[piece]))
		return false;
	ledger_drop(a, piece, WHY_USER, -1, -1);
	return true;
}

/* A block holding a whole piece, with optional made text before it. */
static long piece_block(struct assembly *a, long piece, int phys, int conc, const char *before)
{
	const struct piece *p = &a->src->pieces[piece];
	if (asm_block(a, piece, phys, conc) == &a->scratch)
		return -1; /* out of memory: sticky, reported by asm_finish */
	long b = (long)a->nblocks - 1;
	if (before && *before)
		asm_text(a, before, strlen(before));
	asm_span(a, p->text, p->text_bytes, p->code_points);
	charge_last(a);
	/* every field, as a build from nothing has it (a result taken over keeps
	 * the why[] of an earlier drop otherwise) */
	asm_set_result(a, piece, &(struct piece_result){ .outcome = OUTCOME_WHOLE, .reason = REASON_NONE,
							 .tokens = a->blocks[b].budget_tokens,
							 .original_tokens = p->tokens, .block = b, .score = NAN });
	return b;
}

static const char WORKER_HEADER_RULES[] =
	"\n\n## Rules\n"
	"1. Stay focused \xE2\x80\x94 do your assigned task, nothing else\n"
	"2. Complete the task \xE2\x80\x94 your final message reports back to the manager\n"
	"3. Don't initiate \xE2\x80\x94 no proactive actions, no side quests\n"
	"4. Be ephemeral \xE2\x80\x94 you may be terminated after completion\n\n"
	"## What You DON'T Do\n"
	"- NO user conversations (manager's job)\n"
	"- NO external messages unless explicitly tasked\n"
	"- NO persistent state changes outside your task scope";

/* The system prompt; every system message of the thread up to the
 * replayed turn (anc[0 .. sys_upto)) is handled here, the one it uses or
 * dropped as superseded, so the layers after skip them. */
static void system_layer(struct assembly *a, const struct ledger_view *v, const struct ledger_thread *th)
{
	const struct source *src = a->src;
	const struct ledger *l = src->model;
	const struct ledger_session *s = v->session >= 0 ? &l->sessions[v->session] : NULL;
	bool worker = !strcmp(v->role, "worker");
	size_t first = a->nblocks;
	const char *sep = "";
	/* The system messages on the ancestry (up to the replayed turn), in
	 * order (the thread's list): the latest is the prompt, the others are
	 * superseded (below). */
	const long *msgs, *at;
	size_t nsys = ledger_thread_system(th, v->sys_upto, &msgs, &at);
	long latest = nsys ? msgs[at[nsys - 1]] : -1;
	if (l->nsections || l->nexus_env >= 0) {
		asm_message(a, "system");
		if (worker) {
			struct block *b = asm_block(a, -1, PHYS_SYSTEM, CONC_WORKSPACE);
			b->label = "worker header (the Nexus broker's buildWorkerSystemPrompt)";
			b->flags |= BLOCK_MADE;
			asm_textf(a, "# Subagent Context\n\nYou are a **worker agent** spawned for a specific task.\n\n"
				  "## Your Task\n%s", s && s->task_description ? s->task_description : "");
			asm_text(a, WORKER_HEADER_RULES, sizeof WORKER_HEADER_RULES - 1);
			charge_last(a);
			sep = "\n\n";
		}
		for (int layer = 0; layer < 2; layer++)
			for (size_t i = 0; i < l->nsections; i++)
				if (l->sections[i].layer == layer && !user_out(a, l->sections[i].piece)) {
					piece_block(a, l->sections[i].piece, PHYS_SYSTEM, layer, sep);
					sep = "\n\n";
				}
		if (l->nexus_env >= 0 && !user_out(a, l->nexus_env)) {
			piece_block(a, l->nexus_env, PHYS_SYSTEM, CONC_WORKSPACE, sep);
			sep = "\n\n";
		}
		if (!worker && (l->runtime_host || l->runtime_os || l->runtime_arch)) {
			struct block *b = asm_block(a, -1, PHYS_SYSTEM, CONC_WORKSPACE);
			b->label = "runtime (host, os, arch)";
			b->flags |= BLOCK_MADE;
			asm_textf(a, "%sRuntime: host=%s os=%s arch=%s", sep, l->runtime_host ? l->runtime_host : "?",
				  l->runtime_os ? l->runtime_os : "?", l->runtime_arch ? l->runtime_arch : "?");
			charge_last(a);
		}
		asm_fact(a, "system prompt", "assembly.systemPrompt (%zu section%s)%s", l->nsections,
			 l->nsections == 1 ? "" : "s", worker ? " after the worker header" : "");
	} else if (latest >= 0) {
		if (!user_out(a, l->messages[latest].piece)) {
			asm_message(a, "system");
			piece_block(a, l->messages[latest].piece, PHYS_SYSTEM, CONC_WORKSPACE, NULL);
		}
		asm_fact(a, "system prompt", "the latest system message on the thread (%s, turn %s)",
			 l->messages[latest].id, l->turns[l->messages[latest].turn].id);
	} else {
		asm_warn(a, -1, "no system prompt: no assembly.systemPrompt and no system message on the thread");
		asm_fact(a, "system prompt", "none");
	}
	if (a->nblocks > first)
		a->blocks[a->nblocks - 1].flags |= BLOCK_BREAKPOINT;
	/* Every other system message on the ancestry is superseded. */
	for (size_t j = 0; j < nsys; j++) {
		long m = msgs[at[j]];
		if (m == latest && !l->nsections && l->nexus_env < 0)
			continue;
		ledger_drop(a, l->messages[m].piece, l->nsections || l->nexus_env >= 0 ? WHY_SYS_SECTIONS : WHY_SYS_EARLIER,
		     -1, latest);
	}
}

/* A history turn's messages, one message each (its system messages are
 * the system layer's). */
static void history_turn(struct assembly *a, long turn)
{
	const struct ledger *l = a->src->model;
	const struct ledger_turn *t = &l->turns[turn];
	for (size_t k = 0; k < t->nmessages; k++) {
		long m = t->messages[k];
		long piece = l->messages[m].piece;
		if (l->messages[m].system)
			continue;
		if (is_blank(&a->src->pieces[piece])) {
			ledger_drop(a, piece, WHY_EMPTY, turn, -1);
			continue;
		}
		if (user_out(a, piece))
			continue;
		asm_message(a, l->messages[m].role);
		piece_block(a, piece, PHYS_HISTORY, CONC_SESSION, NULL);
	}
}

/* Every message of the turn at pos stays out (those the system layer
 * handled aside), read in a row from the thread. */
static void drop_turn(struct assembly *a, const struct ledger_view *v, const struct ledger_thread *th, size_t pos,
		      enum why why, long arg)
{
	const long *msgs, *pieces;
	size_t n = pos < v->sys_upto ? ledger_thread_plain(th, pos, pos + 1, &pieces)
				     : ledger_thread_turn(th, pos, &msgs, &pieces);
	ledger_drop_run(a, pieces, n, why, v->anc[pos], arg, false);
}

/* The compactions on the thread: those that do not apply dropped, the
 * latest before the event's summary first in the history. */
static void history_summary(struct assembly *a, const struct ledger_view *v, const struct ledger_thread *th)
{
	const struct ledger *l = a->src->model;
	const size_t *cpos;
	size_t nc = ledger_thread_compactions(th, &cpos), ncomp = 0;
	for (size_t k = 0; k < nc; k++) {
		size_t i = cpos[k];
		long sp = l->compactions[l->turns[v->anc[i]].compaction_row].piece;
		if (i < v->hist_end)
			ncomp++;
		if (v->anc[i] == v->compaction)
			continue;
		if (i < v->hist_end)
			ledger_drop(a, sp, WHY_COMP_EARLIER, -1, v->compaction);
		else
			ledger_drop(a, sp, WHY_COMP_LATER, v->anc[i], -1);
	}
	if (v->compaction < 0) {
		asm_fact(a, "compaction", "none before the event: full history");
		return;
	}
	const struct ledger_turn *ct = &l->turns[v->compaction];
	const struct ledger_compaction *c = &l->compactions[ct->compaction_row];
	asm_message(a, l->summary_system ? "system" : "user");
	piece_block(a, c->piece, PHYS_HISTORY, CONC_SESSION, l->summary_system ? NULL : LEDGER_SUMMARY_MARKER);
	const char *fk = c->first_kept >= 0 ? l->turns[c->first_kept].id : NULL;
	if (l->rule == LEDGER_RULE_FIRST_KEPT && fk && !v->first_kept_used)
		asm_warn(a, -1, "compaction %s: first_kept_turn_id %s is not before it on the thread; "
			 "keeping only the turns after the compaction", ct->id, fk);
	asm_fact(a, "compaction", "turn %s applies (the latest of %zu before the event)%s%s", ct->id, ncomp,
		 c->trigger ? "; trigger " : "", c->trigger ? c->trigger : "");
	asm_fact(a, "compaction rule", "%s",
		 l->rule == LEDGER_RULE_AFTER_ONLY ? "after-only (the Nexus broker: only the turns after the compaction)"
		 : v->first_kept_used ? "first-kept (turns from first_kept_turn_id, then after the compaction)"
		 : "first-kept, but no usable first_kept_turn_id: only the turns after the compaction");
	asm_fact(a, "summary role", "%s", l->summary_system ? "system (the Nexus broker's early draft, no marker)"
		 : "user, with the [Previous conversation summary] marker (the Nexus broker)");
}

/* The history: the turns up to the applied compaction (its own, and every
 * compaction turn's, exchange dropped; the others summarized, those from
 * the first kept one on kept), then the turns after it. No edit changes
 * which turns are summarized: they go as runs of the thread's pieces, one
 * run from one compaction turn to the next (one sentence for them all);
 * only the turns kept are read message by message. */
static void history_layer(struct assembly *a, const struct ledger_view *v, const struct ledger_thread *th)
{
	const struct ledger *l = a->src->model;
	size_t first = a->nblocks;
	history_summary(a, v, th);
	const size_t *cpos;
	size_t nc = ledger_thread_compactions(th, &cpos), ck = 0;
	for (size_t i = 0; i < v->hist_end;) {
		if (v->compaction < 0 || i > v->cpos) { /* no compaction turn past the applied one */
			history_turn(a, v->anc[i++]);
			continue;
		}
		while (ck < nc && cpos[ck] < i)
			ck++;
		if (i == v->cpos || (ck < nc && cpos[ck] == i)) {
			drop_turn(a, v, th, i++, WHY_OWN_EXCHANGE, -1);
			continue;
		}
		if (i >= v->kept_from) {
			history_turn(a, v->anc[i++]);
			continue;
		}
		/* summarized up to the next compaction turn, the first kept one, or
		 * where the note (first_kept_turn_id would keep it) begins */
		size_t end = v->kept_from < v->cpos ? v->kept_from : v->cpos;
		if (ck < nc && cpos[ck] < end)
			end = cpos[ck];
		if (i < v->fk_at && v->fk_at < end)
			end = v->fk_at;
		const long *pieces;
		size_t n = ledger_thread_plain(th, i, end, &pieces);
		bool note = v->fk_at <= i && l->rule == LEDGER_RULE_AFTER_ONLY;
		if (v->keep_runs)
			ledger_drop_kept(a, pieces, n, v->compaction, note);
		else
			ledger_drop_run(a, pieces, n, WHY_SUMMARIZED, -1, v->compaction, note);
		i = end;
	}
	if (a->nblocks > first)
		a->blocks[a->nblocks - 1].flags |= BLOCK_BREAKPOINT;
}

static void event_layer(struct assembly *a, const struct ledger_view *v)
{
	const struct ledger *l = a->src->model;
	if (l->next) {
		asm_message(a, "user");
		struct block *b = asm_block(a, -1, PHYS_EVENT, CONC_EVENT);
		b->label = "event context (the Nexus broker's buildCurrentMessage)";
		b->flags |= BLOCK_MADE;
		asm_textf(a, "Current time: %s\nTimezone: %s", l->event_time ? l->event_time : "(not recorded)",
			  l->event_timezone ? l->event_timezone : "UTC");
		if (!l->event_time)
			asm_warn(a, -1, "assembly.event has no time: the broker would put the current time here");
		if (!strcmp(v->role, "manager") && l->event_platform) {
			asm_textf(a, "\nPlatform: %s", l->event_platform);
			for (size_t i = 0; i < l->nevent_actions; i++)
				asm_textf(a, "%s%s", i ? ", " : "\nAvailable actions: ", l->event_actions[i]);
		}
		if (l->event_hook)
			asm_textf(a, "\n%s", l->event_hook);
		charge_last(a);
		for (size_t i = 0; i < l->nmemory; i++)
			if (!user_out(a, l->memory[i]))
				piece_block(a, l->memory[i], PHYS_EVENT, CONC_MEMORY, "\n");
		piece_block(a, l->event, PHYS_EVENT, CONC_EVENT, "\n\n");
		return;
	}
	for (size_t i = 0; i < l->nmemory; i++)
		ledger_drop(a, l->memory[i], WHY_MEMORY_UNUSED, -1, -1);
	if (l->event >= 0)
		ledger_drop(a, l->event, WHY_EVENT_UNUSED, -1, -1);
	const struct ledger_turn *t = &l->turns[v->turn];
	size_t placed = 0;
	bool *is_query = cs_calloc(t->nmessages ? t->nmessages : 1, sizeof *is_query);
	if (!is_query) {
		a->nomem = true;
		return;
	}
	for (size_t k = 0; k < t->nmessages; k++) {
		long m = t->messages[k];
		bool q = false;
		if (t->has_query) {
			for (size_t j = 0; j < t->nquery; j++)
				q = q || t->query[j] == m;
		} else {
			q = !strcmp(l->messages[m].role, "user");
		}
		is_query[k] = q;
	}
	for (size_t k = 0; k < t->nmessages; k++) {
		long m = t->messages[k];
		if (l->messages[m].system) /* the system layer's */
			continue;
		long piece = l->messages[m].piece;
		if (!is_query[k]) {
			ledger_drop(a, piece, WHY_PRODUCED_LATER, v->turn, -1);
			continue;
		}
		if (is_blank(&a->src->pieces[piece])) {
			ledger_drop(a, piece, WHY_EMPTY, v->turn, -1);
			continue;
		}
		if (user_out(a, piece))
			continue;
		asm_message(a, "user");
		piece_block(a, piece, PHYS_EVENT, CONC_EVENT, NULL);
		placed++;
	}
	cs_free(is_query);
	if (!placed)
		asm_warn(a, -1, "turn %s recorded no query message: the current event is empty", t->id);
}

/* Model and budget for the view. */
static void budget(struct assembly *a, const struct ledger_view *v)
{
	const struct ledger *l = a->src->model;
	/* The replayed turn's model; for next or a turn without one (a
	 * compaction), the nearest turn before it on the thread that has one. */
	const struct ledger_turn *t = &l->turns[v->turn >= 0 ? v->turn : v->head];
	for (size_t i = v->turn >= 0 ? v->hist_end + 1 : v->nanc; !t->model && i-- > 0;)
		if (l->turns[v->anc[i]].model)
			t = &l->turns[v->anc[i]];
	const char *model = l->model ? l->model : t->model;
	bool known = false;
	long limit = l->model_limit >= 0 ? l->model_limit : model_context_limit(model ? model : "", &known);
	long rr = l->reserve_response >= 0 ? l->reserve_response : LEDGER_DEFAULT_RESERVE_RESPONSE;
	long rt = l->reserve_tools >= 0 ? l->reserve_tools : LEDGER_DEFAULT_RESERVE_TOOLS;
	char base[128], n1[32], n2[32], n3[32], n4[32];
	model_base_name(model ? model : "", base, sizeof base);
	if (model)
		asm_fact(a, "model", "%s%s%s", model, t->provider && !l->model ? " via " : "",
			 t->provider && !l->model ? t->provider : "");
	if (l->model_limit >= 0)
		asm_fact(a, "model limit", "%s (assembly.budget.modelLimit)", fmt_thousands(n1, limit));
	else if (known)
		asm_fact(a, "model limit", "%s (%s in the Nexus broker's model table)", fmt_thousands(n1, limit), base);
	else {
		asm_fact(a, "model limit", "%s (fallback: %s is not in the table)", fmt_thousands(n1, limit),
			 model ? model : "no model recorded");
		asm_warn(a, -1, "model %s is not in the model table: assuming %s tokens", model ? model : "(none)",
			 fmt_thousands(n1, limit));
	}
	a->budget.limit = limit;
	a->budget.reserve = rr + rt;
	a->budget.usable = limit - rr - rt;
	if (a->src->settings.budget >= 0) {
		a->budget.usable = a->src->settings.budget;
		a->budget.limit = a->budget.usable + rr + rt;
		asm_fact(a, "budget", "--budget %s overrides available", fmt_thousands(n1, a->budget.usable));
		return;
	}
	asm_fact(a, "available", "%s = %s - %s response - %s tools", fmt_thousands(n1, a->budget.usable),
		 fmt_thousands(n2, limit), fmt_thousands(n3, rr), fmt_thousands(n4, rt));
}

/* Which history turns a proactive compaction to 60% of available would
 * summarize, starting from `used` tokens: oldest first, until the rest
 * fits, keeping the last LEDGER_MIN_RECENT_TURNS. *out (cs_malloc'd) holds
 * them; *nout may be 0. */
int ledger_would_compact(const struct assembly *a, long used, struct ledger_hist_turn **out, size_t *nout,
			 long *target)
{
	const struct ledger *l = a->src->model;
	*out = NULL;
	*nout = 0;
	*target = (long)((double)a->budget.usable * LEDGER_COMPACT_TARGET);
	if (used <= a->budget.usable)
		return CS_OK;
	struct ledger_hist_turn *h = cs_calloc(a->nblocks ? a->nblocks : 1, sizeof *h);
	if (!h)
		return CS_ENOMEM;
	size_t n = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		const struct block *blk = &a->blocks[b];
		if (blk->layer[0] != PHYS_HISTORY || blk->piece < 0)
			continue;
		const struct piece *p = &a->src->pieces[blk->piece];
		if (strcmp(p->role, "summary") == 0)
			continue;
		long turn = l->messages[p->kind_index].turn;
		if (n == 0 || h[n - 1].turn != turn)
			h[n++] = (struct ledger_hist_turn){ turn, 0 };
		h[n - 1].tokens += blk->budget_tokens;
	}
	size_t k = 0;
	while (k + LEDGER_MIN_RECENT_TURNS < n && used > *target) {
		used -= h[k].tokens;
		k++;
	}
	*out = h;
	*nout = k;
	return CS_OK;
}

/* Explain, the view: which session, role and turn are assembled. */
static void explain_view(struct assembly *a, const struct ledger_view *v)
{
	const struct ledger *l = a->src->model;
	const struct ledger_session *s = v->session >= 0 ? &l->sessions[v->session] : NULL;
	if (s)
		asm_fact(a, "session", "%s (%s, head turn %s%s%s)", s->label, s->is_subagent ? "worker sub-agent" : "manager",
			 l->turns[v->head].id, s->status ? ", " : "", s->status ? s->status : "");
	asm_fact(a, "role", "%s%s", v->role, l->role ? " (assembly.role)" : "");
	if (s && s->is_subagent)
		asm_fact(a, "task", "%s", s->task_description ? s->task_description : "(no task_description recorded)");
	if (s && s->persona_id)
		asm_fact(a, "persona", "%s", s->persona_id);
	asm_fact(a, "thread", "%zu turn%s, ancestry %s", v->nanc, v->nanc == 1 ? "" : "s",
		 l->turns[v->head].ancestry ? "from the threads table" : "rebuilt from parent_turn_id");
	if (l->next)
		asm_fact(a, "assembling", "the next turn after %s, with assembly.event", l->turns[v->head].id);
	else
		asm_fact(a, "assembling", "turn %s as it was sent%s", l->turns[v->turn].id,
			 v->turn == v->head ? " (the session head)" : "");
	if (!l->next && l->turns[v->turn].compaction)
		asm_warn(a, -1, "turn %s is a compaction turn: its prompt was the summarization request",
			 l->turns[v->turn].id);
}

/* Decide and explain what the layers did not place: later turns on the
 * thread, then everything off it. */
static void drop_rest(struct assembly *a, const struct ledger_view *v, const struct ledger_thread *th)
{
	const struct ledger *l = a->src->model;
	for (size_t i = v->hist_end + (l->next ? 0 : 1); i < v->nanc; i++)
		drop_turn(a, v, th, i, WHY_TURN_LATER, v->turn);
	const long *off;
	size_t noff = ledger_thread_off(th, &off); /* the messages the thread does not hold */
	for (size_t k = 0; k < noff; k++)
		ledger_drop(a, l->messages[off[k]].piece, WHY_OFF_THREAD, l->messages[off[k]].turn, -1);
	noff = ledger_thread_compactions_off(th, &off);
	for (size_t k = 0; k < noff; k++)
		ledger_drop(a, l->compactions[off[k]].piece, WHY_COMP_OFF_THREAD, l->compactions[off[k]].turn, -1);
}

/* Explain, the recorded usage of the replayed turn. */
static void explain_recorded(struct assembly *a, const struct ledger_view *v)
{
	const struct ledger *l = a->src->model;
	const struct ledger_turn *rt = v->turn >= 0 ? &l->turns[v->turn] : NULL;
	if (rt && rt->input_tokens >= 0) {
		char n1[32], n2[32], n3[32];
		asm_fact(a, "recorded input", "%s tokens (%s read, %s written), turn %s", /* the cache's words */
			 fmt_thousands(n1, rt->input_tokens),
			 rt->cached_input_tokens >= 0 ? fmt_thousands(n2, rt->cached_input_tokens) : "not recorded",
			 rt->cache_write_tokens >= 0 ? fmt_thousands(n3, rt->cache_write_tokens) : "not recorded", rt->id);
		a->recorded = (struct recorded){ .input = rt->input_tokens, .read = rt->cached_input_tokens,
						 .written = rt->cache_write_tokens,
						 .what = arena_printf(&a->arena, "turn %s", rt->id) };
	}
	else if (rt)
		asm_fact(a, "recorded input", "not recorded for turn %s", rt->id);
}

/* The tokens the event's memory injection is charged (its blocks). */
long ledger_memory_tokens(const struct assembly *a)
{
	long t = 0;
	for (size_t b = 0; b < a->nblocks; b++)
		if (a->blocks[b].layer[1] == CONC_MEMORY && a->blocks[b].piece >= 0)
			t += a->blocks[b].budget_tokens;
	return t;
}

/* Explain, over the budget: seed 001's compression priority. What
 * dropping the memory injection would free first (memory goes to 0 before
 * history is compacted), then what a proactive compaction would summarize
 * of what is still over. */
static int explain_over(struct assembly *a)
{
	const struct ledger *l = a->src->model;
	char n1[32], n2[32], n3[32], n4[32];
	a->over_by = a->budget.used - a->budget.usable;
	long mem = ledger_memory_tokens(a), after = a->budget.used - mem;
	struct ledger_hist_turn *h;
	size_t nh;
	long target;
	if (ledger_would_compact(a, after, &h, &nh, &target) != CS_OK)
		return CS_ENOMEM;
	char first[200] = "";
	if (mem > 0)
		snprintf(first, sizeof first, "dropping the memory injection first (seed 001's compression priority) "
			 "would free %s tokens, %s", fmt_thousands(n2, mem),
			 after <= a->budget.usable ? "enough to fit: no compaction needed" : "still over by ");
	if (mem > 0 && after > a->budget.usable)
		snprintf(first + strlen(first), sizeof first - strlen(first), "%s; then ",
			 fmt_thousands(n4, after - a->budget.usable));
	long freed = 0;
	for (size_t i = 0; i < nh; i++)
		freed += h[i].tokens;
	char turns[240];
	const char *compact = mem > 0 ? "the broker would compact (the Nexus broker's ensureBudget)"
				      : "the broker would compact first (the Nexus broker's ensureBudget)";
	if (mem > 0 && after <= a->budget.usable)
		turns[0] = '\0';
	else if (nh == 0)
		snprintf(turns, sizeof turns, "%s, but has no turn to summarize (it keeps the %d most recent)", compact,
			 LEDGER_MIN_RECENT_TURNS);
	else if (nh == 1)
		snprintf(turns, sizeof turns, "%s, summarizing turn %.60s (%s tokens) toward %s", compact,
			 l->turns[h[0].turn].id, fmt_thousands(n2, freed), fmt_thousands(n3, target));
	else
		snprintf(turns, sizeof turns, "%s, summarizing turns %.40s..%.40s (%zu turns, %s tokens) toward %s", compact,
			 l->turns[h[0].turn].id,
			 l->turns[h[nh - 1].turn].id, nh, fmt_thousands(n2, freed), fmt_thousands(n3, target));
	asm_state(a, ASM_OVER_LIMIT | ASM_COMPACTS, "over the available budget by %s tokens: %s%s",
		  fmt_thousands(n1, a->over_by), first, turns);
	if (mem > 0)
		asm_warn(a, -1, "dropping the memory injection (%s tokens) comes before any compaction: %s",
			 fmt_thousands(n2, mem), after <= a->budget.usable ? "it alone brings the prompt within budget"
									   : "it does not bring the prompt within budget");
	if (mem > 0 && after <= a->budget.usable)
		; /* no compaction to name */
	else if (nh == 1)
		asm_warn(a, -1, "a proactive compaction to 60%% of available would summarize turn %s "
			 "(keeping at least %d recent turns)", l->turns[h[0].turn].id, LEDGER_MIN_RECENT_TURNS);
	else if (nh)
		asm_warn(a, -1, "a proactive compaction to 60%% of available would summarize turns %s..%s "
			 "(%zu turns, keeping at least %d recent ones)", l->turns[h[0].turn].id,
			 l->turns[h[nh - 1].turn].id, nh, LEDGER_MIN_RECENT_TURNS);
	else
		asm_warn(a, -1, "a proactive compaction could not help: the history holds no turn beyond the %d most recent, "
			 "which are always kept", LEDGER_MIN_RECENT_TURNS);
	cs_free(h);
	return CS_OK;
}

/* The view's runs of summarized messages, as struct ledger_runs (no serial). */
static struct ledger_runs runs_of(const struct source *src, const struct ledger_view *v)
{
	const struct ledger *l = src->model;
	return (struct ledger_runs){ .head = v->head, .compaction = v->compaction, .cpos = v->cpos,
				     .kept_from = v->kept_from, .fk_at = v->fk_at, .rule = (int)l->rule,
				     .chars_per_token = src->settings.chars_per_token };
}

static bool same_runs(const struct ledger_runs *x, const struct ledger_runs *y)
{
	return x->head == y->head && x->compaction == y->compaction && x->cpos == y->cpos &&
	       x->kept_from == y->kept_from && x->fk_at == y->fk_at && x->rule == y->rule &&
	       x->chars_per_token == y->chars_per_token;
}

/* The results (asm_init_reuse): the previous assembly's, patched, when the
 * runs it left in them are this view's (an exclusion, the budget, the
 * summary role: v->keep_runs); else every one set from nothing, as
 * asm_init sets them, for the layers to decide. */
static int take_results(struct assembly *a, struct ledger_view *v)
{
	const struct ledger *l = a->src->model;
	struct ledger_runs now = runs_of(a->src, v);
	for (size_t k = 0; a->reused && k < LEDGER_RUNS_KEPT; k++)
		if (l->cache.runs[k].serial && l->cache.runs[k].serial == a->reused_from)
			v->keep_runs = same_runs(&l->cache.runs[k], &now);
	if (v->keep_runs || l->bare) /* a bare replay records only what goes in */
		return CS_OK;
	if (asm_reuse_decline(a) != CS_OK)
		return CS_ENOMEM;
	for (size_t i = 0; i < a->src->npieces; i++)
		a->results[i] = (struct piece_result){ .outcome = OUTCOME_DROPPED, .block = -1, .score = NAN,
						       .original_tokens = a->src->pieces[i].tokens };
	return CS_OK;
}

/* decide the view (session, thread, replayed turn, compaction) → the
 * layers, each deciding its messages as it renders them → what they did
 * not place → explain the budget. */
int ledger_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	const struct ledger *l = src->model;
	struct ledger_view v;
	if (asm_init_reuse(a, run, ASM_MESSAGES) != CS_OK) /* first: assemble() finis it on any failure */
		return cs_error_nomem(err);
	int rc = ledger_view_resolve(src, &v, err);
	if (rc)
		return rc;
	if (take_results(a, &v) != CS_OK) {
		ledger_view_fini(&v);
		return cs_error_nomem(err);
	}
	static const char *const phys[] = { "system", "history", "event" };
	static const char *const conc[] = { "workspace", "persona", "session", "memory", "event" };
	asm_grouping(a, "physical", phys, 3);
	asm_grouping(a, "conceptual", conc, 5);
	const struct ledger_thread *th = v.th;
	explain_view(a, &v); /* first: the layers' facts follow the view's */
	/* room for every piece: a compacted history drops most */
	if (!l->bare)
		asm_expect_not_whole(a, src->npieces);
	ledger_drops_defer(a, v.session, v.head);
	system_layer(a, &v, th);
	history_layer(a, &v, th);
	event_layer(a, &v);
	drop_rest(a, &v, th);
	budget(a, &v);
	explain_recorded(a, &v);
	rc = asm_finish(a, err);
	if (rc == CS_OK && a->budget.used > a->budget.usable && explain_over(a) != CS_OK)
		rc = cs_error_nomem(err);
	if (rc == CS_OK && a->lazy && !l->bare) { /* what a re-assembly from this one may keep */
		struct ledger_cache *c = ledger_cache(src);
		struct ledger_runs *r = &c->runs[c->runs_next++ % LEDGER_RUNS_KEPT];
		*r = runs_of(src, &v);
		r->serial = a->serial;
	}
	ledger_view_fini(&v);
	return rc;
}

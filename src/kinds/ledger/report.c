/* report.c (ledger): the ledger's report additions: per message its turn,
 * role and sequence (per summary its compaction: what it summarized, what it
 * kept, the tokens before and after); for the prompt the usage the provider
 * recorded for the turn beside the estimate, what dropping the memory
 * injection and a proactive compaction would free when over the budget, and
 * the timeline (every turn replayed, predicted cache beside recorded: the
 * report's section and the inspector's text); the list's column (the
 * tokens recorded for a message). */
#include "ledger.h"

#include "base/alloc.h"
#include "assembly.h"
#include "emit.h"
#include "kind.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdio.h>
#include <string.h>

/* The list's column: the tokens the export recorded for the message (its
 * usage), beside the estimate in the tokens column; none when unrecorded. */
bool ledger_piece_column(const struct source *src, const struct assembly *a, long piece,
			 char cell[KIND_COLUMN_WIDTH + 1])
{
	(void)a;
	const struct piece *p = &src->pieces[piece];
	if (!(p->flags & PIECE_RECORDED) || p->recorded_tokens < 0)
		return false;
	char n[32];
	snprintf(cell, KIND_COLUMN_WIDTH + 1, "%8s", fmt_thousands(n, p->recorded_tokens));
	return true;
}

int ledger_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em)
{
	(void)a;
	const struct ledger *l = src->model;
	const struct piece *p = &src->pieces[piece];
	if (p->kind_index < l->nmessages && l->messages[p->kind_index].piece == piece) {
		const struct ledger_message *lm = &l->messages[p->kind_index];
		const struct ledger_turn *t = &l->turns[lm->turn];
		emit_key_str(em, "turn", t->id);
		if (t->role)
			emit_key_str(em, "turn_role", t->role);
		emit_key_int(em, "sequence", lm->sequence);
		if (p->flags & PIECE_RECORDED)
			emit_key_str(em, "recorded_as", "the turn's output_tokens (its response message)");
		return CS_OK;
	}
	if (!strcmp(p->role, "summary") && p->kind_index < l->ncompactions) {
		const struct ledger_compaction *c = &l->compactions[p->kind_index];
		if (c->piece == piece) {
			emit_key_str(em, "compaction_turn", l->turns[c->turn].id);
			if (c->through >= 0)
				emit_key_str(em, "summarized_through", l->turns[c->through].id);
			if (c->first_kept >= 0)
				emit_key_str(em, "first_kept", l->turns[c->first_kept].id);
			if (c->tokens_before >= 0)
				emit_key_int(em, "tokens_before", c->tokens_before);
			if (c->tokens_after >= 0)
				emit_key_int(em, "tokens_after", c->tokens_after);
		}
	}
	return CS_OK;
}

int ledger_report_extra(const struct source *src, const struct assembly *a, struct emitter *em)
{
	const struct ledger *l = src->model;
	struct ledger_view v;
	struct cs_error err;
	cs_error_clear(&err);
	if (ledger_view_resolve(src, &v, &err) != CS_OK)
		return err.code;
	emit_key(em, "recorded_usage");
	emit_map_begin(em);
	const struct ledger_turn *t = v.turn >= 0 ? &l->turns[v.turn] : NULL;
	emit_key_int(em, "estimated_input_tokens", a->total_tokens);
	if (!t) {
		emit_key_str(em, "note", "the next turn has not been sent: nothing is recorded");
	} else {
		emit_key_str(em, "turn", t->id);
		if (t->input_tokens >= 0) {
			emit_key_int(em, "input_tokens", t->input_tokens);
			emit_key_int(em, "estimate_minus_recorded", a->total_tokens - t->input_tokens);
		} else {
			emit_key_str(em, "input_tokens", "not recorded");
		}
		if (t->cached_input_tokens >= 0)
			emit_key_int(em, "cached_input_tokens", t->cached_input_tokens);
		if (t->cache_write_tokens >= 0)
			emit_key_int(em, "cache_write_tokens", t->cache_write_tokens);
		if (t->output_tokens >= 0)
			emit_key_int(em, "output_tokens", t->output_tokens);
		if (t->total_tokens >= 0)
			emit_key_int(em, "total_tokens", t->total_tokens);
		emit_key_str(em, "note", "recorded by the provider for the whole request: it includes the tool "
			     "definitions and message framing the export does not hold; the estimate is "
			     "ceil(code points / chars_per_token) of the rendered prompt only");
	}
	emit_map_end(em);
	struct ledger_hist_turn *h;
	size_t nh;
	long target, mem = ledger_memory_tokens(a), after = a->budget.used - mem;
	if (ledger_would_compact(a, after, &h, &nh, &target) != CS_OK) {
		ledger_view_fini(&v);
		return CS_ENOMEM;
	}
	if (a->budget.used > a->budget.usable && mem > 0) {
		emit_key(em, "would_drop_memory"); /* seed 001's compression priority: before any compaction */
		emit_map_begin(em);
		emit_key_int(em, "tokens", mem);
		emit_key_int(em, "tokens_after", after);
		emit_key_bool(em, "fits_after", after <= a->budget.usable);
		emit_map_end(em);
	}
	if (after > a->budget.usable) {
		emit_key(em, "would_compact");
		emit_map_begin(em);
		emit_key_int(em, "target_tokens", target);
		emit_key_int(em, "keep_recent_turns", LEDGER_MIN_RECENT_TURNS);
		emit_key(em, "turns");
		emit_list_begin(em);
		long freed = 0;
		for (size_t i = 0; i < nh; i++) {
			emit_map_begin(em);
			emit_key_str(em, "turn", l->turns[h[i].turn].id);
			emit_key_int(em, "tokens", h[i].tokens);
			emit_key_str(em, "reason", reason_code(REASON_WOULD_COMPACT));
			emit_map_end(em);
			freed += h[i].tokens;
		}
		emit_list_end(em);
		emit_key_int(em, "tokens_after_without_summary", after - freed);
		emit_key_bool(em, "reaches_target", after - freed <= target);
		emit_map_end(em);
	}
	cs_free(h);
	ledger_view_fini(&v);
	return ledger_timeline_emit(src, em);
}

static void emit_recorded(struct emitter *em, const char *key, long v)
{
	if (v >= 0)
		emit_key_int(em, key, v);
	else
		emit_key_str(em, key, "not recorded");
}

int ledger_timeline_emit(const struct source *src, struct emitter *em)
{
	struct ledger_turn_usage *rows;
	size_t n;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = ledger_timeline(src, &rows, &n, &err);
	if (rc != CS_OK)
		return rc == CS_ENOMEM ? rc : CS_OK; /* a turn that does not replay: the report says so elsewhere */
	const struct ledger *l = src->model;
	emit_key(em, "timeline");
	emit_map_begin(em);
	emit_key_str(em, "note", "each turn on the thread replayed; predicted: that prompt sent after the previous "
		     "turn of its model under the provider's cache (the first of a model against a cold cache), estimated tokens; "
		     "recorded: the turn's usage columns, the provider's whole request");
	emit_key(em, "turns");
	emit_list_begin(em);
	for (size_t i = 0; i < n; i++) {
		const struct ledger_turn_usage *u = &rows[i];
		emit_map_begin(em);
		emit_key_str(em, "turn", l->turns[u->turn].id);
		emit_key_str(em, "profile", u->profile);
		if (u->compared >= 0)
			emit_key_str(em, "compared_with", l->turns[u->compared].id);
		emit_key_int(em, "estimated_input", u->estimated);
		emit_key_int(em, "predicted_read", u->predicted_read);
		emit_key_int(em, "predicted_written", u->predicted_written);
		emit_recorded(em, "recorded_input", u->recorded_input);
		emit_recorded(em, "recorded_read", u->recorded_read);
		emit_recorded(em, "recorded_written", u->recorded_written);
		emit_map_end(em);
	}
	emit_list_end(em);
	emit_map_end(em);
	cs_free(rows);
	return CS_OK;
}

/* A count for the view: thousands, or "-" when not recorded. */
static const char *count(char buf[32], long v)
{
	if (v < 0)
		return "-";
	return fmt_thousands(buf, v);
}

int ledger_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err)
{
	(void)step_at; /* a ledger holds no sequence to step through */
	struct ledger_turn_usage *rows;
	size_t n;
	int rc = ledger_timeline(src, &rows, &n, err);
	if (rc != CS_OK)
		return rc;
	const struct ledger *l = src->model;
	sb_printf(out, "%zu turn%s on the thread%s, predicted (estimated tokens) beside recorded\n", n, n == 1 ? "" : "s",
		  n == LEDGER_TIMELINE_MAX ? " (the last ones)" : "");
	sb_puts(out, "  recorded: the provider's whole request (tools and framing the export does not hold)\n");
	sb_puts(out, "  predicted: this prompt sent after the previous turn of its model, under its provider's cache\n\n");
	sb_puts(out, "     estimated    read  written  |  recorded input     read  written   turn\n");
	for (size_t i = 0; i < n; i++) {
		const struct ledger_turn_usage *u = &rows[i];
		char a[32], b[32], c[32], d[32], e[32], f[32];
		sb_printf(out, "  %12s %7s %8s  | %15s %8s %8s   ", count(a, u->estimated), count(b, u->predicted_read),
			  count(c, u->predicted_written), count(d, u->recorded_input), count(e, u->recorded_read),
			  count(f, u->recorded_written));
		const char *id = l->turns[u->turn].id;
		utf8_sanitize(out, id, strlen(id), text_flags);
		sb_printf(out, " (%s", u->profile);
		if (u->compared >= 0) {
			sb_puts(out, ", vs ");
			utf8_sanitize(out, l->turns[u->compared].id, strlen(l->turns[u->compared].id), text_flags);
		}
		sb_puts(out, ")\n");
	}
	cs_free(rows);
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

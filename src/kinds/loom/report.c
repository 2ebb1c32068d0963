/* report.c (loom): the loom tree's report additions: per node its use,
 * author and bookmark, and for a model node its request replayed beside the
 * recorded promptTokens (the piece entry, the note under the row, the list's
 * column); the recorded usage of every request on the path with the total;
 * the timeline (each request replayed, the next one, the total) for the
 * inspector. The replays themselves are usage.c's. */
#include "loom_priv.h"

#include "assembly.h"
#include "emit.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "54 under (4.4%)", "12 over (0.9%)", "exact": the estimate against the record. */
static const char *gap_text(char buf[96], long estimate, long recorded)
{
	char n[32];
	long d = estimate - recorded;
	if (d == 0)
		return "exact";
	double pct = recorded > 0 ? 100.0 * (double)labs(d) / (double)recorded : 0;
	snprintf(buf, 96, "%s %s (%.1f%%)", fmt_thousands(n, labs(d)), d < 0 ? "under" : "over", pct);
	return buf;
}

static struct loom_usage_row *row_of(const struct loom_usage *u, long piece)
{
	for (size_t k = 0; k < u->n; k++)
		if (u->rows[k].piece == piece)
			return &u->rows[k];
	return NULL;
}

/* The one-sentence total: "the chars/4 estimate was 18.0% under what the
 * provider counted over 12 requests". */
static void total_sentence(const struct source *src, const struct loom_usage *u, struct strbuf *out)
{
	long d = u->estimate_sum - u->recorded_sum;
	double pct = u->recorded_sum > 0 ? 100.0 * (double)labs(d) / (double)u->recorded_sum : 0;
	sb_printf(out, "the chars/%g estimate was ", src->settings.chars_per_token);
	if (d == 0)
		sb_puts(out, "exactly what the provider counted");
	else
		sb_printf(out, "%.1f%% %s what the provider counted", pct, d < 0 ? "under" : "over");
	sb_printf(out, " over %zu request%s", u->nrecorded, u->nrecorded == 1 ? "" : "s");
	if (u->exact_sum >= 0 && u->recorded_sum > 0) {
		long e = u->exact_sum - u->recorded_sum;
		sb_printf(out, "; the %s %s count %.1f%% %s", tokenizer_kind(u->encoding), u->encoding,
			  100.0 * (double)labs(e) / (double)u->recorded_sum, e < 0 ? "under" : "over");
	}
}

/* For a model node with a recorded usage: true, with the replays'
 * result (loom_usage_get) in *rc and the replays in *u; else false. */
static bool recorded_node(const struct source *src, long piece, const struct loom_usage **u, int *rc)
{
	const struct loom *m = src->model;
	const struct loom_item *it = &m->items[src->pieces[piece].kind_index];
	if (it->use != LOOM_PRIMARY || it->prompt_tokens == LOOM_NO_TOKENS)
		return false;
	struct cs_error err;
	cs_error_clear(&err);
	*rc = loom_usage_get(src, u, &err);
	return true;
}

const char *loom_piece_note(const struct source *src, long piece)
{
	const struct loom_usage *u;
	int rc;
	if (!recorded_node(src, piece, &u, &rc) || rc != CS_OK)
		return NULL;
	struct loom_usage_row *r = row_of(u, piece);
	if (!r)
		return NULL;
	if (r->note)
		return r->note;
	char a[32], b[32], c[32], g[96];
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "its request replayed: %s estimated, %s recorded (promptTokens): estimate %s",
		  fmt_thousands(a, r->estimate), fmt_thousands(b, r->recorded), gap_text(g, r->estimate, r->recorded));
	if (r->exact >= 0)
		sb_printf(&sb, "; %s %s%s (%s)", tokenizer_kind(u->encoding), tokenizer_mark(u->encoding, false),
			  fmt_thousands(c, r->exact), u->encoding);
	if (r->refused)
		sb_puts(&sb, "; the replay is an error state");
	r->note = sb.failed ? NULL : sb_detach(&sb, NULL);
	sb_fini(&sb);
	return r->note;
}

/* The piece entry's keys for a model node with a recorded usage. */
static int loom_report_usage_piece(const struct source *src, long piece, struct emitter *em)
{
	const struct loom *m = src->model;
	const struct loom_item *it = &m->items[src->pieces[piece].kind_index];
	const struct loom_usage *u;
	int rc;
	if (!recorded_node(src, piece, &u, &rc))
		return CS_OK;
	const struct loom_usage_row *r = rc == CS_OK ? row_of(u, piece) : NULL;
	if (rc == CS_ENOMEM)
		return rc;
	emit_key(em, "request");
	emit_map_begin(em);
	emit_key_int(em, "recorded_prompt_tokens", it->prompt_tokens);
	if (r) {
		emit_key_int(em, "replayed_estimate", r->estimate);
		emit_key_int(em, "difference", r->estimate - r->recorded);
		if (r->exact >= 0)
			emit_key_int(em, "replayed_exact", r->exact);
		if (r->refused)
			emit_key_bool(em, "replay_refused", true);
	}
	emit_map_end(em);
	return CS_OK;
}

int loom_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em)
{
	(void)a;
	const struct loom *m = src->model;
	const struct loom_item *it = &m->items[src->pieces[piece].kind_index];
	static const char *const uses[] = { "path", "context", "instruction", "pinned" };
	emit_key_str(em, "use", uses[it->use]);
	emit_key_str(em, "author", it->author_type);
	if (it->bookmarked)
		emit_key_bool(em, "bookmarked", true);
	return loom_report_usage_piece(src, piece, em);
}

static void emit_row(struct emitter *em, const struct source *src, const struct loom_usage_row *r)
{
	const struct piece *p = &src->pieces[r->piece];
	const struct loom_item *it = &((const struct loom *)src->model)->items[p->kind_index];
	emit_map_begin(em);
	emit_key_str(em, "node", p->id);
	if (strcmp(p->label, p->id))
		emit_key_str(em, "label", p->label);
	emit_key_int(em, "replayed_estimate", r->estimate);
	emit_key_int(em, "recorded_prompt_tokens", r->recorded);
	emit_key_int(em, "difference", r->estimate - r->recorded);
	if (r->recorded > 0)
		emit_key_num(em, "difference_percent",
			     round(1000.0 * (double)(r->estimate - r->recorded) / (double)r->recorded) / 10.0);
	if (r->exact >= 0)
		emit_key_int(em, "replayed_exact", r->exact);
	if (it->completion_tokens != LOOM_NO_TOKENS)
		emit_key_int(em, "recorded_completion_tokens", it->completion_tokens);
	if (it->response_id && it->response_id[0])
		emit_key_str(em, "response", it->response_id);
	if (r->refused)
		emit_key_bool(em, "replay_refused", true);
	emit_map_end(em);
}

int loom_report_extra(const struct source *src, const struct assembly *a, struct emitter *em)
{
	(void)a;
	const struct loom *m = src->model;
	if (!m->nresponses && !m->responses_off_path)
		return CS_OK;
	const struct loom_usage *u;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = loom_usage_get(src, &u, &err);
	if (rc == CS_ENOMEM)
		return rc;
	emit_key(em, "recorded_usage");
	emit_map_begin(em);
	emit_key_str(em, "note", "each model node's request replayed: the path up to its parent under the tree's "
		     "settings (your edits aside), estimated, beside the provider's tokenUsage.promptTokens");
	if (rc != CS_OK) {
		emit_key_str(em, "error", err.message);
		emit_map_end(em);
		return CS_OK;
	}
	if (m->responses_off_path)
		emit_key_int(em, "responses_off_path", (long long)m->responses_off_path);
	emit_key_str(em, "exact", u->encoding ? u->encoding : "no public tokenizer for the tree's model (or no rank file)");
	if (u->encoding)
		emit_key_str(em, "exact_kind", tokenizer_kind(u->encoding));
	emit_key(em, "requests");
	emit_list_begin(em);
	for (size_t k = 0; k < u->n; k++)
		if (u->rows[k].recorded != LOOM_NO_TOKENS)
			emit_row(em, src, &u->rows[k]);
	emit_list_end(em);
	if (u->nrecorded) {
		emit_key(em, "total");
		emit_map_begin(em);
		emit_key_int(em, "requests", (long long)u->nrecorded);
		emit_key_int(em, "replayed_estimate", u->estimate_sum);
		emit_key_int(em, "recorded_prompt_tokens", u->recorded_sum);
		emit_key_int(em, "difference", u->estimate_sum - u->recorded_sum);
		if (u->exact_sum >= 0)
			emit_key_int(em, "replayed_exact", u->exact_sum);
		struct strbuf sb = STRBUF_INIT;
		total_sentence(src, u, &sb);
		emit_key_str(em, "summary", sb.failed ? "" : sb_str(&sb));
		sb_fini(&sb);
		emit_map_end(em);
	}
	emit_map_end(em);
	return CS_OK;
}

/* The timeline: one line per model node on the path (its request
 * replayed beside the recorded promptTokens), the next request, the total.
 * The request the assembly shows (the replay setting) is marked. */
int loom_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err)
{
	const struct loom *m = src->model;
	const struct loom_usage *u;
	int rc = loom_usage_get(src, &u, err);
	if (rc != CS_OK)
		return rc;
	sb_printf(out, "%zu model node%s on the path%s, %zu with a recorded usage: each request replayed beside the "
		  "provider's promptTokens\n", u->n, u->n == 1 ? "" : "s", u->first ? " (the last ones)" : "",
		  u->nrecorded);
	sb_puts(out, "  replayed: the path up to the node's parent, the tree's settings (your edits aside), estimated\n");
	if (m->responses_off_path)
		sb_printf(out, "  off the path: %zu model node%s with a response (other branches), not replayed\n",
			  m->responses_off_path, m->responses_off_path == 1 ? "" : "s");
	sb_printf(out, "  %s: %s; [ ] step the request shown\n\n", u->encoding ? tokenizer_kind(u->encoding) : "exact",
		  u->encoding ? u->encoding : "no public tokenizer for the tree's model");
	sb_puts(out, "     #  replayed  recorded  estimate               exact  node\n");
	char a[32], b[32], c[32], g[96];
	for (size_t k = 0; k < u->n; k++) {
		const struct loom_usage_row *r = &u->rows[k];
		const struct piece *p = &src->pieces[r->piece];
		bool rec = r->recorded != LOOM_NO_TOKENS;
		if (step_at)
			step_at[u->first + k] = out->len;
		sb_printf(out, "  %4zu  %8s  %8s  %-20s %7s  ", u->first + k + 1, fmt_thousands(a, r->estimate),
			  rec ? fmt_thousands(b, r->recorded) : "-", rec ? gap_text(g, r->estimate, r->recorded) : "-",
			  r->exact >= 0 ? fmt_thousands(c, r->exact) : "-");
		utf8_sanitize(out, p->label, strlen(p->label), text_flags);
		sb_puts(out, r->refused ? "  (the replay is an error state)" : "");
		sb_puts(out, m->want_request == (long)(u->first + k) + 1 ? "   (shown)\n" : "\n");
	}
	if (step_at)
		step_at[u->first + u->n] = out->len;
	sb_printf(out, "  %4zu  the next request: the whole path%s\n", u->first + u->n + 1,
		  m->want_request < 0 ? "   (shown)" : "");
	if (u->nrecorded) {
		sb_printf(out, "\n  total %8s  %8s  %-20s %7s\n  ", fmt_thousands(a, u->estimate_sum),
			  fmt_thousands(b, u->recorded_sum), gap_text(g, u->estimate_sum, u->recorded_sum),
			  u->exact_sum >= 0 ? fmt_thousands(c, u->exact_sum) : "-");
		total_sentence(src, u, out);
		sb_putc(out, '\n');
	}
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

/* The list's column: the recorded promptTokens and the estimate's gap. */
bool loom_piece_column(const struct source *src, const struct assembly *a, long piece, char cell[KIND_COLUMN_WIDTH + 1])
{
	(void)a;
	const struct loom_usage *u;
	int rc;
	if (!recorded_node(src, piece, &u, &rc))
		return false;
	const struct loom_usage_row *r = rc == CS_OK ? row_of(u, piece) : NULL;
	if (!r)
		return false;
	char n[32];
	double pct = r->recorded > 0 ? 100.0 * (double)(r->estimate - r->recorded) / (double)r->recorded : 0;
	snprintf(cell, KIND_COLUMN_WIDTH + 1, "%8s %+5.1f%%", fmt_thousands(n, r->recorded), pct);
	return true;
}

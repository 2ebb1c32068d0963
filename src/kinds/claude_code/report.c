/* report.c: the claude-code report sections: `session` (what the file
 * holds, what was skipped, the recorded totals), `sequence` (per request:
 * recorded usage beside the estimate and the part not in the transcript,
 * the predicted cache, and why the cache broke) and `tool_results` (which
 * tool results cost the most over the session, and files read more than
 * once with the tokens the repeats cost). */
#include "claude_code.h"

#include "base/alloc.h"
#include "kinds/request/counted.h"

#include "base/alloc.h"
#include "emit.h"
#include "source.h"
#include "base/strmap.h"

#include <stdlib.h>
#include <string.h>

#define TOP_RESULTS 10

struct totals {
	long requests, in, read, write, out;
	long write_1h; /* of write, recorded as 1-hour entries */
	/* Each request at its own model's rates, fast mode's included
	 * (request_figures); unpriced: requests with no price. */
	double cost, web_search_cost;
	long unpriced, web_searches, fast;
};

static void add_usage(struct totals *t, const struct cc_model *m, size_t k, struct facts_memo *memo)
{
	const struct req_request *r = &m->req.reqs[k];
	const struct cc_line *l = &m->lines[m->creqs[k].last_line];
	struct req_figures f;
	request_figures_memo(&m->req, k, &f, memo);
	if (r->recorded) {
		t->cost += f.cost >= 0 ? f.cost : 0;
		t->unpriced += f.cost < 0;
		t->web_search_cost += f.web_search_cost;
		t->web_searches += r->rec_web_searches;
		t->fast += r->rec_fast;
	}
	t->requests++;
	t->in += r->rec_uncached;
	t->read += r->rec_read;
	t->write += r->rec_write;
	t->write_1h += r->rec_write_1h > 0 ? r->rec_write_1h : 0;
	t->out += l->has_usage ? l->out : 0;
}

static void emit_totals(struct emitter *em, const char *key, const struct totals *t)
{
	emit_key(em, key);
	emit_map_begin(em);
	emit_key_int(em, "requests", t->requests);
	emit_key_int(em, "read", t->read); /* the cache's words: read / written / uncached */
	emit_key_int(em, "written", t->write);
	emit_key_int(em, "uncached", t->in);
	emit_key_int(em, "total_input", t->in + t->read + t->write);
	emit_key_int(em, "output", t->out);
	emit_map_end(em);
}

static void side_totals(const struct cc_model *m, struct totals *t)
{
	const char *prev = NULL;
	for (size_t i = 0; i < m->nlines; i++) {
		const struct cc_line *l = &m->lines[i];
		if (!l->sidechain || m->subagent || l->type != CL_ASSISTANT || !l->has_usage || cc_synthetic(l))
			continue;
		if (prev && l->msg_id && !strcmp(prev, l->msg_id))
			continue; /* one message over several lines: its usage once */
		prev = l->msg_id;
		t->requests++;
		t->in += l->in;
		t->read += l->cache_read;
		t->write += l->cache_write;
		t->out += l->out;
	}
}

#define AFTER_LISTED 10 /* lines after the last request named one by one */

/* The lines after the last request (ctxscope-formats(5) section 7b: a /exit, a bash-mode
 * command, a system line), listed apart: in no prompt replayed. */
static void emit_after_last(struct emitter *em, const struct cc_model *m)
{
	static const char *const types[] = { "user", "assistant", "system", "compact boundary", "attachment", "link" };
	emit_key_str(em, "after_last_request", "lines after the last request: listed apart, in no prompt replayed");
	emit_key(em, "after_last_request_lines");
	emit_list_begin(em);
	long n = 0;
	for (size_t i = m->last_request_line + 1; i < m->nlines && n < AFTER_LISTED; i++) {
		const struct cc_line *l = &m->lines[i];
		if (!l->uuid || (l->sidechain && !m->subagent))
			continue;
		n++;
		emit_map_begin(em);
		emit_key_int(em, "line", l->line);
		emit_key_str(em, "type", types[l->type]);
		emit_map_end(em);
	}
	emit_list_end(em);
}

static void emit_session(struct emitter *em, const struct cc_model *m)
{
	struct totals all = { 0 }, side = { 0 };
	struct facts_memo memo = { NULL, NULL };
	for (size_t k = 0; k < m->req.nreqs; k++)
		add_usage(&all, m, k, &memo);
	side_totals(m, &side);
	bool known;
	const struct req_model_facts *f = request_facts(&m->req, m->req.reqs[m->req.current].model, &known);
	emit_key(em, "session");
	emit_map_begin(em);
	emit_key_int(em, "lines", m->total_lines);
	emit_key_int(em, "sidechain_lines", m->subagent ? 0 : m->sidechain_lines);
	emit_key_bool(em, "subagent_file", m->subagent);
	emit_key_int(em, "skipped_summary_lines", m->skipped_summary);
	emit_key_int(em, "skipped_snapshot_lines", m->skipped_snapshot);
	emit_key_int(em, "lines_outside_the_chain", m->outside_lines);
	emit_key_int(em, "skipped_unknown_lines", m->skipped_unknown);
	emit_key_int(em, "link_lines", m->link_lines);
	emit_key_int(em, "attachments_in_prompts", m->attachments);
	emit_key_int(em, "malformed_lines_skipped", m->bad_lines);
	emit_key_int(em, "usage_values_not_counts", m->bad_usage);
	emit_key_int(em, "compactions", m->compactions);
	emit_key_int(em, "broken_chains", m->broken_chains);
	emit_key_bool(em, "last_line_truncated", m->truncated);
	emit_key_int(em, "lines_after_last_request", m->after_last);
	if (m->after_last)
		emit_after_last(em, m);
	emit_key_str(em, "cache_lifetime", m->session_ttl >= 3600 ? "1 hour" : "5 minutes");
	emit_key_str(em, "cache_lifetime_source", m->ttl_recorded ? "recorded (usage.cache_creation)"
								  : "assumed (no split of the writes recorded)");
	emit_key_int(em, "requests_replayed", (long long)(m->req.nreqs - m->first_replayed));
	if (m->first_replayed)
		emit_key_str(em, "replay", "the earlier requests are listed with their recorded usage only: rebuilding "
					   "every prompt of a session this long would take too much memory");
	emit_totals(em, "recorded", &all);
	if (f->price_per_mtok >= 0 && known && !all.unpriced) { /* writes by their lifetime, each at its model's rates */
		emit_key_num(em, "input_cost_usd", all.cost);
		emit_key_str(em, "prices_as_of", f->as_of);
	}
	if (all.fast)
		emit_key_int(em, "fast_mode_requests", all.fast);
	if (all.web_searches) {
		emit_key_int(em, "web_searches", all.web_searches);
		emit_key_num(em, "web_search_cost_usd", all.web_search_cost);
	}
	emit_totals(em, "sidechains_recorded", &side);
	emit_key_int(em, "not_in_transcript_tokens", m->hidden);
	emit_key_str(em, "not_in_transcript", "system prompt, tools and reminders: recorded input less the messages' "
					       "estimate at the first request with usage; the predictions count it");
	emit_map_end(em);
}

/* A request's recorded usage (or a file's, summed): uncached input, cache
 * reads and writes, output. */
static void emit_recorded(struct emitter *em, long long in, long long read, long long write, long long out)
{
	emit_key(em, "recorded");
	emit_map_begin(em);
	emit_key_int(em, "read", read); /* the cache's words: read / written / uncached */
	emit_key_int(em, "written", write);
	emit_key_int(em, "uncached", in);
	emit_key_int(em, "output", out);
	emit_map_end(em);
}

static void emit_request(struct emitter *em, const struct cc_model *m, size_t k, const struct req_counted *counts)
{
	const struct req_request *r = &m->req.reqs[k];
	const struct cc_req *c = &m->creqs[k];
	const struct cc_line *l = &m->lines[c->last_line];
	emit_map_begin(em);
	emit_key_int(em, "request", (long long)k + 1);
	emit_key_int(em, "line", r->line);
	emit_key_bool(em, "main_chain", c->main);
	emit_key_bool(em, "replayed", c->replayed);
	if (c->replayed) {
		emit_key_int(em, "messages", c->messages);
		emit_key_int(em, "estimate", c->estimate);
	}
	if (r->recorded) {
		emit_recorded(em, r->rec_uncached, r->rec_read, r->rec_write, l->has_usage ? l->out : 0);
		if (r->rec_write_1h >= 0)
			emit_key_int(em, "recorded_write_1h", r->rec_write_1h);
		if (c->replayed)
			emit_key_int(em, "not_in_transcript", c->gap);
	}
	emit_key_int(em, "cache_lifetime_s", c->ttl);
	if (c->ttl_assumed)
		emit_key_bool(em, "cache_lifetime_assumed", true);
	if (c->global_read)
		emit_key_int(em, "global_read", c->global_read);
	if (counts)
		request_emit_units_counted(em, &m->req, k, counts);
	if (!c->replayed) {
		emit_map_end(em);
		return;
	}
	emit_key(em, "predicted");
	emit_map_begin(em);
	emit_key_int(em, "read", r->pred_read);
	emit_key_int(em, "written", r->pred_write);
	emit_key_int(em, "uncached", r->pred_uncached);
	if (c->recorded_units)
		emit_key_str(em, "units", "recorded: the request before's whole prompt as recorded, then the estimate");
	emit_map_end(em);
	if (r->cause) {
		emit_key_bool(em, "cache_broke", r->broke);
		if (r->diff_path)
			emit_key_str(em, "first_difference", r->diff_path);
		emit_key_str(em, "cause", r->cause);
	}
	emit_map_end(em);
}

static void emit_sequence(struct emitter *em, const struct cc_model *m, const struct req_counted *counts)
{
	emit_key(em, "sequence");
	emit_list_begin(em);
	for (size_t k = 0; k < m->req.nreqs; k++)
		emit_request(em, m, k, counts);
	emit_list_end(em);
}

/* ---- tool results ------------------------------------------------------------ */

struct result {
	size_t block;
	long carried; /* requests whose prompt held it */
	size_t use;   /* its tool_use block, (size_t)-1 none */
};

static int by_cost(const void *a, const void *b)
{
	const struct result *x = a, *y = b;
	long cx = x->carried, cy = y->carried;
	return cx != cy ? (cx < cy ? 1 : -1) : x->block < y->block ? -1 : x->block > y->block;
}

struct tools {
	struct result *res;
	size_t n;
	struct strmap uses; /* tool_use id -> block */
	long *carried;      /* per block */
};

static int collect(const struct cc_model *m, struct tools *t)
{
	t->carried = cs_calloc(m->nblocks ? m->nblocks : 1, sizeof *t->carried);
	t->res = cs_calloc(m->nblocks ? m->nblocks : 1, sizeof *t->res);
	if (!t->carried || !t->res)
		return CS_ENOMEM;
	for (size_t u = 0; u < m->req.nunits; u++)
		if (m->unit_block[u] != (size_t)-1)
			t->carried[m->unit_block[u]]++;
	for (size_t i = 0; i < m->nblocks; i++) {
		const struct cc_block *b = &m->blocks[i];
		size_t old;
		if (b->tool_id && !strcmp(b->type, "tool_use") &&
		    strmap_put(&t->uses, b->tool_id, strlen(b->tool_id), i, &old) != 0)
			return CS_ENOMEM;
	}
	for (size_t i = 0; i < m->nblocks; i++) {
		const struct cc_block *b = &m->blocks[i];
		if (strcmp(b->type, "tool_result") || (m->lines[b->line].sidechain && !m->subagent))
			continue;
		size_t use = b->tool_id ? strmap_get(&t->uses, b->tool_id, strlen(b->tool_id)) : STRMAP_NONE;
		t->res[t->n++] = (struct result){ i, t->carried[i] * b->tokens, use };
	}
	qsort(t->res, t->n, sizeof *t->res, by_cost);
	return CS_OK;
}

static void emit_results(struct emitter *em, const struct cc_model *m, const struct tools *t)
{
	emit_key(em, "costliest");
	emit_list_begin(em);
	for (size_t i = 0; i < t->n && i < TOP_RESULTS; i++) {
		const struct cc_block *b = &m->blocks[t->res[i].block];
		const struct cc_block *use = t->res[i].use != STRMAP_NONE ? &m->blocks[t->res[i].use] : NULL;
		emit_map_begin(em);
		emit_key_str(em, "tool", use && use->tool_name ? use->tool_name : "(no matching tool_use)");
		emit_key_str(em, "id", b->tool_id);
		if (use && use->file)
			emit_key_str(em, "file", use->file);
		emit_key_int(em, "line", m->lines[b->line].line);
		emit_key_int(em, "tokens", b->tokens);
		emit_key_int(em, "requests_carrying_it", t->carried[t->res[i].block]);
		emit_key_int(em, "carried_tokens", t->res[i].carried);
		emit_map_end(em);
	}
	emit_list_end(em);
}

/* Files read more than once (tool Read, same file_path): each repeat's
 * result tokens are waste the first read already paid for. */
static int emit_rereads(struct emitter *em, const struct cc_model *m, const struct tools *t)
{
	struct strmap files = STRMAP_INIT;
	long *reads = cs_calloc(t->n + 1, sizeof *reads), *tokens = cs_calloc(t->n + 1, sizeof *tokens);
	size_t *first = cs_calloc(t->n + 1, sizeof *first), nfiles = 0;
	int rc = reads && tokens && first ? CS_OK : CS_ENOMEM;
	for (size_t k = 0; k < m->nblocks && rc == CS_OK; k++) { /* file order, so the first read is first */
		const struct cc_block *b = &m->blocks[k];
		size_t u = b->tool_id && !strcmp(b->type, "tool_result") ? strmap_get(&t->uses, b->tool_id, strlen(b->tool_id))
									: STRMAP_NONE;
		const struct cc_block *use = u != STRMAP_NONE ? &m->blocks[u] : NULL;
		if (!use || !use->file || !use->tool_name || strcmp(use->tool_name, "Read") ||
		    (m->lines[b->line].sidechain && !m->subagent))
			continue;
		size_t old, f = strmap_get(&files, use->file, strlen(use->file));
		if (f == STRMAP_NONE && nfiles <= t->n) {
			f = nfiles++;
			first[f] = u;
			if (strmap_put(&files, use->file, strlen(use->file), f, &old) != 0)
				rc = CS_ENOMEM;
		}
		if (f != STRMAP_NONE && rc == CS_OK) {
			tokens[f] += reads[f] ? b->tokens : 0;
			reads[f]++;
		}
	}
	emit_key(em, "files_read_more_than_once");
	emit_list_begin(em);
	for (size_t f = 0; f < nfiles && rc == CS_OK; f++) {
		if (reads[f] < 2)
			continue;
		emit_map_begin(em);
		emit_key_str(em, "file", m->blocks[first[f]].file);
		emit_key_int(em, "reads", reads[f]);
		emit_key_int(em, "tokens_wasted", tokens[f]);
		emit_map_end(em);
	}
	emit_list_end(em);
	strmap_fini(&files);
	cs_free(reads);
	cs_free(tokens);
	cs_free(first);
	return rc;
}

static int emit_tools(struct emitter *em, const struct cc_model *m)
{
	struct tools t = { .uses = STRMAP_INIT };
	int rc = collect(m, &t);
	if (rc == CS_OK) {
		emit_key(em, "tool_results");
		emit_map_begin(em);
		emit_key_int(em, "count", (long long)t.n);
		emit_results(em, m, &t);
		rc = emit_rereads(em, m, &t);
		emit_map_end(em);
	}
	strmap_fini(&t.uses);
	cs_free(t.carried);
	cs_free(t.res);
	return rc;
}

void cc_emit_subagents(struct emitter *em, const struct cc_subagents *list)
{
	emit_key(em, "subagent_files");
	emit_map_begin(em);
	emit_key_str(em, "note", "listed apart: never in the main prompt; each opens as a session of its own");
	emit_key(em, "files");
	emit_list_begin(em);
	for (size_t i = 0; i < list->n; i++) {
		const struct cc_subagent *a = &list->items[i];
		emit_map_begin(em);
		emit_key_str(em, "file", a->name);
		emit_key_bool(em, "this_session", a->this_session);
		if (a->unreadable) {
			emit_key_str(em, "unreadable", a->why[0] ? a->why : "could not be read");
		} else {
			emit_key_int(em, "lines", a->lines);
			if (a->bad_lines)
				emit_key_int(em, "malformed_lines", a->bad_lines);
			emit_key_int(em, "requests", a->requests);
			emit_recorded(em, a->in, a->cache_read, a->cache_write, a->out);
			if (a->bad_counts)
				emit_key_int(em, "usage_values_not_counts", a->bad_counts);
		}
		emit_map_end(em);
	}
	emit_list_end(em);
	if (list->more)
		emit_key_int(em, "more_files_not_listed", list->more);
	if (list->skipped)
		emit_key_int(em, "files_not_read_past_the_total", list->skipped);
	emit_map_end(em);
}

int cc_report_extra(const struct source *src, const struct assembly *a, struct emitter *em)
{
	(void)a;
	const struct cc_model *m = src->model;
	const struct req_counted_memo *memo; /* the approximate count of each replayed prompt (counted.h) */
	struct req_counted_memo *owned;
	struct cs_error err;
	cs_error_clear(&err);
	if (request_counted(src, &m->req, true, &memo, &owned, &err) != CS_OK)
		return CS_ENOMEM;
	emit_session(em, m);
	emit_sequence(em, m, memo->counts);
	request_emit_units_summary(em, &m->req, memo->counts, memo->note);
	request_counted_memo_free(owned);
	request_emit_whatif(em, src, &m->req);
	int rc = emit_tools(em, m);
	struct cc_subagents list;
	if (rc == CS_OK)
		rc = cc_subagents(src, &list);
	if (rc == CS_OK && (list.n || list.more))
		cc_emit_subagents(em, &list);
	if (rc == CS_OK)
		cc_subagents_fini(&list);
	return rc;
}

/* report.c: the request kinds' report sections: `request_cache` (the model's
 * cache facts with their source, the breakpoints, the lints, the
 * prediction for this request) and, for a log, `sequence` (per request:
 * predicted and recorded reads, writes and uncached tokens, the first
 * difference from the request before and its cause; the hit rates). */
#include "request.h"

#include "base/alloc.h"
#include "kinds/request/counted.h"

#include "assembly.h"
#include "emit.h"
#include "source.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *unit_path(const struct request_model *m, long unit)
{
	return unit >= 0 ? m->units[unit].path : NULL;
}

static void emit_lints(struct emitter *em, const struct request_model *m)
{
	emit_key(em, "lints");
	emit_list_begin(em);
	for (size_t l = 0; l < m->nlints; l++) {
		const struct req_lint *li = &m->lints[l];
		emit_map_begin(em);
		emit_key_str(em, "code", li->code);
		emit_key_str(em, "level", li->error ? "error" : "warning");
		if (li->unit >= 0)
			emit_key_str(em, "block", unit_path(m, li->unit));
		emit_key_str(em, "message", li->sentence);
		emit_map_end(em);
	}
	emit_list_end(em);
}

static void emit_breakpoints(struct emitter *em, const struct request_model *m, const struct req_request *r,
			     const struct req_model_facts *f)
{
	emit_key(em, "breakpoints");
	emit_list_begin(em);
	long prefix = 0;
	for (size_t i = 0; i < r->nunits; i++) {
		const struct req_unit *u = &m->units[r->first_unit + i];
		prefix += u->tokens;
		bool automatic = (long)i == r->auto_unit;
		if (!u->ttl && !automatic)
			continue;
		int ttl = u->ttl > r->auto_ttl || !automatic ? u->ttl : r->auto_ttl;
		emit_map_begin(em);
		emit_key_str(em, "block", u->path);
		emit_key_str(em, "set_by", u->ttl ? "cache_control" : "automatic caching (top-level cache_control)");
		emit_key_str(em, "ttl", ttl >= 3600 ? "1h" : "5m");
		emit_key_int(em, "prefix_tokens", prefix);
		emit_key_bool(em, "caches", prefix >= f->min_prefix);
		emit_map_end(em);
	}
	emit_list_end(em);
}

static void emit_prediction(struct emitter *em, const struct req_request *r)
{
	emit_key_int(em, "prompt_tokens", r->total);
	emit_key_int(em, "read", r->pred_read);
	emit_key_int(em, "written", r->pred_write);
	emit_key_int(em, "uncached", r->pred_uncached);
}

static void emit_cache(struct emitter *em, const struct request_model *m, const struct req_counted *counts)
{
	const struct req_request *r = &m->reqs[m->current];
	bool known;
	const struct req_model_facts *f = request_facts(m, request_model_name(m, r), &known);
	emit_key(em, "request_cache");
	emit_map_begin(em);
	if (m->model_override)
		emit_key_str(em, "model_what_if", m->model_override);
	const struct request_provider *pv = &request_providers[m->provider];
	emit_key_str(em, "mode", pv->cache_mode);
	emit_key_int(em, "minimum_prefix", f->min_prefix);
	if (!pv->breakpoints)
		emit_key_int(em, "step", 128);
	emit_key_num(em, "read_multiplier", f->read);
	emit_key_num(em, "write_multiplier", f->write_5m);
	if (pv->breakpoints)
		emit_key_num(em, "write_multiplier_1h", f->write_1h);
	if (f->price_per_mtok >= 0)
		emit_key_num(em, "input_price_per_mtok_usd", f->price_per_mtok);
	emit_key_bool(em, "model_known", known);
	emit_key_str(em, "source", f->source);
	emit_key_str(em, "as_of", f->as_of);
	if (m->facts_note)
		emit_key_str(em, "user_file", m->facts_note);
	if (pv->breakpoints)
		emit_breakpoints(em, m, r, f);
	emit_key(em, "predicted");
	emit_map_begin(em);
	emit_prediction(em, r);
	emit_key_str(em, "against", m->current ? "the requests before it in the log" : "an empty cache");
	emit_map_end(em);
	if (counts) { /* the whole request as the provider counts it */
		emit_key(em, "tokens");
		request_emit_counted(em, &counts[m->current]);
		request_emit_distance(em, m, m->current, &counts[m->current]);
	}
	emit_lints(em, m);
	emit_map_end(em);
}

static long pct(long part, long whole)
{
	return whole > 0 ? (long)floor(100.0 * (double)part / (double)whole + 0.5) : 0;
}

static void emit_recorded(struct emitter *em, const struct request_model *m, size_t k, const struct req_figures *f)
{
	const struct req_request *r = &m->reqs[k];
	emit_key(em, "recorded");
	emit_map_begin(em);
	emit_key_int(em, "read", r->rec_read);
	emit_key_int(em, "written", r->rec_write);
	if (f->written_1h >= 0) {
		emit_key_int(em, "written_5m", r->rec_write - f->written_1h);
		emit_key_int(em, "written_1h", f->written_1h);
	}
	emit_key_int(em, "uncached", r->rec_uncached);
	emit_key_int(em, "hit_rate_percent", f->hit_percent);
	/* The same figures in the provider's own words (the counted/recorded schema). */
	emit_key_int(em, "input", r->rec_uncached);
	emit_key_int(em, "cache_read", r->rec_read);
	emit_key_int(em, "cache_write", r->rec_write);
	if (r->rec_output >= 0)
		emit_key_int(em, "output", r->rec_output);
	if (f->cost >= 0)
		emit_key_num(em, "input_cost_usd", f->cost);
	else
		emit_key_str(em, "input_cost_usd", f->priced_as ? f->priced_as : "the model has no price in the table");
	if (f->priced_as)
		emit_key_str(em, "priced_as", f->priced_as);
	if (r->rec_web_searches > 0) {
		emit_key_int(em, "web_searches", r->rec_web_searches);
		emit_key_num(em, "web_search_cost_usd", f->web_search_cost);
	}
	if (r->rec_write > 0 && f->written_1h < 0 && r->provider == REQ_ANTHROPIC) /* OpenAI has one lifetime */
		emit_key_str(em, "write_lifetime", "not recorded: priced as 5-minute writes");
	emit_map_end(em);
}

static void emit_diagnosis(struct emitter *em, const struct req_request *r, const struct req_figures *f)
{
	if (!r->rec_miss)
		return;
	emit_key(em, "provider_diagnosis");
	emit_map_begin(em);
	emit_key_str(em, "cache_miss_reason", r->rec_miss);
	if (r->rec_missed >= 0)
		emit_key_int(em, "cache_missed_input_tokens", r->rec_missed);
	emit_key_str(em, "agrees_with_ctxscope", f->agrees > 0 ? "yes" : f->agrees == 0 ? "no" : "not comparable");
	if (r->asked_compare && r->provider_compared >= 0)
		emit_key_int(em, "compared_with_request", r->provider_compared + 1);
	else if (r->asked_compare)
		emit_key_str(em, "compared_with_request", "not in this log");
	emit_map_end(em);
}

static void emit_one(struct emitter *em, const struct request_model *m, size_t k, const struct req_counted *counts)
{
	const struct req_request *r = &m->reqs[k];
	struct req_figures f;
	request_figures(m, k, &f);
	emit_map_begin(em);
	emit_key_int(em, "request", (long long)k + 1);
	emit_key_int(em, "line", r->line);
	emit_key_str(em, "model", r->model);
	if (m->ngroups > 1) {
		char mark[4];
		emit_key_str(em, "group", request_group_mark(m, k, mark));
	}
	if (r->compared >= 0) {
		emit_key_int(em, "compared_with_request", r->compared + 1);
		emit_key_int(em, "compared_with_line", m->reqs[r->compared].line);
	}
	if (f.recorded)
		emit_recorded(em, m, k, &f);
	emit_key(em, "predicted");
	emit_map_begin(em);
	emit_key_int(em, "read", r->pred_read);
	emit_key_int(em, "written", r->pred_write);
	emit_key_int(em, "uncached", r->pred_uncached);
	if (f.recorded) {
		emit_key_int(em, "read_minus_recorded", r->pred_read - r->rec_read);
		emit_key_int(em, "off_percent", f.off_percent);
		emit_key_bool(em, "off", f.off);
	}
	emit_map_end(em);
	if (r->global_read) {
		emit_key(em, "global_read");
		emit_map_begin(em);
		emit_key_int(em, "read", r->global_read);
		emit_key_str(em, "breakpoint", r->global_path);
		emit_key_int(em, "estimated_tokens", r->global_extent);
		emit_key_str(em, "what", "a cache shared across sessions: text this log does not show as sent before, "
			     "not a miss");
		emit_map_end(em);
	}
	if (counts) {
		emit_key(em, "counted");
		request_emit_counted(em, &counts[k]);
		request_emit_distance(em, m, k, &counts[k]);
	}
	if (r->cause) {
		emit_key_bool(em, "cache_broke", r->broke);
		emit_key_str(em, "first_difference", r->diff_path);
		if (r->diff_before) {
			emit_key_str(em, "before", r->diff_before);
			emit_key_str(em, "now", r->diff_now);
		}
		emit_key_str(em, "cause", r->cause);
	}
	emit_diagnosis(em, r, &f);
	emit_map_end(em);
}

/* Text reports: one line a request (and the two sides of a break), for
 * reading down a log, the record first; the structured formats carry the
 * fields. */
static void emit_one_line(struct emitter *em, const struct request_model *m, size_t k, const struct req_counted *counts)
{
	const struct req_request *r = &m->reqs[k];
	struct strbuf sb = STRBUF_INIT;
	char mark[4];
	sb_printf(&sb, "#%zu (line %ld)", k + 1, r->line);
	if (request_group_mark(m, k, mark)[0])
		sb_printf(&sb, " [%s]", mark);
	sb_puts(&sb, ": ");
	request_figures_text(m, k, &sb);
	request_counted_words(&sb, m, k, counts);
	if (r->cause) {
		sb_printf(&sb, "; %s", r->broke ? "CACHE BROKE" : "changed");
		if (r->compared >= 0)
			sb_printf(&sb, " vs #%ld (line %ld)", r->compared + 1, m->reqs[r->compared].line);
		sb_printf(&sb, ": %s", r->cause);
	}
	if (r->cause && r->broke && r->diff_before) {
		emit_map_begin(em);
		emit_key(em, "request");
		emit_strn(em, sb_str(&sb), sb.len);
		emit_key_str(em, "before", r->diff_before);
		emit_key_str(em, "now", r->diff_now);
		emit_map_end(em);
	} else {
		emit_strn(em, sb_str(&sb), sb.len);
	}
	sb_fini(&sb);
}

/* After edits: the whole log's prediction against the one as loaded. */
void request_emit_whatif(struct emitter *em, const struct source *src, const struct request_model *m)
{
	if (!m->edited)
		return;
	struct request_whatif w;
	request_whatif_totals(m, &w);
	emit_key(em, "what_if");
	emit_map_begin(em);
	size_t out = 0;
	for (size_t i = 0; i < src->npieces; i++)
		out += piece_excluded(&src->pieces[i]);
	char what[200];
	snprintf(what, sizeof what, "%s%s%s%s%s%.80s", out ? "the blocks left out" : "",
		 out && m->bp_moved ? " and " : "", m->bp_moved ? "the breakpoints moved" : "",
		 out || m->bp_moved ? ", in every request that has them" : "",
		 m->model_override ? (out || m->bp_moved ? "; every request as " : "every request as ") : "",
		 m->model_override ? m->model_override : "");
	emit_key_str(em, "edits", what);
	emit_key_int(em, "requests_changed", w.changed);
	emit_key_int(em, "read", w.read);
	emit_key_int(em, "read_as_loaded", w.loaded_read);
	emit_key_int(em, "written", w.written);
	emit_key_int(em, "written_as_loaded", w.loaded_written);
	emit_key_int(em, "uncached", w.uncached);
	emit_key_int(em, "uncached_as_loaded", w.loaded_uncached);
	if (w.priced) {
		emit_key_num(em, "input_cost_usd", w.cost);
		emit_key_num(em, "input_cost_usd_as_loaded", w.loaded_cost);
	} else {
		emit_key_str(em, "input_cost_usd", "a model of the log has no price in the table");
	}
	emit_map_end(em);
}

static void emit_sequence(struct emitter *em, const struct source *src, const struct request_model *m,
			  const struct req_counted *counts, const char *note)
{
	long pr = 0, pt = 0, rr = 0, rt = 0, breaks = 0, off = 0, diagnosed = 0, agree = 0, disagree = 0;
	size_t recorded = 0, priced = 0;
	double cost = 0;
	struct facts_memo memo = { NULL, NULL };
	emit_key(em, "sequence");
	emit_map_begin(em);
	emit_key_int(em, "requests", (long long)m->nreqs);
	emit_key(em, "per_request");
	emit_list_begin(em);
	for (size_t k = 0; k < m->nreqs; k++) {
		const struct req_request *r = &m->reqs[k];
		if (em->format == EMIT_TEXT)
			emit_one_line(em, m, k, counts);
		else
			emit_one(em, m, k, counts);
		pr += r->pred_read;
		pt += r->total;
		breaks += r->broke;
		struct req_figures f;
		request_figures_memo(m, k, &f, &memo);
		if (r->recorded) {
			recorded++;
			rr += r->rec_read;
			rt += r->rec_read + r->rec_write + r->rec_uncached;
			off += f.off;
			priced += f.cost >= 0;
			cost += f.cost >= 0 ? f.cost : 0;
		}
		diagnosed += r->rec_miss != NULL;
		agree += f.agrees > 0;
		disagree += f.agrees == 0;
	}
	emit_list_end(em);
	request_emit_whatif(em, src, m);
	if (m->ngroups > 1) {
		emit_key(em, "groups");
		emit_list_begin(em);
		for (size_t g = 0; g < m->ngroups; g++) {
			char line[160];
			snprintf(line, sizeof line, "%c: %.100s, %zu request%s", m->groups[g].mark,
				 m->groups[g].model[0] ? m->groups[g].model : "(no model)", m->groups[g].count,
				 m->groups[g].count == 1 ? "" : "s");
			emit_str(em, line);
		}
		emit_list_end(em);
	}
	if (m->results_from)
		emit_key_str(em, "results_joined_from", m->results_from);
	if (recorded) {
		emit_key_int(em, "recorded_requests", (long long)recorded);
		emit_key_int(em, "recorded_hit_rate_percent", pct(rr, rt));
		if (priced == recorded)
			emit_key_num(em, "recorded_input_cost_usd", cost);
		emit_key_int(em, "predictions_off_by_more_than_10_percent", off);
	} else {
		emit_key_str(em, "recorded_hit_rate_percent", "no usage recorded in this log");
	}
	emit_key_int(em, "predicted_hit_rate_percent", pct(pr, pt));
	emit_key_int(em, "cache_breaks", breaks);
	if (diagnosed) {
		emit_key_int(em, "provider_diagnoses", diagnosed);
		emit_key_int(em, "provider_agrees", agree);
		emit_key_int(em, "provider_disagrees", disagree);
	}
	if (counts)
		request_emit_counted_summary(em, m, counts, note);
	emit_map_end(em);
}

int request_report_extra(const struct source *src, const struct assembly *a, struct emitter *em)
{
	(void)a;
	const struct request_model *m = src->model;
	const struct req_counted_memo *memo;
	struct req_counted_memo *owned;
	struct cs_error err;
	cs_error_clear(&err);
	if (request_counted(src, m, false, &memo, &owned, &err) != CS_OK)
		return CS_ENOMEM;
	emit_cache(em, m, memo->counts);
	if (m->is_log)
		emit_sequence(em, src, m, memo->counts, memo->note);
	request_counted_memo_free(owned);
	return CS_OK;
}

int request_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em)
{
	(void)a;
	const struct request_model *m = src->model;
	const struct req_unit *u = &m->units[src->pieces[piece].kind_index];
	emit_key_str(em, "type", u->type);
	emit_key_str(em, "layer", request_layer_name(u->layer));
	if (u->ttl)
		emit_key_str(em, "cache_control", u->ttl >= 3600 ? "1h" : "5m");
	if (u->image)
		emit_key_str(em, "image_tokens", u->uncounted ? "not counted (size unknown)"
				 : request_providers[m->provider].image_rule);
	return CS_OK;
}

const char *request_piece_note(const struct source *src, long piece)
{
	const struct request_model *m = src->model;
	const struct req_unit *u = &m->units[src->pieces[piece].kind_index];
	if (u->image && u->uncounted)
		return "image: size unknown, its tokens are not counted";
	if (u->unknown)
		return "unknown block type: kept as it is, counted as its JSON";
	for (size_t l = 0; l < m->nlints; l++)
		if (m->lints[l].unit == (long)src->pieces[piece].kind_index)
			return m->lints[l].sentence;
	return NULL;
}

/* recorded.c: the recorded figures first (ctxscope-formats(5) section 6: the recorded one is
 * the truth). Wherever a response recorded its usage, the header, the
 * timeline and the report lead with it: read, written and uncached, the hit
 * rate, the cost at the model's prices (5-minute and 1-hour writes apart),
 * then the prediction beside it with its difference; a prediction more than
 * REQUEST_OFF_PERCENT off is flagged with the request's cause. The
 * provider's own diagnosis (diagnostics.cache_miss_reason) is set beside
 * ctxscope's cause, and whether they agree is counted. */
#include "request.h"

#include "assembly.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long pct(long part, long whole)
{
	return whole > 0 ? (long)floor(100.0 * (double)part / (double)whole + 0.5) : 0;
}

/* Whether the provider's diagnosis and ctxscope's cause say the same: a
 * change in the layer ctxscope found the first difference in, or nothing
 * where ctxscope found nothing broken. -1: not comparable (no diagnosis,
 * the provider could not tell, or it compared with another request than
 * ctxscope did: the one the body named, or one this log does not hold). */
static int agreement(const struct request_model *m, size_t k)
{
	const struct req_request *r = &m->reqs[k];
	const char *t = r->rec_miss;
	if (!t || !strcmp(t, "previous_message_not_found") || !strcmp(t, "unavailable"))
		return -1;
	long with = r->asked_compare ? r->provider_compared : (long)k - 1;
	if (with < 0 && r->asked_compare)
		return -1;
	if (!strcmp(t, "model_changed")) /* ctxscope keeps models apart: a request first of its model */
		return r->compared < 0 && with >= 0 && strcmp(m->reqs[with].model, r->model) != 0;
	if (r->asked_compare && with != r->compared)
		return -1;
	if (!strcmp(t, "none"))
		return !r->broke;
	int layer = r->diff_unit >= 0 ? m->units[r->diff_unit].layer : -1;
	if (!r->broke || layer < 0)
		return 0;
	if (!strcmp(t, "system_changed"))
		return layer == RL_SYSTEM;
	if (!strcmp(t, "tools_changed"))
		return layer == RL_TOOLS;
	if (!strcmp(t, "messages_changed"))
		return layer == RL_HISTORY || layer == RL_CURRENT;
	return -1;
}

void request_figures(const struct request_model *m, size_t k, struct req_figures *f)
{
	struct facts_memo memo = { NULL, NULL };
	request_figures_memo(m, k, f, &memo);
}

void request_figures_memo(const struct request_model *m, size_t k, struct req_figures *f, struct facts_memo *memo)
{
	const struct req_request *r = &m->reqs[k];
	memset(f, 0, sizeof *f);
	f->cost = -1;
	f->written_1h = -1;
	f->agrees = agreement(m, k);
	if (!r->recorded)
		return;
	f->recorded = true;
	f->total = r->rec_read + r->rec_write + r->rec_uncached;
	f->hit_percent = pct(r->rec_read, f->total);
	f->written_1h = r->rec_write_1h >= 0 && r->rec_write_1h <= r->rec_write ? r->rec_write_1h : -1;
	const struct req_model_facts *facts = request_facts_memo(m, memo, r->model);
	bool rate_known;
	double times = request_price_multiplier(r, &rate_known, &f->priced_as);
	if (facts->price_per_mtok >= 0 && rate_known) {
		long w1h = f->written_1h > 0 ? f->written_1h : 0;
		f->cost = times * facts->price_per_mtok *
			  ((double)r->rec_uncached + (double)r->rec_read * facts->read +
			   (double)(r->rec_write - w1h) * facts->write_5m + (double)w1h * facts->write_1h) / 1e6;
	}
	f->web_search_cost = r->rec_web_searches > 0 ? (double)r->rec_web_searches * REQUEST_WEB_SEARCH_USD : 0;
	long diff = labs(r->pred_read - r->rec_read);
	long base = r->rec_read > 0 ? r->rec_read : f->total;
	f->off_percent = pct(diff, base);
	f->off = base > 0 && diff * 100 > base * REQUEST_OFF_PERCENT;
}

const char *request_group_mark(const struct request_model *m, size_t k, char buf[4])
{
	const struct req_request *r = &m->reqs[k];
	if (m->ngroups < 2 || r->group < 0 || (size_t)r->group >= m->ngroups) {
		buf[0] = 0;
		return buf;
	}
	buf[0] = m->groups[r->group].mark;
	buf[1] = 0;
	return buf;
}

static void diagnosis_text(const struct request_model *m, size_t k, const struct req_figures *f, struct strbuf *out)
{
	const struct req_request *r = &m->reqs[k];
	if (!r->rec_miss)
		return;
	sb_printf(out, "; provider: %s", !strcmp(r->rec_miss, "none") ? "no cache miss" : r->rec_miss);
	if (r->rec_missed >= 0) {
		char a[32];
		sb_printf(out, " (%s missed)", fmt_thousands(a, r->rec_missed));
	}
	sb_puts(out, f->agrees > 0 ? ", agrees" : f->agrees == 0 ? ", DISAGREES with ctxscope" : "");
	request_diagnosis_against(r, out);
}

void request_diagnosis_against(const struct req_request *r, struct strbuf *out)
{
	if (!r->rec_miss || !r->asked_compare)
		return;
	if (r->provider_compared < 0)
		sb_puts(out, " (compared with a response this log does not hold)");
	else if (r->provider_compared != r->compared && strcmp(r->rec_miss, "model_changed") != 0) {
		sb_printf(out, " (compared with request %ld, ", r->provider_compared + 1);
		if (r->compared < 0)
			sb_puts(out, "where ctxscope found none before it to compare with)");
		else
			sb_printf(out, "ctxscope with request %ld)", r->compared + 1);
	}
}

int request_resolve_compared(struct request_model *m)
{
	size_t k = 0;
	while (k < m->nreqs && !m->reqs[k].asked_compare)
		k++;
	if (k == m->nreqs) /* none asks: no map */
		return CS_OK;
	struct strmap ids = STRMAP_INIT;
	int rc = CS_OK;
	for (k = 0; k < m->nreqs && rc == CS_OK; k++) {
		struct req_request *r = &m->reqs[k];
		if (r->asked_compare) {
			size_t j = strmap_get(&ids, r->asked_compare, strlen(r->asked_compare));
			r->provider_compared = j == STRMAP_NONE ? -1 : (long)j;
		}
		size_t old;
		if (r->response_id && strmap_put(&ids, r->response_id, strlen(r->response_id), k, &old) != 0)
			rc = CS_ENOMEM;
	}
	strmap_fini(&ids);
	return rc;
}

void request_global_text(const struct req_request *r, struct strbuf *out)
{
	char a[32], b[32];
	sb_printf(out, "%s tokens read of a cache shared across sessions (cache_control scope \"global\" up to %s, "
		  "%s estimated): text this log does not show as sent before, not a miss",
		  fmt_thousands(a, r->global_read), r->global_path ? r->global_path : "?",
		  fmt_thousands(b, r->global_extent));
}

void request_figures_text(const struct request_model *m, size_t k, struct strbuf *out)
{
	const struct req_request *r = &m->reqs[k];
	struct req_figures f;
	request_figures(m, k, &f);
	char a[32], b[32], c[32];
	if (f.recorded) {
		sb_printf(out, "recorded read %s, written %s", fmt_thousands(a, r->rec_read), fmt_thousands(b, r->rec_write));
		if (f.written_1h > 0)
			sb_printf(out, " (1h %s)", fmt_thousands(a, f.written_1h));
		sb_printf(out, ", uncached %s (%ld%% hit", fmt_thousands(c, r->rec_uncached), f.hit_percent);
		if (f.cost >= 0 && f.cost < 0.0001)
			sb_printf(out, ", $%.6f", f.cost);
		else if (f.cost >= 0)
			sb_printf(out, ", $%.4f", f.cost);
		if (f.cost >= 0 && r->rec_write > 0 && f.written_1h < 0 && r->provider == REQ_ANTHROPIC)
			sb_puts(out, ", writes as 5m");
		if (f.priced_as)
			sb_printf(out, ", %s", f.priced_as);
		if (r->rec_web_searches > 0)
			sb_printf(out, "; %ld web search%s, $%.2f", r->rec_web_searches, r->rec_web_searches == 1 ? "" : "es",
				  f.web_search_cost);
		sb_puts(out, ")");
		long d = r->pred_read - r->rec_read;
		sb_printf(out, " · predicted read %s (%s%s)", fmt_thousands(a, r->pred_read), d >= 0 ? "+" : "-",
			  fmt_thousands(b, labs(d)));
		if (f.off)
			sb_printf(out, " OFF BY %ld%%: %s", f.off_percent,
				  r->cause ? r->cause
				  : r->global_read ? "more read than the estimate of what it caches" : "no cause found");
		if (r->global_read) {
			sb_puts(out, "; ");
			request_global_text(r, out);
		}
	} else {
		sb_printf(out, "predicted read %s, written %s, uncached %s (no usage recorded)", fmt_thousands(a, r->pred_read),
			  fmt_thousands(b, r->pred_write), fmt_thousands(c, r->pred_uncached));
	}
	diagnosis_text(m, k, &f, out);
}

void request_step_cache(const struct request_model *m, size_t k, struct step_cache *out)
{
	const struct req_request *r = &m->reqs[k];
	struct req_figures f;
	request_figures(m, k, &f);
	*out = (struct step_cache){ .step = (long)k + 1, .steps = (long)m->nreqs, .rec_total = -1, .rec_cost = -1 };
	if (r->compared >= 0 && (size_t)r->compared < m->nreqs) {
		out->compared = r->compared + 1;
		out->compared_line = m->reqs[r->compared].line;
	}
	out->total = r->total;
	out->read = r->pred_read;
	out->written = r->pred_write;
	out->shared_read = r->global_read;
	out->broke = r->broke;
	out->cause = r->cause;
	if (f.recorded) {
		out->rec_total = f.total;
		out->rec_read = r->rec_read;
		out->rec_written = r->rec_write;
		out->rec_cost = f.cost;
		out->off_percent = f.off_percent;
		out->off = f.off;
	}
}

void request_assembly_step(struct assembly *a, const struct request_model *m)
{
	size_t k = m->current;
	request_step_cache(m, k, &a->step);
	char mark[4];
	if (request_group_mark(m, k, mark)[0])
		a->step.group = arena_printf(&a->arena, "%s (%s)", m->reqs[k].model[0] ? m->reqs[k].model : "no model", mark);
	const struct req_request *r = &m->reqs[k];
	if (r->recorded && a->recorded.input < 0)
		a->recorded = (struct recorded){ .input = r->rec_uncached + r->rec_read + r->rec_write, .read = r->rec_read,
						 .written = r->rec_write,
						 .what = arena_printf(&a->arena, "request %zu", k + 1) };
}

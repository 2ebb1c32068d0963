/* timeline.c: a request log's timeline for the inspector (kind_ops.timeline):
 * one line per request, the usage the response recorded first and the
 * cache predicted (sequence.c) beside it, the group (model and account) a
 * request belongs to when a log mixes them, and the cause where the cache
 * broke or a prediction is far from its record. */
#include "request.h"

#include "base/alloc.h"
#include "kinds/request/counted.h"

#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *count(char buf[32], long v, bool known)
{
	return known && v >= 0 ? fmt_thousands(buf, v) : "-";
}

static void groups_legend(const struct request_model *m, unsigned text_flags, struct strbuf *out)
{
	if (m->ngroups < 2)
		return;
	sb_puts(out, "  groups (a cache each; a request reads only what its own group wrote):");
	for (size_t g = 0; g < m->ngroups; g++) {
		const struct req_group *x = &m->groups[g];
		sb_printf(out, "%s %c ", g ? "," : "", x->mark);
		utf8_sanitize(out, x->model[0] ? x->model : "(no model)", x->model[0] ? strlen(x->model) : 10, text_flags);
		if (x->account) {
			size_t same_model = 0;
			for (size_t h = 0; h < m->ngroups; h++)
				same_model += !strcmp(m->groups[h].model, x->model);
			if (same_model > 1)
				sb_printf(out, " key %04llx", (unsigned long long)(x->account & 0xffff));
		}
		sb_printf(out, " (%zu)", x->count);
	}
	sb_putc(out, '\n');
}

static void notes(const struct request_model *m, size_t i, const struct req_figures *fig, unsigned text_flags,
		  struct strbuf *out)
{
	const struct req_request *r = &m->reqs[i];
	struct req_figures f = *fig;
	if (r->broke && r->cause) {
		sb_printf(out, "        cache broke vs request %ld (line %ld): ", r->compared + 1,
			  r->compared >= 0 ? m->reqs[r->compared].line : 0L);
		utf8_sanitize(out, r->cause, strlen(r->cause), text_flags);
		sb_putc(out, '\n');
	}
	if (f.recorded && f.off) {
		sb_printf(out, "        predicted read OFF BY %ld%% of the recorded: ", f.off_percent);
		const char *why = r->cause ? r->cause : "no cause found in the requests";
		utf8_sanitize(out, why, strlen(why), text_flags);
		sb_putc(out, '\n');
	}
	if (r->rec_miss && strcmp(r->rec_miss, "none")) {
		sb_puts(out, "        provider says: ");
		utf8_sanitize(out, r->rec_miss, strlen(r->rec_miss), text_flags);
		if (r->rec_missed >= 0)
			sb_printf(out, ", %ld tokens missed", r->rec_missed);
		request_diagnosis_against(r, out);
		sb_puts(out, f.agrees > 0 ? " (agrees)\n" : f.agrees == 0 ? " (ctxscope found otherwise)\n" : "\n");
	}
}

int request_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err)
{
	const struct request_model *m = src->model;
	size_t broke = 0, recorded = 0;
	for (size_t i = 0; i < m->nreqs; i++) {
		broke += m->reqs[i].broke;
		recorded += m->reqs[i].recorded;
	}
	sb_printf(out, "%zu request%s, %zu with recorded usage, %zu where the cache broke; recorded first, predicted "
		       "(estimated tokens) beside\n", m->nreqs, m->nreqs == 1 ? "" : "s", recorded, broke);
	sb_puts(out, "  predicted: each request against the earlier ones of its own model, under its provider's cache\n");
	groups_legend(m, text_flags, out);
	/* each request counted whole (counted.h): from its body for a log,
	 * from its blocks for a Claude Code session */
	const struct req_counted_memo *cmemo;
	struct req_counted_memo *owned;
	bool transcript = m->transcript_only;
	int rc = request_counted(src, m, transcript, &cmemo, &owned, err);
	if (rc != CS_OK)
		return rc;
	const struct req_counted *counts = cmemo->counts;
	request_counted_sentence(out, m, counts, transcript, cmemo->note);
	if (m->edited) { /* what-if: the edits reach every request */
		struct request_whatif w;
		request_whatif_totals(m, &w);
		struct strbuf more = STRBUF_INIT; /* the log's totals; none for a single request */
		request_whatif_sentence(src, &more);
		sb_printf(out, "  what-if, with your edits: %ld of %zu request%s change%s%s%s\n", w.changed, m->nreqs,
			  m->nreqs == 1 ? "" : "s", m->nreqs == 1 ? "s" : "", more.len ? "; " : "", sb_str(&more));
		if (more.failed)
			out->failed = true;
		sb_fini(&more);
	}
	sb_putc(out, '\n');
	sb_puts(out, "                        | recorded                          | predicted\n");
	sb_printf(out, "   #    line g   tokens |     read  written uncached   hit |     read  written   off"
		       "             counted %s\n", transcript ? "not in file" : "vs rec.");
	struct facts_memo memo = { NULL, NULL };
	for (size_t i = 0; i < m->nreqs; i++) {
		const struct req_request *r = &m->reqs[i];
		struct req_figures f;
		request_figures_memo(m, i, &f, &memo);
		char a[32], b[32], c[32], d[32], e[32], g[32], mark[4], hit[8], off[12];
		if (step_at)
			step_at[i] = out->len;
		snprintf(hit, sizeof hit, "%ld%%", f.hit_percent);
		snprintf(off, sizeof off, "%s%ld%%", f.off ? "!" : "", f.off_percent);
		if (!f.recorded)
			strcpy(hit, "-"), strcpy(off, "-");
		request_group_mark(m, i, mark);
		/* the marker before the counted cells: a narrow screen cuts those first */
		sb_printf(out, "  %3zu %6ld %1s %8s | %8s %8s %8s %5s | %8s %8s %5s%s", i + 1, r->line, mark,
			  count(a, r->total, true), count(b, r->rec_read, r->recorded), count(c, r->rec_write, r->recorded),
			  count(d, r->rec_uncached, r->recorded), hit, count(e, r->pred_read, true),
			  count(g, r->pred_write, true), off, i == m->current ? "   (shown)" : "          ");
		request_counted_cell(out, m, i, counts, transcript, (text_flags & UTF8_ASCII) != 0);
		sb_putc(out, '\n');
		notes(m, i, &f, text_flags, out);
	}
	request_counted_memo_free(owned);
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

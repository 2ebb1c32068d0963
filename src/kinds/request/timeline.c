/* timeline.c: a request log's timeline for the inspector (kind_ops.timeline):
 * one line per request, the cache predicted (sequence.c) beside the usage
 * the response recorded, and the cause where the cache broke. */
#include "request.h"

#include "base/alloc.h"
#include "kinds/request/counted.h"

#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <string.h>

static const char *count(char buf[32], long v, bool known)
{
	return known && v >= 0 ? fmt_thousands(buf, v) : "-";
}

int request_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err)
{
	const struct request_model *m = src->model;
	size_t broke = 0;
	for (size_t i = 0; i < m->nreqs; i++)
		broke += m->reqs[i].broke;
	sb_printf(out, "%zu request%s, %zu where the cache broke; predicted (estimated tokens) beside recorded\n",
		  m->nreqs, m->nreqs == 1 ? "" : "s", broke);
	sb_puts(out, "  predicted: each request sent after the ones before it, under its provider's cache\n");
	/* each request counted whole (counted.h): from its body for a log,
	 * from its blocks for a Claude Code session */
	const struct req_counted_memo *memo;
	struct req_counted_memo *owned;
	bool transcript = src->kind != &anthropic_kind && src->kind != &openai_kind;
	int rc = request_counted(src, m, transcript, &memo, &owned, err);
	if (rc != CS_OK)
		return rc;
	const struct req_counted *counts = memo->counts;
	request_counted_sentence(out, m, counts, transcript, memo->note);
	if (m->edited) { /* what-if: the edits reach every request */
		struct request_whatif w;
		request_whatif_totals(m, &w);
		sb_printf(out, "  what-if, with your edits: %ld of %zu requests change; ", w.changed, m->nreqs);
		request_whatif_sentence(src, out);
		sb_putc(out, '\n');
	}
	sb_putc(out, '\n');
	sb_printf(out, "   #    line   tokens    read  written  |  recorded read  written  uncached              counted  %s\n",
		  transcript ? "not in file" : "vs rec.");
	for (size_t i = 0; i < m->nreqs; i++) {
		const struct req_request *r = &m->reqs[i];
		char a[32], b[32], c[32], d[32], e[32], f[32];
		if (step_at)
			step_at[i] = out->len;
		/* the marker before the counted cells: a narrow screen cuts those first */
		sb_printf(out, "  %3zu %6ld %8s %7s %8s  | %14s %8s %9s%s", i + 1, r->line, count(a, r->total, true),
			  count(b, r->pred_read, true), count(c, r->pred_write, true), count(d, r->rec_read, r->recorded),
			  count(e, r->rec_write, r->recorded), count(f, r->rec_uncached, r->recorded),
			  i == m->current ? "   (shown)" : "          ");
		request_counted_cell(out, m, i, counts, transcript, (text_flags & UTF8_ASCII) != 0);
		sb_putc(out, '\n');
		if (r->broke && r->cause) {
			sb_puts(out, "        cache broke: ");
			utf8_sanitize(out, r->cause, strlen(r->cause), text_flags);
			sb_putc(out, '\n');
		}
	}
	request_counted_memo_free(owned);
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

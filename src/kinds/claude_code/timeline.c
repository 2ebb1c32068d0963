/* timeline.c: a session's timeline (kind_ops.timeline): the request kinds'
 * table of requests, what the record says that the table takes from it
 * (the entries' lifetime, the first request's global read), then the
 * subagent files beside the session, apart. */
#include "claude_code.h"

#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <string.h>

/* The facts the predictions take from the record (ctxscope-formats(5) section 7b). */
static void record_notes(const struct cc_model *m, struct strbuf *out)
{
	char n[32];
	sb_printf(out, "\n  cache entries live %s: %s\n", m->session_ttl >= 3600 ? "1 hour" : "5 minutes",
		  m->ttl_recorded ? "as the writes record it (usage.cache_creation)"
				  : "assumed (the session records no split of its writes)");
	const struct cc_req *c = &m->creqs[m->first_replayed];
	if (c->global_read)
		sb_printf(out, "  request 1 read %s tokens of Claude Code's system prompt, cached across sessions: text "
			  "the file does not hold, not a miss\n", fmt_thousands(n, c->global_read));
}

int cc_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err)
{
	int rc = request_timeline_text(src, text_flags, out, step_at, err);
	if (rc == CS_OK && ((const struct cc_model *)src->model)->req.nreqs)
		record_notes(src->model, out);
	struct cc_subagents list;
	if (rc == CS_OK && cc_subagents(src, &list) != CS_OK)
		return cs_error_nomem(err);
	if (rc != CS_OK)
		return rc;
	if (list.n || list.more)
		sb_printf(out, "\n  subagent files beside the session (apart: never in these prompts; open one on its own)\n");
	for (size_t i = 0; i < list.n; i++) {
		const struct cc_subagent *a = &list.items[i];
		char x[32], y[32], z[32];
		sb_puts(out, "    ");
		utf8_sanitize(out, a->name, strlen(a->name), text_flags);
		if (a->unreadable)
			sb_printf(out, ": %s\n", a->why[0] ? a->why : "could not be read");
		else
			sb_printf(out, "%s: %ld request%s, recorded input %s (%s read), output %s%s\n",
				  a->this_session ? "" : " (another session's)", a->requests, a->requests == 1 ? "" : "s",
				  fmt_thousands(x, a->in + a->cache_read + a->cache_write), fmt_thousands(y, a->cache_read),
				  fmt_thousands(z, a->out), a->bad_counts ? " (some usage values are not counts)" : "");
	}
	if (list.more)
		sb_printf(out, "    and %ld more\n", list.more);
	cc_subagents_fini(&list);
	return out->failed ? cs_error_nomem(err) : CS_OK;
}

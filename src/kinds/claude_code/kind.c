/* kind.c: the claude-code kind's table (kind.h). */
#include "claude_code.h"

#include "setting.h"
#include "source.h"

#include <stddef.h>

/* request N: the request to open (1-based, in file order), or "last": the
 * last one on the main chain. The pieces stay; the assembly follows. */
static int set_request(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct cc_model *m = src->model;
	struct setting_value v;
	int rc = setting_parse(s, text, NULL, &v, err);
	if (rc != CS_OK)
		return rc;
	long want = (long)v.number;
	if (want > (long)m->req.nreqs)
		return cs_error_set(err, CS_EUSAGE, "request %s: this session has %zu request%s", text, m->req.nreqs,
				    m->req.nreqs == 1 ? "" : "s");
	if (want >= 1 && (size_t)want <= m->first_replayed)
		return cs_error_set(err, CS_EUSAGE, "request %s: only requests %zu to %zu are replayed (a session this "
				    "long is replayed from its end)", text, m->first_replayed + 1, m->req.nreqs);
	long old = m->want_request;
	m->want_request = want;
	rc = cc_select(src, cc_current_request(m), err);
	if (rc != CS_OK)
		m->want_request = old;
	return rc;
}

static const struct setting cc_settings[] = {
	{ .name = "request", .type = SETTING_INT, .arg = "N", .min = 1, .max = CC_MAX_LINES, .unset = "last",
	  .def = "last", .help = "the request to open, 1 for the first; last: the last one on the main chain",
	  SETTING_FIELD(SETTING_IN_MODEL, struct cc_model, want_request), .set = set_request },
	{ .name = NULL },
};

static size_t cc_count(const struct source *src)
{
	return ((const struct cc_model *)src->model)->req.nreqs;
}

static size_t cc_current(const struct source *src)
{
	return ((const struct cc_model *)src->model)->req.current;
}

static void cc_reach(const struct source *src, size_t *first, size_t *last)
{
	const struct cc_model *m = src->model;
	*first = m->first_replayed; /* the requests before it are not replayed */
	*last = m->req.nreqs ? m->req.nreqs - 1 : 0;
}

/* [ ] walk the session's requests, the setting `request` picking one. */
static const struct kind_sequence cc_sequence = {
	.noun = "request", .setting = "request", .count = cc_count, .current = cc_current, .reach = cc_reach,
};

static const char *const cc_sort_keys[] = { "order", "tokens", NULL };

const struct kind_ops claude_code_kind = {
	.name = "claude-code",
	.title = "Claude Code session",
	.id_key = "path",
	.sort_keys = cc_sort_keys,
	.settings = cc_settings,
	.load = cc_load,
	.assemble = cc_assemble,
	.free_model = cc_model_free,
	.report_extra = cc_report_extra,
	.timeline = request_timeline_text, /* its model starts with the request kinds' */
	.report_piece = cc_report_piece,
	.detect = cc_detect,
	.sequence = &cc_sequence,
	.detect_hint = "JSONL lines with \"type\", \"uuid\" and \"sessionId\"",
};

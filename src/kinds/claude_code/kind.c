/* kind.c: the claude-code kind's table (kind.h). */
#include "claude_code.h"

#include "source.h"

#include <stddef.h>

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

/* A request's cache group (the session's models): request_step_group. */
static const char *cc_group(const struct source *src, size_t step, char *buf, size_t size)
{
	const struct cc_model *m = src->model;
	return request_step_group(&m->req, step, buf, size);
}

/* [ ] walk the session's requests of the shown one's group, { } all of
 * them, the setting `request` picking one. */
static const struct kind_sequence cc_sequence = {
	.noun = "request", .setting = "request", .count = cc_count, .current = cc_current, .reach = cc_reach,
	.group = cc_group,
};

/* Every request goes to Anthropic: its model's figures over that profile. */
static const char *cc_cache_tune(const struct source *src, struct cache_profile *p)
{
	const struct cc_model *m = src->model;
	return request_cache_tune(&m->req, "anthropic", p);
}

static const char *const cc_sort_keys[] = { "order", "tokens", NULL };

const struct kind_ops claude_code_kind = {
	.name = "claude-code",
	.title = "Claude Code session",
	.id_key = "path",
	.sort_keys = cc_sort_keys,
	.settings = request_settings, /* request N, as a request log's */
	.load = cc_load,
	.assemble = cc_assemble,
	.free_model = cc_model_free,
	.report_extra = cc_report_extra,
	.timeline = cc_timeline_text, /* the request kinds' table, then the subagent files */
	.report_piece = cc_report_piece,
	.detect = cc_detect,
	.sequence = &cc_sequence,
	.edited = cc_edited,
	.breakpoints_edited = cc_breakpoints_edited,
	.cache_tune = cc_cache_tune,
	.edit_effect = request_whatif_sentence,
	.detect_hint = "JSONL lines with \"type\", \"uuid\" and \"sessionId\"",
};

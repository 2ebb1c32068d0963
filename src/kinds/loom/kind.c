/* kind.c: the loom tree's table: its operations, its settings and the keys
 * its piece list sorts by. The loader (load.c) only parses. */
#include "loom_priv.h"

#include "setting.h"

#include <stdint.h>

#include <stddef.h>

/* replay N: the request that produced the path's Nth model node,
 * replayed (the path up to its parent); N + 1 past the last, or "next":
 * the whole path, the request the app would send next. */
static int set_request(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct loom *m = src->model;
	struct setting_value v;
	int rc = setting_parse(s, text, NULL, &v, err);
	if (rc != CS_OK)
		return rc;
	long want = (long)v.number;
	size_t pos = SIZE_MAX, n = loom_model_node(src, want > 0 ? (size_t)want - 1 : SIZE_MAX, &pos, NULL);
	if (want > (long)n + 1)
		return cs_error_set(err, CS_EUSAGE, "the path has %zu model node%s (requests 1 to %zu; %zu "
				    "or next: the next request)", n, n == 1 ? "" : "s", n, n + 1);
	m->want_request = want > (long)n ? -1 : want;
	m->replay_pos = m->want_request > 0 ? pos : SIZE_MAX;
	return CS_OK;
}

static size_t loom_steps(const struct source *src)
{
	return loom_model_node(src, SIZE_MAX, NULL, NULL) + 1;
}

static size_t loom_step(const struct source *src)
{
	const struct loom *m = src->model;
	return m->want_request > 0 ? (size_t)m->want_request - 1 : loom_steps(src) - 1;
}

/* [ ] walk the requests of the path: each model node's, then the next. */
static const struct kind_sequence loom_sequence = {
	.noun = "request", .setting = "replay", .count = loom_steps, .current = loom_step,
};

static const struct setting loom_settings[] = {
	{ .name = "min-recent", .type = SETTING_INT, .min = 0, .max = 1000000000, .unset = "input",
	  .help = "path nodes truncateMiddle keeps after the first message (counted before merging); input: the tree's",
	  SETTING_FIELD(SETTING_IN_MODEL, struct loom, min_recent_override) },
	{ .name = "loom-aware", .type = SETTING_BOOL, .def = "false",
	  .help = "Aspen Grove's loom-aware node headers, Loom Context block, operational memory and system addendum, their tokens counted",
	  SETTING_FIELD(SETTING_IN_MODEL, struct loom, loom_aware) },
	{ .name = "replay", .type = SETTING_INT, .arg = "N", .min = 1, .max = LOOM_MAX_NODES + 1, .unset = "next",
	  .def = "next", .help = "the request that produced the path's Nth model node, replayed; next: the whole path",
	  SETTING_FIELD(SETTING_IN_MODEL, struct loom, want_request), .set = set_request },
	{ .name = NULL },
};

static const char *const loom_keys[] = { "nodes", "edges", NULL };
static const int loom_strategies[] = { STRAT_TRUNCATE_MIDDLE, STRAT_ROLLING_WINDOW, STRAT_STOP_AT_LIMIT, STRAT_NONE };
static const char *const loom_sort_keys[] = { "order", "tokens", NULL };

/* L: the seed's loom-aware rendering, on and off. */
static const struct kind_action loom_actions[] = {
	{ .key = "L", .name = "loom-aware", .help = "toggle loom-aware rendering (node headers, operational memory), re-assemble",
	  .what = KIND_ACTION_TOGGLE, .option = "loom-aware" },
	{ .key = NULL },
};

const struct kind_ops loom_kind = {
	.name = "loom",
	.title = "loom tree",
	.id_key = "node",
	.json_keys = loom_keys,
	.extensions = NULL,
	.settings = loom_settings,
	.piece_strategies = NULL,
	.global_strategies = loom_strategies,
	.sort_keys = loom_sort_keys,
	.actions = loom_actions,
	.load = loom_load,
	.assemble = loom_assemble,
	.free_model = loom_free_model,
	.report_extra = loom_report_extra,
	.piece_note = loom_piece_note,
	.piece_column = loom_piece_column,
	.column_title = "recorded   gap%",
	.report_piece = loom_report_piece,
	.timeline = loom_timeline_text,
	.timeline_title = "each model node's request replayed beside the prompt tokens recorded",
	.sequence = &loom_sequence,
};

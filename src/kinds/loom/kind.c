/* kind.c: the loom tree's table: its operations, its settings and the keys
 * its piece list sorts by. The loader (load.c) only parses. */
#include "loom_priv.h"

#include "setting.h"

#include <stddef.h>

static const struct setting loom_settings[] = {
	{ .name = "min-recent", .type = SETTING_INT, .min = 0, .max = 1000000000, .unset = "input",
	  .help = "path nodes truncateMiddle keeps after the first message (counted before merging); input: the tree's",
	  SETTING_FIELD(SETTING_IN_MODEL, struct loom, min_recent_override) },
	{ .name = "loom-aware", .type = SETTING_BOOL, .def = "false",
	  .help = "Aspen Grove's loom-aware node headers and Loom Context block, their tokens counted",
	  SETTING_FIELD(SETTING_IN_MODEL, struct loom, loom_aware) },
	{ .name = NULL },
};

static const char *const loom_keys[] = { "nodes", "edges", NULL };
static const int loom_strategies[] = { STRAT_TRUNCATE_MIDDLE, STRAT_ROLLING_WINDOW, STRAT_STOP_AT_LIMIT, STRAT_NONE };
static const char *const loom_sort_keys[] = { "order", "tokens", NULL };

/* L: the seed's loom-aware rendering, on and off. */
static const struct kind_action loom_actions[] = {
	{ .key = "L", .name = "loom-aware", .help = "toggle loom-aware rendering (node headers), re-assemble",
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
	.free_model = loom_free,
	.report_extra = NULL,
	.report_piece = loom_report_piece,
};

/* kind.c: the working-set manifest's table: its operations, its settings and
 * the keys its piece list sorts by. The loader (load.c) only parses. */
#include "manifest.h"
#include "save.h"

#include "kind.h"
#include "setting.h"
#include "source.h"

#include <stddef.h>

static const struct setting manifest_settings[] = {
	{ .name = "boot-header", .type = SETTING_BOOL, .def = "false",
	  .help = "render the working-set protocol's boot header first, as its own layer (counted in the budget)",
	  SETTING_FIELD(SETTING_IN_MODEL, struct manifest, boot_header) },
	{ .name = NULL },
};

static const char *const manifest_extensions[] = { ".yml", ".yaml", NULL };
static const int manifest_strategies[] = { STRAT_NEVER, STRAT_START, STRAT_MIDDLE, STRAT_END, STRAT_NONE };
static const char *const manifest_sort_keys[] = { "order", "tokens", "priority", NULL };

/* The inspector's `w`: the edits spliced into the file (save.h). */
static int manifest_save_edits(struct source *src, const char *as, const struct atomic_write_options *opt,
			       struct kind_save_result *res, struct cs_error *err)
{
	struct manifest_save_result r = { 0 };
	int rc = manifest_save(src, as, opt, &r, err);
	*res = (struct kind_save_result){
		.written = r.written, .values = r.values, .removed = r.removed, .write = r.write
	};
	return rc;
}

const struct kind_ops manifest_kind = {
	.name = "manifest",
	.title = "working-set manifest",
	.id_key = "path",
	.json_keys = NULL,
	.extensions = manifest_extensions,
	.settings = manifest_settings,
	.piece_strategies = manifest_strategies,
	.global_strategies = NULL,
	.sort_keys = manifest_sort_keys,
	.load = manifest_load,
	.assemble = manifest_assemble,
	.free_model = manifest_free,
	.report_extra = NULL,
	.report_piece = manifest_report_piece,
	.piece_note = manifest_piece_note,
	.piece_column = manifest_piece_column,
	.column_title = "prio strategy",
	.column_sort = "priority",
	.save = manifest_save_edits,
	.save_command = manifest_save_command,
};

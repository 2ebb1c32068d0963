/* kind.c: the claude-code kind's table (kind.h). */
#include "claude_code.h"

static const char *const cc_sort_keys[] = { "order", "tokens", NULL };

const struct kind_ops claude_code_kind = {
	.name = "claude-code",
	.title = "Claude Code session",
	.id_key = "path",
	.sort_keys = cc_sort_keys,
	.load = cc_load,
	.assemble = cc_assemble,
	.free_model = cc_model_free,
	.report_extra = cc_report_extra,
	.report_piece = request_report_piece,
	.piece_note = request_piece_note,
	.detect = cc_detect,
	.detect_hint = "JSONL lines with \"type\", \"uuid\" and \"sessionId\"",
};

/* kind.c: the ledger's table: its operations, its settings and the keys its
 * piece list sorts by. The loaders (load.c for an export, db.c for agents.db)
 * only parse. */
#include "ledger.h"

#include "db.h"

#include "base/arena.h"
#include "kind.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"

#include <stddef.h>
#include <string.h>

/* session LABEL: must name a session of the ledger; "" is the default. */
static int set_session(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	(void)s;
	struct ledger *l = src->model;
	const char *copy = text[0] ? arena_strdup(&src->arena, text) : NULL;
	if (text[0] && !copy)
		return cs_error_nomem(err);
	const char *old = l->session;
	l->session = copy;
	if (copy && ledger_pick_session(l, err) < 0) {
		l->session = old;
		return CS_EUSAGE;
	}
	return CS_OK;
}

/* The session in effect: the one named, else the one the default picks
 * (so that a change reads "session main -> fork", and undoing it names it). */
static void get_session(const struct source *src, const struct setting *s, struct strbuf *out)
{
	(void)s;
	const struct ledger *l = src->model;
	if (l->session) {
		sb_puts(out, l->session);
		return;
	}
	struct cs_error ignored;
	cs_error_clear(&ignored);
	long i = ledger_pick_session(l, &ignored);
	sb_puts(out, i >= 0 ? l->sessions[i].label : "");
}

/* turn ID: a turn of the ledger; "" or "head": the session head. */
static int set_turn(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	(void)s;
	struct ledger *l = src->model;
	if (!text[0] || !strcmp(text, "head")) {
		l->turn = NULL;
		return CS_OK;
	}
	if (ledger_turn_index(l, text) < 0)
		return cs_error_set(err, CS_EUSAGE, "no turn \"%s\" in this ledger", text);
	l->turn = arena_strdup(&src->arena, text);
	return l->turn ? CS_OK : cs_error_nomem(err);
}

static void get_turn(const struct source *src, const struct setting *s, struct strbuf *out)
{
	(void)s;
	const struct ledger *l = src->model;
	sb_puts(out, l->turn ? l->turn : "head");
}

/* next: a switch, on only with an assembly.event to assemble. */
static int set_next(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct ledger *l = src->model;
	struct setting_value v;
	int rc = setting_parse(s, text, NULL, &v, err);
	if (rc != CS_OK)
		return rc;
	if (v.on && l->event < 0)
		return cs_error_set(err, CS_EUSAGE, "next needs an assembly.event in the ledger export (none given)");
	l->next = v.on;
	return CS_OK;
}

static const char *const compaction_rules[] = { "first-kept", "after-only", NULL }; /* enum ledger_rule */
static const char *const summary_roles[] = { "user", "system", NULL };             /* summary_system */

static const struct setting ledger_settings[] = {
	{ .name = "session", .type = SETTING_TEXT, .arg = "LABEL",
	  .help = "the session to assemble (default: assembly.session, the only active one, else main)",
	  .set = set_session, .get = get_session },
	{ .name = "turn", .type = SETTING_TEXT, .arg = "ID",
	  .help = "replay the context as sent for this turn (default: the session head)",
	  .set = set_turn, .get = get_turn },
	{ .name = "next", .type = SETTING_BOOL, .def = "false",
	  .help = "assemble the hypothetical next turn with assembly.event instead of replaying",
	  SETTING_FIELD(SETTING_IN_MODEL, struct ledger, next), .set = set_next },
	{ .name = "compaction-rule", .type = SETTING_ENUM, .arg = "R", .choices = compaction_rules, .def = "first-kept",
	  .help = "first-kept (ctxscope-formats(5) decision: keep from first_kept_turn_id) or after-only (the Nexus broker's spec)",
	  SETTING_FIELD(SETTING_IN_MODEL, struct ledger, rule) },
	{ .name = "summary-role", .type = SETTING_ENUM, .arg = "R", .choices = summary_roles, .def = "user",
	  .help = "user (the Nexus broker's spec, with the [Previous conversation summary] marker) or system (its early draft)",
	  SETTING_FIELD(SETTING_IN_MODEL, struct ledger, summary_system) },
	{ .name = NULL },
};

static const char *const ledger_json_keys[] = { "turns", NULL };
static const char *const ledger_sort_keys[] = { "order", "tokens", NULL };

/* A: the compaction rules, in turn. */
static const struct kind_action ledger_actions[] = {
	{ .key = "A", .name = "compaction-rule", .help = "cycle the compaction rule (first-kept, after-only), re-assemble",
	  .what = KIND_ACTION_CYCLE, .option = "compaction-rule" },
	{ .key = NULL },
};

const struct kind_ops ledger_kind = {
	.name = "ledger",
	.title = "ledger export",
	.id_key = "message",
	.json_keys = ledger_json_keys,
	.extensions = NULL,
	.settings = ledger_settings,
	.piece_strategies = NULL,
	.global_strategies = NULL,
	.sort_keys = ledger_sort_keys,
	.actions = ledger_actions,
	.load = ledger_load,
	.assemble = ledger_assemble,
	.free_model = ledger_free_model,
	.report_extra = ledger_report_extra,
	.report_piece = ledger_report_piece,
	.piece_column = ledger_piece_column,
	.column_title = "recorded",
	.sniff = ledger_db_sniff,
	.load_path = ledger_load_db,
	.timeline = ledger_timeline_text,
};

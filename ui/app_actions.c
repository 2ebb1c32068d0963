/* app_actions.c: the actions that mean the same whatever view is on top
 * (tig's way): app_key hands a key down the view stack first, and only
 * when every view declined it comes here. A view handles what is its own
 * (the list: moving, opening, the selected piece's edits; the help: its
 * scrolling); what opens another view, edits the whole assembly or the
 * session, or leaves is one line in this table. Then a key of the kind's
 * own (kind_ops.actions), else a word that the key does nothing here. */
#include "app_priv.h"

#include "kind.h"

/* Each returns enum view_result flags beyond HANDLED | REDRAW | RELAYOUT. */
typedef unsigned (*app_action_fn)(struct app *app, int act, struct cs_error *err);

static unsigned budget(struct app *app, int act, struct cs_error *err)
{
	(void)act, (void)err;
	app_input_start(app, INPUT_BUDGET, NULL);
	return 0;
}

static unsigned search(struct app *app, int act, struct cs_error *err)
{
	(void)err;
	app_input_start(app, act == ACT_SEARCH ? INPUT_SEARCH : act == ACT_FILTER ? INPUT_FILTER
					  : act == ACT_EXPORT ? INPUT_EXPORT : INPUT_COMMAND, NULL);
	return 0;
}

static unsigned step(struct app *app, int act, struct cs_error *err)
{
	struct vm *vm = &app->vm;
	switch (act) {
	case ACT_GLOBAL_STRATEGY: vm_cycle_strategy(vm, true, err); break;
	case ACT_BASELINE: vm_pin_baseline(vm, err); break;
	case ACT_PROFILE: vm_cycle_profile(vm, err); break;
	case ACT_SEQ_PREV:
	case ACT_SEQ_NEXT: vm_step_in_group(vm, act == ACT_SEQ_PREV ? -1 : 1, err); break;
	case ACT_SEQ_PREV_ANY:
	case ACT_SEQ_NEXT_ANY: vm_step_sequence(vm, act == ACT_SEQ_PREV_ANY ? -1 : 1, err); break;
	case ACT_UNDO: vm_undo(vm, err); break;
	case ACT_REDO: vm_redo(vm, err); break;
	default: break;
	}
	return 0;
}

static unsigned toggle(struct app *app, int act, struct cs_error *err)
{
	(void)err;
	struct vm *vm = &app->vm;
	switch (act) {
	case ACT_SORT: vm_cycle_sort(vm); break;
	case ACT_SHOW_DROPPED: vm_toggle_dropped(vm); break;
	case ACT_LAYERS: vm_cycle_grouping(vm); break;
	case ACT_BAR_SCALE: vm_cycle_bar_scale(vm); break;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV: vm_search_step(vm, act == ACT_SEARCH_PREV); break;
	case ACT_FILTER_INVERT: vm_invert_filter(vm); break;
	default: break;
	}
	return 0;
}

static unsigned open_view(struct app *app, int act, struct cs_error *err)
{
	(void)err;
	switch (act) {
	case ACT_HELP: app_view_push(app, &view_help); break;
	case ACT_SETTINGS: app_toggle_panel(app); break;
	case ACT_PROMPT_VIEW: app_toggle_prompt_view(app); break;
	case ACT_DIFF: app_toggle_diff_view(app); break;
	case ACT_TIMELINE: app_toggle_timeline_view(app); break;
	default: break;
	}
	return 0;
}

static unsigned file(struct app *app, int act, struct cs_error *err)
{
	(void)err;
	if (act == ACT_RELOAD)
		app_reload(app, false);
	else
		app_save(app, NULL);
	return 0;
}

static unsigned quit(struct app *app, int act, struct cs_error *err)
{
	(void)act, (void)err;
	return app_quit(app, false) ? VIEW_QUIT : 0;
}

/* The table: an action, what does it. */
static const struct app_action {
	int act;
	app_action_fn run;
} app_actions[] = {
	{ ACT_BUDGET, budget },        { ACT_SEARCH, search },         { ACT_FILTER, search },
	{ ACT_EXPORT, search },        { ACT_COMMAND, search },        { ACT_GLOBAL_STRATEGY, step },
	{ ACT_BASELINE, step },        { ACT_PROFILE, step },          { ACT_SEQ_PREV, step },
	{ ACT_SEQ_NEXT, step },        { ACT_SEQ_PREV_ANY, step },     { ACT_SEQ_NEXT_ANY, step },
	{ ACT_UNDO, step },            { ACT_REDO, step },
	{ ACT_SORT, toggle },          { ACT_SHOW_DROPPED, toggle },   { ACT_LAYERS, toggle },
	{ ACT_BAR_SCALE, toggle },     { ACT_SEARCH_NEXT, toggle },    { ACT_SEARCH_PREV, toggle },
	{ ACT_FILTER_INVERT, toggle }, { ACT_HELP, open_view },        { ACT_SETTINGS, open_view },
	{ ACT_PROMPT_VIEW, open_view }, { ACT_DIFF, open_view },       { ACT_TIMELINE, open_view },
	{ ACT_RELOAD, file },          { ACT_SAVE, file },             { ACT_QUIT, quit },
};

/* A key of the kind's own (kind_ops.actions), or one bound to nothing. */
static void kind_key(struct app *app, int key, struct cs_error *err)
{
	struct vm *vm = &app->vm;
	const struct kind_action *ka = kind_action_for_key(vm->session.src->kind, key);
	char name[32];
	if (ka && ka->what == KIND_ACTION_TOGGLE)
		vm_toggle_option(vm, ka->option, err);
	else if (ka)
		vm_cycle_option(vm, ka->option, err);
	else if (cskey_name(key, name, sizeof name))
		vm_status(vm, false, "%s does nothing here; ? lists the keys", name);
}

unsigned app_global_action(struct app *app, int key, int act)
{
	struct cs_error err;
	cs_error_clear(&err);
	unsigned done = VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
	for (size_t i = 0; i < sizeof app_actions / sizeof *app_actions; i++)
		if (app_actions[i].act == act)
			return done | app_actions[i].run(app, act, &err);
	kind_key(app, key, &err);
	return done;
}

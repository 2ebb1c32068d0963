/* app_commands.c: the inspector's save, export and command line (:). */
#include "app_priv.h"

#include "atomic_write.h"
#include "cache.h"
#include "command.h"
#include "export.h"
#include "kind.h"
#include "whatif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- save, export, commands ----------------------------------------------------------- */

/* A kind that rewrites its own file (kind_ops.save, a manifest): in place
 * (or to `as`); a file changed on disk asks for a save-as name. */
static void save_in_place(struct app *app, const char *as)
{
	struct vm *vm = &app->vm;
	struct kind_save_result res = { 0 };
	struct cs_error err;
	cs_error_clear(&err);
	int rc = vm->src->kind->save(vm->src, as && as[0] ? as : NULL, &res, &err);
	const char *path = as && as[0] ? as : vm->src->path;
	if (rc == CS_ESTATE) {
		char def[APP_PROMPT_MAX];
		snprintf(def, sizeof def, "%s.new", vm->src->path);
		app_input_start(app, INPUT_SAVE_AS, def);
		vm_status(vm, true, "%s changed on disk since it was loaded: not overwritten", vm->src->path);
		return;
	}
	if (rc != CS_OK)
		vm_status(vm, true, "not saved: %s", err.message);
	else if (!res.written)
		vm_status(vm, false, "nothing to save: %s already holds these values", path);
	else
		vm_status(vm, false, "saved %s: %zu value%s changed, %zu entr%s removed%s", path, res.values,
			  res.values == 1 ? "" : "s", res.removed, res.removed == 1 ? "y" : "ies",
			  as && as[0] ? "" : " (the previous file kept as .bak)");
}

/* Loom trees and ledgers: the edits as a what-if file at `path`. */
static void save_whatif(struct app *app, const char *path)
{
	struct vm *vm = &app->vm;
	size_t n;
	const struct edit *edits = history_edits(&vm->hist, &n);
	struct strbuf out = STRBUF_INIT;
	struct cs_error err;
	cs_error_clear(&err);
	struct atomic_write_options opt = { .backup = false };
	if (!path[0])
		vm_status(vm, true, "not saved: no file name");
	else if (whatif_render(vm->src, edits, n, &out) != CS_OK || out.failed)
		vm_status(vm, true, "not saved: out of memory");
	else if (strcmp(path, vm->src->path) == 0)
		vm_status(vm, true, "not saved: a what-if file never replaces the input itself");
	else if (atomic_write(path, sb_str(&out), out.len, &opt, &err) != CS_OK)
		vm_status(vm, true, "not saved: %s", err.message);
	else
		vm_status(vm, false, "wrote %zu edit%s to %s; reapply with: ctxscope %s --edits %s", n, n == 1 ? "" : "s",
			  path, vm->src->path, path);
	sb_fini(&out);
}

void app_save(struct app *app, const char *as)
{
	struct vm *vm = &app->vm;
	if (vm->src->kind->save) {
		save_in_place(app, as);
		return;
	}
	size_t n;
	history_edits(&vm->hist, &n);
	if (n == 0) {
		vm_status(vm, false, "no edits to save (a %s is never rewritten: edits go to a what-if file)",
			  vm->src->kind->title);
		return;
	}
	if (as && as[0]) {
		save_whatif(app, as);
		return;
	}
	char def[APP_PROMPT_MAX];
	snprintf(def, sizeof def, "%s.edits.json", vm->src->path);
	app_input_start(app, INPUT_WHATIF, def);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The screen as it is under the input line: the list (or view) drawn on a grid. */
static int export_screen_of(struct app *app, const char *path, struct cs_error *err)
{
	struct text_grid *g = text_grid_new(app->layout.w, app->layout.h);
	if (!g)
		return cs_error_nomem(err);
	struct painter painter = text_grid_painter(g);
	app_draw(app, &painter); /* the input line closed before its text was accepted */
	struct strbuf out = STRBUF_INIT;
	int rc = text_grid_dump(g, &out) ? export_screen(sb_str(&out), out.len, app->vm.src->path, path, err)
					 : cs_error_nomem(err);
	sb_fini(&out);
	text_grid_free(g);
	return rc;
}

static void do_export(struct app *app, const char *path, const char *format)
{
	struct vm *vm = &app->vm;
	struct cs_error err;
	cs_error_clear(&err);
	enum export_format fmt = EXPORT_AUTO;
	if (format && format[0] && !export_format_from_name(format, &fmt)) {
		vm_status(vm, true, "export: \"%.40s\" is not text, yaml, json or screen", format);
		return;
	}
	if (!path[0]) {
		vm_status(vm, true, "not exported: no file name");
		return;
	}
	if (fmt == EXPORT_AUTO && ends_with(path, "screen"))
		fmt = EXPORT_SCREEN;
	int rc;
	if (fmt == EXPORT_SCREEN) {
		rc = export_screen_of(app, path, &err);
	} else {
		struct report_options opt = { .format = REPORT_TEXT, .ascii = app->ascii };
		rc = export_report(&vm->cur, &opt, fmt, path, &err);
		if (fmt == EXPORT_AUTO)
			fmt = export_format_for_path(path);
	}
	static const char *const names[] = { "report", "text report", "YAML report", "JSON report", "screen" };
	if (rc != CS_OK)
		vm_status(vm, true, "not exported: %s", err.message);
	else
		vm_status(vm, false, "exported the %s to %s", names[fmt], path);
}

static void set_sort(struct app *app, const char *key)
{
	static const struct {
		const char *name;
		enum vm_sort sort;
	} keys[] = { { "prompt", VM_SORT_ORDER }, { "order", VM_SORT_ORDER }, { "tokens", VM_SORT_TOKENS },
		     { "priority", VM_SORT_PRIORITY }, { "score", VM_SORT_SCORE } };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (strcmp(keys[i].name, key) == 0) {
			/* s cycles; step it round to the one asked for */
			for (int k = 0; k < VM_SORT_COUNT && app->vm.sort != keys[i].sort; k++)
				vm_cycle_sort(&app->vm);
			if (app->vm.sort == VM_SORT_ORDER)
				vm_status(&app->vm, false, "sorted by order (assembly order, cache markers shown)");
			return;
		}
	vm_status(&app->vm, true, "the list sorts by prompt, tokens, priority or score, not \"%.40s\"", key);
}

static const char *const app_theme_names[] = { "default", "light", "high-contrast", "monochrome", NULL };

/* :theme NAME: the same folders as --theme. */
static void set_theme(struct app *app, const char *name)
{
	struct theme t;
	struct cs_error err;
	cs_error_clear(&err);
	if (theme_load_named(name, &t, &err) != CS_OK) {
		vm_status(&app->vm, true, "theme: %s; kept the current one", err.message);
		return;
	}
	app_set_theme(app, &t);
	vm_status(&app->vm, false, "theme: %s", name);
}

static unsigned run_command(struct app *app, const char *line)
{
	struct vm *vm = &app->vm;
	struct command cmd;
	struct cs_error err;
	cs_error_clear(&err);
	if (command_parse(vm->src, line, &cmd, &err) != CS_OK) {
		vm_status(vm, true, "%s", err.message);
		return VIEW_REDRAW;
	}
	if (cmd.is_edit) {
		vm_apply(vm, &cmd.edit, &err);
		return VIEW_REDRAW;
	}
	switch (cmd.code) {
	case CMD_PROFILE: vm_set_profile(vm, cmd.arg, &err); break;
	case CMD_SORT: set_sort(app, cmd.arg); break;
	case CMD_THEME: set_theme(app, cmd.arg); break;
	case CMD_SAVE: app_save(app, NULL); break;
	case CMD_SAVE_AS: app_save(app, cmd.arg); break;
	case CMD_EXPORT: do_export(app, cmd.arg, cmd.format); break;
	case CMD_UNDO: vm_undo(vm, &err); break;
	case CMD_REDO: vm_redo(vm, &err); break;
	case CMD_QUIT: vm_status(vm, false, "quit"); return VIEW_QUIT;
	default: break;
	}
	return VIEW_REDRAW;
}

/* Acts on the accepted input line; returns enum view_result flags (a :q). */
unsigned app_input_accept(struct app *app)
{
	struct vm *vm = &app->vm;
	struct cs_error err;
	cs_error_clear(&err);
	const char *text = app->prompt;
	switch (app->input) {
	case INPUT_BUDGET: vm_set_budget(vm, text, &err); break;
	case INPUT_SEARCH: vm_search(vm, text, &err); break;
	case INPUT_FILTER: vm_set_filter(vm, text, &err); break;
	case INPUT_COMMAND: return run_command(app, text);
	case INPUT_SAVE_AS: save_in_place(app, text); break;
	case INPUT_WHATIF: save_whatif(app, text); break;
	case INPUT_EXPORT: do_export(app, text, NULL); break;
	default: break;
	}
	return VIEW_REDRAW;
}

void app_input_complete(struct app *app)
{
	struct vm *vm = &app->vm;
	app->prompt[app->prompt_len] = '\0';
	/* the profiles in force: the built-ins and the user's cache file */
	const char *profiles[CACHE_MAX_PROFILES + 1];
	size_t np = 0;
	for (size_t i = 0; i < vm->cache.cfg.nprofiles && np < CACHE_MAX_PROFILES; i++)
		profiles[np++] = vm->cache.cfg.profiles[i].name;
	profiles[np] = NULL;
	struct command_names names = { .profiles = profiles, .themes = app_theme_names };
	struct command_completion c;
	struct cs_error err;
	cs_error_clear(&err);
	if (command_complete(vm->src, &names, app->prompt, &c, &err) != CS_OK) {
		command_completion_fini(&c);
		vm_status(vm, true, "out of memory");
		return;
	}
	if (c.n == 0) {
		vm_status(vm, false, "no completion");
	} else {
		/* extend the word to what every candidate shares */
		size_t take = c.n == 1 ? strlen(c.items[0]) : c.common_bytes;
		if (c.word_start + take + 1 <= APP_PROMPT_MAX && take >= app->prompt_len - c.word_start) {
			memcpy(app->prompt + c.word_start, c.items[0], take);
			app->prompt_len = c.word_start + take;
			if (c.n == 1)
				app->prompt[app->prompt_len++] = ' ';
		}
		if (c.n > 1) {
			sb_reset(&vm->status);
			vm->status_error = false;
			for (size_t i = 0; i < c.n; i++)
				sb_printf(&vm->status, "%s%s", i ? "  " : "", c.items[i]);
		}
	}
	command_completion_fini(&c);
}

/* app_commands.c: the inspector's save, reload, export and command line (:). */
#include "app_priv.h"

#include "base/atomic_write.h"
#include "cache/cache.h"
#include "cache/section.h"
#include "cli.h"
#include "command.h"
#include "export.h"
#include "kind.h"
#include "whatif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- save, export, commands ----------------------------------------------------------- */

/* Every write below goes through atomic_write. A path the user typed is
 * "named" (a symbolic link there is written through); a default accepted as
 * offered is not. An existing file or a read-only one is replaced only after
 * "replace it? (y/n)": the write waits in app->pending and is tried again
 * with these flags. */
enum { WRITE_REPLACE = 1, WRITE_FORCE = 2 };

static void write_options(struct atomic_write_options *o, bool named, unsigned flags)
{
	*o = (struct atomic_write_options){ .replace = (flags & WRITE_REPLACE) != 0, .named = named,
					    .force = (flags & WRITE_FORCE) != 0 };
}

/* A refusal the user can overrule: keep the write and ask. True when asked. */
static bool ask_to_replace(struct app *app, const struct atomic_write_result *w, int input, const char *path,
			   const char *format, bool named, unsigned flags)
{
	if (w->refused != ATOMIC_EXISTS && w->refused != ATOMIC_READONLY)
		return false;
	snprintf(app->pending.path, sizeof app->pending.path, "%s", path);
	snprintf(app->pending.format, sizeof app->pending.format, "%s", format ? format : "");
	app->pending.input = input;
	app->pending.named = named;
	app->pending.flags = flags | (w->refused == ATOMIC_EXISTS ? WRITE_REPLACE : WRITE_FORCE);
	app_input_start(app, w->refused == ATOMIC_EXISTS ? INPUT_REPLACE : INPUT_REPLACE_READONLY, NULL);
	return true;
}

/* "; the previous file is X.bak" and the rest a write did, into buf. */
static void write_notes(const struct atomic_write_result *w, char *buf, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	atomic_write_notes(w, &sb);
	snprintf(buf, n, "%s", sb.failed ? "" : sb_str(&sb));
	sb_fini(&sb);
}

/* A kind that rewrites its own file (kind_ops.save, a manifest): in place
 * (or to `as`); a file changed on disk asks for a save-as name. */
static void save_in_place(struct app *app, const char *as, bool named, unsigned flags)
{
	struct vm *vm = &app->vm;
	struct kind_save_result res = { 0 };
	struct cs_error err;
	cs_error_clear(&err);
	struct atomic_write_options o;
	write_options(&o, named, flags);
	int rc = vm->session.src->kind->save(vm->session.src, as && as[0] ? as : NULL, &o, &res, &err);
	const char *path = as && as[0] ? as : vm->session.src->path;
	if (rc == CS_ESTATE && res.write.refused == ATOMIC_WRITTEN) {
		char def[APP_PROMPT_MAX];
		snprintf(def, sizeof def, "%s.new", vm->session.src->path);
		app_input_start(app, INPUT_SAVE_AS, def);
		vm_status(vm, true, "%s changed on disk since it was loaded: not overwritten", vm->session.src->path);
		return;
	}
	if (rc != CS_OK && ask_to_replace(app, &res.write, INPUT_SAVE_AS, as ? as : "", NULL, named, flags))
		return;
	char notes[APP_PROMPT_MAX];
	write_notes(&res.write, notes, sizeof notes);
	if (rc != CS_OK)
		vm_status(vm, true, "not saved: %s: %s", err.file[0] ? err.file : path, err.message);
	else
		vm_mark_saved(vm);
	if (rc != CS_OK)
		return;
	if (!res.written)
		vm_status(vm, false, "nothing to save: %s already holds these values", path);
	else
		vm_status(vm, false, "saved %s: %zu value%s changed, %zu entr%s removed%s", path, res.values,
			  res.values == 1 ? "" : "s", res.removed, res.removed == 1 ? "y" : "ies", notes);
}

/* Loom trees and ledgers: the edits as a what-if file at `path`. */
static void save_whatif(struct app *app, const char *path, bool named, unsigned flags)
{
	struct vm *vm = &app->vm;
	size_t n;
	const struct edit *edits = history_edits(&vm->session.hist, &n);
	struct strbuf out = STRBUF_INIT;
	struct cs_error err;
	cs_error_clear(&err);
	struct atomic_write_options o;
	struct atomic_write_result res;
	write_options(&o, named, flags);
	o.input = vm->session.src->path; /* never replaced, by any name: refused, not asked */
	char notes[APP_PROMPT_MAX];
	if (!path[0])
		vm_status(vm, true, "not saved: no file name");
	else if (whatif_render(vm->session.src, edits, n, &out) != CS_OK || out.failed)
		vm_status(vm, true, "not saved: out of memory");
	else if (atomic_write(path, sb_str(&out), out.len, &o, &res, &err) != CS_OK) {
		if (!ask_to_replace(app, &res, INPUT_WHATIF, path, NULL, named, flags))
			vm_status(vm, true, "not saved: %s: %s", path, err.message);
	} else {
		write_notes(&res, notes, sizeof notes);
		vm_mark_saved(vm);
		vm_status(vm, false, "wrote %zu edit%s to %s%s; reapply with: ctxscope %s --edits %s", n,
			  n == 1 ? "" : "s", path, notes, vm->session.src->path, path);
	}
	sb_fini(&out);
}

/* The name offered at the prompt: accepting it as offered is not naming it. */
static bool is_default_name(const struct app *app, const char *path, const char *suffix)
{
	size_t n = strlen(app->vm.session.src->path);
	return strncmp(path, app->vm.session.src->path, n) == 0 && strcmp(path + n, suffix) == 0;
}

void app_save(struct app *app, const char *as)
{
	struct vm *vm = &app->vm;
	if (vm->session.src->kind->save) {
		save_in_place(app, as, true, 0);
		return;
	}
	size_t n;
	history_edits(&vm->session.hist, &n);
	if (n == 0) {
		vm_status(vm, false, "no edits to save (a %s is never rewritten: edits go to a what-if file)",
			  vm->session.src->kind->title);
		return;
	}
	if (as && as[0]) {
		save_whatif(app, as, true, 0);
		return;
	}
	char def[APP_PROMPT_MAX];
	snprintf(def, sizeof def, "%s.edits.json", vm->session.src->path);
	app_input_start(app, INPUT_WHATIF, def);
}

unsigned app_reload(struct app *app, bool only_if_changed)
{
	struct vm *vm = &app->vm;
	struct load_stamp now;
	load_stamp_take(vm->session.src->path, &now); /* before the read: a change during it is seen next time */
	if (only_if_changed && load_stamp_same(&now, &app->stamp))
		return 0;
	app->stamp = now;
	struct cs_error err;
	cs_error_clear(&err);
	struct source *fresh = NULL;
	int rc = source_reload(vm->session.src, &fresh, &err);
	if (rc == CS_OK && app->cli && app->cli->edits)
		rc = whatif_apply(fresh, app->cli->edits, &err);
	if (rc == CS_OK && app->cli)
		rc = cli_apply(app->cli, fresh, &err);
	if (rc != CS_OK) {
		source_free(fresh);
		char msg[CS_ERROR_FILE_MAX + CS_ERROR_PATH_MAX + CS_ERROR_MSG_MAX + 64];
		cs_error_format(&err, msg, sizeof msg);
		vm_status(vm, true, "reload failed, the view is as it was: %s", msg);
		return VIEW_REDRAW;
	}
	vm_reload(vm, fresh, &err); /* says what happened in the status */
	return VIEW_REDRAW | VIEW_RELAYOUT;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The screen as it is under the input line: the list (or view) drawn on a grid. */
static int export_screen_of(struct app *app, const char *path, const struct atomic_write_options *o,
			    struct atomic_write_result *res, struct cs_error *err)
{
	struct text_grid *g = text_grid_new(app->layout.w, app->layout.h);
	if (!g)
		return cs_error_nomem(err);
	struct painter painter = text_grid_painter(g);
	app_draw(app, &painter); /* the input line closed before its text was accepted */
	struct strbuf out = STRBUF_INIT;
	int rc = text_grid_dump(g, &out) ? export_screen(sb_str(&out), out.len, app->vm.session.src->path, path, o, res, err)
					 : cs_error_nomem(err);
	sb_fini(&out);
	text_grid_free(g);
	return rc;
}

/* The report as `report` writes it, its cache section against the baseline
 * and under the profile the inspector shows. */
static int export_report_of(struct app *app, enum export_format fmt, const char *path,
			    const struct atomic_write_options *o, struct atomic_write_result *res, struct cs_error *err)
{
	struct vm *vm = &app->vm;
	struct report_options opt = { .format = REPORT_TEXT, .ascii = app->ascii };
	struct cli none;
	memset(&none, 0, sizeof none);
	struct cache_report cr;
	struct report_section extra[2] = { { 0 } };
	int rc = cache_report_prepare_inspector(&cr, app->cli ? app->cli : &none,
						vm->cache.profile ? vm->cache.profile->name : NULL, &vm->session.cur,
						&vm->session.base, vm_baseline_words(vm), err);
	if (rc == CS_OK) {
		extra[0] = cr.sections[0];
		opt.extra = extra;
		/* the inspector defers the sentences of what it does not show */
		rc = asm_write_sentences(&vm->session.cur) ? export_report(&vm->session.cur, &opt, fmt, path, o, res, err)
							   : cs_error_nomem(err);
	}
	cache_report_fini(&cr);
	return rc;
}

static void do_export(struct app *app, const char *path, const char *format, unsigned flags)
{
	struct vm *vm = &app->vm;
	struct cs_error err;
	cs_error_clear(&err);
	struct atomic_write_options o;
	struct atomic_write_result res;
	memset(&res, 0, sizeof res);
	write_options(&o, true, flags); /* typed: named */
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
		rc = export_screen_of(app, path, &o, &res, &err);
	} else {
		rc = export_report_of(app, fmt, path, &o, &res, &err);
		if (fmt == EXPORT_AUTO)
			fmt = export_format_for_path(path);
	}
	static const char *const names[] = { "report", "text report", "YAML report", "JSON report", "screen" };
	char notes[APP_PROMPT_MAX];
	write_notes(&res, notes, sizeof notes);
	if (rc != CS_OK && ask_to_replace(app, &res, INPUT_EXPORT, path, format, true, flags))
		return;
	if (rc != CS_OK)
		vm_status(vm, true, "not exported: %s", err.message);
	else
		vm_status(vm, false, "exported the %s to %s%s", names[fmt], path, notes);
}

/* The answer to "replace it?": y (or yes) tries the waiting write again. */
static void replace_answered(struct app *app, const char *answer)
{
	char path[APP_PROMPT_MAX + 1], format[sizeof app->pending.format];
	memcpy(path, app->pending.path, sizeof path); /* a second question rewrites app->pending */
	memcpy(format, app->pending.format, sizeof format);
	if (strcmp(answer, "y") != 0 && strcmp(answer, "Y") != 0 && strcmp(answer, "yes") != 0) {
		vm_status(&app->vm, false, "not written: %s is left as it was", path[0] ? path : app->vm.session.src->path);
		return;
	}
	unsigned flags = app->pending.flags;
	switch (app->pending.input) {
	case INPUT_SAVE_AS: save_in_place(app, path, app->pending.named, flags); break;
	case INPUT_WHATIF: save_whatif(app, path, app->pending.named, flags); break;
	default: do_export(app, path, format, flags); break;
	}
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
	if (command_parse(vm->session.src, line, &cmd, &err) != CS_OK) {
		vm_status(vm, true, "%s", err.message);
		return VIEW_REDRAW;
	}
	if (cmd.is_edit) {
		vm_apply(vm, &cmd.edit, &err);
		return VIEW_REDRAW;
	}
	switch (cmd.code) {
	case CMD_PROFILE: vm_set_profile(vm, cmd.arg, &err); break;
	case CMD_SORT: vm_set_sort(vm, cmd.arg); break;
	case CMD_THEME: set_theme(app, cmd.arg); break;
	case CMD_SAVE: app_save(app, NULL); break;
	case CMD_SAVE_AS: app_save(app, cmd.arg); break;
	case CMD_EXPORT: do_export(app, cmd.arg, cmd.format, 0); break;
	case CMD_UNDO: vm_undo(vm, &err); break;
	case CMD_REDO: vm_redo(vm, &err); break;
	case CMD_MESSAGES: app_open_messages(app); break;
	case CMD_QUIT:
		if (!app_quit(app, false))
			return VIEW_REDRAW;
		vm_status(vm, false, "quit");
		return VIEW_QUIT;
	default: break;
	}
	return VIEW_REDRAW;
}

/* A pattern that would not compile (or run): the line opens again holding
 * it, pcre2's message and position above it, to be fixed rather than typed
 * again. */
static void reopen_pattern(struct app *app)
{
	char pattern[APP_PROMPT_MAX + 1], said[APP_PROMPT_MAX + 1];
	snprintf(pattern, sizeof pattern, "%s", app->prompt);
	snprintf(said, sizeof said, "%s", sb_str(&app->vm.status));
	app_input_start(app, app->input, pattern);
	vm_status(&app->vm, true, "%s; fix it, Enter; Esc cancels", said);
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
	case INPUT_SEARCH:
	case INPUT_FILTER:
		if ((app->input == INPUT_SEARCH ? vm_search(vm, text, &err) : vm_set_filter(vm, text, &err)) == CS_EUSAGE)
			reopen_pattern(app);
		break;
	case INPUT_COMMAND: return run_command(app, text);
	case INPUT_SAVE_AS: save_in_place(app, text, !is_default_name(app, text, ".new"), 0); break;
	case INPUT_WHATIF: save_whatif(app, text, !is_default_name(app, text, ".edits.json"), 0); break;
	case INPUT_EXPORT: do_export(app, text, NULL, 0); break;
	case INPUT_REPLACE:
	case INPUT_REPLACE_READONLY: replace_answered(app, text); break;
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
	if (command_complete(vm->session.src, &names, app->prompt, &c, &err) != CS_OK) {
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
			struct strbuf listed = STRBUF_INIT;
			for (size_t i = 0; i < c.n; i++)
				sb_printf(&listed, "%s%s", i ? "  " : "", c.items[i]);
			vm_status(vm, false, "%s", listed.failed ? "out of memory" : sb_str(&listed));
			sb_fini(&listed);
		}
	}
	command_completion_fini(&c);
}

/* view_input.c: the input line at the foot of the screen (a budget, a
 * search, a filter, a command, a file name): it takes every key while it
 * is open; Enter hands the text to app_input_accept (app_commands.c). */
#include "app_priv.h"

#include <string.h>

void app_input_start(struct app *app, int input, const char *prefill)
{
	if (app_view_top(app) != &view_input)
		app_view_push(app, &view_input);
	app->input = input;
	size_t n = prefill ? strlen(prefill) : 0;
	if (n > APP_PROMPT_MAX)
		n = 0;
	memcpy(app->prompt, prefill ? prefill : "", n);
	app->prompt_len = n;
	app->prompt[n] = '\0';
	vm_status(&app->vm, false, "Enter accepts · Esc cancels · Backspace · Ctrl-U erases%s",
		  input == INPUT_COMMAND ? " · Tab completes" : "");
}

static bool yes_no(int input)
{
	return input == INPUT_REPLACE || input == INPUT_REPLACE_READONLY;
}

static unsigned input_key(struct app *app, int key, int act)
{
	(void)act; /* the line takes keys as typed, not as actions */
	if (key == CSK_ESC) {
		app_view_remove(app, &view_input);
		vm_status(&app->vm, false, "%s", app->input == INPUT_BUDGET ? "budget unchanged" : "cancelled");
	} else if (key == CSK_ENTER || (yes_no(app->input) && key < 0x80 && strchr("yYnN", key))) {
		if (key != CSK_ENTER) { /* a y/n question takes its answer without Enter */
			app->prompt[0] = (char)key;
			app->prompt_len = 1;
		}
		app->prompt[app->prompt_len] = '\0';
		app_view_remove(app, &view_input); /* before: accepting may open it again */
		vm_status(&app->vm, false, "%s", ""); /* the line's hints go with it; what it does says its own */
		return VIEW_HANDLED | VIEW_RELAYOUT | app_input_accept(app);
	} else if (key == CSK_BACKSPACE) {
		/* a whole character: step back over UTF-8 continuation bytes */
		while (app->prompt_len && ((unsigned char)app->prompt[app->prompt_len - 1] & 0xC0) == 0x80)
			app->prompt_len--;
		if (app->prompt_len)
			app->prompt_len--;
	} else if (key == CSK_CTRL_U) {
		app->prompt_len = 0;
	} else if (key == CSK_TAB) {
		if (app->input == INPUT_COMMAND)
			app_input_complete(app);
	} else if (key == CSK_SPACE || (key > ' ' && key < 0x7f) || (key >= 0x80 && key < 0x100)) {
		/* bytes from the terminal: UTF-8 arrives one byte at a time */
		if (app->prompt_len < APP_PROMPT_MAX)
			app->prompt[app->prompt_len++] = (char)key;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* No mouse while typing. */
static unsigned input_mouse(struct app *app, int y, int x, int ev)
{
	(void)app, (void)y, (void)x, (void)ev;
	return 0;
}

static const char *input_label(int input)
{
	switch (input) {
	case INPUT_SEARCH: return "/";
	case INPUT_FILTER: return "\\";
	case INPUT_COMMAND: return ":";
	case INPUT_SAVE_AS: return " changed on disk since loaded; save as: ";
	case INPUT_WHATIF: return " what-if file: ";
	case INPUT_EXPORT: return " export to (.txt .yaml .json: report; .screen: this screen): ";
	case INPUT_REPLACE: return " that file exists: replace it, keeping the old one as .bak? (y/n) ";
	case INPUT_REPLACE_READONLY: return " that file is read-only: replace it anyway, keeping a .bak? (y/n) ";
	default: return " budget in tokens (100k, 128,000; empty: the input's): ";
	}
}

/* Over the footer: the line's keys (or Tab's candidates) on the hint row,
 * the text being typed on the status row. */
static void draw_input(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct strbuf *ln = &app->line;
	app_put_repeat(f, L->hint_y, 0, " ", L->w, ROLE_HINT);
	sb_reset(ln);
	sb_putc(ln, ' ');
	sb_append(ln, sb_str(&app->vm.status), app->vm.status.len);
	app_put_fit(f, L->hint_y, 0, L->w, sb_str(ln), ln->len, ROLE_HINT);
	sb_reset(ln);
	sb_printf(ln, "%s%.*s_", input_label(app->input), (int)app->prompt_len, app->prompt);
	app_put_fit(f, L->status_y, 0, L->w, sb_str(ln), ln->len, ROLE_HEADING);
}

const struct view_ops view_input = {
	.name = "input",
	.key = input_key,
	.draw = draw_input,
	.mouse = input_mouse,
};

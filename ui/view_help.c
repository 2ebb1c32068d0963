/* view_help.c: the help view (?): the keys, generated from the action
 * table, over the whole screen; motion keys scroll it. */
#include "app_priv.h"

#include "kind.h"

#include <string.h>

/* A page before the first frame is the screen's height less the footer. */
static void help_open(struct app *app)
{
	struct scroller *sc = app_view_state(app, &view_help);
	sc->rows = app->layout.h > 1 ? (size_t)app->layout.h - 1 : 1;
}

static unsigned help_key(struct app *app, int key, int act)
{
	(void)key;
	if (act == ACT_QUIT)
		return VIEW_HANDLED | VIEW_QUIT;
	if (act == ACT_BACK || act == ACT_HELP || act == ACT_OPEN)
		app_view_remove(app, &view_help);
	else
		scroller_key(app_view_state(app, &view_help), act, 0, false); /* the draw clamps it */
	return VIEW_HANDLED | VIEW_REDRAW; /* every other key stays here */
}

/* The help swallows the mouse. */
static unsigned help_mouse(struct app *app, int y, int x, int ev)
{
	(void)app, (void)y, (void)x, (void)ev;
	return 0;
}

static bool offered(int act, const void *app)
{
	return app_action_offered(app, act);
}

/* The actions the kind takes, then its own keys (kind_ops.actions). */
static void help_text(const struct app *app, struct strbuf *help)
{
	actions_help_offered(help, app->vm.session.src->kind, offered, app);
	for (const struct kind_action *a = app->vm.session.src->kind->actions; a && a->key; a++)
		actions_help_line(help, a->key, a->name, a->help);
}

static void draw_help(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct strbuf help = STRBUF_INIT;
	help_text(app, &help);
	sb_puts(&help, "\nflags:");
	for (const struct vm_flag_meaning *m = vm_flag_legend; m->flag; m++) /* two lines: each fits 100 columns */
		sb_printf(&help, " %c %s%s", m->flag, m->words, !m[1].flag ? "\n" : m - vm_flag_legend == 3 ? "\n      " : " ");
	sb_printf(&help, "bars: tokens of each layer %s (%% switches: budget, used, largest layer); cache state against the baseline under the profile (P)\n",
		  vm_bar_scale_name(app->vm.bar_scale));
	sb_puts(&help,
		"\nkeys as in ncdu, tig, lazygit and less: j/k g/G PgUp/PgDn, / n N, ? help, Space toggles (lazygit),\n"
		"s sorts and e shows what is hidden (ncdu), R reloads (tig), u undoes (vim), Esc backs out (lazygit)\n"
		"on purpose otherwise: g goes to the top (less, vim, tig), so % is ncdu's g (what the bars are of);\n"
		"d shows what changed and never deletes (ncdu's d deletes); Enter is ncdu's i (the detail), i the\n"
		"timeline; q quits the program, not a view (Esc closes views), and asks first over unsaved edits\n");
	const char *s = sb_str(&help);
	size_t lines = 0;
	for (const char *q = s; *q; q++)
		lines += *q == '\n';
	size_t room = L->h > 1 ? (size_t)L->h - 1 : 1; /* the last row says how to scroll */
	struct scroller *sc = app_view_state(app, &view_help);
	scroller_fit(sc, lines, room, false);
	size_t line = 0;
	int y = 0;
	while (*s && (size_t)y < room) {
		size_t n = strcspn(s, "\n");
		if (line >= sc->top) {
			app_put_fit(f, y, 0, L->w, s, n, line == 0 ? ROLE_HEADING : ROLE_NORMAL);
			y++;
		}
		line++;
		s += n + (s[n] == '\n');
	}
	if (L->h > 1)
		app_put_str(f, L->h - 1, 0, L->w, lines > room ? " j/k scroll · Esc or ? closes · q quits" : " Esc or ? closes · q quits",
			ROLE_HINT);
	sb_fini(&help);
}

const struct view_ops view_help = {
	.name = "help",
	.opaque = true,
	.state_size = sizeof(struct scroller), /* its window */
	.open = help_open,
	.key = help_key,
	.draw = draw_help,
	.mouse = help_mouse,
};

/* term.c: the curses terminal (see term.h). The one process-wide variable
 * is the flag the signal handlers read: a handler can only see globals. */
#include "term.h"

#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t term_active; /* curses is up: restore on the way out */

static void term_restore(void)
{
	if (term_active) {
		term_active = 0;
		endwin();
	}
}

static void term_on_signal(int sig)
{
	/* endwin() is what every curses program does here (tig, htop); then
	 * die of the same signal so the parent sees why. */
	if (term_active) {
		term_active = 0;
		endwin();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void term_install_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGABRT, SIGBUS, SIGFPE };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = term_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

/* ---- colours and attributes ------------------------------------------------ */

struct curses_ctx {
	attr_t attrs[ROLE_COUNT];
	bool color;
};

static attr_t theme_attrs(unsigned a)
{
	attr_t r = A_NORMAL;
	if (a & ATTR_BOLD) r |= A_BOLD;
	if (a & ATTR_DIM) r |= A_DIM;
	if (a & ATTR_UNDERLINE) r |= A_UNDERLINE;
	if (a & ATTR_REVERSE) r |= A_REVERSE;
	if (a & ATTR_STANDOUT) r |= A_STANDOUT;
#ifdef A_ITALIC
	if (a & ATTR_ITALIC) r |= A_ITALIC;
#endif
	return r;
}

/* A colour the terminal lacks, as the nearest it has: a bright one as the
 * plain one; a 256-colour cube entry by its strong components; a grey as
 * black or white (never the terminal's default, which may be the very
 * colour of the text on it). */
static int fold_color(int c)
{
	if (c < 0 || c < COLORS)
		return c;
	if (c < 16)
		return c % 8;
	if (c >= 232)
		return c >= 250 ? COLOR_WHITE : COLOR_BLACK;
	int k = c - 16, r = k / 36, g = k / 6 % 6, b = k % 6;
	return (r >= 3 ? COLOR_RED : 0) | (g >= 3 ? COLOR_GREEN : 0) | (b >= 3 ? COLOR_BLUE : 0);
}

/* fg on bg once folded: text the same colour as its ground gets the other
 * of black and white. */
static void fold_pair(int fg, int bg, short *f, short *b)
{
	int ff = fold_color(fg), fb = fold_color(bg);
	if (ff == fb && ff >= 0 && fg != bg)
		ff = fb == COLOR_WHITE ? COLOR_BLACK : COLOR_WHITE;
	*f = (short)ff;
	*b = (short)fb;
}

static void setup_colors(struct app *app, struct curses_ctx *cc)
{
	cc->color = has_colors() && !(getenv("NO_COLOR") && getenv("NO_COLOR")[0]) && app->theme.has_color;
	if (cc->color && start_color() == OK) {
		use_default_colors();
		for (int r = 0; r < ROLE_COUNT && r + 1 < COLOR_PAIRS; r++) {
			const struct theme_style *s = &app->theme.styles[r];
			short f, b;
			fold_pair(s->fg, s->bg, &f, &b);
			init_pair((short)(r + 1), f, b);
		}
	} else {
		cc->color = false;
	}
	app->distinct_bars = !cc->color;
	for (int r = 0; r < ROLE_COUNT; r++) {
		cc->attrs[r] = theme_attrs(app->theme.styles[r].attrs);
		if (cc->color && r + 1 < COLOR_PAIRS)
			cc->attrs[r] |= COLOR_PAIR(r + 1);
	}
	/* blank cells take the "normal" role too (a light theme's background) */
	if (cc->color)
		bkgdset((chtype)(COLOR_PAIR(ROLE_NORMAL + 1) | ' '));
}

/* ---- the curses painter ---------------------------------------------------- */

static void c_begin(void *ctx, int w, int h)
{
	(void)ctx;
	(void)w;
	(void)h;
	erase();
}

static void c_put(void *ctx, int y, int x, const char *s, size_t bytes, int role)
{
	struct curses_ctx *cc = ctx;
	attrset(role >= 0 && role < ROLE_COUNT ? cc->attrs[role] : A_NORMAL);
	mvaddnstr(y, x, s, (int)bytes);
}

static void c_cursor(void *ctx, int y, int x)
{
	(void)ctx;
	move(y, x);
}

static void c_end(void *ctx)
{
	(void)ctx;
	refresh();
}

/* The wheel down: button 5 in ncurses 6 (mouse version 2); older ones have none. */
#ifdef BUTTON5_PRESSED
#define MOUSE_WHEEL_DOWN BUTTON5_PRESSED
#else
#define MOUSE_WHEEL_DOWN 0
#endif

static const struct painter_ops curses_ops = {
	.begin = c_begin,
	.put = c_put,
	.cursor = c_cursor,
	.end = c_end,
};

/* ---- keys -------------------------------------------------------------------- */

static int map_key(int ch)
{
	switch (ch) {
	case KEY_UP: return CSK_UP;
	case KEY_DOWN: return CSK_DOWN;
	case KEY_LEFT: return CSK_LEFT;
	case KEY_RIGHT: return CSK_RIGHT;
	case KEY_PPAGE: return CSK_PGUP;
	case KEY_NPAGE: return CSK_PGDN;
	case KEY_HOME: return CSK_HOME;
	case KEY_END: return CSK_END;
	case KEY_ENTER: case '\n': case '\r': return CSK_ENTER;
	case '\t': return CSK_TAB;
	case 27: return CSK_ESC;
	case KEY_BACKSPACE: case 127: case 8: return CSK_BACKSPACE;
	default: return ch;
	}
}

/* A terminal the inspector can draw on: one that moves the cursor. A dumb
 * one (TERM=dumb, an editor's shell buffer) is refused as an unset TERM is,
 * before anything is written to it. */
static int refuse_terminal(const char *why, struct cs_error *err)
{
	const char *t = getenv("TERM");
	return cs_error_set(err, CS_EUSAGE,
			    "%s (TERM=%s); set TERM (e.g. xterm-256color), or use `ctxscope report FILE` "
			    "or `--screen WxH`",
			    why, t ? t : "");
}

static bool cursor_moves(void)
{
	const char *cup = tigetstr("cup");
	return cup && cup != (const char *)-1 && *cup;
}

/* Ctrl-Z (a key in raw mode): gives the terminal back, stops as a shell's
 * job does, and on `fg` takes the terminal again and redraws it all. */
static void term_suspend(void)
{
	struct sigaction dfl, old;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	def_prog_mode();
	endwin();
	term_active = 0;
	sigaction(SIGTSTP, &dfl, &old);
	raise(SIGTSTP);
	/* continued */
	sigaction(SIGTSTP, &old, NULL);
	term_active = 1;
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
}

int term_run(struct app *app, struct cs_error *err)
{
	const char *t = getenv("TERM");
	if (!t || !*t || strcmp(t, "dumb") == 0)
		return refuse_terminal("the inspector needs a terminal that moves the cursor", err);
	SCREEN *scr = newterm(NULL, stdout, stdin);
	if (!scr)
		return refuse_terminal("cannot set up the terminal", err);
	if (!cursor_moves()) {
		endwin();
		delscreen(scr);
		return refuse_terminal("the inspector needs a terminal that moves the cursor", err);
	}
	term_active = 1;
	atexit(term_restore);
	term_install_handlers();
	raw();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	struct curses_ctx cc;
	setup_colors(app, &cc);
	struct painter p = { .ops = &curses_ops, .ctx = &cc };
	int w, h;
	if (app->mouse) {
		mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | MOUSE_WHEEL_DOWN, NULL);
		mouseinterval(0); /* a press is a click at once: no wait for a double click */
	}
	getmaxyx(stdscr, h, w);
	app_layout(app, w, h);
	for (;;) {
		if (app->theme_changed) { /* :theme */
			app->theme_changed = false;
			setup_colors(app, &cc);
		}
		app_draw(app, &p);
		timeout(app->follow ? APP_FOLLOW_MS : -1);
		int ch = getch();
		if (ch == ERR) {
			if (app->follow)
				app_tick(app);
			continue;
		}
		if (ch == KEY_MOUSE) {
			MEVENT ev;
			if (getmouse(&ev) != OK)
				continue;
			enum app_mouse_event what = APP_MOUSE_CLICK;
			if (ev.bstate & BUTTON4_PRESSED)
				what = APP_MOUSE_WHEEL_UP;
			else if (ev.bstate & MOUSE_WHEEL_DOWN)
				what = APP_MOUSE_WHEEL_DOWN;
			else if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
				continue;
			app_mouse(app, ev.y, ev.x, what);
			continue;
		}
		if (ch == 26) { /* Ctrl-Z */
			term_suspend();
			getmaxyx(stdscr, h, w);
			app_layout(app, w, h);
			continue;
		}
		if (ch == KEY_RESIZE) {
			getmaxyx(stdscr, h, w);
			app_layout(app, w, h);
			continue;
		}
		if (app_key(app, map_key(ch)) & APP_QUIT)
			break;
	}
	term_restore();
	delscreen(scr);
	return CS_OK;
}

/* screen.c: --screen WxH --keys "...": the inspector on a virtual screen
 * (see term.h). No terminal is touched. */
#include "term.h"

#include "cli.h"

#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool screen_parse_size(const char *text, int *w, int *h)
{
	char *end;
	long a = strtol(text, &end, 10);
	if (end == text || (*end != 'x' && *end != 'X'))
		return false;
	const char *rest = end + 1;
	long b = strtol(rest, &end, 10);
	if (end == rest || *end != '\0')
		return false;
	if (a < 1 || b < 1 || a > SCREEN_MAX_SIDE || b > SCREEN_MAX_SIDE)
		return false;
	*w = (int)a;
	*h = (int)b;
	return true;
}

#define SCREEN_KEY_NAME_MAX 32 /* longer than any key name */

/* Draws a frame on a w x h grid, as the terminal loop does after every key;
 * *g is (re)made for the size. false on out of memory. */
static bool frame(struct app *app, struct text_grid **g, int w, int h)
{
	if (!*g) {
		*g = text_grid_new(w, h);
		if (!*g)
			return false;
	}
	struct painter painter = text_grid_painter(*g);
	app_draw(app, &painter);
	return true;
}

int screen_run(struct app *app, int w, int h, const char *keys, struct strbuf *out, struct cs_error *err)
{
	struct text_grid *g = NULL;
	app_layout(app, w, h);
	bool ok = frame(app, &g, w, h);
	const char *p = keys ? keys : "";
	int rc = CS_OK;
	while (*p && ok) {
		p += strspn(p, " ,");
		size_t n = strcspn(p, " ,");
		if (n == 0)
			break;
		char name[SCREEN_KEY_NAME_MAX];
		if (n >= sizeof name) {
			rc = cs_error_set(err, CS_EUSAGE, "--keys: \"%.*s\" is not a key name", (int)n, p);
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		if (name[0] == '@' && name[1]) {
			if (!screen_parse_size(name + 1, &w, &h)) {
				rc = cs_error_set(err, CS_EUSAGE, "--keys: \"%s\" is not @WIDTHxHEIGHT", name);
				break;
			}
			text_grid_free(g);
			g = NULL;
			app_layout(app, w, h);
			ok = frame(app, &g, w, h);
			continue;
		}
		int mx, my;
		char mkind[16];
		if (sscanf(name, "%15[A-Za-z]=%d.%d", mkind, &mx, &my) == 3) {
			/* mouse: Click=X.Y, WheelUp=X.Y, WheelDown=X.Y (0-based cells) */
			enum app_mouse_event ev = APP_MOUSE_CLICK;
			if (strcmp(mkind, "WheelUp") == 0)
				ev = APP_MOUSE_WHEEL_UP;
			else if (strcmp(mkind, "WheelDown") == 0)
				ev = APP_MOUSE_WHEEL_DOWN;
			else if (strcmp(mkind, "Click") != 0) {
				rc = cs_error_set(err, CS_EUSAGE, "--keys: \"%s\" is not Click=X.Y, WheelUp=X.Y or WheelDown=X.Y",
						  name);
				break;
			}
			if (app->mouse) /* --no-mouse: the terminal would send none */
				app_mouse(app, my, mx, ev);
			ok = frame(app, &g, w, h);
			continue;
		}
		int key;
		if (!cskey_from_name(name, &key)) {
			rc = cs_error_set(err, CS_EUSAGE,
					  "--keys: \"%s\" is not a key name (a character, or Space Enter Tab Esc "
					  "Up Down Left Right PgUp PgDn Home End Backspace Comma)",
					  name);
			break;
		}
		if (app_key(app, key) & APP_QUIT)
			break;
		ok = frame(app, &g, w, h);
	}
	if (rc == CS_OK && ok)
		ok = frame(app, &g, w, h) && (app->cli && app->cli->svg ? text_grid_svg(g, &app->theme, out)
									 : text_grid_dump(g, out));
	text_grid_free(g);
	if (rc == CS_OK && !ok)
		rc = cs_error_nomem(err);
	return rc;
}

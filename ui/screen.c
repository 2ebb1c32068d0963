/* screen.c: --screen WxH --keys "...": the inspector on a virtual screen
 * (see term.h). No terminal is touched. */
#include "term.h"

#include "strbuf.h"

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

int screen_run(struct app *app, int w, int h, const char *keys, struct strbuf *out, struct cs_error *err)
{
	app_layout(app, w, h);
	const char *p = keys ? keys : "";
	while (*p) {
		p += strspn(p, " ,");
		size_t n = strcspn(p, " ,");
		if (n == 0)
			break;
		char name[SCREEN_KEY_NAME_MAX];
		if (n >= sizeof name)
			return cs_error_set(err, CS_EUSAGE, "--keys: \"%.*s\" is not a key name", (int)n, p);
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		if (name[0] == '@' && name[1]) {
			if (!screen_parse_size(name + 1, &w, &h))
				return cs_error_set(err, CS_EUSAGE, "--keys: \"%s\" is not @WIDTHxHEIGHT", name);
			app_layout(app, w, h);
			continue;
		}
		int key;
		if (!cskey_from_name(name, &key))
			return cs_error_set(err, CS_EUSAGE,
					    "--keys: \"%s\" is not a key name (a character, or Space Enter Tab Esc "
					    "Up Down Left Right PgUp PgDn Home End Backspace Comma)",
					    name);
		if (app_key(app, key) & APP_QUIT)
			break;
	}
	struct text_grid *g = text_grid_new(w, h);
	if (!g)
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	struct painter painter = text_grid_painter(g);
	app_draw(app, &painter);
	bool ok = text_grid_dump(g, out);
	text_grid_free(g);
	return ok ? CS_OK : cs_error_set(err, CS_ENOMEM, "out of memory");
}

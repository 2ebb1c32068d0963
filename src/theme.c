/* theme.c: theme roles, the built-in default, theme files (see theme.h). */
#include "theme.h"

#include "base/alloc.h"
#include "base/fileio.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const role_names[] = {
#define ROLE_X_NAME(e, name, fg, bg, attrs) name,
	THEME_ROLES(ROLE_X_NAME)
#undef ROLE_X_NAME
};

static const struct theme_style default_styles[] = {
#define ROLE_X_STYLE(e, name, fg, bg, attrs) { fg, bg, attrs },
	THEME_ROLES(ROLE_X_STYLE)
#undef ROLE_X_STYLE
};

static void update_has_color(struct theme *t)
{
	t->has_color = false;
	for (int r = 0; r < ROLE_COUNT; r++)
		if (t->styles[r].fg != COLOR_DEFAULT || t->styles[r].bg != COLOR_DEFAULT)
			t->has_color = true;
}

void theme_default(struct theme *out)
{
	memcpy(out->styles, default_styles, sizeof out->styles);
	snprintf(out->name, sizeof out->name, "default");
	update_has_color(out);
}

static const char *const color_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static bool parse_color(const char *w, int *out)
{
	if (strcmp(w, "default") == 0) {
		*out = COLOR_DEFAULT;
		return true;
	}
	for (int i = 0; i < 8; i++) {
		if (strcmp(w, color_names[i]) == 0) {
			*out = i;
			return true;
		}
		if (strncmp(w, "bright-", 7) == 0 && strcmp(w + 7, color_names[i]) == 0) {
			*out = i + 8;
			return true;
		}
	}
	const char *digits = strncmp(w, "color", 5) == 0 ? w + 5 : w;
	if (*digits < '0' || *digits > '9')
		return false;
	char *end;
	long v = strtol(digits, &end, 10);
	if (*end != '\0' || v < 0 || v > THEME_MAX_COLOR)
		return false;
	*out = (int)v;
	return true;
}

static const struct {
	const char *name;
	unsigned attr;
} attr_names[] = {
	{ "bold", ATTR_BOLD },           { "dim", ATTR_DIM },       { "underline", ATTR_UNDERLINE },
	{ "reverse", ATTR_REVERSE },     { "italic", ATTR_ITALIC }, { "standout", ATTR_STANDOUT },
	{ "normal", 0 },
};

static bool parse_attr(const char *w, unsigned *out)
{
	for (size_t i = 0; i < sizeof attr_names / sizeof attr_names[0]; i++)
		if (strcmp(w, attr_names[i].name) == 0) {
			*out |= attr_names[i].attr;
			return true;
		}
	return false;
}

#define THEME_WORD_MAX 32   /* longest role, colour or attribute name, with room */
#define THEME_WORDS_MAX 10  /* role, fg, bg and up to 7 attributes */

static int line_error(struct cs_error *err, long line, long column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int line_error(struct cs_error *err, long line, long column, const char *fmt, ...)
{
	cs_error_pos(err, line, column);
	va_list ap;
	va_start(ap, fmt);
	int rc = cs_error_vset(err, CS_ESYNTAX, fmt, ap);
	va_end(ap);
	return rc;
}

int theme_parse(const char *text, size_t len, struct theme *out, struct cs_error *err)
{
	struct theme t;
	theme_default(&t);
	theme_default(out);
	long lineno = 0;
	size_t pos = 0;
	while (pos < len) {
		lineno++;
		size_t end = pos;
		while (end < len && text[end] != '\n')
			end++;
		char words[THEME_WORDS_MAX][THEME_WORD_MAX];
		long cols[THEME_WORDS_MAX];
		size_t nw = 0;
		size_t i = pos;
		while (i < end) {
			if (text[i] == '#')
				break;
			if (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
				i++;
				continue;
			}
			size_t s = i;
			while (i < end && text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '#')
				i++;
			if (text[s] == '\0' || memchr(text + s, '\0', i - s))
				return line_error(err, lineno, (long)(s - pos + 1), "a NUL byte in a theme file");
			if (nw == THEME_WORDS_MAX)
				return line_error(err, lineno, (long)(s - pos + 1), "too many words on a line");
			if (i - s >= THEME_WORD_MAX)
				return line_error(err, lineno, (long)(s - pos + 1), "a word longer than any name");
			memcpy(words[nw], text + s, i - s);
			words[nw][i - s] = '\0';
			cols[nw] = (long)(s - pos + 1);
			nw++;
		}
		pos = end + 1;
		if (nw == 0)
			continue;
		int role = -1;
		for (int r = 0; r < ROLE_COUNT; r++)
			if (strcmp(words[0], role_names[r]) == 0)
				role = r;
		if (role < 0)
			return line_error(err, lineno, cols[0], "unknown role \"%s\"", words[0]);
		if (nw < 3)
			return line_error(err, lineno, cols[0], "\"%s\" needs a foreground and a background colour",
					  words[0]);
		struct theme_style st = { COLOR_DEFAULT, COLOR_DEFAULT, 0 };
		if (!parse_color(words[1], &st.fg))
			return line_error(err, lineno, cols[1], "unknown colour \"%s\"", words[1]);
		if (!parse_color(words[2], &st.bg))
			return line_error(err, lineno, cols[2], "unknown colour \"%s\"", words[2]);
		for (size_t w = 3; w < nw; w++)
			if (!parse_attr(words[w], &st.attrs))
				return line_error(err, lineno, cols[w], "unknown attribute \"%s\"", words[w]);
		t.styles[role] = st;
	}
	update_has_color(&t);
	*out = t;
	return CS_OK;
}

static bool is_path(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') || (n > 6 && strcmp(s + n - 6, ".theme") == 0);
}

static void set_name(struct theme *t, const char *name_or_path)
{
	const char *base = strrchr(name_or_path, '/');
	base = base ? base + 1 : name_or_path;
	size_t n = strlen(base);
	if (n > 6 && strcmp(base + n - 6, ".theme") == 0)
		n -= 6;
	if (n >= sizeof t->name)
		n = sizeof t->name - 1;
	memcpy(t->name, base, n);
	t->name[n] = '\0';
}

#define THEME_FILE_MAX ((size_t)1 << 20) /* a theme is a few dozen lines; anything near this is not one */

static int load_file(const char *path, struct theme *out, struct cs_error *err)
{
	char *data = NULL;
	size_t len = 0;
	int rc = file_read(path, THEME_FILE_MAX, &data, &len, NULL, err);
	if (rc != CS_OK)
		return rc;
	rc = theme_parse(data, len, out, err);
	cs_free(data);
	if (rc != CS_OK)
		cs_error_file(err, path);
	return rc;
}

#define THEME_PATH_MAX 4096 /* PATH_MAX on Linux */

int theme_load(const char *name_or_path, const char *const *dirs, size_t ndirs, struct theme *out,
	       struct cs_error *err)
{
	theme_default(out);
	if (is_path(name_or_path)) {
		int rc = load_file(name_or_path, out, err);
		if (rc == CS_OK)
			set_name(out, name_or_path);
		return rc;
	}
	if (strcmp(name_or_path, "default") == 0)
		return CS_OK;
	for (size_t i = 0; i < ndirs; i++) {
		if (!dirs[i] || !dirs[i][0])
			continue;
		char path[THEME_PATH_MAX];
		if ((size_t)snprintf(path, sizeof path, "%s/%s.theme", dirs[i], name_or_path) >= sizeof path)
			continue;
		FILE *f = fopen(path, "rb");
		if (!f)
			continue;
		fclose(f);
		int rc = load_file(path, out, err);
		if (rc == CS_OK)
			set_name(out, name_or_path);
		return rc;
	}
	return cs_error_set(err, CS_EIO, "no theme \"%s\" (looked for %s.theme in the theme folders)", name_or_path,
			    name_or_path);
}

#define THEME_DIR_MAX 4096 /* PATH_MAX on Linux */

/* The theme folders beside the running binary ("" when none): BIN/../share/
 * ctxscope/themes, and a source checkout's themes/ when the binary is its
 * build output (.build/release/ctxscope: the checkout holds src/theme.c). */
static void beside_binary(char *share, char *tree, size_t cap)
{
	share[0] = tree[0] = '\0';
	char exe[THEME_DIR_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	char probe[THEME_DIR_MAX + 32];
	if (snprintf(share, cap, "%s/../share/ctxscope/themes", exe) >= (int)cap)
		share[0] = '\0';
	/* .build/release/ctxscope, or a test's .build/asan/tests/test_x: two or three up */
	for (const char *up = "/../.."; up && !tree[0]; up = strlen(up) < 9 ? "/../../.." : NULL) {
		snprintf(probe, sizeof probe, "%s%s/src/theme.c", exe, up);
		if (access(probe, R_OK) == 0 && snprintf(tree, cap, "%s%s/themes", exe, up) >= (int)cap)
			tree[0] = '\0';
	}
}

int theme_load_named(const char *name_or_path, struct theme *out, struct cs_error *err)
{
	char user[THEME_DIR_MAX] = "";
	const char *cfg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (cfg && cfg[0])
		snprintf(user, sizeof user, "%s/ctxscope/themes", cfg);
	else if (home && home[0])
		snprintf(user, sizeof user, "%s/.config/ctxscope/themes", home);
	/* Never the working directory: a checkout's ./themes is not ours to
	 * load. The binary's own places are: a relocated install's share
	 * folder, and the checkout it was built in (make, not installed). */
	char share[THEME_DIR_MAX], tree[THEME_DIR_MAX];
	beside_binary(share, tree, sizeof share);
	const char *dirs[] = { user, CTXSCOPE_DATADIR "/themes", share, tree };
	return theme_load(name_or_path, dirs, sizeof dirs / sizeof dirs[0], out, err);
}

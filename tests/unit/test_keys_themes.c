/* test_keys_themes.c: the key table against the keymap, the help and the man
 * page; key names both ways; theme files, good, broken and shipped; the
 * bars' eighth blocks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "actions.h"
#include "base/alloc.h"
#include "app.h"
#include "base/fileio.h"
#include "kind.h"
#include "load.h"
#include "paint.h"
#include "base/strbuf.h"
#include "cli.h"
#include "term.h"
#include "theme.h"
#include "vm/viewmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

/* ---- actions ----------------------------------------------------------------- */

static void test_keymap_matches_table(void **state)
{
	(void)state;
	struct keymap km;
	assert_true(keymap_default(&km));
	size_t listed = 0;
	for (int a = 0; a < ACT_COUNT; a++) {
		char keys[64];
		snprintf(keys, sizeof keys, "%s", action_keys(a));
		assert_true(keys[0] != '\0'); /* every action has a default key */
		for (char *tok = strtok(keys, " "); tok; tok = strtok(NULL, " ")) {
			int key;
			assert_true(cskey_from_name(tok, &key));
			assert_int_equal(keymap_lookup(&km, key), a);
			listed++;
		}
		assert_int_equal(action_from_name(action_name(a)), a);
	}
	assert_int_equal(km.n, listed);
	/* no key is bound twice */
	for (size_t i = 0; i < km.n; i++)
		for (size_t j = i + 1; j < km.n; j++)
			assert_int_not_equal(km.keys[i], km.keys[j]);
	assert_int_equal(keymap_lookup(&km, 'Z'), ACT_NONE);
}

static void test_help_matches_table(void **state)
{
	(void)state;
	struct strbuf help = STRBUF_INIT;
	actions_help(&help);
	assert_false(help.failed);
	const char *s = sb_str(&help);
	for (int a = 0; a < ACT_COUNT; a++) {
		char line[256];
		snprintf(line, sizeof line, "  %-10s %-18s %s\n", action_keys(a), action_name(a), action_help(a));
		assert_non_null(strstr(s, line));
	}
	/* exactly one line per action after the title and a blank line */
	size_t lines = 0;
	for (const char *p = s; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, (size_t)ACT_COUNT + 2);
	sb_fini(&help);
}

static void test_key_names_round_trip(void **state)
{
	(void)state;
	const char *names[] = { "Space", "Enter", "Esc", "Tab", "Up", "Down", "PgUp", "PgDn", "Home", "End",
				"Backspace", "Comma", "q", "+", "?" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int key;
		char back[32];
		assert_true(cskey_from_name(names[i], &key));
		assert_true(cskey_name(key, back, sizeof back));
		assert_string_equal(back, names[i]);
	}
	int key;
	assert_false(cskey_from_name("space", &key)); /* names are exact */
	assert_false(cskey_from_name("F13", &key));
	assert_true(cskey_from_name(" ", &key) == false);
}

static void test_man_page_documents_every_action(void **state)
{
	(void)state;
	char *man = NULL;
	size_t len = 0;
	struct cs_error err;
	assert_int_equal(file_read("ui/doc/ctxscope.1", 0, &man, &len, NULL, &err), CS_OK);
	const char *missing = NULL;
	for (int a = 0; a < ACT_COUNT && !missing; a++)
		if (!strstr(man, action_name(a)))
			missing = action_name(a);
	/* flags as roff writes them (\- for a hyphen) */
	const char *flags[] = { "\\-\\-screen", "\\-\\-keys", "\\-\\-theme", "\\-\\-ascii", "\\-\\-budget",
				"NO_COLOR", "XDG_CONFIG_HOME", ".B manifest", ".B loom", ".B ledger", ".B memory" };
	for (size_t i = 0; i < sizeof flags / sizeof flags[0] && !missing; i++)
		if (!strstr(man, flags[i]))
			missing = flags[i];
	cs_free(man);
	if (missing)
		fail_msg("ui/doc/ctxscope.1 does not mention %s", missing);
}

/* The text between `from` and the next `to` in s (whitespace runs made one
 * space: roff and Markdown break lines anywhere), into out. */
static void section_of(const char *s, const char *from, const char *to, struct strbuf *out)
{
	const char *a = strstr(s, from);
	assert_non_null(a);
	a += strlen(from);
	const char *b = strstr(a, to);
	if (!b)
		b = a + strlen(a);
	bool space = false;
	for (const char *p = a; p < b; p++) {
		bool ws = *p == ' ' || *p == '\n' || *p == '\t';
		if (ws && !space)
			sb_putc(out, ' ');
		else if (!ws)
			sb_putc(out, *p);
		space = ws;
	}
}

/* The man page's KEYS entries, tagged from the tables: each tag line under
 * .SH KEYS is actions_man_tags' line, in order, none missing, none extra
 * (a key added to the table, a kind's own key, a renamed action: the page
 * must follow). */
static void test_man_page_keys_come_from_the_tables(void **state)
{
	(void)state;
	char *man = NULL;
	size_t len = 0;
	struct cs_error err;
	assert_int_equal(file_read("ui/doc/ctxscope.1", 0, &man, &len, NULL, &err), CS_OK);
	const char *a = strstr(man, "\n.SH KEYS\n"), *b = a ? strstr(a + 1, "\n.SH ") : NULL;
	assert_non_null(a);
	assert_non_null(b);
	struct strbuf want = STRBUF_INIT, got = STRBUF_INIT;
	actions_man_tags(&want, kind_table);
	for (const char *p = strstr(a, "\n.TP\n.BR "); p && p < b; p = strstr(p + 1, "\n.TP\n.BR ")) {
		const char *t = p + 5, *te = strchr(t, '\n');
		sb_printf(&got, "%.*s\n", (int)(te - t), t);
	}
	if (strcmp(sb_str(&want), sb_str(&got)) != 0) {
		FILE *f = fopen("/tmp/ctxscope-keys.roff", "w");
		if (f) {
			fputs(sb_str(&want), f);
			fclose(f);
		}
		fail_msg("ui/doc/ctxscope.1's KEYS tags differ from the tables (want: /tmp/ctxscope-keys.roff):\n%s",
			 sb_str(&got));
	}
	cs_free(man);
	sb_fini(&want);
	sb_fini(&got);
}

/* Every flag of the list's legend (vm_flag_legend, which the ? help prints)
 * has its entry under the man page's FLAGS. */
static void test_man_page_and_help_know_every_flag(void **state)
{
	(void)state;
	char *man = NULL;
	size_t len = 0;
	struct cs_error err;
	assert_int_equal(file_read("ui/doc/ctxscope.1", 0, &man, &len, NULL, &err), CS_OK);
	struct strbuf flags = STRBUF_INIT;
	const char *a = strstr(man, "\n.SH FLAGS\n"), *b = a ? strstr(a + 1, "\n.SH ") : NULL;
	assert_non_null(b);
	sb_printf(&flags, "%.*s", (int)(b - a), a);
	size_t n = 0;
	for (const struct vm_flag_meaning *m = vm_flag_legend; m->flag; m++, n++) {
		char want[16];
		snprintf(want, sizeof want, "\n.B %s%c\n", m->flag == '-' ? "\\" : "", m->flag);
		if (!strstr(sb_str(&flags), want))
			fail_msg("ui/doc/ctxscope.1's FLAGS lack %c (%s)", m->flag, m->words);
	}
	assert_int_equal(n, 7); /* x - ~ * ! ? ^ */
	cs_free(man);
	sb_fini(&flags);
}

/* The intros of --help, the man page and the README name every kind of the
 * kind table by its title. */
static void test_intros_name_every_kind(void **state)
{
	(void)state;
	char *man = NULL, *readme = NULL;
	size_t len = 0;
	struct cs_error err;
	assert_int_equal(file_read("ui/doc/ctxscope.1", 0, &man, &len, NULL, &err), CS_OK);
	assert_int_equal(file_read("README.md", 0, &readme, &len, NULL, &err), CS_OK);
	struct strbuf help = STRBUF_INIT, usage = STRBUF_INIT, desc = STRBUF_INIT, intro = STRBUF_INIT;
	cli_usage(&usage);
	section_of(sb_str(&usage), "", "usage:", &help);
	section_of(man, ".SH DESCRIPTION\n", "\n.PP", &desc);
	section_of(readme, "**What did the model actually see?**", "\n## ", &intro);
	for (size_t k = 0; kind_table[k]; k++) {
		const char *t = kind_table[k]->title;
		if (!strstr(sb_str(&help), t))
			fail_msg("--help's opening lacks \"%s\"", t);
		if (!strstr(sb_str(&desc), t))
			fail_msg("the man page's DESCRIPTION lacks \"%s\"", t);
		if (!strstr(sb_str(&intro), t))
			fail_msg("the README's opening lacks \"%s\"", t);
	}
	cs_free(man);
	cs_free(readme);
	sb_fini(&help);
	sb_fini(&usage);
	sb_fini(&desc);
	sb_fini(&intro);
}

/* ---- themes ------------------------------------------------------------------ */

static void test_theme_parse_good(void **state)
{
	(void)state;
	const char *text = "# a comment\n\n"
			   "cursor  bright-yellow  color17  bold reverse  # trailing comment\n"
			   "bar-2   200 default\r\n";
	struct theme t;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(theme_parse(text, strlen(text), &t, &err), CS_OK);
	assert_int_equal(t.styles[ROLE_CURSOR].fg, 11);
	assert_int_equal(t.styles[ROLE_CURSOR].bg, 17);
	assert_int_equal(t.styles[ROLE_CURSOR].attrs, ATTR_BOLD | ATTR_REVERSE);
	assert_int_equal(t.styles[ROLE_BAR2].fg, 200);
	assert_int_equal(t.styles[ROLE_BAR2].bg, COLOR_DEFAULT);
	/* roles not named keep the built-in default */
	struct theme d;
	theme_default(&d);
	assert_memory_equal(&t.styles[ROLE_TITLE], &d.styles[ROLE_TITLE], sizeof d.styles[0]);
}

static void test_theme_parse_broken_falls_back(void **state)
{
	(void)state;
	struct {
		const char *text;
		long line, column;
		const char *says;
	} cases[] = {
		{ "normal default default\ncursr red default\n", 2, 1, "unknown role \"cursr\"" },
		{ "title purple default\n", 1, 7, "unknown colour \"purple\"" },
		{ "title red\n", 1, 1, "needs a foreground and a background" },
		{ "title red default blinking\n", 1, 19, "unknown attribute \"blinking\"" },
		{ "title 256 default\n", 1, 7, "unknown colour \"256\"" },
	};
	struct theme d;
	theme_default(&d);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct theme t;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(theme_parse(cases[i].text, strlen(cases[i].text), &t, &err), CS_ESYNTAX);
		assert_int_equal(err.line, cases[i].line);
		assert_int_equal(err.column, cases[i].column);
		assert_non_null(strstr(err.message, cases[i].says));
		/* a broken theme never half-applies */
		assert_memory_equal(t.styles, d.styles, sizeof d.styles);
	}
}

static void test_shipped_themes(void **state)
{
	(void)state;
	const char *dirs[] = { "/nonexistent", "themes" };
	const char *names[] = { "default", "light", "monochrome", "high-contrast" };
	struct theme d;
	theme_default(&d);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[64];
		snprintf(path, sizeof path, "themes/%s.theme", names[i]);
		struct theme t;
		struct cs_error err;
		cs_error_clear(&err);
		if (theme_load(path, dirs, 2, &t, &err) != CS_OK)
			fail_msg("%s: %s", path, err.message);
		assert_string_equal(t.name, names[i]);
		if (i == 0) /* the shipped default is the built-in one */
			assert_memory_equal(t.styles, d.styles, sizeof d.styles);
		if (i == 2)
			assert_false(t.has_color);
		else
			assert_true(t.has_color);
	}
	/* by name, through the folder list; a missing one says so */
	struct theme t;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(theme_load("light", dirs, 2, &t, &err), CS_OK);
	assert_int_equal(t.styles[ROLE_NORMAL].bg, 7);
	assert_int_equal(theme_load("no-such-theme", dirs, 2, &t, &err), CS_EIO);
	assert_memory_equal(t.styles, d.styles, sizeof d.styles);
}

/* ---- bars -------------------------------------------------------------------- */

static void test_bar_eighths(void **state)
{
	(void)state;
	assert_int_equal(vm_bar_eighths(0, 1000, 10), 0);
	assert_int_equal(vm_bar_eighths(-5, 1000, 10), 0);
	assert_int_equal(vm_bar_eighths(5, 0, 10), 0);
	assert_int_equal(vm_bar_eighths(1, 100000, 10), 1);   /* never invisible when non-zero */
	assert_int_equal(vm_bar_eighths(500, 1000, 10), 40);  /* half of 10 cells */
	assert_int_equal(vm_bar_eighths(1000, 1000, 10), 80);
	assert_int_equal(vm_bar_eighths(3000, 1000, 10), 80); /* over the budget stays in its box */
	assert_int_equal(vm_bar_eighths(1, 16, 2), 1);        /* exactly one eighth of 2 cells */
	assert_int_equal(vm_bar_eighths(5, 32, 2), 3);        /* 2.5 eighths rounds to 3 */
	assert_int_equal(vm_bar_eighths(84, 1600, 51), 21);   /* 21.42 -> 21 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keymap_matches_table),
		cmocka_unit_test(test_help_matches_table),
		cmocka_unit_test(test_key_names_round_trip),
		cmocka_unit_test(test_man_page_documents_every_action),
		cmocka_unit_test(test_man_page_keys_come_from_the_tables),
		cmocka_unit_test(test_man_page_and_help_know_every_flag),
		cmocka_unit_test(test_intros_name_every_kind),
		cmocka_unit_test(test_theme_parse_good),
		cmocka_unit_test(test_theme_parse_broken_falls_back),
		cmocka_unit_test(test_shipped_themes),
		cmocka_unit_test(test_bar_eighths),
	};
	return cmocka_run_group_tests_name("keys and themes", tests, NULL, NULL);
}

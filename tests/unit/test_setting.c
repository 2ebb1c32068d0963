/* test_setting.c: typed settings (setting.h) over every kind's table: each
 * value reads back exactly through print and parse (undo relies on it), each
 * default the table states is what a loaded sample holds, each type refuses
 * what it cannot take with a sentence naming the setting and changes nothing,
 * and --help and the man page list every setting from the same table. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "cli.h"
#include "command.h"
#include "base/fileio.h"
#include "kind.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <string.h>

/* One sample per kind, in kind_table's order. */
static const char *const samples[] = {
	"samples/manifest/bugfix/working-set.yml",
	"samples/loom/parser-debug.json",
	"samples/ledger/backup-incident.json",
	"samples/memory/coding-session.json",
	"samples/claude-code/session.jsonl",
	"tests/golden/request/shapes/session.har",
	"tests/golden/request/shapes/msgbatch.json",
	"tests/golden/request/shapes/openai_batch.jsonl",
	"tests/golden/request/shapes/capture-claude.jsonl",
	"tests/golden/request/shapes/litellm.jsonl",
	"samples/requests/anthropic-tools.json",
	"samples/requests/openai-chat.json",
};

static struct source *load_kind(size_t k)
{
	struct source *src = support_load(samples[k], NULL);
	assert_ptr_equal(src->kind, kind_table[k]);
	return src;
}

static void test_every_kind_has_a_sample(void **state)
{
	(void)state;
	size_t n = 0;
	while (kind_table[n])
		n++;
	assert_int_equal(n, sizeof samples / sizeof *samples);
}

/* get -> set -> get gives the same text, and the defaults stated hold. */
static void test_values_read_back_and_defaults_hold(void **state)
{
	(void)state;
	for (size_t k = 0; kind_table[k]; k++) {
		struct source *src = load_kind(k);
		for (const struct setting *s = src->kind->settings; s && s->name; s++) {
			struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
			setting_get(src, s, &before);
			assert_false(before.failed);
			if (s->def && strcmp(sb_str(&before), s->def) != 0)
				fail_msg("%s %s: the table says the default is %s, the sample holds %s", src->kind->name,
					 s->name, s->def, sb_str(&before));
			struct cs_error err;
			cs_error_clear(&err);
			if (setting_set(src, s, sb_str(&before), &err) != CS_OK)
				fail_msg("%s %s %s: %s", src->kind->name, s->name, sb_str(&before), err.message);
			setting_get(src, s, &after);
			assert_string_equal(sb_str(&after), sb_str(&before));
			sb_fini(&before);
			sb_fini(&after);
		}
		source_free(src);
	}
}

/* A value each type refuses; NULL when any text goes (checked by a hook). */
static const char *refused(const struct setting *s)
{
	switch (s->type) {
	case SETTING_BOOL: return "maybe";
	case SETTING_ENUM: return "no-such-choice";
	case SETTING_INT: return "1.5";
	case SETTING_NUMBER: return "lots";
	case SETTING_TOKENS: return "-5";
	case SETTING_WEIGHTS:
	case SETTING_PERCENT: return "no-such-entry";
	case SETTING_TEXT:
	case SETTING_PIECE: return NULL;
	}
	return NULL;
}

static void test_each_type_refuses_and_changes_nothing(void **state)
{
	(void)state;
	for (size_t k = 0; kind_table[k]; k++) {
		struct source *src = load_kind(k);
		for (const struct setting *s = src->kind->settings; s && s->name; s++) {
			const char *bad = refused(s);
			if (!bad)
				continue;
			struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
			setting_get(src, s, &before);
			struct cs_error err;
			cs_error_clear(&err);
			assert_int_equal(setting_set(src, s, bad, &err), CS_EUSAGE);
			if (!strstr(err.message, s->name) || !strstr(err.message, bad))
				fail_msg("%s %s %s: \"%s\" names neither", src->kind->name, s->name, bad, err.message);
			setting_get(src, s, &after);
			assert_string_equal(sb_str(&after), sb_str(&before));
			sb_fini(&before);
			sb_fini(&after);
		}
		source_free(src);
	}
}

/* One parse and one print per type, at their edges. */
static void test_types_parse_and_print(void **state)
{
	(void)state;
	static const char *const names[] = { "a", "b", NULL };
	static const char *const on_off[] = { "on", "off" };
	const struct setting in = { .name = "n", .type = SETTING_INT, .min = 0, .max = 10, .unset = "input" };
	const struct setting num = { .name = "x", .type = SETTING_NUMBER, .min = 0.5, .max = 64 };
	const struct setting sw = { .name = "s", .type = SETTING_BOOL, .words = on_off, .arg = "on|off" };
	const struct setting w = { .name = "w", .type = SETTING_WEIGHTS, .choices = names, .min = 0, .max = 1 };
	struct setting_value v;
	struct cs_error err;
	struct strbuf out = STRBUF_INIT;

	assert_int_equal(setting_parse(&in, "10", NULL, &v, &err), CS_OK);
	assert_true(v.number == 10);
	assert_int_equal(setting_parse(&in, "input", NULL, &v, &err), CS_OK);
	setting_print(&in, &v, &out);
	assert_string_equal(sb_str(&out), "input");
	assert_int_equal(setting_parse(&in, "11", NULL, &v, &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "whole number from 0 to 10"));
	assert_int_equal(setting_parse(&in, "-1", NULL, &v, &err), CS_EUSAGE);

	assert_int_equal(setting_parse(&num, "3.5", NULL, &v, &err), CS_OK);
	sb_reset(&out);
	setting_print(&num, &v, &out);
	assert_string_equal(sb_str(&out), "3.5");
	assert_int_equal(setting_parse(&num, "0.4", NULL, &v, &err), CS_EUSAGE);
	assert_int_equal(setting_parse(&num, "nan", NULL, &v, &err), CS_EUSAGE);

	assert_false(setting_is_switch(&sw)); /* it says on|off: it takes a value */
	assert_int_equal(setting_parse(&sw, "true", NULL, &v, &err), CS_OK);
	sb_reset(&out);
	setting_print(&sw, &v, &out);
	assert_string_equal(sb_str(&out), "on");

	const double base[2] = { 0.25, 0.75 };
	assert_int_equal(setting_parse(&w, "b 0.1", base, &v, &err), CS_OK); /* as typed after ':' */
	assert_true(v.list[0] == 0.25 && v.list[1] == 0.1);
	sb_reset(&out);
	setting_print(&w, &v, &out);
	assert_string_equal(sb_str(&out), "a=0.25,b=0.1");
	assert_int_equal(setting_parse(&w, "a=2", base, &v, &err), CS_EUSAGE);
	assert_string_equal(err.message, "w a takes a number from 0 to 1, not \"2\"");
	assert_int_equal(setting_parse(&w, "c=1", base, &v, &err), CS_EUSAGE);
	assert_string_equal(err.message, "unknown w \"c\": expected a, b");
	sb_fini(&out);
}

/* --help lists every setting as the table says; the man page holds the
 * block setting_man_lines writes from the tables, as is; no two settings
 * share a name (--NAME would be ambiguous). */
static void test_help_and_man_page_list_every_setting(void **state)
{
	(void)state;
	struct strbuf help = STRBUF_INIT, block = STRBUF_INIT;
	cli_usage(&help);
	setting_man_lines(setting_common, NULL, &block);
	for (size_t k = 0; k == 0 || kind_table[k - 1]; k++) {
		const struct setting *list = k == 0 ? setting_common : kind_table[k - 1]->settings;
		bool shown = false; /* kinds sharing a table: listed once, under all their names */
		for (size_t j = 0; k > 0 && j + 1 < k; j++)
			shown |= kind_table[j]->settings == list;
		if (shown)
			continue;
		if (k > 0) {
			struct strbuf names = STRBUF_INIT;
			for (size_t j = k - 1, n = 0; kind_table[j]; j++)
				if (kind_table[j]->settings == list)
					sb_printf(&names, "%s%s", n++ ? ", " : "", kind_table[j]->name);
			setting_man_lines(list, sb_str(&names), &block);
			sb_fini(&names);
		}
		for (const struct setting *s = list; s && s->name; s++) {
			assert_non_null(s->help);
			struct strbuf line = STRBUF_INIT;
			setting_help_lines((const struct setting[]){ *s, { .name = NULL } }, &line);
			if (!strstr(sb_str(&help), sb_str(&line)))
				fail_msg("--help lacks %s", sb_str(&line));
			sb_fini(&line);
			assert_ptr_equal(setting_find(NULL, s->name), s);
		}
	}
	char *man = NULL;
	size_t len = 0;
	struct cs_error err;
	assert_int_equal(file_read("ui/doc/ctxscope.1", 0, &man, &len, NULL, &err), CS_OK);
	bool found = strstr(man, sb_str(&block)) != NULL;
	cs_free(man);
	if (!found) {
		FILE *f = fopen("/tmp/ctxscope-settings.roff", "w");
		if (f) {
			fputs(sb_str(&block), f);
			fclose(f);
		}
		fail_msg("ui/doc/ctxscope.1's settings differ from the tables: put /tmp/ctxscope-settings.roff in its place");
	}
	sb_fini(&help);
	sb_fini(&block);
}

/* The command line's own flags (not settings): each has a line in --help
 * and an entry in the man page (".B \-\-NAME" or ".BI \-\-NAME \" ARG\""). */
static void test_help_and_man_page_list_every_flag(void **state)
{
	(void)state;
	struct strbuf help = STRBUF_INIT;
	cli_usage(&help);
	char *man = NULL;
	size_t len = 0;
	struct cs_error err;
	assert_int_equal(file_read("ui/doc/ctxscope.1", 0, &man, &len, NULL, &err), CS_OK);
	size_t n = 0;
	for (const char *name; (name = cli_flag_name(n)); n++) {
		char want[80];
		snprintf(want, sizeof want, "\n  --%s ", name);
		if (!strstr(sb_str(&help), want))
			fail_msg("--help lacks --%s", name);
		struct strbuf roff = STRBUF_INIT, entry = STRBUF_INIT;
		for (const char *p = name; *p; p++)
			sb_puts(&roff, *p == '-' ? "\\-" : (char[]){ *p, 0 });
		sb_printf(&entry, ".B \\-\\-%s\n", sb_str(&roff));
		bool found = strstr(man, sb_str(&entry)) != NULL;
		sb_reset(&entry);
		sb_printf(&entry, ".BI \\-\\-%s \"", sb_str(&roff));
		found = found || strstr(man, sb_str(&entry)) != NULL;
		sb_fini(&roff);
		sb_fini(&entry);
		if (!found)
			fail_msg("ui/doc/ctxscope.1 has no entry for --%s", name);
	}
	assert_true(n >= 19); /* the table, not an empty one */
	assert_non_null(strstr(man, ".B ctxscope save"));
	cs_free(man);
	sb_fini(&help);
}

/* cli_parse on copies of args (it borrows them: valid until the next call). */
static int parse_args(struct cli *cli, struct cs_error *err, size_t n, const char *const *args)
{
	static char pool[64][64];
	static char *argv[64];
	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++) {
		snprintf(pool[i], sizeof pool[i], "%s", args[i]);
		argv[i] = pool[i];
	}
	cs_error_clear(err);
	return cli_parse((int)n, argv, cli, err);
}
#define ARGS(...) (const char *const[]){ __VA_ARGS__ }
#define PARSE(cli, err, ...) parse_args(cli, err, sizeof ARGS(__VA_ARGS__) / sizeof(const char *), ARGS(__VA_ARGS__))

/* The command line: its own flags from their table, settings after them in
 * order (a switch alone is true, a BOOL that says on|off takes its value). */
static void test_command_line(void **state)
{
	(void)state;
	static const char *const argv[] = { "ctxscope", "report", "--raw", "--force", "--no-mouse", "--ascii",
			 "--kind", "memory",
			 "--assembly-file=a.json", "--screen", "80x24", "--keys", "j", "--theme", "light", "--edits", "e.json",
			 "--profile", "openai", "--baseline", "b.json", "--format=json", "--allocation-caps", "off",
			 "--loom-aware", "--next=false", "--budget", "100k", "--breakpoint", "x", "--no-breakpoint=y",
			 "--baseline-edit", "budget=9", "--", "-file" };
	struct cli cli;
	struct cs_error err;
	if (parse_args(&cli, &err, sizeof argv / sizeof *argv, argv) != CS_OK)
		fail_msg("%s", err.message);
	assert_int_equal(cli.command, CLI_REPORT);
	assert_true(cli.raw && cli.force && cli.no_mouse && cli.ascii);
	assert_string_equal(cli.kind, "memory");
	assert_string_equal(cli.assembly_file, "a.json");
	assert_null(cli.deprecated);
	assert_string_equal(cli.screen, "80x24");
	assert_string_equal(cli.keys, "j");
	assert_string_equal(cli.theme, "light");
	assert_string_equal(cli.edits, "e.json");
	assert_string_equal(cli.profile, "openai");
	assert_string_equal(cli.baseline, "b.json");
	assert_int_equal(cli.format, REPORT_JSON);
	assert_int_equal(cli.nsettings, 4);
	const char *expect[][2] = { { "allocation-caps", "off" }, { "loom-aware", "true" }, { "next", "false" },
				    { "budget", "100k" } };
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(cli.settings[i].name, expect[i][0]);
		assert_string_equal(cli.settings[i].value, expect[i][1]);
	}
	assert_int_equal(cli.nbreakpoints, 2);
	assert_true(cli.breakpoint_on[0] && !cli.breakpoint_on[1]);
	assert_string_equal(cli.breakpoints[1], "y");
	assert_int_equal(cli.nbaseline_edits, 1);
	assert_string_equal(cli.file, "-file");
	assert_null(cli.output);

	/* --output belongs to save */
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "report", "f.yml", "--output", "o.yml"), CS_EUSAGE);
	assert_string_equal(err.message, "unknown option --output (see --help)");
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "save", "f.yml", "--output", "o.yml"), CS_OK);
	assert_string_equal(cli.output, "o.yml");
	/* mistakes */
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "f.yml", "--min-recent"), CS_EUSAGE);
	assert_string_equal(err.message, "--min-recent needs a value");
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "f.yml", "--format", "xml"), CS_EUSAGE);
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "f.yml", "--baseline-edit", "budget"), CS_EUSAGE);
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "a.yml", "b.yml"), CS_EUSAGE);
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "a.yml", "--keys", "j"), CS_EUSAGE);
	assert_int_equal(PARSE(&cli, &err, "ctxscope", "--help"), CS_OK);
	assert_int_equal(cli.command, CLI_HELP);
}

/* `:set NAME ` completes what the setting's type takes. */
static void test_set_completes_by_type(void **state)
{
	(void)state;
	struct source *src = load_kind(3); /* memory */
	struct command_completion c;
	struct cs_error err;
	assert_int_equal(command_complete(src, NULL, ":set archetype ", &c, &err), CS_OK);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.items[2], "research");
	command_completion_fini(&c);
	assert_int_equal(command_complete(src, NULL, ":set allocation-caps o", &c, &err), CS_OK);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.items[0], "on");
	command_completion_fini(&c);
	assert_int_equal(command_complete(src, NULL, ":set weight ", &c, &err), CS_OK);
	assert_int_equal(c.n, 0);
	command_completion_fini(&c);
	source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_has_a_sample),
		cmocka_unit_test(test_values_read_back_and_defaults_hold),
		cmocka_unit_test(test_each_type_refuses_and_changes_nothing),
		cmocka_unit_test(test_types_parse_and_print),
		cmocka_unit_test(test_help_and_man_page_list_every_setting),
		cmocka_unit_test(test_help_and_man_page_list_every_flag),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_set_completes_by_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_command.c: the `:` command line: every command parsed into the edit
 * or the code and argument it stands for, on a manifest and on a loom tree;
 * prefixes and aliases; every kind of error with its sentence; completion of
 * command names, strategies, piece ids, options, profiles, sort keys, themes
 * and export formats, with the word it replaces and the common prefix. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "command.h"
#include "edit.h"
#include "kind.h"
#include "source.h"
#include "vm/viewmodel.h"
#include "support.h"

#include <stdio.h>
#include <string.h>

#define MANIFEST "samples/manifest/bugfix/working-set.yml"
#define LOOM "samples/loom/parser-debug.json"

static struct command parse_ok(struct source *src, const char *line)
{
	struct command c;
	struct cs_error err;
	cs_error_clear(&err);
	if (command_parse(src, line, &c, &err) != CS_OK)
		fail_msg("%s: %s", line, err.message);
	return c;
}

/* Parses a line that must fail; returns the sentence. */
static const char *parse_error(struct source *src, const char *line)
{
	static struct cs_error err;
	struct command c;
	cs_error_clear(&err);
	assert_int_equal(command_parse(src, line, &c, &err), CS_EUSAGE);
	return err.message;
}

static void test_edit_commands_manifest(void **state)
{
	(void)state;
	struct source *src = support_load(MANIFEST, NULL);
	long bucket = support_piece(src, "src/throttle/bucket.py");
	long task = support_piece(src, "current_task.md");

	struct command c = parse_ok(src, ":budget 100k");
	assert_int_equal(c.code, CMD_BUDGET);
	assert_true(c.is_edit);
	assert_int_equal(c.edit.type, EDIT_BUDGET);
	assert_true(c.edit.value == 100000);

	c = parse_ok(src, "  :  strategy src/throttle/bucket.py=start  ");
	assert_int_equal(c.code, CMD_STRATEGY);
	assert_int_equal(c.edit.type, EDIT_PIECE_STRATEGY);
	assert_int_equal(c.edit.piece, bucket);
	assert_int_equal((int)c.edit.value, STRAT_START);
	assert_string_equal(c.arg, "src/throttle/bucket.py=start");

	c = parse_ok(src, ":exclude current_task.md");
	assert_int_equal(c.edit.type, EDIT_EXCLUDE);
	assert_int_equal(c.edit.piece, task);
	assert_true(c.edit.value == 1);
	c = parse_ok(src, ":include current_task.md");
	assert_int_equal(c.code, CMD_INCLUDE);
	assert_true(c.edit.value == 0);

	c = parse_ok(src, ":priority src/throttle/bucket.py=0.9");
	assert_int_equal(c.edit.type, EDIT_PRIORITY);
	assert_int_equal(c.edit.piece, bucket);
	assert_true(c.edit.value == 0.9);

	c = parse_ok(src, ":chars-per-token 3.5");
	assert_int_equal(c.edit.type, EDIT_CHARS_PER_TOKEN);
	assert_true(c.edit.value == 3.5);

	/* :set: any setting, NAME VALUE or NAME=VALUE; a switch alone is true */
	c = parse_ok(src, ":set boot-header");
	assert_int_equal(c.code, CMD_SET);
	assert_int_equal(c.edit.type, EDIT_OPTION);
	assert_string_equal(c.edit.option, "boot-header");
	assert_string_equal(c.edit.text, "true");
	c = parse_ok(src, ":set boot-header=false");
	assert_string_equal(c.edit.text, "false");
	c = parse_ok(src, ":set budget 2k");
	assert_int_equal(c.edit.type, EDIT_BUDGET);
	assert_true(c.edit.value == 2000);

	/* parsing applies nothing */
	assert_int_equal(src->pieces[task].user_excluded, -1);
	assert_true(src->pieces[bucket].priority == 0.8);
	source_free(src);
}

static void test_edit_commands_loom(void **state)
{
	(void)state;
	struct source *src = support_load(LOOM, NULL);
	struct command c = parse_ok(src, ":strategy rollingWindow");
	assert_int_equal(c.edit.type, EDIT_STRATEGY);
	assert_int_equal((int)c.edit.value, STRAT_ROLLING_WINDOW);

	c = parse_ok(src, ":set min-recent 8");
	assert_int_equal(c.edit.type, EDIT_OPTION);
	assert_string_equal(c.edit.option, "min-recent");
	assert_string_equal(c.edit.text, "8");

	c = parse_ok(src, ":exclude n05");
	assert_int_equal(c.edit.piece, support_piece(src, "n05"));

	/* a loom tree's strategies are whole-assembly ones, and only those */
	assert_non_null(strstr(parse_error(src, ":strategy middle"), "unknown strategy \"middle\""));
	assert_non_null(strstr(parse_error(src, ":strategy middle"), "truncateMiddle, rollingWindow"));
	assert_non_null(strstr(parse_error(src, ":set min-recent"), ":set min-recent needs a value"));
	/* an option's value is the kind's to judge, when the edit is applied */
	c = parse_ok(src, ":set min-recent lots");
	struct cs_error err;
	assert_int_equal(edit_apply(src, &c.edit, &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "whole number"));
	source_free(src);
}

static void test_other_commands(void **state)
{
	(void)state;
	struct source *src = support_load(MANIFEST, NULL);
	struct command c = parse_ok(src, ":profile openai");
	assert_int_equal(c.code, CMD_PROFILE);
	assert_false(c.is_edit);
	assert_string_equal(c.arg, "openai");

	c = parse_ok(src, ":sort tokens");
	assert_int_equal(c.code, CMD_SORT);
	assert_string_equal(c.arg, "tokens");

	c = parse_ok(src, ":theme light");
	assert_int_equal(c.code, CMD_THEME);
	assert_string_equal(c.arg, "light");

	c = parse_ok(src, ":save");
	assert_int_equal(c.code, CMD_SAVE);
	c = parse_ok(src, ":w");
	assert_int_equal(c.code, CMD_SAVE);
	c = parse_ok(src, ":save-as tuned/working-set.yml");
	assert_int_equal(c.code, CMD_SAVE_AS);
	assert_string_equal(c.arg, "tuned/working-set.yml");

	c = parse_ok(src, ":export report.yml");
	assert_int_equal(c.code, CMD_EXPORT);
	assert_string_equal(c.arg, "report.yml");
	assert_string_equal(c.format, "");
	c = parse_ok(src, ":export my report.out   json ");
	assert_string_equal(c.arg, "my report.out");
	assert_string_equal(c.format, "json");
	c = parse_ok(src, ":export screen.txt screen");
	assert_string_equal(c.arg, "screen.txt");
	assert_string_equal(c.format, "screen");

	assert_int_equal(parse_ok(src, ":undo").code, CMD_UNDO);
	assert_int_equal(parse_ok(src, ":redo").code, CMD_REDO);
	assert_int_equal(parse_ok(src, ":q").code, CMD_QUIT);
	assert_int_equal(parse_ok(src, ":quit").code, CMD_QUIT);
	assert_int_equal(parse_ok(src, ":").code, CMD_NONE);
	assert_int_equal(parse_ok(src, "   ").code, CMD_NONE);

	/* a prefix only one command has */
	c = parse_ok(src, ":bud 24000");
	assert_int_equal(c.code, CMD_BUDGET);
	assert_true(c.edit.value == 24000);
	assert_int_equal(parse_ok(src, ":pro anthropic").code, CMD_PROFILE);
	assert_int_equal(parse_ok(src, ":so priority").code, CMD_SORT);
	source_free(src);
}

/* For every kind, `:sort KEY` accepts exactly the keys `s` cycles through,
 * and the list then sorts by it. */
static void test_sort_keys_agree_with_s(void **state)
{
	(void)state;
	static const char *const samples[] = { MANIFEST, LOOM, "samples/ledger/backup-incident.json",
						"samples/memory/coding-session.json", "samples/requests/anthropic-tools.json",
						"samples/requests/openai-chat.json", "samples/claude-code/session.jsonl",
						"samples/requests/log-timestamp-broken.jsonl",
						"tests/golden/request/shapes/litellm.jsonl",
						"tests/golden/request/shapes/openai_batch.jsonl",
						"tests/golden/request/shapes/msgbatch.json",
						"tests/golden/request/shapes/session.har" };
	static const char *const candidates[] = { "order", "tokens", "priority", "score", "prompt", "name",
						   "reason", "size", "" };
	bool covered[32] = { false }; /* per kind of the table */
	for (size_t k = 0; k < sizeof samples / sizeof *samples; k++) {
		struct vm vm;
		struct cs_error err;
		assert_int_equal(vm_init(&vm, support_load(samples[k], NULL), &err), CS_OK);
		size_t ki = 0;
		while (kind_table[ki] && kind_table[ki] != vm.session.src->kind)
			ki++;
		covered[ki] = true;
		/* what s cycles through, from the assembly order back to it */
		const char *cycled[VM_SORT_COUNT + 1] = { vm_sort_name(vm.sort) };
		size_t n = 1;
		for (vm_cycle_sort(&vm); strcmp(vm_sort_name(vm.sort), cycled[0]) && n <= VM_SORT_COUNT; vm_cycle_sort(&vm))
			cycled[n++] = vm_sort_name(vm.sort);
		assert_true(n <= VM_SORT_COUNT);
		for (size_t c = 0; c < sizeof candidates / sizeof *candidates; c++) {
			bool in_cycle = false;
			for (size_t i = 0; i < n; i++)
				in_cycle |= !strcmp(cycled[i], candidates[c]);
			char line[64];
			snprintf(line, sizeof line, ":sort %s", candidates[c]);
			struct command cmd;
			cs_error_clear(&err);
			int rc = command_parse(vm.session.src, line, &cmd, &err);
			if (in_cycle != (rc == CS_OK))
				fail_msg("%s: %s %s, s %s it", vm.session.src->kind->name, line, rc == CS_OK ? "accepted" : "refused",
					 in_cycle ? "cycles to" : "never reaches");
			if (in_cycle) {
				assert_true(vm_set_sort(&vm, candidates[c]));
				assert_string_equal(vm_sort_name(vm.sort), candidates[c]);
				assert_false(vm.status_error);
			} else {
				assert_false(vm_set_sort(&vm, candidates[c]));
				assert_true(vm.status_error);
			}
		}
		/* completion offers the same keys, in the same order */
		struct command_completion comp;
		assert_int_equal(command_complete(vm.session.src, NULL, ":sort ", &comp, &err), CS_OK);
		assert_int_equal(comp.n, n);
		for (size_t i = 0; i < n; i++)
			assert_string_equal(comp.items[i], cycled[i]);
		command_completion_fini(&comp);
		vm_fini(&vm);
	}
	for (size_t ki = 0; kind_table[ki]; ki++)
		if (!covered[ki])
			fail_msg("no sample of kind %s here", kind_table[ki]->name);
}

static void test_errors(void **state)
{
	(void)state;
	struct source *src = support_load(MANIFEST, NULL);
	assert_string_equal(parse_error(src, ":frobnicate"), "no command \"frobnicate\" (Tab lists them)");
	assert_string_equal(parse_error(src, ":s x"), "\"s\" is ambiguous: strategy, set, sort, save, save-as");
	assert_string_equal(parse_error(src, ":sa x"), "\"sa\" is ambiguous: save, save-as");
	assert_string_equal(parse_error(src, ":budget"), ":budget needs N: usable budget in tokens (24000, 100k, 1.5M); overrides the input's");
	assert_string_equal(parse_error(src, ":save now"), ":save takes no argument");
	assert_string_equal(parse_error(src, ":q!"), "no command \"q!\" (Tab lists them)");
	assert_string_equal(parse_error(src, ":sort size"),
			    "no sort key \"size\": expected order, tokens, priority");
	/* a manifest's pieces have no score: not a key of its list */
	assert_string_equal(parse_error(src, ":sort score"), "no sort key \"score\": expected order, tokens, priority");
	assert_non_null(strstr(parse_error(src, ":budget lots"), "is not a token count"));
	assert_non_null(strstr(parse_error(src, ":exclude nope.md"), "no path \"nope.md\""));
	assert_non_null(strstr(parse_error(src, ":priority current_task.md"), "--priority takes path=P"));
	assert_non_null(strstr(parse_error(src, ":strategy rollingWindow"), "strategies are per path"));
	assert_non_null(strstr(parse_error(src, ":set colour blue"), "has no setting \"colour\""));
	assert_non_null(strstr(parse_error(src, ":chars-per-token 0"), "from 0.5 to 64"));

	char longline[COMMAND_LINE_MAX + 16];
	memset(longline, 'a', sizeof longline - 1);
	longline[sizeof longline - 1] = '\0';
	memcpy(longline, ":save-as ", 9);
	assert_non_null(strstr(parse_error(src, longline), "longer than"));
	source_free(src);
}

static void complete_ok(const struct source *src, const struct command_names *names, const char *line,
			struct command_completion *c)
{
	struct cs_error err;
	assert_int_equal(command_complete(src, names, line, c, &err), CS_OK);
}

static void test_complete_names(void **state)
{
	(void)state;
	struct command_completion c;
	complete_ok(NULL, NULL, ":", &c);
	assert_int_equal(c.n, CMD_COUNT);
	assert_string_equal(c.items[0], "budget");
	assert_int_equal(c.word_start, 1);
	assert_int_equal(c.common_bytes, 0);
	command_completion_fini(&c);

	complete_ok(NULL, NULL, ":s", &c);
	assert_int_equal(c.n, 5);
	assert_string_equal(c.items[0], "strategy");
	assert_string_equal(c.items[4], "save-as");
	assert_int_equal(c.common_bytes, 1);
	command_completion_fini(&c);

	complete_ok(NULL, NULL, "  :sa", &c);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.word_start, 3);
	assert_int_equal(c.common_bytes, 4); /* "save" */
	command_completion_fini(&c);

	complete_ok(NULL, NULL, ":zz", &c);
	assert_int_equal(c.n, 0);
	command_completion_fini(&c);
}

static void test_complete_arguments(void **state)
{
	(void)state;
	struct source *man = support_load(MANIFEST, NULL);
	struct source *loom = support_load(LOOM, NULL);
	struct command_completion c;

	complete_ok(loom, NULL, ":strategy r", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "rollingWindow");
	assert_int_equal(c.word_start, 10);
	command_completion_fini(&c);

	/* a manifest has no whole-assembly strategy: ids, then after '=' strategies */
	complete_ok(man, NULL, ":strategy src/throttle/", &c);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.items[0], "src/throttle/bucket.py");
	assert_string_equal(c.items[1], "src/throttle/registry.py");
	assert_int_equal(c.common_bytes, strlen("src/throttle/"));
	command_completion_fini(&c);
	complete_ok(man, NULL, ":strategy src/throttle/bucket.py=", &c);
	assert_int_equal(c.n, 4); /* never, start, middle, end */
	assert_int_equal(c.word_start, strlen(":strategy src/throttle/bucket.py="));
	command_completion_fini(&c);
	complete_ok(man, NULL, ":strategy src/throttle/bucket.py=m", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "middle");
	command_completion_fini(&c);

	complete_ok(man, NULL, ":exclude c", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "current_task.md");
	command_completion_fini(&c);

	complete_ok(loom, NULL, ":set m", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "min-recent");
	command_completion_fini(&c);
	complete_ok(loom, NULL, ":set loom-aware ", &c);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.items[0], "true");
	command_completion_fini(&c);
	complete_ok(loom, NULL, ":set min-recent ", &c);
	assert_int_equal(c.n, 0); /* a number: nothing to offer */
	command_completion_fini(&c);

	complete_ok(man, NULL, ":profile ", &c);
	assert_int_equal(c.n, 5);
	assert_string_equal(c.items[0], "anthropic");
	command_completion_fini(&c);
	static const char *const mine[] = { "anthropic", "openai", "in-house", NULL };
	static const char *const themes[] = { "default", "light", "mono", NULL };
	struct command_names names = { .profiles = mine, .themes = themes };
	complete_ok(man, &names, ":profile i", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "in-house");
	command_completion_fini(&c);
	complete_ok(man, &names, ":theme l", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "light");
	command_completion_fini(&c);

	complete_ok(man, NULL, ":sort t", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "tokens");
	command_completion_fini(&c);

	complete_ok(man, NULL, ":export out.txt j", &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.items[0], "json");
	assert_int_equal(c.word_start, strlen(":export out.txt "));
	command_completion_fini(&c);
	complete_ok(man, NULL, ":export ou", &c);
	assert_int_equal(c.n, 0); /* file names are the UI's business */
	command_completion_fini(&c);

	complete_ok(man, NULL, ":undo x", &c);
	assert_int_equal(c.n, 0);
	command_completion_fini(&c);

	source_free(man);
	source_free(loom);
}

static void test_complete_out_of_memory(void **state)
{
	(void)state;
	struct source *man = support_load(MANIFEST, NULL);
	struct command_completion c;
	struct cs_error err;
	cs_alloc_fail_from(1);
	int rc = command_complete(man, NULL, ":exclude ", &c, &err);
	cs_alloc_fail_from(0);
	assert_int_equal(rc, CS_ENOMEM);
	assert_null(c.items);
	assert_int_equal(c.n, 0);
	source_free(man);
}

static void test_table(void **state)
{
	(void)state;
	assert_string_equal(command_name(CMD_SAVE_AS), "save-as");
	assert_string_equal(command_arg(CMD_EXPORT), "FILE [FORMAT]");
	assert_null(command_arg(CMD_UNDO));
	assert_string_equal(command_name(CMD_COUNT), "");
	assert_string_equal(command_name(-1), "");
	for (int i = 0; i < CMD_COUNT; i++)
		assert_true(strlen(command_help(i)) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edit_commands_manifest),
		cmocka_unit_test(test_edit_commands_loom),
		cmocka_unit_test(test_other_commands),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_sort_keys_agree_with_s),
		cmocka_unit_test(test_complete_names),
		cmocka_unit_test(test_complete_arguments),
		cmocka_unit_test(test_complete_out_of_memory),
		cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests_name("command", tests, NULL, NULL);
}

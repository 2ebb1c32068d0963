/* test_history.c: undo and redo restore the exact assembly. After every
 * step of a sequence of edits of every type, the whole JSON report and the
 * rendered prompt are kept; undoing walks back through exactly those
 * snapshots, redoing walks forward through them again; a new edit clears
 * the redo stack; the sentences name what was undone; a refused edit leaves
 * everything as it was; and out of memory never half-applies anything. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "edit.h"
#include "history.h"
#include "report.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 16

/* The whole assembly as text: its JSON report (every piece's outcome, reason,
 * tokens, block; budget; layers; flags) and its rendered prompt. malloc'd. */
static char *snapshot(const struct source *src)
{
	struct assembly a;
	support_assemble(src, &a);
	struct strbuf out = STRBUF_INIT;
	struct report_options opt = { .format = REPORT_JSON };
	assert_int_equal(report_write(&a, &opt, &out), CS_OK);
	sb_puts(&out, "\n---prompt---\n");
	assert_true(asm_prompt_text(&a, &out));
	assert_false(out.failed);
	char *s = strdup(sb_str(&out));
	sb_fini(&out);
	asm_fini(&a);
	return s;
}

struct step {
	const char *name, *value;
};

static void apply_setting(struct history *h, struct source *src, const char *name, const char *value,
			  struct strbuf *said)
{
	struct edit e;
	struct cs_error err;
	cs_error_clear(&err);
	if (edit_from_setting(src, name, value, &e, &err) != CS_OK)
		fail_msg("%s %s: %s", name, value, err.message);
	sb_reset(said);
	if (history_apply(h, src, &e, said, &err) != CS_OK)
		fail_msg("%s %s: %s", name, value, err.message);
}

/* Applies the steps, then undoes and redoes them all, comparing with the
 * snapshot taken after each step. */
static void walk(const char *path, const struct step *steps, size_t n)
{
	struct source *src = support_load(path, NULL);
	struct history h;
	history_init(&h);
	struct strbuf said = STRBUF_INIT;
	struct cs_error err;
	char *snap[MAX_STEPS + 1];
	assert_true(n <= MAX_STEPS);

	snap[0] = snapshot(src);
	for (size_t i = 0; i < n; i++) {
		apply_setting(&h, src, steps[i].name, steps[i].value, &said);
		snap[i + 1] = snapshot(src);
		/* every step changes something, or the test proves nothing */
		assert_string_not_equal(snap[i + 1], snap[i]);
	}
	assert_false(history_can_redo(&h));
	for (size_t i = n; i-- > 0;) {
		sb_reset(&said);
		assert_int_equal(history_undo(&h, src, &said, &err), CS_OK);
		assert_true(strncmp(sb_str(&said), "undone: ", 8) == 0);
		char *now = snapshot(src);
		assert_string_equal(now, snap[i]);
		free(now);
	}
	assert_false(history_can_undo(&h));
	assert_int_equal(history_undo(&h, src, &said, &err), CS_EUSAGE);
	assert_string_equal(err.message, "nothing to undo");
	for (size_t i = 0; i < n; i++) {
		sb_reset(&said);
		assert_int_equal(history_redo(&h, src, &said, &err), CS_OK);
		assert_true(strncmp(sb_str(&said), "redone: ", 8) == 0);
		char *now = snapshot(src);
		assert_string_equal(now, snap[i + 1]);
		free(now);
	}
	assert_int_equal(history_redo(&h, src, &said, &err), CS_EUSAGE);
	assert_string_equal(err.message, "nothing to redo");

	for (size_t i = 0; i <= n; i++)
		free(snap[i]);
	sb_fini(&said);
	history_fini(&h);
	source_free(src);
}

static void test_manifest_every_edit_type(void **state)
{
	(void)state;
	static const struct step steps[] = {
		{ "exclude", "current_task.md" },
		{ "priority", "logs/pytest-latest.log=0.9" },
		{ "strategy", "tests/test_bucket.py=middle" },
		{ "budget", "2000" },
		{ "chars-per-token", "3" },
		{ "boot-header", "true" },
		{ "include", "current_task.md" },
		{ "priority", "logs/pytest-latest.log=0.1" }, /* the same piece twice */
	};
	walk("samples/manifest/bugfix/working-set.yml", steps, sizeof steps / sizeof *steps);
}

static void test_loom_strategy_and_options(void **state)
{
	(void)state;
	static const struct step steps[] = {
		{ "budget", "600" },
		{ "strategy", "rollingWindow" },
		{ "include", "n08" },
		{ "loom-aware", "true" },
		{ "min-recent", "2" }, /* undone back to the tree's own value, not an override equal to it */
		{ "strategy", "truncateMiddle" },
		{ "exclude", "n05" },
	};
	walk("samples/loom/parser-debug.json", steps, sizeof steps / sizeof *steps);
}

static void test_new_edit_clears_redo_and_sentences(void **state)
{
	(void)state;
	struct source *src = support_load("samples/manifest/bugfix/working-set.yml", NULL);
	struct history h;
	history_init(&h);
	struct strbuf said = STRBUF_INIT;
	struct cs_error err;

	apply_setting(&h, src, "exclude", "current_task.md", &said);
	assert_string_equal(sb_str(&said), "excluded current_task.md");
	apply_setting(&h, src, "priority", "src/throttle/bucket.py=0.85", &said);
	assert_string_equal(sb_str(&said), "priority of src/throttle/bucket.py 0.80 -> 0.85");

	sb_reset(&said);
	assert_int_equal(history_undo(&h, src, &said, &err), CS_OK);
	assert_string_equal(sb_str(&said), "undone: priority of src/throttle/bucket.py 0.80 -> 0.85");
	long bucket = support_piece(src, "src/throttle/bucket.py");
	assert_true(src->pieces[bucket].priority == 0.8);
	assert_true(history_can_redo(&h));

	/* a new edit: the undone one cannot come back */
	apply_setting(&h, src, "budget", "2500", &said);
	assert_false(history_can_redo(&h));
	assert_int_equal(history_redo(&h, src, &said, &err), CS_EUSAGE);
	size_t n;
	const struct edit *edits = history_edits(&h, &n);
	assert_int_equal(n, 2);
	assert_int_equal(edits[0].type, EDIT_EXCLUDE);
	assert_int_equal(edits[1].type, EDIT_BUDGET);

	sb_reset(&said);
	assert_int_equal(history_undo(&h, src, &said, &err), CS_OK);
	assert_string_equal(sb_str(&said), "undone: budget the input's -> 2,500");
	sb_reset(&said);
	assert_int_equal(history_undo(&h, src, &said, &err), CS_OK);
	assert_string_equal(sb_str(&said), "undone: excluded current_task.md");
	assert_int_equal(src->pieces[support_piece(src, "current_task.md")].user_excluded, -1);

	sb_fini(&said);
	history_fini(&h);
	source_free(src);
}

static void test_refused_edit_changes_nothing(void **state)
{
	(void)state;
	struct source *src = support_load("samples/manifest/bugfix/working-set.yml", NULL);
	struct history h;
	history_init(&h);
	struct strbuf said = STRBUF_INIT;
	struct cs_error err;
	apply_setting(&h, src, "exclude", "current_task.md", &said);
	assert_int_equal(history_undo(&h, src, NULL, &err), CS_OK);
	assert_true(history_can_redo(&h));

	/* a manifest has no whole-assembly strategy: the edit is refused */
	struct edit bad = { .type = EDIT_STRATEGY, .piece = -1, .value = STRAT_ROLLING_WINDOW };
	char *before = snapshot(src);
	assert_int_equal(history_apply(&h, src, &bad, &said, &err), CS_EUSAGE);
	char *after = snapshot(src);
	assert_string_equal(before, after);
	assert_true(history_can_redo(&h)); /* redo survives a refused edit */
	assert_false(history_can_undo(&h));
	free(before);
	free(after);
	sb_fini(&said);
	history_fini(&h);
	source_free(src);
}

static void test_oldest_forgotten_at_the_limit(void **state)
{
	(void)state;
	struct source *src = support_load("samples/manifest/bugfix/working-set.yml", NULL);
	struct history h;
	history_init(&h);
	struct cs_error err;
	for (long i = 0; i < HISTORY_MAX_EDITS + 5; i++) {
		struct edit e = { .type = EDIT_BUDGET, .piece = -1, .value = (double)(1000 + i) };
		assert_int_equal(history_apply(&h, src, &e, NULL, &err), CS_OK);
	}
	assert_int_equal(h.forgotten, 5);
	size_t n;
	const struct edit *edits = history_edits(&h, &n);
	assert_int_equal(n, HISTORY_MAX_EDITS);
	assert_true(edits[0].value == 1005); /* the five oldest are gone */
	assert_true(edits[0].before == 1004);
	long undone = 0;
	while (history_undo(&h, src, NULL, &err) == CS_OK)
		undone++;
	assert_int_equal(undone, HISTORY_MAX_EDITS);
	/* as far back as it remembers: the budget before the oldest kept edit */
	assert_int_equal(src->settings.budget, 1004);
	history_fini(&h);
	source_free(src);
}

static void test_out_of_memory(void **state)
{
	(void)state;
	struct source *src = support_load("samples/manifest/bugfix/working-set.yml", NULL);
	long task = support_piece(src, "current_task.md");
	struct cs_error err;
	bool saw_ok = false;
	for (long n = 1; n < 20 && !saw_ok; n++) {
		struct history h;
		history_init(&h);
		struct edit e;
		assert_int_equal(edit_from_setting(src, "exclude", "current_task.md", &e, &err), CS_OK);
		cs_alloc_fail_from(n);
		int rc = history_apply(&h, src, &e, NULL, &err);
		if (rc == CS_OK)
			rc = history_undo(&h, src, NULL, &err);
		cs_alloc_fail_from(0);
		assert_true(rc == CS_OK || rc == CS_ENOMEM);
		if (rc == CS_OK)
			saw_ok = true;
		else if (history_can_undo(&h))
			assert_int_equal(src->pieces[task].user_excluded, 1); /* applied, undo refused */
		else
			assert_int_equal(src->pieces[task].user_excluded, -1); /* nothing applied */
		if (history_can_undo(&h))
			assert_int_equal(history_undo(&h, src, NULL, &err), CS_OK);
		assert_int_equal(src->pieces[task].user_excluded, -1);
		history_fini(&h);
	}
	assert_true(saw_ok);
	source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_every_edit_type),
		cmocka_unit_test(test_loom_strategy_and_options),
		cmocka_unit_test(test_new_edit_clears_redo_and_sentences),
		cmocka_unit_test(test_refused_edit_changes_nothing),
		cmocka_unit_test(test_oldest_forgotten_at_the_limit),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests_name("history", tests, NULL, NULL);
}

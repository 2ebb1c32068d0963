/* test_scale.c: every loader linear in its input. Each case generates an
 * input of n items (map keys, anchors and aliases, a path listed twice with
 * its hot.yml hints, ledger sessions) for n = 12,500, 25,000 and 200,000,
 * loads it and times the load in CPU time. Growing n by f may at most
 * multiply the time by 1.5 f (linear: f, quadratic: f squared); a step over
 * that is measured twice more and fails only when the best of three still
 * is, so a loaded machine does not make it flake. A quadratic loader fails at
 * the second step, in seconds, before the big one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "base/error.h"
#include "load.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const size_t STEPS[] = { 12500, 25000, 200000 };
#define SLACK 0.05 /* seconds: timer noise on the smallest steps */

/* Writes the input for n items into dir; returns the path to load. */
typedef const char *(*make_fn)(const char *dir, size_t n, struct strbuf *sb);

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds to load path; the load must succeed, or fail with `error`. */
static double time_load(const char *path, const char *error)
{
	struct source *src = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	double t0 = cpu_seconds();
	int rc = source_load(path, NULL, &src, &err);
	double t = cpu_seconds() - t0;
	if (error) {
		assert_int_not_equal(rc, CS_OK);
		if (!strstr(err.message, error))
			fail_msg("loading %s: \"%s\", expected \"%s\"", path, err.message, error);
	} else if (rc != CS_OK) {
		fail_msg("loading %s: %s", path, err.message);
	}
	source_free(src);
	return t;
}

static double best_of(double a, double b)
{
	return a < b ? a : b;
}

static void check_linear(make_fn make, const char *error)
{
	char *dir = support_tempdir();
	struct strbuf sb = STRBUF_INIT;
	char prev_path[4096] = "";
	double prev = 0;
	for (size_t step = 0; step < sizeof STEPS / sizeof *STEPS; step++) {
		size_t n = STEPS[step];
		sb.len = 0;
		char name[32];
		snprintf(name, sizeof name, "n%zu", n);
		char *sub = strdup(support_path(dir, name));
		assert_non_null(sub);
		char path[4096];
		snprintf(path, sizeof path, "%s", make(sub, n, &sb));
		double t = time_load(path, error);
		double limit = step ? 1.5 * (double)n / (double)STEPS[step - 1] : 0;
		for (int again = 0; step && t > limit * prev + SLACK && again < 2; again++) {
			prev = best_of(prev, time_load(prev_path, error));
			t = best_of(t, time_load(path, error));
		}
		print_message("  n=%zu: %.3f s\n", n, t);
		if (step && t > limit * prev + SLACK)
			fail_msg("%zu items took %.3f s, %zu took %.3f s: more than linear", n, t, STEPS[step - 1], prev);
		snprintf(prev_path, sizeof prev_path, "%s", path);
		prev = t;
		free(sub);
	}
	sb_fini(&sb);
	support_rmtree(dir);
	free(dir);
}

static const char *write_file(const char *dir, const char *name, struct strbuf *sb)
{
	assert_false(sb->failed);
	support_write(dir, name, sb_str(sb));
	return support_path(dir, name);
}

/* A map of n keys (the manifest's metadata). */
static const char *make_map(const char *dir, size_t n, struct strbuf *sb)
{
	sb_printf(sb, "files: []\nmetadata:\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, "  key%zu: value\n", i);
	return write_file(dir, "working-set.yml", sb);
}

/* The manifest's own map of n keys, the last one twice. */
static const char *make_map_dup(const char *dir, size_t n, struct strbuf *sb)
{
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, "key%zu: value\n", i);
	sb_printf(sb, "files: []\nkey%zu: again\n", n - 1);
	return write_file(dir, "working-set.yml", sb);
}

/* n/2 anchors, then an alias of each. */
static const char *make_anchors(const char *dir, size_t n, struct strbuf *sb)
{
	sb_printf(sb, "files: []\nmetadata:\n");
	for (size_t i = 0; i < n / 2; i++)
		sb_printf(sb, "  a%zu: &anchor%zu value\n", i, i);
	for (size_t i = 0; i < n / 2; i++)
		sb_printf(sb, "  b%zu: *anchor%zu\n", i, i);
	return write_file(dir, "working-set.yml", sb);
}

/* n listed files (absent: excluded with a reason), one path listed twice,
 * and a hot.yml hint for each. */
static const char *make_hot(const char *dir, size_t n, struct strbuf *sb)
{
	support_write(dir, "a.txt", "a\n");
	sb_printf(sb, "keep:\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, "  - path: f%zu.txt\n", i);
	sb_printf(sb, "  - path: a.txt\n");
	write_file(dir, "hot.yml", sb);
	sb->len = 0;
	sb_printf(sb, "files:\n  - {path: a.txt, priority: 0.5}\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, "  - {path: f%zu.txt, priority: 0.5}\n", i);
	sb_printf(sb, "  - {path: a.txt, priority: 0.5}\n");
	return write_file(dir, "working-set.yml", sb);
}

/* A ledger export with n sessions on one turn (dup: the last one is
 * labelled as the first). */
static const char *ledger(const char *dir, size_t n, struct strbuf *sb, bool dup)
{
	sb_printf(sb, "{\"sessions\": [\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, " {\"label\": \"s%zu\", \"thread_id\": \"T1\", \"is_subagent\": 0, \"status\": \"%s\"},\n",
			  dup && i + 1 == n ? 0 : i, i ? "idle" : "active");
	sb->len -= 2;
	sb_printf(sb, "\n],\n\"threads\": [],\n"
		  "\"turns\": [{\"id\": \"T1\", \"parent_turn_id\": null, \"turn_type\": \"normal\", \"role\": \"manager\","
		  " \"model\": \"gpt-4o\", \"input_tokens\": 10, \"output_tokens\": 2, \"response_message_id\": \"M2\"}],\n"
		  "\"messages\": [{\"id\": \"M1\", \"turn_id\": \"T1\", \"role\": \"user\", \"content\": \"Hi.\", \"sequence\": 1},\n"
		  " {\"id\": \"M2\", \"turn_id\": \"T1\", \"role\": \"assistant\", \"content\": \"Hello.\", \"sequence\": 2}],\n"
		  "\"tool_calls\": [], \"compactions\": []}\n");
	return write_file(dir, "ledger.json", sb);
}

static const char *make_sessions(const char *dir, size_t n, struct strbuf *sb)
{
	return ledger(dir, n, sb, false);
}

static const char *make_sessions_dup(const char *dir, size_t n, struct strbuf *sb)
{
	return ledger(dir, n, sb, true);
}

static void test_yaml_map_keys(void **state)
{
	(void)state;
	check_linear(make_map, NULL);
}

static void test_yaml_duplicate_key_found(void **state)
{
	(void)state;
	check_linear(make_map_dup, "appears twice");
}

static void test_yaml_anchors_and_aliases(void **state)
{
	(void)state;
	check_linear(make_anchors, NULL);
}

static void test_hot_hints_with_a_path_listed_twice(void **state)
{
	(void)state;
	check_linear(make_hot, NULL);
}

static void test_ledger_sessions(void **state)
{
	(void)state;
	check_linear(make_sessions, NULL);
}

static void test_ledger_duplicate_label_found(void **state)
{
	(void)state;
	check_linear(make_sessions_dup, "session label \"s0\" is also sessions[0]'s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml_map_keys),
		cmocka_unit_test(test_yaml_duplicate_key_found),
		cmocka_unit_test(test_yaml_anchors_and_aliases),
		cmocka_unit_test(test_hot_hints_with_a_path_listed_twice),
		cmocka_unit_test(test_ledger_sessions),
		cmocka_unit_test(test_ledger_duplicate_label_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

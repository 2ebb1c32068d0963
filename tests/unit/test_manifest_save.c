/* test_manifest_save.c: splice-saving manifests: byte-identical round trips
 * except the edited values (comments, anchors, flow style, CRLF, a BOM,
 * non-ASCII comments), insertion of an absent key, removal of entries, the
 * read-back check, refusing a file changed on disk, the atomic write and
 * its backup, and out-of-memory at every allocation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "base/alloc.h"
#include "base/atomic_write.h"
#include "kinds/manifest/save.h"
#include "kinds/manifest/save_check.h"
#include "json/yaml_tree.h"
#include "load.h"
#include "base/progress.h"
#include "source.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

/* Edits of files[i]: a priority, a strategy, a removal. */
static struct manifest_edit prio(size_t i, double p)
{
	return (struct manifest_edit){ .entry = i, .set_priority = true, .priority = p, .strategy = STRAT_NONE };
}

static struct manifest_edit strat(size_t i, int s)
{
	return (struct manifest_edit){ .entry = i, .strategy = s };
}

static struct manifest_edit both(size_t i, double p, int s)
{
	return (struct manifest_edit){ .entry = i, .set_priority = true, .priority = p, .strategy = s };
}

static struct manifest_edit drop(size_t i)
{
	return (struct manifest_edit){ .entry = i, .remove = true, .strategy = STRAT_NONE };
}

/* Splices and compares with the expected text, byte for byte. */
static void expect_splice(const char *text, const struct manifest_edit *edits, size_t n, const char *expected)
{
	char *out = NULL;
	size_t len = 0;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = manifest_splice(text, strlen(text), edits, n, &out, &len, &err);
	if (rc != CS_OK)
		fail_msg("splice failed: %s", err.message);
	assert_int_equal(len, strlen(out));
	assert_string_equal(out, expected);
	cs_free(out);
}

static int splice_error(const char *text, const struct manifest_edit *edits, size_t n, struct cs_error *err)
{
	char *out = (char *)1;
	size_t len = 1;
	cs_error_clear(err);
	int rc = manifest_splice(text, strlen(text), edits, n, &out, &len, err);
	assert_int_not_equal(rc, CS_OK);
	assert_null(out);
	assert_int_equal(len, 0);
	return rc;
}

static void test_format_priority(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(manifest_format_priority(b, 0.8 + 0.05), "0.85"); /* 0.8500000000000001 */
	assert_string_equal(manifest_format_priority(b, 1), "1.0");
	assert_string_equal(manifest_format_priority(b, 0), "0.0");
	assert_string_equal(manifest_format_priority(b, -0.00001), "0.0");
	assert_string_equal(manifest_format_priority(b, 0.33333333), "0.3333");
	assert_string_equal(manifest_format_priority(b, 0.7 - 0.05), "0.65");
	assert_string_equal(manifest_format_priority(b, 0.125), "0.125");
}

static const char block_text[] =
	"# working set for the tokenizer bugfix\n"
	"protocol: CONTEXT-ASSEMBLY/0.1\n"
	"budget:\n"
	"  max_tokens: 28000\n"
	"  reserved_for_response: 4000\n"
	"\n"
	"files:\n"
	"  - path: \".agent/constitution.md\"\n"
	"    priority: 1.0          # always in\n"
	"    role: system\n"
	"    truncate_strategy: \"never\"\n"
	"\n"
	"  # what we are fixing\n"
	"  - path: current_task.md\n"
	"    priority: 0.95\n"
	"    role: developer\n"
	"\n"
	"  # the code under test\n"
	"  # (keep both halves)\n"
	"  - path: src/tokenizer.c\n"
	"    priority: 0.8\n"
	"    truncate_strategy: middle\n"
	"    max_lines: 500\n"
	"  - path: logs/test-run.log\n"
	"    priority: 0.3\n"
	"    truncate_strategy: 'start'   # recent lines matter\n"
	"\n"
	"metadata:\n"
	"  last_updated: \"2026-01-30T12:30:00Z\"\n";

static void test_block_values_in_place(void **state)
{
	(void)state;
	const struct manifest_edit e[] = { prio(2, 0.8 + 0.05), strat(3, STRAT_END), both(0, 0.9, STRAT_MIDDLE) };
	/* Only the four values change; quotes and trailing comments stay. */
	char expected[sizeof block_text + 64];
	snprintf(expected, sizeof expected, "%s",
		 "# working set for the tokenizer bugfix\n"
		 "protocol: CONTEXT-ASSEMBLY/0.1\n"
		 "budget:\n"
		 "  max_tokens: 28000\n"
		 "  reserved_for_response: 4000\n"
		 "\n"
		 "files:\n"
		 "  - path: \".agent/constitution.md\"\n"
		 "    priority: 0.9          # always in\n"
		 "    role: system\n"
		 "    truncate_strategy: \"middle\"\n"
		 "\n"
		 "  # what we are fixing\n"
		 "  - path: current_task.md\n"
		 "    priority: 0.95\n"
		 "    role: developer\n"
		 "\n"
		 "  # the code under test\n"
		 "  # (keep both halves)\n"
		 "  - path: src/tokenizer.c\n"
		 "    priority: 0.85\n"
		 "    truncate_strategy: middle\n"
		 "    max_lines: 500\n"
		 "  - path: logs/test-run.log\n"
		 "    priority: 0.3\n"
		 "    truncate_strategy: 'end'   # recent lines matter\n"
		 "\n"
		 "metadata:\n"
		 "  last_updated: \"2026-01-30T12:30:00Z\"\n");
	expect_splice(block_text, e, 3, expected);
	/* No edits: the very same bytes. */
	expect_splice(block_text, NULL, 0, block_text);
}

static void test_insert_absent_strategy(void **state)
{
	(void)state;
	const struct manifest_edit e[] = { strat(1, STRAT_START) };
	expect_splice(block_text, e, 1,
		      "# working set for the tokenizer bugfix\n"
		      "protocol: CONTEXT-ASSEMBLY/0.1\n"
		      "budget:\n"
		      "  max_tokens: 28000\n"
		      "  reserved_for_response: 4000\n"
		      "\n"
		      "files:\n"
		      "  - path: \".agent/constitution.md\"\n"
		      "    priority: 1.0          # always in\n"
		      "    role: system\n"
		      "    truncate_strategy: \"never\"\n"
		      "\n"
		      "  # what we are fixing\n"
		      "  - path: current_task.md\n"
		      "    priority: 0.95\n"
		      "    role: developer\n"
		      "    truncate_strategy: start\n"
		      "\n"
		      "  # the code under test\n"
		      "  # (keep both halves)\n"
		      "  - path: src/tokenizer.c\n"
		      "    priority: 0.8\n"
		      "    truncate_strategy: middle\n"
		      "    max_lines: 500\n"
		      "  - path: logs/test-run.log\n"
		      "    priority: 0.3\n"
		      "    truncate_strategy: 'start'   # recent lines matter\n"
		      "\n"
		      "metadata:\n"
		      "  last_updated: \"2026-01-30T12:30:00Z\"\n");
	/* The last line of a file without a final line break; an empty value. */
	const struct manifest_edit e2[] = { strat(0, STRAT_MIDDLE), strat(1, STRAT_NEVER) };
	expect_splice("files:\n"
		      "- path: a.md\n"
		      "  truncate_strategy:\n"
		      "  priority: 0.5\n"
		      "- path: b.md\n"
		      "  priority: 0.4",
		      e2, 2,
		      "files:\n"
		      "- path: a.md\n"
		      "  truncate_strategy: middle\n"
		      "  priority: 0.5\n"
		      "- path: b.md\n"
		      "  priority: 0.4\n"
		      "  truncate_strategy: never");
}

static void test_remove_entries(void **state)
{
	(void)state;
	/* files[2] goes with the two comment lines right above it; the blank
	 * line above those stays. */
	const struct manifest_edit e[] = { drop(2) };
	expect_splice(block_text, e, 1,
		      "# working set for the tokenizer bugfix\n"
		      "protocol: CONTEXT-ASSEMBLY/0.1\n"
		      "budget:\n"
		      "  max_tokens: 28000\n"
		      "  reserved_for_response: 4000\n"
		      "\n"
		      "files:\n"
		      "  - path: \".agent/constitution.md\"\n"
		      "    priority: 1.0          # always in\n"
		      "    role: system\n"
		      "    truncate_strategy: \"never\"\n"
		      "\n"
		      "  # what we are fixing\n"
		      "  - path: current_task.md\n"
		      "    priority: 0.95\n"
		      "    role: developer\n"
		      "\n"
		      "  - path: logs/test-run.log\n"
		      "    priority: 0.3\n"
		      "    truncate_strategy: 'start'   # recent lines matter\n"
		      "\n"
		      "metadata:\n"
		      "  last_updated: \"2026-01-30T12:30:00Z\"\n");
	/* A comment separated by a blank line stays; the last entry's trailing
	 * comment goes with its line. */
	const char *text = "files:\n"
			   "  # shared notes: keep\n"
			   "\n"
			   "  - path: a.md\n"
			   "    priority: 0.5\n"
			   "  - path: b.md\n"
			   "    priority: 0.4 # stale\n"
			   "after: 1\n";
	const struct manifest_edit e2[] = { drop(0), drop(1) };
	expect_splice(text, e2, 2, "files:\n  # shared notes: keep\n\nafter: 1\n");
	/* Between two blank lines, one of them goes too: no double gap. */
	const char *spaced = "files:\n"
			     "  - path: a.md\n"
			     "    priority: 0.5\n"
			     "\n"
			     "  # an older run, kept until the fix lands\n"
			     "  - path: b.md\n"
			     "    priority: 0.4\n"
			     "\n"
			     "metadata: {}\n";
	const struct manifest_edit e4[] = { drop(1) };
	expect_splice(spaced, e4, 1, "files:\n  - path: a.md\n    priority: 0.5\n\nmetadata: {}\n");
	const struct manifest_edit e3[] = { drop(1), prio(0, 0.6) };
	expect_splice(text, e3, 2,
		      "files:\n  # shared notes: keep\n\n  - path: a.md\n    priority: 0.6\nafter: 1\n");
}

static void test_crlf_bom_non_ascii(void **state)
{
	(void)state;
	/* A BOM, CRLF line endings and comments in French and Japanese: libyaml
	 * counts characters, so every edit after them lands only if the marks
	 * were converted to bytes. */
	const char *text = "\xEF\xBB\xBF# jeu de travail — café ☕, 作業セット\r\n"
			   "files:\r\n"
			   "  - path: \"notes/résumé.md\"   # née à Zürich\r\n"
			   "    priority: 0.7\r\n"
			   "  # 古いログ\r\n"
			   "  - path: logs/古い.log\r\n"
			   "    priority: 0.2\r\n"
			   "  - path: src/main.c\r\n"
			   "    priority: 0.5\r\n"
			   "    role: context # 日本語のコメント\r\n";
	const struct manifest_edit e[] = { prio(0, 0.75), drop(1), strat(2, STRAT_MIDDLE) };
	expect_splice(text, e, 3,
		      "\xEF\xBB\xBF# jeu de travail — café ☕, 作業セット\r\n"
		      "files:\r\n"
		      "  - path: \"notes/résumé.md\"   # née à Zürich\r\n"
		      "    priority: 0.75\r\n"
		      "  - path: src/main.c\r\n"
		      "    priority: 0.5\r\n"
		      "    role: context # 日本語のコメント\r\n"
		      "    truncate_strategy: middle\r\n");
}

static void test_flow_style(void **state)
{
	(void)state;
	const char *text = "budget: {max_tokens: 8000, reserved_for_response: 1000}\n"
			   "files: [{path: a.md, priority: 0.5}, {path: b.md, priority: 0.2, truncate_strategy: \"start\"},\n"
			   "        {path: c.md, priority: 0.1}]  # three\n";
	const struct manifest_edit e[] = { strat(0, STRAT_NEVER), strat(1, STRAT_MIDDLE), prio(2, 0.15) };
	expect_splice(text, e, 3,
		      "budget: {max_tokens: 8000, reserved_for_response: 1000}\n"
		      "files: [{path: a.md, priority: 0.5, truncate_strategy: never}, {path: b.md, priority: 0.2, "
		      "truncate_strategy: \"middle\"},\n"
		      "        {path: c.md, priority: 0.15}]  # three\n");
	const struct manifest_edit first[] = { drop(0) };
	expect_splice(text, first, 1,
		      "budget: {max_tokens: 8000, reserved_for_response: 1000}\n"
		      "files: [{path: b.md, priority: 0.2, truncate_strategy: \"start\"},\n"
		      "        {path: c.md, priority: 0.1}]  # three\n");
	const struct manifest_edit last[] = { drop(1), drop(2) };
	expect_splice(text, last, 2,
		      "budget: {max_tokens: 8000, reserved_for_response: 1000}\n"
		      "files: [{path: a.md, priority: 0.5}]  # three\n");
	const struct manifest_edit all[] = { drop(0), drop(1), drop(2) };
	expect_splice(text, all, 3,
		      "budget: {max_tokens: 8000, reserved_for_response: 1000}\n"
		      "files: []  # three\n");
}

static void test_anchors_and_aliases(void **state)
{
	(void)state;
	const char *text = "files:\n"
			   "  - path: src/lexer.c\n"
			   "    priority: &code 0.8\n"
			   "    truncate_strategy: &cut middle\n"
			   "  - path: src/parser.c\n"
			   "    priority: *code\n"
			   "    truncate_strategy: *cut\n"
			   "  - path: notes.md\n"
			   "    priority: 0.4\n";
	/* The alias site gets its own value; the anchor stays with the other. */
	const struct manifest_edit e[] = { both(1, 0.9, STRAT_END) };
	expect_splice(text, e, 1,
		      "files:\n"
		      "  - path: src/lexer.c\n"
		      "    priority: &code 0.8\n"
		      "    truncate_strategy: &cut middle\n"
		      "  - path: src/parser.c\n"
		      "    priority: 0.9\n"
		      "    truncate_strategy: end\n"
		      "  - path: notes.md\n"
		      "    priority: 0.4\n");
	/* Editing the anchored value keeps the anchor... */
	const struct manifest_edit both[] = { prio(0, 0.7), prio(1, 0.7) };
	expect_splice(text, both, 2,
		      "files:\n"
		      "  - path: src/lexer.c\n"
		      "    priority: &code 0.7\n"
		      "    truncate_strategy: &cut middle\n"
		      "  - path: src/parser.c\n"
		      "    priority: 0.7\n"
		      "    truncate_strategy: *cut\n"
		      "  - path: notes.md\n"
		      "    priority: 0.4\n");
	/* ...but would silently change files[1] too when only files[0] is
	 * edited: the read-back check refuses. */
	struct cs_error err;
	const struct manifest_edit one[] = { prio(0, 0.7) };
	assert_int_equal(splice_error(text, one, 1, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "files[1].priority"));
	/* Removing the entry that holds the anchor breaks the alias: refused. */
	const struct manifest_edit gone[] = { drop(0) };
	assert_int_equal(splice_error(text, gone, 1, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "a removed entry holds an anchor"));
	/* A whole entry that is an alias cannot be removed in place. */
	const char *dup = "files:\n  - &e {path: a.md, priority: 0.5}\n  - *e\n";
	const struct manifest_edit d[] = { drop(1) };
	assert_int_equal(splice_error(dup, d, 1, &err), CS_EUSAGE);
}

static void test_flow_items_in_a_block_list(void **state)
{
	(void)state;
	/* One entry per line in flow style inside a block list: the flow rules
	 * apply to the entry, the line rules to the list. */
	const char *text = "files:\n"
			   "  - {path: a.md, priority: 0.5}   # first\n"
			   "  - {path: b.md, priority: 0.25, role: user}\n"
			   "  - {path: c.md, priority: 0.1}\n";
	const struct manifest_edit e[] = { strat(0, STRAT_START), drop(1), both(2, 0.125, STRAT_NEVER) };
	expect_splice(text, e, 3,
		      "files:\n"
		      "  - {path: a.md, priority: 0.5, truncate_strategy: start}   # first\n"
		      "  - {path: c.md, priority: 0.125, truncate_strategy: never}\n");
	/* An entry that is an alias of another cannot be edited in place. */
	struct cs_error err;
	const struct manifest_edit a[] = { prio(1, 0.9) };
	assert_int_equal(splice_error("files:\n  - &e {path: a.md, priority: 0.5}\n  - *e\n", a, 1, &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "alias"));
}

static void test_bad_edits_and_inputs(void **state)
{
	(void)state;
	struct cs_error err;
	const struct manifest_edit out_of_range[] = { prio(4, 0.5) };
	assert_int_equal(splice_error(block_text, out_of_range, 1, &err), CS_EUSAGE);
	const struct manifest_edit twice[] = { prio(1, 0.5), strat(1, STRAT_END) };
	assert_int_equal(splice_error(block_text, twice, 2, &err), CS_EUSAGE);
	const struct manifest_edit nan[] = { prio(1, NAN) };
	assert_int_equal(splice_error(block_text, nan, 1, &err), CS_EUSAGE);
	const struct manifest_edit loom[] = { strat(1, STRAT_ROLLING_WINDOW) };
	assert_int_equal(splice_error(block_text, loom, 1, &err), CS_EUSAGE);
	assert_int_equal(splice_error("files: [\n", NULL, 0, &err), CS_ESYNTAX);
	assert_int_equal(splice_error("budget: {}\n", NULL, 0, &err), CS_ESTRUCT);
	assert_int_equal(splice_error("files:\n  - path: a\n    priority: high\n", NULL, 0, &err), CS_ESTRUCT);
}

static void test_splice_out_of_memory(void **state)
{
	(void)state;
	const struct manifest_edit e[] = { prio(2, 0.85), strat(1, STRAT_START), drop(3) };
	bool succeeded = false;
	for (long n = 1; n < 5000 && !succeeded; n++) {
		char *out = NULL;
		size_t len;
		struct cs_error err;
		cs_error_clear(&err);
		cs_alloc_fail_from(n);
		int rc = manifest_splice(block_text, strlen(block_text), e, 3, &out, &len, &err);
		cs_alloc_fail_from(0);
		if (rc == CS_OK) {
			succeeded = true;
			assert_non_null(strstr(out, "priority: 0.85"));
			cs_free(out);
		} else {
			assert_int_equal(rc, CS_ENOMEM);
			assert_null(out);
		}
	}
	assert_true(succeeded);
}

/* ---- through a loaded source, onto disk ---------------------------------- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static const char small_manifest[] =
	"# bugfix working set\n"
	"budget:\n"
	"  max_tokens: 8000\n"
	"  reserved_for_response: 1000\n"
	"files:\n"
	"  - path: task.md\n"
	"    priority: 0.9\n"
	"  - path: src/lexer.c\n"
	"    priority: 0.6   # the suspect\n"
	"    truncate_strategy: middle\n"
	"  - path: logs/old.log\n"
	"    priority: 0.2\n";

static char *setup_dir(void)
{
	char *dir = support_tempdir();
	support_write(dir, "working-set.yml", small_manifest);
	support_write(dir, "task.md", "Fix the lexer: \"1e\" at end of input reads past the buffer.\n");
	support_write(dir, "src/lexer.c", "static int peek(const char *p, const char *end) { return p < end ? *p : -1; }\n");
	support_write(dir, "logs/old.log", "[2026-01-29 17:02:11] test_lexer: 41 passed, 1 failed\n");
	return dir;
}

static void test_save_to_disk(void **state)
{
	(void)state;
	char *dir = setup_dir();
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(dir, "working-set.yml"));
	chmod(path, 0640);
	struct source *src = support_load(path, NULL);
	support_set(src, "priority", "src/lexer.c=0.65");
	support_set(src, "strategy", "task.md=never");
	support_set(src, "exclude", "logs/old.log");
	struct manifest_save_result res;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_OK);
	assert_true(res.written);
	assert_int_equal(res.values, 2);
	assert_int_equal(res.removed, 1);
	const char *expected = "# bugfix working set\n"
			       "budget:\n"
			       "  max_tokens: 8000\n"
			       "  reserved_for_response: 1000\n"
			       "files:\n"
			       "  - path: task.md\n"
			       "    priority: 0.9\n"
			       "    truncate_strategy: never\n"
			       "  - path: src/lexer.c\n"
			       "    priority: 0.65   # the suspect\n"
			       "    truncate_strategy: middle\n";
	assert_string_equal(slurp(path, NULL), expected);
	char bak[4200];
	snprintf(bak, sizeof bak, "%s.bak", path);
	assert_string_equal(slurp(bak, NULL), small_manifest);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);

	/* Saving again in the same session works (the stamp follows our own
	 * write) and writes the loaded text plus every current edit. */
	support_set(src, "priority", "task.md=0.95");
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_OK);
	assert_non_null(strstr(slurp(path, NULL), "    priority: 0.95\n    truncate_strategy: never\n"));
	assert_null(strstr(slurp(path, NULL), "old.log"));
	assert_string_equal(strstr(slurp(bak, NULL), "  - path: task.md"),
			    "  - path: task.md\n    priority: 0.9\n    truncate_strategy: never\n"
			    "  - path: src/lexer.c\n    priority: 0.65   # the suspect\n    truncate_strategy: middle\n");

	/* Undo everything and save: the file is the loaded text again. */
	support_set(src, "priority", "task.md=0.9");
	support_set(src, "priority", "src/lexer.c=0.6");
	support_set(src, "strategy", "task.md=end");
	support_set(src, "include", "logs/old.log");
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_OK);
	assert_true(res.written);
	assert_int_equal(res.values, 0);
	assert_string_equal(slurp(path, NULL), small_manifest);
	/* ...and once more: the file already holds it, nothing is written. */
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_OK);
	assert_false(res.written);
	support_set(src, "strategy", "task.md=never");

	/* Someone else edits the file: refused, the file untouched. */
	support_write(dir, "working-set.yml", "# edited in another editor\nfiles: []\n");
	support_set(src, "priority", "task.md=0.5");
	cs_error_clear(&err);
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_ESTATE);
	assert_non_null(strstr(err.message, "changed on disk"));
	assert_non_null(strstr(err.message, "--output"));
	assert_string_equal(slurp(path, NULL), "# edited in another editor\nfiles: []\n");
	/* ...and save-as writes elsewhere. */
	char other[4200];
	snprintf(other, sizeof other, "%s/tuned.yml", dir);
	assert_int_equal(manifest_save(src, other, NULL, &res, &err), CS_OK);
	assert_non_null(strstr(slurp(other, NULL), "    priority: 0.5\n    truncate_strategy: never\n"));
	assert_string_equal(slurp(path, NULL), "# edited in another editor\nfiles: []\n");

	/* The file was deleted: there is nothing to clobber, it is written
	 * again (as an editor would). */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_OK);
	assert_true(res.written);
	assert_non_null(strstr(slurp(path, NULL), "    priority: 0.5\n    truncate_strategy: never\n"));

	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_nothing_to_save(void **state)
{
	(void)state;
	char *dir = setup_dir();
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(dir, "working-set.yml"));
	struct source *src = support_load(path, NULL);
	/* Changed and changed back, or to the value written: no edit. */
	support_set(src, "priority", "task.md=0.95");
	support_set(src, "priority", "task.md=0.9");
	support_set(src, "strategy", "task.md=end"); /* the default it already has */
	struct manifest_edit *edits;
	size_t n;
	struct cs_error err;
	assert_int_equal(manifest_collect_edits(src, &edits, &n, &err), CS_OK);
	assert_int_equal(n, 0);
	struct strbuf said = STRBUF_INIT;
	assert_int_equal(manifest_save_command(src, NULL, false, &said, &err), CS_OK);
	assert_non_null(strstr(sb_str(&said), "nothing to save"));
	sb_fini(&said);
	assert_string_equal(slurp(path, NULL), small_manifest);
	assert_int_equal(access(support_path(dir, "working-set.yml.bak"), F_OK), -1);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* A line starting with # inside the block scalar of the entry above a
 * removed one belongs to that scalar, not to the removed entry; a comment
 * line after a removed entry's block scalar belongs to the next entry. */
static void test_block_scalar_lines_kept(void **state)
{
	(void)state;
	const char *text = "files:\n"
			   "  - path: a.txt\n"
			   "    priority: 0.5\n"
			   "    note: |\n"
			   "      text\n"
			   "      # heading inside the block\n"
			   "  # about b\n"
			   "  - path: b.txt\n"
			   "    priority: 0.4\n"
			   "    note: >\n"
			   "      folded\n"
			   "      # in b's block\n"
			   "  # about c\n"
			   "  - path: c.txt\n"
			   "    priority: 0.3\n";
	const struct manifest_edit b[] = { drop(1) };
	expect_splice(text, b, 1,
		      "files:\n"
		      "  - path: a.txt\n"
		      "    priority: 0.5\n"
		      "    note: |\n"
		      "      text\n"
		      "      # heading inside the block\n"
		      "  # about c\n"
		      "  - path: c.txt\n"
		      "    priority: 0.3\n");
	/* a key after a block scalar goes right after its text */
	const struct manifest_edit s1[] = { strat(1, STRAT_START) };
	expect_splice(text, s1, 1,
		      "files:\n"
		      "  - path: a.txt\n"
		      "    priority: 0.5\n"
		      "    note: |\n"
		      "      text\n"
		      "      # heading inside the block\n"
		      "  # about b\n"
		      "  - path: b.txt\n"
		      "    priority: 0.4\n"
		      "    note: >\n"
		      "      folded\n"
		      "      # in b's block\n"
		      "    truncate_strategy: start\n"
		      "  # about c\n"
		      "  - path: c.txt\n"
		      "    priority: 0.3\n");
	/* a blank line after a block scalar stays after it, unless kept (|+):
	 * then it is the scalar's text and the new key goes below it */
	const char *blanks = "files:\n"
			     "  - path: a.txt\n"
			     "    note: |\n"
			     "      clipped\n"
			     "\n"
			     "    priority: 0.5\n"
			     "    note2: &k |+\n"
			     "      kept\n"
			     "\n"
			     "  - path: b.txt\n"
			     "    priority: 0.4\n"
			     "    note: >-\n"
			     "      stripped\n"
			     "\n"
			     "# the end\n";
	const struct manifest_edit s2[] = { strat(0, STRAT_START), strat(1, STRAT_NEVER) };
	expect_splice(blanks, s2, 2,
		      "files:\n"
		      "  - path: a.txt\n"
		      "    note: |\n"
		      "      clipped\n"
		      "\n"
		      "    priority: 0.5\n"
		      "    note2: &k |+\n"
		      "      kept\n"
		      "\n"
		      "    truncate_strategy: start\n"
		      "  - path: b.txt\n"
		      "    priority: 0.4\n"
		      "    note: >-\n"
		      "      stripped\n"
		      "    truncate_strategy: never\n"
		      "\n"
		      "# the end\n");
}

/* A flow list with one entry a line: removing the last entries keeps the
 * comment after the entry above on its line (it used to go, and the removed
 * entry's comment took its place). */
static void test_flow_list_one_entry_a_line(void **state)
{
	(void)state;
	const char *text = "files: [\n"
			   "  {path: a.txt, priority: 0.5},   # first\n"
			   "  {path: b.txt, priority: 0.4},\n"
			   "  {path: c.txt, priority: 0.3}   # third\n"
			   "]   # the list\n";
	const struct manifest_edit last[] = { drop(2) };
	expect_splice(text, last, 1,
		      "files: [\n"
		      "  {path: a.txt, priority: 0.5},   # first\n"
		      "  {path: b.txt, priority: 0.4}\n"
		      "]   # the list\n");
	const struct manifest_edit two[] = { drop(1), drop(2) };
	expect_splice(text, two, 2,
		      "files: [\n"
		      "  {path: a.txt, priority: 0.5}   # first\n"
		      "]   # the list\n");
	const struct manifest_edit first[] = { drop(0) };
	expect_splice(text, first, 1,
		      "files: [\n"
		      "  {path: b.txt, priority: 0.4},\n"
		      "  {path: c.txt, priority: 0.3}   # third\n"
		      "]   # the list\n");
}

/* An anchored value shared outside `files` is not changed silently: the
 * alias is named. Everything outside the edited values is compared. */
static void test_anchor_shared_outside_files(void **state)
{
	(void)state;
	const char *text = "files:\n"
			   "  - path: a.txt\n"
			   "    priority: &p 0.5\n"
			   "    truncate_strategy: &s middle\n"
			   "  - path: b.txt\n"
			   "    priority: 0.4\n"
			   "metadata: {session: *s}\n"
			   "extra:\n"
			   "  - *p\n";
	struct cs_error err;
	cs_error_clear(&err);
	const struct manifest_edit s1[] = { strat(0, STRAT_START) };
	assert_int_equal(splice_error(text, s1, 1, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "metadata.session (line 7) is an alias"));
	assert_non_null(strstr(err.message, "files[0].truncate_strategy"));
	assert_int_equal(err.line, 7);
	const struct manifest_edit p1[] = { prio(0, 0.9) };
	assert_int_equal(splice_error(text, p1, 1, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "extra[0] (line 9)"));
	/* an anchored collection holding the edited value */
	const char *whole = "files:\n"
			    "  - &e\n"
			    "    path: a.txt\n"
			    "    priority: 0.5\n"
			    "copy: *e\n";
	assert_int_equal(splice_error(whole, p1, 1, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "copy (line 5)"));
	/* unshared: fine */
	const struct manifest_edit p2[] = { prio(1, 0.9) };
	char *out = NULL;
	size_t len = 0;
	assert_int_equal(manifest_splice(text, strlen(text), p2, 1, &out, &len, &err), CS_OK);
	cs_free(out);
}

static int comments_after(const char *old_text, const char *new_text, const size_t *removed, size_t n)
{
	struct ytree a, b;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(ytree_parse(&a, old_text, strlen(old_text), &err), CS_OK);
	assert_int_equal(ytree_parse(&b, new_text, strlen(new_text), &err), CS_OK);
	int rc = manifest_check_comments(old_text, strlen(old_text), a.root, new_text, strlen(new_text), b.root,
					 removed, n, &err);
	ytree_fini(&a);
	ytree_fini(&b);
	return rc;
}

/* The comment check: a # inside a block scalar or a quoted string is text,
 * not a comment; a comment lost, changed or added is caught; one inside a
 * removed range goes. */
static void test_comment_check(void **state)
{
	(void)state;
	const char *old_text = "# top\n"
			       "a: |\n"
			       "  # in the block\n"
			       "b: \"x # y\"   # after b\n"
			       "c: 1 # after c\n";
	assert_int_equal(comments_after(old_text, old_text, NULL, 0), CS_OK);
	const char *lost = "# top\n"
			   "a: |\n"
			   "  # in the block\n"
			   "b: \"x # y\"\n"
			   "c: 1 # after c\n";
	assert_int_equal(comments_after(old_text, lost, NULL, 0), CS_ESTRUCT);
	const char *changed = "# top\n"
			      "a: |\n"
			      "  # in the block\n"
			      "b: \"x # y\"   # after B\n"
			      "c: 1 # after c\n";
	assert_int_equal(comments_after(old_text, changed, NULL, 0), CS_ESTRUCT);
	const char *block_changed = "# top\n"
				    "a: |\n"
				    "  # in the bloc\n"
				    "b: \"x # y\"   # after b\n"
				    "c: 1 # after c\n";
	assert_int_equal(comments_after(old_text, block_changed, NULL, 0), CS_OK); /* a scalar: the tree check's */
	const size_t top[] = { 0, 6 };
	const char *no_top = "a: |\n"
			     "  # in the block\n"
			     "b: \"x # y\"   # after b\n"
			     "c: 1 # after c\n";
	assert_int_equal(comments_after(old_text, no_top, top, 1), CS_OK);
	assert_int_equal(comments_after(old_text, no_top, NULL, 0), CS_ESTRUCT);
	assert_int_equal(comments_after(no_top, old_text, NULL, 0), CS_ESTRUCT); /* added */
	/* a comment trailing text that stays does not go with a removed range
	 * that starts after that text */
	const char *flow = "files: [\n  {path: a},   # first\n  {path: b}   # second\n]\n";
	const char *flow_lost = "files: [\n  {path: a}   # second\n]\n";
	size_t from = (size_t)(strstr(flow, "},") - flow) + 1, to = (size_t)(strstr(flow, "b}") - flow) + 2;
	const size_t tail[] = { from, to };
	assert_int_equal(comments_after(flow, flow_lost, tail, 1), CS_ESTRUCT);
	const char *flow_kept = "files: [\n  {path: a}   # first\n]\n";
	const size_t comma_and_line[] = { from, from + 1, (size_t)(strstr(flow, "  {path: b") - flow),
					  (size_t)(strstr(flow, "]") - flow) };
	assert_int_equal(comments_after(flow, flow_kept, comma_and_line, 2), CS_OK);
}

/* Someone appends a line to the manifest while its listed files are being
 * read (the progress callback runs mid-load): the bytes parsed are not the
 * file's any more, so the save refuses instead of dropping that line. */
static void append_once(void *ctx, const char *what, size_t done, size_t total, bool finished)
{
	(void)what;
	(void)done;
	(void)total;
	(void)finished;
	const char *path = ctx;
	static const char *done_for;
	if (done_for == path)
		return;
	done_for = path;
	FILE *f = fopen(path, "ab");
	fputs("# a note added while ctxscope was loading\n", f);
	fclose(f);
}

static void test_edit_during_load(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct strbuf text = STRBUF_INIT;
	sb_puts(&text, "files:\n");
	for (int i = 0; i < 600; i++)
		sb_printf(&text, "  - path: f%d.txt\n    priority: 0.5\n", i);
	support_write(dir, "m.yml", sb_str(&text));
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(dir, "m.yml"));
	struct progress pr;
	progress_init(&pr, append_once, path);
	pr.start -= 1000; /* long under way: the callback is due at once */
	struct load_args args = { .path = path, .progress = &pr };
	struct source *src;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(source_load_args(&args, &src, &err), CS_OK);
	char *after_load = strdup(slurp(path, NULL));
	assert_non_null(strstr(after_load, "# a note added"));
	support_set(src, "priority", "f3.txt=0.9");
	struct manifest_save_result res;
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_ESTATE);
	assert_non_null(strstr(err.message, "changed on disk"));
	assert_string_equal(slurp(path, NULL), after_load);
	free(after_load);
	source_free(src);
	sb_fini(&text);
	support_rmtree(dir);
	free(dir);
}

/* The same size and modification time, other bytes: the hash tells. */
static void test_same_size_and_mtime(void **state)
{
	(void)state;
	char *dir = setup_dir();
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(dir, "working-set.yml"));
	struct stat before;
	assert_int_equal(stat(path, &before), 0);
	struct source *src = support_load(path, NULL);
	char *other = strdup(small_manifest);
	other[2] = other[2] == 'b' ? 'B' : 'b'; /* "# bugfix" -> "# Bugfix" */
	support_write(dir, "working-set.yml", other);
	struct timespec times[2] = { before.st_atim, before.st_mtim };
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
	support_set(src, "priority", "task.md=0.5");
	struct manifest_save_result res;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(manifest_save(src, NULL, NULL, &res, &err), CS_ESTATE);
	assert_string_equal(slurp(path, NULL), other);
	free(other);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_priority),
		cmocka_unit_test(test_block_values_in_place),
		cmocka_unit_test(test_insert_absent_strategy),
		cmocka_unit_test(test_remove_entries),
		cmocka_unit_test(test_crlf_bom_non_ascii),
		cmocka_unit_test(test_flow_style),
		cmocka_unit_test(test_anchors_and_aliases),
		cmocka_unit_test(test_flow_items_in_a_block_list),
		cmocka_unit_test(test_bad_edits_and_inputs),
		cmocka_unit_test(test_splice_out_of_memory),
		cmocka_unit_test(test_save_to_disk),
		cmocka_unit_test(test_nothing_to_save),
		cmocka_unit_test(test_block_scalar_lines_kept),
		cmocka_unit_test(test_flow_list_one_entry_a_line),
		cmocka_unit_test(test_anchor_shared_outside_files),
		cmocka_unit_test(test_comment_check),
		cmocka_unit_test(test_edit_during_load),
		cmocka_unit_test(test_same_size_and_mtime),
	};
	return cmocka_run_group_tests_name("manifest_save", tests, NULL, NULL);
}

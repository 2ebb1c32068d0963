/* test_manifest_quick.c: the manifest's two ways to read a document give
 * the same source. The quick way (quick.c: libyaml's events, no tree of
 * the entries) must load every manifest as the tree's way does: the same
 * pieces, texts, counts, flags and reasons, the same entries (places, caps,
 * hints), budget and metadata, the same warnings at the same places, and
 * on bad input the same error word for word at the same line, column and
 * path. Every manifest of the repository is loaded both ways (samples,
 * golden inputs, hostile manifests, fixtures), then documents written here
 * in the shapes the quick way declines or takes apart; and the quick way
 * must actually take the usual shapes (else the comparison compares the
 * tree with itself). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kinds/manifest/manifest.h"
#include "base/tune.h"
#include "kinds/manifest/quick.h"
#include "load.h"
#include "source.h"
#include "support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void same_entry(const struct manifest_entry *a, const struct manifest_entry *b)
{
	assert_int_equal(a->line, b->line);
	assert_int_equal(a->column, b->column);
	assert_int_equal(a->piece, b->piece);
	assert_int_equal(a->max_lines, b->max_lines);
	support_same_str(a->resolved, b->resolved);
	assert_int_equal(a->symlink, b->symlink);
	support_same_str(a->hint, b->hint);
	assert_int_equal(a->hot, b->hot);
	support_same_str(a->suggested, b->suggested);
	assert_int_equal(a->caps != NULL, b->caps != NULL);
	if (a->caps)
		assert_memory_equal(a->caps, b->caps, 3 * sizeof *a->caps);
}

static void same_manifest(const struct source *sa, const struct source *sb)
{
	const struct manifest *a = sa->model, *b = sb->model;
	assert_int_equal(a->len, b->len);
	assert_true(a->hash == b->hash);
	support_same_str(a->protocol, b->protocol);
	assert_int_equal(a->max_tokens, b->max_tokens);
	assert_int_equal(a->reserved, b->reserved);
	assert_int_equal(a->effective, b->effective);
	assert_int_equal(a->has_budget, b->has_budget);
	support_same_str(a->session, b->session);
	support_same_str(a->output_sink, b->output_sink);
	support_same_str(a->hints_present, b->hints_present);
	assert_int_equal(a->nentries, b->nentries);
	for (size_t i = 0; i < a->nentries; i++)
		same_entry(&a->entries[i], &b->entries[i]);
	support_same_pieces(sa, sb);
}

static int both_ways(const char *path)
{
	return support_both_ways(path, "manifest", CS_TUNE_MANIFEST_QUICK, same_manifest);
}

/* Whether the quick way takes the file (it is on by default). */
static bool taken_quickly(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	struct arena keep;
	arena_init(&keep);
	struct manifest_quick q;
	bool taken = manifest_quick_read(buf, n, &keep, &q);
	if (taken)
		manifest_quick_fini(&q);
	arena_fini(&keep);
	return taken;
}

/* Every .yml under dir (recursively) both ways; returns how many. */
static size_t every_yaml(const char *dir, size_t *loaded)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t len = strlen(e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			n += every_yaml(path, loaded);
		} else if (len > 4 && (strcmp(e->d_name + len - 4, ".yml") == 0 || (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0))) {
			*loaded += both_ways(path) == CS_OK;
			n++;
		}
	}
	closedir(d);
	return n;
}

static void test_repository_manifests_both_ways(void **state)
{
	(void)state;
	static const char *const dirs[] = { "samples/manifest", "tests/golden/inputs", "tests/hostile/manifest",
					    "tests/fixtures" };
	size_t files = 0, loaded = 0;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		files += every_yaml(dirs[i], &loaded);
	assert_true(files >= 30);
	assert_true(loaded >= 15);
	assert_true(taken_quickly("samples/manifest/bugfix/working-set.yml"));
	assert_true(taken_quickly("samples/manifest/tuning-crlf/working-set.yml"));
	assert_true(taken_quickly("tests/hostile/manifest/bom.yml"));
}

/* Documents in the shapes the quick way takes apart or declines; each
 * loaded both ways. `quick`: whether the quick way must take it. */
static const struct {
	const char *text;
	bool quick;
} docs[] = {
	/* taken */
	{ "files:\n  - path: a.txt\n    priority: 0.5\n", true },
	{ "files: []\n", true },
	{ "files:\n", true },
	{ "files: ~\n", true },
	{ "{files: [{path: a.txt, priority: 1}, {path: \"b.txt\", priority: .25, role: user}]}\n", true },
	{ "protocol: P/1\nbudget: {max_tokens: 100}\nfiles:\n  - {path: a.txt, priority: 2}\n", true },
	{ "budget:\n  max_tokens: 100\n  reserved_for_response: 10\n  effective: 50\nfiles:\n  - path: a.txt\n"
	  "    priority: -0.5\n    max_lines: 1\n    truncate_strategy: middle\n", true },
	{ "budget: {effective: 10}\nfiles:\n  - path: a.txt\n    priority: 0\n    max_lines: 1\n", true },
	{ "budget: {}\nfiles: []\n", true },
	{ "budget:\nfiles: []\n", true },
	{ "metadata:\n  session: s1\n  output_sink: out\n  tags: [x, {y: z}]\nfiles: []\nnotes: {deep: [[1], {a: b}]}\n",
	  true },
	{ "files:\n  - path: a.txt\n    priority: 0.5\n  - path: a.txt\n    priority: 0.7\n    extra: [1, 2]\n", true },
	{ "files:\n  - path: a.txt\n    tags: [x, {y: [z]}]\n    notes: {a: b}\n    priority: 0.5\n", true },
	{ "files:\n  - {path: a.txt, priority: 0.5, tags: [], more: {}}\n", true },
	{ "files:\n  - path: a.txt\n    priority: 0.5\n    note: x\n    role: null\n    truncate_strategy: ~\n", true },
	{ "files:\n  - path: /etc/hostname\n    priority: 0.5\n  - path: ../x\n    priority: 0.5\n", true },
	{ "files:\n  - path: a.txt\n    priority: 0.5\n---\nother: [doc]\n", true },
	{ "%YAML 1.1\n---\nfiles:\n  - path: 'a.txt'\n    priority: !!float 0.5\n", true },
	{ "\"files\":\n  - path: a.txt\n    priority: 0.5\n", true },
	/* declined: the tree says the same */
	{ "files:\n  - path: a.txt\n    priority: &p 0.5\n  - path: b.txt\n    priority: *p\n", false },
	{ "base: &b {path: a.txt, priority: 0.5}\nfiles:\n  - *b\n", false },
	{ "files: &f []\n", false },
	{ "files:\n  - path: a.txt\n    priority: 0.5\n    path: b.txt\n", false },
	{ "files:\n  - path: a.txt\n    priority: high\n", false },
	{ "files:\n  - path: a.txt\n", false },
	{ "files:\n  - priority: 1\n", false },
	{ "files:\n  - path: \"a\\0b\"\n    priority: 1\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n    role: boss\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n    truncate_strategy: sideways\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n    max_lines: 0\n", false },
	{ "files:\n  - path: [a]\n    priority: 1\n", false },
	{ "files:\n  - a.txt\n", false },
	{ "files:\n  - path: a.txt\n    priority: {v: 1}\n", false },
	{ "files:\n  - path: a.txt\n    role: [system]\n    priority: 1\n", false },
	{ "files:\n  - path: a.txt\n    priority: 0.5\n    tags: [&t x]\n", false },
	{ "files:\n  - path: a.txt\n    priority: 0.5\n    tags: [x]\n    tags: [y]\n", false },
	{ "files:\n  - path: a.txt\n    priority: 0.5\n    ? [k]\n    : [v]\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n    a: 1\n    b: 1\n    c: 1\n    d: 1\n    e: 1\n    f: 1\n"
	  "    g: 1\n    h: 1\n    i: 1\n    j: 1\n    k: 1\n    l: 1\n    m: 1\n    n: 1\n    o: 1\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n    a: 1\n    b: 1\n    c: 1\n    d: 1\n    e: 1\n    f: 1\n"
	  "    g: 1\n    h: 1\n    i: 1\n    j: 1\n    k: 1\n    l: 1\n    m: 1\n", true },
	{ "files:\n  - path: a.txt\n    priority: 1\nfiles: []\n", false },
	{ "files: []\nfiles:\n  - path: a.txt\n    priority: 1\n", false },
	{ "files: []\nprotocol: a\nprotocol: b\n", true },
	{ "files: {a: b}\n", true },
	{ "files: yes\n", true },
	{ "budget: [1]\nfiles: []\n", true },
	{ "budget: {max_tokens: -1}\nfiles: []\n", true },
	{ "budget: {max_tokens: 10, reserved_for_response: 20}\nfiles: []\n", true },
	{ "budget: {max_tokens: 1, max_tokens: 2}\nfiles: []\n", true },
	{ "protocol: x\n", true },
	{ "[files]\n", false },
	{ "", false },
	{ "# nothing\n", false },
	{ "? [complex]\n: key\nfiles: []\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n  - path: b.txt\n    priority: [1\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n---\nbad: [\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n  - path: b.txt\n    priority: oops\nbudget: []\n", false },
	{ "files:\n  - {path: a.txt, priority: 1}\n  -\n", false },
	{ "files:\n  - path: a.txt\n    priority: 1\n    ? [k]\n    : v\n", false },
};

static void test_shapes_both_ways(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "a.txt", "one\ntwo\nthree\n");
	support_write(dir, "hot.yml", "keep:\n  - path: a.txt\n    why: the crash\n");
	size_t loaded = 0;
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		support_write(dir, "working-set.yml", docs[i].text);
		const char *path = support_path(dir, "working-set.yml");
		if (taken_quickly(path) != docs[i].quick)
			fail_msg("docs[%zu]: the quick way %s it:\n%s", i, docs[i].quick ? "declines" : "takes",
				 docs[i].text);
		loaded += both_ways(path) == CS_OK;
	}
	assert_true(loaded >= 15);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repository_manifests_both_ways),
		cmocka_unit_test(test_shapes_both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

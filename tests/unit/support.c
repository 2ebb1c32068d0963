/* support.c: helpers for the cmocka suites (see support.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"
#include "base/tune.h"

#include "edit.h"
#include "kind.h"
#include "load.h"
#include "setting.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"
#include "vm/viewmodel_priv.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


char *support_tempdir(void)
{
	char *dir = strdup("/tmp/ctxscope-test-XXXXXX");
	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

const char *support_path(const char *dir, const char *name)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static void make_parents(const char *path)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
}

void support_write_bytes(const char *dir, const char *name, const char *data, size_t n)
{
	const char *path = support_path(dir, name);
	make_parents(path);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

void support_byte_ranks(FILE *f)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (int b = 0; b < 256; b++)
		fprintf(f, "%c%c== %d\n", b64[b >> 2], b64[(b & 3) << 4], b);
}

void support_write_byte_ranks(const char *dir, const char *name)
{
	FILE *f = fopen(support_path(dir, name), "w");
	assert_non_null(f);
	support_byte_ranks(f);
	fprintf(f, "YWI= 256\n");
	assert_int_equal(fclose(f), 0);
}

struct tokenizer *support_bytes_tokenizer(const char *dir)
{
	FILE *f = fopen(support_path(dir, "bytes.tiktoken"), "w");
	assert_non_null(f);
	support_byte_ranks(f);
	assert_int_equal(fclose(f), 0);
	struct tokenizer *t = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(tokenizer_open(support_path(dir, "bytes.tiktoken"), &t, &err), CS_OK);
	return t;
}

void support_write(const char *dir, const char *name, const char *text)
{
	support_write_bytes(dir, name, text, strlen(text));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void support_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

char *support_dir;

int support_dir_setup(void **state)
{
	(void)state;
	support_dir = support_tempdir();
	return 0;
}

int support_dir_teardown(void **state)
{
	(void)state;
	support_rmtree(support_dir);
	free(support_dir);
	support_dir = NULL;
	return 0;
}

struct source *support_load(const char *path, const char *kind)
{
	struct source *src = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = source_load(path, kind, &src, &err);
	if (rc != CS_OK) {
		char msg[1400];
		cs_error_format(&err, msg, sizeof msg);
		fail_msg("loading %s: %s", path, msg);
	}
	return src;
}

int support_load_error(const char *path, const char *kind, struct cs_error *err)
{
	struct source *src = NULL;
	cs_error_clear(err);
	int rc = source_load(path, kind, &src, err);
	if (rc == CS_OK) {
		source_free(src);
		fail_msg("loading %s should have failed", path);
	}
	assert_null(src);
	return rc;
}

struct source *support_load_text(const char *name, const char *text)
{
	char *dir = support_tempdir();
	support_write(dir, name, text);
	struct source *src = support_load(support_path(dir, name), NULL);
	support_rmtree(dir);
	free(dir);
	return src;
}

int support_load_text_error(const char *name, const char *text, struct cs_error *err)
{
	char *dir = support_tempdir();
	support_write(dir, name, text);
	int rc = support_load_error(support_path(dir, name), NULL, err);
	support_rmtree(dir);
	free(dir);
	return rc;
}

char *support_config_home(const char *dir, const char *cache_yml)
{
	support_write(dir, "ctxscope/cache.yml", cache_yml);
	const char *old = getenv("XDG_CONFIG_HOME");
	char *saved = old ? strdup(old) : NULL;
	assert_int_equal(setenv("XDG_CONFIG_HOME", dir, 1), 0);
	return saved;
}

void support_config_restore(char *saved)
{
	if (saved)
		setenv("XDG_CONFIG_HOME", saved, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(saved);
}

int support_both_ways(const char *path, const char *kind, int tune_op,
		      void (*same)(const struct source *a, const struct source *b))
{
	struct source *s[2] = { NULL, NULL };
	struct cs_error err[2];
	int rc[2];
	for (int way = 0; way < 2; way++) {
		cs_error_clear(&err[way]);
		cs_tune(tune_op, way == 0);
		rc[way] = source_load(path, kind, &s[way], &err[way]);
	}
	cs_tune(tune_op, 1);
	assert_int_equal(rc[0], rc[1]);
	if (rc[0] == CS_OK) {
		same(s[0], s[1]);
	} else {
		assert_string_equal(err[0].message, err[1].message);
		assert_int_equal(err[0].line, err[1].line);
		assert_int_equal(err[0].column, err[1].column);
		assert_string_equal(err[0].path, err[1].path);
	}
	source_free(s[0]);
	source_free(s[1]);
	return rc[0];
}

int support_odd_elements_both_ways(const char *head, const char *good, const char *const *odd, size_t n,
				   int (*both)(const char *path))
{
	char *dir = support_tempdir();
	struct strbuf text = STRBUF_INIT;
	int failed = 0;
	for (size_t i = 0; i < 2 * n; i++) {
		const char *first = i % 2 ? good : odd[i / 2], *second = i % 2 ? odd[i / 2] : good;
		sb_reset(&text);
		sb_printf(&text, "%s%s,\n%s\n]}\n", head, first, second);
		assert_false(text.failed);
		support_write(dir, "odd.json", sb_str(&text));
		failed += both(support_path(dir, "odd.json")) != CS_OK;
	}
	sb_fini(&text);
	support_rmtree(dir);
	free(dir);
	return failed;
}

void support_escapes_both_ways(const char *head, const char *open, const char *close, const char *good,
			       int (*both)(const char *path))
{
	static const char *const odd[] = { "\\n", "\\\"", "\\u00e9", "\\\\", "\t", "\\q", "" };
	char *dir = support_tempdir();
	struct strbuf text = STRBUF_INIT;
	for (size_t e = 0; e < sizeof odd / sizeof *odd; e++)
		for (int at = 0; at < 36; at++) {
			sb_reset(&text);
			sb_printf(&text, "%s%s%.*s%s%.*s%s,\n%s\n]}\n", head, open, at, "abcdefghijklmnopqrstuvwxyz0123456789",
				  odd[e], 35 - at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", close, good);
			assert_false(text.failed);
			support_write(dir, "esc.json", sb_str(&text));
			both(support_path(dir, "esc.json"));
		}
	sb_fini(&text);
	support_rmtree(dir);
	free(dir);
}

void support_same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void same_piece(const struct piece *a, const struct piece *b)
{
	support_same_str(a->id, b->id);
	support_same_str(a->label, b->label);
	support_same_str(a->role, b->role);
	assert_int_equal(a->text_bytes, b->text_bytes);
	assert_memory_equal(a->text, b->text, a->text_bytes + 1);
	assert_int_equal(a->code_points, b->code_points);
	assert_int_equal(a->lines, b->lines);
	assert_int_equal(a->tokens, b->tokens);
	assert_int_equal(a->recorded_tokens, b->recorded_tokens);
	assert_memory_equal(&a->priority, &b->priority, sizeof a->priority); /* -0 is not 0 here */
	assert_memory_equal(&a->input_priority, &b->input_priority, sizeof a->input_priority);
	assert_int_equal(a->strategy, b->strategy);
	assert_int_equal(a->input_strategy, b->input_strategy);
	assert_int_equal(a->input_excluded, b->input_excluded);
	assert_int_equal(a->user_excluded, b->user_excluded);
	assert_int_equal(a->absent, b->absent);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->layer, b->layer);
	assert_int_equal(a->kind_index, b->kind_index);
}

void support_same_pieces(const struct source *a, const struct source *b)
{
	assert_int_equal(a->npieces, b->npieces);
	for (size_t i = 0; i < a->npieces; i++)
		same_piece(&a->pieces[i], &b->pieces[i]);
	assert_int_equal(a->nwarnings, b->nwarnings);
	for (size_t i = 0; i < a->nwarnings; i++) {
		assert_string_equal(a->warnings[i].text, b->warnings[i].text);
		assert_int_equal(a->warnings[i].piece, b->warnings[i].piece);
		assert_int_equal(a->warnings[i].line, b->warnings[i].line);
		assert_int_equal(a->warnings[i].column, b->warnings[i].column);
	}
}

void support_assemble(const struct source *src, struct assembly *a)
{
	struct cs_error err;
	cs_error_clear(&err);
	int rc = assemble(src, a, &err);
	if (rc != CS_OK)
		fail_msg("assembling %s: %s", src->path, err.message);
}

long support_piece(struct source *src, const char *id)
{
	long i = source_find_piece(src, id);
	if (i < 0)
		fail_msg("no piece %s", id);
	return i;
}

void support_set(struct source *src, const char *name, const char *value)
{
	struct edit e;
	struct cs_error err;
	cs_error_clear(&err);
	if (edit_from_setting(src, name, value, &e, &err) != CS_OK || edit_apply(src, &e, &err) != CS_OK)
		fail_msg("--%s %s: %s", name, value, err.message);
}

int support_get(const struct source *src, const char *name, struct strbuf *out)
{
	const struct setting *s = setting_of_kind(src, name);
	if (!s)
		return CS_EUSAGE;
	setting_get(src, s, out);
	return CS_OK;
}

int support_set_option(struct source *src, const char *name, const char *value, struct cs_error *err)
{
	const struct setting *s = setting_of_kind(src, name);
	if (!s)
		return cs_error_set(err, CS_EUSAGE, "a %s has no setting \"%s\"", src->kind->title, name);
	return setting_set(src, s, value, err);
}

const char *support_fact(const struct assembly *a, const char *key)
{
	for (size_t i = 0; i < a->nfacts; i++)
		if (strcmp(a->facts[i].key, key) == 0)
			return a->facts[i].value;
	fail_msg("no fact %s", key);
	return NULL;
}

const char *support_prompt(const struct assembly *a)
{
	static struct strbuf buf = STRBUF_INIT;
	sb_reset(&buf);
	assert_true(asm_prompt_text(a, &buf));
	return sb_str(&buf);
}

struct tokenizer *support_tokenizer(const char *name)
{
	struct tokenizer *t = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	if (tokenizer_open(name, &t, &err) != CS_OK)
		fail_msg("%s (%s)", SUPPORT_RANKS_MISSING, err.message);
	return t;
}

const struct vm_row *support_row(const struct vm *vm, size_t i)
{
	static struct vm_row ring[16];
	static size_t next;
	struct vm_row *r = &ring[next++ % 16];
	*r = vm_row_at(vm, i);
	return r;
}

struct piece_result *support_copy_results(const struct assembly *a)
{
	struct piece_result *c = malloc((a->nresults ? a->nresults : 1) * sizeof *c);
	assert_non_null(c);
	memcpy(c, a->results, a->nresults * sizeof *c);
	return c;
}

void support_assert_changes(const struct source *src, const struct assembly *a, const struct piece_result *was)
{
	if (!a->changes_valid)
		return;
	size_t k = 0;
	for (size_t i = 0; i < src->npieces; i++) {
		if (!asm_result_differs(&was[i], &a->results[i]))
			continue;
		assert_true(k < a->nchanges);
		assert_int_equal(a->changes[k].piece, (long)i);
		assert_false(asm_result_differs(&a->changes[k].was, &was[i]));
		k++;
	}
	assert_int_equal(k, a->nchanges);
	struct strbuf full = STRBUF_INIT, listed = STRBUF_INIT;
	vm_say_moved(src, was, a->results, &full);
	vm_say_changes(src, a->changes, a->nchanges, a->results, &listed);
	assert_false(full.failed || listed.failed);
	assert_string_equal(sb_str(&listed), sb_str(&full));
	sb_fini(&full);
	sb_fini(&listed);
}

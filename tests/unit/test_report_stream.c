/* test_report_stream.c: `report` written as it is made. report_stream gives
 * the bytes report_write gives, in every format, on a report many chunks
 * long (text, YAML, JSON, ASCII); the emitter never holds much more than a
 * chunk while it streams, and writes what it held before first; a failed
 * write is CS_EIO (and the rest dropped), out of memory stays CS_ENOMEM;
 * the word-at-a-time string escape agrees with a byte-at-a-time one. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "emit.h"
#include "base/error.h"
#include "report.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS 3000

/* A memory store of ITEMS items over a small budget: most are left out, each
 * with its scores and a sentence, so every format runs to many chunks. */
static struct source *big_memory(void)
{
	struct strbuf sb = STRBUF_INIT;
	sb_puts(&sb, "{\"query\": \"q\", \"maxTokens\": 400, \"archetype\": \"coding\", \"items\": [");
	static const char *types[] = { "event", "chunk", "entity", "relation", "pattern" };
	for (int i = 0; i < ITEMS; i++)
		sb_printf(&sb,
			  "%s{\"id\": \"it-%d\", \"type\": \"%s\", \"content\": \"item %d \\u00e9t\\u00e9 \\u200b hidden\", "
			  "\"tokens\": %d, \"scores\": {\"recency\": %.4f, \"relevance\": %.3f, \"salience\": %.5f}}",
			  i ? ", " : "", i, types[i % 5], i, 5 + i % 40, (double)(i % 997) / 997.0,
			  (double)(i % 101) / 101.0, (double)(i % 13) / 13.0);
	sb_puts(&sb, "]}");
	assert_false(sb.failed);
	struct source *src = support_load_text("big.json", sb_str(&sb));
	sb_fini(&sb);
	return src;
}

struct fixture {
	struct source *src;
	struct assembly a;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	f->src = big_memory();
	support_assemble(f->src, &f->a);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	asm_fini(&f->a);
	source_free(f->src);
	free(f);
	return 0;
}

/* All of f's bytes (malloc'd), from the start. */
static char *file_bytes(FILE *f, size_t *len)
{
	assert_int_equal(fflush(f), 0);
	long n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* f holds exactly want's bytes. */
static void assert_file_holds(FILE *f, const struct strbuf *want)
{
	size_t len;
	char *got = file_bytes(f, &len);
	assert_int_equal(len, want->len);
	assert_memory_equal(got, want->data, len);
	free(got);
}

static void test_same_bytes_every_format(void **state)
{
	struct fixture *f = *state;
	static const enum report_format formats[] = { REPORT_TEXT, REPORT_YAML, REPORT_JSON };
	for (int ascii = 0; ascii < 2; ascii++)
		for (size_t k = 0; k < 3; k++) {
			struct report_options opt = { .format = formats[k], .ascii = ascii };
			struct strbuf want = STRBUF_INIT;
			assert_int_equal(report_write(&f->a, &opt, &want), CS_OK);
			assert_true(want.len > 4 * EMIT_CHUNK); /* the case streams many chunks */
			FILE *tmp = tmpfile();
			assert_non_null(tmp);
			assert_int_equal(report_stream(&f->a, &opt, tmp), CS_OK);
			assert_file_holds(tmp, &want);
			fclose(tmp);
			sb_fini(&want);
		}
}

/* The emitter empties its buffer into the sink as it goes: never much over a
 * chunk held, the text before the emitter started comes first, and the end
 * is written by emit_finish. */
static void test_emitter_holds_a_chunk(void **state)
{
	(void)state;
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	struct strbuf out = STRBUF_INIT;
	sb_puts(&out, "before\n");
	struct emitter em;
	emit_init(&em, &out, EMIT_JSON, 0);
	emit_stream(&em, tmp);
	emit_list_begin(&em);
	size_t most = 0;
	for (int i = 0; i < 20000; i++) {
		emit_map_begin(&em);
		emit_key_int(&em, "n", i);
		emit_key_num(&em, "x", i / 7.0);
		emit_key_str(&em, "s", "some words");
		emit_map_end(&em);
		if (out.len > most)
			most = out.len;
	}
	emit_list_end(&em);
	assert_int_equal(emit_finish(&em), CS_OK);
	assert_true(most < EMIT_CHUNK + 256);
	assert_int_equal(out.len, 0);
	size_t len;
	char *got = file_bytes(tmp, &len);
	assert_true(len > 10 * EMIT_CHUNK);
	assert_memory_equal(got, "before\n[\n  {\n    \"n\": 0,\n    \"x\": 0.0,", 38);
	assert_memory_equal(got + len - 4, "}\n]\n", 4);
	free(got);
	fclose(tmp);
	sb_fini(&out);
}

/* A sink that cannot take the bytes: CS_EIO, and the report stops writing. */
static void test_failed_write(void **state)
{
	struct fixture *f = *state;
	FILE *full = fopen("/dev/full", "w");
	if (!full)
		skip();
	struct report_options opt = { .format = REPORT_JSON };
	assert_int_equal(report_stream(&f->a, &opt, full), CS_EIO);
	assert_true(ferror(full));
	fclose(full);
}

/* Out of memory while streaming is still CS_ENOMEM, never a crash, at every
 * allocation the report makes; once it succeeds the bytes are whole. */
static void test_out_of_memory(void **state)
{
	struct fixture *f = *state;
	struct report_options opt = { .format = REPORT_YAML };
	struct strbuf want = STRBUF_INIT;
	assert_int_equal(report_write(&f->a, &opt, &want), CS_OK);
	bool saw_ok = false;
	int fails = 0;
	for (long n = 1; n < 200 && !saw_ok; n++) {
		FILE *tmp = tmpfile();
		assert_non_null(tmp);
		cs_alloc_fail_from(n);
		int rc = report_stream(&f->a, &opt, tmp);
		cs_alloc_fail_from(0);
		assert_true(rc == CS_OK || rc == CS_ENOMEM);
		fails += rc == CS_ENOMEM;
		if (rc == CS_OK) {
			saw_ok = true;
			assert_file_holds(tmp, &want);
		}
		fclose(tmp);
	}
	assert_true(saw_ok);
	assert_true(fails > 0);
	sb_fini(&want);
}

/* json_quote against a byte-at-a-time reference on ASCII: a special byte
 * (quote, backslash, control, DEL) at every offset of strings of every
 * length up to 40, where the word-at-a-time scan hands over. */
static void reference_quote(struct strbuf *out, const char *s, size_t n)
{
	sb_putc(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			sb_printf(out, "\\%c", c);
		else if (c == '\n')
			sb_puts(out, "\\n");
		else if (c == '\t')
			sb_puts(out, "\\t");
		else if (c == '\r')
			sb_puts(out, "\\r");
		else if (c < 0x20 || c == 0x7F)
			sb_printf(out, "\\u%04x", c);
		else
			sb_putc(out, (char)c);
	}
	sb_putc(out, '"');
}

static void test_quote_every_offset(void **state)
{
	(void)state;
	static const char special[] = { '"', '\\', '\n', '\t', '\r', 0x01, 0x1F, 0x7F, 0x00, ' ', '~' };
	char s[48];
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;
	for (size_t n = 1; n <= 40; n++)
		for (size_t at = 0; at < n; at++)
			for (size_t k = 0; k < sizeof special; k++) {
				for (size_t i = 0; i < n; i++)
					s[i] = (char)('a' + (i * 7 + n) % 26);
				s[at] = special[k];
				if (at + 9 < n)
					s[at + 9] = special[(k + 1) % sizeof special];
				sb_reset(&got);
				sb_reset(&want);
				json_quote(&got, s, n);
				reference_quote(&want, s, n);
				assert_string_equal(sb_str(&got), sb_str(&want));
			}
	sb_fini(&got);
	sb_fini(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_bytes_every_format, setup, teardown),
		cmocka_unit_test(test_emitter_holds_a_chunk),
		cmocka_unit_test(test_quote_every_offset),
		cmocka_unit_test_setup_teardown(test_failed_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

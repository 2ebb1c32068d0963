/* test_robust.c: robustness and safety. Hidden text found and revealed
 * (bidi, zero-width, tag smuggling) and flagged at load; the JSON layer's
 * refusals (\u0000, duplicate keys, numbers too big); safe file reads of
 * directories, FIFOs, symlink loops, devices and files that change while
 * read; the billion-laughs refusal is fast; the display sanitizer never
 * lets a control byte through. */
#define _XOPEN_SOURCE 700 /* mkfifo, symlink */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "base/alloc.h"
#include "base/bulk.h"
#include "base/fileio.h"
#include "text/hidden.h"
#include "text/hidden_report.h"
#include "json/doc.h"
#include "load.h"
#include "source.h"
#include "base/strbuf.h"
#include "theme.h"
#include "base/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RLO "\xe2\x80\xae"
#define LRI "\xe2\x81\xa6"
#define PDI "\xe2\x81\xa9"
#define ZWSP "\xe2\x80\x8b"
#define ZWJ "\xe2\x80\x8d"
/* U+E0068 U+E0069: "hi" in tag characters */
#define TAG_H "\xf3\xa0\x81\xa8"
#define TAG_I "\xf3\xa0\x81\xa9"

static const char *reveal(const char *s, bool ascii)
{
	static struct strbuf out = STRBUF_INIT;
	sb_reset(&out);
	assert_true(hidden_reveal(&out, s, strlen(s), ascii));
	return sb_str(&out);
}

static void test_hidden_scan_counts(void **state)
{
	(void)state;
	struct hidden_summary sum;
	const char *trojan = "ok\nif (level != \"user" RLO " " LRI "// admin" PDI " " LRI "\") {\nfine\n";
	assert_true(hidden_scan(trojan, strlen(trojan), &sum));
	assert_int_equal(sum.count[HIDDEN_BIDI], 4);
	assert_int_equal(sum.count[HIDDEN_ZERO_WIDTH], 0);
	assert_int_equal(sum.total, 4);
	assert_int_equal(sum.lines, 1);

	const char *mixed = "pass" ZWSP "word\n\nsay " TAG_H TAG_I "\n" "\xc2\xad" "soft";
	assert_true(hidden_scan(mixed, strlen(mixed), &sum));
	assert_int_equal(sum.count[HIDDEN_ZERO_WIDTH], 1);
	assert_int_equal(sum.count[HIDDEN_TAG], 2);
	assert_int_equal(sum.count[HIDDEN_FORMAT], 1); /* the soft hyphen */
	assert_int_equal(sum.lines, 3);

	/* plain ASCII, accents, CJK, emoji: nothing hidden */
	const char *visible = "caf\xc3\xa9 \xe4\xb8\x96\xe7\x95\x8c \xf0\x9f\x98\x80 \x1b[31m";
	assert_false(hidden_scan(visible, strlen(visible), &sum));
	assert_int_equal(sum.total, 0);
	/* a ZWJ joining emoji (woman + laptop) is rendering, not hiding; between letters it hides */
	const char *emoji = "\xf0\x9f\x91\xa9" ZWJ "\xf0\x9f\x92\xbb";
	assert_false(hidden_scan(emoji, strlen(emoji), NULL));
	assert_true(hidden_scan("a" ZWJ "b", 5, NULL));
}

/* hidden_measure gives the three separate counts' answers, wherever the
 * first non-ASCII byte falls (inside or past a 16-byte block, first, last),
 * with the text ending on a newline or not, and on broken UTF-8. */
static void test_hidden_measure_same_counts(void **state)
{
	(void)state;
	static const char *const tails[] = { "", "\n", "x", ZWJ "b", "\xe2\x80", "\xc3\xa9\n", RLO "\n\n",
					     "\xf0\x9f\x91\xa9" ZWJ "\xf0\x9f\x92\xbb", "\xff", ZWSP };
	char buf[128];
	for (size_t pre = 0; pre < 40; pre++)
		for (size_t t = 0; t < sizeof tails / sizeof *tails; t++)
			for (int after = 0; after < 3; after++) {
				size_t n = 0;
				for (size_t i = 0; i < pre; i++)
					buf[n++] = i % 7 == 3 ? '\n' : (char)('a' + i % 26);
				size_t tl = strlen(tails[t]);
				memcpy(buf + n, tails[t], tl);
				n += tl;
				const char *end = after == 0 ? "" : after == 1 ? "\n" : "tail text past sixteen\nbytes";
				memcpy(buf + n, end, strlen(end));
				n += strlen(end);
				struct text_measure m;
				hidden_measure(buf, n, &m);
				assert_int_equal(m.code_points, utf8_count_code_points(buf, n));
				assert_int_equal(m.lines, utf8_count_lines(buf, n));
				assert_int_equal(m.hidden, hidden_scan(buf, n, NULL));
			}
	struct text_measure m;
	static char big[9000]; /* past 255 sixteen-byte steps of newlines, then past none */
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = i % 3 ? 'x' : '\n';
	for (size_t n = sizeof big - 40; n <= sizeof big; n += 20) {
		memcpy(big + n - 3, ZWSP, 3);
		hidden_measure(big, n, &m);
		assert_int_equal(m.lines, utf8_count_lines(big, n));
		assert_int_equal(m.code_points, utf8_count_code_points(big, n));
		assert_true(m.hidden);
		hidden_measure(big, n - 3, &m);
		assert_int_equal(m.lines, utf8_count_lines(big, n - 3));
		big[n - 3] = big[n - 2] = big[n - 1] = 'x';
	}
	hidden_measure("a" ZWJ "b", 5, &m); /* the ZWJ's neighbours come from before and after it */
	assert_true(m.hidden);
	assert_int_equal(m.code_points, 3);
}

static void test_hidden_reveal_markers(void **state)
{
	(void)state;
	assert_string_equal(reveal("user" RLO " " LRI "// admin" PDI, false),
			    "user\xc2\xab" "RLO\xc2\xbb \xc2\xab" "LRI\xc2\xbb// admin\xc2\xab" "PDI\xc2\xbb");
	assert_string_equal(reveal("a" ZWSP ZWSP ZWSP "b", false), "a\xc2\xabZWSP\xc3\x97" "3\xc2\xbb" "b");
	assert_string_equal(reveal("say " TAG_H TAG_I "!", false), "say \xc2\xabTAG: hi\xc2\xbb!");
	assert_string_equal(reveal("say " TAG_H TAG_I "!", true), "say <<TAG: hi>>!");
	assert_string_equal(reveal("x" RLO, true), "x<<RLO>>");
	assert_string_equal(reveal("\xef\xbb\xbfstart", true), "<<BOM>>start");
	/* nothing hidden: copied byte for byte, controls included (sanitize after) */
	assert_string_equal(reveal("plain \x1b[0m text", false), "plain \x1b[0m text");
	/* a revealed text hides nothing any more */
	const char *r = reveal("p" ZWSP "w " TAG_H " " RLO, false);
	assert_false(hidden_scan(r, strlen(r), NULL));
}

static void test_hidden_decode_tags(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	const char *s = "one " TAG_H TAG_I " two " TAG_I " \xf3\xa0\x80\x81"; /* + LANGUAGE TAG, no ASCII */
	assert_true(hidden_decode_tags(&out, s, strlen(s)));
	assert_string_equal(sb_str(&out), "hi i ");
	sb_fini(&out);
}

/* Runs of variation selectors ("emoji smuggling"), Hangul fillers, Khmer
 * inherent vowels, Mongolian selectors, line and paragraph separators. */
static void test_hidden_selectors_fillers_separators(void **state)
{
	(void)state;
	struct hidden_summary sum;
	/* a lone selector is ordinary: the emoji's U+FE0F, a keycap */
	const char *heart = "\xe2\x9d\xa4\xef\xb8\x8f 1\xef\xb8\x8f\xe2\x83\xa3";
	assert_false(hidden_scan(heart, strlen(heart), NULL));
	/* grinning face + "Hi" as bytes: U+E0100+0x48-16, U+E0100+0x69-16 */
	const char *smuggled = "\xf0\x9f\x98\x80\xf3\xa0\x84\xb8\xf3\xa0\x85\x99!";
	assert_true(hidden_scan(smuggled, strlen(smuggled), &sum));
	assert_int_equal(sum.count[HIDDEN_VARIATION], 2);
	assert_string_equal(reveal(smuggled, false), "\xf0\x9f\x98\x80\xc2\xabVS: Hi\xc2\xbb!");
	assert_string_equal(reveal(smuggled, true), "\xf0\x9f\x98\x80<<VS: Hi>>!");
	struct strbuf out = STRBUF_INIT;
	assert_true(hidden_decode_selectors(&out, heart, strlen(heart)));
	assert_int_equal(out.len, 0);
	assert_true(hidden_decode_selectors(&out, smuggled, strlen(smuggled)));
	assert_string_equal(sb_str(&out), "Hi");
	sb_reset(&out);
	/* on the screen each selector of a run is a stand-in; a lone one passes */
	assert_true(utf8_sanitize(&out, smuggled, strlen(smuggled), 0));
	assert_string_equal(sb_str(&out), "\xf0\x9f\x98\x80\xe2\x97\x8a\xe2\x97\x8a!");
	sb_reset(&out);
	assert_true(utf8_sanitize(&out, heart, strlen(heart), 0));
	assert_string_equal(sb_str(&out), heart);
	sb_fini(&out);
	/* U+3164, U+115F, U+1160, U+FFA0, U+17B4, U+17B5, U+2028, U+2029 */
	const char *others = "a\xe3\x85\xa4" "b\xe1\x85\x9f\xe1\x85\xa0\xef\xbe\xa0 \xe1\x9e\xb4\xe1\x9e\xb5 x\xe2\x80\xa8y\xe2\x80\xa9";
	assert_true(hidden_scan(others, strlen(others), &sum));
	assert_int_equal(sum.count[HIDDEN_FORMAT], 8);
	assert_string_equal(reveal(others, true), "a<<HF>>b<<HCF>><<HJF>><<HWHF>> <<KIVAQ>><<KIVAA>> x<<LSEP>>y<<PSEP>>");
	/* Mongolian: one selector after a letter is ordinary, two are a run */
	assert_false(hidden_scan("\xe1\xa0\xa0\xe1\xa0\x8b", 6, NULL));
	assert_true(hidden_scan("\xe1\xa0\xa0\xe1\xa0\x8b\xe1\xa0\x8c", 9, NULL));
}

/* --theme NAME never loads a theme from the working directory's ./themes
 * (a checkout's files are not ours to run): only the user's config folder
 * and the install folder, and beside the binary (here, the checkout it was
 * built in: .build/asan/tests/test_robust). */
static void test_theme_name_not_from_the_working_directory(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "themes/planted.theme", "title red white bold\n");
	char here[4096];
	assert_non_null(getcwd(here, sizeof here));
	assert_int_equal(chdir(dir), 0);
	struct theme t;
	struct cs_error err;
	cs_error_clear(&err);
	int planted = theme_load_named("planted", &t, &err);
	cs_error_clear(&err);
	int light = theme_load_named("light", &t, &err);
	assert_int_equal(chdir(here), 0);
	support_rmtree(dir);
	free(dir);
	assert_int_equal(planted, CS_EIO);
	assert_int_equal(light, CS_OK);
}

static void test_hidden_flag_at_load(void **state)
{
	(void)state;
	struct source *src = support_load("samples/manifest/hidden-text/working-set.yml", NULL);
	assert_true(src->pieces[support_piece(src, "vendor/fastjson-lite/README.md")].flags & PIECE_HIDDEN);
	assert_true(src->pieces[support_piece(src, "vendor/fastjson-lite/src/access.c")].flags & PIECE_HIDDEN);
	assert_false(src->pieces[support_piece(src, "notes/task.md")].flags & PIECE_HIDDEN);
	/* control characters are shown, not hidden: the ANSI log is not flagged */
	assert_false(src->pieces[support_piece(src, "logs/ci-run.log")].flags & PIECE_HIDDEN);
	assert_true(hidden_any(src));
	source_free(src);
}

static void test_json_nul_escape(void **state)
{
	(void)state;
	assert_int_equal(json_find_nul_escape("{\"a\": \"x\\u0000y\"}", 17), 8);
	assert_int_equal(json_find_nul_escape("{\"a\": \"x\\\\u0000y\"}", 18), -1); /* an escaped backslash */
	assert_int_equal(json_find_nul_escape("{\"a\": \"\\\"\\u0000\"}", 16), 9);
	assert_int_equal(json_find_nul_escape("{\"a\": \"x\\u0001\"}", 15), -1);
	assert_int_equal(json_find_nul_escape("{\"a\": \"\\u000", 12), -1); /* cut short: no read past the end */

	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	const char *text = "{\"turns\": [\n  {\"content\": \"ls\\u0000; rm -rf ~\"}\n]}";
	assert_int_equal(json_doc_parse(&d, text, strlen(text), &err), CS_ESYNTAX);
	assert_null(d.root);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 18); /* the backslash */
	assert_non_null(strstr(err.message, "\\u0000"));
}

static void test_json_duplicate_keys(void **state)
{
	(void)state;
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	const char *text = "{\"items\": [{\"id\": \"a\", \"tokens\": 3},\n {\"id\": \"b\", \"tokens\": 3, \"tokens\": 9000}]}";
	assert_int_equal(json_doc_parse(&d, text, strlen(text), &err), CS_ESTRUCT);
	assert_string_equal(err.path, "items[1]");
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.message, "\"tokens\" appears twice"));
	json_doc_free(&d);

	/* the same key in different objects is fine */
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse(&d, "{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}", 30, &err), CS_OK);
	json_doc_free(&d);

	/* a large object (sorted, not pairwise) */
	struct strbuf big = STRBUF_INIT;
	sb_puts(&big, "{\"m\": {");
	for (int i = 0; i < 200; i++)
		sb_printf(&big, "\"k%d\": %d, ", i, i);
	sb_puts(&big, "\"k117\": 0}}");
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse(&d, sb_str(&big), big.len, &err), CS_ESTRUCT);
	assert_string_equal(err.path, "m");
	assert_non_null(strstr(err.message, "\"k117\""));
	json_doc_free(&d);
	sb_reset(&big);
	sb_puts(&big, "{");
	for (int i = 0; i < 200; i++)
		sb_printf(&big, "%s\"k%d\": %d", i ? ", " : "", i, i);
	sb_puts(&big, "}");
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse(&d, sb_str(&big), big.len, &err), CS_OK);
	json_doc_free(&d);
	sb_fini(&big);
}

static void test_json_numbers_too_big(void **state)
{
	(void)state;
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	const char *text = "{\"a\": 1e999, \"b\": 1e16, \"c\": 2.5, \"d\": 9000000000000000, \"e\": -3}";
	assert_int_equal(json_doc_parse(&d, text, strlen(text), &err), CS_OK);
	double x = 0;
	long n = 0;
	assert_int_equal(json_get_number(&d, d.root, JPATH_ROOT, "a", JSON_REQUIRED, &x, &err), CS_ELIMIT);
	assert_string_equal(err.path, "a");
	assert_int_equal(json_get_long(&d, d.root, JPATH_ROOT, "b", JSON_REQUIRED, &n, &err), CS_ELIMIT);
	assert_int_equal(json_get_long(&d, d.root, JPATH_ROOT, "c", JSON_REQUIRED, &n, &err), CS_ETYPE);
	assert_int_equal(json_get_long(&d, d.root, JPATH_ROOT, "d", JSON_REQUIRED, &n, &err), CS_OK);
	assert_int_equal(n, 9000000000000000L);
	assert_int_equal(json_get_long(&d, d.root, JPATH_ROOT, "e", JSON_REQUIRED, &n, &err), CS_OK);
	assert_int_equal(n, -3);
	json_doc_free(&d);
}

static void test_json_depth_limit(void **state)
{
	(void)state;
	struct strbuf s = STRBUF_INIT;
	sb_repeat(&s, "[", JSON_MAX_DEPTH + 1);
	sb_repeat(&s, "]", JSON_MAX_DEPTH + 1);
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse(&d, sb_str(&s), s.len, &err), CS_ELIMIT);
	assert_int_equal(err.column, JSON_MAX_DEPTH + 1);
	sb_reset(&s);
	sb_repeat(&s, "[", JSON_MAX_DEPTH);
	sb_repeat(&s, "]", JSON_MAX_DEPTH);
	assert_int_equal(json_doc_parse(&d, sb_str(&s), s.len, &err), CS_OK);
	json_doc_free(&d);
	sb_fini(&s);
}

static int read_state(const char *path, enum file_state *state, struct cs_error *err, size_t max)
{
	char *data = NULL;
	size_t len = 0;
	cs_error_clear(err);
	int rc = file_read(path, max, &data, &len, state, err);
	cs_free(data);
	return rc;
}

static void test_fileio_refuses_special_files(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	enum file_state st;
	struct cs_error err;
	char path[4096], other[4096];

	snprintf(path, sizeof path, "%s/sub.yml", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(read_state(path, &st, &err, 0), CS_EIO);
	assert_int_equal(st, FILE_DIRECTORY);
	assert_string_equal(err.file, path);

	/* a FIFO with no writer: refused at once, never waited on */
	snprintf(path, sizeof path, "%s/fifo.yml", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	time_t t0 = time(NULL);
	assert_int_equal(read_state(path, &st, &err, 0), CS_EIO);
	assert_int_equal(st, FILE_NOT_REGULAR);
	assert_true(time(NULL) - t0 < 3);

	snprintf(path, sizeof path, "%s/a.yml", dir);
	snprintf(other, sizeof other, "%s/b.yml", dir);
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(symlink(path, other), 0);
	assert_int_equal(read_state(path, &st, &err, 0), CS_EIO);
	assert_non_null(strstr(err.message, "symbolic links"));

	assert_int_equal(read_state("/dev/null", &st, &err, 0), CS_EIO);
	assert_int_equal(st, FILE_NOT_REGULAR);

	/* /proc files say size 0 and then have bytes: a file that changed */
	assert_int_equal(read_state("/proc/self/status", &st, &err, 0), CS_EIO);
	assert_int_equal(st, FILE_CHANGED);

	support_write(dir, "big.yml", "0123456789");
	assert_int_equal(read_state(support_path(dir, "big.yml"), &st, &err, 9), CS_ELIMIT);
	assert_int_equal(st, FILE_TOO_BIG);
	assert_int_equal(read_state(support_path(dir, "big.yml"), &st, &err, 10), CS_OK);
	assert_int_equal(st, FILE_OK);

	support_rmtree(dir);
	free(dir);
}

/* file_read_noting_link: lstat's answer on the last component, read or not,
 * and the same failures as file_read. */
static void test_fileio_notes_links(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char path[4096], other[4096], *data;
	size_t len;
	enum file_state st;
	struct cs_error err;
	bool link = true;
	support_write(dir, "real.txt", "text");
	assert_int_equal(file_read_noting_link(support_path(dir, "real.txt"), 0, &data, &len, &st, &link, &err), CS_OK);
	assert_false(link);
	assert_string_equal(data, "text");
	cs_free(data);

	snprintf(path, sizeof path, "%s/link.txt", dir);
	assert_int_equal(symlink("real.txt", path), 0);
	assert_int_equal(file_read_noting_link(path, 0, &data, &len, &st, &link, &err), CS_OK);
	assert_true(link);
	assert_int_equal(len, 4);
	cs_free(data);

	snprintf(path, sizeof path, "%s/dangling.txt", dir);
	assert_int_equal(symlink("nowhere.txt", path), 0);
	cs_error_clear(&err);
	assert_int_equal(file_read_noting_link(path, 0, &data, &len, &st, &link, &err), CS_EIO);
	assert_true(link);
	assert_int_equal(st, FILE_MISSING);

	link = true;
	assert_int_equal(file_read_noting_link(support_path(dir, "none.txt"), 0, &data, &len, &st, &link, &err),
			 CS_EIO);
	assert_false(link);
	assert_int_equal(st, FILE_MISSING);

	/* a loop: a link, refused as file_read refuses it */
	snprintf(path, sizeof path, "%s/a", dir);
	snprintf(other, sizeof other, "%s/b", dir);
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(symlink(path, other), 0);
	cs_error_clear(&err);
	assert_int_equal(file_read_noting_link(path, 0, &data, &len, &st, &link, &err), CS_EIO);
	assert_true(link);
	assert_non_null(strstr(err.message, "symbolic links"));
	/* looping on the way to a name that is no link: not a link */
	snprintf(path, sizeof path, "%s/a/x.txt", dir);
	cs_error_clear(&err);
	assert_int_equal(file_read_noting_link(path, 0, &data, &len, &st, &link, &err), CS_EIO);
	assert_false(link);
	assert_non_null(strstr(err.message, "symbolic links"));

	support_rmtree(dir);
	free(dir);
}

/* file_read_bulk: straight into a bulk's room; what is not committed is
 * reused by the next read, what is committed stays. */
static void test_fileio_reads_into_bulk(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct bulk b;
	bulk_init(&b, 0);
	char *text;
	size_t len;
	enum file_state st;
	struct cs_error err;
	bool link;
	support_write(dir, "long.txt", "a longer text");
	support_write(dir, "short.txt", "short");
	assert_int_equal(file_read_bulk(support_path(dir, "long.txt"), 0, &b, &text, &len, &st, &link, &err), CS_OK);
	assert_int_equal(len, 13);
	assert_string_equal(text, "a longer text");
	char *first = text;
	/* not committed: the next file takes the same room */
	assert_int_equal(file_read_bulk(support_path(dir, "short.txt"), 0, &b, &text, &len, &st, &link, &err), CS_OK);
	assert_ptr_equal(text, first);
	assert_int_equal(len, 5);
	assert_string_equal(text, "short");
	bulk_commit(&b, text, len);
	/* committed: kept, the next file goes after it */
	assert_int_equal(file_read_bulk(support_path(dir, "long.txt"), 0, &b, &text, &len, &st, &link, &err), CS_OK);
	assert_ptr_equal(text, first + 6);
	assert_string_equal(first, "short");
	cs_error_clear(&err);
	assert_int_equal(file_read_bulk(support_path(dir, "none.txt"), 0, &b, &text, &len, &st, &link, &err), CS_EIO);
	assert_int_equal(st, FILE_MISSING);
	assert_null(text);
	/* /proc: changed while read */
	assert_int_equal(file_read_bulk("/proc/self/status", 0, &b, &text, &len, &st, &link, &err), CS_EIO);
	assert_int_equal(st, FILE_CHANGED);
	assert_string_equal(first, "short");
	bulk_fini(&b);
	support_rmtree(dir);
	free(dir);
}

static void test_billion_laughs_refused_fast(void **state)
{
	(void)state;
	struct cs_error err;
	clock_t t0 = clock();
	assert_int_equal(support_load_error("tests/hostile/manifest/billion-laughs.yml", NULL, &err), CS_ELIMIT);
	double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(seconds < 1.0);
	assert_int_equal(err.line, 12);
	assert_non_null(strstr(err.file, "billion-laughs.yml"));
	assert_non_null(strstr(err.message, "billion laughs"));
}

static void test_sanitize_hostile_text(void **state)
{
	(void)state;
	const char *evil = "\x1b]52;c;ZWNobw==\x07\xc2\x9b" "31m\x9b\x7f\x08\r" RLO "\xff";
	struct strbuf out = STRBUF_INIT;
	assert_true(utf8_sanitize(&out, evil, strlen(evil), 0));
	for (size_t i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.data[i];
		assert_false(c < 0x20 || c == 0x7f);
	}
	assert_null(strstr(sb_str(&out), "\xc2\x9b"));
	assert_null(strstr(sb_str(&out), RLO));
	/* every invalid byte is one U+FFFD and one column */
	sb_reset(&out);
	assert_true(utf8_sanitize(&out, "\xff\xfe", 2, 0));
	assert_string_equal(sb_str(&out), "\xef\xbf\xbd\xef\xbf\xbd");
	assert_int_equal(utf8_columns(sb_str(&out), out.len), 2);
	sb_reset(&out);
	assert_true(utf8_sanitize(&out, evil, strlen(evil), UTF8_ASCII));
	for (size_t i = 0; i < out.len; i++)
		assert_true((unsigned char)out.data[i] >= 0x20 && (unsigned char)out.data[i] < 0x7f);
	sb_fini(&out);
}

/* pcre2 allocates through our hook: a compile fails cleanly when the
 * allocation fails, and counts in the same counter. */
static void test_pcre2_hook(void **state)
{
	(void)state;
	pcre2_general_context *gc = pcre2_general_context_create(cs_pcre2_malloc, cs_pcre2_free, NULL);
	assert_non_null(gc);
	pcre2_compile_context *cc = pcre2_compile_context_create(gc);
	assert_non_null(cc);
	int errcode;
	PCRE2_SIZE erroff;
	cs_alloc_fail_from(1);
	pcre2_code *re = pcre2_compile((PCRE2_SPTR) "over[- ]budget", PCRE2_ZERO_TERMINATED, 0, &errcode, &erroff, cc);
	long made = cs_alloc_count();
	cs_alloc_fail_from(0);
	assert_null(re);
	PCRE2_UCHAR why[120];
	assert_true(pcre2_get_error_message(errcode, why, sizeof why) > 0);
	assert_non_null(strstr((const char *)why, "memory"));
	assert_true(made >= 1);
	re = pcre2_compile((PCRE2_SPTR) "over[- ]budget", PCRE2_ZERO_TERMINATED, 0, &errcode, &erroff, cc);
	assert_non_null(re);
	pcre2_code_free(re);
	pcre2_compile_context_free(cc);
	pcre2_general_context_free(gc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hidden_scan_counts),
		cmocka_unit_test(test_hidden_measure_same_counts),
		cmocka_unit_test(test_hidden_reveal_markers),
		cmocka_unit_test(test_hidden_decode_tags),
		cmocka_unit_test(test_hidden_selectors_fillers_separators),
		cmocka_unit_test(test_theme_name_not_from_the_working_directory),
		cmocka_unit_test(test_hidden_flag_at_load),
		cmocka_unit_test(test_json_nul_escape),
		cmocka_unit_test(test_json_duplicate_keys),
		cmocka_unit_test(test_json_numbers_too_big),
		cmocka_unit_test(test_json_depth_limit),
		cmocka_unit_test(test_fileio_refuses_special_files),
		cmocka_unit_test(test_fileio_notes_links),
		cmocka_unit_test(test_fileio_reads_into_bulk),
		cmocka_unit_test(test_billion_laughs_refused_fast),
		cmocka_unit_test(test_sanitize_hostile_text),
		cmocka_unit_test(test_pcre2_hook),
	};
	return cmocka_run_group_tests_name("robust", tests, NULL, NULL);
}

/* test_scan.c: the scan's pieces below its command (src/scan): the line
 * reader (fields found whatever their order and nesting, escapes and all;
 * a malformed line refused with the byte where it went wrong, never past
 * the line), and the waste model on requests made here: a 13-minute gap is
 * no expiry for 1-hour writes and is one for 5-minute writes (ctxscope-formats(5)
 * 7b's decision), a read of everything written leaves no waste, and a
 * request that forks from an earlier line is an edited earlier message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scan/lines.h"
#include "scan/scan_priv.h"

#include <string.h>

static bool read_line(const char *s, struct line_fields *lf, size_t *at)
{
	const char *why = NULL;
	bool ok = scan_line_fields(s, strlen(s), lf, at, &why);
	assert_true(ok || (why && *at <= strlen(s)));
	return ok;
}

static bool is(const struct span *sp, const char *w)
{
	return sp->set && sp->n == strlen(w) && !memcmp(sp->s, w, sp->n);
}

static void test_line_fields(void **state)
{
	(void)state;
	struct line_fields lf;
	size_t at;
	assert_true(read_line("{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a \\\"}\\\" b\\u00e9\"}],"
			      "\"usage\":{\"output_tokens\":7,\"input_tokens\":3,\"cache_creation\":{\"ephemeral_1h_input_tokens\":40},"
			      "\"cache_creation_input_tokens\":40,\"cache_read_input_tokens\":900},\"id\":\"msg_1\",\"model\":\"m\"},"
			      "\"type\":\"assistant\",\"uuid\":\"u\",\"parentUuid\":null,\"isSidechain\":true,"
			      "\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"requestId\":\"r\"}", &lf, &at));
	assert_true(is(&lf.type, "assistant") && is(&lf.msg_id, "msg_1") && is(&lf.request_id, "r") && is(&lf.model, "m"));
	assert_true(lf.has_usage && lf.usage_ok && lf.sidechain && !lf.parent.set);
	assert_int_equal(lf.in, 3);
	assert_int_equal(lf.out, 7);
	assert_int_equal(lf.cr, 900);
	assert_int_equal(lf.cw1h, 40);
	/* a count that is no whole number spoils the usage (ccusage leaves such a line out) */
	assert_true(read_line("{\"message\":{\"usage\":{\"input_tokens\":1.5,\"output_tokens\":1}}}", &lf, &at));
	assert_false(lf.usage_ok);
	assert_true(read_line("{\"message\":{\"usage\":{\"input_tokens\":1,\"output_tokens\":1,\"cache_read_input_tokens\":null}}}",
			      &lf, &at));
	assert_false(lf.usage_ok);
	/* refused, with where */
	assert_false(read_line("{\"type\":\"user\",\"message\":{\"content\":\"unclosed}", &lf, &at));
	assert_false(read_line("{\"a\":[1,2}", &lf, &at));
	assert_false(read_line("{\"a\":tru}", &lf, &at));
	assert_int_equal(at, 5);
	assert_false(read_line("[1]", &lf, &at));
	assert_false(read_line("{\"a\":1} x", &lf, &at));
	assert_int_equal(at, 8);
	assert_false(read_line("{\"a\":\"\x01\"}", &lf, &at));
}

/* A line refused at byte `at` with the words `why`. */
static void refused(const char *s, size_t at, const char *why)
{
	struct line_fields lf;
	size_t got = 0;
	const char *said = NULL;
	assert_false(scan_line_fields(s, strlen(s), &lf, &got, &said));
	assert_int_equal(got, at);
	assert_string_equal(said, why);
}

/* Each fault of the JSON lexer told with its place and words; the counts
 * at their limit; what the scan takes that a stricter reader would not
 * (a lone surrogate escape, \u0000, a count written with a leading zero). */
static void test_line_faults(void **state)
{
	(void)state;
	refused("{\"a\":\"abc", 5, "an unclosed string");
	refused("{\"a\":\"ab\\", 5, "an unclosed string");
	refused("{\"a\":\"a\x01\"}", 7, "a control character in a string");
	refused("{\"a\":\"\\u12\"}", 6, "a bad \\u escape");
	refused("{\"a\":\"\\u12", 6, "a bad \\u escape");
	refused("{\"a\":\"x\\q\"}", 7, "a bad escape");
	refused("{\"a\":-x}", 6, "not a JSON value");
	refused("{\"a\":x}", 5, "not a JSON value");
	refused("{\"a\":1.}", 7, "a bad number");
	refused("{\"a\":1e+}", 8, "a bad number");
	refused("{\"a\\x\":1}", 3, "a bad escape"); /* a key's own fault is told */
	struct line_fields lf;
	size_t at;
	assert_true(read_line("{\"a\":\"\\ud800 \\u0000\",\"b\":-0.5e-3}", &lf, &at));
	assert_true(read_line("{\"message\":{\"usage\":{\"input_tokens\":9223372036854775799,\"output_tokens\":012}}}", &lf, &at));
	assert_true(lf.usage_ok);
	assert_true(lf.in == 9223372036854775799LL);
	assert_int_equal(lf.out, 12);
	assert_true(read_line("{\"message\":{\"usage\":{\"input_tokens\":9223372036854775800}}}", &lf, &at));
	assert_false(lf.usage_ok);
	assert_true(read_line("{\"message\":{\"usage\":{\"input_tokens\":1e3}}}", &lf, &at));
	assert_false(lf.usage_ok);
	assert_true(read_line("{\"message\":{\"usage\":{\"input_tokens\":-1}}}", &lf, &at));
	assert_false(lf.usage_ok);
}

static struct scan_req *req(struct scan_file *f, double t, long read, long write, bool one_hour)
{
	struct scan_req *r = scan_file_add(f);
	assert_non_null(r);
	r->counted = r->analysed = true;
	r->time = t;
	r->model = "claude-sonnet-4-5";
	r->in = 3;
	r->cache_read = read;
	r->cache_write = write;
	r->cache_write_1h = one_hour ? write : 0;
	r->number = (long)f->nreqs;
	return r;
}

static void test_ttl_from_the_record(void **state)
{
	(void)state;
	for (int hour = 0; hour < 2; hour++) {
		struct scan_file f;
		memset(&f, 0, sizeof f);
		req(&f, 1000, 0, 20000, hour);
		req(&f, 1000 + 13 * 60, 20000, 500, hour); /* 13 minutes later */
		assert_int_equal(scan_analyse(&f, NULL, 1e9), CS_OK);
		/* read whole 13 minutes on: there still, whatever the 5-minute rule says */
		assert_int_equal(f.reqs[1].lost, 0);
		assert_int_equal(f.reqs[0].unread, 0);
		assert_int_equal(f.reqs[1].unread, 500);
		assert_int_equal(f.reqs[1].unread_cause, SC_END);
		scan_file_fini(&f);
	}
	/* a 5-minute write, 13 minutes idle, then nothing read: expired */
	struct scan_file f;
	memset(&f, 0, sizeof f);
	req(&f, 1000, 0, 20000, false);
	req(&f, 1000 + 13 * 60, 0, 20300, false);
	assert_int_equal(scan_analyse(&f, NULL, 1e9), CS_OK);
	assert_int_equal(f.reqs[1].lost, 20000);
	assert_int_equal(f.reqs[1].lost_cause, SC_TTL);
	assert_int_equal(f.reqs[0].unread, 20000);
	assert_int_equal(f.reqs[0].unread_cause, SC_TTL);
	scan_file_fini(&f);
	/* the same with 1-hour writes: within the hour, so a break of another cause */
	memset(&f, 0, sizeof f);
	req(&f, 1000, 0, 20000, true);
	req(&f, 1000 + 13 * 60, 0, 20300, true);
	assert_int_equal(scan_analyse(&f, NULL, 1e9), CS_OK);
	assert_int_equal(f.reqs[1].lost, 20000);
	assert_int_not_equal(f.reqs[1].lost_cause, SC_TTL);
	assert_int_not_equal(f.reqs[0].unread_cause, SC_TTL);
	scan_file_fini(&f);
}

static void test_fork_is_an_edit(void **state)
{
	(void)state;
	/* lines: 0 user, 1 assistant (request 0), 2 user, 3 assistant (request 1), 4 user whose parent is line 0, 5 assistant (request 2) */
	int32_t parent[] = { -1, 0, 1, 2, 0, 4 }, reqs[] = { -1, 0, -1, 1, -1, 2 };
	struct scan_links L = { parent, reqs, 6, 6 };
	struct scan_file f;
	memset(&f, 0, sizeof f);
	struct scan_req *a = req(&f, 100, 0, 10000, false), *b = req(&f, 110, 10000, 800, false);
	a->link = a->last_link = 1;
	b->link = b->last_link = 3;
	struct scan_req *c = req(&f, 120, 9000, 1200, false);
	c->link = c->last_link = 5;
	assert_int_equal(scan_analyse(&f, &L, 1e9), CS_OK);
	assert_int_equal(f.reqs[2].lost, 10203 - 9000); /* its whole prompt (3 + 9,000 + 1,200) could have been read */
	assert_int_equal(f.reqs[2].lost_cause, SC_EDIT);
	assert_int_equal(f.reqs[1].unread, 800);
	assert_int_equal(f.reqs[1].unread_cause, SC_EDIT);
	scan_file_fini(&f);
}

/* A prompt under the model's cache minimum caches nothing, so loses nothing. */
static void test_under_the_minimum(void **state)
{
	(void)state;
	struct scan_file f;
	memset(&f, 0, sizeof f);
	req(&f, 1000, 0, 900, false)->model = "claude-haiku-4-5"; /* Haiku 4.5: 4,096 */
	req(&f, 1010, 0, 800, false)->model = "claude-haiku-4-5";
	req(&f, 1020, 0, 5000, false);                            /* Sonnet 4.5: 1,024 */
	req(&f, 1030, 0, 5100, false);
	assert_int_equal(scan_analyse(&f, NULL, 1e9), CS_OK);
	assert_int_equal(f.reqs[1].lost, 0);
	assert_int_equal(f.reqs[3].lost, 5000); /* what the one before left cached */
	scan_file_fini(&f);
}

/* The files of a session with workflow agents (<session>/subagents/workflows/<wf_id>/agent-*.jsonl,
 * ctxscope-formats(5) section 7b) and a line of each type outside the chain: one session, every
 * agent file under it, no line skipped (the inspector reads the same files: claude-code.cases). */
static void test_workflow_agents_and_outside_lines(void **state)
{
	(void)state;
	const char *const paths[] = { "tests/golden/claude-code/workflows",
				      "tests/golden/claude-code/shapes/outside-chain.jsonl" };
	struct scan_options o = { .paths = paths, .npaths = 2, .threads = 1, .since = -1, .now = 1e9 };
	struct scan_result r;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(scan_run(&o, &r, &err), CS_OK);
	assert_int_equal(r.files_read, 5);
	assert_int_equal(r.skipped_lines, 0);
	assert_int_equal(r.nskipped, 0);
	assert_int_equal(r.nsessions, 2);
	long wf = -1;
	for (size_t i = 0; i < r.nsessions; i++)
		if (!strcmp(r.sessions[i].session, "0000-wf"))
			wf = (long)i;
	assert_true(wf >= 0);
	assert_int_equal(r.sessions[wf].files, 4); /* s-0002, agent-d1, workflows' agent-p1 and agent-r1 */
	assert_int_equal(r.sessions[wf].requests, 5);
	scan_result_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_fields),
		cmocka_unit_test(test_line_faults),
		cmocka_unit_test(test_ttl_from_the_record),
		cmocka_unit_test(test_fork_is_an_edit),
		cmocka_unit_test(test_under_the_minimum),
		cmocka_unit_test(test_workflow_agents_and_outside_lines),
	};
	return cmocka_run_group_tests_name("scan", tests, NULL, NULL);
}

/* test_request_incr.c: a log's predictions after a series of what-ifs
 * (blocks excluded and included again, one edit after another) are those of
 * the same what-if predicted from scratch on a fresh load: every request's
 * reads, writes, first difference, cause and the lints, on a log that mixes
 * models, reorders tools, edits the system text and earlier turns, and
 * drops turns. What a prediction keeps from the one before (the first
 * differences told) must never show through. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/strbuf.h"
#include "kinds/request/request.h"
#include "source.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREQ 38

/* A text of about n words, its words drawn from seed. */
static void words(struct strbuf *b, unsigned seed, int n)
{
	static const char *const w[] = { "the", "parser", "keeps", "a", "ring", "of", "tokens", "owned", "by", "lexer",
					 "every", "node", "lives", "in", "arena", "freed", "with", "it", "errors", "carry" };
	for (int i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		sb_printf(b, "%s%s", i ? " " : "", w[(seed >> 16) % 20]);
	}
}

static void text_block(struct strbuf *b, const char *text, bool cached)
{
	sb_printf(b, "{\"type\":\"text\",\"text\":\"%s\"%s}", text, cached ? ",\"cache_control\":{\"type\":\"ephemeral\"}" : "");
}

/* Request k of the log: a main model's conversation growing a turn a
 * request, with a small model's request after every third one; tools swap
 * at 9, the system text's date moves at 15, turn 1 is edited from 21, the
 * last turns are dropped at 27, and a main request comes late at 30 (its
 * entries expired). Every other small request has its second block in a
 * message of its own: the same block as the one before, at another path
 * (the last two, one after the other, too). */
static void request_line(struct strbuf *log, int k)
{
	bool small = k % 3 == 2 || k >= NREQ - 2, split = k % 6 == 5 || k == NREQ - 1;
	int turn = k - k / 3;   /* main requests so far */
	sb_printf(log, "{\"timestamp\":\"2026-11-24T09:%02d:%02dZ\",\"request\":{\"model\":\"%s\",\"max_tokens\":512,",
		  k >= 30 ? 50 : k, 0, small ? "claude-haiku-4-5" : "claude-sonnet-4-5");
	const char *tools[2] = { "{\"name\":\"read\",\"description\":\"Reads a file\",\"input_schema\":{\"type\":\"object\"}}",
				 "{\"name\":\"run\",\"description\":\"Runs a command\",\"input_schema\":{\"type\":\"object\"}}" };
	bool swap = !small && k >= 9 && k < 12;
	sb_printf(log, "\"tools\":[%s,%s],\"system\":[", tools[swap], tools[!swap]);
	struct strbuf t = STRBUF_INIT;
	sb_printf(&t, "Today is 2026-11-%02d. ", k >= 15 ? 25 : 24);
	words(&t, small ? 7u : 3u, small ? 60 : 900);
	text_block(log, sb_str(&t), true);
	sb_puts(log, "],\"messages\":[");
	int nturns = small ? 1 : (k >= 27 && k < 30 ? turn - 4 : turn) * 2 + 1;
	for (int i = 0; i < nturns; i++) {
		sb_reset(&t);
		words(&t, (unsigned)(small ? 1000 : i == 2 && k >= 21 ? 77 : i), 40 + i % 5 * 30);
		sb_printf(log, "%s{\"role\":\"%s\",\"content\":[", i ? "," : "", i % 2 ? "assistant" : "user");
		text_block(log, sb_str(&t), i == nturns - 1);
		if (i % 4 == 0 && split) /* the same block as the small request before, at another path */
			sb_puts(log, "]},{\"role\":\"user\",\"content\":[");
		if (i % 4 == 0) {
			sb_puts(log, split ? "" : ",");
			text_block(log, "see above", false);
		}
		sb_puts(log, "]}");
	}
	sb_puts(log, "]}}\n");
	sb_fini(&t);
}

static struct source *load_log(const char *text)
{
	struct source *src = support_load_text("mixed.jsonl", text);
	assert_non_null(src);
	return src;
}

/* The same predictions, request by request, and the same lints. */
static void same_predictions(const struct source *a, const struct source *b)
{
	const struct request_model *x = a->model, *y = b->model;
	assert_int_equal(x->nreqs, y->nreqs);
	for (size_t k = 0; k < x->nreqs; k++) {
		const struct req_request *r = &x->reqs[k], *s = &y->reqs[k];
		assert_int_equal(r->total, s->total);
		assert_int_equal(r->pred_read, s->pred_read);
		assert_int_equal(r->pred_write, s->pred_write);
		assert_int_equal(r->pred_uncached, s->pred_uncached);
		assert_int_equal(r->cached_extent, s->cached_extent);
		assert_int_equal(r->nbreakpoints, s->nbreakpoints);
		assert_int_equal(r->group, s->group);
		assert_int_equal(r->compared, s->compared);
		assert_int_equal(r->diff_unit, s->diff_unit);
		assert_int_equal(r->broke, s->broke);
		support_same_str(r->diff_path, s->diff_path);
		support_same_str(r->diff_now, s->diff_now);
		support_same_str(r->diff_before, s->diff_before);
		support_same_str(r->cause, s->cause);
	}
	assert_int_equal(x->nlints, y->nlints);
	for (size_t i = 0; i < x->nlints; i++) {
		assert_string_equal(x->lints[i].code, y->lints[i].code);
		assert_int_equal(x->lints[i].unit, y->lints[i].unit);
		assert_string_equal(x->lints[i].sentence, y->lints[i].sentence);
	}
}

/* src's what-if predicted again with nothing kept from before. */
static void scratch(struct source *src)
{
	struct request_model *m = src->model;
	struct cs_error err;
	cs_error_clear(&err);
	request_predictions_free(m);
	m->predicted_for = 0;
	assert_int_equal(request_repredict(src, m, &err), CS_OK);
}

static void test_incremental_equals_scratch(void **state)
{
	(void)state;
	struct strbuf log = STRBUF_INIT;
	for (int k = 0; k < NREQ; k++)
		request_line(&log, k);
	struct source *src = load_log(sb_str(&log));
	const struct request_model *m = src->model;
	assert_int_equal(m->ngroups, 2); /* the two models are two caches */
	size_t causes = 0, system = 0;
	for (size_t k = 0; k < m->nreqs; k++) {
		causes += m->reqs[k].cause != NULL;
		system += m->reqs[k].diff_path && !strcmp(m->reqs[k].diff_path, "system[0]");
	}
	assert_true(causes >= 4); /* tools, system, an earlier turn, dropped turns */
	assert_true(system >= 1);
	for (size_t k = 0; k < m->nreqs; k++) /* the system's and the last turn's: not the turn before's, marked in the request before */
		assert_int_equal(m->reqs[k].nbreakpoints, 2);

	/* Blocks where requests differ first, then any: each edit's prediction
	 * against a fresh load given every exclusion at once. */
	const char *first[] = { "system[0]", "tools[0]", "messages[2].content[0]", "tools[0]", "messages[1].content[0]",
				"messages[0].content[1]" };
	bool *excluded = calloc(src->npieces, sizeof *excluded);
	unsigned seed = 5;
	for (int step = 0; step < 40; step++) {
		long piece;
		if (step < 6) {
			piece = source_find_piece(src, first[step]);
			assert_true(piece >= 0);
		} else {
			seed = seed * 1103515245u + 12345u;
			piece = (long)((seed >> 16) % src->npieces);
		}
		excluded[piece] = !excluded[piece];
		support_set(src, excluded[piece] ? "exclude" : "include", src->pieces[piece].id);
		struct source *fresh = load_log(sb_str(&log));
		assert_int_equal(fresh->npieces, src->npieces);
		for (size_t i = 0; i < src->npieces; i++)
			if (excluded[i])
				support_set(fresh, "exclude", fresh->pieces[i].id);
		scratch(fresh);
		same_predictions(src, fresh);
		for (size_t k = 0; step == 0 && k < m->nreqs; k++) /* the system text left out differs nowhere */
			assert_true(!m->reqs[k].diff_path || strcmp(m->reqs[k].diff_path, "system[0]"));
		if (step == 4) { /* request 6's second block (its own message) left out: the block of 3 it matched is missing */
			support_same_str(m->reqs[5].cause, "blocks from messages[0].content[1] on were removed");
			assert_true(m->reqs[NREQ - 1].total < m->reqs[NREQ - 2].total); /* and the last one's, not the one's before */
		}
		source_free(fresh);
	}
	free(excluded);
	source_free(src);
	sb_fini(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_incremental_equals_scratch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

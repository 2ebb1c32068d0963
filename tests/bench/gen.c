/* gen.c: deterministic generators of large inputs of every kind, for the
 * benchmark (issue 9). Same seed, same bytes. Nothing generated is committed:
 * the bench script writes into a temporary folder and removes it.
 *
 *   ctxscope-gen loom     NODES  SEED OUT.json   a loom tree: NODES nodes, a
 *                                                long active path (NODES/5)
 *                                                and branches off it
 *   ctxscope-gen ledger   MBYTES SEED OUT.json   a ledger export of ~MBYTES MB
 *   ctxscope-gen manifest FILES  SEED DIR        DIR/working-set.yml and the
 *                                                FILES files it lists
 *   ctxscope-gen memory   ITEMS  SEED OUT.json [NEW]  a memory snapshot (NEW: that many newEvents)
 *
 * The text is a debugging session on a C expression parser (a crash in
 * parse_postfix, an ASan report, the fix, its tests), recombined from the
 * fragments below with a seeded generator, with message lengths drawn the
 * way real sessions spread them (many short turns, a tail of long ones). */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* ---- a seeded generator (splitmix64) ------------------------------------ */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static size_t rng_below(struct rng *r, size_t n)
{
	return n ? (size_t)(rng_next(r) % n) : 0;
}

/* Uniform in [lo, hi]. */
static size_t rng_range(struct rng *r, size_t lo, size_t hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

/* A length with a long tail: mostly near `typical`, sometimes up to `max`. */
static size_t rng_length(struct rng *r, size_t min, size_t typical, size_t max)
{
	unsigned roll = (unsigned)rng_below(r, 100);
	if (roll < 70)
		return rng_range(r, min, typical);
	if (roll < 95)
		return rng_range(r, typical, (typical + max) / 2);
	return rng_range(r, (typical + max) / 2, max);
}

#define PICK(r, arr) (arr[rng_below((r), sizeof(arr) / sizeof(arr[0]))])

/* ---- the fragments -------------------------------------------------------- */

static const char *const human_lines[] = {
	"Why does parse_expr segfault on `a[1](2)`? It only happens with a call after an index.",
	"Here is the backtrace from the crash:",
	"Tried that, it still crashes, but later: now in free_node.",
	"Can you check the lexer too? I think peek() returns a token we already freed.",
	"ok, test_nested_calls passes now but test_index_chain fails with an off-by-one.",
	"What does `tok->next` point to after lexer_advance returns EOF?",
	"I ran it under valgrind, same invalid read of size 8.",
	"Should the arena own the tokens, or should each node keep its own copy?",
	"That fix makes the benchmark 12% slower. Is there a cheaper way?",
	"Let's keep the recursive descent but move precedence into a table.",
	"Can you write the test first? I want to see it fail on main.",
	"The CI on arm64 fails differently: it prints garbage for the column number.",
	"Please don't change the public header, other tools include it.",
	"Good. Now the error message: it says line 0 for errors on the first line.",
	"Is `->` handled as one token or two? The grammar says one.",
	"Here's the failing input from the fuzzer, minimized:",
	"Makes sense. What about unary minus before a call, like `-f(x)[0]`?",
	"Commit that and let's look at the leak report next.",
};

static const char *const model_lines[] = {
	"The crash comes from parse_postfix reading `tok->next` after lexer_advance has recycled that token.",
	"An index followed by a call takes the second branch of the loop, and that branch never re-peeks.",
	"So the token you hold is stale: the lexer's ring buffer has four slots, and `a[1](2)` needs five lookaheads.",
	"The smallest fix is to copy the token's kind and span before advancing; nothing else reads it later.",
	"I'd rather not grow the ring buffer: that only moves the limit.",
	"Here is the change, with the test that fails on main and passes with it:",
	"The off-by-one is in the column: libyaml-style marks are 0-based and the message adds 1 twice.",
	"Valgrind agrees with ASan here, so it's a real read after free, not a false positive.",
	"Moving precedence into a table keeps the descent readable and removes four nearly identical functions.",
	"On arm64 `char` is unsigned, so the `c < 0` test for UTF-8 lead bytes never fires.",
	"That costs one branch per token; the 12% was the extra strdup, which the arena removes.",
	"I kept the public header as it was; the new helper is static in parser.c.",
	"`->` is one token: the lexer checks for '>' right after '-' before emitting MINUS.",
	"Unary minus binds looser than postfix, so `-f(x)[0]` is `-(f(x)[0])`, which the table now encodes.",
	"The leak is the error path of parse_call: the argument list is not freed when the closing paren is missing.",
	"With that, all 214 tests pass under ASan and UBSan, and the fuzzer has run 20 minutes without a finding.",
	"One caveat: the recovery path still allocates per token; worth a follow-up if error-heavy inputs matter.",
	"Let me check the grammar again before changing the precedence of the comma operator.",
};

static const char *const code_lines[] = {
	"static struct node *parse_postfix(struct parser *p, struct node *lhs)",
	"{",
	"\tfor (;;) {",
	"\t\tconst struct token *t = lexer_peek(p->lx);",
	"\t\tenum token_kind kind = t->kind; /* copy: advance recycles the slot */",
	"\t\tstruct span at = t->span;",
	"\t\tif (kind == TOK_LBRACKET) {",
	"\t\t\tlexer_advance(p->lx);",
	"\t\t\tstruct node *index = parse_expr(p, PREC_LOWEST);",
	"\t\t\tif (!index || !expect(p, TOK_RBRACKET, \"]\"))",
	"\t\t\t\treturn fail(p, lhs, index);",
	"\t\t\tlhs = node_binary(p->arena, NODE_INDEX, lhs, index, at);",
	"\t\t} else if (kind == TOK_LPAREN) {",
	"\t\t\tlhs = parse_call(p, lhs, at);",
	"\t\t} else {",
	"\t\t\treturn lhs;",
	"\t\t}",
	"\t}",
	"}",
	"static const struct precedence table[TOK_COUNT] = {",
	"\t[TOK_COMMA] = { PREC_COMMA, ASSOC_LEFT },",
	"\t[TOK_ASSIGN] = { PREC_ASSIGN, ASSOC_RIGHT },",
	"\t[TOK_PLUS] = { PREC_SUM, ASSOC_LEFT },",
	"\t[TOK_STAR] = { PREC_PRODUCT, ASSOC_LEFT },",
	"};",
	"\tassert_int_equal(parse_ok(\"a[1](2)\"), 0);",
	"\tassert_string_equal(render(tree), \"(call (index a 1) 2)\");",
	"\tif ((unsigned char)c >= 0x80) /* a UTF-8 lead or continuation byte */",
	"\t\treturn lex_utf8(lx, c);",
	"\tfree_args(args, nargs); /* the error path owned them too */",
	"\treturn err(p, t, \"expected ')' to close the call opened at %d:%d\", open.line + 1, open.col + 1);",
};

static const char *const log_lines[] = {
	"==41213==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000150 at pc 0x55d4c3a1b2f4",
	"READ of size 8 at 0x602000000150 thread T0",
	"    #0 0x55d4c3a1b2f3 in parse_postfix src/parser.c:412",
	"    #1 0x55d4c3a1c018 in parse_unary src/parser.c:371",
	"    #2 0x55d4c3a1c4a1 in parse_expr src/parser.c:298",
	"    #3 0x55d4c3a1d107 in parse_file src/parser.c:655",
	"    #4 0x55d4c3a19e52 in main tools/exprc.c:88",
	"0x602000000150 is located 0 bytes inside of 16-byte region [0x602000000150,0x602000000160)",
	"freed by thread T0 here:",
	"    #0 0x7f3b2c8b4537 in __interceptor_free ../../../../src/libsanitizer/asan/asan_malloc_linux.cpp:127",
	"    #1 0x55d4c3a17a90 in lexer_advance src/lexer.c:201",
	"[ RUN      ] test_nested_calls",
	"[       OK ] test_nested_calls",
	"[ RUN      ] test_index_chain",
	"test_parser.c:144: error: \"(index (index a 1) 2)\" != \"(index a 1)\"",
	"[  FAILED  ] test_index_chain",
	"[==========] 214 test(s) run.",
	"[  PASSED  ] 213 test(s).",
	"==41213==ABORTING",
	"make: *** [Makefile:88: check] Error 1",
	"cc -std=c11 -Wall -Wextra -O1 -g -fsanitize=address,undefined -c src/parser.c -o .build/asan/src/parser.o",
	"#1079296 REDUCE cov: 1874 ft: 6021 corp: 733/41Kb lim: 4096 exec/s: 2711 rss: 389Mb",
};

static const char *const doc_lines[] = {
	"# Expression parser",
	"The parser is a recursive descent over a precedence table; each level calls the next tighter one.",
	"Tokens live in a four-slot ring owned by the lexer; a caller must copy what it keeps across lexer_advance.",
	"Nodes are allocated from the parse arena and freed with it; no node is freed alone.",
	"Errors carry a 1-based line and column and the text of the offending token.",
	"## Testing",
	"`make check` runs the unit suites under ASan and UBSan, then the golden outputs.",
	"The fuzzer (`make fuzz`) starts from tests/corpus/ and writes findings to .build/fuzz/.",
	"- postfix operators bind tighter than unary ones",
	"- the comma operator is left-associative and lowest",
	"- `->` is lexed as one token",
};

/* ---- JSON output ----------------------------------------------------------- */

static void json_str(FILE *f, const char *s, size_t n)
{
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				putc(c, f);
		}
	}
	putc('"', f);
}

/* A growable text buffer for one message. */
struct text {
	char *p;
	size_t len, cap;
};

static void text_put(struct text *t, const char *s)
{
	size_t n = strlen(s);
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->p = realloc(t->p, t->cap);
		if (!t->p) {
			perror("ctxscope-gen");
			exit(1);
		}
	}
	memcpy(t->p + t->len, s, n + 1);
	t->len += n;
}

static void text_putn(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		t->cap = (t->len + n + 1) * 2;
		t->p = realloc(t->p, t->cap);
		if (!t->p) {
			perror("ctxscope-gen");
			exit(1);
		}
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
}

static void text_lines(struct text *t, struct rng *r, const char *const *lines, size_t nlines, size_t count,
		       int sequential)
{
	size_t at = rng_below(r, nlines);
	for (size_t i = 0; i < count; i++) {
		text_put(t, lines[sequential ? (at + i) % nlines : rng_below(r, nlines)]);
		text_put(t, "\n");
	}
}

/* A message of about `target` characters in a voice: 'h' human, 'm' model,
 * 't' tool output, 'd' document. */
static void text_message(struct text *t, struct rng *r, char voice, size_t target)
{
	t->len = 0;
	if (t->p)
		t->p[0] = '\0';
	while (t->len < target) {
		unsigned roll = (unsigned)rng_below(r, 10);
		if (voice == 't') {
			text_lines(t, r, log_lines, sizeof log_lines / sizeof *log_lines, rng_range(r, 2, 8), 1);
		} else if (voice == 'h') {
			if (roll < 8 || target < 200) {
				text_put(t, PICK(r, human_lines));
				text_put(t, " ");
			} else {
				text_put(t, "\n```\n");
				text_lines(t, r, log_lines, sizeof log_lines / sizeof *log_lines, rng_range(r, 3, 9), 1);
				text_put(t, "```\n");
			}
		} else if (voice == 'd') {
			text_lines(t, r, doc_lines, sizeof doc_lines / sizeof *doc_lines, rng_range(r, 1, 4), 0);
			text_put(t, "\n");
		} else {
			if (roll < 7 || target < 300) {
				text_put(t, PICK(r, model_lines));
				text_put(t, " ");
			} else {
				text_put(t, "\n\n```c\n");
				text_lines(t, r, code_lines, sizeof code_lines / sizeof *code_lines, rng_range(r, 4, 14), 1);
				text_put(t, "```\n\n");
			}
		}
	}
	while (t->len && (t->p[t->len - 1] == ' ' || t->p[t->len - 1] == '\n'))
		t->p[--t->len] = '\0';
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "ctxscope-gen: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	return f;
}

static void close_out(FILE *f, const char *path)
{
	if (ferror(f) || fclose(f) != 0) {
		fprintf(stderr, "ctxscope-gen: writing %s failed\n", path);
		exit(1);
	}
}

/* 2026-01-30T10:00:00Z plus `seconds`. */
static void iso_time(char *out, size_t n, uint64_t seconds)
{
	uint64_t day = seconds / 86400, s = seconds % 86400;
	/* January 30 onwards in 2026, then February (28 days), March... kept
	 * simple: days past the 28th of a month roll into the next. */
	unsigned month = 1, mday = 30;
	for (uint64_t d = 0; d < day; d++) {
		static const unsigned mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
		if (++mday > mdays[(month - 1) % 12]) {
			mday = 1;
			month = month % 12 + 1;
		}
	}
	snprintf(out, n, "2026-%02u-%02uT%02u:%02u:%02uZ", month, mday, (unsigned)(s / 3600),
		 (unsigned)(s / 60 % 60), (unsigned)(s % 60));
}

/* ---- loom ------------------------------------------------------------------ */

static void gen_loom(size_t nodes, uint64_t seed, const char *path)
{
	struct rng r = { seed };
	FILE *f = open_out(path);
	struct text t = { 0 };
	if (nodes < 2)
		nodes = 2;
	/* author of each node: 0 human, 1 model; path membership; parent */
	unsigned char *model = calloc(nodes, 1);
	size_t *parent = calloc(nodes, sizeof *parent);
	unsigned char *annotation = calloc(nodes, 1);
	if (!model || !parent || !annotation) {
		perror("ctxscope-gen");
		exit(1);
	}
	size_t last_path = 0, path_len = 1;
	for (size_t i = 1; i < nodes; i++) {
		if (i % 5 == 0 || i == nodes - 1) { /* the next step of the active path */
			parent[i] = last_path;
			last_path = i;
			path_len++;
		} else { /* a branch: another take on a recent node */
			size_t back = rng_below(&r, i < 40 ? i : 40);
			parent[i] = i - 1 - back;
			annotation[i] = rng_below(&r, 100) < 3;
		}
		model[i] = !model[parent[i]];
	}

	fprintf(f, "{\n  \"loomTree\": { \"id\": \"T-bench-%zu\", \"title\": \"Debugging the expression parser (%zu nodes)\", "
		   "\"mode\": \"dialogue\", \"rootNodeId\": \"n0\", "
		   "\"systemContext\": \"You are pairing on a C expression parser. Prefer small, tested changes.\", "
		   "\"bufferModeSystemContext\": false },\n", nodes, nodes);
	fputs("  \"agents\": [ { \"id\": \"a-claude\", \"name\": \"Claude\", \"type\": \"model\", "
	      "\"modelRef\": \"anthropic:claude-sonnet-4\", \"configuration\": { \"systemPrompt\": "
	      "\"Be concise. Show diffs, not whole files.\", \"maxTokens\": 4096 } },\n"
	      "              { \"id\": \"a-me\", \"name\": \"me\", \"type\": \"human\" } ],\n  \"nodes\": [\n", f);
	char when[32];
	for (size_t i = 0; i < nodes; i++) {
		char voice = model[i] ? 'm' : 'h';
		size_t len = model[i] ? rng_length(&r, 40, 300, 1800) : rng_length(&r, 20, 140, 800);
		text_message(&t, &r, voice, len);
		iso_time(when, sizeof when, (uint64_t)i * 7);
		unsigned roll = (unsigned)rng_below(&r, 1000);
		fprintf(f, "    { \"id\": \"n%zu\", \"localId\": \"%08zx\", \"authorType\": \"%s\", \"authorAgentId\": \"%s\", "
			   "\"content\": { \"type\": \"text\", \"text\": ",
			i, i * 2654435761u % 0xffffffffu, model[i] ? "model" : "human", model[i] ? "a-claude" : "a-me");
		json_str(f, t.p, t.len);
		fprintf(f, " }, \"metadata\": { \"excluded\": %s, \"pruned\": %s, \"bookmarked\": %s }, \"createdAt\": \"%s\" }%s\n",
			roll < 10 ? "true" : "false", roll >= 10 && roll < 15 ? "true" : "false",
			roll >= 15 && roll < 35 ? "true" : "false", when, i + 1 < nodes ? "," : "");
	}
	fputs("  ],\n  \"edges\": [\n", f);
	for (size_t i = 1; i < nodes; i++)
		fprintf(f, "    { \"id\": \"e%zu\", \"edgeType\": \"%s\", \"targetNodeId\": \"n%zu\", "
			   "\"sources\": [ { \"nodeId\": \"n%zu\", \"role\": \"primary\" } ] }%s\n",
			i, annotation[i] ? "annotation" : "continuation", i, parent[i], i + 1 < nodes ? "," : "");
	fprintf(f, "  ],\n  \"path\": { \"activeNodeId\": \"n%zu\", \"agentId\": \"a-claude\" },\n"
		   "  \"workingBuffer\": \"\",\n"
		   "  \"preferences\": { \"truncationStrategy\": \"truncateMiddle\", \"minimumRecentNodes\": 4, \"tokenBuffer\": 1024 },\n"
		   "  \"model\": { \"ref\": \"anthropic:claude-sonnet-4\", \"contextLimit\": 200000 }\n}\n",
		last_path);
	close_out(f, path);
	fprintf(stderr, "loom: %zu nodes, active path %zu nodes\n", nodes, path_len);
	free(model);
	free(parent);
	free(annotation);
	free(t.p);
}

/* ---- ledger ---------------------------------------------------------------- */

#define LEDGER_COMPACTION_EVERY 2000 /* turns between compactions: a long agent run */

static void gen_ledger(size_t mbytes, uint64_t seed, const char *path)
{
	struct rng r = { seed };
	size_t target = mbytes << 20;
	/* Messages first (their count decides the turns), into a side file. */
	size_t plen = strlen(path);
	char *part = malloc(plen + 8);
	if (!part) {
		perror("ctxscope-gen");
		exit(1);
	}
	memcpy(part, path, plen);
	memcpy(part + plen, ".part", 6);
	FILE *m = open_out(part);
	struct text t = { 0 };
	size_t turns = 0, msg = 0, written = 0;
	char when[32];
	while (written < target - target / 16) {
		size_t turn = ++turns;
		iso_time(when, sizeof when, (uint64_t)turn * 95);
		const char *sep = msg ? ",\n" : "";
		int n;
		if (turn == 1) {
			n = fprintf(m, "%s    { \"id\": \"m%zu\", \"turn_id\": \"t1\", \"role\": \"system\", \"content\": "
				       "\"You are the manager agent of a C project. Delegate builds and test runs to workers; keep answers short.\", "
				       "\"source\": \"workspace\", \"sequence\": 0, \"created_at\": \"%s\", \"context_json\": null }",
				    sep, ++msg, when);
			written += (size_t)n;
			sep = ",\n";
		}
		int compaction = turn % LEDGER_COMPACTION_EVERY == 0;
		char voices[8];
		size_t nv = 0;
		voices[nv++] = 'h';
		if (!compaction) {
			size_t tools = rng_below(&r, 10) < 3 ? rng_range(&r, 1, 3) : 0;
			for (size_t k = 0; k < tools; k++) {
				voices[nv++] = 'm';
				voices[nv++] = 't';
			}
			voices[nv++] = 'm';
		}
		for (size_t k = 0; k < nv; k++) {
			char v = voices[k];
			size_t len = v == 'h' ? rng_length(&r, 20, 300, 2000)
				   : v == 't' ? rng_length(&r, 200, 1500, 12000)
				   : rng_length(&r, 80, 900, 6000);
			if (compaction)
				len = 40;
			text_message(&t, &r, v, len);
			const char *role = v == 'h' ? "user" : v == 't' ? "tool" : "assistant";
			n = fprintf(m, "%s    { \"id\": \"m%zu\", \"turn_id\": \"t%zu\", \"role\": \"%s\", \"content\": ", sep, ++msg,
				    turn, role);
			written += (size_t)n;
			/* an empty assistant message now and then (a pure tool call) */
			if (v == 'm' && k + 1 < nv && rng_below(&r, 4) == 0)
				t.len = 0;
			json_str(m, t.p, t.len);
			written += t.len + 2;
			n = fprintf(m, ", \"source\": \"%s\", \"sequence\": %zu, \"created_at\": \"%s\", \"context_json\": null }",
				    v == 'h' ? "discord" : v == 't' ? "tool" : "agent", k + 1, when);
			written += (size_t)n;
			sep = ",\n";
		}
	}
	close_out(m, part);
	free(t.p);

	FILE *f = open_out(path);
	fprintf(f, "{\n  \"sessions\": [ { \"label\": \"main\", \"thread_id\": \"t%zu\", \"persona_id\": \"manager\", "
		   "\"is_subagent\": 0, \"task_description\": null, \"status\": \"active\" } ],\n"
		   "  \"threads\": [ { \"turn_id\": \"t%zu\", \"ancestry\": [",
		turns, turns);
	for (size_t i = 1; i <= turns; i++)
		fprintf(f, "%s\"t%zu\"", i > 1 ? ", " : "", i);
	fprintf(f, "], \"total_tokens\": %zu } ],\n  \"turns\": [\n", turns * 2400);
	for (size_t i = 1; i <= turns; i++) {
		iso_time(when, sizeof when, (uint64_t)i * 95);
		int compaction = i % LEDGER_COMPACTION_EVERY == 0;
		size_t in = 3000 + rng_below(&r, 90000), out = 100 + rng_below(&r, 3000);
		fprintf(f, "    { \"id\": \"t%zu\", \"parent_turn_id\": ", i);
		if (i > 1)
			fprintf(f, "\"t%zu\"", i - 1);
		else
			fputs("null", f);
		fprintf(f, ", \"turn_type\": \"%s\", \"status\": \"completed\", \"started_at\": \"%s\", \"completed_at\": \"%s\", "
			   "\"model\": \"claude-sonnet-4\", \"provider\": \"anthropic\", \"role\": \"manager\", "
			   "\"input_tokens\": %zu, \"output_tokens\": %zu, \"cached_input_tokens\": %zu, \"cache_write_tokens\": %zu, "
			   "\"reasoning_tokens\": 0, \"total_tokens\": %zu, \"query_message_ids\": null, \"response_message_id\": null }%s\n",
			compaction ? "compaction" : "normal", when, when, in, out, in * 8 / 10, in / 10, in + out,
			i < turns ? "," : "");
	}
	fputs("  ],\n  \"messages\": [\n", f);
	FILE *in = fopen(part, "r");
	if (!in) {
		perror(part);
		exit(1);
	}
	static char buf[1 << 20];
	size_t got;
	while ((got = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, got, f);
	fclose(in);
	remove(part);
	free(part);
	fputs("\n  ],\n  \"tool_calls\": [],\n  \"compactions\": [\n", f);
	size_t ncomp = turns / LEDGER_COMPACTION_EVERY;
	for (size_t c = 1; c <= ncomp; c++) {
		size_t at = c * LEDGER_COMPACTION_EVERY;
		fprintf(f, "    { \"turn_id\": \"t%zu\", \"summary\": \"Fixed the use-after-free in parse_postfix (copy the token before "
			   "lexer_advance), moved precedence into a table, fixed the column off-by-one; 214 tests pass under ASan. "
			   "Open: the recovery path still allocates per token.\", \"summarized_through_turn_id\": \"t%zu\", "
			   "\"first_kept_turn_id\": \"t%zu\", \"tokens_before\": 181233, \"tokens_after\": 9120, \"trigger\": \"threshold\" }%s\n",
			at, at - 6, at - 5, c < ncomp ? "," : "");
	}
	fputs("  ],\n  \"assembly\": { \"session\": \"main\", \"budget\": { \"modelLimit\": 200000, \"reserveResponse\": 8000, "
	      "\"reserveTools\": 16000 } }\n}\n", f);
	close_out(f, path);
	fprintf(stderr, "ledger: %zu turns, %zu messages, %zu compactions\n", turns, msg, ncomp);
}

/* ---- manifest -------------------------------------------------------------- */

#define MANIFEST_FILES_PER_DIR 100 /* folders of a hundred files, like a real tree */

static void mkdir_p(const char *dir)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", dir);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "ctxscope-gen: mkdir %s: %s\n", tmp, strerror(errno));
		exit(1);
	}
}

static void gen_manifest(size_t files, uint64_t seed, const char *dir)
{
	struct rng r = { seed };
	mkdir_p(dir);
	char path[4096];
	snprintf(path, sizeof path, "%s/working-set.yml", dir);
	FILE *f = open_out(path);
	fprintf(f, "# Working set for the expression-parser fix (%zu files).\n"
		   "protocol: WORKING-SET/0.1\nbudget:\n  max_tokens: 200000\n  reserved_for_response: 8000\n"
		   "metadata:\n  session: parser-uaf-%zu\n  output_sink: \".agent/out\"\nfiles:\n",
		files, files);
	struct text t = { 0 };
	static const char *const strategies[] = { "end", "end", "end", "start", "middle", "never" };
	size_t missing = 0;
	for (size_t i = 0; i < files; i++) {
		size_t d = i / MANIFEST_FILES_PER_DIR;
		const char *ext = i % 10 == 9 ? "md" : i % 10 == 8 ? "log" : "c";
		char rel[256];
		snprintf(rel, sizeof rel, "src/mod%04zu/%s%03zu.%s", d, ext[0] == 'm' ? "notes" : ext[0] == 'l' ? "run" : "unit",
			 i % MANIFEST_FILES_PER_DIR, ext);
		const char *role = i == 0 ? "system" : i < 3 ? "developer" : i == 3 ? "user" : "context";
		double prio = i < 4 ? 1.0 - (double)i * 0.02 : 0.05 + (double)rng_below(&r, 90) / 100.0;
		fprintf(f, "  - path: \"%s\"\n    priority: %.2f\n    role: %s\n    truncate_strategy: %s\n", rel, prio, role,
			PICK(&r, strategies));
		if (rng_below(&r, 10) == 0)
			fprintf(f, "    max_lines: %zu\n", rng_range(&r, 20, 200));
		char full[4096];
		snprintf(full, sizeof full, "%s/src/mod%04zu", dir, d);
		if (i % MANIFEST_FILES_PER_DIR == 0)
			mkdir_p(full);
		if (rng_below(&r, 200) == 0) { /* listed, not on disk (renamed since) */
			missing++;
			continue;
		}
		snprintf(full, sizeof full, "%s/%s", dir, rel);
		char voice = ext[0] == 'm' ? 'd' : ext[0] == 'l' ? 't' : 'c';
		size_t len = rng_length(&r, 300, 2500, 16000);
		if (voice == 'c') {
			t.len = 0;
			if (t.p)
				t.p[0] = '\0';
			text_put(&t, "/* Part of the expression parser: postfix operators and their tests. */\n#include \"parser.h\"\n\n");
			while (t.len < len)
				text_lines(&t, &r, code_lines, sizeof code_lines / sizeof *code_lines, rng_range(&r, 5, 19), 1);
		} else {
			text_message(&t, &r, voice, len);
			text_put(&t, "\n");
		}
		FILE *o = fopen(full, "w");
		if (!o || fwrite(t.p, 1, t.len, o) != t.len || fclose(o) != 0) {
			fprintf(stderr, "ctxscope-gen: writing %s failed\n", full);
			exit(1);
		}
	}
	close_out(f, path);
	free(t.p);
	fprintf(stderr, "manifest: %zu files listed, %zu missing on purpose\n", files, missing);
}

/* ---- memory ---------------------------------------------------------------- */

static void gen_memory(size_t items, size_t fresh, uint64_t seed, const char *path)
{
	struct rng r = { seed };
	FILE *f = open_out(path);
	fputs("{\n  \"query\": \"fix the failing parser test\", \"maxTokens\": 8000, \"archetype\": \"coding\",\n"
	      "  \"strategy\": { \"recencyWeight\": 0.3, \"relevanceWeight\": 0.5, \"salientWeight\": 0.2,\n"
	      "                \"budgetAllocation\": { \"recent\": 20, \"semantic\": 40, \"entities\": 20, \"relations\": 20 } },\n"
	      "  \"items\": [\n", f);
	static const char *const types[] = { "event", "event", "event", "chunk", "chunk", "entity", "relation", "pattern" };
	static const char *const events[] = { "Read: src/parser.c", "Edit: src/parser.c (parse_postfix)", "Run: make check",
					      "Test failed: test_index_chain", "Read: src/lexer.c", "Run: valgrind ./exprc tests/crash1.expr",
					      "Commit: parser: copy the token before lexer_advance" };
	static const char *const entities[] = { "parse_postfix: src/parser.c, handles [] () . -> after a primary",
						"lexer ring buffer: four token slots, recycled by lexer_advance",
						"test_index_chain: tests/test_parser.c:140, a[1][2] renders as nested index",
						"PREC_COMMA: lowest precedence, left-associative" };
	static const char *const relations[] = { "parse_postfix calls parse_call", "parse_call owns the argument list until it returns",
						 "lexer_advance invalidates the token returned by lexer_peek",
						 "test_nested_calls covers parse_call after parse_index" };
	struct text t = { 0 };
	char when[32];
	for (size_t i = 0; i < items; i++) {
		const char *type = PICK(&r, types);
		t.len = 0;
		if (t.p)
			t.p[0] = '\0';
		if (type[0] == 'e' && type[1] == 'v') {
			iso_time(when, sizeof when, (uint64_t)i * 11);
			text_put(&t, "[");
			text_put(&t, when);
			text_put(&t, "] ");
			text_put(&t, PICK(&r, events));
		} else if (type[0] == 'c') {
			text_message(&t, &r, rng_below(&r, 2) ? 'd' : 'm', rng_length(&r, 200, 1200, 4000));
		} else if (type[0] == 'e') {
			text_put(&t, PICK(&r, entities));
		} else if (type[0] == 'r') {
			text_put(&t, PICK(&r, relations));
		} else {
			text_put(&t, "When a crash involves a token after lexer_advance, check whether the caller copied it first.");
		}
		fprintf(f, "    { \"id\": \"%.2s-%zu\", \"type\": \"%s\", \"content\": ", type, i, type);
		json_str(f, t.p, t.len);
		if (rng_below(&r, 10) < 7)
			fprintf(f, ", \"tokens\": %zu", (t.len + 3) / 4);
		fprintf(f, ", \"scores\": { \"recency\": %.3f, \"relevance\": %.3f, \"salience\": %.3f } }%s\n",
			(double)i / (double)items, rng_unit(&r), rng_unit(&r), i + 1 < items ? "," : "");
	}
	fputs("  ],\n", f);
	if (fresh) { /* newEvents: events arriving after the build, replayed one at a time */
		fputs("  \"newEvents\": [\n", f);
		for (size_t j = 0; j < fresh; j++) {
			iso_time(when, sizeof when, (uint64_t)(items + j) * 11);
			fprintf(f, "    { \"id\": \"new-%zu\", \"type\": \"event\", \"content\": \"[%s] %s\" }%s\n", j, when,
				PICK(&r, events), j + 1 < fresh ? "," : "");
		}
		fputs("  ],\n", f);
	}
	fputs("  \"additionalContext\": \"The failing test is test_index_chain on the arm64 runner.\"\n}\n", f);
	close_out(f, path);
	free(t.p);
	fprintf(stderr, "memory: %zu items\n", items);
}

/* ---- request logs and Claude Code sessions ----------------------------------- */

/* A request log of 1,000 Anthropic exchanges (100 under 50 MB) of about
 * `mbytes` MB in all: request k carries the tools, a system prompt with a breakpoint and
 * the first 2k+1 turns of one conversation (each request repeats the ones
 * before it, as a real log does), the last turn marked for caching, and the
 * response's recorded usage. With `count` requests asked for (0: as above),
 * conversations of 100 requests follow one another, as in a proxy's log of
 * many sessions (each new one breaks the cache). */
/* A capture's streamed response (ctxscope-formats(5) section 6b): the usage in message_start,
 * text deltas (the bulk a stream holds), the output in the last
 * message_delta, written as a JSON string (body_raw). */
static void sse_response(FILE *f, struct rng *r, struct text *t, size_t k, size_t deltas)
{
	struct text ev = { 0 };
	char buf[512];
	snprintf(buf, sizeof buf, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_%zu\","
		 "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":%zu,"
		 "\"cache_creation_input_tokens\":%zu,\"cache_read_input_tokens\":%zu,\"cache_creation\":{"
		 "\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":%zu},\"output_tokens\":1}}}\n\n",
		 k, rng_range(r, 1, 50), (size_t)2000, k * 300, (size_t)2000);
	text_putn(&ev, buf, strlen(buf));
	for (size_t d = 0; d < deltas; d++) {
		t->len = 0;
		text_message(t, r, 'm', 60);
		const char *head = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
				   "\"delta\":{\"type\":\"text_delta\",\"text\":";
		text_putn(&ev, head, strlen(head));
		/* the delta's text as a JSON string inside the event's JSON */
		text_putn(&ev, "\"", 1);
		for (size_t i = 0; i < t->len && i < 60; i++)
			if (t->p[i] != '"' && t->p[i] != '\\' && (unsigned char)t->p[i] >= 0x20)
				text_putn(&ev, t->p + i, 1);
		text_putn(&ev, "\"}}\n\n", 5);
	}
	snprintf(buf, sizeof buf, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
		 "\"end_turn\"},\"usage\":{\"output_tokens\":%zu}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
		 rng_range(r, 50, 800));
	text_putn(&ev, buf, strlen(buf));
	fputs("\"response\":{\"timestamp\":0,\"status_code\":200,\"headers\":{},\"body\":null,\"body_raw\":", f);
	json_str(f, ev.p, ev.len);
	fputs("}", f);
	free(ev.p);
}

/* A capture of about `mbytes` MB (ctxscope-formats(5) section 6b), as a proxy writes one
 * for an agent: each main request (gen_requests' conversation) answered by
 * a stream, a small Haiku request and a count_tokens call between them,
 * epoch-seconds timestamps. */
static void gen_capture(size_t mbytes, uint64_t seed, const char *path)
{
	struct rng r = { seed };
	struct text t = { 0 };
	FILE *f = open_out(path);
	size_t written = 0, target = mbytes * 1000000, k = 0, at = 0;
	struct text convo = { 0 }; /* the messages so far, as JSON */
	struct text sys = { 0 };
	while (written < target) {
		double when = 1764324000.0 + (double)k * 30.25;
		long start = ftell(f);
		if (at == 200) { /* a new session */
			at = 0;
			convo.len = 0;
			sys.len = 0;
		}
		t.len = 0;
		text_message(&t, &r, at % 2 ? 'm' : 'h', rng_range(&r, 200, 3000));
		if (convo.len)
			text_putn(&convo, ",", 1);
		const char *role = at % 2 ? "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
					  : "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":";
		text_putn(&convo, role, strlen(role));
		text_putn(&convo, "\"", 1);
		for (size_t i = 0; i < t.len; i++)
			if (t.p[i] != '"' && t.p[i] != '\\' && (unsigned char)t.p[i] >= 0x20)
				text_putn(&convo, t.p + i, 1);
		text_putn(&convo, "\"}]}", 4);
		at++;
		if (at % 2 == 0)
			continue; /* a user turn asks, the next request carries it */
		fprintf(f, "{\"request\":{\"timestamp\":%.3f,\"method\":\"POST\",\"url\":\"https://api.anthropic.com/v1/messages\","
			   "\"headers\":{\"x-api-key\":\"sk-bench\"},\"body\":{\"model\":\"claude-sonnet-4-5-20250929\",\"max_tokens\":"
			   "8192,\"stream\":true,\"cache_control\":{\"type\":\"ephemeral\"},\"system\":[{\"type\":\"text\",\"text\":", when);
		if (!sys.len) /* one system prompt a session */
			text_lines(&sys, &r, doc_lines, sizeof doc_lines / sizeof *doc_lines, 12, 1);
		json_str(f, sys.p, sys.len);
		fputs(",\"cache_control\":{\"type\":\"ephemeral\",\"ttl\":\"1h\"}}],\"messages\":[", f);
		fwrite(convo.p, 1, convo.len, f);
		fputs("]}},", f);
		sse_response(f, &r, &t, k, rng_range(&r, 20, 200));
		fprintf(f, ",\"logged_at\":\"2026-11-28T10:00:00.000Z\"}\n");
		fprintf(f, "{\"request\":{\"timestamp\":%.3f,\"method\":\"POST\",\"url\":\"https://api.anthropic.com/v1/messages\","
			   "\"body\":{\"model\":\"claude-haiku-4-5-20251001\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\","
			   "\"content\":\"quota\"}]}},\"response\":{\"status_code\":200,\"body\":{\"id\":\"msg_h%zu\",\"usage\":"
			   "{\"input_tokens\":8,\"output_tokens\":1,\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0}}}}\n"
			   "{\"request\":{\"timestamp\":%.3f,\"method\":\"POST\",\"url\":\"https://api.anthropic.com/v1/messages/"
			   "count_tokens\",\"body\":{\"model\":\"claude-sonnet-4-5-20250929\",\"messages\":[]}},\"response\":"
			   "{\"status_code\":200,\"body\":{\"input_tokens\":9}}}\n",
			when + 10, k, when + 20);
		written += (size_t)(ftell(f) - start);
		k++;
	}
	close_out(f, path);
	free(t.p);
	free(convo.p);
	free(sys.p);
	fprintf(stderr, "capture: %zu main requests (and as many Haiku and count_tokens lines)\n", k);
}

static void gen_requests(size_t mbytes, size_t count, uint64_t seed, const char *path)
{
	const size_t requests = count ? count : mbytes >= 50 ? 1000 : 100; /* a small log (BENCH_SCALE=small) has fewer */
	const size_t conversation = count && count > 100 ? 100 : requests;
	struct rng r = { seed };
	/* Each request repeats the turns before it: about requests * conversation turns in all. */
	size_t per_turn = mbytes * 1000000 / (requests * conversation) * 2 / 5; /* the JSON around each */
	if (per_turn < 8)
		per_turn = 8;
	size_t nturns = 2 * conversation + 1;
	char **turn = calloc(nturns, sizeof *turn);
	struct text t = { 0 };
	for (size_t i = 0; i < nturns && turn; i++) {
		size_t want = rng_length(&r, per_turn / 3, per_turn * 3 / 4, per_turn * 3);
		text_message(&t, &r, i % 2 ? 'm' : 'h', want);
		if (t.len > want + 8) /* a line may be longer than the whole target (ASCII: cut anywhere) */
			t.p[t.len = want + 8] = '\0';
		turn[i] = strdup(t.p ? t.p : "");
		if (!turn[i])
			turn = NULL;
	}
	if (!turn) {
		perror("ctxscope-gen");
		exit(1);
	}
	FILE *f = open_out(path);
	char when[32];
	for (size_t k = 0; k < requests; k++) {
		iso_time(when, sizeof when, (uint64_t)k * 40);
		fprintf(f, "{\"timestamp\":\"%s\",\"request\":{\"method\":\"POST\",\"url\":\"https://api.anthropic.com/v1/messages\","
			   "\"body\":{\"model\":\"claude-sonnet-4-5-20250929\",\"max_tokens\":2048,\"tools\":["
			   "{\"name\":\"read_file\",\"description\":\"Read a file of the repository\",\"input_schema\":{\"type\":\"object\","
			   "\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}},"
			   "{\"name\":\"run\",\"description\":\"Run a shell command in the repository\",\"input_schema\":{\"type\":\"object\","
			   "\"properties\":{\"command\":{\"type\":\"string\"}},\"required\":[\"command\"]}}],"
			   "\"system\":[{\"type\":\"text\",\"text\":",
			when);
		t.len = 0;
		text_lines(&t, &r, doc_lines, sizeof doc_lines / sizeof *doc_lines, 12, 1);
		json_str(f, t.p, t.len);
		fputs(",\"cache_control\":{\"type\":\"ephemeral\"}}],\"messages\":[", f);
		size_t at = k % conversation; /* this request's place in its conversation */
		for (size_t i = 0; i <= 2 * at; i++) {
			fprintf(f, "%s{\"role\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":", i ? "," : "",
				i % 2 ? "assistant" : "user");
			json_str(f, turn[i], strlen(turn[i]));
			if (i == 0 && conversation < requests) /* which conversation: its first words */
				fprintf(f, "},{\"type\":\"text\",\"text\":\"session %zu\"", k / conversation);
			fputs(i == 2 * at ? ",\"cache_control\":{\"type\":\"ephemeral\"}}]}" : "}]}", f);
		}
		fprintf(f, "]}},\"response\":{\"status\":200,\"body\":{\"id\":\"msg_%zu\",\"type\":\"message\",\"role\":\"assistant\","
			   "\"usage\":{\"input_tokens\":%zu,\"cache_creation_input_tokens\":%zu,\"cache_read_input_tokens\":%zu,"
			   "\"output_tokens\":%zu}}}}\n",
			k, rng_range(&r, 1, 50), rng_range(&r, 100, 2000), (k % conversation) * per_turn / 2, rng_range(&r, 50, 800));
	}
	close_out(f, path);
	for (size_t i = 0; i < nturns; i++)
		free(turn[i]);
	free(turn);
	free(t.p);
	fprintf(stderr, "requests: %zu requests\n", requests);
}

/* One Claude Code session line's common fields. */
static void cc_head(FILE *f, const char *type, size_t uuid, size_t parent, const char *when)
{
	fprintf(f, "{\"parentUuid\":");
	if (parent)
		fprintf(f, "\"u-%zu\"", parent);
	else
		fputs("null", f);
	fprintf(f, ",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/home/dev/exprc\",\"sessionId\":"
		   "\"5f1c2a3e-0d4b-4c6e-9a7f-2b8e1d0c4a61\",\"version\":\"2.0.14\",\"gitBranch\":\"main\",\"type\":\"%s\","
		   "\"uuid\":\"u-%zu\",\"timestamp\":\"%s\"",
		type, uuid, when);
}

/* A Claude Code session of about `mbytes` MB: a user prompt, then rounds
 * of an assistant message (text, then a tool call, written over two lines
 * with one message id) and the tool's result (a file read or a command's
 * output, the bulk of the bytes); a compaction every 2,000 lines. */
static void gen_claude(size_t mbytes, uint64_t seed, const char *path)
{
	struct rng r = { seed };
	FILE *f = open_out(path);
	struct text t = { 0 };
	char when[32];
	size_t uuid = 0, written = 0, target = mbytes * 1000000, lines = 0;
	size_t context = 14000;
	while (written < target) {
		iso_time(when, sizeof when, (uint64_t)uuid * 3);
		long at = ftell(f);
		if (lines % 2000 == 0) {
			if (uuid) {
				cc_head(f, "system", uuid + 1, uuid, when);
				fputs(",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"compactMetadata\":"
				      "{\"trigger\":\"auto\",\"preTokens\":150000}}\n", f);
				uuid++;
				context = 14000;
			}
			cc_head(f, "user", uuid + 1, uuid, when);
			text_message(&t, &r, 'h', rng_length(&r, 80, 300, 2000));
			fputs(",\"message\":{\"role\":\"user\",\"content\":", f);
			json_str(f, t.p, t.len);
			fputs("}}\n", f);
			uuid++;
			lines += 2;
		}
		size_t msg = uuid;
		for (int part = 0; part < 2; part++) {
			cc_head(f, "assistant", uuid + 1, uuid, when);
			fprintf(f, ",\"message\":{\"id\":\"msg_%zu\",\"type\":\"message\",\"role\":\"assistant\",\"model\":"
				   "\"claude-sonnet-4-5-20250929\",\"content\":[",
				msg);
			if (part == 0) {
				text_message(&t, &r, 'm', rng_length(&r, 100, 400, 3000));
				fputs("{\"type\":\"text\",\"text\":", f);
				json_str(f, t.p, t.len);
				fputs("}", f);
			} else {
				fprintf(f, "{\"type\":\"tool_use\",\"id\":\"toolu_%zu\",\"name\":\"Read\",\"input\":{\"file_path\":"
					   "\"/home/dev/exprc/src/f%zu.c\"}}",
					msg, rng_below(&r, 200));
			}
			fprintf(f, "],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":%zu,"
				   "\"cache_creation_input_tokens\":%zu,\"cache_read_input_tokens\":%zu,\"output_tokens\":%zu}},"
				   "\"requestId\":\"req_%zu\"}\n",
				rng_range(&r, 1, 10), rng_range(&r, 200, 3000), context, rng_range(&r, 20, 600), msg);
			uuid++;
		}
		cc_head(f, "user", uuid + 1, uuid, when);
		text_message(&t, &r, rng_below(&r, 2) ? 't' : 'd', rng_length(&r, 1000, 6000, 30000));
		fprintf(f, ",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_%zu\",\"type\":\"tool_result\","
			   "\"content\":",
			msg);
		json_str(f, t.p, t.len);
		fputs("}]}}\n", f);
		uuid++;
		lines += 3;
		context += t.len / 4;
		written += (size_t)(ftell(f) - at);
	}
	close_out(f, path);
	free(t.p);
	fprintf(stderr, "claude-code: %zu lines\n", lines);
}

int main(int argc, char **argv)
{
	if (argc != 5 && !(argc == 6 && (strcmp(argv[1], "memory") == 0 || strcmp(argv[1], "requests") == 0))) {
		fputs("usage: ctxscope-gen loom|ledger|manifest|memory|requests|claude-code SIZE SEED OUT [NEW-EVENTS (memory)|REQUESTS (requests)]\n"
		      "  SIZE: nodes (loom), megabytes (ledger, requests, claude-code), files (manifest), items (memory)\n",
		      stderr);
		return 2;
	}
	char *end;
	errno = 0;
	unsigned long long size = strtoull(argv[2], &end, 10);
	if (errno || *end || size == 0) {
		fprintf(stderr, "ctxscope-gen: bad SIZE %s\n", argv[2]);
		return 2;
	}
	uint64_t seed = strtoull(argv[3], &end, 10);
	if (*end) {
		fprintf(stderr, "ctxscope-gen: bad SEED %s\n", argv[3]);
		return 2;
	}
	if (strcmp(argv[1], "loom") == 0)
		gen_loom((size_t)size, seed, argv[4]);
	else if (strcmp(argv[1], "ledger") == 0)
		gen_ledger((size_t)size, seed, argv[4]);
	else if (strcmp(argv[1], "manifest") == 0)
		gen_manifest((size_t)size, seed, argv[4]);
	else if (strcmp(argv[1], "memory") == 0)
		gen_memory((size_t)size, argc == 6 ? (size_t)strtoull(argv[5], NULL, 10) : 0, seed, argv[4]);
	else if (strcmp(argv[1], "requests") == 0)
		gen_requests((size_t)size, argc == 6 ? (size_t)strtoull(argv[5], NULL, 10) : 0, seed, argv[4]);
	else if (strcmp(argv[1], "capture") == 0)
		gen_capture((size_t)size, seed, argv[4]);
	else if (strcmp(argv[1], "claude-code") == 0)
		gen_claude((size_t)size, seed, argv[4]);
	else {
		fprintf(stderr, "ctxscope-gen: unknown kind %s\n", argv[1]);
		return 2;
	}
	return 0;
}

/* test_ui.c: the inspector below the terminal: the view-model (rows in
 * place, cache markers, every edit and its status sentence, sorting, the
 * detail); a kind the UI has never heard of; the text grid and the --screen
 * runner. Keys, themes and bars: test_keys_themes.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "actions.h"
#include "base/alloc.h"
#include "app.h"
#include "base/fileio.h"
#include "kind.h"
#include "load.h"
#include "paint.h"
#include "base/strbuf.h"
#include "term.h"
#include "theme.h"
#include "vm/viewmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#define FIXTURE "tests/fixtures/ui/parser-fix/working-set.yml"

/* ---- the view-model ------------------------------------------------------------ */

static long row_index_of_piece(const struct vm *vm, long piece)
{
	for (size_t i = 0; i < vm->nrows; i++)
		if (support_row(vm, i)->type != VM_ROW_MARKER && support_row(vm, i)->piece == piece)
			return (long)i;
	return -1;
}

static void select_piece(struct vm *vm, const char *id)
{
	long piece = support_piece(vm->session.src, id);
	long at = row_index_of_piece(vm, piece);
	assert_true(at >= 0);
	vm->cursor = (size_t)at;
}

/* A cache profile that caches at every breakpoint whatever its size, so the
 * small fixture's markers all count (the real profiles' minimums are tested
 * on their own below). */
static void use_every_breakpoint_profile(struct vm *vm)
{
	static const char yml[] = "profiles:\n  every:\n    based_on: anthropic\n    min_prefix: 0\n"
				  "    max_breakpoints: 0\n    lookback: 0\n";
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(cache_config_parse(&vm->cache.cfg, yml, sizeof yml - 1, &err), CS_OK);
	assert_int_equal(vm_cache_setup(vm, NULL, "every", &err), CS_OK);
	assert_string_equal(vm->cache.profile->name, "every");
}

static void open_vm(struct vm *vm)
{
	struct source *src = support_load(FIXTURE, NULL);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(vm, src, &err), CS_OK);
	use_every_breakpoint_profile(vm);
}

static void test_rows_in_order_with_markers(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	/* 5 blocks, a breakpoint at the end of each layer's run (system, user)
	 * and after the last (manifest), then the 2 dropped pieces after the
	 * block of their input predecessor (tests/test_headers.c) */
	const enum vm_row_type want[] = { VM_ROW_BLOCK, VM_ROW_MARKER, VM_ROW_BLOCK, VM_ROW_MARKER,
					  VM_ROW_BLOCK, VM_ROW_BLOCK, VM_ROW_BLOCK, VM_ROW_MARKER,
					  VM_ROW_DROPPED, VM_ROW_DROPPED };
	assert_int_equal(vm.nrows, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < vm.nrows; i++)
		assert_int_equal(support_row(&vm, i)->type, want[i]);
	assert_int_equal(support_row(&vm, 8)->piece, support_piece(vm.session.src, "docs/rfc9112-notes.md"));
	assert_int_equal(support_row(&vm, 9)->piece, support_piece(vm.session.src, "build/parser.o.map"));
	assert_int_equal(support_row(&vm, 6)->piece, support_piece(vm.session.src, "tests/test_headers.c"));
	/* the marker after the second block says how far the prefix reaches */
	assert_int_equal(vm_row_tokens(&vm, support_row(&vm, 3)), vm.session.cur.blocks[1].offset_tokens + vm.session.cur.blocks[1].tokens);
	assert_true(vm.cache.identical);
	assert_int_equal(vm.cache.cached_tokens, vm.session.cur.total_tokens);
	assert_int_equal(vm_row_flag(&vm, support_row(&vm, 8)), '-');
	assert_int_equal(vm_row_flag(&vm, support_row(&vm, 9)), '!');
	assert_int_equal(vm_row_flag(&vm, support_row(&vm, 0)), ' ');
	/* the cursor never rests on a marker */
	vm_first(&vm);
	for (int i = 0; i < 20; i++) {
		assert_int_not_equal(vm_selected(&vm)->type, VM_ROW_MARKER);
		vm_move(&vm, 1);
	}
	assert_int_equal(vm.cursor, vm.nrows - 1);
	vm_move(&vm, -1);
	assert_int_equal(vm.cursor, 8);
	vm_move(&vm, -1);
	assert_int_equal(vm.cursor, 6); /* stepped over the marker at 7 */
	vm_toggle_dropped(&vm);
	assert_int_equal(vm.nrows, 8);
	for (size_t i = 0; i < vm.nrows; i++)
		assert_int_not_equal(support_row(&vm, i)->type, VM_ROW_DROPPED);
	assert_int_equal(vm_selected_piece(&vm), support_piece(vm.session.src, "tests/test_headers.c"));
	vm_fini(&vm);
}

static void test_exclude_updates_assembly_cache_and_status(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	long used = vm.session.cur.budget.used;
	long parser = support_piece(vm.session.src, "src/http_parser.c");
	long docs = support_piece(vm.session.src, "docs/rfc9112-notes.md");
	select_piece(&vm, "src/http_parser.c");
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	assert_int_equal(vm.session.cur.results[parser].outcome, OUTCOME_DROPPED);
	assert_int_equal(vm.session.cur.results[parser].reason, REASON_EXCLUDED_BY_USER);
	/* the freed room lets the never-cut notes in */
	assert_int_equal(vm.session.cur.results[docs].outcome, OUTCOME_WHOLE);
	long delta = vm.session.cur.budget.used - used;
	assert_int_equal(delta, 338 - 521);
	/* the prompt matches the baseline for the first two blocks only */
	assert_int_equal(vm.cache.same_blocks, 2);
	assert_int_equal(vm.cache.cached_block, 1);
	assert_int_equal(vm.cache.cached_tokens, vm.session.cur.blocks[1].offset_tokens + vm.session.cur.blocks[1].tokens);
	assert_int_equal(vm.cache.rewrite_tokens, vm.session.cur.total_tokens - vm.cache.cached_tokens);
	char want[256];
	char a[32], b[32], c[32];
	/* what moved, the largest first, then the net and the cache in read / written / uncached */
	snprintf(want, sizeof want,
		 "excluded src/http_parser.c: out (-521); used %s -> %s; cache %s read (was ",
		 fmt_thousands(a, used), fmt_thousands(b, vm.session.cur.budget.used), fmt_thousands(c, vm.cache.cached_tokens));
	assert_memory_equal(sb_str(&vm.status), want, strlen(want));
	assert_non_null(strstr(sb_str(&vm.status), "; also docs/rfc9112-notes.md in (+338); ")); /* the others after */
	/* the cursor stays on the piece; flags follow */
	assert_int_equal(vm_selected_piece(&vm), parser);
	assert_int_equal(vm_row_flag(&vm, vm_selected(&vm)), 'x');
	assert_int_equal(vm_row_flag(&vm, support_row(&vm, row_index_of_piece(&vm, docs))), '*');
	/* the context layer is now only partly cached */
	long cached;
	assert_int_equal(vm_layer_state(&vm, 4, &cached), VM_LAYER_NEW);
	assert_int_equal(vm_layer_state(&vm, 1, &cached), VM_LAYER_CACHED);
	assert_int_equal(vm.session.hist.ndone, 1);
	assert_int_equal(vm.session.hist.done[0].type, EDIT_EXCLUDE);
	/* Space again: back to the loaded assembly, the same prompt */
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	assert_true(vm.cache.identical);
	assert_int_equal(vm.session.cur.budget.used, used);
	assert_non_null(strstr(sb_str(&vm.status), "prompt same as the baseline"));
	vm_fini(&vm);
}

static void test_baseline_pin(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	select_piece(&vm, "logs/asan-crash.log");
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	assert_false(vm.cache.identical);
	assert_int_equal(vm_pin_baseline(&vm, &err), CS_OK);
	assert_true(vm.cache.identical);
	assert_int_equal(vm.cache.cached_tokens, vm.session.cur.total_tokens);
	assert_int_equal(vm.cache.rewrite_tokens, 0);
	/* against the new baseline, putting the log back breaks after block 0 */
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.same_blocks, 1);
	vm_fini(&vm);
}

/* The real profiles: the loom sample's system breakpoint (71 tokens) is under
 * anthropic's 1,024 minimum, the end of history (1,077) caches; the marker
 * states, the profile cycle and a user breakpoint say what report says. */
static void test_cache_profiles_and_breakpoints(void **state)
{
	(void)state;
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load("samples/loom/parser-debug.json", NULL), &err), CS_OK);
	assert_string_equal(vm.cache.profile->name, "anthropic");
	assert_int_equal(vm.session.cur.total_tokens, 1126);
	assert_int_equal(vm.cache.an.nbps, 2);
	const struct cache_breakpoint *sys = vm_breakpoint(&vm, 0);
	assert_non_null(sys);
	assert_int_equal(sys->end_tokens, 71);
	assert_string_equal(vm_breakpoint_state(&vm, sys), "uncached: under the minimum");
	long hist_end = (long)vm.cache.an.bps[1].block;
	assert_string_equal(vm_breakpoint_state(&vm, vm_breakpoint(&vm, hist_end)), "read");
	assert_null(vm_breakpoint(&vm, 1));
	assert_int_equal(vm.cache.an.now.read, 1077);
	assert_int_equal(vm.cache.cached_tokens, 1077);
	assert_int_equal(vm.cache.rewrite_tokens, 49);
	long cached;
	assert_int_equal(vm_layer_state(&vm, 0, &cached), VM_LAYER_CACHED); /* system: inside the prefix */
	assert_int_equal(vm_layer_state(&vm, 2, &cached), VM_LAYER_NEW);    /* current: after it */
	/* openai: automatic prefix in 128-token units, 1,126 -> 1,024 */
	assert_int_equal(vm_cycle_profile(&vm, &err), CS_OK);
	assert_string_equal(vm.cache.profile->name, "openai");
	assert_string_equal(sb_str(&vm.status), "cache profile openai (prefix, min 1,024, 128-token units): "
						"1,024 of 1,126 tokens read from the cache, 0 written, 102 uncached");
	assert_int_equal(vm_layer_state(&vm, 1, &cached), VM_LAYER_PARTIAL);
	assert_int_equal(cached, 1024 - 71);
	for (int i = 0; i < 4; i++)
		assert_int_equal(vm_cycle_profile(&vm, &err), CS_OK);
	assert_string_equal(vm.cache.profile->name, "anthropic"); /* the cycle wraps */
	/* a breakpoint after the last block: written by this request (the
	 * sample's pinned memory entries, dropped with loom-aware off, list
	 * after it) */
	vm_last(&vm);
	while (vm_selected(&vm)->type == VM_ROW_DROPPED)
		vm_move(&vm, -1);
	const struct vm_row *r = vm_selected(&vm);
	assert_int_equal(r->type, VM_ROW_BLOCK);
	assert_int_equal(vm_toggle_breakpoint(&vm, &err), CS_OK);
	assert_string_equal(sb_str(&vm.status), "breakpoint set after 01HQAJ (1,126 tokens, written): "
						"1,077 of 1,126 tokens read from the cache, 49 written, 0 uncached");
	assert_int_equal(vm.cache.an.nbps, 3);
	/* it survives a re-assembly (kept by piece id) */
	assert_int_equal(vm_set_budget(&vm, "", &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 3);
	/* pinned, the baseline has it too: a warm repeat reads everything */
	assert_int_equal(vm_pin_baseline(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.an.now.read, 1126);
	assert_string_equal(vm_breakpoint_state(&vm, vm_breakpoint(&vm, (long)vm.session.cur.nblocks - 1)), "read");
	/* removed again: the baseline's entry is still readable up to history's end */
	assert_int_equal(vm_toggle_breakpoint(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 2);
	assert_int_equal(vm.cache.an.now.read, 1077);
	/* a dropped row has no block to put a breakpoint after */
	vm_first(&vm);
	while (vm_selected(&vm)->type != VM_ROW_DROPPED)
		vm_move(&vm, 1);
	assert_int_equal(vm_toggle_breakpoint(&vm, &err), CS_EUSAGE);
	assert_true(vm.status_error);
	vm_fini(&vm);
}

/* M is a step of the undo history: u takes the breakpoint back, Ctrl-R
 * puts it there again, and it falls between the source's edits in the
 * order they were made (an exclusion after it is undone first). Before the
 * fix, u after M said "nothing to undo". */
static void test_breakpoint_move_is_undone(void **state)
{
	(void)state;
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load("samples/loom/parser-debug.json", NULL), &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 2);
	vm_last(&vm);
	while (vm_selected(&vm)->type == VM_ROW_DROPPED)
		vm_move(&vm, -1);
	assert_int_equal(vm_toggle_breakpoint(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 3);
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 2);
	assert_int_equal(vm.cache.bp_now.n, 0);
	assert_non_null(strstr(sb_str(&vm.status), "undone: a breakpoint moved with M"));
	assert_int_equal(vm_redo(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 3);
	assert_non_null(strstr(sb_str(&vm.status), "redone: "));
	/* then an edit: undone first, then the breakpoint, then nothing */
	long used = vm.session.cur.budget.used;
	assert_int_equal(vm_set_budget(&vm, "500", &err), CS_OK);
	assert_true(vm.session.cur.budget.used != used);
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_int_equal(vm.session.cur.budget.used, used);
	assert_int_equal(vm.cache.an.nbps, 3);
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 2);
	assert_int_equal(vm_undo(&vm, &err), CS_EUSAGE); /* nothing to undo */
	/* redo in the same order: the breakpoint, then the budget */
	assert_int_equal(vm_redo(&vm, &err), CS_OK);
	assert_int_equal(vm.cache.an.nbps, 3);
	assert_int_equal(vm.session.cur.budget.used, used);
	assert_int_equal(vm_redo(&vm, &err), CS_OK);
	assert_true(vm.session.cur.budget.used != used);
	/* a new breakpoint move forgets what was undone before it */
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	vm_first(&vm);
	while (vm_selected(&vm)->type != VM_ROW_BLOCK)
		vm_move(&vm, 1);
	assert_int_equal(vm_toggle_breakpoint(&vm, &err), CS_OK);
	assert_int_equal(vm_redo(&vm, &err), CS_EUSAGE);
	vm_fini(&vm);
}

static long find_row(const struct vm *vm, enum vm_row_type type, long block)
{
	for (size_t i = 0; i < vm->nrows; i++)
		if (support_row(vm, i)->type == type && support_row(vm, i)->block == block)
			return (long)i;
	return -1;
}

/* The memory snapshot's weights and shares as a panel, from the kind's
 * options table. With allocation caps on, the queries' shares decide
 * (pass 1): ev-094 sits below the cutoff line. Weights only decide pass 2:
 * with caps off, a salience step moves pt-bisect and re-asan above the
 * cutoff line and ch-changelog below it; undo data is in the history; the
 * archetype cycles. */
static void test_memory_panel_and_cutoff_line(void **state)
{
	(void)state;
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load("samples/memory/coding-session.json", NULL), &err), CS_OK);
	struct vm_panel_entry e[VM_PANEL_MAX];
	assert_int_equal(vm_panel_entries(&vm, e, VM_PANEL_MAX), 7);
	assert_string_equal(e[0].option, "weight");
	assert_string_equal(e[0].name, "recency");
	assert_true(e[0].value == 0.3 && !e[0].percent);
	assert_string_equal(e[6].option, "allocation");
	assert_string_equal(e[6].name, "relations");
	assert_true(e[6].value == 20 && e[6].percent);
	/* sorted by score, the line sits above the first piece left out */
	while (vm.sort != VM_SORT_SCORE)
		vm_cycle_sort(&vm);
	assert_string_equal(vm_cutoff(&vm), "0.66");
	long cut = find_row(&vm, VM_ROW_MARKER, VM_MARKER_CUTOFF);
	assert_true(cut > 0);
	long ev094 = support_piece(vm.session.src, "ev-094"), pt = support_piece(vm.session.src, "pt-bisect"),
	     ch = support_piece(vm.session.src, "ch-changelog");
	assert_int_equal(support_row(&vm, cut + 1)->piece, ev094);
	assert_int_equal(vm.session.cur.results[ev094].reason, REASON_OVER_ALLOCATION);
	/* caps off, then salience 0.20 -> 0.25 */
	assert_int_equal(vm_toggle_option(&vm, "allocation-caps", &err), CS_OK);
	assert_int_equal(vm.session.cur.results[pt].reason, REASON_OVER_BUDGET);
	assert_int_equal(vm_panel_nudge(&vm, 2, 1, &err), CS_OK);
	const char *nudged = "weight salience 0.2 -> 0.25 (in: re-asan, pt-bisect; out: ch-changelog): ";
	assert_int_equal(strncmp(sb_str(&vm.status), nudged, strlen(nudged)), 0);
	assert_non_null(strstr(sb_str(&vm.status), ": used 553 -> 552; cache 0 read"));
	assert_int_equal(vm.session.hist.ndone, 2);
	assert_int_equal(vm.session.hist.done[1].type, EDIT_OPTION);
	assert_string_equal(vm.session.hist.done[1].option, "weight");
	assert_string_equal(vm.session.hist.done[1].text, "salience=0.25");
	assert_int_equal(vm.session.cur.results[pt].outcome, OUTCOME_WHOLE);
	assert_int_equal(vm.session.cur.results[ch].reason, REASON_OVER_BUDGET);
	assert_string_equal(vm_cutoff(&vm), "0.545");
	cut = find_row(&vm, VM_ROW_MARKER, VM_MARKER_CUTOFF);
	assert_int_equal(support_row(&vm, cut - 1)->piece, pt);
	assert_int_equal(support_row(&vm, cut + 1)->piece, ch);
	/* a share moves by 5 percentage points; out of range is the kind's refusal */
	assert_int_equal(vm_panel_nudge(&vm, 3, 1, &err), CS_OK);
	assert_int_equal(vm_panel_entries(&vm, e, VM_PANEL_MAX), 7);
	assert_true(e[3].value == 25);
	for (int i = 0; i < 12; i++)
		vm_panel_nudge(&vm, 1, 1, &err);
	assert_int_equal(vm_panel_entries(&vm, e, VM_PANEL_MAX), 7);
	assert_true(e[1].value == 1);
	assert_int_equal(vm_panel_nudge(&vm, 1, 1, &err), CS_EUSAGE);
	assert_true(vm.status_error);
	/* archetype: coding -> support -> research -> coding, from the option's help */
	assert_int_equal(vm_cycle_option(&vm, "archetype", &err), CS_OK);
	assert_int_equal(strncmp(sb_str(&vm.status), "archetype coding", 16), 0);
	struct strbuf v = STRBUF_INIT;
	support_get(vm.session.src, "archetype", &v);
	assert_string_equal(sb_str(&v), "support");
	assert_int_equal(vm_cycle_option(&vm, "archetype", &err), CS_OK);
	assert_int_equal(vm_cycle_option(&vm, "archetype", &err), CS_OK);
	sb_reset(&v);
	support_get(vm.session.src, "archetype", &v);
	assert_string_equal(sb_str(&v), "coding");
	sb_fini(&v);
	/* no such switch here */
	assert_int_equal(vm_toggle_option(&vm, "loom-aware", &err), CS_EUSAGE);
	assert_string_equal(sb_str(&vm.status), "a memory snapshot has no loom-aware setting");
	vm_fini(&vm);
}

/* Kinds without list options have no panel and no cutoff line; the loom
 * tree's loom-aware switch re-assembles with its headers counted. */
static void test_loom_aware_switch_and_no_panel(void **state)
{
	(void)state;
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load("samples/loom/parser-debug.json", NULL), &err), CS_OK);
	struct vm_panel_entry e[VM_PANEL_MAX];
	assert_int_equal(vm_panel_entries(&vm, e, VM_PANEL_MAX), 0);
	assert_int_equal(vm_panel_nudge(&vm, 0, 1, &err), CS_EUSAGE);
	assert_null(vm_cutoff(&vm));
	assert_int_equal(vm_cycle_option(&vm, "archetype", &err), CS_EUSAGE);
	long used = vm.session.cur.budget.used;
	assert_int_equal(vm_toggle_option(&vm, "loom-aware", &err), CS_OK);
	assert_true(vm.session.cur.budget.used > used);
	assert_int_equal(strncmp(sb_str(&vm.status), "loom-aware false -> true", 24), 0);
	assert_false(vm.cache.identical);
	assert_int_equal(vm_toggle_option(&vm, "loom-aware", &err), CS_OK);
	assert_int_equal(vm.session.cur.budget.used, used);
	assert_true(vm.cache.identical);
	vm_fini(&vm);
}

/* Counts in the header carry thousands separators as tokens do: a snapshot
 * of 1,500 chunks (written here) where a 50-token budget drops all but a few. */
static void test_header_counts_have_separators(void **state)
{
	(void)state;
	char path[] = "/tmp/ctxscope-test-counts-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("{\"query\": \"q\", \"maxTokens\": 50, \"items\": [", f);
	for (int i = 0; i < 1500; i++)
		fprintf(f, "%s{\"id\": \"ch-%d\", \"type\": \"chunk\", \"tokens\": 10, \"content\": \"chunk %d\", "
			   "\"scores\": {\"relevance\": %.4f}}",
			i ? "," : "", i, i, 1.0 - i / 2000.0);
	fputs("]}\n", f);
	assert_int_equal(fclose(f), 0);
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load(path, NULL), &err), CS_OK);
	assert_true(vm_header(&vm));
	bool found = false;
	for (size_t i = 0; i < vm.head.nitems; i++) {
		const char *t = vm_head_text(&vm, i);
		if (strncmp(t, "dropped ", 8) == 0) {
			assert_string_equal(t, "dropped 1,498, cut 0");
			found = true;
		}
	}
	assert_true(found);
	vm_fini(&vm);
	unlink(path);
}

static void test_priority_and_strategy_edits(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	long docs = support_piece(vm.session.src, "docs/rfc9112-notes.md");
	long tests = support_piece(vm.session.src, "tests/test_headers.c");
	select_piece(&vm, "docs/rfc9112-notes.md");
	/* 0.30 -> 0.55: above the tests (0.50), so it goes in and they get cut */
	for (int i = 0; i < 5; i++)
		assert_int_equal(vm_nudge_priority(&vm, VM_PRIORITY_STEP, &err), CS_OK);
	assert_true(fabs(vm.session.src->pieces[docs].priority - 0.55) < 1e-9);
	assert_int_equal(vm.session.cur.results[docs].outcome, OUTCOME_WHOLE);
	assert_int_equal(vm.session.cur.results[tests].outcome, OUTCOME_TRUNCATED);
	assert_non_null(strstr(sb_str(&vm.status), "priority of docs/rfc9112-notes.md 0.50 -> 0.55"));
	/* priority stays inside [0, 1] */
	select_piece(&vm, "notes/task.md");
	assert_int_equal(vm_nudge_priority(&vm, VM_PRIORITY_STEP, &err), CS_OK);
	assert_true(vm.session.src->pieces[support_piece(vm.session.src, "notes/task.md")].priority <= 1.0);
	/* t cycles the piece's strategy through the kind's list */
	select_piece(&vm, "tests/test_headers.c");
	int before = vm.session.src->pieces[tests].strategy;
	assert_int_equal(vm_cycle_strategy(&vm, false, &err), CS_OK);
	int after = vm.session.src->pieces[tests].strategy;
	assert_int_not_equal(after, before);
	const int *list = vm.session.src->kind->piece_strategies;
	size_t at = 0;
	while (list[at] != before)
		at++;
	size_t n = 0;
	while (list[n] != STRAT_NONE)
		n++;
	assert_int_equal(after, list[(at + 1) % n]);
	assert_non_null(strstr(sb_str(&vm.status), "strategy of tests/test_headers.c"));
	/* a manifest has no whole-assembly strategy: T says so, changes nothing */
	long used = vm.session.cur.budget.used;
	assert_int_equal(vm_cycle_strategy(&vm, true, &err), CS_EUSAGE);
	assert_true(vm.status_error);
	assert_int_equal(vm.session.cur.budget.used, used);
	vm_fini(&vm);
}

static void test_budget_edit_and_detail(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	long tests = support_piece(vm.session.src, "tests/test_headers.c");
	assert_int_equal(vm_set_budget(&vm, "1,200", &err), CS_OK);
	assert_int_equal(vm.session.cur.budget.usable, 1200);
	assert_int_equal(vm.session.cur.results[tests].outcome, OUTCOME_TRUNCATED);
	assert_non_null(strstr(sb_str(&vm.status), "budget the input's -> 1,200"));
	/* the detail shows the kept head, a cut marker, numbers and why */
	select_piece(&vm, "tests/test_headers.c");
	assert_true(vm_detail(&vm));
	const struct block *b = &vm.session.cur.blocks[vm.session.cur.results[tests].block];
	const struct piece *p = &vm.session.src->pieces[tests];
	size_t cut_lines = 0;
	bool head = false, before_after = false, why = false;
	for (size_t i = 0; i < vm.detail.nlines; i++) {
		const struct vm_line *l = &vm.detail.lines[i];
		const char *s = vm.detail.text.data + l->off;
		if (l->role == ROLE_CUT) {
			cut_lines++;
			char want[64];
			snprintf(want, sizeof want, "cut here: %zu bytes", p->text_bytes - b->keep_head - b->keep_tail);
			assert_non_null(strstr(s, want));
		}
		if (strncmp(s, "/* test_headers.c:", 18) == 0)
			head = true;
		if (strstr(s, "351 -> 143 tokens"))
			before_after = true;
		if (strncmp(s, "why: truncated", 14) == 0)
			why = true;
	}
	assert_int_equal(cut_lines, 1);
	assert_true(head && before_after && why);
	/* a typo changes nothing and says so */
	long used = vm.session.cur.budget.used;
	assert_int_equal(vm_set_budget(&vm, "lots", &err), CS_EUSAGE);
	assert_true(vm.status_error);
	assert_int_equal(vm.session.cur.budget.used, used);
	/* empty: back to the input's budget */
	assert_int_equal(vm_set_budget(&vm, "", &err), CS_OK);
	assert_int_equal(vm.session.cur.budget.usable, 1600);
	vm_fini(&vm);
}

static void test_sort_by_tokens(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	vm_cycle_sort(&vm);
	assert_int_equal(vm.sort, VM_SORT_TOKENS);
	assert_int_equal(vm.nrows, 7); /* every piece once, no markers */
	for (size_t i = 1; i < vm.nrows; i++) {
		assert_int_not_equal(support_row(&vm, i)->type, VM_ROW_MARKER);
		assert_true(vm_row_tokens(&vm, support_row(&vm, i - 1)) >= vm_row_tokens(&vm, support_row(&vm, i)));
	}
	assert_int_equal(support_row(&vm, 0)->piece, support_piece(vm.session.src, "src/http_parser.c"));
	vm_cycle_sort(&vm);
	assert_int_equal(vm.sort, VM_SORT_PRIORITY);
	for (size_t i = 1; i < vm.nrows; i++)
		assert_true(vm.session.src->pieces[support_row(&vm, i - 1)->piece].priority >= vm.session.src->pieces[support_row(&vm, i)->piece].priority);
	vm_cycle_sort(&vm); /* a manifest sorts by order, tokens or priority: back to the first */
	assert_int_equal(vm.sort, VM_SORT_ORDER);
	assert_int_equal(vm.nrows, 10);
	vm_fini(&vm);
}

static void test_vm_out_of_memory_is_an_error(void **state)
{
	(void)state;
	/* every allocation of an edit may fail: the result is an error or a
	 * success, never a crash or a leak (ASan checks the leaks) */
	int failed = 0, worked = 0;
	for (long nth = 1; nth < 200; nth++) {
		struct vm vm;
		open_vm(&vm);
		select_piece(&vm, "src/http_parser.c");
		struct cs_error err;
		cs_error_clear(&err);
		cs_alloc_fail_from(nth);
		int rc = vm_toggle_exclude(&vm, &err);
		cs_alloc_fail_from(0);
		assert_true(rc == CS_OK || rc == CS_ENOMEM);
		if (rc == CS_OK) {
			/* when it worked, it worked completely */
			assert_int_equal(vm.session.cur.results[support_piece(vm.session.src, "src/http_parser.c")].reason,
					 REASON_EXCLUDED_BY_USER);
			worked++;
		} else {
			failed++;
		}
		vm_fini(&vm);
	}
	assert_true(failed > 0 && worked > 0);
}


/* ---- a kind the UI has never heard of ------------------------------------------ */

/* A made-up conversation kind with two layer groupings and only a
 * whole-assembly strategy, built in memory: the inspector must handle it
 * through kind_ops and the assembly alone, with no special case. */
static const int fake_global[] = { STRAT_TRUNCATE_MIDDLE, STRAT_ROLLING_WINDOW, STRAT_NONE };

static int fake_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	int rc = asm_init(a, run, ASM_MESSAGES);
	if (rc != CS_OK)
		return rc;
	static const char *const phys[] = { "system", "history" };
	static const char *const conc[] = { "instructions", "dialogue", "latest" };
	asm_grouping(a, "physical", phys, 2);
	asm_grouping(a, "conceptual", conc, 3);
	bool rolling = src->settings.strategy == STRAT_ROLLING_WINDOW;
	size_t n = src->npieces;
	for (size_t i = 0; i < n; i++) {
		const struct piece *p = &src->pieces[i];
		if (piece_excluded(p)) {
			asm_drop(a, (long)i, p->user_excluded == 1 ? REASON_EXCLUDED_BY_USER : REASON_EXCLUDED, NULL);
			continue;
		}
		if (i > 0 && rolling && i + 2 < n) { /* keep the newest two */
			asm_drop(a, (long)i, REASON_ROLLING_WINDOW, NULL);
			continue;
		}
		asm_message(a, p->role);
		struct block *b = asm_block(a, (long)i, i == 0 ? 0 : 1, i == 0 ? 0 : i + 1 == n ? 2 : 1);
		b->budget_tokens = p->tokens;
		if (i == 0)
			b->flags |= BLOCK_BREAKPOINT;
		asm_span(a, p->text, p->text_bytes, p->code_points);
		asm_whole(a, (long)i, (long)a->nblocks - 1, p->tokens);
	}
	if (a->nblocks)
		a->blocks[a->nblocks - 1].flags |= BLOCK_BREAKPOINT;
	a->budget.usable = src->settings.budget >= 0 ? src->settings.budget : 1000;
	a->budget.reserve = 100;
	a->budget.limit = a->budget.usable + 100;
	asm_fact(a, "mode", "dialogue");
	return asm_finish(a, err);
}

static void fake_free(void *model)
{
	(void)model;
}

static const struct kind_ops fake_kind = {
	.name = "fake",
	.title = "fake conversation",
	.id_key = "node",
	.global_strategies = fake_global,
	.assemble = fake_assemble,
	.free_model = fake_free,
};

static struct source *fake_source(void)
{
	static const struct {
		const char *id, *role, *text;
	} msgs[] = {
		{ "sys", "system", "You are pairing on a C parser. Be concise." },
		{ "n1", "user", "Why does parse_array crash on [[1],[2]]? ASan says heap-buffer-overflow in lex_peek." },
		{ "n2", "assistant", "lex_peek reads one past the end when the input ends right after ']'." },
		{ "n3", "user", "So the bounds check in lex_peek is off by one?" },
		{ "n4", "assistant", "Yes: it compares pos > len where it needs pos >= len. Here is the fix." },
	};
	struct source *src = source_new(&fake_kind, "fake.json");
	assert_non_null(src);
	for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
		long k = source_add_piece(src);
		assert_true(k >= 0);
		assert_int_equal(source_set_piece_text(src, k, msgs[i].text, strlen(msgs[i].text)), CS_OK);
		src->pieces[k].id = msgs[i].id;
		src->pieces[k].label = msgs[i].id;
		src->pieces[k].role = msgs[i].role;
	}
	return src;
}

static void test_unknown_kind_groupings_and_global_strategy(void **state)
{
	(void)state;
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, fake_source(), &err), CS_OK);
	use_every_breakpoint_profile(&vm);
	assert_string_equal(vm_grouping(&vm)->name, "physical");
	vm_cycle_grouping(&vm);
	assert_string_equal(vm_grouping(&vm)->name, "conceptual");
	assert_string_equal(sb_str(&vm.status), "layers: conceptual");
	long cached;
	assert_int_equal(vm_layer_state(&vm, 2, &cached), VM_LAYER_CACHED); /* "latest": the last message */
	assert_int_equal(cached, vm.session.cur.blocks[4].tokens);
	vm_cycle_grouping(&vm);
	assert_string_equal(vm_grouping(&vm)->name, "physical");
	/* no per-piece strategies: t changes the whole assembly's */
	select_piece(&vm, "n2");
	assert_int_equal(vm_cycle_strategy(&vm, false, &err), CS_OK);
	assert_int_equal(vm.session.src->settings.strategy, STRAT_TRUNCATE_MIDDLE);
	assert_non_null(strstr(sb_str(&vm.status), "strategy (input's) -> truncateMiddle: no piece moved; used "));
	assert_non_null(strstr(sb_str(&vm.status), " (net 0); prompt same as the baseline"));
	assert_int_equal(vm_cycle_strategy(&vm, false, &err), CS_OK);
	assert_int_equal(vm.session.src->settings.strategy, STRAT_ROLLING_WINDOW);
	/* n1 and n2 fell out of the window; the cache holds the system block */
	assert_int_equal(vm.session.cur.results[support_piece(vm.session.src, "n1")].reason, REASON_ROLLING_WINDOW);
	assert_int_equal(vm.cache.same_blocks, 1);
	assert_int_equal(vm.cache.cached_block, 0);
	assert_int_equal(vm_layer_state(&vm, 1, &cached), VM_LAYER_NEW);
	assert_int_equal(vm_row_flag(&vm, support_row(&vm, row_index_of_piece(&vm, support_piece(vm.session.src, "n1")))), '-');
	/* the cursor stayed on n2, now a dropped row in place */
	assert_int_equal(vm_selected_piece(&vm), support_piece(vm.session.src, "n2"));
	assert_int_equal(vm_selected(&vm)->type, VM_ROW_DROPPED);
	/* the cycle wraps */
	assert_int_equal(vm_cycle_strategy(&vm, false, &err), CS_OK);
	assert_int_equal(vm.session.src->settings.strategy, STRAT_TRUNCATE_MIDDLE);
	/* no priorities in this kind: + says so and changes nothing */
	long used = vm.session.cur.budget.used;
	assert_int_equal(vm_nudge_priority(&vm, VM_PRIORITY_STEP, &err), CS_EUSAGE);
	assert_true(vm.status_error);
	assert_non_null(strstr(sb_str(&vm.status), "has no priorities"));
	assert_int_equal(vm.session.cur.budget.used, used);
	vm_fini(&vm);
}

static void test_unknown_kind_on_screen(void **state)
{
	(void)state;
	struct app app;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(&app, fake_source(), false, &err), CS_OK);
	struct strbuf out = STRBUF_INIT;
	assert_int_equal(screen_run(&app, 100, 30, "l", &out, &err), CS_OK);
	const char *s = sb_str(&out);
	assert_non_null(strstr(s, "instructions"));
	assert_non_null(strstr(s, "latest"));
	assert_non_null(strstr(s, "mode dialogue"));
	assert_non_null(strstr(s, "assistant"));
	assert_non_null(strstr(s, "cache breakpoint"));
	sb_fini(&out);
	app_fini(&app);
}

/* ---- the screen ------------------------------------------------------------------ */

static void test_text_grid_wide_and_trim(void **state)
{
	(void)state;
	struct text_grid *g = text_grid_new(8, 2);
	assert_non_null(g);
	struct painter p = text_grid_painter(g);
	p.ops->begin(p.ctx, 8, 2);
	p.ops->put(p.ctx, 0, 1, "a\xE4\xB8\x96" "b", 5, 0);     /* a 世 b: 世 takes two cells */
	p.ops->put(p.ctx, 1, 6, "xyz", 3, 0);                  /* clipped at the edge */
	struct strbuf out = STRBUF_INIT;
	assert_true(text_grid_dump(g, &out));
	assert_string_equal(sb_str(&out), " a\xE4\xB8\x96" "b\n      xy\n");
	sb_fini(&out);
	text_grid_free(g);
}

static void run_screen(const char *keys, int w, int h, struct strbuf *out, int want_rc)
{
	struct app app;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(&app, support_load(FIXTURE, NULL), false, &err), CS_OK);
	assert_int_equal(screen_run(&app, w, h, keys, out, &err), want_rc);
	app_fini(&app);
}

static void test_screen_runner(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	run_screen("j Bogus", 80, 24, &out, CS_EUSAGE);
	sb_reset(&out);
	/* too small shows a notice; enlarging recovers */
	run_screen("@30x8", 80, 24, &out, CS_OK);
	assert_non_null(strstr(sb_str(&out), "terminal too small\n30x8, needs 40x10\n"));
	sb_reset(&out);
	run_screen("@30x8 j @80x24", 80, 24, &out, CS_OK);
	assert_null(strstr(sb_str(&out), "too small"));
	assert_non_null(strstr(sb_str(&out), "▶      258"));
	/* 24 lines of at most 80 columns */
	size_t lines = 0;
	for (const char *p = sb_str(&out); *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 24);
	sb_reset(&out);
	/* q stops the replay: the Space after it is not applied */
	run_screen("j j q Space", 80, 24, &out, CS_OK);
	assert_null(strstr(sb_str(&out), "excluded"));
	sb_reset(&out);
	/* Esc never quits: the keys after it still run */
	run_screen("Esc Esc j j Space", 80, 24, &out, CS_OK);
	assert_non_null(strstr(sb_str(&out), "excluded src/http_parser.c"));
	sb_fini(&out);
}

static int screen_with_failure_on(const char *path, const char *keys, long nth, long *allocs)
{
	struct app app;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(&app, support_load(path, NULL), false, &err), CS_OK);
	struct strbuf out = STRBUF_INIT;
	cs_alloc_fail_from(nth);
	int rc = screen_run(&app, 120, 40, keys, &out, &err);
	if (allocs)
		*allocs = cs_alloc_count();
	cs_alloc_fail_from(0);
	assert_true(rc == CS_OK || rc == CS_ENOMEM);
	/* an edit that ran out of memory is not applied and says so */
	bool clean = rc == CS_OK && !out.failed && !strstr(sb_str(&out), "out of memory");
	if (rc == CS_OK && !out.failed)
		assert_non_null(strstr(sb_str(&out), " ctxscope ")); /* a whole screen, whatever happened */
	sb_fini(&out);
	app_fini(&app);
	return clean;
}

static int screen_with_failure(long nth, long *allocs)
{
	return screen_with_failure_on(FIXTURE, "j j Space b 9 0 0 Enter Enter s B", nth, allocs);
}

/* The same sweep over the panel, the preset, the profile and a breakpoint
 * on a memory snapshot, and the loom-aware switch on a loom tree. */
static void test_screen_out_of_memory_sweep_settings(void **state)
{
	(void)state;
	static const struct {
		const char *path, *keys;
	} runs[] = {
		{ "samples/memory/coding-session.json", "s s s W + j j j + Esc A P j M B" },
		{ "samples/loom/parser-debug.json", "L P G M B L" },
	};
	for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
		long total = 0;
		assert_true(screen_with_failure_on(runs[r].path, runs[r].keys, 0, &total));
		int failed = 0;
		long step = total / 61 > 0 ? total / 61 : 1;
		for (long nth = 1; nth <= total + 1; nth += step)
			failed += !screen_with_failure_on(runs[r].path, runs[r].keys, nth, NULL);
		assert_true(failed > 0);
		assert_true(screen_with_failure_on(runs[r].path, runs[r].keys, total + 1, NULL));
	}
}

/* The user's cache file: a broken one leaves the built-ins and says why; an
 * added profile can be picked; an unknown profile name is refused. */
static void test_cache_setup_user_file(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "broken.yml", "profiles:\n  anthropic:\n    min_prefix: [1, 2\n");
	support_write(dir, "good.yml", "profile: small\nprofiles:\n  small:\n    based_on: anthropic\n"
				       "    min_prefix: 64\n");
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load("samples/loom/parser-debug.json", NULL), &err), CS_OK);
	assert_int_not_equal(vm_cache_setup(&vm, support_path(dir, "broken.yml"), NULL, &err), CS_OK);
	assert_string_equal(vm.cache.profile->name, "anthropic");
	assert_int_equal(vm.cache.cfg.profiles[0].min_prefix, 1024);
	assert_int_equal(vm_cache_setup(&vm, support_path(dir, "good.yml"), NULL, &err), CS_OK);
	assert_string_equal(vm.cache.profile->name, "small");
	/* the system breakpoint (71 tokens) caches now */
	assert_string_equal(vm_breakpoint_state(&vm, vm_breakpoint(&vm, 0)), "read");
	assert_int_equal(vm_cache_setup(&vm, NULL, "nonesuch", &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "nonesuch"));
	assert_string_equal(vm.cache.profile->name, "small"); /* the active one stays */
	assert_int_equal(vm_cache_setup(&vm, NULL, "gemini", &err), CS_OK);
	assert_string_equal(vm.cache.profile->name, "gemini");
	assert_int_equal(vm.cache.an.now.read, 0); /* 1,126 tokens, under gemini's 2,048 */
	vm_fini(&vm);
	support_rmtree(dir);
	free(dir);
}

static void test_screen_out_of_memory_sweep(void **state)
{
	(void)state;
	/* every allocation while replaying edits and drawing may fail: an
	 * error, or a screen whose status says "out of memory", never a crash
	 * or a leak (ASan) */
	long total = 0;
	assert_true(screen_with_failure(0, &total));
	assert_true(total > 10);
	int failed = 0, worked = 0;
	long step = total / 97 > 0 ? total / 97 : 1;
	for (long nth = 1; nth <= total + 1; nth += step) {
		if (screen_with_failure(nth, NULL))
			worked++;
		else
			failed++;
	}
	assert_true(failed > 0);
	assert_true(screen_with_failure(total + 1, NULL)); /* past the last one: all clean */
	(void)worked;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_in_order_with_markers),
		cmocka_unit_test(test_exclude_updates_assembly_cache_and_status),
		cmocka_unit_test(test_baseline_pin),
		cmocka_unit_test(test_cache_profiles_and_breakpoints),
		cmocka_unit_test(test_breakpoint_move_is_undone),
		cmocka_unit_test(test_memory_panel_and_cutoff_line),
		cmocka_unit_test(test_loom_aware_switch_and_no_panel),
		cmocka_unit_test(test_header_counts_have_separators),
		cmocka_unit_test(test_cache_setup_user_file),
		cmocka_unit_test(test_screen_out_of_memory_sweep_settings),
		cmocka_unit_test(test_priority_and_strategy_edits),
		cmocka_unit_test(test_budget_edit_and_detail),
		cmocka_unit_test(test_sort_by_tokens),
		cmocka_unit_test(test_vm_out_of_memory_is_an_error),
		cmocka_unit_test(test_unknown_kind_groupings_and_global_strategy),
		cmocka_unit_test(test_unknown_kind_on_screen),
		cmocka_unit_test(test_text_grid_wide_and_trim),
		cmocka_unit_test(test_screen_runner),
		cmocka_unit_test(test_screen_out_of_memory_sweep),
	};
	return cmocka_run_group_tests_name("ui", tests, NULL, NULL);
}

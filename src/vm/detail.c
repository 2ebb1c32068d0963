/* vm/detail.c: the detail pane's text for the selected row, hidden text revealed. */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "text/hidden.h"
#include "kind.h"
#include "base/strbuf.h"
#include "theme.h"
#include "tokens/tokenizer.h"
#include "tokens/estimate.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* ---- detail ----------------------------------------------------------------------- */

static bool detail_line(struct vm *vm, size_t off, int role)
{
	if (vm->detail.nlines == vm->detail.cap_lines) {
		size_t cap = vm->detail.cap_lines ? vm->detail.cap_lines * 2 : 64;
		struct vm_line *l = cs_reallocarray(vm->detail.lines, cap, sizeof *l);
		if (!l)
			return false;
		vm->detail.lines = l;
		vm->detail.cap_lines = cap;
	}
	vm->detail.lines[vm->detail.nlines++] = (struct vm_line){ .off = off, .len = vm->detail.text.len - off,
								   .role = role, .block = -1 };
	return true;
}

/* Appends text as lines of the given role; base1 is 1 + the byte of the
 * piece's text s starts at (for search highlights), 0 for other text. */
static bool detail_text_at(struct vm *vm, const char *s, size_t n, int role, size_t base1)
{
	size_t i = 0;
	bool ok = true;
	while (i < n && ok) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
		size_t off = vm->detail.text.len;
		sb_append(&vm->detail.text, s + i, len);
		ok = detail_line(vm, off, role);
		if (ok && base1)
			vm->detail.lines[vm->detail.nlines - 1].src_off1 = base1 + i;
		i += len + (nl ? 1 : 0);
	}
	return ok;
}

static bool detail_text(struct vm *vm, const char *s, size_t n, int role)
{
	return detail_text_at(vm, s, n, role, 0);
}

static bool detail_printf(struct vm *vm, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool detail_printf(struct vm *vm, int role, const char *fmt, ...)
{
	size_t off = vm->detail.text.len;
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&vm->detail.text, fmt, ap);
	va_end(ap);
	return detail_line(vm, off, role);
}

#define VM_HIDDEN_LINES 20 /* revealed lines listed in the detail; the report has the same cap */

/* What a person cannot see in the piece, revealed: counts by class, the
 * text tag characters spell, and each line that holds any with named
 * markers («RLO», «ZWSP», «TAG: ...»). The body below keeps ◊ stand-ins. */
static void detail_hidden(struct vm *vm, const struct piece *p)
{
	struct hidden_summary sum;
	hidden_scan(p->text, p->text_bytes, &sum);
	struct strbuf line = STRBUF_INIT;
	for (int c = 0; c < HIDDEN_COUNT; c++)
		if (sum.count[c])
			sb_printf(&line, "%s%s %zu", line.len ? ", " : "", hidden_class_name(c), sum.count[c]);
	detail_printf(vm, ROLE_ERROR, "hidden text: %zu character%s a person cannot see (%s) on %zu line%s, revealed:",
		      sum.total, sum.total == 1 ? "" : "s", sb_str(&line), sum.lines, sum.lines == 1 ? "" : "s");
	if (sum.count[HIDDEN_TAG]) {
		sb_reset(&line);
		hidden_decode_tags(&line, p->text, p->text_bytes);
		detail_printf(vm, ROLE_ERROR, "  tag characters spell: %s", sb_str(&line));
	}
	size_t shown = 0, number = 1;
	for (const char *at = p->text, *end = p->text + p->text_bytes; at < end && shown < VM_HIDDEN_LINES; number++) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		size_t len = nl ? (size_t)(nl - at) : (size_t)(end - at);
		if (hidden_scan(at, len, NULL)) {
			sb_reset(&line);
			hidden_reveal(&line, at, len, vm->ascii);
			detail_printf(vm, ROLE_ERROR, "  line %zu: %s", number, sb_str(&line));
			shown++;
		}
		at += len + (nl ? 1 : 0);
	}
	if (shown < sum.lines)
		detail_printf(vm, ROLE_ERROR, "  (%zu more lines: see the report's hidden_text section)", sum.lines - shown);
	if (line.failed)
		vm->detail.text.failed = true;
	sb_fini(&line);
}

static void piece_numbers(struct vm *vm, long piece)
{
	const struct piece *p = &vm->session.src->pieces[piece];
	const struct piece_result *r = &vm->session.cur.results[piece];
	char t1[32], t2[32], t3[32];
	detail_printf(vm, ROLE_HEADING, "%s", p->label ? p->label : p->id);
	detail_printf(vm, ROLE_DETAIL, "%s %s · role %s · %s lines", vm->session.src->kind->id_key, p->id,
		      p->role ? p->role : "-", fmt_thousands(t1, (long long)p->lines));
	if (r->outcome == OUTCOME_WHOLE)
		detail_printf(vm, ROLE_DETAIL, "in the prompt, whole: %s tokens (estimated)", fmt_thousands(t1, r->tokens));
	else if (r->outcome == OUTCOME_TRUNCATED)
		detail_printf(vm, ROLE_TRUNCATED, "in the prompt, truncated: %s -> %s tokens (estimated, before -> after)",
			      fmt_thousands(t1, r->original_tokens), fmt_thousands(t2, r->tokens));
	else
		detail_printf(vm, ROLE_DROPPED, "not in the prompt: %s tokens (estimated) left out",
			      fmt_thousands(t1, p->tokens));
	long exact = vm_piece_exact(vm, piece);
	if (exact >= 0)
		detail_printf(vm, ROLE_DETAIL, "%s (%s): %s%s tokens%s", tokenizer_kind(tokenizer_name(vm->exact.tok)),
			      tokenizer_name(vm->exact.tok), tokenizer_mark(tokenizer_name(vm->exact.tok), vm->ascii),
			      fmt_thousands(t2, exact), r->outcome == OUTCOME_DROPPED ? " left out" : r->outcome == OUTCOME_TRUNCATED ? " after the cut" : "");
	if (p->flags & PIECE_RECORDED)
		detail_printf(vm, ROLE_DETAIL, "recorded by the input: %s tokens; estimate %s",
			      fmt_thousands(t2, p->recorded_tokens), fmt_thousands(t3, p->tokens));
	if (vm->session.src->kind->piece_strategies) {
		detail_printf(vm, ROLE_DETAIL, "priority %.2f%s · strategy %s", p->priority,
			      p->priority != p->input_priority ? " (changed by you)" : "",
			      p->strategy == STRAT_NONE ? "(none)" : strategy_name(p->strategy));
	}
	if (!isnan(r->score))
		detail_printf(vm, ROLE_DETAIL, "score %.4f", r->score);
	if (r->outcome != OUTCOME_WHOLE) {
		struct strbuf said = STRBUF_INIT; /* a sentence the assembler deferred */
		const char *why = asm_sentence(&vm->session.cur, piece, &said);
		detail_printf(vm, r->outcome == OUTCOME_DROPPED ? ROLE_DROPPED : ROLE_TRUNCATED, "why: %s",
			      why ? why : reason_sentence(r->reason));
		sb_fini(&said);
	} else {
		detail_printf(vm, ROLE_DETAIL, "why: it fit the budget whole");
	}
	/* the kind's note on it, as the report prints it (a manifest's hot.yml or cold.yml hint) */
	const struct kind_ops *k = vm->session.src->kind;
	const char *note = k->piece_note ? k->piece_note(vm->session.src, piece) : NULL;
	if (note && note[0])
		detail_printf(vm, ROLE_DETAIL, "%s", note);
	if (p->flags & PIECE_HIDDEN)
		detail_hidden(vm, p);
	for (size_t w = 0; w < vm->session.cur.nwarnings; w++)
		if (vm->session.cur.warnings[w].piece == piece)
			detail_printf(vm, ROLE_ERROR, "warning: %s", vm->session.cur.warnings[w].text);
}

static void cut_marker(struct vm *vm, size_t bytes, const char *text)
{
	char t[32];
	long toks = tokens_of_text(text, bytes, vm->session.src->settings.chars_per_token);
	char t2[32];
	detail_printf(vm, ROLE_CUT, "[... cut here: %s bytes, ~%s tokens not in the prompt ...]",
		      fmt_thousands(t, (long long)bytes), fmt_thousands(t2, toks));
}

/* The header's detail: every item of its rows, then every fact, whole. */
static void header_detail(struct vm *vm)
{
	static const char *const rows[] = { "who", "totals", "cache" };
	const struct assembly *a = &vm->session.cur;
	vm_header(vm);
	detail_printf(vm, ROLE_HEADING, "the header, whole");
	for (int r = 0; r < VM_HEAD_ROWS; r++) {
		detail_printf(vm, ROLE_DETAIL, "%s", "");
		detail_printf(vm, ROLE_HEADING, "%s", rows[r]);
		for (size_t i = 0; i < vm->head.nitems; i++)
			if (vm->head.items[i].row == r)
				detail_printf(vm, vm->head.items[i].alert ? ROLE_ERROR : ROLE_DETAIL, "  %s", vm_head_text(vm, i));
	}
	detail_printf(vm, ROLE_DETAIL, "%s", "");
	detail_printf(vm, ROLE_HEADING, "what the %s says", vm->session.src->kind->title);
	for (size_t i = 0; i < a->nfacts; i++)
		detail_printf(vm, ROLE_DETAIL, "  %s: %s", a->facts[i].key, a->facts[i].value);
	detail_printf(vm, ROLE_DETAIL, "%s", "");
	detail_printf(vm, ROLE_DETAIL, "est.: estimated as the system counts; exact: a public tokenizer's count;");
	detail_printf(vm, ROLE_DETAIL, "approximate (%sclaude): ai-tokenizer's near count of Claude's tokens;",
		      vm->ascii ? "~" : "\u2248");
	detail_printf(vm, ROLE_DETAIL, "recorded: what the system logged it sent. j goes back to the list.");
}

bool vm_detail(struct vm *vm)
{
	const struct vm_row *row = vm_selected(vm);
	long piece = row ? row->piece : -1, block = row ? row->block : -1;
	if (vm->on_header)
		piece = block = -3; /* the header */
	if (vm->detail.piece == piece && vm->detail.block == block && vm->detail.piece != -2 && !vm->on_header)
		return !vm->detail.text.failed;
	sb_reset(&vm->detail.text);
	vm->detail.nlines = 0;
	vm->detail.piece = piece;
	vm->detail.block = block;
	if (vm->on_header) {
		header_detail(vm);
	} else if (!row) {
		detail_printf(vm, ROLE_DETAIL, "nothing selected");
	} else if (piece < 0) {
		const struct block *b = &vm->session.cur.blocks[block];
		char t[32], t2[32];
		detail_printf(vm, ROLE_HEADING, "%s", b->label ? b->label : "text the assembler made");
		detail_printf(vm, ROLE_DETAIL, "made by the %s assembler: %s tokens sent est., %s charged (the list's figure)",
			      vm->session.src->kind->name, fmt_thousands(t, b->tokens), fmt_thousands(t2, b->budget_tokens));
		long exact = vm_row_exact(vm, row);
		if (exact >= 0)
			detail_printf(vm, ROLE_DETAIL, "%s (%s): %s%s tokens", tokenizer_kind(tokenizer_name(vm->exact.tok)),
				      tokenizer_name(vm->exact.tok), tokenizer_mark(tokenizer_name(vm->exact.tok), vm->ascii),
				      fmt_thousands(t, exact));
		detail_printf(vm, ROLE_DETAIL, "%s", "");
		struct strbuf body = STRBUF_INIT;
		asm_block_text(&vm->session.cur, (size_t)block, &body);
		detail_text(vm, sb_str(&body), body.len, ROLE_DETAIL);
		sb_fini(&body);
	} else {
		piece_numbers(vm, piece);
		detail_printf(vm, ROLE_DETAIL, "%s", "");
		const struct piece *p = &vm->session.src->pieces[piece];
		const struct piece_result *r = &vm->session.cur.results[piece];
		const struct block *b = r->block >= 0 ? &vm->session.cur.blocks[r->block] : NULL;
		if (b && (b->flags & BLOCK_TRUNCATED) && b->keep_head + b->keep_tail < p->text_bytes) {
			size_t head = b->keep_head, tail = b->keep_tail;
			size_t cut = p->text_bytes - head - tail;
			detail_text_at(vm, p->text, head, ROLE_DETAIL, 1);
			cut_marker(vm, cut, p->text + head);
			detail_text_at(vm, p->text + p->text_bytes - tail, tail, ROLE_DETAIL, 1 + p->text_bytes - tail);
		} else {
			detail_text_at(vm, p->text, p->text_bytes, r->outcome == OUTCOME_DROPPED ? ROLE_DROPPED : ROLE_DETAIL,
				       1);
		}
	}
	return !vm->detail.text.failed;
}

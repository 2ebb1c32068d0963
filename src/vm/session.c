/* vm/session.c: the one way to change the session (viewmodel.h): an edit,
 * an undo or a redo is recorded through the history (which applies it to
 * the source), the source is assembled, and when that fails the step is
 * rolled back, so the source, the history and the assembly always agree.
 * On success the new assembly is adopted and the summary of what moved
 * (tokens, the budget used, the cache against the baseline) is returned
 * and said on the status line, the same way for all three. */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "base/utf8.h"
#include "kind.h"

#include <limits.h>
#include <string.h>

static void signed_thousands(struct strbuf *sb, long v)
{
	if (v > 0)
		sb_putc(sb, '+');
	sb_thousands(sb, v);
}

#define VM_MOVED_NAMED 3 /* pieces named in a change's sentence; the rest are counted */

/* One piece's move, by the name the list shows (whole up to 90 columns):
 * "current_task.md out (-187)", "pytest-latest.log +187 (cut less)". */
static void say_move(struct strbuf *s, const char *id, const struct piece_result *was, const struct piece_result *now)
{
	long d = now->tokens - was->tokens;
	bool in_was = was->outcome != OUTCOME_DROPPED, in_now = now->outcome != OUTCOME_DROPPED;
	size_t cols, n = utf8_prefix_for_columns(id, strlen(id), 90, &cols);
	if (id[n]) /* a long label, cut between characters, as the kinds cut theirs */
		n = utf8_prefix_for_columns(id, strlen(id), 87, &cols);
	sb_append(s, id, n);
	sb_puts(s, id[n] ? "... " : " ");
	if (in_was != in_now)
		sb_puts(s, in_now ? "in (" : "out (");
	signed_thousands(s, d);
	if (in_was != in_now)
		sb_putc(s, ')');
	else if (was->outcome == OUTCOME_TRUNCATED || now->outcome == OUTCOME_TRUNCATED)
		sb_puts(s, d > 0 ? " (cut less)" : " (cut more)");
}

/* The VM_MOVED_NAMED largest moves (by size, then by order; a piece that
 * crossed in or out without a size change counts as one), and how many
 * moved in all: fed one piece at a time, in input order. */
struct moves {
	size_t top[VM_MOVED_NAMED], ntop, moved;
	long top_abs[VM_MOVED_NAMED];
};

static void weigh_move(struct moves *m, size_t i, const struct piece_result *was, const struct piece_result *now)
{
	long d = now->tokens - was->tokens, ad = d < 0 ? -d : d;
	bool crossed = (was->outcome == OUTCOME_DROPPED) != (now->outcome == OUTCOME_DROPPED);
	if (!ad && !crossed)
		return;
	m->moved++;
	size_t at = m->ntop;
	while (at > 0 && ad > m->top_abs[at - 1])
		at--;
	if (at == VM_MOVED_NAMED)
		return;
	size_t keep = m->ntop < VM_MOVED_NAMED ? m->ntop : VM_MOVED_NAMED - 1;
	memmove(m->top + at + 1, m->top + at, (keep - at) * sizeof *m->top);
	memmove(m->top_abs + at + 1, m->top_abs + at, (keep - at) * sizeof *m->top_abs);
	m->top[at] = i;
	m->top_abs[at] = ad;
	m->ntop = keep + 1;
}

/* The sentence from the moves weighed; was_of: each named piece's result
 * before (by its place in top). */
static void say_moves(const struct source *src, const struct moves *m, const struct piece_result *const *was_of,
		      const struct piece_result *now, struct strbuf *s)
{
	for (size_t k = 0; k < m->ntop; k++) {
		sb_puts(s, k ? ", " : "");
		say_move(s, piece_name(&src->pieces[m->top[k]]), was_of[k], &now[m->top[k]]);
	}
	if (m->moved > m->ntop)
		sb_printf(s, " and %zu more", m->moved - m->ntop);
}

/* What moved between two assemblies of the same source, the largest moves
 * first: "current_task.md out (-187), pytest-latest.log +187 (cut less)". */
void vm_say_moved(const struct source *src, const struct piece_result *was, const struct piece_result *now,
		  struct strbuf *s)
{
	struct moves m = { .ntop = 0 };
	for (size_t i = 0; i < src->npieces; i++)
		if (was[i].tokens != now[i].tokens || (was[i].outcome == OUTCOME_DROPPED) != (now[i].outcome == OUTCOME_DROPPED))
			weigh_move(&m, i, &was[i], &now[i]); /* the test first, inline: most pieces stay as they were */
	const struct piece_result *was_of[VM_MOVED_NAMED];
	for (size_t k = 0; k < m.ntop; k++)
		was_of[k] = &was[m.top[k]];
	say_moves(src, &m, was_of, now, s);
}

void vm_say_changes(const struct source *src, const struct asm_change *changes, size_t n,
		    const struct piece_result *now, struct strbuf *s)
{
	struct moves m = { .ntop = 0 };
	for (size_t k = 0; k < n; k++) /* by piece: the order vm_say_moved weighs them in */
		weigh_move(&m, (size_t)changes[k].piece, &changes[k].was, &now[changes[k].piece]);
	const struct piece_result *was_of[VM_MOVED_NAMED];
	for (size_t k = 0; k < m.ntop; k++) /* the few named: their old results found in the list */
		for (size_t j = 0; j < n; j++)
			if ((size_t)changes[j].piece == m.top[k]) {
				was_of[k] = &changes[j].was;
				break;
			}
	say_moves(src, &m, was_of, now, s);
}

/* The edited piece's own move out of what moved, when said names it (said
 * ends with " NAME" and a move of the list reads "NAME ..."): its text
 * after the name in *own, the list without it in rest. False when said
 * names no mover. */
static bool own_move(const char *said, const char *moved, struct span *own, struct strbuf *rest)
{
	size_t len = strlen(moved);
	for (const char *at = strchr(said, ' '); at; at = strchr(at + 1, ' ')) {
		size_t n = strlen(at + 1);
		const char *item = moved;
		while (n && item && (strncmp(item, at + 1, n) != 0 || item[n] != ' '))
			item = (item = strstr(item, ", ")) ? item + 2 : NULL;
		if (!n || !item)
			continue;
		const char *from = item + n + 1, *sep = strstr(from, ", "), *more = strstr(from, " and ");
		const char *stop = sep && (!more || sep < more) ? sep : more ? more : moved + len;
		*own = (struct span){ from, (size_t)(stop - from) };
		/* the rest: the moves before it, then after it (", " joins them) */
		size_t before = item > moved ? (size_t)(item - moved) - 2 : 0;
		sb_append(rest, moved, before);
		if (*stop == ',')
			sb_printf(rest, "%s%s", before ? ", " : "", stop + 2);
		else
			sb_puts(rest, stop); /* " and 3 more", or nothing */
		return true;
	}
	return false;
}

/* The status after an edit, what matters first so that it fits: the edit
 * and its own effect, the budget used, the cache, the kind's effect, then
 * the other pieces it moved: "excluded 01HQA3: out (-1,204); used 98,412 ->
 * 97,208; cache 4,210 read (was 94,312), ...; also n7 +300 (cut less)"
 * (undo and redo lead with "undone: ", "redone: "). */
static void describe(struct vm *vm, const char *said, const struct vm_change *c, const struct piece_result *was)
{
	struct strbuf *s = &vm->status;
	struct strbuf moved = STRBUF_INIT;
	const struct assembly *cur = &vm->session.cur;
	if (was)
		vm_say_moved(vm->session.src, was, cur->results, &moved);
	else if (cur->changes_valid) /* it patched the results it took over: the pieces that changed are listed */
		vm_say_changes(vm->session.src, cur->changes, cur->nchanges, cur->results, &moved);
	struct span own = { NULL, 0 };
	struct strbuf others = STRBUF_INIT;
	bool named = moved.len && own_move(said, sb_str(&moved), &own, &others);
	struct span rest = named ? (struct span){ sb_str(&others), others.len } : (struct span){ sb_str(&moved), moved.len };
	sb_reset(s);
	vm->status_error = false;
	sb_puts(s, said);
	sb_puts(s, ": ");
	if (named)
		sb_append(s, own.ptr, own.len);
	else if (!moved.len)
		sb_puts(s, "no piece moved");
	if (c->over_limit)
		sb_puts(s, named || !moved.len ? "; OVER the limit" : "OVER the limit");
	long delta = c->used_after - c->used_before;
	sb_puts(s, named || !moved.len || c->over_limit ? "; used " : "used ");
	sb_thousands(s, c->used_before);
	if (delta != 0) {
		sb_puts(s, " -> ");
		sb_thousands(s, c->used_after);
	} else {
		sb_puts(s, " (net 0)");
	}
	vm_say_cache(vm, c);
	const struct kind_ops *k = vm->session.src->kind;
	if (k->edit_effect) { /* "; log: read 4,200 (was 0), ..." */
		struct strbuf more = STRBUF_INIT;
		k->edit_effect(vm->session.src, &more);
		if (more.len && !more.failed)
			sb_printf(s, "; %s", sb_str(&more));
		sb_fini(&more);
	}
	if (rest.len) {
		sb_puts(s, named ? "; also " : "; moved: ");
		sb_append(s, rest.ptr, rest.len);
	}
	vm_say_cache_split(vm, c);
	if (moved.failed || others.failed)
		s->failed = true;
	sb_fini(&others);
	sb_fini(&moved);
}

static int step_percent(long part, long whole)
{
	return whole > 0 ? (int)(part * 100 / whole) : 0;
}

/* A sequence's step: the cache as the header tells it, the record first,
 * then what the request shown could read from the one it is compared
 * with ("recorded 99% read, predicted 99% read from request 6"), never a
 * comparison with the step shown before, which is another request. */
static void say_step_cache(struct strbuf *s, const struct step_cache *st)
{
	sb_puts(s, "; cache ");
	if (st->rec_total >= 0)
		sb_printf(s, "recorded %d%% read, ", step_percent(st->rec_read, st->rec_total));
	sb_printf(s, "predicted %d%% read", step_percent(st->read, st->total));
	if (st->compared)
		sb_printf(s, " %s request %ld", st->read > 0 ? "from" : "compared with", st->compared);
	else
		sb_puts(s, " (the first of its model)");
}

void vm_say_cache(struct vm *vm, const struct vm_change *c)
{
	struct strbuf *s = &vm->status;
	const struct cache_cost *now = &vm->cache.an.now;
	if (vm->session.cur.step.steps > 0) {
		say_step_cache(s, &vm->session.cur.step);
		return;
	}
	struct strbuf why = STRBUF_INIT;
	vm_cache_why(vm, &why);
	if (c->identical_after) {
		sb_puts(s, "; prompt same as the baseline");
		if (why.len)
			sb_printf(s, " (%s)", sb_str(&why));
	} else { /* "cache 0 read (was 3,061; under the 1,024-token minimum)" */
		bool was = c->cached_before != c->cached_after;
		sb_puts(s, "; cache ");
		sb_thousands(s, now->read);
		sb_puts(s, " read");
		if (was) {
			sb_puts(s, " (was ");
			sb_thousands(s, c->cached_before);
		}
		if (why.len)
			sb_printf(s, "%s%s", was ? "; " : " (", sb_str(&why));
		if (was || why.len)
			sb_putc(s, ')');
	}
	sb_fini(&why);
}

void vm_say_cache_split(struct vm *vm, const struct vm_change *c)
{
	const struct cache_cost *now = &vm->cache.an.now;
	const struct step_cache *st = &vm->session.cur.step;
	if (c->identical_after && st->steps <= 0)
		return;
	long written = st->steps > 0 ? st->written : now->written;
	long uncached = st->steps > 0 ? st->total - st->read - st->written : now->uncached;
	struct strbuf *s = &vm->status;
	sb_puts(s, "; ");
	sb_thousands(s, written);
	sb_puts(s, " written, ");
	sb_thousands(s, uncached < 0 ? 0 : uncached);
	sb_puts(s, " uncached");
}

/* The edits' depth in the history (undo takes one off), against the depth
 * that was saved: undoing back to it is saved again; a new edit made below
 * it leaves that state for good (nothing saved is reachable by redo). */
static void count_edit(struct vm *vm, enum vm_step step)
{
	struct vm_session *s = &vm->session;
	if (step == VM_STEP_UNDO) {
		s->edits--;
		return;
	}
	if (step == VM_STEP_EDIT && s->edits < s->saved_edits)
		s->saved_edits = UINT_MAX;
	s->edits++;
}

/* Records the step through the history (applying it to the source). */
static int record(struct vm *vm, enum vm_step step, const struct edit *e, struct strbuf *said,
		  struct cs_error *err)
{
	switch (step) {
	case VM_STEP_EDIT: return history_apply(&vm->session.hist, vm->session.src, e, said, err);
	case VM_STEP_UNDO: return history_undo(&vm->session.hist, vm->session.src, said, err);
	case VM_STEP_REDO: return history_redo(&vm->session.hist, vm->session.src, said, err);
	}
	return cs_error_set(err, CS_EUSAGE, "no such step");
}

/* Takes a recorded step back (the source would not assemble with it). */
static void roll_back(struct vm *vm, enum vm_step step)
{
	struct cs_error ignored;
	cs_error_clear(&ignored);
	if (step == VM_STEP_EDIT)
		history_retract(&vm->session.hist, vm->session.src, &ignored);
	else if (step == VM_STEP_UNDO)
		history_redo(&vm->session.hist, vm->session.src, NULL, &ignored);
	else
		history_undo(&vm->session.hist, vm->session.src, NULL, &ignored);
}

int vm_change(struct vm *vm, enum vm_step step, const struct edit *e, struct vm_change *out, struct cs_error *err)
{
	struct vm_change c = { .used_before = vm->session.cur.budget.used,
			       .cached_before = vm->cache.cached_tokens,
			       .identical_before = vm->cache.identical };
	struct strbuf said = STRBUF_INIT;
	int rc = record(vm, step, e, &said, err);
	if (rc != CS_OK) {
		/* "nothing to undo" is an answer, not an error */
		vm_status(vm, rc != CS_EUSAGE || step == VM_STEP_EDIT, "%s", err->message);
		sb_fini(&said);
		return rc;
	}
	struct assembly next;
	memset(&next, 0, sizeof next); /* safe to fini whatever the assembler did */
	rc = assemble_lazy_from(vm->session.src, &next, &vm->session.cur, err); /* may take its results over */
	if (rc != CS_OK) {
		asm_fini(&next);
		roll_back(vm, step);
		vm_status(vm, true, "%s (not applied)", err->message);
		sb_fini(&said);
		return rc;
	}
	/* each piece's outcome and tokens before, for the sentence on what
	 * moved: the results the assembly going out leaves (taken, not copied:
	 * a million of them; their sentences go with its arena, unread), or
	 * none when the new assembly took them over and patched them (it lists
	 * the pieces that changed, with their results before) */
	struct piece_result *was = vm->session.cur.results;
	vm->session.cur.results = NULL;
	rc = vm_adopt(vm, &next, err);
	if (rc == CS_OK) {
		c.used_after = vm->session.cur.budget.used;
		c.cached_after = vm->cache.cached_tokens;
		c.rewrite_after = vm->cache.rewrite_tokens;
		c.identical_after = vm->cache.identical;
		c.over_limit = (vm->session.cur.flags & ASM_OVER_LIMIT) != 0;
		count_edit(vm, step);
		if (step == VM_STEP_EDIT) /* a new edit: no breakpoint move undone before it comes back */
			bp_steps_clear(&vm->cache.bp_undone);
		describe(vm, said.failed ? "changed" : sb_str(&said), &c, was);
		if (out)
			*out = c;
	}
	cs_free(was);
	sb_fini(&said);
	return rc;
}

bool vm_unsaved(const struct vm *vm)
{
	return vm->session.edits != vm->session.saved_edits;
}

bool vm_unsaved_edits(const struct vm *vm)
{
	if (!vm_unsaved(vm))
		return false;
	const struct kind_ops *k = vm->session.src->kind;
	if (k->save)
		return true;
	size_t n;
	const struct edit *e = history_edits(&vm->session.hist, &n);
	for (size_t i = 0; i < n; i++)
		if (!(e[i].type == EDIT_OPTION && k->sequence && !strcmp(e[i].option, k->sequence->setting)))
			return true;
	return false;
}

void vm_mark_saved(struct vm *vm)
{
	vm->session.saved_edits = vm->session.edits;
}

int vm_apply(struct vm *vm, struct edit *e, struct cs_error *err)
{
	int rc = vm_change(vm, VM_STEP_EDIT, e, NULL, err);
	if (rc == CS_OK && e->type == EDIT_PRIORITY && (e->value < 0 || e->value > 1))
		vm->status_error = true; /* the sentence warns: outside 0..1 */
	return rc;
}

int vm_undo(struct vm *vm, struct cs_error *err)
{
	if (vm_bp_step_next(vm, true)) /* the newest step was a breakpoint move (M) */
		return vm_bp_step(vm, true, err);
	return vm_change(vm, VM_STEP_UNDO, NULL, NULL, err);
}

int vm_redo(struct vm *vm, struct cs_error *err)
{
	if (vm_bp_step_next(vm, false))
		return vm_bp_step(vm, false, err);
	return vm_change(vm, VM_STEP_REDO, NULL, NULL, err);
}

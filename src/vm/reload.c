/* vm/reload.c: the inspector's file loaded again (R, --follow). The fresh
 * source takes the old one's place; the edits made so far are made again on
 * it, matched by piece id; the selection stays on its piece; the baseline
 * stays the one pinned, so the status can say what the new turns did to the
 * cache. The old source lives on as long as the baseline needs it. */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "edit.h"
#include "history.h"
#include "kind.h"
#include "source.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

void vm_forget_old_base(struct vm *vm)
{
	source_free(vm->session.base_src);
	vm->session.base_src = NULL;
	cs_free(vm->session.base_piece);
	vm->session.base_piece = NULL;
}

/* The edits of vm's history made again on fresh, into h; *lost counts the
 * ones whose piece fresh does not have. */
static int replay_edits(const struct vm *vm, struct source *fresh, struct history *h, size_t *lost,
			struct cs_error *err)
{
	size_t n;
	const struct edit *done = history_edits(&vm->session.hist, &n);
	*lost = 0;
	for (size_t i = 0; i < n; i++) {
		struct edit e = done[i];
		if (e.piece >= 0) {
			e.piece = source_find_piece(fresh, vm->session.src->pieces[e.piece].id);
			if (e.piece < 0) {
				(*lost)++;
				continue;
			}
		}
		int rc = history_apply(h, fresh, &e, NULL, err);
		if (rc == CS_ENOMEM)
			return rc;
		if (rc != CS_OK) /* a value the fresh file no longer accepts */
			(*lost)++;
	}
	return CS_OK;
}

/* The baseline's pieces by id, for a baseline of another source than src. */
static int map_base(struct vm *vm, struct cs_error *err)
{
	cs_free(vm->session.base_piece);
	vm->session.base_piece = NULL;
	if (vm->session.base.src == vm->session.src)
		return CS_OK;
	vm->session.base_piece = cs_calloc(vm->session.src->npieces ? vm->session.src->npieces : 1, sizeof *vm->session.base_piece);
	if (!vm->session.base_piece || !source_match_ids(vm->session.base.src, vm->session.src, vm->session.base_piece, NULL))
		return cs_error_nomem(err);
	return CS_OK;
}

static void say_reload(struct vm *vm, size_t npieces_before, size_t lost, size_t nedits, struct vm_change *c)
{
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	sb_puts(s, "reloaded: ");
	size_t now = vm->session.src->npieces;
	if (now != npieces_before) {
		sb_thousands(s, (long long)npieces_before);
		sb_puts(s, " -> ");
	}
	sb_thousands(s, (long long)now);
	sb_puts(s, " pieces");
	sb_puts(s, "; used ");
	sb_thousands(s, c->used_before);
	sb_puts(s, " -> ");
	sb_thousands(s, vm->session.cur.budget.used);
	if (nedits)
		sb_printf(s, "; %zu edit%s made again", nedits - lost, nedits - lost == 1 ? "" : "s");
	if (lost)
		sb_printf(s, ", %zu dropped (their pieces are gone)", lost);
	c->used_after = vm->session.cur.budget.used;
	c->cached_after = vm->cache.cached_tokens;
	c->rewrite_after = vm->cache.rewrite_tokens;
	c->identical_after = vm->cache.identical;
	c->over_limit = (vm->session.cur.flags & ASM_OVER_LIMIT) != 0;
	vm_say_cache(vm, c);
	vm_say_cache_split(vm, c);
	if (c->over_limit)
		sb_puts(s, "; OVER the limit");
}

int vm_reload(struct vm *vm, struct source *fresh, struct cs_error *err)
{
	struct history h;
	history_init(&h);
	size_t lost = 0, nedits;
	history_edits(&vm->session.hist, &nedits);
	struct assembly next;
	memset(&next, 0, sizeof next);
	/* --tokenizer is no edit: the fresh source starts with it, then the edits */
	snprintf(fresh->settings.tokenizer, sizeof fresh->settings.tokenizer, "%s", vm->exact.initial);
	int rc = replay_edits(vm, fresh, &h, &lost, err);
	if (rc == CS_OK && fresh->kind->breakpoints_edited && vm->cache.bp_now.n) /* the user's M, kept */
		rc = fresh->kind->breakpoints_edited(fresh, &vm->cache.bp_now, err);
	if (rc == CS_OK)
		rc = assemble_lazy(fresh, &next, err);
	if (rc != CS_OK) {
		asm_fini(&next);
		history_fini(&h);
		source_free(fresh);
		vm_status(vm, true, "reload failed, the view is as it was: %s", err->message);
		return rc;
	}
	/* The selection, by its piece's id in the fresh source. */
	const struct vm_row *sel = vm_selected(vm);
	long keep = sel && sel->piece >= 0 ? source_find_piece(fresh, vm->session.src->pieces[sel->piece].id) : -1;
	size_t npieces_before = vm->session.src->npieces;
	struct vm_change c = { .used_before = vm->session.cur.budget.used,
			       .cached_before = vm->cache.cached_tokens,
			       .identical_before = vm->cache.identical };

	asm_fini(&vm->session.cur);
	vm->session.cur = next;
	history_fini(&vm->session.hist);
	vm->session.hist = h;
	struct source *old = vm->session.src;
	vm->session.src = fresh;
	vm->session.ids_unique = 0;
	if (vm->session.base.src == old) { /* the baseline keeps its source */
		source_free(vm->session.base_src);
		vm->session.base_src = old;
		vm->session.base_from = VM_BASE_RELOADED;
	} else {
		source_free(old);
	}
	vm->session.generation++;
	vm->detail.piece = -2;
	bool ok = map_base(vm, err) == CS_OK;
	ok = vm_refilter(vm, err) == CS_OK && ok;
	vm_research(vm);
	ok = vm_refresh_all(vm, keep, -1) && ok;
	if (!ok) {
		vm_status(vm, true, "out of memory");
		return cs_error_nomem(err);
	}
	say_reload(vm, npieces_before, lost, nedits, &c);
	return CS_OK;
}

/* vm/cache.c: the view-model's prompt-cache figures, cache profile and breakpoints. */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "kind.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

/* ---- the cache, as cache.h sees it ----------------------------------------- */

/* A deep copy of the user's breakpoints (the baseline keeps the ones it was
 * pinned with). false on out of memory (dst is then empty). */
bool vm_copy_overrides(struct cache_overrides *dst, const struct cache_overrides *src)
{
	cache_overrides_fini(dst);
	cache_overrides_init(dst);
	if (src->n == 0)
		return true;
	dst->items = cs_calloc(src->n, sizeof *dst->items);
	if (!dst->items)
		return false;
	dst->cap = src->n;
	for (size_t i = 0; i < src->n; i++) {
		dst->items[i] = src->items[i];
		dst->items[i].piece_id = NULL;
		if (src->items[i].piece_id) {
			size_t n = strlen(src->items[i].piece_id) + 1;
			dst->items[i].piece_id = cs_malloc(n);
			if (!dst->items[i].piece_id) {
				dst->n = i;
				cache_overrides_fini(dst);
				cache_overrides_init(dst);
				return false;
			}
			memcpy(dst->items[i].piece_id, src->items[i].piece_id, n);
		}
		dst->n = i + 1;
	}
	return true;
}

/* Where block b starts and how long it is in the tokens of the cache
 * analysis: exact counts when the profile prices in them, else the estimate. */
static long vm_block_offset(const struct vm *vm, size_t b)
{
	return vm->cache.exact_off ? vm->cache.exact_off[b] : vm->session.cur.blocks[b].offset_tokens;
}

static long vm_block_count(const struct vm *vm, size_t b)
{
	return vm->cache.exact_off ? vm->exact.live.block_tokens[b] : vm->session.cur.blocks[b].tokens;
}

/* Runs cache_analyze on the current assembly against the baseline under the
 * active profile and derives what the screen shows. false on out of memory. */
bool vm_compute_cache(struct vm *vm)
{
	const struct assembly *a = &vm->session.cur;
	struct cs_error err;
	struct vm_cache *c = &vm->cache;
	c->active = cache_tuned_profile(vm->session.src, c->profile, &c->tuned, NULL);
	cs_free(c->exact_off);
	c->exact_off = NULL;
	struct cache_measure m;
	bool exact = c->active && c->active->exact && vm_exact_measure(vm, &m);
	if (exact && (c->exact_off = cs_malloc((a->nblocks ? a->nblocks : 1) * sizeof *c->exact_off)) != NULL) {
		long at = 0;
		for (size_t b = 0; b < a->nblocks; b++) {
			c->exact_off[b] = at;
			at += m.now_blocks[b];
		}
	}
	exact = exact && c->exact_off;
	/* over the analysis before: the baseline's breakpoints kept while it is the same */
	if (cache_analyze_again(&vm->session.base, &c->bp_base, a, &c->bp_now, c->active, exact ? &m : NULL, &c->an,
				&err) != CS_OK) {
		c->same_blocks = 0;
		c->cached_block = -1;
		c->cached_tokens = c->rewrite_tokens = 0;
		c->identical = false;
		return false;
	}
	const struct cache_analysis *an = &c->an;
	c->identical = an->div.identical;
	c->same_blocks = an->div.identical || an->div.block < 0 ? a->nblocks : (size_t)an->div.block;
	c->cached_tokens = an->now.read;
	c->rewrite_tokens = an->now.total - an->now.read;
	c->cached_block = -1;
	/* blocks end in prompt order: the read prefix holds a leading run of them */
	for (size_t i = 0; an->now.read > 0 && i < a->nblocks; i++) {
		if (vm_block_offset(vm, i) + vm_block_count(vm, i) > an->now.read)
			break;
		c->cached_block = (long)i;
	}
	return true;
}

/* Block b's share of the prefix read from the cache, in the budgeted tokens
 * the bars show (the cache counts rendered tokens: a partly read block
 * counts in proportion). */
static long block_cached_tokens(const struct vm *vm, size_t b)
{
	const struct block *bl = &vm->session.cur.blocks[b];
	long in = vm->cache.an.now.read - vm_block_offset(vm, b), tokens = vm_block_count(vm, b);
	if (in <= 0 || tokens <= 0)
		return 0;
	if (in >= tokens)
		return bl->budget_tokens;
	return (long)((double)bl->budget_tokens * (double)in / (double)tokens);
}

/* Per-frame figures, worked out once per re-assembly or baseline so that a
 * redraw costs O(visible rows): the largest block and each layer's cache
 * state. One pass over the blocks for the largest and each layer's count;
 * the cache's shares then from the blocks it reads, which come first (in
 * estimated tokens offsets only grow; exact counts are walked whole).
 * false on out of memory. */
bool vm_summarize(struct vm *vm)
{
	const struct assembly *a = &vm->session.cur;
	vm->max_block_tokens = 0; /* the dropped and truncated are counted with the rows (vm_rebuild_rows) */
	size_t ng = a->ngroupings < ASM_MAX_GROUPINGS ? a->ngroupings : ASM_MAX_GROUPINGS;
	for (size_t g = 0; g < ASM_MAX_GROUPINGS; g++) {
		cs_free(vm->cache.layers[g]);
		vm->cache.layers[g] = NULL;
	}
	for (size_t g = 0; g < ng; g++) {
		size_t nl = a->groupings[g].nlayers;
		vm->cache.layers[g] = cs_calloc(nl ? nl : 1, sizeof *vm->cache.layers[g]);
		if (!vm->cache.layers[g])
			return false;
	}
	for (size_t b = 0; b < a->nblocks; b++) {
		const struct block *bl = &a->blocks[b];
		if (bl->budget_tokens > vm->max_block_tokens)
			vm->max_block_tokens = bl->budget_tokens;
		for (size_t g = 0; g < ng; g++)
			if (bl->layer[g] >= 0 && (size_t)bl->layer[g] < a->groupings[g].nlayers)
				vm->cache.layers[g][bl->layer[g]].blocks++;
	}
	long read = vm->cache.an.now.read;
	for (size_t b = 0; b < a->nblocks; b++) {
		bool cached = vm_block_cached(vm, (long)b);
		if (!cached && !vm->cache.exact_off && vm_block_offset(vm, b) >= read)
			break; /* neither read nor cached, nor any block after it */
		for (size_t g = 0; g < ng; g++) {
			int l = a->blocks[b].layer[g];
			if (l < 0 || (size_t)l >= a->groupings[g].nlayers)
				continue;
			struct vm_layer_info *li = &vm->cache.layers[g][l];
			li->cached_tokens += block_cached_tokens(vm, b);
			li->cached_blocks += cached;
		}
	}
	return true;
}

bool vm_block_cached(const struct vm *vm, long block)
{
	return block >= 0 && block <= vm->cache.cached_block;
}

const char *vm_cutoff(const struct vm *vm)
{
	return vm->session.cur.cutoff_text;
}

const struct cache_breakpoint *vm_breakpoint(const struct vm *vm, long block)
{
	size_t lo = 0, hi = vm->cache.an.nbps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((long)vm->cache.an.bps[mid].block < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < vm->cache.an.nbps && (long)vm->cache.an.bps[lo].block == block ? &vm->cache.an.bps[lo] : NULL;
}

const char *vm_breakpoint_state(const struct vm *vm, const struct cache_breakpoint *bp)
{
	if (!bp->in_limit)
		return "uncached: past the breakpoint limit";
	if (!bp->over_min)
		return "uncached: under the minimum";
	if (bp->end_tokens <= vm->cache.an.now.read)
		return "read";
	/* a prefix cache stores whole units: the tail of the last one is not kept */
	return bp->end_tokens <= vm->cache.an.now.read + vm->cache.an.now.written ? "written" : "uncached";
}

void vm_cache_split(const struct vm *vm, const char *sep, struct strbuf *out)
{
	const struct cache_cost *c = &vm->cache.an.now;
	sb_thousands(out, c->read);
	sb_printf(out, " read%s", sep);
	sb_thousands(out, c->written);
	sb_printf(out, " written%s", sep);
	sb_thousands(out, c->uncached);
	sb_puts(out, " uncached");
}

void vm_break_words(const struct vm *vm, const char *sep, struct strbuf *out)
{
	sb_printf(out, "cache breaks here%s", sep);
	vm_cache_split(vm, sep, out);
}

/* ---- cache profile and breakpoints ------------------------------------------- */

/* Redoes the analysis after a cache-only change (profile, breakpoints). */
static int cache_refresh(struct vm *vm, struct cs_error *err)
{
	const struct vm_row *sel = vm_selected(vm);
	long keep_piece = sel ? sel->piece : -1, keep_block = sel ? sel->block : -1;
	if (!vm_refresh_all(vm, keep_piece, keep_block)) {
		vm_status(vm, true, "out of memory");
		return cs_error_nomem(err);
	}
	return CS_OK;
}

/* "1,077 of 1,126 tokens read from the cache, 0 written, 49 uncached" */
static void cache_clause(struct vm *vm, struct strbuf *s)
{
	const struct cache_cost *c = &vm->cache.an.now;
	sb_thousands(s, c->read);
	sb_puts(s, " of ");
	sb_thousands(s, c->total);
	sb_puts(s, " tokens read from the cache, ");
	sb_thousands(s, c->written);
	sb_puts(s, " written, ");
	sb_thousands(s, c->uncached);
	sb_puts(s, " uncached");
}

int vm_cache_setup(struct vm *vm, const char *path, const char *profile, struct cs_error *err)
{
	int rc = CS_OK;
	struct cs_error file_err;
	cs_error_clear(&file_err);
	if (path && cache_config_load(&vm->cache.cfg, path, &file_err) != CS_OK)
		rc = file_err.code; /* the built-ins stay */
	const char *want = source_cache_profile(vm->session.src, profile, vm->cache.cfg.default_profile);
	const struct cache_profile *p = cache_config_profile(&vm->cache.cfg, want);
	if (!p) {
		p = vm->cache.profile; /* the active one stays */
		if (rc == CS_OK)
			rc = cs_error_set(&file_err, CS_EUSAGE, "no cache profile \"%.40s\"", want);
	}
	vm->cache.profile = p;
	int rc2 = cache_refresh(vm, err);
	if (rc2 != CS_OK)
		return rc2;
	if (rc != CS_OK)
		*err = file_err;
	return rc;
}

/* Makes p (in cache_cfg) the active profile; the status says what it reads. */
static int use_profile(struct vm *vm, const struct cache_profile *p, struct cs_error *err)
{
	vm->cache.profile = p;
	int rc = cache_refresh(vm, err);
	if (rc != CS_OK)
		return rc;
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	sb_printf(s, "cache profile %s (%s, min ", p->name, cache_mode_name(p->mode));
	sb_thousands(s, p->min_prefix);
	if (p->unit > 1)
		sb_printf(s, ", %ld-token units", p->unit);
	sb_puts(s, "): ");
	cache_clause(vm, s);
	return CS_OK;
}

int vm_cycle_profile(struct vm *vm, struct cs_error *err)
{
	const struct cache_config *cfg = &vm->cache.cfg;
	size_t at = 0;
	for (size_t i = 0; i < cfg->nprofiles; i++)
		if (&cfg->profiles[i] == vm->cache.profile)
			at = i;
	return use_profile(vm, &cfg->profiles[cfg->nprofiles ? (at + 1) % cfg->nprofiles : 0], err);
}

int vm_set_profile(struct vm *vm, const char *name, struct cs_error *err)
{
	const struct cache_profile *p = cache_config_profile(&vm->cache.cfg, name);
	if (!p) {
		vm_status(vm, true, "no cache profile \"%.40s\" (Tab lists them)", name);
		return cs_error_set(err, CS_EUSAGE, "no such profile");
	}
	return use_profile(vm, p, err);
}

int vm_breakpoints_to_kind(struct vm *vm, struct cs_error *err)
{
	struct source *src = vm->session.src;
	if (!src->kind->breakpoints_edited)
		return cache_refresh(vm, err);
	struct assembly next;
	memset(&next, 0, sizeof next);
	int rc = src->kind->breakpoints_edited(src, &vm->cache.bp_now, err);
	if (rc == CS_OK)
		rc = assemble(src, &next, err);
	if (rc != CS_OK) {
		asm_fini(&next);
		vm_status(vm, true, "%s", err->message);
		return rc;
	}
	return vm_adopt(vm, &next, err);
}

/* ---- breakpoint moves in the undo history --------------------------------- */

static void bp_step_fini(struct vm_bp_step *s)
{
	cache_overrides_fini(&s->before);
	cache_overrides_fini(&s->after);
}

void bp_steps_clear(struct vm_bp_steps *s)
{
	for (size_t i = 0; i < s->n; i++)
		bp_step_fini(&s->items[i]);
	s->n = 0;
}

void vm_bp_steps_fini(struct vm_bp_steps *s)
{
	bp_steps_clear(s);
	cs_free(s->items);
	memset(s, 0, sizeof *s);
}

bool vm_bp_step_next(const struct vm *vm, bool undo)
{
	const struct vm_bp_steps *s = undo ? &vm->cache.bp_done : &vm->cache.bp_undone;
	return s->n > 0 && s->items[s->n - 1].depth == history_depth(&vm->session.hist);
}

int vm_bp_step(struct vm *vm, bool undo, struct cs_error *err)
{
	struct vm_bp_steps *from = undo ? &vm->cache.bp_done : &vm->cache.bp_undone;
	struct vm_bp_steps *to = undo ? &vm->cache.bp_undone : &vm->cache.bp_done;
	if (CS_GROW(to->items, to->cap, to->n + 1) != 0) {
		vm_status(vm, true, "out of memory");
		return cs_error_nomem(err);
	}
	struct vm_bp_step *s = &from->items[from->n - 1];
	struct cache_overrides keep;
	cache_overrides_init(&keep);
	int rc = vm_copy_overrides(&keep, &vm->cache.bp_now) &&
				 vm_copy_overrides(&vm->cache.bp_now, undo ? &s->before : &s->after)
			 ? vm_breakpoints_to_kind(vm, err)
			 : cs_error_nomem(err);
	if (rc != CS_OK) {
		vm_copy_overrides(&vm->cache.bp_now, &keep);
		cache_overrides_fini(&keep);
		vm_status(vm, true, "%s (not %s)", err->message, undo ? "undone" : "redone");
		return rc;
	}
	cache_overrides_fini(&keep);
	to->items[to->n++] = *s;
	from->n--;
	struct strbuf *st = &vm->status;
	sb_reset(st);
	vm->status_error = false;
	sb_printf(st, "%s: a breakpoint moved with M: ", undo ? "undone" : "redone");
	cache_clause(vm, st);
	return CS_OK;
}

int vm_toggle_breakpoint(struct vm *vm, struct cs_error *err)
{
	const struct vm_row *r = vm_selected(vm);
	if (!r || r->type != VM_ROW_BLOCK) {
		vm_status(vm, true, "a breakpoint goes after a block of the prompt; this row is not in it");
		return cs_error_set(err, CS_EUSAGE, "not a block");
	}
	long block = r->block;
	struct vm_bp_step step = { .depth = history_depth(&vm->session.hist) };
	if (!vm_copy_overrides(&step.before, &vm->cache.bp_now) ||
	    CS_GROW(vm->cache.bp_done.items, vm->cache.bp_done.cap, vm->cache.bp_done.n + 1) != 0) {
		cache_overrides_fini(&step.before);
		vm_status(vm, true, "out of memory");
		return cs_error_nomem(err);
	}
	int rc = cache_overrides_toggle(&vm->cache.bp_now, &vm->session.cur, (size_t)block, err);
	const struct block *b = &vm->session.cur.blocks[block];
	long piece = b->piece;
	char label[64];
	snprintf(label, sizeof label, "%s", b->label ? b->label : "made text");
	if (rc == CS_OK)
		rc = vm_copy_overrides(&step.after, &vm->cache.bp_now) ? vm_breakpoints_to_kind(vm, err) : cs_error_nomem(err);
	if (rc != CS_OK) { /* as it was: the breakpoints, and no step */
		vm_copy_overrides(&vm->cache.bp_now, &step.before);
		bp_step_fini(&step);
		vm_status(vm, true, "%s", err->message);
		return rc;
	}
	/* a new step: it goes on the undo history, and nothing undone before it can be redone */
	vm->cache.bp_done.items[vm->cache.bp_done.n++] = step;
	bp_steps_clear(&vm->cache.bp_undone);
	history_drop_redo(&vm->session.hist);
	const char *what = piece >= 0 ? piece_name(&vm->session.src->pieces[piece]) : label;
	const struct cache_breakpoint *bp = vm_breakpoint(vm, block);
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	sb_printf(s, "breakpoint %s after %.60s", bp ? "set" : "removed", what);
	if (bp) {
		sb_puts(s, " (");
		sb_thousands(s, bp->end_tokens);
		sb_printf(s, " tokens, %s)", vm_breakpoint_state(vm, bp));
	}
	sb_puts(s, ": ");
	cache_clause(vm, s);
	const struct kind_ops *k = vm->session.src->kind;
	if (k->breakpoints_edited && k->edit_effect) { /* "; log: read 4,200 (was 0), ..." */
		struct strbuf more = STRBUF_INIT;
		k->edit_effect(vm->session.src, &more);
		if (more.len && !more.failed)
			sb_printf(s, "; %s", sb_str(&more));
		sb_fini(&more);
	}
	return CS_OK;
}

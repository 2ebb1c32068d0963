/* vm/rows.c: the list's rows (see viewmodel.h). In assembly order with no
 * filter (the default view) the rows are not one struct each: what any row
 * is gets worked out from the blocks, the dropped pieces bucketed by the
 * block they follow, and the blocks with a marker after them (vm_row_at),
 * so an edit on a million pieces writes a few bytes per dropped piece, not
 * a row for every piece. Sorted or filtered lists are materialized. */
#include "vm/viewmodel_priv.h"
#include "base/tune.h"

#include "base/alloc.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- rows ------------------------------------------------------------------ */

/* Whether the filters (`\`, `!`, a clicked layer) hide a row. */
static bool row_hidden(const struct vm *vm, enum vm_row_type type, long block, long piece)
{
	if (type == VM_ROW_MARKER)
		return vm->search.keep != NULL || vm->layer_filter >= 0;
	if (vm->search.keep && (piece < 0 || !vm->search.keep[piece]))
		return true;
	if (vm->layer_filter >= 0) {
		size_t g = vm->grouping < vm->session.cur.ngroupings ? vm->grouping : 0;
		if (block < 0 || g >= vm->session.cur.ngroupings || vm->session.cur.blocks[block].layer[g] != vm->layer_filter)
			return true;
	}
	return false;
}

static bool push_row(struct vm *vm, enum vm_row_type type, long block, long piece)
{
	if (row_hidden(vm, type, block, piece))
		return true;
	if (vm->nrows == vm->cap_rows) {
		size_t cap = vm->cap_rows ? vm->cap_rows * 2 : 64;
		struct vm_row *r = cs_reallocarray(vm->rows, cap, sizeof *r);
		if (!r)
			return false;
		vm->rows = r;
		vm->cap_rows = cap;
	}
	size_t item = type == VM_ROW_MARKER ? 0 : ++vm->nitems;
	vm->rows[vm->nrows++] = (struct vm_row){ .type = type, .block = block, .piece = piece, .item = item };
	return true;
}

bool vm_marker_after(const struct vm *vm, size_t b)
{
	if (vm->cache.bp_now.n ? cache_is_breakpoint(&vm->cache.bp_now, &vm->session.cur, b)
			       : (vm->session.cur.blocks[b].flags & BLOCK_BREAKPOINT) != 0) /* no override: the flag */
		return true;
	return !vm->cache.identical && b + 1 == vm->cache.same_blocks;
}

/* The block a dropped piece is listed after: the block of the piece before
 * it that went in (`last`), and past the headings the assembler made for
 * the piece's own layer (a memory section's title), so that a dropped piece
 * stays under the heading of its section; -1: before every block. */
static long dropped_after(const struct vm *vm, long piece, long last)
{
	const struct assembly *a = &vm->session.cur;
	int layer = -1; /* the piece's, read only when a heading follows */
	while ((size_t)(last + 1) < a->nblocks) {
		const struct block *b = &a->blocks[last + 1];
		if (b->piece >= 0 || (b->flags & (BLOCK_MADE | BLOCK_MARKER)) != BLOCK_MADE)
			break;
		if (layer < 0)
			layer = vm->session.src->pieces[piece].layer;
		if (b->layer[0] != layer)
			break;
		last++;
	}
	return last;
}

/* One piece's outcome counted into vm's totals (the rows' pass over the
 * results does it, so that a re-assembly reads them once). */
static void count_outcome(struct vm *vm, const struct piece_result *r)
{
	vm->ndropped += r->outcome == OUTCOME_DROPPED;
	vm->ntruncated += r->outcome == OUTCOME_TRUNCATED;
}

/* The pieces dropped and truncated, counted on their own (when the rows
 * could not be built). */
static void count_outcomes(struct vm *vm)
{
	vm->ndropped = vm->ntruncated = 0;
	for (size_t i = 0; i < vm->session.src->npieces; i++)
		count_outcome(vm, &vm->session.cur.results[i]);
}

/* *counted: the builders set it once they counted every piece's outcome. */
static bool build_order_rows(struct vm *vm, bool *counted)
{
	const struct assembly *a = &vm->session.cur;
	size_t np = vm->session.src->npieces, nb = a->nblocks;
	/* Bucket the dropped pieces by the block they follow (counting sort). */
	size_t *start = cs_calloc(nb + 2, sizeof *start);
	long *order = cs_malloc((np ? np : 1) * sizeof *order);
	long *bucket = cs_malloc((np ? np : 1) * sizeof *bucket); /* each piece's, -1 when it went in */
	if (!start || !order || !bucket) {
		cs_free(start);
		cs_free(order);
		cs_free(bucket);
		return false;
	}
	long last = -1;
	for (size_t i = 0; i < np; i++) {
		bucket[i] = -1;
		count_outcome(vm, &a->results[i]);
		if (a->results[i].block >= 0) {
			last = a->results[i].block;
			continue;
		}
		bucket[i] = dropped_after(vm, (long)i, last) + 1;
		start[bucket[i] + 1]++;
	}
	*counted = true;
	for (size_t k = 1; k < nb + 2; k++)
		start[k] += start[k - 1];
	for (size_t i = 0; i < np; i++)
		if (bucket[i] >= 0)
			order[start[bucket[i]]++] = (long)i;
	cs_free(bucket);
	/* start[k] is now the end of bucket k; bucket k begins at the end of k-1. */
	bool ok = true;
	size_t from = 0;
	if (nb > 0 && !vm->cache.identical && vm->cache.same_blocks == 0)
		ok &= push_row(vm, VM_ROW_MARKER, -1, -1);
	for (size_t k = 0; k < nb + 1 && ok; k++) {
		if (k > 0) {
			size_t b = k - 1;
			ok &= push_row(vm, VM_ROW_BLOCK, (long)b, a->blocks[b].piece);
		}
		if (k > 0 && ok && vm_marker_after(vm, k - 1))
			ok &= push_row(vm, VM_ROW_MARKER, (long)(k - 1), -1);
		for (; from < start[k] && ok; from++)
			if (!vm->hide_dropped)
				ok &= push_row(vm, VM_ROW_DROPPED, -1, order[from]);
	}
	cs_free(start);
	cs_free(order);
	return ok;
}

struct sort_item {
	double key;
	size_t order;
	struct vm_row row;
};

static int sort_cmp(const void *pa, const void *pb)
{
	const struct sort_item *x = pa, *y = pb;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static double sort_key(const struct vm *vm, const struct vm_row *r)
{
	const struct piece *p = r->piece >= 0 ? &vm->session.src->pieces[r->piece] : NULL;
	switch (vm->sort) {
	case VM_SORT_TOKENS:
		return (double)vm_row_tokens(vm, r);
	case VM_SORT_PRIORITY:
		return p ? p->priority : -HUGE_VAL;
	case VM_SORT_SCORE: {
		double s = p ? vm->session.cur.results[r->piece].score : (double)NAN;
		return isnan(s) ? -HUGE_VAL : s;
	}
	case VM_SORT_ORDER:
	case VM_SORT_COUNT:
		break;
	}
	return 0;
}

static bool build_sorted_rows(struct vm *vm, bool *counted)
{
	const struct assembly *a = &vm->session.cur;
	size_t n = a->nblocks + vm->session.src->npieces;
	struct sort_item *items = cs_calloc(n ? n : 1, sizeof *items);
	if (!items)
		return false;
	size_t k = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		if (a->blocks[b].flags & BLOCK_MARKER)
			continue; /* a truncation marker belongs to its piece's cut, not a row of its own */
		items[k].row = (struct vm_row){ .type = VM_ROW_BLOCK, .block = (long)b, .piece = a->blocks[b].piece };
		items[k].order = k;
		k++;
	}
	for (size_t i = 0; i < vm->session.src->npieces; i++) {
		count_outcome(vm, &a->results[i]);
		if (a->results[i].block < 0 && !vm->hide_dropped) {
			items[k].row = (struct vm_row){ .type = VM_ROW_DROPPED, .block = -1, .piece = (long)i };
			items[k].order = k;
			k++;
		}
	}
	*counted = true;
	for (size_t i = 0; i < k; i++)
		items[i].key = sort_key(vm, &items[i].row);
	qsort(items, k, sizeof *items, sort_cmp);
	/* By score, with a cutoff fact: the line sits above the first piece the
	 * algorithm left out (every piece scoring higher went in). */
	bool cutoff = vm->sort == VM_SORT_SCORE && vm_cutoff(vm) != NULL;
	bool ok = true;
	for (size_t i = 0; i < k && ok; i++) {
		const struct vm_row *r = &items[i].row;
		if (cutoff && r->type == VM_ROW_DROPPED && !isnan(a->results[r->piece].score) &&
		    a->results[r->piece].reason != REASON_EXCLUDED_BY_USER && a->results[r->piece].reason != REASON_EXCLUDED) {
			ok = push_row(vm, VM_ROW_MARKER, VM_MARKER_CUTOFF, -1);
			cutoff = false;
		}
		if (ok)
			ok = push_row(vm, r->type, r->block, r->piece);
	}
	cs_free(items);
	return ok;
}


/* ---- the rows in assembly order, worked out on demand ------------------------ */


/* The marks before block b (how many marker rows follow blocks 0..b-1). */
static size_t marks_before(const struct vm_vrows *v, size_t b)
{
	size_t lo = 0, hi = v->nmarks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->marks[mid] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t block_row(const struct vm_vrows *v, size_t b)
{
	return (size_t)v->lead + v->start[b + 1] + b + marks_before(v, b);
}

static bool is_placed(const struct vm_vrows *v, size_t p)
{
	return (v->placed[p >> 6] >> (p & 63)) & 1;
}

/* One pass over the blocks: those with a marker after them, the leading
 * marker, and the first block of piece keep (*keep_block; -1: none). */
static bool scan_blocks(struct vm *vm, long keep, long *keep_block)
{
	struct vm_vrows *v = vm->vr;
	const struct assembly *a = &vm->session.cur;
	v->nmarks = 0;
	*keep_block = -1;
	for (size_t b = 0; b < a->nblocks; b++) {
		if (keep >= 0 && a->blocks[b].piece == keep && *keep_block < 0)
			*keep_block = (long)b;
		if (!vm_marker_after(vm, b))
			continue;
		if (CS_GROW(v->marks, v->cap_marks, v->nmarks + 1) != 0)
			return false;
		v->marks[v->nmarks++] = (uint32_t)b;
	}
	v->lead = a->nblocks > 0 && !vm->cache.identical && vm->cache.same_blocks == 0;
	return true;
}

static bool add_seg(struct vm_vrows *v, size_t bucket, size_t n, size_t lo, size_t list)
{
	if (n == 0)
		return true;
	if (CS_GROW(v->segs, v->cap_segs, v->nsegs + 1) != 0)
		return false;
	v->segs[v->nsegs++] = (struct vm_seg){ .bucket = (uint32_t)bucket, .n = (uint32_t)n, .lo = (uint32_t)lo,
					       .list = (uint32_t)list };
	return true;
}

/* Whether block h is text the assembler made other than a truncation
 * marker (a section's heading): dropped_after looks past those. */
static bool is_heading(const struct assembly *a, size_t h)
{
	const struct block *b = &a->blocks[h];
	return b->piece < 0 && (b->flags & (BLOCK_MADE | BLOCK_MARKER)) == BLOCK_MADE;
}

/* The pieces' layers in an array of their own, read from the pieces again
 * unless only exclusions were made since they were (an exclusion relabels
 * no piece; a step through a sequence may); NULL on out of memory. */
static const int *piece_layers(struct vm *vm)
{
	struct vm_vrows *v = vm->vr;
	const struct source *src = vm->session.src;
	size_t np = src->npieces;
	bool kept = v->layers_of == src && v->nlayers == np && src->edits - v->layers_edits <= SOURCE_EDIT_LOG;
	for (unsigned long k = v->layers_edits; kept && k != src->edits; k++)
		kept = src->edit_log[k % SOURCE_EDIT_LOG] >= 0;
	if (!kept) {
		v->layers_of = NULL;
		if (CS_GROW(v->layers, v->cap_layers, np ? np : 1) != 0)
			return NULL;
		for (size_t i = 0; i < np; i++)
			v->layers[i] = src->pieces[i].layer;
		v->layers_of = src;
		v->nlayers = np;
		v->layers_read++;
	}
	v->layers_edits = src->edits;
	return v->layers;
}

/* The dropped pieces lo..hi-1 (hi > lo), the nearest piece before them
 * that went in shown by block last (-1: none), put where dropped_after
 * puts each: after block last, or those of the layer of the headings that
 * follow it past them. */
static bool add_run(struct vm *vm, size_t lo, size_t hi, long last)
{
	struct vm_vrows *v = vm->vr;
	const struct assembly *a = &vm->session.cur;
	size_t h = (size_t)(last + 1), n = hi - lo;
	if (h >= a->nblocks || !is_heading(a, h))
		return add_seg(v, h, n, lo, VM_SEG_RUN);
	int layer = a->blocks[h].layer[0];
	size_t c = 0;
	while (h + c < a->nblocks && is_heading(a, h + c) && a->blocks[h + c].layer[0] == layer)
		c++;
	if (CS_GROW(v->ids, v->cap_ids, v->nids + n) != 0)
		return false;
	/* the heading's layer from the front, the others from the back; both
	 * slots written (the one not taken is free or the same), so no branch
	 * guesses at layers that come in no order */
	const int *layers = piece_layers(vm);
	if (!layers)
		return false;
	uint32_t *ids = v->ids + v->nids;
	size_t under = 0, rest = 0;
	for (size_t i = lo; i < hi; i++) {
		size_t in = layers[i] == layer;
		ids[under] = (uint32_t)i;
		ids[n - 1 - rest] = (uint32_t)i;
		under += in;
		rest += 1 - in;
	}
	for (size_t x = under, y = n - 1; x < y; x++, y--) {
		uint32_t t = ids[x];
		ids[x] = ids[y];
		ids[y] = t;
	}
	size_t at = v->nids;
	v->nids += n;
	return add_seg(v, h + c, under, 0, at) && add_seg(v, h, rest, 0, at + under);
}

/* The one pass over the pieces' results: their outcomes counted, a bit
 * for each that went in (a piece may share a block: the loom's
 * instructions), and, when dropped pieces are listed, every run of them
 * between two that went in. */
static bool read_results(struct vm *vm)
{
	struct vm_vrows *v = vm->vr;
	const struct piece_result *res = vm->session.cur.results;
	size_t np = vm->session.src->npieces, words = np / 64 + 1, nd = 0, nt = 0, lo = 0;
	bool listed = !vm->hide_dropped;
	if (CS_GROW(v->placed, v->cap_placed, words) != 0)
		return false;
	long last = -1;
	for (size_t w = 0; w < words; w++) {
		uint64_t bits = 0;
		for (size_t i = w * 64, end = i + 64 < np ? i + 64 : np; i < end; i++) {
			nd += res[i].outcome == OUTCOME_DROPPED;
			nt += res[i].outcome == OUTCOME_TRUNCATED;
			if (res[i].block < 0)
				continue;
			bits |= 1ull << (i & 63);
			if (listed && i > lo && !add_run(vm, lo, i, last))
				return false;
			last = res[i].block;
			lo = i + 1;
		}
		v->placed[w] = bits;
	}
	v->ndropped = nd;
	v->ntruncated = nt;
	return !listed || lo >= np || add_run(vm, lo, np, last);
}

/* The runs of dropped pieces between two that went in, from the bits. */
static bool runs_from_bits(struct vm *vm)
{
	struct vm_vrows *v = vm->vr;
	const struct piece_result *res = vm->session.cur.results;
	size_t np = vm->session.src->npieces, lo = 0;
	long last = -1;
	for (size_t w = 0; w * 64 < np; w++)
		for (uint64_t bits = v->placed[w]; bits; bits &= bits - 1) {
			size_t p = w * 64 + (size_t)__builtin_ctzll(bits);
			if (p > lo && !add_run(vm, lo, p, last))
				return false;
			last = res[p].block;
			lo = p + 1;
		}
	return lo >= np || add_run(vm, lo, np, last);
}

/* The bits and counts of the last pass patched from the pieces the
 * assembly lists as changed (it took over the results that pass read). */
static void patch_bits(struct vm *vm)
{
	struct vm_vrows *v = vm->vr;
	const struct assembly *a = &vm->session.cur;
	for (size_t k = 0; k < a->nchanges; k++) {
		const struct asm_change *c = &a->changes[k];
		if (c->piece < 0 || (size_t)c->piece >= v->np)
			continue;
		size_t p = (size_t)c->piece;
		const struct piece_result *now = &a->results[p];
		v->ndropped = v->ndropped - (c->was.outcome == OUTCOME_DROPPED) + (now->outcome == OUTCOME_DROPPED);
		v->ntruncated = v->ntruncated - (c->was.outcome == OUTCOME_TRUNCATED) + (now->outcome == OUTCOME_TRUNCATED);
		if (now->block >= 0)
			v->placed[p >> 6] |= 1ull << (p & 63);
		else
			v->placed[p >> 6] &= ~(1ull << (p & 63));
	}
	v->patched++;
}

/* The outcomes counted, what went in, and the runs of dropped pieces:
 * kept when the assembly is the one the last pass read, patched from its
 * changes when it took that one's results over, else read again. */
static bool scan_pieces(struct vm *vm)
{
	struct vm_vrows *v = vm->vr;
	const struct assembly *a = &vm->session.cur;
	size_t np = vm->session.src->npieces;
	unsigned long from = v->serial;
	bool known = from != 0 && v->np == np, same = known && a->serial == from;
	bool ok = true;
	v->serial = 0; /* until the bits are whole again */
	if (same && v->hidden == vm->hide_dropped) {
		/* the results the last pass read: its runs stand */
	} else if (same || (known && a->reused && a->changes_valid && a->reused_from == from)) {
		if (!same)
			patch_bits(vm);
		v->nsegs = v->nids = 0;
		ok = vm->hide_dropped || runs_from_bits(vm);
	} else {
		v->nsegs = v->nids = 0;
		ok = read_results(vm);
	}
	if (!ok)
		return false;
	v->serial = a->serial;
	v->np = np;
	v->hidden = vm->hide_dropped;
	vm->ndropped = v->ndropped;
	vm->ntruncated = v->ntruncated;
	return true;
}

/* By bucket, then as made (input order); `first` holds the order made. */
static int seg_cmp(const void *x, const void *y)
{
	const struct vm_seg *s = x, *t = y;
	if (s->bucket != t->bucket)
		return s->bucket < t->bucket ? -1 : 1;
	return s->first < t->first ? -1 : s->first > t->first;
}

/* The segments by bucket, each one's first listed place, and the buckets'
 * starts. */
static bool order_segs(struct vm *vm)
{
	struct vm_vrows *v = vm->vr;
	size_t nb = vm->session.cur.nblocks;
	bool sorted = true;
	for (size_t s = 0; s < v->nsegs; s++) {
		v->segs[s].first = (uint32_t)s;
		sorted &= s == 0 || v->segs[s].bucket >= v->segs[s - 1].bucket;
	}
	if (!sorted)
		qsort(v->segs, v->nsegs, sizeof *v->segs, seg_cmp);
	if (CS_GROW(v->start, v->cap_start, nb + 2) != 0)
		return false;
	memset(v->start, 0, (nb + 2) * sizeof *v->start);
	uint32_t before = 0;
	for (size_t s = 0; s < v->nsegs; s++) {
		v->segs[s].first = before;
		before += v->segs[s].n;
		v->start[v->segs[s].bucket + 1] += v->segs[s].n;
	}
	for (size_t k = 1; k < nb + 2; k++)
		v->start[k] += v->start[k - 1];
	return true;
}

/* false on out of memory (no rows then). *keep_block: the first block of
 * piece keep, -1 when none. */
static bool build_virtual_rows(struct vm *vm, long keep, long *keep_block)
{
	struct vm_vrows *v = vm->vr;
	v->on = false;
	if (!scan_blocks(vm, keep, keep_block) || !scan_pieces(vm) || !order_segs(vm))
		return false;
	size_t nb = vm->session.cur.nblocks;
	v->nblocks = nb;
	v->on = true;
	vm->nitems = nb + v->start[nb + 1];
	vm->nrows = (size_t)v->lead + vm->nitems + v->nmarks;
	return true;
}

/* The d-th dropped piece listed. */
static long dropped_at(const struct vm_vrows *v, size_t d)
{
	size_t lo = 0, hi = v->nsegs - 1;
	while (lo < hi) {
		size_t mid = hi - (hi - lo) / 2;
		if (v->segs[mid].first <= d)
			lo = mid;
		else
			hi = mid - 1;
	}
	const struct vm_seg *s = &v->segs[lo];
	size_t off = d - s->first;
	return s->list == VM_SEG_RUN ? (long)(s->lo + off) : (long)v->ids[s->list + off];
}

static struct vm_row virtual_row(const struct vm *vm, size_t i)
{
	const struct vm_vrows *v = vm->vr;
	if (i < (size_t)v->lead)
		return (struct vm_row){ .type = VM_ROW_MARKER, .block = -1, .piece = -1 };
	size_t j = i - (size_t)v->lead;
	if (v->nblocks == 0 || j < v->start[1])
		return (struct vm_row){ .type = VM_ROW_DROPPED, .block = -1, .piece = dropped_at(v, j), .item = j + 1 };
	size_t lo = 0, hi = v->nblocks - 1; /* the last block whose row is at or before i */
	while (lo < hi) {
		size_t mid = hi - (hi - lo) / 2;
		if (block_row(v, mid) <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	size_t b = lo, off = i - block_row(v, b), before = v->start[b + 1];
	if (off == 0)
		return (struct vm_row){ .type = VM_ROW_BLOCK, .block = (long)b, .piece = vm->session.cur.blocks[b].piece,
					.item = before + b + 1 };
	size_t m = marks_before(v, b);
	size_t mark = m < v->nmarks && v->marks[m] == b;
	if (mark && off == 1)
		return (struct vm_row){ .type = VM_ROW_MARKER, .block = (long)b, .piece = -1 };
	size_t d = off - 1 - mark;
	return (struct vm_row){ .type = VM_ROW_DROPPED, .block = -1, .piece = dropped_at(v, before + d),
				.item = before + d + b + 2 };
}

struct vm_row vm_row_at(const struct vm *vm, size_t i)
{
	if (vm->vr && vm->vr->on)
		return virtual_row(vm, i);
	return vm->rows[i];
}

/* The listed place of dropped piece p, in bucket k; -1 when not listed. */
static long dropped_place(const struct vm_vrows *v, size_t k, uint32_t p)
{
	size_t lo = 0, hi = v->nsegs; /* the bucket's first segment */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->segs[mid].bucket < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t s = lo; s < v->nsegs && v->segs[s].bucket == k; s++) {
		const struct vm_seg *g = &v->segs[s];
		if (g->list == VM_SEG_RUN) {
			if (p >= g->lo && p - g->lo < g->n)
				return (long)(g->first + (p - g->lo));
			continue;
		}
		const uint32_t *ids = v->ids + g->list;
		size_t a = 0, b = g->n;
		while (a < b) {
			size_t mid = a + (b - a) / 2;
			if (ids[mid] < p)
				a = mid + 1;
			else
				b = mid;
		}
		if (a < g->n && ids[a] == p)
			return (long)(g->first + a);
	}
	return -1;
}

/* The row of dropped piece p, -1 when it is not listed. */
static long dropped_row(const struct vm *vm, long p)
{
	const struct vm_vrows *v = vm->vr;
	if (vm->hide_dropped || is_placed(v, (size_t)p))
		return -1;
	long last = -1; /* the block of the nearest piece before it that went in */
	size_t w = (size_t)p >> 6;
	for (uint64_t bits = v->placed[w] & ((1ull << (p & 63)) - 1);; bits = v->placed[--w]) {
		if (bits) {
			last = vm->session.cur.results[w * 64 + 63 - (size_t)__builtin_clzll(bits)].block;
			break;
		}
		if (w == 0)
			break;
	}
	size_t k = (size_t)(dropped_after(vm, p, last) + 1);
	long d = dropped_place(v, k, (uint32_t)p);
	if (d < 0)
		return -1;
	size_t in = (size_t)d - v->start[k];
	if (k == 0)
		return (long)((size_t)v->lead + in);
	size_t b = k - 1, m = marks_before(v, b);
	return (long)(block_row(v, b) + 1 + (m < v->nmarks && v->marks[m] == b) + in);
}

/* The first row of piece p, whose first block is `first` (-1: none). */
static long piece_row(const struct vm *vm, long p, long first)
{
	if (p < 0 || (size_t)p >= vm->session.src->npieces)
		return -1;
	long at = dropped_row(vm, p);
	long r = first >= 0 ? (long)block_row(vm->vr, (size_t)first) : -1;
	return at < 0 || (r >= 0 && r < at) ? r : at;
}

long vm_row_find(const struct vm *vm, long piece, long block)
{
	if (!vm->vr || !vm->vr->on) {
		for (size_t i = 0; i < vm->nrows; i++) {
			const struct vm_row *r = &vm->rows[i];
			if (r->type != VM_ROW_MARKER &&
			    ((piece >= 0 && r->piece == piece) || (piece < 0 && block >= 0 && r->block == block)))
				return (long)i;
		}
		return -1;
	}
	if (piece < 0)
		return block >= 0 && (size_t)block < vm->vr->nblocks ? (long)block_row(vm->vr, (size_t)block) : -1;
	long first = -1;
	for (size_t b = 0; b < vm->vr->nblocks && first < 0; b++)
		if (vm->session.cur.blocks[b].piece == piece)
			first = (long)b;
	return piece_row(vm, piece, first);
}

void vm_rows_fini(struct vm *vm)
{
	struct vm_vrows *v = vm->vr;
	if (!v)
		return;
	cs_free(v->placed);
	cs_free(v->segs);
	cs_free(v->ids);
	cs_free(v->start);
	cs_free(v->marks);
	cs_free(v->layers);
	cs_free(v);
	vm->vr = NULL;
}

/* ---- rebuilding --------------------------------------------------------------- */

/* Whether the list is in assembly order with nothing filtering it (rows
 * worked out on demand). */
static bool can_be_virtual(const struct vm *vm)
{
	return cs_tuned->vm_virtual_rows && vm->vr && vm->sort == VM_SORT_ORDER && !vm->search.keep && vm->layer_filter < 0 &&
	       vm->session.src->npieces < UINT32_MAX && vm->session.cur.nblocks < UINT32_MAX / 2;
}

bool vm_rebuild_rows(struct vm *vm, long keep_piece, long keep_block)
{
	if (vm->vr && vm->vr->layers_of != vm->session.src)
		vm->vr->layers_of = NULL; /* another source (a reload): whatever sits at that address later is not it */
	vm->nrows = 0;
	vm->nitems = 0;
	vm->ndropped = vm->ntruncated = 0;
	if (vm->vr)
		vm->vr->on = false;
	bool counted = false, ok = false;
	long first = -1; /* keep_piece's first block */
	if (can_be_virtual(vm) && build_virtual_rows(vm, keep_piece, &first)) {
		ok = counted = true;
	} else {
		vm->ndropped = vm->ntruncated = 0; /* out of memory: the rows one by one, as far as they go */
		ok = vm->sort == VM_SORT_ORDER ? build_order_rows(vm, &counted) : build_sorted_rows(vm, &counted);
	}
	if (!counted)
		count_outcomes(vm);
	if (!ok)
		return false;
	/* Keep the cursor on the same piece (or block) where it can be. */
	long found = !vm->vr || !vm->vr->on ? vm_row_find(vm, keep_piece, keep_block)
		     : keep_piece >= 0	    ? piece_row(vm, keep_piece, first)
					    : vm_row_find(vm, -1, keep_block);
	vm->cursor = found >= 0 ? (size_t)found : vm->cursor < vm->nrows ? vm->cursor : (vm->nrows ? vm->nrows - 1 : 0);
	if (vm->nrows && vm_row_at(vm, vm->cursor).type == VM_ROW_MARKER) {
		bool header = vm->on_header; /* from the header vm_move would only leave it, the cursor on the marker */
		vm->on_header = false;
		vm_move(vm, vm->cursor + 1 < vm->nrows ? 1 : -1);
		vm->on_header = header;
	}
	vm->detail.piece = -2;
	return true;
}

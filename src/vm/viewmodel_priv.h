/* viewmodel_priv.h: internal to the view-model's files; not for ui/.
 * The few helpers that viewmodel.c, vm/session.c, vm/cache.c, vm/settings.c,
 * vm/detail.c and vm/search.c share; everything else in them stays static. */
#ifndef CTXSCOPE_VIEWMODEL_PRIV_H
#define CTXSCOPE_VIEWMODEL_PRIV_H

#include "vm/viewmodel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* vm/cache.c */

/* The breakpoint moves (M) kept beside the history for u and Ctrl-R:
 * whether the next undo (undo) or redo is one, and that step made (the
 * breakpoints as they were before it, or after); the status says so.
 * CS_ENOMEM, or the kind's own error, leave everything as it was. */
bool vm_bp_step_next(const struct vm *vm, bool undo);
int vm_bp_step(struct vm *vm, bool undo, struct cs_error *err);
/* Forgets the steps (clear) / frees them (fini). */
void bp_steps_clear(struct vm_bp_steps *s);
void vm_bp_steps_fini(struct vm_bp_steps *s);

/* A deep copy of the user's breakpoints (the baseline keeps the ones it was
 * pinned with); dst owns the copy. false on out of memory (dst is then empty). */
bool vm_copy_overrides(struct cache_overrides *dst, const struct cache_overrides *src);

/* Runs cache_analyze on the current assembly against the baseline under the
 * active profile and derives what the screen shows (owned by vm). false on
 * out of memory. */
bool vm_compute_cache(struct vm *vm);

/* Per-frame figures (owned by vm), worked out once per re-assembly or
 * baseline. false on out of memory. */
bool vm_summarize(struct vm *vm);

/* vm/rows.c */

/* The rows in assembly order when nothing filters them, worked out on
 * demand (vm_row_at): rows are [a marker?][dropped of bucket 0][block 0]
 * [its marker?][dropped of bucket 1][block 1]... where bucket k + 1 holds
 * the dropped pieces listed after block k. The dropped pieces between two
 * that went in (in input order) follow the same block, so a bucket is a few
 * runs of pieces, not a list of each: found from the blocks, without
 * reading every piece's result. A run that a section's heading follows is
 * split by the pieces' layers (those of the heading's go under it), each
 * half listed piece by piece. The arrays are kept from one edit to the next. */
struct vm_seg {
	uint32_t bucket; /* the block it follows + 1 */
	uint32_t n;      /* its pieces */
	uint32_t lo;     /* pieces lo .. lo + n - 1, or (list != VM_SEG_RUN) ids[list ..] */
	uint32_t list;
	uint32_t first;  /* the dropped pieces listed before it */
};
#define VM_SEG_RUN UINT32_MAX

struct vm_vrows {
	bool on;           /* the rows are these (else vm->rows holds them) */
	bool lead;         /* a marker row before everything */
	size_t nblocks;    /* of the assembly they were built for */
	uint64_t *placed;  /* a bit per piece: it went in (its result names a block showing it) */
	size_t cap_placed;
	struct vm_seg *segs; /* by bucket, then input order */
	size_t nsegs, cap_segs;
	uint32_t *ids;     /* the pieces of the segments listed one by one */
	size_t nids, cap_ids;
	uint32_t *start;   /* nblocks + 2: dropped pieces listed in the buckets before k */
	size_t cap_start;
	uint32_t *marks;   /* the blocks with a marker row after them, ascending */
	size_t nmarks, cap_marks;
	struct vm_row sel; /* the row vm_selected last answered with */
	/* What the last pass over the results found, for the next rebuild: */
	unsigned long serial; /* the assembly the bits and counts are of (assembly.serial); 0: none */
	size_t np;            /* its pieces */
	bool hidden;          /* dropped pieces were hidden (no runs made) */
	size_t ndropped, ntruncated;
	unsigned long patched; /* rebuilds that patched the bits from the assembly's changes (tests) */
	/* The pieces' layers side by side (a run under a heading is split by
	 * them at every rebuild), kept while the source is the same and every
	 * edit since was an exclusion (edit_log): nothing else relabels a piece. */
	int *layers;
	size_t cap_layers, nlayers;
	const struct source *layers_of; /* NULL: none kept */
	unsigned long layers_edits;     /* src->edits they were checked at */
	unsigned long layers_read;      /* times they were read from the pieces (tests) */
};

/* Whether a cache marker row follows block b. */
bool vm_marker_after(const struct vm *vm, size_t b);

/* The first row that is not a marker showing piece (piece >= 0), else the
 * row of block; -1 when no row shows it. */
long vm_row_find(const struct vm *vm, long piece, long block);


/* Frees the rows' memory (vm_fini). */
void vm_rows_fini(struct vm *vm);

/* Rebuilds vm's rows (owned by vm), keeping the cursor on keep_piece (or
 * keep_block) where it can be, and counts the pieces dropped and truncated
 * (vm_counts). false on out of memory. */
bool vm_rebuild_rows(struct vm *vm, long keep_piece, long keep_block);

/* After the assembly, baseline or cache settings changed: every derived
 * figure (owned by vm). false on out of memory. */
bool vm_refresh_all(struct vm *vm, long keep_piece, long keep_block);

/* vm/session.c */

/* Makes next the current assembly (vm takes it; next is left zeroed),
 * keeping the selection. */
int vm_adopt(struct vm *vm, struct assembly *next, struct cs_error *err);
/* After the user's breakpoints changed: tells a kind that predicts with
 * them (kind_ops.breakpoints_edited) and assembles again, else only redoes
 * the cache analysis. */
int vm_breakpoints_to_kind(struct vm *vm, struct cs_error *err);

/* vm/settings.c */

/* Rebuilds the rows keeping the selection; says so in the status line on
 * out of memory. */
void vm_refresh_rows(struct vm *vm);
/* Appends to the status what a change did to the cache's read tokens and
 * why they are not read (c: the figures before and after it). */
void vm_say_cache(struct vm *vm, const struct vm_change *c);
/* Appends "; 2,924 written, 137 uncached" (nothing when the prompt is the baseline's). */
void vm_say_cache_split(struct vm *vm, const struct vm_change *c);
/* Appends what moved between two outcomes of src's pieces, the largest
 * moves first ("current_task.md out (-187), pytest-latest.log +187 (cut
 * less)"); nothing when no piece's tokens changed. */
void vm_say_moved(const struct source *src, const struct piece_result *was, const struct piece_result *now,
		  struct strbuf *s);
/* vm_say_moved from a re-assembly's list of the pieces that changed
 * (assembly.changes, by piece, with their results before): the same
 * sentence, in the time of the list. */
void vm_say_changes(const struct source *src, const struct asm_change *changes, size_t n,
		    const struct piece_result *now, struct strbuf *s);
/* After the baseline was assembled again from src: the source a reload
 * kept for the old baseline is freed. */
void vm_forget_old_base(struct vm *vm);
/* Runs the `/` search again over the current assembly (hits point into
 * its blocks). */
void vm_research(struct vm *vm);
/* Counts the current assembly exactly when a tokenizer is set and the
 * assembly changed since the last count. false on out of memory. */
bool vm_count_exact(struct vm *vm);
/* The exact counts of the current prompt and its baseline for a profile
 * priced in them (cache_profile.exact), into m; false when there are none
 * (no tokenizer, or counting failed). */
bool vm_exact_measure(struct vm *vm, struct cache_measure *m);
/* Runs the `\` filter again (after the pieces changed). */
int vm_refilter(struct vm *vm, struct cs_error *err);

#endif

/* viewmodel.h: the inspector's state, with no curses in sight: it owns the
 * source, the current assembly and a baseline assembly (the cache is judged
 * against it), the rows to show (blocks in assembly order, dropped pieces in
 * place, cache-boundary markers), the cursor, scroll, sort, filters, the
 * detail of the selected piece and the status line. Every change to the
 * session (an edit, an undo, a redo) goes through vm_change: recorded,
 * re-assembled at once (rolled back when that fails), and said in a
 * sentence with what moved. ui/ only paints what this says, and changes it
 * only through these calls. Files by job, each calling only those after it
 * (tests/call_cycles.sh): viewmodel.c (the face: life, edits, what rows and
 * bars say), settings.c (the panel, sorts, toggles), reload.c, session.c
 * (changes, undo, redo), breakpoints.c (profile, M), search.c (search,
 * filters), adopt.c (a new assembly taken in), header.c, detail.c,
 * prompt.c, cache.c (the cache analysis), exact.c, rows.c (the rows and the
 * cursor), status.c (the status line).
 *
 * Dropped pieces sit "in place": after the block of the nearest piece before
 * them in input order that went in (for conversations that is where they
 * were; for a manifest, where they are listed). */
#ifndef CTXSCOPE_VIEWMODEL_H
#define CTXSCOPE_VIEWMODEL_H

#include "assembly.h"
#include "cache/cache.h"
#include "config.h"
#include "edit.h"
#include "base/error.h"
#include "tokens/exact.h"
#include "history.h"
#include "text/search.h"
#include "source.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vm_row_type {
	VM_ROW_BLOCK,   /* a block of the prompt (a piece, or text the assembler made) */
	VM_ROW_DROPPED, /* a piece that is not in the prompt */
	VM_ROW_MARKER,  /* a cache boundary after `block` (-1: before the first block;
			 * VM_MARKER_CUTOFF: the score cutoff, sorted by score) */
};

#define VM_MARKER_CUTOFF (-2) /* a marker row's block: the line at the cutoff score */

struct vm_row {
	enum vm_row_type type;
	long block;     /* BLOCK, MARKER: the block; DROPPED: -1 */
	long piece;     /* BLOCK, DROPPED: the piece (-1 for made text); MARKER: -1 */
	unsigned match; /* reserved for search/filter: per-row match flags */
	size_t item;    /* BLOCK, DROPPED: 1-based place among the rows that are not markers */
};

enum vm_sort { VM_SORT_ORDER, VM_SORT_TOKENS, VM_SORT_PRIORITY, VM_SORT_SCORE, VM_SORT_COUNT };

enum vm_layer_state { VM_LAYER_CACHED, VM_LAYER_PARTIAL, VM_LAYER_NEW, VM_LAYER_EMPTY };

/* A layer's blocks against the cache, worked out once per re-assembly. */
struct vm_layer_info {
	size_t blocks;        /* its blocks in the prompt */
	size_t cached_blocks; /* of those, inside the cached prefix */
	long cached_tokens;   /* its budgeted tokens inside the read prefix (a partly read block in proportion) */
};

/* A breakpoint move (M) in the undo history: the user's breakpoints before
 * and after it, and where it falls between the source's edits (the
 * history's depth when it was made: history_depth). */
struct vm_bp_step {
	struct cache_overrides before, after; /* owned */
	size_t depth;
};
struct vm_bp_steps {
	struct vm_bp_step *items; /* owned */
	size_t n, cap;
};

/* The cache view (vm/cache.c owns it): the prompt against the baseline as a
 * prompt cache would see it under the active profile; the figures are taken
 * from `an` (cache_analyze), redone at every change. */
struct vm_cache {
	struct cache_config cfg;             /* owned: the built-ins plus the user's file */
	const struct cache_profile *profile; /* the active one, in cfg */
	struct cache_profile tuned;          /* profile with the figures of the prompt's model (kind_ops.cache_tune) */
	const struct cache_profile *active;  /* what the analysis runs under: &tuned, or profile */
	struct cache_overrides bp_now;       /* owned: the user's breakpoints on the prompt */
	struct cache_overrides bp_base;      /* owned: the ones in force when the baseline was pinned */
	struct vm_bp_steps bp_done;          /* owned: the breakpoint moves (M) u can undo, newest last */
	struct vm_bp_steps bp_undone;        /* owned: the ones undone, Ctrl-R redoes the newest last */
	struct cache_analysis an;            /* owned: cur against base */
	struct vm_layer_info *layers[ASM_MAX_GROUPINGS]; /* owned; per grouping, per layer */
	size_t same_blocks;  /* leading blocks before the first difference (cache_divergence) */
	long cached_block;   /* the last block wholly inside the prefix read from the cache, -1: none */
	long cached_tokens;  /* tokens read from the cache (an.now.read) */
	long rewrite_tokens; /* total_tokens - cached_tokens: sent again, written or uncached */
	bool identical;      /* the whole prompt equals the baseline's */
	long *exact_off;     /* owned: exact tokens before each block when the analysis is in
	                        exact counts (an.exact); NULL otherwise */
};


/* The header's words (vm/header.c): items in three rows, most important
 * first, each painted whole or left to the header's detail. */
enum { VM_HEAD_WHO, VM_HEAD_TOTALS, VM_HEAD_CACHE, VM_HEAD_ROWS };
#define VM_HEAD_ITEMS 40
struct vm_head_item {
	size_t off, len;   /* in vm->head.text */
	unsigned char row; /* VM_HEAD_* */
	bool alert;        /* over, missing, refused, lost cache: painted as a warning */
};
struct vm_head {
	struct strbuf text;
	struct vm_head_item items[VM_HEAD_ITEMS];
	size_t nitems;
};

/* A line of the detail pane: bytes [off, off+len) of vm->detail.text. */
struct vm_line {
	size_t off, len;
	int role; /* enum theme_role */
	size_t src_off1; /* 1 + the byte of the piece's text (detail) or of the block's
	                    text (prompt view) where the line starts; 0: not input text */
	long block;      /* prompt view: the block the line shows; -1: a header or marker */
};

#define VM_PRIORITY_STEP 0.05 /* one + or - */

/* What `/` and `\` hold (vm/search.c owns it). */
struct vm_search {
	struct search_pattern *find; /* owned: the `/` pattern; NULL: none */
	struct search_result found;  /* owned: its hits in the current assembly */
	long found_at;               /* the current hit; -1: none */
	unsigned gen;                /* bumped whenever a search or n/N picks a current hit */
	struct search_pattern *filter; /* owned: the `\` filter; NULL: none */
	bool filter_invert;          /* `!`: keep the pieces that do not match */
	bool *keep;                  /* owned: per piece, the filter keeps it; NULL: no filter */
	size_t nkept;
};

/* The view-model, its fields grouped by the state each part owns: the
 * session (changed only through vm_change), the cache view of it, the list,
 * the detail, search and filters, the prompt view, and the status line. */
/* The session (vm/session.c): the source, its assemblies and its history;
 * changed only through vm_change (edits, undo, redo) and vm_reload. */
/* Where the baseline came from, said in the cache line's words. */
enum vm_base_from { VM_BASE_LOADED, VM_BASE_PINNED, VM_BASE_RELOADED };
/* What the layer bars are relative to (ncdu's g): the usable budget; what
 * the prompt uses (a 176k budget with 800 used shows nothing otherwise);
 * the largest layer. The inspector starts on the budget unless the prompt
 * uses under a quarter of it. */
enum vm_bar_scale { VM_SCALE_BUDGET, VM_SCALE_USED, VM_SCALE_LARGEST, VM_SCALE_COUNT };

struct vm_session {
	struct source *src;        /* owned */
	struct assembly cur;       /* the assembly of src as it stands */
	struct assembly base;      /* the cache baseline (the load, or the last B) */
	struct source *base_src;   /* owned: the source base was assembled from, once a
	                              reload replaced src; NULL: base is of src */
	long *base_piece;          /* owned: per piece of src, base's piece with its id
	                              (-1: new); NULL: base is of src */
	struct history hist;       /* every edit, for undo and redo (the what-if file's list) */
	enum vm_base_from base_from; /* the load, a B, or the file before a reload */
	unsigned generation;       /* bumped at every re-assembly */
	unsigned changes;          /* bumped whenever the assembly, the baseline or the cache
	                              analysis was redone (what a diff against the baseline shows) */
	unsigned edits;            /* the edits made: one more at every edit and redo, one less at an undo */
	unsigned saved_edits;      /* `edits` when they were last saved (a file or a what-if file);
	                              UINT_MAX once no undo or redo can come back to it */
	signed char ids_unique;    /* src's piece ids are all different: 1 yes, -1 no, 0 not known yet */
	uint32_t *base_rank;       /* owned: per piece, its place among base's pieces in prompt order (at
	                              their first blocks), UINT32_MAX: not in base; for telling whether the
	                              current prompt moved any; NULL: not made yet */
	uint32_t *seen;            /* owned: per piece, the last moved check that met it in the prompt */
	uint32_t seen_check;       /* that check's number */
	size_t nrank;              /* the pieces base_rank and seen were made for */
};

struct vm {
	struct vm_session session; /* the source, its assemblies and its history */
	struct vm_cache cache;     /* the cache view: cache.h's analysis under the active profile (vm/cache.c) */
	/* -- the list (viewmodel.c) -- */
	size_t ndropped, ntruncated; /* pieces, of the current assembly */
	long max_block_tokens;       /* the largest block's budgeted tokens (row bars scale to it) */
	bool *moved;                 /* owned: per piece, moved against the baseline (diff.h); may be NULL */
	struct vm_row *rows;       /* owned: the rows when sorted or filtered; read rows with vm_row_at */
	size_t nrows, cap_rows;    /* nrows: the rows shown, materialized or not */
	struct vm_vrows *vr;       /* owned: the rows in assembly order, worked out on demand (vm/rows.c) */
	size_t nitems;             /* rows that are not markers (the position's "of N") */
	size_t cursor;             /* index into rows */
	bool on_header;            /* k above the first row selects the header: Enter
	                              opens its detail (every item and fact); no row is selected */
	size_t scroll;             /* first visible row */
	enum vm_sort sort;
	bool hide_dropped;
	size_t grouping;           /* which layer grouping the bars show */
	enum vm_bar_scale bar_scale; /* what the layer bars and their percents are of */
	long layer_filter;         /* a layer of the shown grouping the list is limited to; -1 none */
	/* -- the detail of the selected row (vm/detail.c) -- */
	/* (the pane itself, open or not, focused, scrolled, is the ui's detail view's) */
	struct {
		struct strbuf text;   /* the detail of detail_row, built on demand */
		struct vm_line *lines; /* owned */
		size_t nlines, cap_lines;
		long piece, block;    /* what it is about; -2: stale */
	} detail;
	struct vm_search search;   /* search and filters (vm/search.c) */
	struct vm_head head;       /* the header's words (vm/header.c), built by vm_header */
	/* -- the prompt view's lines (vm/prompt.c) -- */
	struct {
		struct strbuf text;    /* the prompt as the model receives it, with headers */
		struct vm_line *lines; /* owned */
		size_t nlines, cap_lines;
		unsigned generation;   /* of the assembly it shows; built when stale */
		bool built;
	} prompt;
	/* -- what the screen says -- */
	struct strbuf status;      /* the status line */
	struct strbuf log;         /* the last VM_LOG_MAX statuses, one a line (:messages; vm_log_status) */
	size_t nlog;
	bool status_error;         /* the status is an error */
	bool ascii;                /* the display is ASCII-only: hidden-text markers as <<RLO>> */
	/* -- exact token counts beside the estimate (vm/exact.c) -- */
	struct {
		struct tokenizer *tok; /* owned; NULL: no public tokenizer for this input */
		long total;            /* the current prompt, exactly; -1: not counted */
		bool over;             /* the estimate fits the usable budget, the exact count does not */
		unsigned generation;   /* of the assembly it counted */
		struct exact_live live; /* per block, piece and layer; counts remembered by text */
		struct exact_live base_live; /* the baseline's, for a profile priced in exact tokens */
		char setting[256];     /* the tokenizer setting tok was opened for ("" auto, "off") */
		char initial[256];     /* the one vm_set_tokenizer gave (--tokenizer): a reload's too */
	} exact;
};

/* Builds vm->head from the current state: false on out of memory. */
bool vm_header(struct vm *vm);
/* Item i's text (NUL-terminated, vm->head.items[i].len bytes). */
const char *vm_head_text(const struct vm *vm, size_t i);
/* The baseline in words: "this prompt sent before", "the prompt as loaded",
 * "the prompt pinned with B", "the prompt before the file changed". */
const char *vm_baseline_words(const struct vm *vm);
/* Why tokens the prompt shares with the baseline are not read from the
 * cache ("the unchanged prefix (439) is under anthropic's 1,024-token
 * minimum"), appended to out; nothing when they all are. */
void vm_cache_why(const struct vm *vm, struct strbuf *out);

/* Takes ownership of src (also on failure), assembles it and pins that as
 * the baseline. CS_OK, or the assembler's error (then vm_fini is safe). */
int vm_init(struct vm *vm, struct source *src, struct cs_error *err);
/* Frees everything, the source included. NULL-safe; safe after failed init. */
void vm_fini(struct vm *vm);

/* Row i (< nrows) of the list. */
struct vm_row vm_row_at(const struct vm *vm, size_t i);
/* The selected row, or NULL when there are no rows. Borrowed: valid until
 * the cursor moves or the rows change. */
const struct vm_row *vm_selected(const struct vm *vm);
/* The piece of the selected row, -1 when none. */
long vm_selected_piece(const struct vm *vm);

/* Cursor moves (clamped). vm_move by delta rows; markers are stepped over. */
void vm_move(struct vm *vm, long delta);
void vm_first(struct vm *vm);
void vm_last(struct vm *vm);
/* Keeps the cursor inside a window of `visible` rows (adjusts scroll). */
void vm_scroll_into_view(struct vm *vm, size_t visible);

/* ---- the selection: the only ways ui/ changes it (it reads the fields,
 * never writes them) ---- */
/* Row `row` (< nrows, not a marker) selected from elsewhere (a click). */
void vm_select_row(struct vm *vm, size_t row);
/* The header selected (k above the first row, a click on it). */
void vm_select_header(struct vm *vm);
/* The list's first row shown (the cursor stays where it is). */
void vm_scroll_to(struct vm *vm, size_t top);
/* ASCII glyphs in what the view-model writes (no UTF-8 locale, --ascii). */
void vm_set_ascii(struct vm *vm, bool ascii);

/* ---- changing the session: edit, undo, redo (vm/session.c) ----------------
 * ONE path for all three: the step is recorded through the history (which
 * applies it to the source), the source is assembled, and when that fails
 * the step is rolled back (source and history as before, the status says
 * why); else the new assembly is adopted, and what moved is returned and
 * said on the status line: "excluded n42: -1,204 tokens; used 98,412 ->
 * 97,208; cache now breaks at 4,210, 90,102 tokens to rewrite". */

enum vm_step { VM_STEP_EDIT, VM_STEP_UNDO, VM_STEP_REDO };

/* What a change moved. */
struct vm_change {
	long used_before, used_after;     /* the budget used */
	long cached_before, cached_after; /* tokens read from the cache against the baseline */
	long rewrite_after;               /* tokens after the cached prefix: sent again */
	bool identical_before, identical_after; /* the prompt equals the baseline's */
	bool over_limit;                  /* the new assembly is over its limit */
};

/* Makes `step` (e: the edit for VM_STEP_EDIT, copied; NULL otherwise).
 * out (may be NULL) gets the summary on success. CS_OK; CS_EUSAGE when the
 * edit does not apply or there is nothing to undo or redo (the status says
 * so; nothing changed); the assembler's error (rolled back); CS_ENOMEM. */
int vm_change(struct vm *vm, enum vm_step step, const struct edit *e, struct vm_change *out, struct cs_error *err);
/* vm_change(VM_STEP_EDIT, e); every edit below goes through it. */
int vm_apply(struct vm *vm, struct edit *e, struct cs_error *err);
/* True when edits were made (or undone) since the last save: quitting
 * would lose them. */
bool vm_unsaved(const struct vm *vm);
/* True when quitting would lose edits worth asking about: unsaved, and (for
 * a kind w does not rewrite) one that is more than a step of the sequence
 * ([ ] to another request, turn or update): those go to a what-if file. */
bool vm_unsaved_edits(const struct vm *vm);
/* The edits as they stand are saved (in the file or a what-if file). */
void vm_mark_saved(struct vm *vm);
/* u / Ctrl-r: vm_change(VM_STEP_UNDO / VM_STEP_REDO), or the breakpoint
 * move (M) when that was the newest step (vm_toggle_breakpoint records
 * them beside the history). */
int vm_undo(struct vm *vm, struct cs_error *err);
int vm_redo(struct vm *vm, struct cs_error *err);
/* The same file loaded again (R, --follow): fresh (taken, also on failure)
 * replaces the source; the edits made so far are made again on it, matched
 * by piece id (those on pieces that are gone are dropped, and said); the
 * selection stays on its piece; the baseline stays as pinned (the old
 * source kept for it). The status says what came and went and what it did
 * to the cache. On failure nothing changes. */
int vm_reload(struct vm *vm, struct source *fresh, struct cs_error *err);
/* Counts the prompt exactly with the tokenizer named (--tokenizer; "off":
 * none), or with the encoding of the OpenAI model the input names when name
 * is NULL (none, or no rank file: no exact count, not an error). The source's
 * tokenizer setting takes the name; a later change of it (`:set tokenizer`,
 * its undo) is acted on at the next re-assembly. CS_OK, or the error of a
 * tokenizer asked for by name. */
int vm_set_tokenizer(struct vm *vm, const char *name, struct cs_error *err);
/* Exact counts beside the estimate, -1 where there are none (no tokenizer,
 * a marker row): a row's (a block's; a dropped piece's whole text, counted
 * the first time it is asked for), a piece's (its blocks', or its whole
 * text when dropped), a layer's of the shown grouping. */
long vm_row_exact(struct vm *vm, const struct vm_row *row);
long vm_piece_exact(struct vm *vm, long piece);
long vm_layer_exact(const struct vm *vm, size_t layer);
int vm_toggle_exclude(struct vm *vm, struct cs_error *err);
int vm_nudge_priority(struct vm *vm, double delta, struct cs_error *err);
/* The selected piece's strategy when the kind has per-piece strategies and
 * a piece is selected (or `whole` is false and...); else the assembly's. */
int vm_cycle_strategy(struct vm *vm, bool whole, struct cs_error *err);
/* Budget as typed ("100k", "128,000"); "" resets to the input's. */
int vm_set_budget(struct vm *vm, const char *typed, struct cs_error *err);
/* Pins the current assembly as the cache baseline. */
int vm_pin_baseline(struct vm *vm, struct cs_error *err);
/* Reads the user's cache file at path (NULL or missing: the built-ins) and
 * makes `profile` (NULL: the file's default, else anthropic) the active
 * profile. A broken file leaves the built-ins (err says why: a warning);
 * CS_EUSAGE for an unknown profile (the active one stays); CS_ENOMEM. */
int vm_cache_setup(struct vm *vm, const char *path, const char *profile, struct cs_error *err);
/* Makes the next profile of cache.cfg the active one; the status says what
 * it reads from the cache now. CS_OK or CS_ENOMEM. */
int vm_cycle_profile(struct vm *vm, struct cs_error *err);
/* `:profile NAME`: makes the profile NAME of cache.cfg the active one.
 * CS_EUSAGE (the status says so) when there is none. */
int vm_set_profile(struct vm *vm, const char *name, struct cs_error *err);
/* Sets or removes a breakpoint after the selected row's block (a user
 * override, kept across re-assembly), a step u undoes; the status names the
 * consequence.
 * CS_EUSAGE when the row is not a block of the prompt; CS_ENOMEM. */
int vm_toggle_breakpoint(struct vm *vm, struct cs_error *err);
/* ---- a kind's own settings, live -------------------------------------------
 * Driven by the kind's options table (kind.h), never by its name. */

#define VM_LOG_MAX 200       /* status messages :messages keeps */
#define VM_PANEL_MAX 16      /* panel entries: a kind's lists are short (memory: 3 weights + 4 shares) */
#define VM_PANEL_NAME_MAX 32 /* an entry's name ("relevance") */
#define VM_PANEL_STEP 0.05   /* one + or - on a value (NAME=V) */
#define VM_PANEL_PERCENT_STEP 5.0 /* one + or - on a percentage (NAME=P) */

/* One number of a list option, as the kind reads it back. */
struct vm_panel_entry {
	const char *option;              /* the kind option ("weight"); static, the kind's table */
	char name[VM_PANEL_NAME_MAX];    /* the entry ("relevance") */
	double value;
	bool percent;                    /* a NAME=P list: a share in percent */
};

/* The entries of every kind option whose argument is a list of NAME=V or
 * NAME=P ("weight", "allocation" of a memory snapshot), in the table's
 * order, read back through get_option. The count (0: the kind has none, so
 * no panel); at most cap. */
size_t vm_panel_entries(const struct vm *vm, struct vm_panel_entry *out, size_t cap);
/* Moves entry `index` of vm_panel_entries by one step up (direction > 0) or
 * down, as an EDIT_OPTION edit of that one name ("relevance=0.55") so undo
 * and history record it, and re-assembles; the status names the value and
 * what moved. CS_EUSAGE when the kind refuses the value (the status says
 * why), CS_ENOMEM. */
int vm_panel_nudge(struct vm *vm, size_t index, int direction, struct cs_error *err);
/* Cycles the kind option `name` (NULL: the kind's first option with
 * choices, kind.h) through its choices; CS_EUSAGE (status says so) when
 * the kind has no such option. */
int vm_cycle_option(struct vm *vm, const char *name, struct cs_error *err);
/* Flips the switch option `name` (a kind option without an argument)
 * between true and false; CS_EUSAGE when the kind has no such switch. */
int vm_toggle_option(struct vm *vm, const char *name, struct cs_error *err);
/* { }: shows the step `delta` before (< 0) or after the one shown of the
 * sequence the kind offers (kind_sequence), an edit of its setting; the
 * status names the step. CS_EUSAGE (status says so) at either end or when
 * the kind has none. vm_step_in_group ([ ]): the same, counting only the
 * steps of the shown one's group (a log's requests of its model). */
int vm_step_sequence(struct vm *vm, long delta, struct cs_error *err);
int vm_step_in_group(struct vm *vm, long delta, struct cs_error *err);

/* View changes (no re-assembly). Each writes the status. */
void vm_cycle_sort(struct vm *vm);   /* the next of the kind's sort keys */
bool vm_set_sort(struct vm *vm, const char *key); /* false (status says why) for a key not the kind's */
void vm_toggle_dropped(struct vm *vm);
void vm_cycle_grouping(struct vm *vm);

/* Sets the status line (printf-style); error colours it as one. */
void vm_status(struct vm *vm, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Keeps the status line as it stands in the log :messages shows (once,
 * however often it is kept; the oldest past VM_LOG_MAX go). */
void vm_log_status(struct vm *vm);

/* The row's one-character flag: 'x' excluded (by you or the input), '-'
 * dropped by the algorithm, '~' truncated, '*' changed since the baseline,
 * '!' could not be read, ' ' none. */
char vm_row_flag(const struct vm *vm, const struct vm_row *row);
/* Every flag vm_row_flag gives, with its words, for the `?` legend and the
 * man page's FLAGS (a unit test checks both against it); ends at flag 0. */
struct vm_flag_meaning {
	char flag;
	const char *words; /* "excluded" */
};
extern const struct vm_flag_meaning vm_flag_legend[];
/* Tokens shown for a row: charged tokens for a block, the whole estimate
 * for a dropped piece, the cached prefix for a marker. */
long vm_row_tokens(const struct vm *vm, const struct vm_row *row);
/* Whether the cache prefix reaches past block b (it is cached). */
bool vm_block_cached(const struct vm *vm, long block);
/* A layer's cache state; *cached_tokens gets its tokens inside the cached
 * prefix. */
enum vm_layer_state vm_layer_state(const struct vm *vm, size_t layer, long *cached_tokens);
/* The assembly's "cutoff score" fact (a memory snapshot's), or NULL when it
 * has none. Borrowed from vm->session.cur. */
const char *vm_cutoff(const struct vm *vm);
/* The breakpoint after block `block` under the active profile, or NULL.
 * Borrowed from vm->cache.an (valid until the next change). */
const struct cache_breakpoint *vm_breakpoint(const struct vm *vm, long block);
/* What a breakpoint does now: "read" (from the cache), "written", or
 * "uncached" (with why: under the minimum, past the breakpoint limit; or
 * past the last whole unit a prefix cache stores). Static storage. */
const char *vm_breakpoint_state(const struct vm *vm, const struct cache_breakpoint *bp);
/* The prompt's tokens against the cache, "1,308 read, 0 written, 1,753
 * uncached", the three joined by sep. */
void vm_cache_split(const struct vm *vm, const char *sep, struct strbuf *out);
/* The marker where the prompt leaves the baseline: "cache breaks here · 1,308
 * read · 0 written · 1,753 uncached", items joined by sep (with its spaces). */
void vm_break_words(const struct vm *vm, const char *sep, struct strbuf *out);
/* The grouping the bars show (NULL when the assembly has none). Borrowed. */
const struct grouping *vm_grouping(const struct vm *vm);
/* Counts of dropped and truncated pieces. */
void vm_counts(const struct vm *vm, size_t *dropped, size_t *truncated);
/* Name of a sort ("order", "tokens", "priority", "score"). */
const char *vm_sort_name(enum vm_sort sort);

/* Eighths of `cells` cells that value/max fills (0 .. cells*8), rounded to
 * the nearest eighth; any non-zero value shows at least one eighth. */
size_t vm_bar_eighths(long value, long max, size_t cells);
/* The whole the layer bars and their percents are of, under vm->bar_scale:
 * the usable budget, what the prompt uses, or the largest layer shown. */
long vm_bar_whole(const struct vm *vm);
/* "of the budget", "of what is used", "of the largest layer". */
const char *vm_bar_scale_name(enum vm_bar_scale s);
/* %: the next scale, said on the status line. */
void vm_cycle_bar_scale(struct vm *vm);

/* The detail of the selected row, rebuilt when the selection or the
 * assembly changed: lines of vm->detail.text (the numbers, the reason in a
 * sentence, then the piece's full text with truncation markers where the
 * prompt cuts it). Raw input text: sanitize before display. false on OOM. */
bool vm_detail(struct vm *vm);

/* ---- search, filter, the prompt view ---------------------------------------- */

/* `/`: compiles pattern and searches the prompt and the pieces; the cursor
 * goes to the first hit at or after it. A bad pattern or a costly one puts
 * pcre2's message (and position) or "pattern too costly" on the status
 * line and leaves the previous search. CS_OK or the error. "" clears. */
int vm_search(struct vm *vm, const char *pattern, struct cs_error *err);
/* n / N: the next (previous) hit; the cursor follows it. */
void vm_search_step(struct vm *vm, bool backward);
/* Whether the row's piece or block holds a hit of the current search. */
bool vm_row_matches(const struct vm *vm, const struct vm_row *row);
/* `\`: keeps the rows whose piece's label or text matches ("" clears). */
int vm_set_filter(struct vm *vm, const char *pattern, struct cs_error *err);
/* `!`: inverts the filter (or says there is none). */
void vm_invert_filter(struct vm *vm);
/* A click on a layer's bar: limits the list to that layer; the same layer
 * again (or -1) clears it. */
void vm_set_layer_filter(struct vm *vm, long layer);
/* The prompt view's lines (vm->prompt), rebuilt when the assembly changed:
 * per message a role header, each block's text coloured by its layer (roles
 * ROLE_BAR0..), and a line after every cache breakpoint. false on OOM. */
bool vm_prompt_lines(struct vm *vm);
/* The first prompt line of block b (0 when none). */
size_t vm_prompt_line_of_block(const struct vm *vm, long block);
/* Selects the row showing block b (the prompt view's way back). */
void vm_select_block(struct vm *vm, long block);
/* Hits of the current search inside the piece's text (SEARCH_TEXT) or a
 * block (SEARCH_BLOCK) `index`: *first and *n index vm->search.found.hits. */
void vm_hits_of(const struct vm *vm, enum search_target target, long index, size_t *first, size_t *n);

#endif

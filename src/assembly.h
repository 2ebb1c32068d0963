/* assembly.h: the result of running a kind's assembly algorithm on a source:
 * the prompt as the model would receive it, as ordered blocks (one per piece
 * that went in, plus text the assembler made: wrappers, markers, headers),
 * grouped into messages when the prompt is a messages array; totals per
 * layer in one or two groupings; the budget figures; flags; and, for every
 * piece, what happened to it and why, in a sentence.
 *
 * Rendered text is held as spans pointing into the source's text or the
 * assembly's arena, so assembling copies no text: re-running after an edit
 * costs O(pieces), plus the pieces actually cut.
 *
 * Assemblers build one with the asm_* calls below; those never fail loudly:
 * out of memory sets a sticky flag that asm_finish reports once. */
#ifndef CTXSCOPE_ASSEMBLY_H
#define CTXSCOPE_ASSEMBLY_H

#include "base/arena.h"
#include "base/error.h"
#include "source.h"

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* Why a piece did not go in whole. X(enum, code in reports, default sentence) */
#define REASONS(X)                                                                          \
	X(REASON_NONE, "", "")                                                              \
	X(REASON_EXCLUDED_BY_USER, "excluded-by-user", "excluded by you")                   \
	X(REASON_EXCLUDED, "excluded", "marked excluded in the input")                      \
	X(REASON_PRUNED, "pruned", "pruned (soft-deleted) in the input")                    \
	X(REASON_ANNOTATION, "annotation", "reached through an annotation edge")            \
	X(REASON_EMPTY, "empty", "empty")                                                   \
	X(REASON_MISSING, "missing", "the file does not exist")                             \
	X(REASON_UNREADABLE, "unreadable", "the file could not be read")                    \
	X(REASON_BINARY, "binary", "the file is binary (it holds a NUL byte)")              \
	X(REASON_DIRECTORY, "directory", "the path is a directory, not a file")             \
	X(REASON_MAX_LINES, "max-lines", "cut to its max_lines")                            \
	X(REASON_OVER_BUDGET, "over-budget", "did not fit the budget")                      \
	X(REASON_TRUNCATED, "truncated", "cut to fit the budget")                           \
	X(REASON_TRUNCATE_MIDDLE, "truncate-middle", "removed from the middle by truncateMiddle") \
	X(REASON_ROLLING_WINDOW, "rolling-window", "fell out of the rolling window")        \
	X(REASON_COMPACTED, "compacted", "summarized by a compaction")                      \
	X(REASON_WOULD_COMPACT, "would-compact", "a proactive compaction would summarize it") \
	X(REASON_OVER_ALLOCATION, "over-allocation", "its source's share of the budget was full") \
	X(REASON_OFF_PATH, "off-path", "not on the assembled path")                         \
	X(REASON_NO_SYSTEM_CONTEXT, "no-system-context", "buffer mode sends no system context")                  \
	X(REASON_SUPERSEDED, "superseded", "replaced by a later version")                  \
	X(REASON_LATER, "later", "comes after the replayed turn")                           \
	X(REASON_NOT_IN_REQUEST, "not-in-request", "not in the request shown (another request of the log has it)") \
	X(REASON_LOOM_AWARE_OFF, "loom-aware-off", "loom-aware rendering is off")                    \
	X(REASON_FILTERED, "filtered", "removed by the request's filters")                            \
	X(REASON_STRIPPED, "stripped", "an earlier turn's thinking, which the API strips for this model")

enum reason {
#define REASON_X_ENUM(e, code, sentence) e,
	REASONS(REASON_X_ENUM)
#undef REASON_X_ENUM
	REASON_COUNT
};

/* "over-budget" for REASON_OVER_BUDGET; "" for none. Never NULL. */
const char *reason_code(int reason);
const char *reason_sentence(int reason);

enum outcome {
	OUTCOME_WHOLE,     /* in the prompt, all of it */
	OUTCOME_TRUNCATED, /* in the prompt, cut */
	OUTCOME_DROPPED,   /* not in the prompt */
};

struct piece_result {
	enum outcome outcome;
	int reason;              /* enum reason; REASON_NONE when whole */
	const char *sentence;    /* "dropped: over budget by 3,402 tokens; ..."; arena; NULL when whole, or
				  * when the kind writes it on demand (read it with asm_sentence) */
	long why[2];             /* the numbers a kind's deferred sentence is written from (asm_drop_later) */
	long tokens;             /* tokens it was charged in the budget (0 when dropped) */
	long original_tokens;    /* its tokens before any cut */
	long block;              /* its block, -1 when dropped */
	double score;            /* a kind's ranking value (memory: final score); NAN when none */
};

/* A piece whose result a re-assembly changed, with its result before (see
 * asm_init_reuse). was.sentence points into the previous assembly's arena:
 * not to be read once that assembly is gone. */
struct asm_change {
	long piece;
	size_t seq;             /* the order it was recorded in (the first record of a piece holds its old result) */
	struct piece_result was;
};

/* A piece of rendered text: points into the source or the assembly arena. */
struct span {
	const char *ptr;
	size_t len;
};

enum block_flag {
	BLOCK_TRUNCATED = 1u << 0, /* the piece's text is cut in it */
	BLOCK_MARKER = 1u << 1,    /* the assembler's truncation marker */
	BLOCK_MADE = 1u << 2,      /* text the assembler made (system context, wrappers, summary) */
	BLOCK_BREAKPOINT = 1u << 3, /* a cache breakpoint sits after it */
	BLOCK_HEADING = 1u << 4,   /* with MADE: a section's heading (a memory snapshot's "## Recent Activity") */
	BLOCK_MEDIA = 1u << 5,     /* an image or document: its text only names it ("[image image/png 640x480]"),
				    * every count takes media_tokens instead */
};

struct block { /* asm_block sets every field by name: a new one is set there too */
	long piece;           /* index into source->pieces, or -1 for text the assembler made */
	const char *label;    /* display label for assembler-made blocks ("system context"); may be NULL */
	int message;          /* index into messages; 0 for a document */
	int layer[2];         /* index in each grouping, -1 when that grouping is absent */
	unsigned flags;       /* enum block_flag */
	size_t first_span;    /* its text: spans[first_span .. first_span + nspans) */
	size_t nspans;
	size_t bytes;         /* of the rendered text */
	size_t code_points;   /* of the rendered text */
	long tokens;          /* estimate of the rendered text */
	long budget_tokens;   /* what the inspected system charged against the budget */
	size_t keep_head;     /* bytes of the piece's text kept from its start */
	size_t keep_tail;     /* bytes of the piece's text kept from its end */
	long offset_tokens;   /* estimated tokens before this block in the prompt */
	long media_tokens;    /* images and documents it holds (BLOCK_MEDIA, or a tool result's), by the
			       * provider's rule: what any tokenizer's count of it adds to its text's */
};

struct message {
	const char *role;     /* "system", "user", "assistant", "tool" */
	size_t first_block;
	size_t nblocks;
};

struct layer {
	const char *name;     /* "system", "history", ... */
	long tokens;          /* rendered tokens of its blocks */
	long budget_tokens;   /* budgeted tokens of its blocks */
	size_t nblocks;
};

struct grouping {
	const char *name;     /* "physical", "conceptual", "role" */
	struct layer *layers;
	size_t nlayers;
};

enum asm_shape {
	ASM_DOCUMENT, /* one string (manifest, buffer-mode loom, memory) */
	ASM_MESSAGES, /* a messages array; a leading "system" message is the system field */
};

enum asm_flag {
	ASM_TRUNCATED = 1u << 0,  /* something was removed or cut to fit (a manifest: cut; see excluded) */
	ASM_OVER_LIMIT = 1u << 1, /* the result does not fit its limit */
	ASM_ERROR = 1u << 2,      /* the algorithm refuses (stopAtLimit, system too big) */
	ASM_MUST_MISSING = 1u << 3, /* a piece that must go in (priority 1.0) did not */
	ASM_COMPACTS = 1u << 4,   /* the system would compact first: this prompt is never sent as it is */
};

struct budget {
	long limit;     /* the model's window or max_tokens */
	long reserve;   /* held back for the response (and tools) */
	long usable;    /* what content may use */
	long used;      /* budgeted tokens used */
	long remaining; /* usable - used; negative when over */
};

struct fact {
	const char *key;   /* "mode", "model", "compaction rule" */
	const char *value; /* arena */
};

#define ASM_MAX_GROUPINGS 2

/* What the inspected system recorded it sent (a ledger's turn, a session's
 * request): tokens in all, of them read from and written to the cache; -1
 * where nothing was recorded. */
struct recorded {
	long input, read, written;
	const char *what; /* "turn t10", "request 8"; arena or literal; NULL when none */
};

/* The step of a sequence the assembly shows (a log's request, a session's),
 * as its kind predicted its cache: what the header's cache line tells
 * (steps 0: not a sequence, the line compares with a repeat). */
struct step_cache {
	long step, steps;          /* 1-based: the one shown, of */
	long compared;             /* the request it could read from, 1-based; 0 none (the first of its group) */
	long compared_line;        /* its line in the file */
	long total, read, written; /* predicted */
	long shared_read;          /* of read: what a cache shared across sessions gave (a global scope); 0 none */
	bool broke;
	const char *cause;         /* borrowed from the kind's model; NULL none */
	const char *group;         /* its model and group mark, "claude-sonnet-4-5 (A)"; arena; NULL: one group */
	long rec_total, rec_read, rec_written; /* recorded; rec_total -1 none */
	double rec_cost;           /* recorded input cost, USD; < 0 unknown */
	long off_percent;          /* the prediction's distance from the record (recorded.c) */
	bool off;
};

struct assembly {
	const struct source *src;    /* borrowed: must outlive the assembly */
	enum asm_shape shape;
	struct arena arena;          /* owns sentences, made text, names */
	struct block *blocks;
	size_t nblocks, cap_blocks;
	struct span *spans;
	size_t nspans, cap_spans;
	struct message *messages;
	size_t nmessages, cap_messages;
	struct grouping groupings[ASM_MAX_GROUPINGS];
	size_t ngroupings;
	struct piece_result *results; /* one per source piece */
	long *not_whole;             /* pieces that did not go in whole, in the order decided */
	size_t nnot_whole, cap_not_whole;
	struct budget budget;
	unsigned flags;              /* enum asm_flag */
	const char *state;           /* a sentence on the overall state when over limit or refused; arena */
	long over_by;                /* tokens over the usable budget, when ASM_OVER_LIMIT */
	long excluded;               /* pieces left out whole for the budget, for kinds whose report counts them
				      * apart from what was cut (status.excluded); -1 when the kind does not */
	double cutoff;               /* the score below which pieces stayed out (memory); NAN when none */
	const char *cutoff_text;     /* cutoff as the report prints it ("%.6g"); arena; NULL when none */
	struct warning *warnings;    /* the source's and the assembler's */
	size_t nwarnings, cap_warnings;
	struct fact *facts;          /* kind-specific header lines, in order */
	size_t nfacts, cap_facts;
	struct recorded recorded;    /* the system's own usage record; input -1: none */
	struct step_cache step;      /* the sequence's step shown; steps 0: none */
	long total_tokens;           /* rendered tokens of the whole prompt */
	size_t total_bytes;
	double chars_per_token;
	bool nomem;                  /* sticky: an asm_* call ran out of memory */
	/* Writes piece's deferred sentence into out (reset first); false on out
	 * of memory. NULL when the kind defers none. sentence_ctx: its facts
	 * shared by every sentence of the run (arena). */
	bool (*sentence_fn)(const struct assembly *a, long piece, struct strbuf *out);
	const void *sentence_ctx;
	bool sentence_by_why;        /* sentence_fn reads only a piece's reason and why[]: pieces in a row
				      * alike share one sentence, written once, and at once when nothing
				      * defers (assemble(): in the order decided) */
	size_t ndeferred;            /* pieces asm_drop_later left without a sentence */
	struct strbuf *said;         /* where asm_drop_later writes a sentence at once (reused) */
	struct block scratch;        /* where a failed asm_block's writes go */
	/* Results kept from one assembly to the next (asm_init_reuse). */
	unsigned long serial;        /* this assembly's number, unique in the process (never 0) */
	size_t nresults;             /* the source's pieces when it was made: results' length */
	bool lazy;                   /* made in a lazy run (asm_run.lazy): its deferred sentences not written */
	bool sentences_filled;       /* asm_write_sentences wrote sentences into results (this arena's) */
	bool reused;                 /* results taken over from the previous assembly (asm_init_reuse) */
	unsigned long reused_from;   /* that assembly's serial; 0 when not reused */
	struct assembly *lender;     /* while assembling: the previous assembly, owed its results back on failure */
	struct asm_change *changes;  /* with changes_valid: every piece whose result differs from the previous */
	size_t nchanges, cap_changes; /* assembly's, one each, by piece (asm_finish sorts them) */
	bool changes_valid;          /* false: compare every result with the previous assembly's */
	/* Fills not_whole when the kind lists it only when read (asm_list_not_whole):
	 * NULL when not_whole is complete. */
	bool (*list_fn)(struct assembly *a);
};

/* The context a kind's assembler runs in, passed to it (kind_ops.assemble)
 * and on to asm_init*: what it assembles, the previous assembly it may take
 * results over from, and whether its sentences may wait. Made by assemble()
 * and assemble_lazy_from(); nothing of it is found through a global (the
 * way sqlite passes its sqlite3_context). An assembler that builds other
 * assemblies on the way passes its run on to them. */
struct asm_run {
	const struct source *src; /* borrowed */
	struct assembly *prev;    /* the previous assembly of src, offered to asm_init_reuse (taken
	                             once: it sets this NULL); NULL: none */
	bool lazy;                /* the inspector's re-assembly, which edits will follow: sentences a
	                             kind defers wait (asm_sentence), and a kind may keep what it decided */
};
/* An eager run of src, nothing offered: as assemble() makes them. */
#define ASM_RUN(s) (&(struct asm_run){ .src = (s) })

/* Prepares `a` for assembling run->src (borrowed). Every piece starts as
 * dropped with REASON_NONE until the assembler decides. Copies the source's
 * warnings. Returns CS_OK or CS_ENOMEM (then asm_fini is still safe). */
int asm_init(struct assembly *a, const struct asm_run *run, enum asm_shape shape);
/* asm_init with the results left unset (a million of them): for an
 * assembler that writes every piece's result itself, before any asm_* call
 * on a piece. */
int asm_init_unset(struct assembly *a, const struct asm_run *run, enum asm_shape shape);
/* asm_init_unset for a re-assembly that patches the previous assembly's
 * results instead of writing them all: when assemble_lazy_from runs the
 * kind with a previous lazy assembly (run->prev) of the same source (as many pieces,
 * its sentences not written), `a` takes over its results array (a->reused,
 * a->reused_from its serial; the previous assembly is left without results
 * until it gets them back on failure). Every result then still holds the
 * previous value; the assembler changes only those that differ, and only
 * through the asm_* calls or asm_set_result, which record each piece's old
 * result in a->changes (asm_finish sorts them by piece, one each, drops
 * those written back as they were, and sets changes_valid). It must rewrite
 * every result whose sentence lives in the previous arena (asm_drop with a
 * made sentence, asm_cut) or whose block moved. Otherwise (no previous
 * assembly, another source) it is asm_init_unset: every result to write. */
int asm_init_reuse(struct assembly *a, struct asm_run *run, enum asm_shape shape);
/* After asm_init_reuse, when the assembler will write every result after
 * all: the taken results go back to the previous assembly as they were and
 * a fresh unset array replaces them (a->reused false). CS_OK or CS_ENOMEM. */
int asm_reuse_decline(struct assembly *a);
/* Writes piece's whole result; with a->reused, records its old one first
 * when they differ (the asm_* calls below all write through it). */
void asm_set_result(struct assembly *a, long piece, const struct piece_result *now);
/* True when two results differ in any field (sentence by pointer). */
bool asm_result_differs(const struct piece_result *x, const struct piece_result *y);
/* Completes not_whole when the kind left it for later (a->list_fn); false
 * on out of memory (nomem set). asm_write_sentences calls it first. */
bool asm_list_not_whole(struct assembly *a);
/* Frees everything the assembly owns. NULL-safe; safe after a failed init.
 * While it still owes a previous assembly its results (a failure inside
 * assemble_lazy_from), it gives them back as they were instead. */
void asm_fini(struct assembly *a);

/* Adds a grouping of layers (names copied). Returns its index, -1 on OOM. */
int asm_grouping(struct assembly *a, const char *name, const char *const *layer_names, size_t n);
/* Starts a new message with `role` (not copied: use a literal or the
 * source's arena). Returns its index. Documents need none. */
int asm_message(struct assembly *a, const char *role);
/* Appends a block to the current message and returns it (never NULL: on
 * OOM a scratch block, with the sticky flag set). piece -1 for made text.
 * layer2 is -1 when there is no second grouping. */
struct block *asm_block(struct assembly *a, long piece, int layer, int layer2);
/* Appends text to the last block: a span of `len` bytes at `ptr`, which must
 * live as long as the assembly (source text or arena). code_points may be
 * (size_t)-1 to have it counted. */
void asm_span(struct assembly *a, const char *ptr, size_t len, size_t code_points);
/* Appends text the assembler made (printf-style, copied into the arena). */
void asm_textf(struct assembly *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void asm_text(struct assembly *a, const char *text, size_t len);

/* Room for at least this many blocks, spans and messages in all, so that
 * an assembler that knows how many it emits grows each array once. Out of
 * memory is left to the calls that need the room. */
void asm_reserve(struct assembly *a, size_t blocks, size_t spans, size_t messages);

/* Records what happened to a piece. asm_whole: in whole, in block `block`.
 * asm_cut: in, truncated, with a reason and a sentence. asm_drop: out, with
 * a reason and a sentence (printf-style; NULL fmt uses the default). */
void asm_whole(struct assembly *a, long piece, long block, long tokens);
void asm_cut(struct assembly *a, long piece, long block, long tokens, int reason, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void asm_drop(struct assembly *a, long piece, int reason, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* asm_drop with a sentence already made, kept as given (not copied): it
 * must live as long as the assembly (its arena, or a literal). NULL sets
 * the nomem flag. No printf: for assemblers that drop many pieces a run,
 * which may share one sentence among pieces. */
void asm_drop_text(struct assembly *a, long piece, int reason, const char *sentence);
/* Room for n pieces that do not go in whole, so that an assembler that
 * drops most of a million grows the list once. */
void asm_expect_not_whole(struct assembly *a, size_t n);
/* Lists n pieces whose results already stand as drops with deferred
 * sentences (results taken over: asm_init_reuse) among what did not go in
 * whole, each counted as deferred. false, nothing listed, when the room
 * asm_expect_not_whole reserved is short or the kind lists them when read
 * (list_fn): the caller then drops them as any others. */
bool asm_list_deferred(struct assembly *a, const long *pieces, size_t n);
/* Drops piece with its sentence deferred: a->sentence_fn writes it from
 * why0 and why1 when it is read (asm_sentence), so a run that drops a
 * million pieces writes only the sentences shown. */
void asm_drop_later(struct assembly *a, long piece, int reason, long why0, long why1);
/* piece's sentence: the one written, else its deferred one written into buf
 * (valid while buf is); NULL when it has none (whole) or on out of memory. */
const char *asm_sentence(const struct assembly *a, long piece, struct strbuf *buf);
/* Writes every deferred sentence into the arena (results[].sentence), as
 * the report and the exports read them. false on out of memory (nomem set). */
bool asm_write_sentences(struct assembly *a);

void asm_warn(struct assembly *a, long piece, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void asm_fact(struct assembly *a, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets the cutoff score and its text ("%.6g", in the arena). */
void asm_cutoff(struct assembly *a, double score);
/* Sets the overall state sentence (printf-style) and ORs `flags` in. */
void asm_state(struct assembly *a, unsigned flags, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Computes what follows from the blocks: each block's bytes, code points,
 * tokens and offset; layer totals; budget.used (sum of budget_tokens) and
 * remaining; the prompt's totals. The assembler sets budget.limit, reserve
 * and usable before. Returns CS_OK, or CS_ENOMEM when any call failed. */
int asm_finish(struct assembly *a, struct cs_error *err);

/* The rendered text of block b, concatenated into out. */
bool asm_block_text(const struct assembly *a, size_t b, struct strbuf *out);
/* The whole rendered prompt, concatenated into out (documents; for messages
 * the contents one after another). */
bool asm_prompt_text(const struct assembly *a, struct strbuf *out);

/* Runs src's kind assembler into a fresh assembly `out` (asm_fini'd on
 * failure), every sentence written. Returns CS_OK or the error. */
int assemble(const struct source *src, struct assembly *out, struct cs_error *err);
/* The same with the sentences a kind defers left unwritten (the inspector's
 * re-assembly after an edit: it shows a screenful); read them with
 * asm_sentence, or asm_write_sentences before a report. */
int assemble_lazy(const struct source *src, struct assembly *out, struct cs_error *err);
/* assemble_lazy, offering prev (the previous assembly of src, or NULL) to
 * a kind that patches results (asm_init_reuse). On success out may hold
 * prev's results array (prev->results is then NULL, and out->changes_valid
 * says which pieces differ); on failure prev has its results back as they
 * were. */
int assemble_lazy_from(const struct source *src, struct assembly *out, struct assembly *prev,
		       struct cs_error *err);

#endif

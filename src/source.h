/* source.h: what was loaded. A source holds the pieces (the units that can be
 * in or out of a prompt: a manifest file, a loom node, a ledger message, a
 * memory item), the settings a user can change, load-time warnings, and the
 * kind's own model (struct manifest, struct loom, ...). All its strings live
 * in its arena. Assembling never changes a source; editing does (edit.h). */
#ifndef CTXSCOPE_SOURCE_H
#define CTXSCOPE_SOURCE_H

#include "base/arena.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct kind_ops;
struct progress;

/* Truncation strategies of every kind, by the names the inputs use.
 * X(enum, name, sentence) */
#define STRATEGIES(X)                                                                  \
	X(STRAT_NEVER, "never", "never cut: whole or not at all")                      \
	X(STRAT_START, "start", "cut the beginning, keep the end")                     \
	X(STRAT_MIDDLE, "middle", "cut the middle, keep head and tail")                \
	X(STRAT_END, "end", "cut the end, keep the beginning")                         \
	X(STRAT_TRUNCATE_MIDDLE, "truncateMiddle", "drop the oldest unprotected messages") \
	X(STRAT_ROLLING_WINDOW, "rollingWindow", "keep the newest messages that fit")  \
	X(STRAT_STOP_AT_LIMIT, "stopAtLimit", "remove nothing; over the limit is an error")

enum strategy {
	STRAT_NONE = -1, /* unset: the input's own choice applies */
#define STRAT_X_ENUM(e, name, sentence) e,
	STRATEGIES(STRAT_X_ENUM)
#undef STRAT_X_ENUM
	STRAT_COUNT
};

/* "middle" for STRAT_MIDDLE; "" for STRAT_NONE or out of range. Never NULL. */
const char *strategy_name(int strategy);
const char *strategy_sentence(int strategy);
/* The strategy named `name` (exact, case-sensitive), or STRAT_NONE. */
int strategy_from_name(const char *name);

enum piece_flag {
	PIECE_RECORDED = 1u << 0, /* recorded_tokens comes from the input */
	PIECE_HIDDEN = 1u << 1,   /* text holds characters a person cannot see */
	PIECE_NOT_TEXT = 1u << 2, /* could not be read as text (kind says why in `absent`) */
	PIECE_OUTSIDE = 1u << 3,  /* read from outside the input's folder (an absolute path, .., a symlink) */
};

struct piece {
	const char *id;          /* stable id (manifest path, node id, message id); arena */
	const char *label;       /* short display label; arena */
	const char *role;        /* role as the kind names it (system, user, context, ...) */
	const char *text;        /* full text, NUL-terminated; arena (or "" when absent) */
	size_t text_bytes;
	size_t code_points;      /* of text, counted once at load */
	size_t lines;            /* of text, counted once at load */
	long tokens;             /* estimate of the whole text at the source's chars_per_token */
	long recorded_tokens;    /* from the input (PIECE_RECORDED), else -1 */
	double priority;         /* current priority (manifest); 0 when the kind has none */
	double input_priority;   /* as loaded, to tell what the user changed */
	int strategy;            /* current per-piece strategy, STRAT_NONE when the kind has none */
	int input_strategy;
	bool input_excluded;     /* the input excludes it (loom metadata.excluded, ...) */
	signed char user_excluded; /* -1: as the input says; 0: included by the user; 1: excluded by the user */
	int absent;              /* a reason code (assembly.h) the loader decided: missing file, binary...; 0 none */
	unsigned flags;          /* enum piece_flag */
	int layer;               /* the kind's home layer index for this piece (e.g. its role) */
	size_t kind_index;       /* index into the kind's own arrays */
};

/* Whether the piece is out by exclusion, the user's choice winning. */
bool piece_excluded(const struct piece *p);

struct warning {
	const char *text; /* a sentence; arena */
	long piece;       /* the piece it is about, -1 for none */
	long line;        /* position in the input, 0 when none */
	long column;
};

struct settings {
	long budget;            /* usable-budget override in tokens, -1: the input's */
	int strategy;           /* whole-assembly strategy override, STRAT_NONE: the input's */
	double chars_per_token; /* the estimate's divisor, TOKENS_DEFAULT_CHARS_PER_TOKEN */
	char tokenizer[256];    /* exact counts beside the estimate: an encoding or a .tiktoken
	                           path; "" the OpenAI model's (auto), "off" none (tokenizer.h) */
	bool strict;            /* --strict: a malformed line a kind would skip is an error instead */
};

#define SOURCE_EDIT_LOG 16 /* edits named in source.edit_log */

struct source {
	const struct kind_ops *kind;
	const char *path;         /* the file as given; arena */
	const char *companion;    /* the second file loaded with it (--assembly-file); arena, NULL: none */
	const char *input_type;   /* what the file is, for people, when not the kind's title
	                             ("ledger database"); static, NULL: the title */
	struct arena arena;       /* owns every string of the source */
	struct piece *pieces;     /* in input order */
	size_t npieces, cap_pieces;
	struct warning *warnings; /* load-time warnings, in input order */
	size_t nwarnings, cap_warnings;
	struct settings settings;
	void *model;              /* the kind's own model, freed by kind->free_model */
	size_t input_bytes;       /* size of what was loaded */
	struct piece_index *index; /* id -> piece lookup, built on first use */
	struct progress *progress; /* borrowed, for the loader's long passes (progress.h); NULL none */
	bool input_owned;         /* during the load: the loader's data is a private buffer freed after it,
				   * whose pages it may give back as it reads past them (jsonl_give_back) */
	char *input_kept;         /* that buffer when pieces' text stayed in it (source_keep_input); owned */
	/* The edits applied or reverted (edit.c), for a kind that re-assembles
	 * from its last build: edits counts them all; edit_log[k %
	 * SOURCE_EDIT_LOG] names the piece whose exclusion edit k set, -1 when
	 * edit k was of anything else. */
	unsigned long edits;
	long edit_log[SOURCE_EDIT_LOG];
};

/* A new, empty source for `kind` loaded from `path` (copied). NULL on out of
 * memory. Free with source_free. */
struct source *source_new(const struct kind_ops *kind, const char *path);
/* Frees the source, its model and its arena. NULL-safe. */
void source_free(struct source *src);

/* Appends a piece with defaults (no recorded tokens, no strategy, as the
 * input says, layer 0) and returns its index, or -1 on out of memory.
 * Pointers into src->pieces are invalidated by the next add. */
long source_add_piece(struct source *src);
/* Room for n pieces in all, exactly (a loader that knows its count: the
 * doubling of source_add_piece would leave up to half of it unused, and
 * zeroed). Returns CS_OK or CS_ENOMEM. */
int source_reserve_pieces(struct source *src, size_t n);
/* Sets p->text (copied into the arena) and counts its code points, lines and
 * tokens. Returns CS_OK or CS_ENOMEM. */
int source_set_piece_text(struct source *src, long piece, const char *text, size_t n);
/* Like source_set_piece_text, but `text` already lives as long as the source
 * (its arena), so it is not copied. */
int source_adopt_piece_text(struct source *src, long piece, const char *text, size_t n);
/* Like source_adopt_piece_text, with what it counts already known: the
 * text's code points, lines (utf8_count_lines) and whether it holds hidden
 * characters (hidden_scan), counted by a loader while the text was at hand. */
int source_adopt_piece_counted(struct source *src, long piece, const char *text, size_t n, size_t code_points,
			       size_t lines, bool hidden);

/* Like source_set_piece_text, for text that is a JSON string in the
 * loader's input: `in_input` its body there (still escaped; NULL: not
 * known), `text` the same unescaped (n bytes, as a parse gave it). While
 * src->input_owned the piece keeps `in_input` instead of a copy (counted
 * on `text`), and source_keep_input settles it once the load is done. */
int source_keep_piece_text(struct source *src, long piece, const char *in_input, const char *text, size_t n);
/* After a load that succeeded on the private buffer data[0..len): the
 * pieces whose text is still in it get it unescaped in place and
 * NUL-terminated, and the source keeps the buffer (true; then it is not
 * freed by the caller). The buffer is no longer JSON afterwards. */
bool source_keep_input(struct source *src, char *data, size_t len);

/* Adds a warning (printf-style). Returns CS_OK or CS_ENOMEM. */
int source_warn(struct source *src, long piece, long line, long column, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The index of the first piece whose id is `id`, or -1. O(1) after the
 * first call (an index is built then); adding pieces resets it. */
long source_find_piece(struct source *src, const char *id);
/* The name a person knows the piece by: the label the list shows (a loom
 * node's "01HQA3", a ledger's "turn t07 · tool"), or its id when it has no
 * label or the label opens with the id (a request's "messages[0].content[1]
 * text: ..."). Borrowed from p; never NULL. */
const char *piece_name(const struct piece *p);

/* map[i]: the piece of `from` with to's piece i's id (the first such), or
 * -1; matched[j] (may be NULL): whether from's piece j has a counterpart.
 * map has to->npieces entries, matched from->npieces. false: out of memory. */
bool source_match_ids(const struct source *from, const struct source *to, long *map, bool *matched);

/* Changes chars_per_token and re-estimates every piece (no re-reading). */
void source_set_chars_per_token(struct source *src, double chars_per_token);

/* The cache profile to start with: `asked` (--profile) when not NULL, else
 * the one the input names (its kind's cache_profile), else `fallback` (the
 * configured default). */
const char *source_cache_profile(const struct source *src, const char *asked, const char *fallback);

/* The value of the sequence's setting that steps `delta` from the step
 * shown (1-based, as the setting takes it) into value; with in_group, the
 * steps counted are those of the shown step's group alone (kind_sequence.
 * group). CS_EUSAGE with a sentence when the kind has no sequence or the
 * step would leave it ("already the first request"). */
int source_sequence_step(const struct source *src, long delta, bool in_group, char *value, size_t size,
			 struct cs_error *err);

#endif

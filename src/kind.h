/* kind.h: the four kinds of input (manifest, loom, ledger, memory) behind one
 * table of operations, and how a file's kind is told. Everything above this
 * (the command line, reports, the UI) works on any kind through this table;
 * a new kind adds its folder src/kinds/<kind>/ (kind.c holds its kind_ops,
 * settings and sort keys; load.c parses) and one line in kind.c. */
#ifndef CTXSCOPE_KIND_H
#define CTXSCOPE_KIND_H

#include "base/atomic_write.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct asm_run;
struct assembly;
struct cache_overrides;
struct cache_profile;
struct emitter;
struct setting;
struct source;
struct strbuf;

/* What a kind's own key does to the kind setting it names. */
enum kind_action_do {
	KIND_ACTION_TOGGLE, /* flips a switch (an option without an argument) */
	KIND_ACTION_CYCLE,  /* steps an option through its choices */
};

/* A key only this kind has (a loom tree's loom-aware switch, a memory
 * snapshot's archetype): the inspector binds it, and its footer help and
 * `?` list it, for this kind only. */
struct kind_action {
	const char *key;          /* as actions.h names keys: "L" */
	const char *name;         /* "loom-aware" */
	const char *help;         /* one line for `?` */
	enum kind_action_do what;
	const char *option;       /* the kind setting it acts on (setting.h) */
};

/* A sequence the input holds (a log's requests, a session's requests, a
 * tree's model turns, a snapshot's updates): the assembly shows one of its
 * steps, and `[` `]` step to the one before or after it, from any view.
 * A step is chosen through a kind setting (`setting`, 1-based), so stepping
 * is an edit like any other: undone, redone, saved to a what-if file,
 * given as --SETTING N on the command line. */
struct kind_sequence {
	const char *noun;    /* one step, for people: "request" */
	const char *setting; /* the kind setting (kind_ops.settings) that picks it: "request" */
	/* The number of steps, and the one shown now (0-based). */
	size_t (*count)(const struct source *src);
	size_t (*current)(const struct source *src);
	/* Optional: the steps `[` `]` may reach, [*first, *last] (0-based);
	 * NULL: all of them. */
	void (*reach)(const struct source *src, size_t *first, size_t *last);
	/* Optional: the group step `step` belongs to, in words ("B
	 * claude-3-5-haiku-20241022": a cache of its own), into buf; NULL when
	 * the input holds one group only. `[` `]` stay within the group shown,
	 * `{` `}` step across. */
	const char *(*group)(const struct source *src, size_t step, char *buf, size_t size);
};

/* What a kind's save wrote, in a sentence, or why it did not. */
struct kind_save_result {
	bool written;  /* false: nothing to save (the file already holds it) */
	size_t values; /* values written */
	size_t removed; /* entries removed */
	struct atomic_write_result write; /* the .bak, a refusal, a split link, ... */
};

#define KIND_COLUMN_WIDTH 15 /* kind_ops.piece_column */

struct kind_ops {
	const char *name;   /* the --kind value: "manifest" */
	const char *title;  /* for people: "working-set manifest" */
	const char *id_key; /* what a piece id is called in reports: "path", "node" */
	/* Detection: a JSON object with every one of these top-level keys is of
	 * this kind (NULL-terminated; NULL for none); or a file with one of
	 * these extensions (NULL-terminated; NULL for none). */
	const char *const *json_keys;
	const char *const *extensions;
	/* The kind's own settings (setting.h): --NAME VALUE, `:set NAME VALUE`,
	 * --help; terminated by a NULL name; may be NULL. */
	const struct setting *settings;
	const int *piece_strategies;       /* STRAT_NONE-terminated; NULL: pieces have none */
	const int *global_strategies;      /* STRAT_NONE-terminated; NULL: none */
	/* The orders the piece list takes, NULL-terminated, the assembly's
	 * ("order") first: `s` cycles through them, `:sort KEY` picks one, the
	 * help and completion list them. Only keys that mean something for the
	 * kind ("priority" where pieces have one, "score" where they are scored). */
	const char *const *sort_keys;
	const struct kind_action *actions; /* the kind's own keys, terminated by a NULL key; may be NULL */

	/* Fills src (pieces, model, warnings) from the file's bytes. On error
	 * fills err (file is set by the caller) and returns its code. */
	int (*load)(struct source *src, const char *data, size_t len, struct cs_error *err);
	/* Runs the kind's assembly algorithm on run->src: asm_init (given the
	 * run), blocks, asm_finish. The run says what assemble() or
	 * assemble_lazy_from() asked for (assembly.h). */
	int (*assemble)(struct asm_run *run, struct assembly *out, struct cs_error *err);
	/* Frees src->model. NULL-safe on the model. */
	void (*free_model)(void *model);
	/* Optional: adds kind-specific report sections (emit.h). */
	int (*report_extra)(const struct source *src, const struct assembly *a, struct emitter *em);
	/* Optional: a one-line note on a piece for people (a companion hint),
	 * shown under its row in the text report and in the inspector; NULL
	 * when none. Borrowed from the source. */
	const char *(*piece_note)(const struct source *src, long piece);
	/* Optional: a narrow column of the inspector's list, between the label
	 * and the content: the piece's cell (at most KIND_COLUMN_WIDTH columns of
	 * display-safe text) into cell, from the source and the current
	 * assembly a (scores follow live edits); false when the piece has none.
	 * Its heading is column_title; column_sort names the sort key (one of
	 * sort_keys) whose values the column shows, NULL when none: the list
	 * highlights the heading while sorted by it. */
	bool (*piece_column)(const struct source *src, const struct assembly *a, long piece,
			     char cell[KIND_COLUMN_WIDTH + 1]);
	const char *column_title;
	const char *column_sort;
	/* Optional: adds kind-specific keys to one piece's entry in a report. */
	int (*report_piece)(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
	/* Optional, for kinds that read some files themselves by path (a
	 * database): true when a file's first n bytes are one of those. */
	bool (*sniff)(const char *head, size_t n);
	/* With sniff: fills src from the file at path (never written);
	 * `companion` is a second file the kind takes with it (--assembly-file),
	 * NULL for none. Errors as load. */
	int (*load_path)(struct source *src, const char *path, const char *companion, struct cs_error *err);
	/* Optional: content detection beyond top-level keys: *yes when the
	 * file (its path and bytes) is of this kind. Asked when no kind's
	 * json_keys matched. CS_OK, or CS_ENOMEM. */
	int (*detect)(const char *path, const char *data, size_t len, bool *yes);
	/* Optional: the kind writes `dump` itself (a provider request body as
	 * JSON, exclusions applied) instead of the generic prompt text. */
	int (*dump)(const struct assembly *a, bool raw, bool ascii, struct strbuf *out);
	/* With detect: what it looks for, for the error when nothing matched
	 * ("\"messages\" with \"system\"..."). */
	const char *detect_hint;
	/* Optional, for kinds whose file the inspector rewrites in place: saves
	 * src's edits into its file, or into `as` when not NULL (save-as).
	 * opt: how the write may replace what is there (atomic_write.h).
	 * CS_ESTATE when the file changed on disk since it was loaded (ask for
	 * another name); res says what was written. NULL: the kind's edits go
	 * to a what-if file instead. */
	int (*save)(struct source *src, const char *as, const struct atomic_write_options *opt,
		    struct kind_save_result *res, struct cs_error *err);
	/* With save: the headless `ctxscope save FILE [--output OTHER|-]`
	 * (--force: replace an existing or read-only file; "-": print the text
	 * that would be written); one sentence appended to said on success. */
	int (*save_command)(struct source *src, const char *output, bool force, struct strbuf *said,
			    struct cs_error *err);
	/* Optional: the timeline, one line per turn or request the input
	 * recorded: the cache predicted beside the usage recorded, as lines of
	 * text for the inspector's timeline view (i); text_flags as utf8.h's
	 * sanitizer takes them. With a sequence, step_at (NULL: not wanted)
	 * has sequence.count entries, SIZE_MAX on the way in: the offset in
	 * out where each step's line starts, for the view's cursor (Enter
	 * shows that step). CS_OK or the error. */
	int (*timeline)(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			struct cs_error *err);
	/* With timeline: what it sets beside what, for the view's title; NULL:
	 * "the cache predicted beside the usage recorded". */
	const char *timeline_title;
	/* Optional: called after every edit (edit.h) and its revert, for what
	 * the kind derives from the pieces' state (a request log's cache
	 * predictions, which follow exclusions). CS_OK or the error. */
	int (*edited)(struct source *src, struct cs_error *err);
	/* Optional: a clause on what the edits did beyond the prompt shown (a
	 * request log: the cache over the whole log), appended to the status
	 * after every edit; nothing appended when none. */
	void (*edit_effect)(const struct source *src, struct strbuf *out);
	/* Optional: the user's breakpoints (cache.h overrides: the inspector's
	 * M, --breakpoint) changed, for kinds whose own predictions place them
	 * (a request log's cache across its requests); the assembly is made
	 * again after it. CS_OK or the error. */
	int (*breakpoints_edited)(struct source *src, const struct cache_overrides *o, struct cs_error *err);
	/* Optional: the cache profile (cache.h) the input itself names (an
	 * OpenAI request: "openai"), used unless --profile or :profile says
	 * otherwise; NULL from it: the configured default. */
	const char *(*cache_profile)(const struct source *src);
	/* Optional: writes the figures of the model the current prompt goes
	 * to (its minimum prefix, multipliers and price) over p, a copy of the
	 * profile in use, when they are that provider's; returns the model's
	 * name, or NULL when p is left as it was (another provider's profile,
	 * a model without figures). */
	const char *(*cache_tune)(const struct source *src, struct cache_profile *p);
	/* Optional: the sequence the input holds ([ ] step through it). */
	const struct kind_sequence *sequence;
};

/* Every kind, NULL-terminated, in detection order. */
extern const struct kind_ops *const kind_table[];

/* The kind named `name`, or NULL. */
const struct kind_ops *kind_by_name(const char *name);

/* "PNG", "JPEG", "GIF" or "WebP" when data opens as that image; NULL
 * otherwise (no kind reads an image: load says so, whatever --kind says). */
const char *kind_image_type(const char *data, size_t len);
/* Tells the kind of a file from its name and bytes (ctxscope-formats(5): .yml/.yaml
 * is a manifest; a JSON object by its top-level keys). CS_EKIND with a
 * sentence naming the keys expected when nothing matches. */
int kind_detect(const char *path, const char *data, size_t len, const struct kind_ops **out,
		struct cs_error *err);

/* The index of sort key `name` in kind's sort_keys, or -1. */
int kind_sort_key(const struct kind_ops *kind, const char *name);
/* "order, tokens or priority": the kind's sort keys for a sentence. */
void kind_sort_keys_text(const struct kind_ops *kind, const char *last_sep, struct strbuf *out);

#endif

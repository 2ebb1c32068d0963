/* kind.h: the four kinds of input (manifest, loom, ledger, memory) behind one
 * table of operations, and how a file's kind is told. Everything above this
 * (the command line, reports, the UI) works on any kind through this table;
 * a new kind adds one kind_ops and one line in kind.c. */
#ifndef CTXSCOPE_KIND_H
#define CTXSCOPE_KIND_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

struct assembly;
struct emitter;
struct source;
struct strbuf;

/* A kind's own setting: --NAME VALUE on the command line, `:set NAME VALUE`
 * in the UI, listed by --help. */
struct kind_option {
	const char *name; /* "min-recent" */
	const char *arg;  /* "N"; NULL for a switch (its value is "true"/"false") */
	const char *help; /* one line */
	const char *const *choices; /* the values it takes, NULL-terminated, for
	                               cycling through them; NULL when free-form */
};

/* What a kind's own key does to the kind option it names. */
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
	const char *option;       /* the kind option it acts on */
};

/* What a kind's save wrote, in a sentence, or why it did not. */
struct kind_save_result {
	bool written;  /* false: nothing to save (the file already holds it) */
	size_t values; /* values written */
	size_t removed; /* entries removed */
};

struct kind_ops {
	const char *name;   /* the --kind value: "manifest" */
	const char *title;  /* for people: "working-set manifest" */
	const char *id_key; /* what a piece id is called in reports: "path", "node" */
	/* Detection: a JSON object with every one of these top-level keys is of
	 * this kind (NULL-terminated; NULL for none); or a file with one of
	 * these extensions (NULL-terminated; NULL for none). */
	const char *const *json_keys;
	const char *const *extensions;
	const struct kind_option *options; /* terminated by a NULL name; may be NULL */
	const int *piece_strategies;       /* STRAT_NONE-terminated; NULL: pieces have none */
	const int *global_strategies;      /* STRAT_NONE-terminated; NULL: none */
	const struct kind_action *actions; /* the kind's own keys, terminated by a NULL key; may be NULL */

	/* Fills src (pieces, model, warnings) from the file's bytes. On error
	 * fills err (file is set by the caller) and returns its code. */
	int (*load)(struct source *src, const char *data, size_t len, struct cs_error *err);
	/* Sets a kind option from text; CS_EUSAGE with a sentence when the
	 * name is unknown or the value wrong. May be NULL when options is. */
	int (*set_option)(struct source *src, const char *name, const char *value, struct cs_error *err);
	/* The option's current value as text into out (for undo and display).
	 * Returns CS_EUSAGE for an unknown name. May be NULL when options is. */
	int (*get_option)(const struct source *src, const char *name, struct strbuf *out);
	/* Runs the kind's assembly algorithm: asm_init, blocks, asm_finish. */
	int (*assemble)(const struct source *src, struct assembly *out, struct cs_error *err);
	/* Frees src->model. NULL-safe on the model. */
	void (*free_model)(void *model);
	/* Optional: adds kind-specific report sections (emit.h). */
	int (*report_extra)(const struct source *src, const struct assembly *a, struct emitter *em);
	/* Optional: a one-line note on a piece for people (a companion hint),
	 * shown under its row in the text report and in the inspector; NULL
	 * when none. Borrowed from the source. */
	const char *(*piece_note)(const struct source *src, long piece);
	/* Optional: adds kind-specific keys to one piece's entry in a report. */
	int (*report_piece)(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
	/* Optional, for kinds that read some files themselves by path (a
	 * database): true when a file's first n bytes are one of those. */
	bool (*sniff)(const char *head, size_t n);
	/* With sniff: fills src from the file at path (never written);
	 * `companion` is a second file the kind takes with it (--assembly),
	 * NULL for none. Errors as load. */
	int (*load_path)(struct source *src, const char *path, const char *companion, struct cs_error *err);
	/* Optional, for kinds whose file the inspector rewrites in place: saves
	 * src's edits into its file, or into `as` when not NULL (save-as).
	 * CS_ESTATE when the file changed on disk since it was loaded (ask for
	 * another name); res says what was written. NULL: the kind's edits go
	 * to a what-if file instead. */
	int (*save)(struct source *src, const char *as, struct kind_save_result *res, struct cs_error *err);
};

/* Every kind, NULL-terminated, in detection order. */
extern const struct kind_ops *const kind_table[];

/* The kind named `name`, or NULL. */
const struct kind_ops *kind_by_name(const char *name);

/* Tells the kind of a file from its name and bytes (formats.md: .yml/.yaml
 * is a manifest; a JSON object by its top-level keys). CS_EKIND with a
 * sentence naming the keys expected when nothing matches. */
int kind_detect(const char *path, const char *data, size_t len, const struct kind_ops **out,
		struct cs_error *err);

/* The kind's first option that lists its choices (NULL when none). */
const struct kind_option *kind_choice_option(const struct kind_ops *kind);

/* The kind's own action bound to `key` (actions.h codes), or NULL. */
const struct kind_action *kind_action_for_key(const struct kind_ops *kind, int key);

/* The kind option named `name` in kind (NULL when none). */
const struct kind_option *kind_option(const struct kind_ops *kind, const char *name);

#endif

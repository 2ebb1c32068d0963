/* loom.h: the loom-tree kind (seed 000, ctxscope-formats(5) section 1): an Aspen Grove
 * loom tree (nodes joined by continuation and annotation edges, with an
 * active path) assembled as a messages array (dialogue mode) or one document
 * (buffer mode), truncated by truncateMiddle, rollingWindow or stopAtLimit.
 * Pieces are the nodes the path uses: the path's own nodes, the context
 * sources of its edges (placed before their primary) and its instruction
 * sources (they go into the system context). Off-path nodes are not kept;
 * the counts loom-aware rendering needs (continuations, annotations,
 * branches) are computed from the whole tree at load and kept here. */
#ifndef CTXSCOPE_LOOM_H
#define CTXSCOPE_LOOM_H

#include "kind.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct kind_ops loom_kind;

#define LOOM_DEFAULT_MIN_RECENT 4      /* seed 000 preferences */
#define LOOM_DEFAULT_TOKEN_BUFFER 1024 /* seed 000 preferences */
#define LOOM_MAX_NODES 10000000        /* nodes; more is refused (ids are hashed in memory) */
#define LOOM_REPLAY_MAX 200            /* model nodes replayed (the last ones): each is an assembly */
#define LOOM_NO_TIME (-0x7fffffffffffffffLL - 1) /* a node without createdAt (LLONG_MIN) */

enum loom_mode { LOOM_DIALOGUE, LOOM_BUFFER };

/* What a piece is on the path. */
enum loom_use {
	LOOM_PRIMARY,     /* a node of the path itself */
	LOOM_CONTEXT,     /* a context source of a path edge, placed before its primary */
	LOOM_INSTRUCTION, /* an instruction source of a path edge: into the system context */
	LOOM_PINNED,      /* a pinned entry of the operational memory (loomAware) */
};

#define LOOM_NO_TOKENS (-1L) /* a response without a recorded count */

/* One per piece (piece->kind_index), in piece order. */
struct loom_item {
	enum loom_use use;
	const char *author_type;   /* "human" or "model"; a string literal */
	long long created_ms;      /* epoch milliseconds, LOOM_NO_TIME when absent */
	unsigned continuations;    /* continuation edges leaving it (whole tree) */
	unsigned annotations;      /* annotation edges leaving it (whole tree) */
	bool bookmarked;
	bool pruned;               /* metadata.pruned */
	bool via_annotation;       /* reached through an annotation edge on the path */
	bool include_annotation;   /* metadata.includeAnnotation: the override */
	size_t path_pos;           /* primary: its index on the path; context and instruction: the
				      index of the path node their edge leads to; pinned: 0 */
	/* The model node's recorded usage (rawApiResponses), when it has one. */
	long prompt_tokens;        /* tokenUsage.promptTokens; LOOM_NO_TOKENS when no response */
	long completion_tokens;    /* tokenUsage.completionTokens; LOOM_NO_TOKENS when absent */
	const char *response_id;   /* arena; NULL when no response */
	const char *provider;      /* arena; "" when absent */
	long long response_ms;     /* responseTimestamp, LOOM_NO_TIME when absent */
	long response_index;       /* its index in rawApiResponses, -1 when none */
};

struct loom_usage; /* the replayed requests, computed when first asked (usage.c) */
struct loom_prep;

/* The model's cache: what the kind keeps between assemblies to spare work.
 * Filled on first use and owned by the model (freed by loom_free_model),
 * it never changes what the tree means: prep holds what no edit changes,
 * the replays are kept with the settings they were made under
 * (chars_per_token, loom_aware) and made again when those differ. */
struct loom_cache {
	struct loom_usage *usage; /* the replays of the model nodes (usage.c); NULL until asked */
	struct loom_prep *prep;   /* what the assembly reads of each piece (prep.c); NULL until the
				   * first assembly */
};
/* The cache of src's model (a loom): the one place where a source held
 * read-only (const) is written, and only its cache. */
struct loom_cache *loom_cache(const struct source *src);

struct loom {
	enum loom_mode mode;
	const char *tree_id;         /* arena; "" when absent */
	const char *title;           /* arena; "" when absent */
	const char *agent_prompt;    /* trimmed systemPrompt of the path's model agent; arena; "" none */
	const char *agent_name;      /* arena; NULL when no model agent */
	const char *tree_context;    /* trimmed loomTree.systemContext; arena; "" none */
	bool buffer_system_context;  /* loomTree.bufferModeSystemContext */
	const char *working_buffer;  /* arena; "" none */
	size_t working_buffer_bytes;
	const char *permissions;     /* loomTree.permissions joined with ", "; NULL when absent */
	const char *model_ref;       /* arena; NULL when none */
	long limit;                  /* the model's context limit */
	const char *limit_source;    /* "model.contextLimit", "model table", "fallback" */
	int strategy;                /* preferences.truncationStrategy */
	long min_recent;             /* preferences.minimumRecentNodes */
	long min_recent_override;    /* --min-recent; -1: the input's */
	long token_buffer;           /* preferences.tokenBuffer */
	bool loom_aware;             /* render seed 000's loom-aware extensions */
	const char *path_source;     /* "path.nodeIds" or "walk-up from activeNodeId X" */
	long long latest_ms;         /* latest createdAt on the path, LOOM_NO_TIME when none */
	size_t nnodes, nedges;       /* whole tree */
	size_t branch_points;        /* nodes with more than one continuation leaving them */
	size_t depth;                /* nodes on the path */
	struct loom_item *items;     /* one per piece; cs_malloc'd */
	size_t nitems;
	/* seed 000's loom-aware extensions (loomAware; shown with loom_aware on) */
	const char *addendum;        /* loomAware.systemAddendum trimmed; arena; "" none */
	const char **recent_actions; /* operationalMemory.recentActions; arena */
	size_t nrecent;
	const char **stashes;        /* operationalMemory.stashes; arena */
	size_t nstashes;
	size_t npinned;              /* pinned entries (pieces whose use is LOOM_PINNED) */
	/* recorded usage (rawApiResponses) */
	size_t nresponses;           /* responses kept for model nodes on the path */
	size_t responses_off_path;   /* responses for model nodes the path does not use */
	size_t replay_pos;           /* SIZE_MAX; a replay: the path node whose request it assembles */
	long want_request;           /* the replay setting: the Nth model node's request (1-based); -1 the next */
	struct loom_cache cache;     /* kept between assemblies (loom_cache) */
};

/* Per piece (by piece index), what no edit changes, for the assembly
 * (prep.c): made once by loom_prepare. */
#define LOOM_PREP_ROLES 255 /* roles told apart by number; more share the last and compare by text */
enum {
	LOOM_PREP_EXCLUDED = 1u << 0,   /* the input excludes it (metadata.excluded) */
	LOOM_PREP_PRUNED = 1u << 1,     /* metadata.pruned */
	LOOM_PREP_ANNOTATION = 1u << 2, /* reached through an annotation edge, not included */
	LOOM_PREP_NO_BYTES = 1u << 3,   /* its text is empty */
	LOOM_PREP_BLANK = 1u << 4,      /* its text is empty after trimming white space */
};
struct loom_prep {
	unsigned char *use;          /* enum loom_use */
	unsigned char *bits;         /* LOOM_PREP_* */
	unsigned short *role;        /* a number per distinct role (loom_prep_same_role) */
	size_t *cp;                  /* the text's code points */
	long *tok;                   /* per piece, its block's tokens alone, then merged (the blank
				      * line before it) at tok_cpt chars a token; NULL until asked */
	double tok_cpt;
	size_t n;
	const char *roles[LOOM_PREP_ROLES]; /* borrowed from the pieces */
	unsigned short nroles;
	/* for a replay and the lists of one use, so that neither walks every piece */
	unsigned *pos;               /* per piece, loom_item.path_pos */
	long *model;                 /* the model nodes on the path (replayable), in piece order */
	size_t nmodel;
	long *at_pos;                /* per path position, its primary piece; -1 none */
	long long *latest;           /* [p]: the latest createdAt of the path nodes before position p
				      * (LOOM_NO_TIME none); depth + 1 of them */
	size_t depth;                /* the model's depth when made */
	long *instr, *pinned;        /* the instruction sources and the pinned entries, in piece order */
	size_t ninstr, npinned;
	/* per piece, the user's exclusion (piece.user_excluded) as of edit user_edits of the
	 * pieces user_of, kept in step through the source's edit log (loom_prep_user) */
	signed char *user;
	const struct piece *user_of; /* NULL: not made */
	unsigned long user_edits;
	void *scratch;               /* an assembly's working arrays, kept from one run to the next
				      * (assemble.c carves them) */
};

/* Makes src's model's prep when it has none (the model is a cache here,
 * as for the replays: src is otherwise untouched). CS_OK or CS_ENOMEM. */
int loom_prepare(const struct source *src);
/* Per piece i (the prep made), [2i] the tokens of its text alone, [2i+1]
 * with the blank line of a merge, at chars_per_token; owned by the prep,
 * valid until the next call; NULL on out of memory. */
const long *loom_prep_tokens(const struct source *src, double chars_per_token);
/* Per piece, its user_excluded, a byte each (the prep made): for the
 * inspector's assemblies (lazy: the run's asm_run.lazy), whose every change of it is an edit
 * the source's log names, so only those pieces are read again; else, or
 * when the log does not reach back, every piece is. Owned by the prep;
 * NULL on out of memory. */
const signed char *loom_prep_user(const struct source *src, bool lazy);
/* Whether pieces a and b have the same role (the prep made). */
bool loom_prep_same_role(const struct source *src, long a, long b);
/* NULL-safe. */
void loom_prep_free(struct loom_prep *pr);
/* The kind's free_model: the prep, then the loader's model (loom_free). */
void loom_free_model(void *model);

/* One model node's request replayed (usage.c); the rows of struct loom_usage. */
struct loom_usage_row {
	long piece;                  /* the model node */
	long estimate;               /* the replayed request's estimated tokens */
	long recorded;               /* tokenUsage.promptTokens; LOOM_NO_TOKENS when no response */
	long exact;                  /* the exact count of the replay, -1 when no public tokenizer */
	bool refused;                /* the replay is an error state (no message, over the limit...) */
	char *note;                  /* its sentence for people, made when first asked; owned */
};

struct loom_usage {
	double chars_per_token;      /* the settings it was computed under */
	bool loom_aware;
	struct loom_usage_row *rows; /* every model node on the path, in path order; owned */
	size_t n;
	size_t nrecorded;            /* rows with a recorded usage (the sums are theirs) */
	size_t first;                /* model nodes before the first row (past LOOM_REPLAY_MAX) */
	long estimate_sum, recorded_sum, exact_sum; /* exact_sum -1 when not every row has one */
	const char *encoding;        /* the exact tokenizer used, NULL none */
};

/* The model nodes on the path (each the answer to a request), counted;
 * for k below the count, the k-th one's path position and piece (either
 * may be NULL). */
size_t loom_model_node(const struct source *src, size_t k, size_t *pos, long *piece);

/* The replays of every model node on the path (those with a recorded usage
 * summed), under the source's settings (cached in the model). CS_OK, CS_ENOMEM, or
 * an assembly error. */
int loom_usage_get(const struct source *src, const struct loom_usage **out, struct cs_error *err);

/* Assembler (assemble.c), through loom_kind.assemble. */
struct asm_run;
int loom_assemble(struct asm_run *run, struct assembly *out, struct cs_error *err);

/* Parses an ISO 8601 time ("2026-01-30T10:00:00Z", fractions and +hh:mm
 * offsets allowed; a date alone is midnight UTC) into epoch milliseconds.
 * false when the text is not one. */
bool loom_parse_time(const char *s, long long *out_ms);

/* "3 minutes ago" for `ms` against `now_ms` into buf (at least 32 bytes). */
const char *loom_relative_time(char buf[32], long long ms, long long now_ms);

#endif

/* memory.h: the memory-snapshot kind (seed 003, ctxscope-formats(5) section 4): the
 * memory framework's scored context builder. A snapshot holds a query, a
 * token budget, an archetype preset, a strategy (three weights, four budget
 * allocations) and scored items; the assembler runs the seed's two passes
 * (each source query keeps its share by its own score, then a greedy
 * selection by final score within the budget) and renders the seed's
 * markdown sections. Each item is a piece (id = its id,
 * role = its type); the model keeps the scores and the strategy, which the
 * user changes live through the kind's options (weight, allocation,
 * archetype, allocation-caps). */
#ifndef CTXSCOPE_MEMORY_H
#define CTXSCOPE_MEMORY_H

#include "kind.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct kind_ops memory_kind;

#define MEMORY_MAX_ITEMS 1000000 /* items; more is refused (each costs a piece) */

/* Item types in section order. X(enum, type name, section title) */
#define MEMORY_TYPES(X)                                   \
	X(MEM_EVENT, "event", "Recent Activity")          \
	X(MEM_CHUNK, "chunk", "Relevant Content")         \
	X(MEM_ENTITY, "entity", "Known Entities")         \
	X(MEM_RELATION, "relation", "Relationships")      \
	X(MEM_PATTERN, "pattern", "Applicable Patterns")

enum memory_type {
#define MEM_X_ENUM(e, name, title) e,
	MEMORY_TYPES(MEM_X_ENUM)
#undef MEM_X_ENUM
	MEM_TYPE_COUNT
};

#define MEMORY_SECTION_ADDITIONAL MEM_TYPE_COUNT /* layer of the Additional Context section */
#define MEMORY_NSECTIONS (MEM_TYPE_COUNT + 1)

/* The three weights. X(enum, option name, snapshot key) */
#define MEMORY_WEIGHTS(X)                               \
	X(MW_RECENCY, "recency", "recencyWeight")       \
	X(MW_RELEVANCE, "relevance", "relevanceWeight") \
	X(MW_SALIENCE, "salience", "salientWeight")

enum memory_weight {
#define MW_X_ENUM(e, name, key) e,
	MEMORY_WEIGHTS(MW_X_ENUM)
#undef MW_X_ENUM
	MW_COUNT
};

/* The four budget allocations (percent of the budget), each the share of
 * one item type. X(enum, name = snapshot key, item type) */
#define MEMORY_ALLOCATIONS(X)                   \
	X(MA_RECENT, "recent", MEM_EVENT)       \
	X(MA_SEMANTIC, "semantic", MEM_CHUNK)   \
	X(MA_ENTITIES, "entities", MEM_ENTITY)  \
	X(MA_RELATIONS, "relations", MEM_RELATION)

enum memory_allocation {
#define MA_X_ENUM(e, name, type) e,
	MEMORY_ALLOCATIONS(MA_X_ENUM)
#undef MA_X_ENUM
	MA_COUNT
};

/* Archetype presets (ctxscope-formats(5) section 4). */
struct memory_preset {
	const char *name;
	double weights[MW_COUNT];
	double allocation[MA_COUNT];
};

/* Why the request's filters (the seed's ContextFilters) removed an item. */
enum memory_filter {
	MF_NONE,         /* it passes */
	MF_SINCE,        /* an event at or before filters.since */
	MF_EVENT_TYPES,  /* an event whose type is not in filters.eventTypes */
	MF_ENTITY_TYPES, /* an entity whose type is not in filters.entityTypes */
	MF_EXCLUDE,      /* its id is in filters.exclude */
};

/* Scores the loader derived, not given (memory_item.derived bits). */
#define MEMORY_DERIVED_RECENCY (1u << MW_RECENCY)   /* exp(-ageHours / 24) from the timestamp */
#define MEMORY_DERIVED_SALIENCE (1u << MW_SALIENCE) /* 0.5, the seed's default for events */

struct memory_item {
	long piece;                /* its piece */
	int type;                  /* enum memory_type */
	double scores[MW_COUNT];   /* recency, relevance, salience: as given, else derived (see derived), else 0 */
	unsigned given;            /* bit w: scores[w] came from the snapshot */
	unsigned derived;          /* MEMORY_DERIVED_* */
	long tokens;               /* what the framework budgets: the item's `tokens`, else the estimate */
	bool tokens_given;         /* `tokens` came from the snapshot */
	const char *timestamp;     /* as given (ISO text), NULL when absent; arena */
	const char *task_id;       /* `taskId` (the task stack's frame), NULL when absent; arena */
	long arrival;              /* a new event's place in newEvents (0-based), -1 for an item */
	bool has_ms;               /* the timestamp (the item's, else its raw event's) read as a time */
	long long ms;              /* that time, milliseconds since 1970 */
	double age_hours;          /* from the snapshot's now, when the recency is derived */
	double weight;             /* a relation's weight (its query ranks by it); NAN when not given */
	const char *subtype;       /* an event's or entity's own type (raw record's, or eventType/entityType); NULL */
	int filtered;              /* enum memory_filter */
	const char *note;          /* the derived scores for people, NULL when none; arena */
};

/* The request's filters (the seed's ContextFilters), as the snapshot gives them. */
struct memory_filters {
	bool has_since;
	long long since_ms;
	const char *since_text;    /* as written (or the ms as ISO); arena */
	const char **event_types;  /* NULL: no eventTypes filter; arena */
	size_t nevent_types;
	const char **entity_types; /* NULL: no entityTypes filter; arena */
	size_t nentity_types;
	const char **exclude;      /* arena */
	size_t nexclude;
	size_t removed;            /* items the filters removed */
};

/* The task stack (ctxscope-formats(5) section 4b; stack.c). */
enum memory_frame_status { MF_ACTIVE, MF_COMPLETE, MF_BLOCKED };

struct memory_frame {
	const char *id, *goal;     /* arena */
	const char *result;        /* NULL when absent; arena */
	long parent;               /* index into frames, -1 for a root */
	int status;                /* enum memory_frame_status */
	long depth;                /* as given, -1 when absent */
};

struct memory_stack {
	struct memory_frame *frames; /* cs_malloc'd; NULL when the snapshot has no taskStack */
	size_t nframes;
	long current;                /* index of the current frame */
	bool task_ids;               /* some item carries a taskId */
};

/* How the context is assembled: the task stack's layers around the builder,
 * or the builder alone. The `assembly` setting's choices, in this order. */
enum memory_assembly { MEMORY_ASSEMBLY_STACK, MEMORY_ASSEMBLY_LINEAR };

/* How newEvents are replayed (ctxscope-formats(5) 4b): the seed's updateContext as
 * written (sort ascending, pop(): the highest score goes; tokenCount claimed
 * = budget), or as its comment intends (the lowest go until it fits). */
enum memory_incremental { MEMORY_AS_WRITTEN, MEMORY_AS_INTENDED };

struct memory_strategy {
	int archetype;             /* index into memory_presets(), -1 none */
	double weights[MW_COUNT];
	double allocation[MA_COUNT]; /* percent of the budget */
};

/* One item in score order, with what the builder's passes read, so they
 * walk one array in order instead of pieces and items at random (rank.c
 * keeps it; the builder refreshes the fields an edit can change). */
struct memory_slot {
	double score;
	size_t index; /* piece */
	long tokens;
	int type;     /* enum memory_type */
	int share;    /* enum memory_allocation, -1 none */
	bool excluded;
	int filtered; /* enum memory_filter */
	int held;     /* REASON_NONE, or why this build holds it out (memory_held_out) */
	long full_tokens; /* before compression (= tokens when not compressed) */
	double own;       /* its score in its own query (memory_own_score) */
	const char *own_name; /* memory_own_score_name */
	const struct memory_item *item;
};

/* Pass 1's view of one item, in pass1_order. */
struct memory_pass1 {
	size_t rank; /* its place in the kept score order */
	long tokens;
	int share;
};

/* A score order kept for one set of weights; order NULL: a free entry. */
#define MEMORY_RANKINGS 4
struct memory_ranking {
	double weights[MW_COUNT];
	size_t *order;       /* the pieces, by final score descending, ties in input order */
	unsigned long used;  /* rank_clock when last used */
};

/* One item's decision in a build, by rank (assemble.c, patch.c). */
struct memory_decision {
	int reason;      /* REASON_NONE: in */
	long left;       /* pass 2: budget left when it was considered */
	long share_used; /* pass 1: its share's tokens kept then */
};

#define MEMORY_NREASONS 32 /* room for every enum reason (patch.c checks) */

/* What an edit can change of an item, by piece. */
struct memory_flags {
	unsigned char excluded, filtered, held;
};

/* The last build, kept so that the next one, when only exclusions changed
 * since (the source's edit log says which), re-decides from the first rank
 * an exclusion can change and stops where the passes' state meets the
 * kept one again (patch.c); the assembly then patches the results of the
 * assembly these decisions were written into (serial), when it takes them
 * over (asm_init_reuse): the re-decided items' alone; else it writes them
 * all from these arrays in input order. Kept from the inspector's builds
 * and those that follow an edit (a report, which edits nothing, keeps
 * none). */
struct memory_kept {
	bool valid;
	/* what the build read besides exclusions: a build with other values starts from nothing */
	const struct piece *pieces;
	size_t n;
	struct memory_strategy cur;
	bool caps;
	int assembly;
	long step, stack_current, budget_setting, max_tokens, budget;
	double chars_per_token;
	unsigned long layout;
	unsigned long edits;          /* the source's edits then */
	/* the decisions */
	struct memory_decision *dec;  /* by rank */
	struct memory_flags *flags;   /* by piece */
	unsigned char *rreason;       /* by rank: dec[k].reason */
	unsigned char *preason;       /* by piece: its reason */
	long *why1;                   /* by piece: over budget, the tokens left; over allocation, its share's kept; else 0 */
	long *full;                   /* by piece: its item's tokens */
	size_t *pass1_pos;            /* by piece: its place in pass1_order, (size_t)-1 none; NULL until caps are on */
	size_t share_end[MA_COUNT];   /* share s's entries in pass1_order end there (start: the previous one's end) */
	long share_used[MA_COUNT];
	size_t dropped_budget, dropped_alloc, scored;
	unsigned long patched;        /* builds made by patching (tests) */
	/* what a patched build reads instead of walking every rank */
	size_t *in;                   /* the ranks in, ascending */
	size_t nin, cap_in;
	size_t cut;                   /* the first rank either pass dropped (the cutoff's), SIZE_MAX none */
	size_t nreason[MEMORY_NREASONS]; /* ranks by their reason */
	size_t *touched;              /* the ranks the last patch re-decided (their results are the ones to write) */
	size_t ntouched, cap_touched;
	unsigned char *mark;          /* a bit per rank, clear between patches */
	unsigned long serial;         /* the assembly whose results these decisions are (assembly.serial), 0 none */
	unsigned long serial_alike;   /* another assembly with the very same results (a build that re-decided
				       * nothing: the baseline's, made after the inspector's first), 0 none */
	unsigned long reused;         /* builds that patched the previous results in place (tests) */
};

/* The model's cache: what the builder keeps between builds to spare work
 * (score orders, pass 1's order, the last build's decisions), owned by the
 * model (memory_free). It changes no result: scores and own scores
 * never change after load, so each part is kept under the key it was made
 * for (the weights, the layout), and the last build is taken over only
 * when memory_kept_matches says nothing else changed. */
struct memory_cache {
	/* The score orders of the last weights used (rank.c), kept by the
	 * builder so that an edit that leaves the weights alone (an exclusion,
	 * the budget) sorts nothing, and one back to weights used lately (an
	 * undo, a preset tried again) neither. Scores never change after load,
	 * so the weights are the whole key. The assembler reads the source as
	 * const: these are the model's own and change no result. */
	struct memory_ranking rankings[MEMORY_RANKINGS];
	unsigned long rank_clock;
	const size_t *rank_order;   /* the last build's order (the pieces, descending) */
	bool rank_valid;
	/* The items in that order, what every build reads of them (slots), and
	 * each piece's place in it (rank_of) and score (score_of); npieces each. */
	struct memory_slot *slots;
	size_t *rank_of;
	double *score_of;
	double slot_weights[MW_COUNT];
	bool slots_valid;
	/* Pass 1's order: the pieces with a share grouped by share, each by its
	 * source's own score, descending (ties: input order), npass1 of them.
	 * Own scores never change after load: built once. cs_malloc'd, owned. */
	size_t *pass1_order;
	size_t npass1;
	bool pass1_valid;
	/* The same entries' tokens and share (built with pass1_order), and
	 * their place in the kept score order (for layout pass1_layout). */
	struct memory_pass1 *pass1;
	unsigned long layout, pass1_layout; /* rank.c counts the slots' layouts */
	struct memory_kept *kept;   /* the last build (patch.c), NULL none; cs_malloc'd, owned */
};
/* The cache of src's model (a memory snapshot): the one place where a
 * source held read-only (const) is written, and only its cache. */
struct memory_cache *memory_cache(const struct source *src);

struct memory {
	const char *query;          /* NULL when absent; arena */
	long max_tokens;            /* the snapshot's maxTokens */
	struct memory_strategy input; /* as loaded: preset merged with the snapshot's strategy */
	struct memory_strategy cur;   /* as the user set it */
	bool caps;                  /* pass 1 runs: each source query keeps its share (ctxscope-formats(5) section 4); false: skipped */
	bool compress;              /* compressContext on what does not fit (ctxscope-formats(5) 4b), off by default */
	int assembly;               /* enum memory_assembly; stack by default when there is a taskStack */
	struct memory_stack stack;
	size_t nnew;                /* newEvents: the last nnew of items[] */
	int incremental;            /* enum memory_incremental */
	long step;                  /* new events replayed, 0..nnew (loaded as nnew: all) */
	/* Build parameter (incremental.c sets it around each build; the
	 * assembler reads the source as const, like the rank cache): new
	 * events from this arrival on are held out of the builder. */
	size_t hold_from;
	bool quiet;                 /* build parameter: no sentences for what stayed out */
	const char *additional;     /* additionalContext, NULL or "" when none; arena */
	size_t additional_bytes;
	struct memory_item *items;  /* one per piece, in input order (cs_malloc'd) */
	size_t nitems;
	struct memory_cache cache;  /* kept between builds (memory_cache) */
	struct memory_filters filters;
	bool has_now;               /* a time to measure ages from: `now`, else the latest timestamp */
	long long now_ms;
	bool now_given;             /* from the snapshot's `now` */
};

#define MEMORY_DEFAULT_PRESET 0 /* coding: ctxscope-formats(5)'s example, for what a snapshot leaves out */

/* The presets, n of them into *n. Static storage. */
const struct memory_preset *memory_presets(size_t *n);
/* The preset named `name`, its index, or -1. */
int memory_preset_find(const char *name);
const char *memory_section_title(int section); /* 0..MEMORY_NSECTIONS-1; "" otherwise */

struct assembly;
struct piece;
/* formatContext's pieces, shared by the builder's render and the updates'
 * replay (assemble.c). A section's heading block ("## Title", "\n\n" before
 * it unless *first). */
void memory_render_heading(struct assembly *a, int sec, bool *first);
/* One item's block (`sep`: "\n\n" after the previous item); compressed when
 * `why` is not NULL: the "[would be summarized: full → tokens]" prefix and a
 * cut saying why. The block's index, -1 after running out of memory. */
long memory_render_item(struct assembly *a, const struct piece *p, long i, int sec, bool sep, long tokens, long full,
			const char *why);
/* The additional context, heading and text, when the snapshot has one: its
 * block's index, else -1. */
long memory_render_additional(const struct memory *m, struct assembly *a, bool *first);
const char *memory_allocation_name(int a);
/* The allocation (enum memory_allocation) an item type draws from, or -1 (patterns). */
int memory_allocation_of_type(int type);

/* True when s holds exactly its archetype's preset numbers. */
bool memory_matches_preset(const struct memory_strategy *s);

/* The kind's operations, for its table (kind.c); load.c and report.c. */
struct assembly;
struct emitter;
struct source;
int memory_load(struct source *src, const char *data, size_t len, struct cs_error *err);
void memory_free(void *model);
int memory_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
int memory_report_extra(const struct source *src, const struct assembly *a, struct emitter *em);
bool memory_piece_column(const struct source *src, const struct assembly *a, long piece,
			 char cell[KIND_COLUMN_WIDTH + 1]);

/* The request's filters and `now` (filters.c), read before the items;
 * then, once all items are in, the derived scores and each item's filter. */
struct json_doc;
struct arena;
struct cJSON;
int memory_read_filters(struct source *src, struct memory *m, const struct json_doc *d, const struct cJSON *root,
			struct cs_error *err);
int memory_derive(struct source *src, struct memory *m);
/* The score the item's own source query ranks by in pass 1: events by
 * recency, chunks by relevance, entities by salience, relations by weight
 * (else relevance). Patterns have no query share: their final score. */
double memory_own_score(const struct memory_item *it);
const char *memory_own_score_name(const struct memory_item *it);
/* The sentence for an item the filters removed (arena; NULL on out of memory). */
const char *memory_filter_sentence(const struct source *src, const struct memory_item *it, struct arena *ar);
/* The derived scores of a piece, for people; NULL when none. */
const char *memory_piece_note(const struct source *src, long piece);

/* finalScore = recency*recencyWeight + relevance*relevanceWeight + salience*salientWeight. */
double memory_final_score(const struct memory_item *it, const double weights[MW_COUNT]);
/* Makes m->rank_order, slots, rank_of and score_of those of weights,
 * sorting only for weights not among the last MEMORY_RANKINGS used (rank.c).
 * The slots' fields an edit can change (excluded, filtered, held, tokens)
 * are the caller's to refresh. false on out of memory (nothing kept valid). */
bool memory_rank(const struct memory *m, const struct source *src, const double weights[MW_COUNT]);
/* The score order for weights: a kept one, else sorted now into *owned
 * (the caller frees it; the kept orders are left alone). NULL on out of
 * memory. */
const size_t *memory_rank_order(const struct memory *m, const struct source *src, const double weights[MW_COUNT],
				size_t **owned);
/* Forgets every kept order and the kept build (load.c's free; tests
 * compare with a fresh sort). */
void memory_rank_forget(struct memory *m);

/* The kept build (patch.c). */
struct piece_result;
/* Keeps a build of src just made (budget: the builder's): takes dec and
 * flags (freed here when not kept), reads the rest of each piece from
 * results. Kept for the inspector (lazy: a run of assemble_lazy_from) or
 * after an edit; on out of memory nothing is. */
void memory_keep(const struct memory *m, const struct source *src, long budget, struct memory_decision *dec,
		 struct memory_flags *flags, const struct piece_result *results, const long share_used[MA_COUNT],
		 size_t dropped_budget, size_t dropped_alloc, size_t scored, unsigned long serial, bool lazy);
/* True when m->kept was made under the same values as a build of src now
 * (budget: the builder's, after the task stack) and the source's edit log
 * still names every edit since. */
bool memory_kept_matches(const struct memory *m, const struct source *src, long budget);
/* Re-decides from the kept build what the exclusions edited since change
 * (caps: each share's cap). false: not done (the log names another edit,
 * or out of memory): the kept build is no longer valid. */
bool memory_patch(const struct memory *m, const struct source *src, const long cap[MA_COUNT]);
/* Frees the kept build; NULL-safe. */
void memory_kept_free(struct memory_kept *k);

/* The task stack (stack.c). Reads the snapshot's optional `taskStack`
 * (positioned errors for a missing parent, a cycle, two current frames).
 * d and root are a json_doc and its root, as load.c has them. */
struct json_doc;
struct cJSON;
struct jpath;
int memory_stack_read(struct source *src, struct memory *m, const struct json_doc *d, const struct cJSON *root,
		      struct cs_error *err);
void memory_stack_free(struct memory_stack *st);
/* True when the stack-aware assembly is in force. */
bool memory_stack_on(const struct memory *m);
/* The stack's layers, in the section grouping after the sections, and in a
 * second grouping "stack" (root, path, siblings, current). */
#define MEMORY_STACK_LAYERS(X)                               \
	X(MSL_ROOT, "root", "Root Goal", 5)                  \
	X(MSL_PATH, "path", "Task Path", 15)                 \
	X(MSL_SIBLINGS, "siblings", "Completed Siblings", 10) \
	X(MSL_CURRENT, "current", "Current Task", 0)
enum memory_stack_layer {
#define MSL_X_ENUM(e, name, title, target) e,
	MEMORY_STACK_LAYERS(MSL_X_ENUM)
#undef MSL_X_ENUM
	MSL_COUNT
};
/* What the stack took before the builder runs. */
struct memory_stack_take {
	long seed_tokens;           /* estimateTokens([root, ...path, ...siblings].join("\n")) */
	long layer_tokens[MSL_COUNT]; /* each layer's own estimate (its texts joined by "\n") */
	long remaining;             /* budget - seed_tokens: the builder's maxTokens (may be negative) */
	size_t nframes[MSL_COUNT];  /* frames in each layer */
};
/* Moves the last fact to the front: the inspector's header line shows the
 * first facts, so what a mode changes is seen at a glance. */
void memory_fact_first(struct assembly *a);
/* The stack arithmetic alone (unit tests): fills take for budget. */
void memory_stack_measure(const struct memory *m, long budget, double chars_per_token,
			  struct memory_stack_take *take);
/* The groupings of the assembly (sections, and the stack's when on). */
int memory_groupings(const struct memory *m, struct assembly *a);
/* Renders the root, path and sibling layers (stack on), fills take; the
 * builder then runs with take->remaining. */
void memory_stack_render(const struct source *src, struct assembly *a, long budget, struct memory_stack_take *take);
/* True when item `it` is outside the current frame (stack on). */
bool memory_stack_off_task(const struct memory *m, const struct memory_item *it);
/* After the builder rendered: its blocks go in the stack's current layer;
 * the facts and warnings on the layers' targets. */
void memory_stack_explain(const struct source *src, struct assembly *a, long budget,
			  const struct memory_stack_take *take, size_t first_block);

/* Compression (compress.c): the seed's compressContext on the candidates
 * in rank order (descending score, ties in input order). Walks them lowest
 * score first (ties in input order, the seed's stable ascending sort);
 * while the total exceeds target, an eligible item's tokens become
 * floor(tokens / 3). out[k]: the tokens afterwards. Returns how many were
 * compressed. */
size_t memory_compress_plan(const double *score, const long *tokens, const bool *eligible, size_t n, long target,
			    long *out);

/* Incremental updates (incremental.c). */
/* The reason a build holds item `it` out (REASON_OFF_PATH: another task
 * frame's; REASON_LATER: a new event not in this build), REASON_NONE when
 * it takes part. */
int memory_held_out(const struct memory *m, const struct memory_item *it);
/* After read_item on newEvents[at]: an event, scores defaulted. */
struct json_doc;
int memory_new_event(struct memory *m, const struct json_doc *d, const struct cJSON *item, const struct jpath *at,
		     size_t i, struct cs_error *err);
/* One component of the context being updated. */
struct memory_component {
	long piece;
	double score;   /* relevanceScore: the final score; 1.0 for a new event */
	long tokens;
};
/* The context the updates work on: components in order, tokenCount. */
struct memory_context {
	struct memory_component *c; /* cs_malloc'd, room for cap */
	size_t n, cap;
	long token_count; /* what the context says (as-written: may not be the sum) */
	size_t sorted_from; /* [sorted_from, n) is in ascending score order (as-written keeps it); n or more: unknown */
};
/* What one update did. */
struct memory_update {
	long added;           /* the new event's piece, -1 when it did not go in */
	size_t ndropped;      /* how many went (as-written: at most one, the highest) */
	double dropped_score; /* the first dropped one's */
	bool overflow;        /* the total went over the budget */
	long total;           /* tokenCount + the new tokens, as the seed computes it */
};
/* updateContext: adds c at the start of ctx within budget, in mode; what
 * happened into *u; dropped pieces are appended to out_dropped (room for
 * ctx->n + 1). false on out of memory (ctx unchanged). */
bool memory_update(struct memory_context *ctx, struct memory_component c, long budget, int mode,
		   struct memory_update *u, long *out_dropped);
/* Replays new events 1..step on the builder's assembly; the assembler
 * when the snapshot has newEvents. */
int memory_assemble_incremental(struct asm_run *run, struct assembly *a, struct cs_error *err);
/* The builder (assemble.c): seed 003's buildContext, new events from
 * m->hold_from on held out. */
int memory_build(struct asm_run *run, struct assembly *a, struct cs_error *err);

/* Assembler (assemble.c), through memory_kind.assemble. */
struct asm_run;
int memory_assemble(struct asm_run *run, struct assembly *out, struct cs_error *err);

#endif

/* memory.h: the memory-snapshot kind (seed 003, formats.md section 4): the
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

/* Archetype presets (formats.md section 4). */
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

struct memory_strategy {
	int archetype;             /* index into memory_presets(), -1 none */
	double weights[MW_COUNT];
	double allocation[MA_COUNT]; /* percent of the budget */
};

struct memory {
	const char *query;          /* NULL when absent; arena */
	long max_tokens;            /* the snapshot's maxTokens */
	struct memory_strategy input; /* as loaded: preset merged with the snapshot's strategy */
	struct memory_strategy cur;   /* as the user set it */
	bool caps;                  /* pass 1 runs: each source query keeps its share (formats.md section 4); false: skipped */
	const char *additional;     /* additionalContext, NULL or "" when none; arena */
	size_t additional_bytes;
	struct memory_item *items;  /* one per piece, in input order (cs_malloc'd) */
	size_t nitems;
	/* The pieces in descending score for rank_weights (ties: input order),
	 * kept by memory_assemble so an edit that leaves the weights alone
	 * (an exclusion, the budget) does not sort again. Scores never change
	 * after load, so the weights are the whole key. cs_malloc'd, owned. */
	size_t *rank_order;
	double rank_weights[MW_COUNT];
	bool rank_valid;
	/* Pass 1's order: the pieces with a share grouped by share, each by its
	 * source's own score, descending (ties: input order), npass1 of them.
	 * Own scores never change after load: built once. cs_malloc'd, owned. */
	size_t *pass1_order;
	size_t npass1;
	bool pass1_valid;
	struct memory_filters filters;
	bool has_now;               /* a time to measure ages from: `now`, else the latest timestamp */
	long long now_ms;
	bool now_given;             /* from the snapshot's `now` */
};

#define MEMORY_DEFAULT_PRESET 0 /* coding: formats.md's example, for what a snapshot leaves out */

/* The presets, n of them into *n. Static storage. */
const struct memory_preset *memory_presets(size_t *n);
/* The preset named `name`, its index, or -1. */
int memory_preset_find(const char *name);
const char *memory_section_title(int section); /* 0..MEMORY_NSECTIONS-1; "" otherwise */
const char *memory_allocation_name(int a);
/* The allocation (enum memory_allocation) an item type draws from, or -1 (patterns). */
int memory_allocation_of_type(int type);

/* True when s holds exactly its archetype's preset numbers. */
bool memory_matches_preset(const struct memory_strategy *s);

/* The kind's operations, for its table (kind.c); load.c. */
struct assembly;
struct emitter;
struct source;
int memory_load(struct source *src, const char *data, size_t len, struct cs_error *err);
void memory_free(void *model);
int memory_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
int memory_report_extra(const struct source *src, const struct assembly *a, struct emitter *em);

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

/* Assembler (assemble.c), through memory_kind.assemble. */
int memory_assemble(const struct source *src, struct assembly *out, struct cs_error *err);

#endif

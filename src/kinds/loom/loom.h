/* loom.h: the loom-tree kind (seed 000, formats.md section 1): an Aspen Grove
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
#define LOOM_NO_TIME (-0x7fffffffffffffffLL - 1) /* a node without createdAt (LLONG_MIN) */

enum loom_mode { LOOM_DIALOGUE, LOOM_BUFFER };

/* What a piece is on the path. */
enum loom_use {
	LOOM_PRIMARY,     /* a node of the path itself */
	LOOM_CONTEXT,     /* a context source of a path edge, placed before its primary */
	LOOM_INSTRUCTION, /* an instruction source of a path edge: into the system context */
};

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
};

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
};

/* Assembler (assemble.c), through loom_kind.assemble. */
int loom_assemble(const struct source *src, struct assembly *out, struct cs_error *err);

/* Parses an ISO 8601 time ("2026-01-30T10:00:00Z", fractions and +hh:mm
 * offsets allowed; a date alone is midnight UTC) into epoch milliseconds.
 * false when the text is not one. */
bool loom_parse_time(const char *s, long long *out_ms);

/* "3 minutes ago" for `ms` against `now_ms` into buf (at least 32 bytes). */
const char *loom_relative_time(char buf[32], long long ms, long long now_ms);

#endif

/* loom_priv.h: internal to the loom loader's files (load.c, cycle.c,
 * pieces.c): the loader's working state while a tree is read, and the
 * helpers they share. Not for other modules. */
#ifndef CTXSCOPE_LOOM_PRIV_H
#define CTXSCOPE_LOOM_PRIV_H

#include "loom.h"

#include "base/arena.h"
#include "base/error.h"
#include "json/doc.h"
#include "source.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { EDGE_CONTINUATION, EDGE_ANNOTATION };
enum { SRC_PRIMARY, SRC_CONTEXT, SRC_INSTRUCTION };

struct tnode {            /* a node while loading; its strings in the loader's arena */
	const char *id;
	const char *local_id;
	const cJSON *json;    /* the node when the nodes are in the tree, else NULL: */
	size_t at;            /* where it starts in the text (json_doc_element) */
	int author;           /* 0 human, 1 model */
	long long created_ms;
	bool excluded, pruned, bookmarked, include_annotation;
	unsigned cont_out, ann_out;
	size_t in_first, in_count; /* incoming edges: in_edges[in_first ..) */
	long piece;           /* -1 until it becomes one */
};

struct tsource {
	size_t node;
	int role;
};

struct tedge {
	const char *id;
	int type;
	size_t index;         /* in edges[] */
	size_t target;
	size_t first_src, nsrc;
};

struct idmap {            /* open addressing: id -> index */
	const char **keys;
	size_t *vals;
	size_t mask;
};

struct loader {
	struct source *src;
	struct loom *m;
	struct json_doc doc;
	struct arena ids;     /* node and edge ids, local ids: freed with the loader */
	struct tnode *nodes;
	size_t nnodes;
	struct tedge *edges;
	size_t nedges;
	struct tsource *srcs;
	size_t nsrcs, srcs_cap;
	size_t *in_edges;
	struct idmap node_ids, edge_ids;
	size_t *path;         /* node indices root -> cursor */
	size_t *path_edge;    /* the edge into path[i] (SIZE_MAX for the root) */
	size_t npath;
	struct cs_error *err;
};

#define NONE SIZE_MAX

/* load.c */

/* Sets L->err to out of memory; returns CS_ENOMEM. */
int loom_nomem(struct loader *L);

/* A copy of s in the source's arena (owned by the source); NULL for NULL
 * or out of memory. */
char *loom_keep(struct loader *L, const char *s);

/* The node's assembled text appended to out (ctxscope-formats(5): non-text is a
 * literal stand-in). */
void loom_content_text(const cJSON *c, struct strbuf *out);

/* Node t's content object, parsed again from the text when the nodes were
 * read one at a time: valid until the next call. CS_ENOMEM. */
int loom_node_content(struct loader *L, const struct tnode *t, const cJSON **content);

/* cycle.c */

/* Fails, positioned at an edge, when the edges' primary sources make a
 * node its own ancestor, or give the root (NONE: not known yet) a parent. */
int loom_check_cycles(struct loader *L, size_t root);

/* pieces.c */

/* Narrows s[0..n) to drop leading and trailing ASCII white space. */
void loom_trim(const char **s, size_t *n);

/* Makes the pieces (owned by the source) of the nodes the path uses. */
int loom_make_pieces(struct loader *L);

/* A pinned entry of the operational memory as a piece (id "pinned:LABEL",
 * label LABEL, its text trimmed), after the path's pieces. */
int loom_add_pinned(struct loader *L, const char *label, const char *text);

/* memory.c */

/* Reads the optional loomAware object (ctxscope-formats(5) section 1): the system
 * addendum, the operational memory (pinned entries become pieces). Runs
 * after loom_make_pieces. */
int loom_read_loom_aware(struct loader *L, const cJSON *root);

/* usage.c */

/* Reads the optional rawApiResponses: each response's promptTokens onto
 * the model node it produced; a response naming no node or a node that is
 * not a model node is a positioned warning; of two for one node the later
 * responseTimestamp wins, with a warning. Runs after loom_make_pieces. */
int loom_read_responses(struct loader *L, const cJSON *root);

/* Frees the replays' cache (loom_free). */
void loom_usage_free(struct loom_usage *u);

/* The index of the node whose id is `id`, or NONE (load.c). */
size_t loom_node_index(const struct loader *L, const char *id);

/* A warning positioned at `at` (plus key), text prefixed with the path. */
int loom_warn_at(struct loader *L, long piece, const struct jpath *at, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

struct emitter;

/* The kind's operations, for its table (kind.c): load.c, and the report's
 * (report.c). */
int loom_load(struct source *src, const char *data, size_t len, struct cs_error *err);
void loom_free(void *model);
int loom_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
int loom_report_extra(const struct source *src, const struct assembly *a, struct emitter *em);
const char *loom_piece_note(const struct source *src, long piece);
bool loom_piece_column(const struct source *src, const struct assembly *a, long piece, char cell[KIND_COLUMN_WIDTH + 1]);
int loom_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err);

#endif

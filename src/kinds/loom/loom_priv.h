/* loom_priv.h: internal to the loom loader's files (load.c, cycle.c,
 * pieces.c): the loader's working state while a tree is read, and the
 * helpers they share. Not for other modules. */
#ifndef CTXSCOPE_LOOM_PRIV_H
#define CTXSCOPE_LOOM_PRIV_H

#include "loom.h"

#include "error.h"
#include "json_doc.h"
#include "source.h"
#include "strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { EDGE_CONTINUATION, EDGE_ANNOTATION };
enum { SRC_PRIMARY, SRC_CONTEXT, SRC_INSTRUCTION };

struct tnode {            /* a node while loading; points into the cJSON tree */
	const char *id;
	const char *local_id;
	const cJSON *json;
	const cJSON *content;
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
	struct tnode *nodes;
	size_t nnodes;
	struct tedge *edges;
	size_t nedges;
	struct tsource *srcs;
	size_t nsrcs;
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

/* The node's assembled text appended to out (formats.md: non-text is a
 * literal stand-in). */
void loom_content_text(const cJSON *c, struct strbuf *out);

/* cycle.c */

/* Fails, positioned at an edge, when the edges' primary sources make a
 * node its own ancestor, or give the root (NONE: not known yet) a parent. */
int loom_check_cycles(struct loader *L, size_t root);

/* pieces.c */

/* Narrows s[0..n) to drop leading and trailing ASCII white space. */
void loom_trim(const char **s, size_t *n);

/* Makes the pieces (owned by the source) of the nodes the path uses. */
int loom_make_pieces(struct loader *L);

/* The kind's operations, for its table (kind.c). */
int loom_load(struct source *src, const char *data, size_t len, struct cs_error *err);
void loom_free(void *model);
struct emitter;
int loom_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);

#endif

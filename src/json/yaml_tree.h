/* yaml_tree.h: a YAML document as a compact tree, built from libyaml's event
 * API (its document API costs ~13x the input). Every node keeps its start and
 * end marks, so loaders can name a line and column and the manifest saver can
 * splice values in place. An alias is a pointer to its anchored node, never a
 * copy; the "expanded weight" of the tree (nodes counted through aliases) is
 * bounded, so a billion-laughs document is refused at once.
 * Unsupported: tags are kept as text but not interpreted; only the first
 * document of a stream is used (later ones are parsed, then ignored). */
#ifndef CTXSCOPE_YAML_TREE_H
#define CTXSCOPE_YAML_TREE_H

#include "base/arena.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

#define YAML_MAX_DEPTH 256            /* nesting; deeper documents are refused */
#define YAML_MAX_EXPANDED 16000000    /* nodes counted through aliases: ~16x a 100k-file manifest */
#define YAML_MAX_ALIASES 100000       /* aliases in one document */

enum ynode_type { YNODE_SCALAR, YNODE_MAP, YNODE_SEQ };

/* A position as libyaml gives it: index and column count characters. */
struct ymark {
	size_t index;  /* characters from the start */
	size_t line;   /* 0-based */
	size_t column; /* 0-based, characters */
};

enum yscalar_style { YSTYLE_PLAIN, YSTYLE_SINGLE, YSTYLE_DOUBLE, YSTYLE_LITERAL, YSTYLE_FOLDED };

/* The small fields first, together: no padding between them (104 bytes a
 * node, not 112; a 100k-file manifest has 900k nodes). */
struct ynode {
	enum ynode_type type;
	unsigned dup_key;         /* map: children index of the first key seen twice, 0 if none */
	enum yscalar_style style;
	bool flow;                /* a flow collection ([..] or {..}) */
	bool via_alias;           /* reached through an alias somewhere (shared) */
	struct ymark start, end;
	const char *value;        /* scalar text (NUL-terminated; may hold NULs before len) */
	size_t len;
	struct ynode **children;  /* map: key, value, key, value...; seq: items */
	size_t nchildren;
	size_t weight;            /* nodes below and including this one, through aliases (saturating) */
};

struct ytree {
	struct arena arena;       /* owns every node and string */
	struct ynode *root;       /* NULL for an empty document */
};

/* Parses data as UTF-8 YAML. On a syntax error fills err with the 1-based
 * line and column and libyaml's words, and returns CS_ESYNTAX; CS_ELIMIT for
 * the limits above; CS_ENOMEM. Free with ytree_fini (also after failure). */
int ytree_parse(struct ytree *t, const char *data, size_t len, struct cs_error *err);
void ytree_fini(struct ytree *t);

/* The same building, fed one event at a time, for a reader that builds only
 * some parts of a document into nodes: ybuild_new starts t empty (free it
 * with ytree_fini), ybuild_event takes libyaml's events (the caller deletes
 * them) and builds as ytree_parse does; ybuild_take gives the last node
 * completed at the outermost level (a scalar, or a collection once its end
 * came), NULL if none, and forgets it. Anchors and aliases resolve within
 * one builder. Returns CS_OK, CS_ELIMIT or CS_ESYNTAX (an alias naming no
 * anchor) with err set as ytree_parse sets it, CS_ENOMEM. */
struct ybuilder;
struct yaml_event_s;
struct ybuilder *ybuild_new(struct ytree *t);
int ybuild_event(struct ybuilder *b, struct yaml_event_s *ev, struct cs_error *err);
struct ynode *ybuild_take(struct ybuilder *b);
void ybuild_free(struct ybuilder *b);
/* Fills *n as the tree's node for a scalar event, its value the event's
 * (NUL-terminated; valid until the event is deleted). */
void ynode_of_scalar(struct ynode *n, const struct yaml_event_s *ev);
/* An event's start (or end) mark as a node keeps it. */
struct ymark ymark_of_event(const struct yaml_event_s *ev, bool end);

/* The value for `key` in a map node (first match), or NULL. */
const struct ynode *ymap_get(const struct ynode *map, const char *key);
/* The key node of `key` in a map (for positions), or NULL. */
const struct ynode *ymap_key(const struct ynode *map, const char *key);
/* A duplicate key in map (its second occurrence), or NULL. O(1): the parser
 * checks every map's keys (hashed) as it closes the map. */
const struct ynode *ymap_duplicate(const struct ynode *map);
/* That check, for a map built by hand: sets map->dup_key to the children
 * index of the first key equal to an earlier one (0: none); a scan for a
 * few keys, a hash of them for more. CS_OK or CS_ENOMEM. */
int ymap_find_duplicate(struct ynode *map, struct cs_error *err);

/* Scalar helpers. ynode_is_null: absent, "~", "null", "Null", "NULL" or an
 * empty plain scalar. ynode_number: a plain scalar that is a finite number. */
bool ynode_is_null(const struct ynode *n);
bool ynode_number(const struct ynode *n, double *out);
const char *ynode_type_name(const struct ynode *n);

/* Sets err's line and column (1-based) from node's start and its path. */
void yerror_at(struct cs_error *err, const struct ynode *node, const char *path);
/* yerror_at, then the code and a sentence (printf-style). Returns code. */
int yfail(struct cs_error *err, const struct ynode *node, const char *path, enum cs_status code, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif

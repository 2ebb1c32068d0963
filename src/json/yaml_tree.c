/* yaml_tree.c: libyaml events into a compact tree (see yaml_tree.h). */
#include "json/yaml_tree.h"

#include "base/alloc.h"
#include "json/scan.h" /* text_position */
#include "base/strmap.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct frame {
	struct ynode *node;
	struct ynode **items; /* kept for the next collection at this depth; freed at the end */
	size_t n, cap;
};

struct anchor {
	const char *name;
	struct ynode *node;
};

struct ybuilder {
	struct ytree *t;
	struct frame stack[YAML_MAX_DEPTH + 1];
	size_t depth;
	struct anchor *anchors;
	size_t nanchors, cap_anchors;
	struct strmap anchor_index; /* name -> the latest anchor of that name */
	size_t aliases;
	struct ynode *doc_root;
	bool done; /* first document complete */
};

static struct ymark mark_of(yaml_mark_t m)
{
	return (struct ymark){ m.index, m.line, m.column };
}

static size_t sat_add(size_t a, size_t b)
{
	return a > (size_t)-1 - b ? (size_t)-1 : a + b;
}

static int push_child(struct ybuilder *b, struct ynode *node, struct cs_error *err)
{
	if (b->done)
		return CS_OK;
	if (b->depth == 0) {
		b->doc_root = node;
		return CS_OK;
	}
	struct frame *f = &b->stack[b->depth - 1];
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct ynode **items = cs_reallocarray(f->items, cap, sizeof *items);
		if (!items)
			return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
		f->items = items;
		f->cap = cap;
	}
	f->items[f->n++] = node;
	f->node->weight = sat_add(f->node->weight, node->weight);
	return CS_OK;
}

static int add_anchor(struct ybuilder *b, const unsigned char *name, struct ynode *node, struct cs_error *err)
{
	if (!name || b->done)
		return CS_OK;
	if (b->nanchors == b->cap_anchors) {
		size_t cap = b->cap_anchors ? b->cap_anchors * 2 : 8;
		struct anchor *a = cs_reallocarray(b->anchors, cap, sizeof *a);
		if (!a)
			return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
		b->anchors = a;
		b->cap_anchors = cap;
	}
	const char *copy = arena_strdup(&b->t->arena, (const char *)name);
	size_t old;
	if (!copy || strmap_put(&b->anchor_index, copy, strlen(copy), b->nanchors, &old))
		return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
	b->anchors[b->nanchors++] = (struct anchor){ copy, node };
	return CS_OK;
}

static struct ynode *find_anchor(struct ybuilder *b, const char *name)
{
	size_t i = strmap_get(&b->anchor_index, name, strlen(name)); /* the latest definition wins */
	return i == STRMAP_NONE ? NULL : b->anchors[i].node;
}

static bool same_key(const struct ynode *a, const struct ynode *b)
{
	return a->type == YNODE_SCALAR && b->type == YNODE_SCALAR && a->len == b->len &&
	       memcmp(a->value, b->value, a->len) == 0;
}

int ymap_find_duplicate(struct ynode *map, struct cs_error *err)
{
	struct ynode **c = map->children;
	size_t n = map->nchildren;
	if (n <= 16) {
		for (size_t i = 2; i + 1 < n; i += 2)
			for (size_t j = 0; j < i; j += 2)
				if (same_key(c[i], c[j])) {
					map->dup_key = (unsigned)i;
					return CS_OK;
				}
		return CS_OK;
	}
	struct strmap seen = STRMAP_INIT;
	int rc = CS_OK;
	for (size_t i = 0; i + 1 < n; i += 2) {
		size_t old;
		if (c[i]->type != YNODE_SCALAR)
			continue;
		if (strmap_put(&seen, c[i]->value, c[i]->len, i, &old)) {
			rc = cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
			break;
		}
		if (old != STRMAP_NONE) {
			map->dup_key = (unsigned)i;
			break;
		}
	}
	strmap_fini(&seen);
	return rc;
}

static struct ynode *new_node(struct ybuilder *b, enum ynode_type type, yaml_mark_t start, yaml_mark_t end)
{
	struct ynode *n = arena_alloc(&b->t->arena, sizeof *n);
	if (n) {
		n->type = type;
		n->start = mark_of(start);
		n->end = mark_of(end);
		n->weight = 1;
	}
	return n;
}

void ynode_of_scalar(struct ynode *n, const struct yaml_event_s *ev)
{
	*n = (struct ynode){ .type = YNODE_SCALAR, .start = mark_of(ev->start_mark), .end = mark_of(ev->end_mark),
			     .value = (const char *)ev->data.scalar.value, .len = ev->data.scalar.length, .weight = 1 };
	switch (ev->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE: n->style = YSTYLE_SINGLE; break;
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE: n->style = YSTYLE_DOUBLE; break;
	case YAML_LITERAL_SCALAR_STYLE: n->style = YSTYLE_LITERAL; break;
	case YAML_FOLDED_SCALAR_STYLE: n->style = YSTYLE_FOLDED; break;
	default: n->style = YSTYLE_PLAIN; break;
	}
}

struct ymark ymark_of_event(const struct yaml_event_s *ev, bool end)
{
	return mark_of(end ? ev->end_mark : ev->start_mark);
}

static int limit_error(struct cs_error *err, yaml_mark_t m, const char *what)
{
	cs_error_pos(err, (long)m.line + 1, (long)m.column + 1);
	return cs_error_set(err, CS_ELIMIT, "%s", what);
}

static int on_event(struct ybuilder *b, yaml_event_t *ev, struct cs_error *err)
{
	struct ynode *n;
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		if (b->done)
			return CS_OK;
		n = arena_alloc(&b->t->arena, sizeof *n);
		if (!n)
			return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
		ynode_of_scalar(n, ev);
		if (!(n->value = arena_strndup(&b->t->arena, n->value, n->len)))
			return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
		int rc = add_anchor(b, ev->data.scalar.anchor, n, err);
		return rc ? rc : push_child(b, n, err);
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		if (b->done)
			return CS_OK;
		if (b->depth >= YAML_MAX_DEPTH)
			return limit_error(err, ev->start_mark, "YAML nested deeper than 256 levels");
		bool seq = ev->type == YAML_SEQUENCE_START_EVENT;
		n = new_node(b, seq ? YNODE_SEQ : YNODE_MAP, ev->start_mark, ev->end_mark);
		if (!n)
			return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
		n->flow = seq ? ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
			      : ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
		int rc = add_anchor(b, seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor, n, err);
		if (rc)
			return rc;
		/* the items array of this depth is kept from the last
		 * collection there: one per depth, not one per collection */
		struct frame *f = &b->stack[b->depth++];
		f->node = n;
		f->n = 0;
		return CS_OK;
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: {
		if (b->done || b->depth == 0)
			return CS_OK;
		struct frame *f = &b->stack[--b->depth];
		n = f->node;
		n->end = mark_of(ev->end_mark);
		n->nchildren = f->n;
		if (f->n) {
			n->children = arena_alloc(&b->t->arena, f->n * sizeof *n->children);
			if (!n->children)
				return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
			memcpy(n->children, f->items, f->n * sizeof *n->children);
		}
		int rc = n->type == YNODE_MAP ? ymap_find_duplicate(n, err) : CS_OK;
		if (rc)
			return rc;
		if (n->weight > YAML_MAX_EXPANDED)
			return limit_error(err, ev->start_mark,
					   "YAML aliases expand to over 16,000,000 nodes (a \"billion laughs\" document?)");
		return push_child(b, n, err);
	}
	case YAML_ALIAS_EVENT: {
		if (b->done)
			return CS_OK;
		if (++b->aliases > YAML_MAX_ALIASES)
			return limit_error(err, ev->start_mark, "over 100,000 YAML aliases in one document");
		n = find_anchor(b, (const char *)ev->data.alias.anchor);
		if (!n) {
			cs_error_pos(err, (long)ev->start_mark.line + 1, (long)ev->start_mark.column + 1);
			return cs_error_set(err, CS_ESYNTAX, "alias *%s names no anchor", ev->data.alias.anchor);
		}
		n->via_alias = true;
		return push_child(b, n, err);
	}
	case YAML_DOCUMENT_END_EVENT:
		if (!b->done) {
			b->t->root = b->doc_root;
			b->done = true;
		}
		return CS_OK;
	default:
		return CS_OK;
	}
}

struct ybuilder *ybuild_new(struct ytree *t)
{
	arena_init(&t->arena);
	t->root = NULL;
	struct ybuilder *b = cs_calloc(1, sizeof *b);
	if (b)
		b->t = t;
	return b;
}

int ybuild_event(struct ybuilder *b, struct yaml_event_s *ev, struct cs_error *err)
{
	return on_event(b, ev, err);
}

struct ynode *ybuild_take(struct ybuilder *b)
{
	struct ynode *n = b->doc_root;
	b->doc_root = NULL;
	return n;
}

void ybuild_free(struct ybuilder *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < sizeof b->stack / sizeof b->stack[0]; i++) /* every depth's, used or not */
		cs_free(b->stack[i].items);
	cs_free(b->anchors);
	strmap_fini(&b->anchor_index);
	cs_free(b);
}

/* err from the parser's failure (its words and place). */
static int parser_error(const yaml_parser_t *parser, const char *data, size_t len, struct cs_error *err)
{
	if (parser->error == YAML_MEMORY_ERROR)
		return cs_error_set(err, CS_ENOMEM, "out of memory in the YAML parser");
	yaml_mark_t m = parser->problem_mark;
	cs_error_pos(err, (long)m.line + 1, (long)m.column + 1);
	if (parser->error == YAML_READER_ERROR) {
		/* The reader (bad UTF-8, a control byte) has no mark, only a
		 * byte offset. */
		long line, column;
		text_position(data, len, parser->problem_offset < len ? parser->problem_offset : len, &line, &column);
		cs_error_pos(err, line, column);
		if (parser->problem_value != -1)
			return cs_error_set(err, CS_ESYNTAX, "%s (byte 0x%02X at offset %zu)",
					    parser->problem ? parser->problem : "unreadable text",
					    (unsigned)parser->problem_value & 0xFFu, parser->problem_offset);
		return cs_error_set(err, CS_ESYNTAX, "%s", parser->problem ? parser->problem : "unreadable text");
	}
	if (parser->context)
		return cs_error_set(err, CS_ESYNTAX, "%s (%s that began at %ld:%ld)",
				    parser->problem ? parser->problem : "syntax error", parser->context,
				    (long)parser->context_mark.line + 1, (long)parser->context_mark.column + 1);
	return cs_error_set(err, CS_ESYNTAX, "%s", parser->problem ? parser->problem : "syntax error");
}

int ytree_parse(struct ytree *t, const char *data, size_t len, struct cs_error *err)
{
	arena_init(&t->arena);
	t->root = NULL;
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		return cs_error_set(err, CS_ENOMEM, "out of memory starting the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	struct ybuilder *b = ybuild_new(t);
	if (!b) {
		yaml_parser_delete(&parser);
		return cs_error_set(err, CS_ENOMEM, "out of memory reading YAML");
	}
	int rc = CS_OK;
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parser_error(&parser, data, len, err);
			break;
		}
		rc = on_event(b, &ev, err);
		bool end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (rc != CS_OK || end)
			break;
	}
	ybuild_free(b);
	yaml_parser_delete(&parser);
	return rc;
}

void ytree_fini(struct ytree *t)
{
	if (t) {
		arena_fini(&t->arena);
		t->root = NULL;
	}
}

/* The index of key's key node in map->children, or -1. */
static long ymap_find(const struct ynode *map, const char *key)
{
	if (!map || map->type != YNODE_MAP)
		return -1;
	size_t klen = strlen(key);
	for (size_t i = 0; i + 1 < map->nchildren; i += 2) {
		const struct ynode *k = map->children[i];
		if (k->type == YNODE_SCALAR && k->len == klen && memcmp(k->value, key, klen) == 0)
			return (long)i;
	}
	return -1;
}

const struct ynode *ymap_key(const struct ynode *map, const char *key)
{
	long i = ymap_find(map, key);
	return i < 0 ? NULL : map->children[i];
}

const struct ynode *ymap_get(const struct ynode *map, const char *key)
{
	long i = ymap_find(map, key);
	return i < 0 ? NULL : map->children[i + 1];
}

const struct ynode *ymap_duplicate(const struct ynode *map)
{
	return map && map->type == YNODE_MAP && map->dup_key ? map->children[map->dup_key] : NULL;
}

bool ynode_is_null(const struct ynode *n)
{
	if (!n)
		return true;
	if (n->type != YNODE_SCALAR || n->style != YSTYLE_PLAIN)
		return false;
	return n->len == 0 || strcmp(n->value, "~") == 0 || strcmp(n->value, "null") == 0 ||
	       strcmp(n->value, "Null") == 0 || strcmp(n->value, "NULL") == 0;
}

bool ynode_number(const struct ynode *n, double *out)
{
	if (!n || n->type != YNODE_SCALAR || n->style != YSTYLE_PLAIN || n->len == 0 || n->len != strlen(n->value))
		return false;
	char *end;
	double v = strtod(n->value, &end);
	if (*end != '\0' || !isfinite(v))
		return false;
	/* strtod takes hex floats, "inf" and "nan"; YAML numbers are decimal. */
	for (const char *p = n->value; *p; p++)
		if (!strchr("0123456789+-.eE_", *p))
			return false;
	*out = v;
	return true;
}

const char *ynode_type_name(const struct ynode *n)
{
	if (!n)
		return "nothing";
	switch (n->type) {
	case YNODE_MAP: return "a mapping";
	case YNODE_SEQ: return "a list";
	default: break;
	}
	double d;
	if (ynode_is_null(n))
		return "null";
	if (ynode_number(n, &d))
		return "a number";
	return "a string";
}

void yerror_at(struct cs_error *err, const struct ynode *node, const char *path)
{
	if (!err)
		return;
	cs_error_path(err, path);
	if (node)
		cs_error_pos(err, (long)node->start.line + 1, (long)node->start.column + 1);
}

int yfail(struct cs_error *err, const struct ynode *node, const char *path, enum cs_status code, const char *fmt, ...)
{
	yerror_at(err, node, path);
	va_list ap;
	va_start(ap, fmt);
	int rc = cs_error_vset(err, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* quick.c (manifest): a manifest read from libyaml's events, its entries
 * never built into a tree (see quick.h). */
#include "quick.h"
#include "base/tune.h"

#include "base/alloc.h"
#include "base/arena.h"

#include <stdint.h>
#include <string.h>
#include <yaml.h>

#define QUICK_PAIRS 16 /* keys an entry may have; more goes the tree's way */


struct quick {
	yaml_parser_t parser;
	struct manifest_quick *q;
	struct ybuilder *b;     /* builds the root's keys and values but `files` */
	struct arena *keep;     /* where the paths go (the source's) */
	struct ynode **root;    /* the root's key, value, key, value ... */
	size_t nroot, cap_root;
	size_t cap_specs;
	size_t nodes;           /* nodes so far: the tree's limit, counted */
	int files_seen;
};

/* The next event into *ev; false when the parser fails (declined: the tree
 * says why, with its words and place). */
static bool next(struct quick *k, yaml_event_t *ev)
{
	return yaml_parser_parse(&k->parser, ev) != 0;
}

/* Whether an event is one the quick way takes: no anchor, no alias, within
 * the tree's limits. */
static bool plain_event(struct quick *k, const yaml_event_t *ev)
{
	const yaml_char_t *anchor = ev->type == YAML_SCALAR_EVENT		? ev->data.scalar.anchor
				    : ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
				    : ev->type == YAML_MAPPING_START_EVENT  ? ev->data.mapping_start.anchor
									    : NULL;
	if (ev->type == YAML_SCALAR_EVENT || ev->type == YAML_SEQUENCE_START_EVENT ||
	    ev->type == YAML_MAPPING_START_EVENT)
		k->nodes++;
	return !anchor && ev->type != YAML_ALIAS_EVENT && k->nodes < YAML_MAX_EXPANDED;
}

static bool push_root(struct quick *k, struct ynode *n)
{
	if (!n)
		return false;
	if (k->nroot == k->cap_root) {
		size_t cap = k->cap_root ? 2 * k->cap_root : 16;
		struct ynode **r = cs_reallocarray(k->root, cap, sizeof *r);
		if (!r)
			return false;
		k->root = r;
		k->cap_root = cap;
	}
	k->root[k->nroot++] = n;
	return true;
}

/* One node (a scalar, or a collection whatever it holds) from its first
 * event `ev` on, every event deleted: built by the tree's builder (build)
 * or passed over; false when one of them is not for the quick way. */
static bool walk_node(struct quick *k, yaml_event_t *ev, bool build)
{
	struct cs_error err;
	size_t depth = 0;
	for (bool first = true;; first = false) {
		if (!first && !next(k, ev))
			return false;
		bool ok = plain_event(k, ev) && (!build || ybuild_event(k->b, ev, &err) == CS_OK);
		depth += ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT;
		depth -= ev->type == YAML_SEQUENCE_END_EVENT || ev->type == YAML_MAPPING_END_EVENT;
		yaml_event_delete(ev);
		if (!ok || depth >= YAML_MAX_DEPTH / 2)
			return false;
		if (depth == 0)
			return true;
	}
}

/* walk_node, building: the node, or NULL. */
static struct ynode *build_node(struct quick *k, yaml_event_t *ev)
{
	return walk_node(k, ev, true) ? ybuild_take(k->b) : NULL;
}

/* Entry i from its mapping's events (the start already read): its scalar
 * keys and values made nodes over the events' own text for as long as the
 * check takes (a value that is a list or a mapping, which the loader reads
 * only to refuse it under a key it knows, is passed over and stands as an
 * empty one), checked by the loader's rules, the path kept. */
static bool read_entry(struct quick *k, const yaml_event_t *start)
{
	yaml_event_t evs[2 * QUICK_PAIRS + 1];
	struct ynode nodes[2 * QUICK_PAIRS], *kids[2 * QUICK_PAIRS];
	size_t n = 0;
	bool ok = true;
	for (;;) {
		yaml_event_t *ev = &evs[n];
		if (!next(k, ev)) {
			ok = false;
			break;
		}
		bool nested = n % 2 && (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT);
		if (nested && n < 2 * QUICK_PAIRS) {
			nodes[n] = (struct ynode){ .type = ev->type == YAML_SEQUENCE_START_EVENT ? YNODE_SEQ : YNODE_MAP,
						   .start = ymark_of_event(ev, false), .weight = 1 };
			kids[n] = &nodes[n];
			n++;
			if (!(ok = walk_node(k, ev, false))) /* deletes it: the final deletes pass it */
				break;
			continue;
		}
		if (ev->type == YAML_MAPPING_END_EVENT || n == 2 * QUICK_PAIRS || ev->type != YAML_SCALAR_EVENT ||
		    !plain_event(k, ev)) {
			ok = ev->type == YAML_MAPPING_END_EVENT;
			yaml_event_delete(ev);
			break;
		}
		ynode_of_scalar(&nodes[n], ev);
		kids[n] = &nodes[n];
		n++;
	}
	struct manifest_quick *q = k->q;
	struct manifest_entry_spec *spec = &q->specs[q->n];
	struct ynode map = { .type = YNODE_MAP, .start = ymark_of_event(start, false), .children = kids,
			     .nchildren = n, .weight = n + 1 };
	struct cs_error err;
	if (ok)
		ok = ymap_find_duplicate(&map, &err) == CS_OK && manifest_entry_spec(&map, q->n, spec, &err) == CS_OK;
	if (ok) {
		spec->path = arena_strndup(k->keep, spec->path, spec->path_len);
		bool range = spec->priority < 0 || spec->priority > 1; /* the warning quotes it */
		spec->priority_text = range ? arena_strdup(k->keep, spec->priority_text) : NULL;
		ok = spec->path && (!range || spec->priority_text);
	}
	for (size_t i = 0; i < n; i++)
		yaml_event_delete(&evs[i]);
	return ok;
}

/* The `files` list from its start event on, into q->specs; its node (a list
 * with the entries counted, no children) into the root. */
static bool read_files(struct quick *k, yaml_event_t *start)
{
	struct manifest_quick *q = k->q;
	struct ynode *list = arena_alloc(&q->nodes.arena, sizeof *list);
	if (list)
		*list = (struct ynode){ .type = YNODE_SEQ, .start = ymark_of_event(start, false),
					.flow = start->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE, .weight = 1 };
	yaml_event_delete(start);
	if (!list || k->files_seen++) /* a second files: the tree's way (the key appears twice) */
		return false;
	for (;;) {
		yaml_event_t ev;
		if (!next(k, &ev))
			return false;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			list->end = ymark_of_event(&ev, true);
			list->nchildren = q->n;
			yaml_event_delete(&ev);
			return push_root(k, list);
		}
		bool ok = ev.type == YAML_MAPPING_START_EVENT && plain_event(k, &ev) && q->n < MANIFEST_MAX_FILES;
		if (ok && q->n == k->cap_specs) {
			size_t cap = k->cap_specs ? 2 * k->cap_specs : 64;
			struct manifest_entry_spec *s = cs_reallocarray(q->specs, cap, sizeof *s);
			ok = s != NULL;
			if (ok) {
				q->specs = s;
				k->cap_specs = cap;
			}
		}
		ok = ok && read_entry(k, &ev);
		yaml_event_delete(&ev);
		if (!ok)
			return false;
		q->n++;
	}
}

/* The root mapping's pairs, from the event after its start to its end. */
static bool read_root(struct quick *k, const yaml_event_t *start)
{
	for (;;) {
		yaml_event_t ev;
		if (!next(k, &ev))
			return false;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			struct ynode *root = arena_alloc(&k->q->nodes.arena, sizeof *root);
			struct ynode **kids = arena_alloc(&k->q->nodes.arena, (k->nroot ? k->nroot : 1) * sizeof *kids);
			struct cs_error err;
			if (root && kids) {
				if (k->nroot) /* an empty mapping has no list to copy (k->root NULL) */
					memcpy(kids, k->root, k->nroot * sizeof *kids);
				*root = (struct ynode){ .type = YNODE_MAP, .start = ymark_of_event(start, false),
							.end = ymark_of_event(&ev, true), .children = kids,
							.nchildren = k->nroot, .weight = k->nodes,
							.flow = start->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE };
			}
			yaml_event_delete(&ev);
			k->q->root = root;
			return root && kids && ymap_find_duplicate(root, &err) == CS_OK;
		}
		if (ev.type != YAML_SCALAR_EVENT) { /* a key that is not text: the tree's way */
			yaml_event_delete(&ev);
			return false;
		}
		bool files = ev.data.scalar.length == 5 && memcmp(ev.data.scalar.value, "files", 5) == 0;
		if (!push_root(k, build_node(k, &ev)) || !next(k, &ev))
			return false;
		if (files && ev.type == YAML_SEQUENCE_START_EVENT && plain_event(k, &ev)) {
			if (!read_files(k, &ev))
				return false;
		} else if (!push_root(k, build_node(k, &ev))) {
			return false;
		}
	}
}

/* The document: its root mapping, then every event to the stream's end (a
 * later document is parsed, and its faults count, as the tree's way does). */
static bool read_stream(struct quick *k)
{
	yaml_event_t ev;
	do {
		if (!next(k, &ev))
			return false;
		if (ev.type != YAML_STREAM_START_EVENT && ev.type != YAML_DOCUMENT_START_EVENT)
			break;
		yaml_event_delete(&ev);
	} while (true);
	bool ok = ev.type == YAML_MAPPING_START_EVENT && plain_event(k, &ev) && read_root(k, &ev);
	yaml_event_delete(&ev);
	while (ok) {
		if (!next(k, &ev))
			return false;
		bool end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	return ok;
}

bool manifest_quick_read(const char *data, size_t len, struct arena *keep, struct manifest_quick *q)
{
	memset(q, 0, sizeof *q);
	arena_init(&q->nodes.arena);
	if (!cs_tuned->manifest_quick)
		return false;
	struct quick k = { .q = q, .keep = keep };
	if (!yaml_parser_initialize(&k.parser))
		return false;
	yaml_parser_set_input_string(&k.parser, (const unsigned char *)data, len);
	yaml_parser_set_encoding(&k.parser, YAML_UTF8_ENCODING);
	k.b = ybuild_new(&q->nodes);
	bool ok = k.b && read_stream(&k);
	ybuild_free(k.b);
	cs_free(k.root);
	yaml_parser_delete(&k.parser);
	if (!ok)
		manifest_quick_fini(q);
	return ok;
}

void manifest_quick_fini(struct manifest_quick *q)
{
	ytree_fini(&q->nodes);
	cs_free(q->specs);
	q->specs = NULL;
	q->n = 0;
	q->root = NULL;
}

/* save_check.c: the saver's two checks on the YAML trees (see
 * save_check.h): an edited value that an alias elsewhere shares, and the
 * whole document compared, before and after, outside the edited values. */
#include "save_check.h"

#include "base/alloc.h"
#include "source.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- an edited value shared through an anchor ----------------------------- */

struct edited {
	const struct ynode *val; /* the value written over (its defining place) */
	const struct ynode *key;
	size_t entry;
	const char *field;
};

struct shared_walk {
	struct edited *v;  /* sorted by the value's start */
	size_t nv;
	const struct ynode **keys; /* every edited key, sorted by address */
	size_t nkeys;
	char path[CS_ERROR_PATH_MAX];
	const struct edited *hit;  /* the edited value an alias shares */
	const struct ynode *alias; /* ... and that alias */
	const struct ynode *at;    /* where the alias is written: its key, or its list */
	char alias_path[CS_ERROR_PATH_MAX];
	const struct ynode *files;             /* the list ... */
	const struct manifest_edit *const *by_entry; /* ... and its edits: removed entries are not walked */
};

static int by_start(const void *a, const void *b)
{
	const struct edited *x = a, *y = b;
	return x->val->start.index < y->val->start.index ? -1 : x->val->start.index > y->val->start.index;
}

static int by_address(const void *a, const void *b)
{
	const struct ynode *const *x = a, *const *y = b;
	return *x < *y ? -1 : *x > *y;
}

static bool is_edited_key(const struct shared_walk *w, const struct ynode *key)
{
	return bsearch(&key, w->keys, w->nkeys, sizeof *w->keys, by_address) != NULL;
}

/* An alias occurrence of node a: does it share an edited value (a itself,
 * or a collection holding it)? */
static void alias_seen(struct shared_walk *w, const struct ynode *a, const struct ynode *at)
{
	size_t lo = 0, hi = w->nv;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->v[mid].val->start.index < a->start.index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->nv && w->v[lo].val->start.index <= a->end.index && w->v[lo].val->end.index <= a->end.index &&
	    (w->v[lo].val == a || w->v[lo].val->start.index < a->end.index)) {
		w->hit = &w->v[lo];
		w->alias = a;
		w->at = at;
		snprintf(w->alias_path, sizeof w->alias_path, "%s", w->path[0] ? w->path : "the document");
	}
}

static void walk(struct shared_walk *w, const struct ynode *n, int depth)
{
	if (!n || n->type == YNODE_SCALAR || w->hit || depth > YAML_MAX_DEPTH)
		return;
	size_t plen = strlen(w->path);
	size_t cursor = n->start.index; /* an item starting before this is an alias */
	for (size_t i = 0; i < n->nchildren && !w->hit; i++) {
		const struct ynode *c = n->children[i];
		if (n->type == YNODE_MAP && i % 2 == 0) {
			cursor = c->end.index > cursor ? c->end.index : cursor;
			continue; /* keys: never edited */
		}
		const struct ynode *key = n->type == YNODE_MAP ? n->children[i - 1] : NULL;
		if (n == w->files && w->by_entry[i] && w->by_entry[i]->remove) {
			cursor = c->end.index > cursor ? c->end.index : cursor;
			continue; /* goes, and its aliases with it */
		}
		if (key)
			snprintf(w->path + plen, sizeof w->path - plen, "%s%s", plen ? "." : "", key->value);
		else
			snprintf(w->path + plen, sizeof w->path - plen, "[%zu]", i);
		bool alias = c->start.index < cursor;
		if (alias && !(key && is_edited_key(w, key)))
			alias_seen(w, c, key ? key : n);
		else if (!alias)
			walk(w, c, depth + 1);
		if (!alias)
			cursor = c->end.index > cursor ? c->end.index : cursor;
	}
	w->path[plen] = '\0';
}

static void add_edited(struct shared_walk *w, const struct ynode *entry, size_t i, const char *field)
{
	const struct ynode *key = ymap_key(entry, field);
	const struct ynode *val = ymap_get(entry, field);
	if (!key || !val)
		return;
	w->keys[w->nkeys++] = key;
	if (val->start.index >= key->end.index) /* its own value, not an alias of another */
		w->v[w->nv++] = (struct edited){ val, key, i, field };
}

int manifest_check_shared(const struct ynode *root, const struct ynode *files,
			  const struct manifest_edit *const by_entry[], size_t n, struct cs_error *err)
{
	struct shared_walk w = { .files = files, .by_entry = by_entry };
	size_t cap = 0;
	for (size_t i = 0; i < n; i++)
		cap += by_entry[i] && !by_entry[i]->remove ? 2 : 0;
	if (!cap)
		return CS_OK;
	w.v = cs_calloc(cap, sizeof *w.v);
	w.keys = cs_calloc(cap, sizeof *w.keys);
	if (!w.v || !w.keys) {
		cs_free(w.v);
		cs_free(w.keys);
		return cs_error_nomem(err);
	}
	for (size_t i = 0; i < n; i++) {
		const struct manifest_edit *e = by_entry[i];
		if (!e || e->remove || files->children[i]->type != YNODE_MAP)
			continue;
		if (e->set_priority)
			add_edited(&w, files->children[i], i, "priority");
		if (e->strategy != STRAT_NONE)
			add_edited(&w, files->children[i], i, "truncate_strategy");
	}
	qsort(w.v, w.nv, sizeof *w.v, by_start);
	qsort(w.keys, w.nkeys, sizeof *w.keys, by_address);
	if (w.nv)
		walk(&w, root, 0);
	int rc = CS_OK;
	if (w.hit) {
		yerror_at(err, w.at, w.alias_path);
		rc = cs_error_set(err, CS_ESTRUCT,
				  "files[%zu].%s is anchored (&) and %s (line %zu) is an alias (*) of it: the edit would "
				  "change that too; give it the same edit or edit the file by hand; nothing was written",
				  w.hit->entry, w.hit->field, w.alias_path, w.at->start.line + 1);
	}
	cs_free(w.v);
	cs_free(w.keys);
	return rc;
}

/* ---- the whole document, before and after ---------------------------------- */

/* Same content: type, scalar bytes and style, children in order. */
static bool same_node(const struct ynode *a, const struct ynode *b, int depth)
{
	if (a == b)
		return true;
	if (!a || !b || a->type != b->type || depth > YAML_MAX_DEPTH)
		return false;
	if (a->type == YNODE_SCALAR)
		return a->len == b->len && a->style == b->style && memcmp(a->value, b->value, a->len) == 0;
	if (a->nchildren != b->nchildren)
		return false;
	for (size_t i = 0; i < a->nchildren; i++)
		if (!same_node(a->children[i], b->children[i], depth + 1))
			return false;
	return true;
}

static bool skipped(const struct ynode *key, const char *const skip[])
{
	for (size_t i = 0; skip[i]; i++)
		if (key->type == YNODE_SCALAR && strcmp(key->value, skip[i]) == 0)
			return true;
	return false;
}

/* Maps a and b hold the same pairs in the same order, leaving out the keys
 * in skip (NULL-terminated). On a difference, the key's name into where. */
static bool same_map_except(const struct ynode *a, const struct ynode *b, const char *const skip[], char *where,
			    size_t wn)
{
	if (a->type != YNODE_MAP || b->type != YNODE_MAP)
		return same_node(a, b, 0);
	size_t i = 0, j = 0;
	for (;;) {
		while (i + 1 < a->nchildren && skipped(a->children[i], skip))
			i += 2;
		while (j + 1 < b->nchildren && skipped(b->children[j], skip))
			j += 2;
		bool a_end = i + 1 >= a->nchildren, b_end = j + 1 >= b->nchildren;
		if (a_end || b_end) {
			if (a_end != b_end)
				snprintf(where, wn, "%s", a_end ? b->children[j]->value : a->children[i]->value);
			return a_end && b_end;
		}
		if (!same_node(a->children[i], b->children[j], 0) ||
		    !same_node(a->children[i + 1], b->children[j + 1], 0)) {
			snprintf(where, wn, "%s", a->children[i]->value ? a->children[i]->value : "?");
			return false;
		}
		i += 2;
		j += 2;
	}
}

int manifest_check_outside(const struct ynode *old_root, const struct ynode *new_root,
			   const struct manifest_edit *const by_entry[], size_t n, struct cs_error *err)
{
	static const char *const root_skip[] = { "files", NULL };
	static const char *const entry_skip[] = { "priority", "truncate_strategy", NULL };
	char where[CS_ERROR_PATH_MAX];
	where[0] = '\0';
	if (!same_map_except(old_root, new_root, root_skip, where, sizeof where))
		return cs_error_set(err, CS_ESTRUCT,
				    "the edit would change %s, outside the edited values (a value shared through a YAML "
				    "anchor and alias?); nothing was written", where[0] ? where : "the document");
	const struct ynode *of = ymap_get(old_root, "files"), *nf = ymap_get(new_root, "files");
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (by_entry[i] && by_entry[i]->remove)
			continue;
		const struct ynode *a = of->children[i], *b = nf && k < nf->nchildren ? nf->children[k] : NULL;
		k++;
		if (!b || !same_map_except(a, b, entry_skip, where, sizeof where))
			return cs_error_set(err, CS_ESTRUCT,
					    "the edit would change files[%zu].%s, outside the edited values; nothing was "
					    "written", i, b ? where : "path");
	}
	return CS_OK;
}

/* ---- comments ------------------------------------------------------------------ */

struct span {
	size_t start, end;
};

struct spans {
	struct span *v;
	size_t n, cap;
	bool failed;
};

static int by_span_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The scalars' character ranges, each once (not through aliases). */
static void scalar_spans(struct spans *s, const struct ynode *n, size_t floor, int depth)
{
	if (!n || s->failed || depth > YAML_MAX_DEPTH || n->start.index < floor)
		return;
	if (n->type == YNODE_SCALAR) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 64;
			struct span *v = cs_reallocarray(s->v, cap, sizeof *v);
			if (!v) {
				s->failed = true;
				return;
			}
			s->v = v;
			s->cap = cap;
		}
		s->v[s->n++] = (struct span){ n->start.index, n->end.index };
		return;
	}
	size_t cursor = n->start.index;
	for (size_t i = 0; i < n->nchildren; i++) {
		scalar_spans(s, n->children[i], cursor, depth + 1);
		if (n->children[i]->start.index >= cursor && n->children[i]->end.index > cursor)
			cursor = n->children[i]->end.index;
	}
}

/* Calls back each comment of text (a # at a line's start or after a blank,
 * outside every scalar) with its byte range: from the # to the line end. */
struct comment_list {
	size_t *at;  /* byte offsets of each comment's # */
	size_t n;
	bool failed;
};

static void find_comments(const char *text, size_t len, const struct ynode *root, struct comment_list *out)
{
	struct spans s = { .v = NULL };
	scalar_spans(&s, root, 0, 0);
	out->at = NULL;
	out->n = 0;
	out->failed = s.failed;
	if (s.n)
		qsort(s.v, s.n, sizeof *s.v, by_span_start);
	size_t cap = 0, k = 0, ci = 0;
	for (size_t b = 0; b < len && !out->failed; b++) {
		unsigned char c = (unsigned char)text[b];
		if ((c & 0xC0) == 0x80)
			continue; /* libyaml counts characters */
		size_t here = ci++;
		if (c != '#' || (b > 0 && !strchr(" \t\r\n", text[b - 1]) && !(b == 3 && (unsigned char)text[0] == 0xEF)))
			continue;
		while (k < s.n && s.v[k].end <= here)
			k++;
		bool inside = false;
		for (size_t j = k; j < s.n && s.v[j].start <= here && !inside; j++)
			inside = here < s.v[j].end;
		if (inside)
			continue;
		if (out->n == cap) {
			cap = cap ? cap * 2 : 32;
			size_t *v = cs_reallocarray(out->at, cap, sizeof *v);
			if (!v) {
				out->failed = true;
				break;
			}
			out->at = v;
		}
		out->at[out->n++] = b;
		while (b + 1 < len && text[b + 1] != '\n') /* the rest of the line is the comment */
			if (((unsigned char)text[++b] & 0xC0) != 0x80)
				ci++;
	}
	cs_free(s.v);
}

static size_t comment_len(const char *text, size_t len, size_t at)
{
	size_t e = at;
	while (e < len && text[e] != '\n' && text[e] != '\r')
		e++;
	return e - at;
}

/* A comment at `at` inside a range removed from `from` goes with it when it
 * is alone on its line or what precedes it on the line is removed too: not
 * when it trails text that stays ("{a},   # about a" minus what follows a). */
static bool owned_by_removed(const char *text, size_t at, size_t from)
{
	size_t ls = at;
	while (ls > 0 && text[ls - 1] != '\n')
		ls--;
	size_t fb = ls == 0 && strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : ls; /* past a BOM */
	while (fb < at && (text[fb] == ' ' || text[fb] == '\t'))
		fb++;
	return fb == at || fb >= from;
}

int manifest_check_comments(const char *old_text, size_t old_len, const struct ynode *old_root,
			    const char *new_text, size_t new_len, const struct ynode *new_root,
			    const size_t *removed, size_t nremoved, struct cs_error *err)
{
	struct comment_list a, b;
	find_comments(old_text, old_len, old_root, &a);
	find_comments(new_text, new_len, new_root, &b);
	int rc = CS_OK;
	if (a.failed || b.failed)
		rc = cs_error_nomem(err);
	size_t j = 0, r = 0;
	for (size_t i = 0; i < a.n && !rc; i++) {
		while (r < nremoved && removed[2 * r + 1] <= a.at[i])
			r++;
		if (r < nremoved && removed[2 * r] <= a.at[i] && owned_by_removed(old_text, a.at[i], removed[2 * r]))
			continue; /* went with a removed entry */
		size_t la = comment_len(old_text, old_len, a.at[i]);
		if (j >= b.n || comment_len(new_text, new_len, b.at[j]) != la ||
		    memcmp(old_text + a.at[i], new_text + b.at[j], la) != 0) {
			long line = 1;
			for (size_t k = 0; k < a.at[i]; k++)
				line += old_text[k] == '\n';
			rc = cs_error_set(err, CS_ESTRUCT, "the edit would lose or change the comment on line %ld of the "
					  "loaded file; nothing was written", line);
		}
		j++;
	}
	if (!rc && j < b.n)
		rc = cs_error_set(err, CS_ESTRUCT, "the edit would add a comment; nothing was written");
	cs_free(a.at);
	cs_free(b.at);
	return rc;
}

/* save.c (manifest): splice-saving a tuned manifest (see save.h). */
#include "save.h"

#include "base/alloc.h"
#include "base/fileio.h"
#include "manifest.h"
#include "save_check.h"
#include "source.h"
#include "base/strbuf.h"
#include "json/yaml_tree.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- positions: libyaml's character indexes to byte offsets -------------- */

/* libyaml counts a character per code point (CRLF as two; a leading BOM as
 * one, since yaml_tree names the encoding), so a forward walk over UTF-8
 * lead bytes converts. The cursor moves from where it was last, so edits in
 * document order cost O(text) in all. */
struct text_map {
	const char *text;
	size_t len;
	size_t base; /* bytes of a BOM, 0 or 3: no line edit reaches before it */
	size_t ci;   /* cursor: character index ... */
	size_t bi;   /* ... and its byte offset */
};

static void map_init(struct text_map *m, const char *text, size_t len)
{
	m->text = text;
	m->len = len;
	m->base = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	m->ci = 0;
	m->bi = 0;
}

static size_t byte_at(struct text_map *m, size_t index)
{
	if (index < m->ci / 2) {
		m->ci = 0;
		m->bi = 0;
	}
	while (m->ci > index) { /* back, a character at a time */
		m->bi--;
		while (m->bi > 0 && ((unsigned char)m->text[m->bi] & 0xC0) == 0x80)
			m->bi--;
		m->ci--;
	}
	while (m->ci < index && m->bi < m->len) {
		m->bi++;
		while (m->bi < m->len && ((unsigned char)m->text[m->bi] & 0xC0) == 0x80)
			m->bi++;
		m->ci++;
	}
	return m->bi;
}

/* ---- reading the entries (the loader's rules, for the check) ------------- */

struct entry_view {
	const char *path;
	double priority;
	int strategy;          /* STRAT_NEVER..STRAT_END; absent or null is end */
	const char *role;      /* as written; NULL when absent */
	const char *max_lines; /* as written; NULL when absent */
};

static const char *scalar_text(const struct ynode *n)
{
	return n && n->type == YNODE_SCALAR && !ynode_is_null(n) ? n->value : NULL;
}

/* The `files` list of root into a cs_malloc'd array (NULL when empty). */
static int read_entries(const struct ynode *root, const struct ynode **files_out, struct entry_view **out, size_t *n,
			struct cs_error *err)
{
	*out = NULL;
	*n = 0;
	if (!root || root->type != YNODE_MAP || !ymap_key(root, "files"))
		return cs_error_set(err, CS_ESTRUCT, "not a working-set manifest: no \"files\" list");
	const struct ynode *files = ymap_get(root, "files");
	*files_out = files;
	if (ynode_is_null(files))
		return CS_OK;
	if (files->type != YNODE_SEQ)
		return cs_error_set(err, CS_ESTRUCT, "not a working-set manifest: \"files\" is not a list");
	if (files->nchildren == 0)
		return CS_OK;
	struct entry_view *v = cs_calloc(files->nchildren, sizeof *v);
	if (!v)
		return cs_error_nomem(err);
	for (size_t i = 0; i < files->nchildren; i++) {
		const struct ynode *e = files->children[i];
		const char *strategy = scalar_text(ymap_get(e, "truncate_strategy"));
		v[i].path = scalar_text(ymap_get(e, "path"));
		v[i].strategy = strategy ? strategy_from_name(strategy) : STRAT_END;
		v[i].role = scalar_text(ymap_get(e, "role"));
		v[i].max_lines = scalar_text(ymap_get(e, "max_lines"));
		if (e->type != YNODE_MAP || !v[i].path || !ynode_number(ymap_get(e, "priority"), &v[i].priority) ||
		    v[i].strategy < STRAT_NEVER || v[i].strategy > STRAT_END || ymap_duplicate(e)) {
			cs_free(v);
			yerror_at(err, e, "files");
			return cs_error_set(err, CS_ESTRUCT,
					    "files[%zu] is not an entry this can edit (a mapping with a path, a numeric "
					    "priority and a known truncate_strategy, no repeated key)", i);
		}
	}
	*out = v;
	*n = files->nchildren;
	return CS_OK;
}

/* ---- the splice plan ------------------------------------------------------ */

struct op {
	size_t start, end; /* bytes replaced */
	size_t ins, ins_len; /* the new bytes, in the plan's pool */
};

struct plan {
	struct text_map map;
	const char *text;
	size_t len;
	struct op *ops;
	size_t nops, cap;
	struct strbuf pool;
};

static int add_op(struct plan *p, size_t start, size_t end, const char *ins, size_t ins_len, struct cs_error *err)
{
	if (p->nops == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct op *ops = cs_reallocarray(p->ops, cap, sizeof *ops);
		if (!ops)
			return cs_error_nomem(err);
		p->ops = ops;
		p->cap = cap;
	}
	size_t at = p->pool.len;
	if (ins_len && !sb_append(&p->pool, ins, ins_len))
		return cs_error_nomem(err);
	p->ops[p->nops++] = (struct op){ start, end, at, ins_len };
	return CS_OK;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The bytes of the value of `key` at this place in the text: the node's own
 * span, or the alias token (`*name`) when the node was defined elsewhere. */
static int value_span(struct plan *p, const struct ynode *key, const struct ynode *val, size_t *bs, size_t *be,
		      bool *alias, struct cs_error *err)
{
	*alias = val->start.index < key->end.index;
	if (!*alias) {
		*bs = byte_at(&p->map, val->start.index);
		*be = byte_at(&p->map, val->end.index);
		return CS_OK;
	}
	size_t i = byte_at(&p->map, key->end.index);
	while (i < p->len && is_blank(p->text[i]))
		i++;
	if (i < p->len && p->text[i] == ':')
		i++;
	while (i < p->len && (is_blank(p->text[i]) || p->text[i] == '\r' || p->text[i] == '\n'))
		i++;
	if (i >= p->len || p->text[i] != '*') {
		yerror_at(err, key, "");
		return cs_error_set(err, CS_ESTRUCT, "cannot find the alias that gives \"%s\" its value", key->value);
	}
	*bs = i++;
	while (i < p->len && !strchr(" \t\r\n,[]{}", p->text[i]))
		i++;
	*be = i;
	return CS_OK;
}

/* Past an anchor (&a) and a tag (!t) at the start of a node's span. */
static size_t skip_properties(const struct plan *p, size_t i, size_t end)
{
	while (i < end && (p->text[i] == '&' || p->text[i] == '!')) {
		while (i < end && !strchr(" \t\r\n", p->text[i]))
			i++;
		while (i < end && strchr(" \t\r\n", p->text[i]))
			i++;
	}
	return i;
}

static size_t line_start(const struct plan *p, size_t pos);
static bool blank_line(const struct plan *p, size_t from, size_t to);

/* Where the text of node n (the value of key, or a list item when key is
 * NULL) really ends: a block collection's end mark sits at the next token,
 * past comments and blank lines, so take its last descendant's. */
static int content_end(struct plan *p, const struct ynode *key, const struct ynode *n, size_t *out,
		       struct cs_error *err)
{
	bool alias = false;
	size_t bs;
	if (key && value_span(p, key, n, &bs, out, &alias, err))
		return err->code;
	if (alias)
		return CS_OK;
	if (!n->flow && n->type == YNODE_MAP && n->nchildren >= 2)
		return content_end(p, n->children[n->nchildren - 2], n->children[n->nchildren - 1], out, err);
	if (!n->flow && n->type == YNODE_SEQ && n->nchildren) {
		const struct ynode *last = n->children[n->nchildren - 1];
		const struct ynode *before = n->nchildren > 1 ? n->children[n->nchildren - 2] : n;
		if (last->start.index < before->start.index || last->start.index < n->start.index) {
			yerror_at(err, n, "");
			return cs_error_set(err, CS_ESTRUCT, "a list ending in an alias: cannot tell where it ends");
		}
		return content_end(p, NULL, last, out, err);
	}
	*out = byte_at(&p->map, n->end.index);
	/* A block scalar's end mark sits past its trailing breaks and into the
	 * indentation of the next line (which may hold a comment): its text
	 * ends where that line starts. */
	if (n->type == YNODE_SCALAR && (n->style == YSTYLE_LITERAL || n->style == YSTYLE_FOLDED)) {
		size_t start = byte_at(&p->map, n->start.index);
		size_t end = *out;
		*out = line_start(p, *out);
		/* ... and before the blank lines it ends with, unless kept (|+):
		 * clipped or stripped, they are not its text */
		size_t k = skip_properties(p, start, end) + 1; /* past &anchor !tag and | or > */
		while (k < end && strchr("123456789-", p->text[k]))
			k++;
		bool keep = k < end && p->text[k] == '+';
		while (!keep && *out > start && line_start(p, *out - 1) > start &&
		       blank_line(p, line_start(p, *out - 1), *out))
			*out = line_start(p, *out - 1);
	}
	return CS_OK;
}

/* The byte after the line break of the line holding the content that ends
 * at pos (len when that line has no break). */
static size_t line_after(const struct plan *p, size_t pos)
{
	size_t i = pos > p->map.base ? pos - 1 : p->map.base;
	while (i < p->len && p->text[i] != '\n')
		i++;
	return i < p->len ? i + 1 : p->len;
}

static size_t line_start(const struct plan *p, size_t pos)
{
	while (pos > p->map.base && p->text[pos - 1] != '\n')
		pos--;
	return pos;
}

/* The line break the text uses: that of its first line, else "\n". */
static const char *text_eol(const struct plan *p)
{
	const char *nl = memchr(p->text, '\n', p->len);
	return nl && nl > p->text && nl[-1] == '\r' ? "\r\n" : "\n";
}

const char *manifest_format_priority(char buf[32], double priority)
{
	double v = round(priority * 10000.0) / 10000.0;
	if (v == 0)
		v = 0; /* no "-0.0" */
	snprintf(buf, 32, "%.*f", MANIFEST_SAVE_DECIMALS, v);
	size_t n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		n--;
	if (n > 0 && buf[n - 1] == '.')
		n++; /* keep one zero: 1.0 */
	buf[n] = '\0';
	return buf;
}

static int plan_priority(struct plan *p, const struct ynode *entry, double priority, struct cs_error *err)
{
	const struct ynode *key = ymap_key(entry, "priority");
	const struct ynode *val = ymap_get(entry, "priority");
	size_t bs, be;
	bool alias;
	int rc = value_span(p, key, val, &bs, &be, &alias, err);
	if (rc)
		return rc;
	if (!alias)
		bs = skip_properties(p, bs, be);
	char num[32];
	manifest_format_priority(num, priority);
	return add_op(p, bs, be, num, strlen(num), err);
}

static int plan_strategy(struct plan *p, const struct ynode *entry, int strategy, struct cs_error *err)
{
	const char *name = strategy_name(strategy);
	const struct ynode *key = ymap_key(entry, "truncate_strategy");
	const struct ynode *val = ymap_get(entry, "truncate_strategy");
	char text[64];
	if (key) {
		size_t bs, be;
		bool alias;
		int rc = value_span(p, key, val, &bs, &be, &alias, err);
		if (rc)
			return rc;
		if (!alias)
			bs = skip_properties(p, bs, be);
		if (!alias && val->type == YNODE_SCALAR && val->len == 0 && val->style == YSTYLE_PLAIN) {
			/* `truncate_strategy:` with nothing after the colon */
			snprintf(text, sizeof text, "%s%s", bs > 0 && p->text[bs - 1] == ':' ? " " : "", name);
			return add_op(p, bs, bs, text, strlen(text), err);
		}
		const char *q = alias ? "" : val->style == YSTYLE_SINGLE ? "'" : val->style == YSTYLE_DOUBLE ? "\"" : "";
		snprintf(text, sizeof text, "%s%s%s", q, name, q);
		return add_op(p, bs, be, text, strlen(text), err);
	}
	/* Absent: a new key after the entry's last one. */
	const struct ynode *lastk = entry->children[entry->nchildren - 2];
	const struct ynode *lastv = entry->children[entry->nchildren - 1];
	size_t end;
	int rc = content_end(p, lastk, lastv, &end, err);
	if (rc)
		return rc;
	if (entry->flow) {
		snprintf(text, sizeof text, ", truncate_strategy: %s", name);
		return add_op(p, end, end, text, strlen(text), err);
	}
	size_t at = line_after(p, end);
	size_t indent = entry->children[0]->start.column;
	struct strbuf line = STRBUF_INIT;
	if (at == p->len && (at == p->map.base || p->text[at - 1] != '\n')) {
		/* the last line of a file without a final line break */
		sb_puts(&line, text_eol(p));
		sb_repeat(&line, " ", indent);
		sb_printf(&line, "truncate_strategy: %s", name);
	} else {
		sb_repeat(&line, " ", indent);
		sb_printf(&line, "truncate_strategy: %s%s", name, at >= 2 && p->text[at - 2] == '\r' ? "\r\n" : "\n");
	}
	rc = line.failed ? cs_error_nomem(err) : add_op(p, at, at, sb_str(&line), line.len, err);
	sb_fini(&line);
	return rc;
}

/* Whether the bytes [from, to) are only blanks and a line break. */
static bool blank_line(const struct plan *p, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		if (!strchr(" \t\r\n", p->text[k]))
			return false;
	return true;
}

/* The lines of block list item i: from its dash's line (and the comment
 * lines right above it) to the end of its last line. */
static int block_item_range(struct plan *p, const struct ynode *files, size_t i, size_t *start, size_t *end,
			    struct cs_error *err)
{
	const struct ynode *it = files->children[i];
	size_t s = byte_at(&p->map, it->start.index);
	size_t q = s;
	while (q > p->map.base && strchr(" \t\r\n", p->text[q - 1]))
		q--;
	size_t ls = q > p->map.base ? line_start(p, q - 1) : q;
	bool ok = q > p->map.base && p->text[q - 1] == '-';
	for (size_t k = ls; ok && k < q - 1; k++)
		ok = p->text[k] == ' ';
	if (!ok) {
		yerror_at(err, it, "files");
		return cs_error_set(err, CS_ESTRUCT, "cannot find the lines of files[%zu] to remove it", i);
	}
	/* Comment lines above, but not into the item above: a line starting
	 * with # may be inside its block scalar. */
	size_t floor = p->map.base;
	if (i > 0) {
		int rc = content_end(p, NULL, files->children[i - 1], &floor, err);
		if (rc)
			return rc;
	}
	while (ls > floor) {
		size_t pls = line_start(p, ls - 1);
		if (pls < floor)
			break;
		size_t k = pls;
		while (k < ls && is_blank(p->text[k]))
			k++;
		if (k >= ls || p->text[k] != '#')
			break;
		ls = pls;
	}
	size_t ce;
	int rc = content_end(p, NULL, it, &ce, err);
	if (rc)
		return rc;
	size_t e = line_after(p, ce);
	/* Between two blank lines, take the one above too, so the spacing
	 * around the gap stays as it was. */
	if (ls > p->map.base && blank_line(p, line_start(p, ls - 1), ls) &&
	    (e == p->len || blank_line(p, e, line_after(p, e + 1))))
		ls = line_start(p, ls - 1);
	*start = ls;
	*end = e;
	return CS_OK;
}

/* The end of the line at pos when only blanks and a comment follow it
 * there (past the line break), else 0. */
static size_t rest_of_line_is_comment(const struct plan *p, size_t pos)
{
	while (pos < p->len && is_blank(p->text[pos]))
		pos++;
	if (pos < p->len && p->text[pos] == '#')
		while (pos < p->len && p->text[pos] != '\n')
			pos++;
	if (pos < p->len && p->text[pos] == '\r')
		pos++;
	return pos < p->len && p->text[pos] == '\n' ? pos + 1 : 0;
}

/* A flow list minus its last items first..last, after item prev: from the
 * end of prev. One item a line ([ on its own line, comments after items):
 * the comma after prev and the removed items' lines instead, so that
 * prev's comment stays on its line. */
static int plan_flow_tail(struct plan *p, const struct ynode *prev, const struct ynode *first,
			  const struct ynode *last, struct cs_error *err)
{
	size_t pe = byte_at(&p->map, prev->end.index);
	size_t fs = byte_at(&p->map, first->start.index);
	size_t le = byte_at(&p->map, last->end.index);
	size_t comma = pe;
	while (comma < fs && is_blank(p->text[comma]))
		comma++;
	size_t line_end = rest_of_line_is_comment(p, comma + 1);
	size_t last_end = rest_of_line_is_comment(p, le);
	if (comma < fs && p->text[comma] == ',' && line_end && line_end <= line_start(p, fs) && last_end &&
	    blank_line(p, line_start(p, fs), fs)) {
		int rc = add_op(p, comma, comma + 1, "", 0, err);
		return rc ? rc : add_op(p, line_start(p, fs), last_end, "", 0, err);
	}
	return add_op(p, pe, le, "", 0, err);
}

static int plan_removals(struct plan *p, const struct ynode *files, const bool *removed, struct cs_error *err)
{
	size_t n = files->nchildren;
	/* An item that starts before the one above it is an alias (`- *e`). */
	for (size_t i = 0; i < n; i++) {
		const struct ynode *it = files->children[i];
		size_t floor_index = i ? files->children[i - 1]->start.index + 1 : files->start.index;
		if (removed[i] && it->start.index < floor_index) {
			yerror_at(err, it, "files");
			return cs_error_set(err, CS_EUSAGE,
					    "files[%zu] is an alias of another entry; remove it by hand", i);
		}
	}
	for (size_t a = 0; a < n; a++) {
		if (!removed[a])
			continue;
		size_t b = a;
		while (b + 1 < n && removed[b + 1])
			b++;
		int rc = CS_OK;
		if (!files->flow) {
			for (size_t i = a; i <= b && !rc; i++) {
				size_t s = 0, e = 0;
				rc = block_item_range(p, files, i, &s, &e, err);
				if (!rc)
					rc = add_op(p, s, e, "", 0, err);
			}
		} else if (b + 1 < n) { /* [x, y, z] minus x: up to the next item */
			rc = add_op(p, byte_at(&p->map, files->children[a]->start.index),
				    byte_at(&p->map, files->children[b + 1]->start.index), "", 0, err);
		} else if (a > 0) { /* minus the last: from the end of the one before */
			rc = plan_flow_tail(p, files->children[a - 1], files->children[a], files->children[b], err);
		} else {
			size_t s = byte_at(&p->map, files->children[a]->start.index);
			rc = add_op(p, s, byte_at(&p->map, files->children[b]->end.index), "", 0, err);
		}
		if (rc)
			return rc;
		a = b;
	}
	return CS_OK;
}

static int op_cmp(const void *x, const void *y)
{
	const struct op *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int build(struct plan *p, char **out, size_t *out_len, struct cs_error *err)
{
	if (p->nops)
		qsort(p->ops, p->nops, sizeof *p->ops, op_cmp);
	struct strbuf sb = STRBUF_INIT;
	size_t at = 0;
	for (size_t i = 0; i < p->nops; i++) {
		const struct op *o = &p->ops[i];
		if (o->start < at || o->end < o->start || o->end > p->len) {
			sb_fini(&sb);
			return cs_error_set(err, CS_ESTRUCT, "two edits overlap in the text; nothing was written");
		}
		sb_append(&sb, p->text + at, o->start - at);
		sb_append(&sb, sb_str(&p->pool) + o->ins, o->ins_len);
		at = o->end;
	}
	sb_append(&sb, p->text + at, p->len - at);
	sb_putc(&sb, '\0'); /* data even for an empty result */
	size_t n;
	char *text = sb_detach(&sb, &n);
	if (!text)
		return cs_error_nomem(err);
	*out = text;
	*out_len = n - 1;
	return CS_OK;
}

/* ---- the check: does the new text read back as intended? ----------------- */

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The byte ranges the plan removes (ops inserting nothing), as pairs. */
static size_t *removed_ranges(const struct plan *p, size_t *n)
{
	size_t *r = cs_calloc(2 * (p->nops + 1), sizeof *r);
	*n = 0;
	for (size_t i = 0; r && i < p->nops; i++)
		if (p->ops[i].ins_len == 0 && p->ops[i].end > p->ops[i].start) {
			r[2 * *n] = p->ops[i].start;
			r[2 * *n + 1] = p->ops[i].end;
			(*n)++;
		}
	return r;
}

static int check_comments(const struct plan *p, const char *text, size_t len, const struct ynode *old_root,
			  const struct ynode *new_root, struct cs_error *err)
{
	size_t n;
	size_t *removed = removed_ranges(p, &n);
	if (!removed)
		return cs_error_nomem(err);
	int rc = manifest_check_comments(p->text, p->len, old_root, text, len, new_root, removed, n, err);
	cs_free(removed);
	return rc;
}

static int check_result(const struct plan *p, const char *text, size_t len, const struct entry_view *before,
			size_t nbefore, const struct manifest_edit *by_entry[], const struct ynode *old_root,
			struct cs_error *err)
{
	struct ytree t;
	struct cs_error perr;
	cs_error_clear(&perr);
	int rc = ytree_parse(&t, text, len, &perr);
	if (rc == CS_ENOMEM) {
		ytree_fini(&t);
		return cs_error_nomem(err);
	}
	if (rc != CS_OK) {
		ytree_fini(&t);
		return cs_error_set(err, CS_ESTRUCT,
				    "the edited manifest would not parse (line %ld, column %ld: %s)%s; nothing was written",
				    perr.line, perr.column, perr.message,
				    strncmp(perr.message, "alias", 5) == 0
					    ? ": a removed entry holds an anchor (&) that another entry uses (*)" : "");
	}
	const struct ynode *files;
	struct entry_view *after;
	size_t nafter;
	rc = read_entries(t.root, &files, &after, &nafter, &perr);
	if (rc != CS_OK) {
		ytree_fini(&t);
		if (rc == CS_ENOMEM)
			return cs_error_nomem(err);
		return cs_error_set(err, CS_ESTRUCT, "the edited manifest would not read back (%s); nothing was written",
				    perr.message);
	}
	size_t k = 0;
	const char *field = NULL;
	size_t at = 0;
	for (size_t i = 0; i < nbefore && !field; i++) {
		const struct manifest_edit *e = by_entry[i];
		if (e && e->remove)
			continue;
		at = k;
		if (k >= nafter) {
			field = "path";
			break;
		}
		double prio = before[i].priority;
		if (e && e->set_priority) {
			char num[32];
			prio = strtod(manifest_format_priority(num, e->priority), NULL);
		}
		int strategy = e && e->strategy != STRAT_NONE ? e->strategy : before[i].strategy;
		const struct entry_view *v = &after[k++];
		field = strcmp(v->path, before[i].path) ? "path"
		      : v->priority != prio ? "priority"
		      : v->strategy != strategy ? "truncate_strategy"
		      : !same_text(v->role, before[i].role) ? "role"
		      : !same_text(v->max_lines, before[i].max_lines) ? "max_lines" : NULL;
	}
	if (!field && k != nafter) {
		field = "path";
		at = k;
	}
	/* Nothing outside `files` may change either: compare the budget. */
	static const char *const budget_keys[] = { "max_tokens", "reserved_for_response", "effective" };
	const struct ynode *ob = ymap_get(old_root, "budget"), *nb = ymap_get(t.root, "budget");
	bool budget_same = true;
	for (size_t b = 0; b < 3; b++)
		budget_same = budget_same && same_text(scalar_text(ymap_get(ob, budget_keys[b])),
						       scalar_text(ymap_get(nb, budget_keys[b])));
	rc = CS_OK;
	if (field)
		rc = cs_error_set(err, CS_ESTRUCT,
				  "the edited manifest would read back differently at files[%zu].%s%s%s%s: is that value "
				  "shared with an edited one through a YAML anchor (&) and alias (*)? Give both the same "
				  "edit, or edit the file by hand; nothing was written",
				  at, field, at < nafter ? " (" : "", at < nafter ? after[at].path : "", at < nafter ? ")" : "");
	else if (!budget_same)
		rc = cs_error_set(err, CS_ESTRUCT,
				  "the edit would change the budget (a value shared through a YAML anchor and alias?); "
				  "nothing was written");
	else if ((rc = manifest_check_outside(old_root, t.root, by_entry, nbefore, err)) == CS_OK)
		rc = check_comments(p, text, len, old_root, t.root, err);
	cs_free(after);
	ytree_fini(&t);
	return rc;
}

/* ---- the pure splice ------------------------------------------------------ */

int manifest_splice(const char *text, size_t len, const struct manifest_edit *edits, size_t nedits, char **out,
		    size_t *out_len, struct cs_error *err)
{
	*out = NULL;
	*out_len = 0;
	if (memchr(text, '\0', len))
		return cs_error_set(err, CS_ESYNTAX, "the manifest holds a NUL byte: not a YAML text file");
	struct ytree tree;
	int rc = ytree_parse(&tree, text, len, err);
	const struct ynode *files = NULL;
	struct entry_view *before = NULL;
	size_t n = 0;
	const struct manifest_edit **by_entry = NULL;
	bool *removed = NULL;
	struct plan p = { .text = text, .len = len, .pool = STRBUF_INIT };
	map_init(&p.map, text, len);
	if (rc == CS_OK)
		rc = read_entries(tree.root, &files, &before, &n, err);
	if (rc != CS_OK)
		goto done;
	by_entry = cs_calloc(n ? n : 1, sizeof *by_entry);
	removed = cs_calloc(n ? n : 1, sizeof *removed);
	if (!by_entry || !removed) {
		rc = cs_error_nomem(err);
		goto done;
	}
	size_t nremoved = 0;
	for (size_t i = 0; i < nedits; i++) {
		const struct manifest_edit *e = &edits[i];
		if (e->entry >= n)
			rc = cs_error_set(err, CS_EUSAGE, "no files[%zu]: the manifest lists %zu files", e->entry, n);
		else if (by_entry[e->entry])
			rc = cs_error_set(err, CS_EUSAGE, "files[%zu] is edited twice", e->entry);
		else if (e->set_priority && !isfinite(e->priority))
			rc = cs_error_set(err, CS_EUSAGE, "files[%zu]: the priority is not a number", e->entry);
		else if (e->strategy != STRAT_NONE && (e->strategy < STRAT_NEVER || e->strategy > STRAT_END))
			rc = cs_error_set(err, CS_EUSAGE, "files[%zu]: a manifest's strategies are never, start, "
					  "middle and end", e->entry);
		if (rc)
			goto done;
		by_entry[e->entry] = e;
		removed[e->entry] = e->remove;
		nremoved += e->remove;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const struct manifest_edit *e = by_entry[i];
		const struct ynode *entry = files->children[i];
		if (!e || e->remove)
			continue;
		if ((e->set_priority || e->strategy != STRAT_NONE) && i > 0 &&
		    entry->start.index <= files->children[i - 1]->start.index) {
			yerror_at(err, entry, "files");
			rc = cs_error_set(err, CS_EUSAGE, "files[%zu] is an alias of another entry; edit it by hand", i);
			break;
		}
		if (e->set_priority)
			rc = plan_priority(&p, entry, e->priority, err);
		if (!rc && e->strategy != STRAT_NONE)
			rc = plan_strategy(&p, entry, e->strategy, err);
	}
	if (!rc) /* after the loop, which refuses an entry that is an alias first */
		rc = manifest_check_shared(tree.root, files, by_entry, n, err);
	if (!rc && nremoved)
		rc = plan_removals(&p, files, removed, err);
	if (!rc && p.pool.failed)
		rc = cs_error_nomem(err);
	if (!rc)
		rc = build(&p, out, out_len, err);
	if (!rc) {
		rc = check_result(&p, *out, *out_len, before, n, by_entry, tree.root, err);
		if (rc) {
			cs_free(*out);
			*out = NULL;
			*out_len = 0;
		}
	}
done:
	cs_free(by_entry);
	cs_free(removed);
	cs_free(before);
	cs_free(p.ops);
	sb_fini(&p.pool);
	ytree_fini(&tree);
	return rc;
}

/* ---- from a source -------------------------------------------------------- */

int manifest_collect_edits(const struct source *src, struct manifest_edit **out, size_t *n, struct cs_error *err)
{
	*out = NULL;
	*n = 0;
	if (src->kind != &manifest_kind)
		return cs_error_set(err, CS_EUSAGE,
				    "saving writes working-set manifests only; %s is a %s (its edits go to a what-if "
				    "file instead)", src->path, src->kind->title);
	const struct manifest *m = src->model;
	if (!m->nentries)
		return CS_OK;
	struct manifest_edit *edits = cs_calloc(m->nentries, sizeof *edits);
	if (!edits)
		return cs_error_nomem(err);
	size_t k = 0;
	for (size_t i = 0; i < m->nentries; i++) {
		const struct piece *p = &src->pieces[m->entries[i].piece];
		struct manifest_edit e = { .entry = i, .strategy = STRAT_NONE };
		char num[32];
		if (p->user_excluded == 1) {
			e.remove = true;
		} else {
			e.set_priority = p->priority != p->input_priority &&
					 strtod(manifest_format_priority(num, p->priority), NULL) != p->input_priority;
			e.priority = p->priority;
			if (p->strategy != p->input_strategy)
				e.strategy = p->strategy;
		}
		if (e.remove || e.set_priority || e.strategy != STRAT_NONE)
			edits[k++] = e;
	}
	if (!k) {
		cs_free(edits);
		edits = NULL;
	}
	*out = edits;
	*n = k;
	return CS_OK;
}

static bool same_file(const struct manifest *m, const char *src_path, const char *output)
{
	if (!output || strcmp(output, src_path) == 0)
		return true;
	struct stat st;
	return stat(output, &st) == 0 && st.st_dev == m->stamp.dev && st.st_ino == m->stamp.ino &&
	       (m->stamp.dev || m->stamp.ino);
}

static void count_edits(const struct manifest_edit *edits, size_t n, struct manifest_save_result *res)
{
	for (size_t i = 0; i < n; i++) {
		res->removed += edits[i].remove;
		res->values += !edits[i].remove && edits[i].set_priority;
		res->values += !edits[i].remove && edits[i].strategy != STRAT_NONE;
	}
}

int manifest_save_text(const struct source *src, char **out, size_t *out_len, struct manifest_save_result *res,
		       struct cs_error *err)
{
	struct manifest_save_result ignored;
	if (!res)
		res = &ignored;
	memset(res, 0, sizeof *res);
	*out = NULL;
	*out_len = 0;
	struct manifest_edit *edits;
	size_t n;
	int rc = manifest_collect_edits(src, &edits, &n, err);
	if (rc)
		return rc;
	const struct manifest *m = src->model;
	count_edits(edits, n, res);
	rc = manifest_splice(m->data, m->len, edits, n, out, out_len, err);
	cs_free(edits);
	if (rc)
		cs_error_file(err, src->path);
	return rc;
}

/* ---- the changed-on-disk stamp ---------------------------------------------- */

unsigned long long manifest_hash(const char *data, size_t len)
{
	unsigned long long h = 14695981039346656037ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)data[i];
		h *= 1099511628211ULL;
	}
	return h;
}

void manifest_stamp_bytes(struct manifest *m, const char *path, const char *data, size_t len)
{
	struct cs_error ignored;
	if (file_stamp(path, &m->stamp, &ignored) != CS_OK)
		memset(&m->stamp, 0, sizeof m->stamp);
	m->stamp.size = (off_t)len;
	m->hashed = data != NULL; /* NULL: m->data's, hashed when a save first checks them */
	m->hash = data ? manifest_hash(data, len) : 0;
}

/* CS_OK when the file at path holds the bytes m was stamped with (or is
 * gone: written again, there is nothing to clobber, as an editor would);
 * CS_ESTATE otherwise. The atomic write's verify step, under its lock. */
static int same_as_loaded(const char *path, void *ctx, struct cs_error *err)
{
	const struct manifest *m = ctx;
	char *now;
	size_t len;
	struct cs_error rerr;
	enum file_state state;
	cs_error_clear(&rerr);
	int rc = file_read(path, 0, &now, &len, &state, &rerr);
	if (rc == CS_ENOMEM)
		return cs_error_nomem(err);
	bool same = rc == CS_OK && (off_t)len == m->stamp.size &&
		    manifest_hash(now, len) == (m->hashed ? m->hash : manifest_hash(m->data, m->len));
	if (rc == CS_OK)
		cs_free(now);
	if (same || (rc != CS_OK && state == FILE_MISSING))
		return CS_OK;
	cs_error_file(err, path);
	return cs_error_set(err, CS_ESTATE,
			    "the file %s since it was loaded; not overwriting it: reload it, or save elsewhere "
			    "(save-as, --output OTHER)", rc != CS_OK ? "cannot be checked" : "changed on disk");
}

int manifest_save(struct source *src, const char *output, const struct atomic_write_options *opt,
		  struct manifest_save_result *res, struct cs_error *err)
{
	struct manifest_save_result ignored;
	if (!res)
		res = &ignored;
	memset(res, 0, sizeof *res);
	struct manifest_edit *edits;
	size_t n;
	int rc = manifest_collect_edits(src, &edits, &n, err); /* refuses other kinds */
	if (rc)
		return rc;
	cs_free(edits);
	struct manifest *m = src->model;
	bool same = same_file(m, src->path, output);
	const char *target = same ? src->path : output;
	if (same && (rc = same_as_loaded(src->path, m, err)))
		return rc;
	char *text;
	size_t len;
	if ((rc = manifest_save_text(src, &text, &len, res, err)))
		return rc;
	if (same) {
		/* The file may already hold exactly this (an earlier save in this
		 * session, or no edits at all): then nothing is written. */
		char *now;
		size_t now_len;
		struct cs_error rerr;
		cs_error_clear(&rerr);
		rc = file_read(target, 0, &now, &now_len, NULL, &rerr);
		bool unchanged = rc == CS_OK && now_len == len && memcmp(now, text, len) == 0;
		if (rc == CS_OK)
			cs_free(now);
		if (rc == CS_ENOMEM || unchanged) {
			cs_free(text);
			return rc == CS_ENOMEM ? cs_error_nomem(err) : CS_OK;
		}
	}
	/* In place: the user named the manifest and asked to save it, so it is
	 * replaced (through a link, which was named too), checked under the
	 * write's lock against the bytes parsed. Save-as: as the caller says. */
	struct atomic_write_options o = { .replace = false };
	if (opt)
		o = *opt;
	if (same) {
		o.replace = o.named = true;
		o.verify = same_as_loaded;
		o.verify_ctx = m;
	} else {
		o.input = src->path; /* save-as: never over the manifest loaded, by any name */
	}
	rc = atomic_write(target, text, len, &o, &res->write, err);
	if (rc) {
		cs_free(text);
		return rc;
	}
	res->written = true;
	if (same) {
		manifest_stamp_bytes(m, res->write.target, text, len);
	}
	cs_free(text);
	return CS_OK;
}

/* What the command line says after a save: the .bak where it is, a split
 * hard link, an owner that could not be kept, temporaries cleaned. */
void manifest_save_notes(const struct manifest_save_result *res, struct strbuf *said)
{
	atomic_write_notes(&res->write, said);
}

int manifest_save_command(struct source *src, const char *output, bool force, struct strbuf *said,
			  struct cs_error *err)
{
	struct atomic_write_options opt = {
		.replace = force,
		.named = true, /* typed on the command line */
		.force = force,
		.pause_at = atomic_step_from_text(getenv("CTXSCOPE_SAVE_PAUSE_AT")),
	};
	if (output && strcmp(output, "-") == 0) { /* a dry run: the text that would be written */
		char *text;
		size_t len;
		int rc = manifest_save_text(src, &text, &len, NULL, err);
		if (rc)
			return rc;
		sb_append(said, text, len);
		cs_free(text);
		return said->failed ? cs_error_nomem(err) : CS_OK;
	}
	const char *target = output ? output : src->path;
	struct manifest_save_result res;
	int rc = manifest_save(src, output, &opt, &res, err);
	if (rc == CS_EUSAGE && res.write.refused == ATOMIC_EXISTS)
		return cs_error_set(err, rc, "already exists; not replacing it: add --force to replace it (the old "
				    "one is kept as %s.bak)", res.write.target);
	if (rc == CS_EUSAGE && res.write.refused == ATOMIC_READONLY)
		return cs_error_set(err, rc, "is read-only; not replacing it: add --force to replace it anyway");
	if (rc)
		return rc;
	if (!res.written) {
		sb_printf(said, "nothing to save: %s already holds every priority, strategy and entry as edited\n",
			  target);
		return CS_OK;
	}
	sb_printf(said, "saved %s: %zu value%s changed, %zu entr%s removed", target, res.values,
		  res.values == 1 ? "" : "s", res.removed, res.removed == 1 ? "y" : "ies");
	manifest_save_notes(&res, said);
	sb_putc(said, '\n');
	return said->failed ? cs_error_nomem(err) : CS_OK;
}

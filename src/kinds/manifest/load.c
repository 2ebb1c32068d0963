/* manifest/load.c: reading a working-set manifest (ctxscope-formats(5) section 3) and
 * the files it lists. Decisions (ctxscope-formats(5)): only `files` is required; each
 * entry needs `path` and a numeric `priority` (outside [0, 1] is a warning,
 * the value kept as written for sorting, as the seed sorts); `role` defaults
 * to context, `truncate_strategy` to end; no `budget` means 28000 max, 4000
 * reserved, with a warning; an `effective` that disagrees with max - reserved
 * is kept and warned about. A listed file that is missing, unreadable, binary
 * (holds a NUL) or a directory becomes a piece excluded with that reason.
 * Unsupported: YAML tags are not interpreted; `protocol` is shown, not checked.
 * The kind's table and settings are kind.c. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "manifest.h"
#include "quick.h"
#include "save.h"

#include "base/alloc.h"
#include "assembly.h"
#include "base/progress.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/strmap.h"
#include "tokens/estimate.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const role_names[] = {
#define MROLE_X_NAME(e, name) name,
	MANIFEST_ROLES(MROLE_X_NAME)
#undef MROLE_X_NAME
};

int manifest_role_from_name(const char *name)
{
	for (int i = 0; i < MROLE_COUNT; i++)
		if (strcmp(role_names[i], name) == 0)
			return i;
	return -1;
}

const char *manifest_role_name(int role)
{
	return role >= 0 && role < MROLE_COUNT ? role_names[role] : "";
}

void manifest_free(void *model)
{
	struct manifest *m = model;
	if (!m)
		return;
	cs_free(m->data);
	bulk_fini(&m->texts);
	cs_free(m->entries);
	cs_free(m);
}

static int whole_number(const struct ynode *n, const char *path, long *out, struct cs_error *err)
{
	double v;
	if (!ynode_number(n, &v))
		return yfail(err, n, path, CS_ETYPE, "expected a number of tokens, got %s", ynode_type_name(n));
	if (v < 0 || v != floor(v) || v > 1e12)
		return yfail(err, n, path, CS_ETYPE, "expected a whole number of tokens from 0 to 10^12, got %s", n->value);
	*out = (long)v;
	return CS_OK;
}

static int read_budget(struct source *src, struct manifest *m, const struct ynode *root, struct cs_error *err)
{
	const struct ynode *budget = ymap_get(root, "budget");
	m->max_tokens = MANIFEST_DEFAULT_MAX_TOKENS;
	m->reserved = MANIFEST_DEFAULT_RESERVED;
	if (ynode_is_null(budget)) {
		m->effective = m->max_tokens - m->reserved;
		return source_warn(src, -1, 0, 0, "no budget given: assuming max_tokens 28,000 and "
				   "reserved_for_response 4,000 (effective 24,000)");
	}
	if (budget->type != YNODE_MAP)
		return yfail(err, budget, "budget", CS_ETYPE, "expected a mapping, got %s", ynode_type_name(budget));
	const struct ynode *dup = ymap_duplicate(budget);
	if (dup)
		return yfail(err, dup, "budget", CS_ESTRUCT, "the key \"%s\" appears twice", dup->value);
	m->has_budget = true;
	/* A budget that names no reserve reserves nothing: the 4,000 default
	 * belongs to a manifest with no budget at all (ctxscope-formats(5)). */
	m->reserved = 0;
	const struct ynode *max = ymap_get(budget, "max_tokens");
	const struct ynode *res = ymap_get(budget, "reserved_for_response");
	const struct ynode *eff = ymap_get(budget, "effective");
	int rc;
	if (!ynode_is_null(max) && (rc = whole_number(max, "budget.max_tokens", &m->max_tokens, err)))
		return rc;
	if (!ynode_is_null(res) && (rc = whole_number(res, "budget.reserved_for_response", &m->reserved, err)))
		return rc;
	long derived = m->max_tokens - m->reserved;
	if (ynode_is_null(eff) && ynode_is_null(max)) {
		int rc2 = source_warn(src, -1, (long)budget->start.line + 1, (long)budget->start.column + 1,
				      "budget has neither max_tokens nor effective: assuming max_tokens 28,000");
		if (rc2)
			return rc2;
	}
	if (ynode_is_null(eff)) {
		if (derived < 0) {
			return yfail(err, res, "budget.reserved_for_response", CS_ESTRUCT,
				   "%s: reserved_for_response is larger than max_tokens", "no room left");
		}
		m->effective = derived;
		return CS_OK;
	}
	if ((rc = whole_number(eff, "budget.effective", &m->effective, err)))
		return rc;
	if (!ynode_is_null(max) && !ynode_is_null(res) && m->effective != derived) {
		char a[32], b[32], c[32], d[32];
		return source_warn(src, -1, (long)eff->start.line + 1, (long)eff->start.column + 1,
				   "budget.effective %s disagrees with max_tokens %s - reserved_for_response %s = %s; "
				   "using effective as written",
				   fmt_thousands(a, m->effective), fmt_thousands(b, m->max_tokens),
				   fmt_thousands(c, m->reserved), fmt_thousands(d, derived));
	}
	return CS_OK;
}

static const char *scalar_string(const struct ynode *n)
{
	return n && n->type == YNODE_SCALAR && !ynode_is_null(n) ? n->value : NULL;
}

/* Reads the file an entry names into its piece, or marks why it cannot. */
static int read_listed_file(struct source *src, struct manifest *m, struct manifest_entry *me, long piece,
			    const char *resolved, struct cs_error *err)
{
	size_t len;
	enum file_state state;
	struct cs_error ignored; /* its message is read only after a failure, which sets it */
	char *text;
	/* Read straight into the big chunks the texts are kept in (huge pages
	 * at scale: a buffer per file faulted every page in one by one), kept
	 * there only when it is text. */
	int rc = file_read_bulk(resolved, MANIFEST_MAX_FILE_BYTES, &m->texts, &text, &len, &state, &me->symlink,
				&ignored);
	struct piece *p = &src->pieces[piece];
	if (rc == CS_ENOMEM)
		return cs_error_set(err, CS_ENOMEM, "out of memory reading %s", resolved);
	if (rc != CS_OK) {
		p->absent = state == FILE_MISSING ? REASON_MISSING
			  : state == FILE_DIRECTORY ? REASON_DIRECTORY : REASON_UNREADABLE;
		p->flags |= PIECE_NOT_TEXT;
		if (p->absent == REASON_UNREADABLE)
			return source_warn(src, piece, 0, 0, "%s: %s", resolved, ignored.message);
		return CS_OK;
	}
	if (memchr(text, '\0', len)) {
		p->absent = REASON_BINARY;
		p->flags |= PIECE_NOT_TEXT;
		return CS_OK;
	}
	bulk_commit(&m->texts, text, len);
	rc = source_adopt_piece_text(src, piece, text, len); /* counted in one pass (hidden_measure) */
	if (rc != CS_OK || !me->max_lines || p->lines <= me->max_lines)
		return rc;
	/* Over max_lines: where each strategy cuts it, once (a re-assembly
	 * after a strategy edit then reads, never rescans). */
	me->caps = arena_alloc(&src->arena, 3 * sizeof *me->caps);
	if (!me->caps)
		return cs_error_nomem(err);
	for (int s = STRAT_START; s <= STRAT_END; s++)
		manifest_cap_compute(p, me->max_lines, s, &me->caps[s - STRAT_START]);
	return CS_OK;
}

/* Whether path is dir or below it (both absolute, dir without a final
 * slash but "/" itself). */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Whether a relative path climbs out of its folder with "..". */
static bool climbs_out(const char *path)
{
	long depth = 0;
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (--depth < 0)
				return true;
		} else if (n && !(n == 1 && c[0] == '.')) {
			depth++;
		}
		c += n + (c[n] == '/');
	}
	return false;
}

/* The manifest's folder (real path) and the last listed file's folder,
 * remembered: most entries share a folder, so one realpath per folder and
 * whether the file itself is a link (learnt as it was read) tell a relative
 * path that stays inside. */
struct folder_check {
	char *real;       /* the manifest folder's real path; NULL when unknown */
	char last[4096];  /* the folder part of the last file checked ("": none) */
	bool last_inside; /* its real path is below `real` */
};

/* Whether the folder part of path (relative to the cwd) really is below the
 * manifest's folder; true when it cannot be resolved (a missing folder). */
static bool folder_inside(struct folder_check *fc, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0;
	if (n >= sizeof fc->last)
		return false; /* the slow way, then */
	if (fc->last[0] && strlen(fc->last) == n && memcmp(fc->last, path, n) == 0)
		return fc->last_inside;
	char folder[sizeof fc->last];
	memcpy(folder, path, n);
	folder[n] = '\0';
	char *real = realpath(n ? folder : ".", NULL);
	memcpy(fc->last, folder, n + 1);
	fc->last_inside = !real || below(real, fc->real);
	free(real);
	return fc->last_inside;
}

/* Warns when an entry's file is outside the manifest's folder and marks its
 * piece: an absolute path elsewhere, a ".." climbing out, a symlink leading
 * out. It is read all the same: real manifests do name such files. */
static int mark_outside(struct source *src, const struct manifest_entry *me, struct folder_check *fc)
{
	struct piece *p = &src->pieces[me->piece];
	bool plain = p->id[0] != '/' && !climbs_out(p->id), outside = false;
	if (plain && fc->real && !me->symlink && folder_inside(fc, me->resolved))
		return CS_OK; /* no realpath for the common case */
	char *real = fc->real ? realpath(me->resolved, NULL) : NULL;
	if (real)
		outside = !below(real, fc->real);
	else if (!plain)
		outside = p->id[0] != '/' || !fc->real || !below(p->id, fc->real);
	int rc = CS_OK;
	if (outside) {
		p->flags |= PIECE_OUTSIDE;
		/* a symlink: name the target the link holds (as written, so
		 * the sentence does not depend on where the checkout is) */
		bool link = real && plain;
		char target[512] = "";
		ssize_t tn = link ? readlink(me->resolved, target, sizeof target - 1) : -1;
		target[tn > 0 ? tn : 0] = '\0';
		rc = source_warn(src, me->piece, me->line, me->column,
				 "%s is outside the manifest's folder%s%s%s; read all the same", p->id,
				 link ? (target[0] ? " (a symlink to " : " (through a symlink") : "", target,
				 link ? ")" : "");
	}
	free(real);
	return rc;
}

/* yfail for entry i (path "files[i]", or "files[i].field"): the path is
 * only written when there is an error to name it in. */
static int entry_fail(struct cs_error *err, const struct ynode *n, size_t i, const char *field, enum cs_status code,
		      const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int entry_fail(struct cs_error *err, const struct ynode *n, size_t i, const char *field, enum cs_status code,
		      const char *fmt, ...)
{
	char path[96];
	snprintf(path, sizeof path, "files[%zu]%s%s", i, field ? "." : "", field ? field : "");
	yerror_at(err, n, path);
	va_list ap;
	va_start(ap, fmt);
	int rc = cs_error_vset(err, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* The values of an entry's keys, found in one pass over the mapping (its
 * keys are known to be distinct); NULL when absent. */
struct entry_fields {
	const struct ynode *path, *priority, *role, *strategy, *max_lines;
};

static struct entry_fields entry_fields(const struct ynode *e)
{
	struct entry_fields f = { 0 };
	for (size_t i = 0; i + 1 < e->nchildren; i += 2) {
		const struct ynode *k = e->children[i], *v = e->children[i + 1];
		if (k->type != YNODE_SCALAR)
			continue;
#define FIELD_IS(name) (k->len == sizeof name - 1 && memcmp(k->value, name, sizeof name - 1) == 0)
		if (FIELD_IS("path"))
			f.path = v;
		else if (FIELD_IS("priority"))
			f.priority = v;
		else if (FIELD_IS("role"))
			f.role = v;
		else if (FIELD_IS("truncate_strategy"))
			f.strategy = v;
		else if (FIELD_IS("max_lines"))
			f.max_lines = v;
#undef FIELD_IS
	}
	return f;
}

/* dir then file (n bytes) in the arena; NULL on out of memory. */
static const char *joined(struct arena *a, const char *dir, const char *file, size_t n)
{
	size_t dn = strlen(dir);
	char *out = arena_alloc(a, dn + n + 1);
	if (out) {
		memcpy(out, dir, dn);
		memcpy(out + dn, file, n + 1);
	}
	return out;
}

int manifest_entry_spec(const struct ynode *e, size_t i, struct manifest_entry_spec *out, struct cs_error *err)
{
	if (e->type != YNODE_MAP)
		return entry_fail(err, e, i, NULL, CS_ETYPE, "expected a mapping with path and priority, got %s",
				  ynode_type_name(e));
	const struct ynode *dup = ymap_duplicate(e);
	if (dup)
		return entry_fail(err, dup, i, NULL, CS_ESTRUCT, "the key \"%s\" appears twice", dup->value);
	struct entry_fields f = entry_fields(e);

	const struct ynode *pn = f.path;
	const char *file = scalar_string(pn);
	if (!pn)
		return entry_fail(err, e, i, NULL, CS_ESTRUCT, "%s", "missing \"path\"");
	if (!file || pn->type != YNODE_SCALAR || file[0] == '\0')
		return entry_fail(err, pn, i, "path", CS_ETYPE, "expected a file path, got %s", ynode_type_name(pn));
	if (strlen(file) != pn->len)
		return entry_fail(err, pn, i, "path", CS_ETYPE, "%s", "the path holds a NUL character");

	const struct ynode *prio = f.priority;
	double priority;
	if (!prio)
		return entry_fail(err, e, i, NULL, CS_ESTRUCT, "%s", "missing \"priority\" (a number from 0 to 1)");
	if (!ynode_number(prio, &priority))
		return entry_fail(err, prio, i, "priority", CS_ETYPE, "expected a number from 0 to 1, got %s%s%s",
				  prio->type == YNODE_SCALAR ? "\"" : "",
				  prio->type == YNODE_SCALAR ? prio->value : ynode_type_name(prio),
				  prio->type == YNODE_SCALAR ? "\"" : "");
	if (priority == 0)
		priority = 0; /* -0 too: it showed as -0.00 */

	int role = MROLE_CONTEXT;
	const struct ynode *rn = f.role;
	if (!ynode_is_null(rn)) {
		const char *name = scalar_string(rn);
		role = name ? manifest_role_from_name(name) : -1;
		if (role < 0)
			return entry_fail(err, rn, i, "role", CS_ETYPE,
					  "unknown role \"%s\": expected system, developer, user or context",
					  name ? name : ynode_type_name(rn));
	}
	int strategy = STRAT_END;
	const struct ynode *sn = f.strategy;
	if (!ynode_is_null(sn)) {
		const char *name = scalar_string(sn);
		strategy = name ? strategy_from_name(name) : STRAT_NONE;
		if (strategy < STRAT_NEVER || strategy > STRAT_END)
			return entry_fail(err, sn, i, "truncate_strategy", CS_ETYPE,
					  "unknown truncate_strategy \"%s\": expected never, start, middle or end",
					  name ? name : ynode_type_name(sn));
	}
	size_t max_lines = 0;
	const struct ynode *ml = f.max_lines;
	if (!ynode_is_null(ml)) {
		double v;
		if (!ynode_number(ml, &v) || v < 1 || v != floor(v) || v > 1e9)
			return entry_fail(err, ml, i, "max_lines", CS_ETYPE, "expected a whole number of lines from 1, got %s",
					  ml->type == YNODE_SCALAR ? ml->value : ynode_type_name(ml));
		max_lines = (size_t)v;
	}
	*out = (struct manifest_entry_spec){
		.path = file, .path_len = pn->len, .priority = priority, .priority_text = prio->value,
		.priority_line = (long)prio->start.line + 1, .priority_column = (long)prio->start.column + 1,
		.line = (long)e->start.line + 1, .column = (long)e->start.column + 1,
		.role = role, .strategy = strategy, .max_lines = max_lines,
	};
	return CS_OK;
}

/* Entry i from its spec: its piece, the warning for a priority out of
 * range, and its file read. spec->path lasts as long as the source. */
static int add_entry(struct source *src, struct manifest *m, const char *dir, size_t i,
		     const struct manifest_entry_spec *spec, struct cs_error *err)
{
	long piece = source_add_piece(src);
	if (piece < 0)
		return cs_error_nomem(err);
	const char *file = spec->path;
	struct manifest_entry *me = &m->entries[i];
	me->line = spec->line;
	me->column = spec->column;
	me->piece = piece;
	me->max_lines = spec->max_lines;
	me->resolved = file[0] == '/' || !dir[0] ? file : joined(&src->arena, dir, file, spec->path_len);
	struct piece *p = &src->pieces[piece];
	p->id = file;
	p->label = file;
	p->role = role_names[spec->role];
	p->layer = spec->role + 1; /* layer 0 is the boot header */
	p->priority = p->input_priority = spec->priority;
	p->strategy = p->input_strategy = spec->strategy;
	p->kind_index = i;
	if (!me->resolved)
		return cs_error_nomem(err);
	if (spec->priority < 0 || spec->priority > 1) {
		int rc = source_warn(src, piece, spec->priority_line, spec->priority_column,
				     "%s: priority %s is outside 0..1; kept as written for ordering", file,
				     spec->priority_text);
		if (rc)
			return rc;
	}
	return read_listed_file(src, m, me, piece, me->resolved, err);
}

/* Warns for each path listed twice. A map of the paths seen answers with
 * the first entry of each (the source's id index is not built for it: a
 * load that edits nothing by name never needs one). With duplicates,
 * *next_same gets a chain through the entries of one path (next_same[k]:
 * the next entry of entry k's path, or nentries), so a hint reaches all of
 * them in linear time; else NULL. */
static int listed_twice(struct source *src, struct manifest *m, size_t **next_same)
{
	size_t n = m->nentries, *next = NULL, *tail = NULL;
	*next_same = NULL;
	struct strmap seen = STRMAP_INIT;
	int rc = CS_OK;
	for (size_t i = 0; i < n && !rc; i++) {
		long piece = m->entries[i].piece;
		const char *id = src->pieces[piece].id;
		size_t len = strlen(id), f, again;
		if (strmap_put(&seen, id, len, i, &f)) {
			rc = CS_ENOMEM;
			break;
		}
		if (f == STRMAP_NONE)
			continue;
		if (strmap_put(&seen, id, len, f, &again)) { /* the first entry stays the one named */
			rc = CS_ENOMEM;
			break;
		}
		if (!next) {
			if (!(next = cs_calloc(2 * n, sizeof *next))) {
				rc = CS_ENOMEM;
				break;
			}
			tail = next + n;
			for (size_t k = 0; k < n; k++) {
				next[k] = n;
				tail[k] = k;
			}
		}
		next[tail[f]] = i;
		tail[f] = i;
		rc = source_warn(src, piece, 0, 0, "%s is listed twice (files[%zu] and files[%zu])", id, f, i);
	}
	strmap_fini(&seen);
	if (rc) {
		cs_free(next);
		return rc;
	}
	*next_same = next;
	return CS_OK;
}

/* Reads hot.yml / cold.yml beside the manifest into hints. A broken
 * companion is a warning: it only ever advises. */
static int read_companion(struct source *src, struct manifest *m, const char *dir, const char *name,
			  const char *list_key, bool hot, const size_t *next_same, struct strbuf *present)
{
	char *path = arena_printf(&src->arena, "%s%s", dir, name);
	if (!path)
		return CS_ENOMEM;
	char *data;
	size_t len;
	struct cs_error e;
	cs_error_clear(&e);
	enum file_state state;
	int rc = file_read(path, MANIFEST_MAX_FILE_BYTES, &data, &len, &state, &e);
	if (rc == CS_ENOMEM)
		return rc;
	if (rc != CS_OK)
		return state == FILE_MISSING ? CS_OK : source_warn(src, -1, 0, 0, "%s: %s", path, e.message);
	sb_printf(present, "%s%s", present->len ? ", " : "", name);
	struct ytree t;
	rc = ytree_parse(&t, data, len, &e);
	cs_free(data);
	if (rc == CS_ENOMEM) {
		ytree_fini(&t);
		return rc;
	}
	if (rc != CS_OK) {
		ytree_fini(&t);
		return source_warn(src, -1, 0, 0, "%s:%ld:%ld: %s (hints ignored)", path, e.line, e.column, e.message);
	}
	const struct ynode *list = ymap_get(t.root, list_key);
	if (list && list->type == YNODE_SEQ) {
		for (size_t i = 0; i < list->nchildren; i++) {
			const struct ynode *item = list->children[i];
			const char *p = scalar_string(ymap_get(item, "path"));
			const char *why = scalar_string(ymap_get(item, "why"));
			const char *act = scalar_string(ymap_get(item, "suggested_action"));
			if (!p)
				continue;
			bool matched = false;
			/* The id index finds the first entry of that path; with
			 * duplicate paths the chain leads to every other. */
			long first = source_find_piece(src, p);
			size_t k0 = first >= 0 ? src->pieces[first].kind_index : m->nentries;
			for (size_t k = k0; k < m->nentries; k = next_same ? next_same[k] : m->nentries) {
				struct manifest_entry *me = &m->entries[k];
				if (strcmp(src->pieces[me->piece].id, p) != 0)
					continue;
				matched = true;
				me->hot = hot;
				me->hint = arena_printf(&src->arena, "%s: %s%s%s%s", hot ? "hot (keep)" : "cold (evict)",
							why ? why : "no reason given", act ? " (suggested: " : "",
							act ? act : "", act ? ")" : "");
				me->suggested = act ? arena_strdup(&src->arena, act) : NULL;
				if (!me->hint || (act && !me->suggested)) {
					ytree_fini(&t);
					return CS_ENOMEM;
				}
			}
			if (!matched && (rc = source_warn(src, -1, 0, 0, "%s names %s, which the manifest does not list",
							  name, p))) {
				ytree_fini(&t);
				return rc;
			}
		}
	} else if (list) {
		rc = source_warn(src, -1, 0, 0, "%s: %s should be a list (hints ignored)", path, list_key);
	}
	ytree_fini(&t);
	return rc;
}

/* The listed files, each read into its piece (entry i from specs[i], else
 * checked from files' item i as it comes), then the paths listed twice and
 * the companion hints. */
static int read_files(struct source *src, struct manifest *m, const struct ynode *files,
		      const struct manifest_entry_spec *specs, struct cs_error *err)
{
	size_t n = m->nentries;
	/* The folder of the manifest, with a trailing slash ("" for the cwd). */
	const char *slash = strrchr(src->path, '/');
	char *dir = arena_strndup(&src->arena, src->path, slash ? (size_t)(slash - src->path) + 1 : 0);
	if (!dir)
		return cs_error_nomem(err);
	struct folder_check fc = { .real = realpath(dir[0] ? dir : ".", NULL) };
	int rc = CS_OK;
	for (size_t i = 0; i < n && !rc; i++) {
		struct manifest_entry_spec spec;
		if (specs) {
			spec = specs[i];
		} else if (!(rc = manifest_entry_spec(files->children[i], i, &spec, err)) &&
			   !(spec.path = arena_strndup(&src->arena, spec.path, spec.path_len))) {
			rc = cs_error_nomem(err); /* the tree goes at the end of the load: the path is kept */
		}
		if (!rc && !(rc = add_entry(src, m, dir, i, &spec, err)) && mark_outside(src, &m->entries[i], &fc))
			rc = cs_error_nomem(err);
		if (!rc)
			progress_tick(src->progress, "reading the listed files", i + 1, n);
	}
	free(fc.real);
	if (rc)
		return rc;
	progress_done(src->progress, "reading the listed files", n);
	size_t *next_same = NULL;
	if (listed_twice(src, m, &next_same))
		return cs_error_nomem(err);
	struct strbuf present = STRBUF_INIT;
	rc = read_companion(src, m, dir, "hot.yml", "keep", true, next_same, &present);
	if (!rc)
		rc = read_companion(src, m, dir, "cold.yml", "evict", false, next_same, &present);
	cs_free(next_same);
	if (!rc && present.len && !(m->hints_present = arena_strdup(&src->arena, sb_str(&present))))
		rc = CS_ENOMEM;
	if (present.failed)
		rc = CS_ENOMEM;
	sb_fini(&present);
	return rc ? cs_error_nomem(err) : CS_OK;
}

/* A scalar's text kept in the source's arena (NULL: none, or out of memory,
 * which *failed says). */
static const char *kept_string(struct source *src, const struct ynode *n, bool *failed)
{
	const char *s = scalar_string(n);
	const char *copy = s ? arena_strdup(&src->arena, s) : NULL;
	*failed |= s && !copy;
	return copy;
}

/* The document from its root on: the root's keys, the budget, the files.
 * specs: the entries as the quick reader took them (files' value then a list
 * without children), or NULL to check each of the tree's items. */
static int load_document(struct source *src, struct manifest *m, const struct ynode *root,
			 const struct manifest_entry_spec *specs, struct cs_error *err)
{
	if (!root || root->type != YNODE_MAP) {
		yerror_at(err, root, "");
		if (!root)
			cs_error_pos(err, 1, 1);
		return cs_error_set(err, root ? CS_ETYPE : CS_ESTRUCT,
				    "expected a mapping with a \"files\" list, got %s", root ? ynode_type_name(root) : "an empty document");
	}
	const struct ynode *dup = ymap_duplicate(root);
	if (dup)
		return yfail(err, dup, "", CS_ESTRUCT, "the key \"%s\" appears twice", dup->value);
	bool failed = false;
	m->protocol = kept_string(src, ymap_get(root, "protocol"), &failed);
	const struct ynode *meta = ymap_get(root, "metadata");
	m->session = kept_string(src, ymap_get(meta, "session"), &failed);
	m->output_sink = kept_string(src, ymap_get(meta, "output_sink"), &failed);
	if (failed)
		return cs_error_nomem(err);
	int rc;
	if ((rc = read_budget(src, m, root, err)))
		return rc;

	const struct ynode *files = ymap_get(root, "files");
	if (!ymap_key(root, "files")) {
		yerror_at(err, root, "files");
		return cs_error_set(err, CS_ESTRUCT, "missing \"files\": the list of files to assemble (it may be empty)");
	}
	if (!ynode_is_null(files) && files->type != YNODE_SEQ)
		return yfail(err, files, "files", CS_ETYPE, "expected a list of files, got %s", ynode_type_name(files));
	size_t n = ynode_is_null(files) ? 0 : files->nchildren;
	if (n > MANIFEST_MAX_FILES)
		return yfail(err, files, "files", CS_ELIMIT, "%s", "more than 1,000,000 files listed");
	m->entries = cs_calloc(n ? n : 1, sizeof *m->entries);
	if (!m->entries || source_reserve_pieces(src, n)) /* a piece per entry: no doubling, no zeroing */
		return cs_error_nomem(err);
	m->nentries = n;
	return read_files(src, m, files, specs, err);
}

int manifest_load(struct source *src, const char *data, size_t len, struct cs_error *err)
{
	struct manifest *m = cs_calloc(1, sizeof *m);
	if (!m)
		return cs_error_nomem(err);
	src->model = m;
	m->data = cs_strndup(data, len);
	if (!m->data)
		return cs_error_nomem(err);
	m->len = len;
	/* The listed files' bytes: guessed from the manifest's, a few dozen
	 * bytes an entry naming some kilobytes each (chunks past 4 MB go to
	 * huge pages; a small manifest gets small chunks). */
	bulk_init(&m->texts, len > SIZE_MAX / 32 ? SIZE_MAX : len * 32);
	manifest_stamp_bytes(m, src->path, NULL, len);
	if (memchr(data, '\0', len)) {
		long line = 1;
		for (const char *p = data; *p; p++)
			line += *p == '\n';
		cs_error_pos(err, line, 0);
		return cs_error_set(err, CS_ESYNTAX, "the manifest holds a NUL byte: not a YAML text file");
	}
	/* The quick way first (quick.h); the tree for what it declines. No
	 * tree is kept after the load: saving parses the bytes again. */
	struct manifest_quick q;
	if (manifest_quick_read(data, len, &src->arena, &q)) {
		int rc = load_document(src, m, q.root, q.specs, err);
		manifest_quick_fini(&q);
		return rc;
	}
	struct ytree t;
	int rc = ytree_parse(&t, data, len, err);
	if (rc == CS_OK)
		rc = load_document(src, m, t.root, NULL, err);
	ytree_fini(&t);
	return rc;
}

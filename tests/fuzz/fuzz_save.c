/* fuzz_save.c: saving. The input drives a generator of working-set
 * manifests (comments above entries and after values, block scalars whose
 * lines start with #, anchors and aliases in and outside `files`, flow
 * entries and flow lists, quoted values holding #, CRLF) and of random
 * edits (priorities, strategies set or inserted, entries removed). The same
 * generator writes the text the save must give: every byte outside the
 * edited values the same, the values as manifest_format_priority writes
 * them. manifest_splice must give exactly that text, which must parse back
 * to the intended entries; or, when an edited (or removed) anchored value
 * is used by an alias the edits do not replace, it must refuse. The input
 * bytes are read as choices; past its end a generator seeded by its hash
 * goes on, so every input is a whole manifest. */
#include "base/alloc.h"
#include "kinds/manifest/save.h"
#include "source.h"
#include "base/strbuf.h"
#include "json/yaml_tree.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ENTRIES 8

struct rnd {
	const uint8_t *data;
	size_t size, at;
	uint64_t state;
};

static unsigned pick(struct rnd *r, unsigned n)
{
	unsigned v;
	if (r->at < r->size) {
		v = r->data[r->at++];
	} else {
		r->state ^= r->state << 13;
		r->state ^= r->state >> 7;
		r->state ^= r->state << 17;
		v = (unsigned)(r->state >> 24);
	}
	return n ? v % n : 0;
}

enum field { F_PRIO, F_STRAT, F_ROLE, F_NOTE, F_COUNT };

struct value {
	int anchor;   /* defines &pN / &sN (N: this entry), 0/1 */
	int alias;    /* -1, or the entry whose anchor this is */
	int style;    /* strategy: 0 plain, 1 single, 2 double quotes */
};

struct entry {
	bool flow;
	int path_kind;
	int ncomments;          /* lines above (block lists) */
	bool trailing;          /* "# ..." after the priority (block) */
	const char *prio_text;
	struct value prio;
	bool has_strat;
	int strat;
	struct value strat_v;
	bool has_role, has_note;
	char note_style;
	const char *chomp;      /* "", "-", or "+" (only when the note is not the last field) */
	bool blank_before;      /* a blank line above the entry's comments */
	bool comment_gap;       /* a blank line between its comments and its dash */
	int inner_comment;      /* a comment line before this field index (0: none) */
	int order[F_COUNT];     /* the fields after path, in order */
	int nfields;
	/* the edit */
	bool remove, set_prio;
	double new_prio;
	int new_strat;          /* STRAT_NONE: unchanged */
};

struct model {
	const char *eol;
	bool bom;
	bool flow_list;
	bool flow_lines;        /* the flow list written one entry a line, comments after them */
	bool preamble_notes;
	bool budget_flow;
	int nentries;
	struct entry e[MAX_ENTRIES];
	int meta_kind;          /* 0 none, 1 metadata: {session: *sN}, 2 extra: [*pN] */
	int meta_ref;
};

static const char *const prio_texts[] = { "0.5", "0.25", "1", "0.9", "0.125", "0.05", "0.75" };
static const double new_prios[] = { 0.5, 0.3, 0.85, 1.0, 0.12345, 0.0, 0.6 };

static double prio_value(const struct model *m, int i)
{
	const struct entry *e = &m->e[i];
	return strtod(e->prio.alias >= 0 ? m->e[e->prio.alias].prio_text : e->prio_text, NULL);
}

static int strat_value(const struct model *m, int i)
{
	const struct entry *e = &m->e[i];
	if (!e->has_strat)
		return STRAT_END;
	return e->strat_v.alias >= 0 ? m->e[e->strat_v.alias].strat : e->strat;
}

static void gen_value(struct rnd *r, struct model *m, int i, bool prio, struct value *v)
{
	v->anchor = 0;
	v->alias = -1;
	v->style = pick(r, 3);
	int choice = pick(r, 6);
	if (choice == 0)
		v->anchor = 1;
	if (choice == 1 && i > 0) {
		int k = pick(r, i);
		if (prio ? m->e[k].prio.anchor : (m->e[k].has_strat && m->e[k].strat_v.anchor))
			v->alias = k;
	}
}

static void gen_model(struct rnd *r, struct model *m)
{
	memset(m, 0, sizeof *m);
	m->eol = pick(r, 3) == 0 ? "\r\n" : "\n";
	m->bom = pick(r, 6) == 0;
	m->flow_list = pick(r, 5) == 0;
	m->flow_lines = m->flow_list && pick(r, 2) == 0;
	m->preamble_notes = pick(r, 3) == 0;
	m->budget_flow = pick(r, 2) == 0;
	m->nentries = 1 + (int)pick(r, MAX_ENTRIES);
	for (int i = 0; i < m->nentries; i++) {
		struct entry *e = &m->e[i];
		e->flow = m->flow_list || pick(r, 4) == 0;
		e->path_kind = pick(r, 3);
		e->ncomments = e->flow && m->flow_list ? 0 : (int)pick(r, 3);
		e->trailing = (!e->flow || m->flow_lines) && pick(r, 3) == 0;
		e->prio_text = prio_texts[pick(r, sizeof prio_texts / sizeof *prio_texts)];
		gen_value(r, m, i, true, &e->prio);
		e->has_strat = pick(r, 2) == 0;
		e->strat = STRAT_NEVER + (int)pick(r, 4);
		gen_value(r, m, i, false, &e->strat_v);
		e->has_role = pick(r, 3) == 0;
		e->has_note = !e->flow && pick(r, 3) == 0;
		e->note_style = pick(r, 2) ? '|' : '>';
		int fields[F_COUNT] = { F_PRIO, F_STRAT, F_ROLE, F_NOTE };
		for (int k = F_COUNT - 1; k > 0; k--) {
			int j = (int)pick(r, (unsigned)k + 1);
			int t = fields[k];
			fields[k] = fields[j];
			fields[j] = t;
		}
		e->nfields = 0;
		for (int k = 0; k < F_COUNT; k++) {
			int f = fields[k];
			if ((f == F_STRAT && !e->has_strat) || (f == F_ROLE && !e->has_role) || (f == F_NOTE && !e->has_note))
				continue;
			e->order[e->nfields++] = f;
		}
		static const char *const chomps[] = { "", "-", "+" };
		e->chomp = chomps[pick(r, 3)];
		if (e->nfields && e->order[e->nfields - 1] == F_NOTE && e->chomp[0] == '+')
			e->chomp = "";
		bool block = !m->flow_list;
		e->blank_before = block && pick(r, 4) == 0;
		e->comment_gap = block && e->ncomments && pick(r, 4) == 0;
		e->inner_comment = !e->flow && e->nfields > 1 ? (int)pick(r, (unsigned)e->nfields) : 0;
		/* the edit */
		unsigned what = pick(r, 8);
		e->remove = what == 0;
		e->set_prio = what == 1 || what == 3;
		e->new_prio = new_prios[pick(r, sizeof new_prios / sizeof *new_prios)];
		e->new_strat = what == 2 || what == 3 ? STRAT_NEVER + (int)pick(r, 4) : STRAT_NONE;
	}
	m->meta_kind = pick(r, 3);
	m->meta_ref = (int)pick(r, (unsigned)m->nentries);
	if (m->meta_kind == 1 && !(m->e[m->meta_ref].has_strat && m->e[m->meta_ref].strat_v.anchor))
		m->meta_kind = 0;
	if (m->meta_kind == 2 && !m->e[m->meta_ref].prio.anchor)
		m->meta_kind = 0;
}

/* ---- the text, before (edited false) or as the save must write it ---------- */

static void put_path(struct strbuf *sb, int i, int kind)
{
	if (kind == 0)
		sb_printf(sb, "f%d.txt", i);
	else if (kind == 1)
		sb_printf(sb, "'dir #%d/f.txt'", i);
	else
		sb_printf(sb, "\"d%d # x.md\"", i);
}

static void put_prio(struct strbuf *sb, const struct model *m, int i, bool edited)
{
	const struct entry *e = &m->e[i];
	char num[32];
	if (edited && e->set_prio) {
		if (e->prio.anchor && e->prio.alias < 0)
			sb_printf(sb, "&p%d ", i);
		sb_puts(sb, manifest_format_priority(num, e->new_prio));
		return;
	}
	if (e->prio.alias >= 0)
		sb_printf(sb, "*p%d", e->prio.alias);
	else if (e->prio.anchor)
		sb_printf(sb, "&p%d %s", i, e->prio_text);
	else
		sb_puts(sb, e->prio_text);
}

static void put_strat(struct strbuf *sb, const struct model *m, int i, bool edited)
{
	const struct entry *e = &m->e[i];
	bool changed = edited && e->new_strat != STRAT_NONE;
	const char *name = strategy_name(changed ? e->new_strat : e->strat);
	if (e->strat_v.alias >= 0 && !changed) {
		sb_printf(sb, "*s%d", e->strat_v.alias);
		return;
	}
	if (e->strat_v.anchor && e->strat_v.alias < 0)
		sb_printf(sb, "&s%d ", i);
	const char *q = e->strat_v.alias >= 0 ? "" : e->strat_v.style == 1 ? "'" : e->strat_v.style == 2 ? "\"" : "";
	sb_printf(sb, "%s%s%s", q, name, q);
}

static void put_flow_entry(struct strbuf *sb, const struct model *m, int i, bool edited)
{
	const struct entry *e = &m->e[i];
	sb_puts(sb, "{path: ");
	put_path(sb, i, e->path_kind);
	for (int k = 0; k < e->nfields; k++) {
		switch (e->order[k]) {
		case F_PRIO: sb_puts(sb, ", priority: "); put_prio(sb, m, i, edited); break;
		case F_STRAT: sb_puts(sb, ", truncate_strategy: "); put_strat(sb, m, i, edited); break;
		default: sb_puts(sb, ", role: user"); break;
		}
	}
	if (edited && !e->has_strat && e->new_strat != STRAT_NONE)
		sb_printf(sb, ", truncate_strategy: %s", strategy_name(e->new_strat));
	sb_putc(sb, '}');
}

static void put_block_entry(struct strbuf *sb, const struct model *m, int i, bool edited)
{
	const struct entry *e = &m->e[i];
	const char *eol = m->eol;
	sb_puts(sb, "  - ");
	if (e->flow) {
		put_flow_entry(sb, m, i, edited);
		sb_puts(sb, e->trailing ? "   # flow entry" : "");
		sb_puts(sb, eol);
		return;
	}
	sb_puts(sb, "path: ");
	put_path(sb, i, e->path_kind);
	sb_puts(sb, eol);
	for (int k = 0; k < e->nfields; k++) {
		if (k && k == e->inner_comment)
			sb_printf(sb, "    # inside entry %d%s", i, eol);
		switch (e->order[k]) {
		case F_PRIO:
			sb_puts(sb, "    priority: ");
			put_prio(sb, m, i, edited);
			sb_printf(sb, "%s%s", e->trailing ? "   # why this priority" : "", eol);
			break;
		case F_STRAT:
			sb_puts(sb, "    truncate_strategy: ");
			put_strat(sb, m, i, edited);
			sb_puts(sb, eol);
			break;
		case F_ROLE: sb_printf(sb, "    role: developer%s", eol); break;
		default:
			sb_printf(sb, "    note: %c%s%s      first line%s      # a heading inside the block%s", e->note_style,
				  e->chomp, eol, eol, eol);
			break;
		}
	}
	if (edited && !e->has_strat && e->new_strat != STRAT_NONE)
		sb_printf(sb, "    truncate_strategy: %s%s", strategy_name(e->new_strat), eol);
}

static void put_comments(struct strbuf *sb, const struct model *m, int i)
{
	for (int c = 0; c < m->e[i].ncomments; c++)
		sb_printf(sb, "  # about entry %d, line %d%s", i, c, m->eol);
}

/* A block list item with the lines around it. A removed one takes its
 * lines and the comment lines right above it (not those a blank line
 * separates); when the gap sits between two blank lines, the one above
 * goes too. */
static void put_block_item(struct strbuf *sb, const struct model *m, int i, bool edited)
{
	const struct entry *e = &m->e[i];
	const char *eol = m->eol;
	if (!(edited && e->remove)) {
		sb_puts(sb, e->blank_before ? eol : "");
		put_comments(sb, m, i);
		sb_puts(sb, e->comment_gap ? eol : "");
		put_block_entry(sb, m, i, edited);
		return;
	}
	bool above_blank = e->comment_gap || e->blank_before;
	bool after_blank = i + 1 < m->nentries ? m->e[i + 1].blank_before : m->meta_kind != 0;
	bool drop_blank = above_blank && after_blank;
	if (e->blank_before && !(drop_blank && !e->comment_gap))
		sb_puts(sb, eol);
	if (e->comment_gap) {
		put_comments(sb, m, i);
		sb_puts(sb, drop_blank ? "" : eol);
	}
}

/* files: [ one entry a line ]. Removed entries take their lines; removing
 * the last ones takes the comma after the entry above (its comment stays);
 * removing every one leaves the last one's comment. */
static void put_flow_lines(struct strbuf *sb, const struct model *m, bool edited)
{
	const char *eol = m->eol;
	int n = m->nentries, last_kept = -1;
	for (int i = 0; i < n; i++)
		if (!(edited && m->e[i].remove))
			last_kept = i;
	bool tail_removed = edited && m->e[n - 1].remove;
	sb_printf(sb, "files: [%s", eol);
	for (int i = 0; i < n; i++) {
		const struct entry *e = &m->e[i];
		if (edited && e->remove)
			continue;
		sb_puts(sb, "  ");
		put_flow_entry(sb, m, i, edited);
		bool comma = i < n - 1 && !(tail_removed && i == last_kept);
		sb_printf(sb, "%s%s", comma ? "," : "", e->trailing ? "   # after this entry" : "");
		sb_puts(sb, eol);
	}
	if (last_kept < 0)
		sb_printf(sb, "  %s%s", m->e[n - 1].trailing ? "   # after this entry" : "", eol);
	sb_printf(sb, "]   # the list%s", eol);
}

static void emit(const struct model *m, bool edited, struct strbuf *sb)
{
	const char *eol = m->eol;
	sb_puts(sb, m->bom ? "\xEF\xBB\xBF" : "");
	sb_printf(sb, "# a working set%s# second line of the header%sprotocol: CONTEXT-ASSEMBLY/0.1%s", eol, eol, eol);
	if (m->budget_flow)
		sb_printf(sb, "budget: {max_tokens: 16000, reserved_for_response: 2000}   # flow%s", eol);
	else
		sb_printf(sb, "budget:%s  max_tokens: 16000%s  reserved_for_response: 2000%s", eol, eol, eol);
	if (m->preamble_notes)
		sb_printf(sb, "notes: |%s  # not a comment%s  plain%s", eol, eol, eol);
	sb_puts(sb, eol);
	if (m->flow_lines) {
		put_flow_lines(sb, m, edited);
	} else if (m->flow_list) {
		sb_puts(sb, "files: [");
		bool first = true;
		for (int i = 0; i < m->nentries; i++) {
			if (edited && m->e[i].remove)
				continue;
			sb_puts(sb, first ? "" : ", ");
			first = false;
			put_flow_entry(sb, m, i, edited);
		}
		sb_printf(sb, "]   # the list%s", eol);
	} else {
		sb_printf(sb, "files:   # the list%s", eol);
		for (int i = 0; i < m->nentries; i++)
			put_block_item(sb, m, i, edited);
	}
	if (m->meta_kind == 1)
		sb_printf(sb, "%smetadata: {session: *s%d}%s", eol, m->meta_ref, eol);
	else if (m->meta_kind == 2)
		sb_printf(sb, "%sextra:%s  - *p%d   # shared%s", eol, eol, m->meta_ref, eol);
	sb_printf(sb, "# the end%s", eol);
}

/* ---- what the save must do -------------------------------------------------------- */

/* An anchored value that changes or goes while an alias the edits do not
 * replace still uses it: the save must refuse. */
static bool must_refuse(const struct model *m)
{
	for (int k = 0; k < m->nentries; k++) {
		const struct entry *d = &m->e[k];
		bool prio_gone = d->prio.anchor && d->prio.alias < 0 && (d->remove || d->set_prio);
		bool strat_gone = d->has_strat && d->strat_v.anchor && d->strat_v.alias < 0 &&
				  (d->remove || d->new_strat != STRAT_NONE);
		for (int j = k + 1; j < m->nentries; j++) {
			const struct entry *u = &m->e[j];
			if (u->remove)
				continue;
			if (prio_gone && u->prio.alias == k && !u->set_prio)
				return true;
			if (strat_gone && u->has_strat && u->strat_v.alias == k && u->new_strat == STRAT_NONE)
				return true;
		}
		if ((prio_gone && m->meta_kind == 2 && m->meta_ref == k) || (strat_gone && m->meta_kind == 1 && m->meta_ref == k))
			return true;
	}
	return false;
}

/* The saved text parses to the intended entries. */
static void check_values(const struct model *m, const char *text, size_t len)
{
	struct ytree t;
	struct cs_error err;
	cs_error_clear(&err);
	if (ytree_parse(&t, text, len, &err) != CS_OK)
		abort();
	const struct ynode *files = ymap_get(t.root, "files");
	size_t k = 0;
	for (int i = 0; i < m->nentries; i++) {
		const struct entry *e = &m->e[i];
		if (e->remove)
			continue;
		if (!files || files->type != YNODE_SEQ || k >= files->nchildren)
			abort();
		const struct ynode *n = files->children[k++];
		char num[32];
		double want = e->set_prio ? strtod(manifest_format_priority(num, e->new_prio), NULL) : prio_value(m, i);
		double got;
		if (!ynode_number(ymap_get(n, "priority"), &got) || got != want)
			abort();
		int ws = e->new_strat != STRAT_NONE ? e->new_strat : strat_value(m, i);
		const struct ynode *s = ymap_get(n, "truncate_strategy");
		if ((s ? strategy_from_name(s->value) : STRAT_END) != ws)
			abort();
	}
	if (!files || k != files->nchildren)
		abort();
	ytree_fini(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 1099511628211ULL;
	struct rnd r = { data, size, 0, h | 1 };
	struct model m;
	gen_model(&r, &m);
	struct strbuf before = STRBUF_INIT, want = STRBUF_INIT;
	emit(&m, false, &before);
	emit(&m, true, &want);
	struct manifest_edit edits[MAX_ENTRIES];
	size_t n = 0;
	for (int i = 0; i < m.nentries; i++) {
		const struct entry *e = &m.e[i];
		if (e->remove || e->set_prio || e->new_strat != STRAT_NONE)
			edits[n++] = (struct manifest_edit){ .entry = (size_t)i, .remove = e->remove,
							     .set_priority = !e->remove && e->set_prio,
							     .priority = e->new_prio,
							     .strategy = e->remove ? STRAT_NONE : e->new_strat };
	}
	/* any order */
	for (size_t i = n; i > 1; i--) {
		size_t j = pick(&r, (unsigned)i);
		struct manifest_edit t = edits[i - 1];
		edits[i - 1] = edits[j];
		edits[j] = t;
	}
	char *out = NULL;
	size_t len = 0;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = manifest_splice(sb_str(&before), before.len, edits, n, &out, &len, &err);
	bool refuse = must_refuse(&m);
	if (getenv("FUZZ_SAVE_DEBUG"))
		fprintf(stderr, "---- before\n%s---- want (%s)\n%s---- got rc %d: %s\n%s", sb_str(&before),
			refuse ? "refused" : "saved", sb_str(&want), rc, err.message, out ? out : "");
	if (rc == CS_ENOMEM)
		abort();
	if (refuse != (rc != CS_OK))
		abort();
	if (rc == CS_OK) {
		if (len != want.len || memcmp(out, sb_str(&want), len) != 0)
			abort();
		check_values(&m, out, len);
	}
	cs_free(out);
	sb_fini(&before);
	sb_fini(&want);
	return 0;
}

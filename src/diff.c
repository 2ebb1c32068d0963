/* diff.c: the baseline diff (see diff.h). */
#include "diff.h"

#include "base/alloc.h"
#include "assembly.h"
#include "emit.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_ID_COLUMNS_MAX 48 /* an id column wider than this is cut with an ellipsis:
                                  the detail after it must stay on an 80-column line */

const char *diff_flag_code(unsigned flag)
{
	switch (flag) {
	case DIFF_ADDED: return "added";
	case DIFF_REMOVED: return "removed";
	case DIFF_CUT: return "truncated";
	case DIFF_MOVED: return "moved";
	default: return "";
	}
}

void diff_fini(struct diff *d)
{
	if (!d)
		return;
	cs_free(d->changes);
	cache_analysis_fini(&d->an);
	memset(d, 0, sizeof *d);
}

/* Per piece of a: its 1-based place among the prompt's pieces (0 when out)
 * and the tokens before its first block. cs_calloc'd arrays. */
static bool positions(const struct assembly *a, long **pos, long **offset)
{
	size_t n = a->src->npieces ? a->src->npieces : 1;
	*pos = cs_calloc(n, sizeof **pos);
	*offset = cs_calloc(n, sizeof **offset);
	if (!*pos || !*offset)
		return false;
	long next = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		long p = a->blocks[b].piece;
		if (p >= 0 && (size_t)p < a->src->npieces && (*pos)[p] == 0) {
			(*pos)[p] = ++next;
			(*offset)[p] = a->blocks[b].offset_tokens;
		}
	}
	return true;
}

/* Marks keep[k] for the elements of seq[0..n) in one longest strictly
 * increasing subsequence (the earliest-ending one of each length). */
static bool longest_increasing(const long *seq, size_t n, bool *keep)
{
	size_t *tails = cs_calloc(n ? n : 1, sizeof *tails); /* index of the smallest tail per length */
	size_t *prev = cs_calloc(n ? n : 1, sizeof *prev);
	if (!tails || !prev) {
		cs_free(tails);
		cs_free(prev);
		return false;
	}
	size_t len = 0;
	for (size_t k = 0; k < n; k++) {
		size_t lo = 0, hi = len;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (seq[tails[mid]] < seq[k])
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[k] = lo ? tails[lo - 1] : (size_t)-1;
		tails[lo] = k;
		if (lo == len)
			len++;
	}
	for (size_t k = len ? tails[len - 1] : (size_t)-1; k != (size_t)-1; k = prev[k])
		keep[k] = true;
	cs_free(tails);
	cs_free(prev);
	return true;
}

static struct diff_change *add_change(struct diff *d)
{
	if (CS_GROW(d->changes, d->cap, d->n + 1) != 0)
		return NULL;
	struct diff_change *c = &d->changes[d->n++];
	memset(c, 0, sizeof *c);
	c->piece = c->base_piece = -1;
	c->offset_before = c->offset_after = -1;
	return c;
}

static void fill_side(struct diff_change *c, const struct assembly *a, long piece, const long *pos,
		      const long *off, bool before)
{
	const struct piece_result *r = &a->results[piece];
	long position = pos[piece];
	long tokens = position ? r->tokens : 0;
	long offset = position ? off[piece] : -1;
	if (before) {
		c->tokens_before = tokens;
		c->position_before = position;
		c->offset_before = offset;
		c->reason_before = r->reason;
	} else {
		c->tokens_after = tokens;
		c->position_after = position;
		c->offset_after = offset;
		c->reason_after = r->reason;
	}
	if (!c->original_tokens || !before)
		c->original_tokens = r->original_tokens;
}

static int by_place(const void *x, const void *y)
{
	const struct diff_change *a = x, *b = y;
	/* current prompt order first, then the removed in the baseline's order */
	bool ra = a->position_after == 0, rb = b->position_after == 0;
	if (ra != rb)
		return ra ? 1 : -1;
	long ka = ra ? a->position_before : a->position_after;
	long kb = rb ? b->position_before : b->position_after;
	return (ka > kb) - (ka < kb);
}

/* The pieces in both prompts that moved: those off the longest run that
 * keeps its baseline order, walking the current prompt. *out (cs_calloc'd,
 * one per current piece) is NULL on out of memory. */
static bool moved_pieces(const struct source *ns, const long *map, const long *pos_b, const long *pos_n,
			 bool **out)
{
	size_t nn = ns->npieces ? ns->npieces : 1;
	size_t *common = cs_calloc(nn, sizeof *common);
	long *seq = cs_calloc(nn, sizeof *seq);
	bool *keep = cs_calloc(nn, sizeof *keep);
	bool *moved = cs_calloc(nn, sizeof *moved);
	bool ok = common && seq && keep && moved;
	if (ok) {
		/* the pieces in both prompts, in the current order, with their baseline places */
		for (size_t i = 0; i < ns->npieces; i++) /* order by place: common[place - 1] = piece */
			if (pos_n[i])
				common[pos_n[i] - 1] = i;
		long in_prompt = 0;
		for (size_t i = 0; i < ns->npieces; i++)
			in_prompt += pos_n[i] != 0;
		size_t ncommon = 0;
		for (long k = 0; k < in_prompt; k++) {
			size_t i = common[k];
			if (map[i] >= 0 && pos_b[map[i]]) {
				common[ncommon] = i; /* ncommon <= k: overwrites only what was read */
				seq[ncommon++] = pos_b[map[i]];
			}
		}
		ok = longest_increasing(seq, ncommon, keep);
		for (size_t k = 0; ok && k < ncommon; k++)
			moved[common[k]] = !keep[k];
	}
	cs_free(common);
	cs_free(seq);
	cs_free(keep);
	if (!ok) {
		cs_free(moved);
		moved = NULL;
	}
	*out = moved;
	return ok;
}

bool *diff_moved(const struct assembly *base, const struct assembly *now)
{
	const struct source *bs = base->src, *ns = now->src;
	long *pos_b = NULL, *off_b = NULL, *pos_n = NULL, *off_n = NULL;
	long *map = cs_calloc(ns->npieces ? ns->npieces : 1, sizeof *map);
	bool *matched = cs_calloc(bs->npieces ? bs->npieces : 1, sizeof *matched);
	bool *moved = NULL;
	if (map && matched && positions(base, &pos_b, &off_b) && positions(now, &pos_n, &off_n) &&
	    source_match_ids(bs, ns, map, matched))
		moved_pieces(ns, map, pos_b, pos_n, &moved);
	cs_free(pos_b);
	cs_free(off_b);
	cs_free(pos_n);
	cs_free(off_n);
	cs_free(map);
	cs_free(matched);
	return moved;
}

/* Where each piece sits in both prompts, and which baseline piece is
 * which current one. */
struct places {
	long *pos_b, *off_b, *pos_n, *off_n, *map;
	bool *matched, *moved;
};

/* A change for every current piece added, removed, cut or moved. */
static int changes_now(struct diff *d, const struct places *pl)
{
	const struct assembly *base = d->base, *now = d->now;
	const struct source *ns = now->src;
	for (size_t i = 0; i < ns->npieces; i++) {
		long j = pl->map[i];
		bool in_b = j >= 0 && pl->pos_b[j], in_n = pl->pos_n[i] != 0;
		unsigned flags = 0;
		if (!in_b && in_n)
			flags = DIFF_ADDED;
		else if (in_b && !in_n)
			flags = DIFF_REMOVED;
		else if (in_b && in_n) {
			const struct piece_result *rb = &base->results[j], *rn = &now->results[i];
			if (rb->outcome != rn->outcome || rb->tokens != rn->tokens)
				flags |= DIFF_CUT;
			if (pl->moved[i])
				flags |= DIFF_MOVED;
		}
		if (!flags)
			continue;
		struct diff_change *c = add_change(d);
		if (!c)
			return CS_ENOMEM;
		c->flags = flags;
		c->id = ns->pieces[i].id;
		c->name = piece_name(&ns->pieces[i]);
		c->piece = (long)i;
		c->base_piece = j;
		if (j >= 0)
			fill_side(c, base, j, pl->pos_b, pl->off_b, true);
		fill_side(c, now, (long)i, pl->pos_n, pl->off_n, false);
	}
	return CS_OK;
}

/* A removal for every piece in the baseline's prompt that only the
 * baseline's source has. */
static int changes_base_only(struct diff *d, const struct places *pl)
{
	const struct source *bs = d->base->src;
	for (size_t j = 0; j < bs->npieces; j++) {
		if (pl->matched[j] || !pl->pos_b[j])
			continue;
		struct diff_change *c = add_change(d);
		if (!c)
			return CS_ENOMEM;
		c->flags = DIFF_REMOVED;
		c->id = bs->pieces[j].id;
		c->name = piece_name(&bs->pieces[j]);
		c->base_piece = (long)j;
		fill_side(c, d->base, (long)j, pl->pos_b, pl->off_b, true);
		c->reason_after = REASON_NONE;
	}
	return CS_OK;
}

static int compare(struct diff *d, struct cs_error *err)
{
	const struct source *bs = d->base->src, *ns = d->now->src;
	struct places pl = { 0 };
	int rc = CS_ENOMEM;
	size_t nn = ns->npieces ? ns->npieces : 1;
	if (!positions(d->base, &pl.pos_b, &pl.off_b) || !positions(d->now, &pl.pos_n, &pl.off_n))
		goto done;
	pl.map = cs_calloc(nn, sizeof *pl.map);
	pl.matched = cs_calloc(bs->npieces ? bs->npieces : 1, sizeof *pl.matched);
	if (!pl.map || !pl.matched || !source_match_ids(bs, ns, pl.map, pl.matched) ||
	    !moved_pieces(ns, pl.map, pl.pos_b, pl.pos_n, &pl.moved))
		goto done;
	rc = changes_now(d, &pl);
	if (rc == CS_OK)
		rc = changes_base_only(d, &pl);
	if (rc == CS_OK) {
		if (d->n)
			qsort(d->changes, d->n, sizeof *d->changes, by_place);
		for (size_t k = 0; k < d->n; k++) {
			unsigned f = d->changes[k].flags;
			d->added += !!(f & DIFF_ADDED);
			d->removed += !!(f & DIFF_REMOVED);
			d->cut += !!(f & DIFF_CUT);
			d->moved += !!(f & DIFF_MOVED);
		}
	}
done:
	cs_free(pl.pos_b);
	cs_free(pl.off_b);
	cs_free(pl.pos_n);
	cs_free(pl.off_n);
	cs_free(pl.map);
	cs_free(pl.matched);
	cs_free(pl.moved);
	if (rc != CS_OK)
		return cs_error_nomem(err);
	return CS_OK;
}

int diff_build(const struct assembly *base, const struct cache_overrides *o_base, const struct assembly *now,
	       const struct cache_overrides *o_now, const struct cache_profile *p, struct diff *d,
	       struct cs_error *err)
{
	memset(d, 0, sizeof *d);
	d->base = base;
	d->now = now;
	int rc = cache_analyze(base, o_base, now, o_now, p, &d->an, err);
	if (rc == CS_OK)
		rc = compare(d, err);
	if (rc != CS_OK) {
		diff_fini(d);
		return rc;
	}
	d->still_cached = d->an.now.read;
	d->to_rewrite = d->an.now.rewritten;
	d->new_tokens = d->an.now.total - d->an.now.read - d->an.now.rewritten;
	return CS_OK;
}

/* ---- rendering -------------------------------------------------------------- */

/* What block b is: its piece's name (for people) or id (for programs), or the
 * assembler's label. */
static const char *block_name(const struct assembly *a, long b, bool for_people)
{
	if (b < 0 || (size_t)b >= a->nblocks)
		return "the end of the prompt";
	const struct block *blk = &a->blocks[b];
	if (blk->piece >= 0)
		return for_people ? piece_name(&a->src->pieces[blk->piece]) : a->src->pieces[blk->piece].id;
	return blk->label ? blk->label : "text the assembler made";
}

static void signed_thousands(struct strbuf *out, long long v)
{
	if (v > 0)
		sb_putc(out, '+');
	sb_thousands(out, v);
}

static void safe(struct strbuf *out, const char *s, unsigned flags)
{
	utf8_sanitize(out, s, strlen(s), flags | UTF8_ONE_LINE);
}

bool diff_lines(const struct diff *d, unsigned flags, struct strbuf *out)
{
	const struct cache_analysis *an = &d->an;
	char n1[32], n2[32], n3[32];
	sb_puts(out, "diff against the baseline, cache profile ");
	safe(out, an->profile->name, flags);
	sb_putc(out, '\n');

	sb_printf(out, "  prompt       %s -> %s tokens (", fmt_thousands(n1, d->base->total_tokens),
		  fmt_thousands(n2, d->now->total_tokens));
	signed_thousands(out, d->now->total_tokens - d->base->total_tokens);
	sb_puts(out, ")\n");
	sb_printf(out, "  budget used  %s -> %s of %s\n", fmt_thousands(n1, d->base->budget.used),
		  fmt_thousands(n2, d->now->budget.used), fmt_thousands(n3, d->now->budget.usable));
	if (an->div.identical) {
		sb_puts(out, "  first diff   none: the same prompt\n");
	} else {
		sb_printf(out, "  first diff   at token %s, in ", fmt_thousands(n1, an->div.tokens));
		safe(out, block_name(d->now, an->div.block, true), flags);
		sb_putc(out, '\n');
	}
	sb_printf(out, "  cache        %s read, %s written, %s uncached", fmt_thousands(n1, d->an.now.read),
		  fmt_thousands(n2, d->an.now.written), fmt_thousands(n3, d->an.now.uncached));
	if (d->to_rewrite > 0)
		sb_printf(out, " (%s of the written were read in the baseline)", fmt_thousands(n1, d->to_rewrite));
	sb_putc(out, '\n');
	sb_printf(out, "  cost         %s base-price tokens a request, against %s for the baseline repeated (",
		  fmt_thousands(n1, llround(an->now.cost)), fmt_thousands(n2, llround(an->steady.cost)));
	signed_thousands(out, llround(an->delta));
	if (an->profile->price_per_mtok >= 0)
		sb_printf(out, "; %s$%.4f", an->delta < 0 ? "-" : "+", fabs(an->delta) * an->profile->price_per_mtok / 1e6);
	sb_puts(out, ")\n");
	sb_printf(out, "  changes      %zu added, %zu removed, %zu truncated differently, %zu moved\n", d->added,
		  d->removed, d->cut, d->moved);
	if (d->n)
		sb_putc(out, '\n');

	/* ids in one column, as wide as the widest (up to a limit) */
	size_t width = 0;
	struct strbuf tmp = STRBUF_INIT;
	for (size_t k = 0; k < d->n; k++) {
		sb_reset(&tmp);
		safe(&tmp, d->changes[k].name, flags);
		size_t cols = utf8_columns(sb_str(&tmp), tmp.len);
		if (cols > width)
			width = cols;
	}
	if (tmp.failed)
		out->failed = true;
	sb_fini(&tmp);
	if (width > DIFF_ID_COLUMNS_MAX)
		width = DIFF_ID_COLUMNS_MAX;
	for (size_t k = 0; k < d->n; k++) {
		const struct diff_change *c = &d->changes[k];
		char glyph = c->flags & DIFF_ADDED ? '+' : c->flags & DIFF_REMOVED ? '-' : c->flags & DIFF_CUT ? '~' : ' ';
		sb_printf(out, "  %c%c ", glyph, c->flags & DIFF_MOVED ? '>' : ' ');
		utf8_fit(out, c->name, strlen(c->name), width, flags | UTF8_ONE_LINE, true);
		sb_puts(out, "  ");
		if (c->flags & DIFF_ADDED) {
			sb_printf(out, "added: %s tokens at place %ld", fmt_thousands(n1, c->tokens_after), c->position_after);
			if (c->base_piece >= 0 && c->reason_before != REASON_NONE)
				sb_printf(out, " (the baseline: %s)", reason_sentence(c->reason_before));
			else if (c->base_piece < 0)
				sb_puts(out, " (not in the baseline's input)");
		}
		if (c->flags & DIFF_REMOVED) {
			sb_printf(out, "removed: %s tokens were at place %ld", fmt_thousands(n1, c->tokens_before),
				  c->position_before);
			if (c->piece >= 0 && c->reason_after != REASON_NONE)
				sb_printf(out, " (now: %s)", reason_sentence(c->reason_after));
			else if (c->piece < 0)
				sb_puts(out, " (not in the current input)");
		}
		if (c->flags & DIFF_CUT)
			sb_printf(out, "tokens %s -> %s of %s", fmt_thousands(n1, c->tokens_before),
				  fmt_thousands(n2, c->tokens_after), fmt_thousands(n3, c->original_tokens));
		if (c->flags & DIFF_MOVED)
			sb_printf(out, "%splace %ld -> %ld", c->flags & DIFF_CUT ? "; " : "", c->position_before,
				  c->position_after);
		sb_putc(out, '\n');
	}
	return !out->failed;
}

static void emit_flags(struct emitter *em, unsigned flags)
{
	emit_key(em, "change");
	emit_list_begin(em);
	for (unsigned f = DIFF_ADDED; f <= DIFF_MOVED; f <<= 1)
		if (flags & f)
			emit_str(em, diff_flag_code(f));
	emit_list_end(em);
}

int diff_emit(const struct diff *d, struct emitter *em)
{
	const struct cache_analysis *an = &d->an;
	emit_map_begin(em);
	emit_key_str(em, "profile", an->profile->name);
	emit_key_int(em, "baseline_tokens", d->base->total_tokens);
	emit_key_int(em, "prompt_tokens", d->now->total_tokens);
	emit_key_int(em, "baseline_used", d->base->budget.used);
	emit_key_int(em, "used", d->now->budget.used);
	emit_key_bool(em, "identical", an->div.identical);
	if (!an->div.identical) {
		emit_key_int(em, "first_difference", an->div.tokens);
		emit_key_str(em, "at", block_name(d->now, an->div.block, false));
	}
	emit_key_int(em, "still_cached", d->still_cached);
	emit_key_int(em, "to_rewrite", d->to_rewrite);
	emit_key_int(em, "new", d->new_tokens);
	emit_key_int(em, "cost_tokens", llround(an->now.cost));
	emit_key_int(em, "baseline_cost_tokens", llround(an->steady.cost));
	emit_key_int(em, "delta_tokens", llround(an->delta));
	if (an->profile->price_per_mtok >= 0)
		emit_key_num(em, "delta_dollars", round(an->delta * an->profile->price_per_mtok / 1e6 * 1e6) / 1e6);
	emit_key_int(em, "added", (long long)d->added);
	emit_key_int(em, "removed", (long long)d->removed);
	emit_key_int(em, "truncated", (long long)d->cut);
	emit_key_int(em, "moved", (long long)d->moved);
	emit_key(em, "changes");
	emit_list_begin(em);
	for (size_t k = 0; k < d->n; k++) {
		const struct diff_change *c = &d->changes[k];
		emit_map_begin(em);
		emit_key_str(em, "id", c->id);
		emit_flags(em, c->flags);
		emit_key_int(em, "tokens_before", c->tokens_before);
		emit_key_int(em, "tokens_after", c->tokens_after);
		emit_key_int(em, "place_before", c->position_before);
		emit_key_int(em, "place_after", c->position_after);
		if (c->reason_before != REASON_NONE)
			emit_key_str(em, "reason_before", reason_code(c->reason_before));
		if (c->reason_after != REASON_NONE)
			emit_key_str(em, "reason_after", reason_code(c->reason_after));
		emit_map_end(em);
	}
	emit_list_end(em);
	emit_map_end(em);
	return CS_OK;
}

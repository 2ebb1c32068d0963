/* patch.c (memory): the last build kept, and the next one re-decided from
 * it when only exclusions changed. Both passes are greedy walks whose
 * whole state is a running total (pass 1: each share's tokens kept; pass 2:
 * the budget used), so an exclusion of item X changes nothing before X's
 * place in a walk, and nothing after the first place past X where the
 * running total is again the one the kept build recorded there: an item
 * that was out anyway (most of a large snapshot) changes its own decision
 * alone. The assembler then writes the re-decided items' results (the
 * ranks touched) into the previous assembly's, or every result from the
 * kept arrays in input order (assemble.c). */
#include "memory.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"

#include <stdint.h>
#include <string.h>

void memory_kept_free(struct memory_kept *k)
{
	if (!k)
		return;
	cs_free(k->dec);
	cs_free(k->flags);
	cs_free(k->rreason);
	cs_free(k->preason);
	cs_free(k->why1);
	cs_free(k->full);
	cs_free(k->pass1_pos);
	cs_free(k->in);
	cs_free(k->touched);
	cs_free(k->mark);
	cs_free(k);
}

_Static_assert(REASON_COUNT <= MEMORY_NREASONS, "memory_kept.nreason has room for every reason");

static bool same_strategy(const struct memory_strategy *a, const struct memory_strategy *b)
{
	return a->archetype == b->archetype && !memcmp(a->weights, b->weights, sizeof a->weights) &&
	       !memcmp(a->allocation, b->allocation, sizeof a->allocation);
}

bool memory_kept_matches(const struct memory *m, const struct source *src, long budget)
{
	struct memory_cache *mc = memory_cache(src);
	const struct memory_kept *k = mc->kept;
	return k && k->valid && !m->quiet && m->hold_from == 0 && !m->compress && mc->slots_valid && mc->rank_valid &&
	       k->pieces == src->pieces && k->n == src->npieces && same_strategy(&k->cur, &m->cur) &&
	       k->caps == m->caps && k->assembly == m->assembly && k->step == m->step &&
	       k->stack_current == m->stack.current && k->budget_setting == src->settings.budget &&
	       k->max_tokens == m->max_tokens && k->budget == budget &&
	       k->chars_per_token == src->settings.chars_per_token && k->layout == mc->layout &&
	       src->edits >= k->edits && src->edits - k->edits <= SOURCE_EDIT_LOG;
}

/* Each piece's place in pass 1's order and where each share's entries end
 * (pass 1's order never changes after it is made). false on out of memory. */
static bool place_pass1(struct memory_kept *k, const struct memory *m)
{
	k->pass1_pos = cs_malloc((k->n ? k->n : 1) * sizeof *k->pass1_pos);
	if (!k->pass1_pos)
		return false;
	memset(k->pass1_pos, 0xff, k->n * sizeof *k->pass1_pos); /* (size_t)-1: no share */
	size_t count[MA_COUNT] = { 0 };
	for (size_t j = 0; j < m->cache.npass1; j++) {
		k->pass1_pos[m->cache.pass1_order[j]] = j;
		count[m->cache.pass1[j].share]++;
	}
	size_t end = 0;
	for (int s = 0; s < MA_COUNT; s++)
		k->share_end[s] = end += count[s];
	return true;
}

static bool alloc_arrays(struct memory_kept *k, size_t n)
{
	if (k->rreason && k->n == n)
		return true;
	cs_free(k->rreason);
	cs_free(k->preason);
	cs_free(k->why1);
	cs_free(k->full);
	cs_free(k->pass1_pos);
	cs_free(k->mark);
	k->pass1_pos = NULL;
	k->mark = NULL;
	k->n = n;
	size_t c = n ? n : 1;
	k->rreason = cs_malloc(c);
	k->preason = cs_malloc(c);
	k->why1 = cs_malloc(c * sizeof *k->why1);
	k->full = cs_malloc(c * sizeof *k->full);
	return k->rreason && k->preason && k->why1 && k->full;
}

static long why1_of(const struct memory_decision *d)
{
	return d->reason == REASON_OVER_BUDGET ? d->left : d->reason == REASON_OVER_ALLOCATION ? d->share_used : 0;
}

static bool dropped_by_a_pass(int reason)
{
	return reason == REASON_OVER_BUDGET || reason == REASON_OVER_ALLOCATION;
}

/* The ranks in, the cutoff's rank and the count of each reason, from
 * rreason (a build from nothing; a patch keeps them up to date). */
static bool index_ranks(struct memory_kept *k)
{
	memset(k->nreason, 0, sizeof k->nreason);
	for (size_t r = 0; r < k->n; r++)
		k->nreason[k->rreason[r]]++;
	size_t nin = k->nreason[REASON_NONE];
	if (nin > k->cap_in) {
		cs_free(k->in);
		k->cap_in = 0;
		if (!(k->in = cs_malloc(nin * sizeof *k->in)))
			return false;
		k->cap_in = nin;
	}
	k->nin = 0;
	k->cut = SIZE_MAX;
	for (size_t r = 0; r < k->n; r++) {
		int why = k->rreason[r];
		if (why == REASON_NONE)
			k->in[k->nin++] = r;
		else if (k->cut == SIZE_MAX && dropped_by_a_pass(why))
			k->cut = r;
	}
	return true;
}

void memory_keep(const struct memory *m, const struct source *src, long budget, struct memory_decision *dec,
		 struct memory_flags *flags, const struct piece_result *results, const long share_used[MA_COUNT],
		 size_t dropped_budget, size_t dropped_alloc, size_t scored, unsigned long serial, bool lazy)
{
	struct memory_cache *mc = memory_cache(src);
	if (m->quiet || m->hold_from) { /* a build of another kind than the inspector's: the kept one stays */
		cs_free(dec);
		cs_free(flags);
		return;
	}
	struct memory_kept *k = mc->kept;
	if (k)
		k->valid = false;
	if (m->compress || (src->edits == 0 && !lazy) || (!k && !(k = mc->kept = cs_calloc(1, sizeof *k))) ||
	    !alloc_arrays(k, src->npieces) || (m->caps && !k->pass1_pos && !place_pass1(k, m))) {
		cs_free(dec);
		cs_free(flags);
		return;
	}
	cs_free(k->dec);
	cs_free(k->flags);
	k->dec = dec;
	k->flags = flags;
	size_t n = src->npieces;
	for (size_t i = 0; i < n; i++) {
		const struct piece_result *r = &results[i];
		k->preason[i] = (unsigned char)r->reason;
		k->why1[i] = r->reason == REASON_OVER_BUDGET || r->reason == REASON_OVER_ALLOCATION ? r->why[1] : 0;
		k->full[i] = r->original_tokens;
	}
	for (size_t r = 0; r < n; r++)
		k->rreason[r] = (unsigned char)dec[r].reason;
	if (!index_ranks(k))
		return;
	k->pieces = src->pieces;
	k->cur = m->cur;
	k->caps = m->caps;
	k->assembly = m->assembly;
	k->step = m->step;
	k->stack_current = m->stack.current;
	k->budget_setting = src->settings.budget;
	k->max_tokens = m->max_tokens;
	k->budget = budget;
	k->chars_per_token = src->settings.chars_per_token;
	k->layout = mc->layout;
	k->edits = src->edits;
	memcpy(k->share_used, share_used, sizeof k->share_used);
	k->dropped_budget = dropped_budget;
	k->dropped_alloc = dropped_alloc;
	k->scored = scored;
	k->ntouched = 0;
	k->serial = serial;
	k->serial_alike = 0;
	k->valid = true;
}

/* A rank re-decided, with its decision before. */
struct touched {
	size_t rank;
	struct memory_decision was;
};

struct patch {
	const struct memory *m;
	struct memory_kept *k;
	struct touched *t;
	size_t nt, cap;
	unsigned char *mark; /* a bit per rank: in t */
	long changed[SOURCE_EDIT_LOG]; /* the pieces whose exclusion changed */
	size_t nchanged;
	bool nomem;
};

static bool marked(const struct patch *p, size_t rank)
{
	return p->mark[rank >> 3] & (1u << (rank & 7));
}

/* Notes rank's decision before it is re-decided (once). */
static void touch(struct patch *p, size_t rank)
{
	if (marked(p, rank))
		return;
	if (p->nt == p->cap && CS_GROW(p->t, p->cap, p->nt + 1) != 0) {
		p->nomem = true;
		return;
	}
	p->mark[rank >> 3] |= (unsigned char)(1u << (rank & 7));
	p->t[p->nt++] = (struct touched){ rank, p->k->dec[rank] };
}

static bool is_changed(const struct patch *p, size_t piece)
{
	for (size_t c = 0; c < p->nchanged; c++)
		if ((size_t)p->changed[c] == piece)
			return true;
	return false;
}

static bool checked(struct memory_flags f)
{
	return !f.excluded && f.filtered == MF_NONE && !f.held;
}

/* The pieces whose exclusion the edits since the kept build changed, their
 * flags set; false when an edit was of anything else. */
static bool changed_pieces(struct patch *p, const struct source *src)
{
	struct memory_cache *mc = memory_cache(src);
	struct memory_kept *k = p->k;
	for (unsigned long e = k->edits; e < src->edits; e++) {
		long piece = src->edit_log[e % SOURCE_EDIT_LOG];
		if (piece < 0 || (size_t)piece >= k->n)
			return false;
		if (!is_changed(p, (size_t)piece))
			p->changed[p->nchanged++] = piece;
	}
	size_t kept = 0;
	for (size_t c = 0; c < p->nchanged; c++) {
		long piece = p->changed[c];
		bool now = piece_excluded(&src->pieces[piece]);
		if (now == (bool)k->flags[piece].excluded)
			continue; /* back as it was */
		k->flags[piece].excluded = now;
		mc->slots[mc->rank_of[piece]].excluded = now;
		p->changed[kept++] = piece;
	}
	p->nchanged = kept;
	return true;
}

/* Pass 1 again in share s from the first changed entry, until its running
 * total meets the kept one past the last. */
static void share_again(struct patch *p, int s, long cap)
{
	const struct memory *m = p->m;
	struct memory_kept *k = p->k;
	size_t lo = SIZE_MAX, hi = 0;
	for (size_t c = 0; c < p->nchanged; c++) {
		size_t j = k->pass1_pos[p->changed[c]];
		if (j == SIZE_MAX || m->cache.pass1[j].share != s)
			continue;
		lo = j < lo ? j : lo;
		hi = j > hi ? j : hi;
	}
	if (lo == SIZE_MAX)
		return;
	size_t start = s ? k->share_end[s - 1] : 0, end = k->share_end[s], j;
	long used = 0;
	for (j = lo; j-- > start;) { /* the running total before lo: the nearest entry checked before it */
		if (!checked(k->flags[m->cache.pass1_order[j]]))
			continue;
		const struct memory_decision *d = &k->dec[m->cache.pass1[j].rank];
		used = d->share_used + (d->reason != REASON_OVER_ALLOCATION ? m->cache.pass1[j].tokens : 0);
		break;
	}
	for (j = lo; j < end; j++) {
		const struct memory_pass1 *e = &m->cache.pass1[j];
		struct memory_decision *d = &k->dec[e->rank];
		if (!checked(k->flags[m->cache.pass1_order[j]])) {
			if (j <= hi && is_changed(p, m->cache.pass1_order[j])) {
				touch(p, e->rank);
				*d = (struct memory_decision){ REASON_NONE, 0, 0 }; /* not in pass 1 */
			}
			continue;
		}
		if (j > hi && d->share_used == used)
			return; /* the same from here on, the share's total too */
		touch(p, e->rank);
		bool in = used + e->tokens <= cap;
		*d = (struct memory_decision){ in ? REASON_NONE : REASON_OVER_ALLOCATION, 0, used };
		if (in)
			used += e->tokens;
	}
	k->share_used[s] = used;
}

/* Pass 2 again from the first rank re-decided, until the budget used meets
 * the kept one past the last. */
static void select_again(struct patch *p)
{
	const struct memory *m = p->m;
	struct memory_kept *k = p->k;
	size_t k0 = SIZE_MAX, kmax = 0;
	for (size_t t = 0; t < p->nt; t++) {
		k0 = p->t[t].rank < k0 ? p->t[t].rank : k0;
		kmax = p->t[t].rank > kmax ? p->t[t].rank : kmax;
	}
	long budget = k->budget, used = 0;
	for (size_t r = k0; r-- > 0;) { /* the budget used before k0: the nearest rank scored before it */
		int why = k->rreason[r];
		if (why != REASON_NONE && why != REASON_OVER_BUDGET)
			continue;
		used = budget - k->dec[r].left + (why == REASON_NONE ? m->cache.slots[r].full_tokens : 0);
		break;
	}
	for (size_t r = k0; r < k->n && !p->nomem; r++) {
		struct memory_decision *d = &k->dec[r];
		if (!marked(p, r)) {
			int why = k->rreason[r];
			if (why != REASON_NONE && why != REASON_OVER_BUDGET)
				continue; /* decided before pass 2: the same */
			if (r > kmax && budget - d->left == used)
				return; /* the same from here on */
			touch(p, r);
			d->reason = REASON_NONE; /* pass 1 kept it */
		}
		const struct memory_slot *o = &m->cache.slots[r];
		struct memory_flags f = k->flags[o->index]; /* the slots' are the last build's, maybe a quiet one's */
		if (!checked(f)) {
			d->reason = f.excluded ? REASON_EXCLUDED_BY_USER : f.held ? f.held : REASON_FILTERED;
			continue;
		}
		if (d->reason == REASON_OVER_ALLOCATION)
			continue;
		d->left = budget - used;
		if (used + o->full_tokens > budget) {
			d->reason = REASON_OVER_BUDGET;
		} else {
			d->reason = REASON_NONE;
			used += o->full_tokens;
		}
	}
}

/* Rank r into the ranks in (in: true) or out of them. false on out of memory. */
static bool place_in(struct memory_kept *k, size_t r, bool in)
{
	size_t lo = 0, hi = k->nin;
	while (lo < hi) { /* the first place at or after r */
		size_t mid = lo + (hi - lo) / 2;
		if (k->in[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!in) {
		if (lo < k->nin && k->in[lo] == r)
			memmove(k->in + lo, k->in + lo + 1, (--k->nin - lo) * sizeof *k->in);
		return true;
	}
	if (CS_GROW(k->in, k->cap_in, k->nin + 1) != 0)
		return false;
	memmove(k->in + lo + 1, k->in + lo, (k->nin - lo) * sizeof *k->in);
	k->in[lo] = r;
	k->nin++;
	return true;
}

/* The kept arrays and counts after the ranks re-decided. */
static void settle(struct patch *p)
{
	struct memory_kept *k = p->k;
	for (size_t t = 0; t < p->nt; t++) {
		size_t r = p->t[t].rank;
		int was = p->t[t].was.reason;
		const struct memory_decision *d = &k->dec[r];
		bool scored_was = was == REASON_NONE || was == REASON_OVER_BUDGET;
		bool scored_now = d->reason == REASON_NONE || d->reason == REASON_OVER_BUDGET;
		k->scored += (size_t)scored_now - (size_t)scored_was;
		k->dropped_budget += (size_t)(d->reason == REASON_OVER_BUDGET) - (size_t)(was == REASON_OVER_BUDGET);
		k->dropped_alloc += (size_t)(d->reason == REASON_OVER_ALLOCATION) - (size_t)(was == REASON_OVER_ALLOCATION);
		k->rreason[r] = (unsigned char)d->reason;
		size_t i = p->m->cache.slots[r].index;
		k->preason[i] = (unsigned char)d->reason;
		k->why1[i] = why1_of(d);
		k->nreason[was]--;
		k->nreason[d->reason]++;
		if ((was == REASON_NONE) != (d->reason == REASON_NONE) && !place_in(k, r, d->reason == REASON_NONE))
			p->nomem = true;
		if (dropped_by_a_pass(d->reason) && (k->cut == SIZE_MAX || r < k->cut))
			k->cut = r;
		k->touched[t] = r;
	}
	k->ntouched = p->nt;
	while (k->cut < k->n && !dropped_by_a_pass(k->rreason[k->cut])) /* it went back in: the next one */
		k->cut++;
	if (k->cut >= k->n)
		k->cut = SIZE_MAX;
}

bool memory_patch(const struct memory *m, const struct source *src, const long cap[MA_COUNT])
{
	struct memory_cache *mc = memory_cache(src);
	struct memory_kept *k = mc->kept;
	struct patch p = { .m = m, .k = k };
	k->valid = false; /* until done */
	k->serial = k->serial_alike = 0; /* the decisions are no longer the last results' */
	if (!changed_pieces(&p, src) || (m->caps && !k->pass1_pos))
		return false;
	if (!k->mark && !(k->mark = cs_calloc(k->n / 8 + 1, 1)))
		return false;
	p.mark = k->mark; /* clear between patches: the bits set are cleared below */
	for (size_t c = 0; c < p.nchanged; c++) {
		size_t x = (size_t)p.changed[c];
		if (!m->caps || k->pass1_pos[x] == SIZE_MAX) { /* pass 1 does not see it */
			touch(&p, mc->rank_of[x]);
			k->dec[mc->rank_of[x]] = (struct memory_decision){ REASON_NONE, 0, 0 };
		}
	}
	for (int s = 0; m->caps && s < MA_COUNT; s++)
		share_again(&p, s, cap[s]);
	if (p.nt && !p.nomem)
		select_again(&p);
	if (!p.nomem && CS_GROW(k->touched, k->cap_touched, p.nt) != 0)
		p.nomem = true;
	if (!p.nomem)
		settle(&p);
	for (size_t t = 0; t < p.nt; t++)
		p.mark[p.t[t].rank >> 3] = 0;
	cs_free(p.t);
	if (p.nomem)
		return false;
	k->edits = src->edits;
	k->patched++;
	k->valid = true;
	return true;
}

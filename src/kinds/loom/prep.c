/* prep.c (loom): the facts about each piece that the assembly reads at
 * every run and that no edit changes (what it is on the path, what the
 * input says about it, whether its text is empty, its code points, its
 * role), made once at the first assembly into small arrays: a re-assembly
 * after an edit then walks a few bytes a piece instead of each piece's
 * record, its loom item and the start and end of its text. */
#include "loom.h"
#include "loom_priv.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "tokens/estimate.h"

#include <string.h>

/* Whether p's text is only white space (or nothing). */
static bool blank_text(const struct piece *p)
{
	const char *s = p->text;
	size_t n = p->text_bytes;
	loom_trim(&s, &n);
	return n == 0;
}

/* A small number for p's role, the same for equal roles; LOOM_PREP_ROLES
 * distinct roles at most (later ones share the last number and are told
 * apart by their text: loom_prep_same_role). */
static unsigned short role_id(struct loom_prep *pr, const char *role)
{
	for (unsigned short r = 0; r < pr->nroles; r++)
		if (pr->roles[r] == role || strcmp(pr->roles[r], role) == 0)
			return r;
	if (pr->nroles == LOOM_PREP_ROLES)
		return LOOM_PREP_ROLES;
	pr->roles[pr->nroles] = role;
	return pr->nroles++;
}

/* The lists of prep.h by use, the model nodes, and the path positions'
 * primaries and latest times. false on out of memory. */
static bool prep_lists(struct loom_prep *pr, const struct source *src, const struct loom *m)
{
	size_t n = src->npieces ? src->npieces : 1, depth = m->depth;
	pr->pos = cs_malloc(n * sizeof *pr->pos);
	pr->model = cs_malloc(n * sizeof *pr->model);
	pr->instr = cs_malloc(n * sizeof *pr->instr);
	pr->pinned = cs_malloc(n * sizeof *pr->pinned);
	pr->at_pos = cs_malloc((depth ? depth : 1) * sizeof *pr->at_pos);
	pr->latest = cs_malloc((depth + 1) * sizeof *pr->latest);
	if (!pr->pos || !pr->model || !pr->instr || !pr->pinned || !pr->at_pos || !pr->latest)
		return false;
	pr->depth = depth;
	for (size_t p = 0; p < depth; p++)
		pr->at_pos[p] = -1;
	long long *first_ms = pr->latest + 1; /* [p]: the createdAt of the primary at p, first */
	for (size_t p = 0; p < depth; p++)
		first_ms[p] = LOOM_NO_TIME;
	for (size_t i = 0; i < src->npieces; i++) {
		const struct loom_item *it = &m->items[src->pieces[i].kind_index];
		pr->pos[i] = (unsigned)it->path_pos;
		if (it->use == LOOM_INSTRUCTION)
			pr->instr[pr->ninstr++] = (long)i;
		else if (it->use == LOOM_PINNED)
			pr->pinned[pr->npinned++] = (long)i;
		if (it->use != LOOM_PRIMARY)
			continue;
		if (!strcmp(it->author_type, "model"))
			pr->model[pr->nmodel++] = (long)i;
		if (it->path_pos < depth) {
			pr->at_pos[it->path_pos] = (long)i;
			first_ms[it->path_pos] = it->created_ms;
		}
	}
	long long latest = LOOM_NO_TIME; /* then running: the latest before each position */
	for (size_t p = 0; p <= depth; p++) {
		long long here = p < depth ? first_ms[p] : LOOM_NO_TIME;
		pr->latest[p] = latest;
		if (here != LOOM_NO_TIME && (latest == LOOM_NO_TIME || here > latest))
			latest = here;
	}
	return true;
}

struct loom_cache *loom_cache(const struct source *src)
{
	return &((struct loom *)src->model)->cache;
}

int loom_prepare(const struct source *src)
{
	const struct loom *m = src->model;
	struct loom_cache *c = loom_cache(src);
	if (c->prep)
		return CS_OK;
	struct loom_prep *pr = cs_calloc(1, sizeof *pr);
	size_t n = src->npieces ? src->npieces : 1;
	if (pr) {
		pr->use = cs_malloc(n * sizeof *pr->use);
		pr->bits = cs_malloc(n * sizeof *pr->bits);
		pr->role = cs_malloc(n * sizeof *pr->role);
		pr->cp = cs_malloc(n * sizeof *pr->cp);
	}
	if (!pr || !pr->use || !pr->bits || !pr->role || !pr->cp || !prep_lists(pr, src, m)) {
		loom_prep_free(pr);
		return CS_ENOMEM;
	}
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece *p = &src->pieces[i];
		const struct loom_item *it = &m->items[p->kind_index];
		unsigned char b = 0;
		if (p->input_excluded)
			b |= LOOM_PREP_EXCLUDED;
		if (it->pruned)
			b |= LOOM_PREP_PRUNED;
		if (it->via_annotation && !it->include_annotation)
			b |= LOOM_PREP_ANNOTATION;
		if (p->text_bytes == 0)
			b |= LOOM_PREP_NO_BYTES;
		if (blank_text(p))
			b |= LOOM_PREP_BLANK;
		pr->use[i] = (unsigned char)it->use;
		pr->bits[i] = b;
		pr->role[i] = role_id(pr, p->role);
		pr->cp[i] = p->code_points;
	}
	pr->n = src->npieces;
	c->prep = pr;
	return CS_OK;
}

const long *loom_prep_tokens(const struct source *src, double chars_per_token)
{
	struct loom_prep *pr = loom_cache(src)->prep;
	if (pr->tok && pr->tok_cpt == chars_per_token)
		return pr->tok;
	if (!pr->tok)
		pr->tok = cs_malloc((pr->n ? 2 * pr->n : 1) * sizeof *pr->tok);
	if (!pr->tok)
		return NULL;
	for (size_t i = 0; i < pr->n; i++) {
		pr->tok[2 * i] = tokens_estimate(pr->cp[i], chars_per_token);
		pr->tok[2 * i + 1] = tokens_estimate(pr->cp[i] + 2, chars_per_token); /* the blank line of a merge */
	}
	pr->tok_cpt = chars_per_token;
	return pr->tok;
}

const signed char *loom_prep_user(const struct source *src, bool lazy)
{
	struct loom_prep *pr = loom_cache(src)->prep;
	if (!pr->user && !(pr->user = cs_malloc(pr->n ? pr->n : 1)))
		return NULL;
	unsigned long from = pr->user_edits, to = src->edits;
	bool in_step = lazy && pr->user_of == src->pieces && from <= to && to - from <= SOURCE_EDIT_LOG;
	for (unsigned long e = from; in_step && e < to; e++) {
		long piece = src->edit_log[e % SOURCE_EDIT_LOG]; /* -1: no exclusion changed */
		if (piece >= 0 && (size_t)piece < pr->n)
			pr->user[piece] = src->pieces[piece].user_excluded;
	}
	if (!in_step)
		for (size_t i = 0; i < pr->n; i++)
			pr->user[i] = src->pieces[i].user_excluded;
	/* an eager assembly's mirror is no base for the next lazy one's: a
	 * report or a test may have set pieces without an edit */
	pr->user_of = lazy ? src->pieces : NULL;
	pr->user_edits = to;
	return pr->user;
}

bool loom_prep_same_role(const struct source *src, long a, long b)
{
	const struct loom_prep *pr = loom_cache(src)->prep;
	if (pr->role[a] != pr->role[b])
		return false;
	return pr->role[a] < LOOM_PREP_ROLES || strcmp(src->pieces[a].role, src->pieces[b].role) == 0;
}

void loom_prep_free(struct loom_prep *pr)
{
	if (!pr)
		return;
	cs_free(pr->use);
	cs_free(pr->bits);
	cs_free(pr->role);
	cs_free(pr->cp);
	cs_free(pr->tok);
	cs_free(pr->pos);
	cs_free(pr->model);
	cs_free(pr->at_pos);
	cs_free(pr->latest);
	cs_free(pr->instr);
	cs_free(pr->pinned);
	cs_free(pr->user);
	cs_free(pr->scratch);
	cs_free(pr);
}

void loom_free_model(void *model)
{
	struct loom *m = model;
	if (m)
		loom_prep_free(m->cache.prep);
	loom_free(model);
}

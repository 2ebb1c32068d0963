/* prep.c (loom): the facts about each piece that the assembly reads at
 * every run and that no edit changes (what it is on the path, what the
 * input says about it, whether its text is empty, its code points, its
 * role), made once at the first assembly into small arrays: a re-assembly
 * after an edit then walks a few bytes a piece instead of each piece's
 * record, its loom item and the start and end of its text. */
#include "loom.h"
#include "loom_priv.h"

#include "alloc.h"
#include "source.h"
#include "tokens.h"

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

int loom_prepare(const struct source *src)
{
	struct loom *m = src->model;
	if (m->prep)
		return CS_OK;
	struct loom_prep *pr = cs_calloc(1, sizeof *pr);
	size_t n = src->npieces ? src->npieces : 1;
	if (pr) {
		pr->use = cs_malloc(n * sizeof *pr->use);
		pr->bits = cs_malloc(n * sizeof *pr->bits);
		pr->role = cs_malloc(n * sizeof *pr->role);
		pr->cp = cs_malloc(n * sizeof *pr->cp);
	}
	if (!pr || !pr->use || !pr->bits || !pr->role || !pr->cp) {
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
	m->prep = pr;
	return CS_OK;
}

const long *loom_prep_tokens(const struct source *src, double chars_per_token)
{
	struct loom_prep *pr = ((struct loom *)src->model)->prep;
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

bool loom_prep_same_role(const struct source *src, long a, long b)
{
	const struct loom_prep *pr = ((const struct loom *)src->model)->prep;
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
	cs_free(pr);
}

void loom_free_model(void *model)
{
	struct loom *m = model;
	if (m)
		loom_prep_free(m->prep);
	loom_free(model);
}

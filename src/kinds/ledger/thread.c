/* thread.c (ledger): a head's thread flattened for the assembly: the
 * messages of its turns in order (with where each turn's end), which of
 * them are system messages, the pieces of the others in a row, where its
 * compaction turns sit, and the messages and compactions off it. No edit
 * changes them (an exclusion, the budget), so the assembly after an edit
 * reads these lists instead of walking every turn and message again, and
 * drops a run of turns as one run of pieces. Also which session's head is
 * assembled (ledger_pick_session) and a turn's ancestry (ledger_ancestry). */
#include "ledger.h"

#include "base/alloc.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>

struct ledger_thread {
	long head;
	long *anc;       /* its turns, root first */
	size_t nanc;
	long *msgs;      /* the messages of the ancestry's turns, root first */
	long *pieces;    /* their pieces */
	size_t *upto;    /* upto[i]: how many of msgs the turns anc[0..i) hold (nanc + 1) */
	long *sys;       /* indices into msgs of the system messages, in order */
	size_t nsys;
	long *plain;     /* the pieces of its messages that are not system messages, in order */
	size_t *plain_upto; /* plain_upto[i]: how many of plain the turns anc[0..i) hold (nanc + 1) */
	size_t *comps;   /* the positions of its compaction turns, root first */
	size_t ncomps;
	long *off;       /* messages whose piece the thread does not hold, in message order */
	size_t noff;
	long *comp_off;  /* compactions (rows) whose summary the thread does not hold, in row order */
	size_t ncomp_off;
};

void ledger_thread_free(struct ledger_thread *th)
{
	if (!th)
		return;
	cs_free(th->anc);
	cs_free(th->msgs);
	cs_free(th->pieces);
	cs_free(th->upto);
	cs_free(th->sys);
	cs_free(th->plain);
	cs_free(th->plain_upto);
	cs_free(th->comps);
	cs_free(th->off);
	cs_free(th->comp_off);
	cs_free(th);
}

/* The lists of head's thread; NULL on out of memory. */
static struct ledger_thread *build(const struct source *src, long head)
{
	const struct ledger *l = src->model;
	struct ledger_thread *th = cs_calloc(1, sizeof *th);
	if (th && ledger_ancestry(l, head, &th->anc, &th->nanc) != CS_OK) {
		cs_free(th);
		return NULL;
	}
	const long *anc = th ? th->anc : NULL;
	size_t nanc = th ? th->nanc : 0;
	bool *on = cs_calloc(src->npieces ? src->npieces : 1, sizeof *on);
	size_t nmsgs = 0;
	for (size_t i = 0; i < nanc; i++)
		nmsgs += l->turns[anc[i]].nmessages;
	if (th) {
		th->head = head;
		th->msgs = cs_malloc((nmsgs ? nmsgs : 1) * sizeof *th->msgs);
		th->pieces = cs_malloc((nmsgs ? nmsgs : 1) * sizeof *th->pieces);
		th->upto = cs_malloc((nanc + 1) * sizeof *th->upto);
		th->sys = cs_malloc((nmsgs ? nmsgs : 1) * sizeof *th->sys);
		th->plain = cs_malloc((nmsgs ? nmsgs : 1) * sizeof *th->plain);
		th->plain_upto = cs_malloc((nanc + 1) * sizeof *th->plain_upto);
		th->comps = cs_malloc((nanc ? nanc : 1) * sizeof *th->comps);
		th->off = cs_malloc((l->nmessages ? l->nmessages : 1) * sizeof *th->off);
		th->comp_off = cs_malloc((l->ncompactions ? l->ncompactions : 1) * sizeof *th->comp_off);
	}
	if (!th || !on || !th->msgs || !th->pieces || !th->upto || !th->sys || !th->plain || !th->plain_upto ||
	    !th->comps || !th->off || !th->comp_off) {
		cs_free(on);
		ledger_thread_free(th);
		return NULL;
	}
	size_t k = 0, np = 0;
	for (size_t i = 0; i < nanc; i++) {
		const struct ledger_turn *t = &l->turns[anc[i]];
		th->upto[i] = k;
		th->plain_upto[i] = np;
		if (t->compaction) { /* its summary is on the thread too */
			on[l->compactions[t->compaction_row].piece] = true;
			th->comps[th->ncomps++] = i;
		}
		for (size_t j = 0; j < t->nmessages; j++) {
			long m = t->messages[j];
			if (l->messages[m].system)
				th->sys[th->nsys++] = (long)k;
			else
				th->plain[np++] = l->messages[m].piece;
			on[l->messages[m].piece] = true;
			th->pieces[k] = l->messages[m].piece;
			th->msgs[k++] = m;
		}
	}
	th->upto[nanc] = k;
	th->plain_upto[nanc] = np;
	for (size_t m = 0; m < l->nmessages; m++)
		if (!on[l->messages[m].piece])
			th->off[th->noff++] = (long)m;
	for (size_t c = 0; c < l->ncompactions; c++)
		if (!on[l->compactions[c].piece])
			th->comp_off[th->ncomp_off++] = (long)c;
	cs_free(on);
	return th;
}

struct ledger_cache *ledger_cache(const struct source *src)
{
	return &((struct ledger *)src->model)->cache;
}

const struct ledger_thread *ledger_thread_of(const struct source *src, long head, struct ledger_thread **temp)
{
	const struct ledger *l = src->model;
	struct ledger_cache *c = ledger_cache(src);
	*temp = NULL;
	if (c->thread && c->thread->head == head)
		return c->thread;
	struct ledger_thread *th = build(src, head);
	if (!th)
		return NULL;
	if (l->bare) { /* a replay sees the model through a copy: it keeps nothing */
		*temp = th;
		return th;
	}
	ledger_thread_free(c->thread);
	c->thread = th;
	return th;
}

size_t ledger_thread_ancestry(const struct ledger_thread *th, const long **anc)
{
	*anc = th->anc;
	return th->nanc;
}

size_t ledger_thread_system(const struct ledger_thread *th, size_t turns, const long **msgs, const long **at)
{
	size_t n = 0;
	while (n < th->nsys && (size_t)th->sys[n] < th->upto[turns])
		n++;
	*msgs = th->msgs;
	*at = th->sys;
	return n;
}

size_t ledger_thread_turn(const struct ledger_thread *th, size_t pos, const long **msgs, const long **pieces)
{
	*msgs = th->msgs + th->upto[pos];
	*pieces = th->pieces + th->upto[pos];
	return th->upto[pos + 1] - th->upto[pos];
}

size_t ledger_thread_plain(const struct ledger_thread *th, size_t from, size_t to, const long **pieces)
{
	*pieces = th->plain + th->plain_upto[from];
	return th->plain_upto[to] - th->plain_upto[from];
}

size_t ledger_thread_compactions(const struct ledger_thread *th, const size_t **pos)
{
	*pos = th->comps;
	return th->ncomps;
}

size_t ledger_thread_off(const struct ledger_thread *th, const long **off)
{
	*off = th->off;
	return th->noff;
}

size_t ledger_thread_compactions_off(const struct ledger_thread *th, const long **rows)
{
	*rows = th->comp_off;
	return th->ncomp_off;
}

void ledger_free_model(void *model)
{
	struct ledger *l = model;
	if (l)
		ledger_thread_free(l->cache.thread);
	ledger_free(model);
}

long ledger_pick_session(const struct ledger *l, struct cs_error *err)
{
	if (l->session) {
		for (size_t i = 0; i < l->nsessions; i++)
			if (!strcmp(l->sessions[i].label, l->session))
				return (long)i;
		struct strbuf names = STRBUF_INIT;
		for (size_t i = 0; i < l->nsessions; i++)
			sb_printf(&names, "%s%s", i ? ", " : "", l->sessions[i].label);
		cs_error_set(err, CS_EUSAGE, "no session \"%s\" (sessions: %s)", l->session,
			     names.len ? sb_str(&names) : "none");
		sb_fini(&names);
		return -1;
	}
	long active = -1;
	size_t nactive = 0;
	for (size_t i = 0; i < l->nsessions; i++)
		if (l->sessions[i].status && !strcmp(l->sessions[i].status, "active")) {
			active = (long)i;
			nactive++;
		}
	if (nactive == 1)
		return active;
	for (size_t i = 0; i < l->nsessions; i++)
		if (!strcmp(l->sessions[i].label, "main"))
			return (long)i;
	if (l->nsessions == 1)
		return 0;
	cs_error_set(err, CS_EUSAGE, "%zu sessions and no single active one or \"main\": say --session LABEL",
		     l->nsessions);
	return -1;
}

int ledger_ancestry(const struct ledger *l, long turn, long **out, size_t *n)
{
	const struct ledger_turn *t = &l->turns[turn];
	size_t depth = 0;
	if (t->ancestry) {
		depth = t->nancestry;
	} else {
		for (long k = turn; k >= 0; k = l->turns[k].parent)
			depth++;
	}
	long *a = cs_calloc(depth ? depth : 1, sizeof *a);
	if (!a)
		return CS_ENOMEM;
	if (t->ancestry) {
		memcpy(a, t->ancestry, depth * sizeof *a);
	} else {
		size_t i = depth;
		for (long k = turn; k >= 0; k = l->turns[k].parent)
			a[--i] = k;
	}
	*out = a;
	*n = depth;
	return CS_OK;
}

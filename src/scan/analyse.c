/* analyse.c: the scan's waste model over one file's requests (scan.h has
 * the model in words). Requests are taken in file order, in two
 * sequences (the main conversation, and sidechains or a subagent's file),
 * each with a cache per model; an entry is one request's write. */
#include "scan/scan_priv.h"

#include "kinds/request/request.h"

#include <math.h>
#include <string.h>

#define SCAN_ENTRIES 64 /* live partly-read entries of one model; the oldest is settled beyond */
#define SCAN_MODELS 16  /* models of one sequence followed; more are counted, not analysed */
#define TTL_5M 300
#define TTL_1H 3600

struct entry {
	long start, end, written, covered;
	double last;      /* when it was last written or read */
	int ttl;          /* seconds */
	size_t writer;    /* the request that wrote it */
	int broken;       /* the cause of the first request that could have read it and did not */
	long broken_by;   /* that request's number */
};

struct mstate {
	const char *model;
	bool side;
	struct entry e[SCAN_ENTRIES];
	size_t n;
	long prev;        /* the last request of this model (index), -1 none */
	long first_read;  /* the first request's cache read: what the file does not hold, at least */
	int ttl;          /* of its last write */
	long min_prefix;  /* the model's cache minimum: a shorter prompt caches nothing, so loses nothing */
};

struct an {
	struct scan_file *f;
	const struct scan_links *links;
	struct mstate m[SCAN_MODELS];
	size_t nm;
	long prev_any[2]; /* per sequence: the last request of any model */
};

static struct mstate *state(struct an *a, const char *model, bool side)
{
	for (size_t i = 0; i < a->nm; i++)
		if (a->m[i].side == side && !strcmp(a->m[i].model, model))
			return &a->m[i];
	if (a->nm == SCAN_MODELS)
		return NULL;
	struct mstate *s = &a->m[a->nm++];
	memset(s, 0, sizeof *s);
	s->model = model;
	s->side = side;
	s->prev = -1;
	s->first_read = -1;
	s->ttl = TTL_5M;
	bool known;
	s->min_prefix = request_model_facts(REQ_ANTHROPIC, model, &known)->min_prefix;
	return s;
}

static void settle(struct an *a, struct entry *e, int cause, long other)
{
	long unread = e->written - e->covered;
	if (unread <= 0)
		return;
	struct scan_req *w = &a->f->reqs[e->writer];
	w->unread += unread;
	w->unread_cause = e->broken ? e->broken : cause;
	if (e->broken)
		w->other = e->broken_by;
	else if (other)
		w->other = other;
}

static void drop(struct mstate *s, size_t i)
{
	memmove(&s->e[i], &s->e[i + 1], (s->n - i - 1) * sizeof s->e[0]);
	s->n--;
}

/* Whether request r's chain runs through p (the request before it of its
 * model): false when it forks from an earlier line (a rewind, an edit). */
static bool continues(const struct an *a, const struct scan_req *r, const struct scan_req *p, long p_index)
{
	const struct scan_links *L = a->links;
	if (!L || r->link < 0 || p->last_link < 0)
		return true;
	int32_t i = L->parent[r->link];
	while (i > p->last_link)
		i = L->parent[i];
	return i < 0 || L->req[i] == p_index || i == p->last_link;
}

/* Why request r read less than p's entries held. */
static int break_cause(const struct an *a, const struct mstate *s, const struct scan_req *r, long p_index)
{
	const struct scan_req *p = &a->f->reqs[p_index];
	if (r->told_cause)
		return r->told_cause;
	if (r->fast != p->fast)
		return SC_SPEED;
	if (r->boundaries != p->boundaries)
		return SC_COMPACT;
	if (!continues(a, r, p, p_index))
		return SC_EDIT;
	if (r->version && p->version && r->version != p->version)
		return SC_SYSTEM;
	if (floor(r->time / 86400.0) != floor(p->time / 86400.0))
		return SC_VOLATILE;
	if (r->tool_deltas != p->tool_deltas)
		return SC_TOOLS;
	if (s->first_read >= 0 && r->cache_read <= s->first_read)
		return SC_SYSTEM;
	return SC_EDIT;
}

/* Entries past their TTL at time t settled. */
static void expire(struct an *a, struct mstate *s, double t, long number)
{
	for (size_t i = 0; i < s->n;) {
		struct entry *e = &s->e[i];
		if (t - e->last > e->ttl) {
			settle(a, e, SC_TTL, number);
			drop(s, i);
		} else {
			i++;
		}
	}
}

static int ttl_of(const struct scan_req *r)
{
	return r->cache_write_1h >= 0 && r->cache_write_1h * 2 >= r->cache_write && r->cache_write > 0 ? TTL_1H : TTL_5M;
}

/* What r lost against the cache of its model: what the request before it
 * of that model left cached (its read + write: Claude Code's last
 * breakpoint is the end of the prompt), up to r's own prompt's size; or,
 * new to the model, against the model before it. */
static void losses(struct an *a, struct mstate *s, struct scan_req *r)
{
	long R = r->cache_read, P = r->in + r->cache_read + r->cache_write;
	if (s->prev >= 0) {
		const struct scan_req *p = &a->f->reqs[s->prev];
		long held = p->cache_read + p->cache_write, can = held < P ? held : P;
		if (R >= can || can < s->min_prefix)
			return;
		r->lost = can - R;
		r->other = p->number;
		if (r->time - p->time > s->ttl) {
			r->lost_cause = SC_TTL;
			r->gap = r->time - p->time;
		} else {
			r->lost_cause = break_cause(a, s, r, s->prev);
		}
		return;
	}
	long q_index = a->prev_any[r->sidechain];
	if (q_index < 0)
		return;
	const struct scan_req *q = &a->f->reqs[q_index];
	long held = q->cache_read + q->cache_write, can = held < P ? held : P;
	/* a request of another model carrying most of the conversation: the
	 * model was switched (a small one beside it, a title or a quota check, is not) */
	if (strcmp(q->model, r->model) && r->time - q->time <= ttl_of(q) && P * 2 >= held && R < can &&
	    can >= s->min_prefix) {
		r->lost = can - R;
		r->lost_cause = SC_MODEL;
		r->other = q->number;
	}
}

/* r's reads over the entries: each reached is read (and refreshed); one
 * alive that it could have read and did not is broken by r's cause. */
static void reads(struct mstate *s, const struct scan_req *r)
{
	long R = r->cache_read, P = r->in + r->cache_read + r->cache_write;
	for (size_t i = 0; i < s->n;) {
		struct entry *e = &s->e[i];
		if (R > e->start) {
			long c = (R < e->end ? R : e->end) - e->start;
			if (c > e->covered)
				e->covered = c;
			e->last = r->time;
			if (e->covered >= e->written) {
				drop(s, i);
				continue;
			}
			if (R < e->end && P > R && r->lost_cause && !e->broken) { /* read in part: the rest lost to r's break */
				e->broken = r->lost_cause;
				e->broken_by = r->number;
			}
		} else if (r->time - e->last > e->ttl) {
			/* past its TTL and not read: expire() settles it */
		} else if ((P > e->start || r->lost_cause) && !e->broken) {
			e->broken = r->lost_cause ? r->lost_cause : SC_EDIT;
			e->broken_by = r->number;
		}
		i++;
	}
}

static void step(struct an *a, size_t i)
{
	struct scan_req *r = &a->f->reqs[i];
	struct mstate *s = state(a, r->model, r->sidechain);
	if (!s)
		return;
	losses(a, s, r);
	reads(s, r); /* first: an entry the record says was read was there, whatever the TTL rule says */
	expire(a, s, r->time, r->number);
	if (r->cache_write > 0) {
		if (s->n == SCAN_ENTRIES) {
			settle(a, &s->e[0], SC_END, 0);
			drop(s, 0);
		}
		s->e[s->n++] = (struct entry){ .start = r->cache_read, .end = r->cache_read + r->cache_write,
					       .written = r->cache_write, .last = r->time, .ttl = ttl_of(r),
					       .writer = i };
		s->ttl = ttl_of(r);
	}
	if (s->first_read < 0)
		s->first_read = r->cache_read;
	s->prev = (long)i;
	a->prev_any[r->sidechain] = (long)i;
}

int scan_analyse(struct scan_file *f, const struct scan_links *links, double now)
{
	static struct an zero;
	struct an a = zero;
	a.f = f;
	a.links = links;
	a.prev_any[0] = a.prev_any[1] = -1;
	for (size_t i = 0; i < f->nreqs; i++)
		if (f->reqs[i].analysed)
			step(&a, i);
	for (size_t k = 0; k < a.nm; k++) {
		struct mstate *s = &a.m[k];
		for (size_t i = 0; i < s->n; i++)
			if (now - s->e[i].last > s->e[i].ttl)
				settle(&a, &s->e[i], SC_END, 0);
	}
	for (size_t i = 0; i < f->nreqs; i++)
		scan_price_request(&f->reqs[i]);
	return CS_OK;
}

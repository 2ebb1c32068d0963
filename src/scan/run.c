/* run.c: the scan's driver (scan.h): the walk, the order, the worker
 * threads, and the adding up, one file at a time in file order. */
#include "scan/scan_priv.h"

#include "base/alloc.h"
#include "base/isotime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#define SCAN_THREADS_MAX 16
#define SNIFF_BYTES 4096 /* read for a file's first timestamp (the order) */

struct run {
	const struct scan_options *o;
	struct scan_input *in;
	size_t n;
	struct scan_file *files;
	_Atomic size_t next;
	_Atomic long long bytes_done;
	pthread_mutex_t mu;
	size_t commit_next;
	struct scan_result *res;
	struct u64map dedup;     /* key[0] -> index into key1 */
	uint64_t *key1;
	size_t nkey1, capkey1;
	struct u64map rows;      /* project/session -> index into res->sessions */
	size_t caprows;
	double last_progress;
	int rc;
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first "timestamp" of a file's first bytes, for the order (0: none). */
static double first_time(const char *path)
{
	char buf[SNIFF_BYTES + 1];
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, buf, SNIFF_BYTES);
	close(fd);
	if (got <= 0)
		return 0;
	buf[got] = '\0';
	const char *t = strstr(buf, "\"timestamp\":\"");
	if (!t)
		return 0;
	t += 13;
	const char *q = strchr(t, '"');
	char when[64];
	long long ms;
	if (!q || (size_t)(q - t) >= sizeof when)
		return 0;
	memcpy(when, t, (size_t)(q - t));
	when[q - t] = '\0';
	return iso_time_parse(when, &ms) ? (double)ms / 1000.0 : 0;
}

static int by_first(const void *a, const void *b)
{
	const struct scan_input *x = a, *y = b;
	double tx = x->first ? x->first : 1e18, ty = y->first ? y->first : 1e18;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (x->mtime != y->mtime) /* a resumed session's file repeats the first lines of one written before it */
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The row of project/session (made when new). main: path is the session's
 * own file (not a subagent's, not another session's that repeats it), the
 * path the row keeps over one it was made with. */
static struct scan_session *row_of(struct run *R, const char *project, const char *session, const char *path, bool main,
				   const char *kind)
{
	struct scan_result *res = R->res;
	uint64_t h = scan_hash(project, strlen(project), 7);
	h = scan_hash(session, strlen(session), h);
	uint32_t k = u64map_get(&R->rows, h);
	if (k != UINT32_MAX) {
		struct scan_session *s = &res->sessions[k];
		if (main && !s->path_main) {
			char *p = cs_strdup(path);
			if (p) {
				cs_free(s->path);
				s->path = p;
				s->path_main = true;
			}
		}
		return s;
	}
	if (res->nsessions == R->caprows) {
		size_t cap = R->caprows ? R->caprows * 2 : 64;
		struct scan_session *s = cs_reallocarray(res->sessions, cap, sizeof *s);
		if (!s)
			return NULL;
		res->sessions = s;
		R->caprows = cap;
	}
	struct scan_session *s = &res->sessions[res->nsessions];
	memset(s, 0, sizeof *s);
	s->project = cs_strdup(project);
	s->session = cs_strdup(session);
	s->path = cs_strdup(path);
	s->path_main = main;
	s->kind = kind;
	if (!s->project || !s->session || !s->path || !u64map_put(&R->rows, h, (uint32_t)res->nsessions)) {
		cs_free(s->project);
		cs_free(s->session);
		cs_free(s->path);
		return NULL;
	}
	res->nsessions++;
	return s;
}

/* A session's own file, when its row was made from a copy elsewhere, becomes its path. */
static void adopt_path(struct run *R, const struct scan_file *f, const char *path)
{
	uint64_t h = scan_hash(f->project, strlen(f->project), 7);
	h = scan_hash(f->session, strlen(f->session), h);
	uint32_t k = u64map_get(&R->rows, h);
	struct scan_session *s = k != UINT32_MAX ? &R->res->sessions[k] : NULL;
	char *p = s && !s->path_main ? cs_strdup(path) : NULL;
	if (p) {
		cs_free(s->path);
		s->path = p;
		s->path_main = true;
	}
}

/* false: a request an earlier file already counted. */
static bool first_time_seen(struct run *R, const struct scan_req *r, bool *nomem)
{
	if (!r->has_key)
		return true;
	uint32_t k = u64map_get(&R->dedup, r->key[0]);
	if (k != UINT32_MAX)
		return R->key1[k] != r->key[1];
	if (R->nkey1 == R->capkey1) {
		size_t cap = R->capkey1 ? R->capkey1 * 2 : 1024;
		uint64_t *p = cs_reallocarray(R->key1, cap, sizeof *p);
		if (!p) {
			*nomem = true;
			return true;
		}
		R->key1 = p;
		R->capkey1 = cap;
	}
	R->key1[R->nkey1] = r->key[1];
	if (!u64map_put(&R->dedup, r->key[0], (uint32_t)R->nkey1))
		*nomem = true;
	R->nkey1++;
	return true;
}

static void add_request(struct scan_session *s, const struct scan_req *r, const char *path)
{
	if (!s->requests || r->time < s->first)
		s->first = r->time;
	if (r->time > s->last)
		s->last = r->time;
	s->requests++;
	s->in += r->in;
	s->cache_read += r->cache_read;
	s->cache_write += r->cache_write;
	s->cache_write_1h += r->cache_write_1h > 0 ? r->cache_write_1h : 0;
	s->output += r->output;
	if (r->cost >= 0)
		s->cost += r->cost;
	else
		s->unpriced++;
	s->unread += r->unread;
	s->lost += r->lost;
	s->unread_by[r->unread_cause] += r->unread;
	s->lost_by[r->lost_cause] += r->lost;
	if (r->waste_cost > 0)
		s->waste_cost += r->waste_cost;
	long waste = r->unread + r->lost;
	if (waste > s->worst_waste && path) {
		char *p = cs_strdup(path);
		if (!p)
			return;
		cs_free(s->worst_path);
		s->worst_path = p;
		s->worst_waste = waste;
		s->worst_number = r->number;
		s->worst_line = r->line;
		s->worst_unread = r->unread >= r->lost;
		s->worst_cause = s->worst_unread ? r->unread_cause : r->lost_cause;
	}
}

/* One file's result into the totals (under the lock, in file order). */
static int take(struct run *R, size_t i)
{
	struct scan_file *f = &R->files[i];
	struct scan_result *res = R->res;
	const char *path = R->in[i].path;
	res->files_read += f->read;
	res->bytes += (double)f->bytes;
	if (!f->read)
		return scan_add_skip(&res->skipped, &res->nskipped, path, true, "%s",
				     f->skip_reason ? f->skip_reason : "not read") ? CS_OK : CS_ENOMEM;
	if (f->bad_lines) {
		res->skipped_lines += f->bad_lines;
		if (!scan_add_skip(&res->skipped, &res->nskipped, path, false,
				   "%ld malformed line%s skipped (the first: line %ld column %ld: %s)", f->bad_lines,
				   f->bad_lines == 1 ? "" : "s", f->bad_line, f->bad_col, f->bad_why))
			return CS_ENOMEM;
	}
	if (R->o->project && !strstr(f->project, R->o->project))
		return CS_OK;
	struct scan_session *own = NULL, *s; /* made at the file's first request counted: no empty rows */
	bool nomem = false;
	for (size_t k = 0; k < f->nreqs && !nomem; k++) {
		const struct scan_req *r = &f->reqs[k];
		if (!r->counted || (R->o->since >= 0 && r->time < R->o->since))
			continue;
		if (!first_time_seen(R, r, &nomem)) {
			res->duplicates++;
			continue;
		}
		if (r->session_id) { /* a line another session wrote, repeated here (a resumed session's copy) */
			if (!(s = row_of(R, f->project, r->session_id, path, false, f->kind)))
				return CS_ENOMEM;
		} else {
			if (!own && !(own = row_of(R, f->project, f->session, path, !f->agent, f->kind)))
				return CS_ENOMEM;
			s = own;
		}
		if (s->counted_from != i + 1) { /* files counted in the row: once each */
			s->counted_from = i + 1;
			s->files++;
		}
		res->requests++;
		add_request(s, r, path);
		if (R->o->on_request)
			R->o->on_request(R->o->ctx, s, path, r);
	}
	if (!own && !f->agent && !nomem) /* every request a repeat: still the session's own file, if it has a row */
		adopt_path(R, f, path);
	return nomem ? CS_ENOMEM : CS_OK;
}

static void progress(struct run *R, bool finished)
{
	if (!R->o->on_progress)
		return;
	double now = mono();
	if (!finished && now - R->last_progress < 0.1)
		return;
	R->last_progress = now;
	double total = 0;
	for (size_t i = 0; i < R->n; i++)
		total += (double)R->in[i].size;
	R->o->on_progress(R->o->ctx, R->commit_next, R->n, (double)atomic_load(&R->bytes_done), total, finished);
}

static void *worker(void *arg)
{
	struct run *R = arg;
	for (;;) {
		if (R->o->stop && *R->o->stop)
			break;
		size_t i = atomic_fetch_add(&R->next, 1);
		if (i >= R->n)
			break;
		int rc = scan_read_file(R->o, &R->in[i], &R->files[i], &R->bytes_done);
		pthread_mutex_lock(&R->mu);
		if (rc != CS_OK && R->rc == CS_OK)
			R->rc = rc;
		R->files[i].done = true;
		while (R->commit_next < R->n && R->files[R->commit_next].done) {
			if (R->rc == CS_OK)
				R->rc = take(R, R->commit_next);
			scan_file_fini(&R->files[R->commit_next]);
			R->commit_next++;
		}
		progress(R, false);
		pthread_mutex_unlock(&R->mu);
	}
	return NULL;
}

static int start(struct run *R, int threads)
{
	pthread_t t[SCAN_THREADS_MAX];
	int made = 0;
	for (; made < threads - 1; made++)
		if (pthread_create(&t[made], NULL, worker, R) != 0)
			break; /* fewer threads: still done, only slower */
	worker(R);
	for (int i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	return R->rc;
}

static void sum(struct scan_result *res)
{
	struct scan_session *t = &res->total;
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < res->nsessions; i++) {
		const struct scan_session *s = &res->sessions[i];
		if (!t->requests || (s->requests && s->first < t->first))
			t->first = s->first;
		if (s->last > t->last)
			t->last = s->last;
		t->files += s->files;
		t->requests += s->requests;
		t->in += s->in;
		t->cache_read += s->cache_read;
		t->cache_write += s->cache_write;
		t->cache_write_1h += s->cache_write_1h;
		t->output += s->output;
		t->cost += s->cost;
		t->unpriced += s->unpriced;
		t->unread += s->unread;
		t->lost += s->lost;
		t->waste_cost += s->waste_cost;
		for (int c = 0; c < SC_COUNT; c++) {
			t->unread_by[c] += s->unread_by[c];
			t->lost_by[c] += s->lost_by[c];
		}
	}
}

int scan_run(const struct scan_options *o, struct scan_result *out, struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	struct run R = { .o = o, .res = out };
	int rc = scan_walk(o->paths, o->npaths, &R.in, &R.n, &out->skipped, &out->nskipped, err);
	out->files = (long)R.n;
	if (rc == CS_OK && R.n) {
		for (size_t i = 0; i < R.n; i++)
			R.in[i].first = first_time(R.in[i].path);
		qsort(R.in, R.n, sizeof *R.in, by_first);
		R.files = cs_calloc(R.n, sizeof *R.files);
		if (!R.files)
			rc = cs_error_nomem(err);
	}
	if (rc == CS_OK && R.n) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		int threads = o->threads > 0 ? o->threads : cores > 0 ? (int)cores : 1;
		if (threads > SCAN_THREADS_MAX)
			threads = SCAN_THREADS_MAX;
		pthread_mutex_init(&R.mu, NULL);
		rc = start(&R, threads);
		pthread_mutex_destroy(&R.mu);
		progress(&R, true);
		if (rc == CS_ENOMEM)
			cs_error_nomem(err);
		out->interrupted = R.commit_next < R.n;
	}
	for (size_t i = R.commit_next; R.files && i < R.n; i++)
		scan_file_fini(&R.files[i]);
	for (size_t i = 0; i < R.n; i++)
		cs_free(R.in[i].path);
	cs_free(R.in);
	cs_free(R.files);
	cs_free(R.key1);
	u64map_fini(&R.dedup);
	u64map_fini(&R.rows);
	sum(out);
	return rc;
}

void scan_result_fini(struct scan_result *r)
{
	for (size_t i = 0; i < r->nsessions; i++) {
		cs_free(r->sessions[i].project);
		cs_free(r->sessions[i].session);
		cs_free(r->sessions[i].path);
		cs_free(r->sessions[i].worst_path);
	}
	for (size_t i = 0; i < r->nskipped; i++) {
		cs_free(r->skipped[i].path);
		cs_free(r->skipped[i].reason);
	}
	cs_free(r->sessions);
	cs_free(r->skipped);
	memset(r, 0, sizeof *r);
}

int scan_unread_cause(const struct scan_session *s)
{
	int best = SC_NONE;
	for (int c = 1; c < SC_COUNT; c++)
		if (s->unread_by[c] > s->unread_by[best])
			best = c;
	return best;
}

int scan_lost_cause(const struct scan_session *s)
{
	int best = SC_NONE;
	for (int c = 1; c < SC_COUNT; c++)
		if (s->lost_by[c] > s->lost_by[best])
			best = c;
	return best;
}

double scan_hit_rate(const struct scan_session *s)
{
	long long all = s->in + s->cache_read + s->cache_write;
	return all ? (double)s->cache_read / (double)all : 0;
}

static int cmp_double(double a, double b)
{
	return a > b ? -1 : a < b ? 1 : 0;
}

static int tie(const struct scan_session *x, const struct scan_session *y)
{
	int c = strcmp(x->project, y->project);
	return c ? c : strcmp(x->session, y->session);
}

#define SCAN_CMP(name, expr)                                                   \
	static int name(const void *a, const void *b)                          \
	{                                                                      \
		const struct scan_session *x = a, *y = b;                      \
		int c = (expr);                                                \
		return c ? c : tie(x, y);                                      \
	}
SCAN_CMP(by_waste, cmp_double(x->waste_cost, y->waste_cost)
			   ? cmp_double(x->waste_cost, y->waste_cost)
			   : cmp_double((double)(x->unread + x->lost), (double)(y->unread + y->lost)))
SCAN_CMP(by_cost, cmp_double(x->cost, y->cost))
SCAN_CMP(by_requests, cmp_double((double)x->requests, (double)y->requests))
SCAN_CMP(by_hit, cmp_double(scan_hit_rate(x), scan_hit_rate(y)))
SCAN_CMP(by_time, cmp_double(x->last, y->last))
SCAN_CMP(by_tokens, cmp_double((double)(x->in + x->cache_read + x->cache_write + x->output),
			       (double)(y->in + y->cache_read + y->cache_write + y->output)))
SCAN_CMP(by_name, 0)

void scan_sort(struct scan_result *r, enum scan_sort by)
{
	static int (*const cmp[])(const void *, const void *) = {
		[SORT_WASTE] = by_waste, [SORT_COST] = by_cost, [SORT_REQUESTS] = by_requests, [SORT_HIT] = by_hit,
		[SORT_TIME] = by_time, [SORT_TOKENS] = by_tokens, [SORT_NAME] = by_name,
	};
	if (r->nsessions)
		qsort(r->sessions, r->nsessions, sizeof *r->sessions, cmp[by]);
}

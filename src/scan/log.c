/* log.c: a request log or capture in a scan (scan_priv.h): loaded whole
 * through the request kinds (kinds/request), its sequence predicted there,
 * each request's recorded usage taken with the cause the sequence told for
 * a break. Logs are read the slow, thorough way: they are few beside a
 * projects folder's sessions. A request without recorded usage counts
 * nothing (as a session line without usage). */
#include "scan/scan_priv.h"

#include "kinds/request/request.h"
#include "load.h"
#include "source.h"

#include <pthread.h>
#include <string.h>

/* The loaders were written for one file at a time (allocator and parser
 * hooks, caches): a log is loaded by one worker at a time. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* The sequence's cause, in words (sequence.c), as one of the scan's. */
static int cause_of(const char *why)
{
	if (!why)
		return SC_NONE;
	if (strstr(why, "TTL"))
		return SC_TTL;
	if (strstr(why, "tool"))
		return SC_TOOLS;
	if (strstr(why, "timestamp or id"))
		return SC_VOLATILE;
	if (strstr(why, "system"))
		return SC_SYSTEM;
	return SC_EDIT;
}

static void take_request(struct scan_file *f, struct scan_req *q, const struct request_model *m, size_t k)
{
	const struct req_request *r = &m->reqs[k];
	q->counted = true;
	q->analysed = true;
	q->time = r->time;
	q->line = r->line;
	q->number = (long)k + 1;
	q->model = r->model ? r->model : "";
	q->in = r->rec_uncached;
	q->cache_read = r->rec_read;
	q->cache_write = r->rec_write;
	q->cache_write_1h = r->rec_write_1h;
	q->output = r->rec_output > 0 ? r->rec_output : 0;
	q->fast = r->rec_fast;
	q->batch = r->batch;
	q->web_searches = r->rec_web_searches;
	q->told_cause = r->broke ? cause_of(r->cause) : SC_NONE;
	if (q->time < 0)
		q->time = 0; /* no time: entries never expire between requests */
	(void)f;
}

int scan_read_log(const struct scan_input *in, struct scan_file *f, double now)
{
	memset(f, 0, sizeof *f);
	arena_init(&f->arena);
	f->kind = "log";
	struct source *src = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	pthread_mutex_lock(&log_lock);
	int rc = source_load(in->path, NULL, &src, &err);
	if (rc == CS_ENOMEM) {
		pthread_mutex_unlock(&log_lock);
		return CS_ENOMEM;
	}
	if (rc != CS_OK || (src->kind != &anthropic_kind && src->kind != &openai_kind) ||
	    !((struct request_model *)src->model)->is_log) {
		f->skip_reason = rc != CS_OK ? arena_printf(&f->arena, "not a Claude Code session, request log or capture "
								 "(line %ld column %ld: %s)", err.line, err.column, err.message)
					     : arena_printf(&f->arena, "a %s, not a session, request log or capture",
							    src->kind->title);
		source_free(src);
		pthread_mutex_unlock(&log_lock);
		return f->skip_reason ? CS_OK : CS_ENOMEM;
	}
	const struct request_model *m = src->model;
	const char *base = strrchr(in->path, '/');
	base = base ? base + 1 : in->path;
	const char *dir_end = base > in->path ? base - 1 : in->path, *d0 = dir_end;
	while (d0 > in->path && d0[-1] != '/')
		d0--;
	f->project = arena_strndup(&f->arena, d0, (size_t)(dir_end - d0));
	f->session = arena_strdup(&f->arena, base);
	for (size_t k = 0; k < m->nreqs && f->project && f->session; k++) {
		if (!m->reqs[k].recorded)
			continue;
		struct scan_req *q = scan_file_add(f);
		if (!q) {
			source_free(src);
			pthread_mutex_unlock(&log_lock);
			return CS_ENOMEM;
		}
		take_request(f, q, m, k);
		q->model = arena_strdup(&f->arena, q->model);
		if (!q->model) {
			source_free(src);
			pthread_mutex_unlock(&log_lock);
			return CS_ENOMEM;
		}
	}
	source_free(src);
	pthread_mutex_unlock(&log_lock);
	if (!f->project || !f->session)
		return CS_ENOMEM;
	rc = scan_analyse(f, NULL, now);
	f->read = rc == CS_OK;
	return rc;
}

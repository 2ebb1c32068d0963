/* session.c: one file of the scan (scan_priv.h): read in chunks, a line
 * at a time (lines.c), into the session's requests; the chain of its lines
 * kept as two integers a line for the analysis (analyse.c). A file whose
 * first line is no session line is tried as a request log (log.c). */
#include "scan/lines.h"
#include "scan/scan_priv.h"

#include "base/alloc.h"
#include "base/isotime.h"
#include "json/scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct reader {
	const struct scan_options *o;
	struct scan_file *f;
	struct scan_links links;
	struct u64map uuids;    /* uuid -> link */
	struct u64map keys;     /* message.id:requestId -> request */
	struct u64map numbers;  /* message.id -> the inspector's request number */
	long next_number;
	uint32_t boundaries, tool_deltas;
	const char *model;      /* the last model interned */
	size_t model_n;
	char session_id[128];
	const char *stem;       /* a main file's name without .jsonl: its session */
	size_t stem_n;
	const char *other;      /* the last other session's id interned (copies come in runs) */
	size_t other_n;
	long line;
	bool sniffed, is_session;
	bool nomem;
};

struct scan_req *scan_file_add(struct scan_file *f)
{
	if (f->nreqs == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct scan_req *r = cs_reallocarray(f->reqs, cap, sizeof *r);
		if (!r)
			return NULL;
		f->reqs = r;
		f->cap = cap;
	}
	struct scan_req *r = &f->reqs[f->nreqs++];
	memset(r, 0, sizeof *r);
	r->link = r->last_link = -1;
	r->model = r->msg_id = "";
	r->cost = -1;
	return r;
}

void scan_file_fini(struct scan_file *f)
{
	arena_fini(&f->arena);
	cs_free(f->reqs);
	memset(f, 0, sizeof *f);
}

static bool add_link(struct reader *rd, const struct line_fields *lf, int32_t *at)
{
	struct scan_links *L = &rd->links;
	if (L->n == L->cap) {
		size_t cap = L->cap ? L->cap * 2 : 256;
		int32_t *p = cs_reallocarray(L->parent, cap, sizeof *p);
		if (p)
			L->parent = p;
		int32_t *q = p ? cs_reallocarray(L->req, cap, sizeof *q) : NULL;
		if (!q)
			return false;
		L->req = q;
		L->cap = cap;
	}
	uint32_t parent = lf->parent.set ? u64map_get(&rd->uuids, scan_hash(lf->parent.s, lf->parent.n, 0)) : UINT32_MAX;
	*at = (int32_t)L->n;
	L->parent[L->n] = parent == UINT32_MAX ? -1 : (int32_t)parent;
	L->req[L->n] = -1;
	L->n++;
	return u64map_put(&rd->uuids, scan_hash(lf->uuid.s, lf->uuid.n, 0), (uint32_t)*at);
}

static bool span_is(const struct span *s, const char *w)
{
	size_t n = strlen(w);
	return s->set && s->n == n && !memcmp(s->s, w, n);
}

static bool parse_time(const struct span *ts, double *out)
{
	char buf[64];
	long long ms;
	if (!ts->set || ts->n >= sizeof buf)
		return false;
	memcpy(buf, ts->s, ts->n);
	buf[ts->n] = '\0';
	if (!iso_time_parse(buf, &ms))
		return false;
	*out = (double)ms / 1000.0;
	return true;
}

/* The inspector's number for an assistant line's message (0: not one of its requests). */
static long number_of(struct reader *rd, const struct line_fields *lf)
{
	if (!span_is(&lf->type, "assistant") || (lf->sidechain && !rd->f->agent))
		return 0;
	if (!lf->msg_id.set)
		return ++rd->next_number;
	uint64_t h = scan_hash(lf->msg_id.s, lf->msg_id.n, 0);
	uint32_t k = u64map_get(&rd->numbers, h);
	if (k != UINT32_MAX)
		return k;
	if (!u64map_put(&rd->numbers, h, (uint32_t)(rd->next_number + 1)))
		rd->nomem = true;
	return ++rd->next_number;
}

static void fill(struct reader *rd, struct scan_req *r, const struct line_fields *lf, double t, int32_t link)
{
	struct scan_file *f = rd->f;
	r->time = t;
	r->line = rd->line;
	r->in = (long)lf->in;
	r->output = (long)lf->out;
	r->cache_read = (long)lf->cr;
	r->cache_write = (long)lf->cw;
	r->cache_write_1h = lf->has_1h ? (long)lf->cw1h : -1;
	r->fast = lf->fast;
	r->web_searches = (long)lf->web_searches;
	r->sidechain = lf->sidechain || f->agent;
	r->analysed = span_is(&lf->type, "assistant");
	if (link >= 0)
		r->last_link = link;
	if (lf->model.set && !(rd->model && rd->model_n == lf->model.n && !memcmp(rd->model, lf->model.s, lf->model.n))) {
		rd->model = arena_strndup(&f->arena, lf->model.s, lf->model.n);
		rd->model_n = lf->model.n;
		rd->nomem |= !rd->model;
	}
	r->model = lf->model.set && rd->model ? rd->model : "";
}

/* A line with usage: a new request, or the one its message.id (+ requestId)
 * already made, keeping the larger figures (split messages grow their output). */
static void usage_line(struct reader *rd, const struct line_fields *lf, int32_t link, long number)
{
	double t;
	if (!lf->has_usage || !lf->usage_ok || !lf->has_in || !lf->has_out || !parse_time(&lf->timestamp, &t))
		return; /* ccusage counts none of these */
	struct scan_file *f = rd->f;
	uint64_t key[2] = { 0, 0 };
	bool has_key = lf->msg_id.set;
	if (has_key) {
		key[0] = scan_hash(lf->msg_id.s, lf->msg_id.n, 1);
		key[1] = scan_hash(lf->msg_id.s, lf->msg_id.n, 2);
		if (lf->request_id.set) {
			key[0] = scan_hash(lf->request_id.s, lf->request_id.n, key[0] ^ 0x3a);
			key[1] = scan_hash(lf->request_id.s, lf->request_id.n, key[1] ^ 0x3a);
		}
		uint32_t k = u64map_get(&rd->keys, key[0]);
		if (k != UINT32_MAX && f->reqs[k].key[1] == key[1]) {
			struct scan_req *r = &f->reqs[k];
			long long was = (long long)r->in + r->cache_read + r->cache_write + r->output;
			if (lf->in + lf->cr + lf->cw + lf->out >= was)
				fill(rd, r, lf, t, link);
			if (link >= 0)
				rd->links.req[link] = (int32_t)k;
			return;
		}
	}
	struct scan_req *r = scan_file_add(f);
	if (!r) {
		rd->nomem = true;
		return;
	}
	r->has_key = has_key;
	r->key[0] = key[0];
	r->key[1] = key[1];
	r->counted = true;
	r->link = link;
	r->number = number;
	r->boundaries = rd->boundaries;
	r->tool_deltas = rd->tool_deltas;
	r->version = lf->version.set ? scan_hash(lf->version.s, lf->version.n, 0) : 0;
	const struct span *sid = &lf->session_id;
	if (!f->agent && rd->stem && sid->set && !sid->esc && !(sid->n == rd->stem_n && !memcmp(sid->s, rd->stem, sid->n))) {
		if (!(rd->other && rd->other_n == sid->n && !memcmp(rd->other, sid->s, sid->n))) {
			rd->other = arena_strndup(&f->arena, sid->s, sid->n);
			rd->other_n = sid->n;
			rd->nomem |= !rd->other;
		}
		r->session_id = rd->other;
	}
	if (lf->msg_id.set)
		r->msg_id = arena_strndup(&f->arena, lf->msg_id.s, lf->msg_id.n);
	rd->nomem |= !r->msg_id;
	fill(rd, r, lf, t, link);
	if (link >= 0)
		rd->links.req[link] = (int32_t)(f->nreqs - 1);
	if (has_key && !u64map_put(&rd->keys, key[0], (uint32_t)(f->nreqs - 1)))
		rd->nomem = true;
}

static void bad_line(struct reader *rd, size_t at, const char *why, const char *s, size_t n)
{
	struct scan_file *f = rd->f;
	if (f->bad_lines++ == 0) {
		long line, col;
		text_position(s, n, at, &line, &col);
		f->bad_line = rd->line;
		f->bad_col = col;
		f->bad_why = why;
	}
}

static void one_line(struct reader *rd, const char *s, size_t n)
{
	struct line_fields lf;
	size_t at;
	const char *why;
	rd->line++;
	if (n && s[n - 1] == '\r')
		n--;
	size_t k = 0;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k == n)
		return;
	if (!scan_line_fields(s, n, &lf, &at, &why)) {
		bad_line(rd, at, why, s, n);
		return;
	}
	if (!rd->sniffed) {
		rd->sniffed = true;
		rd->is_session = lf.uuid.set || lf.session_id.set || lf.type.set || lf.has_usage;
		if (!rd->is_session)
			return;
	}
	if (lf.session_id.set && !rd->session_id[0] && lf.session_id.n < sizeof rd->session_id && !lf.session_id.esc) {
		memcpy(rd->session_id, lf.session_id.s, lf.session_id.n);
		rd->session_id[lf.session_id.n] = '\0';
	}
	int32_t link = -1;
	if (lf.uuid.set && !add_link(rd, &lf, &link))
		rd->nomem = true;
	if (span_is(&lf.type, "system") && span_is(&lf.subtype, "compact_boundary"))
		rd->boundaries++;
	if (span_is(&lf.type, "attachment") && span_is(&lf.att_type, "deferred_tools_delta"))
		rd->tool_deltas++;
	if (lf.model.set && span_is(&lf.model, "<synthetic>"))
		return; /* Claude Code's own line (an API error): no request, nothing billed, as the inspector */
	long number = number_of(rd, &lf);
	usage_line(rd, &lf, link, number);
}

/* Project and session from the path: <project>/<session>.jsonl, and for a
 * subagent <project>/agent-*.jsonl or <project>/<session>/subagents/.../agent-*.jsonl
 * (the session then from its lines' sessionId when they have one). */
static void name_file(struct reader *rd, const char *path)
{
	struct scan_file *f = rd->f;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t stem = strlen(base);
	if (stem > 6 && !strcmp(base + stem - 6, ".jsonl"))
		stem -= 6;
	const char *sub = strstr(path, "/subagents/");
	const char *proj_end = base > path ? base - 1 : path; /* the '/' before the name */
	const char *session = base;
	size_t session_n = stem;
	if (sub && f->agent) {
		const char *s0 = sub;
		while (s0 > path && s0[-1] != '/')
			s0--;
		session = s0;
		session_n = (size_t)(sub - s0);
		proj_end = s0 > path ? s0 - 1 : path;
	}
	if (f->agent && rd->session_id[0]) {
		session = rd->session_id;
		session_n = strlen(rd->session_id);
	}
	const char *p0 = proj_end;
	while (p0 > path && p0[-1] != '/')
		p0--;
	f->project = arena_strndup(&f->arena, p0, (size_t)(proj_end - p0));
	f->session = arena_strndup(&f->arena, session, session_n);
	rd->nomem |= !f->project || !f->session;
}

/* Reads the file a chunk at a time, each complete line to one_line. */
static int read_lines(struct reader *rd, int fd, _Atomic long long *bytes_done, const char **why)
{
	size_t cap = SCAN_CHUNK, len = 0;
	char *buf = cs_malloc(cap);
	if (!buf)
		return CS_ENOMEM;
	int rc = CS_OK;
	for (;;) {
		if (rd->o->stop && *rd->o->stop)
			break;
		if (len == cap) {
			if (cap >= SCAN_MAX_LINE) { /* one line over the limit: skipped to its end */
				bad_line(rd, 0, "a line over 256 MB", buf, 0);
				len = 0;
				continue;
			}
			char *b = cs_realloc(buf, cap * 2);
			if (!b) {
				rc = CS_ENOMEM;
				break;
			}
			buf = b;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			*why = strerror(errno);
			rc = CS_EIO;
			break;
		}
		if (got == 0) {
			if (len)
				one_line(rd, buf, len);
			break;
		}
		atomic_fetch_add(bytes_done, (long long)got);
		rd->f->bytes += got;
		size_t from = 0, end = len + (size_t)got;
		for (const char *nl; (nl = memchr(buf + from, '\n', end - from)); from = (size_t)(nl - buf) + 1) {
			one_line(rd, buf + from, (size_t)(nl - buf) - from);
			if (rd->sniffed && !rd->is_session)
				goto out;
		}
		memmove(buf, buf + from, end - from);
		len = end - from;
		if (rd->nomem) {
			rc = CS_ENOMEM;
			break;
		}
	}
out:
	cs_free(buf);
	return rd->nomem ? CS_ENOMEM : rc;
}

static void reader_fini(struct reader *rd)
{
	u64map_fini(&rd->uuids);
	u64map_fini(&rd->keys);
	u64map_fini(&rd->numbers);
	cs_free(rd->links.parent);
	cs_free(rd->links.req);
}

int scan_read_file(const struct scan_options *o, const struct scan_input *in, struct scan_file *f,
		   _Atomic long long *bytes_done)
{
	memset(f, 0, sizeof *f);
	arena_init(&f->arena);
	f->kind = "claude-code";
	const char *base = strrchr(in->path, '/');
	base = base ? base + 1 : in->path;
	f->agent = !strncmp(base, "agent-", 6);
	int fd = open(in->path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		f->skip_reason = arena_printf(&f->arena, "unreadable: %s", strerror(errno));
		return f->skip_reason ? CS_OK : CS_ENOMEM;
	}
	struct reader rd = { .o = o, .f = f, .stem = base, .stem_n = strlen(base) };
	if (rd.stem_n > 6 && !strcmp(base + rd.stem_n - 6, ".jsonl"))
		rd.stem_n -= 6;
	const char *why = NULL;
	int rc = read_lines(&rd, fd, bytes_done, &why);
	close(fd);
	if (rc == CS_EIO) {
		f->skip_reason = arena_printf(&f->arena, "unreadable: %s", why);
		reader_fini(&rd);
		return f->skip_reason ? CS_OK : CS_ENOMEM;
	}
	if (rc == CS_OK && rd.sniffed && !rd.is_session) {
		reader_fini(&rd);
		scan_file_fini(f);
		return scan_read_log(in, f, o->now);
	}
	if (rc == CS_OK && !rd.sniffed) {
		f->skip_reason = f->bad_lines ? arena_printf(&f->arena, "no line is JSON (%ld malformed; line %ld column %ld: %s)",
							      f->bad_lines, f->bad_line, f->bad_col, f->bad_why)
					      : "empty";
		reader_fini(&rd);
		return f->skip_reason ? CS_OK : CS_ENOMEM;
	}
	if (rc == CS_OK && rd.links.n == 0 && f->nreqs == 0) {
		f->skip_reason = "not a Claude Code session, request log or capture (no line has a uuid or usage)";
		reader_fini(&rd);
		return CS_OK;
	}
	if (rc == CS_OK) {
		name_file(&rd, in->path);
		rc = rd.nomem ? CS_ENOMEM : scan_analyse(f, &rd.links, o->now);
	}
	f->read = rc == CS_OK;
	reader_fini(&rd);
	return rc;
}

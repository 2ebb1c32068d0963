/* requests.c: a Claude Code session's requests (claude_code.h). Every
 * assistant message not on a sidechain is one request, its lines merged by
 * message.id and its usage taken once (from its last line, which carries
 * the final output count). Its prompt is the chain from its first line's
 * parent back to the root or to the last compaction boundary (the summary
 * and what follows, never what came before), every line with a uuid a
 * link of it (ctxscope-formats(5) section 7b: attachment, progress and system lines too),
 * linearized: an assistant message counts whole (every line of its
 * message.id), followed by the results of all its tool calls in the order
 * of the calls (parallel calls fork the chain: each result's parent is its
 * own call's line). Attachments whose text goes to the model are pieces of
 * the prompt; links without prompt content are left out. The last user
 * messages of a prompt are its current turn; the rest is history.
 *
 * The main chain is that of the last request (the last assistant line with
 * usage that is not a sidechain), through parentUuid (and across a
 * boundary through logicalParentUuid); lines after it (a /exit, a
 * bash-mode command) are counted apart. A parentUuid that names no line
 * ends a chain, with a warning naming the line.
 *
 * Recorded facts the predictions take (ctxscope-formats(5) section 7b): each request's
 * writes live as long as usage.cache_creation says (1 hour or 5 minutes;
 * unsplit, the session's recorded lifetime, else 5 minutes, assumed); the
 * first request's read of Claude Code's globally cached system prompt is
 * shown as such; a request that extends the one before within its lifetime
 * can read that one's whole prompt as recorded (recorded units). */
#include "claude_code.h"
#include "base/tune.h"

#include "base/alloc.h"
#include "models.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/strmap.h"

#include <stdio.h>
#include <string.h>


struct build {
	struct source *src;
	struct cc_model *m;
	struct strmap uuids;    /* uuid -> line index */
	size_t *chain;          /* a prompt's lines, newest first */
	size_t cap_chain;
	size_t *stamp;          /* per line: the walk that last saw it, to stop at a loop */
	size_t *parent;         /* per line: its parentUuid's line once looked up (PARENT_UNKNOWN before);
				 * every prompt walks its chain, so each link is hashed once, not once a request */
	size_t walks;
	long *done;             /* per line: WALK_OPEN, or the boundary (-1 none) its chain was seen to end at by a
				 * walk that needed no prompt (walk_prompt's memo) */
	struct strmap msg_head; /* message.id -> its first line (not on a sidechain) */
	size_t *next_same;      /* per line: the next line of its message.id, STRMAP_NONE none */
	struct strmap results;  /* tool_use id -> the line holding its tool_result (the first) */
	size_t *placed;         /* per line: the linearization that last placed it */
	size_t *order;          /* a prompt's lines linearized, oldest first */
	size_t norder, cap_order, linearized;
	struct cs_error *err;
};

#define WALK_OPEN (-2L)

static bool conversation(const struct cc_line *l)
{
	return l->uuid != NULL;
}

static int index_uuids(struct build *b)
{
	struct cc_model *m = b->m;
	size_t sides = 0;
	for (size_t i = 0; i < m->nlines; i++) {
		size_t old;
		const struct cc_line *l = &m->lines[i];
		sides += l->sidechain;
		if (!conversation(l))
			continue;
		if (strmap_put(&b->uuids, l->uuid, strlen(l->uuid), i, &old) != 0)
			return cs_error_nomem(b->err);
		if (old != STRMAP_NONE && source_warn(b->src, -1, l->line, 0, "line %ld: uuid \"%.60s\" is used by line %ld "
						      "too; the later line is taken", l->line, l->uuid,
						      m->lines[old].line) != CS_OK)
			return cs_error_nomem(b->err);
	}
	m->subagent = m->nlines && sides == m->nlines; /* a subagent's own file: its lines are the session */
	return CS_OK;
}

/* The messages' lines (by message.id) and where each tool call's result
 * is, for the linearization. */
static int index_messages(struct build *b)
{
	struct cc_model *m = b->m;
	size_t *tail = cs_reallocarray(NULL, m->nlines ? m->nlines : 1, sizeof *tail);
	if (!tail)
		return cs_error_nomem(b->err);
	int rc = CS_OK;
	for (size_t i = 0; i < m->nlines && rc == CS_OK; i++) {
		const struct cc_line *l = &m->lines[i];
		b->next_same[i] = STRMAP_NONE;
		if (cc_sidechain(m, l))
			continue;
		size_t old;
		if (l->type == CL_ASSISTANT && l->msg_id) {
			size_t h = strmap_get(&b->msg_head, l->msg_id, strlen(l->msg_id));
			if (h == STRMAP_NONE)
				rc = strmap_put(&b->msg_head, l->msg_id, strlen(l->msg_id), i, &old) ? CS_ENOMEM : CS_OK;
			else
				b->next_same[tail[h]] = i;
			tail[h == STRMAP_NONE ? i : h] = i;
		}
		for (size_t k = 0; l->type == CL_USER && k < l->nblocks && rc == CS_OK; k++) {
			const struct cc_block *blk = &m->blocks[l->first_block + k];
			if (blk->tool_id && blk->type == cc_known_type("tool_result") &&
			    strmap_get(&b->results, blk->tool_id, strlen(blk->tool_id)) == STRMAP_NONE)
				rc = strmap_put(&b->results, blk->tool_id, strlen(blk->tool_id), i, &old) ? CS_ENOMEM : CS_OK;
		}
	}
	cs_free(tail);
	return rc == CS_OK ? CS_OK : cs_error_nomem(b->err);
}

#define PARENT_UNKNOWN ((size_t)-2)

/* The line a line's parentUuid names: the index, STRMAP_NONE at a root or
 * a broken link (warned about once, naming the line). */
static size_t parent_of(struct build *b, size_t i, bool cross, int *rc)
{
	struct cc_line *l = &b->m->lines[i];
	const char *p = l->parent ? l->parent : cross && l->type == CL_BOUNDARY ? l->logical_parent : NULL;
	if (!p)
		return STRMAP_NONE;
	if (p == l->parent && b->parent && b->parent[i] != PARENT_UNKNOWN)
		return b->parent[i];
	size_t j = strmap_get(&b->uuids, p, strlen(p));
	if (p == l->parent && b->parent)
		b->parent[i] = j;
	if (j == STRMAP_NONE && !l->warned && p == l->parent) {
		l->warned = true;
		b->m->broken_chains++;
		if (source_warn(b->src, -1, l->line, 0, "line %ld: parentUuid \"%.60s\" names no line of the session; "
				"the chain ends there", l->line, p) != CS_OK)
			*rc = CS_ENOMEM;
	}
	return j;
}

/* The main chain: that of the last request (ctxscope-formats(5) section 7b), the last
 * assistant line with usage not on a sidechain (else the last line that is
 * not, for a session with no usage); the lines after it are counted. */
static int mark_main(struct build *b)
{
	struct cc_model *m = b->m;
	size_t leaf = STRMAP_NONE, last = STRMAP_NONE;
	for (size_t i = m->nlines; i-- > 0 && leaf == STRMAP_NONE;) {
		const struct cc_line *l = &m->lines[i];
		if (!conversation(l) || cc_sidechain(m, l))
			continue;
		if (last == STRMAP_NONE)
			last = i;
		if (l->type == CL_ASSISTANT && l->has_usage && !cc_synthetic(l))
			leaf = i;
	}
	if (leaf == STRMAP_NONE)
		leaf = last;
	m->last_request_line = leaf;
	m->after_last = 0;
	for (size_t i = leaf == STRMAP_NONE ? m->nlines : leaf + 1; i < m->nlines; i++)
		m->after_last += conversation(&m->lines[i]) && !cc_sidechain(m, &m->lines[i]);
	int rc = CS_OK;
	for (size_t i = leaf, steps = 0; i != STRMAP_NONE && steps <= m->nlines; steps++) {
		if (m->lines[i].main || cc_sidechain(m, &m->lines[i]))
			break; /* a loop, or a parent on a sidechain */
		m->lines[i].main = true;
		m->compactions += m->lines[i].type == CL_BOUNDARY;
		i = parent_of(b, i, true, &rc);
	}
	return rc;
}

/* ---- the requests --------------------------------------------------------- */

static int new_request(struct build *b, size_t line)
{
	struct cc_model *m = b->m;
	struct request_model *rm = &m->req;
	if (rm->nreqs == rm->cap_reqs) {
		size_t cap = rm->cap_reqs ? rm->cap_reqs * 2 : 16;
		struct req_request *r = cs_realloc(rm->reqs, cap * sizeof *r);
		if (r)
			rm->reqs = r;
		struct cc_req *c = r ? cs_realloc(m->creqs, cap * sizeof *c) : NULL;
		if (!c)
			return cs_error_nomem(b->err);
		m->creqs = c;
		rm->cap_reqs = cap;
	}
	const struct cc_line *l = &m->lines[line];
	struct req_request *r = &rm->reqs[rm->nreqs];
	memset(r, 0, sizeof *r);
	r->line = l->line;
	r->time = l->time;
	r->compared = -1;
	r->diff_unit = -1;
	r->auto_unit = -1;
	r->rec_write_1h = -1;
	r->rec_output = -1;
	r->auto_ttl = 300; /* Claude Code marks the end of each prompt: automatic caching's place, 5 minutes */
	r->model = l->model ? l->model : "";
	m->creqs[rm->nreqs] = (struct cc_req){ .first_line = line, .last_line = line, .boundary = -1, .rec_total = -1,
					       .ttl = 300, .ttl_assumed = true, .main = l->main, .replayed = true };
	rm->nreqs++;
	return CS_OK;
}

static int find_requests(struct build *b)
{
	struct cc_model *m = b->m;
	struct strmap ids = STRMAP_INIT;
	int rc = CS_OK;
	for (size_t i = 0; i < m->nlines && rc == CS_OK; i++) {
		const struct cc_line *l = &m->lines[i];
		if (l->type != CL_ASSISTANT || cc_sidechain(m, l) || cc_synthetic(l))
			continue; /* a synthetic line was never a request */
		size_t k = l->msg_id ? strmap_get(&ids, l->msg_id, strlen(l->msg_id)) : STRMAP_NONE;
		if (k != STRMAP_NONE) {
			m->creqs[k].last_line = i;
			m->creqs[k].main |= l->main;
			continue;
		}
		size_t old;
		if (l->msg_id && strmap_put(&ids, l->msg_id, strlen(l->msg_id), m->req.nreqs, &old) != 0)
			rc = cs_error_nomem(b->err);
		if (rc == CS_OK)
			rc = new_request(b, i);
	}
	strmap_fini(&ids);
	return rc;
}

/* Marks the lines of a walk that ended without a loop: a later walk that
 * reaches one of them would go the same way to the same end, its links
 * already looked up (and warned about) once. */
static void memo_walk(struct build *b, size_t n, long boundary)
{
	for (size_t i = 0; i < n; i++)
		b->done[b->chain[i]] = boundary;
}

/* The prompt's lines, newest first, into b->chain; the boundary it starts
 * after into *boundary (-1 none). With memo (a request whose prompt is not
 * built, only its boundary asked for), the walk stops at a line an earlier
 * such walk went through, taking that walk's end: each line is walked once
 * over the unreplayed requests instead of once a request. */
static int walk_prompt(struct build *b, size_t first, size_t *n, long *boundary, bool memo)
{
	struct cc_model *m = b->m;
	int rc = CS_OK;
	size_t walk = ++b->walks;
	bool loop = false;
	*n = 0;
	*boundary = -1;
	b->stamp[first] = walk;
	for (size_t i = parent_of(b, first, false, &rc); i != STRMAP_NONE; i = parent_of(b, i, false, &rc)) {
		if (memo && b->done[i] != WALK_OPEN) {
			*boundary = b->done[i];
			break;
		}
		if (b->stamp[i] == walk) {
			loop = true;
			if (!m->lines[i].warned && source_warn(b->src, -1, m->lines[i].line, 0, "line %ld: its parentUuid "
							       "chain loops back to it; the chain ends there",
							       m->lines[i].line) != CS_OK)
				rc = CS_ENOMEM;
			m->lines[i].warned = true;
			break;
		}
		b->stamp[i] = walk;
		if (m->lines[i].type == CL_BOUNDARY) {
			*boundary = (long)i;
			break;
		}
		if (cc_sidechain(m, &m->lines[i]))
			break;
		if (*n == b->cap_chain) {
			size_t cap = b->cap_chain ? b->cap_chain * 2 : 64;
			size_t *c = cs_realloc(b->chain, cap * sizeof *c);
			if (!c)
				return cs_error_nomem(b->err);
			b->chain = c;
			b->cap_chain = cap;
		}
		b->chain[(*n)++] = i;
	}
	if (memo && !loop)
		memo_walk(b, *n, *boundary);
	return rc == CS_OK ? CS_OK : cs_error_nomem(b->err);
}

static bool place(struct build *b, size_t i)
{
	if (b->placed[i] == b->linearized)
		return true;
	if (b->norder == b->cap_order) {
		size_t cap = b->cap_order ? b->cap_order * 2 : 64;
		size_t *o = cs_realloc(b->order, cap * sizeof *o);
		if (!o)
			return false;
		b->order = o;
		b->cap_order = cap;
	}
	b->placed[i] = b->linearized;
	b->order[b->norder++] = i;
	return true;
}

/* An assistant message whole (its lines before `limit`), then the results
 * of its tool calls in the order of the calls (those written before
 * `limit`). */
static bool place_message(struct build *b, size_t head, size_t limit)
{
	struct cc_model *m = b->m;
	size_t from = b->norder;
	for (size_t i = head; i != STRMAP_NONE && i < limit; i = b->next_same[i])
		if (!place(b, i))
			return false;
	size_t to = b->norder;
	for (size_t o = from; o < to; o++) {
		const struct cc_line *l = &m->lines[b->order[o]];
		for (size_t k = 0; k < l->nblocks; k++) {
			const struct cc_block *blk = &m->blocks[l->first_block + k];
			size_t r = blk->tool_id && blk->type == cc_known_type("tool_use")
					   ? strmap_get(&b->results, blk->tool_id, strlen(blk->tool_id)) : STRMAP_NONE;
			if (r != STRMAP_NONE && r < limit && !place(b, r))
				return false;
		}
	}
	return true;
}

/* The prompt's lines (b->chain, n of them, newest first) linearized into
 * b->order (ctxscope-formats(5) section 7b): lines with prompt content, oldest first, each
 * assistant message whole and followed by its tool results; `limit` is
 * the request's first line (nothing written after it was sent). */
static int linearize(struct build *b, size_t n, size_t limit)
{
	struct cc_model *m = b->m;
	b->linearized++;
	b->norder = 0;
	for (size_t c = n; c-- > 0;) {
		size_t i = b->chain[c];
		const struct cc_line *l = &m->lines[i];
		if (b->placed[i] == b->linearized || (l->type != CL_USER && l->type != CL_ASSISTANT && l->type != CL_ATTACH))
			continue;
		size_t head = l->type != CL_ASSISTANT ? STRMAP_NONE
			      : l->msg_id ? strmap_get(&b->msg_head, l->msg_id, strlen(l->msg_id)) : i;
		if (!(head != STRMAP_NONE ? place_message(b, head, limit) : place(b, i)))
			return cs_error_nomem(b->err);
		if (head != STRMAP_NONE && b->placed[i] != b->linearized && !place(b, i))
			return cs_error_nomem(b->err); /* a line of the message the index does not hold */
	}
	return CS_OK;
}

/* Room for n units in all (known from the replay window), in one
 * allocation each instead of doublings. */
static int reserve_units(struct build *b, size_t n)
{
	struct request_model *rm = &b->m->req;
	if (n <= rm->cap_units)
		return CS_OK;
	struct req_unit *u = cs_reallocarray(rm->units, n, sizeof *u);
	if (u)
		rm->units = u;
	size_t *ub = u ? cs_reallocarray(b->m->unit_block, n, sizeof *ub) : NULL;
	if (!ub)
		return cs_error_nomem(b->err);
	b->m->unit_block = ub;
	rm->cap_units = n;
	bulk_advise(rm->units, n * sizeof *u);
	bulk_advise(ub, n * sizeof *ub);
	return CS_OK;
}

static struct req_unit *new_unit(struct build *b, size_t block)
{
	struct request_model *rm = &b->m->req;
	if (rm->nunits == rm->cap_units) {
		size_t cap = rm->cap_units ? rm->cap_units * 2 : 256;
		struct req_unit *u = cs_realloc(rm->units, cap * sizeof *u);
		if (u)
			rm->units = u;
		size_t *ub = u ? cs_realloc(b->m->unit_block, cap * sizeof *ub) : NULL;
		if (!ub)
			return NULL;
		b->m->unit_block = ub;
		rm->cap_units = cap;
	}
	b->m->unit_block[rm->nunits] = block;
	struct req_unit *u = &rm->units[rm->nunits++];
	memset(u, 0, sizeof *u);
	u->message = -1;
	return u;
}

static const char *block_path(struct build *b, struct cc_block *blk, long msg, long j)
{
	if (blk->path && blk->path_msg == msg)
		return blk->path;
	blk->path = arena_printf(&b->src->arena, "messages[%ld].content[%ld]", msg, j);
	blk->path_msg = msg;
	return blk->path;
}

static int line_units(struct build *b, struct req_request *r, const struct cc_line *l, long msg, long *j,
		      bool strip)
{
	static const char *const roles[] = { "user", "assistant" };
	for (size_t k = 0; k < l->nblocks; k++, (*j)++) {
		size_t bi = l->first_block + k;
		struct cc_block *blk = &b->m->blocks[bi];
		if (strip && blk->type == cc_known_type("thinking"))
			continue; /* the API strips an earlier turn's thinking for this model: not sent */
		const char *path = block_path(b, blk, msg, *j);
		struct req_unit *u = path ? new_unit(b, bi) : NULL;
		if (!u)
			return cs_error_nomem(b->err);
		u->path = path;
		u->type = l->compact_summary ? "compact summary" : blk->type;
		u->role = roles[l->type == CL_ASSISTANT];
		u->image = blk->type == cc_known_type("image");
		u->nested_images = blk->nested_images;
		u->text = blk->text;
		u->text_len = blk->text_len;
		u->hash = blk->hash;
		u->tokens = blk->tokens;
		u->layer = RL_HISTORY;
		u->message = (int)msg;
		u->run = blk->tool && u[-1].message == u->message &&
			 (u[-1].type == u->type || !strcmp(u[-1].type, u->type));
		r->nunits++;
	}
	return CS_OK;
}

/* Whether a user line is a turn of its own (text, not only tool results). */
static bool own_turn(const struct cc_model *m, const struct cc_line *l)
{
	for (size_t k = 0; l->type == CL_USER && k < l->nblocks; k++)
		if (m->blocks[l->first_block + k].type != cc_known_type("tool_result"))
			return true;
	return false;
}

/* The units of request k: the hidden part, then the prompt's messages. */
static int request_units(struct build *b, size_t k, bool replay)
{
	struct cc_model *m = b->m;
	struct req_request *r = &m->req.reqs[k];
	struct cc_req *c = &m->creqs[k];
	size_t n;
	int rc = walk_prompt(b, c->first_line, &n, &c->boundary, !replay);
	c->replayed = replay;
	if (!replay)
		n = 0; /* listed with its recorded usage, its prompt not rebuilt */
	if (rc == CS_OK)
		rc = linearize(b, n, c->first_line);
	struct req_unit *h = rc == CS_OK ? new_unit(b, (size_t)-1) : NULL;
	if (!h)
		return rc == CS_OK ? cs_error_nomem(b->err) : rc;
	r->first_unit = m->req.nunits - 1;
	r->nunits = 1;
	*h = (struct req_unit){ .path = CC_HIDDEN_PATH, .type = "system prompt and tools", .role = "system",
				.text = "", .hash = 0x5eed, .layer = RL_SYSTEM, .message = -1 };
	long msg = -1, j = 0;
	const char *prev_id = NULL;
	int prev_type = -1;
	size_t last_assistant = r->first_unit, last_turn = 0;
	bool strip = !model_keeps_prior_thinking(r->model); /* caching.md section 1 */
	for (size_t o = 0; o < b->norder; o++)
		if (own_turn(m, &m->lines[b->order[o]]))
			last_turn = o;
	for (size_t o = 0; o < b->norder && rc == CS_OK; o++) {
		const struct cc_line *l = &m->lines[b->order[o]];
		int type = l->type == CL_ATTACH ? CL_USER : l->type; /* an attachment goes with the next user turn */
		/* consecutive user lines are one message on the wire; an assistant message is one by its id */
		bool same = type == prev_type && (type == CL_USER || (l->msg_id && prev_id && !strcmp(l->msg_id, prev_id)));
		if (!same) {
			msg++;
			j = 0;
		}
		prev_id = l->msg_id;
		prev_type = type;
		rc = line_units(b, r, l, msg, &j, strip && o < last_turn);
		if (l->type == CL_ASSISTANT)
			last_assistant = m->req.nunits;
	}
	for (size_t u = last_assistant; u < m->req.nunits; u++)
		m->req.units[u].layer = RL_CURRENT;
	c->messages = msg + 1;
	return rc;
}

/* Recorded usage, the estimate, and the gap between them. */
static void request_usage(struct cc_model *m, size_t k)
{
	struct req_request *r = &m->req.reqs[k];
	struct cc_req *c = &m->creqs[k];
	const struct cc_line *l = &m->lines[c->last_line];
	for (size_t i = c->first_line; !l->has_usage && i <= c->last_line; i++)
		if (m->lines[i].has_usage && m->lines[i].msg_id == l->msg_id)
			l = &m->lines[i];
	c->estimate = 0;
	for (size_t u = r->first_unit + 1; c->replayed && u < r->first_unit + r->nunits; u++)
		c->estimate += m->req.units[u].tokens;
	r->recorded = l->has_usage;
	r->rec_read = l->cache_read;
	r->rec_write = l->cache_write;
	r->rec_uncached = l->in;
	r->rec_write_1h = l->has_usage ? l->write_1h : -1;
	r->rec_output = l->has_usage ? l->out : -1;
	r->rec_fast = l->has_usage && l->fast;
	r->rec_web_searches = l->has_usage ? l->web_searches : 0;
	c->rec_total = l->has_usage ? l->in + l->cache_read + l->cache_write : -1;
	c->gap = l->has_usage && c->replayed ? c->rec_total - c->estimate : 0;
}

/* The lifetime of a request's writes as its record says (ctxscope-formats(5) section 7b): 1
 * hour when it wrote 1-hour entries, 5 minutes when it wrote only 5-minute
 * ones; 0 when it says nothing (no split, or nothing written). */
static int recorded_ttl(const struct cc_line *l)
{
	if (!l->has_usage || l->write_1h < 0)
		return 0;
	return l->write_1h > 0 ? 3600 : l->write_5m > 0 ? 300 : 0;
}

/* Every request's lifetime: its record's, else the session's (the
 * lifetime its records show: Claude Code writes one kind per session),
 * else 5 minutes, assumed (the profile's default). */
static void lifetimes(struct cc_model *m)
{
	m->session_ttl = 0;
	for (size_t k = 0; k < m->req.nreqs && !m->session_ttl; k++)
		m->session_ttl = recorded_ttl(&m->lines[m->creqs[k].last_line]);
	m->ttl_recorded = m->session_ttl > 0;
	if (!m->session_ttl)
		m->session_ttl = 300;
	for (size_t k = 0; k < m->req.nreqs; k++) {
		struct cc_req *c = &m->creqs[k];
		int own = recorded_ttl(&m->lines[c->last_line]);
		c->ttl = own ? own : (int)m->session_ttl;
		c->ttl_assumed = !own && !m->ttl_recorded;
		m->req.reqs[k].auto_ttl = c->ttl; /* Claude Code marks the end of each prompt */
	}
}

/* The part not in the transcript, for the prediction: its size at the
 * first request with recorded usage (never below 0). */
static void size_hidden(struct cc_model *m)
{
	m->hidden = 0;
	for (size_t k = 0; k < m->req.nreqs; k++)
		if (m->req.reqs[k].recorded && m->creqs[k].replayed) {
			m->hidden = m->creqs[k].gap > 0 ? m->creqs[k].gap : 0;
			break;
		}
	for (size_t k = 0; k < m->req.nreqs; k++) { /* Claude Code marks the end of its tools and system */
		m->req.units[m->req.reqs[k].first_unit].tokens = m->hidden;
		m->req.units[m->req.reqs[k].first_unit].ttl = m->hidden > 0 ? m->creqs[k].ttl : 0;
	}
}

/* A compaction between two requests: the cache restarts from the summary. */
static int compaction_causes(struct build *b)
{
	struct cc_model *m = b->m;
	for (size_t k = 1; k < m->req.nreqs; k++) {
		const struct cc_req *c = &m->creqs[k], *p = &m->creqs[k - 1];
		if (c->boundary < 0 || c->boundary == p->boundary || !p->replayed)
			continue;
		const struct cc_line *l = &m->lines[c->boundary];
		struct req_request *r = &m->req.reqs[k];
		char pre[48] = "";
		if (l->pre_tokens >= 0)
			snprintf(pre, sizeof pre, ", %ld tokens before it", l->pre_tokens);
		r->cause = arena_printf(&b->src->arena, "a compaction (line %ld, %s%s): the prompt restarts from the "
					"summary; the messages went from %ld to %ld tokens (estimated)", l->line,
					l->trigger ? l->trigger : "trigger not recorded", pre, p->estimate, c->estimate);
		r->broke = true;
		if (!r->cause)
			return cs_error_nomem(b->err);
	}
	return CS_OK;
}

/* A rewind: the first difference is a user line of its own where the
 * request before had another (Claude Code branches the chain from the
 * edited message's parent). */
static int edit_causes(struct build *b)
{
	struct cc_model *m = b->m;
	for (size_t k = 1; k < m->req.nreqs; k++) {
		struct req_request *r = &m->req.reqs[k];
		const struct req_request *p = &m->req.reqs[k - 1];
		if (r->diff_unit < 0 || m->creqs[k].boundary != m->creqs[k - 1].boundary || !m->creqs[k - 1].replayed)
			continue;
		size_t at = (size_t)r->diff_unit - r->first_unit;
		size_t now = m->unit_block[r->diff_unit];
		size_t before = at < p->nunits ? m->unit_block[p->first_unit + at] : (size_t)-1;
		if (now == (size_t)-1 || before == (size_t)-1)
			continue;
		const struct cc_line *ln = &m->lines[m->blocks[now].line], *lb = &m->lines[m->blocks[before].line];
		if (ln == lb || ln->type != CL_USER || lb->type != CL_USER)
			continue;
		r->cause = arena_printf(&b->src->arena, "an earlier message was edited (%s): line %ld replaces line %ld, "
					"a rewind that branches the conversation", r->diff_path, ln->line, lb->line);
		if (!r->cause)
			return cs_error_nomem(b->err);
	}
	return CS_OK;
}

#define GAP_WARNINGS 5 /* negative gaps named one by one; the rest counted */

/* A negative "not in the transcript" gap is a counting error (ctxscope-formats(5)
 * 7b): a warning naming the request and its largest piece. */
static int gap_warnings(struct source *src, const struct cc_model *m)
{
	long n = 0;
	for (size_t k = m->first_replayed; k < m->req.nreqs; k++) {
		const struct req_request *r = &m->req.reqs[k];
		const struct cc_req *c = &m->creqs[k];
		if (!r->recorded || !c->replayed || c->gap >= 0 || ++n > GAP_WARNINGS)
			continue;
		size_t big = (size_t)-1;
		for (size_t u = r->first_unit + 1; u < r->first_unit + r->nunits; u++)
			if (big == (size_t)-1 || m->req.units[u].tokens > m->req.units[big].tokens)
				big = u;
		long piece = big != (size_t)-1 ? m->blocks[m->unit_block[big]].piece : -1;
		if (source_warn(src, piece, r->line, 0, "request %zu (line %ld): the messages' estimate, %ld tokens, is %ld "
				"more than the recorded input (%ld): a counting error; the largest piece is %s (%ld tokens)",
				k + 1, r->line, c->estimate, -c->gap, c->rec_total,
				piece >= 0 ? src->pieces[piece].label : "none", big != (size_t)-1 ? m->req.units[big].tokens : 0L))
			return CS_ENOMEM;
	}
	if (n > GAP_WARNINGS && source_warn(src, -1, 0, 0, "%ld more requests whose estimate exceeds the recorded input",
					     n - GAP_WARNINGS))
		return CS_ENOMEM;
	return CS_OK;
}

/* A recorded request larger than the limit used says the limit is wrong
 * (ctxscope-formats(5) section 5): a warning, for the largest such request. */
static int limit_warning(struct source *src, const struct cc_model *m)
{
	size_t worst = (size_t)-1;
	long over = 0, limit = 0;
	for (size_t k = 0; k < m->req.nreqs; k++) {
		bool fallback;
		long lim = model_limit(m->req.reqs[k].model, &fallback);
		if (m->creqs[k].rec_total > lim && m->creqs[k].rec_total - lim > over) {
			worst = k;
			over = m->creqs[k].rec_total - lim;
			limit = lim;
		}
	}
	if (worst == (size_t)-1)
		return CS_OK;
	const struct req_request *r = &m->req.reqs[worst];
	return source_warn(src, -1, r->line, 0, "request %zu (line %ld) recorded %ld tokens, more than the %ld-token "
			   "limit used for %s: that limit is wrong", worst + 1, r->line, m->creqs[worst].rec_total, limit,
			   r->model[0] ? r->model : "a model not named") ? CS_ENOMEM : CS_OK;
}

/* The request the session opens on: the one asked for, else the last on
 * the main chain, else the last. */
size_t cc_current_request(const struct cc_model *m)
{
	if (m->req.want_request >= 1 && (size_t)m->req.want_request <= m->req.nreqs)
		return (size_t)m->req.want_request - 1;
	for (size_t k = m->req.nreqs; k-- > 0;)
		if (m->creqs[k].main)
			return m->creqs[k].replayed ? k : m->req.nreqs - 1;
	return m->req.nreqs - 1;
}

/* The first request's read of Claude Code's system prompt, cached across
 * sessions (ctxscope-formats(5) section 7b): text the file does not hold, read, not a miss. */
static void global_read(struct cc_model *m)
{
	size_t k = m->first_replayed;
	struct req_request *r = &m->req.reqs[k];
	struct cc_req *c = &m->creqs[k];
	if (k != 0 || !r->recorded || r->rec_read <= 0 || r->pred_read > 0)
		return;
	long extent = r->cached_extent > 0 ? r->cached_extent : r->total;
	c->global_read = r->rec_read;
	r->pred_read = r->rec_read < extent ? r->rec_read : extent;
	r->pred_write = extent > r->pred_read ? extent - r->pred_read : 0;
	r->pred_uncached = r->total - r->pred_read - r->pred_write;
}

/* Predictions in recorded units where the record allows (ctxscope-formats(5) section 7b):
 * a request that extends the one before and reads that one's whole
 * prompt reads it as recorded (its input, cache read and write), so what
 * the estimate misses there, and the reminders Claude Code adds at send
 * time, are carried by the record; only what is new is estimated. Each
 * request's offset (recorded less predicted prompt) is taken at the first
 * prediction, so a what-if moves predictions by the edit alone. */
static void recorded_units(struct cc_model *m)
{
	for (size_t k = 0; k < m->req.nreqs; k++) {
		struct cc_req *c = &m->creqs[k];
		c->recorded_units = false;
		c->global_read = 0;
		if (!m->offsets)
			c->offset = c->replayed && c->rec_total >= 0 ? c->rec_total - m->req.reqs[k].total : 0;
	}
	m->offsets = true;
	global_read(m);
	for (size_t k = m->first_replayed + 1; k < m->req.nreqs; k++) {
		struct req_request *r = &m->req.reqs[k];
		const struct req_request *p = &m->req.reqs[k - 1];
		struct cc_req *c = &m->creqs[k];
		const struct cc_req *pc = &m->creqs[k - 1];
		if (!c->replayed || !pc->replayed || pc->rec_total < 0 || r->compared != (long)k - 1 || r->cause ||
		    p->cached_extent <= 0 || r->pred_read < p->cached_extent || c->boundary != pc->boundary)
			continue;
		long off = pc->offset > -r->pred_read ? pc->offset : -r->pred_read;
		r->pred_read += off;
		r->total += off;
		c->recorded_units = true;
	}
}

/* Request k as the current one: the sequence's predictions and causes
 * again (the lints are the current request's). */
static int predict(struct build *b, size_t k)
{
	struct cc_model *m = b->m;
	m->req.nlints = 0;
	for (size_t i = 0; i < m->req.nreqs; i++) {
		struct req_request *r = &m->req.reqs[i];
		r->nbreakpoints = 0;
		r->compared = r->diff_unit = -1;
		r->diff_path = r->diff_now = r->diff_before = r->cause = NULL;
		r->broke = false;
	}
	m->req.current = k;
	int rc = request_predict(b->src, &m->req, b->err);
	if (rc == CS_OK)
		recorded_units(m);
	for (size_t i = 0; rc == CS_OK && i < m->req.nreqs && i <= m->first_replayed; i++) {
		struct req_request *r = &m->req.reqs[i]; /* nothing replayed before it to compare with */
		r->diff_path = r->diff_now = r->diff_before = r->cause = NULL;
		r->broke = false;
		r->diff_unit = -1;
	}
	if (rc == CS_OK)
		rc = compaction_causes(b);
	return rc == CS_OK ? edit_causes(b) : rc;
}

/* The part not in the transcript as the current request has it. */
static void hidden_tokens(struct source *src, size_t k)
{
	const struct cc_model *m = src->model;
	if (src->npieces && src->pieces[0].kind_index == CC_HIDDEN_PIECE)
		src->pieces[0].tokens = m->creqs[k].gap > 0 ? m->creqs[k].gap : 0;
}

int cc_select(struct source *src, size_t k, struct cs_error *err)
{
	struct cc_model *m = src->model;
	hidden_tokens(src, k);
	if (m->req.predicted_for == request_whatif_sig(src)) {
		/* Every request's prediction and cause stands (they follow the
		 * what-if, not which request is shown): a step to another
		 * request only takes its lints, instead of predicting them all. */
		m->req.current = k;
		return request_current_lints(src, &m->req, err);
	}
	struct build b = { .src = src, .m = m, .uuids = STRMAP_INIT, .err = err };
	int rc = predict(&b, k);
	if (rc == CS_OK)
		request_predicted(&b.m->req, request_whatif_sig(src));
	return rc;
}

int cc_select_want(struct source *src, long want, struct cs_error *err)
{
	struct cc_model *m = src->model;
	if (want >= 1 && (size_t)want <= m->first_replayed)
		return cs_error_set(err, CS_EUSAGE, "request %ld: only requests %zu to %zu are replayed (a session this "
				    "long is replayed from its end)", want, m->first_replayed + 1, m->req.nreqs);
	return cc_select(src, cc_current_request(m), err); /* it reads req.want_request, set by the setting */
}

int cc_edited(struct source *src, struct cs_error *err)
{
	struct cc_model *m = src->model;
	return request_whatif_sig(src) == m->req.predicted_for ? CS_OK : cc_select(src, m->req.current, err);
}

int cc_breakpoints_edited(struct source *src, const struct cache_overrides *o, struct cs_error *err)
{
	struct cc_model *m = src->model;
	int rc = request_take_breakpoints(src, &m->req, o, err);
	return rc == CS_OK ? cc_edited(src, err) : rc;
}

/* Every unit's piece, so an excluded block leaves every request that
 * holds it (what-if); the part not in the transcript has none. */
static int unit_pieces(struct cc_model *m)
{
	m->req.unit_piece = cs_malloc((m->req.nunits ? m->req.nunits : 1) * sizeof *m->req.unit_piece);
	if (!m->req.unit_piece)
		return CS_ENOMEM;
	for (size_t u = 0; u < m->req.nunits; u++) {
		size_t b = m->unit_block[u];
		long piece = b == (size_t)-1 ? -1 : m->blocks[b].piece;
		m->req.unit_piece[u] = piece < 0 ? REQUEST_NO_PIECE : (uint32_t)piece;
	}
	m->req.ncore = 0; /* the packed units take the pieces at the next prediction */
	return CS_OK;
}

/* The blocks the replayed requests may hold in all (cs_tune can lower it). */
static size_t max_units(void)
{
	return cs_tuned->cc_max_units ? cs_tuned->cc_max_units : CC_MAX_UNITS;
}

/* The requests replayed: the last ones whose prompts hold max_units() blocks
 * in all (every request's prompt is built whole, so a long session would
 * need memory quadratic in its length); always the last. */
static int replay_window(struct build *b)
{
	struct cc_model *m = b->m;
	size_t total = 0, window = 0; /* units: of the requests walked, of the ones replayed */
	m->first_replayed = 0;
	for (size_t k = m->req.nreqs; k-- > 0;) {
		size_t n;
		long boundary;
		if (walk_prompt(b, m->creqs[k].first_line, &n, &boundary, false) != CS_OK)
			return cs_error_nomem(b->err);
		for (size_t i = 0; i < n; i++)
			total += m->lines[b->chain[i]].nblocks;
		total += 1;
		if (total > max_units() && k + 1 < m->req.nreqs) {
			m->first_replayed = k + 1;
			break;
		}
		window = total;
	}
	return reserve_units(b, window + m->first_replayed); /* one unit each before the window */
}

int cc_build(struct source *src, struct cc_model *m, struct cs_error *err)
{
	struct build b = { .src = src, .m = m, .uuids = STRMAP_INIT, .msg_head = STRMAP_INIT, .results = STRMAP_INIT,
			   .err = err };
	b.stamp = cs_calloc(m->nlines ? m->nlines : 1, sizeof *b.stamp);
	b.placed = cs_calloc(m->nlines ? m->nlines : 1, sizeof *b.placed);
	b.next_same = cs_reallocarray(NULL, m->nlines ? m->nlines : 1, sizeof *b.next_same);
	b.parent = cs_reallocarray(NULL, m->nlines ? m->nlines : 1, sizeof *b.parent);
	b.done = cs_reallocarray(NULL, m->nlines ? m->nlines : 1, sizeof *b.done);
	for (size_t i = 0; b.parent && b.done && i < m->nlines; i++) {
		b.parent[i] = PARENT_UNKNOWN;
		b.done[i] = WALK_OPEN;
	}
	int rc = b.stamp && b.parent && b.done && b.placed && b.next_same ? index_uuids(&b) : cs_error_nomem(err);
	if (rc == CS_OK)
		rc = index_messages(&b);
	if (rc == CS_OK)
		rc = mark_main(&b) == CS_OK ? CS_OK : cs_error_nomem(err);
	if (rc == CS_OK)
		rc = find_requests(&b);
	if (rc == CS_OK)
		rc = replay_window(&b);
	for (size_t k = 0; rc == CS_OK && k < m->req.nreqs; k++) {
		rc = request_units(&b, k, k >= m->first_replayed);
		if (rc == CS_OK)
			request_usage(m, k);
	}
	char bad[96] = ""; /* the lines skipped may be why nothing is left */
	if (m->bad_lines)
		snprintf(bad, sizeof bad, "; %ld malformed line%s skipped, the first at line %ld, column %ld", m->bad_lines,
			 m->bad_lines == 1 ? "" : "s", m->first_bad_line, m->first_bad_column);
	if (rc == CS_OK && !m->nlines)
		rc = cs_error_set(err, CS_ESTRUCT, "no Claude Code conversation line (\"type\" user, assistant or system "
				  "with a \"uuid\") in %ld line%s%s", m->total_lines, m->total_lines == 1 ? "" : "s", bad);
	if (rc == CS_OK && !m->req.nreqs)
		rc = cs_error_set(err, CS_ESTRUCT, "no assistant message in this session (%ld line%s%s): nothing was "
				  "sent yet", m->total_lines, m->total_lines == 1 ? "" : "s", bad);
	if (rc == CS_OK) {
		lifetimes(m);
		size_hidden(m);
		m->req.provider = REQ_ANTHROPIC;
		m->req.is_log = true;
		/* the user's cache.yml figures for a model, as for a request log */
		rc = request_user_facts(src, &m->req) == CS_OK && cc_make_pieces(src, m) == CS_OK && unit_pieces(m) == CS_OK &&
			     gap_warnings(src, m) == CS_OK && limit_warning(src, m) == CS_OK
			     ? cc_select(src, cc_current_request(m), err)
			     : cs_error_nomem(err);
	}
	strmap_fini(&b.uuids);
	strmap_fini(&b.msg_head);
	strmap_fini(&b.results);
	cs_free(b.placed);
	cs_free(b.next_same);
	cs_free(b.order);
	cs_free(b.chain);
	cs_free(b.stamp);
	cs_free(b.parent);
	cs_free(b.done);
	return rc;
}

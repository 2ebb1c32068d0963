/* fast.c: the claude-code reader's quick way through a line (claude_code.h).
 * A line of the usual shape is read straight from its bytes, no tree: an
 * object whose conversation fields have the expected types, in strict JSON
 * as the one lexer (json/lex.h) reads it (no raw control characters in
 * strings, no \u0000 and no lone UTF-16 surrogate escape, no key written
 * twice or with an escape, nesting under FAST_DEPTH, numbers of the JSON
 * grammar). The blocks' text is unescaped
 * in place into the model's bulk, and each block's hash is the one
 * request_hash_json gives its tree (the same bytes hashed in the same
 * order), so a line read either way is the same line. A block that is not
 * one plain string (tool_use, a tool_result with a list) is parsed alone
 * into the pool and added from its tree, as load.c does. Anything else,
 * and any failure, is declined before the line counts: load.c then reads
 * it through json_doc as before, so every error and warning is that
 * path's, word for word. */
#include "claude_code.h"
#include "base/tune.h"

#include "base/alloc.h"
#include "text/hidden.h"
#include "json/doc.h"
#include "json/lex.h"
#include "kinds/loom/loom.h"
#include "source.h"
#include "tokens/estimate.h"

#include <stdlib.h>
#include <string.h>

#define FAST_DEPTH 64       /* deeper goes the tree's way (json_doc's limit is far above) */
#define FAST_NUMBER_MAX 40  /* longer numbers go the tree's way */

/* A string's raw bytes between its quotes. */
struct span {
	const char *s;
	size_t n;
	bool esc;   /* holds an escape */
};

/* A string field: absent, null, or a string (unescaped into the scratch at `at`). */
struct field {
	enum { FD_ABSENT, FD_NULL, FD_STR } state;
	size_t at, n;
};

struct fast {
	const char *p, *end;
	struct cc_scratch *scr;
	int depth;
	struct json_lex_str str; /* the last string read */
};

/* ---- the scratch: NUL-ended strings of the line ------------------------- */

static char *scratch_room(struct cc_scratch *s, size_t n)
{
	if (s->cap - s->len < n + 1) {
		size_t cap = s->cap ? s->cap : 256;
		while (cap - s->len < n + 1)
			cap *= 2;
		char *b = cs_realloc(s->buf, cap);
		if (!b)
			return NULL;
		s->buf = b;
		s->cap = cap;
	}
	return s->buf + s->len;
}

void cc_scratch_fini(struct cc_scratch *s)
{
	cs_free(s->buf);
	*s = (struct cc_scratch){ 0 };
}

/* ---- strings ---------------------------------------------------------------- */

#define FAST_STRING (JSON_LEX_PAIRS | JSON_LEX_NO_NUL) /* \u0000 and a lone surrogate: the tree's way */

/* The string at f->p (a quote) into *sp, f->p past it; false to decline. */
static bool string_span(struct fast *f, struct span *sp)
{
	const char *after = json_lex_string(f->p, f->end, FAST_STRING, &f->str);
	if (!after)
		return false;
	*sp = (struct span){ .s = f->str.s, .n = f->str.n, .esc = f->str.esc != 0 };
	f->p = after;
	return true;
}

/* The string at f->p (a quote) checked and unescaped into out in one pass
 * (out has room for the rest of the line: json_lex_unescape), f->p past
 * it; its length into *len. */
static bool string_into(struct fast *f, char *out, size_t *len)
{
	enum json_lex_fault fault;
	const char *after = json_lex_unescape(f->p, f->end, FAST_STRING, out, len, &fault);
	if (!after)
		return false;
	f->p = after;
	return true;
}

/* A key (never escaped: key_new declines those) copied onto the end of the
 * scratch, NUL-ended; its offset. */
static bool to_scratch(struct fast *f, const struct span *sp, size_t *at, size_t *n)
{
	char *o = scratch_room(f->scr, sp->n);
	if (!o)
		return false;
	*at = f->scr->len;
	*n = sp->n;
	memcpy(o, sp->s, sp->n);
	o[*n] = '\0';
	f->scr->len += *n + 1;
	return true;
}

/* The bytes string_into may write for the string at f->p: its raw bytes
 * (unescaped text is never longer) and the 16 a vector store reaches past
 * them, at most the rest of the line. Reserving the rest of the line for
 * every string instead made a long line of many blocks reserve its length
 * once a block. */
static size_t string_reach(const struct fast *f)
{
	size_t rest = (size_t)(f->end - f->p), close = json_string_end(f->p, rest, 0);
	return close + 16 < rest ? close + 16 : rest;
}

/* The string at f->p onto the end of the scratch, NUL-ended; its offset. */
static bool string_to_scratch(struct fast *f, size_t *at, size_t *n)
{
	char *o = scratch_room(f->scr, string_reach(f));
	if (!o || !string_into(f, o, n))
		return false;
	*at = f->scr->len;
	o[*n] = '\0';
	f->scr->len += *n + 1;
	return true;
}

/* ---- values ------------------------------------------------------------------- */

static void blanks(struct fast *f)
{
	f->p = json_ws(f->p, f->end);
}

static bool eat(struct fast *f, char c)
{
	blanks(f);
	if (f->p < f->end && *f->p == c) {
		f->p++;
		return true;
	}
	return false;
}

/* A number of the JSON grammar at f->p, its value as cJSON reads it. */
static bool number(struct fast *f, double *out)
{
	struct json_lex_num num;
	const char *after = json_lex_number(f->p, f->end, &num);
	if (!after || num.lead_zero || num.n > FAST_NUMBER_MAX)
		return false; /* "01": cJSON takes more of it than the grammar */
	char buf[FAST_NUMBER_MAX + 1], *stop;
	memcpy(buf, num.s, num.n);
	buf[num.n] = '\0';
	*out = strtod(buf, &stop);
	f->p = after;
	return stop == buf + num.n; /* a locale with another decimal point: the tree's way */
}

static bool word(struct fast *f, const char *w, size_t n)
{
	if ((size_t)(f->end - f->p) < n || memcmp(f->p, w, n))
		return false;
	f->p += n;
	return true;
}

static uint64_t hash_byte(char c, uint64_t h)
{
	return request_hash(&c, 1, h);
}

/* A key not seen before in its object (one written twice is refused, as
 * json_doc does), and not escaped. */
static bool key_new(struct json_keyset *ks, const struct span *k)
{
	return !k->esc && json_keyset_add(ks, k->s, k->n) == JSON_KEY_NEW;
}

static bool value(struct fast *f, uint64_t *h);

/* An object's members in turn (its '{' taken): the keys seen, to refuse
 * one written twice. */
struct members {
	struct json_keyset ks;
	bool first;
};

static void members_init(struct members *it)
{
	json_keyset_init(&it->ks);
	it->first = true;
}

/* The next member's key into *k, f->p at its value: 1; 0 past the '}';
 * -1 to decline. */
static int next_member(struct fast *f, struct members *it, struct span *k)
{
	blanks(f);
	if (f->p < f->end && *f->p == '}') {
		f->p++;
		return 0;
	}
	if (!it->first && !eat(f, ','))
		return -1;
	it->first = false;
	blanks(f);
	return f->p < f->end && *f->p == '"' && string_span(f, k) && key_new(&it->ks, k) && eat(f, ':') ? 1 : -1;
}

/* A key's hash as hash_node's: its bytes and the NUL after them. */
static bool hash_key(struct fast *f, const struct span *k, uint64_t *h)
{
	size_t at, n;
	if (!to_scratch(f, k, &at, &n))
		return false;
	*h = request_hash(f->scr->buf + at, n + 1, *h);
	f->scr->len = at;
	return true;
}

static bool object(struct fast *f, uint64_t *h)
{
	struct members it;
	struct span k;
	int more;
	members_init(&it);
	while ((more = next_member(f, &it, &k)) > 0)
		if ((h && !hash_key(f, &k, h)) || !value(f, h))
			return false;
	return more == 0;
}

static bool array(struct fast *f, uint64_t *h)
{
	if (eat(f, ']'))
		return true;
	do {
		if (!value(f, h))
			return false;
	} while (eat(f, ','));
	return eat(f, ']');
}

/* Any value, checked; hashed into *h as hash_node would (h NULL: only checked). */
static bool value(struct fast *f, uint64_t *h)
{
	blanks(f);
	if (f->p >= f->end)
		return false;
	char c = *f->p;
	if (c == '"') {
		struct span sp;
		if (!h)
			return string_span(f, &sp);
		size_t at, n;
		if (!string_to_scratch(f, &at, &n))
			return false;
		*h = request_hash(f->scr->buf + at, n + 1, hash_byte('s', *h));
		f->scr->len = at;
		return true;
	}
	if (c == '{' || c == '[') {
		if (++f->depth > FAST_DEPTH)
			return false;
		f->p++;
		if (h)
			*h = hash_byte(c == '{' ? 'o' : 'a', *h);
		bool ok = c == '{' ? object(f, h) : array(f, h);
		if (h)
			*h = hash_byte(c == '{' ? '}' : ']', *h);
		f->depth--;
		return ok;
	}
	if (c == 't' || c == 'f' || c == 'n') {
		bool ok = c == 't' ? word(f, "true", 4) : c == 'f' ? word(f, "false", 5) : word(f, "null", 4);
		if (h)
			*h = hash_byte(c == 'n' ? 'z' : c, *h);
		return ok;
	}
	double d;
	if (!number(f, &d))
		return false;
	if (h)
		*h = request_hash((const char *)&d, sizeof d, hash_byte('n', *h));
	return true;
}

/* ---- blocks ------------------------------------------------------------------- */

/* What a block's walk found. */
struct block_seen {
	struct field type, id, tool_use_id, name;
	const char *text[3]; /* "text", "thinking", "content" as strings: in the bulk */
	size_t text_len[3];
	bool input;          /* has an "input" (tool_use): read from its tree */
};

static bool key_is(const struct span *k, const char *name, size_t n)
{
	return k->n == n && !memcmp(k->s, name, n);
}

/* A string value read into a field of the scratch, or declined when of another type. */
static bool string_field(struct fast *f, struct field *fd, bool null_ok)
{
	blanks(f);
	if (f->p < f->end && *f->p == 'n' && null_ok) {
		fd->state = FD_NULL;
		return word(f, "null", 4);
	}
	if (f->p >= f->end || *f->p != '"' || !string_to_scratch(f, &fd->at, &fd->n))
		return false;
	fd->state = FD_STR;
	return true;
}

/* A string unescaped into the bulk (its text if the block is plain), hashed. */
static bool bulk_string(struct fast *f, struct cc_model *m, const char **out, size_t *len, uint64_t *h)
{
	size_t want = (size_t)(f->end - f->p);
	if (bulk_room(&m->text) < want)
		want = string_reach(f); /* a new chunk: only as big as the string needs */
	char *o = bulk_reserve(&m->text, want);
	if (!o || !string_into(f, o, len))
		return false;
	bulk_commit(&m->text, o, *len);
	*out = o;
	*h = request_hash(o, *len + 1, hash_byte('s', *h));
	return true;
}

/* One block object's members, hashed as hash_node hashes its tree. */
static bool block_walk(struct fast *f, struct cc_model *m, struct block_seen *bs, uint64_t *h)
{
	struct members it;
	struct span k;
	int more;
	members_init(&it);
	f->depth++;
	*h = hash_byte('o', *h);
	while ((more = next_member(f, &it, &k)) > 0) {
		if (!hash_key(f, &k, h))
			return false;
		blanks(f);
		bool str = f->p < f->end && *f->p == '"';
		struct field *fd = key_is(&k, "type", 4) ? &bs->type : key_is(&k, "id", 2) ? &bs->id
				 : key_is(&k, "tool_use_id", 11) ? &bs->tool_use_id : key_is(&k, "name", 4) ? &bs->name : NULL;
		int t = key_is(&k, "text", 4) ? 0 : key_is(&k, "thinking", 8) ? 1 : key_is(&k, "content", 7) ? 2 : -1;
		bs->input |= key_is(&k, "input", 5);
		if (str && fd) {
			if (!string_field(f, fd, false))
				return false;
			*h = request_hash(f->scr->buf + fd->at, fd->n + 1, hash_byte('s', *h));
		} else if (str && t >= 0) {
			if (!bulk_string(f, m, &bs->text[t], &bs->text_len[t], h))
				return false;
		} else if (!value(f, h)) {
			return false;
		}
	}
	if (more < 0)
		return false;
	*h = hash_byte('}', *h);
	f->depth--;
	return true;
}

static const char *scratch_str(const struct fast *f, const struct field *fd)
{
	return fd->state == FD_STR ? f->scr->buf + fd->at : NULL;
}

/* A block of one plain string: the text already in the bulk. */
static bool plain_block(struct source *src, struct cc_model *m, const char *type, const char *text, size_t len,
			uint64_t hash, const char *id, const char *name)
{
	struct cc_block *blk = cc_new_block(m);
	if (!blk)
		return false;
	blk->type = cc_known_type(type);
	if (!blk->type)
		blk->type = arena_strdup(&src->arena, type);
	blk->text = text;
	blk->text_len = len;
	blk->hash = hash;
	struct text_measure tm;
	hidden_measure(text, len, &tm);
	blk->code_points = tm.code_points;
	blk->lines = tm.lines;
	blk->hidden = tm.hidden;
	blk->tool = !strcmp(type, "tool_use") || !strcmp(type, "tool_result");
	blk->tokens = tokens_estimate(blk->code_points, src->settings.chars_per_token);
	blk->tool_id = id ? arena_strdup(&src->arena, id) : NULL;
	blk->tool_name = name ? arena_strdup(&src->arena, name) : NULL;
	return blk->type && (!id || blk->tool_id) && (!name || blk->tool_name);
}

/* One element of message.content: a plain block added from the walk, any
 * other from its own tree (parsed alone: it was checked above). */
static int one_block(struct fast *f, struct source *src, struct cc_model *m, struct json_pool *pool,
		     struct cs_error *err)
{
	blanks(f);
	const char *start = f->p;
	struct block_seen bs = { .input = false };
	uint64_t h = REQUEST_HASH_SEED;
	size_t mark = f->scr->len;
	if (f->p >= f->end || *f->p != '{')
		return CC_FAST_DECLINED;
	f->p++;
	if (!block_walk(f, m, &bs, &h))
		return CC_FAST_DECLINED;
	const char *type = scratch_str(f, &bs.type);
	if (!type)
		return CC_FAST_DECLINED;
	int t = !strcmp(type, "text") ? 0 : !strcmp(type, "thinking") ? 1 : !strcmp(type, "tool_result") ? 2 : -1;
	int rc = CS_OK;
	if (t >= 0 && bs.text[t] && !bs.input) {
		const char *id = scratch_str(f, &bs.id) ? scratch_str(f, &bs.id) : scratch_str(f, &bs.tool_use_id);
		if (!plain_block(src, m, type, bs.text[t], bs.text_len[t], h, id, scratch_str(f, &bs.name)))
			rc = CC_FAST_DECLINED;
	} else {
		json_pool_reset(pool);
		const char *end = NULL;
		cJSON *tree = json_pool_parse(pool, start, (size_t)(f->p - start), &end);
		rc = tree && end == f->p ? cc_add_block(src, m, tree, type, err) : CC_FAST_DECLINED;
	}
	f->scr->len = mark;
	return rc;
}

/* message.content: one string (a text block) or a list of blocks. */
static int content(struct fast *f, struct source *src, struct cc_model *m, struct json_pool *pool,
		   struct cs_error *err)
{
	blanks(f);
	if (f->p < f->end && *f->p == '"') {
		uint64_t h = REQUEST_HASH_SEED;
		const char *text;
		size_t len;
		return bulk_string(f, m, &text, &len, &h) && plain_block(src, m, "text", text, len, h, NULL, NULL)
			       ? CS_OK : CC_FAST_DECLINED;
	}
	if (word(f, "null", 4))
		return CS_OK;
	if (!eat(f, '['))
		return CC_FAST_DECLINED;
	if (eat(f, ']'))
		return CS_OK;
	int rc;
	do
		rc = one_block(f, src, m, pool, err);
	while (rc == CS_OK && eat(f, ','));
	return rc != CS_OK ? rc : eat(f, ']') ? CS_OK : CC_FAST_DECLINED;
}

/* ---- the line ------------------------------------------------------------------ */

enum { L_TYPE, L_SUBTYPE, L_UUID, L_PARENT, L_LOGICAL, L_TIME, L_MSG_ID, L_MODEL, L_FIELDS };

struct line_seen {
	struct field f[L_FIELDS];
	int sidechain, summary; /* -1 absent or null, else the value */
	bool message, usage, split;
	double use[7];          /* input, cache creation, cache read, output, then cache_creation's 1-hour
				 * and 5-minute writes, server_tool_use's web searches: -1 absent */
	struct field speed;     /* usage.speed */
};

/* true, false or null (-1); declined otherwise. */
static bool flag(struct fast *f, int *out)
{
	blanks(f);
	*out = word(f, "true", 4) ? 1 : word(f, "false", 5) ? 0 : -1;
	return *out >= 0 || word(f, "null", 4);
}

/* A usage count: a whole number from 0 (below 1e15), or null (absent).
 * Anything else declines the line: load.c's reader warns about it. */
static bool count_value(struct fast *f, double *out)
{
	blanks(f);
	if (word(f, "null", 4))
		return true;
	return f->p < f->end && *f->p >= '0' && *f->p <= '9' && number(f, out) && *out < 1e15 &&
	       *out == (double)(long long)*out;
}

/* The members of a usage object (or of its cache_creation, split) whose
 * names are names[0..n), into out[]. */
static bool counts(struct fast *f, struct line_seen *ls, const char *const *names, int n, double *out, bool top)
{
	struct members it;
	struct span k;
	int more;
	members_init(&it);
	while ((more = next_member(f, &it, &k)) > 0) {
		int which = -1;
		for (int i = 0; i < n; i++)
			if (key_is(&k, names[i], strlen(names[i])))
				which = i;
		blanks(f);
		bool ok;
		if (which >= 0)
			ok = count_value(f, &out[which]);
		else if (top && key_is(&k, "cache_creation", 14) && f->p < f->end && *f->p == '{') {
			static const char *const split[2] = { "ephemeral_1h_input_tokens", "ephemeral_5m_input_tokens" };
			f->p++;
			ls->split = true;
			ok = counts(f, ls, split, 2, &ls->use[4], false);
		} else if (top && key_is(&k, "server_tool_use", 15) && f->p < f->end && *f->p == '{') {
			static const char *const server[1] = { "web_search_requests" };
			f->p++;
			ok = counts(f, ls, server, 1, &ls->use[6], false);
		} else if (top && key_is(&k, "speed", 5)) {
			ok = string_field(f, &ls->speed, true); /* another type: the tree's way */
		} else
			ok = value(f, NULL);
		if (!ok)
			return false;
	}
	return more == 0;
}

static bool usage(struct fast *f, struct line_seen *ls)
{
	static const char *const names[4] = { "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
					      "output_tokens" };
	blanks(f);
	if (f->p >= f->end || *f->p != '{')
		return value(f, NULL); /* not an object: no usage, as take_usage */
	f->p++;
	ls->usage = true;
	return counts(f, ls, names, 4, ls->use, true);
}

static int message(struct fast *f, struct source *src, struct cc_model *m, struct json_pool *pool,
		   struct line_seen *ls, struct cs_error *err)
{
	struct members it;
	struct span k;
	int more;
	members_init(&it);
	ls->message = true;
	while ((more = next_member(f, &it, &k)) > 0) {
		int rc = CS_OK;
		if (key_is(&k, "id", 2) || key_is(&k, "model", 5))
			rc = string_field(f, &ls->f[k.n == 2 ? L_MSG_ID : L_MODEL], true) ? CS_OK : CC_FAST_DECLINED;
		else if (key_is(&k, "usage", 5))
			rc = usage(f, ls) ? CS_OK : CC_FAST_DECLINED;
		else if (key_is(&k, "content", 7))
			rc = content(f, src, m, pool, err);
		else
			rc = value(f, NULL) ? CS_OK : CC_FAST_DECLINED;
		if (rc != CS_OK)
			return rc;
	}
	return more == 0 ? CS_OK : CC_FAST_DECLINED;
}

/* The top-level member k's value. */
static int top_member(struct fast *f, struct source *src, struct cc_model *m, struct json_pool *pool,
		      struct line_seen *ls, const struct span *k, struct cs_error *err)
{
	static const char *const names[L_MSG_ID] = { "type", "subtype", "uuid", "parentUuid", "logicalParentUuid",
						     "timestamp" };
	for (int i = 0; i < L_MSG_ID; i++)
		if (key_is(k, names[i], strlen(names[i])))
			return string_field(f, &ls->f[i], true) ? CS_OK : CC_FAST_DECLINED;
	if (key_is(k, "isSidechain", 11))
		return flag(f, &ls->sidechain) ? CS_OK : CC_FAST_DECLINED;
	if (key_is(k, "isCompactSummary", 16))
		return flag(f, &ls->summary) ? CS_OK : CC_FAST_DECLINED;
	if (key_is(k, "message", 7)) {
		blanks(f);
		if (word(f, "null", 4))
			return CS_OK;
		return eat(f, '{') ? message(f, src, m, pool, ls, err) : CC_FAST_DECLINED;
	}
	return value(f, NULL) ? CS_OK : CC_FAST_DECLINED;
}

static long count_of(double v)
{
	return v >= 0 ? (long)v : 0; /* checked by count_value; -1: absent */
}

static const char *keep(struct source *src, const struct fast *f, const struct field *fd, bool *failed)
{
	const char *s = scratch_str(f, fd);
	const char *k = s ? arena_strdup(&src->arena, s) : NULL;
	*failed |= s && !k;
	return k;
}

/* The line from what was seen, as load.c's conversation_line makes it. */
static int make_line(struct source *src, struct cc_model *m, const struct fast *f, const struct line_seen *ls,
		     int type, size_t first_block, long line)
{
	struct cc_line *l = &m->lines[m->nlines];
	memset(l, 0, sizeof *l);
	l->type = type;
	l->pre_tokens = -1;
	l->write_1h = l->write_5m = -1;
	bool failed = false;
	l->uuid = keep(src, f, &ls->f[L_UUID], &failed);
	l->parent = keep(src, f, &ls->f[L_PARENT], &failed);
	l->logical_parent = keep(src, f, &ls->f[L_LOGICAL], &failed);
	l->sidechain = ls->sidechain == 1;
	l->compact_summary = ls->summary == 1;
	const char *t = scratch_str(f, &ls->f[L_TIME]);
	long long ms;
	l->time = t && loom_parse_time(t, &ms) ? (double)ms / 1000.0 : -1;
	if (type == CL_SYSTEM) {
		m->nblocks = first_block; /* its message, if any, is not read */
	} else {
		l->first_block = first_block;
		l->nblocks = m->nblocks - first_block;
	}
	if (type == CL_ASSISTANT && ls->message) {
		l->msg_id = keep(src, f, &ls->f[L_MSG_ID], &failed);
		l->model = keep(src, f, &ls->f[L_MODEL], &failed);
		if (ls->usage) {
			l->has_usage = true;
			l->in = count_of(ls->use[0]);
			l->cache_write = count_of(ls->use[1]);
			l->cache_read = count_of(ls->use[2]);
			l->out = count_of(ls->use[3]);
			l->write_1h = ls->split ? count_of(ls->use[4]) : -1;
			l->write_5m = ls->split ? count_of(ls->use[5]) : -1;
			l->web_searches = count_of(ls->use[6]);
			const char *speed = scratch_str(f, &ls->speed);
			l->fast = speed && !strcmp(speed, "fast");
		}
	}
	if (failed)
		return CC_FAST_DECLINED;
	l->line = line;
	m->sidechain_lines += l->sidechain;
	m->nlines++;
	return CS_OK;
}

/* The line's kind as load.c's line_type (-1 skipped, counted), or declined. */
static int kind_of(struct cc_model *m, const struct fast *f, const struct line_seen *ls, bool *declined)
{
	const char *t = scratch_str(f, &ls->f[L_TYPE]), *sub = scratch_str(f, &ls->f[L_SUBTYPE]);
	*declined = !t || (!strcmp(t, "system") && sub && !strcmp(sub, "compact_boundary"));
	if (*declined)
		return -1; /* no type, or a compaction boundary: the tree's way */
	if (!strcmp(t, "user") || !strcmp(t, "assistant") || !strcmp(t, "system"))
		return !strcmp(t, "user") ? CL_USER : !strcmp(t, "assistant") ? CL_ASSISTANT : CL_SYSTEM;
	if (ls->f[L_UUID].state == FD_STR) {
		*declined = true; /* a node of the chain of another type (attachment, progress): the tree's way */
		return -1;
	}
	cc_count_skipped(m, t);
	return -1;
}


int cc_fast_line(struct source *src, struct cc_model *m, struct json_pool *pool, struct cc_scratch *scr,
		 const char *s, size_t n, long line, struct cs_error *err)
{
	if (!cs_tuned->cc_fast || m->nlines == m->cap_lines)
		return CC_FAST_DECLINED; /* load.c grows the array (or refuses past its limit) */
	struct fast f = { .p = s, .end = s + n, .scr = scr };
	struct line_seen ls = { .sidechain = -1, .summary = -1, .use = { -1, -1, -1, -1, -1, -1, -1 } };
	size_t first_block = m->nblocks;
	scr->len = 0;
	int rc = eat(&f, '{') ? CS_OK : CC_FAST_DECLINED;
	struct members it;
	struct span k;
	int more = 1;
	members_init(&it);
	while (rc == CS_OK && more > 0)
		if ((more = next_member(&f, &it, &k)) < 0)
			rc = CC_FAST_DECLINED;
		else if (more)
			rc = top_member(&f, src, m, pool, &ls, &k, err);
	blanks(&f);
	if (rc == CS_OK && f.p != f.end)
		rc = CC_FAST_DECLINED;
	bool declined = false;
	int type = rc == CS_OK ? kind_of(m, &f, &ls, &declined) : -1;
	if (rc == CS_OK && !declined && type >= 0)
		rc = make_line(src, m, &f, &ls, type, first_block, line);
	if (rc != CS_OK || declined || type < 0)
		m->nblocks = first_block; /* a skipped line's blocks, or a declined one's */
	return rc == CS_OK && declined ? CC_FAST_DECLINED : rc;
}

/* load.c: the claude-code kind's reader: one JSON object a line into
 * struct cc_line and its blocks (claude_code.h). Lines of known types that
 * are not conversation (summary, file-history-snapshot) and of unknown
 * types are skipped and counted; a malformed line is an error naming its
 * line and column, except the last (a session still running): a warning.
 * Detection: a .jsonl whose first object line has "type" with "uuid" and
 * "sessionId", or one of Claude Code's other line types. */
#include "claude_code.h"

#include "kinds/request/counted.h"

#include "base/alloc.h"
#include "text/hidden.h"
#include "json/doc.h"
#include "json/reuse.h"
#include "json/lines.h"
#include "kinds/loom/loom.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"
#include "tokens/image.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


void cc_model_free(void *model)
{
	struct cc_model *m = model;
	if (!m)
		return;
	json_doc_free(&m->req.doc);
	request_counted_memo_free(m->req.counted_memo);
	cs_free(m->req.units);
	cs_free(m->req.reqs);
	cs_free(m->req.lints);
	cs_free(m->lines);
	cs_free(m->blocks);
	cs_free(m->creqs);
	cs_free(m->unit_block);
	cs_free(m->req.unit_piece);
	cs_free(m->req.bp_override);
	request_predictions_free(&m->req);
	cs_free(m->req.groups);
	cs_free(m->req.user_facts);
	arena_fini(&m->req.pred_arena);
	bulk_fini(&m->text);
	cs_free(m);
}

/* ---- one line's fields -------------------------------------------------- */

/* The values of `names` in obj (NULL when absent; the first of a key, as
 * json_member), found in one pass over its keys: a
 * lookup per name would walk them once a name, every line. */
static void gather(const cJSON *obj, const char *const *names, size_t n, const cJSON **out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	if (!json_is_object(obj))
		return;
	for (const cJSON *it = json_first(obj); it; it = json_next(it))
		for (size_t i = 0; i < n && json_key(it); i++)
			if (!out[i] && json_key(it)[0] == names[i][0] && !strcmp(json_key(it), names[i])) {
				out[i] = it;
				break;
			}
}

/* The top-level fields a line is read from (gather's names). */
enum { F_TYPE, F_SUBTYPE, F_UUID, F_PARENT, F_LOGICAL, F_SIDECHAIN, F_SUMMARY, F_TIME, F_MESSAGE, F_META,
       F_ATTACH, F_COUNT };
static const char *const line_names[F_COUNT] = { "type", "subtype", "uuid", "parentUuid", "logicalParentUuid",
						  "isSidechain", "isCompactSummary", "timestamp", "message",
						  "compactMetadata", "attachment" };
/* A message's. */
enum { M_ID, M_MODEL, M_USAGE, M_CONTENT, M_COUNT };
static const char *const message_names[M_COUNT] = { "id", "model", "usage", "content" };

static bool absent(const cJSON *v)
{
	return !v || json_is_null(v);
}

/* A string field v (obj's key), copied into the arena: NULL when absent or
 * null; of another type, json_get_string's positioned error. */
static int take_str(struct source *src, const struct json_doc *d, const cJSON *obj, const struct jpath *at,
		    const char *key, const cJSON *v, const char **out, struct cs_error *err)
{
	*out = NULL;
	if (absent(v))
		return CS_OK;
	if (!json_is_string(v)) {
		const char *s = NULL;
		return json_get_string(d, obj, at, key, JSON_OPTIONAL, &s, err);
	}
	*out = arena_strdup(&src->arena, json_string_value(v));
	return *out ? CS_OK : cs_error_nomem(err);
}

/* A true/false field v (obj's key): false when absent or null; of another
 * type, json_get_bool's positioned error. */
static int take_bool(const struct json_doc *d, const cJSON *obj, const char *key, const cJSON *v, bool *out,
		     struct cs_error *err)
{
	*out = json_is_true(v);
	return absent(v) || json_is_bool(v) ? CS_OK : json_get_bool(d, obj, JPATH_ROOT, key, JSON_OPTIONAL, out, err);
}

struct cc_block *cc_new_block(struct cc_model *m)
{
	if (m->nblocks == m->cap_blocks) {
		size_t cap = m->cap_blocks ? m->cap_blocks * 2 : 64;
		struct cc_block *b = cs_realloc(m->blocks, cap * sizeof *b);
		if (!b)
			return NULL;
		m->blocks = b;
		m->cap_blocks = cap;
	}
	struct cc_block *b = &m->blocks[m->nblocks++];
	memset(b, 0, sizeof *b);
	b->path_msg = -1;
	b->line = m->nlines;
	return b;
}

/* A base64 PDF document block (request_document). */
static bool is_pdf(const cJSON *b)
{
	const cJSON *s = json_member(b, "source");
	const char *type = json_opt_string(s, "type"), *media = json_opt_string(s, "media_type");
	return type && !strcmp(type, "base64") && media && !strcmp(media, "application/pdf") &&
	       json_opt_string(s, "data");
}

/* A block as text: an image, and those of a tool result, by their rule
 * (request_image, request_result_text), never as their base64 text. */
static void block_text(struct strbuf *out, const char *type, const cJSON *b, struct req_nested *x)
{
	if (b && json_is_string(b))
		sb_puts(out,
			json_string_value(b) ? json_string_value(b) : ""); /* a message's content given as a string */
	else if (!strcmp(type, "image")) {
		x->tokens += request_image(out, b, IMAGE_ANTHROPIC, NULL);
		x->images++;
	} else if (!strcmp(type, "document") && is_pdf(b)) {
		x->tokens += request_document(out, b); /* its placeholder and estimate, counted as an image is */
		x->images++;
	} else if (!strcmp(type, "text") && json_opt_string(b, "text"))
		sb_puts(out, json_opt_string(b, "text"));
	else if (!strcmp(type, "thinking") && json_opt_string(b, "thinking"))
		sb_puts(out, json_opt_string(b, "thinking"));
	else if (!strcmp(type, "tool_use")) {
		sb_printf(out, "%s ", json_opt_string(b, "name") ? json_opt_string(b, "name") : "?");
		request_json(out, json_member(b, "input"), 0, 0, NULL, NULL);
	} else if (!strcmp(type, "tool_result"))
		request_result_text(out, json_member(b, "content"), IMAGE_ANTHROPIC, x);
	else
		request_json(out, b, 0, 0, NULL, NULL);
}

/* What a tool call's input names, for its row: a command, a path, a
 * pattern, a query... (the first of these it has); NULL none. */
static const char *input_summary(const cJSON *input)
{
	static const char *const keys[] = { "command", "file_path", "notebook_path", "path", "pattern", "url",
					    "query", "description", "prompt", "skill" };
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		const char *v = json_opt_string(input, keys[i]);
		if (v && v[0])
			return v;
	}
	return NULL;
}

/* The text of the blocks that are one string as they stand (most of a
 * session's bytes), copied once instead of through a buffer; else NULL. */
static const char *plain_text(const char *type, const cJSON *b)
{
	if (b && json_is_string(b))
		return json_string_value(b);
	if (!strcmp(type, "text") || !strcmp(type, "thinking"))
		return json_opt_string(b, type);
	const cJSON *content = !strcmp(type, "tool_result") ? json_member(b, "content") : NULL;
	return json_string_value(content);
}

/* The block types a session is made of, as literals (a copy a block
 * otherwise); NULL for another. */
const char *cc_known_type(const char *type)
{
	static const char *const known[] = { "text", "tool_use", "tool_result", "thinking", "image", "attachment" };
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(type, known[i]))
			return known[i];
	return NULL;
}

int cc_add_block(struct source *src, struct cc_model *m, const cJSON *b, const char *type, struct cs_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct cc_block *blk = cc_new_block(m);
	if (!blk)
		return cs_error_nomem(err);
	blk->type = cc_known_type(type);
	if (!blk->type)
		blk->type = arena_strdup(&src->arena, type);
	const char *plain = plain_text(type, b);
	struct req_nested x = { 0, 0 };
	if (plain) {
		blk->text_len = strlen(plain);
		blk->text = bulk_strndup(&m->text, plain, blk->text_len);
	} else {
		block_text(&sb, type, b, &x);
		blk->text = bulk_strndup(&m->text, sb.len ? sb_str(&sb) : "", sb.len);
		blk->text_len = sb.len;
	}
	blk->hash = request_hash_json(b, REQUEST_HASH_SEED, false);
	bool failed = sb.failed;
	sb_fini(&sb);
	if (failed || !blk->type || !blk->text)
		return cs_error_nomem(err);
	/* counted now, the text fresh in the cache, not when it becomes a piece */
	struct text_measure tm;
	hidden_measure(blk->text, blk->text_len, &tm);
	blk->code_points = tm.code_points;
	blk->lines = tm.lines;
	blk->hidden = tm.hidden;
	blk->tool = !strcmp(type, "tool_use") || !strcmp(type, "tool_result");
	/* an image: its own tokens; a tool result holding some: theirs, and the
	 * estimate of its text (each image's short placeholder in it included) */
	blk->tokens = blk->type == cc_known_type("image") ? x.tokens
			: x.tokens + tokens_estimate(blk->code_points, src->settings.chars_per_token);
	blk->images = x.images;
	blk->nested_images = blk->type == cc_known_type("image") ? 0 : x.tokens;
	const char *id = json_opt_string(b, "id") ? json_opt_string(b, "id") : json_opt_string(b, "tool_use_id");
	const cJSON *input = json_member(b, "input");
	const char *name = json_opt_string(b, "name"), *file = json_opt_string(input, "file_path"),
		   *what = input_summary(input);
	blk->tool_id = id ? arena_strdup(&src->arena, id) : NULL;
	blk->tool_name = name ? arena_strdup(&src->arena, name) : NULL;
	blk->file = file ? arena_strdup(&src->arena, file) : NULL;
	blk->summary = what ? arena_strndup(&src->arena, what, strnlen(what, 200)) : NULL;
	return (id && !blk->tool_id) || (name && !blk->tool_name) || (file && !blk->file) || (what && !blk->summary)
		       ? cs_error_nomem(err) : CS_OK;
}

/* message.content: a string (one text block) or a list of blocks. */
static int take_content(struct source *src, struct cc_model *m, const struct json_doc *d, const cJSON *content,
			const struct jpath *at, struct cc_line *l, struct cs_error *err)
{
	struct jpath cp = JPATH_KEY(at, "content");
	l->first_block = m->nblocks;
	if (!content || json_is_null(content))
		return CS_OK;
	if (json_is_string(content)) {
		int rc = cc_add_block(src, m, content, "text", err);
		l->nblocks = m->nblocks - l->first_block;
		return rc;
	}
	if (!json_is_array(content))
		return json_fail(d, err, CS_ETYPE, at, "content", "expected a string or a list of blocks, got %s",
				 json_type_name(content));
	const cJSON *b;
	long i = 0;
	JSON_EACH(b, content)
	{
		struct jpath bp = JPATH_INDEX(&cp, i++);
		const char *type = json_opt_string(b, "type");
		if (!json_is_object(b) || !type)
			return json_fail(d, err, CS_ETYPE, &bp, NULL, "expected a content block (an object with a "
					 "\"type\"), got %s", json_type_name(b));
		int rc = cc_add_block(src, m, b, type, err);
		if (rc != CS_OK)
			return rc;
	}
	l->nblocks = m->nblocks - l->first_block;
	return CS_OK;
}

/* Where a usage value is read: the line, for its warnings. */
struct usage_at {
	struct source *src;
	struct cc_model *m;
	const struct json_doc *d;
	long line;
};

/* obj[key] as a count of tokens (json_get_count, the one reader of
 * counts). Absent or null: 0, not recorded. Anything else (-5, 1e999,
 * "12", 1.5) is the reader's positioned warning (counted in the session's
 * bad_usage) and reads as 0: never a silent 0. */
static int usage_count(const struct usage_at *ua, const cJSON *obj, const struct jpath *at, const char *key,
		       long *out)
{
	char w[300];
	struct json_count_place pl = { .d = ua->d, .first_line = ua->line };
	*out = 0;
	if (json_count_at(&pl, obj, at, key, out, w, sizeof w) != JSON_COUNT_BAD)
		return CS_OK;
	*out = 0;
	ua->m->bad_usage++;
	return source_warn(ua->src, -1, pl.line, pl.column, "%s; read as 0", w) ? CS_ENOMEM : CS_OK;
}

/* message.usage: the four counts, and usage.cache_creation's split of the
 * writes by lifetime (ctxscope-formats(5) section 7b). */
static int take_usage(const struct usage_at *ua, const struct jpath *mp, struct cc_line *l, const cJSON *u)
{
	l->write_1h = l->write_5m = -1;
	if (!json_is_object(u))
		return CS_OK;
	l->has_usage = true;
	struct jpath up = JPATH_KEY(mp, "usage");
	int rc = usage_count(ua, u, &up, "input_tokens", &l->in);
	if (rc == CS_OK)
		rc = usage_count(ua, u, &up, "cache_creation_input_tokens", &l->cache_write);
	if (rc == CS_OK)
		rc = usage_count(ua, u, &up, "cache_read_input_tokens", &l->cache_read);
	if (rc == CS_OK)
		rc = usage_count(ua, u, &up, "output_tokens", &l->out);
	const cJSON *speed = json_member(u, "speed"), *server = json_member(u, "server_tool_use");
	l->fast = json_is_string(speed) && !strcmp(json_string_value(speed), "fast");
	struct jpath stp = JPATH_KEY(&up, "server_tool_use");
	if (rc == CS_OK && json_is_object(server))
		rc = usage_count(ua, server, &stp, "web_search_requests", &l->web_searches);
	const cJSON *split = json_member(u, "cache_creation");
	if (rc != CS_OK || !json_is_object(split))
		return rc;
	struct jpath sp = JPATH_KEY(&up, "cache_creation");
	rc = usage_count(ua, split, &sp, "ephemeral_1h_input_tokens", &l->write_1h);
	if (rc == CS_OK)
		rc = usage_count(ua, split, &sp, "ephemeral_5m_input_tokens", &l->write_5m);
	return rc;
}

static double line_time(const cJSON *v)
{
	const char *t = json_string_value(v);
	long long ms;
	return t && loom_parse_time(t, &ms) ? (double)ms / 1000.0 : -1;
}

/* The fields every conversation line has. */
static int take_ids(struct source *src, const struct json_doc *d, const cJSON *obj, const cJSON *const *f,
		    struct cc_line *l, struct cs_error *err)
{
	int rc = take_str(src, d, obj, JPATH_ROOT, "uuid", f[F_UUID], &l->uuid, err);
	if (rc == CS_OK)
		rc = take_str(src, d, obj, JPATH_ROOT, "parentUuid", f[F_PARENT], &l->parent, err);
	if (rc == CS_OK)
		rc = take_str(src, d, obj, JPATH_ROOT, "logicalParentUuid", f[F_LOGICAL], &l->logical_parent, err);
	bool side = false, summary = false;
	if (rc == CS_OK)
		rc = take_bool(d, obj, "isSidechain", f[F_SIDECHAIN], &side, err);
	if (rc == CS_OK)
		rc = take_bool(d, obj, "isCompactSummary", f[F_SUMMARY], &summary, err);
	l->sidechain = side;
	l->compact_summary = summary;
	l->time = line_time(f[F_TIME]);
	return rc;
}

/* The attachment types whose text goes to the model (ctxscope-formats(5) section 7b). */
static bool model_attachment(const char *type)
{
	static const char *const sent[] = { "hook_additional_context", "skill_listing", "task_reminder",
					    "deferred_tools_delta" };
	for (size_t i = 0; type && i < sizeof sent / sizeof *sent; i++)
		if (!strcmp(type, sent[i]))
			return true;
	return false;
}

/* An attachment's text as the file holds it: deferred_tools_delta's tool
 * names one a line; another's content: a string as it is, a list's strings
 * one a line (other elements as JSON), anything else as JSON. */
static void attachment_text(struct strbuf *out, const cJSON *att, const char *type)
{
	const cJSON *c =
		!strcmp(type, "deferred_tools_delta") ? json_member(att, "addedNames") : json_member(att, "content");
	if (json_is_string(c)) {
		sb_puts(out, json_string_value(c) ? json_string_value(c) : "");
		return;
	}
	if (!json_is_array(c)) {
		if (c)
			request_json(out, c, 0, 0, NULL, NULL);
		return;
	}
	const cJSON *e;
	JSON_EACH(e, c)
	{
		if (out->len)
			sb_puts(out, "\n");
		if (json_is_string(e))
			sb_puts(out, json_string_value(e) ? json_string_value(e) : "");
		else
			request_json(out, e, 0, 0, NULL, NULL);
	}
}

/* An attachment the model sees: one block of type "attachment" (its
 * attachment.type kept on the line), estimated from its text. */
static int attachment_block(struct source *src, struct cc_model *m, struct cc_line *l, const cJSON *att,
			    struct cs_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	attachment_text(&sb, att, l->attach);
	struct cc_block *blk = cc_new_block(m);
	if (!blk || sb.failed) {
		sb_fini(&sb);
		return cs_error_nomem(err);
	}
	blk->type = cc_known_type("attachment");
	blk->text_len = sb.len;
	blk->text = bulk_strndup(&m->text, sb.len ? sb_str(&sb) : "", sb.len);
	blk->hash = request_hash_json(att, REQUEST_HASH_SEED, false);
	sb_fini(&sb);
	if (!blk->text)
		return cs_error_nomem(err);
	struct text_measure tm;
	hidden_measure(blk->text, blk->text_len, &tm);
	blk->code_points = tm.code_points;
	blk->lines = tm.lines;
	blk->hidden = tm.hidden;
	blk->tokens = tokens_estimate(blk->code_points, src->settings.chars_per_token);
	l->first_block = m->nblocks - 1;
	l->nblocks = 1;
	return CS_OK;
}

static int conversation_line(struct source *src, struct cc_model *m, const struct json_doc *d, const cJSON *obj,
			     const cJSON *const *f, int type, long line, struct cs_error *err)
{
	struct cc_line *l = &m->lines[m->nlines];
	memset(l, 0, sizeof *l);
	l->type = type;
	l->pre_tokens = -1;
	l->write_1h = l->write_5m = -1;
	int rc = take_ids(src, d, obj, f, l, err);
	if (rc != CS_OK)
		return rc;
	if (type == CL_ATTACH || type == CL_LINK) {
		l->first_block = m->nblocks;
		const char *at = json_opt_string(f[F_ATTACH], "type");
		l->attach = at ? arena_strdup(&src->arena, at) : NULL;
		if (at && !l->attach)
			return cs_error_nomem(err);
		m->link_lines += type == CL_LINK;
		m->attachments += type == CL_ATTACH;
		return type == CL_ATTACH ? attachment_block(src, m, l, f[F_ATTACH], err) : CS_OK;
	}
	if (type == CL_BOUNDARY) {
		const cJSON *meta = f[F_META];
		const char *trigger = json_opt_string(meta, "trigger");
		l->trigger = trigger ? arena_strdup(&src->arena, trigger) : NULL;
		struct jpath mp = JPATH_KEY(JPATH_ROOT, "compactMetadata");
		char w[300];
		struct json_count_place pl = { .d = d, .first_line = line };
		if (json_count_at(&pl, meta, &mp, "preTokens", &l->pre_tokens, w, sizeof w) == JSON_COUNT_BAD &&
		    source_warn(src, -1, pl.line, pl.column, "%s; left unknown", w))
			return cs_error_nomem(err);
		return trigger && !l->trigger ? cs_error_nomem(err) : CS_OK;
	}
	if (type == CL_SYSTEM)
		return CS_OK;
	const cJSON *msg = json_is_object(f[F_MESSAGE]) ? f[F_MESSAGE] : NULL, *mf[M_COUNT];
	if (!msg && !absent(f[F_MESSAGE]))
		rc = json_get_object(d, obj, JPATH_ROOT, "message", JSON_OPTIONAL, &msg, err);
	gather(msg, message_names, M_COUNT, mf);
	struct jpath mp = JPATH_KEY(JPATH_ROOT, "message");
	if (rc == CS_OK && msg && type == CL_ASSISTANT) {
		rc = take_str(src, d, msg, &mp, "id", mf[M_ID], &l->msg_id, err);
		if (rc == CS_OK)
			rc = take_str(src, d, msg, &mp, "model", mf[M_MODEL], &l->model, err);
		struct usage_at ua = { src, m, d, line };
		if (rc == CS_OK && take_usage(&ua, &mp, l, mf[M_USAGE]) != CS_OK)
			rc = cs_error_nomem(err);
	}
	l->first_block = m->nblocks;
	return rc == CS_OK && msg ? take_content(src, m, d, mf[M_CONTENT], &mp, l, err) : rc;
}

/* The lines Claude Code writes outside the chain (ctxscope-formats(5) section 7b):
 * no uuid, nothing for the model; known, so counted apart and never
 * warned of as unknown. */
static bool outside_chain(const char *type)
{
	static const char *const outside[] = { "queue-operation", "permission-mode", "last-prompt", "agent-setting",
					       "pr-link",	  "ai-title",	     "custom-title" };
	for (size_t i = 0; type && i < sizeof outside / sizeof *outside; i++)
		if (!strcmp(type, outside[i]))
			return true;
	return false;
}

void cc_count_skipped(struct cc_model *m, const char *type)
{
	if (!strcmp(type, "summary"))
		m->skipped_summary++;
	else if (strstr(type, "snapshot"))
		m->skipped_snapshot++;
	else if (outside_chain(type))
		m->outside_lines++;
	else
		m->skipped_unknown++;
}

/* The kind of a line, or -1 (skipped, counted). Every line with a uuid
 * is a node of the chain (ctxscope-formats(5) section 7b): an attachment whose text goes
 * to the model is prompt content, any other a link. */
static int line_type(struct cc_model *m, const cJSON *const *f)
{
	const char *t = json_string_value(f[F_TYPE]);
	if (!t) {
		m->skipped_unknown++;
		return -1;
	}
	if (!strcmp(t, "user"))
		return CL_USER;
	if (!strcmp(t, "assistant"))
		return CL_ASSISTANT;
	if (!strcmp(t, "system")) {
		const char *sub = json_string_value(f[F_SUBTYPE]);
		return sub && !strcmp(sub, "compact_boundary") ? CL_BOUNDARY : CL_SYSTEM;
	}
	if (json_is_string(f[F_UUID]))
		return !strcmp(t, "attachment") && model_attachment(json_opt_string(f[F_ATTACH], "type")) ? CL_ATTACH
													  : CL_LINK;
	cc_count_skipped(m, t);
	return -1;
}

static int grow_lines(struct cc_model *m, struct cs_error *err)
{
	if (m->nlines < m->cap_lines)
		return CS_OK;
	if (m->nlines >= CC_MAX_LINES)
		return cs_error_set(err, CS_ELIMIT, "more than %d lines in one session", CC_MAX_LINES);
	size_t cap = m->cap_lines ? m->cap_lines * 2 : 64;
	struct cc_line *l = cs_realloc(m->lines, cap * sizeof *l);
	if (!l)
		return cs_error_nomem(err);
	m->lines = l;
	m->cap_lines = cap;
	return CS_OK;
}

/* Puts the line number on an error positioned within one line. */
static int at_line(struct cs_error *err, int rc, long line)
{
	if (rc == CS_OK || rc == CS_ENOMEM)
		return rc;
	long col = err->column;
	cs_error_pos(err, line, col);
	char msg[CS_ERROR_MSG_MAX];
	memcpy(msg, err->message, sizeof msg);
	return cs_error_set(err, (enum cs_status)rc, "line %ld: %s", line, msg);
}

/* A malformed line in the middle of a session (ctxscope-formats(5) section 7b): skipped,
 * with a warning naming its line and column, and counted; with --strict,
 * the error it is. */
static int skip_bad(struct source *src, struct cc_model *m, int rc, long line, struct cs_error *err)
{
	if (rc == CS_ENOMEM || src->settings.strict)
		return at_line(err, rc, line);
	long col = err->column;
	char msg[CS_ERROR_MSG_MAX], path[CS_ERROR_PATH_MAX];
	memcpy(msg, err->message, sizeof msg);
	memcpy(path, err->path, sizeof path);
	cs_error_clear(err);
	if (!m->bad_lines++) {
		m->first_bad_line = line;
		m->first_bad_column = col;
	}
	return source_warn(src, -1, line, col, "line %ld, column %ld: %s%s%s; the line is skipped (--strict makes it "
			   "an error)", line, col, path, path[0] ? ": " : "", msg) ? cs_error_nomem(err) : CS_OK;
}

static int one_line(struct source *src, struct cc_model *m, struct json_reuse *pool, struct cc_scratch *scr,
		    const char *s, size_t n, long line, bool last, struct cs_error *err)
{
	int rc = cc_fast_line(src, m, &pool->pool, scr, s, n, line, err);
	if (rc != CC_FAST_DECLINED)
		return rc;
	struct json_doc d;
	rc = json_reuse_parse(pool, &d, s, n, err);
	if (rc != CS_OK) {
		json_doc_free(&d);
		if (rc == CS_ENOMEM || !last)
			return skip_bad(src, m, rc, line, err);
		long col = err->column;
		cs_error_clear(err);
		m->truncated = true;
		return source_warn(src, -1, line, col, "line %ld: malformed last line ignored (a session still being "
				   "written?)", line) ? CS_ENOMEM : CS_OK;
	}
	const cJSON *f[F_COUNT];
	gather(d.root, line_names, F_COUNT, f);
	int type = json_is_object(d.root) ? line_type(m, f) : -1;
	if (!json_is_object(d.root))
		rc = source_warn(src, -1, line, 1, "line %ld: not an object (%s); skipped", line,
				 json_type_name(d.root)) ? CS_ENOMEM : CS_OK;
	else if (type >= 0 && (rc = grow_lines(m, err)) == CS_OK) {
		size_t mark = m->nblocks;
		rc = conversation_line(src, m, &d, d.root, f, type, line, err);
		if (rc != CS_OK && rc != CS_ENOMEM && !src->settings.strict) {
			m->nblocks = mark; /* what it had added of its blocks */
			json_doc_free(&d);
			return skip_bad(src, m, rc, line, err);
		}
		if (rc == CS_OK) {
			m->lines[m->nlines].line = line;
			m->sidechain_lines += m->lines[m->nlines].sidechain;
			m->nlines++;
		}
	}
	json_doc_free(&d);
	return at_line(err, rc, line);
}

static int read_lines(struct source *src, struct cc_model *m, const char *data, size_t len, struct cs_error *err)
{
	struct jsonl j;
	jsonl_init(&j, data, len);
	if (src->input_owned)
		jsonl_give_back(&j);
	const char *s;
	size_t n;
	bool last;
	struct json_reuse pool = JSON_REUSE_INIT; /* one line's tree at a time */
	struct cc_scratch scr = { 0 };
	int rc = CS_OK;
	while (rc == CS_OK && jsonl_next(&j, &s, &n, &last)) {
		m->total_lines++;
		rc = one_line(src, m, &pool, &scr, s, n, j.line, last, err);
	}
	json_reuse_fini(&pool);
	cc_scratch_fini(&scr);
	return rc;
}

static int count_warnings(struct source *src, const struct cc_model *m)
{
	int rc = CS_OK;
	if (m->skipped_unknown)
		rc = source_warn(src, -1, 0, 0, "%ld line%s of unknown types skipped", m->skipped_unknown,
				 m->skipped_unknown == 1 ? "" : "s");
	if (rc == CS_OK && m->bad_lines)
		rc = source_warn(src, -1, 0, 0, "%ld malformed line%s skipped (each named above)", m->bad_lines,
				 m->bad_lines == 1 ? "" : "s");
	return rc;
}

int cc_load(struct source *src, const char *data, size_t len, struct cs_error *err)
{
	struct cc_model *m = cs_calloc(1, sizeof *m);
	if (!m)
		return cs_error_nomem(err);
	src->model = m;
	if (!(m->req.counted_memo = request_counted_memo_new()))
		return cs_error_nomem(err);
	m->req.transcript_only = true; /* counted from its blocks (counted.h) */
	bulk_init(&m->text, len);
	m->req.want_request = -1;
	m->req.select = cc_select_want;
	src->input_type = "Claude Code session";
	int rc = read_lines(src, m, data, len, err);
	if (rc == CS_OK && count_warnings(src, m) != CS_OK)
		rc = cs_error_nomem(err);
	return rc == CS_OK ? cc_build(src, m, err) : rc;
}

/* ---- detection ------------------------------------------------------------ */

/* Lines Claude Code writes before the conversation (ctxscope-formats(5) section 7b: a real
 * file opens with up to nine of them): detection looks past them. */
static bool leading_line(const cJSON *obj)
{
	const char *t = json_opt_string(obj, "type");
	bool lead = t && (!strcmp(t, "attachment") || !strcmp(t, "progress") || outside_chain(t));
	return lead && (json_member(obj, "sessionId") || json_member(obj, "uuid"));
}

static bool claude_line(const cJSON *obj)
{
	const char *t = json_opt_string(obj, "type");
	if (!t)
		return false;
	if ((!strcmp(t, "user") || !strcmp(t, "assistant") || !strcmp(t, "system")) && json_member(obj, "uuid") &&
	    (json_member(obj, "sessionId") || json_member(obj, "parentUuid")))
		return true;
	return (!strcmp(t, "summary") && json_member(obj, "leafUuid")) ||
	       (!strcmp(t, "file-history-snapshot") && json_member(obj, "snapshot"));
}

#define DETECT_LEAD_MAX 64 /* leading lines looked past */

/* Any of the first lines (up to 8 whole ones, past up to 64 leading hook,
 * queue, permission, attachment and progress lines) shaped like Claude
 * Code's; a file of nothing but such lines is one too. */
int cc_detect(const char *path, const char *data, size_t len, bool *yes)
{
	(void)path;
	*yes = false;
	int seen = 0, lead = 0;
	bool other = false;
	struct jsonl j;
	jsonl_init(&j, data, len);
	const char *s;
	size_t n;
	while (seen < 8 && lead < DETECT_LEAD_MAX && !*yes && jsonl_next(&j, &s, &n, NULL)) {
		struct json_doc d;
		struct cs_error err;
		cs_error_clear(&err);
		int rc = json_doc_parse(&d, s, n, &err);
		if (rc == CS_ENOMEM) {
			json_doc_free(&d);
			return CS_ENOMEM;
		}
		bool leading = rc == CS_OK && leading_line(d.root);
		lead += leading;
		seen += !leading;
		*yes = rc == CS_OK && claude_line(d.root);
		bool object = rc == CS_OK && json_is_object(d.root);
		json_doc_free(&d);
		other |= !leading;
		if (!object)
			break;
	}
	if (!*yes && lead && !other)
		*yes = true; /* only the lines Claude Code opens a session with */
	return CS_OK;
}

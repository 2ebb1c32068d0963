/* memory/load.c: reading a memory snapshot (ctxscope-formats(5) section 4) and the
 * kind's options. Decisions where the spec is silent:
 * - `maxTokens` is required (a whole number >= 0); `query`, `archetype`,
 *   `strategy` and `additionalContext` are optional.
 * - The strategy is the seed's `{ ...preset, ...strategy }`: the archetype's
 *   preset, each field the snapshot's `strategy` gives replacing the
 *   preset's. No `archetype` means the coding preset for whatever `strategy`
 *   leaves out (a warning says so when it leaves anything out).
 * - A weight outside [0, 1] or an allocation outside [0, 100] is an error;
 *   allocations that do not sum to 100 are a warning.
 * - Items need a unique string `id`, a `type` (event, chunk, entity,
 *   relation, pattern) and a string `content` (already formatted, as the
 *   seed's formatters would) or a raw record (below). `scores` is an object of finite numbers; a
 *   score left out counts as 0. `tokens` (a whole number >= 0) is what the
 *   framework budgets; without it the estimate from the content is used.
 *   `timestamp` is an ISO text or milliseconds since 1970 (shown, not used:
 *   the recency score already holds it).
 * - Switching the archetype (an edit) replaces all seven numbers with the
 *   preset's: the snapshot's own overrides belonged to its own archetype.
 * - Instead of `content`, an item may carry the raw record the seed formats
 *   (its item formatters): `event` {type, timestamp, content, outcome}
 *   (file_read, file_write, shell_exec, error; other types as
 *   `[time] type: <content as JSON>`), `entity` {type, name, properties},
 *   `relation` {sourceId, type, targetId}, `chunk` {text}. Patterns have no
 *   formatter in the seed and need `content`. Giving both is an error.
 * Unsupported: an event timestamp given as text is printed as written (the
 * seed reformats a Date with toISOString); property values that are
 * objects or arrays print as JSON, not as JavaScript's String(). */
#include "memory.h"
#include "base/tune.h"
#include "quick.h"

#include "base/alloc.h"
#include "assembly.h"
#include "base/isotime.h"
#include "json/doc.h"
#include "json/scan.h"
#include "source.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct memory_preset presets[] = {
	{ "coding", { 0.3, 0.5, 0.2 }, { 20, 40, 20, 20 } },
	{ "support", { 0.4, 0.4, 0.2 }, { 30, 35, 20, 15 } },
	{ "research", { 0.2, 0.6, 0.2 }, { 10, 50, 20, 20 } },
};
#define NPRESETS (sizeof presets / sizeof presets[0])
#define DEFAULT_PRESET MEMORY_DEFAULT_PRESET

static const char *const type_names[] = {
#define MEM_X_NAME(e, name, title) name,
	MEMORY_TYPES(MEM_X_NAME)
#undef MEM_X_NAME
};
static const char *const section_titles[] = {
#define MEM_X_TITLE(e, name, title) title,
	MEMORY_TYPES(MEM_X_TITLE)
#undef MEM_X_TITLE
	"Additional Context",
};
static const char *const weight_keys[] = {
#define MW_X_KEY(e, name, key) key,
	MEMORY_WEIGHTS(MW_X_KEY)
#undef MW_X_KEY
};
static const char *const allocation_names[] = {
#define MA_X_NAME(e, name, type) name,
	MEMORY_ALLOCATIONS(MA_X_NAME)
#undef MA_X_NAME
};
static const int allocation_types[] = {
#define MA_X_TYPE(e, name, type) type,
	MEMORY_ALLOCATIONS(MA_X_TYPE)
#undef MA_X_TYPE
};

const struct memory_preset *memory_presets(size_t *n)
{
	*n = NPRESETS;
	return presets;
}

int memory_preset_find(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *memory_section_title(int section)
{
	return section >= 0 && section < MEMORY_NSECTIONS ? section_titles[section] : "";
}

const char *memory_allocation_name(int a)
{
	return a >= 0 && a < MA_COUNT ? allocation_names[a] : "";
}

int memory_allocation_of_type(int type)
{
	for (int a = 0; a < MA_COUNT; a++)
		if (allocation_types[a] == type)
			return a;
	return -1;
}

double memory_final_score(const struct memory_item *it, const double weights[MW_COUNT])
{
	return it->scores[MW_RECENCY] * weights[MW_RECENCY] + it->scores[MW_RELEVANCE] * weights[MW_RELEVANCE] +
	       it->scores[MW_SALIENCE] * weights[MW_SALIENCE];
}

void memory_free(void *model)
{
	struct memory *m = model;
	if (!m)
		return;
	cs_free(m->items);
	memory_rank_forget(m);
	memory_stack_free(&m->stack);
	cs_free(m->cache.pass1_order);
	cs_free(m->cache.pass1);
	cs_free(m);
}

static int type_from_name(const char *name)
{
	for (int i = 0; i < MEM_TYPE_COUNT; i++)
		if (strcmp(type_names[i], name) == 0)
			return i;
	return -1;
}

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(long long z, long long *y, unsigned *mo, unsigned *d)
{
	z += 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*mo = mp < 10 ? mp + 3 : mp - 9;
	*y = (long long)yoe + era * 400 + (*mo <= 2);
}

#define MEMORY_MAX_EPOCH_MS 253402300799999.0 /* 9999-12-31T23:59:59.999Z: four-digit years only */

/* Milliseconds since 1970 as JavaScript's toISOString prints them. */
static const char *iso_from_ms(struct arena *arena, double ms)
{
	long long t = (long long)floor(ms);
	long long days = t >= 0 ? t / 86400000 : -((-t + 86399999) / 86400000);
	long long rem = t - days * 86400000;
	long long y;
	unsigned mo, d;
	civil_from_days(days, &y, &mo, &d);
	return arena_printf(arena, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", y, mo, d, rem / 3600000,
			    rem / 60000 % 60, rem / 1000 % 60, rem % 1000);
}

static int read_strategy(struct source *src, struct memory *m, const struct json_doc *d, const cJSON *root,
			 struct cs_error *err)
{
	const char *archetype = NULL;
	int rc = json_get_string(d, root, JPATH_ROOT, "archetype", JSON_OPTIONAL, &archetype, err);
	if (rc)
		return rc;
	int preset = DEFAULT_PRESET;
	if (archetype) {
		preset = memory_preset_find(archetype);
		if (preset < 0)
			return json_fail(d, err, CS_ETYPE, JPATH_ROOT, "archetype",
					 "unknown archetype \"%s\": expected coding, support or research", archetype);
	}
	struct memory_strategy *s = &m->input;
	s->archetype = archetype ? preset : -1;
	memcpy(s->weights, presets[preset].weights, sizeof s->weights);
	memcpy(s->allocation, presets[preset].allocation, sizeof s->allocation);

	const cJSON *strategy = NULL;
	if ((rc = json_get_object(d, root, JPATH_ROOT, "strategy", JSON_OPTIONAL, &strategy, err)))
		return rc;
	int given = 0;
	struct jpath sp = JPATH_KEY(JPATH_ROOT, "strategy");
	for (int w = 0; strategy && w < MW_COUNT; w++) {
		double v = NAN;
		if ((rc = json_get_number(d, strategy, &sp, weight_keys[w], JSON_OPTIONAL, &v, err)))
			return rc;
		if (isnan(v))
			continue;
		if (!(v >= 0 && v <= 1))
			return json_fail(d, err, CS_ETYPE, &sp, weight_keys[w], "a weight must be from 0 to 1, got %g", v);
		s->weights[w] = v;
		given++;
	}
	const cJSON *alloc = NULL;
	if (strategy && (rc = json_get_object(d, strategy, &sp, "budgetAllocation", JSON_OPTIONAL, &alloc, err)))
		return rc;
	struct jpath ap = JPATH_KEY(&sp, "budgetAllocation");
	for (int a = 0; alloc && a < MA_COUNT; a++) {
		double v = NAN;
		if ((rc = json_get_number(d, alloc, &ap, allocation_names[a], JSON_OPTIONAL, &v, err)))
			return rc;
		if (isnan(v))
			continue;
		if (!(v >= 0 && v <= 100))
			return json_fail(d, err, CS_ETYPE, &ap, allocation_names[a],
					 "an allocation is a percentage from 0 to 100, got %g", v);
		s->allocation[a] = v;
		given++;
	}
	if (!archetype && given < MW_COUNT + MA_COUNT &&
	    (rc = source_warn(src, -1, 0, 0, "no archetype: the coding preset supplies what the strategy leaves out")))
		return cs_error_nomem(err);
	double sum = 0;
	for (int a = 0; a < MA_COUNT; a++)
		sum += s->allocation[a];
	if (fabs(sum - 100) > 1e-9) {
		char path[CS_ERROR_PATH_MAX];
		jpath_format(&ap, path, sizeof path);
		struct cs_error at; /* only for its line and column */
		cs_error_clear(&at);
		if (alloc)
			json_fail(d, &at, CS_ESTRUCT, &ap, NULL, "position");
		if (source_warn(src, -1, at.line, at.column,
				"%s: the allocations sum to %g%%, not 100%% (recent %g, semantic %g, entities %g, relations %g)",
				alloc ? path : "budget allocation", sum, s->allocation[MA_RECENT], s->allocation[MA_SEMANTIC],
				s->allocation[MA_ENTITIES], s->allocation[MA_RELATIONS]))
			return cs_error_nomem(err);
	}
	m->cur = m->input;
	return CS_OK;
}

/* A raw object's string field, "" when absent (JavaScript prints
 * `${undefined}` as "undefined"; the seed's formatters guard most with ||). */
static int raw_string(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		      int required, const char **out, struct cs_error *err)
{
	*out = "";
	return json_get_string(d, obj, at, key, required, out, err);
}

/* JSON.stringify(v), compact. */
static void json_text(const cJSON *v, struct strbuf *out)
{
	char *text = json_print_compact(v);
	if (!text) {
		out->failed = true;
		return;
	}
	sb_puts(out, text);
	json_text_free(text);
}

/* A JSON value as JavaScript's template literal prints it, as near as C gets. */
static void js_text(const cJSON *v, struct strbuf *out)
{
	if (json_is_string(v)) {
		sb_puts(out, json_string_value(v));
		return;
	}
	json_text(v, out);
}

/* seed 003 formatEvent */
static int format_event(struct source *src, const struct json_doc *d, const cJSON *ev, const struct jpath *at,
			struct strbuf *out, struct cs_error *err)
{
	const char *type, *outcome = NULL, *time;
	int rc;
	if ((rc = raw_string(d, ev, at, "type", JSON_REQUIRED, &type, err)) ||
	    (rc = json_get_string(d, ev, at, "outcome", JSON_OPTIONAL, &outcome, err)))
		return rc;
	const cJSON *ts = json_member(ev, "timestamp");
	if (json_is_number(ts)) {
		if (!(json_number_value(ts, 0) >= -MEMORY_MAX_EPOCH_MS &&
		      json_number_value(ts, 0) <= MEMORY_MAX_EPOCH_MS))
			return json_fail(d, err, CS_ETYPE, at, "timestamp",
					 "milliseconds since 1970 out of range (years 0000 to 9999)");
		time = iso_from_ms(&src->arena, json_number_value(ts, 0));
		if (!time)
			return cs_error_nomem(err);
	} else if (json_is_string(ts)) {
		time = json_string_value(ts);
	} else {
		return json_fail(d, err, CS_ETYPE, at, "timestamp",
				 "expected milliseconds since 1970 or an ISO time text, got %s", json_type_name(ts));
	}
	const cJSON *content = json_member(ev, "content");
	struct jpath cp = JPATH_KEY(at, "content");
	bool known = !strcmp(type, "file_read") || !strcmp(type, "file_write") || !strcmp(type, "shell_exec") ||
		     !strcmp(type, "error");
	if (known && !json_is_object(content))
		return json_fail(d, err, CS_ETYPE, at, "content", "a %s event needs a content object, got %s", type,
				 json_type_name(content));
	if (!strcmp(type, "file_read") || !strcmp(type, "file_write")) {
		const char *path;
		if ((rc = raw_string(d, content, &cp, "path", JSON_REQUIRED, &path, err)))
			return rc;
		sb_printf(out, "[%s] %s: %s", time, type[5] == 'r' ? "Read" : "Wrote", path);
		if (type[5] == 'w' && outcome && outcome[0])
			sb_printf(out, " [%s]", outcome);
	} else if (!strcmp(type, "shell_exec")) {
		const char *command, *so = "", *se = "";
		if ((rc = raw_string(d, content, &cp, "command", JSON_REQUIRED, &command, err)) ||
		    (rc = json_get_string(d, content, &cp, "stdout", JSON_OPTIONAL, &so, err)) ||
		    (rc = json_get_string(d, content, &cp, "stderr", JSON_OPTIONAL, &se, err)))
			return rc;
		sb_printf(out, "[%s] Executed: `%s`", time, command);
		if (outcome && outcome[0])
			sb_printf(out, " [%s]", outcome);
		sb_printf(out, "\n%s", so[0] ? so : se);
	} else if (!strcmp(type, "error")) {
		const char *message, *stack = "";
		if ((rc = raw_string(d, content, &cp, "message", JSON_REQUIRED, &message, err)) ||
		    (rc = json_get_string(d, content, &cp, "stack", JSON_OPTIONAL, &stack, err)))
			return rc;
		sb_printf(out, "[%s] Error: %s\n%s", time, message, stack);
	} else {
		sb_printf(out, "[%s] %s: ", time, type);
		if (content)
			json_text(content, out); /* JSON.stringify: a string keeps its quotes */
		else
			sb_puts(out, "undefined");
	}
	return CS_OK;
}

/* seed 003 formatEntity */
static int format_entity(const struct json_doc *d, const cJSON *en, const struct jpath *at, struct strbuf *out,
			 struct cs_error *err)
{
	const char *type, *name;
	const cJSON *props = NULL;
	int rc;
	if ((rc = raw_string(d, en, at, "type", JSON_REQUIRED, &type, err)) ||
	    (rc = raw_string(d, en, at, "name", JSON_REQUIRED, &name, err)) ||
	    (rc = json_get_object(d, en, at, "properties", JSON_OPTIONAL, &props, err)))
		return rc;
	sb_printf(out, "**%s**: %s", type, name);
	const cJSON *v;
	bool first = true;
	JSON_EACH(v, props)
	{
		sb_printf(out, "%s%s: ", first ? " (" : ", ", json_key(v));
		js_text(v, out);
		first = false;
	}
	if (!first)
		sb_putc(out, ')');
	return CS_OK;
}

/* seed 003 formatRelation */
static int format_relation(const struct json_doc *d, const cJSON *re, const struct jpath *at, struct strbuf *out,
			   struct cs_error *err)
{
	const char *from, *type, *to;
	int rc;
	if ((rc = raw_string(d, re, at, "sourceId", JSON_REQUIRED, &from, err)) ||
	    (rc = raw_string(d, re, at, "type", JSON_REQUIRED, &type, err)) ||
	    (rc = raw_string(d, re, at, "targetId", JSON_REQUIRED, &to, err)))
		return rc;
	sb_printf(out, "%s --[%s]--> %s", from, type, to);
	return CS_OK;
}

/* The item's text: `content` as given (*given, out left empty), or its raw
 * record formatted into out. */
static int item_text(struct source *src, const struct json_doc *d, const cJSON *item, const struct jpath *at, int t,
		     struct strbuf *out, const char **given, struct cs_error *err)
{
	static const char *const raw_keys[MEM_TYPE_COUNT] = { "event", "chunk", "entity", "relation", NULL };
	const char *content = NULL;
	int rc = json_get_string(d, item, at, "content", JSON_OPTIONAL, &content, err);
	if (rc)
		return rc;
	const char *key = raw_keys[t];
	const cJSON *raw = NULL;
	if (key && (rc = json_get_object(d, item, at, key, JSON_OPTIONAL, &raw, err)))
		return rc;
	if (content && raw)
		return json_fail(d, err, CS_ESTRUCT, at, key, "give content or %s, not both", key);
	if (content) {
		*given = content;
		return CS_OK;
	}
	if (!raw) {
		if (!key)
			return json_fail(d, err, CS_ESTRUCT, at, NULL, "missing \"content\" (a pattern has no raw form)");
		return json_fail(d, err, CS_ESTRUCT, at, NULL, "missing \"content\" (or a raw \"%s\" object)", key);
	}
	struct jpath rp = JPATH_KEY(at, key);
	switch (t) {
	case MEM_EVENT:
		return format_event(src, d, raw, &rp, out, err);
	case MEM_ENTITY:
		return format_entity(d, raw, &rp, out, err);
	case MEM_RELATION:
		return format_relation(d, raw, &rp, out, err);
	default: {
		const char *text;
		if ((rc = raw_string(d, raw, &rp, "text", JSON_REQUIRED, &text, err)))
			return rc;
		sb_puts(out, text);
		return CS_OK;
	}
	}
}

/* What the seed's queries read besides the scores: a relation's weight, an
 * event's or entity's own type (filters), the item's time as milliseconds
 * (the item's timestamp, else its raw event's). */
static int read_own(struct source *src, const struct json_doc *d, const cJSON *item, const struct jpath *at,
		    struct memory_item *it, struct cs_error *err)
{
	static const char *const raw_keys[MEM_TYPE_COUNT] = { "event", NULL, "entity", "relation", NULL };
	static const char *const type_keys[MEM_TYPE_COUNT] = { "eventType", NULL, "entityType", NULL, NULL };
	const cJSON *raw = raw_keys[it->type] ? json_member(item, raw_keys[it->type]) : NULL;
	it->weight = NAN;
	int rc;
	if (it->type == MEM_RELATION) {
		const cJSON *holder = json_is_object(raw) && json_member(raw, "weight") ? raw : item;
		struct jpath rp = JPATH_KEY(at, "relation");
		if ((rc = json_get_number(d, holder, holder == item ? at : &rp, "weight", JSON_OPTIONAL, &it->weight, err)))
			return rc;
		if (json_member(holder, "weight") && !isfinite(it->weight))
			return json_fail(d, err, CS_ETYPE, holder == item ? at : &rp, "weight", "a weight must be a finite number");
	}
	const char *sub = NULL;
	if (type_keys[it->type]) {
		const cJSON *t = json_is_object(raw) ? json_member(raw, "type") : NULL;
		if (json_is_string(t))
			sub = json_string_value(t);
		else if ((rc = json_get_string(d, item, at, type_keys[it->type], JSON_OPTIONAL, &sub, err)))
			return rc;
	}
	if (sub && !(it->subtype = arena_strdup(&src->arena, sub)))
		return cs_error_nomem(err);
	const cJSON *ts = json_member(item, "timestamp");
	if ((!ts || json_is_null(ts)) && it->type == MEM_EVENT && json_is_object(raw))
		ts = json_member(raw, "timestamp");
	if (json_is_number(ts)) {
		/* out of range is refused where the timestamp is read */
		it->has_ms = json_number_value(ts, 0) >= -MEMORY_MAX_EPOCH_MS &&
			     json_number_value(ts, 0) <= MEMORY_MAX_EPOCH_MS;
		it->ms = it->has_ms ? (long long)floor(json_number_value(ts, 0)) : 0;
	} else if (json_is_string(ts)) {
		it->has_ms = iso_time_parse(json_string_value(ts), &it->ms);
		if (!it->has_ms && !(it->given & (1u << MW_RECENCY)) &&
		    source_warn(src, -1, 0, 0, "%s: the timestamp \"%s\" is not an ISO 8601 time: no recency derived",
				json_string_value(json_member(item, "id")), json_string_value(ts)))
			return cs_error_nomem(err);
	}
	return CS_OK;
}

/* The item's piece: its id (id_len bytes), its text (n bytes; content_at
 * its body in the input when it is the content string as given, else
 * NULL), its tokens (-1: not given, the estimate). */
static int item_piece(struct source *src, struct memory *m, size_t i, const char *id, size_t id_len,
		      const char *text, size_t n, const char *content_at, long tokens, struct cs_error *err)
{
	struct memory_item *it = &m->items[i];
	long piece = source_add_piece(src);
	if (piece < 0)
		return cs_error_nomem(err);
	it->piece = piece;
	struct piece *p = &src->pieces[piece];
	p->id = p->label = arena_strndup(&src->arena, id, id_len);
	p->role = type_names[it->type];
	p->layer = it->type;
	p->kind_index = i;
	int rc = !p->id ? CS_ENOMEM
		 : content_at ? source_keep_piece_text(src, piece, content_at, text, n)
			      : source_set_piece_text(src, piece, text, n);
	if (rc != CS_OK)
		return cs_error_nomem(err);
	p = &src->pieces[piece];
	if (tokens >= 0) {
		p->recorded_tokens = tokens;
		p->flags |= PIECE_RECORDED;
		it->tokens_given = true;
	}
	it->tokens = tokens >= 0 ? tokens : p->tokens;
	return CS_OK;
}

/* content_at: the item's content string in the input (json_iter_string_at), or NULL. */
static int read_item(struct source *src, struct memory *m, const struct json_doc *d, const cJSON *item,
		     const struct jpath *at, size_t i, const char *content_at, struct cs_error *err)
{
	if (!json_is_object(item))
		return json_fail(d, err, CS_ETYPE, at, NULL, "expected an item object, got %s", json_type_name(item));
	const char *id = NULL, *type = NULL;
	int rc;
	if ((rc = json_get_string(d, item, at, "id", JSON_REQUIRED, &id, err)) ||
	    (rc = json_get_string(d, item, at, "type", JSON_REQUIRED, &type, err)))
		return rc;
	if (id[0] == '\0')
		return json_fail(d, err, CS_ESTRUCT, at, "id", "an item id cannot be empty");
	int t = type_from_name(type);
	if (t < 0)
		return json_fail(d, err, CS_ETYPE, at, "type",
				 "unknown item type \"%s\": expected event, chunk, entity, relation or pattern", type);

	struct memory_item *it = &m->items[i];
	it->type = t;
	const cJSON *scores = NULL;
	if ((rc = json_get_object(d, item, at, "scores", JSON_OPTIONAL, &scores, err)))
		return rc;
	struct jpath sp = JPATH_KEY(at, "scores");
	static const char *const score_keys[MW_COUNT] = { "recency", "relevance", "salience" };
	for (int w = 0; scores && w < MW_COUNT; w++) {
		if (!json_member(scores, score_keys[w]))
			continue; /* left out: derived (filters.c) or 0 */
		double v = 0;
		if ((rc = json_get_number(d, scores, &sp, score_keys[w], JSON_OPTIONAL, &v, err)))
			return rc;
		if (!isfinite(v))
			return json_fail(d, err, CS_ETYPE, &sp, score_keys[w], "a score must be a finite number");
		it->scores[w] = v;
		it->given |= 1u << w;
	}
	if ((rc = read_own(src, d, item, at, it, err)))
		return rc;
	long tokens = -1;
	if ((rc = json_get_long(d, item, at, "tokens", JSON_OPTIONAL, &tokens, err)))
		return rc;
	if (json_member(item, "tokens") && tokens < 0)
		return json_fail(d, err, CS_ETYPE, at, "tokens", "tokens cannot be negative, got %ld", tokens);

	const cJSON *ts = json_member(item, "timestamp");
	if (json_is_string(ts)) {
		it->timestamp = arena_strdup(&src->arena, json_string_value(ts));
	} else if (json_is_number(ts)) {
		if (!(json_number_value(ts, 0) >= -MEMORY_MAX_EPOCH_MS &&
		      json_number_value(ts, 0) <= MEMORY_MAX_EPOCH_MS))
			return json_fail(d, err, CS_ETYPE, at, "timestamp",
					 "milliseconds since 1970 out of range (years 0000 to 9999)");
		it->timestamp = iso_from_ms(&src->arena, json_number_value(ts, 0));
	} else if (ts && !json_is_null(ts)) {
		return json_fail(d, err, CS_ETYPE, at, "timestamp",
				 "expected an ISO time text or milliseconds since 1970, got %s", json_type_name(ts));
	}
	if (ts && !json_is_null(ts) && !it->timestamp)
		return cs_error_nomem(err);
	const char *task = NULL;
	if ((rc = json_get_string(d, item, at, "taskId", JSON_OPTIONAL, &task, err)))
		return rc;
	if (task && !(it->task_id = arena_strdup(&src->arena, task)))
		return cs_error_nomem(err);

	struct strbuf text = STRBUF_INIT;
	const char *given = NULL;
	if ((rc = item_text(src, d, item, at, t, &text, &given, err))) {
		sb_fini(&text);
		return rc;
	}
	if (text.failed) {
		sb_fini(&text);
		return cs_error_nomem(err);
	}
	rc = given ? item_piece(src, m, i, id, strlen(id), given, strlen(given), content_at, tokens, err)
		   : item_piece(src, m, i, id, strlen(id), sb_str(&text), text.len, NULL, tokens, err);
	sb_fini(&text);
	return rc;
}


/* An item the quick way read (quick.h): what read_item keeps of the same
 * item, text unescaped into scratch when it holds escapes. */
static int read_quick(struct source *src, struct memory *m, const struct memory_quick_item *q, size_t i,
		      struct strbuf *scratch, struct cs_error *err)
{
	struct memory_item *it = &m->items[i];
	it->type = q->type;
	memcpy(it->scores, q->scores, sizeof it->scores);
	it->given = q->given;
	it->weight = NAN;
	const char *text = q->content;
	size_t n = q->content_len;
	if (q->escaped) {
		sb_reset(scratch);
		if (!sb_append(scratch, q->content, n))
			return cs_error_nomem(err);
		n -= q->escaped;
		json_unescape_in_place(scratch->data, n);
		text = scratch->data;
	}
	return item_piece(src, m, i, q->id, q->id_len, text, n, q->content, q->tokens, err);
}

/* The items (fresh false) or the newEvents (incremental.c: event items
 * after the items, in arrival order), one element at a time. */
static int read_items(struct source *src, struct memory *m, struct json_doc *d, const struct json_array *arr,
		      bool fresh, struct cs_error *err)
{
	struct jpath ap = JPATH_KEY(JPATH_ROOT, fresh ? "newEvents" : "items");
	size_t n = m->nitems, i = n;
	struct json_iter it;
	json_iter_init(&it, d, arr, &ap);
	const cJSON *item;
	int rc;
	struct strbuf scratch = STRBUF_INIT;
	for (;;) {
		size_t start = cs_tuned->memory_quick && !fresh ? json_iter_peek(&it) : SIZE_MAX, end;
		struct memory_quick_item q;
		if (start != SIZE_MAX && memory_quick_read(d->data, d->len, start, type_names, &q, &end)) {
			if ((rc = read_quick(src, m, &q, i, &scratch, err)))
				break;
			json_iter_skip(&it, start, end);
			m->items[i].arrival = -1;
			m->nitems = ++i;
			continue;
		}
		if ((rc = json_iter_next(&it, &item, err)) != CS_OK || !item)
			break;
		struct jpath at = JPATH_INDEX(&ap, i - n);
		if ((rc = read_item(src, m, d, item, &at, i, json_iter_string_at(&it, "content"), err)))
			break;
		if (fresh && (rc = memory_new_event(m, d, item, &at, i, err)))
			break;
		if (!fresh)
			m->items[i].arrival = -1;
		m->nitems = ++i;
	}
	sb_fini(&scratch);
	return rc;
}

int memory_load(struct source *src, const char *data, size_t len, struct cs_error *err)
{
	struct memory *m = cs_calloc(1, sizeof *m);
	if (!m)
		return cs_error_nomem(err);
	src->model = m;
	m->caps = true;
	struct json_doc d;
	static const char *const lazy[] = { "items", "newEvents", NULL };
	int rc = json_doc_parse_lazy(&d, data, len, lazy, err);
	if (rc) {
		json_doc_free(&d);
		return rc;
	}
	const cJSON *root = d.root;
	if (!json_is_object(root)) {
		rc = json_fail(&d, err, CS_ETYPE, JPATH_ROOT, NULL, "expected a memory snapshot object, got %s",
			       json_type_name(root));
		goto out;
	}
	const char *query = NULL, *additional = NULL;
	if ((rc = json_get_string(&d, root, JPATH_ROOT, "query", JSON_OPTIONAL, &query, err)) ||
	    (rc = json_get_long(&d, root, JPATH_ROOT, "maxTokens", JSON_REQUIRED, &m->max_tokens, err)) ||
	    (rc = json_get_string(&d, root, JPATH_ROOT, "additionalContext", JSON_OPTIONAL, &additional, err)))
		goto out;
	if (m->max_tokens < 0) {
		rc = json_fail(&d, err, CS_ETYPE, JPATH_ROOT, "maxTokens", "maxTokens cannot be negative, got %ld",
			       m->max_tokens);
		goto out;
	}
	if ((rc = read_strategy(src, m, &d, root, err)) || (rc = memory_read_filters(src, m, &d, root, err)))
		goto out;
	if ((query && !(m->query = arena_strdup(&src->arena, query))) ||
	    (additional && !(m->additional = arena_strdup(&src->arena, additional)))) {
		rc = cs_error_nomem(err);
		goto out;
	}
	m->additional_bytes = additional ? strlen(additional) : 0;

	struct json_array items, fresh; /* newEvents: event items replayed after the build (incremental.c) */
	if ((rc = json_get_lazy(&d, "items", JSON_REQUIRED, &items, err)))
		goto out;
	size_t n = items.count;
	if (n > MEMORY_MAX_ITEMS) {
		rc = json_fail(&d, err, CS_ELIMIT, JPATH_ROOT, "items", "%zu items: more than the %d accepted", n,
			       MEMORY_MAX_ITEMS);
		goto out;
	}
	if ((rc = json_get_lazy(&d, "newEvents", JSON_OPTIONAL, &fresh, err)))
		goto out;
	size_t nfresh = fresh.count;
	if (nfresh > MEMORY_MAX_ITEMS - n) {
		rc = json_fail(&d, err, CS_ELIMIT, JPATH_ROOT, "newEvents", "%zu new events: more than the %zu accepted",
			       nfresh, (size_t)MEMORY_MAX_ITEMS - n);
		goto out;
	}
	m->items = cs_calloc(n + nfresh ? n + nfresh : 1, sizeof *m->items);
	if (!m->items || source_reserve_pieces(src, n + nfresh)) { /* one piece per item */
		rc = cs_error_nomem(err);
		goto out;
	}
	if ((rc = read_items(src, m, &d, &items, false, err)) || (rc = read_items(src, m, &d, &fresh, true, err)))
		goto out;
	struct jpath ip = JPATH_KEY(JPATH_ROOT, "items");
	struct jpath np = JPATH_KEY(JPATH_ROOT, "newEvents");
	/* duplicates, once all are in: the id index is built once (O(items)) */
	for (size_t k = 0; k < src->npieces; k++) {
		long first = source_find_piece(src, src->pieces[k].id);
		if (first != (long)k) {
			struct jpath at = JPATH_INDEX(&ip, k);
			struct jpath atn = JPATH_INDEX(&np, k - n);
			rc = json_fail(&d, err, CS_ESTRUCT, k < n ? &at : &atn, "id",
				       "the item id \"%s\" appears twice (first at %s[%ld])", src->pieces[k].id,
				       (size_t)first < n ? "items" : "newEvents", (size_t)first < n ? first : first - (long)n);
			goto out;
		}
	}
	if (memory_derive(src, m) != CS_OK)
		rc = cs_error_nomem(err);
	if (rc == CS_OK)
		rc = memory_stack_read(src, m, &d, root, err);
out:
	json_doc_free(&d);
	return rc;
}

bool memory_matches_preset(const struct memory_strategy *s)
{
	if (s->archetype < 0)
		return false;
	const struct memory_preset *p = &presets[s->archetype];
	return !memcmp(s->weights, p->weights, sizeof s->weights) &&
	       !memcmp(s->allocation, p->allocation, sizeof s->allocation);
}

/* filters.c (memory): what a snapshot adds to the seed's ContextRequest
 * beyond the items: its `filters` (the seed's ContextFilters) and `now`,
 * and the scores the seed derives when a snapshot leaves them out.
 * - filters {since, eventTypes, entityTypes, exclude}: applied before the
 *   queries, as the seed's request passes them to its memory stores. `since`
 *   (ISO 8601 or milliseconds since 1970) keeps only events strictly after
 *   it; an event without a readable time is kept (nothing to compare).
 *   `eventTypes` / `entityTypes` keep only events / entities of those types:
 *   an item's type is its raw record's `type`, else its `eventType` /
 *   `entityType` field; one with neither is removed (no type to match).
 *   `exclude` removes the items with those ids, whatever their type.
 * - An event without a salience score gets 0.5 (the seed's scoreResults:
 *   "Default for events"). An item with a time and no recency score gets
 *   exp(-ageHours / 24) (the seed's calculateRecencyScore), ageHours measured
 *   from the snapshot's `now`, else from the latest time in the snapshot.
 *   An item's time is its `timestamp`, else its raw event's. */
#include "memory.h"

#include "base/arena.h"
#include "base/isotime.h"
#include "json/doc.h"
#include "source.h"
#include "base/strbuf.h"

#include <math.h>
#include <string.h>

/* A time given as ISO 8601 text or milliseconds since 1970. */
static bool read_time(const cJSON *v, long long *ms)
{
	if (json_is_number(v) && isfinite(json_number_value(v, 0)) && fabs(json_number_value(v, 0)) < 9e15) {
		*ms = (long long)floor(json_number_value(v, 0));
		return true;
	}
	return json_is_string(v) && iso_time_parse(json_string_value(v), ms);
}

/* filters.<key>: a list of strings into *out (arena), *n of them. */
static int read_names(struct source *src, const struct json_doc *d, const cJSON *filters, const struct jpath *at,
		      const char *key, const char ***out, size_t *n, struct cs_error *err)
{
	const cJSON *list = NULL;
	int rc = json_get_array(d, filters, at, key, JSON_OPTIONAL, &list, err);
	if (rc || !list)
		return rc;
	size_t count = json_length(list);
	const char **names = arena_alloc(&src->arena, (count ? count : 1) * sizeof *names);
	if (!names)
		return cs_error_nomem(err);
	struct jpath lp = JPATH_KEY(at, key);
	const cJSON *v;
	size_t i = 0;
	JSON_EACH(v, list)
	{
		if (!json_is_string(v)) {
			struct jpath ep = JPATH_INDEX(&lp, i);
			return json_fail(d, err, CS_ETYPE, &ep, NULL, "expected a string, got %s", json_type_name(v));
		}
		if (!(names[i++] = arena_strdup(&src->arena, json_string_value(v)))) /* the document goes after load */
			return cs_error_nomem(err);
	}
	*out = names;
	*n = i;
	return CS_OK;
}

int memory_read_filters(struct source *src, struct memory *m, const struct json_doc *d, const cJSON *root,
			struct cs_error *err)
{
	const cJSON *now = json_member(root, "now");
	if (now && !json_is_null(now)) {
		if (!read_time(now, &m->now_ms))
			return json_fail(d, err, CS_ETYPE, JPATH_ROOT, "now",
					 "expected an ISO 8601 time or milliseconds since 1970");
		m->has_now = m->now_given = true;
	}
	const cJSON *filters = NULL;
	int rc = json_get_object(d, root, JPATH_ROOT, "filters", JSON_OPTIONAL, &filters, err);
	if (rc || !filters)
		return rc;
	struct jpath fp = JPATH_KEY(JPATH_ROOT, "filters");
	struct memory_filters *f = &m->filters;
	const cJSON *since = json_member(filters, "since");
	if (since && !json_is_null(since)) {
		if (!read_time(since, &f->since_ms))
			return json_fail(d, err, CS_ETYPE, &fp, "since", "expected an ISO 8601 time or milliseconds since 1970");
		f->has_since = true;
		f->since_text = json_is_string(since) ? arena_strdup(&src->arena, json_string_value(since))
						      : arena_printf(&src->arena, "%lld ms", f->since_ms);
		if (!f->since_text)
			return cs_error_nomem(err);
	}
	if ((rc = read_names(src, d, filters, &fp, "eventTypes", &f->event_types, &f->nevent_types, err)) ||
	    (rc = read_names(src, d, filters, &fp, "entityTypes", &f->entity_types, &f->nentity_types, err)) ||
	    (rc = read_names(src, d, filters, &fp, "exclude", &f->exclude, &f->nexclude, err)))
		return rc;
	return CS_OK;
}

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static int filter_of(const struct memory *m, const struct piece *p, const struct memory_item *it)
{
	const struct memory_filters *f = &m->filters;
	if (listed(f->exclude, f->nexclude, p->id))
		return MF_EXCLUDE;
	if (it->type == MEM_EVENT && f->has_since && it->has_ms && it->ms <= f->since_ms)
		return MF_SINCE;
	if (it->type == MEM_EVENT && f->event_types && !listed(f->event_types, f->nevent_types, it->subtype))
		return MF_EVENT_TYPES;
	if (it->type == MEM_ENTITY && f->entity_types && !listed(f->entity_types, f->nentity_types, it->subtype))
		return MF_ENTITY_TYPES;
	return MF_NONE;
}

/* The derived scores, for people (arena; NULL on out of memory). */
static const char *derived_note(struct source *src, const struct memory *m, const struct memory_item *it)
{
	struct strbuf sb = STRBUF_INIT;
	sb_puts(&sb, "derived: ");
	if (it->derived & MEMORY_DERIVED_RECENCY)
		sb_printf(&sb, "recency %.3f = exp(-%.2f h / 24), its age from %s", it->scores[MW_RECENCY], it->age_hours,
			  m->now_given ? "the snapshot's now" : "the latest time in the snapshot");
	if (it->derived & MEMORY_DERIVED_SALIENCE)
		sb_printf(&sb, "%ssalience 0.5 (the seed's default for events)",
			  it->derived & MEMORY_DERIVED_RECENCY ? "; " : "");
	const char *s = sb.failed ? NULL : arena_strdup(&src->arena, sb_str(&sb));
	sb_fini(&sb);
	return s;
}

int memory_derive(struct source *src, struct memory *m)
{
	if (!m->has_now)
		for (size_t i = 0; i < m->nitems; i++)
			if (m->items[i].has_ms && (!m->has_now || m->items[i].ms > m->now_ms)) {
				m->now_ms = m->items[i].ms;
				m->has_now = true;
			}
	for (size_t i = 0; i < m->nitems; i++) {
		struct memory_item *it = &m->items[i];
		if (it->type == MEM_EVENT && !(it->given & (1u << MW_SALIENCE))) {
			it->scores[MW_SALIENCE] = 0.5;
			it->derived |= MEMORY_DERIVED_SALIENCE;
		}
		if (it->has_ms && !(it->given & (1u << MW_RECENCY))) {
			it->age_hours = (double)(m->now_ms - it->ms) / 3600000.0;
			it->scores[MW_RECENCY] = exp(-it->age_hours / 24.0);
			it->derived |= MEMORY_DERIVED_RECENCY;
		}
		if (it->derived && !(it->note = derived_note(src, m, it)))
			return CS_ENOMEM;
		it->filtered = filter_of(m, &src->pieces[it->piece], it);
		m->filters.removed += it->filtered != MF_NONE;
	}
	for (size_t k = 0; k < m->filters.nexclude; k++)
		if (source_find_piece(src, m->filters.exclude[k]) < 0 &&
		    source_warn(src, -1, 0, 0, "filters.exclude: no item has the id \"%s\"", m->filters.exclude[k]))
			return CS_ENOMEM;
	return CS_OK;
}

double memory_own_score(const struct memory_item *it)
{
	switch (it->type) {
	case MEM_EVENT:
		return it->scores[MW_RECENCY];
	case MEM_CHUNK:
		return it->scores[MW_RELEVANCE];
	case MEM_ENTITY:
		return it->scores[MW_SALIENCE];
	case MEM_RELATION:
		return isnan(it->weight) ? it->scores[MW_RELEVANCE] : it->weight;
	default:
		return 0;
	}
}

const char *memory_own_score_name(const struct memory_item *it)
{
	switch (it->type) {
	case MEM_EVENT:
		return "recency";
	case MEM_CHUNK:
		return "relevance";
	case MEM_ENTITY:
		return "salience";
	case MEM_RELATION:
		return isnan(it->weight) ? "relevance (no weight given)" : "weight";
	default:
		return "final score";
	}
}

static void join(struct strbuf *sb, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, "%s%s", i ? ", " : "", names[i]);
}

const char *memory_filter_sentence(const struct source *src, const struct memory_item *it, struct arena *ar)
{
	const struct memory_filters *f = &((const struct memory *)src->model)->filters;
	struct strbuf sb = STRBUF_INIT;
	switch (it->filtered) {
	case MF_EXCLUDE:
		sb_puts(&sb, "filtered out by filters.exclude: its id is listed");
		break;
	case MF_SINCE:
		sb_puts(&sb, "filtered out by filters.since: the event");
		if (it->timestamp)
			sb_printf(&sb, " (%s)", it->timestamp);
		sb_printf(&sb, " is not after %s", f->since_text);
		break;
	case MF_EVENT_TYPES:
	case MF_ENTITY_TYPES: {
		bool ev = it->filtered == MF_EVENT_TYPES;
		sb_printf(&sb, "filtered out by filters.%s: ", ev ? "eventTypes" : "entityTypes");
		if (it->subtype)
			sb_printf(&sb, "its type \"%s\" is not one of ", it->subtype);
		else
			sb_printf(&sb, "it has no %s type (raw record's type or %s) to match ", ev ? "event" : "entity",
				  ev ? "eventType" : "entityType");
		join(&sb, ev ? f->event_types : f->entity_types, ev ? f->nevent_types : f->nentity_types);
		break;
	}
	default:
		break;
	}
	const char *s = sb.failed ? NULL : arena_strdup(ar, sb_str(&sb));
	sb_fini(&sb);
	return s;
}

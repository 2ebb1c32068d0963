/* stack_load.c (memory): reading a snapshot's `taskStack` (ctxscope-formats(5)
 * section 4b): {current, frames [{id, goal, parent, status, result, depth}]}.
 * Decisions where the format is silent:
 * - `frames` is required and not empty; each frame needs a unique non-empty
 *   `id`, a string `goal` and a `status` (active, complete, blocked);
 *   `parent`, `result` and `depth` are optional; `children` is not read
 *   (the parents say the same thing).
 * - The current frame is `taskStack.current`, or the one frame marked
 *   `"current": true`; two frames marked, or a mark disagreeing with
 *   `current`, is an error ("two current frames"), as is none at all.
 * - A parent naming no frame and a cycle of parents are errors, at the
 *   frame's `parent`.
 * - A `depth` that is not the frame's distance from its root, a complete
 *   frame without a `result` (the seed's code puts `undefined`: nothing) and
 *   an item `taskId` naming no frame are warnings. */
#include "memory.h"

#include "base/alloc.h"
#include "json/doc.h"
#include "source.h"
#include "base/strmap.h"

#include <stdio.h>
#include <string.h>

#define MEMORY_MAX_FRAMES 100000

static const char *const status_names[] = { "active", "complete", "blocked", NULL };

void memory_stack_free(struct memory_stack *st)
{
	cs_free(st->frames);
	st->frames = NULL;
	st->nframes = 0;
}

bool memory_stack_on(const struct memory *m)
{
	return m->assembly == MEMORY_ASSEMBLY_STACK && m->stack.frames != NULL;
}

/* One frame: its fields, its id in the map; *marked when it says it is current. */
static int read_frame(struct source *src, struct memory_frame *f, const struct json_doc *d, const cJSON *fr,
		      const struct jpath *at, const char **parent, bool *marked, struct cs_error *err)
{
	if (!json_is_object(fr))
		return json_fail(d, err, CS_ETYPE, at, NULL, "expected a frame object, got %s", json_type_name(fr));
	const char *id = NULL, *goal = NULL, *status = NULL, *result = NULL;
	int rc;
	*parent = NULL;
	*marked = false;
	f->depth = -1;
	if ((rc = json_get_string(d, fr, at, "id", JSON_REQUIRED, &id, err)) ||
	    (rc = json_get_string(d, fr, at, "goal", JSON_REQUIRED, &goal, err)) ||
	    (rc = json_get_string(d, fr, at, "status", JSON_REQUIRED, &status, err)) ||
	    (rc = json_get_string(d, fr, at, "parent", JSON_OPTIONAL, parent, err)) ||
	    (rc = json_get_string(d, fr, at, "result", JSON_OPTIONAL, &result, err)) ||
	    (rc = json_get_long(d, fr, at, "depth", JSON_OPTIONAL, &f->depth, err)) ||
	    (rc = json_get_bool(d, fr, at, "current", JSON_OPTIONAL, marked, err)))
		return rc;
	if (!id[0])
		return json_fail(d, err, CS_ESTRUCT, at, "id", "a frame id cannot be empty");
	f->status = -1;
	for (int s = 0; status_names[s]; s++)
		if (!strcmp(status, status_names[s]))
			f->status = s;
	if (f->status < 0)
		return json_fail(d, err, CS_ETYPE, at, "status", "unknown status \"%s\": expected active, complete or blocked",
				 status);
	if (f->depth < -1 || (f->depth == -1 && json_member(fr, "depth") &&
			      !json_is_null(json_member(fr, "depth"))))
		return json_fail(d, err, CS_ETYPE, at, "depth", "a depth cannot be negative");
	f->id = arena_strdup(&src->arena, id);
	f->goal = arena_strdup(&src->arena, goal);
	f->result = result ? arena_strdup(&src->arena, result) : NULL;
	if (!f->id || !f->goal || (result && !f->result))
		return cs_error_nomem(err);
	return CS_OK;
}

/* Parents by id, then a walk up from every frame: a cycle is an error at
 * the frame where it closes; depths are checked on the way. */
static int link_parents(struct source *src, struct memory_stack *st, const struct json_doc *d, const struct jpath *fp,
			const char **parents, const struct strmap *ids, struct cs_error *err)
{
	for (size_t i = 0; i < st->nframes; i++) {
		st->frames[i].parent = -1;
		if (!parents[i])
			continue;
		size_t p = strmap_get(ids, parents[i], strlen(parents[i]));
		struct jpath at = JPATH_INDEX(fp, i);
		if (p == STRMAP_NONE)
			return json_fail(d, err, CS_ESTRUCT, &at, "parent", "the parent \"%s\" is not a frame of the stack",
					 parents[i]);
		st->frames[i].parent = (long)p;
	}
	long *depth = cs_malloc(st->nframes * sizeof *depth), *seen = cs_malloc(st->nframes * sizeof *seen);
	int rc = depth && seen ? CS_OK : cs_error_nomem(err);
	for (size_t i = 0; rc == CS_OK && i < st->nframes; i++)
		depth[i] = -1, seen[i] = -1;
	for (size_t i = 0; rc == CS_OK && i < st->nframes; i++) {
		long k = (long)i, len = 0;
		while (k >= 0 && depth[k] < 0 && seen[k] != (long)i) { /* up to a known depth, a root or a repeat */
			seen[k] = (long)i;
			k = st->frames[k].parent;
			len++;
		}
		if (k >= 0 && depth[k] < 0) { /* came back to a frame of this walk */
			struct jpath at = JPATH_INDEX(fp, (size_t)k);
			rc = json_fail(d, err, CS_ESTRUCT, &at, "parent",
				       "a cycle of parents: frame \"%s\" is its own ancestor", st->frames[k].id);
			break;
		}
		long base = k >= 0 ? depth[k] + 1 : 0; /* the depth of the last frame walked */
		for (long j = (long)i, at = len - 1; j != k; j = st->frames[j].parent, at--)
			depth[j] = base + at;
	}
	for (size_t i = 0; rc == CS_OK && i < st->nframes; i++) {
		const struct memory_frame *f = &st->frames[i];
		if (f->depth >= 0 && f->depth != depth[i] &&
		    source_warn(src, -1, 0, 0, "taskStack.frames[%zu]: depth %ld, but the frame is %ld below its root", i,
				f->depth, depth[i]))
			rc = cs_error_nomem(err);
		if (rc == CS_OK && f->status == MF_COMPLETE && !f->result &&
		    source_warn(src, -1, 0, 0, "taskStack.frames[%zu]: \"%s\" is complete without a result: the seed's "
				"code puts nothing (undefined) for it", i, f->id))
			rc = cs_error_nomem(err);
	}
	cs_free(depth);
	cs_free(seen);
	return rc;
}

/* The current frame: `current`, or the one frame marked current. */
static int find_current(struct memory_stack *st, const struct json_doc *d, const struct jpath *sp,
			const struct jpath *fp, const char *current, long marked, const struct strmap *ids,
			struct cs_error *err)
{
	if (current) {
		size_t c = strmap_get(ids, current, strlen(current));
		if (c == STRMAP_NONE)
			return json_fail(d, err, CS_ESTRUCT, sp, "current", "the current frame \"%s\" is not a frame of the stack",
					 current);
		if (marked >= 0 && (size_t)marked != c) {
			struct jpath at = JPATH_INDEX(fp, (size_t)marked);
			return json_fail(d, err, CS_ESTRUCT, &at, "current",
					 "two current frames: taskStack.current names \"%s\", this frame (\"%s\") says it is current",
					 current, st->frames[marked].id);
		}
		st->current = (long)c;
		return CS_OK;
	}
	if (marked < 0)
		return json_fail(d, err, CS_ESTRUCT, sp, NULL, "no current frame: give taskStack.current (a frame id)");
	st->current = marked;
	return CS_OK;
}

/* Items whose taskId names no frame: one warning with the first. */
static int check_task_ids(struct source *src, struct memory *m, const struct strmap *ids, struct cs_error *err)
{
	size_t unknown = 0, first = 0;
	for (size_t i = 0; i < m->nitems; i++) {
		const char *t = m->items[i].task_id;
		if (!t)
			continue;
		m->stack.task_ids = true;
		if (strmap_get(ids, t, strlen(t)) == STRMAP_NONE && unknown++ == 0)
			first = i;
	}
	if (unknown && source_warn(src, -1, 0, 0, "%zu item%s name a taskId that is no frame (first: items[%zu], \"%s\")",
				   unknown, unknown == 1 ? "" : "s", first, m->items[first].task_id))
		return cs_error_nomem(err);
	return CS_OK;
}

static int read_frames(struct source *src, struct memory *m, const struct json_doc *d, const cJSON *frames,
		       const struct jpath *sp, const char *current, struct cs_error *err)
{
	struct memory_stack *st = &m->stack;
	struct jpath fp = JPATH_KEY(sp, "frames");
	size_t n = json_length(frames);
	if (n == 0)
		return json_fail(d, err, CS_ESTRUCT, sp, "frames", "a task stack needs at least one frame");
	if (n > MEMORY_MAX_FRAMES)
		return json_fail(d, err, CS_ELIMIT, sp, "frames", "%zu frames: more than the %d accepted", n,
				 MEMORY_MAX_FRAMES);
	st->frames = cs_calloc(n, sizeof *st->frames);
	const char **parents = cs_calloc(n, sizeof *parents);
	struct strmap ids = STRMAP_INIT;
	int rc = st->frames && parents ? CS_OK : cs_error_nomem(err);
	long marked = -1;
	size_t i = 0;
	const cJSON *fr;
	JSON_EACH(fr, frames)
	{
		if (rc != CS_OK)
			break;
		struct jpath at = JPATH_INDEX(&fp, i);
		bool mark = false;
		size_t old;
		if ((rc = read_frame(src, &st->frames[i], d, fr, &at, &parents[i], &mark, err)))
			break;
		st->nframes = ++i;
		if (strmap_put(&ids, st->frames[i - 1].id, strlen(st->frames[i - 1].id), i - 1, &old)) {
			rc = cs_error_nomem(err);
		} else if (old != STRMAP_NONE) {
			rc = json_fail(d, err, CS_ESTRUCT, &at, "id", "the frame id \"%s\" appears twice (first at frames[%zu])",
				       st->frames[i - 1].id, old);
		} else if (mark && marked >= 0) {
			rc = json_fail(d, err, CS_ESTRUCT, &at, "current", "two current frames: frames[%ld] (\"%s\") is current too",
				       marked, st->frames[marked].id);
		} else if (mark) {
			marked = (long)(i - 1);
		}
	}
	if (rc == CS_OK)
		rc = find_current(st, d, sp, &fp, current, marked, &ids, err);
	if (rc == CS_OK)
		rc = link_parents(src, st, d, &fp, parents, &ids, err);
	if (rc == CS_OK)
		rc = check_task_ids(src, m, &ids, err);
	strmap_fini(&ids);
	cs_free(parents);
	return rc;
}

int memory_stack_read(struct source *src, struct memory *m, const struct json_doc *d, const struct cJSON *root,
		      struct cs_error *err)
{
	const cJSON *ts = NULL;
	int rc = json_get_object(d, root, JPATH_ROOT, "taskStack", JSON_OPTIONAL, &ts, err);
	if (rc || !ts) {
		m->assembly = MEMORY_ASSEMBLY_LINEAR;
		return rc;
	}
	struct jpath sp = JPATH_KEY(JPATH_ROOT, "taskStack");
	const char *current = NULL;
	const cJSON *frames = NULL;
	if ((rc = json_get_string(d, ts, &sp, "current", JSON_OPTIONAL, &current, err)) ||
	    (rc = json_get_array(d, ts, &sp, "frames", JSON_REQUIRED, &frames, err)))
		return rc;
	rc = read_frames(src, m, d, frames, &sp, current, err);
	if (rc != CS_OK) {
		memory_stack_free(&m->stack);
		m->assembly = MEMORY_ASSEMBLY_LINEAR;
		return rc;
	}
	m->assembly = MEMORY_ASSEMBLY_STACK;
	return CS_OK;
}

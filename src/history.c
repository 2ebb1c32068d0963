/* history.c: undo and redo over edits (see history.h). */
#include "history.h"

#include "base/alloc.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>

void history_init(struct history *h)
{
	memset(h, 0, sizeof *h);
}

void history_fini(struct history *h)
{
	if (!h)
		return;
	cs_free(h->done);
	cs_free(h->undone);
	memset(h, 0, sizeof *h);
}

/* Room for one more edit on a stack; false on out of memory. */
static bool reserve(struct edit **items, size_t n, size_t *cap)
{
	return CS_GROW(*items, *cap, n + 1) == 0;
}

/* Pushes e on the undo stack (room reserved), forgetting the oldest at the limit. */
static void push_done(struct history *h, const struct edit *e)
{
	if (h->ndone == HISTORY_MAX_EDITS) {
		memmove(h->done, h->done + 1, (h->ndone - 1) * sizeof *h->done);
		h->ndone--;
		h->forgotten++;
	}
	h->done[h->ndone++] = *e;
}

static void say(struct strbuf *said, const char *prefix, const struct source *src, const struct edit *e)
{
	if (!said)
		return;
	sb_puts(said, prefix);
	edit_describe(src, e, false, said);
}

int history_apply(struct history *h, struct source *src, const struct edit *e, struct strbuf *said,
		  struct cs_error *err)
{
	h->retractable = false;
	if (!reserve(&h->done, h->ndone, &h->cap_done))
		return cs_error_nomem(err);
	struct edit copy = *e;
	int rc = edit_apply(src, &copy, err);
	if (rc != CS_OK)
		return rc;
	push_done(h, &copy);
	h->kept_undone = h->nundone; /* cleared, but kept until the next step for history_retract */
	h->nundone = 0;
	h->retractable = true;
	say(said, "", src, &copy);
	return CS_OK;
}

int history_retract(struct history *h, struct source *src, struct cs_error *err)
{
	if (!h->retractable || h->ndone == 0)
		return cs_error_set(err, CS_EUSAGE, "nothing to take back");
	int rc = edit_revert(src, &h->done[h->ndone - 1], err);
	if (rc != CS_OK)
		return rc;
	h->ndone--;
	h->nundone = h->kept_undone;
	h->retractable = false;
	return CS_OK;
}

int history_undo(struct history *h, struct source *src, struct strbuf *said, struct cs_error *err)
{
	h->retractable = false;
	if (h->ndone == 0)
		return cs_error_set(err, CS_EUSAGE, "nothing to undo");
	if (!reserve(&h->undone, h->nundone, &h->cap_undone))
		return cs_error_nomem(err);
	const struct edit *e = &h->done[h->ndone - 1];
	int rc = edit_revert(src, e, err);
	if (rc != CS_OK)
		return rc;
	h->undone[h->nundone++] = *e;
	h->ndone--;
	say(said, "undone: ", src, e);
	return CS_OK;
}

int history_redo(struct history *h, struct source *src, struct strbuf *said, struct cs_error *err)
{
	h->retractable = false;
	if (h->nundone == 0)
		return cs_error_set(err, CS_EUSAGE, "nothing to redo");
	if (!reserve(&h->done, h->ndone, &h->cap_done))
		return cs_error_nomem(err);
	struct edit copy = h->undone[h->nundone - 1];
	int rc = edit_apply(src, &copy, err);
	if (rc != CS_OK)
		return rc;
	h->nundone--;
	push_done(h, &copy);
	say(said, "redone: ", src, &copy);
	return CS_OK;
}

bool history_can_undo(const struct history *h)
{
	return h->ndone > 0;
}

bool history_can_redo(const struct history *h)
{
	return h->nundone > 0;
}

const struct edit *history_edits(const struct history *h, size_t *n)
{
	*n = h->ndone;
	return h->done;
}

void history_drop_redo(struct history *h)
{
	h->nundone = 0;
	h->retractable = false;
}

size_t history_depth(const struct history *h)
{
	return h->ndone + h->forgotten;
}

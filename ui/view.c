/* view.c: the view stack and the scroller (see view.h). */
#include "app_priv.h"

#include "actions.h"
#include "base/alloc.h"

#include <string.h>

/* ---- the stack ---------------------------------------------------------------- */

bool app_view_insert(struct app *app, size_t at, const struct view_ops *v)
{
	if (app->nviews == APP_VIEW_MAX || at > app->nviews)
		return false;
	void *state = NULL;
	if (v->state_size && !(state = cs_calloc(1, v->state_size))) {
		vm_status(&app->vm, true, "out of memory");
		return false;
	}
	memmove(&app->views[at + 1], &app->views[at], (app->nviews - at) * sizeof app->views[0]);
	app->views[at] = (struct app_view){ .ops = v, .state = state };
	app->nviews++;
	if (v->open)
		v->open(app);
	return true;
}

bool app_view_push(struct app *app, const struct view_ops *v)
{
	return app_view_insert(app, app->nviews, v);
}

/* Closes the view at i (close must not change the stack) and takes it off. */
static void remove_at(struct app *app, size_t i)
{
	struct app_view gone = app->views[i];
	if (gone.ops->close)
		gone.ops->close(app);
	memmove(&app->views[i], &app->views[i + 1], (app->nviews - i - 1) * sizeof app->views[0]);
	app->nviews--;
	cs_free(gone.state);
}

bool app_view_remove(struct app *app, const struct view_ops *v)
{
	for (size_t i = app->nviews; i-- > 0;)
		if (app->views[i].ops == v) {
			remove_at(app, i);
			return true;
		}
	return false;
}

void app_view_clear(struct app *app)
{
	while (app->nviews)
		remove_at(app, app->nviews - 1);
}

const struct view_ops *app_view_top(const struct app *app)
{
	return app->nviews ? app->views[app->nviews - 1].ops : NULL;
}

bool app_view_shown(const struct app *app, const struct view_ops *v)
{
	for (size_t i = 0; i < app->nviews; i++)
		if (app->views[i].ops == v)
			return true;
	return false;
}

void *app_view_state(const struct app *app, const struct view_ops *v)
{
	for (size_t i = app->nviews; i-- > 0;)
		if (app->views[i].ops == v)
			return app->views[i].state;
	return NULL;
}

/* ---- the scroller ---------------------------------------------------------------- */

bool scroll_motion(int act, size_t page, struct scroll_motion *out)
{
	long p = page > 0 && page < (size_t)SCROLL_END / 2 ? (long)page : 1;
	*out = (struct scroll_motion){ 0 };
	switch (act) {
	case ACT_DOWN: out->delta = 1; break;
	case ACT_UP: out->delta = -1; break;
	case ACT_PAGE_DOWN: out->delta = p; break;
	case ACT_PAGE_UP: out->delta = -p; break;
	case ACT_FIRST: out->jump = -1; break;
	case ACT_LAST: out->jump = 1; break;
	default: return false;
	}
	return true;
}

size_t scroll_apply(size_t pos, const struct scroll_motion *m, size_t last)
{
	if (m->jump)
		return m->jump < 0 ? 0 : last;
	if (pos > last)
		pos = last;
	size_t d = m->delta < 0 ? (size_t)0 - (size_t)m->delta : (size_t)m->delta;
	if (m->delta < 0)
		return pos > d ? pos - d : 0;
	return last - pos > d ? pos + d : last;
}

bool scroller_key(struct scroller *s, int act, size_t n, bool with_cursor)
{
	struct scroll_motion m;
	if (!scroll_motion(act, s->rows > 1 ? s->rows - 1 : 1, &m))
		return false;
	if (with_cursor)
		s->cursor = scroll_apply(s->cursor, &m, n ? n - 1 : 0);
	else
		s->top = scroll_apply(s->top, &m, SCROLL_END);
	return true;
}

void scroller_fit(struct scroller *s, size_t n, size_t rows, bool with_cursor)
{
	s->rows = rows;
	if (with_cursor) {
		if (n && s->cursor >= n)
			s->cursor = n - 1;
		if (s->cursor < s->top)
			s->top = s->cursor;
		else if (rows && s->cursor >= s->top + rows)
			s->top = s->cursor - rows + 1;
	}
	if (s->top + rows > n)
		s->top = n > rows ? n - rows : 0;
}

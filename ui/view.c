/* view.c: the scroller every list and text view moves with (see view.h).
 * The stack of views is the app's (app.c). */
#include "view.h"

#include "actions.h"

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

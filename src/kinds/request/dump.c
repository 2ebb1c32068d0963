/* dump.c: `dump` of a request: the current request body as JSON, indented,
 * with the blocks you excluded left out (a message left with no block goes
 * too), so what is printed can be sent again. Strings are written with
 * JSON escapes for every character a terminal would act on, so the text is
 * the same bytes with or without --raw; a log's current request is its
 * last. */
#include "request.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>

struct drop {
	const cJSON **nodes; /* left out with everything under them */
	size_t n;
};

static bool skip(const cJSON *c, void *ctx)
{
	const struct drop *d = ctx;
	for (size_t i = 0; i < d->n; i++)
		if (d->nodes[i] == c)
			return true;
	return false;
}

/* The message (or input item) nodes of the body, by index. */
static const cJSON *message_node(const cJSON *body, int index)
{
	const cJSON *list = json_member(body, "messages");
	if (!json_is_array(list))
		list = json_member(body, "input");
	return json_is_array(list) ? json_item(list, index) : NULL;
}

static bool collect(const struct source *src, const struct request_model *m, struct drop *d)
{
	const struct req_request *r = &m->reqs[m->current];
	d->nodes = cs_calloc(2 * src->npieces + 1, sizeof *d->nodes);
	if (!d->nodes)
		return false;
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece *p = &src->pieces[i];
		const struct req_unit *u = &m->units[p->kind_index];
		if (!piece_excluded(p) || !u->node)
			continue;
		d->nodes[d->n++] = u->node;
		if (u->message < 0)
			continue;
		bool all = true; /* every block of its message excluded? */
		for (size_t j = 0; j < src->npieces && all; j++) {
			const struct req_unit *v = &m->units[src->pieces[j].kind_index];
			all = v->message != u->message || v->layer < RL_HISTORY || piece_excluded(&src->pieces[j]);
		}
		const cJSON *msg = all ? message_node(m->body, u->message) : NULL;
		if (msg && !skip(msg, d))
			d->nodes[d->n++] = msg;
	}
	(void)r;
	return true;
}

int request_dump(const struct assembly *a, bool raw, bool ascii, struct strbuf *out)
{
	(void)raw;
	(void)ascii;
	const struct source *src = a->src;
	const struct request_model *m = src->model;
	struct drop d = { 0 };
	if (!collect(src, m, &d))
		return CS_ENOMEM;
	request_json(out, m->body, 2, 0, skip, &d);
	sb_putc(out, '\n');
	cs_free(d.nodes);
	return out->failed ? CS_ENOMEM : CS_OK;
}

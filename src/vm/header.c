/* vm/header.c: the words of the inspector's header, three rows of items,
 * most important first: who (the kind, the model and its limit, the
 * strategy, then the other facts), the verdict and totals that add up
 * (charged by the algorithm, rendered and sent, exact, recorded), and the
 * cache against a baseline said in words (the share read, the cost change,
 * why a prefix is not read). ui/ paints each row's items whole, as many as
 * fit; the header's detail lists every item and every fact. */
#include "vm/viewmodel_priv.h"

#include "kind.h"
#include "tokens/tokenizer.h"

#include <math.h>
#include <string.h>

/* Starts an item of row `row`; its text follows in vm->head.text. */
static bool item_open(struct vm *vm, int row, bool alert)
{
	struct vm_head *h = &vm->head;
	if (h->nitems == VM_HEAD_ITEMS)
		return false;
	h->items[h->nitems] = (struct vm_head_item){ .off = h->text.len, .row = (unsigned char)row, .alert = alert };
	return true;
}

static void item_close(struct vm *vm)
{
	struct vm_head *h = &vm->head;
	struct vm_head_item *it = &h->items[h->nitems];
	it->len = h->text.len - it->off;
	sb_putc(&h->text, '\0'); /* items are read by offset and length */
	h->nitems++;
}

static void fact_item(struct vm *vm, const struct fact *f)
{
	if (!item_open(vm, VM_HEAD_WHO, false))
		return;
	sb_printf(&vm->head.text, "%s %s", f->key, f->value);
	item_close(vm);
}

/* The facts that say what decides the prompt come first. */
static int fact_rank(const char *key)
{
	static const char *const first[] = { "model", "strategy", "archetype", "breakpoints", NULL };
	for (int i = 0; first[i]; i++)
		if (!strcmp(key, first[i]))
			return i;
	return -1;
}

static void who_row(struct vm *vm)
{
	const struct assembly *a = &vm->session.cur;
	struct strbuf *t = &vm->head.text;
	if (item_open(vm, VM_HEAD_WHO, false)) { /* what the file is ("ledger database"), as the report says */
		const struct source *src = vm->session.src;
		sb_puts(t, src->input_type ? src->input_type : src->kind->title);
		item_close(vm);
	}
	if (vm->session.src->settings.budget >= 0 && item_open(vm, VM_HEAD_WHO, false)) {
		sb_puts(t, "budget "); /* the limit (row 2) is then the typed budget plus the reserve */
		sb_thousands(t, a->budget.usable);
		sb_puts(t, ", set by you (b, --budget)");
		item_close(vm);
	}
	for (int rank = 0; rank < 4; rank++)
		for (size_t i = 0; i < a->nfacts; i++)
			if (fact_rank(a->facts[i].key) == rank)
				fact_item(vm, &a->facts[i]);
	for (size_t i = 0; i < a->nfacts; i++) /* the limit is said above; the detail has its source */
		if (fact_rank(a->facts[i].key) < 0 && strcmp(a->facts[i].key, "model limit") != 0)
			fact_item(vm, &a->facts[i]);
	if (item_open(vm, VM_HEAD_WHO, false)) {
		sb_puts(t, vm->session.src->path);
		item_close(vm);
	}
}

/* FITS, OVER by N, MUST-HAVE MISSING, REFUSED: the first word of the totals. */
static void verdict(struct vm *vm)
{
	const struct assembly *a = &vm->session.cur;
	struct strbuf *t = &vm->head.text;
	bool over = (a->flags & ASM_OVER_LIMIT) || vm->exact.over, must = (a->flags & ASM_MUST_MISSING) != 0;
	if (!item_open(vm, VM_HEAD_TOTALS, over || must || (a->flags & ASM_ERROR)))
		return;
	if (a->flags & ASM_ERROR) {
		sb_puts(t, "REFUSED");
	} else if (a->flags & ASM_OVER_LIMIT) {
		sb_puts(t, "OVER by ");
		sb_thousands(t, a->over_by > 0 ? a->over_by : -a->budget.remaining);
	} else if (vm->exact.over) {
		sb_puts(t, "OVER by ");
		sb_puts(t, tokenizer_mark(tokenizer_name(vm->exact.tok), vm->ascii));
		sb_thousands(t, vm->exact.total - a->budget.usable);
		sb_printf(t, " %s, though the estimate fits", tokenizer_kind(tokenizer_name(vm->exact.tok)));
	} else {
		sb_puts(t, must ? "MUST-HAVE MISSING" : "FITS");
	}
	item_close(vm);
	if (must && (over || (a->flags & ASM_ERROR)) && item_open(vm, VM_HEAD_TOTALS, true)) {
		sb_puts(t, "MUST-HAVE MISSING");
		item_close(vm);
	}
}

static int percent(long part, long whole)
{
	return whole <= 0 ? 0 : (int)((part * 100 + whole / 2) / whole);
}

/* "sent 3,061 est.": the rendered prompt by the system's own count. */
static void sent_item(struct vm *vm, long tokens)
{
	sb_puts(&vm->head.text, "sent ");
	sb_thousands(&vm->head.text, tokens);
	sb_puts(&vm->head.text, " est.");
	item_close(vm);
}

static void totals_row(struct vm *vm)
{
	const struct assembly *a = &vm->session.cur;
	struct strbuf *t = &vm->head.text;
	verdict(vm);
	if (vm->exact.over && vm->exact.live.note[0] && item_open(vm, VM_HEAD_TOTALS, true)) {
		sb_puts(t, vm->exact.live.note); /* "the system thinks this fits: ...; exactly 2,385, 1,185 over" */
		item_close(vm);
	}
	const struct budget *b = &a->budget;
	bool whole = b->reserve <= 0 || b->limit - b->reserve == b->usable; /* usable is limit - reserve */
	if (item_open(vm, VM_HEAD_TOTALS, false)) { /* what it is charged against, said whole */
		sb_puts(t, "charged ");
		sb_thousands(t, b->used);
		if (b->reserve > 0 && whole) {
			sb_puts(t, " of ");
			sb_thousands(t, b->limit);
			sb_puts(t, " - ");
			sb_thousands(t, b->reserve);
			sb_puts(t, " reserve = ");
		} else {
			sb_puts(t, b->reserve > 0 ? " of " : " of limit ");
		}
		sb_thousands(t, b->usable);
		sb_printf(t, "%s (%d%%)", whole ? "" : " usable", percent(b->used, b->usable));
		item_close(vm);
	}
	long extra = a->total_tokens - b->used;
	if (extra != 0 && item_open(vm, VM_HEAD_TOTALS, false)) /* sent as charged: said after the rest */
		sent_item(vm, a->total_tokens);
	if (a->recorded.input >= 0 && item_open(vm, VM_HEAD_TOTALS, false)) {
		sb_puts(t, "sent ");
		sb_thousands(t, a->recorded.input);
		sb_printf(t, " recorded (%s)", a->recorded.what ? a->recorded.what : "the system's record");
		item_close(vm);
	}
	if (vm->exact.total >= 0 && item_open(vm, VM_HEAD_TOTALS, vm->exact.over)) {
		const char *enc = tokenizer_name(vm->exact.tok);
		sb_puts(t, "sent ");
		sb_puts(t, tokenizer_mark(enc, vm->ascii));
		sb_thousands(t, vm->exact.total);
		sb_printf(t, " %s (%s)", tokenizer_kind(enc), enc);
		item_close(vm);
	}
	size_t dropped, cut;
	vm_counts(vm, &dropped, &cut);
	if (item_open(vm, VM_HEAD_TOTALS, false)) {
		sb_puts(t, "dropped ");
		sb_thousands(t, (long)dropped);
		sb_puts(t, ", cut ");
		sb_thousands(t, (long)cut);
		item_close(vm);
	}
	if (a->state && (a->flags & (ASM_OVER_LIMIT | ASM_ERROR | ASM_COMPACTS)) &&
	    item_open(vm, VM_HEAD_TOTALS, true)) {
		sb_puts(t, a->state);
		item_close(vm);
	}
	/* what the figures above tell already, for wide terminals and the detail */
	if (extra == 0 && item_open(vm, VM_HEAD_TOTALS, false))
		sent_item(vm, a->total_tokens);
	if (!whole && item_open(vm, VM_HEAD_TOTALS, false)) { /* the input names its usable budget itself */
		sb_puts(t, "limit ");
		sb_thousands(t, b->limit);
		sb_puts(t, " - ");
		sb_thousands(t, b->reserve);
		sb_puts(t, " reserve");
		item_close(vm);
	}
	if (extra != 0 && item_open(vm, VM_HEAD_TOTALS, false)) {
		sb_thousands(t, extra > 0 ? extra : -extra);
		sb_puts(t, extra > 0 ? " of the sent not charged" : " more charged than sent");
		item_close(vm);
	}
}

const char *vm_baseline_words(const struct vm *vm)
{
	switch (vm->session.base_from) {
	case VM_BASE_PINNED: return "the prompt pinned with B";
	case VM_BASE_RELOADED: return "the prompt before the file changed";
	case VM_BASE_LOADED: break;
	}
	return vm->cache.identical ? "this prompt sent before" : "the prompt as loaded";
}

/* Why tokens the baseline shares with this prompt are not read: the rule of
 * the profile that keeps them out. Nothing when every shared token is read. */
void vm_cache_why(const struct vm *vm, struct strbuf *out)
{
	const struct cache_analysis *an = &vm->cache.an;
	const struct cache_profile *p = vm->cache.active;
	long same = an->div.identical ? an->now.total : an->div.tokens;
	if (!p || same <= an->now.read || same <= 0)
		return;
	if (same < p->min_prefix) {
		sb_puts(out, "under the ");
		sb_thousands(out, p->min_prefix);
		sb_puts(out, "-token minimum");
		return;
	}
	if (p->mode == CACHE_PREFIX) {
		sb_printf(out, "%s keeps whole %ld-token units", p->name, p->unit);
		return;
	}
	long last = -1; /* the longest breakpoint prefix inside the unchanged part */
	for (size_t i = 0; i < an->nbps; i++)
		if (an->bps[i].in_limit && an->bps[i].end_tokens <= same && an->bps[i].end_tokens > last)
			last = an->bps[i].end_tokens;
	if (last < 0) {
		sb_puts(out, "no breakpoint inside the unchanged ");
		sb_thousands(out, same);
		sb_puts(out, " tokens");
	} else if (last < p->min_prefix) {
		sb_puts(out, "the last breakpoint before the change is at ");
		sb_thousands(out, last);
		sb_puts(out, ", under the ");
		sb_thousands(out, p->min_prefix);
		sb_puts(out, "-token minimum");
	} /* else the tail after the last breakpoint: never read, by design */
}

/* A sequence's step (a log's request, a session's): the record first, then
 * what it could read from the request it is compared with, as the
 * timeline tells it. */
static void step_items(struct vm *vm, const struct step_cache *s)
{
	struct strbuf *t = &vm->head.text;
	if (item_open(vm, VM_HEAD_CACHE, false)) {
		sb_printf(t, "request %ld of %ld", s->step, s->steps);
		if (s->group)
			sb_printf(t, " · %s", s->group);
		item_close(vm);
	}
	if (s->rec_total >= 0 && item_open(vm, VM_HEAD_CACHE, false)) {
		sb_printf(t, "recorded %d%% read (", percent(s->rec_read, s->rec_total));
		sb_thousands(t, s->rec_read);
		sb_puts(t, " of ");
		sb_thousands(t, s->rec_total);
		sb_puts(t, ")");
		if (s->rec_cost >= 0 && s->rec_cost < 0.0001)
			sb_printf(t, " $%.6f", s->rec_cost);
		else if (s->rec_cost >= 0)
			sb_printf(t, " $%.4f", s->rec_cost);
		item_close(vm);
	}
	if (item_open(vm, VM_HEAD_CACHE, false)) {
		sb_printf(t, "predicted %d%% read", percent(s->read, s->total));
		if (s->rec_total >= 0 && s->off)
			sb_printf(t, " (OFF BY %ld%%)", s->off_percent);
		if (s->compared)
			sb_printf(t, " %s request %ld (line %ld)", s->read > 0 ? "from" : "compared with", s->compared,
				  s->compared_line);
		else if (s->shared_read > 0)
			sb_puts(t, ": the first of its model, read from a cache shared across sessions");
		else
			sb_puts(t, ": the first of its model, nothing to read yet");
		item_close(vm);
	}
	if (s->broke && s->cause && item_open(vm, VM_HEAD_CACHE, true)) {
		sb_puts(t, "cache broke: ");
		for (const char *c = s->cause; *c; c++) /* it quotes the prompt's text: no control character */
			sb_putc(t, (unsigned char)*c < 0x20 || *c == 0x7f ? '?' : *c);
		item_close(vm);
	}
}

static void cache_row(struct vm *vm)
{
	const struct cache_analysis *an = &vm->cache.an;
	const struct cache_cost *now = &an->now;
	struct strbuf *t = &vm->head.text;
	const struct step_cache *step = &vm->session.cur.step;
	const struct recorded *r = &vm->session.cur.recorded;
	if (step->steps > 0) {
		step_items(vm, step);
	} else if (item_open(vm, VM_HEAD_CACHE, false)) {
		if (vm->session.base_from == VM_BASE_LOADED && vm->cache.identical)
			sb_printf(t, "if sent again unchanged: %d%% read", percent(now->read, now->total));
		else
			sb_printf(t, "cache %d%% read vs %s", percent(now->read, now->total), vm_baseline_words(vm));
		item_close(vm);
	}
	if (step->steps <= 0 && r->input >= 0 && r->read >= 0 && item_open(vm, VM_HEAD_CACHE, false)) {
		sb_printf(t, "recorded %d%% read", percent(r->read, r->input));
		item_close(vm);
	}
	if (step->steps <= 0 && item_open(vm, VM_HEAD_CACHE, true)) { /* a step's cause is its own (step_items) */
		size_t before = t->len;
		vm_cache_why(vm, t);
		if (t->len > before)
			item_close(vm); /* else no item: nothing to explain */
	}
	double steady = an->steady.cost;
	if (step->steps <= 0 && item_open(vm, VM_HEAD_CACHE, false)) {
		long change = steady > 0 ? lround((now->cost - steady) * 100.0 / steady) : 0;
		if (change == 0) {
			sb_puts(t, "cost as a warm repeat");
		} else {
			sb_puts(t, change > 0 ? "+" : "");
			sb_thousands(t, change);
			sb_puts(t, "% cost vs a warm repeat");
		}
		item_close(vm);
	}
	if (step->steps <= 0 && item_open(vm, VM_HEAD_CACHE, false)) {
		sb_puts(t, "of ");
		sb_thousands(t, now->total);
		sb_puts(t, " sent: ");
		vm_cache_split(vm, ", ", t);
		sb_puts(t, an->exact ? " exact" : " est.");
		item_close(vm);
	}
	if (step->steps <= 0 && r->input >= 0 && r->read >= 0 && item_open(vm, VM_HEAD_CACHE, false)) {
		sb_puts(t, "of ");
		sb_thousands(t, r->input);
		sb_puts(t, " recorded: ");
		sb_thousands(t, r->read);
		sb_puts(t, " read");
		if (r->written >= 0) {
			sb_puts(t, ", ");
			sb_thousands(t, r->written);
			sb_puts(t, " written");
		}
		item_close(vm);
	}
	if (item_open(vm, VM_HEAD_CACHE, false)) {
		sb_printf(t, "profile %s%s", vm->cache.profile ? vm->cache.profile->name : "-",
			  an->exact ? " (exact tokens)" : "");
		item_close(vm);
	}
}

bool vm_header(struct vm *vm)
{
	sb_reset(&vm->head.text);
	vm->head.nitems = 0;
	who_row(vm);
	totals_row(vm);
	cache_row(vm);
	return !vm->head.text.failed;
}

const char *vm_head_text(const struct vm *vm, size_t i)
{
	return sb_str(&vm->head.text) + vm->head.items[i].off;
}

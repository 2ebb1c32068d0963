/* vm/settings.c: a kind's own settings panel, and the sort, dropped and grouping toggles. */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "kind.h"
#include "setting.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a kind's own settings ------------------------------------------------------ */

size_t vm_panel_entries(const struct vm *vm, struct vm_panel_entry *out, size_t cap)
{
	size_t n = 0;
	for (const struct setting *o = vm->session.src->kind->settings; o && o->name && n < cap; o++) {
		if (o->type != SETTING_WEIGHTS && o->type != SETTING_PERCENT)
			continue;
		struct setting_value v;
		setting_current(vm->session.src, o, &v);
		for (size_t j = 0; j < setting_list_len(o) && n < cap; j++) {
			struct vm_panel_entry *e = &out[n++];
			e->option = o->name;
			snprintf(e->name, sizeof e->name, "%s", o->choices[j]);
			e->value = v.list[j];
			e->percent = o->type == SETTING_PERCENT;
		}
	}
	return n;
}

/* Replaces the edit's own sentence at the head of the status ("weight
 * recency=0.3,relevance=... -> recency=0.35: +12 tokens; ...") with a
 * shorter one, keeping what follows the first ": ". */
static void status_head(struct vm *vm, const char *head)
{
	const char *s = sb_str(&vm->status);
	const char *rest = strstr(s, ": ");
	struct strbuf next = STRBUF_INIT;
	sb_puts(&next, head);
	if (rest)
		sb_puts(&next, rest);
	if (!next.failed) {
		sb_reset(&vm->status);
		sb_append(&vm->status, sb_str(&next), next.len);
	}
	sb_fini(&next);
}

#define VM_CROSSINGS_NAMED 3 /* pieces named per direction; the rest are counted */

/* " (in: ev-098; out: ev-094, ev-087)": the pieces that entered or left the
 * prompt since was_in; nothing when none did. */
static void crossings(const struct vm *vm, const bool *was_in, struct strbuf *out)
{
	bool open = false;
	for (int dir = 1; dir >= 0; dir--) {
		size_t named = 0, more = 0;
		for (size_t i = 0; i < vm->session.src->npieces; i++) {
			bool in = vm->session.cur.results[i].outcome != OUTCOME_DROPPED;
			if (in == was_in[i] || in != (dir == 1))
				continue;
			if (named == VM_CROSSINGS_NAMED) {
				more++;
				continue;
			}
			if (named)
				sb_puts(out, ", ");
			else
				sb_printf(out, "%s%s: ", open ? "; " : " (", dir == 1 ? "in" : "out");
			open = true;
			sb_puts(out, piece_name(&vm->session.src->pieces[i])); /* as the list names it */
			named++;
		}
		if (more)
			sb_printf(out, " and %zu more", more);
	}
	if (open)
		sb_putc(out, ')');
}

/* Applies e and says head ("NAME FROM -> TO") with the pieces that crossed
 * the prompt's edge: "(in: ...; out: ...)", without the full lists. */
static int apply_saying_crossings(struct vm *vm, struct edit *e, const struct strbuf *head, struct cs_error *err)
{
	size_t np = vm->session.src->npieces;
	bool *was_in = cs_calloc(np ? np : 1, sizeof *was_in);
	if (!was_in) {
		vm_status(vm, true, "out of memory (not applied)");
		return cs_error_nomem(err);
	}
	for (size_t i = 0; i < np; i++)
		was_in[i] = vm->session.cur.results[i].outcome != OUTCOME_DROPPED;
	int rc = vm_apply(vm, e, err);
	if (rc == CS_OK) {
		struct strbuf said = STRBUF_INIT;
		sb_append(&said, sb_str(head), head->len);
		crossings(vm, was_in, &said);
		if (!said.failed && !head->failed)
			status_head(vm, sb_str(&said));
		sb_fini(&said);
	}
	cs_free(was_in);
	return rc;
}

int vm_panel_nudge(struct vm *vm, size_t index, int direction, struct cs_error *err)
{
	struct vm_panel_entry entries[VM_PANEL_MAX];
	size_t n = vm_panel_entries(vm, entries, VM_PANEL_MAX);
	if (index >= n) {
		vm_status(vm, true, "a %s has no weights or shares to change", vm->session.src->kind->title);
		return cs_error_set(err, CS_EUSAGE, "no such entry");
	}
	const struct vm_panel_entry *e = &entries[index];
	double step = e->percent ? VM_PANEL_PERCENT_STEP : VM_PANEL_STEP;
	double v = e->value + (direction > 0 ? step : -step);
	v = round(v * 100.0) / 100.0; /* keep 0.05 steps exact */
	if (v == 0)
		v = 0; /* never "-0" */
	struct edit ed = { .type = EDIT_OPTION, .piece = -1 };
	snprintf(ed.option, sizeof ed.option, "%s", e->option);
	snprintf(ed.text, sizeof ed.text, "%s=%.10g", e->name, v);
	struct strbuf head = STRBUF_INIT;
	sb_printf(&head, "%s %s %.10g%s -> %.10g%s", e->option, e->name, e->value, e->percent ? "%" : "", v,
		  e->percent ? "%" : "");
	int rc = apply_saying_crossings(vm, &ed, &head, err);
	sb_fini(&head);
	return rc;
}

/* Sets kind option `name` from `from` (its first from_len bytes) to `to`
 * as an edit, and says "NAME FROM -> TO (in: ...; out: ...)": the pieces
 * that crossed the prompt's edge. */
static int apply_option(struct vm *vm, const char *name, int from_len, const char *from, const char *to,
			struct cs_error *err)
{
	struct edit e = { .type = EDIT_OPTION, .piece = -1 };
	snprintf(e.option, sizeof e.option, "%s", name);
	snprintf(e.text, sizeof e.text, "%s", to);
	struct strbuf head = STRBUF_INIT; /* "archetype coding -> support" */
	sb_printf(&head, "%s %.*s -> %s", name, from_len, from, e.text);
	int rc = apply_saying_crossings(vm, &e, &head, err);
	sb_fini(&head);
	return rc;
}

int vm_cycle_option(struct vm *vm, const char *name, struct cs_error *err)
{
	const struct kind_ops *k = vm->session.src->kind;
	const struct setting *o = name ? setting_of_kind(vm->session.src, name) : kind_choice_setting(k);
	const char *const *choices = o && o->type == SETTING_ENUM ? o->choices : NULL;
	size_t n = 0;
	while (choices && choices[n])
		n++;
	if (n == 0) {
		vm_status(vm, true, "a %s has no %s to switch", k->title, name ? name : "setting with choices");
		return cs_error_set(err, CS_EUSAGE, "no such option");
	}
	name = o->name;
	struct strbuf cur = STRBUF_INIT;
	setting_get(vm->session.src, o, &cur);
	size_t word = strcspn(sb_str(&cur), " ");
	size_t at = n - 1; /* an unlisted value: start from the first */
	for (size_t i = 0; i < n; i++)
		if (strlen(choices[i]) == word && strncmp(choices[i], sb_str(&cur), word) == 0)
			at = i;
	int rc = apply_option(vm, name, (int)word, sb_str(&cur), choices[(at + 1) % n], err);
	sb_fini(&cur);
	return rc;
}

int vm_toggle_option(struct vm *vm, const char *name, struct cs_error *err)
{
	const struct kind_ops *k = vm->session.src->kind;
	const struct setting *o = setting_of_kind(vm->session.src, name);
	if (!o || o->type != SETTING_BOOL) {
		vm_status(vm, true, "a %s has no %s setting", k->title, name);
		return cs_error_set(err, CS_EUSAGE, "no such switch");
	}
	struct setting_value v;
	setting_current(vm->session.src, o, &v);
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
	setting_print(o, &v, &from);
	v.on = !v.on;
	setting_print(o, &v, &to);
	int rc = from.failed || to.failed ? cs_error_nomem(err)
					  : apply_option(vm, o->name, (int)from.len, sb_str(&from), sb_str(&to), err);
	sb_fini(&from);
	sb_fini(&to);
	return rc;
}

static int step(struct vm *vm, long delta, bool in_group, struct cs_error *err)
{
	const struct source *src = vm->session.src;
	const struct kind_sequence *seq = src->kind->sequence;
	struct edit e = { .type = EDIT_OPTION, .piece = -1 };
	int rc = source_sequence_step(src, delta, in_group, e.text, sizeof e.text, err);
	if (rc != CS_OK) {
		vm_status(vm, rc != CS_EUSAGE, "%s", err->message);
		return rc;
	}
	snprintf(e.option, sizeof e.option, "%s", seq->setting);
	rc = vm_apply(vm, &e, err);
	if (rc == CS_OK) {
		/* "request 3 of 9 ([ ] step)", then what the edit did */
		char head[160], g[96];
		size_t cur = seq->current(vm->session.src);
		const char *group = seq->group ? seq->group(vm->session.src, cur, g, sizeof g) : NULL;
		snprintf(head, sizeof head, "%s %zu of %zu%s%s", seq->noun, cur + 1, seq->count(vm->session.src),
			 group ? ", group " : "", group ? group : "");
		status_head(vm, head);
	}
	return rc;
}

int vm_step_sequence(struct vm *vm, long delta, struct cs_error *err)
{
	return step(vm, delta, false, err);
}

int vm_step_in_group(struct vm *vm, long delta, struct cs_error *err)
{
	return step(vm, delta, true, err);
}

const char *vm_sort_name(enum vm_sort sort)
{
	static const char *const names[] = { "order", "tokens", "priority", "score" };
	return sort < VM_SORT_COUNT ? names[sort] : "";
}

/* The sort the kind's key `name` stands for; VM_SORT_COUNT when none. */
static enum vm_sort sort_of(const char *name)
{
	for (int s = 0; s < VM_SORT_COUNT; s++)
		if (strcmp(vm_sort_name((enum vm_sort)s), name) == 0)
			return (enum vm_sort)s;
	return VM_SORT_COUNT;
}

static void sort_by(struct vm *vm, enum vm_sort sort)
{
	vm->sort = sort;
	vm_refresh_rows(vm);
	vm_status(vm, false, "sorted by %s%s", vm_sort_name(vm->sort),
		  vm->sort == VM_SORT_ORDER ? " (assembly order, cache markers shown)" : " (highest first)");
}

void vm_cycle_sort(struct vm *vm)
{
	const char *const *keys = vm->session.src->kind->sort_keys;
	int at = kind_sort_key(vm->session.src->kind, vm_sort_name(vm->sort));
	const char *next = keys && keys[0] ? keys[at >= 0 && keys[at + 1] ? at + 1 : 0] : "order";
	enum vm_sort sort = sort_of(next);
	sort_by(vm, sort == VM_SORT_COUNT ? VM_SORT_ORDER : sort);
}

bool vm_set_sort(struct vm *vm, const char *key)
{
	enum vm_sort sort = sort_of(key);
	if (kind_sort_key(vm->session.src->kind, key) < 0 || sort == VM_SORT_COUNT) {
		struct strbuf keys = STRBUF_INIT;
		kind_sort_keys_text(vm->session.src->kind, " or ", &keys);
		vm_status(vm, true, "a %s's list sorts by %s, not \"%.40s\"", vm->session.src->kind->title, sb_str(&keys), key);
		sb_fini(&keys);
		return false;
	}
	sort_by(vm, sort);
	return true;
}

void vm_toggle_dropped(struct vm *vm)
{
	vm->hide_dropped = !vm->hide_dropped;
	vm_refresh_rows(vm);
	vm_status(vm, false, "%s dropped pieces", vm->hide_dropped ? "hiding" : "showing");
}

void vm_cycle_grouping(struct vm *vm)
{
	if (vm->session.cur.ngroupings < 2) {
		vm_status(vm, false, "a %s has one layer grouping (%s)", vm->session.src->kind->title,
			  vm->session.cur.ngroupings ? vm->session.cur.groupings[0].name : "none");
		return;
	}
	vm->grouping = (vm->grouping + 1) % vm->session.cur.ngroupings;
	vm->prompt.built = false;
	if (vm->layer_filter >= 0) {
		vm->layer_filter = -1;
		vm_refresh_rows(vm);
	}
	vm_status(vm, false, "layers: %s", vm->session.cur.groupings[vm->grouping].name);
}

int vm_set_tokenizer(struct vm *vm, const char *name, struct cs_error *err)
{
	struct source *src = vm->session.src;
	int rc = vm_exact_open(vm, name ? name : "", err);
	if (rc != CS_OK)
		return rc;
	snprintf(src->settings.tokenizer, sizeof src->settings.tokenizer, "%s", vm->exact.setting);
	snprintf(vm->exact.initial, sizeof vm->exact.initial, "%s", vm->exact.setting);
	/* everything again: a profile may price in exact counts */
	const struct vm_row *sel = vm_selected(vm);
	return vm_refresh_all(vm, sel ? sel->piece : -1, sel ? sel->block : -1) ? CS_OK : cs_error_nomem(err);
}

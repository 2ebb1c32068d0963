/* edit.c: user edits of a source (see edit.h). */
#include "edit.h"

#include "kind.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool piece_ok(const struct source *src, long piece, struct cs_error *err)
{
	if (piece < 0 || (size_t)piece >= src->npieces) {
		cs_error_set(err, CS_EUSAGE, "no such piece");
		return false;
	}
	return true;
}

static bool kind_allows(const int *list, int strategy)
{
	for (; list && *list != STRAT_NONE; list++)
		if (*list == strategy)
			return true;
	return false;
}

bool edit_kind_takes(const struct kind_ops *kind, enum edit_type type)
{
	switch (type) {
	case EDIT_PRIORITY: /* a priority orders pieces that can be cut */
	case EDIT_PIECE_STRATEGY: return kind->piece_strategies != NULL;
	case EDIT_STRATEGY: return kind->global_strategies != NULL;
	case EDIT_OPTION: return kind->settings && kind->settings[0].name;
	default: return true;
	}
}

static int set_value(struct source *src, const struct edit *e, double v, const char *text, struct cs_error *err)
{
	struct piece *p = e->piece >= 0 && (size_t)e->piece < src->npieces ? &src->pieces[e->piece] : NULL;
	switch (e->type) {
	case EDIT_EXCLUDE:
		if (!piece_ok(src, e->piece, err))
			return CS_EUSAGE;
		p->user_excluded = (signed char)v;
		return CS_OK;
	case EDIT_PRIORITY:
		if (!piece_ok(src, e->piece, err))
			return CS_EUSAGE;
		if (!edit_kind_takes(src->kind, EDIT_PRIORITY))
			return cs_error_set(err, CS_EUSAGE, "a %s has no priorities", src->kind->title);
		p->priority = v == 0 ? 0.0 : v; /* -0 is 0 (it showed as -0.00) */
		return CS_OK;
	case EDIT_PIECE_STRATEGY:
		if (!piece_ok(src, e->piece, err))
			return CS_EUSAGE;
		if (!kind_allows(src->kind->piece_strategies, (int)v))
			return cs_error_set(err, CS_EUSAGE, "%s is not a strategy a %s's pieces can have",
					    strategy_name((int)v), src->kind->title);
		p->strategy = (int)v;
		return CS_OK;
	case EDIT_STRATEGY:
		if ((int)v != STRAT_NONE && !kind_allows(src->kind->global_strategies, (int)v))
			return cs_error_set(err, CS_EUSAGE, "a %s has no whole-assembly strategy %s",
					    src->kind->title, strategy_name((int)v));
		src->settings.strategy = (int)v;
		return CS_OK;
	case EDIT_BUDGET:
		src->settings.budget = (long)v;
		return CS_OK;
	case EDIT_CHARS_PER_TOKEN: {
		const struct setting *s = &setting_common[SETTING_CHARS_PER_TOKEN];
		if (!(v >= s->min && v <= s->max))
			return cs_error_set(err, CS_EUSAGE, "%s must be from %g to %g", s->name, s->min, s->max);
		source_set_chars_per_token(src, v);
		return CS_OK;
	}
	case EDIT_OPTION: {
		const struct setting *s = setting_find(src, e->option);
		if (!s)
			return cs_error_set(err, CS_EUSAGE, "a %s has no setting \"%s\"", src->kind->title, e->option);
		return setting_set(src, s, text, err);
	}
	}
	return cs_error_set(err, CS_EUSAGE, "unknown edit");
}

/* set_value, noted in the source's edit log (even when refused: a kind
 * that reads the log then builds from nothing). */
static int set_logged(struct source *src, const struct edit *e, double v, const char *text, struct cs_error *err)
{
	int rc = set_value(src, e, v, text, err);
	src->edit_log[src->edits % SOURCE_EDIT_LOG] = rc == CS_OK && e->type == EDIT_EXCLUDE ? e->piece : -1;
	src->edits++;
	return rc;
}

static double current(const struct source *src, const struct edit *e)
{
	const struct piece *p = e->piece >= 0 && (size_t)e->piece < src->npieces ? &src->pieces[e->piece] : NULL;
	switch (e->type) {
	case EDIT_EXCLUDE: return p ? p->user_excluded : 0;
	case EDIT_PRIORITY: return p ? p->priority : 0;
	case EDIT_PIECE_STRATEGY: return p ? p->strategy : STRAT_NONE;
	case EDIT_STRATEGY: return src->settings.strategy;
	case EDIT_BUDGET: return (double)src->settings.budget;
	case EDIT_CHARS_PER_TOKEN: return src->settings.chars_per_token;
	case EDIT_OPTION: return 0;
	}
	return 0;
}

int edit_apply(struct source *src, struct edit *e, struct cs_error *err)
{
	e->before = current(src, e);
	if (e->type == EDIT_OPTION) {
		const struct setting *s = setting_find(src, e->option);
		if (!s)
			return cs_error_set(err, CS_EUSAGE, "a %s has no setting \"%s\"", src->kind->title, e->option);
		struct strbuf old = STRBUF_INIT;
		setting_get(src, s, &old);
		if (old.failed) {
			sb_fini(&old);
			return cs_error_nomem(err);
		}
		snprintf(e->before_text, sizeof e->before_text, "%s", sb_str(&old));
		sb_fini(&old);
	}
	int rc = set_logged(src, e, e->value, e->text, err);
	return rc == CS_OK && src->kind->edited ? src->kind->edited(src, err) : rc;
}

int edit_revert(struct source *src, const struct edit *e, struct cs_error *err)
{
	int rc = set_logged(src, e, e->before, e->before_text, err);
	return rc == CS_OK && src->kind->edited ? src->kind->edited(src, err) : rc;
}

static void budget_text(struct strbuf *out, double v)
{
	if (v < 0)
		sb_puts(out, "the input's");
	else
		sb_thousands(out, (long long)v);
}

void edit_describe(const struct source *src, const struct edit *e, bool reverted, struct strbuf *out)
{
	const char *id = e->piece >= 0 && (size_t)e->piece < src->npieces ? piece_name(&src->pieces[e->piece]) : "?";
	double from = reverted ? e->value : e->before, to = reverted ? e->before : e->value;
	switch (e->type) {
	case EDIT_EXCLUDE:
		sb_printf(out, "%s %s", to > 0 ? "excluded" : to == 0 ? "included" : "reset exclusion of", id);
		break;
	case EDIT_PRIORITY:
		sb_printf(out, "priority of %s %.2f -> %.2f", id, from, to);
		if (to < 0 || to > 1) /* as loading warns of such a priority in the file */
			sb_puts(out, " (WARNING: outside 0..1; kept as given, for ordering)");
		break;
	case EDIT_PIECE_STRATEGY:
		sb_printf(out, "strategy of %s %s -> %s", id, strategy_name((int)from), strategy_name((int)to));
		break;
	case EDIT_STRATEGY:
		sb_printf(out, "strategy %s -> %s", (int)from == STRAT_NONE ? "(input's)" : strategy_name((int)from),
			  (int)to == STRAT_NONE ? "(input's)" : strategy_name((int)to));
		break;
	case EDIT_BUDGET:
		sb_puts(out, "budget ");
		budget_text(out, from);
		sb_puts(out, " -> ");
		budget_text(out, to);
		break;
	case EDIT_CHARS_PER_TOKEN:
		sb_printf(out, "%s %g -> %g", setting_common[SETTING_CHARS_PER_TOKEN].name, from, to);
		break;
	case EDIT_OPTION:
		sb_printf(out, "%s %s -> %s", e->option, reverted ? e->text : e->before_text,
			  reverted ? e->before_text : e->text);
		break;
	}
}

/* Splits "ID=VALUE" at the last '=' (ids may hold '='). */
static const char *split_last_eq(const char *value, char *id, size_t cap)
{
	const char *eq = strrchr(value, '=');
	if (!eq || (size_t)(eq - value) >= cap)
		return NULL;
	memcpy(id, value, (size_t)(eq - value));
	id[eq - value] = '\0';
	return eq + 1;
}

/* Levenshtein distance of a and b, or limit + 1 once past limit. */
static size_t distance(const char *a, const char *b, size_t limit)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > 64 || nb > 64 || (na > nb ? na - nb : nb - na) > limit)
		return limit + 1;
	size_t row[65];
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0], best = row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > limit)
			return limit + 1;
	}
	return row[nb];
}

/* A piece by its id, else by the label the list and reports show (a loom
 * node's localId) when exactly one piece has it; -1 when neither. */
static long find_piece_or_label(struct source *src, const char *text)
{
	long p = source_find_piece(src, text);
	for (size_t i = 0; p < 0 && i < src->npieces; i++) {
		const char *label = src->pieces[i].label;
		if (!label || strcmp(label, text) != 0)
			continue;
		for (size_t k = i + 1; k < src->npieces; k++)
			if (src->pieces[k].label && strcmp(src->pieces[k].label, text) == 0)
				return -1; /* two pieces show this label: say the id */
		return (long)i;
	}
	return p;
}

static int find(struct source *src, const char *id, long *out, struct cs_error *err)
{
	*out = find_piece_or_label(src, id);
	if (*out >= 0)
		return CS_OK;
	/* the nearest id or label, within 3 edits */
	const char *near = NULL;
	size_t best = 4;
	for (size_t i = 0; i < src->npieces && best > 1; i++) {
		const char *names[2] = { src->pieces[i].id, src->pieces[i].label };
		for (int k = 0; k < 2; k++) {
			size_t d = names[k] ? distance(id, names[k], best - 1) : best;
			if (d < best) {
				best = d;
				near = names[k];
			}
		}
	}
	if (near)
		return cs_error_set(err, CS_EUSAGE, "no %s \"%s\" in %s (did you mean %s?)", src->kind->id_key, id,
				    src->path, near);
	return cs_error_set(err, CS_EUSAGE, "no %s \"%s\" in %s", src->kind->id_key, id, src->path);
}

/* exclude ID, include ID */
static int piece_exclusion(struct source *src, bool exclude, const char *value, struct edit *out, struct cs_error *err)
{
	out->type = EDIT_EXCLUDE;
	out->value = exclude ? 1 : 0;
	return find(src, value, &out->piece, err);
}

/* priority ID=P */
static int piece_priority(struct source *src, const char *value, struct edit *out, struct cs_error *err)
{
	char id[1024];
	const char *num = split_last_eq(value, id, sizeof id);
	char *end;
	if (!num)
		return cs_error_set(err, CS_EUSAGE, "--priority takes %s=P, e.g. src/main.c=0.9", src->kind->id_key);
	double v = strtod(num, &end);
	if (*end || end == num || !isfinite(v))
		return cs_error_set(err, CS_EUSAGE, "priority \"%s\" is not a number", num);
	out->type = EDIT_PRIORITY;
	out->value = v;
	return find(src, id, &out->piece, err);
}

/* strategy S (the whole assembly's) or ID=S (one piece's) */
static int strategy(struct source *src, const char *value, struct edit *out, struct cs_error *err)
{
	char id[1024];
	const char *sname = split_last_eq(value, id, sizeof id);
	if (sname) {
		out->type = EDIT_PIECE_STRATEGY;
		out->value = strategy_from_name(sname);
		if ((int)out->value == STRAT_NONE)
			return cs_error_set(err, CS_EUSAGE, "unknown strategy \"%s\"", sname);
		return find(src, id, &out->piece, err);
	}
	out->type = EDIT_STRATEGY;
	out->value = strategy_from_name(value);
	if (!src->kind->global_strategies)
		return cs_error_set(err, CS_EUSAGE, "a %s's strategies are per %s: --strategy %s=never|start|middle|end",
				    src->kind->title, src->kind->id_key, src->kind->id_key);
	if ((int)out->value == STRAT_NONE || !kind_allows(src->kind->global_strategies, (int)out->value)) {
		struct strbuf names = STRBUF_INIT;
		for (const int *s = src->kind->global_strategies; *s != STRAT_NONE; s++)
			sb_printf(&names, "%s%s", names.len ? ", " : "", strategy_name(*s));
		cs_error_set(err, CS_EUSAGE, "unknown strategy \"%s\": expected %s", value, sb_str(&names));
		sb_fini(&names);
		return CS_EUSAGE;
	}
	return CS_OK;
}

int edit_from_setting(struct source *src, const char *name, const char *value, struct edit *out,
		      struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	out->piece = -1;
	const struct setting *s = setting_find(src, name);
	struct setting_value v;
	int rc, common = -1;
	for (int i = 0; i < SETTING_COMMON_COUNT; i++)
		if (s == &setting_common[i])
			common = i;
	switch (common) {
	case SETTING_EXCLUDE: return piece_exclusion(src, true, value, out, err);
	case SETTING_INCLUDE: return piece_exclusion(src, false, value, out, err);
	case SETTING_PRIORITY: return piece_priority(src, value, out, err);
	case SETTING_STRATEGY: return strategy(src, value, out, err);
	case SETTING_BUDGET:
	case SETTING_CHARS_PER_TOKEN:
		out->type = common == SETTING_BUDGET ? EDIT_BUDGET : EDIT_CHARS_PER_TOKEN;
		rc = setting_parse(s, value, NULL, &v, err);
		out->value = v.number;
		return rc;
	default:
		break;
	}
	if (!s)
		return cs_error_set(err, CS_EUSAGE, "a %s has no setting \"%s\"", src->kind->title, name);
	out->type = EDIT_OPTION;
	snprintf(out->option, sizeof out->option, "%s", s->name);
	snprintf(out->text, sizeof out->text, "%s", value);
	return CS_OK;
}

void edit_to_setting(const struct source *src, const struct edit *e, struct strbuf *name, struct strbuf *value)
{
	const char *id = e->piece >= 0 && (size_t)e->piece < src->npieces ? src->pieces[e->piece].id : "";
	switch (e->type) {
	case EDIT_EXCLUDE:
		sb_puts(name, e->value > 0 ? "exclude" : "include");
		sb_puts(value, id);
		break;
	case EDIT_PRIORITY:
		sb_puts(name, "priority");
		sb_printf(value, "%s=%.4g", id, e->value);
		break;
	case EDIT_PIECE_STRATEGY:
		sb_puts(name, "strategy");
		sb_printf(value, "%s=%s", id, strategy_name((int)e->value));
		break;
	case EDIT_STRATEGY:
		sb_puts(name, "strategy");
		sb_puts(value, strategy_name((int)e->value));
		break;
	case EDIT_BUDGET:
	case EDIT_CHARS_PER_TOKEN: {
		const struct setting *s = &setting_common[e->type == EDIT_BUDGET ? SETTING_BUDGET : SETTING_CHARS_PER_TOKEN];
		struct setting_value v = { .number = e->value };
		sb_puts(name, s->name);
		setting_print(s, &v, value);
		break;
	}
	case EDIT_OPTION:
		sb_puts(name, e->option);
		sb_puts(value, e->text);
		break;
	}
}

/* source.c: the loaded source and its pieces (see source.h). */
#include "source.h"

#include "base/alloc.h"
#include "text/hidden.h"
#include "json/scan.h"
#include "kind.h"
#include "tokens/estimate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const strategy_names[] = {
#define STRAT_X_NAME(e, name, sentence) name,
	STRATEGIES(STRAT_X_NAME)
#undef STRAT_X_NAME
};

static const char *const strategy_sentences[] = {
#define STRAT_X_SENTENCE(e, name, sentence) sentence,
	STRATEGIES(STRAT_X_SENTENCE)
#undef STRAT_X_SENTENCE
};

const char *strategy_name(int strategy)
{
	return strategy >= 0 && strategy < STRAT_COUNT ? strategy_names[strategy] : "";
}

const char *strategy_sentence(int strategy)
{
	return strategy >= 0 && strategy < STRAT_COUNT ? strategy_sentences[strategy] : "";
}

int strategy_from_name(const char *name)
{
	for (int i = 0; i < STRAT_COUNT; i++)
		if (strcmp(strategy_names[i], name) == 0)
			return i;
	return STRAT_NONE;
}

bool piece_excluded(const struct piece *p)
{
	return p->user_excluded >= 0 ? p->user_excluded == 1 : p->input_excluded;
}

/* ---- id index: open addressing, FNV-1a ----------------------------------- */

struct piece_index {
	size_t cap;    /* power of two */
	long *slots;   /* piece index, -1 empty */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void index_free(struct piece_index *ix)
{
	if (ix) {
		cs_free(ix->slots);
		cs_free(ix);
	}
}

static struct piece_index *index_build(const struct source *src)
{
	struct piece_index *ix = cs_malloc(sizeof *ix);
	if (!ix)
		return NULL;
	ix->cap = 16;
	while (ix->cap < src->npieces * 2)
		ix->cap *= 2;
	ix->slots = cs_reallocarray(NULL, ix->cap, sizeof *ix->slots);
	if (!ix->slots) {
		cs_free(ix);
		return NULL;
	}
	for (size_t i = 0; i < ix->cap; i++)
		ix->slots[i] = -1;
	for (size_t p = 0; p < src->npieces; p++) {
		size_t h = (size_t)hash_str(src->pieces[p].id) & (ix->cap - 1);
		while (ix->slots[h] >= 0) {
			if (strcmp(src->pieces[ix->slots[h]].id, src->pieces[p].id) == 0)
				break; /* keep the first piece with this id */
			h = (h + 1) & (ix->cap - 1);
		}
		if (ix->slots[h] < 0)
			ix->slots[h] = (long)p;
	}
	return ix;
}

long source_find_piece(struct source *src, const char *id)
{
	if (!src->index)
		src->index = index_build(src);
	if (!src->index) { /* out of memory: a linear search still answers */
		for (size_t p = 0; p < src->npieces; p++)
			if (strcmp(src->pieces[p].id, id) == 0)
				return (long)p;
		return -1;
	}
	struct piece_index *ix = src->index;
	size_t h = (size_t)hash_str(id) & (ix->cap - 1);
	while (ix->slots[h] >= 0) {
		if (strcmp(src->pieces[ix->slots[h]].id, id) == 0)
			return ix->slots[h];
		h = (h + 1) & (ix->cap - 1);
	}
	return -1;
}

/* ---- lifecycle ------------------------------------------------------------ */

struct source *source_new(const struct kind_ops *kind, const char *path)
{
	struct source *src = cs_calloc(1, sizeof *src);
	if (!src)
		return NULL;
	arena_init(&src->arena);
	src->kind = kind;
	src->settings.budget = -1;
	src->settings.strategy = STRAT_NONE;
	src->settings.chars_per_token = TOKENS_DEFAULT_CHARS_PER_TOKEN;
	src->path = arena_strdup(&src->arena, path ? path : "");
	if (!src->path) {
		source_free(src);
		return NULL;
	}
	return src;
}

void source_free(struct source *src)
{
	if (!src)
		return;
	if (src->model && src->kind && src->kind->free_model)
		src->kind->free_model(src->model);
	index_free(src->index);
	cs_free(src->pieces);
	cs_free(src->warnings);
	arena_fini(&src->arena);
	cs_free(src->input_kept);
	cs_free(src);
}

int source_reserve_pieces(struct source *src, size_t n)
{
	if (n <= src->cap_pieces)
		return CS_OK;
	struct piece *p = cs_reallocarray(src->pieces, n, sizeof *p);
	if (!p)
		return CS_ENOMEM;
	src->pieces = p;
	src->cap_pieces = n;
	return CS_OK;
}

long source_add_piece(struct source *src)
{
	if (CS_GROW(src->pieces, src->cap_pieces, src->npieces + 1) != 0)
		return -1;
	index_free(src->index);
	src->index = NULL;
	struct piece *p = &src->pieces[src->npieces];
	*p = (struct piece){
		.id = "", .label = "", .role = "", .text = "",
		.recorded_tokens = -1, .strategy = STRAT_NONE, .input_strategy = STRAT_NONE,
		.user_excluded = -1, .kind_index = src->npieces,
	};
	return (long)src->npieces++;
}

int source_adopt_piece_text(struct source *src, long piece, const char *text, size_t n)
{
	struct text_measure m;
	hidden_measure(text, n, &m);
	return source_adopt_piece_counted(src, piece, text, n, m.code_points, m.lines, m.hidden);
}

int source_adopt_piece_counted(struct source *src, long piece, const char *text, size_t n, size_t code_points,
			       size_t lines, bool hidden)
{
	struct piece *p = &src->pieces[piece];
	p->text = text;
	p->text_bytes = n;
	p->code_points = code_points;
	p->lines = lines;
	p->tokens = tokens_estimate(p->code_points, src->settings.chars_per_token);
	p->flags = hidden ? p->flags | PIECE_HIDDEN : p->flags & ~(unsigned)PIECE_HIDDEN;
	return CS_OK;
}

int source_set_piece_text(struct source *src, long piece, const char *text, size_t n)
{
	char *copy = arena_strndup(&src->arena, text, n);
	if (!copy)
		return CS_ENOMEM;
	return source_adopt_piece_text(src, piece, copy, n);
}

int source_keep_piece_text(struct source *src, long piece, const char *in_input, const char *text, size_t n)
{
	if (!in_input || !src->input_owned)
		return source_set_piece_text(src, piece, text, n);
	struct text_measure m;
	hidden_measure(text, n, &m);
	return source_adopt_piece_counted(src, piece, in_input, n, m.code_points, m.lines, m.hidden);
}

bool source_keep_input(struct source *src, char *data, size_t len)
{
	uintptr_t from = (uintptr_t)data, to = from + len;
	bool kept = false;
	for (size_t i = 0; i < src->npieces; i++) {
		uintptr_t t = (uintptr_t)src->pieces[i].text;
		if (t >= from && t < to) {
			json_unescape_in_place(data + (t - from), src->pieces[i].text_bytes);
			kept = true;
		}
	}
	if (kept)
		src->input_kept = data;
	return kept;
}

int source_warn(struct source *src, long piece, long line, long column, const char *fmt, ...)
{
	if (CS_GROW(src->warnings, src->cap_warnings, src->nwarnings + 1) != 0)
		return CS_ENOMEM;
	va_list ap;
	va_start(ap, fmt);
	char *text = arena_vprintf(&src->arena, fmt, ap);
	va_end(ap);
	if (!text)
		return CS_ENOMEM;
	src->warnings[src->nwarnings++] = (struct warning){ text, piece, line, column };
	return CS_OK;
}

void source_set_chars_per_token(struct source *src, double cpt)
{
	src->settings.chars_per_token = cpt;
	for (size_t i = 0; i < src->npieces; i++)
		src->pieces[i].tokens = tokens_estimate(src->pieces[i].code_points, cpt);
}

struct id_entry {
	const char *id;
	long index;
};

static int by_id(const void *x, const void *y)
{
	const struct id_entry *a = x, *b = y;
	int c = strcmp(a->id, b->id);
	if (c)
		return c;
	return (a->index > b->index) - (a->index < b->index);
}

bool source_match_ids(const struct source *from, const struct source *to, long *map, bool *matched)
{
	if (from == to) {
		for (size_t i = 0; i < to->npieces; i++) {
			map[i] = (long)i;
			if (matched)
				matched[i] = true;
		}
		return true;
	}
	struct id_entry *ids = cs_calloc(from->npieces ? from->npieces : 1, sizeof *ids);
	if (!ids)
		return false;
	for (size_t j = 0; j < from->npieces; j++)
		ids[j] = (struct id_entry){ from->pieces[j].id, (long)j };
	qsort(ids, from->npieces, sizeof *ids, by_id);
	for (size_t i = 0; i < to->npieces; i++) {
		/* the first entry with this id: a lower bound */
		size_t lo = 0, hi = from->npieces;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(ids[mid].id, to->pieces[i].id) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		map[i] = -1;
		if (lo < from->npieces && !strcmp(ids[lo].id, to->pieces[i].id)) {
			map[i] = ids[lo].index;
			if (matched)
				matched[ids[lo].index] = true;
		}
	}
	cs_free(ids);
	return true;
}

/* The step `delta` steps of the shown one's group away, within
 * [first, last]; -1 when there is none that far. */
static long step_in_group(const struct kind_sequence *seq, const struct source *src, size_t cur, long delta,
			  size_t first, size_t last)
{
	char mine[96], other[96];
	const char *g = seq->group(src, cur, mine, sizeof mine);
	long at = (long)cur, left = delta < 0 ? -delta : delta, dir = delta < 0 ? -1 : 1;
	while (left > 0) {
		at += dir;
		if (at < (long)first || at > (long)last)
			return -1;
		const char *h = seq->group(src, (size_t)at, other, sizeof other);
		if (!g || (h && !strcmp(g, h)))
			left--;
	}
	return at;
}

int source_sequence_step(const struct source *src, long delta, bool in_group, char *value, size_t size,
			 struct cs_error *err)
{
	const struct kind_sequence *seq = src->kind->sequence;
	if (!seq)
		return cs_error_set(err, CS_EUSAGE, "a %s holds no sequence to step through", src->kind->title);
	size_t n = seq->count(src), cur = seq->current(src);
	size_t first = 0, last = n ? n - 1 : 0;
	if (seq->reach)
		seq->reach(src, &first, &last);
	char g[96];
	const char *group = in_group && seq->group && n ? seq->group(src, cur, g, sizeof g) : NULL;
	long to = group ? step_in_group(seq, src, cur, delta, first, last) : 0;
	if (group && to < 0)
		return cs_error_set(err, CS_EUSAGE, "already the %s %s of group %s (%zu of %zu); { } step across groups",
				    delta < 0 ? "first" : "last", seq->noun, group, cur + 1, n);
	if (n == 0)
		return cs_error_set(err, CS_EUSAGE, "this %s holds no %s to step to", src->kind->title, seq->noun);
	if (delta < 0 && cur <= first)
		return cs_error_set(err, CS_EUSAGE, "already the first %s (%zu of %zu)", seq->noun, cur + 1, n);
	if (delta > 0 && cur >= last)
		return cs_error_set(err, CS_EUSAGE, "already the last %s (%zu of %zu)", seq->noun, cur + 1, n);
	if (!group) {
		to = (long)cur + delta;
		to = to < (long)first ? (long)first : to > (long)last ? (long)last : to;
	}
	snprintf(value, size, "%ld", to + 1);
	return CS_OK;
}

const char *source_cache_profile(const struct source *src, const char *asked, const char *fallback)
{
	const char *own = !asked && src && src->kind->cache_profile ? src->kind->cache_profile(src) : NULL;
	return asked ? asked : own ? own : fallback;
}

const char *piece_name(const struct piece *p)
{
	if (!p->label || !p->label[0])
		return p->id;
	size_t n = strlen(p->id);
	return strncmp(p->label, p->id, n) == 0 ? p->id : p->label;
}

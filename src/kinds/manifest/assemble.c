/* assemble_manifest.c: seed 002's assembly algorithm, exactly, with the
 * decisions of formats.md section 3:
 *   1. stable sort by priority, highest first (ties keep file order);
 *   2. max_lines caps a file before budgeting, cut in its strategy's
 *      direction; a `never` file longer than max_lines is excluded;
 *   3. a file that fits `effective` goes in whole; else, unless `never`, it is
 *      cut to the remaining budget by its strategy, with a marker whose tokens
 *      count inside the budget; if nothing useful fits, it is excluded
 *      (over-budget). Used tokens never exceed `effective`.
 * Budget tokens are the content's (as the seed counts them); the role
 * wrappers are rendered but, like in the seed, not charged. Every cut puts
 * the same marker where text was removed. */
#include "manifest.h"

#include "alloc.h"
#include "assembly.h"
#include "source.h"
#include "strbuf.h"
#include "tokens.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Placed where text was cut (by max_lines or by the budget). */
static const char MARKER[] = "\n[... truncated ...]\n";
#define MARKER_BYTES (sizeof MARKER - 1)
#define MARKER_CODE_POINTS MARKER_BYTES /* ASCII */

/* A file's content as up to five segments of its text and markers. */
struct content {
	struct span seg[5];
	size_t cp[5];
	int n;
	size_t code_points;
};

static void content_add(struct content *c, const char *p, size_t len, size_t cp)
{
	if (len == 0)
		return;
	c->seg[c->n] = (struct span){ p, len };
	c->cp[c->n] = cp;
	c->n++;
	c->code_points += cp;
}

static void content_marker(struct content *c)
{
	content_add(c, MARKER, MARKER_BYTES, MARKER_CODE_POINTS);
}

/* The first k code points of in, appended to out. */
static void take_first(const struct content *in, size_t k, struct content *out)
{
	for (int i = 0; i < in->n && k > 0; i++) {
		if (in->cp[i] <= k) {
			content_add(out, in->seg[i].ptr, in->seg[i].len, in->cp[i]);
			k -= in->cp[i];
		} else {
			size_t bytes = utf8_bytes_for_code_points(in->seg[i].ptr, in->seg[i].len, k);
			content_add(out, in->seg[i].ptr, bytes, k);
			k = 0;
		}
	}
}

/* The last k code points of in, appended to out. */
static void take_last(const struct content *in, size_t k, struct content *out)
{
	int first = in->n;
	size_t from_cp = 0; /* code points to skip in segment `first` */
	size_t left = k;
	while (first > 0 && left > 0) {
		first--;
		if (in->cp[first] <= left) {
			left -= in->cp[first];
		} else {
			from_cp = in->cp[first] - left;
			left = 0;
		}
	}
	for (int i = first; i < in->n; i++) {
		const char *p = in->seg[i].ptr;
		size_t len = in->seg[i].len, cp = in->cp[i];
		if (i == first && from_cp) {
			size_t skip = utf8_bytes_for_code_points(p, len, from_cp);
			p += skip;
			len -= skip;
			cp -= from_cp;
		}
		content_add(out, p, len, cp);
	}
}

/* Cuts `in` to `keep` code points by strategy, with a marker. */
static void cut(const struct content *in, int strategy, size_t keep, struct content *out)
{
	memset(out, 0, sizeof *out);
	switch (strategy) {
	case STRAT_START:
		content_marker(out);
		take_last(in, keep, out);
		break;
	case STRAT_MIDDLE:
		take_first(in, keep - keep / 2, out);
		content_marker(out);
		take_last(in, keep / 2, out);
		break;
	default: /* end */
		take_first(in, keep, out);
		content_marker(out);
		break;
	}
}

/* Where max_lines cuts a text under a strategy (formats.md: end keeps the
 * first N lines, start the last N, middle the first ceil(N/2) and last
 * floor(N/2)). Computed once at load for each strategy (the scan over the
 * lines is the costly part), so a re-assembly only reads it. */
void manifest_cap_compute(const struct piece *p, size_t max_lines, int strategy, struct manifest_cap *out)
{
	const char *t = p->text;
	size_t n = p->text_bytes;
	size_t head = 0, tail = n;
	switch (strategy) {
	case STRAT_START:
		tail = utf8_offset_of_last_lines(t, n, max_lines);
		break;
	case STRAT_MIDDLE:
		head = utf8_bytes_for_lines(t, n, max_lines - max_lines / 2);
		tail = utf8_offset_of_last_lines(t, n, max_lines / 2);
		if (max_lines / 2 == 0)
			tail = n;
		break;
	default:
		head = utf8_bytes_for_lines(t, n, max_lines);
		break;
	}
	out->head_bytes = head;
	out->head_code_points = head ? utf8_count_code_points(t, head) : 0;
	out->tail_offset = tail;
	out->tail_code_points = tail < n ? utf8_count_code_points(t + tail, n - tail) : 0;
}

/* Applies max_lines with the cut computed at load. */
static void cap_lines(const struct piece *p, const struct manifest_entry *me, struct content *out)
{
	const char *t = p->text;
	size_t n = p->text_bytes;
	memset(out, 0, sizeof *out);
	struct manifest_cap c;
	if (me->caps && p->strategy >= STRAT_START && p->strategy <= STRAT_END)
		c = me->caps[p->strategy - STRAT_START];
	else
		manifest_cap_compute(p, me->max_lines, p->strategy, &c); /* out of memory at load */
	if (p->strategy == STRAT_START)
		content_marker(out);
	if (c.head_bytes)
		content_add(out, t, c.head_bytes, c.head_code_points);
	if (p->strategy != STRAT_START && p->strategy != STRAT_NEVER)
		content_marker(out);
	if (c.tail_offset < n)
		content_add(out, t + c.tail_offset, n - c.tail_offset, c.tail_code_points);
}

/* The code points cap_lines keeps (markers included), from the cut
 * computed at load (me->caps present, strategy start, middle or end). */
static size_t capped_code_points(const struct piece *p, const struct manifest_entry *me)
{
	const struct manifest_cap *c = &me->caps[p->strategy - STRAT_START];
	size_t cp = c->head_code_points + (c->tail_offset < p->text_bytes ? c->tail_code_points : 0);
	if (p->strategy == STRAT_START)
		cp += MARKER_CODE_POINTS;
	if (p->strategy != STRAT_START && p->strategy != STRAT_NEVER)
		cp += MARKER_CODE_POINTS;
	return cp;
}

/* Bytes of the piece's text kept from its start and its end. */
static void kept_ends(const struct piece *p, const struct content *c, size_t *head, size_t *tail)
{
	*head = *tail = 0;
	const char *start = p->text, *end = p->text + p->text_bytes;
	for (int i = 0; i < c->n; i++) {
		const struct span *s = &c->seg[i];
		if (s->ptr == start)
			*head = s->len;
		if (s->ptr + s->len == end && s->ptr != start)
			*tail = s->len;
		if (s->ptr == start && s->len == p->text_bytes)
			*tail = 0;
	}
}

static const char *wrapper_open(struct assembly *a, const struct piece *p, int role)
{
	if (role != MROLE_CONTEXT)
		return arena_printf(&a->arena, "<%s>\n", manifest_role_name(role));
	/* Escape the attribute: the path is the user's text. */
	struct strbuf esc = STRBUF_INIT;
	for (const char *s = p->id; *s; s++) {
		if (*s == '"')
			sb_puts(&esc, "&quot;");
		else if (*s == '&')
			sb_puts(&esc, "&amp;");
		else if (*s == '<')
			sb_puts(&esc, "&lt;");
		else
			sb_putc(&esc, *s);
	}
	const char *r = esc.failed ? NULL : arena_printf(&a->arena, "<context path=\"%s\">\n", sb_str(&esc));
	sb_fini(&esc);
	return r;
}

/* Emits the block for a piece whose content goes in. */
static long emit_block(struct assembly *a, long piece, const struct content *c, long budget_tokens)
{
	const struct piece *p = &a->src->pieces[piece];
	int role = p->layer - 1;
	struct block *b = asm_block(a, piece, p->layer, -1);
	if (b == &a->scratch) /* out of memory: asm_finish reports it */
		return -1;
	long index = (long)a->nblocks - 1;
	if (index > 0)
		asm_text(a, "\n", 1);
	const char *open = wrapper_open(a, p, role);
	if (!open) {
		a->nomem = true;
		return index;
	}
	asm_span(a, open, strlen(open), (size_t)-1);
	for (int i = 0; i < c->n; i++)
		asm_span(a, c->seg[i].ptr, c->seg[i].len, c->cp[i]);
	const struct span *last = c->n ? &c->seg[c->n - 1] : NULL;
	if (!last || last->ptr[last->len - 1] != '\n')
		asm_text(a, "\n", 1);
	asm_textf(a, "</%s>\n", manifest_role_name(role));
	b->budget_tokens = budget_tokens;
	b->flags |= BLOCK_BREAKPOINT; /* seed 002 order is priority order: each block can end a cached prefix */
	kept_ends(p, c, &b->keep_head, &b->keep_tail);
	return index;
}

static uint32_t fnv1a32(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* Seed 002 section 7, from what the manifest knows. */
static void boot_header(struct assembly *a, const struct manifest *m, long *used)
{
	const struct source *src = a->src;
	struct block *b = asm_block(a, -1, 0, -1);
	b->label = "boot header";
	b->flags |= BLOCK_MADE;
	const char *slash = strrchr(src->path, '/');
	int dirlen = slash ? (int)(slash - src->path) : 1;
	asm_textf(a, "Root: %.*s/\n", dirlen, slash ? src->path : ".");
	for (size_t i = 0; i < m->nentries; i++) {
		const struct piece *p = &src->pieces[m->entries[i].piece];
		if (strcmp(p->role, "system") == 0 && !p->absent) {
			asm_textf(a, "Constitution: %s (checksum: %08x)\n", p->id, fnv1a32(p->text, p->text_bytes));
			break;
		}
	}
	if (m->session)
		asm_textf(a, "Session: %s\n", m->session);
	if (m->output_sink)
		asm_textf(a, "Output sink: %s\n", m->output_sink);
	asm_textf(a, "Working set: %s\n", slash ? slash + 1 : src->path);
	if (m->hints_present)
		asm_textf(a, "Cache hints: %s\n", m->hints_present);
	b->flags |= BLOCK_BREAKPOINT;
	b->budget_tokens = tokens_estimate(b->code_points, a->chars_per_token);
	*used += b->budget_tokens;
}

/* The seed's stable sort by priority, highest first, ties in file order, as
 * an LSD radix sort on a 64-bit key: O(pieces) a re-assembly instead of
 * qsort's O(n log n) calls through a comparator (issue 9: 100k files). */
struct sort_item {
	uint64_t key;  /* ascending key = descending priority */
	size_t index;
	/* What the walk needs to drop a piece once the budget is spent, so the
	 * common case at 100k files reads this array in order and never the
	 * 120-byte piece at random (perf: the piece loads were most of a run). */
	size_t code_points; /* content after max_lines (markers included); 0 when SORT_SLOW */
	unsigned flags;     /* SORT_* */
};

#define SORT_SLOW 1u  /* excluded, absent, or over max_lines with no cut from load: the walk reads the piece */
#define SORT_NEVER 2u /* strategy never */

#define SORT_RADIX_BITS 16
#define SORT_RADIX (1u << SORT_RADIX_BITS)

/* Orders like the priorities, highest first: the IEEE bits made unsigned
 * order-preserving, then inverted. -0 is 0, as the comparison has it. */
static uint64_t priority_key(double priority)
{
	double v = priority + 0.0;
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	u = u >> 63 ? ~u : u | (1ull << 63);
	return ~u;
}

/* Sorts items[0..n) by key, stably. scratch holds n items. false on OOM. */
static bool sort_items(struct sort_item *items, struct sort_item *scratch, size_t n)
{
	uint32_t *count = cs_malloc(SORT_RADIX * sizeof *count);
	if (!count)
		return false;
	struct sort_item *from = items, *to = scratch;
	for (unsigned shift = 0; shift < 64; shift += SORT_RADIX_BITS) {
		memset(count, 0, SORT_RADIX * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(from[i].key >> shift) & (SORT_RADIX - 1)]++;
		if (n && count[(from[0].key >> shift) & (SORT_RADIX - 1)] == n)
			continue; /* every key has this digit: the pass would change nothing */
		uint32_t sum = 0;
		for (size_t d = 0; d < SORT_RADIX; d++) {
			uint32_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i].key >> shift) & (SORT_RADIX - 1)]++] = from[i];
		struct sort_item *t = from;
		from = to;
		to = t;
	}
	if (from != items)
		memcpy(items, from, n * sizeof *items);
	cs_free(count);
	return true;
}

/* Priority order visits the pieces at random: at 100k files every visit
 * was a cache miss or three (perf: half of a re-assembly). Asking for them
 * a few pieces ahead overlaps the misses. */
#define PREFETCH_AHEAD 8

static void prefetch_piece(const struct source *src, const struct manifest *m, const struct assembly *a,
			   struct sort_item it)
{
#if defined(__GNUC__)
	size_t i = it.index;
	if (it.flags & SORT_SLOW) { /* else most likely the fast drop, which reads only results[i] */
		__builtin_prefetch(&src->pieces[i]);
		__builtin_prefetch(&m->entries[i]); /* entry i is piece i: added in order */
	}
	__builtin_prefetch(&a->results[i], 1);
#else
	(void)src, (void)m, (void)a, (void)it;
#endif
}

/* A sentence built without printf (one per dropped piece per run). */
struct line {
	char buf[512];
	size_t len;
};

static void line_puts(struct line *l, const char *s)
{
	size_t n = strlen(s);
	if (n > sizeof l->buf - 1 - l->len)
		n = sizeof l->buf - 1 - l->len;
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	l->buf[l->len] = '\0';
}

static void line_num(struct line *l, long long v)
{
	char b[32];
	line_puts(l, fmt_thousands(b, v));
}

/* Once the budget is spent, every later drop's sentence differs only by the
 * piece's tokens (the rest holds still: drops take nothing), so pieces with
 * the same tokens share one sentence: at 100k files that is a few thousand
 * sentences a run instead of 100k. A direct-mapped cache, emptied whenever
 * the rest of the sentence changes. */
#define DROP_CACHE_SLOTS 4096

struct drop_cache {
	long remaining, higher_tokens; /* what the cached sentences say besides tokens and why */
	size_t higher;
	unsigned long generation;      /* bumped when the above change */
	struct {
		unsigned long generation;
		long tokens;
		const char *why;       /* one of three literals */
		const char *sentence;
	} slot[DROP_CACHE_SLOTS];
};

/* "dropped: over budget by %s tokens (needs %s, %s left of %s); %s; %zu
 * file%s of higher priority took %s" (the counts of files unseparated). */
static void drop_over_budget(struct assembly *a, struct drop_cache *cache, long piece, long tokens, long remaining,
			     long effective, const char *why, size_t higher, long higher_tokens)
{
	size_t at = ((size_t)tokens * 3 + (size_t)why[0]) % DROP_CACHE_SLOTS;
	if (cache) {
		if (cache->remaining != remaining || cache->higher_tokens != higher_tokens || cache->higher != higher) {
			cache->remaining = remaining;
			cache->higher_tokens = higher_tokens;
			cache->higher = higher;
			cache->generation++;
		} else if (cache->slot[at].generation == cache->generation && cache->slot[at].tokens == tokens &&
			   cache->slot[at].why == why) {
			asm_drop_text(a, piece, REASON_OVER_BUDGET, cache->slot[at].sentence);
			return;
		}
	}
	struct line l = { .len = 0 };
	long left = remaining > 0 ? remaining : 0;
	line_puts(&l, "dropped: over budget by ");
	line_num(&l, tokens - left);
	line_puts(&l, " tokens (needs ");
	line_num(&l, tokens);
	line_puts(&l, ", ");
	line_num(&l, left);
	line_puts(&l, " left of ");
	line_num(&l, effective);
	line_puts(&l, "); ");
	line_puts(&l, why);
	line_puts(&l, "; ");
	if (higher) {
		char b[32];
		size_t n = 0;
		unsigned long long h = higher;
		do {
			b[n++] = (char)('0' + h % 10);
			h /= 10;
		} while (h);
		while (n)
			l.buf[l.len++] = b[--n]; /* room: the sentence is far under 512 */
		l.buf[l.len] = '\0';
		line_puts(&l, higher == 1 ? " file of higher priority took " : " files of higher priority took ");
		line_num(&l, higher_tokens);
	} else {
		line_puts(&l, "nothing came before it");
	}
	const char *sentence = arena_strndup(&a->arena, l.buf, l.len);
	if (cache && sentence) {
		cache->slot[at].generation = cache->generation;
		cache->slot[at].tokens = tokens;
		cache->slot[at].why = why;
		cache->slot[at].sentence = sentence;
	}
	asm_drop_text(a, piece, REASON_OVER_BUDGET, sentence);
}

static const char *pct(char buf[16], long part, long whole)
{
	snprintf(buf, 16, "%ld%%", whole > 0 ? (long)(100.0 * (double)part / (double)whole + 0.5) : 0L);
	return buf;
}

int manifest_assemble(const struct source *src, struct assembly *a, struct cs_error *err)
{
	const struct manifest *m = src->model;
	int rc = asm_init(a, src, ASM_DOCUMENT);
	if (rc != CS_OK)
		return cs_error_nomem(err);
	static const char *const layers[] = { "boot", "system", "developer", "user", "context" };
	asm_grouping(a, "role", layers, 5);

	long effective = src->settings.budget >= 0 ? src->settings.budget : m->effective;
	a->budget.limit = src->settings.budget >= 0 ? effective + m->reserved : m->max_tokens;
	a->budget.reserve = m->reserved;
	a->budget.usable = effective;
	if (m->protocol)
		asm_fact(a, "protocol", "%s", m->protocol);
	asm_fact(a, "budget", "%s", src->settings.budget >= 0 ? "--budget (overrides effective)"
				    : m->has_budget ? "from the manifest" : "default (no budget in the manifest)");

	size_t nitems = src->npieces ? src->npieces : 1;
	struct sort_item *order = cs_malloc(2 * nitems * sizeof *order);
	if (!order)
		return cs_error_nomem(err);
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece *p = &src->pieces[i];
		const struct manifest_entry *me = &m->entries[p->kind_index];
		bool capped = me->max_lines && p->lines > me->max_lines;
		bool slow = piece_excluded(p) || p->absent ||
			    (capped && (p->strategy == STRAT_NEVER || !me->caps || p->strategy < STRAT_START ||
					p->strategy > STRAT_END));
		order[i] = (struct sort_item){ .key = priority_key(p->priority),
					       .index = i,
					       .code_points = slow ? 0 : capped ? capped_code_points(p, me) : p->code_points,
					       .flags = (slow ? SORT_SLOW : 0u) |
							(p->strategy == STRAT_NEVER ? SORT_NEVER : 0u) };
	}
	if (!sort_items(order, order + nitems, src->npieces)) {
		cs_free(order);
		return cs_error_nomem(err);
	}

	/* Optional: without it (out of memory) every drop formats its own. */
	struct drop_cache *cache = src->npieces > DROP_CACHE_SLOTS / 4 ? cs_calloc(1, sizeof *cache) : NULL;
	if (cache)
		cache->generation = 1;
	long used = 0;
	if (m->boot_header)
		boot_header(a, m, &used);
	size_t excluded_budget = 0, truncated = 0, capped_count = 0;
	size_t higher = 0;    /* pieces of higher priority already placed */
	long higher_tokens = 0;
	char n1[32], n2[32], n3[32], n4[32], p1[16];

	for (size_t k = 0; k < src->npieces; k++) {
		if (k + PREFETCH_AHEAD < src->npieces)
			prefetch_piece(src, m, a, order[k + PREFETCH_AHEAD]);
		long i = (long)order[k].index;
		if (!(order[k].flags & SORT_SLOW)) {
			/* The over-budget drop, decided from the sorted array alone:
			 * the same tests, in the same order, as the full path below. */
			long whole_tokens = tokens_estimate(order[k].code_points, a->chars_per_token);
			long remaining = effective - used;
			if (used + whole_tokens > effective) {
				size_t room = tokens_code_point_room(remaining, a->chars_per_token);
				bool never = order[k].flags & SORT_NEVER;
				if (never || room <= MARKER_CODE_POINTS) {
					const char *why = never ? "its strategy is never, so it cannot be cut"
						        : remaining <= 0 ? "nothing is left of the budget"
						        : "the truncation marker alone would fill what is left";
					drop_over_budget(a, cache, i, whole_tokens, remaining, effective, why, higher,
							 higher_tokens);
					excluded_budget++;
					continue;
				}
			}
		}
		const struct piece *p = &src->pieces[i];
		const struct manifest_entry *me = &m->entries[p->kind_index];
		if (piece_excluded(p)) {
			asm_drop(a, i, REASON_EXCLUDED_BY_USER, "excluded by you");
			continue;
		}
		if (p->absent) {
			asm_drop(a, i, p->absent, "dropped: %s (%s)", reason_sentence(p->absent), me->resolved);
			continue;
		}
		struct content whole = { 0 };
		content_add(&whole, p->text, p->text_bytes, p->code_points);
		struct content capped = whole;
		bool was_capped = false;
		if (me->max_lines && p->lines > me->max_lines) {
			if (p->strategy == STRAT_NEVER) {
				asm_drop(a, i, REASON_MAX_LINES,
					 "dropped: %s lines is over its max_lines of %s, and strategy never forbids cutting it",
					 fmt_thousands(n1, (long long)p->lines), fmt_thousands(n2, (long long)me->max_lines));
				continue;
			}
			cap_lines(p, me, &capped);
			was_capped = true;
		}
		long tokens = tokens_estimate(capped.code_points, a->chars_per_token);
		if (used + tokens <= effective) {
			long b = emit_block(a, i, &capped, tokens);
			used += tokens;
			if (was_capped) {
				asm_cut(a, i, b, tokens, REASON_MAX_LINES,
					"cut to its max_lines: kept %s of %s lines (strategy %s), %s of %s tokens",
					fmt_thousands(n1, (long long)me->max_lines), fmt_thousands(n2, (long long)p->lines),
					strategy_name(p->strategy), fmt_thousands(n3, tokens), fmt_thousands(n4, p->tokens));
				if (b >= 0)
					a->blocks[b].flags |= BLOCK_TRUNCATED;
				capped_count++;
			} else {
				asm_whole(a, i, b, tokens);
			}
			higher++;
			higher_tokens += tokens;
			continue;
		}
		long remaining = effective - used;
		size_t room = tokens_code_point_room(remaining, a->chars_per_token);
		if (p->strategy == STRAT_NEVER || room <= MARKER_CODE_POINTS) {
			const char *why = p->strategy == STRAT_NEVER ? "its strategy is never, so it cannot be cut"
				        : remaining <= 0 ? "nothing is left of the budget"
				        : "the truncation marker alone would fill what is left";
			drop_over_budget(a, cache, i, tokens, remaining, effective, why, higher, higher_tokens);
			excluded_budget++;
			continue;
		}
		struct content cutc;
		cut(&capped, p->strategy, room - MARKER_CODE_POINTS, &cutc);
		long cut_tokens = tokens_estimate(cutc.code_points, a->chars_per_token);
		long b = emit_block(a, i, &cutc, cut_tokens);
		if (b >= 0)
			a->blocks[b].flags |= BLOCK_TRUNCATED;
		used += cut_tokens;
		truncated++;
		asm_cut(a, i, b, cut_tokens, REASON_TRUNCATED,
			"truncated: kept %s of %s tokens (%s); strategy %s: %s; %s file%s of higher priority took %s",
			fmt_thousands(n1, cut_tokens), fmt_thousands(n2, p->tokens), pct(p1, cut_tokens, p->tokens),
			strategy_name(p->strategy), strategy_sentence(p->strategy),
			fmt_thousands(n3, (long long)higher), higher == 1 ? "" : "s", fmt_thousands(n4, higher_tokens));
		if (cut_tokens * 2 < p->tokens)
			asm_warn(a, i, "%s truncated significantly: kept %s of %s tokens", p->id,
				 fmt_thousands(n1, cut_tokens), fmt_thousands(n2, p->tokens));
		higher++;
		higher_tokens += cut_tokens;
	}
	cs_free(cache);

	if (excluded_budget)
		asm_warn(a, -1, "%zu file%s excluded due to budget", excluded_budget, excluded_budget == 1 ? "" : "s");
	if (truncated)
		asm_warn(a, -1, "%zu file%s truncated to fit", truncated, truncated == 1 ? "" : "s");
	if (truncated || excluded_budget || capped_count)
		a->flags |= ASM_TRUNCATED;
	/* Priority 1.0 pieces lead the sorted order, in file order (the sort is
	 * stable): walk that prefix, not every piece. Any priority above 1.0
	 * (not loadable today) breaks the file order: then walk them all. */
	size_t must = 0;
	bool above_one = false;
	while (must < src->npieces && src->pieces[order[must].index].priority >= 1.0) {
		above_one |= src->pieces[order[must].index].priority > 1.0;
		must++;
	}
	for (size_t k = 0, n = above_one ? src->npieces : must; k < n; k++) {
		size_t i = above_one ? k : order[k].index;
		const struct piece *p = &src->pieces[i];
		if (p->priority >= 1.0 && a->results[i].outcome == OUTCOME_DROPPED && !piece_excluded(p)) {
			a->flags |= ASM_MUST_MISSING;
			asm_warn(a, (long)i, "%s has priority 1.0 (always included) but was not included: %s", p->id,
				 a->results[i].sentence ? a->results[i].sentence : "");
		}
	}
	cs_free(order);
	rc = asm_finish(a, err);
	if (rc == CS_OK && a->budget.used > effective)
		asm_state(a, ASM_OVER_LIMIT, "the boot header alone is over the budget by %s tokens",
			  fmt_thousands(n1, a->budget.used - effective));
	if (a->flags & ASM_OVER_LIMIT)
		a->over_by = a->budget.used - effective;
	return rc;
}

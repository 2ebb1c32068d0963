/* assemble.c (manifest): seed 002's assembly algorithm, exactly, with the
 * decisions of ctxscope-formats(5) section 3:
 *   1. stable sort by priority, highest first (ties keep file order);
 *   2. max_lines caps a file before budgeting, cut in its strategy's
 *      direction; a `never` file longer than max_lines is excluded;
 *   3. a file that fits `effective` goes in whole; else, unless `never`, it is
 *      cut to the remaining budget by its strategy, with a marker whose tokens
 *      count inside the budget; if nothing useful fits, it is excluded
 *      (over-budget). Used tokens never exceed `effective`.
 * Budget tokens are the content's (as the seed counts them); the role
 * wrappers are rendered but, like in the seed, not charged. Every cut puts
 * the same marker where text was removed.
 * In phases over one decision record per piece (struct decision): sort;
 * decide, one function, with the sorted array as a filter in front of it
 * (a piece the array can describe is decided without reading the piece);
 * render the blocks; explain (sentences, warnings). */
#include "manifest.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"
#include "base/utf8.h"

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

/* Where max_lines cuts a text under a strategy (ctxscope-formats(5): end keeps the
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

/* Seed 002 section 7, from what the manifest knows. The constitution's
 * version is the protocol's ("CONTEXT-ASSEMBLY/0.1": v0.1; none without a
 * protocol); the output sink is append-only and the tool contract the
 * seed's, as its header shows them. */
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
			const char *v = m->protocol ? strrchr(m->protocol, '/') : NULL;
			asm_textf(a, "Constitution: %s (%s%s%schecksum: %08x)\n", p->id, v && v[1] ? "v" : "",
				  v && v[1] ? v + 1 : "", v && v[1] ? ", " : "", fnv1a32(p->text, p->text_bytes));
			break;
		}
	}
	if (m->session)
		asm_textf(a, "Session: %s\n", m->session);
	if (m->output_sink)
		asm_textf(a, "Output sink: %s (append-only)\n", m->output_sink);
	asm_textf(a, "Working set: %s\n", slash ? slash + 1 : src->path);
	if (m->hints_present)
		asm_textf(a, "Cache hints: %s\n", m->hints_present);
	asm_text(a, "Tool contract: All calls require `why`\n", 39);
	b->budget_tokens = tokens_estimate(b->code_points, a->chars_per_token);
	*used += b->budget_tokens;
}

/* The seed's stable sort by priority, highest first, ties in file order, as
 * an LSD radix sort on a 64-bit key: O(pieces) a re-assembly instead of
 * qsort's O(n log n) calls through a comparator (the benchmark's 100k files). */
struct sort_item {
	uint64_t key;  /* ascending key = descending priority */
	size_t index;
	/* What the walk needs to drop a piece once the budget is spent, so the
	 * common case at 100k files reads this array in order and never the
	 * 120-byte piece at random (perf: the piece loads were most of a run). */
	size_t code_points; /* content after max_lines (markers included); 0 when SORT_SLOW */
	unsigned flags;     /* SORT_* */
};

#define SORT_SLOW 1u   /* excluded, absent, or over max_lines with no cut from load: decide reads the piece */
#define SORT_NEVER 2u  /* strategy never */
#define SORT_CAPPED 4u /* over its max_lines: code_points is the capped content's */

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

/* Sorts items[0..n) by key, stably. scratch holds n items. false on OOM.
 * A few items take 8-bit digits: clearing and summing 65536 counters per
 * pass cost far more than the items (a small manifest's assembly). */
static bool sort_items(struct sort_item *items, struct sort_item *scratch, size_t n)
{
	unsigned bits = n < SORT_RADIX / 16 ? 8 : SORT_RADIX_BITS;
	size_t radix = (size_t)1 << bits;
	uint32_t *count = cs_malloc(radix * sizeof *count);
	if (!count)
		return false;
	struct sort_item *from = items, *to = scratch;
	for (unsigned shift = 0; shift < 64; shift += bits) {
		memset(count, 0, radix * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(from[i].key >> shift) & (radix - 1)]++;
		if (n && count[(from[0].key >> shift) & (radix - 1)] == n)
			continue; /* every key has this digit: the pass would change nothing */
		uint32_t sum = 0;
		for (size_t d = 0; d < radix; d++) {
			uint32_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i].key >> shift) & (radix - 1)]++] = from[i];
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

static void prefetch_piece(const struct source *src, const struct manifest *m, size_t i)
{
#if defined(__GNUC__)
	__builtin_prefetch(&src->pieces[i]);
	__builtin_prefetch(&m->entries[i]); /* entry i is piece i: added in order */
#else
	(void)src, (void)m, (void)i;
#endif
}

static void prefetch_result(const struct assembly *a, size_t i)
{
#if defined(__GNUC__)
	__builtin_prefetch(&a->results[i], 1);
#else
	(void)a, (void)i;
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

/* What decide() knows of a piece: from the sorted array alone (the fast
 * path), or from the piece when the array cannot tell (SORT_SLOW). */
struct candidate {
	int gate;    /* enum reason that keeps it out before any budget: excluded by you, absent, max_lines under never; REASON_NONE */
	long tokens; /* its content's, after max_lines */
	bool never;  /* strategy never: cannot be cut */
	bool capped; /* cut to its max_lines */
};

enum verdict {
	V_WHOLE,       /* in whole */
	V_CAPPED,      /* in, cut to its max_lines */
	V_TRUNCATED,   /* in, cut to the budget */
	V_GATED,       /* out: candidate.gate */
	V_OVER_BUDGET, /* out: did not fit and could not be cut */
};

/* Why an over-budget piece could not be cut. */
static const char *const WHY[] = {
	"its strategy is never, so it cannot be cut",
	"nothing is left of the budget",
	"the truncation marker alone would fill what is left",
};

/* What happened to the piece at one rank, and what the walk stood at. */
struct decision {
	long tokens;        /* charged when in; what it needed when over budget */
	long remaining;     /* budget left when it was decided */
	size_t higher;      /* pieces placed before it */
	long higher_tokens; /* their tokens */
	size_t keep;        /* V_TRUNCATED: code points kept of its content, marker not counted */
	long block;         /* when in: its block, set by render (-1 out of memory); unset when out */
	unsigned char verdict; /* enum verdict */
	unsigned char why;  /* V_OVER_BUDGET: index in WHY; V_GATED: enum reason */
};

/* The walk in priority order, shared by the phases. */
struct walk {
	const struct source *src;
	const struct manifest *m;
	struct sort_item *order; /* pieces in priority order */
	struct decision *dec;    /* by rank, as order */
	size_t *placed;          /* the ranks that went in, in order */
	size_t nplaced;
	long effective;
	long used;               /* budget tokens used so far (boot header included) */
	size_t higher;
	long higher_tokens;
};

/* The sorted array: priority keys and, for the fast path, the content's
 * code points after max_lines. false on out of memory. */
static bool sort_pieces(const struct source *src, const struct manifest *m, struct sort_item *order, size_t nitems)
{
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
					       .flags = (slow ? SORT_SLOW : 0u) | (capped ? SORT_CAPPED : 0u) |
							(p->strategy == STRAT_NEVER ? SORT_NEVER : 0u) };
	}
	return sort_items(order, order + nitems, src->npieces);
}

/* The candidate at rank k. The fast path is this filter: a piece that is
 * not SORT_SLOW is known from the sorted array alone, and the piece itself
 * is not read (at 100k files most are dropped once the budget is spent). */
static struct candidate candidate_at(const struct walk *w, size_t k, double cpt)
{
	const struct sort_item *it = &w->order[k];
	if (!(it->flags & SORT_SLOW))
		return (struct candidate){ .tokens = tokens_estimate(it->code_points, cpt),
					   .never = it->flags & SORT_NEVER,
					   .capped = it->flags & SORT_CAPPED };
	const struct piece *p = &w->src->pieces[it->index];
	const struct manifest_entry *me = &w->m->entries[p->kind_index];
	if (piece_excluded(p))
		return (struct candidate){ .gate = REASON_EXCLUDED_BY_USER };
	if (p->absent)
		return (struct candidate){ .gate = p->absent };
	bool capped = me->max_lines && p->lines > me->max_lines;
	if (capped && p->strategy == STRAT_NEVER)
		return (struct candidate){ .gate = REASON_MAX_LINES };
	struct content c = { 0 };
	if (capped)
		cap_lines(p, me, &c); /* no cut from load (out of memory then) */
	return (struct candidate){ .tokens = tokens_estimate(capped ? c.code_points : p->code_points, cpt),
				   .never = p->strategy == STRAT_NEVER,
				   .capped = capped };
}

/* Decide, the one function: in whole, in cut (to max_lines or to the
 * budget), or out, and why. A cut to the budget keeps exactly `room` code
 * points, marker included (the content is longer than room, or it would
 * have fit), so its tokens are known before it is made. */
static void decide(struct walk *w, const struct candidate *c, struct decision *d, double cpt)
{
	d->remaining = w->effective - w->used;
	d->higher = w->higher;
	d->higher_tokens = w->higher_tokens;
	d->tokens = c->tokens;
	if (c->gate != REASON_NONE) {
		d->verdict = V_GATED;
		d->why = (unsigned char)c->gate;
		return;
	}
	if (w->used + c->tokens <= w->effective) {
		d->verdict = c->capped ? V_CAPPED : V_WHOLE;
	} else {
		size_t room = tokens_code_point_room(d->remaining, cpt);
		if (c->never || room <= MARKER_CODE_POINTS) {
			d->verdict = V_OVER_BUDGET;
			d->why = c->never ? 0 : d->remaining <= 0 ? 1 : 2;
			return;
		}
		d->verdict = V_TRUNCATED;
		d->keep = room - MARKER_CODE_POINTS;
		d->tokens = tokens_estimate(room, cpt);
	}
	w->used += d->tokens;
	w->higher++;
	w->higher_tokens += d->tokens;
	w->placed[w->nplaced++] = (size_t)(d - w->dec);
}

/* Render: a block for each piece that goes in, in priority order. */
static void render(struct walk *w, struct assembly *a)
{
	for (size_t j = 0; j < w->nplaced; j++) {
		if (j + PREFETCH_AHEAD < w->nplaced)
			prefetch_piece(w->src, w->m, w->order[w->placed[j + PREFETCH_AHEAD]].index);
		size_t k = w->placed[j];
		struct decision *d = &w->dec[k];
		long i = (long)w->order[k].index;
		const struct piece *p = &w->src->pieces[i];
		const struct manifest_entry *me = &w->m->entries[p->kind_index];
		struct content capped = { 0 }, cutc;
		if (me->max_lines && p->lines > me->max_lines) /* strategy never would have been gated */
			cap_lines(p, me, &capped);
		else
			content_add(&capped, p->text, p->text_bytes, p->code_points);
		const struct content *c = &capped;
		if (d->verdict == V_TRUNCATED) {
			cut(&capped, p->strategy, d->keep, &cutc);
			c = &cutc;
		}
		d->block = emit_block(a, i, c, d->tokens);
		if (d->block >= 0 && d->verdict != V_WHOLE)
			a->blocks[d->block].flags |= BLOCK_TRUNCATED;
	}
}

#define MANIFEST_BREAKPOINTS 4 /* the most breakpoints one API request takes (anthropic's limit) */

/* Where a cache-aware orchestrator puts the breakpoints: at the end of each
 * run of one layer (the stable ones lead: boot, system, developer), at most
 * MANIFEST_BREAKPOINTS - 1 of those, then after the last block; said in a
 * fact. */
static void place_breakpoints(struct assembly *a)
{
	if (a->nblocks == 0)
		return;
	struct strbuf said = STRBUF_INIT;
	size_t n = 0;
	for (size_t b = 0; b + 1 < a->nblocks && n + 1 < MANIFEST_BREAKPOINTS; b++) {
		int l = a->blocks[b].layer[0];
		if (l == a->blocks[b + 1].layer[0])
			continue;
		a->blocks[b].flags |= BLOCK_BREAKPOINT;
		sb_printf(&said, "%s%s", n ? ", " : "after ", l >= 0 ? a->groupings[0].layers[l].name : "made text");
		n++;
	}
	a->blocks[a->nblocks - 1].flags |= BLOCK_BREAKPOINT;
	sb_printf(&said, "%sthe last block", n ? " and " : "after ");
	if (!said.failed)
		asm_fact(a, "breakpoints", "%zu, %s (at most %d, as one request takes)", n + 1, sb_str(&said),
			 MANIFEST_BREAKPOINTS);
	else
		a->nomem = true;
	sb_fini(&said);
}

/* The counts explain() tells in warnings. */
struct tally {
	size_t excluded_budget, truncated, capped;
};

/* Explain, one piece that did not go in whole or went in cut. */
static void explain_one(struct walk *w, struct assembly *a, struct drop_cache *cache, size_t k, struct tally *t)
{
	const struct decision *d = &w->dec[k];
	long i = (long)w->order[k].index;
	if (d->verdict == V_OVER_BUDGET) {
		drop_over_budget(a, cache, i, d->tokens, d->remaining, w->effective, WHY[d->why], d->higher,
				 d->higher_tokens);
		t->excluded_budget++;
		return;
	}
	const struct piece *p = &w->src->pieces[i];
	const struct manifest_entry *me = &w->m->entries[p->kind_index];
	char n1[32], n2[32], n3[32], n4[32], p1[16];
	if (d->verdict == V_GATED && d->why == REASON_EXCLUDED_BY_USER) {
		asm_drop(a, i, REASON_EXCLUDED_BY_USER, "excluded by you");
	} else if (d->verdict == V_GATED && d->why == REASON_MAX_LINES) {
		asm_drop(a, i, REASON_MAX_LINES,
			 "dropped: %s lines is over its max_lines of %s, and strategy never forbids cutting it",
			 fmt_thousands(n1, (long long)p->lines), fmt_thousands(n2, (long long)me->max_lines));
	} else if (d->verdict == V_GATED) {
		asm_drop(a, i, d->why, "dropped: %s (%s)", reason_sentence(d->why), me->resolved);
	} else if (d->verdict == V_CAPPED) {
		asm_cut(a, i, d->block, d->tokens, REASON_MAX_LINES,
			"cut to its max_lines: kept %s of %s lines (strategy %s), %s of %s tokens",
			fmt_thousands(n1, (long long)me->max_lines), fmt_thousands(n2, (long long)p->lines),
			strategy_name(p->strategy), fmt_thousands(n3, d->tokens), fmt_thousands(n4, p->tokens));
		t->capped++;
	} else { /* V_TRUNCATED */
		long ct = d->tokens;
		asm_cut(a, i, d->block, ct, REASON_TRUNCATED,
			"truncated: kept %s of %s tokens (%s); strategy %s: %s; %s file%s of higher priority took %s",
			fmt_thousands(n1, ct), fmt_thousands(n2, p->tokens), pct(p1, ct, p->tokens),
			strategy_name(p->strategy), strategy_sentence(p->strategy),
			fmt_thousands(n3, (long long)d->higher), d->higher == 1 ? "" : "s",
			fmt_thousands(n4, d->higher_tokens));
		if (ct * 2 < p->tokens)
			asm_warn(a, i, "%s truncated significantly: kept %s of %s tokens", p->id, fmt_thousands(n1, ct),
				 fmt_thousands(n2, p->tokens));
		t->truncated++;
	}
}

/* Explain, the pieces: each one's outcome and sentence, in priority order,
 * then the warnings on the whole. */
static void explain(struct walk *w, struct assembly *a)
{
	size_t n = w->src->npieces;
	/* Optional: without it (out of memory) every drop formats its own. */
	struct drop_cache *cache = n > DROP_CACHE_SLOTS / 4 ? cs_calloc(1, sizeof *cache) : NULL;
	if (cache)
		cache->generation = 1;
	struct tally t = { 0 };
	for (size_t k = 0; k < n; k++) {
		if (k + PREFETCH_AHEAD < n)
			prefetch_result(a, w->order[k + PREFETCH_AHEAD].index);
		const struct decision *d = &w->dec[k];
		if (d->verdict == V_WHOLE)
			asm_whole(a, (long)w->order[k].index, d->block, d->tokens);
		else
			explain_one(w, a, cache, k, &t);
	}
	cs_free(cache);
	if (t.excluded_budget)
		asm_warn(a, -1, "%zu file%s excluded due to budget", t.excluded_budget, t.excluded_budget == 1 ? "" : "s");
	if (t.truncated)
		asm_warn(a, -1, "%zu file%s truncated to fit", t.truncated, t.truncated == 1 ? "" : "s");
	/* truncated means cut (seed 002's `truncated: true` on an included file);
	 * files left out whole are counted apart */
	if (t.truncated || t.capped)
		a->flags |= ASM_TRUNCATED;
	a->excluded = (long)t.excluded_budget;
}

/* Explain, the pieces that must go in (priority 1.0) and did not. */
static void explain_must(const struct walk *w, struct assembly *a)
{
	const struct source *src = w->src;
	/* Priority 1.0 pieces lead the sorted order, in file order (the sort is
	 * stable): walk that prefix, not every piece. Any priority above 1.0
	 * (not loadable today) breaks the file order: then walk them all. */
	size_t must = 0;
	bool above_one = false;
	while (must < src->npieces && src->pieces[w->order[must].index].priority >= 1.0) {
		above_one |= src->pieces[w->order[must].index].priority > 1.0;
		must++;
	}
	for (size_t k = 0, n = above_one ? src->npieces : must; k < n; k++) {
		size_t i = above_one ? k : w->order[k].index;
		const struct piece *p = &src->pieces[i];
		if (p->priority >= 1.0 && a->results[i].outcome == OUTCOME_DROPPED && !piece_excluded(p)) {
			a->flags |= ASM_MUST_MISSING;
			asm_warn(a, (long)i, "%s has priority 1.0 (always included) but was not included: %s", p->id,
				 a->results[i].sentence ? a->results[i].sentence : "");
		}
	}
}

/* sort → decide (the sorted array filtering in front) → render → explain. */
int manifest_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	const struct manifest *m = src->model;
	int rc = asm_init(a, run, ASM_DOCUMENT);
	if (rc != CS_OK)
		return cs_error_nomem(err);
	static const char *const layers[] = { "boot", "system", "developer", "user", "context" };
	asm_grouping(a, "role", layers, 5);

	struct walk w = { .src = src, .m = m };
	w.effective = src->settings.budget >= 0 ? src->settings.budget : m->effective;
	a->budget.limit = src->settings.budget >= 0 ? w.effective + m->reserved : m->max_tokens;
	a->budget.reserve = m->reserved;
	a->budget.usable = w.effective;
	if (m->protocol)
		asm_fact(a, "protocol", "%s", m->protocol);
	if (src->settings.budget >= 0) {
		char n1[32], n2[32];
		asm_fact(a, "budget", "%s set with b or --budget, instead of the manifest's effective %s",
			 fmt_thousands(n1, src->settings.budget), fmt_thousands(n2, m->effective));
	}
	else
		asm_fact(a, "budget", "%s", m->has_budget ? "from the manifest" : "default (no budget in the manifest)");

	size_t nitems = src->npieces ? src->npieces : 1;
	w.order = cs_malloc(2 * nitems * sizeof *w.order);
	w.dec = cs_malloc(nitems * sizeof *w.dec);
	w.placed = cs_malloc(nitems * sizeof *w.placed);
	if (!w.order || !w.dec || !w.placed || !sort_pieces(src, m, w.order, nitems)) {
		cs_free(w.order);
		cs_free(w.dec);
		cs_free(w.placed);
		return cs_error_nomem(err);
	}
	if (m->boot_header)
		boot_header(a, m, &w.used);
	for (size_t k = 0; k < src->npieces; k++) {
		if (k + PREFETCH_AHEAD < src->npieces && (w.order[k + PREFETCH_AHEAD].flags & SORT_SLOW))
			prefetch_piece(src, m, w.order[k + PREFETCH_AHEAD].index);
		struct candidate c = candidate_at(&w, k, a->chars_per_token);
		decide(&w, &c, &w.dec[k], a->chars_per_token);
	}
	render(&w, a);
	place_breakpoints(a);
	explain(&w, a);
	explain_must(&w, a);
	cs_free(w.order);
	cs_free(w.dec);
	cs_free(w.placed);

	char n1[32];
	rc = asm_finish(a, err);
	if (rc == CS_OK && a->budget.used > w.effective)
		asm_state(a, ASM_OVER_LIMIT, "the boot header alone is over the budget by %s tokens",
			  fmt_thousands(n1, a->budget.used - w.effective));
	if (a->flags & ASM_OVER_LIMIT)
		a->over_by = a->budget.used - w.effective;
	return rc;
}

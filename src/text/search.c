/* search.c: pcre2 search and filter over an assembly (see search.h). */
#include "text/search.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdint.h>
#include <string.h>
#include <time.h>

#define SEARCH_PCRE_MESSAGE_MAX 256 /* pcre2's longest error message is about 120 bytes */

/* Capitals: a letter of category Lu or Lt. Compiled once per pattern. */
static const char UPPER_PATTERN[] = "[\\p{Lu}\\p{Lt}]";

struct search_pattern {
	pcre2_general_context *gc;
	pcre2_match_context *mc;
	pcre2_code *code;
	char *text;    /* the pattern as given; owned */
	bool caseless;
	long time_limit_ms; /* for a whole search; 0: none */
};

/* When a search must stop: a monotonic instant, or none. */
struct deadline {
	bool on;
	struct timespec at;
	size_t *calls; /* pcre2_match calls made, counted (search_result.match_calls); NULL: not counted */
};

static struct deadline deadline_start(const struct search_pattern *p)
{
	struct deadline d = { .on = false };
	if (p->time_limit_ms > 0 && clock_gettime(CLOCK_MONOTONIC, &d.at) == 0) {
		d.on = true;
		d.at.tv_sec += p->time_limit_ms / 1000;
		d.at.tv_nsec += (p->time_limit_ms % 1000) * 1000000L;
		if (d.at.tv_nsec >= 1000000000L) {
			d.at.tv_sec++;
			d.at.tv_nsec -= 1000000000L;
		}
	}
	return d;
}

static bool deadline_passed(const struct deadline *d)
{
	struct timespec now;
	if (!d || !d->on || clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return false;
	return now.tv_sec > d->at.tv_sec || (now.tv_sec == d->at.tv_sec && now.tv_nsec >= d->at.tv_nsec);
}

void search_pattern_set_time_limit(struct search_pattern *p, long ms)
{
	p->time_limit_ms = ms > 0 ? ms : 0;
}

void search_pattern_free(struct search_pattern *p)
{
	if (!p)
		return;
	pcre2_code_free(p->code);
	pcre2_match_context_free(p->mc);
	pcre2_general_context_free(p->gc);
	cs_free(p->text);
	cs_free(p);
}

bool search_pattern_caseless(const struct search_pattern *p)
{
	return p->caseless;
}

const char *search_pattern_text(const struct search_pattern *p)
{
	return p->text;
}

/* Skips a name or argument closed by `close` starting at s[i] (just past the
 * opening character); returns the index after the closer (or the end). */
static size_t skip_to(const char *s, size_t i, char close)
{
	while (s[i] && s[i] != close)
		i++;
	return s[i] ? i + 1 : i;
}

/* Appends to lit the characters of the pattern that stand for themselves
 * (outside escapes, group names, flags and verbs). */
static void literal_chars(const char *s, struct strbuf *lit)
{
	size_t i = 0;
	bool quoted = false; /* inside \Q ... \E */
	while (s[i]) {
		if (quoted) {
			if (s[i] == '\\' && s[i + 1] == 'E') {
				quoted = false;
				i += 2;
			} else {
				sb_putc(lit, s[i++]);
			}
			continue;
		}
		if (s[i] == '\\') {
			char c = s[i + 1];
			if (!c)
				break;
			i += 2;
			if (c == 'Q') {
				quoted = true;
			} else if (c == 'c' && s[i]) { /* \cA: a control character */
				i++;
			} else if (c == 'x' && s[i] != '{') { /* \xAB: hex digits */
				for (int k = 0; k < 2 && strchr("0123456789abcdefABCDEF", s[i]) && s[i]; k++)
					i++;
			} else if (strchr("pPxoNgk", c) && (s[i] == '{' || s[i] == '<' || s[i] == '\'')) {
				char open = s[i];
				i = skip_to(s, i + 1, open == '{' ? '}' : open == '<' ? '>' : '\'');
			} else if ((unsigned char)c >= 0x80) {
				/* an escaped non-ASCII character stands for itself */
				sb_putc(lit, c);
			}
			continue;
		}
		if (s[i] == '(' && s[i + 1] == '*') { /* (*UTF), (*SKIP), (*MARK:NAME) */
			i = skip_to(s, i + 2, ')');
			continue;
		}
		if (s[i] == '(' && s[i + 1] == '?') {
			i += 2;
			if (s[i] == 'P' && (s[i + 1] == '<' || s[i + 1] == '=' || s[i + 1] == '>'))
				i = skip_to(s, i + 2, s[i + 1] == '<' ? '>' : ')');
			else if (s[i] == '<' && s[i + 1] != '=' && s[i + 1] != '!')
				i = skip_to(s, i + 1, '>');
			else if (s[i] == '\'')
				i = skip_to(s, i + 1, '\'');
			else if (s[i] == '&' || s[i] == '#') /* (?&name), (?#comment) */
				i = skip_to(s, i + 1, ')');
			else /* flags: (?i) (?-i) (?x:...) */
				while (s[i] && strchr("imnsxJUB^-", s[i]))
					i++;
			continue;
		}
		sb_putc(lit, s[i++]);
	}
}

static pcre2_general_context *general_context(void)
{
	return pcre2_general_context_create(cs_pcre2_malloc, cs_pcre2_free, NULL);
}

/* Whether lit holds a capital; -1 on out of memory. */
static int has_upper(pcre2_general_context *gc, const char *lit, size_t len)
{
	int code;
	PCRE2_SIZE off;
	pcre2_compile_context *cc = pcre2_compile_context_create(gc);
	if (!cc)
		return -1;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)UPPER_PATTERN, PCRE2_ZERO_TERMINATED,
				       PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &code, &off, cc);
	pcre2_compile_context_free(cc);
	if (!re)
		return -1;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, gc);
	int rc = md ? pcre2_match(re, (PCRE2_SPTR)lit, len, 0, 0, md, NULL) : PCRE2_ERROR_NOMEMORY;
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	if (rc == PCRE2_ERROR_NOMEMORY || rc == PCRE2_ERROR_HEAP_FAILED)
		return -1;
	return rc >= 0;
}

static int smart_caseless(pcre2_general_context *gc, const char *pattern, bool *caseless)
{
	struct strbuf lit = STRBUF_INIT;
	literal_chars(pattern, &lit);
	if (lit.failed) {
		sb_fini(&lit);
		return CS_ENOMEM;
	}
	int up = has_upper(gc, sb_str(&lit), lit.len);
	sb_fini(&lit);
	if (up < 0)
		return CS_ENOMEM;
	*caseless = !up;
	return CS_OK;
}

bool search_smart_caseless(const char *pattern)
{
	pcre2_general_context *gc = general_context();
	bool caseless = true;
	if (gc)
		smart_caseless(gc, pattern, &caseless);
	pcre2_general_context_free(gc);
	return caseless;
}

int search_pattern_compile(const char *pattern, struct search_pattern **out, size_t *offset_bytes,
			   struct cs_error *err)
{
	*out = NULL;
	if (offset_bytes)
		*offset_bytes = 0;
	struct search_pattern *p = cs_calloc(1, sizeof *p);
	if (!p)
		return cs_error_nomem(err);
	p->text = cs_strdup(pattern);
	p->gc = general_context();
	p->mc = p->gc ? pcre2_match_context_create(p->gc) : NULL;
	if (!p->text || !p->mc || smart_caseless(p->gc, pattern, &p->caseless) != CS_OK) {
		search_pattern_free(p);
		return cs_error_nomem(err);
	}
	p->time_limit_ms = SEARCH_TIME_LIMIT_MS;
	pcre2_set_match_limit(p->mc, SEARCH_MATCH_LIMIT);
	pcre2_set_depth_limit(p->mc, SEARCH_DEPTH_LIMIT);

	pcre2_compile_context *cc = pcre2_compile_context_create(p->gc);
	if (!cc) {
		search_pattern_free(p);
		return cs_error_nomem(err);
	}
	uint32_t options = PCRE2_UTF | PCRE2_UCP | PCRE2_NEVER_BACKSLASH_C;
	if (p->caseless)
		options |= PCRE2_CASELESS;
	int code;
	PCRE2_SIZE off = 0;
	p->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, options, &code, &off, cc);
	pcre2_compile_context_free(cc);
	if (p->code) {
		*out = p;
		return CS_OK;
	}
	search_pattern_free(p);
	if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAP_FAILED)
		return cs_error_nomem(err);
	size_t len = strlen(pattern);
	if (off > len)
		off = len;
	if (offset_bytes)
		*offset_bytes = off;
	PCRE2_UCHAR msg[SEARCH_PCRE_MESSAGE_MAX];
	if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
		memcpy(msg, "unknown error", sizeof "unknown error");
	size_t column = utf8_count_code_points(pattern, off) + 1;
	cs_error_pos(err, 0, (long)column);
	return cs_error_set(err, CS_EUSAGE, "%s (at character %zu of the pattern)", (const char *)msg, column);
}

/* Called with each hit's byte offsets; anything but CS_OK stops the scan
 * (CS_ESTATE: stop quietly, found or capped). */
typedef int (*hit_fn)(void *ctx, size_t start, size_t end);

/* The non-empty matches in one valid UTF-8 run, text[0..len) (already
 * checked: pcre2 is told not to check again, which would cost the whole
 * rest of the text on every call and make a search quadratic). base is the
 * run's offset in the whole text, for the hits; options NOTBOL / NOTEOL when
 * the run does not start / end the text. */
static int scan_run(const struct search_pattern *p, pcre2_match_data *md, const struct deadline *dl, const char *text,
		    size_t len, size_t base, uint32_t options, hit_fn visit, void *ctx, struct cs_error *err)
{
	size_t off = 0;
	while (off <= len) {
		if (deadline_passed(dl))
			return cs_error_set(err, CS_ELIMIT, "pattern too costly: the search took more than %ld ms",
					    p->time_limit_ms);
		if (dl && dl->calls)
			++*dl->calls;
		int rc = pcre2_match(p->code, (PCRE2_SPTR)text, len, off, options | PCRE2_NO_UTF_CHECK, md, p->mc);
		if (rc == PCRE2_ERROR_NOMATCH)
			return CS_OK;
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT)
			return cs_error_set(err, CS_ELIMIT, "pattern too costly: it backtracks past the limit of %ld steps",
					    SEARCH_MATCH_LIMIT);
		if (rc == PCRE2_ERROR_NOMEMORY || rc == PCRE2_ERROR_HEAP_FAILED)
			return cs_error_nomem(err);
		if (rc < 0) {
			PCRE2_UCHAR msg[SEARCH_PCRE_MESSAGE_MAX];
			if (pcre2_get_error_message(rc, msg, sizeof msg) < 0)
				memcpy(msg, "unknown error", sizeof "unknown error");
			return cs_error_set(err, CS_EUSAGE, "search failed: %s", (const char *)msg);
		}
		const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		if (ov[1] > ov[0]) {
			int vrc = visit(ctx, base + ov[0], base + ov[1]);
			if (vrc != CS_OK)
				return vrc;
			off = ov[1];
		} else {
			/* an empty match is no hit: go on after the character there */
			size_t at = ov[0] > off ? ov[0] : off;
			if (at >= len)
				return CS_OK;
			int32_t cp;
			off = at + utf8_decode(text + at, len - at, &cp);
		}
	}
	return CS_OK;
}

/* Calls visit for every non-empty match in text[0..len), run by run of
 * valid UTF-8: an invalid byte never matches and no match spans one (as
 * with PCRE2_MATCH_INVALID_UTF). Returns CS_OK, CS_ELIMIT, CS_ENOMEM,
 * CS_EUSAGE, or what visit returned when not CS_OK. */
static int scan(const struct search_pattern *p, pcre2_match_data *md, const struct deadline *dl, const char *text,
		size_t len, hit_fn visit, void *ctx, struct cs_error *err)
{
	size_t start = 0;
	for (;;) {
		size_t end = start;
		while (end < len) {
			int32_t cp;
			size_t k = utf8_decode(text + end, len - end, &cp);
			if (cp == UTF8_INVALID)
				break;
			end += k;
		}
		uint32_t options = (start > 0 ? PCRE2_NOTBOL : 0) | (end < len ? PCRE2_NOTEOL : 0);
		int rc = scan_run(p, md, dl, text + start, end - start, start, options, visit, ctx, err);
		if (rc != CS_OK || end >= len)
			return rc;
		start = end + 1; /* past the invalid byte */
	}
}

static int found_one(void *ctx, size_t start, size_t end)
{
	(void)start;
	(void)end;
	*(bool *)ctx = true;
	return CS_ESTATE; /* stop at the first: the caller turns this into "found" */
}

int search_pattern_find(const struct search_pattern *p, const char *text, size_t len, bool *found,
			struct cs_error *err)
{
	*found = false;
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(p->code, p->gc);
	if (!md)
		return cs_error_nomem(err);
	struct deadline dl = deadline_start(p);
	int rc = scan(p, md, &dl, text, len, found_one, found, err);
	pcre2_match_data_free(md);
	return rc == CS_ESTATE ? CS_OK : rc;
}

/* ---- search over an assembly ---------------------------------------------- */

struct collect {
	struct search_result *r;
	enum search_target target;
	long index;
	size_t base;     /* added to start for the ordering key */
	long *count;     /* the per-block or per-piece counter */
	long *count2;    /* a second counter (text hits) or NULL */
};

static int collect_hit(void *ctx, size_t start, size_t end)
{
	struct collect *c = ctx;
	struct search_result *r = c->r;
	size_t in_scope = c->target == SEARCH_BLOCK ? r->nhits : r->nhits - r->nprompt_hits;
	if (in_scope >= SEARCH_MAX_HITS) {
		r->capped = true;
		return CS_ESTATE; /* stop quietly */
	}
	if (CS_GROW(r->hits, r->cap, r->nhits + 1) != 0)
		return CS_ENOMEM;
	r->hits[r->nhits++] = (struct search_hit){
		.target = c->target, .index = c->index, .start = start, .end = end, .key = c->base + start,
	};
	(*c->count)++;
	if (c->count2)
		(*c->count2)++;
	return CS_OK;
}

void search_result_fini(struct search_result *r)
{
	if (!r)
		return;
	cs_free(r->hits);
	cs_free(r->block_hits);
	cs_free(r->piece_hits);
	cs_free(r->piece_text_hits);
	memset(r, 0, sizeof *r);
}

static int run_one(const struct search_pattern *p, pcre2_match_data *md, const struct deadline *dl, const char *text,
		   size_t len, struct collect *c, struct cs_error *err)
{
	int rc = scan(p, md, dl, text, len, collect_hit, c, err);
	if (rc == CS_ENOMEM)
		return cs_error_nomem(err);
	return rc;
}

int search_run(const struct search_pattern *p, const struct assembly *a, struct search_result *out,
	       struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	const struct source *src = a->src;
	out->nblocks = a->nblocks;
	out->npieces = src->npieces;
	out->block_hits = cs_calloc(a->nblocks ? a->nblocks : 1, sizeof *out->block_hits);
	out->piece_hits = cs_calloc(src->npieces ? src->npieces : 1, sizeof *out->piece_hits);
	out->piece_text_hits = cs_calloc(src->npieces ? src->npieces : 1, sizeof *out->piece_text_hits);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(p->code, p->gc);
	struct deadline dl = deadline_start(p);
	dl.calls = &out->match_calls;
	struct strbuf text = STRBUF_INIT;
	int rc = CS_OK;
	if (!out->block_hits || !out->piece_hits || !out->piece_text_hits || !md)
		rc = cs_error_nomem(err);

	for (size_t b = 0; rc == CS_OK && b < a->nblocks; b++) {
		sb_reset(&text);
		asm_block_text(a, b, &text);
		if (text.failed) {
			rc = cs_error_nomem(err);
			break;
		}
		struct collect c = { out, SEARCH_BLOCK, (long)b, 0, &out->block_hits[b], NULL };
		rc = run_one(p, md, &dl, sb_str(&text), text.len, &c, err);
	}
	if (rc == CS_ESTATE) /* the prompt's hits are capped: the pieces get their own */
		rc = CS_OK;
	out->nprompt_hits = out->nhits;
	for (size_t i = 0; rc == CS_OK && i < src->npieces; i++) {
		const struct piece *pc = &src->pieces[i];
		const char *label = pc->label ? pc->label : "";
		size_t label_len = strlen(label);
		struct collect c = { out, SEARCH_LABEL, (long)i, 0, &out->piece_hits[i], NULL };
		rc = run_one(p, md, &dl, label, label_len, &c, err);
		if (rc != CS_OK)
			break;
		c = (struct collect){ out, SEARCH_TEXT, (long)i, label_len + 1, &out->piece_hits[i],
				      &out->piece_text_hits[i] };
		rc = run_one(p, md, &dl, pc->text ? pc->text : "", pc->text ? pc->text_bytes : 0, &c, err);
	}
	if (rc == CS_ESTATE) /* capped: keep what was found */
		rc = CS_OK;
	pcre2_match_data_free(md);
	sb_fini(&text);
	if (rc != CS_OK)
		search_result_fini(out);
	return rc;
}

/* [lo, hi) of the hits in scope. */
static void scope_range(const struct search_result *r, enum search_scope scope, size_t *lo, size_t *hi)
{
	if (scope == SEARCH_SCOPE_PROMPT) {
		*lo = 0;
		*hi = r->nprompt_hits;
	} else {
		*lo = r->nprompt_hits;
		*hi = r->nhits;
	}
}

long search_step(const struct search_result *r, long current, bool backward)
{
	if (current < 0 || (size_t)current >= r->nhits)
		return -1;
	size_t lo, hi;
	scope_range(r, (size_t)current < r->nprompt_hits ? SEARCH_SCOPE_PROMPT : SEARCH_SCOPE_PIECES, &lo, &hi);
	size_t c = (size_t)current;
	if (backward)
		return (long)(c == lo ? hi - 1 : c - 1);
	return (long)(c + 1 == hi ? lo : c + 1);
}

/* -1, 0, 1 as hit h sits before, at, after (index, offset). */
static int compare(const struct search_hit *h, long index, size_t offset)
{
	if (h->index != index)
		return h->index < index ? -1 : 1;
	if (h->key != offset)
		return h->key < offset ? -1 : 1;
	return 0;
}

long search_from(const struct search_result *r, enum search_scope scope, long index, size_t offset,
		 bool backward)
{
	size_t lo, hi;
	scope_range(r, scope, &lo, &hi);
	if (lo == hi)
		return -1;
	if (!backward) {
		for (size_t i = lo; i < hi; i++)
			if (compare(&r->hits[i], index, offset) >= 0)
				return (long)i;
		return (long)lo;
	}
	for (size_t i = hi; i-- > lo;)
		if (compare(&r->hits[i], index, offset) <= 0)
			return (long)i;
	return (long)(hi - 1);
}

/* "16", or "100,000+" when the scope was capped at that count. */
static void count_text(struct strbuf *out, size_t n)
{
	sb_thousands(out, (long long)n);
	if (n >= SEARCH_MAX_HITS)
		sb_putc(out, '+');
}

bool search_describe(const struct search_result *r, long current, struct strbuf *out)
{
	size_t prompt = r->nprompt_hits, pieces = r->nhits - r->nprompt_hits;
	if (r->nhits == 0)
		return sb_puts(out, "no match");
	if (current >= 0 && (size_t)current < r->nhits) {
		bool in_prompt = (size_t)current < prompt;
		sb_printf(out, "match %ld of ", in_prompt ? current + 1 : current - (long)prompt + 1);
		count_text(out, in_prompt ? prompt : pieces);
		sb_puts(out, in_prompt ? " in the prompt (" : " in pieces (");
		count_text(out, in_prompt ? pieces : prompt);
		sb_puts(out, in_prompt ? " in pieces)" : " in the prompt)");
	} else {
		count_text(out, prompt);
		sb_puts(out, prompt == 1 ? " match in the prompt, " : " matches in the prompt, ");
		count_text(out, pieces);
		sb_puts(out, " in pieces");
	}
	return !out->failed;
}

/* ---- filter --------------------------------------------------------------- */

int search_filter(const struct search_pattern *p, const struct source *src, bool invert, bool *keep,
		  size_t *kept, struct cs_error *err)
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(p->code, p->gc);
	if (!md)
		return cs_error_nomem(err);
	int rc = CS_OK;
	size_t n = 0;
	struct deadline dl = deadline_start(p);
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece *pc = &src->pieces[i];
		bool found = false;
		const char *label = pc->label ? pc->label : "";
		rc = scan(p, md, &dl, label, strlen(label), found_one, &found, err);
		if (rc == CS_ESTATE)
			rc = CS_OK;
		if (rc == CS_OK && !found && pc->text) {
			rc = scan(p, md, &dl, pc->text, pc->text_bytes, found_one, &found, err);
			if (rc == CS_ESTATE)
				rc = CS_OK;
		}
		if (rc != CS_OK)
			break;
		keep[i] = found != invert;
		n += keep[i];
	}
	pcre2_match_data_free(md);
	if (rc != CS_OK) {
		for (size_t i = 0; i < src->npieces; i++)
			keep[i] = true;
		n = src->npieces;
	}
	if (kept)
		*kept = n;
	return rc;
}

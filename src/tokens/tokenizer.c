/* tokenizer.c: the pre-tokenizer split and the rank files (see tokenizer.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokens/tokenizer.h"

#include "base/alloc.h"
#include "tokens/bpe.h"
#include "tokens/bpe_cache.h"
#include "base/fileio.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* JavaScript's \s (gpt-tokenizer is the reference): Unicode White_Space
 * without U+0085 and U+180E, plus U+FEFF. Spelled out so that pcre2's own
 * idea of \s, which varies with its version, never matters. */
#define WS "\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"
#define CONTRACTION "'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])"
#define UPPERISH "[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]"
#define LOWERISH "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]"

/* The encodings' split patterns, as gpt-tokenizer writes them (tiktoken's,
 * without possessive quantifiers; JavaScript's `$` is the end of the text). */
static const char o200k_split[] =
	"[^\\r\\n\\p{L}\\p{N}]?" UPPERISH "*" LOWERISH "+(?:" CONTRACTION ")?"
	"|[^\\r\\n\\p{L}\\p{N}]?" UPPERISH "+" LOWERISH "*(?:" CONTRACTION ")?"
	"|\\p{N}{1,3}"
	"| ?[^" WS "\\p{L}\\p{N}]+[\\r\\n/]*"
	"|[" WS "]*[\\r\\n]+"
	"|[" WS "]+(?![^" WS "])"
	"|[" WS "]+";
static const char cl100k_split[] =
	CONTRACTION
	"|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+"
	"|\\p{N}{1,3}"
	"| ?[^" WS "\\p{L}\\p{N}]+[\\r\\n]*"
	"|[" WS "]+\\z"
	"|[" WS "]*[\\r\\n]"
	"|[" WS "]+(?![^" WS "])"
	"|[" WS "]";
static const char r50k_split[] =
	"'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" WS "\\p{L}\\p{N}]+"
	"|[" WS "]+(?![^" WS "])|[" WS "]+";

/* claude: ai-tokenizer's approximate Claude encoding; its pre-tokenizer is
 * r50k's pattern (ctxscope-formats(5) §8; claude-convert.js checks that it still is). */
static const struct builtin {
	const char *name, *alias;
	const char *split;
	bool approximate;
} builtins[] = {
	{ "o200k_base", "o200k", o200k_split, false },
	{ "cl100k_base", "cl100k", cl100k_split, false },
	{ "claude", "claude", r50k_split, true },
};

/* ai-tokenizer looks a whole piece up in a plain JavaScript object before
 * merging it: a piece that names an inherited member of Object.prototype
 * (valueOf, hasOwnProperty...) and is not itself a token finds that member,
 * and counts as one token. Its merge never joins two parts into such a name
 * (the member is no rank, compared as NaN). Only the names a piece can be:
 * letters alone. */
static const char *const js_inherited[] = {
	"constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString",
	"valueOf", NULL,
};

/* Counting remembers the count of short pieces it merged: words repeat. A
 * direct-mapped table, a slot overwritten on a clash. */
#define CACHE_SLOTS 16384
#define CACHE_KEY 27
struct cache_slot {
	uint32_t count;
	uint8_t len; /* 0: empty */
	unsigned char key[CACHE_KEY];
};

/* Longer pieces (a CJK sentence is one \p{L}+ piece, a rule of '=' one
 * punctuation piece) are remembered too, with a copy of their bytes, up to
 * LONG_PIECE bytes: LONG_SLOTS of them, 16 MiB at most. */
#define LONG_SLOTS 4096
#define LONG_PIECE 4096
struct long_slot {
	unsigned char *bytes; /* cs_malloc'd copy; NULL: empty */
	uint32_t len, count;
};

struct tokenizer {
	char name[64];
	struct cache_slot *cache;
	struct long_slot *long_cache; /* LONG_SLOTS; NULL until a long piece is counted */
	struct bpe_ranks ranks;
	pcre2_general_context *gc;
	pcre2_match_context *mc;
	pcre2_jit_stack *jit_stack;
	pcre2_code *code;
	pcre2_match_data *md;
	bool jit, jit_compiled;
	bool splits_at_lines; /* the o200k or cl100k pattern: see tokenizer_splits_at_lines */
	bool approximate;     /* claude: see tokenizer_approximate */
	bool js_lookup;       /* claude: whole pieces looked up as ai-tokenizer does (js_inherited) */
};

static const struct builtin *builtin_named(const char *name)
{
	for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
		if (!strcmp(name, builtins[i].name) || !strcmp(name, builtins[i].alias))
			return &builtins[i];
	return NULL;
}

/* ---- where the rank files are ---------------------------------------------- */

static bool try_dir(const char *dir, const char *sub, const char *file, char *path, size_t size)
{
	if (!dir || !dir[0])
		return false;
	int n = snprintf(path, size, "%s%s/%s.tiktoken", dir, sub, file);
	return n > 0 && (size_t)n < size && access(path, R_OK) == 0;
}

bool tokenizer_builtin(const char *name)
{
	return builtin_named(name) != NULL;
}

bool tokenizer_find(const char *name, char *path, size_t size)
{
	const struct builtin *b = builtin_named(name);
	if (!b)
		return false;
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0] ? try_dir(xdg, "/ctxscope/tokenizers", b->name, path, size)
			  : try_dir(home, "/.local/share/ctxscope/tokenizers", b->name, path, size))
		return true;
	if (try_dir(CTXSCOPE_DATADIR, "/tokenizers", b->name, path, size))
		return true;
	/* The build tree: .build/<flavour>/ctxscope finds .build/tokenizers. */
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';
	for (int up = 0; up < 3; up++) { /* the binary, or a test's in .build/asan/tests */
		if (try_dir(exe, "/tokenizers", b->name, path, size))
			return true;
		if (!(slash = strrchr(exe, '/')))
			break;
		*slash = '\0';
	}
	return false;
}

/* ---- opening ------------------------------------------------------------- */

static int compile_split(struct tokenizer *t, const char *pattern, struct cs_error *err)
{
	t->gc = pcre2_general_context_create(cs_pcre2_malloc, cs_pcre2_free, NULL);
	pcre2_compile_context *cc = t->gc ? pcre2_compile_context_create(t->gc) : NULL;
	if (!cc)
		return cs_error_nomem(err);
	int code;
	PCRE2_SIZE off;
	unsigned long failures = cs_alloc_failures();
	t->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_NO_UTF_CHECK,
				&code, &off, cc);
	pcre2_compile_context_free(cc);
	if (!t->code)
		return cs_alloc_failures() != failures ? cs_error_nomem(err)
			: cs_error_set(err, CS_ESTRUCT, "the %s split pattern does not compile (pcre2 error %d at %zu)",
				       t->name, code, (size_t)off);
	t->jit = t->jit_compiled = pcre2_jit_compile(t->code, PCRE2_JIT_COMPLETE) == 0;
	t->mc = pcre2_match_context_create(t->gc);
	t->md = pcre2_match_data_create(1, t->gc);
	if (!t->mc || !t->md)
		return cs_error_nomem(err);
	/* Long runs (10 MB of whitespace) backtrack once per character: no
	 * practical limit, the patterns cannot go exponential. */
	pcre2_set_match_limit(t->mc, UINT32_MAX);
	pcre2_set_depth_limit(t->mc, UINT32_MAX);
	pcre2_set_heap_limit(t->mc, UINT32_MAX);
	if (t->jit) {
		t->jit_stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, t->gc);
		if (!t->jit_stack)
			return cs_error_nomem(err);
		pcre2_jit_stack_assign(t->mc, NULL, t->jit_stack);
	}
	return CS_OK;
}

/* The rank table: mapped from the cache when it holds this very file,
 * else parsed (and cached when the file is big). */
static int load_ranks(struct tokenizer *t, const char *path, struct cs_error *err)
{
	struct cs_error ignored;
	struct file_stamp stamp;
	bool stamped = file_stamp(path, &stamp, &ignored) == CS_OK;
	if (stamped && bpe_cache_load(&t->ranks, path, &stamp))
		return CS_OK;
	char *buf = NULL;
	size_t len = 0;
	int rc = file_read(path, 0, &buf, &len, NULL, err);
	if (rc == CS_OK)
		rc = bpe_ranks_parse(&t->ranks, buf, len, path, err);
	cs_free(buf);
	struct file_stamp after; /* the file read is the one stamped */
	if (rc == CS_OK && stamped && file_stamp(path, &after, &ignored) == CS_OK && file_stamp_equal(&stamp, &after))
		bpe_cache_save(&t->ranks, path, &stamp);
	return rc;
}

static const char *split_for_path(const char *base)
{
	if (!strncmp(base, "cl100k", 6))
		return cl100k_split;
	if (!strncmp(base, "p50k", 4) || !strncmp(base, "r50k", 4))
		return r50k_split;
	return o200k_split;
}

int tokenizer_open(const char *name_or_path, struct tokenizer **out, struct cs_error *err)
{
	*out = NULL;
	const struct builtin *b = builtin_named(name_or_path);
	char path[4096];
	if (b && !tokenizer_find(b->name, path, sizeof path))
		return cs_error_set(err, CS_EIO, "%s: %s", b->name,
				    b->approximate ? TOKENIZER_HOW_TO_GET_CLAUDE : TOKENIZER_HOW_TO_GET);
	if (!b)
		snprintf(path, sizeof path, "%s", name_or_path);
	struct tokenizer *t = cs_calloc(1, sizeof *t);
	if (t)
		t->cache = cs_calloc(CACHE_SLOTS, sizeof *t->cache);
	if (!t || !t->cache) {
		cs_free(t);
		return cs_error_nomem(err);
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	snprintf(t->name, sizeof t->name, "%.63s", b ? b->name : base);
	int rc = load_ranks(t, path, err);
	const char *pattern = b ? b->split : split_for_path(base);
	t->splits_at_lines = pattern == o200k_split || pattern == cl100k_split;
	t->approximate = t->js_lookup = b && b->approximate;
	if (rc == CS_OK)
		rc = compile_split(t, pattern, err);
	if (rc != CS_OK) {
		tokenizer_close(t);
		return rc;
	}
	*out = t;
	return CS_OK;
}

void tokenizer_close(struct tokenizer *t)
{
	if (!t)
		return;
	pcre2_match_data_free(t->md);
	pcre2_code_free(t->code);
	pcre2_jit_stack_free(t->jit_stack);
	pcre2_match_context_free(t->mc);
	pcre2_general_context_free(t->gc);
	bpe_ranks_fini(&t->ranks);
	cs_free(t->cache);
	if (t->long_cache)
		for (size_t i = 0; i < LONG_SLOTS; i++)
			cs_free(t->long_cache[i].bytes);
	cs_free(t->long_cache);
	cs_free(t);
}

const char *tokenizer_name(const struct tokenizer *t)
{
	return t->name;
}

bool tokenizer_approximate(const struct tokenizer *t)
{
	return t->approximate;
}

bool tokenizer_name_approximate(const char *name)
{
	const struct builtin *b = name ? builtin_named(name) : NULL;
	return b && b->approximate;
}

const char *tokenizer_kind(const char *name)
{
	return tokenizer_name_approximate(name) ? "approximate" : "exact";
}

const char *tokenizer_mark(const char *name, bool ascii)
{
	return !tokenizer_name_approximate(name) ? "" : ascii ? "~" : "\u2248";
}

bool tokenizer_splits_at_lines(const struct tokenizer *t)
{
	return t->splits_at_lines;
}

void tokenizer_use_jit(struct tokenizer *t, bool on)
{
	t->jit = on && t->jit_compiled;
}

const struct bpe_ranks *tokenizer_ranks(const struct tokenizer *t)
{
	return &t->ranks;
}

/* ---- invalid UTF-8 ------------------------------------------------------- */

/* The length of the valid character at s[0..n), or 0 with *skip set to the
 * maximal subpart to replace (WHATWG / Unicode's recommended practice). */
static size_t utf8_valid_len(const unsigned char *s, size_t n, size_t *skip)
{
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 1;
	else if (c >= 0xE0 && c <= 0xEF)
		need = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
	else if (c >= 0xF0 && c <= 0xF4)
		need = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
	else {
		*skip = 1;
		return 0;
	}
	size_t i = 1;
	for (; i <= need; i++) {
		if (i >= n || s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xBF)) {
			*skip = i;
			return 0;
		}
	}
	return i;
}

/* s[0..n) with every invalid subpart replaced by U+FFFD, into *fixed
 * (cs_malloc'd) — or *fixed NULL when s is valid UTF-8. */
static int replace_invalid(const char *s, size_t n, char **fixed, size_t *fixed_len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, skip = 0;
	*fixed = NULL;
	while (i < n) {
		size_t k = utf8_valid_len(u + i, n - i, &skip);
		if (!k)
			break;
		i += k;
	}
	if (i == n)
		return CS_OK;
	if (n > (SIZE_MAX - 1) / 3)
		return CS_ENOMEM;
	char *o = cs_malloc(3 * n + 1); /* one byte can become three */
	if (!o)
		return CS_ENOMEM;
	memcpy(o, s, i);
	size_t w = i;
	while (i < n) {
		size_t k = utf8_valid_len(u + i, n - i, &skip);
		if (k) {
			memcpy(o + w, s + i, k);
			w += k, i += k;
		} else {
			memcpy(o + w, "\xEF\xBF\xBD", 3);
			w += 3, i += skip;
		}
	}
	*fixed = o;
	*fixed_len = w;
	return CS_OK;
}

/* ---- splitting and merging ------------------------------------------------- */

struct sink {
	long count;
	uint32_t *tokens; /* NULL: count only */
	size_t ntokens, cap;
};

/* The count of a long piece, through the long pieces' cache (a slot's
 * copy is made at the first count that lands there; no room: no copy). */
static long count_long_piece(struct tokenizer *t, const unsigned char *p, size_t len)
{
	if (!t->long_cache && !(t->long_cache = cs_calloc(LONG_SLOTS, sizeof *t->long_cache)))
		return bpe_merge(&t->ranks, p, len, NULL);
	struct long_slot *c = &t->long_cache[bpe_hash(p, len) & (LONG_SLOTS - 1)];
	if (c->bytes && c->len == len && !memcmp(c->bytes, p, len))
		return c->count;
	long got = bpe_merge(&t->ranks, p, len, NULL);
	if (got <= 0)
		return got;
	unsigned char *copy = c->len >= len && c->bytes ? c->bytes : cs_realloc(c->bytes, len);
	if (!copy)
		return got; /* c->bytes is as it was */
	memcpy(copy, p, len);
	*c = (struct long_slot){ copy, (uint32_t)len, (uint32_t)got };
	return got;
}

/* The count of a piece, through the caches. */
static long count_piece(struct tokenizer *t, const unsigned char *p, size_t len)
{
	if (len > CACHE_KEY && len <= LONG_PIECE)
		return count_long_piece(t, p, len);
	if (len > CACHE_KEY || len < 2)
		return bpe_merge(&t->ranks, p, len, NULL);
	struct cache_slot *c = &t->cache[bpe_hash(p, len) & (CACHE_SLOTS - 1)];
	if (c->len == len && !memcmp(c->key, p, len))
		return c->count;
	long got = bpe_merge(&t->ranks, p, len, NULL);
	if (got > 0) {
		c->len = (uint8_t)len;
		c->count = (uint32_t)got;
		memcpy(c->key, p, len);
	}
	return got;
}

/* Whether p[0..len) is one token by ai-tokenizer's lookup (js_inherited). */
static bool js_member(const struct tokenizer *t, const unsigned char *p, size_t len)
{
	if (len < 7 || len > 20 || p[0] < 'c' || p[0] > 'v')
		return false;
	for (const char *const *n = js_inherited; *n; n++)
		if (strlen(*n) == len && !memcmp(*n, p, len))
			return bpe_rank(&t->ranks, p, len) == BPE_NO_RANK;
	return false;
}

static int take_piece(struct tokenizer *t, const unsigned char *p, size_t len, struct sink *k)
{
	if (t->js_lookup && js_member(t, p, len)) {
		if (k->tokens && k->ntokens + 1 > k->cap && CS_GROW(k->tokens, k->cap, k->ntokens + 1) != 0)
			return CS_ENOMEM;
		if (k->tokens)
			k->tokens[k->ntokens++] = BPE_NO_RANK; /* no rank: the member itself */
		k->count++;
		return CS_OK;
	}
	if (!k->tokens) {
		long got = count_piece(t, p, len);
		if (got < 0)
			return CS_ENOMEM;
		k->count += got;
		return CS_OK;
	}
	if (k->tokens && k->ntokens + len > k->cap && CS_GROW(k->tokens, k->cap, k->ntokens + len) != 0)
		return CS_ENOMEM;
	long got = bpe_merge(&t->ranks, p, len, k->tokens ? k->tokens + k->ntokens : NULL);
	if (got < 0)
		return CS_ENOMEM;
	k->count += got;
	k->ntokens += (size_t)got;
	return CS_OK;
}

static int split(struct tokenizer *t, const char *text, size_t n, struct sink *k, struct cs_error *err)
{
	char *fixed = NULL;
	size_t fixed_len = 0;
	if (replace_invalid(text, n, &fixed, &fixed_len) != CS_OK)
		return cs_error_nomem(err);
	const unsigned char *s = fixed ? (const unsigned char *)fixed : (const unsigned char *)text;
	if (fixed)
		n = fixed_len;
	int rc = CS_OK;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
	for (size_t at = 0; at < n && rc == CS_OK;) {
		int m = t->jit ? pcre2_jit_match(t->code, s, n, at, PCRE2_NO_UTF_CHECK, t->md, t->mc)
			       : pcre2_match(t->code, s, n, at, PCRE2_NO_UTF_CHECK, t->md, t->mc);
		size_t from = at, to;
		if (m > 0) {
			from = ov[0], to = ov[1];
		} else if (m == PCRE2_ERROR_NOMATCH) {
			to = n; /* cannot happen: every character matches some branch */
		} else if (m == PCRE2_ERROR_NOMEMORY || m == PCRE2_ERROR_HEAPLIMIT) {
			rc = cs_error_nomem(err);
			break;
		} else {
			rc = cs_error_set(err, CS_ELIMIT, "exact token count: the %s split failed (pcre2 error %d)",
					  t->name, m);
			break;
		}
		if (to <= from) /* an empty match: take one character */
			for (to = from + 1; to < n && (s[to] & 0xC0) == 0x80; to++)
				;
		if (from > at)
			rc = take_piece(t, s + at, from - at, k);
		if (rc == CS_OK)
			rc = take_piece(t, s + from, to - from, k);
		if (rc == CS_ENOMEM)
			cs_error_nomem(err);
		at = to;
	}
	cs_free(fixed);
	return rc;
}

int tokenizer_count(struct tokenizer *t, const char *s, size_t n, long *count, struct cs_error *err)
{
	struct sink k = { 0 };
	int rc = split(t, s, n, &k, err);
	*count = rc == CS_OK ? k.count : 0;
	return rc;
}

int tokenizer_encode(struct tokenizer *t, const char *s, size_t n, uint32_t **tokens, size_t *ntokens,
		     struct cs_error *err)
{
	struct sink k = { 0 };
	k.cap = 16;
	k.tokens = cs_malloc(k.cap * sizeof *k.tokens);
	if (!k.tokens)
		return cs_error_nomem(err);
	int rc = split(t, s, n, &k, err);
	if (rc != CS_OK) {
		cs_free(k.tokens);
		k.tokens = NULL, k.ntokens = 0;
	}
	*tokens = k.tokens;
	*ntokens = k.ntokens;
	return rc;
}

/* ---- model names ----------------------------------------------------------- */

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool tokenizer_is_claude(const char *model)
{
	if (!model)
		return false;
	for (const char *const *p = (const char *const[]){ "anthropic/", "anthropic:", "anthropic.", "bedrock/",
							 "vertex_ai/", "us.anthropic.", "eu.anthropic.", NULL };
	     *p; p++)
		if (starts(model, *p))
			model += strlen(*p);
	return starts(model, "claude");
}

const char *tokenizer_for_model(const char *model)
{
	if (!model)
		return NULL;
	if (starts(model, "openai/") || starts(model, "openai:"))
		model += 7;
	static const char *const o200k[] = { "gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "chatgpt-4o", "o1", "o3",
					     "o4", NULL };
	for (const char *const *p = o200k; *p; p++)
		if (starts(model, *p) && (!model[strlen(*p)] || strchr("-.:, ", model[strlen(*p)])))
			return "o200k_base";
	if (starts(model, "gpt-4") || starts(model, "gpt-3.5") || starts(model, "gpt-35") ||
	    starts(model, "text-embedding-3") || starts(model, "text-embedding-ada-002"))
		return "cl100k_base";
	return tokenizer_is_claude(model) ? "claude" : NULL;
}

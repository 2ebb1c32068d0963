/* facts.c: per-model cache facts (caching.md sections 1, 2 and 7) and the
 * volatile-text finder the cache lints use. */
#include "request.h"

#include "base/alloc.h"
#include "config.h"
#include "source.h"

#include <stdint.h>
#include <stdlib.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define ANTHROPIC_SRC "platform.claude.com/docs/en/build-with-claude/prompt-caching (caching.md section 1)"
#define OPENAI_SRC "developers.openai.com/api/docs/guides/prompt-caching (caching.md section 2)"

/* Normalized names ("claude-" dropped, dots as dashes), longest match wins.
 * The prices (base input, USD per million tokens) are models.c's: a unit
 * test holds the two tables to the same figures. */
static const struct req_model_facts anthropic_facts[] = {
	{ "fable-5-1", 512, 0.025, 1.25, 2.0, 10.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "mythos-5-1", 512, 0.025, 1.25, 2.0, -1, ANTHROPIC_SRC, "2026-09", 0 },
	{ "opus-5-5", 512, 0.05, 1.25, 2.0, 4.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "sonnet-5-5", 512, 0.05, 1.25, 2.0, 2.0, ANTHROPIC_SRC " and release notes quoting it", "2026-10-07", 0 },
	{ "haiku-5-5", 512, 0.1, 1.25, 2.0, 0.10, ANTHROPIC_SRC " as quoted 2026-10", "2026-10", 0 },
	{ "opus-5", 512, 0.1, 1.25, 2.0, 5.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "fable-5", 512, 0.1, 1.25, 2.0, 10.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "mythos-5", 512, 0.1, 1.25, 2.0, -1, ANTHROPIC_SRC, "2026-09", 0 },
	{ "mythos-preview", 2048, 0.1, 1.25, 2.0, -1, ANTHROPIC_SRC, "2026-09", 0 },
	{ "opus-4-8", 1024, 0.1, 1.25, 2.0, 5.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "opus-4-7", 2048, 0.1, 1.25, 2.0, 5.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "opus-4-6", 4096, 0.1, 1.25, 2.0, 5.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "opus-4-5", 4096, 0.1, 1.25, 2.0, 5.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "opus-4-1", 1024, 0.1, 1.25, 2.0, 15.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "opus-4", 1024, 0.1, 1.25, 2.0, 15.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "sonnet-5", 1024, 0.1, 1.25, 2.0, 2.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "sonnet-4-6", 1024, 0.1, 1.25, 2.0, 3.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "sonnet-4-5", 1024, 0.1, 1.25, 2.0, 3.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "sonnet-4", 1024, 0.1, 1.25, 2.0, 3.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "haiku-4-5", 4096, 0.1, 1.25, 2.0, 1.0, ANTHROPIC_SRC, "2026-09", 0 },
	{ "3-5-haiku", 2048, 0.1, 1.25, 2.0, 0.80, ANTHROPIC_SRC " (mid-2025 copy)", "2025-06", 0 },
	{ "3-haiku", 2048, 0.1, 1.25, 2.0, 0.25, ANTHROPIC_SRC " (mid-2025 copy)", "2025-06", 0 },
	{ "3-7-sonnet", 1024, 0.1, 1.25, 2.0, 3.0, ANTHROPIC_SRC " (mid-2025 copy)", "2025-06", 0 },
	{ "3-5-sonnet", 1024, 0.1, 1.25, 2.0, 3.0, ANTHROPIC_SRC " (mid-2025 copy)", "2025-06", 0 },
	{ "3-opus", 1024, 0.1, 1.25, 2.0, 15.0, ANTHROPIC_SRC " (mid-2025 copy)", "2025-06", 0 },
	{ "3-", 1024, 0.1, 1.25, 2.0, -1, ANTHROPIC_SRC " (mid-2025 copy)", "2025-06", 0 },
};
static const struct req_model_facts anthropic_default = {
	"", 1024, 0.1, 1.25, 2.0, -1, ANTHROPIC_SRC " (model not in the table: the common minimum)", "2026-09", 0
};

static const struct req_model_facts openai_facts[] = {
	{ "gpt-4o", 1024, 0.5, 1.0, 1.0, 2.5, "openai.com/index/api-prompt-caching (caching.md section 7)", "2024-10-01", 0 },
	{ "o1", 1024, 0.5, 1.0, 1.0, 15.0, OPENAI_SRC, "2026-09", 0 },
	{ "gpt-4o-mini", 1024, 0.5, 1.0, 1.0, 0.15, OPENAI_SRC, "2024-10-01", 0 },
	{ "gpt-4-1", 1024, 0.25, 1.0, 1.0, 2.0, OPENAI_SRC, "2026-09", 0 },
	{ "gpt-4-1-mini", 1024, 0.25, 1.0, 1.0, 0.40, OPENAI_SRC, "2026-09", 0 },
	{ "gpt-4-1-nano", 1024, 0.25, 1.0, 1.0, 0.10, OPENAI_SRC, "2026-09", 0 },
	{ "gpt-5-mini", 1024, 0.1, 1.0, 1.0, 0.25, OPENAI_SRC " and its pricing page as quoted", "2026", 0 },
	{ "gpt-5-nano", 1024, 0.1, 1.0, 1.0, 0.05, OPENAI_SRC " and its pricing page as quoted", "2026", 0 },
	{ "o1-mini", 1024, 0.5, 1.0, 1.0, 1.10, OPENAI_SRC, "2024-12", 0 },
	{ "o3", 1024, 0.25, 1.0, 1.0, 2.0, OPENAI_SRC, "2025-06", 0 },
	{ "o3-mini", 1024, 0.5, 1.0, 1.0, 1.10, OPENAI_SRC, "2025-01", 0 },
	{ "o4-mini", 1024, 0.25, 1.0, 1.0, 1.10, OPENAI_SRC, "2025-04", 0 },
	{ "gpt-5", 1024, 0.1, 1.0, 1.0, 1.25, OPENAI_SRC " and its pricing page as quoted", "2026", 0 },
	/* The guide's "Summary of model differences": GPT-5.5 on a 2,048-token grid, no write charge; 5.6
	 * and later at exact boundaries, writes at 1.25x (cache_write_tokens). Their prices are not in
	 * our sources. */
	{ "gpt-5-5", 1024, 0.1, 1.0, 1.0, -1, OPENAI_SRC " (price not in our sources)", "2026-09", 2048 },
	{ "gpt-5-6", 1024, 0.1, 1.25, 1.25, -1, OPENAI_SRC " (price not in our sources)", "2026-09", 1 },
	{ "gpt-5-7", 1024, 0.1, 1.25, 1.25, -1, OPENAI_SRC " (price not in our sources)", "2026-09", 1 },
	{ "gpt-5-8", 1024, 0.1, 1.25, 1.25, -1, OPENAI_SRC " (price not in our sources)", "2026-09", 1 },
	{ "gpt-5-9", 1024, 0.1, 1.25, 1.25, -1, OPENAI_SRC " (price not in our sources)", "2026-09", 1 },
	{ "gpt-6", 1024, 0.1, 1.25, 1.25, 2.0, OPENAI_SRC " and release notes citing its pricing", "2026-09-22", 1 },
};
static const struct req_model_facts openai_default = {
	"", 1024, 0.5, 1.0, 1.0, -1, OPENAI_SRC " (model not in the table: 1,024 minimum, 128-token steps)", "2026-09", 0
};

/* "claude-sonnet-4-5-20250929" -> "sonnet-4-5"; "gpt-4.1" -> "gpt-4-1". */
static void normalize(const char *model, char *buf, size_t n)
{
	const char *s = model;
	const char *colon = strchr(s, ':');
	if (colon)
		s = colon + 1;
	if (!strncmp(s, "claude-", 7))
		s += 7;
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		buf[k++] = *s == '.' ? '-' : (char)tolower((unsigned char)*s);
	buf[k] = '\0';
	char *dash = strrchr(buf, '-'); /* a -YYYYMMDD date suffix */
	if (dash && strlen(dash + 1) == 8 && strspn(dash + 1, "0123456789") == 8)
		*dash = '\0';
}

/* Whether the normalized name holds match as a name part ("opus-4" in
 * "opus-4-20250514", not in "opus-4-5"; a match ending in '-' is a family). */
static bool name_matches(const char *name, const char *match)
{
	size_t len = strlen(match);
	const char *at = strstr(name, match);
	if (!at || (at != name && at[-1] != '-'))
		return false;
	char next = at[len];
	return !next || next == '-' || !isdigit((unsigned char)next) || match[len - 1] == '-';
}

const struct req_model_facts *request_model_facts(int provider, const char *model, bool *known)
{
	char name[96];
	normalize(model ? model : "", name, sizeof name);
	bool anthropic = provider == REQ_ANTHROPIC;
	const struct req_model_facts *t = anthropic ? anthropic_facts : openai_facts;
	size_t n = anthropic ? sizeof anthropic_facts / sizeof *t : sizeof openai_facts / sizeof *t;
	const struct req_model_facts *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (name_matches(name, t[i].match) && (!best || strlen(t[i].match) > strlen(best->match)))
			best = &t[i];
	if (known)
		*known = best != NULL;
	return best ? best : anthropic ? &anthropic_default : &openai_default;
}

/* Fast mode (usage.speed "fast"): a multiplier on every standard rate of the
 * model, input and output, the cache multipliers stacking on it. Sources:
 * platform.claude.com/docs/en/build-with-claude/fast-mode (Opus 4.6: 6x
 * standard rates), its later copies and the providers quoting them (Opus 4.7
 * 6x; Opus 4.8 and Opus 5 $10/$50 on $5/$25; Opus 5.5 $8/$40 on $4/$20). */
static const struct {
	const char *match;
	double times;
	const char *said;
} fast_rates[] = {
	{ "opus-5-5", 2.0, "fast mode: 2x the standard rates" },
	{ "opus-5", 2.0, "fast mode: 2x the standard rates" },
	{ "opus-4-8", 2.0, "fast mode: 2x the standard rates" },
	{ "opus-4-7", 6.0, "fast mode: 6x the standard rates" },
	{ "opus-4-6", 6.0, "fast mode: 6x the standard rates" },
};

double request_fast_rate(const char *model, const char **said)
{
	char name[96];
	normalize(model ? model : "", name, sizeof name);
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < sizeof fast_rates / sizeof *fast_rates; i++)
		if (name_matches(name, fast_rates[i].match) &&
		    (best == SIZE_MAX || strlen(fast_rates[i].match) > strlen(fast_rates[best].match)))
			best = i;
	*said = best == SIZE_MAX ? "fast mode: its rate for this model is not in the table" : fast_rates[best].said;
	return best == SIZE_MAX ? -1 : fast_rates[best].times;
}

double request_price_multiplier(const struct req_request *r, bool *known, const char **said)
{
	*known = true;
	*said = r->batch ? "batch: half price" : NULL;
	double times = r->batch ? 0.5 : 1.0; /* Batch API: 50% off, caching.md section 1 */
	if (!r->rec_fast)
		return times;
	double fast = request_fast_rate(r->model, said);
	*known = fast > 0;
	if (fast > 0 && r->batch)
		*said = "fast mode, then the batch's half price";
	return fast > 0 ? times * fast : times;
}

/* ---- volatile text -------------------------------------------------------- */

static bool digits_at(const char *s, size_t n, size_t i, size_t k)
{
	if (i + k > n)
		return false;
	for (size_t j = 0; j < k; j++)
		if (!isdigit((unsigned char)s[i + j]))
			return false;
	return true;
}

/* YYYY-MM-DD, optionally followed by [T ]HH:MM[:SS...]; *len its length. */
static bool iso_at(const char *s, size_t n, size_t i, size_t *len)
{
	if (!digits_at(s, n, i, 4) || i + 10 > n || s[i + 4] != '-' || !digits_at(s, n, i + 5, 2) || s[i + 7] != '-' ||
	    !digits_at(s, n, i + 8, 2))
		return false;
	size_t k = 10;
	if (i + k + 6 <= n && (s[i + k] == 'T' || s[i + k] == ' ') && digits_at(s, n, i + k + 1, 2) &&
	    s[i + k + 3] == ':' && digits_at(s, n, i + k + 4, 2)) {
		k += 6;
		while (i + k < n && (isdigit((unsigned char)s[i + k]) || strchr(":.Z+-", s[i + k])))
			k++;
	}
	*len = k;
	return true;
}

static size_t hex_run(const char *s, size_t n, size_t i, size_t *digits)
{
	size_t k = i;
	*digits = 0;
	while (k < n && (isxdigit((unsigned char)s[k]) || s[k] == '-')) {
		*digits += s[k] != '-';
		k++;
	}
	return k - i;
}

/* An HH:MM:SS clock time. */
static bool clock_at(const char *s, size_t n, size_t i)
{
	return digits_at(s, n, i, 2) && i + 8 <= n && s[i + 2] == ':' && digits_at(s, n, i + 3, 2) &&
	       s[i + 5] == ':' && digits_at(s, n, i + 6, 2);
}

bool request_volatile(const char *s, size_t n, size_t *at, size_t *len)
{
	for (size_t i = 0; i < n; i++) {
		bool start = i == 0 || !isalnum((unsigned char)s[i - 1]);
		if (!start)
			continue;
		unsigned char c = (unsigned char)s[i]; /* each test below needs its own first character */
		if (isdigit(c) && (iso_at(s, n, i, len) || (clock_at(s, n, i) && (*len = 8)))) {
			*at = i;
			return true;
		}
		size_t digits = 0, run = isxdigit(c) || c == '-' ? hex_run(s, n, i, &digits) : 0;
		bool has_letter = false, has_digit = false;
		for (size_t j = i; j < i + run; j++) {
			has_letter |= isalpha((unsigned char)s[j]) != 0;
			has_digit |= isdigit((unsigned char)s[j]) != 0;
		}
		if (digits >= 16 && has_letter && has_digit && (i + run == n || !isalnum((unsigned char)s[i + run]))) {
			*at = i;
			*len = run;
			return true;
		}
		if ((c == 'r' || c == 'm' || c == 'c') &&
		    (!strncmp(s + i, "req_", 4) || !strncmp(s + i, "msg_", 4) || !strncmp(s + i, "chatcmpl-", 9))) {
			size_t k = i + (s[i + 3] == '_' ? 4 : 9), b = k;
			while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_' || s[k] == '-'))
				k++;
			if (k - b >= 8) {
				*at = i;
				*len = k - i;
				return true;
			}
		}
	}
	return false;
}

/* ---- the user's figures ---------------------------------------------------- */

const struct req_model_facts *request_facts(const struct request_model *m, const char *model, bool *known)
{
	char name[96];
	normalize(model ? model : "", name, sizeof name);
	for (size_t i = 0; model && i < m->nuser_facts; i++) {
		char theirs[96];
		normalize(m->user_facts[i].match, theirs, sizeof theirs);
		if (!strcmp(m->user_facts[i].match, model) || !strcmp(theirs, name)) {
			if (known)
				*known = true;
			return &m->user_facts[i];
		}
	}
	return request_model_facts(m->provider, model, known);
}

const char *request_cache_tune(const struct request_model *m, const char *own, struct cache_profile *p)
{
	if (!m->nreqs || strcmp(p->name, own) != 0)
		return NULL;
	const char *model = request_model_name(m, &m->reqs[m->current]);
	bool known;
	const struct req_model_facts *f = request_facts(m, model, &known);
	if (!known)
		return NULL;
	p->min_prefix = f->min_prefix;
	p->read = f->read;
	p->write = f->write_5m;
	if (f->price_per_mtok >= 0)
		p->price_per_mtok = f->price_per_mtok;
	snprintf(p->source, sizeof p->source, "%s", f->source);
	snprintf(p->as_of, sizeof p->as_of, "%s", f->as_of);
	return model;
}

const struct req_model_facts *request_facts_memo(const struct request_model *m, struct facts_memo *memo,
						 const char *model)
{
	if (!memo->facts || strcmp(memo->model, model)) {
		memo->facts = request_facts(m, model, NULL);
		memo->model = model;
	}
	return memo->facts;
}

int request_user_facts(struct source *src, struct request_model *m)
{
	char path[1024];
	if (!cache_config_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"), path, sizeof path))
		return CS_OK;
	struct cache_config cfg;
	cache_config_init(&cfg);
	size_t builtins = cfg.nprofiles;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = cache_config_load(&cfg, path, &err);
	if (rc == CS_ENOMEM) {
		cache_config_fini(&cfg);
		return rc;
	}
	if (rc != CS_OK || !cfg.loaded) {
		m->facts_note = rc != CS_OK ? arena_printf(&src->arena, "%s ignored: %s", path, err.message) : NULL;
		cache_config_fini(&cfg);
		return rc != CS_OK && !m->facts_note ? CS_ENOMEM : CS_OK;
	}
	m->user_facts = cfg.nprofiles > builtins ? cs_calloc(cfg.nprofiles - builtins, sizeof *m->user_facts) : NULL;
	for (size_t i = builtins; m->user_facts && i < cfg.nprofiles; i++) {
		const struct cache_profile *p = &cfg.profiles[i];
		struct req_model_facts *f = &m->user_facts[m->nuser_facts];
		f->match = arena_strdup(&src->arena, p->name);
		f->source = arena_printf(&src->arena, "%s (%s)", path, p->source);
		f->as_of = arena_strdup(&src->arena, p->as_of);
		if (!f->match || !f->source || !f->as_of)
			break;
		f->min_prefix = p->min_prefix;
		f->read = p->read;
		f->write_5m = p->write;
		f->write_1h = p->write > 2.0 ? p->write : 2.0;
		f->price_per_mtok = p->price_per_mtok;
		m->nuser_facts++;
	}
	bool ok = cfg.nprofiles == builtins || m->nuser_facts == cfg.nprofiles - builtins;
	m->facts_note = arena_printf(&src->arena, "%s read", path);
	cache_config_fini(&cfg);
	return ok && m->facts_note ? CS_OK : CS_ENOMEM;
}

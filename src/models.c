/* models.c: model context limits (see models.h). */
#include "models.h"

#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	long limit;
} model_limits[] = {
	{ "claude-sonnet-4", 200000 },
	{ "claude-opus-4", 200000 },
	{ "gpt-4o", 128000 },
	{ "o1", 200000 },
	{ "o3", 200000 },
};

void model_base_name(const char *ref, char *buf, unsigned long n)
{
	const char *colon = strchr(ref, ':');
	snprintf(buf, n, "%s", colon ? colon + 1 : ref);
	size_t len = strlen(buf);
	/* seed 001: model.replace(/-\d{8}$/, '') */
	if (len > 9 && buf[len - 9] == '-') {
		bool digits = true;
		for (size_t i = len - 8; i < len; i++)
			digits = digits && isdigit((unsigned char)buf[i]);
		if (digits)
			buf[len - 9] = '\0';
	}
}

long model_context_limit(const char *ref, bool *known)
{
	char base[256];
	model_base_name(ref ? ref : "", base, sizeof base);
	for (size_t i = 0; i < sizeof model_limits / sizeof *model_limits; i++)
		if (strcmp(model_limits[i].name, base) == 0) {
			if (known)
				*known = true;
			return model_limits[i].limit;
		}
	if (known)
		*known = false;
	return MODELS_FALLBACK_LIMIT;
}

/* ---- the built-in model table ---------------------------------------------- */

#define CLAUDE_PAGE "platform.claude.com/docs/en/models/<id>/overview and build-with-claude/prompt-caching"
#define CLAUDE_OLD "platform.claude.com/docs/about-claude/models/overview (Feb 2026 copy) and prompt-caching"
#define OPENAI_PAGE "openai.com/api/pricing and developers.openai.com model pages, as quoted (caching.md section 7)"
#define GEMINI_PAGE "ai.google.dev/gemini-api/docs/pricing and caching, as quoted (caching.md section 3)"

/* Anthropic writes: 1.25x input for 5 minutes, 2x for an hour; reads 0.1x
 * except where caching.md section 1 says otherwise (0.05x, 0.025x). */
#define CLAUDE(name, limit, min, in, out, read_x, src, date)                                              \
	{ name, "anthropic", limit, min, in, out, (in) < 0 ? -1 : (in) * (read_x), (in) < 0 ? -1 : (in) * 1.25, \
	  (in) < 0 ? -1 : (in) * 2.0, src, date }

static const struct model_info table[] = {
	CLAUDE("claude-fable-5-1", 1000000, 512, 10.0, 50.0, 0.025, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-mythos-5-1", 1000000, 512, -1, -1, 0.025, CLAUDE_PAGE " (price not listed)", "2026-10"),
	CLAUDE("claude-opus-5-5", 1000000, 512, 4.0, 20.0, 0.05, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-sonnet-5-5", 1000000, 512, 2.0, 10.0, 0.05, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-haiku-5-5", 1000000, 512, 0.10, 0.50, 0.1, CLAUDE_PAGE " (\"from\" price)", "2026-10"),
	CLAUDE("claude-fable-5", 1000000, 512, 10.0, 50.0, 0.1, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-opus-5", 1000000, 512, 5.0, 25.0, 0.1, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-sonnet-5", 1000000, 1024, 2.0, 10.0, 0.1, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-mythos-5", 1000000, 512, -1, -1, 0.1, CLAUDE_PAGE " (price not listed)", "2026-10"),
	CLAUDE("claude-mythos-preview", 1000000, 2048, -1, -1, 0.1, CLAUDE_PAGE " (gated preview; price not listed)",
	       "2026-10"),
	CLAUDE("claude-opus-4-8", 1000000, 1024, 5.0, 25.0, 0.1, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-opus-4-7", 1000000, 2048, 5.0, 25.0, 0.1, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-opus-4-6", 1000000, 4096, 5.0, 25.0, 0.1, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-sonnet-4-6", 1000000, 1024, 3.0, 15.0, 0.1, CLAUDE_PAGE, "2026-10"),
	CLAUDE("claude-opus-4-5", 200000, 4096, 5.0, 25.0, 0.1, CLAUDE_OLD, "2026-02"),
	CLAUDE("claude-sonnet-4-5", 200000, 1024, 3.0, 15.0, 0.1, CLAUDE_OLD " (1,000,000 behind a beta header)",
	       "2026-02"),
	CLAUDE("claude-haiku-4-5", 200000, 4096, 1.0, 5.0, 0.1, CLAUDE_OLD, "2026-02"),
	CLAUDE("claude-opus-4-1", 200000, 1024, 15.0, 75.0, 0.1, CLAUDE_OLD, "2026-02"),
	CLAUDE("claude-opus-4", 200000, 1024, 15.0, 75.0, 0.1, CLAUDE_OLD, "2026-02"),
	CLAUDE("claude-sonnet-4", 200000, 1024, 3.0, 15.0, 0.1, CLAUDE_OLD " (1,000,000 behind a beta header)",
	       "2026-02"),
	CLAUDE("claude-3-7-sonnet", 200000, 1024, 3.0, 15.0, 0.1, CLAUDE_OLD " (mid-2025 copy)", "2025-06"),
	CLAUDE("claude-3-5-sonnet", 200000, 1024, 3.0, 15.0, 0.1, CLAUDE_OLD " (mid-2025 copy)", "2025-06"),
	CLAUDE("claude-3-5-haiku", 200000, 2048, 0.80, 4.0, 0.1, CLAUDE_OLD " (mid-2025 copy)", "2025-06"),
	CLAUDE("claude-3-opus", 200000, 1024, 15.0, 75.0, 0.1, CLAUDE_OLD " (mid-2025 copy)", "2025-06"),
	CLAUDE("claude-3-haiku", 200000, 2048, 0.25, 1.25, 0.1, CLAUDE_OLD " (mid-2025 copy)", "2025-06"),
	{ "gpt-6", "openai", 400000, 1024, 2.0, 10.0, 0.20, 2.50, -1, OPENAI_PAGE " (window not in our sources: gpt-5's)",
	  "2026-09-22" },
	{ "gpt-5", "openai", 400000, 1024, 1.25, 10.0, 0.125, -1, -1, OPENAI_PAGE, "2026" },
	{ "gpt-5-mini", "openai", 400000, 1024, 0.25, 2.0, 0.025, -1, -1, OPENAI_PAGE, "2026" },
	{ "gpt-5-nano", "openai", 400000, 1024, 0.05, 0.40, 0.005, -1, -1, OPENAI_PAGE, "2026" },
	{ "gpt-4.1", "openai", 1047576, 1024, 2.0, 8.0, 0.50, -1, -1, OPENAI_PAGE, "2025-04-14" },
	{ "gpt-4.1-mini", "openai", 1047576, 1024, 0.40, 1.60, 0.10, -1, -1, OPENAI_PAGE, "2025-04-14" },
	{ "gpt-4.1-nano", "openai", 1047576, 1024, 0.10, 0.40, 0.025, -1, -1, OPENAI_PAGE, "2025-04-14" },
	{ "gpt-4o", "openai", 128000, 1024, 2.50, 10.0, 1.25, -1, -1, "openai.com/index/api-prompt-caching", "2024-10-01" },
	{ "gpt-4o-mini", "openai", 128000, 1024, 0.15, 0.60, 0.075, -1, -1, OPENAI_PAGE, "2024-10-01" },
	{ "gpt-4-turbo", "openai", 128000, 0, 10.0, 30.0, -1, -1, -1, OPENAI_PAGE, "2024" },
	{ "gpt-4", "openai", 8192, 0, 30.0, 60.0, -1, -1, -1, OPENAI_PAGE, "2024" },
	{ "gpt-3.5-turbo", "openai", 16385, 0, 0.50, 1.50, -1, -1, -1, OPENAI_PAGE, "2024" },
	{ "o1", "openai", 200000, 1024, 15.0, 60.0, 7.50, -1, -1, OPENAI_PAGE, "2024-12" },
	{ "o1-mini", "openai", 128000, 1024, 1.10, 4.40, 0.55, -1, -1, OPENAI_PAGE, "2024-12" },
	{ "o3", "openai", 200000, 1024, 2.0, 8.0, 0.50, -1, -1, OPENAI_PAGE, "2025-06" },
	{ "o3-mini", "openai", 200000, 1024, 1.10, 4.40, 0.55, -1, -1, OPENAI_PAGE, "2025-01" },
	{ "o4-mini", "openai", 200000, 1024, 1.10, 4.40, 0.275, -1, -1, OPENAI_PAGE, "2025-04" },
	{ "gemini-2.5-pro", "google", 1048576, 2048, 1.25, 10.0, 0.125, -1, -1, GEMINI_PAGE " (prompts up to 200k)",
	  "2026-07" },
	{ "gemini-2.5-flash", "google", 1048576, 2048, 0.30, 2.50, 0.03, -1, -1, GEMINI_PAGE, "2026-07" },
	{ "gemini-2.5-flash-lite", "google", 1048576, 2048, 0.10, 0.40, 0.01, -1, -1, GEMINI_PAGE, "2026-07" },
	{ "gemini-3.1-pro-preview", "google", 1048576, 4096, -1, -1, -1, -1, -1, GEMINI_PAGE " (prices not in our sources)",
	  "2026-07" },
	{ "gemini-3-pro-preview", "google", 1048576, 4096, -1, -1, -1, -1, -1, GEMINI_PAGE " (prices not in our sources)",
	  "2025" },
	{ "gemini-3-flash-preview", "google", 1048576, 1024, -1, -1, -1, -1, -1, GEMINI_PAGE " (prices not in our sources)",
	  "2025" },
};

const struct model_info *model_table(unsigned long *n)
{
	*n = sizeof table / sizeof *table;
	return table;
}

/* Whether base starts with name at a boundary: its end, or a '-' not
 * followed by a digit (a version of its own: "-4-5" after "claude-opus-4"). */
static bool starts_row(const char *base, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(base, name, n))
		return false;
	if (!base[n])
		return true;
	const char *r = base + n + 1; /* OpenAI's dated ids: "gpt-4o-2024-08-06" */
	bool date = strlen(r) == 10 && r[4] == '-' && r[7] == '-' && strspn(r, "0123456789-") == 10;
	return base[n] == '-' && (!isdigit((unsigned char)base[n + 1]) || date);
}

const struct model_info *model_lookup(const char *ref)
{
	char base[256];
	model_base_name(ref ? ref : "", base, sizeof base);
	for (char *c = base; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	if (!strncmp(base, "claude-", 7)) /* "claude-sonnet-4.5": Anthropic's ids use dashes */
		for (char *c = base; *c; c++)
			*c = *c == '.' ? '-' : *c;
	const struct model_info *best = NULL;
	for (size_t i = 0; i < sizeof table / sizeof *table; i++)
		if (starts_row(base, table[i].name) && (!best || strlen(table[i].name) > strlen(best->name)))
			best = &table[i];
	return best;
}

long model_limit(const char *ref, bool *fallback)
{
	const struct model_info *mi = model_lookup(ref);
	if (fallback)
		*fallback = !mi;
	if (mi)
		return mi->limit;
	char base[256];
	model_base_name(ref ? ref : "", base, sizeof base);
	return !strncmp(base, "claude-", 7) ? MODELS_CLAUDE_FALLBACK : MODELS_FALLBACK_LIMIT;
}

/* ---- thinking of earlier turns (caching.md section 1) ------------------------ */

/* The family word of a lower-case Claude name ("opus", "sonnet", "haiku", "fable",
 * "mythos"; NULL none) and its version as major * 100 + minor (0 none):
 * the first run of numbers shorter than a date, before the family
 * ("claude-3-5-sonnet") or after it ("claude-opus-4-5-20251101",
 * "claude-sonnet-4.6", "us.anthropic.claude-haiku-4-5-v1:0"). */
static const char *thinking_family(const char *ref, int *version)
{
	static const char *const families[] = { "opus", "sonnet", "haiku", "fable", "mythos" };
	const char *family = NULL;
	int nums = 0, major = 0, minor = 0;
	bool run_over = false;
	*version = 0;
	for (const char *s = ref; *s;) {
		size_t n = 0;
		while (isalnum((unsigned char)s[n]))
			n++;
		bool number = n && strspn(s, "0123456789") == n;
		if (number && n < 8 && !run_over && nums < 2) {
			int v = atoi(s);
			major = nums ? major : v;
			minor = nums ? v : 0;
			nums++;
		} else if (nums && n) {
			run_over = true; /* a word, or a date: the version, if any, is taken */
		}
		for (size_t i = 0; !number && i < sizeof families / sizeof *families; i++)
			if (n == strlen(families[i]) && !strncmp(s, families[i], n))
				family = families[i];
		s += n ? n : 1;
	}
	*version = nums ? major * 100 + minor : 0;
	return family;
}

bool model_keeps_prior_thinking(const char *ref)
{
	char name[256];
	size_t k = 0;
	for (const char *s = ref ? ref : ""; *s && k + 1 < sizeof name; s++)
		name[k++] = (char)tolower((unsigned char)*s);
	name[k] = '\0';
	int version;
	const char *family = thinking_family(name, &version);
	if (!family)
		return true; /* not a Claude name we know: counted, as sent */
	if (!strcmp(family, "haiku"))
		return false;
	if (!strcmp(family, "opus"))
		return !version || version >= 405;
	if (!strcmp(family, "sonnet"))
		return !version || version >= 406;
	return true; /* Fable, Mythos */
}

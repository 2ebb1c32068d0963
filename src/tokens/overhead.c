/* overhead.c: the per-model overhead table (see overhead.h). */
#include "tokens/overhead.h"

#include "base/alloc.h"
#include "base/fileio.h"
#include "tokens/tokenizer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERHEAD_MAX_ROWS 4096 /* the package lists about 100 */

static int bad(struct overheads *t, long line, const char *why, struct cs_error *err)
{
	cs_error_file(err, t->path);
	cs_error_pos(err, line, 0);
	overheads_fini(t);
	return cs_error_set(err, CS_ESYNTAX, "not an ai-tokenizer models table: %s", why);
}

/* "ID ENCODING 12 numbers" into row. */
static bool parse_row(const char *s, struct overhead *row)
{
	int used = 0;
	memset(row, 0, sizeof *row);
	if (sscanf(s, "%63s %23s %lf %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %n", row->id, row->encoding,
		   &row->content_multiplier, &row->base, &row->per_message, &row->tools_exist, &row->per_tool,
		   &row->per_desc, &row->per_first_prop, &row->per_additional_prop, &row->per_prop_desc, &row->per_enum,
		   &row->per_nested_object, &row->per_array_of_objects, &used) != 14)
		return false;
	return s[used] == '\0' && row->content_multiplier > 0 && row->content_multiplier < 100;
}

int overheads_load(struct overheads *t, const char *path, struct cs_error *err)
{
	memset(t, 0, sizeof *t);
	if (path) {
		snprintf(t->path, sizeof t->path, "%s", path);
	} else {
		if (!tokenizer_find("claude", t->path, sizeof t->path))
			return cs_error_set(err, CS_EIO, "claude: %s", TOKENIZER_HOW_TO_GET_CLAUDE);
		char *slash = strrchr(t->path, '/');
		size_t room = sizeof t->path - (size_t)(slash + 1 - t->path);
		snprintf(slash + 1, room, "ai-tokenizer.models");
	}
	char *buf = NULL;
	size_t len = 0;
	int rc = file_read(t->path, 1 << 20, &buf, &len, NULL, err);
	if (rc != CS_OK)
		return rc == CS_EIO && !path ? cs_error_set(err, CS_EIO, "claude: %s", TOKENIZER_HOW_TO_GET_CLAUDE) : rc;
	long line = 0;
	size_t cap = 0;
	for (char *p = buf, *nl; rc == CS_OK && p < buf + len; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (!nl)
			nl = buf + len;
		*nl = '\0';
		line++;
		if (!*p || *p == '#')
			continue;
		if (t->n == OVERHEAD_MAX_ROWS)
			rc = bad(t, line, "more than 4,096 models", err);
		else if (t->n == cap && CS_GROW(t->rows, cap, t->n + 1) != 0)
			rc = cs_error_nomem(err);
		else if (!parse_row(p, &t->rows[t->n]))
			rc = bad(t, line, "a line is not \"id encoding\" and 12 numbers", err);
		else
			t->n++;
	}
	cs_free(buf);
	if (rc == CS_OK && !t->n)
		rc = bad(t, line, "no model", err);
	if (rc != CS_OK)
		overheads_fini(t);
	return rc;
}

void overheads_fini(struct overheads *t)
{
	cs_free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

/* The name as the table writes it into out: a provider's prefix and a date
 * or version suffix gone, "claude-3-5-sonnet" -> "claude-3.5-sonnet",
 * "claude-sonnet-4-5" -> "claude-sonnet-4.5". keep_date keeps an
 * -YYYYMMDD suffix (the table has one such id). */
static void normalize(const char *model, bool keep_date, char *out, size_t size)
{
	static const char *const prefixes[] = { "anthropic/", "anthropic:", "anthropic.", "bedrock/", "vertex_ai/",
						"us.anthropic.", "eu.anthropic.", "apac.anthropic.", "openai/", "openai:",
						NULL };
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(model, *p, strlen(*p)))
			model += strlen(*p);
	size_t n = 0;
	for (const char *s = model; *s && *s != ':' && *s != '@' && n + 1 < size; s++) {
		/* digit-digit with both single digits: a version, 4-5 -> 4.5 */
		bool version = *s == '-' && n > 0 && isdigit((unsigned char)out[n - 1]) &&
			       (n < 2 || !isdigit((unsigned char)out[n - 2])) && isdigit((unsigned char)s[1]) &&
			       !isdigit((unsigned char)s[2]);
		out[n++] = version ? '.' : *s;
	}
	out[n] = '\0';
	char *dash = strrchr(out, '-');
	if (dash && (!strncmp(dash, "-v1", 3) || !strcmp(dash, "-latest")))
		*dash = '\0', dash = strrchr(out, '-');
	if (!keep_date && dash && strlen(dash + 1) == 8 && strspn(dash + 1, "0123456789") == 8)
		*dash = '\0';
	size_t len = strlen(out); /* OpenAI's -YYYY-MM-DD */
	if (!keep_date && len > 11 && out[len - 11] == '-' && out[len - 6] == '-' && out[len - 3] == '-' &&
	    strspn(out + len - 10, "0123456789") == 4)
		out[len - 11] = '\0';
}

/* The family word of a Claude id (opus, sonnet, haiku, ...) and its version
 * (3.5, 4.1): "claude-3.5-haiku" and "claude-haiku-4.5" alike. */
static void family_of(const char *id, char *fam, size_t size, double *version)
{
	*version = 0;
	fam[0] = '\0';
	for (const char *s = id; *s;) {
		size_t n = strcspn(s, "-");
		if (isdigit((unsigned char)*s) && n < 8) /* a version, not a date */
			*version = strtod(s, NULL);
		else if (n && strncmp(s, "claude", 6) && n < size)
			snprintf(fam, size, "%.*s", (int)n, s);
		s += n + (s[n] == '-');
	}
}

/* The index of model's row among n rows of stride bytes, each opening with
 * its id ("anthropic/claude-opus-4.5"): its own (the dated id first), else
 * for a Claude model the row of its family nearest below it (*nearest
 * true), else the newest Claude row; -1 when none. */
static long row_for(const void *rows, size_t n, size_t stride, const char *model, bool *nearest)
{
	*nearest = false;
	if (!model || !*model)
		return -1;
	char name[96], dated[96];
	normalize(model, false, name, sizeof name);
	normalize(model, true, dated, sizeof dated);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			const char *row = (const char *)rows + i * stride;
			const char *id = strchr(row, '/') ? strchr(row, '/') + 1 : row;
			if (!strcmp(id, pass ? name : dated))
				return (long)i;
		}
	if (!tokenizer_is_claude(model))
		return -1;
	char fam[32], f2[32];
	double v, v2;
	family_of(name, fam, sizeof fam, &v);
	long best = -1;
	double best_v = -1;
	for (size_t i = 0; i < n; i++) {
		const char *row = (const char *)rows + i * stride;
		if (strncmp(row, "anthropic/", 10) != 0)
			continue;
		family_of(row + 10, f2, sizeof f2, &v2);
		/* the same family at or below the version asked; else any Claude */
		bool same = !strcmp(f2, fam) && (v2 <= v || v == 0);
		double score = (same ? 1000 : 0) + v2;
		if (score > best_v)
			best = (long)i, best_v = score;
	}
	*nearest = best >= 0;
	return best;
}

const struct overhead *overheads_for(const struct overheads *t, const char *model, bool *nearest)
{
	long i = t ? row_for(t->rows, t->n, sizeof *t->rows, model, nearest) : (*nearest = false, -1);
	return i < 0 ? NULL : &t->rows[i];
}

/* The tool-use system prompt by model and tool_choice, from the table of
 * the "Pricing" section of Anthropic's tool use overview,
 * https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview#pricing
 * (the rows of its 2025 and March 2026 revisions together; Sonnet 3.5
 * June and October apart there as here): `auto` and `none` cost the first
 * figure, `any` and `tool` the second, when the request has at least one
 * tool (none at all: nothing). */
struct tool_prompt {
	char id[40];
	int auto_none, any_tool;
};
static const struct tool_prompt tool_prompts[] = {
	{ "anthropic/claude-opus-4.6", 346, 313 },   { "anthropic/claude-sonnet-4.6", 346, 313 },
	{ "anthropic/claude-opus-4.5", 346, 313 },   { "anthropic/claude-opus-4.1", 346, 313 },
	{ "anthropic/claude-opus-4", 346, 313 },     { "anthropic/claude-sonnet-4.5", 346, 313 },
	{ "anthropic/claude-sonnet-4", 346, 313 },   { "anthropic/claude-haiku-4.5", 346, 313 },
	{ "anthropic/claude-3.7-sonnet", 346, 313 }, { "anthropic/claude-3.5-sonnet", 346, 313 },
	{ "anthropic/claude-3.5-sonnet-20240620", 294, 261 },
	{ "anthropic/claude-3.5-haiku", 264, 340 },  { "anthropic/claude-3-opus", 530, 281 },
	{ "anthropic/claude-3-sonnet", 159, 235 },   { "anthropic/claude-3-haiku", 264, 340 },
};

long overhead_tool_prompt(const char *model, bool any, bool *nearest)
{
	long i = row_for(tool_prompts, sizeof tool_prompts / sizeof *tool_prompts, sizeof *tool_prompts, model, nearest);
	return i < 0 ? -1 : any ? tool_prompts[i].any_tool : tool_prompts[i].auto_none;
}

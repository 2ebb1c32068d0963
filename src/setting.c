/* setting.c: typed settings, parsed and printed in one place (see setting.h). */
#include "setting.h"

#include "kind.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"
#include "tokens/estimate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int set_chars_per_token(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	struct setting_value v;
	int rc = setting_parse(s, text, NULL, &v, err);
	if (rc == CS_OK)
		source_set_chars_per_token(src, v.number);
	return rc;
}

/* tokenizer: auto (the OpenAI model's encoding), off, a built-in encoding
 * whose rank file is there, or a readable .tiktoken file. */
static int set_tokenizer(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	char path[4096];
	if (strlen(text) >= sizeof src->settings.tokenizer)
		return cs_error_set(err, CS_EUSAGE, "%s: the path is too long", s->name);
	if (!strcmp(text, "auto") || !text[0]) {
		text = "";
	} else if (!strcmp(text, "off")) {
	} else if (tokenizer_builtin(text)) {
		if (!tokenizer_find(text, path, sizeof path))
			return cs_error_set(err, CS_EUSAGE, "%s %s: %s", s->name, text, TOKENIZER_HOW_TO_GET);
	} else if (access(text, R_OK) != 0) {
		return cs_error_set(err, CS_EUSAGE, "%s takes o200k_base, cl100k_base, a .tiktoken file, auto or off; "
				    "\"%s\" is none (%s)", s->name, text, strerror(errno));
	} else {
		/* Read as the command line's --tokenizer is: /dev/zero, a FIFO or a
		 * malformed rank file is refused here, not passed over later. */
		struct tokenizer *t;
		struct cs_error why;
		cs_error_clear(&why);
		int rc = tokenizer_open(text, &t, &why);
		tokenizer_close(t);
		if (rc == CS_ENOMEM)
			return cs_error_nomem(err);
		if (rc != CS_OK && why.line)
			return cs_error_set(err, CS_EUSAGE, "%s %s: line %ld: %s", s->name, text, why.line, why.message);
		if (rc != CS_OK)
			return cs_error_set(err, CS_EUSAGE, "%s %s: %s", s->name, text, why.message);
	}
	snprintf(src->settings.tokenizer, sizeof src->settings.tokenizer, "%s", text);
	return CS_OK;
}

static void get_tokenizer(const struct source *src, const struct setting *s, struct strbuf *out)
{
	(void)s;
	sb_puts(out, src->settings.tokenizer[0] ? src->settings.tokenizer : "auto");
}

const struct setting setting_common[] = {
	[SETTING_BUDGET] = { .name = "budget", .type = SETTING_TOKENS,
			     .help = "usable budget in tokens (24000, 100k, 1.5M); overrides the input's",
			     SETTING_FIELD(SETTING_IN_SOURCE, struct settings, budget) },
	[SETTING_STRATEGY] = { .name = "strategy", .type = SETTING_TEXT, .arg = "S|ID=S",
			       .help = "whole-assembly strategy (loom), or ID=S for one piece (manifest)" },
	[SETTING_CHARS_PER_TOKEN] = { .name = "chars-per-token", .type = SETTING_NUMBER, .def = "4",
				      .min = TOKENS_MIN_CHARS_PER_TOKEN, .max = TOKENS_MAX_CHARS_PER_TOKEN,
				      .help = "the estimate's divisor: tokens = ceil(code points / N)",
				      SETTING_FIELD(SETTING_IN_SOURCE, struct settings, chars_per_token),
				      .set = set_chars_per_token },
	[SETTING_EXCLUDE] = { .name = "exclude", .type = SETTING_PIECE, .arg = "ID",
			      .help = "leave a piece out (a manifest path, a node id...); repeatable" },
	[SETTING_INCLUDE] = { .name = "include", .type = SETTING_PIECE, .arg = "ID",
			      .help = "put back a piece the input excludes; repeatable" },
	[SETTING_PRIORITY] = { .name = "priority", .type = SETTING_PIECE, .arg = "ID=P",
			       .help = "set a piece's priority (manifest)" },
	[SETTING_TOKENIZER] = { .name = "tokenizer", .type = SETTING_TEXT, .arg = "NAME|PATH",
				.def = "auto",
				.help = "counts beside the estimate: exact (o200k_base, cl100k_base, a .tiktoken file) or "
					"approximate (claude); auto: the model's (OpenAI exact, Claude approximate); off; "
					"report exits 3 when only the estimate fits",
				.set = set_tokenizer, .get = get_tokenizer },
	{ .name = NULL },
};

static const char *const true_false[] = { "true", "false" };

/* "a, b or c" */
static void or_list(struct strbuf *out, const char *const *list, size_t n, const char *last)
{
	for (size_t i = 0; i < n; i++)
		sb_printf(out, "%s%s", i == 0 ? "" : i + 1 == n ? last : ", ", list[i]);
}

size_t setting_list_len(const struct setting *s)
{
	size_t n = 0;
	if (s->type == SETTING_WEIGHTS || s->type == SETTING_PERCENT)
		while (s->choices && s->choices[n] && n < SETTING_LIST_MAX)
			n++;
	return n;
}

static size_t count(const char *const *list)
{
	size_t n = 0;
	while (list && list[n])
		n++;
	return n;
}

/* A number from text, all of it (spaces around allowed); false if not. */
static bool number(const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);
	while (*end == ' ')
		end++;
	if (end == text || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

static int refuse(const struct setting *s, const char *text, struct cs_error *err)
{
	struct strbuf what = STRBUF_INIT;
	switch (s->type) {
	case SETTING_BOOL: {
		const char *const *w = s->words ? s->words : true_false;
		sb_printf(&what, "%s or %s", w[0], w[1]);
		break;
	}
	case SETTING_ENUM:
		or_list(&what, s->choices, count(s->choices), " or ");
		break;
	case SETTING_INT:
		sb_printf(&what, "a whole number from %.0f to %.0f", s->min, s->max);
		if (s->unset)
			sb_printf(&what, " (or %s: the input's)", s->unset);
		break;
	default:
		sb_printf(&what, "a number from %g to %g", s->min, s->max);
		break;
	}
	cs_error_set(err, CS_EUSAGE, "%s takes %s, not \"%s\"", s->name, what.failed ? "another value" : sb_str(&what),
		     text);
	sb_fini(&what);
	return CS_EUSAGE;
}

/* "a=V,b=V" (or "a V", as typed after ':'), names from s->choices, values in
 * [min, max], onto out->list; all or nothing. */
static int parse_list(const struct setting *s, const char *text, struct setting_value *out, struct cs_error *err)
{
	size_t n = setting_list_len(s);
	char buf[SETTING_TEXT_MAX];
	size_t len = strlen(text);
	if (len == 0 || len >= sizeof buf)
		return cs_error_set(err, CS_EUSAGE, "%s takes NAME=VALUE (a comma-separated list is fine)", s->name);
	memcpy(buf, text, len + 1);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		char *eq = strchr(tok, '=');
		if (!eq)
			eq = strchr(tok, ' '); /* ":set weight relevance 0.6" */
		if (!eq)
			return cs_error_set(err, CS_EUSAGE, "%s takes NAME=VALUE, not \"%s\"", s->name, tok);
		*eq = '\0';
		for (char *e = eq; e > tok && e[-1] == ' ';)
			*--e = '\0';
		size_t k = 0;
		while (k < n && strcmp(s->choices[k], tok) != 0)
			k++;
		if (k == n) {
			struct strbuf names = STRBUF_INIT;
			or_list(&names, s->choices, n, ", ");
			cs_error_set(err, CS_EUSAGE, "unknown %s \"%s\": expected %s", s->name, tok, sb_str(&names));
			sb_fini(&names);
			return CS_EUSAGE;
		}
		double v;
		if (!number(eq + 1, &v) || !(v >= s->min && v <= s->max))
			return cs_error_set(err, CS_EUSAGE, "%s %s takes a number from %g to %g, not \"%s\"", s->name, tok,
					    s->min, s->max, eq + 1);
		out->list[k] = v;
	}
	return CS_OK;
}

int setting_parse(const struct setting *s, const char *text, const double *base, struct setting_value *out,
		  struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	switch (s->type) {
	case SETTING_BOOL: {
		const char *const *w = s->words ? s->words : true_false;
		if (!strcmp(text, "true") || !strcmp(text, "on") || !strcmp(text, w[0]))
			out->on = true;
		else if (!strcmp(text, "false") || !strcmp(text, "off") || !strcmp(text, w[1]))
			out->on = false;
		else
			return refuse(s, text, err);
		return CS_OK;
	}
	case SETTING_ENUM:
		for (size_t i = 0; s->choices && s->choices[i]; i++)
			if (!strcmp(s->choices[i], text)) {
				out->choice = (int)i;
				return CS_OK;
			}
		return refuse(s, text, err);
	case SETTING_INT:
		if (s->unset && (!text[0] || !strcmp(text, s->unset))) {
			out->number = -1;
			return CS_OK;
		}
		if (!(text[0] >= '0' && text[0] <= '9') || !number(text, &out->number) ||
		    out->number != floor(out->number) || !(out->number >= s->min && out->number <= s->max))
			return refuse(s, text, err);
		return CS_OK;
	case SETTING_NUMBER:
		if (!number(text, &out->number) || !(out->number >= s->min && out->number <= s->max))
			return refuse(s, text, err);
		return CS_OK;
	case SETTING_TOKENS: {
		long v;
		if (!parse_token_count(text, &v))
			return cs_error_set(err, CS_EUSAGE, "%s \"%s\" is not a token count (e.g. 24000, 100k)", s->name,
					    text);
		out->number = (double)v;
		return CS_OK;
	}
	case SETTING_WEIGHTS:
	case SETTING_PERCENT:
		if (base)
			memcpy(out->list, base, setting_list_len(s) * sizeof *base);
		return parse_list(s, text, out, err);
	case SETTING_TEXT:
	case SETTING_PIECE:
		return CS_OK;
	}
	return cs_error_set(err, CS_EUSAGE, "%s: unknown type", s->name);
}

/* The shortest text that reads back as exactly v (undo restores through it). */
static void exact_number(struct strbuf *out, double v)
{
	char buf[40];
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(buf, sizeof buf, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	sb_puts(out, buf);
}

void setting_print(const struct setting *s, const struct setting_value *v, struct strbuf *out)
{
	switch (s->type) {
	case SETTING_BOOL:
		sb_puts(out, (s->words ? s->words : true_false)[v->on ? 0 : 1]);
		break;
	case SETTING_ENUM:
		if (v->choice >= 0 && (size_t)v->choice < count(s->choices))
			sb_puts(out, s->choices[v->choice]);
		break;
	case SETTING_INT:
		if (v->number < 0 && s->unset)
			sb_puts(out, s->unset);
		else
			sb_printf(out, "%.0f", v->number);
		break;
	case SETTING_TOKENS:
		sb_printf(out, "%ld", (long)v->number);
		break;
	case SETTING_NUMBER:
		exact_number(out, v->number);
		break;
	case SETTING_WEIGHTS:
	case SETTING_PERCENT:
		for (size_t j = 0; j < setting_list_len(s); j++) {
			sb_printf(out, "%s%s=", j ? "," : "", s->choices[j]);
			exact_number(out, v->list[j]);
		}
		break;
	case SETTING_TEXT:
	case SETTING_PIECE:
		break;
	}
}

const char *setting_arg(const struct setting *s)
{
	if (s->arg)
		return s->arg;
	switch (s->type) {
	case SETTING_BOOL: return NULL;
	case SETTING_ENUM: return "NAME";
	case SETTING_WEIGHTS: return "NAME=V";
	case SETTING_PERCENT: return "NAME=P";
	case SETTING_PIECE: return "ID";
	case SETTING_TEXT: return "TEXT";
	default: return "N";
	}
}

bool setting_is_switch(const struct setting *s)
{
	return s->type == SETTING_BOOL && !s->arg;
}

const struct setting *setting_of_kind(const struct source *src, const char *name)
{
	for (size_t k = 0; kind_table[k]; k++) {
		if (src && kind_table[k] != src->kind)
			continue;
		for (const struct setting *s = kind_table[k]->settings; s && s->name; s++)
			if (!strcmp(s->name, name))
				return s;
	}
	return NULL;
}

const struct setting *setting_find(const struct source *src, const char *name)
{
	for (const struct setting *s = setting_common; s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return setting_of_kind(src, name);
}

/* ---- where a setting lives ------------------------------------------------ */

static void *home_of(struct source *src, const struct setting *s)
{
	switch (s->home) {
	case SETTING_IN_SOURCE: return (char *)&src->settings + s->offset;
	case SETTING_IN_MODEL: return src->model ? (char *)src->model + s->offset : NULL;
	case SETTING_NOWHERE: break;
	}
	return NULL;
}

static const void *home_of_const(const struct source *src, const struct setting *s)
{
	switch (s->home) {
	case SETTING_IN_SOURCE: return (const char *)&src->settings + s->offset;
	case SETTING_IN_MODEL: return src->model ? (const char *)src->model + s->offset : NULL;
	case SETTING_NOWHERE: break;
	}
	return NULL;
}

static void load(const struct source *src, const struct setting *s, struct setting_value *v)
{
	memset(v, 0, sizeof *v);
	const void *p = home_of_const(src, s);
	if (!p)
		return;
	switch (s->type) {
	case SETTING_BOOL: v->on = *(const bool *)p; break;
	case SETTING_ENUM:
		v->choice = s->size == sizeof(bool) ? (int)*(const bool *)p : *(const int *)p;
		break;
	case SETTING_INT:
	case SETTING_TOKENS: v->number = (double)*(const long *)p; break;
	case SETTING_NUMBER: v->number = *(const double *)p; break;
	case SETTING_WEIGHTS:
	case SETTING_PERCENT: memcpy(v->list, p, s->size); break;
	case SETTING_TEXT:
	case SETTING_PIECE: break;
	}
}

static void store(struct source *src, const struct setting *s, const struct setting_value *v)
{
	void *p = home_of(src, s);
	if (!p)
		return;
	switch (s->type) {
	case SETTING_BOOL: *(bool *)p = v->on; break;
	case SETTING_ENUM:
		if (s->size == sizeof(bool))
			*(bool *)p = v->choice != 0;
		else
			*(int *)p = v->choice;
		break;
	case SETTING_INT:
	case SETTING_TOKENS: *(long *)p = (long)v->number; break;
	case SETTING_NUMBER: *(double *)p = v->number; break;
	case SETTING_WEIGHTS:
	case SETTING_PERCENT: memcpy(p, v->list, s->size); break;
	case SETTING_TEXT:
	case SETTING_PIECE: break;
	}
}

int setting_set(struct source *src, const struct setting *s, const char *text, struct cs_error *err)
{
	if (s->set)
		return s->set(src, s, text, err);
	struct setting_value cur, v;
	load(src, s, &cur);
	int rc = setting_parse(s, text, cur.list, &v, err);
	if (rc == CS_OK)
		store(src, s, &v);
	return rc;
}

void setting_get(const struct source *src, const struct setting *s, struct strbuf *out)
{
	if (s->get) {
		s->get(src, s, out);
		return;
	}
	struct setting_value v;
	load(src, s, &v);
	setting_print(s, &v, out);
}

void setting_current(const struct source *src, const struct setting *s, struct setting_value *out)
{
	if (!s->get) {
		load(src, s, out);
		return;
	}
	struct strbuf text = STRBUF_INIT;
	struct cs_error ignored;
	s->get(src, s, &text);
	if (setting_parse(s, sb_str(&text), NULL, out, &ignored) != CS_OK)
		memset(out, 0, sizeof *out);
	sb_fini(&text);
}

/* ---- help ----------------------------------------------------------------- */

void setting_help_lines(const struct setting *list, struct strbuf *out)
{
	for (const struct setting *s = list; s && s->name; s++) {
		char left[48];
		const char *arg = setting_arg(s);
		snprintf(left, sizeof left, "--%s%s%s", s->name, arg ? " " : "", arg ? arg : "");
		sb_printf(out, "  %-24s %s", left, s->help);
		if (s->def && !setting_is_switch(s))
			sb_printf(out, " (default %s)", s->def);
		sb_putc(out, '\n');
	}
}

/* text with roff's hyphen escaped */
static void roff(struct strbuf *out, const char *text)
{
	for (const char *p = text; *p; p++)
		if (*p == '-')
			sb_puts(out, "\\-");
		else if (*p == '\\')
			sb_puts(out, "\\e");
		else
			sb_putc(out, *p);
}

void setting_man_lines(const struct setting *list, const char *prefix, struct strbuf *out)
{
	for (const struct setting *s = list; s && s->name; s++) {
		const char *arg = setting_arg(s);
		sb_puts(out, arg ? ".TP\n.BI \\-\\-" : ".TP\n.B \\-\\-");
		roff(out, s->name);
		if (arg) {
			sb_puts(out, " \" ");
			roff(out, arg);
			sb_putc(out, '"');
		}
		sb_puts(out, "\n");
		struct strbuf line = STRBUF_INIT;
		sb_printf(&line, "%s%s%s", prefix ? prefix : "", prefix ? ": " : "", s->help);
		if (line.len && line.data[0] >= 'a' && line.data[0] <= 'z')
			line.data[0] = (char)(line.data[0] - 'a' + 'A');
		roff(out, sb_str(&line));
		sb_fini(&line);
		if (s->def && !setting_is_switch(s)) {
			sb_puts(out, " (default ");
			roff(out, s->def);
			sb_putc(out, ')');
		}
		sb_puts(out, ".\n");
	}
}

const struct setting *kind_choice_setting(const struct kind_ops *kind)
{
	for (const struct setting *s = kind->settings; s && s->name; s++)
		if (s->type == SETTING_ENUM)
			return s;
	return NULL;
}

/* command.c: the `:` command line (see command.h). */
#include "command.h"

#include "base/alloc.h"
#include "cache/cache.h"
#include "kind.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

struct command_info {
	const char *name;
	const char *arg;
	const char *help;
	int setting; /* index in setting_common[], -1: none */
};

static const struct command_info command_table[] = {
#define CMD_X_INFO(e, setting, name, arg, help) [e] = { name, arg, help, setting },
	COMMANDS(CMD_X_INFO)
#undef CMD_X_INFO
};

static const char *const export_formats[] = { "text", "yaml", "json", "screen", NULL };
static const char *const switch_values[] = { "true", "false", NULL };

/* Short names people type without thinking. */
static const struct {
	const char *alias;
	enum command_code code;
} aliases[] = {
	{ "q", CMD_QUIT },
	{ "w", CMD_SAVE },
	{ "write", CMD_SAVE },
};

/* The setting a command changes, or NULL. */
static const struct setting *setting_of(int code)
{
	return command_table[code].setting >= 0 ? &setting_common[command_table[code].setting] : NULL;
}

const char *command_name(int code)
{
	if (code < 0 || code >= CMD_COUNT)
		return "";
	return setting_of(code) ? setting_of(code)->name : command_table[code].name;
}

const char *command_arg(int code)
{
	if (code < 0 || code >= CMD_COUNT)
		return NULL;
	return setting_of(code) ? setting_arg(setting_of(code)) : command_table[code].arg;
}

const char *command_help(int code)
{
	if (code < 0 || code >= CMD_COUNT)
		return "";
	return setting_of(code) ? setting_of(code)->help : command_table[code].help;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_spaces(const char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

/* The command named s[0..n): exact, alias, or a prefix only one has.
 * CMD_NONE when unknown, CMD_COUNT when ambiguous. */
static int lookup(const char *s, size_t n)
{
	for (int c = 0; c < CMD_COUNT; c++)
		if (strlen(command_name(c)) == n && !memcmp(command_name(c), s, n))
			return c;
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (strlen(aliases[i].alias) == n && !memcmp(aliases[i].alias, s, n))
			return aliases[i].code;
	int found = CMD_NONE;
	for (int c = 0; c < CMD_COUNT; c++)
		if (!strncmp(command_name(c), s, n)) {
			if (found != CMD_NONE)
				return CMD_COUNT;
			found = c;
		}
	return found;
}

static bool in_list(const char *const *list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

static int ambiguous(const char *s, size_t n, struct cs_error *err)
{
	struct strbuf names = STRBUF_INIT;
	for (int c = 0; c < CMD_COUNT; c++)
		if (!strncmp(command_name(c), s, n))
			sb_printf(&names, "%s%s", names.len ? ", " : "", command_name(c));
	cs_error_set(err, CS_EUSAGE, "\"%.*s\" is ambiguous: %s", (int)n, s, names.failed ? "..." : sb_str(&names));
	sb_fini(&names);
	return CS_EUSAGE;
}

/* :set NAME VALUE, or NAME=VALUE; a switch alone means true. */
static int parse_set(struct source *src, const char *arg, struct command *out, struct cs_error *err)
{
	size_t n = strcspn(arg, " \t=");
	char name[64];
	if (n == 0) {
		const struct setting *first = src->kind->settings;
		if (!first || !first->name)
			return cs_error_set(err, CS_EUSAGE, ":set needs NAME VALUE; a %s has no settings of its own",
					    src->kind->title);
		return cs_error_set(err, CS_EUSAGE, ":set needs NAME VALUE, e.g. :set %s %s (Tab lists them)", first->name,
				    setting_arg(first) ? setting_arg(first) : "true");
	}
	if (n >= sizeof name)
		return cs_error_set(err, CS_EUSAGE, "no setting \"%.*s\"", (int)n, arg);
	memcpy(name, arg, n);
	name[n] = '\0';
	const char *value = skip_spaces(arg + n);
	if (*value == '=')
		value = skip_spaces(value + 1);
	if (!*value) {
		const struct setting *opt = setting_of_kind(src, name);
		if (opt && setting_is_switch(opt))
			value = "true";
		else
			return cs_error_set(err, CS_EUSAGE, ":set %s needs a value", name);
	}
	return edit_from_setting(src, name, value, &out->edit, err);
}

int command_parse(struct source *src, const char *line, struct command *out, struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	out->code = CMD_NONE;
	if (strlen(line) >= COMMAND_LINE_MAX)
		return cs_error_set(err, CS_EUSAGE, "the command is longer than %d bytes", COMMAND_LINE_MAX);
	const char *s = skip_spaces(line);
	if (*s == ':')
		s = skip_spaces(s + 1);
	size_t n = strcspn(s, " \t");
	if (n == 0)
		return CS_OK;
	int code = lookup(s, n);
	if (code == CMD_COUNT)
		return ambiguous(s, n, err);
	if (code == CMD_NONE)
		return cs_error_set(err, CS_EUSAGE, "no command \"%.*s\" (Tab lists them)", (int)n, s);
	const char *arg = skip_spaces(s + n);
	size_t len = strlen(arg);
	while (len && is_space(arg[len - 1]))
		len--;
	if (len >= sizeof out->arg)
		return cs_error_set(err, CS_EUSAGE, "the argument of :%s is too long", command_name(code));
	memcpy(out->arg, arg, len);
	out->arg[len] = '\0';
	if (!command_arg(code) && len)
		return cs_error_set(err, CS_EUSAGE, ":%s takes no argument", command_name(code));
	if (command_arg(code) && !len)
		return cs_error_set(err, CS_EUSAGE, ":%s needs %s: %s", command_name(code), command_arg(code),
				    command_help(code));
	out->code = (enum command_code)code;

	switch (out->code) {
	case CMD_BUDGET:
	case CMD_STRATEGY:
	case CMD_EXCLUDE:
	case CMD_INCLUDE:
	case CMD_PRIORITY:
	case CMD_CHARS_PER_TOKEN:
		out->is_edit = true;
		return edit_from_setting(src, command_name(code), out->arg, &out->edit, err);
	case CMD_SET:
		out->is_edit = true;
		return parse_set(src, out->arg, out, err);
	case CMD_SORT:
		if (kind_sort_key(src->kind, out->arg) < 0) {
			struct strbuf keys = STRBUF_INIT;
			kind_sort_keys_text(src->kind, ", ", &keys);
			cs_error_set(err, CS_EUSAGE, "no sort key \"%s\": expected %s", out->arg, sb_str(&keys));
			sb_fini(&keys);
			return CS_EUSAGE;
		}
		return CS_OK;
	case CMD_EXPORT: {
		/* a last word that names a format is the format */
		char *sp = strrchr(out->arg, ' ');
		char *tab = strrchr(out->arg, '\t');
		if (tab && (!sp || tab > sp))
			sp = tab;
		if (sp && in_list(export_formats, sp + 1)) {
			snprintf(out->format, sizeof out->format, "%s", sp + 1);
			while (sp > out->arg && is_space(sp[-1]))
				sp--;
			*sp = '\0';
		}
		return CS_OK;
	}
	default:
		return CS_OK;
	}
}

/* ---- completion ----------------------------------------------------------- */

void command_completion_fini(struct command_completion *c)
{
	if (!c)
		return;
	cs_free(c->items);
	memset(c, 0, sizeof *c);
}

static bool add(struct command_completion *c, const char *item)
{
	if (CS_GROW(c->items, c->cap, c->n + 1) != 0)
		return false;
	c->items[c->n++] = item;
	return true;
}

/* Adds the items of list starting with word[0..n). */
static bool add_list(struct command_completion *c, const char *const *list, const char *word, size_t n)
{
	for (; list && *list; list++)
		if (!strncmp(*list, word, n) && !add(c, *list))
			return false;
	return true;
}

static bool add_list_n(struct command_completion *c, const char *const *list, size_t count, const char *word,
		       size_t n)
{
	for (size_t i = 0; i < count; i++)
		if (!strncmp(list[i], word, n) && !add(c, list[i]))
			return false;
	return true;
}

static bool add_strategies(struct command_completion *c, const int *list, const char *word, size_t n)
{
	for (; list && *list != STRAT_NONE; list++)
		if (!strncmp(strategy_name(*list), word, n) && !add(c, strategy_name(*list)))
			return false;
	return true;
}

static bool add_ids(struct command_completion *c, const struct source *src, const char *word, size_t n)
{
	for (size_t i = 0; src && i < src->npieces; i++)
		if (!strncmp(src->pieces[i].id, word, n) && !add(c, src->pieces[i].id))
			return false;
	return true;
}

static bool add_options(struct command_completion *c, const struct source *src, const char *word, size_t n)
{
	for (const struct setting *o = src ? src->kind->settings : NULL; o && o->name; o++)
		if (!strncmp(o->name, word, n) && !add(c, o->name))
			return false;
	return true;
}

static bool add_profiles(struct command_completion *c, const struct command_names *names, const char *word,
			 size_t n)
{
	if (names && names->profiles)
		return add_list(c, names->profiles, word, n);
	size_t np;
	const struct cache_profile *p = cache_builtin_profiles(&np);
	for (size_t i = 0; i < np; i++)
		if (!strncmp(p[i].name, word, n) && !add(c, p[i].name))
			return false;
	return true;
}

/* The argument's candidates; word is the argument so far (from its start). */
static bool complete_arg(struct command_completion *c, const struct source *src, const struct command_names *names,
			 int code, const char *line, const char *arg)
{
	const char *last = arg; /* the word being completed */
	for (const char *p = arg; *p; p++)
		if (is_space(*p))
			last = p + 1;
	switch (code) {
	case CMD_STRATEGY: {
		const char *eq = strrchr(arg, '=');
		if (eq) {
			c->word_start = (size_t)(eq + 1 - line);
			return add_strategies(c, src ? src->kind->piece_strategies : NULL, eq + 1, strlen(eq + 1));
		}
		c->word_start = (size_t)(arg - line);
		return add_strategies(c, src ? src->kind->global_strategies : NULL, arg, strlen(arg)) &&
		       add_ids(c, src, arg, strlen(arg));
	}
	case CMD_EXCLUDE:
	case CMD_INCLUDE:
	case CMD_PRIORITY:
		c->word_start = (size_t)(arg - line);
		return add_ids(c, src, arg, strlen(arg));
	case CMD_SET:
		if (last == arg) {
			c->word_start = (size_t)(arg - line);
			return add_options(c, src, arg, strlen(arg));
		} else {
			char name[64];
			size_t n = strcspn(arg, " \t");
			snprintf(name, sizeof name, "%.*s", (int)n, arg);
			const struct setting *o = src ? setting_of_kind(src, name) : NULL;
			c->word_start = (size_t)(last - line);
			if (o && o->type == SETTING_BOOL) {
				const char *const *w = o->words ? o->words : switch_values;
				return add_list_n(c, w, 2, last, strlen(last));
			}
			return !o || o->type != SETTING_ENUM || add_list(c, o->choices, last, strlen(last));
		}
	case CMD_PROFILE:
		c->word_start = (size_t)(arg - line);
		return add_profiles(c, names, arg, strlen(arg));
	case CMD_SORT:
		c->word_start = (size_t)(arg - line);
		return add_list(c, src ? src->kind->sort_keys : NULL, arg, strlen(arg));
	case CMD_THEME:
		c->word_start = (size_t)(arg - line);
		return add_list(c, names ? names->themes : NULL, arg, strlen(arg));
	case CMD_EXPORT:
		c->word_start = (size_t)(last - line);
		return last == arg || add_list(c, export_formats, last, strlen(last));
	default:
		c->word_start = strlen(line);
		return true;
	}
}

int command_complete(const struct source *src, const struct command_names *names, const char *line,
		     struct command_completion *out, struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	const char *s = skip_spaces(line);
	if (*s == ':')
		s = skip_spaces(s + 1);
	size_t n = strcspn(s, " \t");
	bool ok = true;
	if (!s[n]) {
		out->word_start = (size_t)(s - line);
		for (int c = 0; c < CMD_COUNT && ok; c++)
			if (!strncmp(command_name(c), s, n))
				ok = add(out, command_name(c));
	} else {
		int code = lookup(s, n);
		out->word_start = strlen(line);
		if (code != CMD_NONE && code != CMD_COUNT)
			ok = complete_arg(out, src, names, code, line, skip_spaces(s + n));
	}
	if (!ok) {
		command_completion_fini(out);
		return cs_error_nomem(err);
	}
	if (out->n) {
		size_t common = strlen(out->items[0]);
		for (size_t i = 1; i < out->n; i++) {
			size_t k = 0;
			while (k < common && out->items[i][k] == out->items[0][k])
				k++;
			common = k;
		}
		out->common_bytes = common;
	}
	return CS_OK;
}

/* cli.c: command-line parsing (see cli.h). */
#include "cli.h"

#include "edit.h"
#include "kind.h"
#include "setting.h"
#include "source.h"
#include "base/strbuf.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The command line's own flags (the edits are settings, setting.h): a
 * switch sets a bool, a value a string; FLAG_OWN_PARSE ones long_option
 * reads itself. --help lists them from this table, in its order, and a unit
 * test checks that the man page has an entry for each. */
#define FLAG_OWN_PARSE ((size_t)-1)

/* FLAG_SETTING: parsed here (it wins over the setting of that name), listed
 * in --help and the man page from the setting's entry (setting.h). */
enum flag_group { FLAG_GENERAL, FLAG_CACHE, FLAG_SETTING };

static const struct cli_flag {
	const char *name;
	size_t offset; /* in struct cli; FLAG_OWN_PARSE: long_option's own code */
	bool value;    /* takes a value (a const char *), else a switch (a bool) */
	enum cli_command only; /* CLI_UI: any command; else only with that one */
	const char *arg;  /* the value's name in --help: "FILE" */
	const char *help; /* one or more lines for --help ('\n' continues it) */
	enum flag_group group;
} cli_flags[] = {
	{ "kind", offsetof(struct cli, kind), true, CLI_UI, "K", NULL, FLAG_GENERAL },
	{ "assembly-file", offsetof(struct cli, assembly_file), true, CLI_UI, "FILE",
	  "with a ledger database (agents.db): the assembly block\n"
	  "the ledger does not store (system prompt, event, budget)", FLAG_GENERAL },
	{ "format", FLAG_OWN_PARSE, true, CLI_UI, "F", "report format: text, yaml or json", FLAG_GENERAL },
	{ "tokenizer", offsetof(struct cli, tokenizer), true, CLI_UI, "NAME|PATH", NULL, FLAG_SETTING },
	{ "strict", offsetof(struct cli, strict), false, CLI_UI, NULL,
	  "a malformed line in a JSONL session is an error, not\na skipped line with a warning", FLAG_GENERAL },
	{ "raw", offsetof(struct cli, raw), false, CLI_UI, NULL,
	  "dump: the exact bytes (refused on a terminal without --force)", FLAG_GENERAL },
	{ "force", offsetof(struct cli, force), false, CLI_UI, NULL,
	  "dump --raw: write to a terminal; save: replace an existing\nor read-only --output", FLAG_GENERAL },
	{ "anyway", offsetof(struct cli, anyway), false, CLI_DUMP, NULL,
	  "dump: print the prompt even when the system would not send it", FLAG_GENERAL },
	{ "output", offsetof(struct cli, output), true, CLI_SAVE, "OTHER|-",
	  "save: write the edited manifest to OTHER (-: print it)", FLAG_GENERAL },
	{ "edits", offsetof(struct cli, edits), true, CLI_UI, "FILE",
	  "make the edits a what-if file holds (the inspector's w\non a loom tree, a ledger...) before anything else", FLAG_GENERAL },
	{ "theme", offsetof(struct cli, theme), true, CLI_UI, "NAME|PATH", "inspector colours", FLAG_GENERAL },
	{ "ascii", offsetof(struct cli, ascii), false, CLI_UI, NULL, "ASCII glyphs only", FLAG_GENERAL },
	{ "no-mouse", offsetof(struct cli, no_mouse), false, CLI_UI, NULL,
	  "the inspector leaves the mouse to the terminal", FLAG_GENERAL },
	{ "follow", offsetof(struct cli, follow), false, CLI_UI, NULL,
	  "the inspector loads the file again when it changes (R: now)", FLAG_GENERAL },
	{ "screen", offsetof(struct cli, screen), true, CLI_UI, "WxH",
	  "the inspector on a virtual screen, printed at the end", FLAG_GENERAL },
	{ "keys", offsetof(struct cli, keys), true, CLI_UI, "KEYS",
	  "with --screen: the keys to replay (\"j j Space\")", FLAG_GENERAL },
	{ "svg", offsetof(struct cli, svg), false, CLI_UI, NULL,
	  "with --screen: print it as an SVG image in the theme's\ncolours (make screenshot: the README's picture)",
	  FLAG_GENERAL },
	{ "profile", offsetof(struct cli, profile), true, CLI_UI, "NAME",
	  "anthropic, openai, gemini, deepseek, vllm, or one of yours", FLAG_CACHE },
	{ "baseline", offsetof(struct cli, baseline), true, CLI_UI, "FILE",
	  "compare with FILE's prompt (default: this file without\n"
	  "the edits given here; no edits: a warm repeat)", FLAG_CACHE },
	{ "baseline-edit", FLAG_OWN_PARSE, true, CLI_UI, "N=V",
	  "an edit for the baseline instead (priority=src/a.c=0.9)", FLAG_CACHE },
	{ "breakpoint", FLAG_OWN_PARSE, true, CLI_UI, "ID",
	  "a cache breakpoint after this piece (or #BLOCK); repeatable", FLAG_CACHE },
	{ "no-breakpoint", FLAG_OWN_PARSE, true, CLI_UI, "ID", "no breakpoint after it", FLAG_CACHE },
};

const char *cli_flag_name(size_t i)
{
	return i < sizeof cli_flags / sizeof *cli_flags ? cli_flags[i].name : NULL;
}

/* The table's flags of one group as --help lines: "  --name ARG   help". */
static void flag_help_lines(enum flag_group group, struct strbuf *out)
{
	for (size_t f = 0; f < sizeof cli_flags / sizeof *cli_flags; f++) {
		const struct cli_flag *fl = &cli_flags[f];
		if (fl->group != group)
			continue;
		char left[48];
		snprintf(left, sizeof left, "--%s%s%s", fl->name, fl->arg ? " " : "", fl->arg ? fl->arg : "");
		sb_printf(out, "  %-24s ", left);
		if (!fl->help) { /* --kind: the kinds' names */
			for (size_t k = 0; kind_table[k]; k++)
				sb_printf(out, "%s%s", k == 0 ? "" : kind_table[k + 1] ? ", " : " or ", kind_table[k]->name);
			sb_puts(out, " (default: detect)\n");
			continue;
		}
		for (const char *p = fl->help; *p;) {
			size_t n = strcspn(p, "\n");
			sb_printf(out, "%.*s\n", (int)n, p);
			p += n;
			if (*p == '\n' && *++p)
				sb_printf(out, "  %-24s ", "");
		}
	}
}

static int need_value(int argc, char **argv, int *i, const char *inline_value, const char **out,
		      struct cs_error *err)
{
	if (inline_value) {
		*out = inline_value;
		return CS_OK;
	}
	if (*i + 1 >= argc)
		return cs_error_set(err, CS_EUSAGE, "%s needs a value", argv[*i]);
	*out = argv[++*i];
	return CS_OK;
}

/* --baseline-edit N=V, --breakpoint ID, --no-breakpoint ID: kept in order. */
static int cache_flag(const char *name, const char *v, struct cli *out, struct cs_error *err)
{
	bool edit = !strcmp(name, "baseline-edit");
	size_t *n = edit ? &out->nbaseline_edits : &out->nbreakpoints;
	if (*n == CLI_MAX_SETTINGS)
		return cs_error_set(err, CS_EUSAGE, "more than %d --%s", CLI_MAX_SETTINGS, name);
	if (edit && !strchr(v, '='))
		return cs_error_set(err, CS_EUSAGE, "--baseline-edit takes NAME=VALUE (priority=src/a.c=0.9), not \"%s\"", v);
	if (edit) {
		out->baseline_edits[(*n)++] = v;
	} else {
		out->breakpoint_on[*n] = name[0] == 'b';
		out->breakpoints[(*n)++] = v;
	}
	return CS_OK;
}

/* A setting (setting.h): a switch alone means true; kept in order. */
static int setting_flag(int argc, char **argv, int *i, const char *name, const char *inline_value, struct cli *out,
			struct cs_error *err)
{
	const struct setting *s = setting_find(NULL, name);
	if (!s)
		return cs_error_set(err, CS_EUSAGE, "unknown option --%s (see --help)", name);
	if (out->nsettings == CLI_MAX_SETTINGS)
		return cs_error_set(err, CS_EUSAGE, "more than %d settings", CLI_MAX_SETTINGS);
	const char *v = inline_value ? inline_value : "true";
	int rc = setting_is_switch(s) ? CS_OK : need_value(argc, argv, i, inline_value, &v, err);
	if (rc == CS_OK)
		out->settings[out->nsettings++] = (struct cli_setting){ s->name, v };
	return rc;
}

/* argv[*i], which starts with "--": --name=value or --name value. */
static int long_option(int argc, char **argv, int *i, struct cli *out, struct cs_error *err)
{
	const char *arg = argv[*i];
	char name[64];
	const char *eq = strchr(arg, '=');
	size_t nlen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
	if (nlen >= sizeof name)
		return cs_error_set(err, CS_EUSAGE, "unknown option %s (see --help)", arg);
	memcpy(name, arg + 2, nlen);
	name[nlen] = '\0';
	const char *inline_value = eq ? eq + 1 : NULL;
	const char *v = NULL;
	/* --assembly stack|linear is the memory snapshot's setting; any other
	 * value is the old spelling of --assembly-file, kept with a note */
	const char *next = inline_value ? inline_value : *i + 1 < argc ? argv[*i + 1] : NULL;
	if (!strcmp(name, "assembly") && next && strcmp(next, "stack") != 0 && strcmp(next, "linear") != 0) {
		out->deprecated = "--assembly FILE is now --assembly-file FILE (--assembly is a memory "
				  "snapshot's stack|linear)";
		return need_value(argc, argv, i, inline_value, &out->assembly_file, err);
	}
	for (size_t f = 0; f < sizeof cli_flags / sizeof *cli_flags; f++) {
		const struct cli_flag *fl = &cli_flags[f];
		if (strcmp(fl->name, name) != 0 || fl->offset == FLAG_OWN_PARSE ||
		    (fl->only != CLI_UI && fl->only != out->command))
			continue;
		if (!fl->value) {
			*(bool *)((char *)out + fl->offset) = true;
			return CS_OK;
		}
		return need_value(argc, argv, i, inline_value, (const char **)((char *)out + fl->offset), err);
	}
	if (!strcmp(name, "baseline-edit") || !strcmp(name, "breakpoint") || !strcmp(name, "no-breakpoint")) {
		int rc = need_value(argc, argv, i, inline_value, &v, err);
		return rc == CS_OK ? cache_flag(name, v, out, err) : rc;
	}
	if (!strcmp(name, "format")) {
		int rc = need_value(argc, argv, i, inline_value, &v, err);
		if (rc == CS_OK && !report_format_from_name(v, &out->format))
			rc = cs_error_set(err, CS_EUSAGE, "--format takes text, yaml or json, not \"%s\"", v);
		return rc;
	}
	return setting_flag(argc, argv, i, name, inline_value, out, err);
}

int cli_parse(int argc, char **argv, struct cli *out, struct cs_error *err)
{
	memset(out, 0, sizeof *out);
	out->command = CLI_UI;
	out->format = REPORT_TEXT;
	int first = 1;
	if (argc > 1 && !strcmp(argv[1], "report"))
		out->command = CLI_REPORT, first = 2;
	else if (argc > 1 && !strcmp(argv[1], "dump"))
		out->command = CLI_DUMP, first = 2;
	else if (argc > 1 && !strcmp(argv[1], "save"))
		out->command = CLI_SAVE, first = 2;
	for (int i = first; i < argc; i++) {
		const char *arg = argv[i];
		if (arg[0] != '-' || !strcmp(arg, "-")) {
			if (out->file)
				return cs_error_set(err, CS_EUSAGE, "one file at a time (got %s and %s)", out->file, arg);
			out->file = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			if (i + 1 < argc)
				out->file = argv[++i];
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			out->command = CLI_HELP;
			return CS_OK;
		}
		if (!strcmp(arg, "--version")) {
			out->command = CLI_VERSION;
			return CS_OK;
		}
		if (strncmp(arg, "--", 2) != 0)
			return cs_error_set(err, CS_EUSAGE, "unknown option %s (see --help)", arg);
		int rc = long_option(argc, argv, &i, out, err);
		if (rc != CS_OK)
			return rc;
	}
	if (!out->file)
		return cs_error_set(err, CS_EUSAGE, "no file given (see --help)");
	if (out->keys && !out->screen)
		return cs_error_set(err, CS_EUSAGE, "--keys goes with --screen WxH");
	if (out->svg && !out->screen)
		return cs_error_set(err, CS_EUSAGE, "--svg goes with --screen WxH");
	return CS_OK;
}

int cli_apply(const struct cli *cli, struct source *src, struct cs_error *err)
{
	for (size_t i = 0; i < cli->nsettings; i++) {
		struct edit e;
		int rc = edit_from_setting(src, cli->settings[i].name, cli->settings[i].value, &e, err);
		if (rc == CS_OK)
			rc = edit_apply(src, &e, err);
		if (rc != CS_OK) {
			char msg[CS_ERROR_MSG_MAX];
			memcpy(msg, err->message, sizeof msg);
			cs_error_set(err, (enum cs_status)rc, "--%s %s: %s", cli->settings[i].name, cli->settings[i].value, msg);
			return rc;
		}
	}
	return CS_OK;
}

/* The opening paragraph: every kind of the table by its title ("a
 * working-set manifest, a loom tree, ... or an OpenAI request"), so that a
 * new kind is named here by its table entry; wrapped at 80 columns. */
static void usage_intro(struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	sb_puts(&text, "Loads");
	for (size_t k = 0; kind_table[k]; k++) {
		const char *t = kind_table[k]->title;
		sb_printf(&text, "%s %s %s", k == 0 ? "" : kind_table[k + 1] ? "," : " or",
			  strchr("AEIOUaeiou", t[0]) ? "an" : "a", t);
	}
	sb_puts(&text, " (a request alone or a log of them), runs that system's own context assembly, and shows "
		       "what went into the prompt, what was cut or dropped, and why. The formats: man ctxscope-formats.");
	size_t col = 0;
	for (const char *p = sb_str(&text); *p;) {
		size_t n = strcspn(p, " ");
		if (col && col + 1 + n > 80) {
			sb_putc(out, '\n');
			col = 0;
		} else if (col) {
			sb_putc(out, ' ');
			col++;
		}
		sb_printf(out, "%.*s", (int)n, p);
		col += n;
		p += n;
		p += *p == ' ';
	}
	sb_putc(out, '\n');
	if (text.failed)
		out->failed = true;
	sb_fini(&text);
}

void cli_usage(struct strbuf *out)
{
	sb_puts(out, "ctxscope: what did the model actually see?\n\n");
	usage_intro(out);
	sb_puts(out,
		"\n"
		"usage:\n"
		"  ctxscope [OPTIONS] FILE           open the inspector\n"
		"  ctxscope report FILE [OPTIONS]    the assembly report; exit 3 when over the limit\n"
		"  ctxscope dump FILE [OPTIONS]      the prompt as the model would receive it; when the\n"
		"                                    system would not send it (it refuses or compacts\n"
		"                                    first), says why on stderr and exits 3\n"
		"  ctxscope save FILE [EDITS] [--output OTHER|-]\n"
		"                                    write a manifest's edits (--priority, --strategy,\n"
		"                                    --exclude) into it, changing only those values;\n"
		"                                    keeps FILE.bak; --output - prints instead\n"
		"  ctxscope --screen WxH [--keys \"j j Space\"] FILE\n"
		"                                    run the inspector on a virtual screen, print it\n"
		"  ctxscope count [--tokenizer NAME|PATH] [--format text|json] FILE...|-\n"
		"                                    token counts beside the estimate: exact (o200k_base,\n"
		"                                    cl100k_base or a .tiktoken file) or approximate\n"
		"                                    (claude, marked \u2248); - reads standard input\n"
		"  ctxscope scan [--format text|json|jsonl|csv] [--per request] PATH...\n"
		"                                    every Claude Code session (and request log) under\n"
		"                                    the folders: usage, cost, hit rate and the cache\n"
		"                                    waste with its causes, worst first; ctxscope FOLDER\n"
		"                                    opens that table (ctxscope scan --help: the rest)\n"
		"\n"
		"options:\n");
	flag_help_lines(FLAG_GENERAL, out);
	sb_puts(out, "  --help, --version\n"
		     "\n"
		     "cache analysis (the report's cache section):\n");
	flag_help_lines(FLAG_CACHE, out);
	sb_puts(out,
		"  user file: $XDG_CONFIG_HOME/ctxscope/cache.yml (profiles, prices, volatile patterns)\n"
		"\n"
		"edits (the same the inspector makes):\n");
	setting_help_lines(setting_common, out);
	for (size_t k = 0; kind_table[k]; k++) {
		const struct setting *list = kind_table[k]->settings;
		bool shown = false; /* kinds sharing one table list it once, under all their names */
		for (size_t j = 0; j < k; j++)
			shown |= kind_table[j]->settings == list;
		if (!list || !list->name || shown)
			continue;
		sb_putc(out, '\n');
		for (size_t j = k, n = 0; kind_table[j]; j++)
			if (kind_table[j]->settings == list)
				sb_printf(out, "%s%s", n++ ? ", " : "", kind_table[j]->title);
		sb_puts(out, " settings:\n");
		setting_help_lines(list, out);
	}
	sb_puts(out,
		"\n"
		"detection: .yml/.yaml is a manifest; a JSON object with nodes and edges is a loom\n"
		"tree, with turns a ledger export, with items a memory snapshot; a SQLite file is\n"
		"a ledger's agents.db; JSON Lines with type, uuid and sessionId a Claude Code\n"
		"session; a request body (or a .jsonl log of them) by its keys and blocks.\n"
		"tokens are estimates, as the inspected systems make them: ceil(code points / 4).\n"
		"\n"
		"decisions where the seeds are silent (ctxscope-formats(5)): a manifest's role defaults to\n"
		"context and truncate_strategy to end; no budget means 28000 max, 4000 reserved;\n"
		"max_lines caps a file before budgeting, in its strategy's direction; every cut is\n"
		"marked \"[... truncated ...]\" and the marker's tokens count in the budget.\n"
		"A loom tree's truncation marker is a user message \"[N earlier messages truncated]\";\n"
		"truncateMiddle always keeps the last message; --include overrides excluded, pruned\n"
		"and annotation, never empty; a system context alone over the budget is an error.\n"
		"\n"
		"exit status: 0 fits, 2 bad input or usage, 3 over the limit (or a priority-1.0 file\n"
		"left out), 1 out of memory.\n");
}

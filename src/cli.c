/* cli.c: command-line parsing (see cli.h). */
#include "cli.h"

#include "edit.h"
#include "kind.h"
#include "source.h"
#include "strbuf.h"

#include <stdio.h>
#include <string.h>

/* Settings every kind understands; a kind adds its own (kind.h). */
static const struct kind_option common_settings[] = {
	{ .name = "budget", .arg = "N",
	  .help = "usable budget in tokens (24000, 100k); overrides the input's" },
	{ .name = "strategy", .arg = "S|ID=S",
	  .help = "whole-assembly strategy (loom), or ID=S for one piece (manifest)" },
	{ .name = "chars-per-token", .arg = "N",
	  .help = "the estimate's divisor (default 4): tokens = ceil(code points / N)" },
	{ .name = "exclude", .arg = "ID",
	  .help = "leave a piece out (a manifest path, a node id...); repeatable" },
	{ .name = "include", .arg = "ID",
	  .help = "put back a piece the input excludes; repeatable" },
	{ .name = "priority", .arg = "ID=P",
	  .help = "set a piece's priority (manifest)" },
	{ .name = NULL },
};

static const struct kind_option *find_setting(const char *name)
{
	for (const struct kind_option *o = common_settings; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	for (size_t k = 0; kind_table[k]; k++) {
		const struct kind_option *o = kind_option(kind_table[k], name);
		if (o)
			return o;
	}
	return NULL;
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
		/* --name=value or --name value */
		char name[64];
		const char *eq = strchr(arg, '=');
		size_t nlen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (nlen >= sizeof name)
			return cs_error_set(err, CS_EUSAGE, "unknown option %s (see --help)", arg);
		memcpy(name, arg + 2, nlen);
		name[nlen] = '\0';
		const char *inline_value = eq ? eq + 1 : NULL;
		const char *v = NULL;
		int rc = CS_OK;
		if (!strcmp(name, "raw"))
			out->raw = true;
		else if (!strcmp(name, "force"))
			out->force = true;
		else if (!strcmp(name, "no-mouse"))
			out->no_mouse = true;
		else if (!strcmp(name, "ascii"))
			out->ascii = true;
		else if (!strcmp(name, "kind"))
			rc = need_value(argc, argv, &i, inline_value, &out->kind, err);
		else if (!strcmp(name, "assembly"))
			rc = need_value(argc, argv, &i, inline_value, &out->assembly, err);
		else if (!strcmp(name, "screen"))
			rc = need_value(argc, argv, &i, inline_value, &out->screen, err);
		else if (!strcmp(name, "keys"))
			rc = need_value(argc, argv, &i, inline_value, &out->keys, err);
		else if (!strcmp(name, "theme") || !strcmp(name, "tokenizer"))
			rc = need_value(argc, argv, &i, inline_value, name[1] == 'h' ? &out->theme : &out->tokenizer, err);
		else if (!strcmp(name, "edits"))
			rc = need_value(argc, argv, &i, inline_value, &out->edits, err);
		else if (!strcmp(name, "profile"))
			rc = need_value(argc, argv, &i, inline_value, &out->profile, err);
		else if (!strcmp(name, "baseline"))
			rc = need_value(argc, argv, &i, inline_value, &out->baseline, err);
		else if (!strcmp(name, "baseline-edit") || !strcmp(name, "breakpoint") || !strcmp(name, "no-breakpoint")) {
			bool edit = name[0] == 'b' && name[1] == 'a';
			size_t *n = edit ? &out->nbaseline_edits : &out->nbreakpoints;
			if (*n == CLI_MAX_SETTINGS)
				return cs_error_set(err, CS_EUSAGE, "more than %d --%s", CLI_MAX_SETTINGS, name);
			rc = need_value(argc, argv, &i, inline_value, &v, err);
			if (rc == CS_OK && edit && !strchr(v, '='))
				rc = cs_error_set(err, CS_EUSAGE, "--baseline-edit takes NAME=VALUE (priority=src/a.c=0.9), not \"%s\"", v);
			if (rc == CS_OK && edit)
				out->baseline_edits[(*n)++] = v;
			else if (rc == CS_OK) {
				out->breakpoint_on[*n] = name[0] == 'b';
				out->breakpoints[(*n)++] = v;
			}
		} else if (!strcmp(name, "output") && out->command == CLI_SAVE) {
			rc = need_value(argc, argv, &i, inline_value, &out->output, err);
		} else if (!strcmp(name, "format")) {
			rc = need_value(argc, argv, &i, inline_value, &v, err);
			if (rc == CS_OK && !report_format_from_name(v, &out->format))
				rc = cs_error_set(err, CS_EUSAGE, "--format takes text, yaml or json, not \"%s\"", v);
		} else {
			const struct kind_option *o = find_setting(name);
			if (!o)
				return cs_error_set(err, CS_EUSAGE, "unknown option --%s (see --help)", name);
			if (out->nsettings == CLI_MAX_SETTINGS)
				return cs_error_set(err, CS_EUSAGE, "more than %d settings", CLI_MAX_SETTINGS);
			if (o->arg)
				rc = need_value(argc, argv, &i, inline_value, &v, err);
			else
				v = inline_value ? inline_value : "true";
			if (rc == CS_OK)
				out->settings[out->nsettings++] = (struct cli_setting){ o->name, v };
		}
		if (rc != CS_OK)
			return rc;
	}
	if (!out->file)
		return cs_error_set(err, CS_EUSAGE, "no file given (see --help)");
	if (out->keys && !out->screen)
		return cs_error_set(err, CS_EUSAGE, "--keys goes with --screen WxH");
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

static void option_lines(struct strbuf *out, const struct kind_option *o)
{
	for (; o && o->name; o++) {
		char left[48];
		snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		sb_printf(out, "  %-24s %s\n", left, o->help);
	}
}

void cli_usage(struct strbuf *out)
{
	sb_puts(out,
		"ctxscope: what did the model actually see?\n"
		"\n"
		"Loads a working-set manifest, a loom tree, a ledger export or a memory snapshot,\n"
		"runs that system's own context assembly, and shows what went into the prompt,\n"
		"what was cut or dropped, and why.\n"
		"\n"
		"usage:\n"
		"  ctxscope [OPTIONS] FILE           open the inspector\n"
		"  ctxscope report FILE [OPTIONS]    the assembly report; exit 3 when over the limit\n"
		"  ctxscope dump FILE [OPTIONS]      the prompt as the model would receive it\n"
		"  ctxscope save FILE [EDITS] [--output OTHER|-]\n"
		"                                    write a manifest's edits (--priority, --strategy,\n"
		"                                    --exclude) into it, changing only those values;\n"
		"                                    keeps FILE.bak; --output - prints instead\n"
		"  ctxscope --screen WxH [--keys \"j j Space\"] FILE\n"
		"                                    run the inspector on a virtual screen, print it\n"
		"  ctxscope count [--tokenizer NAME|PATH] [--format text|json] FILE...\n"
		"                                    exact token counts (o200k_base, cl100k_base or a\n"
		"                                    .tiktoken file) beside the estimate\n"
		"\n"
		"options:\n"
		"  --kind K                 manifest, loom, ledger or memory (default: detect)\n"
		"  --assembly FILE          with a ledger database (agents.db): the assembly block\n"
		"                           the ledger does not store (system prompt, event, budget)\n"
		"  --format F               report format: text, yaml or json\n"
		"  --tokenizer NAME|PATH    report: exact counts (o200k_base, cl100k_base, a .tiktoken\n"
		"                           file) beside the estimate; exit 3 when only the estimate fits\n"
		"  --raw                    dump: the exact bytes (refused on a terminal without --force)\n"
		"  --theme NAME|PATH        inspector colours\n"
		"  --ascii                  ASCII glyphs only\n"
		"  --no-mouse               the inspector leaves the mouse to the terminal\n"
		"  --help, --version\n"
		"\n"
		"cache analysis (the report's cache section):\n"
		"  --profile NAME           anthropic, openai, gemini, deepseek, vllm, or one of yours\n"
		"  --baseline FILE          compare with FILE's prompt (default: this file without\n"
		"                           the edits given here; no edits: a warm repeat)\n"
		"  --baseline-edit N=V      an edit for the baseline instead (priority=src/a.c=0.9)\n"
		"  --breakpoint ID          a cache breakpoint after this piece (or #BLOCK); repeatable\n"
		"  --no-breakpoint ID       no breakpoint after it\n"
		"  user file: $XDG_CONFIG_HOME/ctxscope/cache.yml (profiles, prices, volatile patterns)\n"
		"\n"
		"edits (the same the inspector makes):\n");
	option_lines(out, common_settings);
	for (size_t k = 0; kind_table[k]; k++) {
		if (!kind_table[k]->options || !kind_table[k]->options->name)
			continue;
		sb_printf(out, "\n%s settings:\n", kind_table[k]->title);
		option_lines(out, kind_table[k]->options);
	}
	sb_puts(out,
		"\n"
		"detection: .yml/.yaml is a manifest; a JSON object with nodes and edges is a loom\n"
		"tree, with turns a ledger export, with items a memory snapshot.\n"
		"tokens are estimates, as the inspected systems make them: ceil(code points / 4).\n"
		"\n"
		"decisions where the seeds are silent (formats.md): a manifest's role defaults to\n"
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

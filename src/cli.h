/* cli.h: the command line, parsed into values (no printing, no exit):
 *   ctxscope [OPTIONS] FILE            the inspector
 *   ctxscope report FILE [OPTIONS]     the assembly report (--format)
 *   ctxscope dump FILE [OPTIONS]       the prompt as the model receives it
 *   ctxscope save FILE [EDITS] [--output OTHER]  write a manifest's edits back
 * Settings (--budget, --strategy, --exclude, --priority, a kind's options...)
 * are kept in order and applied after loading, as the same edits the UI
 * makes (edit.h). */
#ifndef CTXSCOPE_CLI_H
#define CTXSCOPE_CLI_H

#include "base/error.h"
#include "report.h"

#include <stdbool.h>
#include <stddef.h>

struct source;
struct strbuf;

enum cli_command { CLI_UI, CLI_REPORT, CLI_DUMP, CLI_HELP, CLI_VERSION, CLI_SAVE };

struct cli_setting {
	const char *name;  /* "budget", "exclude", or a kind option; borrowed from argv */
	const char *value; /* borrowed from argv (or "true" for a switch) */
};

#define CLI_MAX_SETTINGS 256

struct cli {
	enum cli_command command;
	const char *file;
	const char *kind;       /* --kind, NULL to detect */
	const char *assembly_file; /* --assembly-file FILE, with a ledger database */
	const char *deprecated; /* a note on an old spelling used (static), NULL: none */
	enum report_format format;
	const char *screen;     /* --screen WxH, NULL for a real terminal */
	const char *keys;       /* --keys, with --screen */
	const char *theme;      /* --theme NAME|PATH */
	const char *edits;      /* --edits FILE (what-if edits to reapply) */
	bool raw, force, no_mouse, ascii, strict;
	bool svg;               /* --svg, with --screen: the screen as an SVG image */
	bool follow;              /* the inspector reloads the file when it changes */
	bool anyway;              /* dump: print a prompt the system would not send */
	struct cli_setting settings[CLI_MAX_SETTINGS];
	size_t nsettings;
	/* cache analysis (cache/section.h) */
	const char *profile;                          /* --profile NAME, NULL: the user file's or anthropic */
	const char *baseline;                         /* --baseline FILE */
	const char *baseline_edits[CLI_MAX_SETTINGS]; /* --baseline-edit NAME=VALUE, raw, in order */
	size_t nbaseline_edits;
	const char *breakpoints[CLI_MAX_SETTINGS];    /* --breakpoint / --no-breakpoint ID (or #BLOCK) */
	bool breakpoint_on[CLI_MAX_SETTINGS];
	size_t nbreakpoints;
	const char *output;     /* save --output OTHER (save-as), NULL: the file itself */
	const char *tokenizer;  /* --tokenizer NAME|PATH: exact counts beside the estimate (tokenizer.h) */
};

/* Parses argv into out (which borrows argv's strings). CS_EUSAGE with a
 * sentence on a mistake. */
int cli_parse(int argc, char **argv, struct cli *out, struct cs_error *err);

/* Applies out's settings to src, in order, as edits. */
int cli_apply(const struct cli *cli, struct source *src, struct cs_error *err);

/* The --help text. */
void cli_usage(struct strbuf *out);
/* The i-th of the command line's own flags ("raw", "baseline-edit"; the
 * edits are settings, setting.h), NULL past the last: what --help and the
 * man page must each list. */
const char *cli_flag_name(size_t i);

#endif

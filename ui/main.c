/* main.c: the application shell. Parses the command line, loads and
 * assembles, and either writes a headless result (report, dump) or runs the
 * inspector. The only place that prints errors and chooses exit codes. */
#include "app.h"
#include "assembly.h"
#include "base/alloc.h"
#include "cache/section.h"
#include "cli.h"
#include "tokens/count.h"
#include "dump.h"
#include "base/error.h"
#include "tokens/exact.h"
#include "kind.h"
#include "load.h"
#include "base/progress.h"
#include "report.h"
#include "scan_view.h"
#include "source.h"
#include "base/strbuf.h"
#include "term.h"
#include "theme.h"
#include "tokens/tokenizer.h"
#include "base/utf8.h"
#include "whatif.h"

#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

enum { EXIT_FITS = 0, EXIT_NOMEM = 1, EXIT_INPUT = 2, EXIT_OVER = 3, EXIT_INTERRUPTED = 130 };

static int fail(const struct cs_error *err)
{
	char msg[CS_ERROR_FILE_MAX + CS_ERROR_PATH_MAX + CS_ERROR_MSG_MAX + 64];
	cs_error_format(err, msg, sizeof msg);
	/* The message may quote input text: make it safe for the terminal. */
	struct strbuf safe = STRBUF_INIT;
	utf8_sanitize(&safe, msg, strlen(msg), 0);
	fprintf(stderr, "ctxscope: %s\n", safe.failed ? "out of memory" : sb_str(&safe));
	sb_fini(&safe);
	return err->code == CS_ENOMEM ? EXIT_NOMEM : EXIT_INPUT;
}

/* dump of a prompt the system would not send: what it would do instead. */
static void refuse_dump(const char *file, const struct strbuf *why, bool anyway)
{
	struct strbuf safe = STRBUF_INIT;
	utf8_sanitize(&safe, why->data ? why->data : "", why->len, 0);
	fprintf(stderr,
		"ctxscope: %s: the system would not send this prompt: %s\n"
		"ctxscope: %s\n",
		file, safe.failed ? "out of memory" : sb_str(&safe),
		anyway ? "printed as assembled all the same (--anyway)" : "dump --anyway prints it as assembled");
	sb_fini(&safe);
}

static int write_out(const struct strbuf *out)
{
	if (fwrite(sb_str(out), 1, out->len, stdout) != out->len || fflush(stdout) != 0) {
		perror("ctxscope: writing the output");
		return EXIT_NOMEM;
	}
	return EXIT_FITS;
}

/* --theme NAME|PATH (or "default") in theme_load_named's folders. A broken
 * or missing theme leaves the built-in default and says so on the status line. */
static void choose_theme(struct app *app, const char *name)
{
	struct theme t;
	struct cs_error err;
	cs_error_clear(&err);
	if (theme_load_named(name ? name : "default", &t, &err) != CS_OK) {
		theme_default(&t);
		if (name && strcmp(name, "default") != 0) {
			char msg[CS_ERROR_FILE_MAX + CS_ERROR_MSG_MAX + 64];
			cs_error_format(&err, msg, sizeof msg);
			vm_status(&app->vm, true, "theme: %s; using the built-in default", msg);
		}
	}
	app_set_theme(app, &t);
	app->theme_changed = false; /* not started yet: the terminal reads colours when it starts */
}

/* The user's cache file and --profile: a broken file or an unknown profile
 * is a warning on the status line, never a reason not to start. */
static void choose_cache(struct app *app, const char *profile)
{
	char path[4096];
	bool have = cache_config_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"), path, sizeof path);
	struct cs_error err;
	cs_error_clear(&err);
	int rc = vm_cache_setup(&app->vm, have ? path : NULL, profile, &err);
	if (rc == CS_ENOMEM)
		vm_status(&app->vm, true, "out of memory");
	else if (rc != CS_OK)
		vm_status(&app->vm, true, "cache: %s%s%s; using %s", err.file[0] ? err.file : "",
			  err.file[0] ? ": " : "", err.message, app->vm.cache.profile->name);
}

static int run_inspector(const struct cli *cli, struct source *src, const struct load_stamp *stamp, bool ascii)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct app app;
	/* the program's choice, not the view-model's: each edit re-assembles,
	 * so freed memory stays for the next build (no page faults again) */
	cs_alloc_keep_freed();
	if (app_init(&app, src, ascii, &err) != CS_OK) {
		app_fini(&app);
		return fail(&err);
	}
	choose_cache(&app, cli->profile);
	if (vm_set_tokenizer(&app.vm, cli->tokenizer, &err) != CS_OK) {
		app_fini(&app);
		return fail(&err);
	}
	choose_theme(&app, cli->theme);
	app.mouse = !cli->no_mouse;
	app.cli = cli;
	app.follow = cli->follow;
	app.stamp = *stamp;
	int rc;
	if (cli->screen) {
		int w, h;
		if (!screen_parse_size(cli->screen, &w, &h)) {
			app_fini(&app);
			cs_error_set(&err, CS_EUSAGE, "--screen wants WIDTHxHEIGHT, e.g. 100x30 (each 1 to %d)",
				     SCREEN_MAX_SIDE);
			return fail(&err);
		}
		struct strbuf out = STRBUF_INIT;
		rc = screen_run(&app, w, h, cli->keys, &out, &err) == CS_OK ? write_out(&out) : fail(&err);
		sb_fini(&out);
	} else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cs_error_set(&err, CS_EUSAGE,
			     "the inspector needs a terminal; use `ctxscope report FILE`, `ctxscope dump FILE` "
			     "or `--screen WxH`");
		rc = fail(&err);
	} else {
		rc = term_run(&app, &err) == CS_OK ? (app.interrupted ? EXIT_INTERRUPTED : EXIT_FITS) : fail(&err);
	}
	app_fini(&app);
	return rc;
}

/* Long loads on a terminal's stderr: one line, rewritten, then
 * cleared. Only our own words reach the terminal here. */
static void progress_stderr(void *ctx, const char *what, size_t done, size_t total, bool finished)
{
	(void)ctx;
	char d[32], t[32];
	if (finished)
		fprintf(stderr, "\r%-72s\r", "");
	else if (total)
		fprintf(stderr, "\rctxscope: %s %s of %s (%d%%)", what, fmt_thousands(d, (long long)done),
			fmt_thousands(t, (long long)total), (int)(100.0 * (double)done / (double)total));
	else
		fprintf(stderr, "\rctxscope: %s %s", what, fmt_thousands(d, (long long)done));
	fflush(stderr);
}

/* Counts a exactly with tok into lv, and makes the report's exact_tokens
 * section (ex) and text columns (rx) of it: one count for all three. */
static int count_for_report(struct tokenizer *tok, const struct assembly *a, struct exact_live *lv,
			    struct exact_counts *ex, struct report_exact *rx, struct cs_error *err)
{
	int rc = exact_live_count(lv, tok, a, err);
	if (rc == CS_OK)
		rc = exact_from_live(ex, lv, a, tokenizer_name(tok), err);
	if (rc == CS_OK)
		*rx = (struct report_exact){ tokenizer_name(tok), lv->piece_tokens, lv->block_tokens,
					     { lv->layer_tokens[0], a->ngroupings > 1 ? lv->layer_tokens[1] : NULL },
					     lv->over ? lv->note : NULL };
	return rc;
}

/* The report with its extra sections: the cache analysis, and exact counts
 * with --tokenizer or an OpenAI model (*exact_over: only the estimate fits),
 * written to stdout as it is made. CS_OK, CS_ENOMEM, or another error to fail
 * with (before anything is written); a failed write: CS_EIO and *write_failed. */
static int write_report(const struct cli *cli, const struct assembly *a, bool ascii, bool *exact_over,
			bool *write_failed, struct cs_error *err)
{
	struct report_options opt = { .format = cli->format, .ascii = ascii };
	struct cache_report cr = { 0 };
	struct exact_counts ex = { 0 };
	struct exact_live lv = { 0 };
	struct report_exact rx;
	struct report_section extra[3] = { { 0 } };
	/* --tokenizer, else the setting (a what-if file's `tokenizer`), else the
	 * model's encoding (without its rank file: how to get it); off: none */
	const char *asked = cli->tokenizer ? cli->tokenizer
			    : a->src->settings.tokenizer[0] ? a->src->settings.tokenizer : NULL;
	const char *tokenizer = asked && !strcmp(asked, "off") ? NULL : asked ? asked : exact_auto_tokenizer(a);
	struct tokenizer *tok = NULL;
	int rc = tokenizer ? tokenizer_open(tokenizer, &tok, err) : CS_OK;
	if (rc == CS_EIO && !asked) { /* chosen by the model, not installed: the section says so */
		cs_error_clear(err);
		rc = exact_prepare(&ex, tokenizer, a, true, err);
	} else if (rc == CS_OK && tok) {
		rc = count_for_report(tok, a, &lv, &ex, &rx, err);
		opt.exact = rc == CS_OK ? &rx : NULL;
	}
	if (rc == CS_OK)
		rc = cache_report_prepare_exact(&cr, cli, a, tok, tok ? &lv : NULL, err);
	if (rc == CS_OK) {
		extra[0] = cr.sections[0];
		if (tokenizer)
			extra[extra[0].name ? 1 : 0] = (struct report_section){ "exact_tokens", exact_write, &ex };
		opt.extra = extra;
		rc = report_stream(a, &opt, stdout);
		*write_failed = rc == CS_EIO;
	}
	*exact_over = ex.over;
	cache_report_fini(&cr); /* before lv: its baseline borrows lv's memo */
	exact_fini(&ex);
	exact_live_fini(&lv);
	tokenizer_close(tok);
	return rc;
}

/* --breakpoint and --no-breakpoint, for a kind whose own predictions place
 * them (a request log across its requests): told, then a assembled again.
 * On failure a is freed. */
static int breakpoints_to_kind(const struct cli *cli, struct source *src, struct assembly *a, struct cs_error *err)
{
	if (!cli->nbreakpoints || !src->kind->breakpoints_edited)
		return CS_OK;
	struct cache_overrides o;
	cache_overrides_init(&o);
	int rc = cache_report_overrides(cli, a, &o, err);
	if (rc == CS_OK)
		rc = src->kind->breakpoints_edited(src, &o, err);
	cache_overrides_fini(&o);
	asm_fini(a);
	if (rc == CS_OK)
		rc = assemble(src, a, err);
	return rc;
}

/* ctxscope report: streamed to stdout as it is made (what was written
 * before a failure stays written); returns the exit status. */
static int run_report(const struct cli *cli, const struct assembly *a, bool ascii)
{
	struct cs_error err;
	cs_error_clear(&err);
	bool exact_over = false, write_failed = false;
	int rc = write_report(cli, a, ascii, &exact_over, &write_failed, &err);
	if (write_failed) {
		perror("ctxscope: writing the output");
		return EXIT_NOMEM;
	}
	if (rc == CS_ENOMEM) {
		fprintf(stderr, "ctxscope: out of memory\n");
		return EXIT_NOMEM;
	}
	if (rc != CS_OK)
		return fail(&err);
	struct strbuf none = STRBUF_INIT;
	int status = write_out(&none); /* flushes stdout, and says when that fails */
	if (status == EXIT_FITS)
		status = exact_over ? EXIT_OVER : report_exit_status(a);
	return status;
}

/* ctxscope count ...: exact token counts of plain files (count.h). */
static int run_count(int argc, char **argv)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct strbuf out = STRBUF_INIT;
	bool ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	int rc = count_command(argc, argv, ascii, &out, &err) == CS_OK ? write_out(&out) : fail(&err);
	sb_fini(&out);
	return rc;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	if (argc > 1 && !strcmp(argv[1], "count"))
		return run_count(argc - 1, argv + 1);
	bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	if (argc > 1 && !strcmp(argv[1], "scan"))
		return scan_main(argc - 1, argv + 1, utf8, false);
	struct cli cli;
	struct cs_error err;
	cs_error_clear(&err);
	if (cli_parse(argc, argv, &cli, &err) != CS_OK)
		return fail(&err);
	if (cli.deprecated)
		fprintf(stderr, "ctxscope: note: %s\n", cli.deprecated);
	if (cli.command == CLI_HELP || cli.command == CLI_VERSION) {
		struct strbuf out = STRBUF_INIT;
		if (cli.command == CLI_HELP)
			cli_usage(&out);
		else
			sb_puts(&out, "ctxscope " CTXSCOPE_VERSION "\n");
		int rc = write_out(&out);
		sb_fini(&out);
		return rc;
	}
	struct stat st;
	if (cli.command == CLI_UI && !cli.screen && cli.file && stat(cli.file, &st) == 0 && S_ISDIR(st.st_mode)) {
		char *scan_argv[] = { (char *)(uintptr_t)"scan", (char *)(uintptr_t)cli.file, NULL };
		return scan_main(2, scan_argv, utf8 && !cli.ascii, true); /* a folder: its sessions' table */
	}
	if (cli.command == CLI_DUMP && cli.raw && isatty(STDOUT_FILENO) && !cli.force) {
		fprintf(stderr, "ctxscope: dump --raw writes the exact bytes, control characters included; "
				"refusing to send them to a terminal (redirect to a file or pipe, or add --force)\n");
		return EXIT_INPUT;
	}

	struct source *src;
	struct progress progress;
	progress_init(&progress, isatty(STDERR_FILENO) ? progress_stderr : NULL, NULL);
	struct load_stamp stamp; /* before the read: a change during it is seen by --follow */
	load_stamp_take(cli.file, &stamp);
	struct load_args args = { .path = cli.file, .kind = cli.kind, .companion = cli.assembly_file, .progress = &progress,
				  .strict = cli.strict };
	if (source_load_args(&args, &src, &err) != CS_OK)
		return fail(&err);
	if ((cli.edits && whatif_apply(src, cli.edits, &err) != CS_OK) || cli_apply(&cli, src, &err) != CS_OK) {
		source_free(src);
		return fail(&err);
	}
	if (cli.command == CLI_SAVE) { /* headless save, for kinds that rewrite their own file */
		struct strbuf said = STRBUF_INIT;
		int rc = src->kind->save_command
				 ? src->kind->save_command(src, cli.output, cli.force, &said, &err)
				 : cs_error_set(&err, CS_EUSAGE,
						"%s is a %s: its edits are not written into it; save them to a what-if "
						"file (w in the inspector) and reapply it with --edits",
						src->path, src->kind->title);
		int status = rc == CS_OK ? write_out(&said) : fail(&err);
		sb_fini(&said);
		source_free(src);
		return status;
	}
	if (cli.command == CLI_UI)
		return run_inspector(&cli, src, &stamp, !utf8 || cli.ascii);
	struct assembly a;
	if (assemble(src, &a, &err) != CS_OK || breakpoints_to_kind(&cli, src, &a, &err) != CS_OK) {
		source_free(src);
		return fail(&err);
	}

	if (cli.command != CLI_DUMP) {
		int status = run_report(&cli, &a, !utf8 || cli.ascii);
		asm_fini(&a);
		source_free(src);
		return status;
	}
	struct strbuf out = STRBUF_INIT;
	bool not_sent = dump_not_sent(&a, &out);
	if (not_sent) {
		refuse_dump(cli.file, &out, cli.anyway);
		sb_reset(&out);
		if (!cli.anyway) {
			sb_fini(&out);
			asm_fini(&a);
			source_free(src);
			return EXIT_OVER;
		}
	}
	int rc = dump_write(&a, cli.raw, !utf8 || cli.ascii, &out);
	int status = rc == CS_OK ? write_out(&out) : EXIT_NOMEM;
	if (rc != CS_OK)
		fprintf(stderr, "ctxscope: out of memory\n");
	if (status == EXIT_FITS && not_sent)
		status = EXIT_OVER;
	sb_fini(&out);
	asm_fini(&a);
	source_free(src);
	return status;
}

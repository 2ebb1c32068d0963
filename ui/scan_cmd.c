/* scan_cmd.c: `ctxscope scan PATH...` (scan_view.h): the scan run with
 * progress on a terminal's stderr (nothing when it is not one), Ctrl-C
 * stopping it with what was read so far, then the table written to stdout
 * (per-request rows as they come), or, without --format on a terminal, the
 * table opened in the inspector. */
#include "scan_view.h"

#include "app.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "load.h"
#include "scan/scan.h"
#include "source.h"
#include "term.h"
#include "theme.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SCAN_EXIT_OK = 0, SCAN_EXIT_NOMEM = 1, SCAN_EXIT_INPUT = 2, SCAN_EXIT_INTERRUPTED = 130 };
#define SCAN_TEXT_TOP 20 /* rows of the text table by default */
#define SCAN_FLUSH (64u << 10)

/* Set by SIGINT while the scan runs: a signal handler has nowhere else to write. */
static volatile sig_atomic_t scan_stop;

static void on_sigint(int sig)
{
	(void)sig;
	scan_stop = 1;
}

struct rows_out {
	enum scan_format format;
	struct strbuf buf;
	bool failed;
};

static void flush_rows(struct rows_out *ro)
{
	if (ro->buf.len && fwrite(sb_str(&ro->buf), 1, ro->buf.len, stdout) != ro->buf.len)
		ro->failed = true;
	sb_reset(&ro->buf);
}

static void on_request(void *ctx, const struct scan_session *s, const char *file, const struct scan_req *r)
{
	struct rows_out *ro = ctx;
	scan_write_request(ro->format, s, file, r, &ro->buf);
	if (ro->buf.len >= SCAN_FLUSH)
		flush_rows(ro);
}

static double start_time;

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One line on stderr, rewritten: files done, MB/s, time left. */
static void on_progress(void *ctx, size_t done, size_t files, double bytes_done, double bytes, bool finished)
{
	(void)ctx;
	double el = now_mono() - start_time;
	if (finished) {
		fprintf(stderr, "\r%-78s\r", "");
	} else if (el > 0.3) {
		double rate = bytes_done / el;
		double left = rate > 0 ? (bytes - bytes_done) / rate : 0;
		fprintf(stderr, "\rctxscope scan: %zu of %zu files, %.0f of %.0f MB, %.1f MB/s, %.0f s left%s   ", done, files,
			bytes_done / 1e6, bytes / 1e6, rate / 1e6, left < 0 ? 0 : left, scan_stop ? " (stopping)" : "");
	}
	fflush(stderr);
}

static int run(const struct scan_cli *c, struct scan_result *res, struct rows_out *ro, bool progress)
{
	struct scan_options o = { .paths = c->paths, .npaths = c->npaths, .threads = c->threads, .since = c->since,
				  .project = c->project, .now = (double)time(NULL), .stop = &scan_stop };
	if (ro) {
		o.on_request = on_request;
		o.ctx = ro;
	}
	if (progress)
		o.on_progress = on_progress;
	start_time = now_mono();
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	struct cs_error err;
	cs_error_clear(&err);
	int rc = scan_run(&o, res, &err);
	sigaction(SIGINT, &old, NULL);
	if (rc != CS_OK) {
		fprintf(stderr, "ctxscope: scan: %s\n", err.message);
		return rc == CS_ENOMEM ? SCAN_EXIT_NOMEM : SCAN_EXIT_INPUT;
	}
	scan_sort(res, c->sort);
	return SCAN_EXIT_OK;
}

static int write_all(const struct strbuf *out)
{
	if (out->failed) {
		fprintf(stderr, "ctxscope: out of memory\n");
		return SCAN_EXIT_NOMEM;
	}
	if (fwrite(sb_str(out), 1, out->len, stdout) != out->len || fflush(stdout) != 0) {
		perror("ctxscope: writing the output");
		return SCAN_EXIT_NOMEM;
	}
	return SCAN_EXIT_OK;
}

/* The table in the inspector, opened on the worst session. */
static int inspect(struct scan_result *res, bool ascii, enum scan_sort sort)
{
	if (!res->nsessions) {
		struct strbuf out = STRBUF_INIT;
		scan_write(res, SCAN_TEXT, 0, ascii, &out);
		int rc = write_all(&out);
		sb_fini(&out);
		scan_result_fini(res);
		return rc;
	}
	struct cs_error err;
	cs_error_clear(&err);
	struct source *src = NULL;
	const char *first = res->sessions[0].path;
	for (size_t i = 0; i < res->nsessions && source_load(res->sessions[i].path, NULL, &src, &err) != CS_OK; i++)
		first = NULL;
	if (!src) {
		fprintf(stderr, "ctxscope: scan: no session could be opened (%s)\n", err.message);
		scan_result_fini(res);
		return SCAN_EXIT_INPUT;
	}
	(void)first;
	struct app app;
	int rc = app_init(&app, src, ascii, &err);
	if (rc == CS_OK) {
		struct theme t;
		if (theme_load_named("default", &t, &err) != CS_OK)
			theme_default(&t);
		app_set_theme(&app, &t);
		app.theme_changed = false;
		rc = app_scan_start(&app, res, (int)sort) ? term_run(&app, &err) : cs_error_nomem(&err);
	} else {
		scan_result_fini(res);
	}
	int status = rc == CS_OK ? (app.interrupted ? SCAN_EXIT_INTERRUPTED : SCAN_EXIT_OK) : SCAN_EXIT_INPUT;
	if (rc != CS_OK)
		fprintf(stderr, "ctxscope: %s\n", err.message);
	app_fini(&app);
	return status;
}

int scan_main(int argc, char **argv, bool utf8, bool folder_only)
{
	struct scan_cli c;
	struct cs_error err;
	cs_error_clear(&err);
	if (scan_cli_parse(argc, argv, &c, &err) != CS_OK) {
		fprintf(stderr, "ctxscope: %s\n", err.message);
		return SCAN_EXIT_INPUT;
	}
	struct strbuf out = STRBUF_INIT;
	if (c.help) {
		scan_usage(&out);
		int rc = write_all(&out);
		sb_fini(&out);
		return rc;
	}
	bool ascii = !utf8 || c.ascii;
	bool tty = isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	bool inspector = folder_only || (!c.format_given && tty);
	struct rows_out ro = { .format = c.format, .buf = STRBUF_INIT };
	struct scan_result res;
	if (c.per_request) {
		scan_write_csv_header(true, &ro.buf);
		if (c.format != SCAN_CSV)
			sb_reset(&ro.buf);
	}
	int status = run(&c, &res, c.per_request ? &ro : NULL, isatty(STDERR_FILENO));
	if (status != SCAN_EXIT_OK) {
		sb_fini(&ro.buf);
		return status;
	}
	if (res.interrupted)
		fprintf(stderr, "ctxscope: scan interrupted: what %ld of %ld files held\n", res.files_read, res.files);
	if (inspector && !res.interrupted && tty) {
		sb_fini(&ro.buf);
		return inspect(&res, ascii, c.sort);
	}
	if (c.per_request) {
		flush_rows(&ro);
		if (res.nskipped)
			fprintf(stderr, "ctxscope: scan: %zu files skipped or read in part (--format json lists them)\n",
				res.nskipped);
		status = ro.failed || fflush(stdout) != 0 ? SCAN_EXIT_NOMEM : SCAN_EXIT_OK;
	} else {
		size_t top = c.top != (size_t)-1 ? c.top : c.format == SCAN_TEXT ? SCAN_TEXT_TOP : 0;
		scan_write(&res, c.format, top, ascii, &out);
		status = write_all(&out);
	}
	sb_fini(&ro.buf);
	sb_fini(&out);
	bool interrupted = res.interrupted;
	scan_result_fini(&res);
	return interrupted && status == SCAN_EXIT_OK ? SCAN_EXIT_INTERRUPTED : status;
}

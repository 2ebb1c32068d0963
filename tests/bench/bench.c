/* bench.c: the benchmark driver. Measures, through the core API,
 * every kind that is registered (kind_by_name), each figure beside an anchor
 * measured in the same run, and prints one table:
 *   load time      vs cJSON_Parse alone on the same bytes (manifests: libyaml's
 *                  event parse of the manifest plus reading the listed files);
 *                  wall time, then the same runs' CPU time (JSON anchors);
 *   peak RSS       vs the input's size (the anchor's own peak shown beside);
 *   re-assembly    after one random edit (exclusion, priority, strategy),
 *                  median and p99 over N edits, vs the 5 ms goal (a series
 *                  stops after 8 s, at least 10 edits: the row gives the count);
 *   report         `ctxscope report` on each kind's largest input vs `jq empty`
 *                  (manifests: vs the load's anchor, libyaml+read, beside it);
 *   edit+redraw    the same random edits through the inspector in-process:
 *                  vm_apply (edit + re-assembly + rows, status, cache) and
 *                  app_draw of the whole 160x50 virtual screen into the text
 *                  grid (ui/paint_text.c), median and p99, vs the 16 ms goal;
 *   step+redraw    `[` `]` through a sequence's requests, p50/p99 cpu, vs 16 ms;
 *   exact+redraw   the same with exact o200k counts on
 *                  (when the rank files are there; the first frame counts all);
 *   timeline j/k   a sequence's timeline view open, the cursor moved one
 *                  request and the screen painted, median and p99;
 *   exact recount  the exact recount alone after each edit, in CPU time, and
 *                  the share of the prompt's bytes it tokenized again;
 *   first frame    `ctxscope --screen 80x24 FILE` end to end on every sample, best of 3
 *                  (exec, load, assembly, one frame painted and written out),
 *                  beside `ctxscope --version` as the process-start anchor.
 * Each load runs in its own child process (fork + wait4's rusage), so peak
 * RSS is per input. Times use CLOCK_MONOTONIC.
 *
 *   ctxscope-bench [--edits N] [--bin CTXSCOPE] [--ui] [--samples DIR] [--ledger-db LABEL:PATH]
 *                  KIND:LABEL:PATH...
 * PATH is the file (for a manifest, its working-set.yml). */
#include "base/alloc.h"
#include "app.h"
#include "assembly.h"
#include "edit.h"
#include "base/error.h"
#include "tokens/exact.h"
#include "base/fileio.h"
#include "kind.h"
#include "load.h"
#include "paint.h"
#include "source.h"
#include "tokens/tokenizer.h"
#include "vm/viewmodel.h"

#include <cjson/cJSON.h>
#include <yaml.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define BENCH_MAX_INPUTS 32          /* rows of inputs on the command line */
#define BENCH_REPEAT_UNDER (64u << 20) /* inputs smaller than this are timed best of 3 */
#define BENCH_MAX_EDITS 100000       /* more edits than this say nothing new */
#define GOAL_LOAD_RATIO 1.0       /* JSON kinds: a tree-free load beats building cJSON's tree */
#define GOAL_LOAD_RATIO_YAML 1.25 /* manifests: libyaml's event parse plus reading the files */
#define GOAL_RSS_RATIO 2.0
#define GOAL_EDIT_MS 5.0
#define GOAL_REDRAW_MS 16.0
#define GOAL_FRAME_MS 30.0
#define BENCH_SCREEN_W 160 /* a wide terminal: list and detail side by side */
#define BENCH_SCREEN_H 50
#define BENCH_FRAME_RUNS 3 /* first frame: best of this many starts */
#define BENCH_EDIT_SECONDS 8.0 /* an edit series stops here (after BENCH_EDIT_MIN): the whole run fits ten minutes */
#define BENCH_EDIT_MIN 10     /* at least this many; under 100, p99 is the worst one (the row gives the count) */

struct input {
	const char *kind;  /* manifest, loom, ledger, memory */
	const char *label; /* "loom 100k nodes" */
	const char *path;
	off_t file_bytes;
};

struct options {
	double base_rss; /* peak RSS of a child that loads nothing, subtracted */
	int edits;
	const char *bin;
	const char *samples;
	int ui;
	char *db_label;      /* --ledger-db LABEL:PATH, NULL: none */
	const char *db_path;
	struct input inputs[BENCH_MAX_INPUTS];
	size_t ninputs;
};

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This (single-threaded) child's CPU time: what a load or a step costs
 * itself, whatever else the shared cores run meanwhile. */
static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- formatting ------------------------------------------------------------ */

static void fmt_ms(char *out, size_t n, double seconds)
{
	double ms = seconds * 1e3;
	if (ms < 10)
		snprintf(out, n, "%.2f ms", ms);
	else if (ms < 10000)
		snprintf(out, n, "%.0f ms", ms);
	else
		snprintf(out, n, "%.1f s", seconds);
}

static void fmt_bytes(char *out, size_t n, double bytes)
{
	if (bytes >= 1e9)
		snprintf(out, n, "%.2f GB", bytes / 1e9);
	else if (bytes >= 1e6)
		snprintf(out, n, "%.1f MB", bytes / 1e6);
	else
		snprintf(out, n, "%.0f kB", bytes / 1e3);
}

/* One row: figure, input, measured, anchor, ratio, goal verdict. */
static void row(const char *figure, const char *input, const char *measured, const char *anchor, double ratio,
		double goal, const char *goal_text)
{
	char r[32] = "", verdict[48] = "";
	if (ratio > 0 && isfinite(ratio))
		snprintf(r, sizeof r, "%.2fx", ratio);
	if (goal_text)
		snprintf(verdict, sizeof verdict, "%s%s", goal_text,
			 ratio > 0 && isfinite(ratio) ? (ratio <= goal ? "  met" : "  NOT MET") : "");
	printf("%-13s %-36s %-26s %-34s %-8s %s\n", figure, input, measured, anchor, r, verdict);
	fflush(stdout);
}

/* ---- child processes ---------------------------------------------------------- */

/* What a child sends back through its pipe. */
struct child_result {
	int ok;                /* 1 when it measured */
	char note[160];        /* why not, when !ok */
	double seconds;        /* the timed part */
	double cpu;            /* its CPU time (loads and their anchors) */
	double input_bytes;    /* what the source holds as input (manifest: + listed files) */
	double pieces;
	double median, p99, worst; /* edits */
	double first_assemble;
	int edits;
	double recounted;      /* exact recount: the share of the prompts' bytes tokenized again */
	double wall_median, wall_p99; /* steps (median, p99: CPU time) */
};

typedef void (*child_fn)(const struct input *in, const struct options *opt, struct child_result *out);

/* Runs fn in a child; fills *out and the child's peak RSS in bytes. */
static int run_child(child_fn fn, const struct input *in, const struct options *opt, struct child_result *out,
		     double *peak_rss)
{
	int fd[2];
	memset(out, 0, sizeof *out);
	if (pipe(fd) != 0)
		return -1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		struct child_result r;
		memset(&r, 0, sizeof r);
		fn(in, opt, &r);
		ssize_t w = write(fd[1], &r, sizeof r);
		_exit(w == (ssize_t)sizeof r ? 0 : 1);
	}
	close(fd[1]);
	ssize_t got = read(fd[0], out, sizeof *out);
	close(fd[0]);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*peak_rss = (double)ru.ru_maxrss * 1024.0;
	if (got != (ssize_t)sizeof *out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(out->note, sizeof out->note, "child failed (%s %d)", WIFSIGNALED(status) ? "signal" : "exit",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		out->ok = 0;
	}
	return 0;
}

/* Runs argv with stdout and stderr to /dev/null; its wall time and peak RSS.
 * Returns its exit status, or -1 when it could not run. */
static int run_command(char *const argv[], double *seconds, double *peak_rss)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	double t0 = now_seconds();
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*seconds = now_seconds() - t0;
	*peak_rss = (double)ru.ru_maxrss * 1024.0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- the measurements (run in children) -------------------------------------- */

static void child_load(const struct input *in, const struct options *opt, struct child_result *out)
{
	(void)opt;
	struct source *src;
	struct cs_error err;
	cs_error_clear(&err);
	double t0 = now_seconds(), c0 = cpu_seconds();
	int rc = source_load(in->path, in->kind, &src, &err);
	out->seconds = now_seconds() - t0;
	out->cpu = cpu_seconds() - c0;
	if (rc != CS_OK) {
		snprintf(out->note, sizeof out->note, "load failed: %.120s", err.message);
		return;
	}
	out->input_bytes = (double)src->input_bytes;
	if (strcmp(in->kind, "manifest") == 0)
		for (size_t i = 0; i < src->npieces; i++)
			out->input_bytes += (double)src->pieces[i].text_bytes;
	out->pieces = (double)src->npieces;
	out->ok = 1;
	/* Freed by _exit: the figure is the peak while loaded. */
}

static void child_nothing(const struct input *in, const struct options *opt, struct child_result *out)
{
	(void)in;
	(void)opt;
	out->ok = 1;
}

/* JSON Lines (request logs, Claude Code sessions): cJSON_Parse of each
 * line, every tree kept (chained through a root object's `next`). */
static void child_cjson_lines(const char *data, size_t len, double t0, double c0, struct child_result *out)
{
	cJSON *head = NULL;
	out->ok = 1;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(data + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - data) : len;
		if (end > at) {
			cJSON *root = cJSON_ParseWithLength(data + at, end - at);
			if (!root) {
				out->ok = 0;
				snprintf(out->note, sizeof out->note, "cJSON_Parse failed on a line");
				break;
			}
			root->next = head;
			head = root;
		}
		at = end + 1;
	}
	out->seconds = now_seconds() - t0;
	out->cpu = cpu_seconds() - c0;
	out->input_bytes = (double)len;
}

/* The anchor for JSON: read the bytes, cJSON_Parse them (the tree kept, as a
 * plain cJSON loader would). */
static void child_cjson(const struct input *in, const struct options *opt, struct child_result *out)
{
	(void)opt;
	char *data;
	size_t len;
	struct cs_error err;
	double t0 = now_seconds(), c0 = cpu_seconds();
	if (file_read(in->path, 0, &data, &len, NULL, &err) != CS_OK) {
		snprintf(out->note, sizeof out->note, "%.150s", err.message);
		return;
	}
	size_t plen = strlen(in->path);
	if (plen > 6 && strcmp(in->path + plen - 6, ".jsonl") == 0) {
		child_cjson_lines(data, len, t0, c0, out);
		return;
	}
	cJSON *root = cJSON_ParseWithLength(data, len);
	out->seconds = now_seconds() - t0;
	out->cpu = cpu_seconds() - c0;
	out->ok = root != NULL;
	if (!root)
		snprintf(out->note, sizeof out->note, "cJSON_Parse failed");
	out->input_bytes = (double)len;
}

/* Reads a listed file whole and throws it away: what any loader must do. */
static size_t read_whole(const char *path)
{
	char *data;
	size_t len;
	struct cs_error err;
	if (file_read(path, 0, &data, &len, NULL, &err) != CS_OK)
		return 0;
	cs_free(data);
	return len;
}

/* The anchor for manifests: libyaml's event parse of the manifest, plus
 * reading every file a `path:` names (relative to the manifest's folder). */
static void child_yaml(const struct input *in, const struct options *opt, struct child_result *out)
{
	(void)opt;
	double t0 = now_seconds();
	char *data;
	size_t len;
	struct cs_error err;
	if (file_read(in->path, 0, &data, &len, NULL, &err) != CS_OK) {
		snprintf(out->note, sizeof out->note, "%.150s", err.message);
		return;
	}
	const char *slash = strrchr(in->path, '/');
	size_t dirlen = slash ? (size_t)(slash - in->path) + 1 : 0;
	yaml_parser_t parser;
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	double total = (double)len;
	int want_path = 0, done = 0, depth = 0, key = 0;
	while (!done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			snprintf(out->note, sizeof out->note, "libyaml: %.120s", parser.problem ? parser.problem : "error");
			yaml_parser_delete(&parser);
			return;
		}
		switch (ev.type) {
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			depth++;
			key = ev.type == YAML_MAPPING_START_EVENT;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			key = 1;
			break;
		case YAML_SCALAR_EVENT:
			if (want_path && depth == 3) {
				char full[8192];
				snprintf(full, sizeof full, "%.*s%s", (int)dirlen, in->path, (const char *)ev.data.scalar.value);
				total += (double)read_whole(full);
				want_path = 0;
			} else if (key && depth == 3 && strcmp((const char *)ev.data.scalar.value, "path") == 0) {
				want_path = 1;
			}
			key = !key;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	out->seconds = now_seconds() - t0;
	out->input_bytes = total;
	out->ok = 1;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void sort_times(double *times, size_t n, struct child_result *out)
{
	qsort(times, n, sizeof *times, cmp_double);
	out->median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
	size_t p99 = (size_t)ceil(0.99 * (double)n); /* nearest rank */
	out->p99 = times[(p99 ? p99 : 1) - 1];
	out->worst = times[n - 1];
}

/* A series done: its n times sorted into out (median, p99, worst). */
static void series_done(double *times, int n, struct child_result *out)
{
	sort_times(times, (size_t)n, out);
	out->edits = n;
	out->ok = 1;
}

static size_t list_len(const int *list)
{
	size_t n = 0;
	while (list && list[n] != STRAT_NONE)
		n++;
	return n;
}

/* A random edit of one of the three kinds the issue names, valid for src. */
static void random_edit(const struct source *src, uint64_t *rng, struct edit *e)
{
	memset(e, 0, sizeof *e);
	size_t npiece = list_len(src->kind->piece_strategies), nglobal = list_len(src->kind->global_strategies);
	for (;;) {
		unsigned what = (unsigned)(rng_next(rng) % 3);
		e->piece = (long)(rng_next(rng) % src->npieces);
		if (what == 0) {
			e->type = EDIT_EXCLUDE;
			e->value = piece_excluded(&src->pieces[e->piece]) ? 0 : 1;
			return;
		}
		if (what == 1 && npiece) { /* priorities go with per-piece strategies (edit.c) */
			e->type = EDIT_PRIORITY;
			e->value = (double)(rng_next(rng) % 101) / 100.0;
			return;
		}
		if (what == 2 && npiece) {
			e->type = EDIT_PIECE_STRATEGY;
			e->value = src->kind->piece_strategies[rng_next(rng) % npiece];
			return;
		}
		if (what == 2 && nglobal) {
			e->type = EDIT_STRATEGY;
			e->value = src->kind->global_strategies[rng_next(rng) % nglobal];
			return;
		}
	}
}

/* The input loaded for a series of edits; NULL (out->note says why) when
 * it does not load or has no pieces. */
static struct source *load_to_edit(const struct input *in, struct child_result *out)
{
	struct source *src;
	struct cs_error err;
	cs_error_clear(&err);
	if (source_load(in->path, in->kind, &src, &err) != CS_OK) {
		snprintf(out->note, sizeof out->note, "load failed: %.120s", err.message);
		return NULL;
	}
	if (src->npieces == 0) {
		source_free(src);
		snprintf(out->note, sizeof out->note, "no pieces to edit");
		return NULL;
	}
	return src;
}

static void child_edits(const struct input *in, const struct options *opt, struct child_result *out)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct source *src = load_to_edit(in, out);
	if (!src)
		return;
	/* As the inspector (the one caller that assembles again and again):
	 * freed memory kept for the next build, else glibc gives the big
	 * arrays back and each edit faults them in anew (twice the time of
	 * an edit on 10k files, depending only on what else the heap holds). */
	cs_alloc_keep_freed();
	struct assembly a;
	double t0 = now_seconds();
	if (assemble(src, &a, &err) != CS_OK) {
		snprintf(out->note, sizeof out->note, "assembly failed: %.120s", err.message);
		return;
	}
	out->first_assemble = now_seconds() - t0;
	double *times = malloc((size_t)opt->edits * sizeof *times);
	if (!times) {
		snprintf(out->note, sizeof out->note, "out of memory");
		return;
	}
	uint64_t rng = 9;
	int done_edits = 0;
	double series = now_seconds();
	for (int i = 0; i < opt->edits; i++) {
		struct edit e;
		random_edit(src, &rng, &e);
		double s = now_seconds();
		if (edit_apply(src, &e, &err) != CS_OK) {
			snprintf(out->note, sizeof out->note, "edit refused: %.120s", err.message);
			free(times);
			return;
		}
		asm_fini(&a);
		if (assemble(src, &a, &err) != CS_OK) {
			snprintf(out->note, sizeof out->note, "re-assembly failed: %.120s", err.message);
			free(times);
			return;
		}
		times[i] = now_seconds() - s;
		done_edits = i + 1;
		if (done_edits >= BENCH_EDIT_MIN && now_seconds() - series > BENCH_EDIT_SECONDS)
			break;
	}
	series_done(times, done_edits, out);
	out->pieces = (double)src->npieces;
	free(times);
	asm_fini(&a);
	source_free(src);
}

/* The input loaded and opened in the inspector; false (out->note says
 * why) when it could not be. *t0: when the inspector started opening it. */
static bool open_inspector(const struct input *in, struct child_result *out, struct app *app, double *t0)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct source *src = load_to_edit(in, out);
	if (!src)
		return false;
	cs_alloc_keep_freed(); /* as ui/main.c does before the inspector */
	*t0 = now_seconds();
	if (app_init(app, src, false, &err) != CS_OK) {
		snprintf(out->note, sizeof out->note, "inspector failed: %.120s", err.message);
		app_fini(app);
		return false;
	}
	return true;
}

/* The 160x50 virtual screen laid out for app, and room for n times; false
 * (out->note says why) when out of memory. */
static bool open_screen(struct app *app, int n, struct child_result *out, struct text_grid **g, struct painter *p,
			double **times)
{
	*g = text_grid_new(BENCH_SCREEN_W, BENCH_SCREEN_H);
	*times = malloc((size_t)n * sizeof **times);
	if (!*g || !*times) {
		snprintf(out->note, sizeof out->note, "out of memory");
		return false;
	}
	*p = text_grid_painter(*g);
	app_layout(app, BENCH_SCREEN_W, BENCH_SCREEN_H);
	return true;
}

/* What open_inspector and open_screen opened, closed (times too). */
static void close_screen(struct app *app, struct text_grid *g, double *times)
{
	free(times);
	text_grid_free(g);
	app_fini(app);
}

/* The inspector's edit path: vm_apply re-assembles and rebuilds the rows,
 * then app_draw paints the whole virtual screen, as after a key press.
 * tokenizer: exact counts on (vm_set_tokenizer), or NULL. */
static void redraw_series(const struct input *in, const struct options *opt, struct child_result *out,
			  const char *tokenizer)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct app app;
	double t0;
	if (!open_inspector(in, out, &app, &t0))
		return;
	if (tokenizer && vm_set_tokenizer(&app.vm, tokenizer, &err) != CS_OK) {
		snprintf(out->note, sizeof out->note, "no exact counts: %.120s", err.message);
		app_fini(&app);
		return;
	}
	struct text_grid *g;
	struct painter painter;
	double *times;
	if (!open_screen(&app, opt->edits, out, &g, &painter, &times))
		goto done;
	app_draw(&app, &painter);
	out->first_assemble = now_seconds() - t0;
	uint64_t rng = 9;
	int done_edits = 0;
	double series = now_seconds();
	for (int i = 0; i < opt->edits; i++) {
		struct edit e;
		random_edit(app.vm.session.src, &rng, &e);
		double s = now_seconds();
		if (vm_apply(&app.vm, &e, &err) != CS_OK) {
			snprintf(out->note, sizeof out->note, "edit refused: %.120s", err.message);
			goto done;
		}
		app_draw(&app, &painter);
		times[i] = now_seconds() - s;
		done_edits = i + 1;
		if (done_edits >= BENCH_EDIT_MIN && now_seconds() - series > BENCH_EDIT_SECONDS)
			break;
	}
	series_done(times, done_edits, out);
	out->pieces = (double)app.vm.session.src->npieces;
done:
	close_screen(&app, g, times);
}

static void child_redraw(const struct input *in, const struct options *opt, struct child_result *out)
{
	redraw_series(in, opt, out, NULL);
}

static void child_redraw_exact(const struct input *in, const struct options *opt, struct child_result *out)
{
	redraw_series(in, opt, out, "o200k_base");
}

/* The timeline view (i) open over a sequence (a request log, a session):
 * the cursor moved one request (j, k: a sweep down and back) and the whole
 * screen painted, as when someone reads down the timeline. */
static void child_timeline(const struct input *in, const struct options *opt, struct child_result *out)
{
	struct app app;
	double t0;
	if (!open_inspector(in, out, &app, &t0))
		return;
	const struct source *src = app.vm.session.src;
	size_t steps = src->kind->sequence ? src->kind->sequence->count(src) : 0;
	struct text_grid *g;
	struct painter painter;
	double *times;
	if (!open_screen(&app, opt->edits, out, &g, &painter, &times))
		goto done;
	t0 = now_seconds();
	app_key(&app, 'i');
	app_draw(&app, &painter);
	out->first_assemble = now_seconds() - t0; /* the timeline built and drawn */
	int n = 0;
	double series = now_seconds();
	long period = steps > 1 ? (long)steps - 1 : 1; /* from the last request (shown) up, then back down */
	for (int i = 0; i < opt->edits; i++) {
		int key = (i / period) % 2 ? 'j' : 'k';
		double s = now_seconds();
		app_key(&app, key);
		app_draw(&app, &painter);
		times[n++] = now_seconds() - s;
		if (n >= BENCH_EDIT_MIN && now_seconds() - series > BENCH_EDIT_SECONDS)
			break;
	}
	series_done(times, n, out);
	out->pieces = (double)steps;
done:
	close_screen(&app, g, times);
}

/* The exact recount alone after each random edit (exact_live_count, as the
 * inspector runs it), in CPU time, so that the other sessions sharing the
 * cores do not show in it: what exact counts add to an edit. */
static void child_exact_recount(const struct input *in, const struct options *opt, struct child_result *out)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct source *src = load_to_edit(in, out);
	if (!src)
		return;
	struct vm vm;
	struct tokenizer *tok = NULL;
	struct exact_live L = { 0 };
	double *times = malloc((size_t)opt->edits * sizeof *times);
	cs_alloc_keep_freed(); /* as ui/main.c does before the inspector */
	if (vm_init(&vm, src, &err) != CS_OK || !times || tokenizer_open("o200k_base", &tok, &err) != CS_OK) {
		snprintf(out->note, sizeof out->note, "no exact counts: %.120s", err.message);
		goto done;
	}
	double t0 = cpu_seconds();
	if (exact_live_count(&L, tok, &vm.session.cur, &err) != CS_OK)
		goto done;
	out->first_assemble = cpu_seconds() - t0;
	uint64_t rng = 9;
	int n = 0;
	double counted = 0, prompts = 0, series = now_seconds();
	for (int i = 0; i < opt->edits; i++) {
		struct edit e;
		random_edit(vm.session.src, &rng, &e);
		if (vm_apply(&vm, &e, &err) != CS_OK)
			continue;
		double c = cpu_seconds();
		if (exact_live_count(&L, tok, &vm.session.cur, &err) != CS_OK)
			goto done;
		times[n++] = cpu_seconds() - c;
		counted += (double)L.counted_bytes;
		prompts += (double)vm.session.cur.total_bytes;
		if (n >= BENCH_EDIT_MIN && now_seconds() - series > BENCH_EDIT_SECONDS)
			break;
	}
	if (n) {
		series_done(times, n, out);
		out->recounted = prompts > 0 ? counted / prompts : 0;
	}
done:
	free(times);
	exact_live_fini(&L);
	tokenizer_close(tok);
	vm_fini(&vm);
}

/* `[` and `]` through a sequence's requests: vm_step_sequence and app_draw,
 * in CPU time (wall time beside). From the last request back to the first
 * it reaches, then forward, turning at each end. */
static void child_step(const struct input *in, const struct options *opt, struct child_result *out)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct app app;
	double t0;
	if (!open_inspector(in, out, &app, &t0))
		return;
	struct text_grid *g;
	struct painter painter;
	double *times, *walls = malloc((size_t)opt->edits * sizeof *walls);
	if (!open_screen(&app, opt->edits, out, &g, &painter, &times) || !walls) {
		snprintf(out->note, sizeof out->note, "out of memory");
		goto done;
	}
	app_draw(&app, &painter);
	long delta = -1;
	int n = 0, turns = 0;
	double series = now_seconds();
	while (n < opt->edits && turns < 2) {
		double s = now_seconds(), c = cpu_seconds();
		int rc = vm_step_sequence(&app.vm, delta, &err);
		if (rc == CS_EUSAGE) { /* an end: turn */
			delta = -delta;
			turns++;
			continue;
		}
		if (rc != CS_OK) {
			snprintf(out->note, sizeof out->note, "step failed: %.120s", err.message);
			goto done;
		}
		app_draw(&app, &painter);
		times[n] = cpu_seconds() - c;
		walls[n++] = now_seconds() - s;
		turns = 0;
		if (n >= BENCH_EDIT_MIN && now_seconds() - series > BENCH_EDIT_SECONDS)
			break;
	}
	if (!n) {
		snprintf(out->note, sizeof out->note, "one request: nothing to step through");
		goto done;
	}
	sort_times(walls, (size_t)n, out);
	out->wall_median = out->median;
	out->wall_p99 = out->p99;
	series_done(times, n, out);
done:
	free(walls);
	close_screen(&app, g, times);
}

/* ---- rows -------------------------------------------------------------------- */

/* Runs a series of edits (fn) in a child: false, with a row saying why
 * (anchor: what the row is judged against), when it did not measure; else
 * its median, p99 and first times, formatted. */
static bool run_series(child_fn fn, const struct input *in, const struct options *opt, const char *name,
		       const char *label, const char *anchor, struct child_result *ed, char p50[24], char p99[24],
		       char first[24])
{
	double rss;
	if (run_child(fn, in, opt, ed, &rss) != 0 || !ed->ok) {
		row(name, label, ed->note, anchor, 0, 0, NULL);
		return false;
	}
	fmt_ms(p50, 24, ed->median);
	fmt_ms(p99, 24, ed->p99);
	fmt_ms(first, 24, ed->first_assemble);
	return true;
}

static int is_json(const struct input *in)
{
	return strcmp(in->kind, "manifest") != 0;
}

/* Best of `reps` (by time) of fn in fresh children; the peak RSS of that run. */
static void best_of(child_fn fn, const struct input *in, const struct options *opt, int reps, struct child_result *best,
		    double *best_rss)
{
	memset(best, 0, sizeof *best);
	*best_rss = 0;
	for (int i = 0; i < reps; i++) {
		struct child_result r;
		double rss = 0;
		if (run_child(fn, in, opt, &r, &rss) != 0) {
			snprintf(best->note, sizeof best->note, "fork failed: %s", strerror(errno));
			return;
		}
		if (!r.ok) {
			*best = r;
			return;
		}
		if (!best->ok || r.seconds < best->seconds) {
			*best = r;
			*best_rss = rss;
		}
	}
}

/* The load, its CPU time and its peak RSS beside the anchor's; true when
 * the kind is built and the input loaded. */
static bool bench_load_rows(const struct input *in, const struct options *opt, const char *label)
{
	char m[128], an[160];
	int reps = in->file_bytes < (off_t)BENCH_REPEAT_UNDER ? 3 : 1;
	int built = kind_by_name(in->kind) != NULL;

	struct child_result anchor, load;
	memset(&load, 0, sizeof load);
	double anchor_rss = 0, load_rss = 0;
	best_of(is_json(in) ? child_cjson : child_yaml, in, opt, reps, &anchor, &anchor_rss);
	if (built)
		best_of(child_load, in, opt, reps, &load, &load_rss);
	anchor_rss = anchor_rss > opt->base_rss ? anchor_rss - opt->base_rss : 0;
	load_rss = load_rss > opt->base_rss ? load_rss - opt->base_rss : 0;

	const char *anchor_name = is_json(in) ? "cJSON_Parse" : "libyaml+read";
	if (anchor.ok)
		fmt_ms(m, sizeof m, anchor.seconds);
	snprintf(an, sizeof an, "%s %s", anchor.ok ? m : "failed", anchor_name);
	if (!built) {
		row("load", label, "n/a (kind not built)", an, 0, 0, NULL);
	} else if (!load.ok) {
		row("load", label, load.note, an, 0, 0, NULL);
	} else {
		fmt_ms(m, sizeof m, load.seconds);
		row("load", label, m, an, anchor.ok ? load.seconds / anchor.seconds : 0,
		    is_json(in) ? GOAL_LOAD_RATIO : GOAL_LOAD_RATIO_YAML, is_json(in) ? "<=1.0x" : "<=1.25x");
		if (is_json(in) && anchor.ok && anchor.cpu > 0) { /* the same runs in CPU time */
			char ac[32];
			fmt_ms(m, sizeof m, load.cpu);
			fmt_ms(ac, sizeof ac, anchor.cpu);
			snprintf(an, sizeof an, "%s %s", ac, anchor_name);
			row("load cpu", label, m, an, load.cpu / anchor.cpu, GOAL_LOAD_RATIO, "<=1.0x");
		}
	}

	double input_bytes = load.ok ? load.input_bytes : anchor.input_bytes;
	char ib[32], ar[32];
	fmt_bytes(ib, sizeof ib, input_bytes);
	fmt_bytes(ar, sizeof ar, anchor_rss);
	snprintf(an, sizeof an, "input %s (%s %s)", ib, is_json(in) ? "cJSON" : "yaml+read", ar);
	if (!built) {
		row("peak RSS", label, "n/a (kind not built)", an, 0, 0, NULL);
	} else if (load.ok) {
		fmt_bytes(m, sizeof m, load_rss);
		row("peak RSS", label, m, an, load_rss / input_bytes, GOAL_RSS_RATIO, "<=2.0x");
	}
	return built && load.ok;
}

/* The edit series: re-assembly, edit and exact counts with a redraw, and
 * for a sequence its steps and its timeline's cursor. */
static void bench_edit_rows(const struct input *in, const struct options *opt, const char *label, bool loaded)
{
	char m[128], an[160];
	int built = kind_by_name(in->kind) != NULL;
	struct child_result load = { .ok = loaded };
	if (!built) {
		row("edit p50/p99", label, "n/a (kind not built)", "goal 5 ms", 0, 0, NULL);
	} else if (load.ok && opt->edits > 0) {
		struct child_result ed;
		char p50[24], p99[24], first[24];
		if (run_series(child_edits, in, opt, "edit p50/p99", label, "goal 5 ms", &ed, p50, p99, first)) {
			snprintf(m, sizeof m, "%s / %s", p50, p99);
			if (ed.edits < opt->edits)
				snprintf(an, sizeof an, "goal 5 ms (first %s; %d edits)", first, ed.edits);
			else
				snprintf(an, sizeof an, "goal 5 ms (first assembly %s)", first);
			row("edit p50/p99", label, m, an, ed.p99 * 1e3 / GOAL_EDIT_MS, 1.0, "p99<=5ms");
		}
	}
	char path[4096];
	bool exact = tokenizer_find("o200k_base", path, sizeof path);
	for (int with = 0; with < (exact ? 2 : 1) && built && load.ok && opt->edits > 0; with++) {
		const char *name = with ? "exact+redraw" : "edit+redraw";
		struct child_result ed;
		char p50[24], p99[24], first[24];
		if (run_series(with ? child_redraw_exact : child_redraw, in, opt, name, label, "goal 16 ms p99", &ed, p50,
			       p99, first)) {
			snprintf(m, sizeof m, "%s / %s", p50, p99);
			if (ed.edits < opt->edits)
				snprintf(an, sizeof an, "goal 16 ms (first %s; %d edits)", first, ed.edits);
			else
				snprintf(an, sizeof an, "goal 16 ms (first frame %s)", first);
			row(name, label, m, an, ed.p99 * 1e3 / GOAL_REDRAW_MS, 1.0, "p99<=16ms");
		}
	}
	const struct kind_ops *k = kind_by_name(in->kind);
	if (k && k->sequence && load.ok && opt->edits > 0) {
		struct child_result ed;
		char p50[24], p99[24], first[24];
		if (run_series(child_step, in, opt, "step+redraw", label, "goal 16 ms p99", &ed, p50, p99, first)) {
			char w50[24], w99[24];
			fmt_ms(w50, sizeof w50, ed.wall_median);
			fmt_ms(w99, sizeof w99, ed.wall_p99);
			snprintf(m, sizeof m, "%s / %s cpu", p50, p99);
			snprintf(an, sizeof an, "goal 16 ms (wall %s / %s; %d steps)", w50, w99, ed.edits);
			row("step+redraw", label, m, an, ed.p99 * 1e3 / GOAL_REDRAW_MS, 1.0, "p99<=16ms");
		}
	}
	if (k && k->sequence && k->timeline && load.ok && opt->edits > 0) {
		struct child_result ed;
		char p50[24], p99[24], first[24];
		if (run_series(child_timeline, in, opt, "timeline j/k", label, "goal 16 ms p99", &ed, p50, p99, first)) {
			snprintf(m, sizeof m, "%s / %s", p50, p99);
			snprintf(an, sizeof an, "goal 16 ms (%.0f steps; opened in %s)", ed.pieces, first);
			row("timeline j/k", label, m, an, ed.p99 * 1e3 / GOAL_REDRAW_MS, 1.0, "p99<=16ms");
		}
	}
	if (exact && built && load.ok && opt->edits > 0) {
		struct child_result ed;
		char p50[24], p99[24], first[24];
		if (run_series(child_exact_recount, in, opt, "exact recount", label, "", &ed, p50, p99, first)) {
			snprintf(m, sizeof m, "%s / %s cpu", p50, p99);
			snprintf(an, sizeof an, "first count %s; %.2f%% recounted", first, 100.0 * ed.recounted);
			row("exact recount", label, m, an, 0, 0, NULL);
		}
	}
}


static void bench_input(const struct input *in, const struct options *opt)
{
	char label[64];
	snprintf(label, sizeof label, "%s", in->label);
	bench_edit_rows(in, opt, label, bench_load_rows(in, opt, label));
}

/* `ctxscope report` on an input vs `jq empty` on it. */
static void bench_report(const struct input *in, const struct options *opt)
{
	char m[128], an[160];
	double jq_s = 0, jq_rss = 0, rep_s = 0, rep_rss = 0;
	int jq = -1;
	char bin[4096], path[4096], kind[32];
	snprintf(bin, sizeof bin, "%s", opt->bin);
	snprintf(path, sizeof path, "%s", in->path);
	snprintf(kind, sizeof kind, "%s", in->kind);
	char a_report[] = "report", a_kind[] = "--kind", a_format[] = "--format", a_json[] = "json";
	if (is_json(in)) {
		char a_jq[] = "jq", a_empty[] = "empty";
		char *jq_argv[] = { a_jq, a_empty, path, NULL };
		jq = run_command(jq_argv, &jq_s, &jq_rss);
	}
	if (!kind_by_name(in->kind)) {
		char js[24], jr[24];
		fmt_ms(js, sizeof js, jq_s);
		fmt_bytes(jr, sizeof jr, jq_rss);
		snprintf(an, sizeof an, "%s, %s jq empty", js, jr);
		row("report", in->label, "n/a (kind not built)", jq == 0 ? an : "", 0, 0, NULL);
		return;
	}
	struct child_result y;
	double y_rss = 0;
	memset(&y, 0, sizeof y);
	if (!is_json(in)) /* jq reads no YAML: the manifest's load anchor, best of two before the report: the
			   * first reads the files into the cache the other inputs' runs may have emptied (whoever
			   * reads them first pays for it), so the second and the report both find them there */
		best_of(child_yaml, in, opt, 2, &y, &y_rss);
	char *rep_argv[] = { bin, a_report, path, a_kind, kind, a_format, a_json, NULL };
	int rc = run_command(rep_argv, &rep_s, &rep_rss);
	if (rc != 0 && rc != 3) { /* 3: over its limit, a fine report */
		snprintf(m, sizeof m, "failed (exit %d)", rc);
		row("report", in->label, m, "", 0, 0, NULL);
		return;
	}
	char rr[24];
	fmt_ms(m, sizeof m, rep_s);
	fmt_bytes(rr, sizeof rr, rep_rss);
	size_t l = strlen(m);
	snprintf(m + l, sizeof m - l, ", %s", rr);
	if (jq == 0) {
		char js[24], jr[24];
		fmt_ms(js, sizeof js, jq_s);
		fmt_bytes(jr, sizeof jr, jq_rss);
		snprintf(an, sizeof an, "%s, %s jq empty", js, jr);
		row("report", in->label, m, an, rep_s / jq_s, 1.0, "<=jq");
		return;
	}
	if (!is_json(in) && y.ok) {
		char ys[24];
		fmt_ms(ys, sizeof ys, y.seconds);
		snprintf(an, sizeof an, "%s libyaml+read", ys);
		row("report", in->label, m, an, rep_s / y.seconds, GOAL_LOAD_RATIO_YAML, "<=1.25x");
	} else {
		row("report", in->label, m, is_json(in) ? "jq not found" : "libyaml+read failed", 0, 0, NULL);
	}
}

/* The ledger database: `ctxscope --screen` (open, assemble, first frame)
 * against the six `sqlite3 -json` exports of the README's recipe alone;
 * peak RSS against the database file. */
static void bench_db(const char *label, const char *path, const struct options *opt)
{
	char bin[4096], db[4096], m[128], an[160], xs[24], xr[24], rr[24];
	snprintf(bin, sizeof bin, "%s", opt->bin);
	snprintf(db, sizeof db, "%s", path);
	char a_sh[] = "sh", a_export[] = "tests/ledger/export.sh", a_screen[] = "--screen", a_size[] = "120x40";
	char *exp_argv[] = { a_sh, a_export, db, NULL };
	char *ui_argv[] = { bin, a_screen, a_size, db, NULL };
	double exp_s = 0, exp_rss = 0, ui_s = 0, ui_rss = 0;
	int xrc = run_command(exp_argv, &exp_s, &exp_rss);
	int urc = run_command(ui_argv, &ui_s, &ui_rss);
	struct stat st;
	double bytes = stat(path, &st) == 0 ? (double)st.st_size : 0;
	if (urc != 0 || xrc != 0 || bytes <= 0) {
		snprintf(m, sizeof m, "failed (exit %d; export %d)", urc, xrc);
		row("db open", label, m, "", 0, 0, NULL);
		return;
	}
	fmt_ms(m, sizeof m, ui_s);
	fmt_ms(xs, sizeof xs, exp_s);
	snprintf(an, sizeof an, "%s sqlite3 -json x6", xs);
	row("db open", label, m, an, ui_s / exp_s, 1.0, "<=export");
	fmt_bytes(rr, sizeof rr, ui_rss);
	fmt_bytes(xr, sizeof xr, bytes);
	snprintf(an, sizeof an, "database %s", xr);
	row("db peak RSS", label, rr, an, ui_rss / bytes, 1.5, "<=1.5x");
}

/* Start to first frame on every sample (files under DIR, recursively). */
static void bench_frames_in(const char *dir, const struct options *opt, int *count)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	char path[4096];
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			bench_frames_in(path, opt, count);
			continue;
		}
		size_t n = strlen(path);
		int manifest = n > 16 && strcmp(path + n - 16, "/working-set.yml") == 0;
		int json = n > 5 && strcmp(path + n - 5, ".json") == 0;
		if (!manifest && !json)
			continue;
		char bin[4096], a_screen[] = "--screen", a_size[] = "80x24", a_version[] = "--version";
		snprintf(bin, sizeof bin, "%s", opt->bin);
		char *argv[] = { bin, a_screen, a_size, path, NULL };
		/* Best of BENCH_FRAME_RUNS each, interleaved: a loaded machine
		 * adds whole scheduler slices to single runs. */
		double s = INFINITY, vs = INFINITY, rss = 0, vrss;
		int rc = 0;
		char *vargv[] = { bin, a_version, NULL };
		for (int r = 0; r < BENCH_FRAME_RUNS; r++) {
			double t, vt;
			rc = run_command(argv, &t, &rss);
			if (rc != 0 && rc != 3)
				break;
			if (run_command(vargv, &vt, &vrss) == 0 && vt < vs)
				vs = vt;
			if (t < s)
				s = t;
		}
		char m[128], an[160];
		fmt_ms(m, sizeof m, s);
		char v[24];
		fmt_ms(v, sizeof v, vs);
		snprintf(an, sizeof an, "goal 30 ms (--version %s)", v);
		const char *rel = strncmp(path, "samples/", 8) == 0 ? path + 8 : path;
		if (rc != 0 && rc != 3)
			row("first frame", rel, "failed", an, 0, 0, NULL);
		else
			row("first frame", rel, m, an, s * 1e3 / GOAL_FRAME_MS, 1.0, "<=30ms");
		(*count)++;
	}
	closedir(d);
}

static void machine(void)
{
	char model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	if (f) {
		while (fgets(line, sizeof line, f))
			if (strncmp(line, "model name", 10) == 0) {
				char *c = strchr(line, ':');
				if (c) {
					snprintf(model, sizeof model, "%s", c + 2);
					model[strcspn(model, "\n")] = '\0';
				}
				break;
			}
		fclose(f);
	}
	long mem_kb = 0;
	f = fopen("/proc/meminfo", "r");
	if (f) {
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemTotal: %ld kB", &mem_kb) == 1)
				break;
		fclose(f);
	}
	printf("machine: %ld cores, %s, %.1f GB RAM\n", sysconf(_SC_NPROCESSORS_ONLN), model, (double)mem_kb / 1048576.0);
	printf("kinds built:");
	for (size_t i = 0; kind_table[i]; i++)
		printf(" %s", kind_table[i]->name);
	printf("\n");
}

static int usage(void)
{
	fputs("usage: ctxscope-bench [--edits N] [--bin CTXSCOPE] [--ui] [--samples DIR] [--ledger-db LABEL:PATH] KIND:LABEL:PATH...\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct options opt = { .edits = 1000, .bin = ".build/release/ctxscope", .samples = "samples", .ui = 0 };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--edits") == 0 && i + 1 < argc) {
			opt.edits = atoi(argv[++i]);
			if (opt.edits < 0 || opt.edits > BENCH_MAX_EDITS)
				return usage();
		} else if (strcmp(argv[i], "--bin") == 0 && i + 1 < argc) {
			opt.bin = argv[++i];
		} else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc) {
			opt.samples = argv[++i];
		} else if (strcmp(argv[i], "--ui") == 0) {
			opt.ui = 1;
		} else if (strcmp(argv[i], "--ledger-db") == 0 && i + 1 < argc && strchr(argv[i + 1], ':')) {
			opt.db_label = argv[++i];
			*strchr(opt.db_label, ':') = '\0';
			opt.db_path = opt.db_label + strlen(opt.db_label) + 1;
		} else if (argv[i][0] == '-') {
			return usage();
		} else {
			if (opt.ninputs == BENCH_MAX_INPUTS)
				return usage();
			struct input *in = &opt.inputs[opt.ninputs];
			char *a = argv[i], *b = strchr(a, ':'), *c = b ? strchr(b + 1, ':') : NULL;
			if (!c)
				return usage();
			*b = *c = '\0';
			in->kind = a;
			in->label = b + 1;
			in->path = c + 1;
			struct stat st;
			if (stat(in->path, &st) != 0) {
				fprintf(stderr, "ctxscope-bench: %s: %s\n", in->path, strerror(errno));
				return 1;
			}
			in->file_bytes = st.st_size;
			opt.ninputs++;
		}
	}
	cs_alloc_install_cjson_hooks();
	machine();
	struct child_result nothing;
	if (run_child(child_nothing, NULL, &opt, &nothing, &opt.base_rss) != 0)
		opt.base_rss = 0;
	char base[32];
	fmt_bytes(base, sizeof base, opt.base_rss);
	printf("peak RSS is above a child that loads nothing (%s); manifest input = the YAML plus the files it lists\n", base);
	printf("edits: %d random (exclusion, priority, strategy) per input, a series cut at %.0f s; loads best of 3 under 64 MB, else one run\n\n",
	       opt.edits, BENCH_EDIT_SECONDS);
	printf("%-13s %-36s %-26s %-34s %-8s %s\n", "figure", "input", "ctxscope", "anchor (same run)", "ratio", "goal");
	double t0 = now_seconds();
	for (size_t i = 0; i < opt.ninputs; i++)
		bench_input(&opt.inputs[i], &opt);
	/* report on each kind's largest input */
	for (size_t i = 0; i < opt.ninputs; i++) {
		int largest = 1;
		for (size_t k = 0; k < opt.ninputs; k++)
			if (strcmp(opt.inputs[k].kind, opt.inputs[i].kind) == 0 && opt.inputs[k].file_bytes > opt.inputs[i].file_bytes)
				largest = 0;
		if (largest)
			bench_report(&opt.inputs[i], &opt);
	}
	if (opt.db_label)
		bench_db(opt.db_label, opt.db_path, &opt);
	if (opt.ui) {
		int count = 0;
		bench_frames_in(opt.samples, &opt, &count);
		if (!count)
			row("first frame", opt.samples, "no samples found", "goal 30 ms", 0, 0, NULL);
	} else {
		row("first frame", "every sample", "skipped (no --ui)", "goal 30 ms", 0, 0, NULL);
	}
	printf("\nmeasured in %.0f s\n", now_seconds() - t0);
	return 0;
}

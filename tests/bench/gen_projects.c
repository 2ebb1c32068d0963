/* gen_projects.c: a generated ~/.claude/projects folder for `ctxscope scan`
 * (issue 36): its benchmark and its test against ccusage. Same seed, same
 * bytes. Written from the shapes ctxscope-formats(5) sections 7 and 7b describe;
 * no real session is copied.
 *
 *   ctxscope-gen-projects OUTDIR MBYTES SEED
 *
 * OUTDIR/projects/<project>/<session>.jsonl: sessions of user turns,
 * assistant messages split over 1-3 lines (one message.id and requestId,
 * output_tokens growing from line to line), tool results, progress and
 * attachment lines, a compaction now and then; context growing from turn to
 * turn with cache reads and writes as Claude Code records them (1-hour
 * writes for some sessions, 5-minute for others), idle gaps past the TTL,
 * rewinds (a turn whose parent is an earlier line), model switches, small
 * Haiku requests beside the main model, a new version mid-session, tools
 * added. Some sessions are resumed into a new file that repeats every line of
 * the old one before going on; some have subagent files (agent-*.jsonl
 * beside them, and <session>/subagents/agent-*.jsonl). A few files end in a
 * truncated line (a session being written), and a few lines are not JSON. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static long pick(struct rng *r, long lo, long hi) /* [lo, hi] */
{
	return lo + (long)(next(r) % (uint64_t)(hi - lo + 1));
}

static bool chance(struct rng *r, int percent)
{
	return pick(r, 0, 99) < percent;
}

static void uuid(struct rng *r, char out[37])
{
	uint64_t a = next(r), b = next(r);
	snprintf(out, 37, "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-a%03" PRIx64 "-%012" PRIx64, a >> 32, (a >> 16) & 0xffff,
		 a & 0xfff, b >> 52, (uint64_t)(b & 0xffffffffffffULL));
}

static void iso(double t, char out[80])
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	snprintf(out, 80, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)((t - (double)s) * 1000) % 1000);
}

static const char *const words[] = {
	"parser", "the", "token", "stack", "returns", "NULL", "when", "a", "postfix", "expression", "ends", "early",
	"fix", "test", "crash", "in", "parse_postfix", "ASan", "reports", "heap-use-after-free", "at", "line", "42",
	"we", "should", "check", "the", "length", "before", "reading", "next", "char", "buffer", "grows", "by", "two",
	"\\\"quoted\\\"", "path\\\\to\\\\file", "caf\\u00e9", "日本語", "ok", "done", "\\n", "\\t",
};

/* n bytes or so of JSON-string-safe text (escapes included). */
static void text(FILE *f, struct rng *r, long n)
{
	long w = 0;
	while (w < n) {
		const char *s = words[pick(r, 0, (long)(sizeof words / sizeof *words) - 1)];
		fputs(s, f);
		fputc(' ', f);
		w += (long)strlen(s) + 1;
	}
}

struct sess {
	FILE *f;
	struct rng *r;
	char id[37];
	char last[37];      /* the last line's uuid */
	char user_before[37]; /* an earlier user line (for a rewind) */
	double t;
	long ctx;           /* the prompt's tokens */
	long cached;        /* the extent the last main request left in the cache */
	double cached_at;
	int ttl;
	bool one_hour;
	const char *version;
	long msgs;
	bool side;          /* every line a sidechain (a subagent's file) */
	int model;          /* 0 main, 2 switched */
};

static const char *const models[] = { "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001",
				      "claude-opus-4-5-20251101" };

static void head(struct sess *s, const char *type, const char *uuid_, const char *parent)
{
	char ts[80];
	iso(s->t, ts);
	fprintf(s->f, "{\"parentUuid\":");
	if (parent && parent[0])
		fprintf(s->f, "\"%s\"", parent);
	else
		fputs("null", s->f);
	fprintf(s->f, ",\"isSidechain\":%s,\"userType\":\"external\",\"cwd\":\"/home/dev/work\",\"sessionId\":\"%s\","
		      "\"version\":\"%s\",\"gitBranch\":\"main\",\"type\":\"%s\",\"uuid\":\"%s\",\"timestamp\":\"%s\"",
		s->side ? "true" : "false", s->id, s->version, type, uuid_, ts);
}

static void user(struct sess *s, long bytes, const char *tool_id)
{
	char u[37];
	uuid(s->r, u);
	head(s, "user", u, s->last);
	if (tool_id) {
		fprintf(s->f, ",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"%s\",\"type\":\"tool_result\","
			      "\"content\":\"", tool_id);
		text(s->f, s->r, bytes);
		fputs("\",\"is_error\":false}]}}\n", s->f);
	} else {
		fputs(",\"message\":{\"role\":\"user\",\"content\":\"", s->f);
		text(s->f, s->r, bytes);
		fputs("\"}}\n", s->f);
		memcpy(s->user_before, s->last, 37);
	}
	memcpy(s->last, u, 37);
	s->ctx += bytes / 4 + 8;
}

/* One assistant message over 1-3 lines; tool_id gets its tool_use id (or ""). */
static void assistant(struct sess *s, int model, long in, long read, long write, bool one_hour, char tool_id[40])
{
	struct rng *r = s->r;
	char mid[40], rid[40];
	snprintf(mid, sizeof mid, "msg_01%016" PRIx64, next(r));
	snprintf(rid, sizeof rid, "req_011%016" PRIx64, next(r));
	int lines = (int)pick(r, 1, 3);
	long out = pick(r, 20, 800);
	tool_id[0] = '\0';
	for (int k = 0; k < lines; k++) {
		char u[37];
		uuid(r, u);
		head(s, "assistant", u, s->last);
		fprintf(s->f, ",\"requestId\":\"%s\",\"message\":{\"id\":\"%s\",\"type\":\"message\",\"role\":\"assistant\","
			      "\"model\":\"%s\",\"content\":[", rid, mid, models[model]);
		if (k == lines - 1 && lines > 1) {
			snprintf(tool_id, 40, "toolu_01%012" PRIx64, (uint64_t)(next(r) & 0xffffffffffffULL));
			fprintf(s->f, "{\"type\":\"tool_use\",\"id\":\"%s\",\"name\":\"Read\",\"input\":{\"file_path\":\"/home/dev/work/"
				      "src/parse.c\",\"limit\":200}}", tool_id);
		} else {
			fputs("{\"type\":\"text\",\"text\":\"", s->f);
			text(s->f, r, pick(r, 40, 600));
			fputs("\"}", s->f);
		}
		long o = out * (k + 1) / lines; /* grows from line to line */
		fprintf(s->f, "],\"stop_reason\":null,\"usage\":{\"input_tokens\":%ld,\"cache_creation_input_tokens\":%ld,"
			      "\"cache_read_input_tokens\":%ld,\"cache_creation\":{\"ephemeral_5m_input_tokens\":%ld,"
			      "\"ephemeral_1h_input_tokens\":%ld},\"output_tokens\":%ld,\"service_tier\":\"standard\"}}}\n",
			in, write, read, one_hour ? 0 : write, one_hour ? write : 0, o);
		memcpy(s->last, u, 37);
		s->t += 0.4;
	}
	s->ctx += out;
}

static void extra_lines(struct sess *s)
{
	struct rng *r = s->r;
	char u[37];
	if (chance(r, 10)) {
		uuid(r, u);
		head(s, "progress", u, s->last);
		fputs(",\"data\":{\"type\":\"hook_progress\",\"hookEvent\":\"PreToolUse\"}}\n", s->f);
		memcpy(s->last, u, 37);
	}
	if (chance(r, 2)) {
		uuid(r, u);
		head(s, "attachment", u, s->last);
		fputs(",\"attachment\":{\"type\":\"deferred_tools_delta\",\"addedNames\":[\"mcp__db__query\"]}}\n", s->f);
		memcpy(s->last, u, 37);
	}
	if (chance(r, 3))
		fprintf(s->f, "{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"sessionId\":\"%s\"}\n", s->id);
}

/* One turn: the user's words, a main request, maybe a tool call and its result. */
static void turn(struct sess *s)
{
	struct rng *r = s->r;
	double gap = chance(r, 4) ? (double)pick(r, 400, 5000) : (double)pick(r, 3, 90);
	s->t += gap;
	if (chance(r, 3) && s->user_before[0]) /* a rewind: the turn goes on from an earlier line */
		memcpy(s->last, s->user_before, 37);
	user(s, pick(r, 40, 400), NULL);
	extra_lines(s);
	if (chance(r, 5)) { /* a small Haiku request beside the main one (a title, a check) */
		char tid[40];
		long p = pick(r, 200, 600);
		assistant(s, 1, p, 0, 0, false, tid);
	}
	if (chance(r, 2))
		s->model = s->model ? 0 : 2;
	if (chance(r, 1))
		s->version = "2.1.12";
	for (int calls = (int)pick(r, 1, 4); calls > 0; calls--) {
		bool warm = s->t - s->cached_at <= s->ttl && s->cached > 0;
		long read = warm ? s->cached : (chance(r, 70) ? 14000 + pick(r, 0, 3000) : 0);
		if (read > s->ctx)
			read = s->ctx;
		long in = pick(r, 1, 12);
		long write = s->ctx - read > in ? s->ctx - read - in : 0;
		char tid[40];
		assistant(s, s->model, in, read, write, s->one_hour, tid);
		s->cached = read + write;
		s->cached_at = s->t;
		s->ttl = s->one_hour ? 3600 : 300;
		if (!tid[0])
			break;
		s->t += (double)pick(r, 1, 20);
		user(s, pick(r, 200, 9000), tid);
	}
	if (chance(r, 1)) { /* a compaction: a boundary, the summary, a smaller context */
		char u[37];
		uuid(r, u);
		head(s, "system", u, "");
		fprintf(s->f, ",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"logicalParentUuid\":"
			      "\"%s\",\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":%ld}}\n", s->last, s->ctx);
		memcpy(s->last, u, 37);
		s->ctx = 18000;
		user(s, 2000, NULL);
	}
}

static FILE *open_file(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gen_projects: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return f;
}

static void mkdirs(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	mkdir(buf, 0755);
}

static long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

static void copy_file(const char *from, FILE *to)
{
	FILE *f = fopen(from, "r");
	if (!f)
		return;
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, to);
	fclose(f);
}

static void turns(struct sess *s, long n)
{
	for (long k = 0; k < n; k++) {
		turn(s);
		if (chance(s->r, 1) && k + 1 < n)
			fputs("not a JSON line {\n", s->f); /* a bad line in the middle */
	}
}

/* A subagent's file: its own conversation, every line a sidechain. */
static void subagent(const char *dir /* under 2048 bytes */, const struct sess *parent, struct rng *r, bool nested)
{
	char path[4096], agent[37];
	if (strlen(dir) > 2000)
		return;
	uuid(r, agent);
	if (nested) {
		snprintf(path, sizeof path, "%s/%s/subagents", dir, parent->id);
		mkdirs(path);
		snprintf(path, sizeof path, "%s/%s/subagents/agent-%.8s.jsonl", dir, parent->id, agent);
	} else {
		snprintf(path, sizeof path, "%s/agent-%.8s.jsonl", dir, agent);
	}
	struct sess s = { .f = open_file(path), .r = r, .t = parent->t - 600, .ctx = 9000, .version = parent->version,
			  .side = true, .one_hour = parent->one_hour, .ttl = 300 };
	memcpy(s.id, parent->id, 37);
	turns(&s, pick(r, 2, 12));
	fclose(s.f);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: ctxscope-gen-projects OUTDIR MBYTES SEED\n");
		return 2;
	}
	const char *out = argv[1];
	long want = atol(argv[2]) * 1000000L;
	struct rng r = { strtoull(argv[3], NULL, 10) };
	static const char *const projects[] = { "-home-dev-work-parser", "-home-dev-work-site", "-home-dev-ops",
						"-home-dev-work-api", "-home-dev-notes", "-srv-build-agent",
						"-home-dev-work-ml", "-home-dev-dotfiles" };
	char dir[2048], path[4096];
	long total = 0, nsess = 0;
	double t0 = 1767225600.0; /* 2026-01-01 */
	while (total < want) {
		const char *proj = projects[pick(&r, 0, 7)];
		if (strlen(out) > 1900) {
			fprintf(stderr, "gen_projects: OUTDIR too long\n");
			return 2;
		}
		snprintf(dir, sizeof dir, "%s/projects/%s", out, proj);
		mkdirs(dir);
		struct sess s = { .r = &r, .t = t0 + (double)nsess * 5400.0 + (double)pick(&r, 0, 3000), .ctx = 16000,
				  .version = "2.1.9", .one_hour = chance(&r, 50) };
		uuid(&r, s.id);
		snprintf(path, sizeof path, "%s/%s.jsonl", dir, s.id);
		s.f = open_file(path);
		long n = chance(&r, 1) ? pick(&r, 500, 1200) : chance(&r, 20) ? pick(&r, 60, 160) : pick(&r, 3, 40);
		turns(&s, n);
		bool truncated = chance(&r, 3);
		if (truncated)
			fputs("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"half", s.f);
		fclose(s.f);
		total += file_size(path);
		if (chance(&r, 20))
			subagent(dir, &s, &r, chance(&r, 60));
		if (!truncated && chance(&r, 15)) { /* resumed: a new file repeating the old one, then more */
			char old[sizeof path];
			snprintf(old, sizeof old, "%s", path);
			uuid(&r, s.id);
			snprintf(path, sizeof path, "%s/%s.jsonl", dir, s.id);
			s.f = open_file(path);
			copy_file(old, s.f);
			s.t += (double)pick(&r, 600, 90000);
			turns(&s, pick(&r, 2, 30));
			fclose(s.f);
			total += file_size(path);
		}
		nsess++;
	}
	printf("%ld sessions, %.1f MB in %s/projects\n", nsess, (double)total / 1e6, out);
	return 0;
}

/* subagents.c: the subagent files beside a session. Claude Code writes
 * what a subagent (the Task tool) sent to files of their own,
 * agent-<id>.jsonl, in the session's folder, its <session-id>/subagents
 * folder, or that folder's workflows/<wf_id>/ folders. They are listed apart, with the usage they recorded, and never
 * read into the main prompt; each opens as a session of its own. */
#include "claude_code.h"

#include "base/alloc.h"
#include "base/fileio.h"
#include "json/lines.h"
#include "source.h"
#include "base/strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUBAGENT_MAX_FILES 64          /* listed; more are counted */
#define SUBAGENT_MAX_TOTAL (64u << 20) /* read of them all, in name order; a file past it is named, not read */
#define SUBAGENT_HEAD (1u << 20)       /* read of the session itself, for its sessionId */

/* obj[key] as a token count (json_count_value): 0 when absent, and when
 * it is not a count (-5, 1.5, 1e999, "12"), which is counted in *bad. */
static long num(const cJSON *obj, const char *key, long *bad)
{
	const cJSON *v = json_member(obj, key);
	long n = 0;
	if (v && !json_is_null(v) && json_count_value(v, &n))
		++*bad;
	return n;
}

static bool is_agent_file(const char *name)
{
	size_t n = strlen(name);
	return n > 12 && !strncmp(name, "agent-", 6) && !strcmp(name + n - 6, ".jsonl");
}

/* The session id of a session file: the first line's that has one. */
static void session_id(const char *data, size_t len, char *out, size_t size)
{
	struct jsonl j;
	jsonl_init(&j, data, len);
	const char *s;
	size_t n;
	out[0] = '\0';
	for (int tries = 0; tries < 50 && !out[0] && jsonl_next(&j, &s, &n, NULL); tries++) {
		struct json_doc d;
		struct cs_error err;
		cs_error_clear(&err);
		if (json_doc_parse(&d, s, n, &err) == CS_OK) {
			const cJSON *id = json_member(d.root, "sessionId");
			if (json_is_string(id))
				snprintf(out, size, "%s", json_string_value(id));
		}
		json_doc_free(&d);
	}
}

/* Reads one agent file, whose size the listing took (a file that grew
 * since is read up to that size): its lines, requests (assistant messages,
 * merged by message.id: the usage once) and the usage they recorded. */
static void read_agent(const char *path, struct cc_subagent *a)
{
	char *data = NULL;
	size_t len = 0;
	struct cs_error err;
	cs_error_clear(&err);
	if (file_read(path, a->bytes ? a->bytes : 1, &data, &len, NULL, &err) != CS_OK) {
		a->unreadable = true;
		snprintf(a->why, sizeof a->why, "could not be read: %.100s", err.message);
		return;
	}
	struct jsonl j;
	jsonl_init(&j, data, len);
	const char *s;
	size_t n;
	char last_id[128] = "";
	while (jsonl_next(&j, &s, &n, NULL)) {
		a->lines++;
		struct json_doc d;
		cs_error_clear(&err);
		if (json_doc_parse(&d, s, n, &err) != CS_OK) {
			json_doc_free(&d);
			a->bad_lines++;
			continue;
		}
		const cJSON *msg = json_member(d.root, "message"), *id = json_member(msg, "id"),
			    *sid = json_member(d.root, "sessionId");
		if (!a->session_id[0] && json_is_string(sid))
			snprintf(a->session_id, sizeof a->session_id, "%s", json_string_value(sid));
		const cJSON *u = json_member(msg, "usage");
		const cJSON *type = json_member(d.root, "type");
		if (json_is_string(type) && !strcmp(json_string_value(type), "assistant") && json_is_object(u) &&
		    !(json_is_string(id) && !strcmp(json_string_value(id), last_id))) {
			a->requests++;
			a->in += num(u, "input_tokens", &a->bad_counts);
			a->cache_read += num(u, "cache_read_input_tokens", &a->bad_counts);
			a->cache_write += num(u, "cache_creation_input_tokens", &a->bad_counts);
			a->out += num(u, "output_tokens", &a->bad_counts);
			snprintf(last_id, sizeof last_id, "%s", json_is_string(id) ? json_string_value(id) : "");
		}
		json_doc_free(&d);
	}
	cs_free(data);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct cc_subagent *)a)->name, ((const struct cc_subagent *)b)->name);
}

/* The agent files of one folder into list (at most SUBAGENT_MAX_FILES):
 * their names and sizes, nothing read yet. */
static void scan(const char *dir, const char *shown_as, struct cc_subagents *list)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!is_agent_file(e->d_name))
			continue;
		if (list->n == SUBAGENT_MAX_FILES) {
			list->more++;
			continue;
		}
		struct cc_subagent *a = &list->items[list->n++];
		memset(a, 0, sizeof *a);
		snprintf(a->name, sizeof a->name, "%s%s", shown_as, e->d_name);
		snprintf(a->path, sizeof a->path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(a->path, &st) != 0 || !S_ISREG(st.st_mode)) {
			a->unreadable = true;
			snprintf(a->why, sizeof a->why, "not read: not a regular file");
		} else {
			a->bytes = (size_t)st.st_size;
		}
	}
	closedir(d);
}

/* The agent files of each workflow's folder, <sub>/workflows/<wf_id>/
 * (ctxscope-formats(5) section 7b), as scan does: one level, within the same limits. */
static void scan_workflows(const char *sub, const char *shown_as, struct cc_subagents *list)
{
	char dir[4096 + 320], wf[4096 + 320], as[sizeof list->items->name];
	snprintf(dir, sizeof dir, "%s/workflows", sub);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue; /* ".", "..", and hidden entries */
		if ((size_t)snprintf(wf, sizeof wf, "%s/%s", dir, e->d_name) >= sizeof wf ||
		    (size_t)snprintf(as, sizeof as, "%sworkflows/%s/", shown_as, e->d_name) >= sizeof as)
			continue; /* a path too long to name */
		scan(wf, as, list); /* not a folder: nothing */
	}
	closedir(d);
}

/* The files read in name order while the total allows: a file past what
 * is left is named with its size, not read (64 sparse files of 256 MB
 * took 106 s to read whole). */
static void read_within(struct cc_subagents *list)
{
	size_t left = SUBAGENT_MAX_TOTAL;
	for (size_t i = 0; i < list->n; i++) {
		struct cc_subagent *a = &list->items[i];
		if (a->unreadable)
			continue;
		if (a->bytes > left) {
			a->unreadable = a->skipped = true;
			snprintf(a->why, sizeof a->why, "not read: %zu bytes, past the %u MB read of subagent files in all",
				 a->bytes, SUBAGENT_MAX_TOTAL >> 20);
			list->skipped_bytes += a->bytes;
			list->skipped++;
			continue;
		}
		left -= a->bytes;
		read_agent(a->path, a);
	}
}

/* The sessionId of the session at path, from its first SUBAGENT_HEAD
 * bytes (never the whole file again). */
static void session_head_id(const char *path, char *id, size_t size)
{
	id[0] = '\0';
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return;
	char *buf = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? cs_malloc(SUBAGENT_HEAD) : NULL;
	ssize_t n = buf ? read(fd, buf, SUBAGENT_HEAD) : -1;
	close(fd);
	if (n > 0)
		session_id(buf, (size_t)n, id, size);
	cs_free(buf);
}

int cc_subagents(const struct source *src, struct cc_subagents *list)
{
	memset(list, 0, sizeof *list);
	const struct cc_model *m = src->model;
	const char *slash = strrchr(src->path, '/');
	const char *base = slash ? slash + 1 : src->path;
	if (m->subagent || is_agent_file(base))
		return CS_OK; /* a subagent's own file: no subagents of its own */
	list->items = cs_calloc(SUBAGENT_MAX_FILES, sizeof *list->items);
	if (!list->items)
		return CS_ENOMEM;
	char dir[4096], sub[4096 + 300];
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - src->path) : 1, slash ? src->path : ".");
	scan(dir, "", list);
	size_t stem = strlen(base) > 6 ? strlen(base) - 6 : strlen(base); /* <session-id>/subagents/ */
	snprintf(sub, sizeof sub, "%s/%.*s/subagents", dir, (int)stem, base);
	char shown[300];
	snprintf(shown, sizeof shown, "%.*s/subagents/", (int)stem, base);
	scan(sub, shown, list);
	scan_workflows(sub, shown, list);
	qsort(list->items, list->n, sizeof *list->items, by_name);
	read_within(list);
	char id[128] = "";
	if (list->n)
		session_head_id(src->path, id, sizeof id);
	for (size_t i = 0; i < list->n; i++)
		list->items[i].this_session = id[0] && !strcmp(id, list->items[i].session_id);
	return CS_OK;
}

void cc_subagents_fini(struct cc_subagents *list)
{
	cs_free(list->items);
	list->items = NULL;
	list->n = 0;
}

/* command.c: `ctxscope scan` on the command line: its options and its
 * --help, which is also the reference of the per-request rows' fields (the
 * schema of --format jsonl|csv --per request; the man page points here). */
#include "scan/scan.h"

#include "base/isotime.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: ctxscope scan [OPTIONS] PATH...\n"
	"\n"
	"Every Claude Code session (and request log or capture) under the folders\n"
	"given (files are taken as they are), one row per session: requests,\n"
	"recorded input / cache read / cache write / output, cost at the models'\n"
	"prices, hit rate, and the cache waste: tokens written and never read\n"
	"before they expired (unread), and reads lost to breaks (lost), each with\n"
	"its main cause and the request where it was worst. Sorted by waste.\n"
	"Without --format on a terminal the table opens in the inspector.\n"
	"\n"
	"  --format F        text, json, jsonl or csv (default text)\n"
	"  --per W           session (default) or request: jsonl and csv give one\n"
	"                    row per request instead (the fields below)\n"
	"  --sort K          waste (default), cost, requests, hit, time, tokens, name\n"
	"  --top N           the first N rows (0: all; default 20 in text, all otherwise)\n"
	"  --since DATE      only requests from DATE on (YYYY-MM-DD or an ISO time, UTC)\n"
	"  --project TEXT    only projects whose folder name holds TEXT\n"
	"  --threads N       read with N threads (default: every core)\n"
	"  --ascii           ASCII only in the text table\n"
	"\n"
	"Totals count each request once by message.id + requestId (message.id\n"
	"alone when there is no requestId), as ccusage does: a resumed session's\n"
	"repeated lines count once, under the session their sessionId names (else\n"
	"under the earliest file, by first timestamp, then by modification time),\n"
	"and agent-*.jsonl files (also <session>/subagents/...) count under their\n"
	"session. Files are taken in that order whatever the threads, so every run\n"
	"gives the same table. A line counts when it has a timestamp and\n"
	"message.usage with whole input_tokens and output_tokens. Malformed lines,\n"
	"unreadable files and files of another kind are listed under \"skipped\".\n"
	"\n"
	"Causes: ttl-expired, volatile-system (the date in the system prompt),\n"
	"edited-message (the conversation forked: a rewind or an edit), tool-change\n"
	"(tools were added), compaction, model-switch, speed-switch (fast mode\n"
	"on or off: it caches the system prompt and messages apart), system-changed\n"
	"(the system prompt or tools, which the file does not hold: a new Claude\n"
	"Code version, or a read below what the first request read), never-reused\n"
	"(nothing read it before it expired). Entries live the TTL their write recorded (1 hour\n"
	"when most of it is ephemeral_1h, else 5 minutes); waste $ is the premium\n"
	"paid for unread writes (write multiplier - 1) plus, for lost reads, the\n"
	"write paid instead of the read (write multiplier - read multiplier).\n"
	"\n"
	"Per-request rows (--per request), in this order; jsonl adds \"type\":\"request\":\n"
	"  project, session   the folder under projects/, the session id\n"
	"  file, line         the file and the 1-based line of the request's usage\n"
	"  request            its number as the inspector counts (ctxscope FILE --request N)\n"
	"  time               ISO 8601, UTC\n"
	"  model, message_id  as recorded\n"
	"  sidechain          true for sidechain and subagent requests\n"
	"  input, cache_read, cache_write, cache_write_1h, output   tokens, recorded\n"
	"  cost_usd           at the model's prices (0 when the model has none)\n"
	"  unread_tokens, unread_cause   its writes nothing read, and why\n"
	"  lost_tokens, lost_cause       reads it lost to a break, and why\n"
	"  other_request      the request that broke its entry, or it was compared with\n"
	"  idle_s             seconds idle before it (ttl-expired)\n"
	"  waste_usd          the cost of its unread and lost tokens\n"
	"Session rows (csv header; json/jsonl \"rows\") hold the same sums per\n"
	"session, with first, last, hit_rate, waste_by_cause and the worst request.\n";

void scan_usage(struct strbuf *out)
{
	sb_puts(out, usage);
}

static bool parse_since(const char *v, double *out)
{
	char buf[64];
	long long ms;
	if (strlen(v) == 10 && v[4] == '-' && v[7] == '-') {
		snprintf(buf, sizeof buf, "%sT00:00:00Z", v);
		v = buf;
	}
	if (!iso_time_parse(v, &ms))
		return false;
	*out = (double)ms / 1000.0;
	return true;
}

static int choose(const char *v, const char *const *names, int n, const char *what, struct cs_error *err)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	cs_error_set(err, CS_EUSAGE, "scan: %s \"%s\" is not one of the choices (see ctxscope scan --help)", what, v);
	return -1;
}

static int option(const char *name, const char *v, struct scan_cli *o, struct cs_error *err)
{
	static const char *const formats[] = { "text", "json", "jsonl", "csv" };
	static const char *const sorts[] = { "waste", "cost", "requests", "hit", "time", "tokens", "name" };
	static const char *const pers[] = { "session", "request" };
	char *end;
	int k;
	if (!strcmp(name, "format")) {
		if ((k = choose(v, formats, 4, "--format", err)) < 0)
			return CS_EUSAGE;
		o->format = (enum scan_format)k;
		o->format_given = true;
	} else if (!strcmp(name, "sort")) {
		if ((k = choose(v, sorts, 7, "--sort", err)) < 0)
			return CS_EUSAGE;
		o->sort = (enum scan_sort)k;
	} else if (!strcmp(name, "per")) {
		if ((k = choose(v, pers, 2, "--per", err)) < 0)
			return CS_EUSAGE;
		o->per_request = k == 1;
	} else if (!strcmp(name, "top") || !strcmp(name, "threads")) {
		long n = strtol(v, &end, 10);
		if (!*v || *end || n < 0 || n > 100000000)
			return cs_error_set(err, CS_EUSAGE, "scan: --%s wants a whole number, not \"%s\"", name, v);
		if (name[0] == 't' && name[1] == 'o')
			o->top = (size_t)n;
		else
			o->threads = (int)(n > 16 ? 16 : n);
	} else if (!strcmp(name, "since")) {
		if (!parse_since(v, &o->since))
			return cs_error_set(err, CS_EUSAGE, "scan: --since wants YYYY-MM-DD or an ISO time, not \"%s\"", v);
	} else if (!strcmp(name, "project")) {
		o->project = v;
	} else {
		return cs_error_set(err, CS_EUSAGE, "scan: unknown option --%s (see ctxscope scan --help)", name);
	}
	return CS_OK;
}

int scan_cli_parse(int argc, char **argv, struct scan_cli *o, struct cs_error *err)
{
	memset(o, 0, sizeof *o);
	o->since = -1;
	o->top = (size_t)-1;
	bool dashdash = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (dashdash || a[0] != '-' || !a[1]) {
			if (o->npaths == sizeof o->paths / sizeof *o->paths)
				return cs_error_set(err, CS_EUSAGE, "scan: at most 256 paths (give their folder instead)");
			o->paths[o->npaths++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
		} else if (!strcmp(a, "--ascii")) {
			o->ascii = true;
		} else if (!strncmp(a, "--", 2)) {
			char name[32];
			const char *eq = strchr(a, '='), *v;
			size_t n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
			if (n >= sizeof name)
				return cs_error_set(err, CS_EUSAGE, "scan: unknown option %s", a);
			memcpy(name, a + 2, n);
			name[n] = '\0';
			if (eq)
				v = eq + 1;
			else if (i + 1 < argc)
				v = argv[++i];
			else
				return cs_error_set(err, CS_EUSAGE, "scan: --%s wants a value", name);
			int rc = option(name, v, o, err);
			if (rc != CS_OK)
				return rc;
		} else {
			return cs_error_set(err, CS_EUSAGE, "scan: unknown option %s (see ctxscope scan --help)", a);
		}
	}
	if (!o->npaths && !o->help)
		return cs_error_set(err, CS_EUSAGE, "scan: which folders? e.g. ctxscope scan ~/.claude/projects");
	if (o->per_request && o->format_given && (o->format == SCAN_TEXT || o->format == SCAN_JSON))
		return cs_error_set(err, CS_EUSAGE, "scan: --per request wants --format jsonl or csv");
	if (o->per_request && !o->format_given)
		return cs_error_set(err, CS_EUSAGE, "scan: --per request wants --format jsonl or csv");
	return CS_OK;
}

/* output.c: the scan's table as text, JSON, JSON Lines or CSV, and the
 * per-request rows (scan.h; the fields are listed in scan_usage, command.c).
 * Text from the files (paths, models) goes through utf8_sanitize in the
 * text table, and is escaped in JSON and quoted in CSV. */
#include "scan/scan.h"

#include "base/strbuf.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define TEXT_NAME 40    /* columns of a session's name in the text table */
#define TEXT_SKIPS 20   /* skipped files the text table lists (json: all) */
#define TEXT_SESSION 13 /* of which the session id's start (a UUID's first 8 tell them apart) */

static void iso(double t, char buf[96])
{
	if (t <= 0) {
		buf[0] = '\0';
		return;
	}
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	int ms = (int)((t - (double)s) * 1000.0 + 0.5);
	if (ms > 999)
		ms = 999;
	snprintf(buf, 96, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ms);
}

static void json_str(struct strbuf *o, const char *s)
{
	sb_putc(o, '"');
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_printf(o, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(o, "\\u%04x", *p);
		else
			sb_putc(o, (char)*p);
	}
	sb_putc(o, '"');
}

static void csv_str(struct strbuf *o, const char *s)
{
	s = s ? s : "";
	if (!strpbrk(s, ",\"\n\r")) {
		for (const unsigned char *p = (const unsigned char *)s; *p; p++)
			sb_putc(o, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
		return;
	}
	sb_putc(o, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"')
			sb_puts(o, "\"\"");
		else
			sb_putc(o, *p < 0x20 || *p == 0x7f ? '?' : (char)*p);
	}
	sb_putc(o, '"');
}

static void money(struct strbuf *o, double v)
{
	sb_printf(o, "%.6f", v < 0 ? 0.0 : v);
}

/* ---- JSON ---- */

static void json_session(struct strbuf *o, const struct scan_session *s, bool total)
{
	char a[96], b[96];
	iso(s->first, a);
	iso(s->last, b);
	sb_putc(o, '{');
	if (!total) {
		sb_puts(o, "\"project\":");
		json_str(o, s->project);
		sb_puts(o, ",\"session\":");
		json_str(o, s->session);
		sb_puts(o, ",\"path\":");
		json_str(o, s->path);
		sb_puts(o, ",\"kind\":");
		json_str(o, s->kind);
		sb_putc(o, ',');
	}
	sb_printf(o, "\"files\":%ld,\"first\":\"%s\",\"last\":\"%s\",\"requests\":%ld,\"input\":%lld,\"cache_read\":%lld,"
		     "\"cache_write\":%lld,\"cache_write_1h\":%lld,\"output\":%lld,\"cost_usd\":",
		  s->files, a, b, s->requests, s->in, s->cache_read, s->cache_write, s->cache_write_1h, s->output);
	money(o, s->cost);
	sb_printf(o, ",\"unpriced_requests\":%ld,\"hit_rate\":%.4f,\"unread_tokens\":%lld,\"unread_cause\":\"%s\","
		     "\"lost_tokens\":%lld,\"lost_cause\":\"%s\",\"waste_usd\":",
		  s->unpriced, scan_hit_rate(s), s->unread, scan_cause_name(scan_unread_cause(s)), s->lost,
		  scan_cause_name(scan_lost_cause(s)));
	money(o, s->waste_cost);
	sb_puts(o, ",\"waste_by_cause\":{");
	bool first = true;
	for (int c = 1; c < SC_COUNT; c++) {
		if (!s->unread_by[c] && !s->lost_by[c])
			continue;
		sb_printf(o, "%s\"%s\":{\"unread\":%lld,\"lost\":%lld}", first ? "" : ",", scan_cause_name(c), s->unread_by[c],
			  s->lost_by[c]);
		first = false;
	}
	sb_putc(o, '}');
	if (!total && s->worst_path) {
		sb_puts(o, ",\"worst\":{\"path\":");
		json_str(o, s->worst_path);
		sb_printf(o, ",\"request\":%ld,\"line\":%ld,\"tokens\":%ld,\"kind\":\"%s\",\"cause\":\"%s\"}", s->worst_number,
			  s->worst_line, s->worst_waste, s->worst_unread ? "unread" : "lost", scan_cause_name(s->worst_cause));
	}
	sb_putc(o, '}');
}

static void json_skip(struct strbuf *o, const struct scan_skip *k)
{
	sb_puts(o, "{\"path\":");
	json_str(o, k->path);
	sb_puts(o, ",\"reason\":");
	json_str(o, k->reason);
	sb_printf(o, ",\"whole_file\":%s}", k->whole ? "true" : "false");
}

static void json_head(struct strbuf *o, const struct scan_result *r)
{
	sb_printf(o, "\"files\":%ld,\"files_read\":%ld,\"bytes\":%.0f,\"sessions\":%zu,\"requests\":%ld,\"duplicates\":%ld,"
		     "\"skipped_files\":%zu,\"skipped_lines\":%lld,\"interrupted\":%s",
		  r->files, r->files_read, r->bytes, r->nsessions, r->requests, r->duplicates, r->nskipped, r->skipped_lines,
		  r->interrupted ? "true" : "false");
}

static void write_json(const struct scan_result *r, size_t top, struct strbuf *o)
{
	sb_putc(o, '{');
	json_head(o, r);
	sb_puts(o, ",\"totals\":");
	json_session(o, &r->total, true);
	sb_puts(o, ",\"rows\":[");
	size_t n = top && top < r->nsessions ? top : r->nsessions;
	for (size_t i = 0; i < n; i++) {
		sb_puts(o, i ? ",\n" : "\n");
		json_session(o, &r->sessions[i], false);
	}
	sb_puts(o, "],\"skipped\":[");
	for (size_t i = 0; i < r->nskipped; i++) {
		sb_puts(o, i ? ",\n" : "\n");
		json_skip(o, &r->skipped[i]);
	}
	sb_puts(o, "]}\n");
}

static void write_jsonl(const struct scan_result *r, size_t top, struct strbuf *o)
{
	size_t n = top && top < r->nsessions ? top : r->nsessions;
	for (size_t i = 0; i < n; i++) {
		sb_puts(o, "{\"type\":\"session\",\"row\":");
		json_session(o, &r->sessions[i], false);
		sb_puts(o, "}\n");
	}
	for (size_t i = 0; i < r->nskipped; i++) {
		sb_puts(o, "{\"type\":\"skipped\",\"row\":");
		json_skip(o, &r->skipped[i]);
		sb_puts(o, "}\n");
	}
	sb_puts(o, "{\"type\":\"totals\",");
	json_head(o, r);
	sb_puts(o, ",\"row\":");
	json_session(o, &r->total, true);
	sb_puts(o, "}\n");
}

/* ---- CSV ---- */

#define CSV_SESSION_HEADER                                                                                        \
	"project,session,path,kind,files,first,last,requests,input,cache_read,cache_write,cache_write_1h,output,"  \
	"cost_usd,unpriced_requests,hit_rate,unread_tokens,unread_cause,lost_tokens,lost_cause,waste_usd,"         \
	"worst_path,worst_request,worst_line,worst_tokens,worst_cause"
#define CSV_REQUEST_HEADER                                                                                        \
	"project,session,file,line,request,time,model,message_id,sidechain,input,cache_read,cache_write,"          \
	"cache_write_1h,output,cost_usd,unread_tokens,unread_cause,lost_tokens,lost_cause,other_request,idle_s,"   \
	"waste_usd"

void scan_write_csv_header(bool per_request, struct strbuf *out)
{
	sb_puts(out, per_request ? CSV_REQUEST_HEADER "\n" : CSV_SESSION_HEADER "\n");
}

static void csv_session(struct strbuf *o, const struct scan_session *s)
{
	char a[96], b[96];
	iso(s->first, a);
	iso(s->last, b);
	csv_str(o, s->project);
	sb_putc(o, ',');
	csv_str(o, s->session);
	sb_putc(o, ',');
	csv_str(o, s->path);
	sb_printf(o, ",%s,%ld,%s,%s,%ld,%lld,%lld,%lld,%lld,%lld,", s->kind, s->files, a, b, s->requests, s->in,
		  s->cache_read, s->cache_write, s->cache_write_1h, s->output);
	money(o, s->cost);
	sb_printf(o, ",%ld,%.4f,%lld,%s,%lld,%s,", s->unpriced, scan_hit_rate(s), s->unread,
		  scan_cause_name(scan_unread_cause(s)), s->lost, scan_cause_name(scan_lost_cause(s)));
	money(o, s->waste_cost);
	sb_putc(o, ',');
	csv_str(o, s->worst_path);
	sb_printf(o, ",%ld,%ld,%ld,%s\n", s->worst_number, s->worst_line, s->worst_waste,
		  s->worst_path ? scan_cause_name(s->worst_cause) : "");
}

void scan_write_request(enum scan_format f, const struct scan_session *s, const char *file, const struct scan_req *r,
			struct strbuf *o)
{
	char t[96];
	iso(r->time, t);
	if (f == SCAN_CSV) {
		csv_str(o, s->project);
		sb_putc(o, ',');
		csv_str(o, s->session);
		sb_putc(o, ',');
		csv_str(o, file);
		sb_printf(o, ",%ld,%ld,%s,", r->line, r->number, t);
		csv_str(o, r->model);
		sb_putc(o, ',');
		csv_str(o, r->msg_id);
	} else {
		sb_puts(o, "{\"type\":\"request\",\"project\":");
		json_str(o, s->project);
		sb_puts(o, ",\"session\":");
		json_str(o, s->session);
		sb_puts(o, ",\"file\":");
		json_str(o, file);
		sb_printf(o, ",\"line\":%ld,\"request\":%ld,\"time\":\"%s\",\"model\":", r->line, r->number, t);
		json_str(o, r->model);
		sb_puts(o, ",\"message_id\":");
		json_str(o, r->msg_id);
	}
	const char *q = f == SCAN_CSV ? "" : "\"";
#define FIELD(name) (f == SCAN_CSV ? "," : ",\"" name "\":")
	sb_printf(o, "%s%s%s%ld%s%ld%s%ld%s%ld%s%ld%s", FIELD("sidechain"), r->sidechain ? "true" : "false",
		  FIELD("input"), r->in, FIELD("cache_read"), r->cache_read, FIELD("cache_write"), r->cache_write,
		  FIELD("cache_write_1h"), r->cache_write_1h > 0 ? r->cache_write_1h : 0, FIELD("output"), r->output,
		  FIELD("cost_usd"));
	money(o, r->cost);
	sb_printf(o, "%s%ld%s%s%s%s%s%ld%s%s%s%s%s%ld%s%.0f%s", FIELD("unread_tokens"), r->unread, FIELD("unread_cause"), q,
		  scan_cause_name(r->unread_cause), q, FIELD("lost_tokens"), r->lost, FIELD("lost_cause"), q,
		  scan_cause_name(r->lost_cause), q, FIELD("other_request"), r->other, FIELD("idle_s"), r->gap,
		  FIELD("waste_usd"));
#undef FIELD
	money(o, r->waste_cost);
	sb_puts(o, f == SCAN_CSV ? "\n" : "}\n");
}

/* ---- text ---- */

static void tokens(struct strbuf *o, long long v, int width)
{
	char buf[32];
	if (v < 10000)
		snprintf(buf, sizeof buf, "%lld", v);
	else if (v < 10000000)
		snprintf(buf, sizeof buf, "%.1fk", (double)v / 1e3);
	else if (v < 10000000000LL)
		snprintf(buf, sizeof buf, "%.1fM", (double)v / 1e6);
	else
		snprintf(buf, sizeof buf, "%.1fG", (double)v / 1e9);
	sb_printf(o, "%*s", width, buf);
}

/* At most `cols` columns of s, sanitized, its end kept when from_end (a "…" where cut). */
static size_t fit(struct strbuf *o, const char *s, size_t cols, bool from_end, bool ascii)
{
	struct strbuf clean = STRBUF_INIT;
	utf8_sanitize(&clean, s, strlen(s), ascii ? UTF8_ASCII : 0);
	const char *t = sb_str(&clean);
	size_t have = utf8_columns(t, clean.len), got;
	if (have <= cols) {
		sb_append(o, t, clean.len);
	} else if (from_end) {
		size_t cut = utf8_prefix_for_columns(t, clean.len, have - (cols - 1), &got);
		sb_puts(o, ascii ? "~" : "…");
		sb_append(o, t + cut, clean.len - cut);
		have = cols;
	} else {
		size_t keep = utf8_prefix_for_columns(t, clean.len, cols - 1, &got);
		sb_append(o, t, keep);
		sb_puts(o, ascii ? "~" : "…");
		have = got + 1;
	}
	sb_fini(&clean);
	return have;
}

static void name(struct strbuf *o, const struct scan_session *s, bool ascii)
{
	size_t cols;
	if (!s->session[0]) {
		cols = fit(o, s->project, TEXT_NAME, false, ascii);
	} else {
		cols = fit(o, s->project, TEXT_NAME - TEXT_SESSION - 1, true, ascii);
		sb_putc(o, '/');
		cols += 1 + fit(o, s->session, TEXT_SESSION, false, ascii);
	}
	sb_printf(o, "%*s", (int)(TEXT_NAME > cols ? TEXT_NAME - cols : 0), "");
}

static void text_row(struct strbuf *o, const struct scan_session *s, bool ascii)
{
	name(o, s, ascii);
	sb_printf(o, " %6ld", s->requests);
	tokens(o, s->in, 8);
	tokens(o, s->cache_read, 8);
	tokens(o, s->cache_write, 8);
	tokens(o, s->output, 8);
	sb_printf(o, " %9.2f %4.0f%%", s->cost, 100 * scan_hit_rate(s));
	tokens(o, s->unread, 8);
	tokens(o, s->lost, 8);
	sb_printf(o, " %8.2f\n", s->waste_cost);
}

static void text_why(struct strbuf *o, const struct scan_session *s, bool ascii)
{
	sb_puts(o, "    ");
	if (!s->unread && !s->lost) { /* a line all the same: two lines a session, always */
		sb_puts(o, "no cache waste\n");
		return;
	}
	if (s->unread)
		sb_printf(o, "unread: %s", scan_cause_words(scan_unread_cause(s)));
	if (s->lost)
		sb_printf(o, "%slost reads: %s", s->unread ? (ascii ? "; " : " · ") : "", scan_cause_words(scan_lost_cause(s)));
	if (s->worst_path) {
		const char *b = strrchr(s->worst_path, '/');
		struct strbuf clean = STRBUF_INIT;
		b = b ? b + 1 : s->worst_path;
		utf8_sanitize(&clean, b, strlen(b), ascii ? UTF8_ASCII : 0);
		char w[32];
		sb_printf(o, "%sworst: request %ld (%s line %ld), %s tokens, mostly %s", ascii ? "; " : " · ",
			  s->worst_number, sb_str(&clean), s->worst_line, fmt_thousands(w, s->worst_waste),
			  s->worst_unread ? "unread" : "lost reads");
		sb_fini(&clean);
	}
	sb_putc(o, '\n');
}

static void write_text(const struct scan_result *r, size_t top, bool ascii, struct strbuf *o)
{
	char b[32], c[32], d[32];
	sb_printf(o, "ctxscope scan: %ld files (%ld read, %.1f MB), %zu sessions, %s requests (%s repeats left out)%s\n\n",
		  r->files, r->files_read, r->bytes / 1e6, r->nsessions, fmt_thousands(b, r->requests),
		  fmt_thousands(c, r->duplicates), r->interrupted ? ", INTERRUPTED: what was read so far" : "");
	sb_printf(o, "%-*s %6s%8s%8s%8s%8s %9s %5s%8s%8s %8s\n", TEXT_NAME, "project/session", "reqs", "input", "read",
		  "write", "output", "cost $", "hit", "unread", "lost", "waste $");
	size_t n = top && top < r->nsessions ? top : r->nsessions;
	for (size_t i = 0; i < n; i++) {
		text_row(o, &r->sessions[i], ascii);
		text_why(o, &r->sessions[i], ascii);
	}
	if (n < r->nsessions)
		sb_printf(o, "(%zu more sessions: --top 0 shows all)\n", r->nsessions - n);
	struct scan_session t = r->total;
	t.project = (char *)(uintptr_t)"total";
	t.session = (char *)(uintptr_t)"";
	sb_puts(o, "\n");
	text_row(o, &t, ascii);
	text_why(o, &t, ascii);
	if (r->total.unpriced)
		sb_printf(o, "(%s requests of models without a price in the table are not in the cost)\n",
			  fmt_thousands(d, r->total.unpriced));
	if (r->nskipped) {
		size_t shown = r->nskipped < TEXT_SKIPS ? r->nskipped : TEXT_SKIPS;
		sb_printf(o, "\nskipped or read in part: %zu file%s, %lld malformed line%s\n", r->nskipped,
			  r->nskipped == 1 ? "" : "s", r->skipped_lines, r->skipped_lines == 1 ? "" : "s");
		for (size_t k = 0, i = 0, listed = 0; k < 2 * r->nskipped && listed < shown; k++) {
			i = k % r->nskipped;
			if (r->skipped[i].whole != (k < r->nskipped))
				continue; /* files not read at all first, then those read in part */
			listed++;
			struct strbuf clean = STRBUF_INIT;
			utf8_sanitize(&clean, r->skipped[i].path, strlen(r->skipped[i].path), ascii ? UTF8_ASCII : 0);
			sb_puts(&clean, ": ");
			utf8_sanitize(&clean, r->skipped[i].reason, strlen(r->skipped[i].reason), ascii ? UTF8_ASCII : 0);
			sb_printf(o, "  %s\n", sb_str(&clean));
			sb_fini(&clean);
		}
		if (shown < r->nskipped)
			sb_printf(o, "  (%zu more: --format json lists them all)\n", r->nskipped - shown);
	}
}

void scan_write(const struct scan_result *r, enum scan_format f, size_t top, bool ascii, struct strbuf *out)
{
	switch (f) {
	case SCAN_TEXT: write_text(r, top, ascii, out); break;
	case SCAN_JSON: write_json(r, top, out); break;
	case SCAN_JSONL: write_jsonl(r, top, out); break;
	case SCAN_CSV:
		scan_write_csv_header(false, out);
		for (size_t i = 0; i < (top && top < r->nsessions ? top : r->nsessions); i++)
			csv_session(out, &r->sessions[i]);
		break;
	}
}

/* lines.h: the fields of a Claude Code session line the scan needs, read
 * from its bytes without a tree (lines.c). Strings are raw: the bytes
 * between the quotes, escapes left as written (ids and models have none). */
#ifndef CTXSCOPE_SCAN_LINES_H
#define CTXSCOPE_SCAN_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct span {
	const char *s;
	size_t n;
	bool esc; /* holds an escape */
	bool set; /* the member was there, a string */
};

struct line_fields {
	struct span type, uuid, parent, logical_parent, timestamp, session_id, request_id, version, subtype;
	struct span msg_id, model, att_type;
	bool sidechain;
	bool has_usage;        /* message.usage is an object */
	bool usage_ok;         /* every count in it a whole non-negative number */
	bool has_in, has_out, has_1h;
	bool fast;             /* usage.speed is "fast" */
	long long in, out, cr, cw, cw1h;
	long long web_searches; /* usage.server_tool_use.web_search_requests */
};

/* Reads line s[0..n) into *lf. false: not JSON, *err_at the byte where it
 * went wrong and *why in words (static). */
bool scan_line_fields(const char *s, size_t n, struct line_fields *lf, size_t *err_at, const char **why);

#endif

/* scan.h: `ctxscope scan PATH...`: every Claude Code session (and request
 * log) under the folders given, one row per session, with its recorded
 * usage, its cost at the models' prices, its hit rate, and the cache waste:
 * tokens written to the cache and never read before they expired, and
 * reads lost to breaks, each with its main cause and the request where it
 * happened.
 *
 * How it reads (run.c): the folders are walked (walk.c; symlink loops and
 * special files skipped), the files ordered by their first timestamp, then
 * read on every core (pthreads) without building a tree: each line's few
 * fields straight from its bytes (session.c), a session's requests held
 * only while its file is read. Results are taken in file order (first
 * timestamp, then modification time), so a request repeated by a resumed
 * session (same message.id + requestId) counts once whatever thread
 * finished first, under the session its line's sessionId names (else the
 * earliest file's): the totals equal ccusage's on the same folder. Subagent
 * files (agent-*.jsonl, also <session>/subagents/...) count under their
 * session. A request log or capture (the request kinds) is loaded whole
 * through its kind and its sequence's causes taken (log.c).
 *
 * The waste model, in recorded units (ctxscope-formats(5) section 7b, caching.md 1): each
 * request's writes are one cache entry covering [cache read, cache read +
 * cache write) of its prompt, living the TTL its record gives (1 hour when
 * most of its write is ephemeral_1h, else 5 minutes), refreshed by every
 * read that reaches into it. Entries are per model. An entry that expires
 * (or is still unread when the session's last request has long passed)
 * with tokens no read reached is "unread" waste, charged to the request
 * that wrote it. A request that reads less than the live entries of its
 * model held (up to its own prompt's size) "lost" the difference to a
 * break. Causes: see enum scan_cause.
 *
 * Nothing here prints or exits: the writers fill a strbuf or call back. */
#ifndef CTXSCOPE_SCAN_H
#define CTXSCOPE_SCAN_H

#include "base/error.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/* The cause of a loss. X(code, name in json/csv, words) */
#define SCAN_CAUSES(X)                                                                        \
	X(SC_NONE, "", "")                                                                    \
	X(SC_TTL, "ttl-expired", "TTL expired")                                               \
	X(SC_VOLATILE, "volatile-system", "volatile value in the system prompt (the date)")   \
	X(SC_EDIT, "edited-message", "edited earlier message")                                \
	X(SC_TOOLS, "tool-change", "tool definition change")                                  \
	X(SC_COMPACT, "compaction", "compaction")                                             \
	X(SC_MODEL, "model-switch", "model switch")                                           \
	X(SC_SYSTEM, "system-changed", "system prompt or tools changed (not in the file)")    \
	X(SC_END, "never-reused", "never read again (no later request in its lifetime)")

enum scan_cause {
#define SC_X_ENUM(e, name, words) e,
	SCAN_CAUSES(SC_X_ENUM)
#undef SC_X_ENUM
	SC_COUNT
};
const char *scan_cause_name(int cause);  /* "ttl-expired"; "" for SC_NONE */
const char *scan_cause_words(int cause); /* "TTL expired" */

/* One request as the per-request rows give it (and as a session keeps it
 * while its file is read). Strings borrowed from the file's result. */
struct scan_req {
	uint64_t key[2];      /* message.id:requestId hashed; has_key false: none (never deduplicated) */
	bool has_key;
	bool counted;         /* valid usage (ccusage's rule): in the totals */
	bool analysed;        /* an assistant line of the cache sequence */
	bool sidechain;
	bool fast;            /* usage.speed "fast": priced at the model's fast rate */
	bool batch;           /* a batch's request: half price */
	double time;          /* epoch seconds */
	long line;            /* 1-based line of its (kept) usage */
	long number;          /* 1-based, as the inspector numbers a session's requests (0: not one) */
	const char *model;    /* "" unknown */
	const char *msg_id;   /* "" none */
	const char *session_id; /* the line's sessionId when it names another session than its file (a copy); NULL */
	long in, cache_read, cache_write, cache_write_1h, output;
	long web_searches;    /* usage.server_tool_use.web_search_requests */
	long unread;          /* its writes that nothing read before they expired */
	long lost;            /* reads it lost to a break */
	int unread_cause, lost_cause; /* enum scan_cause */
	long other;           /* the request (number) that broke its entry, or that it was compared with; 0 none */
	double gap;           /* seconds idle before it (TTL causes) */
	double cost;          /* USD at the model's prices; < 0 unpriced */
	double waste_cost;    /* USD of its waste (see scan_prices) */
	/* for the analysis: its first and last line in the chain (scan_links; -1
	 * none), compaction boundaries and tool deltas seen before it, its
	 * Claude Code version (hash) */
	int32_t link, last_link;
	uint32_t boundaries, tool_deltas;
	uint64_t version;
	int told_cause;       /* a log's: the cause its sequence told for a break (kinds/request/sequence.c) */
};

/* The prices of a model (USD per million tokens; < 0 unknown) and the
 * multipliers, from the model table (kinds/request/facts.c). */
struct scan_price {
	double input, output, read_x, write5_x, write1h_x;
	bool output_derived; /* the table has no output price: 5 x input (every current Claude model's ratio) */
};
bool scan_prices(const char *model, struct scan_price *p);
/* A request's cost and its waste's cost: unread writes cost the premium
 * paid over sending them uncached (write multiplier - 1); lost reads cost
 * writing again what could have been read (write multiplier - read multiplier). */
void scan_price_request(struct scan_req *r);

/* A file passed over, or read with lines skipped. */
struct scan_skip {
	char *path;           /* owned */
	char *reason;         /* owned: "unreadable: Permission denied", "line 7 column 1: not JSON (12 lines)" */
	bool whole;           /* the file was not read at all */
};

/* One session (or log) row. */
struct scan_session {
	char *project;        /* owned: the folder under projects/ (a log: its folder) */
	char *session;        /* owned: the session id (file name without .jsonl) */
	char *path;           /* owned: its main file (the first read when none) */
	bool path_main;       /* path is the session's own file */
	size_t counted_from;  /* the scan's: the last file (index + 1) counted in files */
	const char *kind;     /* "claude-code", "log" */
	long files;
	double first, last;   /* epoch seconds of its first and last request */
	long requests;
	long long in, cache_read, cache_write, cache_write_1h, output;
	double cost;          /* USD; unpriced requests leave it short, said by unpriced */
	long unpriced;
	long long unread, lost;
	long long unread_by[SC_COUNT], lost_by[SC_COUNT];
	double waste_cost;
	/* the worst request: its file, number (as the inspector counts), line, waste and cause */
	char *worst_path;     /* owned; NULL none */
	long worst_number, worst_line, worst_waste;
	int worst_cause;
	bool worst_unread;    /* its waste is unread writes (else lost reads) */
};
int scan_unread_cause(const struct scan_session *s); /* the cause with the most unread tokens */
int scan_lost_cause(const struct scan_session *s);
double scan_hit_rate(const struct scan_session *s);   /* cache read / (input + read + write); 0 none */

enum scan_sort { SORT_WASTE, SORT_COST, SORT_REQUESTS, SORT_HIT, SORT_TIME, SORT_TOKENS, SORT_NAME };
enum scan_format { SCAN_TEXT, SCAN_JSON, SCAN_JSONL, SCAN_CSV };

struct scan_options {
	const char *const *paths;
	size_t npaths;
	int threads;          /* 0: the online cores (at most 2 on these machines is what they have) */
	double since;         /* epoch seconds; requests before are left out; < 0 none */
	const char *project;  /* substring of the project; NULL all */
	double now;           /* epoch seconds: entries whose TTL has not run out by now are not waste */
	/* per request, called in file order from one thread at a time with
	 * each request counted (duplicates and filtered ones left out); NULL: none */
	void (*on_request)(void *ctx, const struct scan_session *s, const char *file, const struct scan_req *r);
	void *ctx;
	/* progress: called at most ten times a second and once at the end (finished) */
	void (*on_progress)(void *ctx, size_t files_done, size_t files, double bytes_done, double bytes, bool finished);
	volatile sig_atomic_t *stop; /* set (by a signal handler): stop after the files being read; NULL none */
};

struct scan_result {
	struct scan_session *sessions; /* owned */
	size_t nsessions;
	struct scan_skip *skipped;     /* owned */
	size_t nskipped;
	long files, files_read;
	long long skipped_lines;
	double bytes;
	long requests, duplicates;     /* counted, and left out as repeats */
	bool interrupted;              /* stopped early: what was read so far */
	struct scan_session total;     /* the sum (project/session NULL) */
};

/* Walks, reads and adds up. CS_OK (skipped files are in the result, never
 * an error), CS_ENOMEM, or CS_EUSAGE (no path readable at all). */
int scan_run(const struct scan_options *o, struct scan_result *out, struct cs_error *err);
void scan_result_fini(struct scan_result *r);
/* Sorts the sessions (largest first; SORT_NAME by project then session). */
void scan_sort(struct scan_result *r, enum scan_sort by);

/* ---- output (output.c) ---- */
/* The table (text, json, jsonl or csv), top rows only (0: all). ascii: no UTF-8 glyphs. */
void scan_write(const struct scan_result *r, enum scan_format f, size_t top, bool ascii, struct strbuf *out);
/* One per-request row (jsonl or csv); header: the csv header line. */
void scan_write_request(enum scan_format f, const struct scan_session *s, const char *file, const struct scan_req *r,
			struct strbuf *out);
void scan_write_csv_header(bool per_request, struct strbuf *out);

/* ---- the command (command.c) ---- */
struct scan_cli {
	const char *paths[256];
	size_t npaths;
	enum scan_sort sort;
	size_t top;
	double since;
	const char *project;
	enum scan_format format;
	bool format_given;
	bool per_request;
	bool ascii;
	int threads;
	bool help;
};
/* Parses `scan ARGS` (argv[0] is "scan"). CS_EUSAGE with a sentence. */
int scan_cli_parse(int argc, char **argv, struct scan_cli *out, struct cs_error *err);
/* The scan --help text, with the per-request schema. */
void scan_usage(struct strbuf *out);

#endif

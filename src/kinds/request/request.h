/* request.h: provider request bodies as sent on the wire (ctxscope-formats(5) section
 * 6): Anthropic Messages bodies (kind `anthropic`), OpenAI Chat Completions
 * and Responses bodies (kind `openai`), and request logs (.jsonl, one body
 * or one captured {request, response} exchange a line).
 *
 * Every request is flattened into units in render order (tools, then
 * system, then messages): a tool definition, a system block, one content
 * block of a message. A unit has a JSON path as its id
 * ("messages[3].content[1]"), a layer (tools, system, history, current),
 * its text and estimated tokens, a hash of its JSON without cache_control
 * (what a prefix cache compares) and its cache breakpoint. The units of the
 * current request (a body's only one, a log's last) are the source's
 * pieces; the units of every request feed the sequence analysis
 * (sequence.c): predicted reads, writes and uncached tokens per request,
 * the first difference from the request before and its cause, beside the
 * usage the log recorded. */
#ifndef CTXSCOPE_REQUEST_H
#define CTXSCOPE_REQUEST_H

#include "base/arena.h"
#include "json/doc.h"
#include "kind.h"
#include "kinds/request/shape_list.h"
#include "setting.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct assembly;
struct cache_overrides;
struct emitter;
struct strbuf;

extern const struct kind_ops anthropic_kind;
extern const struct kind_ops openai_kind;

#define REQUEST_MAX_LINES 1000000 /* requests in a log; more is refused */

enum req_provider { REQ_ANTHROPIC, REQ_OPENAI_CHAT, REQ_OPENAI_RESPONSES, REQ_NPROVIDERS };

/* What sets one provider's wire format apart, beside its body reader
 * (parse.c) and its cache facts (facts.c): providers.c, one entry each. */
struct request_provider {
	const char *api;        /* the format, for people: "Anthropic Messages" */
	const char *endpoint;   /* the path its requests are posted to: "/messages" */
	const char *profile;    /* its cache profile (cache/profile.h): "anthropic" */
	const char *models;     /* the model names its facts know, for messages: "claude-" */
	bool breakpoints;       /* a cache of explicit breakpoints (else an automatic prefix) */
	const char *cache_mode; /* the cache's way, for the report */
	const char *image_rule; /* how an image's tokens are counted, for the report */
};
extern const struct request_provider request_providers[REQ_NPROVIDERS]; /* by enum req_provider */

enum req_layer { RL_TOOLS, RL_SYSTEM, RL_HISTORY, RL_CURRENT, RL_COUNT };

struct req_unit {
	const char *path;     /* "messages[3].content[1]"; arena */
	const char *type;     /* "tool", "text", "image", "tool_use"...; arena or literal */
	const char *role;     /* "tools", "system", "user", "assistant", "tool"... */
	const char *text;     /* what it renders to; arena */
	size_t text_len;
	uint64_t hash;        /* FNV-1a of its JSON without cache_control */
	long tokens;          /* estimate; images: the provider's formula */
	int layer;            /* enum req_layer */
	int message;          /* message index in its request; -1 for tools and system */
	int ttl;              /* its cache_control's TTL in seconds; 0: no breakpoint */
	bool image;           /* an image block (tokens from its size) */
	bool global;          /* a breakpoint with cache_control.scope "global" (shared across sessions) */
	long nested_images;   /* tokens of the images inside it (a tool result's), by their rule; in tokens too */
	bool uncounted;       /* an image whose size is unknown: tokens 0, said so */
	bool unknown;         /* a block type this reader does not know (kept, warned) */
	bool run;             /* continues a run of tool_use or tool_result (one lookback position) */
	const cJSON *node;    /* the block in the current request's document; NULL for earlier ones */
};

struct req_lint {
	const char *code;     /* "over-limit", "under-minimum", "ttl-order", "volatile", "tool-order" */
	long unit;            /* the unit it concerns (index into units), -1 for none */
	const char *sentence; /* arena */
	bool error;           /* the API refuses the request */
};

struct req_request {
	size_t first_unit, nunits;
	const char *model;    /* arena; "" when absent */
	long line;            /* in the log; 0 for a single body */
	double time;          /* epoch seconds from the line's timestamp; < 0 unknown */
	int auto_ttl;         /* top-level cache_control (automatic caching): its TTL; 0 none */
	const char *retention; /* OpenAI prompt_cache_retention; NULL absent */
	bool recorded;        /* the response's usage is there */
	long rec_read, rec_write, rec_uncached;
	/* Of rec_write, what the record says about lifetimes: tokens written as
	 * 1-hour entries (usage.cache_creation.ephemeral_1h_input_tokens); -1
	 * when the record has no split (then the profile's default TTL, said to be
	 * assumed). rec_output: the response's output tokens, -1 unknown. Filled
	 * by whichever reader knows them (logs, captures, Claude Code sessions);
	 * the sequence reads rec_write_1h for how long a request's writes live. */
	long rec_write_1h;
	long rec_output;
	/* What changes the price of the record (ctxscope-formats(5) section 7b,
	 * caching.md section 1): usage.speed "fast", else the body's speed (fast
	 * mode: a multiplier on every rate of the model; the system prompt and
	 * messages are cached apart from standard speed's), the web searches it ran
	 * (usage.server_tool_use.web_search_requests, 0 none), and whether it
	 * went through a batch (half price, cache multipliers stacking on it). */
	bool rec_fast;
	bool batch;
	long rec_web_searches;
	/* The body's settings that change what the cache holds without being
	 * blocks (request_cache_settings): "tool_choice={...}, thinking={...}"
	 * (arena, NULL none), and their hash, mixed into the keys from the
	 * first block they change (the messages for Anthropic, all for OpenAI). */
	const char *settings;
	uint64_t settings_hash;
	/* The provider's own diagnosis of this request's cache (ctxscope-formats(5) section 6b:
	 * diagnostics.cache_miss_reason): its type ("system_changed"...), "none"
	 * for a recorded null, NULL when the record has none; and its
	 * cache_missed_input_tokens (-1 unknown). */
	const char *rec_miss;
	long rec_missed;
	/* Which request the provider compared this one with: the response id the
	 * record gives (its `id`, "msg_..." or "resp_..."; arena, NULL unknown),
	 * the earlier response the body names for the diagnosis
	 * (diagnostics.previous_message_id, prompt_cache_options.
	 * comparison_response_id; arena, NULL none), and, when it names one, that
	 * request's index in the log (request_resolve_compared), -1 not in it.
	 * A diagnosis against another request than `compared` is not counted as
	 * agreeing or not. */
	const char *response_id;
	const char *asked_compare;
	long provider_compared;
	long stripped_thinking; /* thinking blocks of earlier turns not sent: the model strips them */
	int provider;         /* enum req_provider: how its body is written */
	uint64_t account;     /* the API key or workspace the log says it was sent with (a hash); 0 unknown */
	int group;            /* its cache group (request_model.groups): same model, same account */
	long total;           /* predicted prompt tokens */
	long pred_read, pred_write, pred_uncached;
	long compared;        /* the earlier request compared with: the one whose entry it read, else its
			       * group's request before it; -1 none (the first of its group) */
	long diff_unit;       /* first differing unit of this request (index), -1 none */
	const char *diff_path; /* where, in this request's terms; arena */
	const char *diff_now;  /* the differing text, both sides (snippets); arena */
	const char *diff_before;
	const char *cause;     /* in words; arena; NULL when nothing broke */
	bool broke;            /* this request read less than the one compared could have given it */
	long auto_unit;        /* where automatic caching puts its breakpoint (unit index), -1 none */
	long nbreakpoints;     /* explicit and automatic */
	long cached_extent;    /* tokens of the longest prefix it leaves in the cache */
	/* A read of a cache shared across sessions (ctxscope-formats(5) section 7b: a
	 * breakpoint with cache_control.scope "global", as Claude Code marks its
	 * system prompt): where the log shows nothing earlier to read and the
	 * record says it read, global_read is that recorded read (taken as
	 * predicted, up to what the request caches), global_path the last such
	 * breakpoint and global_extent the tokens up to it; 0 and NULL none. */
	long global_read, global_extent;
	const char *global_path;
	size_t offset, length; /* its line's bytes in the log (to read its body again) */
	long loaded_read, loaded_write, loaded_uncached; /* the prediction as loaded, before any edit */
};

/* A unit as the sequence's predictions read it: its hash, its tokens, its
 * piece (REQUEST_CORE_NONE: none), whether it carries cache_control (and
 * for how long) and whether it continues a run (req_unit.run). */
struct req_core {
	uint64_t hash;
	int32_t tokens;
	uint32_t piece_bp; /* the piece, REQUEST_CORE_BP, _1H, _TTL and _RUN */
};
#define REQUEST_CORE_BP 0x80000000u  /* cache_control: 5 minutes, but for _1H or _TTL */
#define REQUEST_CORE_RUN 0x40000000u
#define REQUEST_CORE_1H 0x20000000u  /* its cache_control lives an hour */
#define REQUEST_CORE_TTL 0x10000000u /* another lifetime: req_unit.ttl says */
#define REQUEST_CORE_NONE 0x0fffffffu

#define REQUEST_DIFF_AT 3

/* A request's first difference as last told (sequence.c): the units
 * compared and the texts told, which depend on those two units only. */
struct req_diff_memo {
	size_t u, v;          /* the units compared; u == REQUEST_NO_UNIT: the request's ran out */
	const char *path, *now, *before, *cause; /* as told; cause NULL: nothing kept */
	bool tool_order;      /* the tools differ only in order (the tool-order lint) */
	bool model_as_prev;   /* its model is named as the request before's (in the log) */
	long same_with;       /* the request compared with last, + 1 (0: none yet) */
	/* Against it: the units both begin with block for block (the same
	 * pieces, so an edit leaves out both or neither), and where among them
	 * the two differ (at most REQUEST_DIFF_AT; the run ends at the next). */
	uint32_t same, ndiff_at;
	uint32_t diff_at[REQUEST_DIFF_AT];
	/* Its packed units against the request before it in the log: how many
	 * it begins with that are the same but at `unlike` (hash, tokens, piece
	 * and breakpoint alike); like_known: found. A prediction reads only the
	 * others from memory, the rest from its copy of the request before. */
	bool like_known;
	uint32_t like, nunlike;
	uint32_t unlike[REQUEST_DIFF_AT];
};

/* Per-model cache facts (caching.md), with where they come from. */
struct req_model_facts {
	const char *match;      /* the model names it covers (a normalized prefix) */
	long min_prefix;        /* tokens */
	double read;            /* x base input */
	double write_5m, write_1h;
	double price_per_mtok;  /* base input, USD; < 0 unknown */
	const char *source;
	const char *as_of;
	/* OpenAI: the reported read is a multiple of it: 0 the 2024 rule's 128
	 * tokens, 2,048 where entries sit on a 2,048-token grid (GPT-5.5), 1 an
	 * exact boundary (GPT-5.6 and later, which also charge their writes). */
	long step;
};

/* A cache group: the requests of one model (and account). */
struct req_group {
	const char *model;    /* as priced (request_model_name) */
	uint64_t account;
	size_t count;         /* its requests */
	long first;           /* its first request */
	char mark;            /* its mark in the timeline: 'A', 'B'... */
};

struct request_model {
	int provider;               /* enum req_provider of the current request */
	bool is_log;
	const struct req_shape *shape; /* the log's shape (shapes.c), NULL: bodies or exchanges */
	bool document;              /* one JSON document holding its records (a HAR, a batch's create body):
				     * a request's offset is its element's index */
	const char *results_from;   /* the file its results were joined from (batches); arena; NULL none */
	struct req_unit *units;     /* every request's, in order (cs_malloc'd) */
	size_t nunits, cap_units;
	struct req_request *reqs;   /* in log order (cs_malloc'd) */
	size_t nreqs, cap_reqs;
	size_t current;             /* the request whose units are pieces */
	struct json_doc doc;        /* the current request's document */
	const cJSON *body;          /* the current request's body inside doc */
	struct req_lint *lints;     /* of the current request, then the sequence's (cs_malloc'd) */
	size_t nlints, cap_lints;
	size_t nbreakpoints;        /* of the current request, automatic included */
	struct req_model_facts *user_facts; /* from the user's cache.yml, by model name (cs_malloc'd) */
	size_t nuser_facts;
	const char *facts_note;     /* the user file: read, absent or why it was ignored; arena */
	/* steps.c: every unit's piece (REQUEST_NO_PIECE: none), so an edit to a
	 * piece reaches that block in every request (cs_malloc'd). */
	uint32_t *unit_piece;
	size_t *piece_unit;         /* per piece: its unit in the current request, or REQUEST_NO_UNIT */
	size_t npiece_unit;
	size_t doc_request;         /* the request whose document doc holds */
	long want_request;          /* the `request` setting: 1-based; -1 the last (on a session's main chain) */
	/* Shows the request `want` (1-based, in range; -1 the default one):
	 * request_select for logs, the claude-code kind's own for sessions. */
	int (*select)(struct source *src, long want, struct cs_error *err);
	/* What-if beyond exclusions: the `model` setting (every request priced
	 * and cached as this model; NULL: each its own), and the inspector's
	 * breakpoints (M) per piece: +1 one after it, -1 none, 0 as sent
	 * (cs_malloc'd, npieces; NULL: none moved). */
	const char *model_override;
	int8_t *bp_override;
	size_t bp_moved;            /* its nonzero entries */
	uint64_t predicted_for;     /* the what-if the predictions were made for (request_whatif_sig) */
	/* sequence.c: what predicting reads of each unit, packed (16 bytes
	 * where a unit is 90: every edit walks them all); made at the first
	 * prediction; whatever changes units or unit_piece after one sets
	 * ncore to 0 (cs_malloc'd, ncore == nunits). */
	struct req_core *core;
	size_t ncore;
	/* sequence.c: each request's first difference as last told, kept across
	 * predictions (an edit mostly leaves the same two blocks compared) with
	 * its text in diff_arena; emptied whenever core is made again
	 * (cs_malloc'd, ndiff_memo == nreqs). */
	struct req_diff_memo *diff_memo;
	size_t ndiff_memo;
	struct arena diff_arena;
	/* The text a prediction writes (causes, snippets, lint sentences):
	 * freed by the next one, so a thousand what-ifs do not pile up. */
	struct arena pred_arena;
	size_t nseq_lints;          /* lints of the sequence, before the current request's */
	/* The cache groups of the last prediction, in order of first request:
	 * a cache is per model (and account), so a request reads only what its
	 * own group wrote (cs_malloc'd). */
	struct req_group *groups;
	size_t ngroups;
	bool edited;                /* the predictions follow edits: the loaded ones differ */
	/* counted.c: every request counted whole, at the first ask (a report,
	 * the timeline) and kept: what was sent does not change with edits.
	 * Made with the model (request_counted_memo_new), freed with it. */
	struct req_counted_memo *counted_memo;
	bool transcript_only;       /* a Claude Code session: requests known by their blocks, no body to read again */
};

#define REQUEST_NO_PIECE UINT32_MAX
#define REQUEST_NO_UNIT ((size_t)-1)

/* ---- parse.c: one body into units ---------------------------------------- */

/* Appends the units of `body` (an object) as request r of m; strings into
 * the source's arena. keep_nodes: remember each block's node (the current
 * request). Unknown block types are kept and warned about (line > 0 names
 * the log line). Positioned errors for wrong types. */
int request_parse_body(struct source *src, struct request_model *m, const struct json_doc *d, const cJSON *body,
		       const struct jpath *at, int provider, long line, bool keep_nodes, struct cs_error *err);
/* The body inside a log line: the object itself, or an exchange's request
 * (or its body); *response gets the exchange's response (NULL none). */
const cJSON *request_unwrap(const cJSON *obj, const cJSON **response);
/* The provider a body looks like (ctxscope-formats(5) section 6's detection), or -1
 * with the deciding keys named in *why. */
int request_provider_of(const cJSON *body, const char **why);
/* The JSON of v into out: compact, or indented by `indent` spaces a level
 * (0: compact). skip (may be NULL) is left out with every node under it. */
void request_json(struct strbuf *out, const cJSON *v, int indent, int depth, bool (*skip)(const cJSON *, void *),
		  void *ctx);
uint64_t request_hash(const char *s, size_t n, uint64_t h);
/* A hash of a JSON value as a tree, without printing it (each value tagged by
 * its type, each member by its key, so {"a":"bc"} and {"ab":"c"} differ);
 * skip_cache_control leaves those members out: what a prompt cache compares.
 * Depth is bounded by the parser. */
uint64_t request_hash_json(const cJSON *v, uint64_t h, bool skip_cache_control);
#define REQUEST_HASH_SEED 1469598103934665603ULL
/* An image (ctxscope-formats(5) section 7b: counted as an image, never as
 * its base64 text): an Anthropic `image` block (source.data) or an OpenAI
 * `image_url`/`input_image` part (a data URL). Its place in a text goes into
 * out ("[image image/png 2000x1008]", "[image by URL, size unknown]"); its
 * tokens by `rule` (enum image_rule; an OpenAI part's detail "low" read
 * from the part) are returned: 0 when its size cannot be read, except at
 * detail "low" (85 whatever the size). *sized (may be NULL): size read. */
long request_image(struct strbuf *out, const cJSON *b, int rule, bool *sized);
/* What a tool result's content holds beyond its text: its images. */
struct req_nested {
	long tokens, images;
};
/* A base64 PDF document block (Anthropic): its placeholder text into out
 * ("[document application/pdf, 3 pages, estimated]"), and its tokens
 * estimated as REQUEST_PDF_PAGE_TOKENS a page (a page is sent as its text
 * and an image of it), the pages counted from the PDF's page objects
 * (else one a 50 KB, at least one); -1 when b is not one (a text document,
 * a URL: rendered as they stand). */
long request_document(struct strbuf *out, const cJSON *b);
/* The same, 0 when b is not a base64 PDF. */
long request_pdf_tokens(struct strbuf *out, const cJSON *b);
#define REQUEST_PDF_PAGE_TOKENS 2300
/* A tool result's content as text (an Anthropic tool_result's content, an
 * OpenAI Responses function_call_output's output): a string, or its blocks
 * joined by newlines: text as it is, an image by request_image (its tokens
 * and count added to *x), a tool_reference by the tool it names, any other
 * block as its JSON. */
void request_result_text(struct strbuf *out, const cJSON *content, int rule, struct req_nested *x);

/* ---- shapes.c: how a log holds its requests (ctxscope-formats(5) section 6b) --------------- */

/* One record of a log (a line, or an element of a document's array) as a
 * shape reads it: the request it holds, or why it holds none, and where its
 * response's usage is. Pointers into the record's document. */
struct req_record {
	const cJSON *body;       /* the request body (an object); NULL: body_text or none */
	const char *body_text;   /* or the body as JSON text (HAR's postData.text); NULL none */
	int provider;            /* how the body is written, when the record says (a URL): enum req_provider; -1 */
	const cJSON *response;   /* the response body holding `usage` (an object), NULL none */
	const char *response_text; /* or the response as text: JSON or server-sent events; NULL none */
	const char *response_where; /* for warnings: "response.body_raw" */
	double time;             /* epoch seconds, < 0 unknown */
	const char *id;          /* custom_id (batches), NULL none */
	const char *account;     /* the API key, its hash or a workspace, to tell caches apart; NULL none */
	const char *skip;        /* no request: why, in words ("a request to /v1/messages/count_tokens"); arena */
	bool is_result;          /* a results record (batch output), joined to its request by id */
	const cJSON *result;     /* its response body (with usage), NULL none */
};

/* A shape: a line (or a document) of one tool's log. */
struct req_shape {
	const char *name;    /* the --kind value: "capture" */
	const char *title;   /* for people: "HTTP capture" */
	/* Whether a record (a line's object, or a document's root for
	 * documents) is of this shape. */
	bool (*is)(const cJSON *obj);
	/* The records of a document (HAR, a batch's create body), or NULL for a
	 * line-a-record shape: its array. */
	const cJSON *(*records)(const cJSON *root, const char **where);
	/* Reads one record. CS_OK, or CS_ENOMEM (strings into src's arena). */
	int (*take)(struct source *src, const cJSON *rec, struct req_record *out);
	/* A results-only shape (batch output): what it lacks, for the error. */
	const char *lacks;
};

#define REQUEST_SHAPE_DECL(id) extern const struct req_shape request_shape_##id;
REQUEST_SHAPES(REQUEST_SHAPE_DECL)
extern const struct req_shape *const request_shapes[]; /* shape_list.h's order, NULL ended */

/* What every request kind's table holds but its name, title and detection:
 * one reader and one assembler for every provider and shape. */
#define REQUEST_KIND_COMMON \
	.id_key = "path", .sort_keys = request_sort_keys, .settings = request_settings, \
	.sequence = &request_sequence, .edited = request_edited, .edit_effect = request_whatif_sentence, \
	.breakpoints_edited = request_breakpoints_edited, .cache_profile = request_kind_profile, \
	.cache_tune = request_kind_tune, .load = request_load, .assemble = request_assemble, \
	.free_model = request_model_free, .report_extra = request_report_extra, .timeline = request_timeline_text, \
	.report_piece = request_report_piece, .piece_note = request_piece_note, .dump = request_dump
extern const char *const request_sort_keys[];
/* The cache profile a request kind starts with: its provider's. */
const char *request_kind_profile(const struct source *src);
const char *request_kind_tune(const struct source *src, struct cache_profile *p);
/* Whether the text is of shape sh: its first record, or its document
 * (CS_OK, or CS_ENOMEM). */
int request_shape_detect(const struct req_shape *sh, const char *path, const char *data, size_t len, bool *yes);

/* A log shape, declared in its own file: its struct req_shape
 * (request_shape_ID, with the members that follow: .is, .take...) and its
 * kind (ID_kind: --kind NAME reads every record as this shape). With its
 * line in shape_list.h, that is all a new shape needs. */
#define REQUEST_SHAPE(id, name_, title_, ...) \
	const struct req_shape request_shape_##id = { .name = name_, .title = title_, __VA_ARGS__ }; \
	static int id##_detect(const char *path, const char *data, size_t len, bool *yes) \
	{ \
		return request_shape_detect(&request_shape_##id, path, data, len, yes); \
	} \
	const struct kind_ops id##_kind = { .name = name_, .title = title_, REQUEST_KIND_COMMON, .detect = id##_detect }
/* The shape of a record, or NULL (a bare body, or something else). */
const struct req_shape *request_shape_of(const cJSON *obj);
const struct req_shape *request_shape_named(const char *name);
/* Request endpoints: the provider a URL's path posts to, or -1 (another endpoint). */
int request_endpoint_provider(const char *url);
/* A time: epoch seconds (a number, or its text) or an ISO time (with "T" or
 * a space); < 0 when it is neither. */
double request_time_of(const cJSON *v);

/* ---- usage.c: what the response recorded ----------------------------------- */

/* The usage object of a response body into r's recorded figures (Anthropic,
 * OpenAI Chat and Responses, LiteLLM's), with the provider's cache
 * diagnostics; a value that is not a whole number from 0 is a warning at its
 * line and column (the figure stays unknown). d: the document holding it;
 * line: the log line (0: a document's own lines). CS_OK or CS_ENOMEM. */
int request_read_usage(struct source *src, struct req_request *r, const struct json_doc *d, const cJSON *response,
		  const char *where, long line);
/* Each request naming the response its diagnosis compares with
 * (asked_compare): that response's request, by the ids the log recorded
 * (provider_compared; -1 when none before it has that id). CS_OK or
 * CS_ENOMEM. */
int request_resolve_compared(struct request_model *m);
/* When r's diagnosis compared with another request than ctxscope did, or
 * with one the log does not hold, that in words (" (compared with request
 * 1, ctxscope with request 2)"); else nothing. */
void request_diagnosis_against(const struct req_request *r, struct strbuf *out);
/* The same from a response's text: JSON, or server-sent events (Anthropic's
 * message_start and last message_delta; OpenAI's last chunk with usage, or
 * response.completed). */
int request_read_usage_text(struct source *src, struct req_request *r, const char *text, size_t len, const char *where,
		       long line);

/* ---- recorded.c: the recorded figures first, the prediction beside -------- */

#define REQUEST_OFF_PERCENT 10 /* a prediction further than this from the record is flagged */

/* What a request's record says, with the prediction beside it. */
struct req_figures {
	bool recorded;
	long total;            /* recorded prompt tokens: read + written + uncached */
	long hit_percent;      /* recorded read of total */
	long written_1h;       /* of written: 1-hour entries; -1 not said (taken as 5-minute, said so) */
	double cost;           /* input USD at the model's prices (writes by their lifetime, times
				* request_price_multiplier); < 0 no price */
	double web_search_cost; /* USD for its web searches (REQUEST_WEB_SEARCH_USD each) */
	const char *priced_as;  /* "fast mode (2x)", "batch (half price)"...: static; NULL standard */
	long off_percent;      /* |predicted read - recorded read|, of the recorded read (of the total when 0) */
	bool off;              /* more than REQUEST_OFF_PERCENT */
	int agrees;            /* the provider's diagnosis against ctxscope's cause: 1, 0, -1 not comparable */
};
void request_figures(const struct request_model *m, size_t k, struct req_figures *f);
struct facts_memo;
/* The same over a run of requests: the model's prices asked again only
 * when its name changes (start the memo zeroed). */
void request_figures_memo(const struct request_model *m, size_t k, struct req_figures *f, struct facts_memo *memo);
/* "B claude-3-5-haiku-20241022": request k's cache group, for people, into
 * buf (`[` `]` stay within it: kind_sequence.group); NULL when the log has
 * one group only. */
const char *request_step_group(const struct request_model *m, size_t k, char *buf, size_t size);
/* "claude-sonnet-4-5 (A)": request k's group, for people. */
const char *request_group_mark(const struct request_model *m, size_t k, char buf[4]);
/* One request in a line, the record first: "recorded read 1,531, written
 * 31, uncached 0 (98% hit, $0.0006) · predicted read 1,531 (+0)"; the flag
 * and the provider's diagnosis after. */
void request_figures_text(const struct request_model *m, size_t k, struct strbuf *out);
/* "13,000 tokens read of a cache shared across sessions (...): ..., not a
 * miss": a request's global read (req_request.global_read), in words. */
void request_global_text(const struct req_request *r, struct strbuf *out);
/* The cache line of the header for request k of a sequence (assembly.h
 * struct step_cache). */
struct step_cache;
void request_step_cache(const struct request_model *m, size_t k, struct step_cache *out);
/* The current request's step into a->step (and its record into
 * a->recorded when the kind set none): request_assemble and the Claude Code
 * sessions' assembler call it. */
void request_assembly_step(struct assembly *a, const struct request_model *m);

/* ---- cache facts (facts.c) --------------------------------------------- */

const struct req_model_facts *request_model_facts(int provider, const char *model, bool *known);
/* What request r's recorded tokens cost against the model's standard
 * rates: fast mode's multiplier times the batch discount (1: neither).
 * *known false when r ran in fast mode on a model whose fast rate is not in
 * the table (no cost then). *said: the words for it, NULL when 1. */
double request_price_multiplier(const struct req_request *r, bool *known, const char **said);
/* Fast mode's multiplier on the model's standard rates, -1 when the table
 * has none for it; *said its words (static). */
double request_fast_rate(const char *model, const char **said);
/* The request headers that name the API key or workspace it was sent with,
 * in the order they are looked for (captures, HARs); NULL-ended. */
extern const char *const request_account_headers[];
/* A web search, USD (Anthropic's pricing: $10 per 1,000 searches). */
#define REQUEST_WEB_SEARCH_USD 0.01
/* The same, a profile of the user's cache.yml named as the model (with or
 * without its date suffix) first. */
const struct req_model_facts *request_facts(const struct request_model *m, const char *model, bool *known);
/* The current request's model's figures over p when p is `own` (the
 * provider's profile): kind_ops.cache_tune for the request kinds and the
 * Claude Code sessions. */
const char *request_cache_tune(const struct request_model *m, const char *own, struct cache_profile *p);
/* request_facts over a run of requests: asked again only when the model's
 * name changes (consecutive requests mostly share one). Start it zeroed. */
struct facts_memo {
	const char *model;
	const struct req_model_facts *facts;
};
const struct req_model_facts *request_facts_memo(const struct request_model *m, struct facts_memo *memo,
						 const char *model);
/* Reads the user's cache.yml ($XDG_CONFIG_HOME/ctxscope/cache.yml) into
 * m->user_facts: every profile not built in. CS_OK (a broken file is a
 * note, not an error) or CS_ENOMEM. */
int request_user_facts(struct source *src, struct request_model *m);
/* Whether text holds volatile text (an ISO time or date, a UUID, a long
 * hex run, a request id); *at and *len get the first such run. */
bool request_volatile(const char *s, size_t n, size_t *at, size_t *len);
/* The first message of an Anthropic `messages` list whose thinking blocks
 * are sent to model: 0 when the model keeps earlier turns' thinking, else
 * the last user turn that is not only tool results (caching.md section 1:
 * model_keeps_prior_thinking); the thinking before it is stripped. */
int request_thinking_from(const cJSON *messages, const char *model);

/* ---- sequence.c ----------------------------------------------------------- */

/* Predicts every request's cache reads and writes, first differences and
 * causes, and the sequence lints, then the current request's lints. The
 * text of the prediction before is freed (m->pred_arena). */
int request_predict(struct source *src, struct request_model *m, struct cs_error *err);
/* Only the current request's lints again (another request shown, the
 * predictions unchanged). */
int request_current_lints(struct source *src, struct request_model *m, struct cs_error *err);
/* Frees what the predictions keep between runs (core, diff_memo,
 * diff_arena): the model's free calls it. NULL-safe fields. */
void request_predictions_free(struct request_model *m);

/* ---- steps.c: the requests of a log one at a time ------------------------ */

/* The pieces of a log: one per block path over every request (a path is
 * the same block from request to request: "system[0]", "messages[3]
 * .content[1]"), in render order, holding the current request's text. */
int request_make_pieces(struct source *src, struct request_model *m, struct cs_error *err);
/* Makes request k (0-based) the current one: its blocks' text in the
 * pieces, its body read again from the log for dump, its lints. */
int request_select(struct source *src, struct request_model *m, size_t k, struct cs_error *err);
/* request_model.select for logs and bodies. */
int request_select_want(struct source *src, long want, struct cs_error *err);
/* Predicts the sequence again when the what-if changed since the last
 * prediction (what-if: an edit to a block re-predicts every request). */
int request_repredict(struct source *src, struct request_model *m, struct cs_error *err);
/* A signature of the what-if: the pieces excluded, the model setting and
 * the breakpoints moved (1: none of them), and the predictions made for it
 * (the first, with none, kept as the loaded ones). */
uint64_t request_whatif_sig(const struct source *src);
void request_predicted(struct request_model *m, uint64_t sig);
/* What the edits did to the whole sequence, against the loaded predictions. */
struct request_whatif {
	long read, written, uncached;
	long loaded_read, loaded_written, loaded_uncached;
	long changed;            /* requests whose prediction moved */
	double cost, loaded_cost; /* input USD at the models' prices */
	bool priced;             /* every request's model has a price */
};
void request_whatif_totals(const struct request_model *m, struct request_whatif *w);
/* kind_ops.edit_effect: "log: read 4,200 (was 0), written 1,300 (was
 * 7,000), $0.0123 saved"; nothing before an edit. */
void request_whatif_sentence(const struct source *src, struct strbuf *out);
/* kind_ops.edited: request_repredict on the source's model. */
int request_edited(struct source *src, struct cs_error *err);
/* The inspector's breakpoints (cache.h overrides) into m->bp_override, by
 * piece id. CS_OK or CS_ENOMEM. kind_ops.breakpoints_edited is this, then
 * the kind's re-prediction. */
int request_take_breakpoints(struct source *src, struct request_model *m, const struct cache_overrides *o,
			     struct cs_error *err);
int request_breakpoints_edited(struct source *src, const struct cache_overrides *o, struct cs_error *err);
/* The model request r is priced and cached as: the `model` setting, else its own. */
const char *request_model_name(const struct request_model *m, const struct req_request *r);
/* The `request N` setting (through the model's select) and the sequence
 * ([ ]), for the request kinds and Claude Code sessions alike. */
extern const struct setting request_settings[];
extern const struct kind_sequence request_sequence;

/* ---- assemble.c / report.c / dump.c ------------------------------------- */

struct asm_run;
int request_assemble(struct asm_run *run, struct assembly *out, struct cs_error *err);
int request_report_extra(const struct source *src, const struct assembly *a, struct emitter *em);
/* `what_if` (after edits): the whole sequence's prediction against the loaded one. */
void request_emit_whatif(struct emitter *em, const struct source *src, const struct request_model *m);
/* timeline.c: a log's requests, predicted beside recorded, for the
 * inspector's timeline view (kind_ops.timeline). */
int request_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err);
int request_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
const char *request_piece_note(const struct source *src, long piece);
int request_dump(const struct assembly *a, bool raw, bool ascii, struct strbuf *out);
void request_model_free(void *model);
/* load.c: a body or a log into the model; what a file holds, for
 * detection: REQ_ANTHROPIC, REQ_OPENAI_*, -1 not a request, -2 out of memory. */
int request_load(struct source *src, const char *data, size_t len, struct cs_error *err);
int request_detect_provider(const char *path, const char *data, size_t len);
/* The shape of a file (its first record's, or its document's): NULL none;
 * *nomem on out of memory. */
const struct req_shape *request_detect_shape(const char *path, const char *data, size_t len, bool *nomem);
/* Request k's body again from the file into m->doc and m->body (NULL, with
 * a warning, when the file changed). CS_OK or CS_ENOMEM. */
int request_body_again(struct source *src, struct request_model *m, size_t k);
const char *request_layer_name(int layer);
/* Adds a lint (sentence printf-style into the arena). */
int request_lint(struct source *src, struct request_model *m, const char *code, long unit, bool error,
		 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif

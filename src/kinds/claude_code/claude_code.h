/* claude_code.h: Claude Code sessions (ctxscope-formats(5) section 7): the JSONL
 * file Claude Code writes per session, read as a sequence of API requests.
 *
 * Every line is kept as a struct cc_line (its ids, type, time, usage) with
 * its content blocks (struct cc_block: text, hash, tokens, tool ids). Each
 * assistant message (its lines merged by message.id, usage counted once)
 * answers one request whose prompt is the chain of lines up to its parent,
 * from the last compaction boundary on. The requests feed the request
 * kinds' sequence analysis (kinds/request/sequence.c): their units are the
 * prompt's blocks, led by one unit that stands for what the file does not
 * hold (the system prompt and tools), sized from the first recorded usage.
 * The current request (the last one on the main chain, or the one asked
 * for) is assembled from the pieces: every block of the conversation, so
 * opening another request (the `request` setting) keeps the piece list. */
#ifndef CTXSCOPE_CLAUDE_CODE_H
#define CTXSCOPE_CLAUDE_CODE_H

#include "base/bulk.h"
#include "kinds/request/request.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern const struct kind_ops claude_code_kind;

#define CC_MAX_LINES 5000000
#define CC_HIDDEN_PIECE ((size_t)-1) /* piece.kind_index of the part not in the transcript (piece 0) */
#define CC_MAX_UNITS 1000000 /* prompt blocks over the requests replayed (about 100 bytes each) */

/* CL_ATTACH: an attachment line whose text goes to the model (ctxscope-formats(5)
 * 7b: hook_additional_context, skill_listing, task_reminder,
 * deferred_tools_delta); CL_LINK: any other line with a uuid (progress, an
 * attachment the model never sees, a type not known): a link of the chain
 * with no prompt content, like CL_SYSTEM. */
enum cc_line_type { CL_USER, CL_ASSISTANT, CL_SYSTEM, CL_BOUNDARY, CL_ATTACH, CL_LINK };

struct cc_block {
	const char *type;      /* "text", "tool_use", "tool_result", "thinking"... */
	const char *text;      /* what it renders to; the model's bulk */
	size_t text_len;
	size_t code_points;    /* of text */
	size_t lines;          /* of text (utf8_count_lines) */
	bool hidden;           /* text holds hidden characters (hidden_scan) */
	bool tool;             /* a tool_use or tool_result block */
	uint64_t hash;         /* FNV-1a of its JSON */
	long tokens;
	const char *tool_id;   /* tool_use id, or tool_result's tool_use_id; NULL none */
	const char *tool_name; /* tool_use name */
	const char *file;      /* tool_use input.file_path; NULL none */
	const char *summary;   /* tool_use: what its input names (a command, a path, a pattern); NULL none */
	long images;           /* images in it (an image block, or inside a tool_result), counted by the rule */
	long nested_images;    /* a tool_result's: its images' tokens (in tokens too) */
	const char *path;      /* "messages[3].content[1]", made on first use; arena */
	long path_msg;         /* the message index path was made for */
	size_t line;           /* the line it came from (index into lines) */
	long piece;            /* its piece, -1 none (a sidechain's) */
};

struct cc_line {
	const char *uuid, *parent, *logical_parent; /* arena; NULL absent */
	const char *msg_id;    /* an assistant's message.id; NULL absent */
	const char *model;
	const char *trigger;   /* compact_boundary: compactMetadata.trigger */
	long pre_tokens;       /* compact_boundary: compactMetadata.preTokens, -1 none */
	long line;             /* 1-based line of the file */
	double time;           /* epoch seconds; < 0 unknown */
	int type;              /* enum cc_line_type */
	bool sidechain, compact_summary, main, warned;
	size_t first_block, nblocks;
	bool has_usage;
	long in, cache_write, cache_read, out;
	long write_1h, write_5m; /* usage.cache_creation's split; -1 not recorded */
	long web_searches;     /* usage.server_tool_use.web_search_requests; 0 none */
	bool fast;             /* usage.speed is "fast" (fast mode: priced at its own rate) */
	const char *attach;    /* an attachment's attachment.type; NULL for other lines */
};

/* One request (an assistant message) beside the sequence's req_request. */
struct cc_req {
	size_t first_line, last_line; /* the message's first line and the one whose usage counts */
	long boundary;                /* the compaction boundary its prompt starts after, -1 none */
	long messages;                /* messages in its prompt */
	long estimate;                /* the messages' estimated tokens */
	long gap;                     /* recorded input less the estimate; 0 without usage */
	long rec_total;               /* recorded input + cache read + cache write; -1 none */
	long offset;                  /* rec_total less the predicted total as loaded (recorded units) */
	long global_read;             /* the first request's read of text the file does not hold */
	int ttl;                      /* its writes' lifetime, seconds */
	bool ttl_assumed;             /* not recorded: the session's, or the profile default */
	bool recorded_units;          /* its predicted read is the request before's recorded prompt */
	bool main;                    /* on the main chain */
	bool replayed;                /* its prompt was rebuilt (replay window) */
};

struct cc_model {
	struct request_model req;     /* first: the request kinds' functions take it */
	struct cc_line *lines;
	size_t nlines, cap_lines;
	struct cc_block *blocks;
	size_t nblocks, cap_blocks;
	struct bulk text;             /* the blocks' text (most of what a session keeps) */
	struct cc_req *creqs;         /* parallel to req.reqs */
	size_t *unit_block;           /* per unit: its block index, (size_t)-1 for the hidden unit */
	size_t cap_unit_block;
	long hidden;                  /* tokens given to the part not in the transcript */
	long total_lines, skipped_summary, skipped_snapshot, skipped_unknown, sidechain_lines;
	long outside_lines;           /* queue-operation, permission-mode, ai-title...: known, outside the chain */
	long compactions, broken_chains;
	long bad_lines;               /* malformed lines skipped (positioned warnings) */
	long first_bad_line, first_bad_column; /* the first of them */
	long bad_usage;               /* usage values that are not non-negative integers (warned) */
	long link_lines;              /* progress, attachment and other lines that only link the chain */
	long attachments;             /* attachment lines whose text goes to the model */
	size_t last_request_line;     /* the line of the last request (its usage line) */
	long after_last;              /* conversation lines after it, off the main chain (listed apart) */
	long session_ttl;             /* seconds the session's writes live: recorded, else assumed 300 */
	bool ttl_recorded;            /* session_ttl comes from usage.cache_creation */
	bool offsets;                 /* each cc_req.offset taken (at the first prediction, before any edit) */
	size_t first_replayed;        /* the first request whose prompt is rebuilt */
	bool truncated;               /* the last line was malformed and ignored */
	bool subagent;                /* every line a sidechain: a subagent's own session */
};

/* subagents.c: the agent-*.jsonl files beside the session (its folder, its
 * <session-id>/subagents folder, or <session-id>/subagents/workflows/<wf_id>/),
 * listed apart, never in a prompt. */
struct cc_subagent {
	char name[640];        /* as shown: "agent-7c1e.jsonl", "<id>/subagents/workflows/<wf>/agent-7c1e.jsonl" */
	char session_id[128];  /* its lines' sessionId */
	bool this_session;     /* that is this session's */
	bool unreadable;       /* not read: why says why */
	bool skipped;          /* ... because the total read of subagent files was used up */
	char why[128];         /* "not read: 268435456 bytes, past the 64 MB ...", "could not be read: ..." */
	char path[4096];       /* where it is */
	size_t bytes;          /* its size when listed */
	long lines, bad_lines, requests;
	long in, cache_read, cache_write, out; /* recorded, each request's usage once */
	long bad_counts;       /* usage values that are not counts (-5, 1.5, 1e999, "12"), not in the sums */
};
struct cc_subagents {
	struct cc_subagent *items; /* by name (cs_malloc'd) */
	size_t n;
	long more;                 /* files past the ones listed */
	long skipped;              /* listed files not read: the total read was used up */
	size_t skipped_bytes;      /* their bytes */
};
/* Lists them (at most 64) and reads them in name order while the total
 * read stays under 64 MB, a file past it named and not read (for a report
 * or the timeline; nothing for a subagent's own file). CS_OK or CS_ENOMEM;
 * free with cc_subagents_fini. */
int cc_subagents(const struct source *src, struct cc_subagents *list);
void cc_subagents_fini(struct cc_subagents *list);
/* report.c: the `subagent_files` section; timeline.c: the timeline with them. */
void cc_emit_subagents(struct emitter *em, const struct cc_subagents *list);
int cc_timeline_text(const struct source *src, unsigned text_flags, struct strbuf *out, size_t *step_at,
			 struct cs_error *err);

/* load.c */
int cc_load(struct source *src, const char *data, size_t len, struct cs_error *err);
void cc_model_free(void *model);
int cc_detect(const char *path, const char *data, size_t len, bool *yes);
/* load.c's pieces that fast.c shares: a fresh block (NULL on out of
 * memory), the literal for a known block type (NULL for another), a
 * block added from its tree (CS_OK or CS_ENOMEM). */
struct cc_block *cc_new_block(struct cc_model *m);
const char *cc_known_type(const char *type);
int cc_add_block(struct source *src, struct cc_model *m, const cJSON *b, const char *type, struct cs_error *err);
/* A line of another type than user, assistant or system: counted as skipped. */
void cc_count_skipped(struct cc_model *m, const char *type);
/* fast.c: one line read straight from its bytes when it has the usual
 * shape: CS_OK (taken, or skipped and counted), CS_ENOMEM, or
 * CC_FAST_DECLINED, with nothing of the line kept: load.c then reads it
 * through its tree. pool: for the blocks that are read from a tree;
 * scratch: the line's strings (reused from line to line). */
#define CC_FAST_DECLINED 1000
struct cc_scratch {
	char *buf;
	size_t len, cap;
};
struct json_pool;
int cc_fast_line(struct source *src, struct cc_model *m, struct json_pool *pool, struct cc_scratch *scr,
		 const char *s, size_t n, long line, struct cs_error *err);
void cc_scratch_fini(struct cc_scratch *s);
/* requests.c: requests, units, prediction and pieces from the parsed lines. */
int cc_build(struct source *src, struct cc_model *m, struct cs_error *err);

/* pieces.c: every block of the conversation as a piece, named by its turn
 * and what it is ("turn 12 · you", "result of Read src/parser.c"), led by
 * the piece for what the file does not hold (CC_HIDDEN_PATH). */
#define CC_HIDDEN_PATH "(not in the transcript)"
int cc_make_pieces(struct source *src, struct cc_model *m);

/* A line of a sidechain, unless the file is a subagent's own (whose lines all are). */
/* An assistant line Claude Code wrote itself (message.model "<synthetic>":
 * an API error, "No response requested."): no request was sent for it and
 * nothing billed, whatever its usage says; it stays a link of the chain. */
static inline bool cc_synthetic(const struct cc_line *l)
{
	return l->type == CL_ASSISTANT && l->model && !strcmp(l->model, "<synthetic>");
}

static inline bool cc_sidechain(const struct cc_model *m, const struct cc_line *l)
{
	return l->sidechain && !m->subagent;
}
/* Makes request k (0-based) the current one: the predictions again (the
 * pieces stay: every request's blocks are pieces). */
int cc_select(struct source *src, size_t k, struct cs_error *err);
/* request_model.select: the request `want` (1-based; -1 the last on the
 * main chain), refused before the replay window. */
int cc_select_want(struct source *src, long want, struct cs_error *err);
/* kind_ops.edited: the predictions again when the exclusions changed
 * (what-if: a block left out of every request that holds it). */
int cc_edited(struct source *src, struct cs_error *err);
/* kind_ops.breakpoints_edited: the inspector's breakpoints, then cc_edited. */
int cc_breakpoints_edited(struct source *src, const struct cache_overrides *o, struct cs_error *err);
/* The request the session opens on: req.want_request, else the last on the
 * main chain; the last when that one is not replayed. */
size_t cc_current_request(const struct cc_model *m);
/* assemble.c / report.c */
struct asm_run;
int cc_assemble(struct asm_run *run, struct assembly *out, struct cs_error *err);
int cc_report_piece(const struct source *src, const struct assembly *a, long piece, struct emitter *em);
int cc_report_extra(const struct source *src, const struct assembly *a, struct emitter *em);

#endif

/* counted.h: a whole request counted as the provider counts it (ctxscope-formats(5)
 * §8): the text of its tools, system and messages by the model's
 * encoding (claude, approximate, for Claude models; o200k_base or
 * cl100k_base, exact, for OpenAI's), put together as the npm package
 * ai-tokenizer's `count` does with its per-model table (overhead.h): a base
 * once, per message its framing and role, each part's tokens times the
 * content multiplier (rounded per part), tool definitions by their schema
 * (name, description, each property, enum values, nested objects), and the
 * tool-use system prompt once when there are tools (the table's figure,
 * for a Claude model moved by the difference Anthropic lists between the
 * request's tool_choice and auto: overhead_tool_prompt). Images count by the
 * provider's rule (the request kind's own figure), not as the package's
 * flat 85. How a request's blocks map onto the package's parts:
 *   system (a string, or each text block)  one "system" message, a text part each
 *   text, thinking, a text document        a text part (redacted thinking: nothing)
 *   tool_use, server_tool_use              a tool-call part: name, input as JSON.stringify writes it
 *   tool_result                            a tool-result part: tool_use_id, and its text (the
 *                                          string, or its text blocks joined by "\n"); its images
 *                                          by the image rule (tokens/image.h), as images at the top are
 *   any other block                        a text part of its JSON
 * OpenAI Chat: messages as they are, tool_calls as tool-call parts (the
 * arguments parsed), `tool` messages as tool-result parts; Responses:
 * instructions as a system message, input items alike. The counts are
 * compared with the recorded usage where a log has it. */
#ifndef CTXSCOPE_REQUEST_COUNTED_H
#define CTXSCOPE_REQUEST_COUNTED_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct emitter;
struct request_model;
struct source;
struct tokenizer;
struct overhead;
typedef struct cJSON cJSON;

/* One request, counted. */
struct req_counted {
	long tokens;            /* the whole request; -1: not counted (see why) */
	long tools, system, messages, images; /* its parts (framing in each) */
	const char *tokenizer;  /* "claude", "o200k_base"...; static */
	char overheads[64];     /* the table's row used, "anthropic/claude-sonnet-4"; "" none */
	bool nearest;           /* that row is the nearest of the family, not the model's own */
	bool approximate;
	long tool_prompt;       /* of tools: the tool-use system prompt counted (0: no tools) */
	const char *tool_choice; /* "auto" (auto, none, not given) or "any" (any, tool); NULL: not a Claude model */
	bool tool_prompt_nearest; /* that prompt's figure is the nearest listed model's */
	const char *why;        /* not counted: why (static) */
};

/* The counts of every request, kept by the model (request_model.counted_memo). */
struct req_counted_memo {
	bool done;
	struct req_counted *counts; /* cs_malloc'd; NULL when counting failed (out of memory) */
	char note[CS_ERROR_MSG_MAX];
};
struct req_counted_memo *request_counted_memo_new(void);
void request_counted_memo_free(struct req_counted_memo *memo);
/* The counts of m's requests (from the bodies of a log or body, transcript
 * false; from the blocks of a session, transcript true), counted at the
 * first call and kept in m->counted_memo; when m has none, counted at every
 * call into *owned, which the caller frees (request_counted_memo_free).
 * (*out)->note: why some are not counted, or "". CS_OK or CS_ENOMEM. */
int request_counted(const struct source *src, const struct request_model *m, bool transcript,
		    const struct req_counted_memo **out, struct req_counted_memo **owned, struct cs_error *err);

/* Every request of the model counted (the file read again, each body
 * parsed): counts[m->nreqs], cs_malloc'd, caller frees. *note gets a
 * sentence when the claude encoding or the table is missing (then those
 * requests are not counted and why says so), else NULL. CS_ENOMEM, or
 * CS_OK (a file that changed gives requests not counted, not an error). */
int request_count_all(const struct source *src, const struct request_model *m, struct req_counted **counts,
		      char *note, size_t note_size, struct cs_error *err);

/* The same for requests known by their blocks alone (a Claude Code
 * session's units: no tools, no system prompt in the file): each replayed
 * request's messages counted from its units; the part the file does not
 * hold is left to the record (request_emit_units_counted: recorded less
 * counted). */
int request_count_units(const struct request_model *m, struct req_counted **counts, char *note, size_t note_size,
			struct cs_error *err);
void request_emit_units_counted(struct emitter *em, const struct request_model *m, size_t k, const struct req_counted *c);
/* Over the session: what the record says the file does not hold, by the
 * count (median, least, most); note: why nothing was counted, or NULL. */
void request_emit_units_summary(struct emitter *em, const struct request_model *m, const struct req_counted *c,
				const char *note);

/* The body (an Anthropic, OpenAI Chat or Responses request; provider enum
 * req_provider) counted with t and row ov into *c (images: image_tokens,
 * the kind's figure for its image blocks, added as they are). CS_OK,
 * CS_ENOMEM or the tokenizer's error. */
int request_count_body(struct tokenizer *t, const struct overhead *ov, int provider, const cJSON *body,
		       long image_tokens, struct req_counted *c, struct cs_error *err);

/* The value as JavaScript's JSON.stringify writes it (compact; numbers
 * shortest round-trip), into out. */
struct strbuf;
void request_js_stringify(struct strbuf *out, const cJSON *v);

/* Report parts (report.c): a request's `counted` map, the distance to
 * what it recorded, and the sequence's summary ("counted within 1.8% of
 * recorded over 64 requests"). */
void request_emit_counted(struct emitter *em, const struct req_counted *c);
void request_emit_distance(struct emitter *em, const struct request_model *m, size_t k, const struct req_counted *c);
void request_emit_counted_summary(struct emitter *em, const struct request_model *m, const struct req_counted *c,
				  const char *note);
/* "≈2,131 counted (claude), 1.2% over recorded" for text lines; "" when not counted. */
void request_counted_words(struct strbuf *out, const struct request_model *m, size_t k, const struct req_counted *c);

/* The timeline's cells for request k: its count (≈ when approximate; `~`
 * when ascii) and its distance to the record ("+1.2%"), 17 columns; with
 * transcript (a session's counts of its messages alone) the record less
 * the count instead (what the file does not hold), 21 columns; "-" where
 * not counted or not recorded. And its sentence over the log. */
void request_counted_cell(struct strbuf *out, const struct request_model *m, size_t k, const struct req_counted *c,
			  bool transcript, bool ascii);
void request_counted_sentence(struct strbuf *out, const struct request_model *m, const struct req_counted *c,
			      bool transcript, const char *note);

#endif

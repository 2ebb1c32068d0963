/* overhead.h: the tokens a provider adds around a request's text, per model
 * (ctxscope-formats(5) §8): the `models` table of the npm package ai-tokenizer, taken
 * from the package by `make deps` (tests/tokenizer/claude-convert.js writes
 * it as ai-tokenizer.models beside claude.tiktoken), never typed in. Each
 * model: its encoding, the factor its content is counted with, the framing
 * of the request and of each message, and what tool definitions cost by
 * their schema (whole.h counts a request with it). */
#ifndef CTXSCOPE_OVERHEAD_H
#define CTXSCOPE_OVERHEAD_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct overhead {
	char id[64];             /* "anthropic/claude-sonnet-4" */
	char encoding[24];       /* "claude", "o200k_base", ... */
	double content_multiplier;
	long base;               /* once a request */
	long per_message;
	long tools_exist;        /* once, when the request has tools: the tool-use system prompt */
	long per_tool;           /* each tool but the first */
	long per_desc;           /* a tool with a description */
	long per_first_prop, per_additional_prop, per_prop_desc, per_enum, per_nested_object, per_array_of_objects;
};

struct overheads {
	struct overhead *rows; /* cs_malloc'd */
	size_t n;
	char path[4096];       /* the file read */
};

/* Reads the table: ai-tokenizer.models found as the rank files are
 * (tokenizer.h), or at path when not NULL. CS_EIO with TOKENIZER_HOW_TO_GET_CLAUDE
 * when it is nowhere, CS_ESYNTAX naming the line of a malformed one, CS_ENOMEM. */
int overheads_load(struct overheads *t, const char *path, struct cs_error *err);
void overheads_fini(struct overheads *t);

/* The row for a model name as requests and logs write it
 * ("claude-sonnet-4-5-20250929", "anthropic/claude-3.5-haiku",
 * "us.anthropic.claude-opus-4-1-20250805-v1:0", "gpt-4o-mini"): its own row
 * (*nearest false), else for a model the table does not list, the row of
 * its family nearest below it (claude-opus-4-6 -> anthropic/claude-opus-4.5,
 * *nearest true), else NULL. */
const struct overhead *overheads_for(const struct overheads *t, const char *model, bool *nearest);

/* The tool-use system prompt Anthropic adds to a request with tools, as
 * its tool use documentation lists it by model and tool_choice (built in,
 * with its source): any true for `any` and `tool`, false for `auto`,
 * `none` or none given. A Claude model the list lacks takes the row of its
 * family nearest below it, else the newest (*nearest true); -1 for a model
 * that is not Claude. The models table's tools_exist is ai-tokenizer's
 * measured figure for the default (auto): request_count_body adds the
 * difference this gives between the request's choice and auto. */
long overhead_tool_prompt(const char *model, bool any, bool *nearest);

#endif

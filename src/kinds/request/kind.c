/* kind.c: the request kinds' tables, anthropic and openai: one loader and
 * one assembler for both (load.c, assemble.c), told apart by content. The
 * log shapes declare their kinds in their own files (REQUEST_SHAPE). */
#include "request.h"

#include "kind.h"
#include "source.h"

#include <stddef.h>
#include <string.h>

static int anthropic_detect(const char *path, const char *data, size_t len, bool *yes)
{
	int p = request_detect_provider(path, data, len);
	*yes = p == REQ_ANTHROPIC;
	return p == -2 ? CS_ENOMEM : CS_OK;
}

static int openai_detect(const char *path, const char *data, size_t len, bool *yes)
{
	int p = request_detect_provider(path, data, len);
	*yes = p == REQ_OPENAI_CHAT || p == REQ_OPENAI_RESPONSES;
	return p == -2 ? CS_ENOMEM : CS_OK;
}

int request_shape_detect(const struct req_shape *sh, const char *path, const char *data, size_t len, bool *yes)
{
	bool nomem;
	*yes = request_detect_shape(path, data, len, &nomem) == sh;
	return nomem ? CS_ENOMEM : CS_OK;
}

/* The generic cache line starts with the provider's own profile. */
const char *request_kind_profile(const struct source *src)
{
	const struct request_model *m = src->model;
	return request_providers[m->provider].profile;
}

const char *request_kind_tune(const struct source *src, struct cache_profile *p)
{
	return request_cache_tune(src->model, request_kind_profile(src), p);
}

/* Blocks of a request have no priority or score: the prompt's order and size. */
const char *const request_sort_keys[] = { "order", "tokens", NULL };

const struct kind_ops anthropic_kind = {
	.name = "anthropic",
	.title = "Anthropic Messages request",
	REQUEST_KIND_COMMON,
	.detect = anthropic_detect,
	.detect_hint = "\"messages\" with \"system\", an Anthropic block type or a claude- \"model\"",
};

const struct kind_ops openai_kind = {
	.name = "openai",
	.title = "OpenAI request",
	REQUEST_KIND_COMMON,
	.detect = openai_detect,
	.detect_hint = "\"messages\" with a tool or developer role, \"tool_calls\" or a gpt-/oN \"model\", or "
		       "\"input\" with \"instructions\" or \"model\"",
};

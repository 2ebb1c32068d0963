/* kind.c: the request kinds' tables, anthropic and openai: one loader and
 * one assembler for both (load.c, assemble.c), told apart by content. */
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

/* A log shape's kind (shapes.c): detected by its first record, or its
 * document; --kind NAME reads every record as that shape. */
static int shape_detect(const char *name, const char *path, const char *data, size_t len, bool *yes)
{
	bool nomem;
	const struct req_shape *sh = request_detect_shape(path, data, len, &nomem);
	*yes = sh && !strcmp(sh->name, name);
	return nomem ? CS_ENOMEM : CS_OK;
}

#define SHAPE_DETECT(fn, name) \
	static int fn(const char *path, const char *data, size_t len, bool *yes) \
	{ \
		return shape_detect(name, path, data, len, yes); \
	}
SHAPE_DETECT(capture_detect, "capture")
SHAPE_DETECT(litellm_detect, "litellm")
SHAPE_DETECT(openai_batch_detect, "openai-batch")
SHAPE_DETECT(anthropic_batch_detect, "anthropic-batch")
SHAPE_DETECT(har_detect, "har")

/* The generic cache line starts with the provider's own profile. */
static const char *request_cache_profile(const struct source *src)
{
	const struct request_model *m = src->model;
	return m->provider == REQ_ANTHROPIC ? "anthropic" : "openai";
}

static const char *request_tune(const struct source *src, struct cache_profile *p)
{
	return request_cache_tune(src->model, request_cache_profile(src), p);
}

/* Blocks of a request have no priority or score: the prompt's order and size. */
static const char *const request_sort_keys[] = { "order", "tokens", NULL };

/* Everything but the name and the detection: one reader and one assembler
 * for both providers, told apart by content. */
#define REQUEST_KIND_COMMON \
	.id_key = "path", .sort_keys = request_sort_keys, .settings = request_settings, \
	.sequence = &request_sequence, .edited = request_edited, .edit_effect = request_whatif_sentence, \
	.breakpoints_edited = request_breakpoints_edited, .cache_profile = request_cache_profile, \
	.cache_tune = request_tune, \
	.load = request_load, .assemble = request_assemble, .free_model = request_model_free, \
	.report_extra = request_report_extra, .timeline = request_timeline_text, \
	.report_piece = request_report_piece, .piece_note = request_piece_note, .dump = request_dump

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

/* The log shapes of ctxscope-formats(5) section 6b, one kind each (their own reading is the
 * shape's, shapes.c; the rest is the request kinds'). */
const struct kind_ops capture_kind = {
	.name = "capture", .title = "HTTP capture", REQUEST_KIND_COMMON, .detect = capture_detect,
};
const struct kind_ops litellm_kind = {
	.name = "litellm", .title = "LiteLLM log", REQUEST_KIND_COMMON, .detect = litellm_detect,
};
const struct kind_ops openai_batch_kind = {
	.name = "openai-batch", .title = "OpenAI Batch file", REQUEST_KIND_COMMON, .detect = openai_batch_detect,
};
const struct kind_ops anthropic_batch_kind = {
	.name = "anthropic-batch", .title = "Anthropic Message Batch", REQUEST_KIND_COMMON,
	.detect = anthropic_batch_detect,
};
const struct kind_ops har_kind = {
	.name = "har", .title = "HTTP Archive (HAR)", REQUEST_KIND_COMMON, .detect = har_detect,
};

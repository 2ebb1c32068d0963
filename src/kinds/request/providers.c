/* providers.c: the providers whose request bodies the request kind reads
 * (ctxscope-formats(5) section 6), and what sets each apart where the code
 * would otherwise ask "is it Anthropic?": its endpoint, cache profile and
 * cache's way, the models its facts know, its image rule. */
#include "request.h"

const struct request_provider request_providers[REQ_NPROVIDERS] = {
	[REQ_ANTHROPIC] = {
		.api = "Anthropic Messages", .endpoint = "/messages", .profile = "anthropic", .models = "claude-",
		.breakpoints = true, .cache_mode = "explicit breakpoints (tools, system, messages)",
		.image_rule = "width*height/750",
	},
	[REQ_OPENAI_CHAT] = {
		.api = "OpenAI Chat Completions", .endpoint = "/chat/completions", .profile = "openai", .models = "gpt-/o",
		.cache_mode = "automatic prefix", .image_rule = "85 + 170 per 512-px tile",
	},
	[REQ_OPENAI_RESPONSES] = {
		.api = "OpenAI Responses", .endpoint = "/responses", .profile = "openai", .models = "gpt-/o",
		.cache_mode = "automatic prefix", .image_rule = "85 + 170 per 512-px tile",
	},
};

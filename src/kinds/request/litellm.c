/* litellm.c: LiteLLM proxy logs (ctxscope-formats(5) section 6b): its StandardLoggingPayload,
 * one a line or a file of one: `model`, `messages` (the request, in OpenAI's
 * form whatever the provider), `response.usage`, `startTime`/`endTime`
 * (epoch seconds or "YYYY-MM-DD HH:MM:SS.ffffff"), `call_type`, `id`, and
 * the key's hash in metadata.user_api_key_hash. */
#include "request.h"

#include "source.h"

#include <string.h>

static bool litellm_is(const cJSON *obj)
{
	return json_member(obj, "call_type") || (json_member(obj, "startTime") && json_member(obj, "response") &&
						 json_member(obj, "messages"));
}

static int litellm_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	const cJSON *msgs = json_member(rec, "messages"), *type = json_member(rec, "call_type");
	if (!json_is_array(msgs)) {
		out->skip = arena_printf(&src->arena, "a call (%.40s) without a list of messages",
					 json_is_string(type) ? json_string_value(type) : "LiteLLM");
		return out->skip ? CS_OK : CS_ENOMEM;
	}
	out->body = rec;
	out->provider = REQ_OPENAI_CHAT; /* LiteLLM logs every provider's messages in OpenAI's form */
	out->time = request_time_of(json_member(rec, "startTime"));
	const cJSON *key = json_member(json_member(rec, "metadata"), "user_api_key_hash");
	out->account = json_string_value(key);
	const cJSON *resp = json_member(rec, "response");
	if (json_is_object(resp)) {
		out->response = resp;
		out->response_where = "response";
	}
	return CS_OK;
}

REQUEST_SHAPE(litellm, "litellm", "LiteLLM log", .is = litellm_is, .take = litellm_take);

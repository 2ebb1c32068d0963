/* batch.c: batch files (ctxscope-formats(5) section 6b). OpenAI Batch input, one
 * {custom_id, method, url, body} a line (the request is body), and its
 * output, one {id, custom_id, response: {status_code, request_id, body},
 * error} a line. Anthropic Message Batches: the create body {requests:
 * [{custom_id, params}]} (each params a request) and the results, one
 * {custom_id, result: {type, message}} a line. Results are joined to their
 * requests by custom_id (shapes.c). */
#include "request.h"

#include "source.h"

#include <string.h>

static bool openai_batch_is(const cJSON *obj)
{
	return cJSON_IsString(json_member(obj, "custom_id")) &&
	       (cJSON_IsObject(json_member(obj, "body")) || json_member(obj, "response") || json_member(obj, "error"));
}

static int openai_batch_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	out->id = json_member(rec, "custom_id")->valuestring;
	const cJSON *body = json_member(rec, "body"), *url = json_member(rec, "url");
	if (!cJSON_IsObject(body)) { /* an output line: its response, for the request of its custom_id */
		const cJSON *resp = json_member(rec, "response");
		out->result = json_member(resp, "body");
		if (!cJSON_IsObject(out->result))
			out->result = NULL;
		out->skip = "a result (of the batch's output)";
		out->is_result = true;
		return CS_OK;
	}
	if (cJSON_IsString(url)) {
		out->provider = request_endpoint_provider(url->valuestring);
		if (out->provider < 0) {
			out->skip = arena_printf(&src->arena, "a request to %.120s", url->valuestring);
			return out->skip ? CS_OK : CS_ENOMEM;
		}
	}
	out->body = body;
	return CS_OK;
}

const struct req_shape request_shape_openai_batch = {
	.name = "openai-batch", .title = "OpenAI Batch file", .is = openai_batch_is, .take = openai_batch_take,
	.lacks = "the requests: they are in the batch's input file (one {custom_id, method, url, body} a line); "
		 "put it beside this one as NAME.jsonl for NAME_output.jsonl, and open it",
};

static const cJSON *anthropic_batch_records(const cJSON *root, const char **where)
{
	*where = "requests";
	const cJSON *r = json_member(root, "requests");
	return cJSON_IsArray(r) ? r : NULL;
}

static bool anthropic_batch_is(const cJSON *obj)
{
	const cJSON *reqs = json_member(obj, "requests");
	if (cJSON_IsArray(reqs))
		return !reqs->child || json_member(reqs->child, "params");
	return cJSON_IsString(json_member(obj, "custom_id")) &&
	       (cJSON_IsObject(json_member(obj, "result")) || cJSON_IsObject(json_member(obj, "params")));
}

static int anthropic_batch_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	(void)src;
	const cJSON *id = json_member(rec, "custom_id");
	out->id = cJSON_IsString(id) ? id->valuestring : NULL;
	const cJSON *params = json_member(rec, "params"), *result = json_member(rec, "result");
	if (cJSON_IsObject(params)) {
		out->body = params;
		out->provider = REQ_ANTHROPIC;
		return CS_OK;
	}
	const cJSON *type = json_member(result, "type");
	out->result = json_member(result, "message");
	if (!cJSON_IsObject(out->result))
		out->result = NULL;
	out->is_result = out->id != NULL;
	out->skip = cJSON_IsString(type) && strcmp(type->valuestring, "succeeded") ? "a result that did not succeed"
										    : "a result (of the batch's results file)";
	if (!out->id)
		out->skip = "an element without a custom_id";
	return CS_OK;
}

const struct req_shape request_shape_anthropic_batch = {
	.name = "anthropic-batch", .title = "Anthropic Message Batch", .is = anthropic_batch_is,
	.records = anthropic_batch_records, .take = anthropic_batch_take,
	.lacks = "the requests: they are in the batch's create body ({\"requests\": [{custom_id, params}]}); put it "
		 "beside this one as NAME.json for NAME_results.jsonl, and open it",
};

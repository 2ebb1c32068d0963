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
	return json_is_string(json_member(obj, "custom_id")) &&
	       (json_is_object(json_member(obj, "body")) || json_member(obj, "response") || json_member(obj, "error"));
}

static int openai_batch_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	out->id = json_string_value(json_member(rec, "custom_id"));
	const cJSON *body = json_member(rec, "body"), *url = json_member(rec, "url");
	if (!json_is_object(body)) { /* an output line: its response, for the request of its custom_id */
		const cJSON *resp = json_member(rec, "response");
		out->result = json_member(resp, "body");
		if (!json_is_object(out->result))
			out->result = NULL;
		out->skip = "a result (of the batch's output)";
		out->is_result = true;
		return CS_OK;
	}
	if (json_is_string(url)) {
		out->provider = request_endpoint_provider(json_string_value(url));
		if (out->provider < 0) {
			out->skip = arena_printf(&src->arena, "a request to %.120s", json_string_value(url));
			return out->skip ? CS_OK : CS_ENOMEM;
		}
	}
	out->body = body;
	return CS_OK;
}

REQUEST_SHAPE(openai_batch, "openai-batch", "OpenAI Batch file", .is = openai_batch_is, .take = openai_batch_take,
	      .lacks = "the requests: they are in the batch's input file (one {custom_id, method, url, body} a "
		       "line); put it beside this one as NAME.jsonl for NAME_output.jsonl, and open it");

static const cJSON *anthropic_batch_records(const cJSON *root, const char **where)
{
	*where = "requests";
	const cJSON *r = json_member(root, "requests");
	return json_is_array(r) ? r : NULL;
}

static bool anthropic_batch_is(const cJSON *obj)
{
	const cJSON *reqs = json_member(obj, "requests");
	if (json_is_array(reqs))
		return !json_first(reqs) || json_member(json_first(reqs), "params");
	return json_is_string(json_member(obj, "custom_id")) &&
	       (json_is_object(json_member(obj, "result")) || json_is_object(json_member(obj, "params")));
}

static int anthropic_batch_take(struct source *src, const cJSON *rec, struct req_record *out)
{
	(void)src;
	const cJSON *id = json_member(rec, "custom_id");
	out->id = json_string_value(id);
	const cJSON *params = json_member(rec, "params"), *result = json_member(rec, "result");
	if (json_is_object(params)) {
		out->body = params;
		out->provider = REQ_ANTHROPIC;
		return CS_OK;
	}
	const cJSON *type = json_member(result, "type");
	out->result = json_member(result, "message");
	if (!json_is_object(out->result))
		out->result = NULL;
	out->is_result = out->id != NULL;
	out->skip = json_is_string(type) && strcmp(json_string_value(type), "succeeded") ? "a result that did not succeed"
										    : "a result (of the batch's results file)";
	if (!out->id)
		out->skip = "an element without a custom_id";
	return CS_OK;
}

REQUEST_SHAPE(anthropic_batch, "anthropic-batch", "Anthropic Message Batch", .is = anthropic_batch_is,
	      .records = anthropic_batch_records, .take = anthropic_batch_take,
	      .lacks = "the requests: they are in the batch's create body ({\"requests\": [{custom_id, params}]}); "
		       "put it beside this one as NAME.json for NAME_results.jsonl, and open it");

#!/usr/bin/env python3
"""Writes the log-shape fixtures of ctxscope-formats(5) section 6b (constructed from the
documented shapes, not captured): an HTTP capture of an agent that
interleaves a small Haiku check between its Sonnet requests, streamed
(server-sent events) and not; a streamed OpenAI capture; LiteLLM payloads of
two models; an OpenAI Batch input with its output beside it; an Anthropic
Message Batch with its results beside it; a HAR. Recorded usage is computed
here by Anthropic's and OpenAI's rules on ctxscope's estimate (ceil(code
points / 4) a block), so predictions and records agree unless a case says
otherwise. Run from this folder."""
import json, math

def tok(s):
    return math.ceil(len(s) / 4)

def cj(o):
    return json.dumps(o, separators=(',', ':'), ensure_ascii=False)

RULES = ("You are Tern, a coding agent for the Quaykeeper repository. Read before you edit; run the tests "
         "after every change; never push to main. ") * 40
TOOLS_NOTE = "Tools: read_file(path), edit_file(path, old, new), run(cmd). Each returns text. " * 8
ASKS = ["Why is the booking export empty for March?",
        "Check the date filter in export/filters.py.",
        "Fix it so the end date is inclusive.",
        "Add a test for the last day of the month.",
        "Run the tests."]
ANSWERS = ["The export reads bookings through filters.by_range, which drops the last day.",
           "by_range compares end < date instead of end <= date, so 31 March is dropped.",
           "Changed the comparison to <= and kept the start bound as it was.",
           "The test books a berth on 31 March and checks that the export lists it."]

def sonnet_body(k):
    msgs = []
    for i in range(k + 1):
        msgs.append({"role": "user", "content": [{"type": "text", "text": ASKS[i]}]})
        if i < k:
            msgs.append({"role": "assistant", "content": [{"type": "text", "text": ANSWERS[i]}]})
    msgs[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 4096,
            "system": [{"type": "text", "text": RULES},
                       {"type": "text", "text": TOOLS_NOTE, "cache_control": {"type": "ephemeral"}}],
            "messages": msgs}

def haiku_body(k):
    return {"model": "claude-haiku-4-5-20251001", "max_tokens": 1,
            "messages": [{"role": "user", "content": "quota %d" % k}]}

def blocks_tokens(body):
    n = sum(tok(b["text"]) for b in body.get("system", []))
    for m in body["messages"]:
        c = m["content"]
        n += tok(c) if isinstance(c, str) else sum(tok(b["text"]) for b in c)
    return n

def sse_anthropic(usage, out, diag=None):
    msg = {"id": "msg_x", "type": "message", "role": "assistant", "content": [], "model": "m",
           "usage": dict(usage, output_tokens=1)}
    if diag is not None:
        msg["diagnostics"] = diag
    ev = [("message_start", {"type": "message_start", "message": msg}),
          ("content_block_start", {"type": "content_block_start", "index": 0,
                                   "content_block": {"type": "text", "text": ""}}),
          ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                   "delta": {"type": "text_delta", "text": "Looking at it."}}),
          ("content_block_stop", {"type": "content_block_stop", "index": 0}),
          ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                             "usage": {"output_tokens": out // 2}}),
          ("message_delta", {"type": "message_delta", "delta": {}, "usage": {"output_tokens": out}}),
          ("message_stop", {"type": "message_stop"})]
    return "".join("event: %s\ndata: %s\n\n" % (n, cj(d)) for n, d in ev)

def capture_line(t, url, body, response):
    return {"request": {"timestamp": t, "method": "POST", "url": url,
                        "headers": {"content-type": "application/json", "x-api-key": "sk-ant-fixture-key-0001"},
                        "body": body},
            "response": dict({"timestamp": t + 2.5, "status_code": 200, "headers": {}}, **response),
            "logged_at": "2026-11-28T10:%02d:%02d.000Z" % (int(t - 1764324000) // 60, int(t - 1764324000) % 60)}

def write_capture():
    t0 = 1764324000.125  # 2025-11-28T10:00:00Z (logged_at, a year on, is not read: request.timestamp wins)
    lines, written = [], 0
    for k in range(5):
        t = t0 + k * 60
        if k:
            hb = haiku_body(k)
            lines.append(capture_line(t - 20, "https://api.anthropic.com/v1/messages", hb,
                                      {"body": {"id": "msg_h%d" % k, "type": "message", "content": [],
                                                "usage": {"input_tokens": blocks_tokens(hb), "output_tokens": 1,
                                                          "cache_read_input_tokens": 0,
                                                          "cache_creation_input_tokens": 0}}}))
            lines.append(capture_line(t - 10, "https://api.anthropic.com/v1/messages/count_tokens",
                                      {"model": "claude-sonnet-4-5-20250929", "messages": []},
                                      {"body": {"input_tokens": 12}}))
        b = sonnet_body(k)
        total = blocks_tokens(b)
        read = written  # the whole prefix the request before left
        wrote = total - read
        usage = {"input_tokens": 0, "cache_read_input_tokens": read, "cache_creation_input_tokens": wrote,
                 "cache_creation": {"ephemeral_5m_input_tokens": wrote, "ephemeral_1h_input_tokens": 0}}
        if k == 3:  # the record differs from any prediction by far: flagged
            usage["cache_read_input_tokens"] = read // 2
            usage["cache_creation_input_tokens"] = total - read // 2
            usage["cache_creation"]["ephemeral_5m_input_tokens"] = total - read // 2
        diag = None if k == 0 else ({"cache_miss_reason": None} if k != 3 else
                                    {"cache_miss_reason": {"type": "system_changed",
                                                           "cache_missed_input_tokens": read // 2}})
        if k % 2 == 0:
            resp = {"body": None, "body_raw": sse_anthropic(usage, 120 + k, diag)}
        else:
            body = {"id": "msg_s%d" % k, "type": "message", "content": [], "usage": dict(usage, output_tokens=90)}
            if diag is not None:
                body["diagnostics"] = diag
            resp = {"body": body}
        lines.append(capture_line(t, "https://api.anthropic.com/v1/messages", b, resp))
        written = total
    with open("capture-claude.jsonl", "w") as f:
        for l in lines:
            f.write(cj(l) + "\n")

OPENAI_SYS = ("You are the support assistant of Quaykeeper, a marina booking service. Answer from the policy "
              "pages only and quote the section you rely on. ") * 30

def openai_body(k, model="gpt-4o"):
    msgs = [{"role": "system", "content": OPENAI_SYS}]
    for i in range(k + 1):
        msgs.append({"role": "user", "content": ASKS[i]})
        if i < k:
            msgs.append({"role": "assistant", "content": ANSWERS[i]})
    return {"model": model, "messages": msgs, "stream": True, "stream_options": {"include_usage": True}}

def openai_tokens(body):
    return sum(tok(m["content"]) for m in body["messages"])

def sse_openai(prompt, cached, out):
    chunks = [{"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}], "usage": None},
              {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "Section 4.2 says"}}], "usage": None},
              {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": None},
              {"id": "c1", "object": "chat.completion.chunk", "choices": [],
               "usage": {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out,
                         "prompt_tokens_details": {"cached_tokens": cached}}}]
    return "".join("data: %s\n\n" % cj(c) for c in chunks) + "data: [DONE]\n\n"

def write_openai_stream():
    t0 = 1764324000
    prev = 0
    with open("capture-openai-stream.jsonl", "w") as f:
        for k in range(4):
            b = openai_body(k)
            total = openai_tokens(b)
            cached = prev // 128 * 128 if prev >= 1024 else 0
            line = capture_line(t0 + 30 * k, "https://api.openai.com/v1/chat/completions", b,
                                {"body": None, "body_raw": sse_openai(total, cached, 30)})
            f.write(cj(line) + "\n")
            prev = total

def litellm_line(k, model, t, usage, body):
    return {"id": "chatcmpl-%d" % k, "call_type": "acompletion", "model": model,
            "custom_llm_provider": "anthropic" if "claude" in model else "openai",
            "messages": body["messages"], "startTime": t, "endTime": t[:-9] + "01.500000" if isinstance(t, str) else t + 1.5,
            "metadata": {"user_api_key_hash": "88dc28d0f030c55ed4ab77ed8faf098196cb1c05df778539800c9f1243fe6b4b"},
            "response": {"id": "r%d" % k, "object": "chat.completion", "model": model, "usage": usage}}

def write_litellm():
    lines = []
    prev = {"gpt-4o": 0}
    for k in range(4):
        b = openai_body(k)
        b.pop("stream"); b.pop("stream_options")
        total = openai_tokens(b)
        cached = prev["gpt-4o"] // 128 * 128 if prev["gpt-4o"] >= 1024 else 0
        lines.append(litellm_line(2 * k, "gpt-4o", "2026-11-28 10:%02d:00.000000" % k,
                                  {"prompt_tokens": total, "completion_tokens": 25, "total_tokens": total + 25,
                                   "prompt_tokens_details": {"cached_tokens": cached}}, b))
        prev["gpt-4o"] = total
        hb = {"messages": [{"role": "user", "content": "Title this chat in three words: %s" % ASKS[k]}]}
        ht = openai_tokens(hb)
        lines.append(litellm_line(2 * k + 1, "claude-haiku-4-5", "2026-11-28 10:%02d:20.000000" % k,
                                  {"prompt_tokens": ht, "completion_tokens": 4, "total_tokens": ht + 4,
                                   "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}, hb))
    with open("litellm.jsonl", "w") as f:
        for l in lines:
            f.write(cj(l) + "\n")

def write_openai_batch():
    with open("openai_batch.jsonl", "w") as fi, open("openai_batch_output.jsonl", "w") as fo:
        for k in range(3):
            b = openai_body(k, "gpt-4o-mini")
            b.pop("stream"); b.pop("stream_options")
            fi.write(cj({"custom_id": "req-%d" % k, "method": "POST", "url": "/v1/chat/completions", "body": b}) + "\n")
        fi.write(cj({"custom_id": "emb-1", "method": "POST", "url": "/v1/embeddings",
                     "body": {"model": "text-embedding-3-small", "input": "berth"}}) + "\n")
        for k in (2, 0, 1):  # output lines come in any order
            total = openai_tokens(openai_body(k))
            fo.write(cj({"id": "batch_req_%d" % k, "custom_id": "req-%d" % k,
                         "response": {"status_code": 200, "request_id": "r%d" % k,
                                      "body": {"id": "chatcmpl-%d" % k, "object": "chat.completion",
                                               "usage": {"prompt_tokens": total, "completion_tokens": 20,
                                                         "total_tokens": total + 20,
                                                         "prompt_tokens_details": {"cached_tokens": 0}}}},
                         "error": None}) + "\n")
        fo.write(cj({"id": "batch_req_9", "custom_id": "req-9", "response": None,
                     "error": {"code": "not_found", "message": "no such request"}}) + "\n")

def write_anthropic_batch():
    reqs = []
    for k in range(3):
        reqs.append({"custom_id": "turn-%d" % k, "params": sonnet_body(k)})
    with open("msgbatch.json", "w") as f:
        f.write(json.dumps({"requests": reqs}, indent=1) + "\n")
    with open("msgbatch_results.jsonl", "w") as f:
        for k in range(3):
            total = blocks_tokens(sonnet_body(k))
            res = {"type": "succeeded",
                   "message": {"id": "msg_b%d" % k, "type": "message", "content": [],
                               "usage": {"input_tokens": total, "output_tokens": 50,
                                         "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}}
            if k == 2:
                res = {"type": "errored", "error": {"type": "error", "error": {"type": "overloaded_error"}}}
            f.write(cj({"custom_id": "turn-%d" % k, "result": res}) + "\n")

def write_har():
    entries = []
    written = 0
    for k in range(3):
        b = sonnet_body(k)
        total = blocks_tokens(b)
        usage = {"input_tokens": 0, "cache_read_input_tokens": written,
                 "cache_creation_input_tokens": total - written}
        if k == 1:
            text = sse_anthropic(usage, 77)
            mime = "text/event-stream"
        else:
            text = cj({"id": "msg_%d" % k, "type": "message", "content": [], "usage": dict(usage, output_tokens=40)})
            mime = "application/json"
        entries.append({"startedDateTime": "2026-11-28T10:0%d:00.000Z" % k, "time": 2100,
                        "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages",
                                    "httpVersion": "HTTP/1.1",
                                    "headers": [{"name": "Content-Type", "value": "application/json"}],
                                    "postData": {"mimeType": "application/json", "text": cj(b)}},
                        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [],
                                     "content": {"size": len(text), "mimeType": mime, "text": text}}})
        written = total
    entries.insert(1, {"startedDateTime": "2026-11-28T10:00:30.000Z", "time": 80,
                       "request": {"method": "GET", "url": "https://claude.ai/api/organizations", "headers": []},
                       "response": {"status": 200, "content": {"size": 2, "mimeType": "application/json", "text": "[]"}}})
    with open("session.har", "w") as f:
        f.write(json.dumps({"log": {"version": "1.2", "creator": {"name": "fixture", "version": "1"},
                                    "entries": entries}}, indent=1) + "\n")

write_capture()
write_openai_stream()
write_litellm()
write_openai_batch()
write_anthropic_batch()
write_har()

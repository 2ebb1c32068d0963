#!/usr/bin/env python3
"""Writes the log-shape fixtures of ctxscope-formats(5) section 6b (constructed from the
documented shapes, not captured): an HTTP capture of an agent that
interleaves a small Haiku check between its Sonnet requests, streamed
(server-sent events) and not; a streamed OpenAI capture; LiteLLM payloads of
two models; an OpenAI Batch input with its output beside it; an Anthropic
Message Batch with its results beside it; a HAR; bodies with images inside
tool results (section 7b), Anthropic and OpenAI Responses; a capture whose
system prompt is cached with scope "global" (section 7b); captures whose
bodies name the response the provider's cache diagnosis compares with
(section 6b), Anthropic and OpenAI Responses. Recorded usage is computed
here by Anthropic's and OpenAI's rules on ctxscope's estimate (ceil(code
points / 4) a block), so predictions and records agree unless a case says
otherwise. Run from this folder."""
import json, math, struct, zlib, base64

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

def conversation(k):
    """The first k + 1 asks with the answers between, a breakpoint on the last."""
    msgs = []
    for i in range(k + 1):
        msgs.append({"role": "user", "content": [{"type": "text", "text": ASKS[i]}]})
        if i < k:
            msgs.append({"role": "assistant", "content": [{"type": "text", "text": ANSWERS[i]}]})
    msgs[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return msgs

def sonnet_body(k):
    msgs = conversation(k)
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

def haiku_line(t, k):
    """A small Haiku check between the main requests, its usage in its body."""
    hb = haiku_body(k)
    return capture_line(t, "https://api.anthropic.com/v1/messages", hb,
                        {"body": {"id": "msg_h%d" % k, "type": "message", "content": [],
                                  "usage": {"input_tokens": blocks_tokens(hb), "output_tokens": 1,
                                            "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}}})

def write_capture():
    t0 = 1764324000.125  # 2025-11-28T10:00:00Z (logged_at, a year on, is not read: request.timestamp wins)
    lines, written = [], 0
    for k in range(5):
        t = t0 + k * 60
        if k:
            lines.append(haiku_line(t - 20, k))
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

def png(w, h, n, seed):
    """A PNG of w x h: its signature, IHDR, one IDAT of n made-up bytes
    (the size is all ctxscope reads) and IEND, each chunk with its CRC."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    idat = bytes((i * 7919 + seed) % 251 for i in range(n))
    raw = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
           chunk(b"IDAT", idat) + chunk(b"IEND", b""))
    return base64.b64encode(raw).decode()

SCREENSHOT_ASK = "Here is the mockup of the login page; the page as it runs is at http://localhost:8080/login."
SCREENSHOT_NOTE = "Screenshot of the login page, 2000 x 1008, taken at 10:02."

def write_images():
    """An image inside a tool result is an image, by the provider's rule,
    never its base64 text (section 7b): the same 2000 x 1008 size given
    directly and inside a tool_result; for OpenAI Responses, an input_image
    inside a function_call_output's output."""
    a = {"model": "claude-sonnet-4-5-20250929", "max_tokens": 2048,
         "system": "You review web pages against their mockups. Say what differs and where it is on the page.",
         "tools": [{"name": "screenshot", "description": "Takes a screenshot of the page at a URL.",
                    "input_schema": {"type": "object", "properties": {"url": {"type": "string"}},
                                     "required": ["url"]}}],
         "messages": [
             {"role": "user", "content": [{"type": "text", "text": SCREENSHOT_ASK},
                                          {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                       "data": png(2000, 1008, 24000, 13)}}]},
             {"role": "assistant", "content": [{"type": "text", "text": "I will take a screenshot of the page."},
                                               {"type": "tool_use", "id": "toolu_S1", "name": "screenshot",
                                                "input": {"url": "http://localhost:8080/login"}}]},
             {"role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "toolu_S1",
                  "content": [{"type": "text", "text": SCREENSHOT_NOTE},
                              {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                           "data": png(2000, 1008, 24000, 29)}}]},
                 {"type": "text", "text": "What differs from the mockup?", "cache_control": {"type": "ephemeral"}}]}]}
    with open("images-anthropic.json", "w") as f:
        f.write(json.dumps(a, indent=1) + "\n")
    url = "data:image/png;base64,"
    o = {"model": "gpt-4o", "instructions": "You review web pages against their mockups.",
         "tools": [{"type": "function", "name": "screenshot", "description": "Takes a screenshot of the page at a URL.",
                    "parameters": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}}],
         "input": [
             {"role": "user", "content": [{"type": "input_text", "text": SCREENSHOT_ASK},
                                          {"type": "input_image", "image_url": url + png(1024, 768, 12000, 13)}]},
             {"type": "function_call", "call_id": "call_S1", "name": "screenshot",
              "arguments": "{\"url\":\"http://localhost:8080/login\"}"},
             {"type": "function_call_output", "call_id": "call_S1",
              "output": [{"type": "input_text", "text": SCREENSHOT_NOTE},
                         {"type": "input_image", "image_url": url + png(1024, 768, 12000, 29), "detail": "high"},
                         {"type": "input_image", "image_url": url + png(1024, 768, 3000, 31), "detail": "low"}]},
             {"role": "user", "content": [{"type": "input_text", "text": "What differs from the mockup?"}]}]}
    with open("images-responses.json", "w") as f:
        f.write(json.dumps(o, indent=1) + "\n")

GLOBAL_HEAD = "You are Tern, a coding agent that works in the user's terminal."
GLOBAL_RULES = ("Read the files a change touches before you edit them; keep edits small; run the tests after "
                "every change and report what they say; never push to a shared branch. ") * 60
GLOBAL_TOOLS = [{"name": "read_file", "description": "Reads a file of the repository.",
                 "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
                {"name": "run", "description": "Runs a shell command in the repository and returns its output.",
                 "input_schema": {"type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}}]

def global_body(k):
    msgs = conversation(k)
    glob = {"type": "ephemeral", "scope": "global"}
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 4096, "tools": GLOBAL_TOOLS,
            "system": [{"type": "text", "text": GLOBAL_HEAD, "cache_control": glob},
                       {"type": "text", "text": GLOBAL_RULES, "cache_control": glob}],
            "messages": msgs}

def write_global_capture():
    """A fresh session's first request reads the system prompt another
    session cached with scope "global" (section 7b): recorded read > 0 with
    nothing earlier in the log; the next requests read what the one before
    wrote. A Haiku check in between marks nothing global and reads nothing."""
    t0 = 1764324000.125
    tools = sum(tok(cj(t)) for t in GLOBAL_TOOLS)
    lines, written = [], 0
    for k in range(3):
        t = t0 + k * 60
        if k == 1:
            lines.append(haiku_line(t - 20, k))
        b = global_body(k)
        total = tools + blocks_tokens(b)
        read = written if k else tools + tok(GLOBAL_HEAD) + tok(GLOBAL_RULES)
        usage = {"input_tokens": 0, "cache_read_input_tokens": read, "cache_creation_input_tokens": total - read,
                 "cache_creation": {"ephemeral_5m_input_tokens": total - read, "ephemeral_1h_input_tokens": 0}}
        body = {"id": "msg_g%d" % k, "type": "message", "content": [], "usage": dict(usage, output_tokens=80)}
        lines.append(capture_line(t, "https://api.anthropic.com/v1/messages", b, {"body": body}))
        written = total
    with open("capture-global.jsonl", "w") as f:
        for l in lines:
            f.write(cj(l) + "\n")

def write_compared_captures():
    """Section 6b: each body names the earlier response its diagnosis compares
    with. Anthropic: the second names the first (ctxscope compares with the
    same one: counted), the third names the first too (ctxscope compares with
    the second: not counted), the fourth names a response not in the log.
    OpenAI Responses: the same first two cases."""
    t0 = 1764324000.125
    lines, written = [], 0
    names = [None, "msg_c0", "msg_c0", "msg_c9"]
    why = [None, None, {"type": "messages_changed", "cache_missed_input_tokens": 40},
           {"type": "system_changed", "cache_missed_input_tokens": 900}]
    for k in range(4):
        b = sonnet_body(k)
        if names[k]:
            b["diagnostics"] = {"previous_message_id": names[k]}
        total = blocks_tokens(b)
        usage = {"input_tokens": 0, "cache_read_input_tokens": written, "cache_creation_input_tokens": total - written,
                 "cache_creation": {"ephemeral_5m_input_tokens": total - written, "ephemeral_1h_input_tokens": 0}}
        body = {"id": "msg_c%d" % k, "type": "message", "content": [], "usage": dict(usage, output_tokens=60)}
        if k:
            body["diagnostics"] = {"cache_miss_reason": why[k]}
        lines.append(capture_line(t0 + k * 60, "https://api.anthropic.com/v1/messages", b, {"body": body}))
        written = total
    with open("capture-compared.jsonl", "w") as f:
        for l in lines:
            f.write(cj(l) + "\n")
    lines, prev = [], 0
    names = [None, "resp_0", "resp_0"]
    why = [None, None, {"type": "messages_changed", "cache_missed_input_tokens": 30}]
    for k in range(3):
        inp = []
        for i in range(k + 1):
            inp.append({"role": "user", "content": ASKS[i]})
            if i < k:
                inp.append({"role": "assistant", "content": ANSWERS[i]})
        b = {"model": "gpt-5.6", "instructions": OPENAI_SYS, "input": inp}
        if names[k]:
            b["prompt_cache_options"] = {"comparison_response_id": names[k]}
        total = tok(OPENAI_SYS) + sum(tok(m["content"]) for m in inp)
        resp = {"id": "resp_%d" % k, "object": "response", "model": "gpt-5.6",
                "usage": {"input_tokens": total, "input_tokens_details": {"cached_tokens": prev if prev >= 1024 else 0},
                          "output_tokens": 30, "total_tokens": total + 30}}
        if k:
            resp["prompt_cache_diagnostics"] = {"cache_miss_reason": why[k]}
        lines.append(capture_line(t0 + k * 60, "https://api.openai.com/v1/responses", b, {"body": resp}))
        prev = total
    with open("capture-responses-compared.jsonl", "w") as f:
        for l in lines:
            f.write(cj(l) + "\n")

write_capture()
write_openai_stream()
write_litellm()
write_openai_batch()
write_anthropic_batch()
write_har()
write_images()
write_global_capture()
write_compared_captures()

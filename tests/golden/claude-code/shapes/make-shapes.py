# make-shapes.py: writes the made-up Claude Code sessions of this folder (never real ones), one
# for each shape ctxscope-formats(5) section 7b describes: attachments in the chain, a three-way parallel tool call,
# a 1-hour session with a 20-minute pause, an image in a tool result, a session ending on /exit,
# leading hook lines, a malformed middle line (and usage values that are not counts), the lines
# outside the chain (and one of a type nobody knows), thinking blocks of earlier turns.
#   python3 make-shapes.py DIR
# The recorded usage plays the API: a fixed part not in the file (system prompt and tools), a
# Claude-like count of the messages (1.15 x ceil(code points / 4): the estimate under-counts what
# Claude charges, ctxscope-formats(5) section 7b), Claude Code's breakpoint at the end of every prompt, the first
# request reading the globally cached system prompt, and entries that live 5 minutes or 1 hour.
# The figures are constructed; the expected replays are written out by hand in
# tests/unit/test_claude_code.c (test_shapes).
import base64, json, math, os, struct, sys, zlib

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
MODEL = "claude-opus-4-6"
HIDDEN = 12000   # system prompt and tools
GLOBAL = 9000    # of it, cached across sessions (cache_control scope global)
CWD = "/home/dev/shapes"

def est(s):
    return math.ceil(len(s) / 4)

def claude(s):  # what the API charges for a block's text in these files
    return math.ceil(1.15 * est(s))

def render(b):
    if b["type"] == "text": return b["text"]
    if b["type"] == "thinking": return b["thinking"]
    if b["type"] == "tool_use": return b["name"] + " " + json.dumps(b["input"], separators=(",", ":"))
    if b["type"] == "tool_result":
        c = b["content"]
        return c if isinstance(c, str) else "\n".join(x.get("text", "") for x in c)
    return json.dumps(b)

def png_b64(w, h, pad):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk + bytes(pad)).decode()

class Session:
    def __init__(self, sid, ttl):
        self.sid, self.ttl, self.lines = sid, ttl, []
        self.prompt = 0          # tokens of the messages so far, as charged
        self.last_total = None   # the request before's whole prompt, as charged
        self.last_sec = None
    def t(self, sec):
        h, r = divmod(sec, 3600); m, s = divmod(r, 60)
        return "2026-11-21T%02d:%02d:%02d.000Z" % (10 + h, m, s)
    def base(self, kind, uuid, parent, sec, **kw):
        d = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": CWD,
             "sessionId": self.sid, "version": "2.1.9", "gitBranch": "main", "type": kind, "uuid": uuid,
             "timestamp": self.t(sec)}
        d.update(kw)
        return d
    def raw(self, d):
        self.lines.append(d)
    def charge(self, blocks):
        for b in blocks:
            self.prompt += claude(render(b)) if b.get("type") != "image" else b["_tokens"]
    def user(self, uuid, parent, sec, content, charged=True, **kw):
        d = self.base("user", uuid, parent, sec, **kw)
        d["message"] = {"role": "user", "content": content}
        self.lines.append(d)
        if charged:
            self.charge([{"type": "text", "text": content}] if isinstance(content, str) else content)
    def attachment(self, uuid, parent, sec, att, text=None):
        self.lines.append(self.base("attachment", uuid, parent, sec, attachment=att))
        if text is not None:
            self.prompt += claude(text)
    def progress(self, uuid, parent, sec, tool_use_id=None):
        data = {"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Bash", "command": "check.sh"}
        self.lines.append(self.base("progress", uuid, parent, sec, data=data, toolUseID=tool_use_id,
                                    parentToolUseID=tool_use_id))
    def usage(self, sec, out):
        total = HIDDEN + self.prompt
        alive = self.last_sec is not None and sec - self.last_sec <= self.ttl
        read = self.last_total if alive else (GLOBAL if self.last_sec is None else 0)
        inp = 3
        write = total - read - inp
        u = {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
             "output_tokens": out, "service_tier": "standard"}
        if self.ttl == 3600:
            u["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": write}
        else:
            u["cache_creation"] = {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0}
        self.last_total, self.last_sec = total, sec
        return u
    def assistant(self, lines, parent, sec, mid, out=50, model=MODEL):
        """lines: [(uuid, block)], one block a line, chained; the usage of the request on each."""
        u = self.usage(sec, out)
        p = parent
        for uuid, b in lines:
            d = self.base("assistant", uuid, p, sec)
            d["message"] = {"id": mid, "type": "message", "role": "assistant", "model": model, "content": [b],
                            "stop_reason": None, "stop_sequence": None, "usage": u}
            d["requestId"] = "req_" + mid
            self.lines.append(d)
            p = uuid
        self.charge([b for _, b in lines])
    def write(self, name, extra=None):
        with open(os.path.join(OUT, name), "w") as f:
            for d in self.lines:
                f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
            for s in extra or []:
                f.write(s + "\n")

def text(s): return {"type": "text", "text": s}
def use(i, name, inp): return {"type": "tool_use", "id": i, "name": name, "input": inp}
def result(i, content): return {"type": "tool_result", "tool_use_id": i, "content": content}

# 1. attachments in the chain: user -> attachments -> assistant; a progress line between a call and
# its result; a hook_success attachment (not for the model) as a link.
s = Session("a7e1c0de-0001-4000-8000-000000000001", 300)
s.user("u1", None, 0, "Rename parse_all to parse_records everywhere in src/.")                      # line 1
skills = "Available skills:\n- pdf: read and fill PDF forms\n- changelog: write a changelog entry"
s.attachment("t1", "u1", 0, {"type": "skill_listing", "content": skills}, skills)                   # line 2
ctx = ["Project rule: run `make check` before you say a change is done.", "The main branch is protected."]
s.attachment("t2", "t1", 0, {"type": "hook_additional_context", "content": ctx, "hookName": "UserPromptSubmit"},
             "\n".join(ctx))                                                                        # line 3
s.attachment("t3", "t2", 0, {"type": "hook_success", "hookName": "UserPromptSubmit", "stdout": "ok", "stderr": "",
                             "content": "", "exitCode": 0})                                          # line 4
s.assistant([("a1", use("toolu_A1", "Grep", {"pattern": "parse_all", "path": "src"}))], "t3", 2, "msg_A1")  # line 5
s.progress("p1", "a1", 3, "toolu_A1")                                                                # line 6
s.user("r1", "p1", 3, [result("toolu_A1", "src/parser.c:22: int parse_all(\nsrc/main.c:14: parse_all(buf, n, recs, 64);")])  # line 7
todo = [{"content": "Rename in src/parser.c", "status": "in_progress"}, {"content": "Rename in src/main.c", "status": "pending"}]
todo_text = "\n".join(json.dumps(x, separators=(",", ":")) for x in todo)
s.attachment("t4", "r1", 4, {"type": "task_reminder", "content": todo, "itemCount": 2}, todo_text)  # line 8
s.attachment("t5", "t4", 4, {"type": "deferred_tools_delta", "addedNames": ["NotebookEdit", "WebFetch"]},
             "NotebookEdit\nWebFetch")                                                               # line 9
s.assistant([("a2", text("Two places: src/parser.c and src/main.c. I will rename both."))], "t5", 6, "msg_A2")  # line 10
s.write("attachments.jsonl")

# 2. a three-way parallel tool call: a1 -> a2 -> a3 (one message), each result's parent its own call,
# written as the calls finish (r2, r1, r3); the next request's chain runs through r3 only.
s = Session("a7e1c0de-0002-4000-8000-000000000002", 300)
s.user("u1", None, 0, "Read the three config files and tell me which one sets the port.")         # line 1
s.assistant([("a1", text("I'll read all three at once.")),
             ("a2", use("toolu_P1", "Read", {"file_path": CWD + "/etc/a.conf"})),
             ("a3", use("toolu_P2", "Read", {"file_path": CWD + "/etc/b.conf"})),
             ("a4", use("toolu_P3", "Read", {"file_path": CWD + "/etc/c.conf"}))], "u1", 2, "msg_P1")  # lines 2-5
s.user("r2", "a3", 3, [result("toolu_P2", "port = 8080\nhost = 0.0.0.0")])                        # line 6
s.user("r1", "a2", 3, [result("toolu_P1", "name = shapes\nlog = info")])                          # line 7
s.user("r3", "a4", 4, [result("toolu_P3", "timeout = 30")])                                       # line 8
s.assistant([("a5", text("b.conf sets the port: 8080."))], "r3", 6, "msg_P2")                     # line 9
s.user("u2", "a5", 20, "Change it to 9090.")                                                      # line 10
s.assistant([("a6", use("toolu_P4", "Edit", {"file_path": CWD + "/etc/b.conf", "old_string": "port = 8080",
                                              "new_string": "port = 9090"}))], "u2", 22, "msg_P3")  # line 11
s.user("r4", "a6", 23, [result("toolu_P4", "The file " + CWD + "/etc/b.conf has been updated.")])  # line 12
s.assistant([("a7", text("Done: b.conf now sets port 9090."))], "r4", 25, "msg_P4")               # line 13
s.write("parallel-tools.jsonl")

# 3. a 1-hour session (subscription: every write a 1-hour one) with a 20-minute pause: no expiry.
s = Session("a7e1c0de-0003-4000-8000-000000000003", 3600)
s.user("u1", None, 0, "Explain what the retry loop in net/fetch.c does, in two sentences.")       # line 1
s.assistant([("a1", text("It retries a failed fetch up to five times, doubling the wait each time. "
                         "It gives up early on a 4xx answer, which no retry can fix."))], "u1", 3, "msg_H1")  # line 2
s.user("u2", "a1", 3 + 20 * 60, "And why five?")                                                  # line 3
s.assistant([("a2", text("Five tries with doubling waits add up to about half a minute, the proxy's timeout."))],
            "u2", 3 + 20 * 60 + 4, "msg_H2")                                                      # line 4
s.user("u3", "a2", 3 + 20 * 60 + 30, "Thanks.")                                                   # line 5
s.assistant([("a3", text("You're welcome."))], "u3", 3 + 20 * 60 + 33, "msg_H3")                  # line 6
s.write("one-hour.jsonl")

# 4. an image in a tool result: a 2000x1008 screenshot (its base64 about 43,000 characters).
s = Session("a7e1c0de-0004-4000-8000-000000000004", 300)
s.user("u1", None, 0, "Take a screenshot of the login page and tell me what is wrong with it.")   # line 1
s.assistant([("a1", use("toolu_S1", "Screenshot", {"url": "http://localhost:8080/login"}))], "u1", 2, "msg_S1")  # line 2
img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_b64(2000, 1008, 32000)}}
img_charged = dict(img, _tokens=math.ceil(1568 * math.floor(1008 * 1568 / 2000) / 750))
s.user("r1", "a1", 4, [result("toolu_S1", [text("Screenshot of http://localhost:8080/login"), img])], charged=False)  # line 3
s.charge([text("Screenshot of http://localhost:8080/login"), img_charged])
s.assistant([("a2", text("The password field has no label, and the submit button is off screen."))], "r1", 8, "msg_S2")  # line 4
s.write("image-result.jsonl")

# 5. a session ending on /exit: the command and its output on a side branch after the last request.
s = Session("a7e1c0de-0005-4000-8000-000000000005", 300)
s.user("u1", None, 0, "What does `make check` run?")                                             # line 1
s.assistant([("a1", text("The unit tests, the golden tests and the include-cycle check."))], "u1", 2, "msg_E1")  # line 2
s.user("u2", "a1", 10, "Run it.")                                                                  # line 3
s.assistant([("a2", use("toolu_E1", "Bash", {"command": "make check", "description": "Run the checks"}))], "u2", 12, "msg_E2")  # line 4
s.user("r1", "a2", 40, [result("toolu_E1", "unit: 212 passed\ngolden: 440 passed\ncycles: none")])  # line 5
s.assistant([("a3", text("All green: 212 unit tests, 440 golden tests, no include cycles."))], "r1", 42, "msg_E3")  # line 6
s.user("x1", "a3", 60, "<command-name>/exit</command-name>\n<command-message>exit</command-message>\n<command-args></command-args>", charged=False)  # line 7
s.user("x2", "x1", 60, "<local-command-stdout>Goodbye!</local-command-stdout>", charged=False)  # line 8
s.raw(s.base("system", "y1", "a2", 61, subtype="stop_hook_summary", content="Stop hooks ran", level="info"))  # line 9
s.write("exit-ending.jsonl")

# 6. leading hook lines: nine lines before the conversation (queue operations, a permission mode,
# hook attachments and progress, chained), then an ordinary exchange.
s = Session("a7e1c0de-0006-4000-8000-000000000006", 300)
sid = s.sid
s.raw({"type": "queue-operation", "operation": "enqueue", "timestamp": s.t(0), "sessionId": sid, "content": "hello"})  # 1
s.raw({"type": "queue-operation", "operation": "dequeue", "timestamp": s.t(0), "sessionId": sid})                     # 2
s.raw({"type": "permission-mode", "permissionMode": "default", "sessionId": sid})                                    # 3
s.attachment("h1", None, 0, {"type": "hook_success", "hookName": "SessionStart:startup", "stdout": "", "stderr": "",
                             "content": "", "exitCode": 0})                                                          # 4
s.progress("h2", "h1", 0)                                                                                            # 5
s.attachment("h3", "h2", 0, {"type": "hook_success", "hookName": "SessionStart:startup", "stdout": "env ok",
                             "stderr": "", "content": "", "exitCode": 0})                                            # 6
s.progress("h4", "h3", 0)                                                                                            # 7
s.attachment("h5", "h4", 0, {"type": "hook_success", "hookName": "UserPromptSubmit", "stdout": "", "stderr": "",
                             "content": "", "exitCode": 0})                                                          # 8
s.progress("h6", "h5", 0)                                                                                            # 9
s.user("u1", "h6", 1, "Say hello in French.")                                                                        # 10
s.assistant([("a1", text("Bonjour !"))], "u1", 2, "msg_L1")                                                          # 11
s.raw({"type": "last-prompt", "lastPrompt": "Say hello in French.", "sessionId": sid})                               # 12
s.write("leading-hooks.jsonl")

# 7. a malformed middle line (a message that is a string; then a line cut short), and usage values
# that are not counts (-5, 1e999, "12", 1.5): skipped or warned, each named; the rest replays.
s = Session("a7e1c0de-0007-4000-8000-000000000007", 300)
s.user("u1", None, 0, "List the files in src/.")                                                  # line 1
s.assistant([("a1", use("toolu_M1", "Bash", {"command": "ls src"}))], "u1", 2, "msg_M1")           # line 2
s.user("r1", "a1", 3, [result("toolu_M1", "main.c\nparser.c\nparser.h")])                        # line 3
bad = s.base("user", "zz", "r1", 3)
bad["message"] = "not an object"
s.raw(bad)                                                                                        # line 4
s.assistant([("a2", text("Three files: main.c, parser.c and parser.h."))], "r1", 5, "msg_M2")     # line 5
cut = '{"type":"user","uuid":"zz2","parentUuid":"a2","message":{"role":"user","content":"lost'
s.lines.append(None)                                                                               # line 6 (cut short)
s.user("u2", "a2", 30, "Which one is the biggest?")                                               # line 7
s.assistant([("a3", text("parser.c."))], "u2", 32, "msg_M3")                                       # line 8
u = s.lines[-1]["message"]["usage"]
u["input_tokens"] = -5
u["output_tokens"] = 1.5
u["cache_creation"]["ephemeral_5m_input_tokens"] = "12"
with open(os.path.join(OUT, "malformed-middle.jsonl"), "w") as f:
    for d in s.lines:
        line = cut if d is None else json.dumps(d, ensure_ascii=False, separators=(",", ":"))
        if d is not None and d.get("uuid") == "a3":
            line = line.replace('"service_tier"', '"web_search_requests":1e999,"service_tier"').replace(
                '"cache_read_input_tokens":', '"cache_read_input_tokens":1e999,"x":', 1)
        f.write(line + "\n")

# 8. the lines outside the chain (ctxscope-formats(5) section 7b: no uuid, no prompt content) between
# the turns of an exchange, and one line of a type nobody knows (the only one warned of).
s = Session("a7e1c0de-0008-4000-8000-000000000008", 300)
sid = s.sid
s.raw({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": sid})                                 # 1
s.raw({"type": "agent-setting", "agentSetting": "reviewer", "sessionId": sid})                                        # 2
s.raw({"type": "queue-operation", "operation": "enqueue", "timestamp": s.t(0), "sessionId": sid, "content": "Is it sorted?"})  # 3
s.raw({"type": "queue-operation", "operation": "dequeue", "timestamp": s.t(0), "sessionId": sid})                     # 4
s.user("u1", None, 1, "Is the list in data/names.txt sorted?")                                                        # 5
s.raw({"type": "ai-title", "aiTitle": "Check sort order of names", "sessionId": sid})                                 # 6
s.assistant([("a1", text("Yes: every name is in alphabetical order."))], "u1", 3, "msg_O1")                           # 7
s.raw({"type": "custom-title", "customTitle": "names check", "sessionId": sid})                                       # 8
s.raw({"type": "pr-link", "prNumber": 12, "prUrl": "https://example.invalid/pr/12", "sessionId": sid})                # 9
s.raw({"type": "hologram-state", "sessionId": sid, "state": "idle"})                                                  # 10 (unknown)
s.user("u2", "a1", 20, "Thanks.")                                                                                     # 11
s.assistant([("a2", text("You're welcome."))], "u2", 22, "msg_O2")                                                    # 12
s.raw({"type": "last-prompt", "lastPrompt": "Thanks.", "sessionId": sid})                                             # 13
s.write("outside-chain.jsonl")

# 9. thinking blocks of earlier turns on a model whose API strips them (every Haiku, caching.md section
# 1): the second request's prompt holds the first answer's text, not its thinking; the thinking of the
# turn in progress (before a tool result) is sent.
HAIKU = "claude-haiku-5"
s = Session("a7e1c0de-0009-4000-8000-000000000009", 300)
think1 = {"type": "thinking", "thinking": "The user wants the sum of 17 and 25. 17 + 25 = 42. " * 4, "signature": "c2lnMQ=="}
s.user("u1", None, 0, "What is 17 + 25?")                                                                           # 1
s.assistant([("a1", think1), ("a2", text("42."))], "u1", 2, "msg_T1", model=HAIKU)                                  # 2-3
s.prompt -= claude(render(think1))  # stripped from the next requests: the user's next turn is text
s.user("u2", "a2", 10, "Check it with the calculator.")                                                             # 4
think2 = {"type": "thinking", "thinking": "I should call the calculator tool with 17+25 and report what it says. " * 3, "signature": "c2lnMg=="}
s.assistant([("a3", think2), ("a4", use("toolu_T1", "Calc", {"expr": "17+25"}))], "u2", 12, "msg_T2", model=HAIKU)  # 5-6
s.user("r1", "a4", 13, [result("toolu_T1", "42")])                                                                  # 7
s.assistant([("a5", text("The calculator agrees: 42."))], "r1", 15, "msg_T3", model=HAIKU)                          # 8
s.write("thinking-earlier.jsonl")

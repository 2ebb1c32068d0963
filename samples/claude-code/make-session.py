# make-session.py OUT: writes the made-up Claude Code session samples/claude-code/session.jsonl
# (never a real one): tool use, an assistant message over two lines, a sidechain, a
# 12-minute pause past the cache TTL, and a compaction. The recorded usage is computed here from
# the same estimate ctxscope uses (ceil(code points / 4)) plus a fixed 14,210-token system prompt
# and tools, so the figures are constructed, not API captures.
import json, math, sys
SID = "5f1c2a3e-0d4b-4c6e-9a7f-2b8e1d0c4a61"
CWD = "/home/dev/tidepool"
HIDDEN = 14210  # system prompt + tools, not in the file
MODEL = "claude-sonnet-4-5-20250929"
def est(s): return math.ceil(len(s) / 4)
PARSER = "\n".join([
"/* parser.c: tidepool's record parser. */",
"#include \"parser.h\"",
"#include <string.h>",
"",
"int parse_record(const char *s, size_t n, struct record *out)",
"{",
"\tsize_t i = 0;",
"\twhile (s[i] == ' ')",
"\t\ti++;",
"\tif (s[i] == '#')",
"\t\treturn PARSE_COMMENT;",
"\tconst char *eq = memchr(s + i, '=', n - i);",
"\tif (!eq)",
"\t\treturn PARSE_ERROR;",
"\tout->key = s + i;",
"\tout->key_len = (size_t)(eq - s) - i;",
"\tout->value = eq + 1;",
"\tout->value_len = n - (size_t)(eq - s) - 1;",
"\treturn PARSE_OK;",
"}",
"",
"int parse_all(const char *text, size_t len, struct record *recs, size_t cap)",
"{",
"\tsize_t nrec = 0, start = 0;",
"\tfor (size_t i = 0; i <= len; i++) {",
"\t\tif (i < len && text[i] != '\\n')",
"\t\t\tcontinue;",
"\t\tif (nrec == cap)",
"\t\t\treturn -1;",
"\t\tint rc = parse_record(text + start, i - start, &recs[nrec]);",
"\t\tif (rc == PARSE_OK)",
"\t\t\tnrec++;",
"\t\tstart = i + 1;",
"\t}",
"\treturn (int)nrec;",
"}",
]) * 3
lines = []
n = [0]
def t(sec):
    h, r = divmod(sec, 3600); m, s = divmod(r, 60)
    return "2026-11-20T%02d:%02d:%02d.%03dZ" % (9 + h, m, s, 0)
def base(kind, uuid, parent, sec, side=False):
    d = {"parentUuid": parent, "isSidechain": side, "userType": "external", "cwd": CWD, "sessionId": SID,
         "version": "2.0.14", "gitBranch": "main", "type": kind}
    d["uuid"] = uuid; d["timestamp"] = t(sec)
    return d
def user(uuid, parent, sec, content, side=False, **kw):
    d = base("user", uuid, parent, sec, side); d["message"] = {"role": "user", "content": content}; d.update(kw)
    lines.append(d)
def assistant(uuid, parent, sec, mid, block, usage, side=False):
    d = base("assistant", uuid, parent, sec, side)
    d["message"] = {"id": mid, "type": "message", "role": "assistant", "model": MODEL, "content": [block],
                    "stop_reason": None, "stop_sequence": None, "usage": usage}
    d["requestId"] = "req_" + mid[4:]
    lines.append(d)
def usage(inp, write, read, out):
    return {"input_tokens": inp, "cache_creation_input_tokens": write, "cache_read_input_tokens": read,
            "output_tokens": out, "service_tier": "standard"}
def render(b):
    if b["type"] == "text": return b["text"]
    if b["type"] == "tool_use": return b["name"] + " " + json.dumps(b["input"], separators=(",", ":"))
    if b["type"] == "tool_result": return b["content"] if isinstance(b["content"], str) else "\n".join(c["text"] for c in b["content"])
    return json.dumps(b)
seg = []          # estimated tokens of the blocks in the prompt so far (this segment)
state = {"last_total": 0, "last_sec": -10**9, "nmsg": 0}
def add(blocks):
    for b in blocks:
        seg.append(est(render(b)))
    state["nmsg"] += 1
def recorded(sec, out, new_segment=False):
    total = HIDDEN + sum(seg) + 4 * state["nmsg"]
    alive = sec - state["last_sec"] <= 300
    read = 0 if not alive else (HIDDEN if new_segment else state["last_total"])
    inp = 3
    u = usage(inp, total - read - inp, read, out)
    state["last_total"] = total - inp
    state["last_sec"] = sec
    return u
lines.append({"type": "file-history-snapshot", "messageId": "6a0f3e52-1b7c-4d2e-8f90-3c5a7b1d9e04",
              "snapshot": {"messageId": "6a0f3e52-1b7c-4d2e-8f90-3c5a7b1d9e04", "trackedFileBackups": {},
                           "timestamp": t(0)}, "isSnapshotUpdate": False})
ask = "parse_all() in src/parser.c drops the last record when the text has no final newline, and the empty-input test crashes. Find out why and fix it."
user("u-01", None, 0, ask); add([{"type": "text", "text": ask}])
u = recorded(2, 96)
b1 = {"type": "text", "text": "I'll read the parser first, then look at the tests that cover empty input."}
b2 = {"type": "tool_use", "id": "toolu_01READ", "name": "Read", "input": {"file_path": CWD + "/src/parser.c"}}
assistant("a-01", "u-01", 2, "msg_01Aparser", b1, u)
assistant("a-02", "a-01", 3, "msg_01Aparser", b2, u)  # the same message, a second line, the same usage
add([b1, b2])
r1 = {"type": "tool_result", "tool_use_id": "toolu_01READ", "content": PARSER}
user("u-02", "a-02", 4, [r1], toolUseResult={"type": "text", "file": {"filePath": CWD + "/src/parser.c"}}); add([r1])
u = recorded(9, 140)
b3 = {"type": "tool_use", "id": "toolu_02TASK", "name": "Task", "input": {"description": "Find empty-input tests",
      "prompt": "List every test in tests/ that feeds parse_all() empty or unterminated input.", "subagent_type": "general-purpose"}}
assistant("a-03", "u-02", 9, "msg_02Btask", b3, u); add([b3])
# the subagent's own conversation: a sidechain, never in the main prompt
side_q = "SIDECHAIN-ONLY: List every test in tests/ that feeds parse_all() empty or unterminated input."
user("s-01", None, 10, side_q, side=True)
assistant("s-02", "s-01", 14, "msg_S1agent", {"type": "text", "text": "SIDECHAIN-ONLY: test_empty_input and test_no_final_newline in tests/test_parser.c."},
          usage(3, 2210, 9800, 61), side=True)
r2 = {"type": "tool_result", "tool_use_id": "toolu_02TASK", "content": [{"type": "text", "text": "Two tests: test_empty_input and test_no_final_newline (tests/test_parser.c)."}]}
user("u-03", "a-03", 15, [r2]); add([r2])
u = recorded(20, 70)
b4 = {"type": "tool_use", "id": "toolu_03READ", "name": "Read", "input": {"file_path": CWD + "/src/parser.c"}}
assistant("a-04", "u-03", 20, "msg_03Creread", b4, u); add([b4])
r3 = {"type": "tool_result", "tool_use_id": "toolu_03READ", "content": PARSER}
user("u-04", "a-04", 21, [r3]); add([r3])
u = recorded(30, 210)
b5 = {"type": "tool_use", "id": "toolu_04EDIT", "name": "Edit", "input": {"file_path": CWD + "/src/parser.c",
      "old_string": "\tsize_t i = 0;\n\twhile (s[i] == ' ')", "new_string": "\tsize_t i = 0;\n\tif (n == 0)\n\t\treturn PARSE_EMPTY;\n\twhile (i < n && s[i] == ' ')"}}
assistant("a-05", "u-04", 30, "msg_04Dedit", b5, u); add([b5])
r4 = {"type": "tool_result", "tool_use_id": "toolu_04EDIT", "content": "The file " + CWD + "/src/parser.c has been updated."}
user("u-05", "a-05", 31, [r4]); add([r4])
u = recorded(36, 88)
b6 = {"type": "text", "text": "Fixed: parse_record() read past the end of an empty line. It now returns PARSE_EMPTY for n == 0 and stops at n."}
assistant("a-06", "u-05", 36, "msg_05Edone", b6, u); add([b6])
lines.append({"parentUuid": "a-06", "isSidechain": False, "type": "system", "subtype": "local_command",
              "content": "<command-name>/cost</command-name>", "level": "info", "uuid": "y-01", "timestamp": t(40),
              "sessionId": SID, "cwd": CWD, "version": "2.0.14"})
q2 = "Thanks. Does the last record still get dropped when there is no final newline?"
user("u-06", "y-01", 36 + 12 * 60, q2); add([{"type": "text", "text": q2}])  # twelve minutes later: past the 5-minute TTL
u = recorded(36 + 12 * 60 + 5, 120)
b7 = {"type": "text", "text": "No: the loop runs to i == len, so the last record is parsed even without a newline."}
assistant("a-07", "u-06", 36 + 12 * 60 + 5, "msg_06Fttl", b7, u); add([b7])
sec = 36 + 12 * 60 + 60
pre = HIDDEN + sum(seg)
lines.append({"parentUuid": None, "logicalParentUuid": "a-07", "isSidechain": False, "type": "system",
              "subtype": "compact_boundary", "content": "Conversation compacted", "level": "info",
              "compactMetadata": {"trigger": "manual", "preTokens": pre}, "uuid": "c-01", "timestamp": t(sec),
              "sessionId": SID, "cwd": CWD, "version": "2.0.14"})
seg.clear(); state["nmsg"] = 0
summ = ("This session is being continued from a previous conversation that ran out of context. Summary: the user "
        "asked why parse_all() in src/parser.c dropped records; parse_record() now returns PARSE_EMPTY for empty "
        "lines and stops at n. Tests: test_empty_input, test_no_final_newline.")
user("u-07", "c-01", sec + 1, summ, isCompactSummary=True, isVisibleInTranscriptOnly=True); add([{"type": "text", "text": summ}])
q3 = "Add a test for a line that is only spaces."
user("u-08", "u-07", sec + 20, q3); add([{"type": "text", "text": q3}])
u = recorded(sec + 25, 180, new_segment=True)
b8 = {"type": "tool_use", "id": "toolu_05WRITE", "name": "Edit", "input": {"file_path": CWD + "/tests/test_parser.c",
      "old_string": "static void test_empty_input(void)", "new_string": "static void test_only_spaces(void)\n{\n\tstruct record r;\n\tassert(parse_record(\"   \", 3, &r) == PARSE_ERROR);\n}\n\nstatic void test_empty_input(void)"}}
assistant("a-08", "u-08", sec + 25, "msg_07Gtest", b8, u); add([b8])
r5 = {"type": "tool_result", "tool_use_id": "toolu_05WRITE", "content": "The file " + CWD + "/tests/test_parser.c has been updated."}
user("u-09", "a-08", sec + 26, [r5]); add([r5])
u = recorded(sec + 30, 40)
b9 = {"type": "text", "text": "Added test_only_spaces(): a line of spaces has no '=' and is a parse error."}
assistant("a-09", "u-09", sec + 30, "msg_08Hend", b9, u); add([b9])
lines.append({"type": "summary", "summary": "Parser: empty input and unterminated last record", "leafUuid": "a-09"})
lines.append({"type": "queue-operation", "operation": "enqueue", "timestamp": t(sec + 31), "sessionId": SID})
with open(sys.argv[1], "w") as f:
    for d in lines:
        f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
# the subagent's file beside the session, as Claude Code writes one per Task:
# its sidechain lines again, with its agentId (listed apart, never in a prompt)
import os
agent = os.path.join(os.path.dirname(sys.argv[1]) or ".", "agent-7c1e9b2d.jsonl")
with open(agent, "w") as f:
    for d in lines:
        if d.get("isSidechain"):
            f.write(json.dumps(dict(d, agentId="7c1e9b2d"), ensure_ascii=False, separators=(",", ":")) + "\n")

#!/usr/bin/env python3
"""Writes samples/loom/long-session.json: a long pairing session (200 nodes)
hardening cfgparse after its fuzzer found a string of bugs, one finding per
round. The text is ours, written for this project; each round is one real-
looking bug (symptom, code, cause, fix, test), so truncation has something
honest to cut. Run from the repository root:
    python3 tests/loom/make-long-dialogue.py
The output is deterministic (fixed timestamps), so rerunning it changes
nothing unless this file changes."""
import json

# (symptom, evidence, function, file, cause, fix, test)
ROUNDS = [
 ("a crash on a config that is only a comment", "ASan: heap-buffer-overflow READ of size 1 in skip_comment, 0 bytes after a 9-byte region",
  "skip_comment", "src/lexer.c", "skip_comment looks for the newline with `while (*p != '\\n') p++;` and a file that ends inside a comment has no newline",
  "bound the loop: `while (p < lx->end && *p != '\\n') p++;`", "a fixture holding just `# note` with no trailing newline"),
 ("numbers like 1e999 parse as 0", "cfg_get_double(\"timeout\") returns 0.0 for `timeout = 1e999` instead of an error",
  "scan_number", "src/lexer.c", "strtod sets errno to ERANGE and returns HUGE_VAL, but scan_number never resets or checks errno",
  "set errno = 0 before strtod and report `number out of range` when errno == ERANGE", "1e999 and -1e999 must be errors, 1e-999 must be 0 with a warning"),
 ("duplicate keys silently keep the first value", "`port = 80` then `port = 8080` in one section gives 80",
  "object_put", "src/cfg.c", "object_put inserts without looking for an existing key, and lookup returns the first match",
  "look the key up first and fail with `duplicate key \"port\" (first at line 3)`", "a section with port twice must fail and name both lines"),
 ("a 300-deep nested section overflows the stack", "SIGSEGV in parse_object with a backtrace 300 frames deep",
  "parse_object", "src/parser.c", "parse_object and parse_array recurse with no depth limit",
  "carry a depth counter in struct parser and stop at CFG_MAX_DEPTH (128) with `nested too deeply`", "129 nested sections fail cleanly, 128 parse"),
 ("tabs in indentation give wrong column numbers", "an error on line 7 says column 3 where the editor shows column 17",
  "lex_error", "src/lexer.c", "the column counts bytes since the last newline, so a tab counts as 1 and a UTF-8 character as 2 or 3",
  "count code points and expand tabs to the next multiple of 8, as the editor does", "a tab-indented bad value reports column 17"),
 ("a BOM at the start of the file is a syntax error", "`unexpected character '\\xEF' at 1:1` on files saved by Notepad",
  "lexer_init", "src/lexer.c", "nothing skips the UTF-8 byte order mark EF BB BF",
  "skip a leading BOM in lexer_init and keep column numbers as if it were not there", "the same fixture with and without a BOM parses identically"),
 ("memory leak when a value fails to parse", "LeakSanitizer: 48 bytes in 1 object allocated from cfg_value_new",
  "parse_pair", "src/parser.c", "parse_pair allocates the key, then returns on a value error without freeing it",
  "free the key on every error path; one `goto fail` at the end keeps it readable", "every fixture under fixtures/bad/ runs clean under LSan"),
 ("escaped unicode produces garbage", "`name = \"caf\\u00e9\"` reads back as caf\\xC3 followed by a stray byte",
  "decode_escape", "src/lexer.c", "decode_escape writes the code point as one byte instead of encoding it as UTF-8",
  "encode \\uXXXX as UTF-8, reject lone surrogates, and combine surrogate pairs", "caf\\u00e9, \\ud83d\\ude00 and a lone \\ud800 (error)"),
 ("integers past 2^53 lose precision", "`id = 9007199254740993` reads back as ...992",
  "scan_number", "src/lexer.c", "every number goes through strtod, so large integers are rounded to the nearest double",
  "parse integers without '.', 'e' or 'E' with strtoll and keep them as CFG_INT", "2^53 + 1 round-trips exactly; 2^63 is `integer out of range`"),
 ("CRLF files report every line twice as long", "errors on Windows-edited files point one column too far right per line",
  "next_line", "src/lexer.c", "the '\\r' of each CRLF stays in the line and is counted as a character",
  "treat \\r\\n as one line break and a lone \\r as a line break too", "the CRLF copy of deploy.cfg gives the same positions as the LF one"),
 ("an empty array makes cfg_get_array return NULL", "`hosts = []` then cfg_get_array(\"hosts\") is NULL, which callers read as missing",
  "parse_array", "src/parser.c", "parse_array only allocates the item vector on the first item",
  "always return a CFG_ARRAY value, with items NULL and count 0 for []", "[] has type CFG_ARRAY and count 0"),
 ("a trailing comma in an array is accepted", "`ports = [80, 443,]` parses as two items without a word",
  "parse_array", "src/parser.c", "after a comma the loop checks for ']' before it demands a value",
  "after a comma require a value; report `trailing comma` at the comma's position", "[80, 443,] fails at 1:16"),
 ("include of a missing file crashes", "SIGSEGV in cfg_include when `@include \"local.cfg\"` names a file that does not exist",
  "cfg_include", "src/cfg.c", "the return value of cfg_parse_file is used without checking for NULL",
  "propagate the error with the include chain: `local.cfg: not found (included from deploy.cfg:2)`", "a missing include names the including file and line"),
 ("an include cycle hangs", "`a.cfg` includes `b.cfg`, which includes `a.cfg`; the process spins until the OOM killer",
  "cfg_include", "src/cfg.c", "there is no record of which files are already being parsed",
  "keep a stack of (device, inode) pairs of open includes and fail on a repeat", "a.cfg <-> b.cfg fails with the cycle spelled out"),
 ("keys with dots are split wrongly", "`\"log.level\" = debug` becomes section log, key level",
  "parse_key", "src/parser.c", "parse_key splits on '.' before it checks whether the key was quoted",
  "only split bare keys; a quoted key is one key whatever it holds", "\"log.level\" and log.level are two different keys"),
 ("a NUL byte in a string truncates it", "`motd = \"hi\\u0000there\"` reads back as \"hi\"",
  "cfg_get_string", "src/cfg.c", "strings are stored with their length but returned as plain char * and read with strlen",
  "add cfg_get_string_n returning the length, and make cfg_get_string fail on embedded NUL", "the NUL case through both getters"),
 ("booleans accept yes/no in some places only", "`enabled = yes` works in [server] but not in [client]",
  "parse_bool", "src/parser.c", "[server] values go through the legacy path that maps yes/no, [client] through parse_bool",
  "one parse_bool for both; accept true/false only and warn once on yes/no", "yes in both sections gives the same warning"),
 ("a huge string allocates 2 GB", "a fuzzer input with a 60 MB string runs the RSS to 2 GB before failing",
  "strbuf_grow", "src/strbuf.c", "strbuf_grow doubles from the current capacity plus the request, so it grows 4x per step",
  "grow to max(cap * 2, need) and cap strings at CFG_MAX_STRING (16 MB)", "a 17 MB string fails with `string too long` and RSS stays under 64 MB"),
 ("error messages print raw control characters", "a bad key holding ESC sequences repaints the developer's terminal",
  "lex_error", "src/lexer.c", "the offending text is copied into the message as is",
  "escape anything below 0x20 and 0x7F as \\xHH in messages", "an ESC in a key shows as \\x1B in the error"),
 ("a section header with spaces is rejected", "`[ server ]` gives `expected section name`",
  "parse_section", "src/parser.c", "parse_section expects the name right after '[' and the ']' right after the name",
  "skip blanks inside the brackets; keep names themselves free of spaces", "[ server ] equals [server]; [my server] is still an error"),
 ("negative zero prints as 0", "cfg_dump writes `offset = 0` for `offset = -0.0`, so round-trips change the file",
  "format_double", "src/dump.c", "format_double uses %g, which prints -0.0 as -0 on glibc and 0 on musl",
  "format with %.17g and special-case signbit for zero", "-0.0 round-trips on both libcs"),
 ("parsing is quadratic on long lines", "a 1 MB single-line array takes 40 s to parse",
  "lexer_position", "src/lexer.c", "every token recomputes its column by scanning back to the last newline",
  "track line and column incrementally as the lexer advances", "the 1 MB line parses in under 50 ms"),
 ("thread sanitizer flags cfg_get", "TSan: data race on cfg->lookup_cache between two reader threads",
  "cfg_get", "src/cfg.c", "cfg_get fills a one-entry lookup cache, so 'read-only' lookups write shared state",
  "drop the cache; the hash lookup is already O(1)", "two threads x 1M lookups run clean under TSan"),
 ("the fuzzer finds a double free after an include error", "ASan: attempt double-free in cfg_free via cfg_include",
  "cfg_include", "src/cfg.c", "on error the included tree is freed and then freed again with the parent, which already linked it",
  "link the child into the parent only after it parsed; free it alone on failure", "the fuzzer's crash-3f2a input runs clean"),
 ("the last value in a file without newline is lost", "`retries = 3` as the last line, no newline, reads back as missing",
  "parse_pair", "src/parser.c", "parse_pair waits for TOK_NEWLINE to commit a pair, and end of input is TOK_EOF",
  "accept TOK_EOF as the end of a pair", "the last pair without a newline is kept"),
]

HUMAN_OPEN = [
 "Next one from the triage list: {symptom}. {evidence}.",
 "OK, item {n}: {symptom}. {evidence}.",
 "Moving on: {symptom}. {evidence}.",
 "Another one: {symptom}. Repro: {evidence}.",
]
MODEL_ASK = [
 "That smells like {function}. Can you paste it from {file}?",
 "I'd look at {function} in {file} first. What does it look like now?",
 "Probably {function} ({file}). Show me the current version?",
]
HUMAN_CODE = [
 "Here is {function}, unchanged since the rewrite last spring. git blame says nobody touched it recently.",
 "Pasted {function} from {file} into the scratch buffer. I stepped through it in gdb with the bad input and it does take the path you would expect.",
 "{function} as it is on main, in {file}. I also put a breakpoint in it: the bad input goes through it exactly once.",
]
MODEL_FIX = [
 "Found it: {cause}. Fix: {fix}.",
 "The cause: {cause}. I would {fix}.",
 "Here is the problem: {cause}. Suggested change: {fix}.",
]
HUMAN_RESULT = [
 "Applied. The bad input now gives a clean error and the whole corpus still passes under ASan.",
 "Done, it fixes the report. The full test suite is green, 312 tests.",
 "That works. I ran the fuzzer for ten minutes on top of it and nothing new came up.",
]
MODEL_TEST = [
 "Worth a regression test: {test}.",
 "Please pin it with a test: {test}.",
 "Add a case to tests/regress.c so it stays fixed: {test}.",
]
HUMAN_COMMIT = [
 "Test added, it fails on the old code and passes now. Committed as {sha}.",
 "Added the test and committed both ({sha}).",
 "Committed as {sha}, test included; CI on Alpine and Fedora both green.",
]
MODEL_NOTE = [
 "Noted for the changelog: {function} fixed, {short}.",
 "Good. For the postmortem list: {short} ({function}).",
 "Logged: {short}. That is {n} of {total} from the triage list.",
]

def main():
    nodes, edges = [], []
    t0 = 1769850000000  # 2026-01-31T09:00:00Z in epoch ms
    k = 0
    def add(author, text):
        nonlocal k
        nid = "s%03d" % (k + 1)
        nodes.append({"id": nid, "localId": "L%03d" % (k + 1), "authorType": author,
                      "authorAgentId": "a-claude" if author == "model" else "a-dana",
                      "content": {"type": "text", "text": text},
                      "metadata": {"excluded": False, "pruned": False, "bookmarked": False},
                      "createdAt": t0 + k * 90000})
        if k:
            edges.append({"id": "c%03d" % k, "edgeType": "continuation", "targetNodeId": nid,
                          "sources": [{"nodeId": "s%03d" % k, "role": "primary"}]})
        k += 1
    total = len(ROUNDS)
    for i, (symptom, evidence, function, file, cause, fix, test) in enumerate(ROUNDS):
        f = dict(symptom=symptom, evidence=evidence, function=function, file=file, cause=cause, fix=fix,
                 test=test, sha="%07x" % ((i * 2654435761 + 0x4e1c9d2) & 0xfffffff), short=symptom,
                 n=i + 1, total=total)
        add("human", HUMAN_OPEN[i % len(HUMAN_OPEN)].format(**f))
        add("model", MODEL_ASK[i % len(MODEL_ASK)].format(**f))
        add("human", HUMAN_CODE[i % len(HUMAN_CODE)].format(**f))
        add("model", MODEL_FIX[i % len(MODEL_FIX)].format(**f))
        add("human", HUMAN_RESULT[i % len(HUMAN_RESULT)].format(**f))
        add("model", MODEL_TEST[i % len(MODEL_TEST)].format(**f))
        add("human", HUMAN_COMMIT[i % len(HUMAN_COMMIT)].format(**f))
        add("model", MODEL_NOTE[i % len(MODEL_NOTE)].format(**f))
    add("human", "That is the whole list. Can you write the release note for 2.4.1 from the changelog entries above, grouped by crash fixes, wrong results and performance?")
    nodes[0]["metadata"]["bookmarked"] = True
    doc = {
        "loomTree": {"id": "T-hardening", "title": "cfgparse hardening session", "mode": "dialogue",
                     "rootNodeId": "s001",
                     "systemContext": "You are pairing on cfgparse 2.4, a C11 configuration-file parser, working through the fuzzer's triage list."},
        "agents": [{"id": "a-claude", "name": "Claude", "type": "model", "modelRef": "anthropic:claude-sonnet-4",
                    "configuration": {"systemPrompt": "Be concise. Name the function and file you mean."}},
                   {"id": "a-dana", "name": "Dana", "type": "human"}],
        "nodes": nodes,
        "edges": edges,
        "path": {"activeNodeId": nodes[-1]["id"]},
        "workingBuffer": "",
        "preferences": {"truncationStrategy": "truncateMiddle", "minimumRecentNodes": 4, "tokenBuffer": 1024},
        "model": {"ref": "local:qwen2.5-coder-7b", "contextLimit": 4096},
    }
    with open("samples/loom/long-session.json", "w") as out:
        out.write(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")

main()

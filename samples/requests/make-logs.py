#!/usr/bin/env python3
"""Writes the two sample request logs from anthropic-tools.json's tools and
system prompt: log-timestamp-broken.jsonl (the system prompt starts with the
current time, so every request writes the whole prefix again) and
log-timestamp-fixed.jsonl (the time goes in the user turn it was sent with).
The recorded usage in the responses is computed here, independently of
ctxscope, by Anthropic's rules on ctxscope's token estimate (ceil(code
points / 4) of each block; a tool definition as compact JSON): these are
constructed samples, not captures of the API."""
import json, math

b = json.load(open('anthropic-tools.json'))
tools, base = b['tools'], b['system'][0]['text']
turns = [
    ("user", "Why does station 8443970 show a flat 0.0 m line from 02:00 to 05:00 on 3 March?"),
    ("assistant", "Gaps longer than 30 minutes are flagged and then filled with 0.0 in clean/gaps.py line 48; a three-hour outage in the feed would produce exactly that line."),
    ("user", "The feed did have readings then. Can you check whether the spike filter removed them first?"),
    ("assistant", "The rolling median in clean/spikes.py marks a reading as a spike when it is more than 0.5 m from the window median; after the storm surge on 3 March every reading was more than 0.5 m above the median of the calm hours before, so all of them were removed, leaving a three-hour gap that fill_gaps then zeroed."),
    ("user", "So two bugs. Propose a patch: flagged long gaps should stay missing (NaN), not 0.0."),
    ("assistant", "Here is the patch: in fill_gaps, replace out.fill(start, end, 0.0) with out.fill(start, end, math.nan), and add a test that a 45-minute gap stays NaN and keeps its long-gap flag."),
    ("user", "Good. Now the spike filter: make the threshold relative to the window's spread instead of a fixed 0.5 m."),
    ("assistant", "I will use a threshold of 4 times the median absolute deviation of the window, with a floor of 0.1 m so a flat window does not flag every small wobble."),
    ("user", "Write the test for the surge case first, using the 3 March readings from tests/fixtures/feeds/noaa-8443970-0303.json."),
    ("assistant", "The test loads the fixture, runs clean(), and asserts that no reading between 02:00 and 05:00 is removed and that the hourly means stay within 0.05 m of the raw hourly means."),
    ("user", "Run it."),
]


def tok(s):
    return math.ceil(len(s) / 4)


def cj(o):
    return json.dumps(o, separators=(',', ':'), ensure_ascii=False)


def stamp(k):
    t = 10 * 3600 + k * 40
    return "2026-11-24T%02d:%02d:%02dZ" % (t // 3600, t % 3600 // 60, t % 60)


def build(k, broken):
    text = ("Current time: %s\n\n" % stamp(k) + base) if broken else base
    system = [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}]
    msgs = []
    for i, (role, t) in enumerate(turns[:2 * k + 1]):
        content = [{"type": "text", "text": t}]
        if not broken and role == "user":  # the time it was sent, kept with it
            content.insert(0, {"type": "text", "text": "(sent at %s)" % stamp(i // 2)})
        msgs.append({"role": role, "content": content})
    msgs[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 2048, "tools": tools, "system": system,
            "messages": msgs}


def prefix_at_last_breakpoint(body):
    total, last = 0, 0
    for t in body['tools']:
        total += tok(cj({k: v for k, v in t.items() if k != 'cache_control'}))
    blocks = body['system'] + [c for m in body['messages'] for c in m['content']]
    for c in blocks:
        total += tok(c['text'])
        if 'cache_control' in c:
            last = total
    return last, total


for broken, name in ((True, 'log-timestamp-broken.jsonl'), (False, 'log-timestamp-fixed.jsonl')):
    lines, prev = [], None
    for k in range(6):
        body = build(k, broken)
        last, total = prefix_at_last_breakpoint(body)
        read = prev if prev is not None and not broken else 0
        usage = {"input_tokens": total - last, "cache_creation_input_tokens": last - read,
                 "cache_read_input_tokens": read, "output_tokens": 120}
        lines.append(cj({"timestamp": stamp(k),
                         "request": {"method": "POST", "url": "https://api.anthropic.com/v1/messages", "body": body},
                         "response": {"status": 200, "body": {"id": "msg_%02d" % k, "type": "message",
                                                              "role": "assistant", "usage": usage}}}))
        prev = last
    open(name, 'w').write("\n".join(lines) + "\n")

// request-pairs.js PACKAGE OUTDIR BODY.json...: the recorded side of
// ctxscope's request/usage pairs (issue 35), computed by ai-tokenizer itself:
// each request body (ours, tests/tokenizer/requests) is given to the
// package's own `count` (ai-tokenizer/sdk) with its model's row of the
// package's `models` table and its encoding, as AI SDK messages and tools
// mapped the way src/kinds/request/counted.h says, and written out as a
// captured exchange whose response's usage.input_tokens is that total, one
// log per provider (a log holds one kind of request): OUTDIR/{anthropic,
// openai-chat,openai-responses}.jsonl.
// `ctxscope report --format json` on the log must then count every request
// at 0% from its recorded figure. The one departure from the package: an
// image counts by Anthropic's rule (width x height / 750 after scaling to
// 1568), which the package leaves at a flat 85 (and does not see inside a
// tool result): it is added here as ctxscope adds it (without the content
// multiplier). And a second one: the package's tool-use system prompt
// (toolsExist) is one figure per model, measured with the default
// tool_choice; Anthropic lists it per model and tool_choice (the "Pricing"
// table of its tool use overview: auto and none one figure, any and tool
// another), so a Claude request with tools is given toolsExist moved by the
// listed difference between its choice and auto (the figures below are
// this test's own copy of that table, for the models our bodies use). And a
// third: the thinking of a turn before the last user turn that is not only
// tool results is stripped by the API for older Sonnet and Opus and every
// Haiku (caching.md section 1; ctxscope's model_keeps_prior_thinking), which
// the package does not know: such blocks are left out of what it counts
// (keepsThinking below: this test's own copy of the rule, for our models).
'use strict';
const fs = require('fs');
const path = require('path');
const [pkg, out, ...files] = process.argv.slice(2);
const { Tokenizer, models } = require(path.join(pkg, 'dist/index.cjs'));
const { count } = require(path.join(pkg, 'dist/sdk.cjs'));
const encodings = {};
const tokenizer = (name) => {
  if (!encodings[name]) {
    const t = new Tokenizer(require(path.join(pkg, `dist/encoding/${name}.cjs`)));
    // special-token text counts as plain text, as in ctxscope
    encodings[name] = { encode: (s) => t.encode(s, [], []) };
  }
  return encodings[name];
};
const toolPrompt = { 'anthropic/claude-sonnet-4': [346, 313], 'anthropic/claude-sonnet-4.5': [346, 313],
  'anthropic/claude-3.5-haiku': [264, 340], 'anthropic/claude-opus-4.1': [346, 313] };
const forced = (c) => c && ['any', 'tool'].includes(c.type);
const rows = { 'claude-sonnet-4-20250514': 'anthropic/claude-sonnet-4', 'claude-sonnet-4-5-20250929': 'anthropic/claude-sonnet-4.5',
  'claude-3-5-haiku-20241022': 'anthropic/claude-3.5-haiku', 'claude-opus-4-1-20250805': 'anthropic/claude-opus-4.1',
  'claude-haiku-4-5': 'anthropic/claude-haiku-4.5', 'gpt-4o-2024-08-06': 'openai/gpt-4o', 'gpt-4.1': 'openai/gpt-4.1' };

// JSON Schema -> the zod-like shape the package walks (_def.type, shape, element, values)
const zod = (s) => {
  if (!s || typeof s !== 'object') return undefined;
  const z = { description: s.description };
  if (Array.isArray(s.enum)) z._def = { type: 'enum', values: s.enum };
  else if (s.type === 'object' || (!s.type && s.properties && typeof s.properties === 'object'))
    z._def = { type: 'object', shape: Object.fromEntries(Object.entries(s.properties || {}).map(([k, v]) => [k, zod(v)])) };
  else if (s.type === 'array' && s.items && typeof s.items === 'object') z._def = { type: 'array', element: zod(s.items) };
  else z._def = { type: String(s.type) };
  return z;
};
const toolsOf = (list) => {
  const tools = {};
  for (const t of list || []) {
    const f = t.function || t;
    tools[f.name] = { description: f.description, inputSchema: zod(f.input_schema || f.parameters) };
  }
  return tools;
};
const pngSize = (b64) => { const b = Buffer.from(b64.slice(0, 64), 'base64'); return [b.readUInt32BE(16), b.readUInt32BE(20)]; };
const imageTokens = ([w, h]) => { const s = Math.max(w, h) > 1568 ? 1568 / Math.max(w, h) : 1; return Math.ceil(Math.floor(w * s) * Math.floor(h * s) / 750); };
const resultText = (c) => typeof c === 'string' ? c : (c || []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');
const anthropicPart = (b, acc) => {
  if (typeof b === 'string') return { type: 'text', text: b };
  switch (b.type) {
  case 'text': return { type: 'text', text: b.text };
  case 'thinking': return { type: 'text', text: b.thinking };
  case 'image': acc.images += imageTokens(pngSize(b.source.data)); return null;
  case 'tool_use': case 'server_tool_use': return { type: 'tool-call', toolName: b.name, input: b.input };
  case 'tool_result':
    for (const c of Array.isArray(b.content) ? b.content : []) if (c.type === 'image') acc.images += imageTokens(pngSize(c.source.data));
    return { type: 'tool-result', toolCallId: b.tool_use_id, output: resultText(b.content) };
  default: return { type: 'text', text: JSON.stringify(b) };
  }
};
const content = (c, acc) => typeof c === 'string' ? c : c.map((b) => anthropicPart(b, acc)).filter(Boolean);
const keepsThinking = { 'claude-sonnet-4-20250514': false, 'claude-sonnet-4-5-20250929': false,
  'claude-3-5-haiku-20241022': false, 'claude-opus-4-1-20250805': false, 'claude-haiku-4-5': false };
const ownTurn = (m) => m.role === 'user' && (typeof m.content === 'string' || m.content.some((b) => b.type !== 'tool_result'));
const anthropic = (body, acc) => {
  const messages = [];
  if (body.system !== undefined) messages.push({ role: 'system', content: content(body.system, acc) });
  const from = keepsThinking[body.model] === false ? body.messages.map(ownTurn).lastIndexOf(true) : 0;
  body.messages.forEach((m, i) => {
    const c = i < from && Array.isArray(m.content) ? m.content.filter((b) => !['thinking', 'redacted_thinking'].includes(b.type)) : m.content;
    messages.push({ role: m.role, content: content(c, acc) });
  });
  return messages;
};
const openaiPart = (p) => typeof p === 'string' ? { type: 'text', text: p } : { type: 'text', text: p.text };
const chat = (body) => body.messages.map((m) => {
  if (m.role === 'tool') return { role: 'tool', content: [{ type: 'tool-result', toolCallId: m.tool_call_id, output: m.content }] };
  const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content || []).map(openaiPart);
  for (const c of m.tool_calls || []) parts.push({ type: 'tool-call', toolName: c.function.name, input: JSON.parse(c.function.arguments) });
  return { role: m.role, content: typeof m.content === 'string' && !m.tool_calls ? m.content : parts };
});
const responses = (body) => {
  const messages = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  for (const it of typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input) {
    if (it.type === 'function_call') messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolName: it.name, input: JSON.parse(it.arguments) }] });
    else if (it.type === 'function_call_output') messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: it.call_id, output: it.output }] });
    else if (it.role) messages.push({ role: it.role, content: typeof it.content === 'string' ? it.content : it.content.map(openaiPart) });
  }
  return messages;
};
const logs = { anthropic: [], 'openai-chat': [], 'openai-responses': [] };
for (const file of files) {
  const body = JSON.parse(fs.readFileSync(file, 'utf8'));
  let model = models[rows[body.model]];
  if (!model) throw new Error(`${file}: no table row for ${body.model}`);
  const listed = toolPrompt[rows[body.model]];
  if (listed && forced(body.tool_choice))
    model = { ...model, tokens: { ...model.tokens, toolsExist: model.tokens.toolsExist + listed[1] - listed[0] } };
  const acc = { images: 0 };
  const kind = body.input !== undefined ? 'openai-responses' : body.model.startsWith('gpt') ? 'openai-chat' : 'anthropic';
  const messages = kind === 'openai-responses' ? responses(body) : kind === 'anthropic' ? anthropic(body, acc) : chat(body);
  const total = count({ tokenizer: tokenizer(model.encoding), model, messages, tools: toolsOf(body.tools) }).total + acc.images;
  logs[kind].push(JSON.stringify({ request: { body }, response: { body: { usage: { input_tokens: total,
    cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 } } }, source: path.basename(file) }));
}
for (const [kind, lines] of Object.entries(logs))
  if (lines.length) fs.writeFileSync(path.join(out, `${kind}.jsonl`), lines.join('\n') + '\n');

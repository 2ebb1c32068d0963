// claude-convert.js PACKAGE OUTDIR: turns the npm package ai-tokenizer's
// `claude` encoding and its `models` table into the files ctxscope reads
// (ctxscope-formats(5) §8), run by fetch-claude.sh at `make deps` time, never committed:
//   OUTDIR/claude.tiktoken      one token a line: its bytes in base64, a space,
//                               its rank (tiktoken's format, the counter's)
//   OUTDIR/ai-tokenizer.models  the per-model overheads, one model a line
// The package keeps the ranks as a map from strings (a token whose bytes are
// UTF-8) plus a short list of byte arrays (the others); its merge looks a
// slice up in the map when the slice is valid UTF-8, else in the list (by a
// binary search per first byte, its buckets sorted: checked here). So a token
// is the UTF-8 of a string key, or a listed byte array that no string key
// spells; an empty array (the list has one) is never looked up and is left
// out. The special tokens (<EOT>, <META>...) are not ranks of text: left out.
'use strict';
const fs = require('fs');
const path = require('path');
const [pkg, out] = process.argv.slice(2);
const enc = require(path.join(pkg, 'dist/encoding/claude.cjs'));
const { models } = require(path.join(pkg, 'dist/index.cjs'));
const die = (why) => { console.error(`claude-convert: ${why}`); process.exit(1); };

if (enc.pat_str !== "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+")
  die(`the claude pre-tokenizer is not the one ctxscope splits with: ${enc.pat_str}`);
const byBytes = new Map(); // latin1 of the bytes -> rank
for (const key of Object.keys(enc.stringEncoder)) {
  if (!key.isWellFormed()) die(`a string token is not well-formed UTF-16: ${JSON.stringify(key)}`);
  const bytes = Buffer.from(key, 'utf8');
  byBytes.set(bytes.toString('latin1'), enc.stringEncoder[key]);
}
const cmp = (x, y) => {
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};
const buckets = new Map();
for (const [arr, rank] of enc.binaryEncoder) {
  if (arr.length === 0) continue;
  if (!buckets.has(arr[0])) buckets.set(arr[0], []);
  buckets.get(arr[0]).push(arr);
  const k = Buffer.from(arr).toString('latin1');
  if (!byBytes.has(k)) byBytes.set(k, rank);
}
for (const b of buckets.values())
  for (let i = 1; i < b.length; i++) if (cmp(b[i - 1], b[i]) >= 0) die('a byte list bucket is not sorted: its binary search would miss tokens');
for (let b = 0; b < 256; b++)
  if (!byBytes.has(String.fromCharCode(b))) die(`the byte ${b} has no token`);
const lines = [...byBytes].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
  .map(([k, r]) => `${Buffer.from(k, 'latin1').toString('base64')} ${r}\n`);
fs.writeFileSync(path.join(out, 'claude.tiktoken'), lines.join(''));

const fields = ['contentMultiplier', 'baseOverhead', 'perMessage', 'toolsExist', 'perTool', 'perDesc', 'perFirstProp',
  'perAdditionalProp', 'perPropDesc', 'perEnum', 'perNestedObject', 'perArrayOfObjects'];
const rows = ['# ai-tokenizer models table (per-model token overheads), converted by tests/tokenizer/claude-convert.js',
  '# id encoding ' + fields.join(' ')];
for (const [id, m] of Object.entries(models)) {
  if (!m.tokens || !/^[\w./:-]+$/.test(id) || !/^\w+$/.test(m.encoding)) die(`an odd model entry: ${id}`);
  // the package's own count reads a missing perNestedObject or
  // perArrayOfObjects as 0 (`|| 0`); the other fields it uses as they are
  rows.push([id, m.encoding, ...fields.map((f) => {
    const v = m.tokens[f] ?? (f === 'perNestedObject' || f === 'perArrayOfObjects' ? 0 : NaN);
    if (!Number.isFinite(v)) die(`${id} has no ${f}`);
    return String(v);
  })].join(' '));
}
fs.writeFileSync(path.join(out, 'ai-tokenizer.models'), rows.join('\n') + '\n');
console.log(`claude-convert: ${lines.length} tokens, ${rows.length - 2} models`);

// ref.js PACKAGE ENCODING OURS.json: checks ctxscope count's JSON against
// gpt-tokenizer (the package `make deps` fetched) under node, file by file.
// Special-token text counts as plain text (disallowedSpecial: none). Prints
// each difference and "tokenizer ENCODING: N passed, N failed".
'use strict';
const fs = require('fs');
const [pkg, encoding, oursPath] = process.argv.slice(2);
const enc = require(`${pkg}/cjs/encoding/${encoding}.js`);
const ours = JSON.parse(fs.readFileSync(oursPath, 'utf8'));
let pass = 0, fail = 0;
for (const { path, tokens } of ours) {
  const text = fs.readFileSync(path, 'utf8');
  const want = enc.countTokens(text, { disallowedSpecial: new Set() });
  if (want === tokens) pass++;
  else { fail++; console.log(`tokenizer ${encoding}: ${path}: ctxscope ${tokens}, gpt-tokenizer ${want}`); }
}
console.log(`tokenizer ${encoding}: ${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);

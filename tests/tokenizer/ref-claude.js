// ref-claude.js PACKAGE OURS.json: checks ctxscope count --tokenizer claude's
// JSON against ai-tokenizer's claude encoding (the package `make deps`
// fetched) under node, file by file: the package's own Tokenizer, its
// encode() with no special tokens allowed or refused (their text counts as
// plain text, as in ctxscope). Prints each difference and
// "tokenizer claude: N passed, N failed".
//   node ref-claude.js PACKAGE --expected FILE...   prints "COUNT PATH" lines
//   (the committed expected counts, tests/tokenizer/claude-expected.txt)
'use strict';
const fs = require('fs');
const path = require('path');
const [pkg, oursPath, ...files] = process.argv.slice(2);
const { Tokenizer } = require(path.join(pkg, 'dist/index.cjs'));
const claude = require(path.join(pkg, 'dist/encoding/claude.cjs'));
const tok = new Tokenizer(claude);
const count = (file) => tok.encode(fs.readFileSync(file, 'utf8'), [], []).length;
if (oursPath === '--expected') {
  for (const f of files) console.log(`${count(f)} ${f}`);
  process.exit(0);
}
const ours = JSON.parse(fs.readFileSync(oursPath, 'utf8'));
let pass = 0, fail = 0;
for (const { path: file, tokens, kind } of ours) {
  const want = count(file);
  if (want === tokens && kind === 'approximate') pass++;
  else { fail++; console.log(`tokenizer claude: ${file}: ctxscope ${tokens} (${kind}), ai-tokenizer ${want}`); }
}
console.log(`tokenizer claude: ${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);

#!/usr/bin/env bash
# tokenizer.sh: exact token counting speed against the reference. Makes a
# 10 MB varied text (the tokenizer corpus, plus fresh random base64, UUIDs,
# numbers and words so that no cache sees only repeats), then times, whole
# process (loading the ranks included), `ctxscope count` and gpt-tokenizer's
# countTokens under node on it, for o200k_base and cl100k_base, and checks
# that the counts agree; then the approximate claude encoding against
# ai-tokenizer's own count under node (the second anchor), same text, same
# run. Called by `make bench` and `make bench-tokenizer`.
#   tests/bench/tokenizer.sh CTXSCOPE [BUILD]
# TOKENIZER_BENCH_MB sets the size (default 10).
set -uo pipefail
bin=$1 build=${2:-.build}
ref=$PWD/$build/gpt-tokenizer/package
mb=${TOKENIZER_BENCH_MB:-10}
if [ ! -f "$build/tokenizers/o200k_base.tiktoken" ] || [ ! -f "$ref/cjs/encoding/o200k_base.js" ] ||
   ! command -v node >/dev/null 2>&1; then
  echo "tokenizer: no rank files or no node (make deps): no exact-count rows"
  exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxscope-tok.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
node -e '
const fs = require("fs"), [dir, out, mb] = process.argv.slice(1);
const corpus = fs.readdirSync(dir).filter(f => !f.endsWith(".bin")).map(f => fs.readFileSync(dir + "/" + f, "utf8"));
let x = 20261124;
const rnd = n => { x = (x * 1103515245 + 12345) % 2147483648; return Math.floor(x / 65536) % n; };
const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", hex = "0123456789abcdef";
const pick = (alpha, n) => { let s = ""; for (let i = 0; i < n; i++) s += alpha[rnd(alpha.length)]; return s; };
const word = () => pick("abcdefghijklmnopqrstuvwxyz", 2 + rnd(9));
const parts = [];
let size = 0;
while (size < mb * 1048576) {
  let p;
  switch (rnd(6)) {
  case 0: case 1: p = corpus[rnd(corpus.length)]; break;
  case 2: p = pick(b64, 40 + rnd(400)) + "\n"; break;
  case 3: p = [8, 4, 4, 4, 12].map(n => pick(hex, n)).join("-") + " "; break;
  case 4: p = String(rnd(1e9)) + "." + rnd(1000) + " "; break;
  default: p = Array.from({ length: 5 + rnd(30) }, word).join(" ") + ".\n";
  }
  parts.push(p);
  size += Buffer.byteLength(p);
}
fs.writeFileSync(out, parts.join(""));
' tests/tokenizer/corpus "$tmp/text.txt" "$mb" || { echo "tokenizer: node could not make the text"; exit 1; }
bytes=$(wc -c <"$tmp/text.txt")
cat >"$tmp/ref.js" <<'JS'
const fs = require("fs"), [pkg, enc, file] = process.argv.slice(2);
const e = require(`${pkg}/cjs/encoding/${enc}.js`);
console.log(e.countTokens(fs.readFileSync(file, "utf8"), { disallowedSpecial: new Set() }));
JS
# cpu seconds (user + sys) of a whole process; its stdout into $tmp/out
cpu() { /usr/bin/time -f "%U %S %e" -o "$tmp/time" "$@" >"$tmp/out" 2>/dev/null; awk '{printf "%.2f %.2f", $1 + $2, $3}' "$tmp/time"; }
row() {
  awk -v e="$1" -v t="$2" -v c="$3" -v w="$4" -v rc="$5" -v rw="$6" -v b="$bytes" 'BEGIN {
    mb = b / 1048576; s = c > 0 ? c : 0.01; r = rc > 0 ? rc : 0.01;
    printf "  %-12s %10d %7.2f %7.2f %7.1f %10.2f %10.2f %9.1f %7.1fx\n", e, t, c, w, mb / s, rc, rw, mb / r, r / s }'
}
printf '\nexact token counts, %s MB varied text (whole process, ranks loaded; cpu = user+sys)\n' "$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1048576}')"
printf '  %-12s %10s %7s %7s %7s %10s %10s %9s %8s\n' encoding tokens cpu_s wall_s MB/s ref_cpu_s ref_wall_s ref_MB/s speedup
status=0
for enc in o200k_base cl100k_base; do
  read -r c w < <(cpu "$bin" count --tokenizer "$enc" --format json "$tmp/text.txt")
  ours=$(grep '"tokens"' "$tmp/out" | tr -dc 0-9)
  read -r rc rw < <(cpu node "$tmp/ref.js" "$ref" "$enc" "$tmp/text.txt")
  theirs=$(tr -dc 0-9 <"$tmp/out")
  [ "$ours" = "$theirs" ] || { echo "  $enc: ctxscope counts $ours, gpt-tokenizer $theirs"; status=1; }
  row "$enc" "$ours" "$c" "$w" "$rc" "$rw"
done
aref=$PWD/$build/ai-tokenizer/package
if [ -f "$build/tokenizers/claude.tiktoken" ] && [ -f "$aref/dist/encoding/claude.cjs" ]; then
  cat >"$tmp/ref-claude.js" <<'JS'
const fs = require("fs"), [pkg, file] = process.argv.slice(2);
const { Tokenizer } = require(`${pkg}/dist/index.cjs`);
const t = new Tokenizer(require(`${pkg}/dist/encoding/claude.cjs`));
console.log(t.encode(fs.readFileSync(file, "utf8"), [], []).length);
JS
  read -r c w < <(cpu "$bin" count --tokenizer claude --format json "$tmp/text.txt")
  ours=$(grep '"tokens"' "$tmp/out" | tr -dc 0-9)
  read -r rc rw < <(cpu node "$tmp/ref-claude.js" "$aref" "$tmp/text.txt")
  theirs=$(tr -dc 0-9 <"$tmp/out")
  [ "$ours" = "$theirs" ] || { echo "  claude: ctxscope counts $ours, ai-tokenizer $theirs"; status=1; }
  row "claude" "$ours" "$c" "$w" "$rc" "$rw"
  echo "  (claude: approximate, its reference ai-tokenizer; the others' gpt-tokenizer)"
else
  echo "  claude: no claude encoding or no ai-tokenizer package (make deps): no row"
fi
exit $status

#!/usr/bin/env bash
# scan.sh: the `ctxscope scan` row of `make bench` (issue 36): a generated
# projects folder (432 MB; BENCH_SCALE=small: 20 MB), scanned by ctxscope and
# by ccusage's native binary (tests/scan/fetch-ccusage.sh; skipped with a
# notice where npm cannot fetch it) in the same run, each three times
# alternately; the best of each, their peak memory, and whether the totals
# are equal. The goal: ctxscope no slower than ccusage, peak memory under
# twice the largest file.
#   tests/bench/scan.sh GEN_PROJECTS CTXSCOPE [BUILD]
set -euo pipefail
gen=$1 bin=$2 build=${3:-.build}
mb=432
[ "${BENCH_SCALE:-full}" = small ] && mb=20
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxscope-scan-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
"$gen" "$tmp/claude" "$mb" 20261122 >/dev/null
mkdir -p "$tmp/home"
largest=$(find "$tmp/claude" -type f -printf '%s\n' | sort -n | tail -1)
files=$(find "$tmp/claude" -type f | wc -l)
anchor=""
tests/scan/fetch-ccusage.sh "$build" && anchor=$build/ccusage/ccusage

# seconds and peak KB of a command (its stdout to $tmp/out.<tag>)
measure() {
  local tag=$1; shift
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > "$tmp/out.$tag"
  cat "$tmp/time"
}
best_s=999 best_kb=0 cc_s=999 cc_kb=0
for i in 1 2 3; do
  read -r s kb < <(measure scan "$bin" scan --format json "$tmp/claude")
  if awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s; fi
  [ "$kb" -gt "$best_kb" ] && best_kb=$kb
  if [ -n "$anchor" ]; then
    read -r s kb < <(measure ccusage env -i HOME="$tmp/home" PATH=/usr/bin:/bin CLAUDE_CONFIG_DIR="$tmp/claude" \
                     "$anchor" claude session --json --offline)
    if awk "BEGIN{exit !($s < $cc_s)}"; then cc_s=$s; fi
    [ "$kb" -gt "$cc_kb" ] && cc_kb=$kb
  fi
done
printf 'scan %s MB, %s files (largest %.1f MB): ctxscope %.2f s, peak %.1f MB (limit %.1f MB)' \
  "$mb" "$files" "$(echo "$largest / 1000000" | bc -l)" "$best_s" "$(echo "$best_kb / 1024" | bc -l)" \
  "$(echo "2 * $largest / 1048576" | bc -l)"
if [ -z "$anchor" ]; then echo "; ccusage: skipped (see the notice above)"; exit 0; fi
equal=$(python3 - "$tmp/out.scan" "$tmp/out.ccusage" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))["totals"]; b = json.load(open(sys.argv[2]))["totals"]
pairs = [("input", "inputTokens"), ("output", "outputTokens"), ("cache_read", "cacheReadTokens"), ("cache_write", "cacheCreationTokens")]
print("equal" if all(a[x] == b[y] for x, y in pairs) else "DIFFER: " + str(a) + " vs " + str(b))
PY
)
goal="met"
awk "BEGIN{exit !($best_s <= $cc_s)}" || goal="MISSED (slower)"
[ "$best_kb" -lt $((2 * largest / 1024)) ] || goal="MISSED (memory)"
echo "; ccusage 20.0.24 $(printf '%.2f' "$cc_s") s, peak $(printf '%.1f' "$(echo "$cc_kb / 1024" | bc -l)") MB; totals $equal; goal $goal"

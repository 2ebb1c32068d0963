#!/usr/bin/env bash
# bench.sh: generate the benchmark inputs into a temporary folder, run the
# driver on them, remove the folder. Called by `make bench` (never by
# `make test`/`make check`: this folder has no `run` script).
#   tests/bench/bench.sh GEN BENCH CTXSCOPE
# BENCH_SCALE=full (default: the issue's sizes) or small (a hundredth, for
# development); BENCH_EDITS (default 1000); BENCH_UI=0 skips the first-frame rows;
# BENCH_KINDS (default: all) names the rows to run, from: manifest loom ledger
# memory requests claude-code; BENCH_DB=0 skips the agents.db rows (building
# the database from the largest ledger takes minutes).
set -euo pipefail
gen=$1 bench=$2 bin=$3
scale=${BENCH_SCALE:-full}
edits=${BENCH_EDITS:-1000}
seed=20261122
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxscope-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

case $scale in
  full)  loom="10000 100000 1000000"; ledger="10 100 500"; manifest="1000 10000 100000"; memory="10000 100000 1000000"
         requests="100"; claude="200" ;;
  small) loom="100 1000 10000";       ledger="1 2 5";      manifest="10 100 1000";       memory="100 1000 10000"
         requests="1"; claude="2" ;;
  *) echo "bench.sh: BENCH_SCALE is full or small, not $scale" >&2; exit 2 ;;
esac

want() { case " ${BENCH_KINDS:-manifest loom ledger memory requests claude-code} " in *" $1 "*) return 0 ;; esac; return 1; }
want manifest || manifest=""; want loom || loom=""; want ledger || ledger=""; want memory || memory=""
want requests || requests=""; want claude-code || claude=""

human() { # 1000 -> 1k, 1000000 -> 1M
  local n=$1
  if [ $((n % 1000000)) -eq 0 ]; then echo "$((n / 1000000))M"
  elif [ $((n % 1000)) -eq 0 ]; then echo "$((n / 1000))k"
  else echo "$n"; fi
}

args=()
t0=$(date +%s)
for n in $manifest; do
  "$gen" manifest "$n" "$seed" "$tmp/manifest-$n" 2>/dev/null
  args+=("manifest:manifest $(human "$n") files:$tmp/manifest-$n/working-set.yml")
done
for n in $loom; do
  "$gen" loom "$n" "$seed" "$tmp/loom-$n.json" 2>/dev/null
  args+=("loom:loom $(human "$n") nodes:$tmp/loom-$n.json")
done
for n in $ledger; do
  "$gen" ledger "$n" "$seed" "$tmp/ledger-$n.json" 2>/dev/null
  args+=("ledger:ledger $n MB:$tmp/ledger-$n.json")
done
for n in $memory; do
  "$gen" memory "$n" "$seed" "$tmp/memory-$n.json" 2>/dev/null
  args+=("memory:memory $(human "$n") items:$tmp/memory-$n.json")
done
for n in $requests; do
  "$gen" requests "$n" "$seed" "$tmp/requests-$n.jsonl" 2>/dev/null
  args+=("anthropic:request log $n MB:$tmp/requests-$n.jsonl")
done
# A proxy's log of many sessions: 10,000 requests (1,000 small), conversations of 100
# requests one after another: the timeline row's input.
if [ -n "$requests" ]; then
  many=10000; mb=70
  [ "$scale" = small ] && many=1000 && mb=2
  "$gen" requests "$mb" "$seed" "$tmp/requests-$many.jsonl" "$many" 2>/dev/null
  args+=("anthropic:request log $(human "$many") requests:$tmp/requests-$many.jsonl")
fi
# An HTTP capture of an agent (ctxscope-formats(5) section 6b): streamed responses, a Haiku
# request and a count_tokens call between the main ones (issue 34: 1 GB loads
# within cJSON_Parse's time and twice the file's memory). BENCH_CAPTURE_MB
# overrides its size.
if [ -n "$requests" ]; then
  cap=${BENCH_CAPTURE_MB:-1000}
  [ "$scale" = small ] && cap=${BENCH_CAPTURE_MB:-10}
  "$gen" capture "$cap" "$seed" "$tmp/capture-$cap.jsonl" 2>/dev/null
  args+=("capture:capture $cap MB:$tmp/capture-$cap.jsonl")
fi
for n in $claude; do
  "$gen" claude-code "$n" "$seed" "$tmp/session-$n.jsonl" 2>/dev/null
  args+=("claude-code:claude-code $n MB:$tmp/session-$n.jsonl")
done

# 10k items with 1,000 newEvents: every assembly replays them (updateContext)
# and builds twice (the context, and the full rebuild it is compared with).
if want memory; then
  "$gen" memory 10000 "$seed" "$tmp/memory-10000-new.json" 1000 2>/dev/null
  args+=("memory:memory 10k + 1k newEvents:$tmp/memory-10000-new.json")
fi
# The largest ledger as an agents.db (built from its export with the sqlite3 shell).
db=()
big=${ledger##* }
if [ -n "$big" ] && [ "${BENCH_DB:-1}" = 1 ] && command -v sqlite3 >/dev/null 2>&1 &&
   sh tests/ledger/db_from_export.sh "$tmp/ledger-$big.json" "$tmp/agents-$big.db" 2>/dev/null; then
  db=(--ledger-db "agents.db from ledger $big MB:$tmp/agents-$big.db")
fi
echo "generated $(du -sh "$tmp" | cut -f1) of inputs (scale $scale, seed $seed) in $(( $(date +%s) - t0 )) s"
ui=()
[ "${BENCH_UI:-1}" = 1 ] && ui=(--ui)
"$bench" --edits "$edits" --bin "$bin" "${ui[@]}" "${db[@]}" "${args[@]}"

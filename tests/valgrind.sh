#!/usr/bin/env bash
# make valgrind: the headless commands (report as text, yaml and json; dump)
# on every sample and hostile input, under valgrind with the release build.
# Any error or leak fails (--error-exitcode=99, distinct from ctxscope's own
# 0/2/3). Not part of make check: see the timing it prints.
#   tests/valgrind.sh BINARY
set -u
bin=$1
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind: not installed (sudo apt-get install valgrind, or make deps)"; exit 1
fi
export LC_ALL=C.UTF-8
pass=0 fail=0 start=$(date +%s)
log=$(mktemp)
while IFS= read -r file; do
  for args in "report --format text" "report --format yaml" "report --format json" "dump"; do
    set -- $args
    valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
      --errors-for-leak-kinds=definite,indirect,possible "$bin" "$1" "$file" "${@:2}" >/dev/null 2>"$log"
    status=$?
    if [ $status -eq 99 ] || grep -q '^==[0-9]*==' "$log"; then
      fail=$((fail + 1)); echo "valgrind: $args $file:"; head -30 "$log"
    else
      pass=$((pass + 1))
    fi
  done
done < <(find samples tests/hostile -type f \( -name '*.yml' -o -name '*.yaml' -o -name '*.json' \) | sort)
rm -f "$log"
echo "valgrind: $pass passed, $fail failed ($(( $(date +%s) - start )) s)"
[ "$fail" -eq 0 ]

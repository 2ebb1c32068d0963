#!/bin/sh
# export.sh AGENTS_DB > ledger.json
# The README's recipe: one `sqlite3 -json` per table, glued into one object.
# sqlite3 prints nothing at all for an empty result, hence the `[]` default.
set -eu
db=$1
printf '{'
sep=''
for t in sessions threads turns messages tool_calls compactions; do
  rows=$(sqlite3 -json "$db" "select * from $t")
  printf '%s"%s": %s' "$sep" "$t" "${rows:-[]}"
  sep=', '
done
printf '}\n'

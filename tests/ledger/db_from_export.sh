#!/bin/sh
# db_from_export.sh LEDGER.json AGENTS_DB [ASSEMBLY.json]
# The other way round from export.sh: builds an agents.db from a ledger
# export with the sqlite3 shell alone (its JSON functions), one table per
# array, a column per key the rows use (plus the ones every ledger has), the
# values as JSON gives them (arrays and objects as JSON text, as the broker
# stores them). With ASSEMBLY.json, also writes the export's `assembly`
# block there when it has one (what the database does not store).
set -eu
json=$1 db=$2 asm=${3:-}
rm -f "$db"
needed() {
  case $1 in
    sessions) echo "label thread_id" ;; threads) echo "turn_id ancestry" ;;
    turns) echo "id parent_turn_id" ;; messages) echo "id turn_id role content" ;;
    tool_calls) echo "id turn_id" ;; compactions) echo "turn_id summary" ;;
  esac
}
for t in sessions threads turns messages tool_calls compactions; do
  keys=$(sqlite3 :memory: "select distinct j.key from json_each(readfile('$json'), '\$.$t') r, json_each(r.value) j order by r.id, j.id" 2>/dev/null || true)
  cols=""
  for k in $keys $(needed $t); do
    case " $cols " in *" $k "*) ;; *) cols="$cols $k" ;; esac
  done
  create="" select=""
  for k in $cols; do
    create="$create${create:+, }\"$k\""
    select="$select${select:+, }json_extract(r.value, '\$.\"$k\"')"
  done
  sqlite3 "$db" "create table $t ($create); insert into $t ($create) select $select from json_each(readfile('$json'), '\$.$t') r order by r.id;"
done
# Written only when the export has one.
if [ -n "$asm" ]; then
  rm -f "$asm"
  block=$(sqlite3 :memory: "select json_extract(readfile('$json'), '\$.assembly')")
  [ -z "$block" ] || printf '%s\n' "$block" > "$asm"
fi

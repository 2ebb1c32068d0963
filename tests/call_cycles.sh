#!/usr/bin/env bash
# call_cycles.sh DIR: fails when the .c files of DIR call each other in a
# circle. File A calls file B when A's text names, followed by '(', a
# function B defines at the left margin (static ones too: a static name in
# another file is that file's own). tsort finds the circles. Called by
# `make check-layering` on src/vm/: the view-model's face, viewmodel.c, calls
# the files below it and nothing below calls back up.
set -u
dir=${1:-src/vm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*.c; do
  sed -nE 's/^[a-z][a-z_ 0-9*]*[ *]([a-z_][a-z_0-9]*)\(.*/\1/p' "$f" | grep -v ';' | sort -u |
    sed "s|\$| $(basename "$f" .c)|"
done >"$tmp/defs"
for f in "$dir"/*.c; do
  me=$(basename "$f" .c)
  echo "$me $me"
  # the names this file uses, once each
  grep -oE '\b[a-z_][a-z_0-9]*\(' "$f" | tr -d '(' | sort -u >"$tmp/used"
  # a name this file defines itself is its own (a static of the same name
  # elsewhere is no edge)
  awk -v me="$me" 'NR == FNR { used[$1] = 1; next } $2 == me { own[$1] = 1 } { d[NR] = $0 }
    END { for (i in d) { split(d[i], x, " "); if ((x[1] in used) && !(x[1] in own) && x[2] != me) print me, x[2] } }' \
    "$tmp/used" "$tmp/defs" | sort -u
done >"$tmp/edges"
if ! out=$(tsort <"$tmp/edges" 2>&1 >/dev/null) || [ -n "$out" ]; then
  echo "the files of $dir/ call each other in a circle (each loop's files, from tsort):"
  echo "$out" | sed 's/^tsort: -: //; s/^tsort: /  /; s/^/  /'
  exit 1
fi

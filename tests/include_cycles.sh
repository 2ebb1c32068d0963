#!/usr/bin/env bash
# include_cycles.sh DIR: fails when the modules under DIR include each other
# in a cycle. A module is a file's path without .c/.h (src/foo.c and
# src/foo.h are module foo); module A depends on B when A.c or A.h includes
# "B.h" (looked up next to the including file, then in DIR). A private
# header X_priv.h belongs to module X. tsort finds the cycles. Called by
# `make check-layering`.
set -u
dir=${1:-src}
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
find "$dir" -name '*.[ch]' | sort | while read -r f; do
  from=${f%.[ch]}
  from=${from%_priv}
  sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
    if [ -f "$(dirname "$f")/$inc" ]; then to="$(dirname "$f")/$inc"
    elif [ -f "$dir/$inc" ]; then to="$dir/$inc"
    else continue; fi
    to=${to%.h}
    to=${to%_priv}
    to=${to#./}
    [ "$to" = "$from" ] || echo "$from $to"
  done
done >"$edges"
if ! out=$(tsort <"$edges" 2>&1 >/dev/null) || [ -n "$out" ]; then
  echo "include cycle between modules in $dir/ (each loop's modules, from tsort):"
  echo "$out" | sed 's/^tsort: -: //; s/^tsort: /  /; s/^/  /'
  exit 1
fi

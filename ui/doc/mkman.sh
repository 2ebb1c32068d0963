#!/bin/sh
# mkman.sh OUTDIR VERSION: the installed man pages from their sources in ui/doc/.
#   ctxscope(1)         ui/doc/ctxscope.1 (roff, by hand: keys, flags, options,
#                       checked against the tables by the unit suites), with
#                       ui/doc/guide.md (the screen, the cache, exact counts,
#                       saving, safety) put in at its `.\" @GUIDE@` line
#   ctxscope-formats(5) ui/doc/formats.md (the input formats and every decision)
#                       then ui/doc/kinds.md (how ctxscope reads each kind)
# The Markdown goes through ui/doc/md2man.awk. Called by `make man` (and so by
# `make install`) and by tests/doc/run; writes only into OUTDIR.
set -eu
out=$1
version=$2
doc=$(dirname "$0")
mkdir -p "$out"
awk -v body=1 -f "$doc/md2man.awk" "$doc/guide.md" >"$out/guide.roff.tmp"
awk -v guide="$out/guide.roff.tmp" -v version="$version" '
  /^\.\\" @GUIDE@$/ { while ((getline l < guide) > 0) print l; next }
  /^\.TH / { sub(/"ctxscope [0-9.]*"/, "\"ctxscope " version "\"") }
  { print }' "$doc/ctxscope.1" >"$out/ctxscope.1.tmp"
rm -f "$out/guide.roff.tmp"
awk -v name=CTXSCOPE-FORMATS -v section=5 -v date=2026 -v source="ctxscope $version" \
    -v manual="File Formats" -f "$doc/md2man.awk" "$doc/formats.md" "$doc/kinds.md" >"$out/ctxscope-formats.5.tmp"
mv "$out/ctxscope.1.tmp" "$out/ctxscope.1"
mv "$out/ctxscope-formats.5.tmp" "$out/ctxscope-formats.5"

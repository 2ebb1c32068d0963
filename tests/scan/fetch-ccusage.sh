#!/bin/sh
# fetch-ccusage.sh BUILD: ccusage's native binary, the anchor `ctxscope scan`
# is measured and checked against (issue 36). Fetches the npm package
# @ccusage/ccusage-linux-x64 at a pinned version with `npm pack`, checks the
# tarball's sha256, and keeps the binary at BUILD/ccusage/ccusage. Already
# there and intact: nothing to do, no network. Cannot fetch (no npm, no
# network, another platform): says so in one sentence and exits 1; the
# callers skip the anchor with that notice. Nothing fetched is committed.
set -u
build=${1:-.build}
version=20.0.24
tgz_sha=9bb1226e847827df692ffd6696bfbead1f2dd36ee569da6ef80dfe44467ec21b
dest=$build/ccusage
bin=$dest/ccusage

notice() { echo "ctxscope: ccusage anchor skipped: $1" >&2; exit 1; }

[ -x "$bin" ] && [ -f "$dest/sha256" ] && [ "$(cat "$dest/sha256")" = "$tgz_sha" ] && exit 0
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || notice "its pinned binary is for linux x86_64, not $(uname -s) $(uname -m)"
command -v npm >/dev/null 2>&1 || notice "npm is not installed"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxscope-ccusage.XXXXXX") || notice "no temporary folder"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && timeout 120 npm pack --silent "@ccusage/ccusage-linux-x64@$version" >/dev/null 2>&1) ||
  notice "npm could not fetch @ccusage/ccusage-linux-x64@$version (no registry here?)"
tgz=$tmp/ccusage-ccusage-linux-x64-$version.tgz
got=$(sha256sum "$tgz" 2>/dev/null | cut -d' ' -f1)
[ "$got" = "$tgz_sha" ] || notice "the tarball's sha256 is $got, not the pinned $tgz_sha"
tar -xzf "$tgz" -C "$tmp" package/bin/ccusage || notice "the tarball holds no package/bin/ccusage"
mkdir -p "$dest" && mv "$tmp/package/bin/ccusage" "$bin" && chmod 755 "$bin" && echo "$tgz_sha" > "$dest/sha256" ||
  notice "cannot write $dest"
exit 0

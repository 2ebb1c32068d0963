#!/bin/sh
# fetch-claude.sh BUILD: the approximate Claude tokenizer (ctxscope-formats(5) §8).
# Fetches the npm package ai-tokenizer at a pinned version with `npm pack`,
# checks the tarball's sha256, and converts its `claude` encoding and its
# `models` table with claude-convert.js (node) into BUILD/tokenizers/
# {claude.tiktoken, ai-tokenizer.models}, whose sha256 are checked too; the
# package stays in BUILD/ai-tokenizer/package (the reference the tests and
# the benchmark run under node). Nothing fetched or converted is ever
# committed. Already there and intact: nothing to do, no network. Cannot
# fetch: says so in one sentence and exits 1 (counts then fall back to the
# systems' estimate, labelled). Run after fetch-ranks.sh (which installs npm
# where it is missing).
set -u
build=${1:-.build}
version=1.0.6
tgz_sha=9c47811b7e695c82b189fa72235f88891bd8a8ed67458c9175b094c6e67dfc9b
ranks_sha=ba9ebb28e61f5872504fbe44b2f61bd825c222d7d910f55c89f5f28ab1f40e8b
models_sha=909c43fad9724642905030fdd4502862eb95857574e258dd4853b630a21f0341
dest=$build/tokenizers
ref=$build/ai-tokenizer
here=$(cd "$(dirname "$0")" && pwd)

sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }
intact() {
  [ "$(sha "$dest/claude.tiktoken")" = "$ranks_sha" ] &&
  [ "$(sha "$dest/ai-tokenizer.models")" = "$models_sha" ] &&
  [ -f "$ref/package/dist/encoding/claude.cjs" ] && [ -f "$ref/package/dist/sdk.cjs" ]
}
fail() {
  echo "ctxscope: approximate Claude counts: cannot fetch the npm package ai-tokenizer@$version: $1; run \`make deps\` where the npm registry is reachable (Claude counts fall back to the estimate)" >&2
  exit 1
}

intact && exit 0
command -v npm >/dev/null 2>&1 || fail "npm is missing"
command -v node >/dev/null 2>&1 || fail "node is missing (it converts the encoding)"
tmp=$(mktemp -d) || fail "no temporary folder"
trap 'rm -rf "$tmp"' EXIT
echo "ctxscope: fetching ai-tokenizer@$version (approximate Claude tokenizer)"
(cd "$tmp" && npm pack --silent --loglevel=error "ai-tokenizer@$version" >/dev/null) || fail "npm pack failed"
tgz=$tmp/ai-tokenizer-$version.tgz
[ "$(sha "$tgz")" = "$tgz_sha" ] || fail "the tarball's sha256 is not the pinned one"
mkdir -p "$tmp/x" "$tmp/out" && tar -xzf "$tgz" -C "$tmp/x" || fail "the tarball does not unpack"
node "$here/claude-convert.js" "$tmp/x/package" "$tmp/out" >/dev/null || fail "the conversion failed"
[ "$(sha "$tmp/out/claude.tiktoken")" = "$ranks_sha" ] || fail "the converted claude.tiktoken has the wrong sha256"
[ "$(sha "$tmp/out/ai-tokenizer.models")" = "$models_sha" ] || fail "the converted models table has the wrong sha256"
mkdir -p "$dest" && rm -rf "$ref" && mkdir -p "$ref" || fail "cannot write $build"
cp "$tmp/out/claude.tiktoken" "$tmp/out/ai-tokenizer.models" "$dest/" && mv "$tmp/x/package" "$ref/package" ||
  fail "cannot write $build"
intact || fail "the files did not land in $build"
echo "ctxscope: approximate Claude tokenizer in $dest"

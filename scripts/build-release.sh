#!/usr/bin/env bash
# Builds the release binary (Swift runtime linked in statically) and stages it with its default
# config in a folder: `todo-server` (the OpenAPI document is embedded in it), `Config/todo-server.json`
# and `healthcheck` (the image's HEALTHCHECK, scripts/container-healthcheck.sh). The Dockerfile runs this script,
# and so does CI, so that the image's build steps are exercised without a Docker engine.
# Usage: scripts/build-release.sh [staging-folder]   (default: .build/staging)
set -euo pipefail
cd "$(dirname "$0")/.."

staging="${1:-.build/staging}"
# The link (lld, Package.swift) lays out the functions that run at a start and on each request
# together, in the order of scripts/link-order.txt (scripts/link-order.sh writes it), and packs the
# relative relocations (DT_RELR, -z pack-relative-relocs) where the C library reads them (glibc
# 2.36 and later: the binary would not start on an older one). Idle resident memory: docs/performance.md
# (Benchmarks/memory/idle-rss.sh).
link=(-Xlinker "--symbol-ordering-file=$PWD/scripts/link-order.txt" -Xlinker --no-warn-symbol-ordering)
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}' || true)
if [ -n "$glibc" ] && [ "$(printf '%s\n2.36\n' "$glibc" | sort -V | head -1)" = 2.36 ]; then
  link+=(-Xlinker -z -Xlinker pack-relative-relocs)
fi
bin="$(swift build -c release --show-bin-path)"
# SwiftPM does not see the order file as an input: when it changed since the last link, the linked
# binary goes, so that this build links again.
stamp=$(sha256sum scripts/link-order.txt | cut -d' ' -f1)
if [ "$(cat "$bin/todo-server.link-order" 2>/dev/null || true)" != "$stamp" ]; then rm -f "$bin/todo-server"; fi
swift build -c release --product todo-server --static-swift-stdlib "${link[@]}"
echo "$stamp" >"$bin/todo-server.link-order"
mkdir -p "$staging/Config"
# Copy, then rename: a server still running from the staged binary keeps its file ("Text file busy"
# is what copying over a running executable gives).
cp "$bin/todo-server" "$staging/todo-server.new"
mv -f "$staging/todo-server.new" "$staging/todo-server"
# The OpenAPI document used to ship as a resource bundle beside the binary: drop a stale one.
rm -rf "$staging/TodoServer_TodoServer.resources"
cp Config/todo-server.json "$staging/Config/todo-server.json"
cp scripts/container-healthcheck.sh "$staging/healthcheck"
echo "staged $staging/todo-server"

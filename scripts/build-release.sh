#!/usr/bin/env bash
# Builds the release binary (Swift runtime linked in statically) and stages it with its default
# config in a folder: `todo-server` (the OpenAPI document is embedded in it), `Config/todo-server.json`
# and `healthcheck` (the image's HEALTHCHECK, scripts/container-healthcheck.sh). The Dockerfile runs this script,
# and so does CI, so that the image's build steps are exercised without a Docker engine.
# Usage: scripts/build-release.sh [staging-folder]   (default: .build/staging)
set -euo pipefail
cd "$(dirname "$0")/.."

staging="${1:-.build/staging}"
swift build -c release --product todo-server --static-swift-stdlib
bin="$(swift build -c release --show-bin-path)"
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

#!/usr/bin/env bash
# Issue 24's browser check: the Todo-Backend specs (todobackend.com: a page on another origin drives
# a to-do backend with cross-origin requests) in headless Chromium, in our own code. The page
# (scripts/browser/todo_backend.html) runs the spec's groups (the pre-requisites, storing new to-dos
# by POSTing to the root, working with an existing to-do through its `url`, tracking order) with the
# browser's fetch and Content-Type: application/json, so every request is preflighted, checking
# concrete values; the checker (scripts/browser/todo_backend_check.py, standard library only) serves
# it from another origin, runs it against a release binary with the default corsOrigin ("*") and one
# with an allow-list naming the page's origin, and checks that an origin not on the list is refused.
# Prints failures and one summary line; exits non-zero on any failure.
# Installs chromium from Debian when missing, as scripts/browser-feed-check.sh does.
# Usage: scripts/todo-backend-check.sh [staging-folder]   (default: .build/staging)
# Environment: SKIP_BUILD=1 to reuse the staged binary (otherwise scripts/build-release.sh stages it);
# CHROMIUM, the browser to run (default: chromium on PATH); KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."
staging="${1:-.build/staging}"
chromium="${CHROMIUM:-chromium}"

if ! command -v "$chromium" >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: chromium"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-release.sh "$staging" >/dev/null
[ -x "$staging/todo-server" ] || { echo "todo-backend: no $staging/todo-server (scripts/build-release.sh stages it)" >&2; exit 1; }

keep=()
[ "${KEEP:-0}" = 1 ] && keep=(--keep)
exec python3 scripts/browser/todo_backend_check.py --server "$staging/todo-server" --chromium "$chromium" "${keep[@]}"

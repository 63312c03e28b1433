#!/usr/bin/env bash
# Issue 19's browser check: headless Chromium follows the live change feed (GET /todos/events) from
# a page on another origin, across a restart of the release binary with a data directory. The page
# (scripts/browser/feed.html) lists with credentials, reads X-Last-Event-ID and subscribes with
# EventSource(..., {withCredentials: true}) and access_token=; the checker
# (scripts/browser/feed_check.py, standard library only) serves it, makes changes with curl, restarts
# the server with SIGTERM and checks that the page saw every change exactly once, in order, and
# reconnected by itself without a resync; an origin not on the allow-list must be refused.
# Prints failures and one summary line; exits non-zero on any failure.
# Installs chromium and curl from Debian when missing, as scripts/real-clients.sh installs its clients
# (not in scripts/install-deps.sh, which scripts/test.sh and scripts/serve.sh run too).
# Usage: scripts/browser-feed-check.sh [staging-folder]   (default: .build/staging)
# Environment: SKIP_BUILD=1 to reuse the staged binary (otherwise scripts/build-release.sh stages it);
# CHROMIUM, the browser to run (default: chromium on PATH); KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."
staging="${1:-.build/staging}"
chromium="${CHROMIUM:-chromium}"

missing=()
command -v "$chromium" >/dev/null 2>&1 || missing+=(chromium)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-release.sh "$staging" >/dev/null
[ -x "$staging/todo-server" ] || { echo "browser check: no $staging/todo-server (scripts/build-release.sh stages it)" >&2; exit 1; }

keep=()
[ "${KEEP:-0}" = 1 ] && keep=(--keep)
# BROWSER_CHECK names another checker of scripts/browser/ with the same options (browser-owners-check.sh).
exec python3 "scripts/browser/${BROWSER_CHECK:-feed_check}.py" --server "$staging/todo-server" --chromium "$chromium" "${keep[@]}"

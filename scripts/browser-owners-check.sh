#!/usr/bin/env bash
# Issue 36's browser check: two owners in one headless Chromium. The page (scripts/browser/feed.html)
# is opened as alice and embeds itself as bob; each lists with its owner token and follows the live
# feed with EventSource and access_token=; the checker (scripts/browser/owners_check.py, standard
# library only) makes changes for both with curl and checks that each page saw exactly its owner's
# changes and listed only its owner's to-dos.
# Installs chromium and curl from Debian when missing (as scripts/browser-feed-check.sh does).
# Usage: scripts/browser-owners-check.sh [staging-folder]   (default: .build/staging)
# Environment: SKIP_BUILD=1 to reuse the staged binary; CHROMIUM, the browser to run; KEEP=1 keeps
# the work folder.
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
[ -x "$staging/todo-server" ] || { echo "browser owners: no $staging/todo-server (scripts/build-release.sh stages it)" >&2; exit 1; }

keep=()
[ "${KEEP:-0}" = 1 ] && keep=(--keep)
exec python3 scripts/browser/owners_check.py --server "$staging/todo-server" --chromium "$chromium" "${keep[@]}"

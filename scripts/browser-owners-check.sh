#!/usr/bin/env bash
# Issue 36's browser check: two owners in one headless Chromium. The page (scripts/browser/feed.html)
# is opened as alice and embeds itself as bob; each lists with its owner token and follows the live
# feed with EventSource and access_token=; the checker (scripts/browser/owners_check.py, standard
# library only) makes changes for both with curl and checks that each page saw exactly its owner's
# changes and listed only its owner's to-dos.
# Runs through scripts/browser-feed-check.sh (which installs chromium and curl when missing).
# Usage: scripts/browser-owners-check.sh [staging-folder]   (default: .build/staging)
# Environment: SKIP_BUILD=1 to reuse the staged binary; CHROMIUM, the browser to run; KEEP=1 keeps
# the work folder.
BROWSER_CHECK=owners_check exec "$(dirname "$0")/browser-feed-check.sh" "$@"

#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite (unit and end-to-end).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
swift test "$@"

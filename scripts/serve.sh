#!/usr/bin/env bash
# Installs what is missing, builds the release binary and runs the server in the foreground.
# Flags go to todo-server (scripts/serve.sh --port 9000 --threads 2); TODO_* variables work too.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build-release.sh .build/staging >/dev/null
exec .build/staging/todo-server "$@"

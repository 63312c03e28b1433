#!/usr/bin/env bash
# Installs what is missing, builds the release binary (showing the build's progress: the first
# build takes a few minutes) and runs the server in the foreground from .build/staging.
# Flags go to todo-server (scripts/serve.sh --port 9000 --threads 2); TODO_* variables work too.
# Run twice: the build replaces the staged binary by renaming, so a server already running from it
# keeps running; a second server on a port that already answers is refused with a clear message.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

# The port the server will use: --port, else TODO_PORT, else the config file's, else 8080.
port="" config="${TODO_CONFIG:-Config/todo-server.json}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --port) port="${args[i + 1]:-}" ;;
    --port=*) port="${args[i]#--port=}" ;;
    --config) config="${args[i + 1]:-}" ;;
    --config=*) config="${args[i]#--config=}" ;;
  esac
done
[ -n "$port" ] || port="${TODO_PORT:-}"
[ -n "$port" ] || port="$(sed -n 's/^ *"port": *\([0-9]*\).*/\1/p' "$config" 2>/dev/null | head -1)"
[ -n "$port" ] || port=8080
if [ "$port" != 0 ] && curl -fs -o /dev/null --max-time 2 "http://127.0.0.1:$port/healthz" 2>/dev/null; then
  echo "serve.sh: a server is already running on port $port (http://localhost:$port/ answers)." >&2
  echo "serve.sh: stop it first (Ctrl-C in its terminal), or run this one on another port: scripts/serve.sh --port 9000" >&2
  exit 1
fi

echo "serve.sh: building the release binary (swift build -c release; the first build takes a few minutes)"
started=$SECONDS
scripts/build-release.sh .build/staging 2>&1 | sed -u 's/^/  | /'
echo "serve.sh: built in $((SECONDS - started)) s"
cat <<BANNER

  TodoServer, release build: .build/staging/todo-server (config: $config)
    open      http://localhost:$port/             the index links every route
    contract  http://localhost:$port/openapi.json  and docs/API.md
    try       curl -si localhost:$port/todos -d '{"title":"Buy milk"}'
    stop      Ctrl-C: finishes the requests in flight, exits 0

BANNER
exec .build/staging/todo-server "$@"

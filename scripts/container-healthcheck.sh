#!/bin/sh
# The container's HEALTHCHECK: GET /healthz on the port the running server was configured with,
# read the way the server reads it: --port (or --port=) on its command line, else TODO_PORT in its
# environment, else "port" in its config file (--config, else TODO_CONFIG, else
# Config/todo-server.json relative to its working directory), else 8080. The same goes for the
# host (0.0.0.0 and :: are asked on loopback). The server is PID 1 in the container;
# TODO_HEALTHCHECK_PID names another (scripts/smoke-test.sh runs it that way).
# build-release.sh stages it as `healthcheck` next to the binary.
set -eu
pid="${TODO_HEALTHCHECK_PID:-1}"
args="$(tr '\0' '\n' <"/proc/$pid/cmdline")"
environment="$(tr '\0' '\n' <"/proc/$pid/environ")"

flag() { # the value of --$1 N or --$1=N on the command line
  printf '%s\n' "$args" | sed -n "/^--$1\$/{n;p;q;}; s/^--$1=//p" | head -1
}
variable() { printf '%s\n' "$environment" | sed -n "s/^$1=//p" | head -1; }
from_file() { # "key": number or "string" in the config file
  sed -n "s/^[[:space:]]*\"$1\"[[:space:]]*:[[:space:]]*\"\{0,1\}\([^\",]*\)\"\{0,1\}.*/\1/p" "$config" 2>/dev/null | head -1
}

config="$(flag config)"; [ -n "$config" ] || config="$(variable TODO_CONFIG)"; [ -n "$config" ] || config=Config/todo-server.json
case "$config" in /*) ;; *) config="/proc/$pid/cwd/$config" ;; esac
port="$(flag port)"; [ -n "$port" ] || port="$(variable TODO_PORT)"; [ -n "$port" ] || port="$(from_file port)"; [ -n "$port" ] || port=8080
host="$(flag host)"; [ -n "$host" ] || host="$(variable TODO_HOST)"; [ -n "$host" ] || host="$(from_file host)"
case "$host" in "" | 0.0.0.0 | localhost) host=127.0.0.1 ;; :: | "[::]") host="[::1]" ;; *:*) host="[$host]" ;; esac
exec curl -fsS --max-time 2 -o /dev/null "http://$host:$port/healthz"

#!/bin/bash
# The container's HEALTHCHECK: GET /healthz on the port the running server was configured with,
# read the way the server reads it: --port (or --port=) on its command line, else TODO_PORT in its
# environment, else "port" in its config file (--config, else TODO_CONFIG, else
# Config/todo-server.json relative to its working directory), else 8080. The same goes for the
# host (0.0.0.0 and :: are asked on loopback). It speaks HTTP itself, through bash's /dev/tcp, so
# the image needs no curl: exit 0 on a 200 within 2 s, else 1 with a line saying what it got. The
# server is PID 1 in the container;
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
case "$host" in "" | 0.0.0.0 | localhost) host=127.0.0.1 ;; :: | "[::]") host=::1 ;; esac
host="${host#[}"
host="${host%]}"
case "$host" in *:*) url="http://[$host]:$port/healthz" ;; *) url="http://$host:$port/healthz" ;; esac
if ! { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
  echo "healthcheck: cannot connect to $url" >&2
  exit 1
fi
printf 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3
status=""
IFS= read -r -t 2 status <&3 || true
case "$status" in
  "HTTP/1.1 200 "* | "HTTP/1.0 200 "*) exit 0 ;;
  "") echo "healthcheck: no answer from $url within 2 s" >&2 ;;
  *) echo "healthcheck: $url answered ${status%$'\r'}" >&2 ;;
esac
exit 1

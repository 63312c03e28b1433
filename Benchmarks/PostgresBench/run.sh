#!/usr/bin/env bash
# Primary-key reads/s through one PostgresLoop connection on one loop (1 and 32 in flight) against a
# throwaway PostgreSQL 15 cluster (unix socket, fsync=off), as in ../../../shared/POSTGRES.md.
# SECONDS_PER_SAMPLE (3) and ROUNDS (5) override the defaults.
set -euo pipefail
cd "$(dirname "$0")"
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
swift build -c release --product TodoPostgresBench >/dev/null
D=$(mktemp -d /tmp/todo-pg-bench.XXXXXX)
as_postgres=()
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$D"; as_postgres=(runuser -u postgres --); fi
cleanup() { "${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$D"; }
trap cleanup EXIT
"${as_postgres[@]}" "$BIN/initdb" -D "$D/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
"${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -l "$D/server.log" -w -t 60 \
  -o "-p 55432 -k $D -c listen_addresses='' -c fsync=off" start >/dev/null
.build/release/TodoPostgresBench "host=$D port=55432 dbname=postgres user=postgres" "${SECONDS_PER_SAMPLE:-3}" "${ROUNDS:-5}"

#!/usr/bin/env bash
# Instructions and allocations per request on the journaled and the PostgreSQL store, for several
# staged binaries in one run: how a change to the server moves the cost of the durable stores.
#
# Usage: Benchmarks/stores/callgrind.sh LABEL=STAGED_BINARY… (each a todo-server from
# scripts/build-release.sh). For every binary: Benchmarks/wire/callgrind.sh with a fresh data
# directory (TODO_DATA_DIR, fsync as configured by default), then with a fresh database on one
# throwaway PostgreSQL 15 cluster (TODO_DATABASE_URL). Environment: N (1000 requests per workload).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || { echo "usage: $0 LABEL=STAGED_BINARY…" >&2; exit 64; }
N=${N:-1000}
PG_PORT=${PG_PORT:-55451}
source Benchmarks/pg-cluster.sh
journals=$(mktemp -d /tmp/todo-stores-journal.XXXXXX)
trap 'pg_cluster_stop; rm -rf "$journals"' EXIT
pg_cluster_start todo-stores-cg 50

printf "| binary | store | workload | instructions/request | allocations/request |\n|---|---|---|---|---|\n"
index=0
for spec in "$@"; do
  label=${spec%%=*} binary=${spec#*=}
  index=$((index + 1))
  mkdir "$journals/$index"
  TODO_DATA_DIR="$journals/$index" TODO_BINARY=$binary SERVERS=todo N=$N Benchmarks/wire/callgrind.sh 2>/dev/null \
    | awk -F'|' -v label="$label" 'NR > 2 { printf "| %s | journal |%s|%s|%s|\n", label, $3, $4, $5 }'
  psql_run "CREATE DATABASE stores_$index" >/dev/null
  TODO_DATABASE_URL="host=$D port=$PG_PORT dbname=stores_$index user=postgres" TODO_BINARY=$binary SERVERS=todo N=$N \
    Benchmarks/wire/callgrind.sh 2>/dev/null \
    | awk -F'|' -v label="$label" 'NR > 2 { printf "| %s | postgresql |%s|%s|%s|\n", label, $3, $4, $5 }'
done

#!/usr/bin/env bash
# TEMPORARY (issue 22): one TodoServer built from a commit with the PostgresLoop timing hooks
# (TODO_PG_TRACE) on a throwaway cluster, postgres-peer.sh's four workloads, then a per-phase report
# (postgres-trace-report.py): when each request reached its connection, how many it found in flight
# there, when its result arrived, the gaps on a connection that had requests waiting, the loop's lag.
#
# Usage: Benchmarks/postgres-trace.sh STAGING OUT [VAR=value…] (extra environment for the server,
# e.g. TODO_DATABASE_CONNECTIONS_PER_LOOP=1). DURATION (8), CONNECTIONS (64), PG_PORT (55471).
set -euo pipefail
staging=$(realpath "$1") out=$(realpath -m "$2"); shift 2
DURATION=${DURATION:-8} CONNECTIONS=${CONNECTIONS:-64} PG_PORT=${PG_PORT:-55471}
cd "$(dirname "$0")/.."
. Benchmarks/pg-cluster.sh
pg_cluster_start todo-pg-trace 100
pid=""
trap '[ -n "$pid" ] && { kill $pid 2>/dev/null; wait $pid 2>/dev/null; }; pg_cluster_stop' EXIT
psql_run "CREATE DATABASE bench"
mkdir -p "$out"; chmod 777 "$out"
port=19380
(cd "$staging" && env "$@" TODO_PG_TRACE="$out" TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=2 \
  TODO_DATABASE_URL="host=$D port=$PG_PORT dbname=bench user=postgres" ./todo-server) >"$out/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && break; sleep 0.05; done
ids=$(python3 Benchmarks/seed.py $port 20 1); first=${ids%%,*}
url=http://127.0.0.1:$port
cat >"$out/report.lua" <<'LUA'
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d seconds=%.3f p50_us=%d p90_us=%d p99_us=%d p999_us=%d max_us=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max, errors))
end
LUA
mono() { python3 -c 'import time; print(time.monotonic_ns())'; }
run() { local w=$1; shift; local a b line; a=$(mono)
  line=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -H "Origin: http://localhost:3000" "$@" | grep '^RESULT')
  b=$(mono); echo "$w $a $b $line" | tee -a "$out/wrk.txt" >&2; }
run list20 -s "$out/report.lua" "$url/todos"
run get-one -s "$out/report.lua" "$url/todos/$first"
cat "$out/report.lua" Benchmarks/wrk/patch.lua >"$out/patch.lua"; TODO_ID=$first run patch -s "$out/patch.lua" "$url"
cat "$out/report.lua" Benchmarks/wrk/post.lua >"$out/post.lua"; run post -s "$out/post.lua" "$url/todos"
kill $pid; wait $pid 2>/dev/null || true; pid=""
python3 Benchmarks/postgres-trace-report.py "$out"

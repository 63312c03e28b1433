#!/usr/bin/env bash
# TodoServer on PostgreSQL (PostgresTodoStore, libpq pipelined on its event loops) against an
# idiomatic Hummingbird 2 + PostgresNIO peer (Peers/TodoHummingbirdPostgres) on the same throwaway
# PostgreSQL 15 cluster (unix socket, fsync=off, as PostgresBench/run.sh sets it up), in one run.
#
# For each round the servers run in turn (A B A B…), each fresh on a fresh database of the cluster
# (so a fresh table), with the same loop-thread count, the same 20 seeded to-dos and the same wrk
# workloads as run.sh: list20, get-one, patch, post. Besides run.sh's figures it records the CPU
# the cluster's processes (postmaster and backends) spent per request. Prints a Markdown table of
# medians with each server's ratio to TodoServer on PostgreSQL; raw lines go to Benchmarks/results/.
# For TodoServer it also scrapes /metrics around each workload and prints where its PostgreSQL
# requests spent their time (report-phases.py: queued, in the connection's pipeline, the statement,
# the answer, as histogram percentiles); with PG_STATS=1 the cluster loads pg_stat_statements
# (nested statements, triggers' included) and each workload's statements are saved with their
# calls, time and buffers (statements-SERVER-ROUND-WORKLOAD.txt).
#
# Environment: ROUNDS (3), DURATION seconds per workload (10), THREADS per server (2),
# CONNECTIONS (64), SERVERS ("todo hbpg"; add "todomem" for TodoServer's in-memory store in the
# same run; "todo-batchN" runs TodoServer with databaseInsertBatch N, e.g. todo-batch1 for inserts one
# a statement; "hbpgN" runs the peer with a pool of at most N connections, so that
# SERVERS="hbpg4 hbpg8 hbpg20" sweeps its pool size in one run), HBPG_CONNECTIONS (the pool size of a
# plain "hbpg", here and in postgres-scale.sh: PostgresClient's default, 20, when unset), ORIGIN ("http://localhost:3000", as run.sh), PG_BIN (/usr/lib/postgresql/15/bin),
# PG_PORT (55441), PORT (19180: the servers' HTTP port), BUILD (1; 0 uses the binaries already built), STAGING (.build/staging: the folder
# holding TodoServer's staged release binary), SCALE (1: then runs postgres-scale.sh), OWNERS (unset:
# the shared list, as above).
#
# OWNERS=N (issue 36): both servers run with the same N owner tokens (`o<i>:t<i>`, i < N: TodoServer
# through TODO_OWNER_TOKENS, plus an operator's TODO_AUTH_TOKENS for /metrics, which owners close;
# the peer through its own TODO_OWNER_TOKENS, read the same way), each owner's list is seeded with
# the same 20 to-dos (owners/seed_owners.py), and every wrk request carries an owner's bearer token,
# rotating over the owners request by request, GET one and PATCH asking for one of that owner's
# to-dos (wrk/owners.lua). The table is the same, one per run; setup.txt in the results says which mode.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10} THREADS=${THREADS:-2} CONNECTIONS=${CONNECTIONS:-64}
SERVERS=${SERVERS:-"todo hbpg"} ORIGIN=${ORIGIN-http://localhost:3000}
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin} PG_PORT=${PG_PORT:-55441} STAGING=${STAGING:-.build/staging}
results="Benchmarks/results/pg-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
OWNERS=${OWNERS:-}
owner_env=() todo_owner_env=() owner_tokens="" owner_auth=() metrics_auth=()
if [ -n "$OWNERS" ]; then
  owner_pairs=$(seq 0 $((OWNERS - 1)) | awk '{printf "%so%d:t%d", (NR > 1 ? "," : ""), $1, $1}')
  owner_tokens=$(seq 0 $((OWNERS - 1)) | awk '{printf "%st%d", (NR > 1 ? "," : ""), $1}')
  owner_env=(TODO_OWNER_TOKENS="$owner_pairs")
  metrics_token="metrics-$RANDOM$RANDOM"
  todo_owner_env=(TODO_OWNER_TOKENS="$owner_pairs" TODO_AUTH_TOKENS="$metrics_token")
  owner_auth=(-H "Authorization: Bearer t0")
  metrics_auth=(-H "Authorization: Bearer $metrics_token")
fi
echo "OWNERS=${OWNERS:-none} ROUNDS=$ROUNDS DURATION=$DURATION THREADS=$THREADS CONNECTIONS=$CONNECTIONS SERVERS=$SERVERS commit=$(git rev-parse --short HEAD) load=$(cut -d' ' -f1-3 /proc/loadavg)" \
  >"$results/setup.txt"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

if [ "${BUILD:-1}" = 1 ]; then
  echo "== building (release)" >&2
  scripts/build-release.sh "$STAGING" >/dev/null
  case " $SERVERS " in *" hbpg"*) Benchmarks/Peers/build.sh TodoHummingbirdPostgres >/dev/null ;; esac
fi

echo "== PostgreSQL 15 cluster" >&2
D=$(mktemp -d /tmp/todo-pg-peer.XXXXXX)
as_postgres=()
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$D"; as_postgres=(runuser -u postgres --); fi
pid=""
cleanup() {
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  "${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$D"
}
trap cleanup EXIT
pg_stats_options=""
[ "${PG_STATS:-0}" = 1 ] && pg_stats_options="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all"
"${as_postgres[@]}" "$BIN/initdb" -D "$D/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
"${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -l "$D/server.log" -w -t 60 \
  -o "-p $PG_PORT -k $D -c listen_addresses='' -c fsync=off -c max_connections=100 $pg_stats_options" start >/dev/null
psql_run() { "$BIN/psql" -h "$D" -p "$PG_PORT" -U postgres -d "${2:-postgres}" -qAt -v ON_ERROR_STOP=1 -c "$1"; }
postmaster=$(head -1 "$D/data/postmaster.pid")

port=${PORT:-19180}
start_server() { # NAME DATABASE → sets pid
  local database=$2
  case "$1" in
    todo) (cd "$STAGING" && exec env "${todo_owner_env[@]}" TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS \
      TODO_DATABASE_URL="host=$D port=$PG_PORT dbname=$database user=postgres" ./todo-server) >/dev/null 2>&1 & ;;
    todo-batch*) (cd "$STAGING" && exec env "${todo_owner_env[@]}" TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS \
      TODO_DATABASE_INSERT_BATCH=${1#todo-batch} TODO_DATABASE_URL="host=$D port=$PG_PORT dbname=$database user=postgres" \
      ./todo-server) >/dev/null 2>&1 & ;;
    todomem) (cd "$STAGING" && exec env "${todo_owner_env[@]}" TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS ./todo-server) \
      >/dev/null 2>&1 & ;;
    hbpg*) pool=${1#hbpg}
      env "${owner_env[@]}" TODO_PG_SOCKET="$D/.s.PGSQL.$PG_PORT" TODO_PG_DATABASE=$database TODO_PG_CONNECTIONS=${pool:-${HBPG_CONNECTIONS:-}} \
      Benchmarks/Peers/TodoHummingbirdPostgres/.build/release/TodoHummingbirdPostgres $port "$THREADS" >/dev/null 2>&1 & ;;
  esac
  pid=$!
  # A server that died (its port taken by another process) must not pass for up.
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break
    curl -fs "${owner_auth[@]}" "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $1 did not start" >&2; exit 1
}
stop_server() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# utime + stime of the postmaster and every backend it forked (a backend that exits between the two
# readings takes its ticks with it, so this counts only backends that live through a workload:
# both servers keep their connections open).
db_ticks() {
  local total=0 p
  for p in $postmaster $(pgrep -P "$postmaster"); do
    [ -r "/proc/$p/stat" ] && total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# run_wrk SERVER ROUND WORKLOAD [wrk arguments…]: one line of results per run.
run_wrk() {
  local server=$1 round=$2 workload=$3; shift 3
  local before after db_before db_after line origin=()
  [ -n "$ORIGIN" ] && origin=(-H "Origin: $ORIGIN")
  local scrape=0
  case "$server" in todo | todo-batch* | todomem) scrape=1 ;; esac
  [ "$scrape" = 1 ] && curl -fs "${metrics_auth[@]}" "$url/metrics" >"$results/metrics-$server-$round-$workload-before.txt"
  [ "${PG_STATS:-0}" = 1 ] && psql_run "SELECT pg_stat_statements_reset()" "$database" >/dev/null
  before=$(cpu_ticks); db_before=$(db_ticks)
  line=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "${origin[@]}" -s Benchmarks/wrk/report.lua "$@" | grep '^RESULT' || true)
  after=$(cpu_ticks); db_after=$(db_ticks)
  [ "$scrape" = 1 ] && curl -fs "${metrics_auth[@]}" "$url/metrics" >"$results/metrics-$server-$round-$workload-after.txt"
  [ "${PG_STATS:-0}" = 1 ] && psql_run "SELECT calls, round(total_exec_time::numeric, 1) AS total_ms,
    round((total_exec_time / calls * 1000)::numeric, 1) AS mean_us, round(max_exec_time::numeric, 2) AS max_ms,
    round(((shared_blks_hit + shared_blks_read)::numeric / calls), 1) AS blocks_per_call, rows, toplevel,
    regexp_replace(left(query, 160), '\s+', ' ', 'g') FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25" \
    "$database" >"$results/statements-$server-$round-$workload.txt"
  echo "$server $round $workload $line cpu_ticks=$((after - before)) db_ticks=$((db_after - db_before)) hz=$(getconf CLK_TCK)" \
    | tee -a "$results/raw.txt" >&2
}
combined() { cat Benchmarks/wrk/report.lua "Benchmarks/wrk/$1"; }
# OWNERS mode, after seeding: the server scopes by owner (o0 sees its 20, o1 gets 404 for o0's to-do,
# no token is 401), or the run stops.
check_owners() {
  local total other anonymous
  total=$(curl -fsS -o /dev/null -D - -H "Authorization: Bearer t0" "$url/todos" | tr -d '\r' \
    | awk -F': ' 'tolower($1) == "x-total-count" {print $2}')
  anonymous=$(curl -s -o /dev/null -w '%{http_code}' "$url/todos")
  other=404
  [ "$OWNERS" -ge 2 ] && other=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer t1" "$url/todos/${owner_ids%%,*}")
  if [ "$total" != 20 ] || [ "$other" != 404 ] || [ "$anonymous" != 401 ]; then
    echo "$server does not scope by owner: o0 sees $total to-dos (20), o1 reads o0's: $other (404), no token: $anonymous (401)" >&2
    exit 1
  fi
}

for round in $(seq 1 "$ROUNDS"); do
  for server in $SERVERS; do
    echo "== round $round: $server" >&2
    database="bench_${server//-/_}_$round"
    psql_run "CREATE DATABASE $database"
    [ "${PG_STATS:-0}" = 1 ] && psql_run "CREATE EXTENSION pg_stat_statements" "$database"
    start_server "$server" "$database"
    url="http://127.0.0.1:$port"
    if [ -n "$OWNERS" ]; then
      # Every owner's list gets the same 20 to-dos; GET one and PATCH ask for each owner's first.
      owner_ids=$(python3 Benchmarks/owners/seed_owners.py $port "$OWNERS" 20 4 --ids)
      check_owners
      combined owners.lua >"$results/owners.lua"
      for workload in list20 get-one patch post; do
        WORKLOAD=$workload OWNER_TOKENS=$owner_tokens OWNER_IDS=$owner_ids \
          run_wrk "$server" "$round" $workload -s "$results/owners.lua" "$url"
      done
    else
      ids=$(python3 Benchmarks/seed.py $port 20 1)
      first=${ids%%,*}
      run_wrk "$server" "$round" list20 "$url/todos"
      run_wrk "$server" "$round" get-one "$url/todos/$first"
      combined patch.lua >"$results/patch.lua"; TODO_ID=$first run_wrk "$server" "$round" patch -s "$results/patch.lua" "$url"
      combined post.lua >"$results/post.lua"; run_wrk "$server" "$round" post -s "$results/post.lua" "$url/todos"
    fi
    stop_server
    psql_run "DROP DATABASE $database"
  done
done

python3 Benchmarks/report.py "$results/raw.txt" | tee "$results/table.md"
case " $SERVERS " in *" todo "*) echo; python3 Benchmarks/report-phases.py "$results" todo | tee "$results/phases.md" ;; esac

# The page over 1,000,000 to-dos, one against two instances, and connections per loop (SCALE=0 skips).
if [ "${SCALE:-1}" = 1 ]; then BUILD=0 Benchmarks/postgres-scale.sh; fi

#!/usr/bin/env bash
# TodoServer on PostgreSQL at scale, on one throwaway PostgreSQL 15 cluster (unix socket, fsync=off,
# as postgres-peer.sh sets it up); postgres-peer.sh calls this after its own run (SCALE=0 skips it).
# Three parts (PARTS, default "page instances connections"), each ROUNDS rounds (3), one wrk run of
# DURATION seconds (10) with CONNECTIONS (64) per measurement, raw lines to Benchmarks/results/:
#
#   page         GET /todos?limit=50 (the default order) over 1,000 and over 1,000,000 to-dos, through
#                TodoServer and through the Hummingbird 2 + PostgresNIO peer (each on a database of its
#                own, seeded directly in SQL with generate_series into that server's schema: half the
#                to-dos with an "order", half without). Target: the 1M page within 2× the 1k page.
#                PAGE_SERVERS ("todo hbpg") picks the servers, PAGE_CONNECTIONS (CONNECTIONS) the load.
#   instances    one TodoServer instance (one wrk, CONNECTIONS connections) against two instances on
#                the same database (two processes on two ports, THREADS loops each; two wrk at once,
#                CONNECTIONS/2 connections each; throughput summed): GET one and POST.
#   connections  databaseConnectionsPerLoop in CPL_VALUES ("1 2 4"): GET one, POST, list20, the values
#                in a rotated order each round.
#
# Every round runs each variant once, so ratios are same-run ratios; report-scale.py prints medians
# and the median of the per-round ratios. The load average is recorded before and after each part.
# Environment as postgres-peer.sh: THREADS (2), PG_BIN, PG_PORT (55442), BUILD (1), ORIGIN.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10} THREADS=${THREADS:-2} CONNECTIONS=${CONNECTIONS:-64}
PARTS=${PARTS:-"page instances connections"} CPL_VALUES=${CPL_VALUES:-"1 2 4"} PAGE_SERVERS=${PAGE_SERVERS:-"todo hbpg"}
ORIGIN=${ORIGIN-http://localhost:3000}
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin} PG_PORT=${PG_PORT:-55442}
run_id="pgscale-$(date -u +%Y%m%dT%H%M%SZ)"
results="Benchmarks/results/$run_id"
mkdir -p "$results"
raw="$results/raw.txt"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

if [ "${BUILD:-1}" = 1 ]; then
  echo "== building (release)" >&2
  scripts/build-release.sh .build/staging >/dev/null
  case " $PARTS $PAGE_SERVERS " in *" page "*" hbpg "*) Benchmarks/Peers/build.sh TodoHummingbirdPostgres >/dev/null ;; esac
fi

echo "== PostgreSQL 15 cluster ($run_id)" >&2
D=$(mktemp -d /tmp/todo-pg-scale.XXXXXX)
as_postgres=()
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$D"; as_postgres=(runuser -u postgres --); fi
pids=()
stop_servers() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
cleanup() {
  stop_servers
  "${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$D"
}
trap cleanup EXIT
"${as_postgres[@]}" "$BIN/initdb" -D "$D/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >/dev/null
"${as_postgres[@]}" "$BIN/pg_ctl" -D "$D/data" -l "$D/server.log" -w -t 60 \
  -o "-p $PG_PORT -k $D -c listen_addresses='' -c fsync=off -c max_connections=200" start >/dev/null
psql_run() { "$BIN/psql" -h "$D" -p "$PG_PORT" -U postgres -d "${2:-postgres}" -qAt -v ON_ERROR_STOP=1 -c "$1"; }
note_load() { echo "loadavg $1 $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$raw" >&2; }

# start_server NAME DATABASE PORT [CONNECTIONS_PER_LOOP] → appends its pid to pids
start_server() {
  local name=$1 database=$2 port=$3 cpl=${4:-}
  case "$name" in
    todo) (cd .build/staging && exec env TODO_HOST=127.0.0.1 TODO_PORT="$port" TODO_THREADS="$THREADS" TODO_LOG_LEVEL=warning \
      ${cpl:+TODO_DATABASE_CONNECTIONS_PER_LOOP=$cpl} \
      TODO_DATABASE_URL="host=$D port=$PG_PORT dbname=$database user=postgres" ./todo-server) >/dev/null 2>&1 & ;;
    hbpg) TODO_PG_SOCKET="$D/.s.PGSQL.$PG_PORT" TODO_PG_DATABASE=$database TODO_PG_CONNECTIONS=${HBPG_CONNECTIONS:-} \
      Benchmarks/Peers/TodoHummingbirdPostgres/.build/release/TodoHummingbirdPostgres "$port" "$THREADS" >/dev/null 2>&1 & ;;
  esac
  pids+=($!)
  for _ in $(seq 1 400); do curl -fs "http://127.0.0.1:$port/todos?limit=1" >/dev/null 2>&1 && return; sleep 0.05; done
  echo "server $name on $database did not start" >&2; exit 1
}
ticks() { local total=0 p; for p in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$total"; }
origin=()
[ -n "$ORIGIN" ] && origin=(-H "Origin: $ORIGIN")
combined() { cat Benchmarks/wrk/report.lua "Benchmarks/wrk/$1" >"$results/$1"; echo "$results/$1"; }
post_script=$(combined post.lua)

# measure LABEL ROUND WORKLOAD "PIDS" URL[,URL…] [wrk arguments…]: one wrk per URL at once (the
# connections split evenly), one raw line with the summed requests and the largest p99.
measure() {
  local label=$1 round=$2 workload=$3 server_pids=$4 urls=$5; shift 5
  local count before after outputs=() i=0 url wrk_pids=() list=()
  IFS=, read -r -a list <<<"$urls"
  count=${#list[@]}
  before=$(ticks $server_pids)
  for url in "${list[@]}"; do
    outputs+=("$results/wrk.$i"); wrk -t1 -c$((CONNECTIONS / count)) -d"${DURATION}s" --latency "${origin[@]}" \
      -s Benchmarks/wrk/report.lua "$@" "$url" >"$results/wrk.$i" 2>&1 &
    wrk_pids+=($!)
    i=$((i + 1))
  done
  wait "${wrk_pids[@]}" || true
  after=$(ticks $server_pids)
  python3 - "$label" "$round" "$workload" "$((after - before))" "$(getconf CLK_TCK)" "${outputs[@]}" <<'EOF' | tee -a "$raw" >&2
import re, sys
label, round_, workload, ticks, hz, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
lines = [dict(re.findall(r"(\w+)=([\d.]+)", next((l for l in open(f) if l.startswith("RESULT")), ""))) for f in files]
if not all(lines):
    print(f"{label} {round_} {workload} failed"); sys.exit()
requests = sum(int(l["requests"]) for l in lines)
seconds = max(float(l["seconds"]) for l in lines)
each = " ".join(f"rps{i}={int(l['requests']) / float(l['seconds']):.0f}" for i, l in enumerate(lines))
print(f"{label} {round_} {workload} RESULT requests={requests} seconds={seconds:.3f} "
      f"p50_us={max(int(l['p50_us']) for l in lines)} p99_us={max(int(l['p99_us']) for l in lines)} "
      f"errors={sum(int(l['errors']) for l in lines)} cpu_ticks={ticks} hz={hz} {each}")
EOF
}

# seed_sql SERVER DATABASE COUNT: COUNT to-dos straight into the server's table (its schema exists:
# the server created it at start-up), half with an "order" (0…999), half without, one creation
# time each; then ANALYZE. TodoServer's statement-level triggers keep todo_counts exact.
seed_sql() {
  local server=$1 database=$2 count=$3
  case "$server" in
    todo) psql_run "INSERT INTO todo_rows (id, title, title_key, title_nfc, completed, \"order\", due_date, created_at, updated_at, revision)
      SELECT gen_random_uuid(), 'seeded to-do ' || g, 'seeded to-do ' || g, 'seeded to-do ' || g, g % 7 = 0,
             CASE WHEN g % 2 = 0 THEN g % 1000 END, NULL, now() - g * interval '1 ms', now() - g * interval '1 ms', 1
      FROM generate_series(1, $count) AS g" "$database" ;;
    hbpg) psql_run "INSERT INTO todos (id, title, completed, \"order\", due_date, created_at, updated_at, revision)
      SELECT gen_random_uuid(), 'seeded to-do ' || g, g % 7 = 0,
             CASE WHEN g % 2 = 0 THEN g % 1000 END, NULL, now() - g * interval '1 ms', now() - g * interval '1 ms', 1
      FROM generate_series(1, $count) AS g" "$database" ;;
  esac
  # TodoServer's table is todo_rows since migration 10 (todos is a view of the shared list there).
  if [ "$server" = todo ]; then psql_run "ANALYZE todo_rows" "$database"; else psql_run "ANALYZE todos" "$database"; fi
}

part_page() {
  note_load page-start
  local size port=19191 server
  declare -A ports=() server_pid=()
  for server in $PAGE_SERVERS; do
    for size in 1000 1000000; do
      psql_run "CREATE DATABASE page_${server}_${size}"
      start_server "$server" "page_${server}_${size}" "$port"
      ports["$server-$size"]=$port
      server_pid["$server-$size"]=${pids[-1]}
      local t0=$SECONDS
      seed_sql "$server" "page_${server}_${size}" "$size"
      echo "seeded $server $size in $((SECONDS - t0)) s; total header: $(curl -fsI "http://127.0.0.1:$port/todos?limit=1" | tr -d '\r' | grep -i '^x-total-count')" >&2
      port=$((port + 1))
    done
  done
  for round in $(seq 1 "$ROUNDS"); do
    for server in $PAGE_SERVERS; do
      for size in 1000 1000000; do
        CONNECTIONS=${PAGE_CONNECTIONS:-$CONNECTIONS} measure "$server" "$round" "page50-$size" "${server_pid[$server-$size]}" \
          "http://127.0.0.1:${ports[$server-$size]}/todos?limit=50" --timeout 10s
      done
    done
  done
  stop_servers
  note_load page-end
}

part_instances() {
  note_load instances-start
  local round
  for round in $(seq 1 "$ROUNDS"); do
    psql_run "CREATE DATABASE inst_$round"
    start_server todo "inst_$round" 19201
    start_server todo "inst_$round" 19202
    local ids first
    ids=$(python3 Benchmarks/seed.py 19201 20 1)
    first=${ids%%,*}
    measure one "$round" get-one "${pids[0]}" "http://127.0.0.1:19201/todos/$first"
    measure two "$round" get-one "${pids[*]}" "http://127.0.0.1:19201/todos/$first,http://127.0.0.1:19202/todos/$first"
    measure one "$round" post "${pids[0]}" "http://127.0.0.1:19201/todos" -s "$post_script"
    measure two "$round" post "${pids[*]}" "http://127.0.0.1:19201/todos,http://127.0.0.1:19202/todos" -s "$post_script"
    stop_servers
  done
  note_load instances-end
}

part_connections() {
  note_load connections-start
  local round cpl values
  read -r -a values <<<"$CPL_VALUES"
  for round in $(seq 1 "$ROUNDS"); do
    local shift=$(((round - 1) % ${#values[@]})) order=()
    order=("${values[@]:$shift}" "${values[@]:0:$shift}")
    for cpl in "${order[@]}"; do
      psql_run "CREATE DATABASE cpl_${cpl}_$round"
      start_server todo "cpl_${cpl}_$round" 19211 "$cpl"
      local ids first
      ids=$(python3 Benchmarks/seed.py 19211 20 1)
      first=${ids%%,*}
      measure "cpl$cpl" "$round" list20 "${pids[0]}" "http://127.0.0.1:19211/todos"
      measure "cpl$cpl" "$round" get-one "${pids[0]}" "http://127.0.0.1:19211/todos/$first"
      measure "cpl$cpl" "$round" post "${pids[0]}" "http://127.0.0.1:19211/todos" -s "$post_script"
      stop_servers
    done
  done
  note_load connections-end
}

for part in $PARTS; do "part_$part"; done
echo "== $run_id: ROUNDS=$ROUNDS DURATION=$DURATION THREADS=$THREADS CONNECTIONS=$CONNECTIONS PARTS=\"$PARTS\"" | tee "$results/table.md"
python3 Benchmarks/report-scale.py "$raw" | tee -a "$results/table.md"

#!/usr/bin/env bash
# How long DELETE /todos holds the PostgreSQL to-do table (its EXCLUSIVE lock, migration 9: writes wait
# for it): todo_owner_remove_all('', 0) (migration 10; todo_remove_all(0) before) timed by psql against 10,000 and 100,000 to-dos, 3 runs each, on a
# throwaway cluster (Benchmarks/pg-cluster.sh) migrated by the staged release binary
# (scripts/build-release.sh .build/staging).
set -euo pipefail
cd "$(dirname "$0")/.."
PG_PORT=${PG_PORT:-55471}
source Benchmarks/pg-cluster.sh
pg_cluster_start clearbench 40
trap pg_cluster_stop EXIT
psql_run "CREATE DATABASE todo"
URL="host=$D port=$PG_PORT dbname=todo user=postgres"
.build/staging/todo-server --port 0 --host 127.0.0.1 --database-url "$URL" > "$D/server-todo.log" 2>&1 &
pid=$!
for i in $(seq 1 100); do grep -q listening "$D/server-todo.log" && break; sleep 0.1; done
kill -TERM $pid; wait $pid || true
for n in 10000 100000; do
  for run in 1 2 3; do
    psql_run "INSERT INTO todo_rows (id, title, title_key, title_nfc, completed, created_at, updated_at, revision)
      SELECT gen_random_uuid(), 't' || g, 't' || g, 't' || g, g % 3 = 0, now(), now(), 1 FROM generate_series(1, $n) g" todo
    psql_run "VACUUM ANALYZE todo_rows" todo
    t=$("$BIN/psql" -h "$D" -p "$PG_PORT" -U postgres -d todo -qAt -c '\timing on' -c "SELECT todo_owner_remove_all('', 0)" | grep -o 'Time: [0-9.]* ms')
    echo "n=$n run=$run $t"
  done
done

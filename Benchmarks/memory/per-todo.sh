#!/usr/bin/env bash
# Resident bytes per to-do: starts the staged release binary (in-memory store), reads VmRSS one
# second after it answers (idle), POSTs COUNTS to-dos through the API (`seed.py`: 30-character
# titles, the same one for all; with TITLE_LENGTH, each its own random title of that length), then
# reads VmRSS and VmHWM again. Prints idle KiB, loaded KiB, HWM KiB and (loaded - idle) / count.
# Environment: COUNTS ("100000 1000000", each a fresh server), TITLE_LENGTH (unset: the fixed
# 30-character title), TODO_THREADS (2), TODO_BINARY (this staged todo-server instead of building).
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNTS=${COUNTS:-"100000 1000000"}
port=${PORT:-19280}
export TODO_HOST=127.0.0.1 TODO_THREADS=${TODO_THREADS:-2}
binary=${TODO_BINARY:-}
if [ -z "$binary" ]; then
  scripts/build-release.sh .build/staging >/dev/null
  binary=.build/staging/todo-server
fi
kib() { awk -v key="$2:" '$1 == key {print $2}' "/proc/$1/status"; }
printf "| to-dos | idle KiB | loaded KiB | HWM KiB | bytes/to-do |\n|---|---|---|---|---|\n"
for count in $COUNTS; do
  port=$((port + 1))
  TODO_PORT=$port "$binary" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  sleep 1
  idle=$(kib $pid VmRSS)
  python3 Benchmarks/seed.py $port "$count" 4 ${TITLE_LENGTH:-} >/dev/null
  loaded=$(kib $pid VmRSS) hwm=$(kib $pid VmHWM)
  kill $pid; wait $pid 2>/dev/null || true
  printf "| %d | %d | %d | %d | %d |\n" "$count" "$idle" "$loaded" "$hwm" $(( (loaded - idle) * 1024 / count ))
done

#!/usr/bin/env bash
# Soak: a bounded mixed load (wrk + Benchmarks/wrk/soak.lua) against the release build, then checks
# that nothing failed and no memory leaked.
#
# Prints resident memory at launch, after a short warm-up (the baseline), after the load and after
# DELETE /todos, and every status seen. Fails unless every response is 2xx except the intended 400s
# (one per malformed body sent), wrk saw no socket errors or time-outs, and memory after
# DELETE /todos is within 10% of the baseline.
# Environment: DURATION seconds (60), CONNECTIONS (32), THREADS loop threads (2), WARMUP seconds (5),
# DATA_DIR (unset: in memory; set: soak the journal too, with FSYNC, default interval),
# SKIP_BUILD=1 to reuse .build/staging.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60} CONNECTIONS=${CONNECTIONS:-32} THREADS=${THREADS:-2} WARMUP=${WARMUP:-5}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
[ "${SKIP_BUILD:-0}" = 1 ] || scripts/build-release.sh .build/staging >/dev/null
port=$((20000 + RANDOM % 20000))
base="http://127.0.0.1:$port"
log="$(mktemp)"
(cd .build/staging && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=$THREADS TODO_LOG_LEVEL=warning \
  TODO_DATA_DIR="${DATA_DIR:-}" TODO_FSYNC="${FSYNC:-interval}" exec ./todo-server) >"$log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do curl -fs "$base/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
launch=$(rss)
curl -fsS -X DELETE "$base/todos" >/dev/null
ids=""
for i in $(seq 1 20); do
  id=$(curl -fsS -X POST "$base/todos" -H 'Content-Type: application/json' -d "{\"title\":\"seed $i\"}" \
    | sed -E 's/.*"id":"([^"]+)".*/\1/')
  ids="$ids${ids:+,}$id"
done
export TODO_IDS="$ids"
wrk -t2 -c"$CONNECTIONS" -d"${WARMUP}s" -s Benchmarks/wrk/soak.lua "$base" >/dev/null
baseline=$(rss)
out="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 5s --latency -s Benchmarks/wrk/soak.lua "$base")"
loaded=$(rss)
todos=$(curl -fsS "$base/healthz" | sed -E 's/.*"todos":([0-9]+).*/\1/')
curl -fsS -o /dev/null -w '' -X DELETE "$base/todos"
# The emptying thread's pages go back at once, every loop's at its next sweep (once a second):
# poll, for up to 5 s.
limit=$((baseline * 110 / 100))
for _ in $(seq 1 50); do
  sleep 0.1
  deleted=$(rss)
  [ "$deleted" -le "$limit" ] && break
done
kill -TERM "$pid"; wait "$pid" || { echo "soak: server exit status $?" >&2; exit 1; }

requests=$(awk '/requests in/ {print $1}' <<<"$out")
echo "$out" | grep -E "requests in|Latency|99%|Requests/sec"
echo "$out" | grep -E "^status " | sort
malformed=$(awk '/^malformed/ {print $2}' <<<"$out")
errors=$(awk '/^errors/ {print $2}' <<<"$out")
bad400=$(awk '$1 == "status" && $2 == 400 {print $3}' <<<"$out"); bad400=${bad400:-0}
unexpected=$(awk '$1 == "status" && ($2 < 200 || $2 > 299) && $2 != 400 {n += $3} END {print n + 0}' <<<"$out")
echo "soak: $requests requests in ${DURATION}s, $todos to-dos before DELETE /todos;" \
  "non-2xx: $bad400 × 400 for $malformed malformed bodies, $unexpected unexpected; socket errors/time-outs: $errors"
echo "soak: RSS KiB launch $launch, baseline after ${WARMUP}s warm-up $baseline, after load $loaded, after DELETE /todos $deleted"
fail=0
[ "$unexpected" -eq 0 ] || { echo "soak: FAIL unexpected statuses" >&2; fail=1; }
# The last request of each connection may be cut off by wrk's stop: at most one 400 per connection missing.
[ "$bad400" -le "$malformed" ] && [ "$bad400" -ge $((malformed - CONNECTIONS)) ] \
  || { echo "soak: FAIL 400s ($bad400) do not match the malformed bodies sent ($malformed)" >&2; fail=1; }
[ "$errors" -eq 0 ] || { echo "soak: FAIL socket errors or time-outs" >&2; fail=1; }
[ "$deleted" -le "$limit" ] || { echo "soak: FAIL RSS after DELETE /todos $deleted KiB > 110% of baseline ($limit KiB)" >&2; fail=1; }
grep -iE "error|critical" "$log" && { echo "soak: FAIL errors in the server log" >&2; fail=1; }
[ "$fail" -eq 0 ] && echo "soak: passed"
exit "$fail"

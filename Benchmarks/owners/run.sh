#!/usr/bin/env bash
# What owners cost (issue 36's figures), on the staged release binary with the in-memory store:
#  1. GET one to-do with keep-alive: no token, an owner token, a JWT (RS256, ES256, EdDSA; one token
#     on every connection: after its first sight it is a cache hit) — median req/s of ROUNDS
#     interleaved runs, each over a fresh server, and the ratio to no token (targets: JWT ≥ 0.9×,
#     owner token ≥ 0.95×); then the cost of a token's first sight (its signature checked), per
#     algorithm (first_sight.py).
#  2. OWNERS owners × PER_OWNER to-dos through owner tokens: resident bytes per to-do against the
#     same count on the shared list (target ≤ 150 B), and one owner's GET /todos against a server
#     that holds only that owner's PER_OWNER (target: within 1.2×), ROUNDS interleaved runs.
# Environment: ROUNDS (3), DURATION (10 s), CONNECTIONS (64), OWNERS (10000), PER_OWNER (100),
# TODO_BINARY (a staged todo-server instead of building one), ONLY_MEMORY=1 (part 2's memory alone).
# Results in Benchmarks/results/owners-*/.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10} CONNECTIONS=${CONNECTIONS:-64}
OWNERS=${OWNERS:-10000} PER_OWNER=${PER_OWNER:-100}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
binary=${TODO_BINARY:-}
if [ -z "$binary" ]; then
  scripts/build-release.sh .build/staging >/dev/null
  binary=.build/staging/todo-server
fi
out=Benchmarks/results/owners-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
keys=$out/keys
python3 scripts/dev-tokens.py keys "$keys" >/dev/null
issuer=https://id.example audience=todo-api
port=19400
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# serve VAR=VALUE…: a fresh server on the next port with these variables; sets $port and $pid.
serve() {
  port=$((port + 1))
  # Defaults otherwise (the access log on, to stdout, which goes nowhere here).
  env TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=2 "$@" "$binary" >/dev/null 2>"$out/server-$port.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return; sleep 0.1; done
  echo "server on $port did not start" >&2
  cat "$out/server-$port.log" >&2
  exit 1
}
kib() { awk -v key="$2:" '$1 == key {print $2}' "/proc/$1/status"; }
# bench LABEL ROUND TARGET [curl/wrk header]: one wrk run, one line "LABEL ROUND req/s p50 p99".
bench() {
  local label=$1 round=$2 target=$3 header=${4:-}
  local args=(-t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s Benchmarks/wrk/report.lua)
  [ -n "$header" ] && args+=(-H "$header")
  local line
  line=$(wrk "${args[@]}" "http://127.0.0.1:$port$target" | grep '^RESULT')
  awk -v label="$label" -v round="$round" '{
    for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "%s %s %.0f %s %s %s\n", label, round, v["requests"] / v["seconds"], v["p50_us"], v["p99_us"], v["errors"] }' <<<"$line" \
    | tee -a "$out/raw.txt"
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; }
jwt() { python3 scripts/dev-tokens.py token "$keys" --owner bench --issuer $issuer --audience $audience --alg "$1" --expires-in 86400; }
declare -A headers=(
  [none]=""
  [owner]="Authorization: Bearer bench-owner-token"
  [jwt-RS256]="Authorization: Bearer $(jwt RS256)"
  [jwt-ES256]="Authorization: Bearer $(jwt ES256)"
  [jwt-EdDSA]="Authorization: Bearer $(jwt EdDSA)"
)
modes=(none owner jwt-RS256 jwt-ES256 jwt-EdDSA)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); binary: $binary; wrk -t1 -c$CONNECTIONS -d${DURATION}s; 2 loops" | tee "$out/conditions.txt"

if [ "${ONLY_MEMORY:-0}" != 1 ]; then
echo "== 1. GET one: req/s p50_us p99_us errors"
for round in $(seq 1 "$ROUNDS"); do
  for mode in "${modes[@]}"; do
    case $mode in
      none) serve ;;
      owner) serve TODO_OWNER_TOKENS=bench:bench-owner-token ;;
      *) serve TODO_JWT_JWKS_FILE="$keys/jwks.json" TODO_JWT_ISSUER=$issuer TODO_JWT_AUDIENCE=$audience ;;
    esac
    header=${headers[$mode]}
    id=$(curl -fs -X POST "http://127.0.0.1:$port/todos" ${header:+-H "$header"} -H 'Content-Type: application/json' \
      -d '{"title":"a thirty character title here!"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    bench "$mode" "$round" "/todos/$id" "$header"
    stop
  done
done
serve TODO_JWT_JWKS_FILE="$keys/jwks.json" TODO_JWT_ISSUER=$issuer TODO_JWT_AUDIENCE=$audience
id=$(curl -fs -X POST "http://127.0.0.1:$port/todos" -H "${headers[jwt-RS256]}" -H 'Content-Type: application/json' \
  -d '{"title":"first sight"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
for alg in RS256 ES256 EdDSA; do
  python3 Benchmarks/owners/first_sight.py $port "$keys" $issuer $audience "$id" $alg | tee -a "$out/first-sight.txt"
done
stop
fi

echo "== 2. $OWNERS owners x $PER_OWNER to-dos"
tokens=$out/owner-tokens
seq 0 $((OWNERS - 1)) | awk '{print "o" $1 ":t" $1}' >"$tokens"
serve TODO_OWNER_TOKENS_FILE="$tokens"
big=$pid big_port=$port
sleep 1
idle=$(kib $big VmRSS)
python3 Benchmarks/owners/seed_owners.py $big_port "$OWNERS" "$PER_OWNER" 4
loaded=$(kib $big VmRSS)
count=$((OWNERS * PER_OWNER))
echo "owners: idle ${idle} KiB, loaded ${loaded} KiB, $(( (loaded - idle) * 1024 / count )) B per to-do" | tee -a "$out/memory.txt"
serve
shared=$pid
sleep 1
idle=$(kib $shared VmRSS)
python3 Benchmarks/seed.py $port $count 4 >/dev/null
loaded=$(kib $shared VmRSS)
echo "shared list: idle ${idle} KiB, loaded ${loaded} KiB, $(( (loaded - idle) * 1024 / count )) B per to-do" | tee -a "$out/memory.txt"
stop
[ "${ONLY_MEMORY:-0}" = 1 ] && exit 0
serve TODO_OWNER_TOKENS=o0:t0
small_port=$port
python3 Benchmarks/owners/seed_owners.py $small_port 1 "$PER_OWNER" 1
echo "== one owner's GET /todos: among $OWNERS owners vs alone: req/s p50_us p99_us errors"
for round in $(seq 1 "$ROUNDS"); do
  port=$big_port bench among "$round" /todos "Authorization: Bearer t0"
  port=$small_port bench alone "$round" /todos "Authorization: Bearer t0"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/conditions.txt"

python3 - "$out/raw.txt" <<'PY' | tee "$out/table.md"
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    label, _, rate, p50, p99, errors = line.split()
    rows.setdefault(label, []).append((float(rate), int(p50), int(p99), int(errors)))
def median(label, i): return statistics.median(r[i] for r in rows[label])
print("| run | median req/s | p50 µs | p99 µs | errors | ratio |\n|---|---|---|---|---|---|")
for label, base in [("none", "none"), ("owner", "none"), ("jwt-RS256", "none"), ("jwt-ES256", "none"), ("jwt-EdDSA", "none"), ("alone", "alone"), ("among", "alone")]:
    if label in rows:
        print(f"| {label} | {median(label, 0):.0f} | {median(label, 1):.0f} | {median(label, 2):.0f} | {sum(r[3] for r in rows[label])} | {median(label, 0) / median(base, 0):.3f}× {base} |")
PY

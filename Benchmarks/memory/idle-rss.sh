#!/usr/bin/env bash
# Idle resident memory of staged release binaries, side by side (issue 38: idle RSS ≤ 16 MiB).
# For each binary given, ROUNDS (3) times in turn: starts it with the defaults (in memory, 2 loops),
# waits for /healthz, waits a second, reads /proc/PID/smaps and stops it. Prints, per binary, the
# median of the rounds: VmRSS, the binary's own text that is resident (its r-x mapping: code, and
# the dynamic relocations and symbols that share the segment), its writable data, the shared
# libraries' and the anonymous memory (heap, stacks).
# Usage: Benchmarks/memory/idle-rss.sh BINARY [BINARY…]   (default: .build/staging/todo-server)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
[ $# -gt 0 ] || set -- .build/staging/todo-server
port=$((20900 + ($$ % 400) * 2))
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for round in $(seq 1 "$ROUNDS"); do
  for binary in "$@"; do
    port=$((port + 1))
    TODO_HOST=127.0.0.1 TODO_PORT=$port "$binary" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    sleep 1
    # One line per round: binary, VmRSS, own text, own data, libraries, anonymous (KiB).
    python3 - "$pid" "$(realpath "$binary")" "$binary" >>"$results" <<'PY'
import sys
pid, path, label = sys.argv[1:]
rss = {"text": 0, "data": 0, "libraries": 0, "anonymous": 0}
name = perms = None
for line in open(f"/proc/{pid}/smaps"):
    fields = line.split()
    if "-" in fields[0] and len(fields) >= 5 and not line.startswith(("Rss", "Size")):
        perms, name = fields[1], (fields[5] if len(fields) > 5 else "")
    elif fields[0] == "Rss:":
        kib = int(fields[1])
        if name == path:
            rss["text" if "x" in perms else "data"] += kib
        elif name.startswith("/"):
            rss["libraries"] += kib
        else:
            rss["anonymous"] += kib
status = {l.split(":")[0]: l.split()[1] for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")}
print(label, status["VmRSS"], rss["text"], rss["data"], rss["libraries"], rss["anonymous"])
PY
    kill "$pid"
    wait "$pid" 2>/dev/null || true
  done
done
printf "| binary | VmRSS KiB (MiB) | own text KiB | own data KiB | libraries KiB | anonymous KiB |\n|---|---|---|---|---|---|\n"
python3 - "$results" "$@" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for binary in sys.argv[2:]:
    mine = [list(map(int, r[1:])) for r in rows if r[0] == binary]
    med = [int(statistics.median_low(column)) for column in zip(*mine)]
    print(f"| {binary} | {med[0]} ({med[0] / 1024:.1f}) | {med[1]} | {med[2]} | {med[3]} | {med[4]} |")
PY

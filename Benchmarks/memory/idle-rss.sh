#!/usr/bin/env bash
# Idle resident memory of staged release binaries, side by side (issue 38: idle RSS ≤ 16 MiB).
# For each binary given, ROUNDS (3) times in turn: starts it with the defaults (in memory, 2 loops),
# waits for /healthz, then a second more (the loops' first timers and the log writer settle; the
# figure is the idle one, not a race with start-up), reads /proc/PID/smaps and stops it. Prints, per
# binary, the median of the rounds: VmRSS; the binary's own pages that are resident, in its
# executable mapping (code; with gold, the dynamic symbols and relocations too) and in the others
# (with lld, a read-only segment before the code holds the dynamic symbols, relocations, Swift's
# metadata and the unwind tables; then read-only-after-relocation and writable data); the shared
# libraries'; and the anonymous memory (heap, stacks).
# Usage: Benchmarks/memory/idle-rss.sh BINARY [BINARY…]   (default: .build/staging/todo-server)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
[ $# -gt 0 ] || set -- .build/staging/todo-server
results=$(mktemp)
pid=""
trap 'rm -f "$results" "$results.log"; [ -z "$pid" ] || kill "$pid" 2>/dev/null || true' EXIT
for round in $(seq 1 "$ROUNDS"); do
  for binary in "$@"; do
    # Port 0: the kernel picks a free one, named in the banner ("port=N … listening").
    TODO_HOST=127.0.0.1 TODO_PORT=0 "$binary" >"$results.log" 2>&1 &
    pid=$!
    port=""
    for _ in $(seq 1 300); do
      port=$(grep 'listening' "$results.log" | grep -o 'port=[0-9]*' | head -1 | cut -c6- || true)
      [ -n "$port" ] && curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
      sleep 0.1
    done
    [ -n "$port" ] || { echo "idle-rss: $binary did not start" >&2; exit 1; }
    sleep 1
    # One line per round: binary, VmRSS, own executable, own other, libraries, anonymous (KiB).
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
    pid=""
  done
done
printf "| binary | VmRSS KiB (MiB) | own executable KiB | own other KiB | libraries KiB | anonymous KiB |\n|---|---|---|---|---|---|\n"
python3 - "$results" "$@" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for binary in sys.argv[2:]:
    mine = [list(map(int, r[1:])) for r in rows if r[0] == binary]
    med = [int(statistics.median_low(column)) for column in zip(*mine)]
    print(f"| {binary} | {med[0]} ({med[0] / 1024:.1f}) | {med[1]} | {med[2]} | {med[3]} | {med[4]} |")
PY

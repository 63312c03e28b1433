#!/usr/bin/env bash
# Where a load's resident bytes went, by allocation size class: the staged release binary runs
# with the heap census (live-sizes/liblivesizes.so, LD_PRELOAD: blocks alive by mimalloc's usable
# size), is seeded like Benchmarks/owners/run.sh's part 2, and the census after seeding minus the
# census before is printed per size class (blocks, bytes, bytes per to-do), beside the resident
# size. Blocks over 64 KiB share the row "-1" and count their whole usable size, room never written
# included (not resident: compare with the resident figure). Issue 36's owner figure was found this
# way (docs/performance.md).
# Usage: Benchmarks/memory/live-sizes.sh [owners|shared]   (owners: OWNERS owners x PER_OWNER
# to-dos through owner tokens; shared: the same count on the shared list, no tokens)
# Environment: TODO_BINARY (default .build/staging/todo-server, built when missing), OWNERS (10000),
# PER_OWNER (100), ROWS (20: the largest changes shown). Results in Benchmarks/results/live-sizes-*/.
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-owners}
OWNERS=${OWNERS:-10000} PER_OWNER=${PER_OWNER:-100} ROWS=${ROWS:-20}
binary=${TODO_BINARY:-.build/staging/todo-server}
[ -x "$binary" ] || scripts/build-release.sh .build/staging >/dev/null
make -s -C Benchmarks/memory/live-sizes
census=$(realpath Benchmarks/memory/live-sizes/liblivesizes.so)
out=Benchmarks/results/live-sizes-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
count=$((OWNERS * PER_OWNER))
port=19480
settings=()
if [ "$mode" = owners ]; then
  seq 0 $((OWNERS - 1)) | awk '{print "o" $1 ":t" $1}' >"$out/owner-tokens"
  settings=(TODO_OWNER_TOKENS_FILE="$out/owner-tokens")
fi
echo "$mode, $count to-dos, load before: $(cut -d' ' -f1-3 /proc/loadavg); binary: $binary" | tee "$out/conditions.txt"
env LD_PRELOAD="$census" LIVE_SIZES_FILE="$out/census.tsv" TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=2 \
  "${settings[@]}" "$binary" >/dev/null 2>"$out/server.log" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
# The census is written once a second: wait for two, then keep the one after the server settled.
sleep 2.5
cp "$out/census.tsv" "$out/census-idle.tsv"
idle=$(awk '$1 == "VmRSS:" {print $2}' "/proc/$pid/status")
if [ "$mode" = owners ]; then
  python3 Benchmarks/owners/seed_owners.py $port "$OWNERS" "$PER_OWNER" 4
else
  python3 Benchmarks/seed.py $port $count 4 >/dev/null
fi
sleep 2.5
cp "$out/census.tsv" "$out/census-loaded.tsv"
loaded=$(awk '$1 == "VmRSS:" {print $2}' "/proc/$pid/status")
echo "resident: idle ${idle} KiB, loaded ${loaded} KiB, $(((loaded - idle) * 1024 / count)) B per to-do" | tee "$out/resident.txt"
python3 - "$out/census-idle.tsv" "$out/census-loaded.tsv" "$count" "$ROWS" <<'PY' | tee "$out/table.md"
import sys
def read(path):
    return {int(size): (int(blocks), int(held)) for size, blocks, held in (line.split() for line in open(path))}
before, after, count, rows = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
changes = []
for size in before.keys() | after.keys():
    blocks0, held0 = before.get(size, (0, 0))
    blocks1, held1 = after.get(size, (0, 0))
    changes.append((held1 - held0, blocks1 - blocks0, size))
changes.sort(reverse=True)
small = sum(c[0] for c in changes if c[2] >= 0)
large = sum(c[0] for c in changes if c[2] < 0)
print(f"blocks up to 64 KiB added: {small:,} B, {small / count:.1f} B per to-do; larger: {large:,} B usable (unwritten room included)\n")
print("| usable size B | blocks | bytes | per to-do |\n|---|---|---|---|")
for held, blocks, size in changes[:rows]:
    print(f"| {'> 64 KiB' if size < 0 else size} | {blocks:+,} | {held:+,} | {held / count:.2f} |")
PY

#!/usr/bin/env bash
# Bounded work per list request (issue 9 item 5): a page with sort=title and with q= over many
# to-dos with long titles, before (a git ref, main by default) and after (this work tree), in one run.
#
# Each server runs fresh with TODO_THREADS=1, is seeded through the API with COUNT to-dos whose
# titles are TITLE_LENGTH random letters and spaces (Benchmarks/seed.py, the same titles for both),
# then answers requests one after another on one keep-alive connection (Benchmarks/stores/timed_get.py):
# the default page (the index, for comparison), `sort=title`, `sort=-title`, `sort=title` with
# `completed=` deep in the list, and `q=` (a needle that no title holds, so every title is
# searched, and one that many hold, in the default and the title order). Each line gives the
# latency (median, min, max) and the server's CPU time per request (user + system from /proc: the
# figure that carries over when other work shares the cores). Lines go to
# Benchmarks/results/<time>/list-keys.txt.
#
# Both sides are built the same way (`swift build -c release`) and run with the defaults and
# the variables below.
#
# Environment: COUNT (100000), TITLE_LENGTH (500), REQUESTS per target after (21), BEFORE_REQUESTS
# (3; the old build takes seconds per request), BEFORE_REF (main), BEFORE_BIN (a built todo-server
# to use instead of building BEFORE_REF), AFTER_BIN (the same for this tree), SIDES ("before after").
set -euo pipefail
cd "$(dirname "$0")/../.."
COUNT=${COUNT:-100000} TITLE_LENGTH=${TITLE_LENGTH:-500} REQUESTS=${REQUESTS:-21}
BEFORE_REQUESTS=${BEFORE_REQUESTS:-3} BEFORE_REF=${BEFORE_REF:-main} SIDES=${SIDES:-"before after"}
results="Benchmarks/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$results"
port=19081

after_bin=${AFTER_BIN:-}
if [ -z "$after_bin" ]; then
  echo "== building (release)" >&2
  swift build -c release --product todo-server >/dev/null
  after_bin=$(swift build -c release --show-bin-path)/todo-server
fi
before_bin=${BEFORE_BIN:-}
if [ -z "$before_bin" ] && [[ " $SIDES " == *" before "* ]]; then
  before_dir=$(mktemp -d)
  git archive "$BEFORE_REF" | tar -x -C "$before_dir"
  (cd "$before_dir" && swift build -c release --product todo-server >/dev/null)
  before_bin="$before_dir/.build/release/todo-server"
fi

for side in $SIDES; do
  if [ "$side" = before ]; then bin=$before_bin requests=$BEFORE_REQUESTS; else bin=$after_bin requests=$REQUESTS; fi
  (cd "$(dirname "$bin")" && TODO_HOST=127.0.0.1 TODO_PORT=$port TODO_THREADS=1 TODO_TIMEOUT_SECONDS=600 \
    TODO_LOG_LEVEL=warning exec "$bin") >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
  echo "== $side: seeding $COUNT to-dos with $TITLE_LENGTH-character titles" >&2
  python3 Benchmarks/seed.py $port "$COUNT" 4 "$TITLE_LENGTH" >/dev/null
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
  echo "$side todos=$COUNT title_length=$TITLE_LENGTH rss_kib=$rss" | tee -a "$results/list-keys.txt" >&2
  for target in "/todos?limit=50" "/todos?sort=title&limit=50" "/todos?sort=-title&limit=50&offset=1000" \
    "/todos?sort=title&completed=false&limit=50&offset=50000" "/todos?q=zzzzzz&limit=50" "/todos?q=ab&limit=50" \
    "/todos?q=ab&sort=-title&limit=50"; do
    before_ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    line=$(python3 Benchmarks/stores/timed_get.py $port "$target" "$requests")
    after_ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    cpu=$(awk -v t=$((after_ticks - before_ticks)) -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f", t * 1000 / hz / n}')
    echo "$side $line server_cpu_ms_per_request=$cpu" | tee -a "$results/list-keys.txt" >&2
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
echo "results: $results/list-keys.txt" >&2

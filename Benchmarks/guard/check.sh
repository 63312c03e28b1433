#!/usr/bin/env bash
# The instruction guard (CI, issue 38): instructions per request, counted by callgrind, against the
# committed baseline (Benchmarks/guard/baseline.tsv). Fails when a workload costs more than
# TOLERANCE_PERCENT (3) over its baseline, and prints the table either way.
#
# Workloads, each on the release binary with one loop thread, one keep-alive connection, 20 to-dos
# seeded, 200 requests to warm up, then N (2000) counted (Benchmarks/wire/callgrind.sh):
#   get-one, list20, post, patch   the in-memory store
#   journal-post                   POST with a data directory (the journal, fsync as by default)
#   feed-post                      POST while one live-feed stream follows, each change sent at
#                                  once (eventsBatchMilliseconds 0): feed-post - post is what one
#                                  delivery costs
# Instruction counts do not move with the machine's load (valgrind counts what the program runs);
# SWIFT_DETERMINISTIC_HASHING=1 takes the hash seed out of them. Repeat runs of one binary mostly
# agree within 0.1 %, but a run on a heavily loaded machine (load 10 on 2 cores) was 1-2.5 % higher on
# every workload; why is not known yet (paths that depend on timing: how the loop's reads meet the
# client's writes, the allocator's time-based purges). So when the first pass fails, the guard makes
# ATTEMPTS (3) passes in all and judges each workload by its median (the lower middle for an even
# count): one noisy pass cannot fail it, nor one lucky pass hide a real regression.
#
# Environment: TODO_BINARY (the staged todo-server to measure; default: .build/staging/todo-server,
# built with scripts/build-release.sh when missing), N, TOLERANCE_PERCENT, UPDATE=REASON (measure and
# write the medians of ATTEMPTS passes as the baseline, with REASON in its header, instead of
# judging: commit it with that reason),
# ATTEMPTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${N:-2000} TOLERANCE_PERCENT=${TOLERANCE_PERCENT:-3} ATTEMPTS=${ATTEMPTS:-3}
if [ -n "${TODO_BINARY:-}" ]; then
  # The binary asked for, or nothing: never another one measured in its place.
  [ -x "$TODO_BINARY" ] || { echo "guard: TODO_BINARY=$TODO_BINARY is not an executable" >&2; exit 1; }
  binary=$TODO_BINARY
else
  binary=.build/staging/todo-server
  [ -x "$binary" ] || scripts/build-release.sh .build/staging >/dev/null
fi
binary=$(realpath "$binary")
if ! command -v valgrind >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi
export SWIFT_DETERMINISTIC_HASHING=1 SERVERS=todo ALLOCATIONS=0 N TODO_BINARY=$binary
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# measure FILE LABEL_PREFIX WORKLOADS [VAR=VALUE…]: appends `label<TAB>instructions` rows to FILE.
measure() {
  local file=$1 prefix=$2 workloads=$3
  shift 3
  env "$@" WORKLOADS="$workloads" Benchmarks/wire/callgrind.sh 2>"$work/stderr" >"$work/table" || {
    cat "$work/stderr" >&2
    echo "guard: Benchmarks/wire/callgrind.sh failed ($prefix$workloads)" >&2
    exit 1
  }
  awk -F'|' -v prefix="$prefix" 'NR > 2 { gsub(/ /, "", $3); gsub(/ /, "", $4); print prefix $3 "\t" $4 }' "$work/table" >>"$file"
}

# pass FILE: every workload once.
pass() {
  measure "$1" "" "get-one list20 post patch"
  rm -rf "$work/data" && mkdir "$work/data"
  measure "$1" journal- post TODO_DATA_DIR="$work/data"
  measure "$1" feed- post SUBSCRIBERS=1 TODO_EVENTS_BATCH_MILLISECONDS=0
}

compare=(python3 Benchmarks/guard/compare.py Benchmarks/guard/baseline.tsv)
files=""
for attempt in $(seq 1 "$ATTEMPTS"); do
  pass "$work/pass.$attempt.tsv"
  files=${files:+$files,}$work/pass.$attempt.tsv
  # A first pass within the limit settles it; after one over it, every pass is made and the
  # median judges (UPDATE: every pass, and the medians become the baseline).
  if [ -z "${UPDATE:-}" ] && [ "$attempt" = 1 ]; then
    "${compare[@]}" "$files" "$TOLERANCE_PERCENT" >"$work/verdict" && break
    [ "$ATTEMPTS" = 1 ] || echo "guard: pass 1 costs more than the baseline; measuring $((ATTEMPTS - 1)) more"
  fi
done
if [ -n "${UPDATE:-}" ]; then
  "${compare[@]}" "$files" "$TOLERANCE_PERCENT" --update "$UPDATE"
  exit
fi
echo "instructions per request, median of $attempt pass(es), against Benchmarks/guard/baseline.tsv ($(grep -m1 '^# Measured' Benchmarks/guard/baseline.tsv | cut -c3-))"
"${compare[@]}" "$files" "$TOLERANCE_PERCENT"

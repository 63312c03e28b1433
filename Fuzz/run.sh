#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer and runs each for FUZZ_SECONDS (default 30) from the
# seed corpus in Fuzz/Corpus (new inputs go to Fuzz/.corpus, kept between runs). A crash stops the
# run with a non-zero status and leaves the input as Fuzz/crash-*; replay it with
# `Fuzz/.build/debug/<Target> Fuzz/crash-…`. For hours: FUZZ_SECONDS=14400 Fuzz/run.sh, or run one
# target with -jobs=N -workers=N.
# FUZZ_JOBS (1) runs that many targets at once (CI: 2, one per core).
# Usage: [FUZZ_SECONDS=30] [FUZZ_JOBS=1] [TARGETS="RequestFuzzer FramingFuzzer ConnectionFuzzer UpcomingFuzzer"] Fuzz/run.sh
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${FUZZ_SECONDS:-30}
JOBS=${FUZZ_JOBS:-1}
TARGETS=${TARGETS:-"RequestFuzzer FramingFuzzer ConnectionFuzzer UpcomingFuzzer"}
swift build -Xswiftc -sanitize=fuzzer,address >/dev/null
# One target: its summary line on stdout; a failure also prints the crash's first lines.
fuzz_one() {
  local target=$1 seeds="Corpus/${1%Fuzzer}" work=".corpus/$1" log status=0 runs dict=()
  mkdir -p "$work"
  # The wire's targets get its dictionary: tokens and number spellings at every wrap boundary.
  case "$target" in FramingFuzzer | ConnectionFuzzer) dict=(-dict=Dictionaries/wire.dict) ;; esac
  log="$(mktemp)"
  ".build/debug/$target" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix=./crash- "${dict[@]}" "$work" "$seeds" >"$log" 2>&1 || status=$?
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  if [ "$status" -ne 0 ]; then
    grep -E "Precondition|Fatal|ERROR|SUMMARY" "$log" | head -5
    echo "fuzz: $target FAILED after ${runs:-?} executions (input saved as Fuzz/crash-*)"
    rm -f "$log"
    return "$status"
  fi
  echo "fuzz: $target ${runs} executions in ${SECONDS_EACH}s, no failure ($(ls "$work" | wc -l) inputs in its corpus)"
  rm -f "$log"
}

# FUZZ_JOBS targets at a time, each its FUZZ_SECONDS; their lines in TARGETS' order.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failed=0
set -- $TARGETS
while [ $# -gt 0 ]; do
  batch=()
  for _ in $(seq "$JOBS"); do
    [ $# -gt 0 ] || break
    batch+=("$1")
    shift
  done
  pids=()
  for target in "${batch[@]}"; do
    fuzz_one "$target" >"$out/$target" 2>&1 &
    pids+=($!)
  done
  for index in "${!batch[@]}"; do
    wait "${pids[$index]}" || failed=1
    cat "$out/${batch[$index]}"
  done
  [ "$failed" -eq 0 ] || exit 1
done

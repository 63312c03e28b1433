#!/usr/bin/env bash
# Builds the libFuzzer targets with AddressSanitizer and runs each for FUZZ_SECONDS (default 30) from the
# seed corpus in Fuzz/Corpus (new inputs go to Fuzz/.corpus, kept between runs). A crash stops the
# run with a non-zero status and leaves the input as Fuzz/crash-*; replay it with
# `Fuzz/.build/debug/<Target> Fuzz/crash-…`. For hours: FUZZ_SECONDS=14400 Fuzz/run.sh, or run one
# target with -jobs=N -workers=N.
# Usage: [FUZZ_SECONDS=30] [TARGETS="RequestFuzzer FramingFuzzer ConnectionFuzzer UpcomingFuzzer"] Fuzz/run.sh
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${FUZZ_SECONDS:-30}
TARGETS=${TARGETS:-"RequestFuzzer FramingFuzzer ConnectionFuzzer UpcomingFuzzer"}
swift build -Xswiftc -sanitize=fuzzer,address >/dev/null
for target in $TARGETS; do
  seeds="Corpus/${target%Fuzzer}"
  work=".corpus/$target"
  mkdir -p "$work"
  log="$(mktemp)"
  status=0
  ".build/debug/$target" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix=./crash- "$work" "$seeds" >"$log" 2>&1 || status=$?
  runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  if [ "$status" -ne 0 ]; then
    grep -E "Precondition|Fatal|ERROR|SUMMARY" "$log" | head -5
    echo "fuzz: $target FAILED after ${runs:-?} executions (input saved as Fuzz/crash-*)"
    rm -f "$log"
    exit "$status"
  fi
  echo "fuzz: $target ${runs} executions in ${SECONDS_EACH}s, no failure ($(ls "$work" | wc -l) inputs in its corpus)"
  rm -f "$log"
done

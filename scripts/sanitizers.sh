#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer, in its own build folder (.build-tsan, .build-asan),
# and fails on any failed test or any sanitizer report (TSan reports do not fail tests by themselves).
# ThreadSanitizer skips the suites tagged .singleThreaded (one thread's computation: nothing for it
# to find, and the most CPU under it); AddressSanitizer runs everything.
# Usage: scripts/sanitizers.sh [thread|address ...]   (default: thread address)
set -euo pipefail
cd "$(dirname "$0")/.."
for sanitizer in "${@:-thread address}"; do
  for name in $sanitizer; do
    scratch=".build-${name:0:1}san"
    log="$(mktemp)"
    status=0
    skip=()
    [ "$name" != thread ] || skip=(--skip "$(python3 scripts/tagged-suites.py singleThreaded)")
    LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0" \
      swift test --sanitize="$name" --scratch-path "$scratch" "${skip[@]}" >"$log" 2>&1 || status=$?
    reports=$(grep -c -E "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer" "$log" || true)
    summary=$(grep -E "Test run with" "$log" | tail -1)
    if [ "$status" -ne 0 ] || [ "$reports" -ne 0 ]; then
      grep -E "✘|SUMMARY" "$log" | head -20
      # The first report in full (its stacks name both sides of a race), for the CI log.
      awk '/WARNING: ThreadSanitizer|ERROR: .*Sanitizer/ { shown = 1 } shown && printed < 80 { print; printed++ }' "$log"
      echo "sanitizers: $name FAILED (exit $status, $reports reports): $summary"
      rm -f "$log"
      exit 1
    fi
    echo "sanitizers: $name clean, 0 reports: $summary"
    rm -f "$log"
  done
done

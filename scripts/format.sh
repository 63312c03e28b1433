#!/usr/bin/env bash
# Formats the Swift sources in place with `swift format` (it ships with the toolchain) and the
# repository's .swift-format. With --lint it changes nothing and exits 1 on any finding instead:
# that is CI's check (`swift format lint --strict`: without --strict every finding is a warning
# and the exit status 0).
#
# Usage: scripts/format.sh [--lint] [PATH…]
# Without PATHs: Package.swift and every Swift file under Sources, Tests, Fuzz, Benchmarks and
# Examples that git knows (tracked, or new and not ignored), so build folders are never touched;
# symbolic links are skipped (the PostgresNIO peer shares the in-memory peer's files through them).
# Outside a git work tree: the same folders, without their .build folders.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=format
case "${1:-}" in
  --lint) mode=lint; shift ;;
  -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "unknown option: $1 (see --help)" >&2; exit 64 ;;
esac
paths=("$@")
[ ${#paths[@]} -gt 0 ] || paths=(Package.swift Sources Tests Fuzz Benchmarks Examples)

command -v swift >/dev/null || { echo "swift is not on PATH" >&2; exit 69; }
swift format --version >/dev/null 2>&1 || { echo "this toolchain has no 'swift format' (Swift 6 or later ships it)" >&2; exit 69; }

files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r -d '' file; do
    [[ $file == *.swift && -f $file && ! -L $file ]] && files+=("$file")
  done < <(git ls-files -z --cached --others --exclude-standard -- "${paths[@]}" | sort -zu)
else
  while IFS= read -r -d '' file; do
    files+=("$file")
  done < <(find "${paths[@]}" -name .build -prune -o -name '*.swift' -type f -print0 | sort -z)
fi
[ ${#files[@]} -gt 0 ] || { echo "no Swift files under: ${paths[*]}" >&2; exit 66; }

started=$SECONDS
if [ "$mode" = lint ]; then
  findings=$(mktemp)
  trap 'rm -f "$findings"' EXIT
  status=0
  # --parallel may report a finding more than once: each is shown and counted once.
  swift format lint --strict --parallel --configuration .swift-format "${files[@]}" >"$findings" 2>&1 || status=$?
  sort -t: -k1,1 -k2,2n -k3,3n -u -o "$findings" "$findings"
  count=$(grep -c ': error: \|: warning: ' "$findings" || true)
  if [ "$status" -ne 0 ]; then
    cat "$findings" >&2
    echo "swift format lint: $count finding(s) in ${#files[@]} files ($((SECONDS - started)) s); scripts/format.sh fixes what it can" >&2
    exit 1
  fi
  echo "swift format lint: ${#files[@]} files, no findings ($((SECONDS - started)) s)"
else
  swift format format --in-place --parallel --configuration .swift-format "${files[@]}"
  echo "swift format: ${#files[@]} files formatted ($((SECONDS - started)) s)"
fi

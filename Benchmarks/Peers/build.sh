#!/usr/bin/env bash
# Builds the Hummingbird peers the way Hummingbird's own project template ships an app: release,
# the Swift runtime linked statically (`--static-swift-stdlib`) and jemalloc as the allocator
# (`-Xlinker -ljemalloc`, Debian's libjemalloc-dev, installed when missing) — as TodoServer's
# release binary has its static runtime and mimalloc (scripts/build-release.sh).
#
# Usage: Benchmarks/Peers/build.sh PEER… (TodoHummingbird, TodoHummingbirdPostgres). Prints each
# peer's binary path, one a line.
set -euo pipefail
cd "$(dirname "$0")"
if ! dpkg -s libjemalloc-dev >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends libjemalloc-dev >/dev/null
fi
for peer in "$@"; do
  flags=(-c release --package-path "$peer" --static-swift-stdlib -Xlinker -ljemalloc)
  swift build "${flags[@]}" >&2
  binary="$(swift build "${flags[@]}" --show-bin-path)/$peer"
  # The allocator really is jemalloc (a link that silently kept glibc's would not say so).
  ldd "$binary" | grep -q libjemalloc || { echo "$peer: not linked with jemalloc" >&2; exit 1; }
  echo "$PWD/${binary#"$PWD/"}"
done

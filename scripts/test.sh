#!/usr/bin/env bash
# Installs what is missing, runs the whole test suite (unit and end-to-end), then checks every
# response the end-to-end tests received against the OpenAPI document (scripts/check_openapi.py),
# with the Python tools of .venv-tools/ (scripts/python-tools.sh).
#
# --quick: while iterating, skips the suites tagged .endToEnd or .postgres (Tests/TestSupport/Tags.swift:
# servers and processes over sockets, the throwaway PostgreSQL cluster) and the OpenAPI check;
# every other test still runs. Swift 6.3's --skip matches test names, not tags, so the tagged
# suites are found in the sources and skipped by name (a suite's tests and nested suites with it).
#
# Usage: scripts/test.sh [--quick] [swift test arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."

# The names of the suites tagged .endToEnd or .postgres, as one --skip pattern. A tag on a single
# @Test would not be found: the suites are skipped whole, so the tags belong on suites.
skip_pattern() {
  python3 - <<'EOF'
import os, re, sys

tagged = re.compile(r"\.tags\([^)]*\.(?:endToEnd|postgres)\b")
declaration = re.compile(r"\s*(?:(?:public|package|internal|final)\s+)*(?:struct|enum|class|actor)\s+(\w+)")

def arguments(text, start):
    """The parenthesised arguments at `start` (strings skipped over), and the index after them."""
    if text[start:start + 1] != "(":
        return "", start
    depth, index, quoted = 0, start, False
    while index < len(text):
        character = text[index]
        if quoted:
            if character == "\\":
                index += 1
            elif character == '"':
                quoted = False
        elif character == '"':
            quoted = True
        elif character == "(":
            depth += 1
        elif character == ")":
            depth -= 1
            if depth == 0:
                return text[start:index + 1], index + 1
        index += 1
    return text[start:], index

suites, misplaced = set(), []
for root, _, files in os.walk("Tests"):
    for name in files:
        if not name.endswith(".swift"):
            continue
        path = os.path.join(root, name)
        text = open(path, encoding="utf-8").read()
        for attribute in re.finditer(r"@(Suite|Test)\b", text):
            args, end = arguments(text, attribute.end())
            if not tagged.search(args):
                continue
            suite = declaration.match(text, end) if attribute.group(1) == "Suite" else None
            if suite:
                suites.add(suite.group(1))
            else:
                misplaced.append(path)
if misplaced:
    sys.exit(f"test.sh: .endToEnd or .postgres on something other than a @Suite in {sorted(set(misplaced))}")
if not suites:
    sys.exit("test.sh: no suite tagged .endToEnd or .postgres found under Tests")
print(f"test.sh --quick: skipping {len(suites)} suites tagged .endToEnd or .postgres", file=sys.stderr)
print("[./](" + "|".join(sorted(suites)) + ")(/|$)")
EOF
}

scripts/install-deps.sh
if [ "${1:-}" = "--quick" ]; then
  shift
  pattern="$(skip_pattern)"
  exec swift test --skip "$pattern" "$@"
fi
tools="$(scripts/python-tools.sh)"
responses="$PWD/.build/e2e-responses.jsonl"
mkdir -p .build
rm -f "$responses"
TODO_RESPONSE_LOG="$responses" swift test "$@"
"$tools/python" scripts/check_openapi.py Sources/TodoServer/Resources/openapi.json "$responses"

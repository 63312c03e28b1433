#!/usr/bin/env bash
# Counts the `@Test` functions per role at a commit (default HEAD): a file is classed by its name
# first (…ViewTests, …ViewDecodingTests, …DecoderTests, …PreconditionsTests: view, …PresenterTests: presenter, …InteractorTests:
# interactor, …EndToEndTests: end-to-end), then by its folder under Tests/TodoServerTests or Tests/TodoDataTests (Store,
# Postgres: store; Router; Pipeline; EventHTTP; EndToEnd: end-to-end; the others by their folder's
# name) or, in the other test targets (Tests/<module>Tests, since the tests mirror the sources), by
# its module (PostgresLoop: store; the others by the module's name). Tests/TestSupport holds no tests.
# Usage: scripts/tests-per-role.sh [commit]
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD}
git grep -c -E '^[[:space:]]*@Test' "$rev" -- Tests | python3 -c '
import sys, collections, re
counts = collections.Counter()
for line in sys.stdin:
    _, path, n = line.rstrip("\n").rsplit(":", 2) if line.count(":") >= 2 else (None, *line.rsplit(":", 1))
    name = path.rsplit("/", 1)[-1]
    target = path.split("/")[1]
    if target in ("TodoServerTests", "TodoDataTests"):
        folder = path.split("/")[2] if path.count("/") >= 3 else "(top)"
    else:
        folder = target[:-len("Tests")] if target.endswith("Tests") else target
    if re.search(r"(View(Decoding)?|Decoder|Preconditions)Tests\.swift$", name): role = "view"
    elif re.search(r"Presenter\w*Tests\.swift$", name): role = "presenter"
    elif re.search(r"Interactor\w*Tests\.swift$", name): role = "interactor"
    elif re.search(r"EndToEndTests\.swift$", name): role = "end-to-end"
    elif folder in ("Store", "Postgres", "PostgresLoop"): role = "store"
    elif folder == "EndToEnd": role = "end-to-end"
    else: role = folder
    counts[role] += int(n)
for role, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
    print(f"{role}\t{n}")
print(f"total\t{sum(counts.values())}")
'

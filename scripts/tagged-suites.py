#!/usr/bin/env python3
"""The names of the test suites tagged with any of the given tags (Tests/TestSupport/Tags.swift),
as one `swift test --skip` pattern on stdout. Swift 6.3's --skip matches test names, not tags, so
the tagged suites are found in the sources and skipped by name (a suite's tests and nested suites
with it). A tag on a single @Test would not be found: the tags belong on suites, and this fails
when it finds one elsewhere.

Usage: scripts/tagged-suites.py TAG...   (run from the package root)
"""
import os, re, sys

tags = sys.argv[1:]
if not tags:
    sys.exit("usage: scripts/tagged-suites.py TAG...")
tagged = re.compile(r"\.tags\([^)]*\.(?:" + "|".join(map(re.escape, tags)) + r")\b")
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
    sys.exit(f"tagged-suites.py: {', '.join('.' + t for t in tags)} on something other than a @Suite in {sorted(set(misplaced))}")
if not suites:
    sys.exit(f"tagged-suites.py: no suite tagged {', '.join('.' + t for t in tags)} found under Tests")
print(f"skipping {len(suites)} suites tagged {', '.join('.' + t for t in tags)}", file=sys.stderr)
print("[./](" + "|".join(sorted(suites)) + ")(/|$)")

#!/usr/bin/env python3
"""TEMPORARY (issue 22): per-phase percentiles from a TODO_PG_TRACE folder, per workload window of
its wrk.txt (postgres-trace.sh). Phases of a request on the PostgreSQL path, from the store's call:
pipeline wait (behind the requests sent before it on its connection), service (from the previous
result on the connection, or its own sending, to its result), completion (the answer built and
written). Gaps: stretches over GAP_MS (8) with no result on a connection that had requests waiting,
and what the other connection of the same loop answered meanwhile. Usage: postgres-trace-report.py FOLDER"""
import csv, glob, os, re, sys

folder = sys.argv[1]
gap_ms = float(os.environ.get("GAP_MS", "8"))


def pct(xs, ps=(50, 90, 99, 99.9, 100)):
    xs = sorted(xs)
    if not xs:
        return "n=0"
    cells = [f"p{p:g} {xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] / 1e6:7.2f}" for p in ps]
    return f"n={len(xs):7d}  " + "  ".join(cells) + " ms"


connections = {}
for path in glob.glob(f"{folder}/conn-*.csv"):
    name = os.path.basename(path)[5:-4].split("-", 1)[1]
    rows = [{k: (v if k == "statement" else int(v)) for k, v in r.items()} for r in csv.DictReader(open(path))]
    rows = sorted((r for r in rows if r["result"]), key=lambda r: r["result"])
    previous = 0
    for r in rows:
        r.setdefault("sent", r["start"])
        r["service"] = r["result"] - max(r["sent"], previous)
        previous = r["result"]
    connections[name] = rows
lags = {}
for path in glob.glob(f"{folder}/lag-*.csv"):
    name = os.path.basename(path)[4:-4].split("-", 1)[1]
    lags[name] = [(int(r["at"]), int(r["lag"])) for r in csv.DictReader(open(path))]

for line in open(f"{folder}/wrk.txt"):
    parts = line.split()
    workload, a, b = parts[0], int(parts[1]), int(parts[2])
    f = dict(re.findall(r"(\w+)=([\d.]+)", line))
    print(f"== {workload}: wrk {int(f['requests']) / float(f['seconds']):,.0f} req/s, p50 {int(f['p50_us']) / 1000:.2f}, "
          f"p90 {int(f['p90_us']) / 1000:.2f}, p99 {int(f['p99_us']) / 1000:.2f}, p99.9 {int(f['p999_us']) / 1000:.2f}, "
          f"max {int(f['max_us']) / 1000:.2f} ms")
    window = {n: [r for r in rows if a <= r["start"] <= b] for n, rows in connections.items()}
    everything = [r for rows in window.values() for r in rows]
    phases = {
        "store call to answered": [r["done"] - r["start"] for r in everything],
        "pipeline wait": [r["result"] - r["sent"] - r["service"] for r in everything],
        "service": [r["service"] for r in everything],
        "completion": [r["done"] - r["answer"] for r in everything],
    }
    for label, values in phases.items():
        print(f"  {label:24s} {pct(values)}")
    ahead = sorted(r["ahead"] for r in everything)
    if ahead:
        print(f"  {'in flight on arrival':24s} p50 {ahead[len(ahead) // 2]}  p99 {ahead[int(.99 * len(ahead))]}  max {ahead[-1]}")
    print(f"  {'requests per connection':24s} {sorted(len(rows) for rows in window.values() if rows)}")
    for loop, probe in sorted(lags.items()):
        print(f"  {'loop lag ' + loop:24s} {pct([l for t, l in probe if a <= t <= b])}")
    gaps, covered = 0, 0
    for name, rows in window.items():
        loop = name.split("-")[0]
        for before, r in zip(rows, rows[1:]):
            if r["sent"] < before["result"] and r["result"] - before["result"] > gap_ms * 1e6:
                gaps += 1
                s, e = before["result"], r["result"]
                others = sum(1 for n, rs in window.items() if n != name and n.startswith(loop) for x in rs if s < x["result"] < e)
                covered += others > 0
    print(f"  gaps over {gap_ms:g} ms on a connection with requests waiting: {gaps}, "
          f"{covered} of them while the loop's other connection answered")

#!/usr/bin/env python3
"""Turns Benchmarks/wire/run.sh's (or postgres-peer.sh's) raw lines into a Markdown table of medians and
ratios to TodoServer; lines with db_ticks (postgres-peer.sh) add the database's CPU per request."""
import re
import statistics
import sys
from collections import defaultdict

NAMES = {"todo": "TodoServer", "c": "raw C evhttp", "hummingbird": "Hummingbird 2",
         "todomem": "TodoServer (in memory)", "hbpg": "Hummingbird 2 + PostgresNIO",
         "todo-at-once": "TodoServer, writeAtTurnEnd false"}
runs = defaultdict(list)   # (workload, server) → [dict]
memory = {}
for line in open(sys.argv[1]):
    fields = dict(re.findall(r"(\w+)=([\d.]+)", line))
    parts = line.split()
    if parts[1] == "memory":
        memory[parts[0]] = fields
        continue
    if "requests" not in fields:
        continue
    server, workload = parts[0], parts[2]
    requests = int(fields["requests"])
    runs[(workload, server)].append({
        "round": parts[1],
        "rps": requests / float(fields["seconds"]),
        "p50": int(fields["p50_us"]) / 1000, "p99": int(fields["p99_us"]) / 1000,
        "cpu_us": int(fields["cpu_ticks"]) / int(fields["hz"]) * 1e6 / max(requests, 1),
        "errors": int(fields["errors"]),
        "db_us": int(fields.get("db_ticks", 0)) / int(fields["hz"]) * 1e6 / max(requests, 1),
    })

# "hbpgN": the PostgresNIO peer with a pool of at most N connections (postgres-peer.sh's sweep).
pools = [k[1] for k in runs if k[1].startswith("hbpg") and k[1][4:].isdigit()]
for server in sorted(set(pools), key=lambda s: int(s[4:])):
    NAMES[server] = f"Hummingbird 2 + PostgresNIO, pool {server[4:]}"
# "todo-batchN": TodoServer on PostgreSQL with databaseInsertBatch N (postgres-peer.sh).
for server in sorted({k[1] for k in runs if k[1].startswith("todo-batch")}):
    NAMES[server] = f"TodoServer, databaseInsertBatch {server[10:]}"
servers = [s for s in NAMES if any(k[1] == s for k in runs)]
workloads = list(dict.fromkeys(k[0] for k in runs))
median = lambda rs, key: statistics.median(r[key] for r in rs)
with_db = any("db_ticks" in line for line in open(sys.argv[1]))
db_head, db_rule = (" DB CPU µs/req |", "---|") if with_db else ("", "")
print(f"| workload | server | req/s (median) | vs TodoServer | p50 ms | p99 ms | CPU µs/req |{db_head} errors |")
print(f"|---|---|---|---|---|---|---|{db_rule}---|")
for workload in workloads:
    base = runs.get((workload, "todo"))
    for server in servers:
        rs = runs.get((workload, server))
        if not rs:
            continue
        ratio = median(rs, "rps") / median(base, "rps") if base else float("nan")
        print(f"| {workload} | {NAMES[server]} | {median(rs, 'rps'):,.0f} | {ratio:.2f}× | {median(rs, 'p50'):.2f} | "
              f"{median(rs, 'p99'):.2f} | {median(rs, 'cpu_us'):.1f} |"
              + (f" {median(rs, 'db_us'):.1f} |" if with_db else "") + f" {sum(r['errors'] for r in rs)} |")
peers = [s for s in servers if s != "todo"]
if "todo" in servers and peers:
    print()
    print("| workload | " + " | ".join(f"TodoServer req/s ÷ {NAMES[p]}" for p in peers) + " | "
          + " | ".join(f"TodoServer CPU/req ÷ {NAMES[p]}" for p in peers) + " |")
    print("|---|" + "---|" * (2 * len(peers)))
    for workload in workloads:
        base = runs.get((workload, "todo"))
        if not base or not all(runs.get((workload, p)) for p in peers):
            continue
        rps = [median(base, "rps") / median(runs[(workload, p)], "rps") for p in peers]
        cpu = [median(base, "cpu_us") / median(runs[(workload, p)], "cpu_us") for p in peers]
        print(f"| {workload} | " + " | ".join(f"{r:.2f}×" for r in rps + cpu) + " |")
# Each round runs every server once, one after another: a ratio taken within a round compares
# servers under the same conditions, and the median of those ratios is steadier on a noisy machine
# than the ratio of the medians above.
if "todo" in servers and peers and max(len(rs) for rs in runs.values()) > 1:
    print()
    print("| workload | " + " | ".join(f"per-round req/s ÷ {NAMES[p]}" for p in peers) + " | "
          + " | ".join(f"per-round CPU/req ÷ {NAMES[p]}" for p in peers) + " |")
    print("|---|" + "---|" * (2 * len(peers)))
    for workload in workloads:
        base = {r["round"]: r for r in runs.get((workload, "todo"), [])}
        cells = []
        for key in ("rps", "cpu_us"):
            for p in peers:
                pairs = [(base[r["round"]][key], r[key]) for r in runs.get((workload, p), []) if r["round"] in base]
                ratios = [a / b for a, b in pairs if b > 0]
                cells.append(f"{statistics.median(ratios):.2f}× ({len(ratios)})" if ratios else "–")
        if any(c != "–" for c in cells):
            print(f"| {workload} | " + " | ".join(cells) + " |")
if memory:
    print()
    print("| server | idle RSS MiB | RSS with to-dos MiB | bytes per to-do |")
    print("|---|---|---|---|")
    for server in servers:
        if server in memory:
            m = memory[server]
            idle, loaded, count = int(m["idle_kib"]), int(m["loaded_kib"]), int(m["todos"])
            print(f"| {NAMES[server]} | {idle / 1024:.1f} | {loaded / 1024:.1f} | {(loaded - idle) * 1024 / count:.0f} |")

#!/usr/bin/env python3
"""Turns postgres-scale.sh's raw lines into Markdown: medians over the rounds per (workload, variant),
then same-run ratios (each round's ratio, then the median of those and their range), and the load
average recorded around each part."""
import re
import statistics
import sys
from collections import defaultdict

NAMES = {"todo": "TodoServer", "hbpg": "Hummingbird 2 + PostgresNIO", "one": "one instance",
         "two": "two instances", "cpl1": "1 per loop", "cpl2": "2 per loop", "cpl4": "4 per loop"}
runs = defaultdict(dict)   # (workload, label) → {round: figures}
loads = []
for line in open(sys.argv[1]):
    parts = line.split()
    if parts and parts[0] == "loadavg":
        loads.append(" ".join(parts[1:]))
        continue
    fields = dict(re.findall(r"(\w+)=([\d.]+)", line))
    if len(parts) < 4 or "requests" not in fields:
        continue
    label, round_, workload = parts[0], parts[1], parts[2]
    requests = int(fields["requests"])
    split = [int(v) for k, v in sorted(fields.items()) if re.fullmatch(r"rps\d+", k)]
    runs[(workload, label)][round_] = {
        "rps": requests / float(fields["seconds"]), "p50": int(fields["p50_us"]) / 1000,
        "p99": int(fields["p99_us"]) / 1000, "errors": int(fields["errors"]),
        "cpu": int(fields["cpu_ticks"]) / int(fields["hz"]) * 1e6 / max(requests, 1),
        "split": "+".join(f"{v:,}" for v in split) if len(split) > 1 else "",
    }

median = statistics.median
print("| workload | variant | rounds | req/s median (min–max) | p50 ms | p99 ms median (max) | server CPU µs/req | errors |")
print("|---|---|---|---|---|---|---|---|")
for (workload, label), rounds in runs.items():
    rs = list(rounds.values())
    rps = [r["rps"] for r in rs]
    split = f" (per instance, last round: {rs[-1]['split']})" if rs[-1]["split"] else ""
    print(f"| {workload} | {NAMES.get(label, label)} | {len(rs)} | {median(rps):,.0f} ({min(rps):,.0f}–{max(rps):,.0f}){split} | "
          f"{median([r['p50'] for r in rs]):.2f} | {median([r['p99'] for r in rs]):.2f} ({max(r['p99'] for r in rs):.2f}) | "
          f"{median([r['cpu'] for r in rs]):.1f} | {sum(r['errors'] for r in rs)} |")


def ratios(a, b, key="rps"):
    """Per round: a's figure ÷ b's, for the rounds both have."""
    common = sorted(set(runs.get(a, {})) & set(runs.get(b, {})), key=int)
    return [runs[a][r][key] / runs[b][r][key] for r in common if runs[b][r][key]]


comparisons = []
for label in ("todo", "hbpg"):
    comparisons.append((f"{NAMES[label]}: page of 50, 1k ÷ 1M req/s", ("page50-1000", label), ("page50-1000000", label), "rps"))
    comparisons.append((f"{NAMES[label]}: page of 50, 1M ÷ 1k p99", ("page50-1000000", label), ("page50-1000", label), "p99"))
for workload in ("page50-1000", "page50-1000000"):
    comparisons.append((f"{workload}: TodoServer ÷ peer req/s", (workload, "todo"), (workload, "hbpg"), "rps"))
for workload in ("get-one", "post"):
    comparisons.append((f"{workload}: two instances ÷ one req/s", (workload, "two"), (workload, "one"), "rps"))
for workload in ("list20", "get-one", "post"):
    for label in ("cpl1", "cpl4"):
        comparisons.append((f"{workload}: {NAMES[label]} ÷ 2 per loop req/s", (workload, label), (workload, "cpl2"), "rps"))
        comparisons.append((f"{workload}: {NAMES[label]} ÷ 2 per loop p99", (workload, label), (workload, "cpl2"), "p99"))
rows = [(name, ratios(a, b, key)) for name, a, b, key in comparisons]
rows = [(name, values) for name, values in rows if values]
if rows:
    print()
    print("| same-run ratio | median | per round |")
    print("|---|---|---|")
    for name, values in rows:
        print(f"| {name} | {median(values):.2f}× | {', '.join(f'{v:.2f}' for v in values)} |")
if loads:
    print()
    print("Load average (1, 5, 15 min) around each part: " + "; ".join(loads))

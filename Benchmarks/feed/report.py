#!/usr/bin/env python3
"""Turns Benchmarks/feed/run.sh's raw lines into a Markdown table of medians over the rounds, each
beside the issue's target."""
import re
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)  # part → [fields]
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) < 2 or parts[0] not in ("memory", "fanout", "throughput", "postgres"):
        continue
    fields = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}
    key = parts[0] if parts[0] != "throughput" else f"throughput-{int(fields['subscribers'])}"
    rows[key].append(fields)


def med(part, key):
    return statistics.median(r[key] for r in rows[part])


print("| figure | median (rounds) | target |")
print("|---|---|---|")
if rows["memory"]:
    n = int(rows["memory"][0]["subscribers"])
    print(f"| RSS per subscriber, {n:,} streams open | {med('memory', 'bytes_per_subscriber') / 1024:.2f} KiB "
          f"({len(rows['memory'])}) | ≤ 8 KiB |")
for part, where, target in (("fanout", "in memory", 50), ("postgres", "two instances on PostgreSQL", 150)):
    if not rows[part]:
        continue
    r0 = rows[part][0]
    label = f"{int(r0['writes']):,} writes at {r0['write_rate']:.0f}/s to {int(r0['subscribers']):,} subscribers, {where}"
    print(f"| {label}: p50 / p99 / max ms, answer → event | {med(part, 'p50_ms'):.2f} / {med(part, 'p99_ms'):.2f} / "
          f"{med(part, 'max_ms'):.2f} ({len(rows[part])}) | p99 ≤ {target} ms |")
    cpu = statistics.median(r["cpu_ticks"] / r["hz"] * 1e6 / max(r["events"], 1) for r in rows[part])
    print(f"| … server CPU per delivered event | {cpu:.2f} µs | published |")
    missed = sum(r["missed"] for r in rows[part])
    faults = sum(r["repeats"] + r["resyncs"] + r["ended"] for r in rows[part])
    incomplete = sum(r["subscribers"] - r["complete"] for r in rows[part])
    orders = max(r["orders"] for r in rows[part])
    print(f"| … events missed, repeated + resyncs + streams ended, subscribers without every write, "
          f"different orders seen (all rounds) | {missed:.0f}, {faults:.0f}, {incomplete:.0f}, {orders:.0f} | 0, 0, 0, 1 |")
base, loaded = rows.get("throughput-0"), [v for k, v in rows.items() if k.startswith("throughput-") and k != "throughput-0"]
if base and loaded:
    rps = lambda r: r["requests"] / r["seconds"]
    pairs = list(zip(base, loaded[0]))
    ratio = statistics.median(rps(l) / rps(b) for b, l in pairs)
    n = int(loaded[0][0]["subscribers"])
    print(f"| POST req/s, none / {n:,} subscribers | {statistics.median(map(rps, base)):,.0f} / "
          f"{statistics.median(map(rps, loaded[0])):,.0f} = {ratio:.2f}× (median of per-round ratios) | ≥ 0.8× |")

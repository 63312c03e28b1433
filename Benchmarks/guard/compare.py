#!/usr/bin/env python3
"""Compares measured instructions per request with the committed baseline.

Usage: compare.py BASELINE MEASURED[,MEASURED…] TOLERANCE_PERCENT [--update REASON]. The files
hold lines `workload<TAB>instructions` (`#` starts a comment); with several measured files (repeat
runs), each workload's median is taken (the lower middle for an even count). Prints one table: baseline, measured, the ratio and a
verdict per workload. Exits 1 when a workload costs more than TOLERANCE_PERCENT over its
baseline, when one could not be measured, or when the baseline and the measured workloads differ;
0 otherwise. With --update, writes MEASURED as the new baseline with REASON in its header instead
of judging (a reviewed commit then carries it).
"""
import datetime
import subprocess
import sys


def read(path):
    values = {}
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, value = line.split("\t")
        values[name] = int(value) if value.isdigit() else None
    return values


baseline_path, measured_path, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
passes = {}
for path in measured_path.split(","):
    for name, value in read(path).items():
        passes.setdefault(name, []).append(value)
# A workload not measured in some pass (None) counts as not measured.
measured = {
    name: None if None in values else sorted(values)[(len(values) - 1) // 2] for name, values in passes.items()
}

if len(sys.argv) > 4 and sys.argv[4] == "--update":
    reason = " ".join(sys.argv[5:]).strip()
    if not reason or None in measured.values():
        raise SystemExit("--update needs a reason and every workload measured")
    try:
        dropped = set(read(baseline_path)) - set(measured)
    except FileNotFoundError:
        dropped = set()
    if dropped:
        raise SystemExit(f"--update would drop {', '.join(sorted(dropped))} from the guard: remove them from the baseline by hand, in a commit that says why")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    if subprocess.run(["git", "status", "--porcelain", "--", "Sources", "Package.swift"], capture_output=True, text=True).stdout.strip():
        commit += " with uncommitted changes to Sources"
    with open(baseline_path, "w") as out:
        out.write("# Instructions per request (callgrind), the guard's baseline: Benchmarks/guard/check.sh.\n")
        out.write(f"# Measured at {commit} on {datetime.date.today().isoformat()}: {reason}\n")
        for name, value in measured.items():
            out.write(f"{name}\t{value}\n")
    print(f"baseline written: {baseline_path}")
    sys.exit(0)

baseline = read(baseline_path)
failed = False
print(f"| workload | baseline | measured | ratio | verdict (limit +{tolerance:g} %) |")
print("|---|---|---|---|---|")
for name in sorted(set(baseline) | set(measured), key=lambda n: list(baseline).index(n) if n in baseline else 99):
    before, now = baseline.get(name), measured.get(name)
    if before is None or now is None:
        failed = True
        verdict = "not in the baseline" if before is None else "NOT MEASURED"
        print(f"| {name} | {before or '-'} | {now or '-'} | - | {verdict} |")
        continue
    ratio = now / before
    if ratio > 1 + tolerance / 100:
        failed = True
        verdict = "FAILED: costs more"
    elif ratio < 1 - tolerance / 100:
        verdict = "cheaper: update the baseline to keep the gain"
    else:
        verdict = "ok"
    print(f"| {name} | {before:,} | {now:,} | {ratio:.3f} | {verdict} |")
sys.exit(1 if failed else 0)

#!/usr/bin/env python3
"""Percentiles of histograms from /metrics scraped before and after each workload
(postgres-peer.sh saves them as metrics-SERVER-ROUND-WORKLOAD-{before,after}.txt): where TodoServer's
PostgreSQL requests spent their time (db_request_phase_seconds{phase}: queued, pipeline, statement,
answer), how many requests were ahead of each on its connection (db_requests_ahead), and the whole
request as the server saw it (http_request_duration_seconds). Rounds are summed. Percentiles are
interpolated within a bucket (linear), so they are estimates of bucket resolution.
Usage: report-phases.py RESULTS_DIR [SERVER]"""
import glob
import os
import re
import sys
from collections import defaultdict

METRICS = [("db_request_phase_seconds", "phase", 1000, "ms"), ("db_requests_ahead", None, 1, "requests"),
           ("http_request_duration_seconds", None, 1000, "ms")]


def buckets(path, name):
    """{(label value, upper bound): cumulative count} summed over other labels (loops)."""
    counts = defaultdict(float)
    for line in open(path):
        match = re.match(name + r"_bucket\{(.*)\} (\S+)$", line.strip())
        if not match:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1)))
        bound = float("inf") if labels["le"] == "+Inf" else float(labels["le"])
        counts[(labels.get("phase", ""), bound)] += float(match.group(2))
    return counts


def percentile(cumulative, p):
    total = cumulative[-1][1]
    target, lower, below = p * total, 0.0, 0.0
    for bound, count in cumulative:
        if count >= target:
            if bound == float("inf"):
                return float("inf")
            share = (target - below) / (count - below) if count > below else 1
            return lower + (bound - lower) * share
        lower, below = bound, count
    return float("inf")


results, server = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "todo"
totals = defaultdict(lambda: defaultdict(float))  # (workload, metric, label) → bound → count
workloads = []
for before in sorted(glob.glob(os.path.join(results, f"metrics-{server}-*-before.txt"))):
    # metrics-SERVER-ROUND-WORKLOAD-before.txt (a workload's name may hold a "-": get-one)
    workload = os.path.basename(before)[len(f"metrics-{server}-"):-len("-before.txt")].split("-", 1)[1]
    workloads.append(workload) if workload not in workloads else None
    after = before.replace("-before.txt", "-after.txt")
    for name, _, _, _ in METRICS:
        a, b = buckets(before, name), buckets(after, name)
        for (label, bound), count in b.items():
            totals[(workload, name, label)][bound] += count - a.get((label, bound), 0)
print("| workload | what | count | p50 | p90 | p99 | p99.9 |")
print("|---|---|---|---|---|---|---|")
for workload in workloads:
    for name, _, scale, unit in METRICS:
        for (w, n, label), by_bound in sorted(totals.items()):
            if w != workload or n != name:
                continue
            cumulative = sorted(by_bound.items())
            if not cumulative or cumulative[-1][1] == 0:
                continue
            what = f"{name}{{phase={label}}}" if label else name
            cells = [f"{percentile(cumulative, p) * scale:.2f}" for p in (0.5, 0.9, 0.99, 0.999)]
            print(f"| {workload} | {what} ({unit}) | {cumulative[-1][1]:.0f} | " + " | ".join(cells) + " |")

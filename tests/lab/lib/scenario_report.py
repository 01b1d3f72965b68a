#!/usr/bin/env python3
"""Summarise run-scenario results (JSON lines): one row per run, then medians per config.

Usage: scenario_report.py RESULTS.jsonl
"""
import json
import statistics
import sys


def row(r):
    dev = r.get("device") or {}
    by = r.get("data_bio_bytes_by_writer", {})
    writers = "+".join(sorted(k for k, v in by.items() if v > 0 and k in ("copier", "flusher")))
    return [r["workload"], r["config"], r["copy_s"], r["safe_s"], r["peak_at_risk_bytes"] / 2**20,
            r["at_risk_at_return_bytes"] / 2**20, r["data_requests"]["avg_request_kib"],
            100 * r["data_requests"]["big_share"], 100 * r.get("data_bios", {}).get("big_share", 0), dev.get("data_discontinuities", "-"),
            dev.get("busy_s", "-"), writers or "-"]


HEAD = ["workload", "config", "copy s", "safe s", "peak risk MiB", "risk@ret MiB", "data req KiB",
        "req big %", "bio big %", "dev data disc", "dev busy s", "data writers"]


def fmt(v):
    if isinstance(v, float):
        return "%.1f" % v
    return str(v)


def table(rows):
    cells = [HEAD] + [[fmt(v) for v in r] for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEAD))]
    for c in cells:
        print("  ".join(v.rjust(w) if i > 1 else v.ljust(w) for i, (v, w) in enumerate(zip(c, widths))))


def main():
    runs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
    if not runs:
        print("no results")
        return
    print("runs:")
    table([row(r) for r in runs])
    groups = {}
    for r in runs:
        if r.get("warmup"):         # the discarded copy after boot
            continue
        groups.setdefault((r["workload"], r["config"]), []).append(row(r))
    med = []
    for key, rows in groups.items():
        m = list(key)
        for i in range(2, len(HEAD) - 1):
            vals = [x[i] for x in rows if isinstance(x[i], (int, float))]
            m.append(statistics.median(vals) if vals else "-")
        m.append(",".join(sorted({x[-1] for x in rows})))
        med.append(m)
    print("\nmedians per workload and config (%d runs):" % len(runs))
    table(med)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Write kernel/RESULTS.md (to stdout) from the kernel-fix measurements.

Usage: results-report.py RESULTS-DIR SCENARIO-DIR
RESULTS-DIR holds one directory per scenario (kernel-cheap-6.1, ...) with the
results.jsonl of tests/lab/run-scenario; SCENARIO-DIR the scenario templates
(tests/lab/scenarios/kernel-*.json), to list the cells still to be measured.
Every number printed is computed here from those JSON lines.
"""
import glob
import json
import os
import statistics
import sys

MIB = 1 << 20
PROFILES = [("cheap", "cheap-stick", "cheap usb-storage stick"),
            ("ssd", "uas-ssd", "UAS SSD"),
            ("hdd", "uas-hdd", "UAS hard disk")]
KERNELS = ["6.1", "6.12"]
WORKLOADS = [("big256", "one 256 MiB file"), ("small200x256k", "200 files of 256 KiB")]
CONFIGS = [("stock", "stock fat, flush"), ("wait0", "patched, wait=0, flush"),
           ("wait1", "patched, wait=1, flush"), ("noflush", "stock fat, no flush (reference)")]


def med(xs):
    return statistics.median(xs) if xs else None


def load(results_dir):
    cells = {}          # (profile_short, kernel, workload, config) -> [runs]
    sources = {}        # (profile_short, kernel) -> path
    incomplete = set()
    for path in sorted(glob.glob(os.path.join(results_dir, "kernel-*", "results.jsonl"))):
        name = os.path.basename(os.path.dirname(path))
        try:
            _, short, series = name.split("-", 2)
        except ValueError:
            continue
        sources[(short, series)] = os.path.relpath(path, os.path.dirname(os.path.dirname(os.path.abspath(results_dir))))
        if os.path.exists(os.path.join(os.path.dirname(path), "INCOMPLETE")):
            incomplete.add((short, series))
        with open(path) as f:
            for line in f:
                if line.startswith("{"):
                    r = json.loads(line)
                    cells.setdefault((short, series, r["workload"], r["config"]), []).append(r)
    return cells, sources, incomplete


def stats(runs):
    def col(f):
        return [f(r) for r in runs if f(r) is not None]
    dev = lambda r: r.get("device") or {}
    by = lambda r: r.get("data_bio_bytes_by_writer", {})
    writers = sorted({"+".join(sorted(k for k, v in by(r).items() if v > 0 and k in ("copier", "flusher", "umount")))
                      or "-" for r in runs})
    return {
        "n": len(runs),
        "mbps": col(lambda r: r["mb_per_s_safe"]),
        "safe": col(lambda r: r["safe_s"]),
        "copy": col(lambda r: r["copy_s"]),
        "risk": col(lambda r: r["at_risk_at_return_bytes"] / MIB),
        "peak": col(lambda r: r["peak_at_risk_bytes"] / MIB),
        "umount": col(lambda r: r["umount_s"]),
        "big": col(lambda r: 100 * r["data_requests"]["big_share"]),
        "avgkib": col(lambda r: r["data_requests"]["avg_request_kib"]),
        "disc": col(lambda r: dev(r).get("data_discontinuities")),
        "copier": col(lambda r: 100 * by(r).get("copier", 0) / max(1, sum(by(r).values()))),
        "writers": ",".join(writers),
        "lost": any(r.get("trace_lost_events") for r in runs),
    }


def f1(x):
    return "-" if x is None else "%.1f" % x


def fr(x):
    """MB/s: two decimals below 10"""
    return "-" if x is None else ("%.2f" % x if x < 10 else "%.1f" % x)


def f0(x):
    return "-" if x is None else "%.0f" % x


def rng(xs, fmt=f1):
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt(xs[0])
    return "%s (%s-%s)" % (fmt(med(xs)), fmt(min(xs)), fmt(max(xs)))


def pct(a, b):
    return None if a is None or b in (None, 0) else 100.0 * (a - b) / b


def spct(x):
    return "-" if x is None else "%+.1f %%" % x


def cell_table(cells, short, series, wl):
    rows = []
    for cfg, label in CONFIGS:
        runs = cells.get((short, series, wl, cfg))
        if not runs:
            continue
        s = stats(runs)
        rows.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            label, s["n"], rng(s["mbps"], fr), rng(s["safe"]), rng(s["copy"]), rng(s["risk"]),
            rng(s["umount"]), f0(med(s["big"])), f0(med(s["avgkib"])), rng(s["disc"], f0),
            f0(med(s["copier"])), s["writers"] + (" (trace lost events)" if s["lost"] else "")))
    if not rows:
        return None
    head = ("| fat module, mount | runs | MB/s to safe | safe s | close returns s | dirty at close MiB "
            "| umount s | data req >= 768 KiB % | avg data req KiB | device data jumps | copier's share of data % | data writers |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    return head + "\n" + "\n".join(rows)


def medof(cells, short, series, wl, cfg, key):
    runs = cells.get((short, series, wl, cfg))
    return med(stats(runs)[key]) if runs else None


def spread(cells, short, series, wl, cfg, key="mbps"):
    runs = cells.get((short, series, wl, cfg))
    if not runs or len(runs) < 2:
        return None
    xs = stats(runs)[key]
    return 100.0 * (max(xs) - min(xs)) / med(xs)


def cells_in_order(cells, profiles=None):
    for short, prof, what in PROFILES:
        if profiles and short not in profiles:
            continue
        for series in KERNELS:
            for wl, wdesc in WORKLOADS:
                if (short, series, wl, "stock") in cells:
                    yield short, series, wl, "%s, %s, %s" % (what, series, wdesc)


def answers(cells):
    out = []
    g = lambda c, cfg, k: medof(cells, c[0], c[1], c[2], cfg, k)

    out.append("### 1. No slowdown on other drives (SSD/HDD)?\n")
    out.append("MB/s to safe (median), change against stock, and stock's own spread (max-min over median) "
               "as the noise level of the cell. The cheap stick is listed for comparison.\n")
    out.append("| cell | runs | stock | wait=0 | wait=1 | stock spread |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    n = 0
    for short, series, wl, label in cells_in_order(cells, ("ssd", "hdd", "cheap")):
        c = (short, series, wl)
        st = g(c, "stock", "mbps")
        sp = spread(cells, short, series, wl, "stock")
        runs = len(cells.get((short, series, wl, "stock"), []))
        out.append("| %s | %d | %s | %s (%s) | %s (%s) | %s |" % (
            label, runs, fr(st), fr(g(c, "wait0", "mbps")), spct(pct(g(c, "wait0", "mbps"), st)),
            fr(g(c, "wait1", "mbps")), spct(pct(g(c, "wait1", "mbps"), st)),
            "-" if sp is None else "%.0f %%" % sp))
        n += 1
    if not n:
        out.append("| _nothing measured yet_ | | | | | |")
    out.append("")

    out.append("### 2. wait=0 or wait=1?\n")
    out.append("What close() does: when it returns (the `cp` time, seconds), what it leaves dirty (MiB, "
               "median; in how many runs at least 10 MiB), and the time to safe.\n")
    out.append("| cell | close returns s: stock / wait=0 / wait=1 | dirty at close MiB: stock / wait=0 / wait=1 "
               "| runs leaving >= 10 MiB: wait=0 / wait=1 | safe s: stock / wait=0 / wait=1 |")
    out.append("| --- | --- | --- | --- | --- |")
    for short, series, wl, label in cells_in_order(cells):
        c = (short, series, wl)
        left = []
        for cfg in ("wait0", "wait1"):
            runs = cells.get((short, series, wl, cfg), [])
            left.append("%d of %d" % (sum(1 for r in runs if r["at_risk_at_return_bytes"] >= 10 * MIB), len(runs)))
        out.append("| %s | %s / %s / %s | %s / %s / %s | %s | %s / %s / %s |" % (
            label, f1(g(c, "stock", "copy")), f1(g(c, "wait0", "copy")), f1(g(c, "wait1", "copy")),
            f1(g(c, "stock", "risk")), f1(g(c, "wait0", "risk")), f1(g(c, "wait1", "risk")), " / ".join(left),
            f1(g(c, "stock", "safe")), f1(g(c, "wait0", "safe")), f1(g(c, "wait1", "safe"))))
    out.append("")

    out.append("### 3. How much dirty data is left for unmount?\n")
    out.append("Dirty + writeback bytes of the device when close() returned, median (min-max), and how long "
               "umount then took.\n")
    out.append("| cell | config | dirty at close MiB | umount s |")
    out.append("| --- | --- | --- | --- |")
    for short, series, wl, label in cells_in_order(cells):
        for cfg, clabel in CONFIGS:
            runs = cells.get((short, series, wl, cfg))
            if runs:
                s_ = stats(runs)
                out.append("| %s | %s | %s | %s |" % (label, clabel, rng(s_["risk"]), rng(s_["umount"])))
    out.append("")
    return "\n".join(out)


def outliers(cells):
    """Runs whose time to safe is more than 30 % above their cell's median."""
    rows = []
    for (short, series, wl, cfg), runs in sorted(cells.items()):
        if len(runs) < 2:
            continue
        m = med([r["safe_s"] for r in runs])
        for r in runs:
            if r["safe_s"] > 1.3 * m:
                d = r.get("device") or {}
                idle = d.get("elapsed_s", 0) - d.get("busy_s", 0)
                rows.append("| %s | %d | %d | %s | %s | %.1f | %.1f | %.1f | %.1f |" % (
                    r["scenario"], r["run"] + 1, r["rep"], wl, cfg, r["safe_s"], m,
                    r["copy_s"], idle))
    return rows


def main():
    results_dir, scen_dir = sys.argv[1], sys.argv[2]
    cells, sources, incomplete = load(results_dir)
    p = print
    p("# The FAT flush fix: lab measurements\n")
    p("Generated by `kernel/make-results` from `kernel/results/*/results.jsonl` (one JSON line per run, "
      "written by `tests/lab/run-scenario`); do not edit by hand. Every number below is a median over "
      "the runs of its cell unless a range (min-max) is given.\n")
    p("## Setup\n")
    p("- QEMU (TCG, 2 vCPUs, 2 GiB) booting Debian's own kernels 6.1.0-57-amd64 and 6.12.117+deb12-amd64; "
      "the disk under test is a simulated drive behind NBD (`tests/lab/nbd-stick`, one request at a time, "
      "each write charged size/bandwidth + a per-command cost + a seek cost when it does not continue the "
      "previous write). Profiles (`tests/lab/nbd-stick/profiles/`): cheap-stick usb-storage SuperSpeed "
      "20 MB/s, 0.5 ms/command, 20 ms/jump; uas-ssd 400 MB/s, 0.05 ms, 0.1 ms; uas-hdd 100 MB/s, 0.1 ms, 10 ms.")
    p("- The race setup of LAB-NOTES: page cache fragmented (1200 MiB faulted and every other page freed), "
      "`vm.dirty_bytes`=400 MiB, `dirty_background_bytes`=64 MiB, `dirty_writeback_centisecs`=100, so the "
      "flusher is busy during the copy; FAT32 with 32 KiB clusters made fresh before each run; FAT pre-read.")
    p("- Each run: mount, `cp` from tmpfs, `umount`. **safe** = until umount returned (the data is on the "
      "device, as after eject); **MB/s to safe** = bytes / safe time; **close returns** = until `cp` "
      "returned (its last close() included); **dirty at close** = dirty + writeback bytes of the device's "
      "BDI when `cp` returned, i.e. what was left for unmount; **data req >= 768 KiB %** = share of the "
      "data-area bytes written in requests of at least 768 KiB (block_rq_issue; uas caps requests at "
      "512 KiB, so it is 0 there by construction: read the average request size instead); **device data "
      "jumps** = data writes at the device that did not continue the previous one; **data writers** = who "
      "queued the data bios (copier = cp's close(), flusher = the writeback kworker).")
    p("- Configurations, all mounted with `flush` except the reference: the distribution's fat.ko "
      "(stock) and the patched module built out of tree by `kernel/build-modules` from the same "
      "kernel's source with `write_inode_now(inode, 0)` (wait0) or `write_inode_now(inode, 1)` (wait1). "
      "The configurations alternate within each repetition.\n")

    p("## Answers to the review\n")
    p(answers(cells))

    rows = outliers(cells)
    p("## Outliers\n")
    p("Runs more than 30 % slower to safe than the median of their cell. *n-th run* counts the big and "
      "small copies since the guest booted (each scenario boots one guest); *device idle* is the "
      "stick's elapsed time minus its busy time over the run.\n")
    if rows:
        p("| scenario | n-th run in its guest | rep | workload | config | safe s | cell median s | close returns s | device idle s |")
        p("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        p("\n".join(rows))
    else:
        p("None.")
    p("")
    order = sorted((r for (short, series, wl, cfg), runs in cells.items() if short == "cheaporder" for r in runs),
                   key=lambda r: r["run"])
    p("## Order check\n")
    p("`kernel-cheaporder-6.12`: the big-file copy on the cheap stick, 6.12, with the configurations in "
      "the opposite order (wait1, stock, wait0), to tell whether the slow outliers belong to wait=0 or "
      "to the second copy after boot.\n")
    if order:
        p("| n-th run in its guest | rep | config | safe s | close returns s | dirty at close MiB | umount s | device idle s | device data jumps |")
        p("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in order:
            d = r.get("device") or {}
            p("| %d | %d | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %s |" % (
                r["run"] + 1, r["rep"], r["config"], r["safe_s"], r["copy_s"], r["at_risk_at_return_bytes"] / MIB,
                r["umount_s"], d.get("elapsed_s", 0) - d.get("busy_s", 0), d.get("data_discontinuities", "-")))
    else:
        p("_Not measured yet: `kernel/make-results --only kernel-cheaporder-6.12`._")
    p("")
    p("## All cells\n")
    missing = []
    for short, prof, what in PROFILES:
        for series in KERNELS:
            name = "kernel-%s-%s" % (short, series)
            src = sources.get((short, series))
            p("### %s, Linux %s (`%s`)\n" % (what, series, name))
            if not src:
                p("_Not measured yet: `kernel/make-results --only %s`._\n" % name)
                missing.append(name)
                continue
            p("Source: `%s`%s.\n" % (src, " (incomplete run)" if (short, series) in incomplete else ""))
            for wl, wdesc in WORKLOADS:
                t = cell_table(cells, short, series, wl)
                if t:
                    p("**%s**\n" % wdesc)
                    p(t)
                    p("")
    p("## Still to run\n")
    if not order:
        missing.append("kernel-cheaporder-6.12")
    if missing:
        p("Run with `export VSM_LAB_CACHE=/work/lab/tests/lab/cache` first:\n")
        for name in missing:
            p("- `kernel/make-results --only %s`" % name)
    else:
        p("Nothing: every cell has been measured.")


if __name__ == "__main__":
    main()

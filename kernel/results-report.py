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


def answers(cells):
    out = []
    present = lambda short, series, wl, cfg: (short, series, wl, cfg) in cells

    # 1. other drives
    out.append("### 1. No slowdown on other drives (SSD/HDD)?\n")
    lines = []
    for short, prof, what in PROFILES[1:]:
        for series in KERNELS:
            for wl, wdesc in WORKLOADS:
                if not present(short, series, wl, "stock"):
                    continue
                st = medof(cells, short, series, wl, "stock", "mbps")
                parts = []
                for cfg in ("wait0", "wait1"):
                    if present(short, series, wl, cfg):
                        parts.append("%s %s MB/s (%s)" % (cfg, fr(medof(cells, short, series, wl, cfg, "mbps")),
                                                           spct(pct(medof(cells, short, series, wl, cfg, "mbps"), st))))
                sp = spread(cells, short, series, wl, "stock")
                lines.append("- %s, %s, %s: stock %s MB/s to safe; %s%s" % (
                    what, series, wdesc, fr(st), "; ".join(parts) or "patched not measured",
                    "; stock's own run-to-run spread %.1f %%" % sp if sp is not None else ""))
    out.append("\n".join(lines) if lines else "_No SSD/HDD cell measured yet._")
    out.append("")

    # 2. wait=0 or wait=1
    out.append("### 2. wait=0 or wait=1?\n")
    lines = []
    for short, prof, what in PROFILES:
        for series in KERNELS:
            for wl, wdesc in WORKLOADS:
                if not (present(short, series, wl, "wait0") and present(short, series, wl, "wait1")):
                    continue
                g = lambda cfg, k: medof(cells, short, series, wl, cfg, k)
                lines.append("- %s, %s, %s: MB/s to safe wait0 %s / wait1 %s (stock %s); close returns after "
                             "%s s / %s s (stock %s s); dirty at close %s / %s MiB; umount %s / %s s" % (
                                 what, series, wdesc, fr(g("wait0", "mbps")), fr(g("wait1", "mbps")),
                                 fr(g("stock", "mbps")), f1(g("wait0", "copy")), f1(g("wait1", "copy")),
                                 f1(g("stock", "copy")), f1(g("wait0", "risk")), f1(g("wait1", "risk")),
                                 f1(g("wait0", "umount")), f1(g("wait1", "umount"))))
    out.append("\n".join(lines) if lines else "_No cell with both variants measured yet._")
    out.append("")

    # 3. dirty data left for unmount
    out.append("### 3. How much dirty data is left for unmount?\n")
    lines = []
    for short, prof, what in PROFILES:
        for series in KERNELS:
            for wl, wdesc in WORKLOADS:
                parts = []
                for cfg, label in CONFIGS:
                    runs = cells.get((short, series, wl, cfg))
                    if not runs:
                        continue
                    s = stats(runs)
                    parts.append("%s %s MiB (max %s), umount %s s" % (cfg, f1(med(s["risk"])), f1(max(s["risk"])),
                                                                    f1(med(s["umount"]))))
                if parts:
                    lines.append("- %s, %s, %s: %s" % (what, series, wdesc, "; ".join(parts)))
    out.append("\n".join(lines) if lines else "_Nothing measured yet._")
    out.append("")
    return "\n".join(out)


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
    if missing:
        p("Run with `export VSM_LAB_CACHE=/work/lab/tests/lab/cache` first:\n")
        for name in missing:
            p("- `kernel/make-results --only %s`" % name)
    else:
        p("Nothing: every cell has been measured.")


if __name__ == "__main__":
    main()

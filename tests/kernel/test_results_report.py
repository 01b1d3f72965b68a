#!/usr/bin/env python3
"""kernel/results-report.py on a synthetic kernel/results tree: warm-up copies stay out of
every table and count, the Status section says which round-two cells are below the rule of at
least 5 repetitions after a discarded warm-up copy and which round-three cells cover
their drive, and the person-terms yank table merges the person-yank-* guests."""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "..", "kernel", "results-report.py")
MIB = 1 << 20
FAILS = []


def check(cond, what):
    print("%s: %s" % ("PASS" if cond else "FAIL", what))
    if not cond:
        FAILS.append(what)


def run_line(scenario, workload, config, rep, run, safe, warmup=False, pass_=1, risk=0.1):
    return {"scenario": scenario, "workload": workload, "config": config, "rep": rep, "run": run,
            "warmup": warmup, "pass": pass_, "safe_s": safe, "copy_s": safe - 0.5, "umount_s": 0.5,
            "mb_per_s_safe": 268.4 / safe, "at_risk_at_return_bytes": int(risk * MIB),
            "peak_at_risk_bytes": 64 * MIB, "trace_lost_events": 0,
            "data_requests": {"big_share": 0.0, "avg_request_kib": 500.0},
            "device": {"data_discontinuities": 10, "discontinuities": 20, "busy_s": 1.0, "elapsed_s": safe},
            "data_bio_bytes_by_writer": {"copier": 1, "flusher": 1}}


def cell(root, name, profile, workloads, configs, reps, warmup, when, safe=10.0):
    d = os.path.join(root, name)
    os.makedirs(d)
    lines, run = [], 0
    if warmup:
        # a slow first copy: it must not show up in any median
        lines.append(run_line(name, workloads[0], configs[0], 0, run, 99.0, warmup=True))
        run += 1
    for rep in range(1, reps + 1):
        for wl in workloads:
            for c in configs:
                lines.append(run_line(name, wl, c, rep, run, safe + (3.0 if c == "wait1" else 0.0)))
                run += 1
    with open(os.path.join(d, "results.jsonl"), "w") as f:
        f.writelines(json.dumps(l, sort_keys=True) + "\n" for l in lines)
    with open(os.path.join(d, "scenario.json"), "w") as f:
        json.dump({"name": name, "stick_profile": profile}, f)
    with open(os.path.join(d, "runs.txt"), "w") as f:
        f.write("%s: %d result lines from kernel/out/runs/%s-x (run-scenario exit 0)\n" % (when, len(lines), name))


def yank_dir(root, name, configs, reps):
    d = os.path.join(root, name)
    os.makedirs(d)
    lines = [dict(mode="yank", kernel="6.12", config="stock", point_s=0.1, warmup=True, copy_s=1.0,
                  dirty_at_yank_bytes=0, writeback_at_yank_bytes=0, lost_bytes=0, files_intact=True, fsck=[],
                  background_threshold_bytes=150 * MIB, dirty_threshold_bytes=300 * MIB)]
    for rep in range(reps):
        for c in configs:
            for pt in (0.1, 1.0):
                lost = 200 * MIB if c == "wait0" else 0
                lines.append(dict(lines[0], warmup=False, config=c, point_s=pt, lost_bytes=lost,
                                  dirty_at_yank_bytes=lost, files_intact=not lost))
    with open(os.path.join(d, "results.jsonl"), "w") as f:
        f.writelines(json.dumps(l) + "\n" for l in lines)


def stall_dir(res, pauses_mid_copy):
    """A synthetic kernel/results/wait0-stall-6.12: two copies; pauses_mid_copy seconds without a
    write in the middle of the second (0: none)."""
    d = os.path.join(res, "wait0-stall-6.12")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "guest.txt"), "w") as f:
        f.write("[guest-run 11:45:19] booting 6.12.118+deb12-amd64 (2048 MB)\n"
                "fat version: 1.0-vfat-smart-flushfix-wait0\n"
                "rep 1: copy 10.9 s, umount 9.7 s, log /run/lab/out/rep1.log\n"
                "rep 2: copy 20.0 s, umount 10.4 s, log /run/lab/out/rep2.log\n")
    for n, copy_s in ((1, 10.9), (2, 20.0)):
        with open(os.path.join(d, "rep%d.log" % n), "w") as f:
            for i in range(4):
                f.write("== t=%.2f state=R wchan=0 nr_dirty=%d MiB nr_writeback=0 MiB \n" % (i * 2.0, i * 30))
            f.write("== t=%.2f state=D wchan= nr_dirty=140 MiB nr_writeback=2 MiB \n" % (copy_s - 1.5))
            f.write("   cp| [<0>] fat_mirror_bhs+0x12f/0x160 [fat]\n")
    writes, t = [], 50.0
    for copy in (1, 2):
        for i in range(200):
            t += 0.1
            if copy == 2 and i == 100:
                t += pauses_mid_copy
            writes.append(t)
        t += 4.0   # between copies
    with gzip.open(os.path.join(d, "NBDSTICK1.log.gz"), "wt") as f:
        f.write("# nbd-stick bw=20000000\n")
        f.writelines("W %.6f 1048576 131072 0 7.054\n" % x for x in writes)


def seven(res, scen):
    """The Linux 7.x section: boot-7.2's checks and raw lines, the 7.2 cells as ratios."""
    d = os.path.join(res, "boot-7.2")
    os.makedirs(d)
    with open(os.path.join(d, "guest.txt"), "w") as f:
        f.write("=== flushfix\n   hybrid: /sys/module/fat/version = 3.0-vfat-smart-flushfix-hybrid/src=7.2.13-1\n"
                "   | Kernel:         7.2.13+deb14-amd64; per-device cap available; FAT flush fix present\n"
                "7.2: 11 passed, 0 failed\n=== probe\nPROBE: 19 passed, 0 failed\n"
                "=== two-writers\nTWO-WRITERS: 2 passed, 0 failed\n=== truncate-unlink\nTRUNCATE-UNLINK: 9 passed, 1 failed\n")
    with open(os.path.join(d, "runs.txt"), "w") as f:
        f.write("2026-12-05T00:40:00Z: kernel 7.2.13+deb14-amd64, commit abc1234, parts all\n")
    tw = [{"module": m, "rep": r, "close_s": c, "b_s": 40.0, "b_after_close_s": 40.0 - c - 1, "mib_at_close": 16.0,
           "mib_after_close": 60.0, "umount_s": 1.0, "verdict": "bounded" if c < 30 else "ran away"}
          for m, c in (("stock", 0.3), ("patch", 4.8), ("unbounded", 39.5)) for r in (1, 2)]
    # the paced form: B at 30 MB/s, timed to its last write, its own close() apart
    tw += [{"module": "unbounded", "rep": 1, "close_s": 31.0, "b_s": 17.2, "b_close_s": 14.0, "b_after_close_s": -13.5,
            "mib_at_close": 16.0, "mib_after_close": 528.0, "umount_s": 1.0, "b_mbps": 30.0, "b_dd": False,
            "append_mib": 512, "dirty_mib": 480, "background_mib": 400, "verdict": "ran away"}]
    # the current form: B's slowest write() and how much B had appended when close() returned
    tw += [{"module": "patch", "rep": 1, "close_s": 3.0, "b_s": 12.8, "b_close_s": 21.7, "b_after_close_s": 9.3,
            "mib_at_close": 16.0, "mib_after_close": 106.0, "umount_s": 1.0, "b_mbps": 30.0, "b_dd": False,
            "append_mib": 384, "dirty_mib": 480, "background_mib": 400, "b_slowest_write_s": 0.12,
            "b_mib_at_close_end": 106, "margin_s": 3.0, "verdict": "bounded"}]
    with open(os.path.join(d, "short-copy.jsonl"), "w") as f:
        f.writelines(json.dumps(l) + "\n" for l in (
            {"module": "stock", "rep": 1, "form": "default", "fresh_write_s": 6.2, "filled_write_s": 0.01, "close_s": 0.2},
            {"module": "patch", "rep": 1, "form": "twowriters", "fresh_write_s": 26.5, "filled_write_s": 0.02, "close_s": 0.3}))
    with open(os.path.join(d, "two-writers.jsonl"), "w") as f:
        f.writelines(json.dumps(l) + "\n" for l in tw)
    tu = [{"case": "msdos-unlink", "module": m, "rep": 1, "write_s": 3.0, "op_s": 0.02, "op_rc": rc, "close_s": 0.1,
           "dirty_mib_before": 100.0, "fsck_rc": 0, "size_after": -1, "data_same": -1, "written_mib": 128.0,
           "dmesg": dm, "write_err": 0} for m, rc, dm in (("stock", 0, ""), ("patch", 5, "INFO: task python3 blocked for more than 20 seconds."))]
    with open(os.path.join(d, "truncate-unlink.jsonl"), "w") as f:
        f.writelines(json.dumps(l) + "\n" for l in tu)
    name = "kernel-hybrid-big-7.2"
    os.makedirs(os.path.join(res, name))
    lines = [run_line(name, "big256", "stock", 0, 0, 99.0, warmup=True)]
    for rep in (1, 2, 3):
        for c, safe in (("stock", 20.0), ("control", 21.0), ("hybrid", 22.0)):
            lines.append(run_line(name, "big256", c, rep, len(lines), safe + rep * 0.5))
    with open(os.path.join(res, name, "results.jsonl"), "w") as f:
        f.writelines(json.dumps(l, sort_keys=True) + "\n" for l in lines)
    with open(os.path.join(res, name, "scenario.json"), "w") as f:
        json.dump({"name": name, "stick_profile": "cheap-stick"}, f)
    with open(os.path.join(res, name, "runs.txt"), "w") as f:
        f.write("2026-12-05T01:00:00Z: 10 result lines from kernel/out/runs/%s-x (run-scenario exit 0)\n" % name)
    p = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True)
    check(p.returncode == 0, "the report runs with Linux 7.2 results%s" % (
        " (%s)" % p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""))
    sec = p.stdout.split("## Linux 7.2 and 7.3-rc")[-1].split("\n## ")[0]
    check("**11 passed, 0 failed**" in sec and "**19 passed, 0 failed**" in sec and "**9 passed, 1 failed**" in sec
          and "FAT flush fix present`" in sec and "`3.0-vfat-smart-flushfix-hybrid/src=7.2.13-1`" in sec,
          "the 7.2 boot checks: the closing lines, what status said, the module version")
    check("| unbounded (without the bound) | 2 | 1.0, 1.0 | 39.5, 39.5 |" in sec and "ran away 2 of 2" in sec
          and "| dd, 512 MiB as fast as the kernel lets it; dirty_bytes 64 MiB, background 48 MiB | the patch | 2 | 1.0, 1.0 | 4.8, 4.8 |" in sec,
          "the two-writer table has each module's runs and verdicts")
    check("| 512 MiB at 30 MB/s; dirty_bytes 480 MiB, background 400 MiB | unbounded (without the bound) | 1 | -0.3 | 31.0 | "
          "16 -> 528 | 17.2 | - | -13.5 | - | 14.0 | 1.0 | ran away 1 of 1 |" in sec,
          "the paced two-writer runs get their own rows, with B's own close() apart")
    check("| 384 MiB at 30 MB/s; dirty_bytes 480 MiB, background 400 MiB | the patch | 1 | 0.5 | 3.0 | 16 -> 106 | 12.8 | 0.1 | 9.3 "
          "| 106 of 384 | 21.7 | 1.0 | bounded 1 of 1 |" in sec,
          "the two-writer table shows B's slowest write() and what B had appended when close() returned")
    check("| default | stock | 1 | 6.2 | 0.01 | 0.2 |" in sec and "| twowriters | the patch | 1 | 26.5 | 0.02 | 0.3 |" in sec,
          "the short-copy table has one row per form and module")
    check("| msdos-unlink | the patch | 1 |" in sec and "unlink rc 5, gone" in sec and "blocked for more than" in sec,
          "the truncate/unlink table shows a failed unlink and the kernel's hung-task line")
    rows = [l for l in sec.splitlines() if l.startswith("| one 256 MiB file |")]
    check(len(rows) == 3 and "| 3 | 23.0 (22.5-23.5) | 4 % | 1.10 | 1.05 |" in rows[2]
          and "| 21.0 (20.5-21.5) | 5 % | 1 | " in rows[0] and "99.0" not in sec.split("### Linux 7.2: the key cells")[1],
          "the 7.2 big-file cell: medians, spread, ratios to stock and control, the warm-up left out")
    # the same cells on another stick profile (and kernel) get a section of their own, with the host's load
    name = "kernel-hybrid-bigsmall-7.3-pny32g"
    os.makedirs(os.path.join(res, name))
    lines = [run_line(name, "big256", "stock", 0, 0, 99.0, warmup=True)]
    for rep in (1, 2, 3):
        for w in ("big256", "small200x256k"):
            for c, safe in (("stock", 30.0), ("hybrid", 15.0)):
                lines.append(dict(run_line(name, w, c, rep, len(lines), safe + rep), kernel="7.3-amd64"))
    with open(os.path.join(res, name, "results.jsonl"), "w") as f:
        f.writelines(json.dumps(l, sort_keys=True) + "\n" for l in lines)
    with open(os.path.join(res, name, "scenario.json"), "w") as f:
        json.dump({"name": name, "stick_profile": "pny32g"}, f)
    with open(os.path.join(res, name, "runs.txt"), "w") as f:
        f.write("2026-12-05T04:00:00Z: 13 result lines from kernel/out/runs/%s-x (run-scenario exit 0); "
                "kernel 7.3-amd64, commit def5678\n" % name)
    with open(os.path.join(res, name, "host-load.txt"), "w") as f:
        f.write("%s-x: host load over 20 samples: QEMU guests at once max 1\n" % name)
    p = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True)
    sec = p.stdout.split("## Linux 7.2 and 7.3-rc")[-1].split("\n## ")[0]
    s73 = sec.split("### Linux 7.3: the key cells on the `pny32g` profile, the patch against stock")
    check(p.returncode == 0 and len(s73) == 2 and "commit def5678" in s73[1].split("###")[0]
          and "QEMU guests at once max 1" in s73[1].split("###")[0]
          and "| one 256 MiB file | patched, hybrid (wait=0, then wait=1 if still dirty) | 3 | 17.0 (16.0-18.0) | 12 % | 0.53 |"
          in s73[1] and "| 200 files of 256 KiB | stock fat.ko | 3 | 32.0 (31.0-33.0) |" in s73[1]
          and len([l for l in sec.split("### Linux 7.2: the key cells on the `cheap-stick` profile")[1].split("###")[0]
                   .splitlines() if l.startswith("| one 256 MiB file |")]) == 3,
          "a cell on another profile: its own section named by kernel and profile, with its source and host load")


def uas_big(res, scen):
    """The hybrid with one big file on the UAS SSD and HDD models: its round-three table with the
    device busy time, and whether each cell is CPU-bound (device busy < 80 % of the time to safe)."""
    cells = ["stock", "control", "hybrid"]
    pre = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True).stdout
    check("not measured yet (`kernel/make-results --only kernel-hybrid-ssdbig-6.12" in pre
          and "`kernel/make-results --only kernel-hybrid-hddbig-6.12`" in pre.split("## Setup")[0],
          "before the UAS big-file cells run, the report says they are missing")
    cell(res, "kernel-hybrid-ssdbig-6.12", "uas-ssd", ["big256"], cells, 5, True, "2026-12-05T08:50:00Z")
    cell(res, "kernel-hybrid-hddbig-6.12", "uas-hdd", ["big256"], cells, 3, True, "2026-12-05T09:00:00Z")
    # the HDD cell made device-bound: busy 9 s of 10 s to safe
    path = os.path.join(res, "kernel-hybrid-hddbig-6.12", "results.jsonl")
    with open(path) as f:
        rs = [json.loads(l) for l in f]
    for r in rs:
        r["device"]["busy_s"] = 0.9 * r["safe_s"]
    with open(path, "w") as f:
        f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in rs)
    p = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True)
    md = p.stdout
    r3 = md.split("## Round three")[1].split("\n## ")[0]
    check(p.returncode == 0
          and "| UAS SSD | patched, hybrid (wait=0, then wait=1 if still dirty) | 5 | 10.0 (10.0-10.0) | +0.0 % | +0.0 % |" in r3
          and "| UAS SSD | stock fat.ko | 5 | 10.0 (10.0-10.0) | - | +0.0 % |" in r3
          and "| 1.0 (1.0-1.0) | 10 (10-10) | 10 (10-10) |" in r3
          and "| UAS hard disk | unpatched, built out of tree (control) | 3 |" in r3 and "| 90 (90-90) |" in r3,
          "round three's UAS big-file table: runs, ratios to stock and control, device busy and its share of safe")
    a1 = md.split("### 1. No slowdown")[1].split("### 2.")[0]
    v = [l for l in a1.splitlines() if l.startswith("**The patch itself (the hybrid) with one 256 MiB file**")]
    check(len(v) == 1 and "UAS SSD (`kernel-hybrid-ssdbig-6.12`, 5 reps)" in v[0]
          and "CPU-bound: the device was busy 10 % of the time to safe" in v[0]
          and "UAS hard disk (`kernel-hybrid-hddbig-6.12`, 3 reps)" in v[0]
          and "Not CPU-bound: the device was busy 90 %" in v[0],
          "answer 1 says, per drive, whether the patch's big-file cell is CPU-bound")
    check("(CPU-bound)" in a1.split("| UAS SSD, 6.12, one 256 MiB file |")[1].split("\n")[0]
          and "| UAS hard disk, 6.12, one 256 MiB file | 5 | 13.4 |" in a1 and "| 4-5 % (CPU-bound) |" in a1,
          "answer 1's round-two table marks the CPU-bound cells by their device busy share")
    check("`kernel/make-results --only kernel-hybrid-hddbig-6.12 --append --reps 2`" in md.split("## Setup")[0]
          and "kernel-hybrid-ssdbig-6.12`" not in md.split("Not measured yet")[1].split("\n")[0],
          "a UAS big-file cell with 3 reps is listed as short by 2, the 5-rep one is not")


def main():
    root = tempfile.mkdtemp(prefix="k13-report-")
    res = os.path.join(root, "kernel", "results")
    os.makedirs(res)
    scen = os.path.join(root, "scenarios")
    os.makedirs(scen)
    both = ["big256", "small200x256k"]
    r2 = ["stock", "wait0", "wait1"]
    r3 = ["stock", "control", "wait0", "wait1", "hybrid"]
    old, new = "2026-11-30T02:23:28Z", "2026-12-02T01:51:20Z"
    for se in ("6.1", "6.12"):
        cell(res, "kernel-cheap-" + se, "cheap-stick", both, r2 + ["noflush"], 3, False, old)
        cell(res, "kernel-hybrid-big-" + se, "cheap-stick", ["big256"], r3, 5, True, new)
        cell(res, "kernel-hybrid-small-" + se, "cheap-stick", ["small200x256k"], r3, 5, True, new)
    cell(res, "kernel-cheaporder-6.12", "cheap-stick", ["big256"], ["wait1", "stock", "wait0"], 3, False, old)
    cell(res, "kernel-ssd-6.1", "uas-ssd", both, r2, 3, False, old)
    cell(res, "kernel-ssd-6.12", "uas-ssd", both, r2, 5, True, new)
    cell(res, "kernel-hdd-6.1", "uas-hdd", both, r2, 3, False, old)
    cell(res, "kernel-hdd-6.12", "uas-hdd", both, r2, 5, True, new, safe=20.0)
    yank_dir(res, "person-yank-6.12", ["wait0"], 2)
    yank_dir(res, "person-yank-6.12-b", ["stock", "wait1", "hybrid"], 2)
    yank_dir(res, "person-yank-6.12-c", ["stock", "wait0", "wait1", "hybrid"], 3)

    p = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True)
    check(p.returncode == 0, "the report runs%s" % (" (%s)" % p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""))
    md = p.stdout
    lines = md.splitlines()
    status = md.split("## Setup")[0]

    check("`kernel-ssd-6.12` 30 runs, 5 reps after a warm-up" in status,
          "Status counts kernel-ssd-6.12's runs without its warm-up")
    check("`kernel-cheap-6.1` 24 runs, 3 reps;" in status, "Status counts a cell without warm-up")
    below = [l for l in lines if l.startswith("- Round two's cells on `cheap-stick` below the rule of at least 5 repetitions after a discarded warm-up copy")]
    check(len(below) == 1 and all("`%s` 3 repetitions without a warm-up" % n in below[0]
                                  for n in ("kernel-cheap-6.1", "kernel-cheap-6.12", "kernel-cheaporder-6.12")),
          "Status names the cheap-stick cells with 3 reps and no warm-up")
    check(len(below) == 1 and "Round three covers that drive" in below[0] and all(
        "`kernel-hybrid-%s` 5 repetitions after a discarded warm-up copy" % n in below[0]
        for n in ("big-6.1", "small-6.1", "big-6.12", "small-6.12"))
        and "stock/control/wait0/wait1/hybrid" in below[0],
        "Status says round three's hybrid cells cover the cheap stick")
    uas = [l for l in lines if l.startswith("- Round two's cells on `uas-")]
    check(len(uas) == 2 and all("6.12" not in l for l in uas) and all("No cell of round three" in l for l in uas),
          "Status lists only the 6.1 UAS cells as short, with no round-three cover")
    ok = [l for l in lines if l.startswith("- Round two's cells with at least 5 repetitions after a discarded warm-up copy")]
    check(len(ok) == 1 and "`kernel-ssd-6.12` 5 repetitions after a discarded warm-up copy" in ok[0]
          and "`kernel-hdd-6.12`" in ok[0], "Status lists the rerun UAS cells as meeting the rule")

    head = [l for l in lines if l.startswith("## Answers to the review (round two")]
    check(len(head) == 1 and "`kernel-ssd-6.12`, `kernel-hdd-6.12`: 5 repetitions after a discarded warm-up copy"
          in head[0] and "3 repetitions without a warm-up" in head[0], "the round-two heading states reps per cell")
    check("99.0" not in md.split("## Outliers")[0].split("## Answers")[1],
          "no warm-up copy (safe 99 s) in the round-two answers")
    a1 = md.split("### 1. No slowdown")[1].split("### 2.")[0].splitlines()
    ssd = [l for l in a1 if l.startswith("| UAS SSD, 6.12, one 256 MiB file | ")]
    check(len(ssd) == 1 and ssd[0].startswith("| UAS SSD, 6.12, one 256 MiB file | 5 | 26.8 | "),
          "answer 1 counts 5 runs in the rerun SSD cell, its median without the warm-up")
    check(all("run before nbd-stick modelled" in l for l in lines if l.startswith("Source: `kernel/results/kernel-")
              and ("ssd-6.1/" in l or "hdd-6.1/" in l))
          and not any("run before nbd-stick" in l for l in lines if "-6.12/" in l or "cheap" in l),
          "All cells marks only the UAS cells run before the queue model")
    check(sum(1 for l in lines if l.startswith("Warm-up copy (discarded, not in the tables): big256, stock: safe 99.0")) == 2,
          "All cells shows the two round-two warm-up copies apart")
    cellrows = md.split("### UAS SSD, Linux 6.12")[1].split("###")[0]
    check("| stock fat, flush | 5 | " in cellrows and "99.0" not in cellrows.split("Warm-up copy")[1].split("\n", 2)[2],
          "All cells: 5 runs of stock in the rerun cell, the warm-up left out")
    order = md.split("## Order check")[1].split("## All cells")[0]
    check(order.count("\n| ") == 11, "the order check lists its 9 runs (header + rule + 9)")
    r2txt = [l for l in lines if "round two measured wait=1's time to safe for small files against stock at" in l]
    check(len(r2txt) == 1 and "6.1 +30.0 %" in r2txt[0] and "6.12 +15.0 %" in r2txt[0],
          "round three's hard-disk sentence is computed from kernel-hdd-*")

    ytab = md.split("| fat module | pulled at | runs |")[1].split("\n\n")[0]
    rows = {tuple(c.strip() for c in l.split("|")[1:4]): l for l in ytab.splitlines()[2:]}
    check(all(rows.get((lab, "close() + %s s" % pt, "5")) for lab in ("stock fat.ko", "patched, wait=0 (v2)",
                                                                     "patched, wait=1 (RFC v1)",
                                                                     "patched, hybrid (v3, the patch)")
              for pt in ("0.1", "1")),
          "the yank table merges person-yank-6.12, -b and -c: 5 runs per configuration and point")
    check("`person-yank-6.12` 4, `person-yank-6.12-b` 12, `person-yank-6.12-c` 24" in md,
          "the yank table names its guests and their run counts")
    check("3 repetitions without a warm-up" in order.split("\n|")[0] and "Warm-up copy" not in order,
          "the order check says its repetitions, no warm-up line without a warm-up")
    check("The outliers it was made for" not in order, "the order check's note on the rerun is not there before it")

    # the cheap-stick cells rerun with a warm-up and 5 repetitions (session 6)
    for n in ("kernel-cheap-6.1", "kernel-cheap-6.12", "kernel-cheaporder-6.12"):
        shutil.rmtree(os.path.join(res, n))
    for se in ("6.1", "6.12"):
        cell(res, "kernel-cheap-" + se, "cheap-stick", both, r2 + ["noflush"], 5, True, new)
    cell(res, "kernel-cheaporder-6.12", "cheap-stick", ["big256"], ["wait1", "stock", "wait0"], 5, True, new)
    p = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True)
    check(p.returncode == 0, "the report runs with the cheap cells rerun")
    md2 = p.stdout
    lines2 = md2.splitlines()
    status2 = md2.split("## Setup")[0]
    check("`kernel-cheap-6.1` 40 runs, 5 reps after a warm-up" in status2
          and "`kernel-cheaporder-6.12` 15 runs, 5 reps after a warm-up" in status2,
          "Status counts the rerun cheap cells without their warm-ups")
    check(not any(l.startswith("- Round two's cells on `cheap-stick` below") for l in lines2),
          "Status no longer lists the cheap-stick cells as below the repetition rule")
    ok2 = [l for l in lines2 if l.startswith("- Round two's cells with at least 5 repetitions after a discarded warm-up copy")]
    check(len(ok2) == 1 and all("`%s` 5 repetitions after a discarded warm-up copy" % n in ok2[0]
                                for n in ("kernel-cheap-6.1", "kernel-cheap-6.12", "kernel-cheaporder-6.12")),
          "Status lists the rerun cheap-stick cells as meeting the rule")
    head2 = [l for l in lines2 if l.startswith("## Answers to the review (round two")]
    check(len(head2) == 1 and "`kernel-cheap-6.1`, `kernel-cheap-6.12`" in head2[0]
          and "`kernel-cheap-6.1`, `kernel-cheap-6.12`, `kernel-cheaporder-6.12`: 3 repetitions" not in head2[0],
          "the round-two heading groups the rerun cheap cells with the 5-rep ones")
    order2 = md2.split("## Order check")[1].split("## All cells")[0]
    check(order2.count("\n| ") == 17 and "99.0" not in order2.split("Warm-up copy")[1].split("\n", 1)[1]
          and "Warm-up copy (discarded, not in the table" in order2 and "wait1: safe 99.0 s" in order2,
          "the order check lists its 15 runs and shows its warm-up (wait1) apart")
    check("none of their runs is an outlier" in order2,
          "the order check says the rerun cheap cells have no outliers")
    check(sum(1 for l in lines2 if l.startswith("Warm-up copy (discarded, not in the tables): big256, stock: safe 99.0")) == 4,
          "All cells shows the warm-ups of the rerun cheap cells apart")
    check(not any(l.startswith("Below the rule of at least 5 repetitions after a discarded warm-up copy") and "cheap" in l for l in lines2),
          "Still to run no longer asks for the cheap cells")
    md += "\n\n<!-- second report -->\n" + md2
    check(not re.search(r"\b[Ii]ssues? \d", md), "the report names no issue numbers (product text)")
    check("stall diagnostic (`kernel/guest-wait0-stall.sh`): not run yet" in status2,
          "Status says the stall diagnostic has not run when there is no wait0-stall result")

    # what guest-wait0-stall.sh found: read from its raw files, a mid-copy pause told
    stall_dir(res, 0)
    p = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True)
    check(p.returncode == 0, "the report runs with a stall diagnostic")
    st = p.stdout.split("## What `guest-wait0-stall.sh` found (Linux 6.12)")
    check(len(st) == 2 and "`kernel/guest-wait0-stall.sh`): run on 6.12" in p.stdout.split("## Setup")[0],
          "the stall diagnostic has its section and its Status line")
    sec = st[-1].split("## All cells")[0]
    check("| 2 | 20.0 | 10.4 |" in sec and "R) in 8 of 10 samples and in D in 2" in sec
          and "each 1.5, 1.5 s before its copy returned" in sec and "`fat_mirror_bhs`" in sec,
          "the stall section counts the samples, the D samples and the stack from rep*.log")
    check("2 stretches longer than 5 s, one per copy" in sec and "longest pause between two writes was 0.10 s" in sec,
          "without a pause the stick's stretches are one per copy")
    stall_dir(res, 11.0)
    p = subprocess.run([sys.executable, REPORT, res, scen], capture_output=True, text=True)
    sec = p.stdout.split("## What `guest-wait0-stall.sh` found")[-1].split("## All cells")[0]
    check("**The stick wrote in 3 stretches longer than 5 s for 2 copies**" in sec and "11.1" in sec,
          "an 11 s pause inside a copy is reported, not hidden")
    md += "\n\n<!-- stall report -->\n" + p.stdout

    # Linux 7.x: the boot checks, the two writers, truncate/unlink and the key cells as ratios
    seven(res, scen)
    uas_big(res, scen)

    if not FAILS:
        shutil.rmtree(root)
    else:
        print("the synthetic tree and report: %s" % root)
        with open(os.path.join(root, "RESULTS.md"), "w") as f:
            f.write(md)
    print("%d failed" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The bench's report: raw results (bench/raw/GROUP/results.jsonl) -> summary.json ->
RESULTS.md (+ plots). Pure Python 3 (no root, no lab); matplotlib only for the plots.

Usage: report.py RAW_DIR OUT_DIR [COMMAND]     (bench/run calls write_all)
"""
import datetime
import json
import os
import re
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout

MIB = 1 << 20
SETUPS = ("udisks-default", "vfat-smart", "no-flush", "sync", "patched-flush",
          "vfat-smart-global-knobs", "no-stick")
BASELINE = "udisks-default"
# groups with "target": "internal" (issue 14): the copy goes to the internal disk while the
# stick is mounted; their reference is the product's default (allow-global-knobs false)
INTERNAL_BASELINE = "vfat-smart"
POINTS = ("half", "return", "return+1s")


# ------------------------------------------------------------------------ raw input
def load_raw(raw):
    """[(group, meta, [run, ...])] for every RAW/GROUP/results.jsonl, sorted by group."""
    out = []
    if not os.path.isdir(raw):
        return out
    for name in sorted(os.listdir(raw)):
        res = os.path.join(raw, name, "results.jsonl")
        if not os.path.isfile(res):
            continue
        runs = []
        with open(res) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    runs.append(json.loads(line))
        ph = os.path.join(raw, name, "yank-posthoc.json")
        if os.path.isfile(ph):           # corrections of yanks analysed before the stale-block fix
            with open(ph) as f:
                fix = json.load(f)
            for r in runs:
                c = fix.get(str(r.get("run"))) if r.get("yank") else None
                if c:
                    r.update(intact_bytes=c["intact_bytes"], lost_bytes=c["lost_bytes"],
                             lost_device_s=c["lost_device_s"], yank_corrected=c["method"])
        yw = os.path.join(raw, name, "yank-window.json")
        if os.path.isfile(yw):           # yanks analysed by another run's writes (yank_window.py)
            with open(yw) as f:
                flags = json.load(f)
            for r in runs:
                w = flags.get(str(r.get("run"))) if r.get("yank") else None
                if w:
                    r.update(yank_window=w["window"], lost_at_least_bytes=w["lost_at_least_bytes"])
        meta = {}
        mp = os.path.join(raw, name, "run.json")
        if os.path.isfile(mp):
            with open(mp) as f:
                meta = json.load(f)
        pp = os.path.join(raw, name, "pulls.jsonl")
        if os.path.isfile(pp):           # pulls replayed from the drive's journal (pull_replay.py)
            with open(pp) as f:
                pulls = [json.loads(l) for l in f if l.startswith("{")]
            for p in pulls:
                if p.get("fsck") == "damaged":
                    p["fsck_kinds"] = fsck_kinds(p.get("fsck_lines") or [])
            for r in runs:
                r["pulls"] = [p for p in pulls if p["run"] == r.get("run")]
        gp = os.path.join(raw, name, "group.json")
        if os.path.isfile(gp):            # a calibration group ("final" or "iteration")
            with open(gp) as f:
                gdef = json.load(f)
            if gdef.get("calibration"):
                meta["calibration"] = gdef["calibration"]
                for k in ("commit", "kernel_release", "profile_conf", "fragment_mib"):
                    if gdef.get(k) is not None:
                        meta.setdefault(k, gdef[k])
        out.append((name, meta, runs))
    return out


def superseded(matrix, groups, key="supersedes"):
    """{(group, workload): newer group} from the matrix's "supersedes" members
    ([{"group": G, "workloads": [W, ...]}]): a rerun of G's W on a newer product or bench
    takes its place in the goals. Only reruns that have results count. With key
    "supersedes_pulls": a newer group's pulls take the place of G's W's in the pull
    verdicts and README (G's speed stays in the goals); "supersedes_notice": a newer group
    that measured only vfat-smart's "safe to unplug" gives README's notice column for G's W.
    A rerun of G (G@STAMP) takes the place of G's older runs either way."""
    have = {g for g, _, runs in groups if runs}
    out = {}
    for g in (matrix or {}).get("groups", []):
        if g["name"] not in have:
            continue
        for old in g.get(key, []):
            for w in old["workloads"]:
                out[(old["group"], w)] = g["name"]
    # a rerun of a group (NAME@STAMP: bench/run never writes over a group's results) takes
    # the place of its older runs in the workloads it ran
    workloads = {g: {r["workload"] for r in runs} for g, _, runs in groups if runs}
    versions = {}
    for g in workloads:
        versions.setdefault(g.split("@")[0], []).append(g)
    for names in versions.values():
        newest = max(names, key=lambda n: n.partition("@")[2])   # the stamps sort by time
        for g in set(names) - {newest}:
            for w in workloads[g] & workloads[newest]:
                out.setdefault((g, w), newest)
    # a chain (A by B, B by C): A's newest rerun (a cycle stops where it closes)
    for k, v in out.items():
        seen = {k[0]}
        while (v, k[1]) in out and v not in seen:
            seen.add(v)
            v = out[(v, k[1])]
        out[k] = v
    return out


# per pull in summary.json's cells (bench/lib/pull_replay.py says what each means)
PULL_KEYS = ("setup", "rep", "t_s", "point", "files_total", "files_intact", "bytes_written", "bytes_intact",
             "progress_lost_s", "progress_lost_files_s", "fsck", "reference", "reference_safe_s", "copy_s",
             "fsck_kinds")
# what fsck.fat -n and fsck.exfat -n found beyond the dirty bit, by what the pull cut short
# (fsck's own words, FAT's and exFAT's); a damaged pull with none of them is "other"
FSCK_KINDS = (
    ("an entry ahead of its clusters",
     re.compile(r"File size is \d+ bytes, cluster chain length is|Contains a free cluster|"
                r"cluster \S+ is marked as free")),
    ("lost clusters", re.compile(r"Reclaimed \d+ unused cluster|more clusters are allocated")),
    ("a directory block of stale data",
     re.compile(r"Bad short file name|Directory has non-zero size|unknown entry type|"
                r"Start cluster field in VFAT long filename slot")),
    ("a half-written entry", re.compile(r"checksum of a file is wrong|start bit is missing")),
)


def fsck_kinds(lines):
    """The FSCK_KINDS names whose words are among fsck's LINES, else ["other"]."""
    return [name for name, rx in FSCK_KINDS if any(rx.search(l) for l in lines)] or ["other"]
# seconds: the pull replay reads cp's progress from samples every 0.1-0.2 s, so two
# setups' losses closer than this are not told apart
PULL_TOLERANCE_S = 0.25
# the return gap: a pull when the copy returns loses at most this much of its progress
RETURN_GAP_S = 1.0


def cell_key(r):
    return (r["group"], r["kernel_series"], r["device"], r["workload"], r["fs"], r["vm"], r["config"])


def build_summary(groups, command, generated=None, matrix=None, targets=None):
    """The summary (issue 11's schema, plus extra members) from load_raw()'s list;
    MATRIX (bench/matrix.json) for the "supersedes" of its groups; TARGETS (the
    published numbers of bench/calibration.json) for the calibration."""
    sup = superseded(matrix, groups)
    sup_pulls = superseded(matrix, groups, "supersedes_pulls")
    sup_notice = superseded(matrix, groups, "supersedes_notice")
    cells = {}
    order = []
    for gname, meta, runs in groups:
        if meta.get("calibration"):        # the stick models' calibration: its own section
            continue
        for r in runs:
            if r.get("warmup"):
                continue
            k = cell_key(r)
            if k not in cells:
                order.append(k)
                cells[k] = {
                    "group": r["group"], "kernel": r["kernel_series"], "device": r["device"],
                    "jump_ms": r["jump_ms"], "workload": r["workload"], "workload_bytes": r["workload_bytes"],
                    "fs": r["fs"], "vm": r["vm"], "setup": r["setup"], "config": r["config"],
                    "reps": 0, "copy_s": [], "safe_s": [], "peak_at_risk_bytes": [],
                    "at_risk_at_return_bytes": [], "mb_per_s_safe": [], "jumps": [], "busy_s": [],
                    "umount_s": [], "umount_busy_s": [], "big_share": [], "cp_cpu_share": [], "yank": [], "device_bandwidth_bytes_s": r["bw"],
                    "mount_options": r.get("mount_options"), "knobs": r.get("knobs"),
                    "pacer": r.get("pacer_config"), "after_return_s": r.get("after_return_s", 0),
                }
                if r.get("two_sticks"):
                    cells[k]["two_sticks"] = r["two_sticks"]
                if (r["group"], r["workload"]) in sup:
                    cells[k]["superseded_by"] = sup[(r["group"], r["workload"])]
                if (r["group"], r["workload"]) in sup_pulls:
                    cells[k]["pulls_superseded_by"] = sup_pulls[(r["group"], r["workload"])]
                # a newer group that measured only vfat-smart's notice (a rerun of G
                # inherits what the matrix says of G)
                notice_by = sup_notice.get((r["group"], r["workload"])) or sup_notice.get(
                    (r["group"].split("@")[0], r["workload"]))
                if notice_by and notice_by != r["group"]:
                    cells[k]["notice_superseded_by"] = notice_by
            c = cells[k]
            # bookkeeping, where the raw data has it: what was measured
            for key, val in (("commit", r.get("commit") or meta.get("commit")),
                             ("kernel_release", r.get("kernel") or meta.get("kernel_release")),
                             ("profile", r.get("profile") or r.get("device"))):
                if val and val not in c.setdefault(key + "s", []):
                    c[key + "s"].append(val)
            if r.get("target") == "internal":
                add_internal(c, r)
            if r.get("yank"):
                c["yank"].append({"point": r["yank"], "lost_bytes": r["lost_bytes"],
                                  "written_bytes": r["written_bytes"], "intact_bytes": r["intact_bytes"],
                                  "lost_device_s": r["lost_device_s"], "at_risk_at_yank_bytes": r.get("at_risk_at_yank_bytes"),
                                  "fsck_rc": r.get("fsck_rc"), "files": r.get("files"),
                                  "files_intact": r.get("files_intact"),
                                  "corrected": r.get("yank_corrected"),
                                  "window": r.get("yank_window"),
                                  "lost_at_least_bytes": r.get("lost_at_least_bytes")})
                continue
            for p in r.get("pulls", []):
                c.setdefault("pulls", []).append({k: p.get(k) for k in PULL_KEYS})
            c["reps"] += 1
            c["copy_s"].append(r["copy_s"])
            c["safe_s"].append(r["safe_s"])
            c["peak_at_risk_bytes"].append(r["peak_at_risk_bytes"])
            c["at_risk_at_return_bytes"].append(r["at_risk_at_return_bytes"])
            c["mb_per_s_safe"].append(r["mb_per_s_safe"])
            dev = r.get("drive") or {}
            c["jumps"].append(dev.get("discontinuities"))
            c["busy_s"].append(dev.get("busy_s"))
            c["umount_s"].append(r.get("umount_s"))
            c["umount_busy_s"].append((dev.get("after") or {}).get("busy_s"))
            c["big_share"].append((r.get("data_requests") or {}).get("big_share"))
            c["cp_cpu_share"].append(cp_cpu_share(r))
    main, exp = [], []
    for k in order:
        c = cells[k]
        finish_cell(c)
        # experiment groups (x-*), experimental setups and the two-stick runs (their own
        # section) stay out of the matrix's cells
        (main if c["setup"] in SETUPS and not c["group"].startswith("x-") and not c.get("two_sticks")
         else exp).append(c)
    return {
        "generated": generated or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
        "groups": [{"name": g, **{k: v for k, v in meta.items() if k != "group"},
                    "runs": len(runs)} for g, meta, runs in groups],
        "cells": main,
        "experiments": exp,
        "calibration": calibration(groups, targets or []),
        "calibration_iterations": calibration_iterations(groups),
        "first_plug": first_plug(groups),
        "two_sticks": two_sticks(groups),
    }


def first_plug(groups):
    """Per group: the peak data at risk of vfat-smart's first run in the guest (the stick
    plugged, nothing learned yet: every guest starts with an empty state; the warm-up
    counts) beside the peaks of its later runs of the same workload (learned)."""
    out = []
    # a rerun (NAME@STAMP) takes the place of the group's older runs, as everywhere
    rerun = superseded(None, groups)
    for gname, meta, runs in groups:
        # per stick where a group copied to two ("stick" in its runs)
        sticks = sorted({r.get("stick") for r in runs}, key=str)
        for stick in sticks:
            e = first_plug_of(gname, meta, [r for r in runs if r.get("stick") == stick])
            for x in (e if isinstance(e, list) else [e] if e else []):
                if (gname, x["workload"]) not in rerun:
                    out.append(dict(x, stick=stick) if len(sticks) > 1 else x)
    return out


def first_plug_of(gname, meta, runs):
    vs = sorted((r for r in runs if r.get("setup") == "vfat-smart" and not r.get("yank")
                 and r.get("peak_at_risk_bytes") is not None and r.get("target") != "internal"),
                key=lambda r: r.get("run", 0))
    if any(r.get("first_plug") for r in vs):
        return first_plugs_of(gname, vs)
    if len(vs) < 2 or meta.get("calibration"):
        return None
    first = vs[0]
    later = [r["peak_at_risk_bytes"] for r in vs[1:] if r["workload"] == first["workload"]]
    return {"group": gname, "workload": first["workload"], "kernel": first.get("kernel_series"),
                    "profile": first.get("profile") or first.get("device"), "bw": first.get("bw"),
            "first_warmup": bool(first.get("warmup")),
            "first_peak_at_risk_bytes": first["peak_at_risk_bytes"],
            "learned_peak_at_risk_bytes": later}


def first_plugs_of(gname, vs):
    """Groups with "first_plug": every vfat-smart run is a first plug (the guest drops the
    stick's record and history and plugs it again before each): one entry of their peaks
    per workload, the warm-up left out."""
    firsts = [r for r in vs if r.get("first_plug") and not r.get("warmup")]
    out = []
    for w in dict.fromkeys(r["workload"] for r in firsts):
        rs = [r for r in firsts if r["workload"] == w]
        out.append({"group": gname, "workload": w, "kernel": rs[0].get("kernel_series"),
                    "profile": rs[0].get("profile") or rs[0].get("device"), "bw": rs[0].get("bw"),
                    "first_warmup": False, "first_peak_at_risk_bytes": [r["peak_at_risk_bytes"] for r in rs],
                    "learned_peak_at_risk_bytes": [],
                    "commits": sorted({r.get("commit") for r in rs if r.get("commit")})})
    return out


# two sticks at once: each stick's time to safe with the other's copy running, over its
# own alone, at most this, and its peak at risk within its own cap
TWO_STICKS_MAX_RATIO = 1.05


def busy_share(r):
    busy = (r.get("drive") or {}).get("busy_s")
    return busy / r["safe_s"] if busy is not None and r.get("safe_s") else None


def two_sticks(groups):
    """Per group with "two_sticks" runs, workload and stick: its times to safe alone and
    with the other stick's copy started at the same moment, their ratio of medians, its peak
    at risk in those against the largest cap in force while they ran (max_bytes sampled by the
    guest, cap_bytes_during), and the drive's busy
    share of the time to safe (below CPU_BOUND_BELOW the emulated CPU paced the copy)."""
    out = []
    for gname, meta, runs in groups:
        rs = [r for r in runs if r.get("two_sticks") and not r.get("warmup") and not r.get("yank")]
        for w in dict.fromkeys(r["workload"] for r in rs):
            for stick in sorted({r["stick"] for r in rs if r["workload"] == w}):
                alone = [r for r in rs if (r["workload"], r["stick"], r["two_sticks"]) == (w, stick, "alone")]
                both = [r for r in rs if (r["workload"], r["stick"], r["two_sticks"]) == (w, stick, "both")]
                if not alone or not both:
                    continue
                e = {"group": gname, "kernel": both[0].get("kernel_series"),
                     "profile": both[0].get("profile") or both[0].get("device"), "workload": w, "stick": stick,
                     "setup": both[0]["setup"], "commits": sorted({r.get("commit") for r in rs if r.get("commit")}),
                     "alone_safe_s": [r["safe_s"] for r in alone], "both_safe_s": [r["safe_s"] for r in both],
                     "both_copy_s": [r["copy_s"] for r in both],
                     "both_peak_at_risk_bytes": [r["peak_at_risk_bytes"] for r in both],
                     "alone_peak_at_risk_bytes": [r["peak_at_risk_bytes"] for r in alone],
                     # the largest limit the kernel reported while the copy ran (vfat-smartd
                     # moves the cap as it learns); runs from before the bench sampled it: none
                     "both_cap_bytes": [(r.get("cap_bytes_during") or [None, None])[1] for r in both],
                     "alone_busy_share": [busy_share(r) for r in alone],
                     "both_busy_share": [busy_share(r) for r in both]}
                e["ratio"] = med(e["both_safe_s"]) / med(e["alone_safe_s"])
                e["within_cap"] = (None if None in e["both_cap_bytes"] else
                                   all(peak <= cap for peak, cap in
                                       zip(e["both_peak_at_risk_bytes"], e["both_cap_bytes"])))
                shares = [x for x in e["both_busy_share"] + e["alone_busy_share"] if x is not None]
                e["cpu_bound"] = not shares or min(shares) < CPU_BOUND_BELOW
                out.append(e)
    return out


def two_sticks_verdict(e):
    if e["cpu_bound"]:
        return "CPU-bound"
    if e["ratio"] > TWO_STICKS_MAX_RATIO or e["within_cap"] is False:
        return "MISSED"
    return "met" if e["within_cap"] else "not measured"


def two_sticks_cap_text(e):
    if e["within_cap"] is None:
        return "the cap in force was not recorded (peak at risk %.1f MiB, alone %.1f MiB: medians)" % (
            med(e["both_peak_at_risk_bytes"]) / MIB, med(e["alone_peak_at_risk_bytes"]) / MIB)
    return "peak at risk %s the cap" % ("within" if e["within_cap"] else "ABOVE")


def two_sticks_readme(summary):
    """README's line on two sticks at once, from the summary's two_sticks."""
    ts = summary.get("two_sticks") or []
    if not ts:
        return []
    parts = {}
    for e in ts:
        parts.setdefault((e["profile"], e["kernel"], e["workload"]), []).append(e)
    return ["Two sticks of one model copied to at once, both copies started together (the goal: "
            "each stick at most %.2fx its time to safe alone, within its own cap): %s." % (
                TWO_STICKS_MAX_RATIO, "; ".join(
                    "%s, Linux %s, %s: %s" % (prof, kernel, w, ", ".join(
                        "%.2fx%s%s" % (e["ratio"], " (above its cap)" if e["within_cap"] is False else "",
                                       " (CPU-bound)" if e["cpu_bound"] else "") for e in es))
                    for (prof, kernel, w), es in parts.items())), ""]


def two_sticks_section(summary):
    ts = summary.get("two_sticks") or []
    if not ts:
        return []
    L = ["## Two sticks at once", "",
         "Groups with two sticks of the same profile (the hotplug stick and the lab's cold-plugged "
         "nbd-stick, each on its own simulated drive): per repetition each stick alone, then both copies "
         "started at the same moment, in an order rotated per repetition. A stick's time to safe is its "
         "own copy and unmount; its ratio is the median with the other copy running over the median "
         "alone (at most %.2f), and its peak at risk with the other copy running is held against the "
         "largest cap in force while it ran (the BDI's max_bytes, sampled with the data at risk: vfat-smartd "
         "moves the cap as it learns; runs from before the bench sampled it have none). A stick whose drive was busy less than %d %% of a time to safe is "
         "CPU-bound: the emulated CPU, not the drives, set the pace, and the ratio says nothing of the "
         "product." % (TWO_STICKS_MAX_RATIO, 100 * CPU_BOUND_BELOW), ""]
    for e in ts:
        L.append("- **%s**: %s, %s, stick %s: %.2fx its time to safe alone; %s." % (
            two_sticks_verdict(e), e["group"], e["workload"], e["stick"], e["ratio"], two_sticks_cap_text(e)))
    L += ["", "| group | commit | workload | stick | safe s alone | safe s both | ratio | copy s both | "
          "peak at risk MiB alone | peak at risk MiB both | largest cap in force MiB both | drive busy alone | "
          "drive busy both |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for e in ts:
        L.append("| %s | %s | %s | %s | %s | %s | %.2fx | %s | %s | %s | %s | %s | %s |" % (
            e["group"], ", ".join(c[:7] for c in e["commits"]) or "-", e["workload"], e["stick"],
            fmt_range(e["alone_safe_s"]), fmt_range(e["both_safe_s"]), e["ratio"], fmt_range(e["both_copy_s"]),
            fmt_range(e["alone_peak_at_risk_bytes"], scale=MIB), fmt_range(e["both_peak_at_risk_bytes"], scale=MIB),
            fmt_range([c for c in e["both_cap_bytes"] if c], scale=MIB) if all(e["both_cap_bytes"]) else "not recorded",
            pct_range([x for x in e["alone_busy_share"] if x is not None]),
            pct_range([x for x in e["both_busy_share"] if x is not None])))
    L.append("")
    return L


def first_plug_section(summary):
    fp = summary.get("first_plug") or []
    if not fp:
        return []
    L = ["## First plug: data at risk before anything is learned", "",
         "vfat-smart's first run in each guest (nothing learned about the stick yet; every guest starts "
         "empty) against its later runs of the same workload in the same guest (learned): peak data at "
         "risk, MiB, and in seconds of the profile's nominal bandwidth. Groups run with \"first_plug\" drop the "
         "stick's record and learned history (`vfat-smart forget --history`) and plug it again before every "
         "vfat-smart run: each of those runs is a first plug (goal: at most 2 s).", "",
         "| group | profile | kernel | workload | first plug | learned, median (min-max) |",
         "| --- | --- | --- | --- | --- | --- |"]
    for e in fp:
        bw = e.get("bw") or 0
        first = e["first_peak_at_risk_bytes"]
        if isinstance(first, list):   # a "first_plug" group: every run a first plug
            shown = "%s MiB%s, %d runs" % (fmt_range(first, scale=MIB),
                                           " (%s s)" % fmt_range(first, scale=bw) if bw else "", len(first))
        else:
            shown = "%.1f MiB%s%s" % (first / MIB, " (%.1f s)" % (first / bw) if bw else "",
                                      " (the warm-up)" if e["first_warmup"] else "")
        L.append("| %s | %s | %s | %s | %s | %s MiB |" % (
            e["group"] + (", stick %s" % e["stick"] if e.get("stick") else ""), e["profile"], e["kernel"],
            e["workload"], shown,
            fmt_range(e["learned_peak_at_risk_bytes"], scale=MIB) if e["learned_peak_at_risk_bytes"] else "-"))
    L.append("")
    return L


# a cell whose drive was busy less than this share of the time to safe measured the
# emulated CPU (cp, the kernel under TCG) more than the drive: no goal or headline ratio
CPU_BOUND_BELOW = 0.8


def finish_cell(c):
    """The cell's bookkeeping members: one commit and profile where its runs agree (a list
    where not), the drive's busy share of the time to safe, and whether it is CPU-bound."""
    for key in ("commit", "kernel_release", "profile"):
        vals = c.pop(key + "s", [])
        if vals:
            c[key] = vals[0] if len(vals) == 1 else vals
    busy = [b for b in c.get("busy_s", []) if b is not None]
    safe = c.get("safe_s") or []
    if busy and safe and c.get("reps"):
        share = statistics.median(busy) / statistics.median(safe)
        c["busy_share"] = round(share, 3)
        c["cpu_bound"] = share < CPU_BOUND_BELOW


# ------------------------------------------------------------------------ calibration
def load_targets(path=None):
    path = path or os.path.join(TOP, "bench", "calibration.json")
    if not os.path.isfile(path):
        return []
    with open(path) as f:
        return json.load(f)["targets"]


def cal_setup(config):
    """A calibration run's setup as the RFC names it: the config label without "-busy"."""
    return config[:-5] if config.endswith("-busy") else config


def cal_runs(groups, kind):
    """{(model, workload, vm, setup): [run, ...]} of the calibration groups of KIND; for
    "final", each key's runs come from its newest group only (a rerun replaces a fit)."""
    out = {}
    if kind == "final":
        newest = {}
        for gname, meta, runs in groups:
            if meta.get("calibration") != "final":
                continue
            for r in runs:
                k = (r["device"], r["workload"], r["vm"], cal_setup(r["config"]))
                when = (meta.get("finished") or "", gname)
                if k not in newest or when > newest[k]:
                    newest[k] = when
        for gname, meta, runs in groups:
            for r in runs:
                if r.get("warmup") or r.get("yank") or not r.get("copy_s"):
                    continue
                k = (r["device"], r["workload"], r["vm"], cal_setup(r["config"]))
                if meta.get("calibration") == "final" and newest.get(k, (None, None))[1] == gname:
                    out.setdefault(k, []).append(dict(r, _meta=meta))
        return out
    for gname, meta, runs in groups:
        if not meta.get("calibration") or (meta["calibration"] == "final") != (kind == "final"):
            continue
        for r in runs:
            if r.get("warmup") or r.get("yank") or not r.get("copy_s"):
                continue
            k = (r["device"], r["workload"], r["vm"], cal_setup(r["config"]))
            out.setdefault(k, []).append(dict(r, _meta=meta))
    return out


def run_mb_s(r):
    return round(r["workload_bytes"] / r["copy_s"] / 1e6, 2)


def run_mb_s_from_first_write(r):
    """The rate from the drive's first write to cp's return: without the start of the copy
    in which the guest's cp (TCG: ~50-60 MB/s into the page cache, bare metal GB/s) has not
    yet dirtied enough for the flusher to begin."""
    fw = (r.get("drive") or {}).get("first_write_s")
    if fw is None or fw >= r["copy_s"]:
        return None
    return round(r["workload_bytes"] / (r["copy_s"] - fw) / 1e6, 2)


def run_mb_s_close(r):
    """A big file's close phase: what was still in the page cache (dirty + under writeback)
    when cp's last write() returned, over the time from then to cp's return (close). On
    bare metal cp fills the cache in a few seconds and the copy is nearly all close phase;
    under TCG cp takes 35-55 s to fill it, while the drive idles until the flusher begins."""
    if r.get("workload", "").startswith("files") or not r.get("series"):
        return None
    w = r.get("workload_bytes")
    for p in r["series"]:
        if len(p) > 3 and p[3] is not None and p[3] >= w:
            left, dt = p[1] + p[2], r["copy_s"] - p[0]
            return round(left / dt / 1e6, 2) if dt > 0 and left > 0 else None
    return None


def run_big_share(r):
    return (r.get("data_bios") or {}).get("big_share")


def run_big_count_share(r):
    """The share of data bios >= 768 KiB by count (runs that recorded data_bio_grain)."""
    return (r.get("data_bio_grain") or {}).get("big_count_share")


def run_flusher_share(r):
    """The flusher's share of the data bios' bytes (the rest: cp, its close's writeback)."""
    by = r.get("data_bio_bytes_by_writer") or {}
    total = sum(by.values())
    return round(by.get("flusher", 0) / total, 3) if total else None


def run_cpu_idle_share(r):
    """The share of the guest's CPU time during the copy that was idle or waiting for I/O."""
    c = r.get("cpu_copy") or {}
    if not c.get("cpus") or not r.get("copy_s"):
        return None
    return round((c.get("guest_idle_s", 0) + c.get("guest_iowait_s", 0)) / (c["cpus"] * r["copy_s"]), 3)


def run_bio_avg_kib(r):
    return (r.get("data_bios") or {}).get("avg_request_kib")


def run_turns(r):
    """After close began: (turns between the two writers, median turn KiB, median jump MiB)."""
    a = (r.get("data_bio_grain") or {}).get("after_close")
    return (a["turns"], a["median_turn_kib"], a["median_jump_mib"]) if a else None


def published_mid(t):
    runs = t.get("runs")
    return statistics.median(runs) if runs else (t["published"][0] + t["published"][1]) / 2


PROFILES = os.path.join(TOP, "tests", "lab", "nbd-stick", "profiles")


def profile_name(device, conf):
    """The profile file whose keys are CONF (what a run recorded): DEVICE itself, or the named
    variant an older fit was kept as (e.g. pny32g-v1); DEVICE + " (changed since)" if none."""
    if not conf:
        return device
    names = [device] + sorted(n[:-5] for n in os.listdir(PROFILES)
                              if n.endswith(".conf") and n.startswith(device + "-")) if os.path.isdir(PROFILES) else []
    for n in names:
        if read_profile(n) == conf:
            return n
    return device + " (changed since)"


def read_profile(name):
    """The keys of tests/lab/nbd-stick/profiles/NAME.conf as strings; None without the file."""
    path = os.path.join(PROFILES, name + ".conf")
    if not os.path.isfile(path):
        return None
    p = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                p[k] = v
    return p


def calibration(groups, targets):
    """summary.json's "calibration": per published number, the final calibration groups'
    runs of the same model, workload, writeback settings and setup on 7.2."""
    have = cal_runs(groups, "final")
    out = []
    by_key = {}
    for t in targets:
        rs = have.get((t["model"], t["workload"], t["vm"], t["setup"]), [])
        mb = [run_mb_s(r) for r in rs]
        mbf = [x for x in (run_mb_s_from_first_write(r) for r in rs) if x is not None]
        mbc = [x for x in (run_mb_s_close(r) for r in rs) if x is not None]
        big = [run_big_share(r) for r in rs]
        busy = [((r.get("drive") or {}).get("busy_s")) for r in rs]
        e = {"model": t["model"], "kernel": "7.2", "workload": t["label"],
             "workload_name": t["workload"], "vm": t["vm"], "setup": t["setup"],
             "mb_s": mb, "mb_s_from_first_write": mbf, "mb_s_close_phase": mbc,
             "big_bio_share": big, "published": t["published"],
             "big_bio_count_share": [run_big_count_share(r) for r in rs],
             "flusher_share": [run_flusher_share(r) for r in rs],
             "bio_avg_kib": [run_bio_avg_kib(r) for r in rs],
             "cpu_idle_share": [run_cpu_idle_share(r) for r in rs],
             "merges": [((r.get("drive") or {}).get("merges")) for r in rs],
             "published_runs": t.get("runs"), "published_big_bio_share": t.get("big_bio_share"),
             "reps": len(rs), "busy_s": busy,
             "profiles": sorted({profile_name(r["device"], r["_meta"].get("profile_conf")) for r in rs}),
             "groups": sorted({r["group"] for r in rs}),
             "host_load": {g: hl for g, hl in sorted({r["group"]: r["_meta"].get("host_load") for r in rs}.items())},
             "commit": sorted({r["_meta"].get("commit") or r.get("commit") or "?" for r in rs}),
             "kernel_release": sorted({r.get("kernel") for r in rs if r.get("kernel")})}
        if mb:
            m = statistics.median(mb)
            lo, hi = t["published"]
            e["median_mb_s"] = round(m, 2)
            # inside at the published precision (one decimal for the big file, two for the files)
            digits = 2 if t["workload"].startswith("files") else 1
            e["inside"] = lo <= round(m, digits) <= hi
            if mbf:
                e["median_mb_s_from_first_write"] = round(statistics.median(mbf), 2)
                e["inside_from_first_write"] = lo <= round(statistics.median(mbf), digits) <= hi
            if mbc:
                e["median_mb_s_close_phase"] = round(statistics.median(mbc), 2)
                e["inside_close_phase"] = lo <= round(statistics.median(mbc), digits) <= hi
            safe = [r["safe_s"] for r in rs]
            bb = [b for b in busy if b is not None]
            if bb:
                share = statistics.median(bb) / statistics.median([r["copy_s"] for r in rs])
                e["busy_share_of_copy"] = round(share, 3)
                e["cpu_bound"] = statistics.median(bb) / statistics.median(safe) < CPU_BOUND_BELOW
        out.append(e)
        by_key[(t["model"], t["workload"], t["vm"], t["setup"])] = (e, t)
    # the before/after ratio (patched-wait1 over flush), model against published
    for (model, w, vm, setup), (e, t) in by_key.items():
        if setup != "patched-wait1" or (model, w, vm, "flush") not in by_key:
            continue
        fe, ft = by_key[(model, w, vm, "flush")]
        pub = published_mid(t) / published_mid(ft)
        for x in (e, fe):
            x["ratio_published"] = round(pub, 3)
        if e.get("median_mb_s") and fe.get("median_mb_s"):
            mod = e["median_mb_s"] / fe["median_mb_s"]
            for x in (e, fe):
                x["ratio_model"] = round(mod, 3)
                x["ratio_within_10pct"] = abs(mod / pub - 1) <= 0.10
        if e.get("median_mb_s_close_phase") and fe.get("median_mb_s_close_phase"):
            mod = e["median_mb_s_close_phase"] / fe["median_mb_s_close_phase"]
            for x in (e, fe):
                x["ratio_model_close_phase"] = round(mod, 3)
                x["ratio_within_10pct_close_phase"] = abs(mod / pub - 1) <= 0.10
        if e.get("median_mb_s_from_first_write") and fe.get("median_mb_s_from_first_write"):
            mod = e["median_mb_s_from_first_write"] / fe["median_mb_s_from_first_write"]
            for x in (e, fe):
                x["ratio_model_from_first_write"] = round(mod, 3)
                x["ratio_within_10pct_from_first_write"] = abs(mod / pub - 1) <= 0.10
    for e in out:
        if not e["mb_s"]:
            e["verdict"] = "not measured"
        elif e.get("inside"):
            e["verdict"] = "reproduced (median inside)"
        elif e.get("ratio_within_10pct"):
            e["verdict"] = "reproduced (ratio within 10 %)"
        elif e.get("inside_from_first_write"):
            e["verdict"] = "from the first write only (median inside)"
        elif e.get("ratio_within_10pct_from_first_write"):
            e["verdict"] = "from the first write only (ratio within 10 %)"
        elif e.get("inside_close_phase"):
            e["verdict"] = "close phase only (median inside)"
        elif e.get("ratio_within_10pct_close_phase"):
            e["verdict"] = "close phase only (ratio within 10 %)"
        else:
            e["verdict"] = "NOT reproduced"
    return out


def calibration_iterations(groups):
    """The fit's history: each iteration group's medians with its profile's parameters."""
    out = []
    for gname, meta, runs in groups:
        if not meta.get("calibration") or meta.get("calibration") == "final":
            continue
        cells = {}
        for r in runs:
            if r.get("warmup") or r.get("yank") or not r.get("copy_s"):
                continue
            cells.setdefault((r["workload"], r["vm"], r["config"]), []).append(r)
        out.append({"group": gname, "commit": meta.get("commit"), "profile": (runs or [{}])[0].get("device"),
                    "host_load": meta.get("host_load"),
                    "fragment_mib": meta.get("fragment_mib"),
                    "params": {k: v for k, v in (meta.get("profile_conf") or {}).items()
                               if k in ("bw", "cmd_ms", "seek_ms", "small_bytes", "small_ms", "au_bytes",
                                        "open_aus", "random_bytes", "random_small_bytes", "gc_ms", "gc_bw")},
                    "cells": [{"workload": w, "vm": vm, "config": c,
                               "mb_s": [run_mb_s(r) for r in rs],
                               "big_bio_share": [run_big_share(r) for r in rs],
                               "big_bio_count_share": [run_big_count_share(r) for r in rs],
                               "flusher_share": [run_flusher_share(r) for r in rs],
                               "bio_avg_kib": [run_bio_avg_kib(r) for r in rs],
                               "turns": [run_turns(r) for r in rs],
                               "merges": [((r.get("drive") or {}).get("merges")) for r in rs]}
                              for (w, vm, c), rs in cells.items()]})
    return out


def pct_range(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return "%.0f %% (%.0f-%.0f)" % (100 * statistics.median(xs), 100 * min(xs), 100 * max(xs))


def num_range(xs, fmt="%.1f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return (fmt + "-" + fmt) % (min(xs), max(xs)) if min(xs) != max(xs) else fmt % xs[0]


def race_paragraph(cal, its):
    """What the race between close and the flusher looks like in the lab, from the runs:
    who wrote the data, how big the bios were, and (runs with data_bio_grain) how the two
    writers took turns."""
    L = []
    rows = [e for e in cal if e["model"] == "pny32g" and e["workload_name"] == "big3g" and e["mb_s"]]
    if not rows:
        return L
    L.append("The race in the lab, from the same runs (pny32g, 3 GiB file; the data bios' writers "
             "from the block trace: the copier is `cp`, its close's writeback included, the flusher "
             "a kworker):")
    L.append("")
    for e in rows:
        L.append("- %s, %s: the flusher wrote %s of the data, the copier the rest; data bios %s KiB "
                 "on average, %s of the bytes in bios >= 768 KiB%s; drive-model merges: %s; the "
                 "guest's CPUs idle or waiting for I/O %s of the copy." % (
                     e["setup"], e["workload"] + (", busy flusher" if e["vm"] == "rfc-busy" else ""),
                     pct_range(e.get("flusher_share") or []),
                     num_range(e.get("bio_avg_kib") or [], "%.0f"), pct_range(e["big_bio_share"]),
                     (", %s of the bios" % pct_range(e["big_bio_count_share"]))
                     if any(x is not None for x in e.get("big_bio_count_share") or []) else "",
                     num_range(e.get("merges") or [], "%d"), pct_range(e.get("cpu_idle_share") or [])))
    for g in its:
        for c in g["cells"]:
            tr = [t for t in c.get("turns") or [] if t]
            if not tr:
                continue
            L.append("- %s (%s%s), %s: the flusher wrote %s of the data; bios %s KiB on average, %s of "
                     "the bytes and %s of the bios >= 768 KiB; after close %s turns between the writers, "
                     "a turn %s KiB (median), the next writer starting %s MiB from where the other "
                     "stopped (median)." % (
                         g["group"], c["workload"],
                         ", page cache fragmented" if g.get("fragment_mib") else "", c["config"],
                         pct_range(c.get("flusher_share") or []),
                         num_range(c.get("bio_avg_kib") or [], "%.0f"),
                         pct_range(c["big_bio_share"]), pct_range(c.get("big_bio_count_share") or []),
                         num_range([t[0] for t in tr], "%d"), num_range([t[1] for t in tr], "%.0f"),
                         num_range([t[2] for t in tr], "%.1f")))
    L.append("")
    L.append(RACE_WHY)
    frag = [g["group"] for g in its if g.get("fragment_mib")]
    L.append("")
    L.append("A scattered page cache (the guest's free memory left as single 4 KiB pages before the "
             "copy, so that a bio segment holds one page) tests the contiguity: %s." % (
                 "iteration group%s %s, in the table below" % ("s" if len(frag) > 1 else "", ", ".join(frag))
                 if frag else "the iteration group cal-race-frag-pny (bench/matrix.json) does it on "
                 "Linux 7.2; it has not run yet"))
    L.append("")
    return L


RACE_WHY = (
    "Why the race does not fragment the bios here. The race is there: with `flush` close's "
    "writeback and the flusher both write the file after close, and the PNY model merges at "
    "their turns, which is the slowdown the calibration reproduces. What is missing is its "
    "grain. Bio sizes are decided in the guest, before the drive model sees a request, so no "
    "drive parameter (merges, bandwidth, jump cost) can change them; the model only sets how "
    "long each request takes. Each writer builds a bio from consecutive dirty pages until the "
    "next page is gone (taken by the other writer) or the bio is full; the block layer then "
    "splits it into requests of at most 1 MiB (usb-storage's limit at SuperSpeed), which is "
    "what the drive sees. In a freshly booted guest the page cache is physically contiguous, "
    "consecutive pages share one bio segment and a bio holds several MiB. The guest's CPUs are "
    "idle or waiting for I/O most of the copy (above): each writer spends most of the race "
    "asleep, waiting for a request slot of the one-command usb-storage queue, while the other "
    "builds its next bio alone (the likely reason; the pages were not traced one by one), so the "
    "two writers take turns in two parts of the file, each turn a big bio, and the drive sees "
    "1 MiB requests alternating between them. The RFC's 4-16 % (its share is of bios; the table's first figure "
    "is of bytes, since the share by count is only recorded from the runs with the writers' "
    "turns on) says that on bare metal the two writers walk the same pages at the same moment, "
    "each taking a few before finding the next one gone. The timing of close against the "
    "flusher is not the difference: in the lab close comes 35-55 s into the copy instead of a "
    "few seconds, but in both the flusher is mid-file then and most of the file is left.")


def fmt_host_load(hl):
    if not hl:
        return "not recorded"
    return "1-minute load %.2f median, %.2f at most over %d samples (%s to %s; the host has %s CPUs)" % (
        hl["load1_median"], hl["load1_max"], hl["samples"], hl["start_utc"][11:16],
        hl["end_utc"][11:16], hl.get("host_cpus") or "?")


def host_load_lines(cal, its):
    """The host's load while each calibration group's guest ran (bench/run's host-load.tsv):
    the lab guest's emulation runs on the host's CPUs, so a load above their number means
    something else shared them (a build, another guest)."""
    seen = {}
    for e in cal:
        for g, hl in (e.get("host_load") or {}).items():
            seen[g] = hl
    for g in its:
        seen[g["group"]] = g.get("host_load")
    if not seen:
        return []
    L = ["The host's load while each calibration group's guest ran (`host-load.tsv` beside its raw "
         "results; the guest's emulation runs on the host's CPUs, so a load above their number means "
         "something else shared them; groups from before the bench recorded it say so):", ""]
    for g in sorted(seen):
        L.append("- %s: %s" % (g, fmt_host_load(seen[g])))
    L.append("")
    return L


def calibration_section(summary):
    L = ["## Calibration: the stick models against the RFC's real sticks (Linux 7.2)", ""]
    cal = summary.get("calibration") or []
    if not cal:
        return []
    bad = [e for e in cal if not e["verdict"].startswith("reproduced")]
    L.append("The published numbers (bare metal, Linux 7.2.12, `bench/calibration.json`) against the "
             "lab's models on Linux 7.2 (QEMU TCG): MB/s = the copy's size / cp's time including "
             "close, as the RFC measured. A number is reproduced when the model's median lies in "
             "the published range, or the model's patched/stock ratio is within 10 %% of the "
             "published one. Two more columns, neither of them the RFC's measure: the MB/s from the "
             "drive's first write, and for the big file the close phase (what was still in the page "
             "cache when cp's last write() returned, over the time from then to close's return): "
             "under TCG cp needs 35-55 s to fill the page cache (bare metal: seconds) and the drive "
             "idles until the flusher begins, so a copy in the lab has a start that a copy on bare "
             "metal nearly lacks, the same for both setups, which pulls their ratio towards 1. "
             "%d of %d reproduced%s." % (
                 len(cal) - len(bad), len(cal),
                 "; not: " + "; ".join("%s %s %s %s (%s)" % (e["model"], e["workload"], e["setup"],
                                                             "" if not e.get("median_mb_s") else "%.2f MB/s" % e["median_mb_s"],
                                                             e["verdict"]) for e in bad) if bad else ""))
    L.append("")
    L.append("| model | workload | setup | reps | model MB/s median (min-max) | from the drive's first write | close phase | published MB/s | "
             "big data bios, model | published | ratio patched/stock model / published | drive busy of the copy | verdict | profile | commit |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for e in cal:
        mb = e["mb_s"]
        big = [b for b in e["big_bio_share"] if b is not None]
        bigc = [b for b in e.get("big_bio_count_share") or [] if b is not None]
        pb = e.get("published_big_bio_share")
        mbf = e.get("mb_s_from_first_write") or []
        mbc = e.get("mb_s_close_phase") or []
        L.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            e["model"], e["workload"], e["setup"], e["reps"],
            "%.2f (%.2f-%.2f)" % (statistics.median(mb), min(mb), max(mb)) if mb else "-",
            "%.2f (%.2f-%.2f)" % (statistics.median(mbf), min(mbf), max(mbf)) if mbf else "-",
            "%.2f (%.2f-%.2f)" % (statistics.median(mbc), min(mbc), max(mbc)) if mbc else "-",
            "%g-%g" % tuple(e["published"]) if e["published"][0] != e["published"][1] else "%g" % e["published"][0],
            pct_range(big) + (" of bytes, %s of bios" % pct_range(bigc) if bigc else "") if big else "-",
            "%.0f-%.0f %%" % (100 * pb[0], 100 * pb[1]) if pb else "-",
            ("%.2f / %.2f" % (e["ratio_model"], e["ratio_published"]) if e.get("ratio_model") else "-") +
            (" (%.2f from the first write" % e["ratio_model_from_first_write"] if e.get("ratio_model_from_first_write") else "") +
            ("%s%.2f close phase" % (", " if e.get("ratio_model_from_first_write") else " (", e["ratio_model_close_phase"])
             if e.get("ratio_model_close_phase") else "") +
            (")" if e.get("ratio_model_from_first_write") or e.get("ratio_model_close_phase") else ""),
            "%.0f %%%s" % (100 * e["busy_share_of_copy"], " (CPU-bound)" if e.get("cpu_bound") else "") if e.get("busy_share_of_copy") is not None else "-",
            e["verdict"], ", ".join(e.get("profiles") or []) or "-", ", ".join(c[:10] for c in e["commit"]) or "-"))
    L.append("")
    L += host_load_lines(cal, summary.get("calibration_iterations") or [])
    L += race_paragraph(cal, summary.get("calibration_iterations") or [])
    its = summary.get("calibration_iterations") or []
    if its:
        L.append("The fit's iterations (shorter runs; each group's profile parameters and medians):")
        L.append("")
        L.append("| group | profile | parameters | workload, vm, setup: MB/s median, big bios (of bytes; of bios where recorded), merges |")
        L.append("| --- | --- | --- | --- |")
        for g in its:
            parts = []
            for c in g["cells"]:
                big = [b for b in c["big_bio_share"] if b is not None]
                bigc = [b for b in c.get("big_bio_count_share") or [] if b is not None]
                mg = [m for m in c["merges"] if m is not None]
                parts.append("%s, %s, %s: %.2f MB/s, %s big%s, %s merges" % (
                    c["workload"], c["vm"], c["config"], statistics.median(c["mb_s"]),
                    "%.0f %%" % (100 * statistics.median(big)) if big else "-",
                    " (%.0f %% of bios)" % (100 * statistics.median(bigc)) if bigc else "",
                    "%d" % statistics.median(mg) if mg else "-"))
            params = " ".join("%s=%s" % kv for kv in sorted(g["params"].items()))
            if g.get("fragment_mib"):
                params += "; guest memory fragmented (frag %d MiB)" % g["fragment_mib"]
            L.append("| %s | %s | %s | %s |" % (g["group"], g["profile"], params, "; ".join(parts)))
        L.append("")
    return L


def cp_cpu_share(r):
    """The share of its copy that cp spent on a CPU (user + system), or None for runs
    before the bench recorded it (cpu_copy)."""
    cpu = r.get("cpu_copy") or {}
    if "cp_sys_s" not in cpu or not r.get("copy_s"):
        return None
    return round((cpu["cp_user_s"] + cpu["cp_sys_s"]) / r["copy_s"], 3)


def cpu_bound_note(compared, at_least=0.9):
    """' (...)' when cp was on the CPU for >= AT_LEAST of its copy in every repetition of
    every cell in COMPARED (the setups a goal compares): the emulated CPU, not the drive,
    set the pace there, and their difference is the CPU's. '' otherwise or when not
    recorded."""
    shares = [x for o in compared if o and o["reps"] for x in o.get("cp_cpu_share", [])]
    if not shares or None in shares or min(shares) < at_least:
        return ""
    return (" (cp was on the CPU for %.0f-%.0f %% of its copy in every run of the setups compared: "
            "the emulated CPU set the pace, not the drive)" % (min(shares) * 100, max(shares) * 100))


def add_internal(c, r):
    """The members of an internal-disk cell (issue 14) from one of its runs."""
    if "target" not in c:
        c.update({"target": "internal", "stick": r.get("stick"), "stick_bandwidth_bytes_s": r.get("stick_bw"),
                  "allow_global_knobs": r.get("allow_global_knobs"), "stick_mounted": r.get("stick_mounted"),
                  "sync_s": [], "peak_dirty_bytes": [], "peak_global_dirty_bytes": [],
                  "vm_dirty_bytes": [], "vm_dirty_background_bytes": [], "vm_dirty_ratio": [],
                  "vm_restored": [], "vm_restore_at": [], "internal_written_bytes": []})
    if r.get("warmup"):
        return
    vm = r.get("vm_in_force") or {}
    c["sync_s"].append(r.get("sync_s"))
    c["peak_dirty_bytes"].append(r.get("peak_dirty_bytes"))
    c["peak_global_dirty_bytes"].append(r.get("peak_global_dirty_bytes"))
    c["vm_dirty_bytes"].append(vm.get("dirty_bytes"))
    c["vm_dirty_background_bytes"].append(vm.get("dirty_background_bytes"))
    c["vm_dirty_ratio"].append(vm.get("dirty_ratio"))
    c["vm_restored"].append(r.get("vm_restored"))
    c["vm_restore_at"].append((r.get("vm_restore") or {}).get("at"))
    c["internal_written_bytes"].append(r.get("internal_written_bytes"))


def is_internal(c):
    return c.get("target") == "internal"


# ----------------------------------------------------------------------- statistics
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_range(xs, scale=1.0, digits=1):
    """'median (min-max)' or the single value; '-' when empty."""
    xs = [x / scale for x in xs if x is not None]
    if not xs:
        return "-"
    f = "%%.%df" % digits
    m = f % statistics.median(xs)
    if len(xs) == 1:
        return m
    return "%s (%s-%s)" % (m, f % min(xs), f % max(xs))


def baseline_of(cells, c, setup=BASELINE):
    for o in cells:
        if (o["group"], o["workload"], o["setup"]) == (c["group"], c["workload"], setup) and o["reps"]:
            return o
    return None


def ratio(c, base, key="safe_s"):
    if base is None or not c[key] or not base[key]:
        return None
    b = med(base[key])
    return med(c[key]) / b if b else None


def worst_yank(c):
    """The yank run with the largest loss (or None)."""
    return max(c["yank"], key=lambda y: y["lost_bytes"]) if c["yank"] else None


# ---------------------------------------------------------------------------- goals
def cpu_bound_of(compared):
    """'CPU-bound: ...' naming the cells among COMPARED whose drive was busy less than
    80 % of the time to safe (the emulated CPU set the pace: no goal or headline ratio on
    them), or '' when none is."""
    bound = [c for c in compared if c and c.get("cpu_bound")]
    if not bound:
        return ""
    return "CPU-bound: the drive was busy %s of the time to safe" % ", ".join(
        "%.0f %% (%s)" % (100 * c["busy_share"], c["setup"]) for c in bound)


def goals(summary):
    """[(status, text)] with status 'met', 'MISSED', 'not measured' or 'CPU-bound' (a
    goal on a time ratio whose cells the emulated CPU, not the drive, paced)."""
    # issue 11's goals: the drive's own, each from its newest rerun
    cells = [c for c in summary["cells"] if not is_internal(c) and not c.get("superseded_by")]
    out = []

    def find(**kw):
        return [c for c in cells if all(c.get(k) == v for k, v in kw.items()) and (c["reps"] or c["yank"])]

    big = [c for c in find(device="cheap-stick", kernel="6.12", vm="defaults", setup="vfat-smart")
           if c["workload"].startswith("big")]
    if not big:
        out.append(("not measured", "Cheap stick, one big file: time to safe <= 1.04x no flush, yank loss <= 2.5 s of bandwidth."))
    for c in big:
        nf = baseline_of(cells, c, "no-flush")
        r = ratio(c, nf)
        if r is None:
            out.append(("not measured", "Cheap stick, %s: no no-flush reference in group %s." % (c["workload"], c["group"])))
        else:
            cb = cpu_bound_of([c, nf])
            out.append(("CPU-bound" if cb else "met" if r <= 1.04 else "MISSED",
                        "Cheap stick, %s (%s): vfat-smart is safe after %.2fx the no-flush time (goal <= 1.04x): %s s against %s s%s."
                        % (c["workload"], c["group"], r, fmt_range(c["safe_s"]), fmt_range(nf["safe_s"]),
                           " (%s)" % cb if cb else "")))
        out.append(yank_goal(c))
    race = [c for c in find(setup="vfat-smart") if c["vm"] in RACE_VMS and c["workload"].startswith("big")]
    fitted = fitted_models(summary)
    for c in race:
        ud = baseline_of(cells, c)
        r = ratio(c, ud)
        if r is not None:
            st, text = faster_than_flush_goal("Race setup", c, ud, r, RACE_MAX_RATIO, cells)
            # judged on the models fitted to a real stick: a guessed one need not have the race's cost
            out.append((st, text) if c.get("profile") in fitted or st == "CPU-bound" else
                       ("not fitted", text[:-1] + " (a drive model not fitted to a real stick: shown, not judged)."))
    for c in find(setup="vfat-smart", workload="big3g", vm="rfc-default"):
        if c.get("profile") in FLUSH_COST_MODELS:
            ud = baseline_of(cells, c)
            r = ratio(c, ud)
            if r is not None:
                out.append(faster_than_flush_goal("The RFC's 3 GiB file", c, ud, r, 1 / BIG3G_MIN_SPEEDUP, cells))
    small = [c for c in find(device="cheap-stick", kernel="6.12", vm="defaults", setup="vfat-smart")
             if c["workload"].startswith("small")]  # 1000 x 64 KiB; the photo tree is not "small files"
    if not small:
        out.append(("not measured", "Small files: >= 8x faster to safe than udisks' default."))
    for c in small:
        ud = baseline_of(cells, c)
        r = ratio(c, ud)
        if r is None:
            out.append(("not measured", "Small files %s (%s): no udisks-default reference." % (c["workload"], c["group"])))
            continue
        cb = cpu_bound_of([c, ud])
        out.append(("CPU-bound" if cb else "met" if 1 / r >= 8 else "MISSED",
                    "Small files, cheap stick, %s (%s): vfat-smart %.1fx faster to safe than udisks' default (goal >= 8x)%s."
                    % (c["workload"], c["group"], 1 / r, " (%s)" % cb if cb else "")))
        if c["yank"]:
            out.append(yank_goal(c))
    # the bound holds for every drive: yanks elsewhere (the jump sweep's sticks) too
    for c in cells:
        if c["setup"] == "vfat-smart" and c["yank"] and c not in big and c not in small:
            out.append(yank_goal(c))
    slower = []
    n = bound = 0
    for c in cells:
        if c["setup"] != "vfat-smart" or not c["reps"]:
            continue
        base = baseline_of(cells, c)
        r = ratio(c, base)
        if r is None:
            continue
        if cpu_bound_of([c, base]):
            bound += 1
            continue
        n += 1
        if r > 1.03:
            slower.append("%s %s %.2fx%s" % (c["group"], c["workload"], r, cpu_bound_note([c, base])))
    if n:
        out.append(("MISSED" if slower else "met",
                    "No cell more than 3 %% slower to safe than udisks' default: %d cells compared (%d more "
                    "left out as CPU-bound)%s." % (n, bound, "; slower: " + ", ".join(slower) if slower else "")))
    for dev in ("uas-ssd", "uas-hdd"):
        cs = [c for c in cells if c["device"] == dev and c["setup"] == "vfat-smart" and c["reps"]]
        if not cs:
            out.append(("not measured", "%s within 3 %% of the fastest setup." % dev))
        for c in cs:
            others = [o for o in cells if (o["group"], o["workload"]) == (c["group"], c["workload"]) and o["reps"]]
            fastest = min(others, key=lambda o: med(o["safe_s"]))
            r = med(c["safe_s"]) / med(fastest["safe_s"])
            cb = cpu_bound_of([c, fastest] if fastest is not c else [c])
            out.append(("CPU-bound" if cb else "met" if r <= 1.03 else "MISSED",
                        "%s, %s (%s%s): vfat-smart %.2fx the fastest setup (goal <= 1.03x)%s%s." % (
                            dev, c["workload"], c["group"], ", " + c["fs"] if c.get("fs", "vfat") != "vfat" else "", r,
                            cpu_bound_note([c, fastest]) if r > 1.03 else "", " (%s)" % cb if cb else "")))
    out += device_time_goals(summary)
    for e in summary.get("first_plug") or []:
        first, bw = e["first_peak_at_risk_bytes"], e.get("bw")
        if not isinstance(first, list) or not bw or not first:
            continue
        worst = max(first) / bw
        out.append(("met" if worst <= FIRST_PLUG_MAX_S else "MISSED",
                    "First plug, %s, %s, Linux %s (%s): peak at risk %s MiB, at most %.2f s of the profile's "
                    "bandwidth in %d first plugs (goal <= %g s)." % (
                        e["profile"], e["workload"], e["kernel"], e["group"], fmt_range(first, scale=MIB), worst,
                        len(first), FIRST_PLUG_MAX_S)))
    return out


def device_time_goals(summary):
    """[(status, text)]: on each headline cell of a drive model fitted to a real drive, the
    drive's busy time to safe and the time to safe at most DEVICE_TIME_MAX x no flush's in
    the same group (a CPU-bound cell: shown, not judged)."""
    out = []
    for c, _, nf in headline_rows(summary, fitted=True):
        rb, rw = ratio(c, nf, "busy_s"), ratio(c, nf)
        if rb is None:
            continue
        # a cell the emulated CPU paced is no drive measurement: its ratios are shown, not judged
        cb = cpu_bound_of([c, nf])
        ok = rb <= DEVICE_TIME_MAX and rw <= DEVICE_TIME_MAX
        out.append(("CPU-bound" if cb else "met" if ok else "MISSED",
                    "Device time, %s, %s%s, Linux %s (%s): the drive busy %.2fx no flush's (%s s against %s s), "
                    "time to safe %.2fx (goal <= %.2fx each)%s." % (
                        c["device"], c["workload"], ", " + c["fs"] if c.get("fs", "vfat") != "vfat" else "",
                        c["kernel"], c["group"], rb, fmt_range(c["busy_s"]), fmt_range(nf["busy_s"]),
                        rw, DEVICE_TIME_MAX, " (%s)" % cb if cb else "")))
    return out


def faster_than_flush_goal(name, c, ud, r, most, cells):
    """(status, text): vfat-smart's time to safe at most MOST x udisks' default's in C's group
    (R), with the reason a miss can have: flush costs little there, so matching no flush
    cannot meet it."""
    rn = ratio(ud, baseline_of(cells, c, "no-flush"))
    why = (" (udisks' default is %.2fx no flush in this group: matching no flush gives %.2fx)"
           % (rn, 1 / rn) if r > most and rn else "")
    cb = cpu_bound_of([c, ud])
    return ("CPU-bound" if cb else "met" if r <= most else "MISSED",
            "%s, %s, %s (%s): vfat-smart %.2fx udisks' default to safe (goal <= %.2fx)%s%s."
            % (name, DEVICE_NAMES.get(c["device"], c["device"]), c["workload"], c["group"], r, most, why,
               " (%s)" % cb if cb else ""))


# the race setup: the flusher kept busy and the guest's page cache scattered (the race
# groups of bench/matrix.json); vfat-smart at most this much of udisks' default's time to safe
RACE_MAX_RATIO = 0.85
RACE_VMS = ("race", "rfc-busy", "rfc-busy-1g")
# the RFC's 3 GiB file with its default writeback on a model of a stick whose flush cost
# 8-55 % there: vfat-smart at least this much faster to safe than udisks' default
BIG3G_MIN_SPEEDUP = 1.25
FLUSH_COST_MODELS = ("pny32g",)
# the goals' names of the drive models that have one
DEVICE_NAMES = {"cheap-stick": "cheap stick"}

# vfat-smart's drive time (busy) and, where the drive paced the copy, time to safe against
# no flush on the drive models fitted to a real drive
DEVICE_TIME_MAX = 1.03

# a stick's first plug (nothing learned): its peak at risk at most this many seconds of its
# bandwidth
FIRST_PLUG_MAX_S = 2.0


def yank_goal(c):
    if not c["yank"]:
        return ("not measured", "%s %s: no yank runs." % (c["group"], c["workload"]))
    w = worst_yank(c)
    pts = ", ".join("%s %.1f MiB = %.2f s%s" % (y["point"], y["lost_bytes"] / MIB, y["lost_device_s"], window_note(y, c))
                    for y in c["yank"])
    status = "met" if w["lost_device_s"] <= 2.5 else "MISSED"
    bw = c.get("device_bandwidth_bytes_s")
    if status == "met" and any(y.get("window") for y in c["yank"]):
        # a flagged point's loss is known only from below
        least = max(y["lost_at_least_bytes"] / bw for y in c["yank"] if y.get("window")) if bw else 0
        status = "MISSED" if least > 2.5 else "not measured"
    return (status, "Yank loss, %s %s %s (goal <= 2.5 s of the drive's bandwidth at every point): %s."
            % (c["group"], c["workload"], c["setup"], pts))


def window_note(y, c):
    """' (...)' for a yank the old analysis judged by another run's writes, or by none."""
    if not y.get("window"):
        return ""
    why = "judged by another run's writes" if y["window"] == "another run" else "not checked against the drive's log"
    bw = c.get("device_bandwidth_bytes_s")
    least = y["lost_at_least_bytes"]
    return " (%s: at least %.1f MiB%s)" % (why, least / MIB, " = %.2f s" % (least / bw) if bw else "")


# -------------------------------------------------------------------------- headline
# the models fitted to the RFC's real sticks first (bench/calibration.json), then the others
HEADLINE_DEVICES = ("pny32g", "samsung64g", "cheap-stick", "hs-stick", "decent-stick", "uas-ssd", "uas-hdd",
                    "cheap-stick-j2", "cheap-stick-j50")
HEADLINE_START = "<!-- bench headline: written by bench/run from bench/summary.json; do not edit -->"
HEADLINE_END = "<!-- end of the bench headline -->"


def fitted_models(summary):
    """The drive models fitted to a real drive's published numbers (the calibration's)."""
    return {c.get("model") for c in summary.get("calibration", [])}


def headline_rows(summary, fitted=True):
    """The newest vfat-smart cell of every drive, workload and file system on 6.12 with the
    distribution's page-cache defaults (superseded cells left out; of two, the later
    group), with its group's references: of the drive models fitted to a real drive
    (the headline), or with fitted=False of the others."""
    cells = [c for c in summary["cells"] if not is_internal(c) and not c.get("superseded_by")]
    models = fitted_models(summary)
    newest = {}
    for c in cells:
        # a headline cell has at least 3 repetitions (smokes of one stay in their section)
        if c["setup"] == "vfat-smart" and c["kernel"] == "6.12" and c["vm"] == "defaults" and c["reps"] >= 3 \
                and (c["device"] in models) == fitted:
            newest[(c["device"], c["workload"], c["fs"])] = c     # cells are in run order

    def order(k):
        dev, w, fs = k
        return (HEADLINE_DEVICES.index(dev) if dev in HEADLINE_DEVICES else 99,
                fs != "vfat", ("big1g", "small1000x64k", "photos200x3m").index(w)
                if w in ("big1g", "small1000x64k", "photos200x3m") else 9, w)
    return [(newest[k], baseline_of(cells, newest[k]), baseline_of(cells, newest[k], "no-flush"))
            for k in sorted(newest, key=order)]


def headline_table(summary, fitted=True):
    """The headline as markdown lines: RESULTS.md's and docs/benchmark.md's (between markers);
    with fitted=False the same table of the drive models not fitted to a real drive."""
    L = ["| drive | workload | safe s: vfat-smart | udisks' default | no flush | vs udisks' default "
         "| vs no flush | peak at risk MiB: vfat-smart / udisks' default | worst pull, s of the drive's "
         "bandwidth | a pull when cp returns, s of the copy lost: vfat-smart / udisks' default | group |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c, ud, nf in headline_rows(summary, fitted):
        w = worst_yank(c)
        pull = "-"
        if w:
            pull = "%.2f" % w["lost_device_s"]
            if any(y.get("window") for y in c["yank"]):
                pull += " (a pull judged by another run's writes)"
        r, rn = ratio(c, ud), ratio(c, nf)

        def shown(x, base):
            # no ratio on a cell the emulated CPU paced
            if x is None:
                return "-"
            return "CPU-bound" if cpu_bound_of([c, base]) else "%.2fx" % x
        def at_return(x):
            ps = [p["progress_lost_s"] for p in (x or {}).get("pulls", []) if p["point"] == "return"]
            return "%.1f" % med(ps) if ps else "-"
        ret = "-" if not c.get("pulls") else "%s / %s" % (at_return(c), at_return(ud))
        L.append("| %s | %s%s | %s | %s | %s | %s | %s | %s / %s | %s | %s | `%s` |" % (
            c["device"], c["workload"], ", " + c["fs"] if c["fs"] != "vfat" else "",
            fmt_range(c["safe_s"]), fmt_range(ud["safe_s"]) if ud else "-",
            fmt_range(nf["safe_s"]) if nf else "-",
            shown(r, ud), shown(rn, nf),
            "%.0f" % (med(c["peak_at_risk_bytes"]) / MIB) if med(c["peak_at_risk_bytes"]) is not None else "-",
            "%.0f" % (med(ud["peak_at_risk_bytes"]) / MIB) if ud and med(ud["peak_at_risk_bytes"]) is not None else "-",
            pull, ret, c["group"]))
    return L


def replace_block(path, start, end, lines):
    """Replace what lies between the markers START and END of PATH by LINES; False when
    PATH has no such markers."""
    with open(path) as f:
        text = f.read()
    i, j = text.find(start), text.find(end)
    if i < 0 or j < i:
        return False
    with open(path, "w") as f:
        f.write(text[:i] + start + "\n" + "\n".join(lines) + "\n" + text[j:])
    return True


def update_headline(path, summary):
    """Replace the headline between the markers of PATH (docs/benchmark.md); False when it
    has none."""
    return replace_block(path, HEADLINE_START, HEADLINE_END, headline_table(summary))


README_START = "<!-- bench summary: written by bench/run from bench/summary.json; do not edit -->"
README_END = "<!-- end of the bench summary -->"


def readme_lines(summary):
    """README's benchmark paragraph, every figure from the summary: per drive model, file
    system and workload with pulls (groups of >= 3 reps), what a pull when cp returns
    loses with vfat-smart and with udisks' default, and whether vfat-smart lost no more
    than udisks' default at every moment; then the count of the benchmark's goals."""
    gl = goals(summary)
    L = ["Measured in the project's lab (Debian's kernels under QEMU, simulated drives; every "
         "figure from [bench/RESULTS.md](bench/RESULTS.md), generated %s), medians of 3 or more "
         "copies:" % summary["generated"][:10], ""]
    finished = finished_at(summary)
    cands = {}
    for (g, w), setups in pull_cells(summary).items():
        v, u = setups.get("vfat-smart"), setups.get(BASELINE)
        # a group that ran variants of vfat-smart is an experiment on its settings: RESULTS.md
        # shows it; README shows the product as installed
        if not v or not u or v["reps"] < 3 or any(is_variant(s) for s in setups):
            continue
        cands.setdefault((v.get("profile") or v["device"], v.get("fs", "vfat") != "vfat",
                          tuple(int(x) for x in v["kernel"].split(".")), w), []).append((finished.get(g, ""), g, v, u))

    def at_return(c):
        ps = [p for p in c["pulls"] if p["point"] == "return"]
        return ("%.1f s (%d of %d files intact)" % (
            med([p["progress_lost_s"] for p in ps]), med([p["files_intact"] for p in ps]),
            ps[0]["files_total"])) if ps else "-"

    def notice(c, since):
        newer = c.get("notice_superseded_by")
        if newer:
            c = next((n for n in summary["cells"] + summary.get("experiments", [])
                      if n["group"] == newer and n["workload"] == c["workload"]
                      and n["config"] == c["config"]), c)
        ps = [p for p in c["pulls"] if p["point"] == "notice"]
        # a notice the matrix gave a group, measured before that group's rerun: of an
        # earlier vfat-smart than the rerun's
        if not c.get("after_return_s") or finished.get(c["group"], "") < since:
            return "-"
        whole = sum(1 for p in ps if pull_whole(p))
        return "%s; whole in %d of %d copies%s" % (
            "%.1f s after cp returned" % med([p["t_s"] - p["copy_s"] for p in ps]) if ps else "never",
            whole, c["reps"], " (%s)" % newer if newer else "")
    rows = {}
    for key, cs in cands.items():
        # of two groups on the same drive model, file system, kernel and workload, the newer
        done, g, v, u = max(cs, key=lambda x: x[0])
        dom = [st for st, t in pull_verdicts({"cells": [v, u]}) if t.startswith("dominance")]
        rows[key] = "| %s%s | %s | %s | %s | %s | %s | %s |" % (
            v.get("profile") or v["device"], ", " + v["fs"] if v.get("fs", "vfat") != "vfat" else "", key[3],
            v["kernel"], at_return(v), at_return(u),
            ("yes" if dom[0] == "met" else "no") if dom else "-", notice(v, done if "@" in g else ""))
    if rows:
        L += ["| drive model | workload | Linux | a pull when cp returns loses, vfat-smart | udisks' default "
              "| vfat-smart lost no more than udisks' default at every moment | \"safe to unplug\" (median) |",
              "| --- | --- | --- | --- | --- | --- | --- |"] + [rows[k] for k in sorted(rows)]
        L.append("")
        L.append("A loss is in seconds of the copy's own progress; the goal is at most 1 s. \"Safe to "
                 "unplug\" is when vfat-smartd said so (the agent's notice), measured where the drive was left "
                 "alone after the copy, and how many copies a pull at that moment found whole. Each pull and "
                 "fsck's verdict is in bench/RESULTS.md.")
        L.append("")
    else:
        L += ["What a pull loses at every moment of a copy is not measured yet.", ""]
    L += two_sticks_readme(summary)
    # which drive models the goals were judged on, and whether each is fitted to a real stick
    fitted = {c.get("model") for c in summary.get("calibration", [])}
    prof = {c["group"]: c.get("profile") or c["device"] for c in summary["cells"]}
    used = sorted({prof[gname] for _, text in gl for gname in re.findall(r"\(([A-Za-z0-9.@_-]+)\)", text)
                   if gname in prof and isinstance(prof[gname], str)})
    L.append("The benchmark's goals on speed and loss: %d met, %d missed, %d not measured, %d not judged because "
             "the emulated CPU, not the drive, set the pace%s; judged on the drive models %s "
             "(%s)" % (sum(1 for st, _ in gl if st == "met"), sum(1 for st, _ in gl if st == "MISSED"),
                       sum(1 for st, _ in gl if st == "not measured"), sum(1 for st, _ in gl if st == "CPU-bound"),
                       ", %d not judged on a drive model not fitted to a real stick" % sum(
                           1 for st, _ in gl if st == "not fitted") if any(st == "not fitted" for st, _ in gl) else "",
                       ", ".join(used) or "-",
                       "fitted to a real stick: " + ", ".join(m for m in used if m in fitted)
                       if any(m in fitted for m in used) else "none of them fitted to a real stick yet") + ".")
    return L


# ------------------------------------------------------------------------ pulls
def is_variant(setup):
    """An experiment's variant of vfat-smart ("vfat-smart-mds1"), not the product as
    installed."""
    return setup.startswith("vfat-smart-")


def setup_order(setups):
    """The setups' names, the matrix's main ones first in their order, then the others."""
    return [s for s in SETUPS if s in setups] + sorted(s for s in setups if s not in SETUPS)


def pull_whole(p):
    """A pull that found the whole copy: every file intact, nothing of the copy lost."""
    return p["files_intact"] == p["files_total"] and p["progress_lost_s"] == 0


def pull_cells(summary):
    """{(group, workload): {setup: cell}} of the cells that have replayed pulls, by the
    setup's name in the matrix (an experiment's variant of vfat-smart has its own), less
    those whose pulls a newer group's replace ("supersedes_pulls" in the matrix)."""
    out = {}
    for c in summary["cells"] + summary.get("experiments", []):
        if c.get("pulls") and not c.get("pulls_superseded_by"):
            out.setdefault((c["group"], c["workload"]), {})[c.get("config") or c["setup"]] = c
    return out


def pull_where(c, w, g):
    return "%s, %s%s, Linux %s (%s)" % (c.get("profile") or c["device"], w,
                                        ", " + c["fs"] if c.get("fs", "vfat") != "vfat" else "", c["kernel"], g)


def pull_verdicts(summary):
    """[(status, text)]: per group and workload with pulls, the return gap of every
    setup (vfat-smart's is the goal, the others are references) and vfat-smart's
    dominance over udisks' default at the same wall-clock moments (medians of the reps)."""
    return [(st, t) for st, t, _, _ in pull_verdicts_where(summary)]


def pull_cell_key(c, w):
    """What a pull verdict is about: the drive model, the workload, the file system and
    the kernel series (a newer group's verdict on the same takes the place of an older
    one in "The goals at a glance")."""
    return (c.get("profile") or c["device"], w, c.get("fs", "vfat"), c["kernel"])


def pull_verdicts_where(summary):
    """pull_verdicts() as (status, text, group, cell key)."""
    out = []
    for (g, w), setups in pull_cells(summary).items():
        first = next(iter(setups.values()))
        where, key = pull_where(first, w, g), pull_cell_key(first, w)
        n0 = len(out)
        for s, c in sorted(setups.items(), key=lambda x: x[0] != "vfat-smart"):
            ret = [p for p in c["pulls"] if p["point"] == "return"]
            if not ret:
                continue
            worst = max(p["progress_lost_s"] for p in ret)
            worst_f = max(p["progress_lost_files_s"] for p in ret)
            lost_files = max(p["files_total"] - p["files_intact"] for p in ret)
            text = ("return gap, %s, %s: a pull when cp returned lost %s s of the copy (whole files: %s s; "
                    "up to %d of %d files not intact; %d reps; goal <= %.0f s)"
                    % (s, where, fmt_range([p["progress_lost_s"] for p in ret], digits=2),
                       fmt_range([p["progress_lost_files_s"] for p in ret], digits=2),
                       lost_files, ret[0]["files_total"], len(ret), RETURN_GAP_S))
            if s == "vfat-smart":
                ok = worst <= RETURN_GAP_S and worst_f <= RETURN_GAP_S
                out.append(("met" if ok else "MISSED", text))
            else:   # udisks' default, no flush; an experiment's variant of vfat-smart
                out.append(("variant" if is_variant(s) else "reference", text))
        nv = notice_verdict(setups.get("vfat-smart"), where)
        if nv:
            out.append(nv)
        v, u = setups.get("vfat-smart"), setups.get(BASELINE)
        if v and u:
            worse, behind = [], []
            moments = sorted({p["t_s"] for p in u["pulls"] if p["point"] == "t"})
            for t in moments:
                vl = [p for p in v["pulls"] if p["point"] == "t" and p["t_s"] == t]
                ul = [p for p in u["pulls"] if p["point"] == "t" and p["t_s"] == t]
                if not vl or not ul:
                    continue
                mv, mu = med([p["progress_lost_s"] for p in vl]), med([p["progress_lost_s"] for p in ul])
                if mv > mu + PULL_TOLERANCE_S:
                    worse.append("%.1f s: %.2f s against %.2f s" % (t, mv, mu))
                if med([p["bytes_intact"] for p in vl]) < med([p["bytes_intact"] for p in ul]):
                    behind.append("%.1f s" % t)
            ref_s = u["pulls"][0].get("reference_safe_s")
            out.append(("MISSED" if worse else "met",
                        "dominance, %s: at the %d moments (every 10 %% of udisks' default's %s s to safe) "
                        "vfat-smart lost %s of the copy's progress than udisks' default (medians; equal within "
                        "%.2f s)%s" % (where, len(moments), ref_s, "more" if worse else "no more",
                                       PULL_TOLERANCE_S, " at " + "; ".join(worse) if worse else "")))
            out.append(("MISSED" if behind else "met",
                        "ahead, %s: at those moments vfat-smart's drive held %s udisks' default's "
                        "(intact data, medians)%s" % (where, "less than" if behind else "at least as much as",
                                                   " at " + ", ".join(behind) if behind else "")))
        per = {}
        for s, c in setups.items():
            n = sum(1 for p in c["pulls"] if p["fsck"] == "damaged")
            if n:
                per[s] = (n, len(c["pulls"]))
        if per:
            out.append(("MISSED" if "vfat-smart" in per else "reference",
                        "file system after a pull, %s: %s -n found damage beyond the dirty bit after %s"
                        % (where, "fsck.exfat" if next(iter(setups.values())).get("fs") == "exfat" else "fsck.fat",
                           ", ".join("%d of %d pulls of %s" % (n, t, s) for s, (n, t) in sorted(per.items())))))
        out[n0:] = [(st, t, g, key) for st, t in out[n0:]]
    return out


def notice_verdict(c, where):
    """(status, text) of "safe to unplug" in a group that left the drive alone after cp
    returned ("after_return_s"): the moment vfat-smartd's Safe turned true must find the
    copy whole (never early), and a pull 0.5 s before it must not (at most 0.5 s late).
    None where nothing was measured."""
    if not c or not c.get("after_return_s"):
        return None
    at = [p for p in c["pulls"] if p["point"] == "notice"]
    before = [p for p in c["pulls"] if p["point"] == "notice-0.5s"]
    late = sum(1 for p in before if pull_whole(p))
    early = sum(1 for p in at if not pull_whole(p))
    missing = c["reps"] - len(at)
    during = sum(1 for p in at if p["t_s"] < p["copy_s"])
    ok = at and not early and not late and not missing
    return ("met" if ok else "MISSED",
            "\"safe to unplug\", %s: vfat-smartd's Safe turned true in %d of %d runs within %.0f s of cp's "
            "return%s, %s after it (median); a pull at that moment found the copy whole in %d of them (goal: all), "
            "a pull 0.5 s before it in %d (goal: none, the notice at most 0.5 s late)"
            % (where, len(at), c["reps"], c["after_return_s"],
               " (%d of them before it, while cp still ran)" % during if during else "",
               "%.2f s" % med([p["t_s"] - p["copy_s"] for p in at]) if at else "-",
               len(at) - early, late))


def variant_rows(summary):
    """For groups that pulled variants of vfat-smart beside it (an experiment on the
    cap, "vfat-smart-mds1"): per workload and setup, the loss at cp's return against the
    time to safe and the drive's busy time, each over no flush's in the same group. The
    trade the return gap's verdicts rest on, from the same runs."""
    L = []
    for (g, w), setups in pull_cells(summary).items():
        if not any(is_variant(s) for s in setups):
            continue
        nf = setups.get("no-flush")
        for s in setup_order(setups):
            c = setups[s]
            ret = [p for p in c["pulls"] if p["point"] == "return"]

            def ratio(key):
                a, b = med(c[key]), med(nf[key]) if nf else None
                return "%.2fx" % (a / b) if a and b else "-"
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                g, w, s, fmt_range([p["progress_lost_s"] for p in ret], digits=2),
                fmt_range(c["safe_s"]), ratio("safe_s"), ratio("busy_s")))
    if not L:
        return []
    return (["The loss at cp's return against the time it costs, where a group ran variants of vfat-smart "
             "(an admin's max-dirty-seconds) beside it: medians (min-max) over the reps; ratios of medians "
             "against no flush in the same group (busy: the drive's busy time).", "",
             "| group | workload | setup | pull at return: s of the copy lost | safe s | vs no flush | "
             "busy vs no flush |", "| --- | --- | --- | --- | --- | --- | --- |"] + L + [""])


def glance_line(name, goal, verdicts, groups=None):
    """One goal's line of "The goals at a glance": how many of its verdicts were met,
    missed or not judged (CPU-bound, not measured), and where it was missed (groups: each
    verdict's group, else read from its text)."""
    if not verdicts:
        return "- **%s** (%s): not measured." % (name, goal)
    n = {}
    for st, _ in verdicts:
        n[st] = n.get(st, 0) + 1
    missed = [t for st, t in verdicts if st == "MISSED"]
    status = "MISSED" if missed else "met" if n.get("met") else "not judged"
    counts = ", ".join("%d %s" % (n[k], k) for k in ("MISSED", "met", "CPU-bound", "not fitted", "not measured")
                       if n.get(k))
    if groups:
        where = sorted({g for (st, _), g in zip(verdicts, groups) if st == "MISSED"})
    else:   # the first parenthesis of the text that holds one name (no spaces)
        where = sorted({m.group(1) for m in (re.search(r"\(([A-Za-z][\w.@-]*)\)", t) for t in missed) if m})
    return "- **%s** (%s): **%s**: %s%s." % (name, goal, status, counts,
                                          "; missed in " + ", ".join(where) if where else "")


def finished_at(summary):
    """{group: when it finished, an ISO time ("" when unknown)}: which of two groups is the
    newer."""
    return {g["name"]: g.get("finished") or "" for g in summary.get("groups") or []}


def newest_pull_verdicts(summary):
    """kind -> (verdicts, groups): vfat-smart's pull verdicts (met or missed) whose text
    starts with kind, of the newest group (by when it finished) that pulled each cell
    (pull_cell_key()) with 3 or more repetitions, for glance_line()."""
    finished = finished_at(summary)
    reps = {}
    for c in summary.get("cells", []) + summary.get("experiments", []):
        if c.get("pulls") and c["setup"] == "vfat-smart":
            reps[c["group"]] = max(reps.get(c["group"], 0), c["reps"])
    # a smoke of one or two copies is no verdict on the product
    rows = [v for v in pull_verdicts_where(summary) if v[0] in ("met", "MISSED") and reps.get(v[2], 3) >= 3]

    def kind(prefix):
        sel = [v for v in rows if v[1].startswith(prefix)]
        newest = {}
        for _, _, g, key in sel:
            if finished.get(g, "") >= finished.get(newest.get(key), ""):
                newest[key] = g
        sel = [v for v in sel if newest[v[3]] == v[2]]
        return [(st, t) for st, t, _, _ in sel], [g for _, _, g, _ in sel]
    return kind


def glance_section(summary):
    """RESULTS.md's first lines: each goal of vfat-smart as installed, met or missed, counted
    over the verdicts of the sections below (bad news first; the reasons are there)."""
    pv = newest_pull_verdicts(summary)
    gl = goals(summary)
    ts = [(two_sticks_verdict(e), "%s (%s)" % (e["workload"], e["group"])) for e in summary.get("two_sticks") or []]
    rows = [
        ("Return gap", "a pull when cp returns loses at most %.0f s of the copy" % RETURN_GAP_S,
         *pv("return gap")),
        ("Dominance", "at every moment vfat-smart loses no more than udisks' default",
         *pv("dominance")),
        ("Speed", "the time to safe against the same run's references, as the goals list says",
         [(st, t) for st, t in gl if not t.startswith("First plug")]),
        ("First plug", "the peak at risk before anything is learned at most %g s" % FIRST_PLUG_MAX_S,
         [(st, t) for st, t in gl if t.startswith("First plug")]),
        ("Two sticks at once", "each within %.2fx its time alone and its own cap" % TWO_STICKS_MAX_RATIO, ts),
        ("Safe to unplug", "the notice at most 0.5 s after the data is safe, never before",
         *pv('"safe to unplug"')),
        ("File system after a pull", "fsck finds nothing beyond the dirty bit",
         *pv("file system")),
    ]
    L = ["## The goals at a glance", "",
         "vfat-smart as installed, each goal counted over its verdicts in the sections below (where it "
         "was missed, the group; the numbers and the reasons are there, and the next section puts the trade "
         "behind the pull and speed goals in numbers). Each pull verdict counts only "
         "from the newest group of 3 or more repetitions that gave it for a drive model, workload, file system "
         "and kernel (the older ones measured an earlier vfat-smart and stay in the sections below, as do the "
         "smokes of one copy). The product's own cost "
         "(the udev helper, vfat-smartd, mount.vfat-smart) is measured outside this benchmark: "
         "tests/perf/RESULTS.md.", ""]
    L += [glance_line(*r) for r in rows]
    L.append("")
    return L


# ------------------------------------------------------------ why goals are missed
# What the file system writes to make one more finished file reachable on the drive,
# wherever the flusher put its data, each a small write at a place of its own: FAT32 the
# block of its directory entry and its cluster chain in both FAT copies; exFAT its
# directory entry set and the allocation bitmap (a contiguous file needs no FAT chain)
REACHABLE_SMALL_WRITES = {"vfat": 3, "exfat": 2}


def small_write_ms(profile):
    """What the drive model charges a small write at a new place (stick-filter.c: a
    command, a jump and the small-write cost), in ms; None for no profile file."""
    p = read_profile(profile or "")
    if p is None:
        return None
    return sum(float(p.get(k, d)) for k, d in (("cmd_ms", 0.5), ("seek_ms", 20), ("small_ms", 0)))


def newest_reference_cells(summary):
    """{pull_cell_key: (group, workload, {setup: cell})}: per drive model, workload, file
    system and kernel, the newest group (by when it finished) that pulled vfat-smart as
    installed beside udisks' default, 3 reps or more."""
    finished = finished_at(summary)
    out = {}
    for (g, w), setups in pull_cells(summary).items():
        if "vfat-smart" not in setups or BASELINE not in setups or setups["vfat-smart"]["reps"] < 3:
            continue
        key = pull_cell_key(setups["vfat-smart"], w)
        if key not in out or finished.get(g, "") >= finished.get(out[key][0], ""):
            out[key] = (g, w, setups)
    return out


def trade_row(g, s, setups):
    """One setup of a group with pulls as a table row: what a pull at cp's return and the
    worst moment while cp ran lose, and the price against no flush of the same group."""
    c = setups[s]
    nf = setups.get("no-flush") or (setups.get(BASELINE) if c.get("fs") == "exfat" else None)
    ret = [p for p in c["pulls"] if p["point"] == "return"]
    during = {}
    for p in c["pulls"]:
        if p["point"] == "t" and p["t_s"] < p["copy_s"]:
            during.setdefault(p["t_s"], []).append(p["progress_lost_s"])
    worst = max((med(v) for v in during.values()), default=None)

    def vs(key):
        r = ratio(c, nf, key)
        return "%.2fx" % r if r else "-"
    return "| %s | %s (%s) | %s | %s | %s | %s | %s |" % (
        g, s, str(c.get("commit") or "?")[:7], fmt_range([p["progress_lost_s"] for p in ret], digits=2),
        fmt_range([p["progress_lost_files_s"] for p in ret], digits=2),
        "%.2f" % worst if worst is not None else "-", vs("safe_s"), vs("busy_s"))


def trade_table(summary, key):
    """The trade rows of every group that pulled the drive model, workload, file system
    and kernel of KEY, oldest group first."""
    finished = finished_at(summary)
    L = ["| group | setup (commit) | lost at return, s | whole files, s | lost while cp ran, worst s | "
         "safe vs no flush | busy vs no flush |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for (g, w), setups in sorted(pull_cells(summary).items(), key=lambda x: finished.get(x[0][0], "")):
        if pull_cell_key(next(iter(setups.values())), w) == key:
            L += [trade_row(g, s, setups) for s in setup_order(setups)
                  if any(p["point"] == "return" for p in setups[s]["pulls"])]
    return L + [""]


def commit_floor(c):
    """One sentence: what a commit every second costs the drive model of cell C at least,
    against what the speed goal leaves; '' for a model without a profile file."""
    ms = small_write_ms(c.get("profile"))
    if ms is None:
        return ""
    n = REACHABLE_SMALL_WRITES.get(c.get("fs", "vfat"), 3)
    share = n * ms / 1000.0
    return ("On the %s model (%s) a small write at a new place costs %.1f ms (its profile: command, jump and "
            "small-write cost): %d of them every second are %.1f %% of the drive's time, %s the %.0f %% the "
            "speed goal leaves (%.2fx no flush)%s" % (
                c.get("profile"), c.get("fs", "vfat"), ms, n, 100 * share,
                "more than" if share > DEVICE_TIME_MAX - 1 else "within", 100 * (DEVICE_TIME_MAX - 1),
                DEVICE_TIME_MAX,
                ": no commit period meets both the return gap and the speed goal on it." if share > DEVICE_TIME_MAX - 1
                else ": this floor does not forbid both on it."))


def why_missed_section(summary):
    """RESULTS.md's second section: the trade behind the pull and speed goals, per drive
    model, workload, file system and kernel, with the numbers that say what a design of
    vfat-smart's kind cannot meet and what would (every figure from the cells below and
    the drive models' profile files)."""
    newest = newest_reference_cells(summary)
    if not newest:
        return []
    one = sorted(k for k, (g, w, st) in newest.items() if st["vfat-smart"]["pulls"][0]["files_total"] == 1)
    many = sorted(k for k in newest if k not in one)
    L = ["## Why goals are missed, and what would meet them", "",
         "Each table: every group that pulled a drive model's workload on one kernel, oldest first; vfat-smart "
         "as of the commit each group measured (older groups measured other caps and commit periods), the "
         "references, and the RFC's change to fat (patched-wait1: close writes the file and waits) where a "
         "group ran it. Lost: seconds of the copy (medians, min-max) at cp's return, in bytes and counting "
         "whole files only, and the largest median over the moments while cp ran; the price: time to safe and "
         "the drive's busy time over no flush's in the same group (on exFAT over udisks' default, which mounts "
         "it without flush).", ""]
    if one:
        L += ["### One big file", "",
              "The file is whole on the drive only once its last byte and its entry are there. vfat-smart lets "
              "cp return with up to the cap in the page cache, so a pull at the return loses the file whatever "
              "the cap: no writeback setting makes cp wait, and counted in whole files the return gap is missed "
              "by design. In bytes it is the cap: a smaller one meets it at a price in time (the variants' rows). "
              "udisks' default on FAT writes the file out in close (flush), at flush's price. What would meet the goal in whole files without that price: a "
              "close that waits for the file without racing the flusher, the RFC's change (its rows, where "
              "measured).", ""]
        for k in one:
            g, w, st = newest[k]
            L += ["%s:" % pull_where(st["vfat-smart"], w, g).rsplit(" (", 1)[0], ""] + trade_table(summary, k)
    if many:
        L += ["### Many files", "",
              "A finished file is reachable once the file system wrote its entry and its allocation, a few small "
              "writes at places of their own (FAT32: the directory block and the chain in both FATs; exFAT: the "
              "entry set and the allocation bitmap). udisks' default on FAT writes them at every close, so a pull "
              "loses little more than the file being written; vfat-smartd commits them while files are written and holds "
              "a share of its cap at risk, so a pull at cp's return loses what the cap holds and what finished "
              "since the last commit: within %.0f s only with a commit at least every second. Matching udisks' "
              "default at every moment means a cap of one file and a commit at every close: flush's price." % (
                  RETURN_GAP_S), ""]
        for k in many:
            g, w, st = newest[k]
            f = commit_floor(st["vfat-smart"])
            L += ["%s: %s" % (pull_where(st["vfat-smart"], w, g).rsplit(" (", 1)[0], f or ""), ""]
            L += trade_table(summary, k)
    return L + fsck_after_pulls(newest)


def fsck_after_pulls(newest):
    """The why of the file system's goal: per file system and setup, the pulls of the
    groups in NEWEST whose fsck found damage beyond the dirty bit, by kind."""
    count = {}
    for g, w, setups in newest.values():
        for s, c in setups.items():
            t = count.setdefault((c.get("fs", "vfat"), s), {"pulls": 0, "damaged": 0})
            for p in c["pulls"]:
                t["pulls"] += 1
                if p["fsck"] == "damaged":
                    t["damaged"] += 1
                    for kind in p.get("fsck_kinds") or ["other"]:
                        t[kind] = t.get(kind, 0) + 1
    kinds = [n for n, _ in FSCK_KINDS] + ["other"]
    L = ["### The file system after a pull", "",
         "FAT and exFAT keep no journal: a file's entry, its clusters (FAT32: the chain in both FATs; exFAT: the "
         "allocation bitmap) and a directory's new block are separate writes, in the order the block device's "
         "buffers are written, so a pull between them leaves what fsck finds. Every setup writes metadata "
         "while cp runs (udisks' default on FAT at every close, vfat-smartd at each commit, the flusher for "
         "all), and every setup leaves such states. No writeback setting orders those writes: a file system "
         "with a journal would, and a check of the drive at its next plug repairs them (neither udisks nor "
         "vfat-smart runs one). The pulls "
         "of the groups above (the newest per drive model, workload, file system and kernel), by what fsck "
         "found (a pull can have several):", "",
         "| file system | setup | pulls | damage beyond the dirty bit | " + " | ".join(kinds) + " |",
         "| --- | --- | --- | --- |" + " --- |" * len(kinds)]
    for (fs, s), t in sorted(count.items()):
        L.append("| %s | %s | %d | %d | %s |" % (fs, s, t["pulls"], t["damaged"],
                                                " | ".join(str(t.get(k, 0)) for k in kinds)))
    return L + [""]


def pulls_section(summary):
    """RESULTS.md's first section: what a pull loses, the verdicts first (bad news
    first), then a table per group and workload."""
    pc = pull_cells(summary)
    L = ["## Pulls: what a person loses", ""]
    if not pc:
        L += ["No group with replayed pulls (\"pulls\": true in bench/matrix.json) has results yet: the "
              "return gap and the dominance over udisks' default are not measured.", ""]
        return L
    L.append("Every timed run of a group with pulls is pulled, offline, at every 10 %% of udisks' default's "
             "median time to safe (the same wall-clock moments for every setup), when cp returned, and 0.5, 1 "
             "and 2 s after that: the drive's image at that instant is rebuilt from the drive's write journal "
             "(bench/lib/pull_replay.py). Lost = seconds of the copy's own progress (cp's written bytes over "
             "time) that the intact data on the drive no longer covers; whole files = counting complete files "
             "only. A file is intact when its entry, its size and all its bytes, written by this run, are on "
             "the drive. Cp's progress is sampled every 0.1-0.2 s in the guest: losses closer than %.2f s are "
             "not told apart." % PULL_TOLERANCE_S)
    L.append("")
    rank = {"MISSED": 0, "met": 1, "reference": 2, "variant": 3}
    for st, text in sorted(pull_verdicts(summary), key=lambda x: rank[x[0]]):
        L.append("- **%s**: %s" % (st, text))
    L.append("")
    L += variant_rows(summary)
    for (g, w), setups in pc.items():
        names = setup_order(setups)
        c0 = setups[names[0]]
        L.append("%s (profile %s, commit %s): per pull, files intact of %d and seconds of the copy lost, "
                 "median (min-max) over the reps; fsck damage where found" % (
                     pull_where(c0, w, g), c0.get("profile"), str(c0.get("commit"))[:10], c0["pulls"][0]["files_total"]))
        L.append("")
        L.append("| pull at | " + " | ".join(names) + " |")
        L.append("| --- |" + " --- |" * len(names))
        keys = []
        for s in names:
            for p in setups[s]["pulls"]:
                k = ("t", p["t_s"]) if p["point"] == "t" else (p["point"], None)
                if k not in keys:
                    keys.append(k)
        keys.sort(key=lambda k: (k[0] != "t", k[1] or 0, k[0]))
        for k in keys:
            row = []
            for s in names:
                ps = [p for p in setups[s]["pulls"]
                      if p["point"] == k[0] and (k[0] != "t" or p["t_s"] == k[1])]
                if not ps:
                    row.append("-")
                    continue
                bad = sum(1 for p in ps if p["fsck"] == "damaged")
                row.append("%s files, %s s%s" % (
                    fmt_range([p["files_intact"] for p in ps], digits=0),
                    fmt_range([p["progress_lost_s"] for p in ps], digits=2),
                    ", %d damaged" % bad if bad else ""))
            L.append("| %s | %s |" % ("%.1f s" % k[1] if k[0] == "t" else k[0], " | ".join(row)))
        L.append("")
    return L


# -------------------------------------------------------------------------- markdown

def group_workloads(cells):
    """(group, workload) of the cells, each once, in the cells' order"""
    return list(dict.fromkeys((c["group"], c["workload"]) for c in cells))

def render(summary, plots=None, notes=None, raw_shown="bench/raw/"):
    L = []
    cells = summary["cells"]
    every = cells + summary.get("experiments", [])
    L.append("# vfat-smart benchmark results")
    L.append("")
    L.append("Generated %s by `%s` from the raw results in `%s` (every number below comes from "
             "those files; `bench/run --report-only` regenerates this file, `summary.json` and the plots)."
             % (summary["generated"], summary["command"], raw_shown))
    L.append("")
    L += glance_section(summary)
    L += why_missed_section(summary)
    L += pulls_section(summary)
    L += first_plug_section(summary)
    L += two_sticks_section(summary)
    L += calibration_section(summary)
    L.append("## Goals: vfat-smart as installed against the same run's references")
    L.append("")
    gl = goals(summary)
    for st, text in sorted(gl, key=lambda x: {"MISSED": 0, "not measured": 1, "CPU-bound": 1, "not fitted": 1,
                                              "met": 2}[x[0]]):
        L.append("- **%s**: %s" % (st, text))
    L.append("")
    L.append("## Headline: Linux 6.12, the distribution's page-cache defaults")
    L.append("")
    L.append("Each drive's and workload's newest group; medians with min-max; \"safe\" = the unmount "
             "returned; the worst pull is the largest loss of vfat-smart's yank runs (half, return, "
             "1 s after), '-' where the group had none; the next column, for groups with replayed pulls, what "
             "a pull when cp returns loses, in seconds of the copy (medians); cells of 3 or more repetitions "
             "only; drive models fitted to a real drive's published numbers only (%s). docs/benchmark.md shows "
             "this table." % (", ".join(sorted(m for m in fitted_models(summary) if m)) or "none yet"))
    L.append("")
    L += headline_table(summary)
    L.append("")
    other = headline_table(summary, fitted=False)
    if len(other) > 2:
        L += ["### The drive models not fitted to a real drive", "",
              "The same table for the lab's other models (guessed parameters, or drives faster than the "
              "emulated CPU can drive): what they show depends on those guesses.", ""] + other + [""]
    if notes:
        L.append(notes.strip())
        L.append("")
    L.append("## What was run")
    L.append("")
    L.append("| group | runs | guest time (boot to power-off) | exit | finished |")
    L.append("| --- | --- | --- | --- | --- |")
    tot = 0
    for g in summary["groups"]:
        t = g.get("guest_s") or g.get("wall_s")
        tot += t or 0
        L.append("| %s | %s of %s | %s | %s | %s |" % (
            g["name"], g["runs"], g.get("runs_expected", "?"),
            "%.1f min" % (t / 60) if t else "-", g.get("rc", "-"), g.get("finished", "-")))
    L.append("")
    L.append("Guest time in all: %.1f min (waiting for the shared lab not counted). Medians with min-max over the repetitions (a warm-up run per "
             "group is discarded). Times in seconds; \"safe\" = the unmount returned (what eject does); "
             "ratios are against udisks' default in the same group (same guest, same drive, same workload). "
             "Jumps = writes at the simulated drive that do not continue the previous write (command queue "
             "modelled for UAS). Big = share of data bytes in requests >= 768 KiB (UAS requests are at most "
             "512 KiB, so 0 there). cp on CPU = the share of its copy that cp spent running (user + system "
             "time, recorded since session 12; '-' before): near 100 %% the emulated CPU, not the drive, "
             "held the copy. Unmount = from the copy's return to safe; the drive's busy time in it is "
             "recorded since session 13 ('-' before): the rest of the unmount is the guest's CPU "
             "(udisks, the kernel's unmount) and the drive's idle time." % (tot / 60))
    L.append("")
    L += render_internal(cells)
    for part, title in (([c for c in cells if not is_internal(c)], "Cells"), (summary.get("experiments", []), "Experiments")):
        if not part:
            continue
        L.append("## %s" % title)
        L.append("")
        for gname, wname in group_workloads(part):
            cs = [c for c in part if (c["group"], c["workload"]) == (gname, wname)]
            c0 = cs[0]
            L.append("### %s: %s, %s, Linux %s, vm %s, %s (%.0f MiB)%s" % (
                gname, wname, c0["device"], c0["kernel"], c0["vm"], c0["fs"], c0["workload_bytes"] / MIB,
                ", superseded by %s (kept; not in the goals)" % c0["superseded_by"] if c0.get("superseded_by") else ""))
            L.append("")
            timed = [c for c in cs if c["reps"]]
            if timed:
                L.append("| setup | reps | copy returned s | safe s | safe vs udisks | safe vs no flush | MB/s to safe | peak at risk MiB | at risk at return MiB | jumps | drive busy s | unmount s | drive busy in the unmount s | big % | cp on CPU % |")
                L.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            else:
                L.append("No timed runs in this group: pulls only.")
            for c in timed:
                base = baseline_of(every, c)
                r = ratio(c, base)
                rn = ratio(c, baseline_of(every, c, "no-flush"))
                L.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    c["config"], c["reps"], fmt_range(c["copy_s"]), fmt_range(c["safe_s"]),
                    "%.2fx" % r if r is not None else "-", "%.2fx" % rn if rn is not None else "-",
                    fmt_range(c["mb_per_s_safe"]),
                    fmt_range(c["peak_at_risk_bytes"], MIB), fmt_range(c["at_risk_at_return_bytes"], MIB),
                    fmt_range(c["jumps"], digits=0), fmt_range(c["busy_s"]),
                    fmt_range(c.get("umount_s", [])), fmt_range(c.get("umount_busy_s", [])),
                    fmt_range([x * 100 if x is not None else None for x in c["big_share"]], digits=0),
                    fmt_range([x * 100 if x is not None else None for x in c.get("cp_cpu_share", [])], digits=0)))
            ys = [c for c in cs if c["yank"]]
            if ys:
                L.append("")
                L.append("Yank (drive stops taking writes at the point, then surprise removal; image read on the host):")
                L.append("")
                L.append("| setup | point | written by cp MiB | intact on the drive MiB | lost MiB | lost s of bandwidth | files intact | fsck.fat -n |")
                L.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
                for c in ys:
                    for y in sorted(c["yank"], key=lambda y: POINTS.index(y["point"]) if y["point"] in POINTS else 9):
                        L.append("| %s | %s%s | %.1f | %.1f | %.1f | %.2f | %s of %s | %s |" % (
                            c["config"], y["point"], (" (corrected post hoc)" if y.get("corrected") else "") + window_note(y, c), y["written_bytes"] / MIB, y["intact_bytes"] / MIB,
                            y["lost_bytes"] / MIB, y["lost_device_s"], y.get("files_intact"), y.get("files"),
                            "clean" if y.get("fsck_rc") == 0 else "errors (%s)" % y.get("fsck_rc")))
            L.append("")
    if plots:
        L.append("## Plots")
        L.append("")
        for title, path in plots:
            L.append("- %s: ![%s](%s)" % (title, title, path))
        L.append("")
    elif plots is not None:
        L.append("Plots: skipped (python3-matplotlib is not installed).")
        L.append("")
    return "\n".join(L) + "\n"


def fmt_vm(c):
    """vm.dirty_bytes / vm.dirty_background_bytes in force (or the ratio when 0)."""
    def one(b, bg, ratio):
        if b:
            return "%.1f MiB / %.1f MiB" % (b / MIB, (bg or 0) / MIB)
        return "0 (dirty_ratio %s %%)" % ratio
    vals = sorted(set(zip(c["vm_dirty_bytes"], c["vm_dirty_background_bytes"], c["vm_dirty_ratio"])),
                  key=lambda v: tuple(x or 0 for x in v))
    return ", ".join(one(*v) for v in vals) if vals else "-"


def fmt_restore(ats):
    """How the vm.* originals came back after the stick's unmount, over the reps."""
    if not ats:
        return "-"
    n = len(ats)
    parts = ["%s %d of %d" % ({"unmount": "at the unmount", "unplug": "only at the unplug",
                               "by hand": "NOT even at the unplug (written back by the bench)"}.get(a, a),
                              ats.count(a), n) for a in ("unmount", "unplug", "by hand") if a in ats]
    return ", ".join(parts)


def internal_findings(cells):
    """[(workload, text)]: allow-global-knobs true against the default, per workload."""
    out = []
    for c in cells:
        if not is_internal(c) or c["setup"] == INTERNAL_BASELINE or not c["reps"]:
            continue
        base = baseline_of(cells, c, INTERNAL_BASELINE)
        rc, rs = ratio(c, base, "copy_s"), ratio(c, base)
        if rc is None or rs is None:
            continue
        out.append((c["workload"], "%s, %s: the copy returned after %.2fx and was safe (synced) after %.2fx the "
                    "time of the default (allow-global-knobs false, stick mounted): %s s and %s s against %s s and "
                    "%s s; vm.dirty_bytes / background in force: %s against %s; peak dirty on the internal disk "
                    "%s MiB against %s MiB." % (
                        c["config"], c["workload"], rc, rs, fmt_range(c["copy_s"]), fmt_range(c["safe_s"]),
                        fmt_range(base["copy_s"]), fmt_range(base["safe_s"]), fmt_vm(c), fmt_vm(base),
                        fmt_range(c["peak_dirty_bytes"], MIB), fmt_range(base["peak_dirty_bytes"], MIB))))
    return out


def render_internal(cells):
    """The section of the internal-disk groups (issue 14), [] without them."""
    cs = [c for c in cells if is_internal(c)]
    if not cs:
        return []
    L = ["## The internal disk while a stick is mounted (issue 14: allow-global-knobs on Linux < 6.2)", "",
         "A copy by labuser (`cp -r` from tmpfs) to the guest's internal disk (virtio, ext4, made fresh per "
         "run), not to the stick, while the cheap stick is mounted through the product's path (hotplug, the "
         "udev rule, `udisksctl mount`, vfat-smartd activated). \"safe\" = `sync -f` of the internal disk "
         "returned. Ratios are against `%s` (allow-global-knobs false, the default: vm.* untouched) in the "
         "same guest. Peak dirty = the internal disk's dirty pages (BdiReclaimable), dirty + writeback of it, "
         "and the machine's nr_dirty. vm.* = the values in force when the copy started." % INTERNAL_BASELINE, ""]
    for _, text in internal_findings(cells):
        L.append("- %s" % text)
    L.append("")
    for gname, wname in group_workloads(cs):
        part = [c for c in cs if (c["group"], c["workload"]) == (gname, wname) and c["reps"]]
        if not part:
            continue
        c0 = part[0]
        L.append("### %s: %s to the internal disk (%s), stick %s, Linux %s, vm %s (%.0f MiB)" % (
            gname, wname, c0["fs"], c0.get("stick"), c0["kernel"], c0["vm"], c0["workload_bytes"] / MIB))
        L.append("")
        L.append("| setup | allow-global-knobs | stick mounted | reps | copy returned s | copy vs default | sync s | "
                 "safe s | safe vs default | MB/s to safe | peak dirty MiB | peak dirty + writeback MiB | "
                 "machine's peak dirty MiB | vm.dirty_bytes / background in force | vm.* originals back |")
        L.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for c in part:
            base = baseline_of(cells, c, INTERNAL_BASELINE)
            rc, rs = ratio(c, base, "copy_s"), ratio(c, base)
            rest = [x for x in c["vm_restore_at"] if x is not None]
            L.append("| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                c["config"], "true" if c.get("allow_global_knobs") else "false",
                "yes" if c.get("stick_mounted") else "no", c["reps"], fmt_range(c["copy_s"]),
                "%.2fx" % rc if rc is not None else "-", fmt_range(c["sync_s"]), fmt_range(c["safe_s"]),
                "%.2fx" % rs if rs is not None else "-", fmt_range(c["mb_per_s_safe"]),
                fmt_range(c["peak_dirty_bytes"], MIB), fmt_range(c["peak_at_risk_bytes"], MIB),
                fmt_range(c["peak_global_dirty_bytes"], MIB), fmt_vm(c),
                fmt_restore(rest)))
        L.append("")
    return L


# ----------------------------------------------------------------------------- plots
def make_plots(groups, summary, outdir):
    """PNG plots into OUTDIR/plots; [(title, relative path)]; None without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    pdir = os.path.join(outdir, "plots")
    os.makedirs(pdir, exist_ok=True)
    made = []
    # 1. data at risk over time, big file on the cheap stick: udisks' default vs vfat-smart
    for gname, meta, runs in groups:
        big = [r for r in runs if r["device"] == "cheap-stick" and r["workload"].startswith("big")
               and not r.get("warmup") and not r.get("yank") and r.get("series")
               and r["setup"] in ("udisks-default", "vfat-smart", "no-flush")]
        if not big:
            continue
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for setup, color in (("udisks-default", "tab:red"), ("no-flush", "tab:gray"), ("vfat-smart", "tab:blue")):
            rs = sorted((r for r in big if r["setup"] == setup), key=lambda r: r["safe_s"])
            if not rs:
                continue
            r = rs[len(rs) // 2]       # the median run
            t = [s[0] for s in r["series"]]
            risk = [(s[1] + s[2]) / MIB for s in r["series"]]
            ax.plot(t, risk, color=color, label="%s (copy returned %.1f s, safe %.1f s)" % (setup, r["copy_s"], r["safe_s"]))
            ax.axvline(r["copy_s"], color=color, linestyle=":", linewidth=1)
            ax.axvline(r["safe_s"], color=color, linestyle="--", linewidth=1)
        ax.set_xlabel("seconds since the copy started (dotted: copy returned, dashed: unmount returned)")
        ax.set_ylabel("dirty + writeback MiB (page cache at risk)")
        ax.set_title("%s: %s on %s, Linux %s (median run)" % (gname, big[0]["workload"], big[0]["device"], big[0]["kernel_series"]))
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        name = "risk-%s.png" % gname
        fig.tight_layout()
        fig.savefig(os.path.join(pdir, name), dpi=100)
        plt.close(fig)
        made.append(("data at risk over time, %s" % gname, "plots/" + name))
    made += plot_internal(plt, groups, pdir)
    # 2. time to safe per cell, grouped bars (relative to udisks' default)
    cells = [c for c in summary["cells"] if c["reps"] and not is_internal(c)]
    keys = []
    for c in cells:
        if (c["group"], c["workload"]) not in keys:
            keys.append((c["group"], c["workload"]))
    if keys:
        setups = [s for s in SETUPS if any(c["setup"] == s for c in cells)]
        fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(keys) + 3), 4.8))
        width = 0.8 / max(1, len(setups))
        for i, s in enumerate(setups):
            xs, ys, labels = [], [], []
            for j, k in enumerate(keys):
                c = next((c for c in cells if (c["group"], c["workload"], c["setup"]) == (k[0], k[1], s)), None)
                if c is None:
                    continue
                xs.append(j + i * width)
                ys.append(med(c["safe_s"]))
                labels.append("%.0f" % med(c["safe_s"]))
            bars = ax.bar(xs, ys, width, label=s)
            for b, lab in zip(bars, labels):
                ax.annotate(lab, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom", fontsize=7)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(keys))])
        ax.set_xticklabels(["%s\n%s" % k for k in keys], fontsize=7)
        ax.set_ylabel("seconds to safe (median)")
        ax.set_yscale("log")
        ax.set_title("Time until safe to unplug (unmount returned), per cell")
        ax.legend(fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(pdir, "time-to-safe.png"), dpi=100)
        plt.close(fig)
        made.append(("time to safe per cell", "plots/time-to-safe.png"))
    return made


def plot_internal(plt, groups, pdir):
    """Dirty pages of the internal disk over time, big file, per setup (median run)."""
    made = []
    for gname, meta, runs in groups:
        big = [r for r in runs if r.get("target") == "internal" and r["workload"].startswith("big")
               and not r.get("warmup") and r.get("series")]
        if not big:
            continue
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for setup, color in (("vfat-smart", "tab:gray"), ("vfat-smart-global-knobs", "tab:red"), ("no-stick", "tab:green")):
            rs = sorted((r for r in big if r["setup"] == setup), key=lambda r: r["safe_s"])
            if not rs:
                continue
            r = rs[len(rs) // 2]
            t = [x[0] for x in r["series"]]
            ax.plot(t, [(x[1] + x[2]) / MIB for x in r["series"]], color=color,
                    label="%s (copy returned %.1f s, synced %.1f s)" % (setup, r["copy_s"], r["safe_s"]))
            ax.axvline(r["copy_s"], color=color, linestyle=":", linewidth=1)
            ax.axvline(r["safe_s"], color=color, linestyle="--", linewidth=1)
        ax.set_xlabel("seconds since the copy started (dotted: copy returned, dashed: sync -f returned)")
        ax.set_ylabel("internal disk: dirty + writeback MiB")
        ax.set_title("%s: %s to the internal disk while the stick is mounted, Linux %s (median run)"
                     % (gname, big[0]["workload"], big[0]["kernel_series"]))
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        name = "internal-%s.png" % gname
        fig.tight_layout()
        fig.savefig(os.path.join(pdir, name), dpi=100)
        plt.close(fig)
        made.append(("internal disk, dirty over time, %s" % gname, "plots/" + name))
    return made


def write_all(raw, outdir, command, generated=None, plots=True, headline_doc=None, readme=None):
    groups = load_raw(raw)
    matrix = None
    mp = os.path.join(outdir, "matrix.json")      # the groups' definitions (supersedes)
    if os.path.isfile(mp):
        with open(mp) as f:
            matrix = json.load(f)
    summary = build_summary(groups, command, generated, matrix,
                            load_targets(os.path.join(outdir, "calibration.json")))
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
        f.write("\n")
    made = make_plots(groups, summary, outdir) if plots and not os.environ.get("VSM_BENCH_NO_PLOTS") else None
    notes = None
    np = os.path.join(outdir, "notes.md")     # hand-written context (what is missing, why)
    if os.path.isfile(np):
        with open(np) as f:
            notes = f.read()
    with open(os.path.join(outdir, "RESULTS.md"), "w") as f:
        # the raw directory as seen from the checkout's top (bench/raw/, or --quick's)
        f.write(render(summary, made, notes, os.path.relpath(os.path.abspath(raw), TOP) + "/"))
    if headline_doc:
        update_headline(headline_doc, summary)
    if readme:
        replace_block(readme, README_START, README_END, readme_lines(summary))
    return summary


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    write_all(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "report.py")

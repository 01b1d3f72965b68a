#!/usr/bin/env python3
"""Validate a run-scenario scenario, fill in defaults, write it out, print shell vars.

Usage: scenario_check.py SCENARIO.json OUT.json REPS-OVERRIDE(0 = keep)
"""
import json
import os
import re
import sys

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VM_KEYS = {"dirty_bytes", "dirty_background_bytes", "dirty_ratio", "dirty_background_ratio",
           "dirty_writeback_centisecs", "dirty_expire_centisecs"}
KNOBS = {"read_ahead_kb", "min_ratio", "max_ratio", "min_ratio_fine", "max_ratio_fine",
         "min_bytes", "max_bytes", "strict_limit"}
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
OPTS = re.compile(r"^[A-Za-z0-9_=,.-]*$")


def fail(msg):
    sys.exit("scenario: " + msg)


def want_int(obj, key, lo, hi, where, default=None):
    v = obj.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        fail("%s.%s must be an integer in %d..%d (got %r)" % (where, key, lo, hi, v))
    return v


def fat_module(v, where):
    if v == "stock":
        return v
    if not isinstance(v, str) or not os.path.isabs(v):
        fail("%s must be 'stock' or the absolute path of a dir with fat.ko and vfat.ko" % where)
    for ko in ("fat.ko", "vfat.ko"):
        if not os.path.isfile(os.path.join(v, ko)):
            fail("%s: %s has no %s" % (where, v, ko))
    return os.path.realpath(v)


def main():
    src, dst, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        with open(src) as f:
            sc = json.load(f)
    except (OSError, ValueError) as e:
        fail("cannot read %s: %s" % (src, e))
    if not isinstance(sc, dict):
        fail("the top level must be an object")
    sc.setdefault("name", os.path.splitext(os.path.basename(src))[0])
    if not NAME.match(str(sc["name"])):
        fail("name must be a short word (letters, digits, . _ -)")
    # 7.3: experimental's release candidate (LAB_EXPERIMENTAL_SERIES, lab-setup --kernel 7.3)
    if sc.get("kernel") not in ("6.1", "6.12", "7.2", "7.3"):
        fail("kernel must be \"6.1\", \"6.12\", \"7.2\" or \"7.3\"")
    sc.setdefault("stick_profile", "cheap-stick")
    if not NAME.match(sc["stick_profile"]) or not os.path.isfile(
            os.path.join(LAB, "nbd-stick", "profiles", sc["stick_profile"] + ".conf")):
        fail("no stick profile %r in tests/lab/nbd-stick/profiles" % sc["stick_profile"])
    sc["target"] = "NBDSTICK1"
    sc["fat_module"] = fat_module(sc.get("fat_module", "stock"), "fat_module")
    want_int(sc, "mem_mb", 1024, 16384, "scenario", 2048)
    sc.setdefault("mem_mb", 2048)
    sc.setdefault("sample_ms", 100)
    want_int(sc, "sample_ms", 10, 5000, "scenario")
    sc["repetitions"] = reps or sc.get("repetitions", 1)
    want_int(sc, "repetitions", 1, 50, "scenario")
    prep = sc.setdefault("prepare", {})
    if prep.get("fragment_mib", 0):
        want_int(prep, "fragment_mib", 0, sc["mem_mb"] * 3 // 4, "prepare")
    for k, v in prep.get("vm", {}).items():
        if k not in VM_KEYS:
            fail("prepare.vm.%s is not one of %s" % (k, ", ".join(sorted(VM_KEYS))))
        want_int(prep["vm"], k, 0, 1 << 40, "prepare.vm")
    fs = sc.setdefault("filesystem", {"type": "vfat"})
    if fs.get("type") not in ("vfat", "exfat"):
        fail("filesystem.type must be vfat or exfat")
    if "cluster_kib" in fs:
        want_int(fs, "cluster_kib", 1, 1024, "filesystem")
    if not sc.get("workloads"):
        fail("workloads: at least one")
    for i, w in enumerate(sc["workloads"]):
        where = "workloads[%d]" % i
        w.setdefault("name", w.get("kind", "w%d" % i))
        if not NAME.match(w["name"]):
            fail(where + ".name must be a short word")
        if w.get("kind") == "big-file":
            want_int(w, "size_mib", 1, 1024, where)
        elif w.get("kind") == "small-files":
            want_int(w, "count", 1, 10000, where)
            want_int(w, "size_kib", 1, 65536, where)
        else:
            fail(where + ".kind must be big-file or small-files")
    if not sc.get("configs"):
        fail("configs: at least one")
    for i, c in enumerate(sc["configs"]):
        where = "configs[%d]" % i
        if not NAME.match(str(c.get("label", ""))):
            fail(where + ".label must be a short word")
        if not OPTS.match(c.get("mount_options", "")):
            fail(where + ".mount_options has characters other than letters, digits, = , . _ -")
        for k in c.get("knobs", {}):
            if k not in KNOBS:
                fail("%s.knobs.%s is not a BDI knob (%s)" % (where, k, ", ".join(sorted(KNOBS))))
            want_int(c["knobs"], k, 0, 1 << 40, where + ".knobs")
        if "fat_module" in c:
            c["fat_module"] = fat_module(c["fat_module"], where + ".fat_module")
        if "settle_clean_s" in c:
            want_int(c, "settle_clean_s", 1, 600, where)
    if "settle_clean_s" in sc:
        want_int(sc, "settle_clean_s", 1, 600, "scenario")
    if not isinstance(sc.setdefault("warmup", False), bool):
        fail("warmup must be true or false")
    runs = sc["repetitions"] * len(sc["workloads"]) * len(sc["configs"]) + (1 if sc["warmup"] else 0)
    if runs > 64:
        fail("%d runs; at most 64 (the stick log has 128 markers)" % runs)
    sc.setdefault("timeout_s", 240 + 120 * runs)
    want_int(sc, "timeout_s", 60, 86400, "scenario")
    with open(dst, "w") as f:
        json.dump(sc, f, indent=1)
    print("S_NAME=%s S_KERNEL=%s S_PROFILE=%s S_MEM=%d S_TIMEOUT=%d" % (
        sc["name"], sc["kernel"], sc["stick_profile"], sc["mem_mb"], sc["timeout_s"]))


if __name__ == "__main__":
    main()

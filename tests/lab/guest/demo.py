#!/usr/bin/env python3
"""Guest side of tests/lab/demo: one simulated cheap stick, mounted by udisks twice.

Usage (inside a guest-run guest with vfat-smart installed and HOTPLUG1 served by the
nbd-stick filter): demo.py BIG_MIB SMALL_COUNT SMALL_KIB

Phase A: udisks' own defaults (labuser runs udisksctl mount; polkit rule for labuser).
Phase A runs with the project's udev rule told to leave the stick alone
(VFAT_SMART_IGNORE=1 from a lab rule, the documented per-drive switch).
Phase B: vfat-smart as installed: the lab rule is removed, a change event runs the
project's udev rule (vfat-smart-udev applies the knobs and exports
UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS/_ALLOW), udisks mounts with those options. The path
used is printed.
Both phases: fresh FAT32, caches dropped, the same data copied by labuser with cp -r,
"safe" = until `udisksctl unmount` returned (what eject does).
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenario import Device, Sampler, Tracer, sh, stick_segment, summarize_trace, write  # noqa: E402

MIB = 1024 * 1024
IGNORE_RULE = "/etc/udev/rules.d/60-vsm-lab-demo-ignore.rules"


def user(*cmd):
    return sh("runuser", "-u", "labuser", "--", *cmd)


def settle():
    sh("udevadm", "settle", "--timeout=60", check=False)


def make_data(big_mib, count, kib):
    src = "/tmp/demo-data"
    if not os.path.isdir(src):
        os.makedirs(src + "/photos")
        sh("dd", "if=/dev/urandom", "of=%s/video.bin" % src, "bs=1M", "count=%d" % big_mib, "status=none")
        for i in range(count):
            sh("dd", "if=/dev/urandom", "of=%s/photos/img-%04d.jpg" % (src, i), "bs=1K",
               "count=%d" % kib, "status=none")
        sh("chmod", "-R", "a+rX", src)
    return src, int(sh("du", "-sb", "--apparent-size", src).split()[0])


def fresh_fs(dev):
    sh("mkfs.vfat", "-F", "32", "-s", "64", "-n", "DEMOSTICK", dev.part, stderr=subprocess.DEVNULL)
    settle()
    sh("sync")
    write("/proc/sys/vm/drop_caches", 3)


def udisks_mount(dev):
    out = user("udisksctl", "mount", "-b", dev.part)
    m = re.search(r"Mounted \S+ at (.+?)\.?$", out.strip())
    if not m:
        raise SystemExit("demo: udisksctl mount said: %s" % out)
    mp = m.group(1)
    opts = [l.split()[3] for l in open("/proc/mounts") if l.split()[1] == mp][0]
    return mp, opts


def phase(dev, label, idx, src, nbytes):
    mp, opts = udisks_mount(dev)
    knobs = dev.knobs()
    tracer, sampler = Tracer(dev), Sampler(dev, 0.1)
    data_start = dev.data_start_sector("vfat")
    dev.mark(2 * idx)
    tracer.start()
    sampler.start()
    t0 = time.monotonic()
    user("cp", "-r", src, mp + "/")
    t1 = time.monotonic()
    at_return = sum(dev.dirty())
    sampler.stop()
    user("udisksctl", "unmount", "-b", dev.part)
    t2 = time.monotonic()
    events, _ = tracer.stop()
    tracer.close()
    dev.mark(2 * idx + 1)
    trace = summarize_trace(events, data_start, {"cp"})
    device = stick_segment("/run/lab/stick/HOTPLUG1.log", 2 * idx, 2 * idx + 1, data_start * 512)
    return {"label": label, "mount_options": opts, "knobs": knobs, "copy_s": t1 - t0,
            "safe_s": t2 - t0, "peak_at_risk": sampler.peak_risk, "at_risk_at_return": at_return,
            "data_requests": trace["data"], "writers": trace["data_bio_bytes_by_writer"],
            "device": device, "bytes": nbytes}


def table(a, b, path_b):
    def mib(x):
        return "%.1f MiB" % (x / MIB)

    def knobs(r):
        k = r["knobs"]
        parts = ["strict_limit=%s" % k["strict_limit"]] if "strict_limit" in k else []
        if k.get("max_ratio", 100) < 100 and "max_bytes" in k:
            parts.append("max_bytes=%s" % mib(k["max_bytes"]))
        parts.append("max_ratio=%s" % k.get("max_ratio"))
        return " ".join(parts)

    def writers(r):
        total = sum(r["writers"].values()) or 1
        w = {k: v for k, v in r["writers"].items() if v >= total / 100 and k in ("copier", "flusher")}
        names = {"copier": "cp at close()", "flusher": "flusher"}
        return ", ".join("%s %s" % (names[k], mib(v)) for k, v in sorted(w.items())) or "-"

    oa, ob = a["mount_options"].split(","), b["mount_options"].split(",")
    common = [o for o in oa if o in ob]

    def only(mine, other):
        return ",".join(o for o in mine if o not in other) or "(nothing else)"

    rows = [
        ("mount options beyond the common ones", only(oa, ob), only(ob, oa)),
        ("BDI knobs", knobs(a), knobs(b)),
        ("copy returned after", "%.1f s" % a["copy_s"], "%.1f s" % b["copy_s"]),
        ("safe to unplug after (unmount done)", "%.1f s" % a["safe_s"], "%.1f s" % b["safe_s"]),
        ("peak data at risk during the copy", mib(a["peak_at_risk"]), mib(b["peak_at_risk"])),
        ("data at risk when the copy returned", mib(a["at_risk_at_return"]), mib(b["at_risk_at_return"])),
        ("average data write request", "%.0f KiB" % a["data_requests"]["avg_request_kib"],
         "%.0f KiB" % b["data_requests"]["avg_request_kib"]),
        ("data bytes in requests >= 768 KiB", "%.0f %%" % (100 * a["data_requests"]["big_share"]),
         "%.0f %%" % (100 * b["data_requests"]["big_share"])),
        ("who wrote the file data", writers(a), writers(b)),
    ]
    if a["device"] and b["device"]:
        rows += [("stick: writes / jumps", "%d / %d" % (a["device"]["writes"], a["device"]["discontinuities"]),
                  "%d / %d" % (b["device"]["writes"], b["device"]["discontinuities"])),
                 ("stick: busy time", "%.1f s" % a["device"]["busy_s"], "%.1f s" % b["device"]["busy_s"])]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows + [("", "udisks defaults", "")])
    print("\n%-*s  %-*s  %s" % (w0, "", w1, "A: udisks defaults", "B: vfat-smart"))
    for r in rows:
        print("%-*s  %-*s  %s" % (w0, r[0], w1, r[1], r[2]))
    print("\ncommon mount options: %s" % ",".join(common))
    print("B used: %s" % path_b)


def main():
    big, count, kib = (int(x) for x in sys.argv[1:4])
    src, nbytes = make_data(big, count, kib)
    print("data: one %d MiB file and %d files of %d KiB (%.0f MiB), copied by labuser with cp -r"
          % (big, count, kib, nbytes / MIB))
    sh("bash", "-c", ". /run/lab/lib.sh; lab_polkit_allow_user")
    print("polkit: a lab rule lets labuser mount (the guest has no logind, so no active session)")
    with open(IGNORE_RULE, "w") as f:
        f.write('# vfat-smart lab demo, phase A: leave the stick to udisks\' defaults\n'
                'SUBSYSTEM=="block", ENV{ID_SERIAL_SHORT}=="HOTPLUG1", ENV{VFAT_SMART_IGNORE}="1"\n')
    sh("udevadm", "control", "--reload")
    disk = sh("bash", "-c", ". /run/lab/lib.sh; lab_hotplug").strip()
    dev = Device("HOTPLUG1")
    print("hot-plugged the simulated cheap stick: %s (nbd-stick profile cheap-stick)" % disk)

    fresh_fs(dev)
    print("\n== A: udisksctl mount with udisks' built-in defaults (vfat-smart told to ignore the stick)")
    a = phase(dev, "udisks", 0, src, nbytes)
    print("   copy %.1f s, safe %.1f s" % (a["copy_s"], a["safe_s"]))

    fresh_fs(dev)
    print("\n== B: vfat-smart, as installed: udev rule + udisks")
    os.unlink(IGNORE_RULE)
    sh("udevadm", "control", "--reload")
    sh("udevadm", "trigger", "--action=change", disk)
    sh("udevadm", "trigger", "--action=change", dev.part)
    settle()
    time.sleep(1)   # udisks picks up the change event
    plan = json.loads(sh("vfat-smart", "plan", "--json", dev.part))
    props = [l for l in sh("udevadm", "info", "-q", "property", dev.part).splitlines()
             if l.startswith(("VFAT_SMART_", "UDISKS_MOUNT_OPTIONS_"))]
    print("   udev properties of %s:\n     %s" % (dev.part, "\n     ".join(props)))
    if not any(l.startswith("UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=") for l in props):
        raise SystemExit("demo: the project's udev rule did not export udisks' mount options")
    path_b = ("the project's udev rule: vfat-smart-udev applied the knobs and exported "
              "UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS=%s; udisksctl mount as labuser"
              % plan["udisks_defaults"])
    b = phase(dev, "vfat-smart", 1, src, nbytes)
    print("   copy %.1f s, safe %.1f s" % (b["copy_s"], b["safe_s"]))
    table(a, b, path_b)
    with open(os.path.join(os.environ.get("LAB_OUT", "/run/lab/out"), "demo.json"), "w") as f:
        json.dump({"udisks": a, "vfat_smart": b, "path": path_b, "plan": plan}, f, indent=1)
    print("\n$ vfat-smart status")
    print(sh("vfat-smart", "status").rstrip())


if __name__ == "__main__":
    main()

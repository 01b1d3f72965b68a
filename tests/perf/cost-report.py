#!/usr/bin/python3
"""cost-report.py COST_JSON COMMIT: tests/perf/lab-cost's guest figures as markdown"""
import json
import statistics
import sys


def spread(xs):
    return "%.1f (%.1f-%.1f)" % (statistics.median(xs), min(xs), max(xs))


def main():
    c = json.load(open(sys.argv[1]))
    print("Lab guest, Linux %s (QEMU TCG, 2 vCPUs), commit %s, %d runs each; medians (min-max)"
          % (c["kernel"], sys.argv[2], c["reps"]))
    print()
    print("| udev event | CPU ms: vfat-smart-udev | CPU ms: /bin/true | ratio | opens | opens: /bin/true |")
    print("| --- | --- | --- | --- | --- | --- |")
    for u in c["udev"]:
        h, n = u["helper"], u["noop"]
        print("| add, %s (%s) | %s | %s | %.1fx | %d | %d |"
              % (u["devtype"], u["node"], spread(h["cpu_ms"]), spread(n["cpu_ms"]),
                 statistics.median(h["cpu_ms"]) / statistics.median(n["cpu_ms"]), h["opens"], n["opens"]))
    print()
    m = c["mount"]
    vs, v = m["vfat-smart"], m["vfat"]
    print("| mount (then umount) | wall ms | CPU ms |")
    print("| --- | --- | --- |")
    print("| `mount -t vfat-smart` | %s | %s |" % (spread(vs["wall_ms"]), spread(vs["cpu_ms"])))
    print("| `mount -t vfat` | %s | %s |" % (spread(v["wall_ms"]), spread(v["cpu_ms"])))
    print("| vfat-smart over plain, medians | %.1f | %.1f |"
          % (statistics.median(vs["wall_ms"]) - statistics.median(v["wall_ms"]),
             statistics.median(vs["cpu_ms"]) - statistics.median(v["cpu_ms"])))
    print()
    d = c["daemon"]
    split = (" (user %.2f s, system %.2f s)" % (d["daemon_user_s"], d["daemon_system_s"])
             if "daemon_user_s" in d else "")
    print("vfat-smartd while a copy of %d MiB ran (mounted by labuser through udisks) and until the "
          "drive held no dirty data: %.2f s of CPU%s over %.1f s (cp returned after %.1f s): %.1f %% of one CPU."
          % (d["copy_mib"], d["daemon_cpu_s"], split, d["until_clean_s"], d["cp_s"],
             100 * d["share_of_one_cpu"]))


if __name__ == "__main__":
    main()

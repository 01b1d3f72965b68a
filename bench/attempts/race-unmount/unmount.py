#!/usr/bin/env python3
"""Where the unmount's time goes, per run of a bench group, from the nbd-stick log.

usage: unmount.py STICK_LOG.gz RESULTS.jsonl [WORKLOAD]

For every timed run (no warm-up, no yank) it takes the drive's writes from the copy's
return (the run's start marker + copy_s) to its end marker, and prints:
  writes-done  when the last write before the final one came (the data and metadata the
               unmount had to write, and the guest time around them)
  idle         the drive's idle time between that write and the final write (on FAT the
               boot sector's clean flag, written by the kernel's unmount, fat_put_super)
  after        from the final write to the end of `udisksctl unmount`
  busy         the time the drive model charged for the unmount's writes
and the medians per setup. Example (from the repository root):
  bench/attempts/race-unmount/unmount.py bench/attempts/race-unmount/HOTPLUG1.log.gz \\
      bench/raw/race-cheap-6.12/results.jsonl big1g
"""
import bisect
import gzip
import json
import statistics
import sys


def main():
    log, results = sys.argv[1], sys.argv[2]
    workload = sys.argv[3] if len(sys.argv) > 3 else None
    marks, writes = {}, []
    with gzip.open(log, "rt") as f:
        for line in f:
            p = line.split()
            if not p or p[0] == "#":
                continue
            if p[0] == "M":
                marks[int(p[1])] = float(p[2])
            elif p[0] == "W":
                writes.append((float(p[1]), int(p[3]), float(p[5]) / 1000))
    times = [w[0] for w in writes]
    per = {}
    with open(results) as f:
        for line in f:
            r = json.loads(line)
            if r.get("warmup") or r.get("yank") or "umount_s" not in r:
                continue
            if workload and r["workload"] != workload:
                continue
            t0, t2 = marks.get(2 * r["run"]), marks.get(2 * r["run"] + 1)
            if t0 is None or t2 is None:
                continue
            t1 = t0 + r["copy_s"]
            w = writes[bisect.bisect_left(times, t1):bisect.bisect_right(times, t2)]
            if not w:
                continue
            final = w[-1][0]
            before = w[-2][0] if len(w) > 1 else t1
            row = {"umount": r["umount_s"], "writes-done": before - t1, "idle": final - before,
                   "after": t2 - final, "busy": sum(x[2] for x in w),
                   "MiB": sum(x[1] for x in w) / 2**20, "writes": len(w)}
            per.setdefault((r["workload"], r["setup"]), []).append(row)
            print("%-14s %-15s rep %s  " % (r["workload"], r["setup"], r["rep"]) +
                  "  ".join("%s %.2f" % (k, v) if isinstance(v, float) else "%s %d" % (k, v)
                            for k, v in row.items()))
    print("\nmedians:")
    for (wl, setup), rows in sorted(per.items()):
        print("%-14s %-15s n=%d  " % (wl, setup, len(rows)) +
              "  ".join("%s %.2f" % (k, statistics.median(x[k] for x in rows)) for k in rows[0]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Which yank runs of a bench group the old yank analysis judged by another run's writes.

usage: yank-window.py STICK_LOG.gz RESULTS.jsonl

Before session 13 the host's analysis (tests/lab/lib/yank_analyze.py, written_this_run)
took the writes of the run of the log's last Y. The filter logs a Y only when a write
comes after the yank; when none came before the unplug, the analysis used an earlier
run's writes, and "intact" was wrong. For each yank run this prints whether its own
window has a Y, the loss as reported, and the loss counting every block that equalled
the source through the drive's FAT chain (written - matching): a lower bound that needs
no window, since stale blocks of earlier copies only make more blocks match. "unchecked":
no Y in the log yet, so the old analysis compared nothing with the log (stale blocks
counted as intact).
"""
import gzip
import json
import sys

MIB = 1 << 20


def main():
    lines = gzip.open(sys.argv[1], "rt").read().splitlines()
    own, cur = {}, None
    for line in lines:
        p = line.split()
        if p and p[0] == "M" and int(p[1]) % 2 == 0:
            cur = int(p[1]) // 2
            own[cur] = False
        elif p and p[0] == "Y" and cur is not None:
            own[cur] = True
    for line in open(sys.argv[2]):
        r = json.loads(line)
        if not r.get("yank"):
            continue
        i = r["run"]
        earlier = any(v for k, v in own.items() if k < i)
        state = "ok" if own.get(i) else "WRONG RUN" if earlier else "unchecked"
        print("run %2d %-11s own Y %-5s %-9s  lost %.1f MiB as reported, at least %.1f MiB"
              % (i, r["yank"], own.get(i), state,
                 r["lost_bytes"] / MIB, (r["written_bytes"] - r["matching_bytes"]) / MIB))


if __name__ == "__main__":
    main()

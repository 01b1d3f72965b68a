#!/usr/bin/env python3
"""Which yank runs of a bench group the old yank analysis judged by another run's writes.

usage: yank_window.py STICK_LOG.gz RESULTS.jsonl [--write GROUP_DIR/yank-window.json]

Before session 13 the host's analysis (tests/lab/lib/yank_analyze.py, written_this_run)
took the writes of the run of the log's last Y. The filter logs a Y only when a write
comes after the yank; when none came before the unplug, the analysis used an earlier
run's writes, and "intact" was wrong. For each yank run this prints whether its own
window has a Y, the loss as reported, and the loss counting every block that equalled
the source through the drive's FAT chain (written - matching): a lower bound that needs
no window, since stale blocks of earlier copies only make more blocks match. "unchecked":
no Y in the log yet, so the old analysis compared nothing with the log (stale blocks
counted as intact). With --write it also writes {run index: {"window": "another run" or
"unchecked", "lost_at_least_bytes": N}} for the runs that are not "ok", which
bench/lib/report.py shows in the yank tables and the goals. Only for groups analysed
before the fix (commit 7606dcc): a later analysis took the right window, whatever the
log's Y lines say.
"""
import gzip
import json
import sys

MIB = 1 << 20


def classify(lines, runs):
    """[(run, state, own_y)] for the yank runs among RUNS, from the stick log's LINES."""
    own, cur = {}, None
    for line in lines:
        p = line.split()
        if p and p[0] == "M" and int(p[1]) % 2 == 0:
            cur = int(p[1]) // 2
            own[cur] = False
        elif p and p[0] == "Y" and cur is not None:
            own[cur] = True
    out = []
    for r in runs:
        if not r.get("yank"):
            continue
        i = r["run"]
        earlier = any(v for k, v in own.items() if k < i)
        out.append((r, "ok" if own.get(i) else "another run" if earlier else "unchecked", own.get(i)))
    return out


def main():
    args = sys.argv[1:]
    out_path = None
    if "--write" in args:
        k = args.index("--write")
        out_path = args[k + 1]
        del args[k:k + 2]
    lines = gzip.open(args[0], "rt").read().splitlines()
    runs = [json.loads(line) for line in open(args[1]) if line.strip()]
    flagged = {}
    for r, state, own_y in classify(lines, runs):
        least = r["written_bytes"] - r["matching_bytes"]
        print("run %2d %-11s own Y %-5s %-11s  lost %.1f MiB as reported, at least %.1f MiB"
              % (r["run"], r["yank"], own_y, state, r["lost_bytes"] / MIB, least / MIB))
        if state != "ok":
            flagged[str(r["run"])] = {"window": state, "lost_at_least_bytes": least}
    if out_path:
        with open(out_path, "w") as f:
            json.dump(flagged, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()

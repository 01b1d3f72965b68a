#!/usr/bin/env python3
"""Re-price the logged device writes of a scenario run at other jump costs.

Usage: replay-jumps.py RUN-DIR SEEK-MS-OF-THE-RUN [SEEK-MS ...]  > replay.jsonl

RUN-DIR is a run-scenario output (results.jsonl, stick/NBDSTICK1.log). For every run
(between its two markers in the nbd-stick log) the device busy time is summed from the
logged cost of each write (size/bandwidth + command + the run's jump cost on each
discontinuous write), then recomputed with each other jump cost: the same request
stream priced differently. It is not a re-run: with a slower or faster device the
kernel's writeback would interleave differently. One JSON line per run: scenario, run,
rep, config, workload, warmup, writes, jumps, busy_s (as logged), busy_s_at (seek ms ->
s), check_s (the logged busy time recomputed at the run's own jump cost, which must
equal busy_s: it validates the parsing).
"""
import json
import os
import sys


def segments(log):
    """{marker index: (writes [(discont, cost_ms)])} between marker 2k and 2k+1."""
    runs, cur, idx = {}, None, None
    with open(log) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "M":
                m = int(p[1])
                if m % 2 == 0:
                    cur, idx = [], m // 2
                else:
                    if cur is not None and idx == m // 2:
                        runs[idx] = cur
                    cur = None
            elif p[0] == "W" and cur is not None:
                cur.append((int(p[4]), float(p[5])))
    return runs


def main():
    run_dir, own = sys.argv[1], float(sys.argv[2])
    others = [float(x) for x in sys.argv[3:]]
    log = os.path.join(run_dir, "stick", "NBDSTICK1.log")
    segs = segments(log)
    with open(os.path.join(run_dir, "results.jsonl")) as f:
        results = [json.loads(l) for l in f if l.startswith("{")]
    for r in results:
        w = segs.get(r["run"])
        if w is None:
            continue
        jumps = sum(d for d, _ in w)
        total_ms = sum(c for _, c in w)
        base_ms = total_ms - own * jumps
        out = {k: r.get(k) for k in ("scenario", "run", "rep", "config", "workload", "warmup")}
        out.update({
            "writes": len(w), "jumps": jumps,
            "busy_s": (r.get("device") or {}).get("busy_s"),
            "check_s": round(total_ms / 1000, 3),
            "busy_s_at": {("%g" % s): round((base_ms + s * jumps) / 1000, 3) for s in [own] + others},
        })
        print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()

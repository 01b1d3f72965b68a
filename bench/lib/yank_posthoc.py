#!/usr/bin/env python3
"""yank_posthoc.py - correct yank results whose analysis counted stale blocks.

Usage: yank_posthoc.py RAW_GROUP_DIR --runs N,N,.. (--image IMG | --data-start B --cluster-bytes B)
  IMG: any image the bench made, for the FAT geometry (every run makes the same file
  system, mkfs.vfat -F 32 -s 64 on the 4 GiB profile image: data area at byte 2129920 of
  the disk, 32 KiB clusters)

Until 2026-12-01 09:55 UTC the host's yank analysis (tests/lab/lib/yank_analyze.py)
counted every block of the copy that it found through the drive's FAT chain and that
equalled the source. The drive's image is reused between runs and mkfs does not erase
data clusters, so blocks written by an earlier copy of the same source looked intact
although this copy had not written them. The analysis now also requires the block to
have been written during the run (from the nbd-stick request log). For the yanks done
before that fix, the image at the yank is gone, but the request log is kept
(RAW_GROUP_DIR/stick/HOTPLUG1.log.gz): this script recomputes intact bytes as the bytes
of the reachable prefix found then (the old count; one file on a fresh FAT32 is
allocated in one contiguous run from cluster 3, as mshowfat showed in the lab) that the
drive wrote between the run's start marker and its yank. Writes
RAW_GROUP_DIR/yank-posthoc.json: {run index: {intact_bytes, lost_bytes, lost_device_s,
method}}; report.py uses it for the runs whose analysis was not checked against the log.
Only single big-file yanks are corrected; anything else is left out (and stays flagged).
"""
import argparse
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lab", "lib"))
from yank_analyze import covered, fat_geometry, partition, written_per_run  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("group")
    ap.add_argument("--image")
    ap.add_argument("--data-start", type=int)
    ap.add_argument("--cluster-bytes", type=int)
    ap.add_argument("--runs", required=True, help="comma-separated run indices analysed before the fix")
    a = ap.parse_args()
    if a.image:
        data0, csize = fat_geometry(a.image, partition(a.image)[0])
    elif a.data_start is not None and a.cluster_bytes:
        data0, csize = a.data_start, a.cluster_bytes
    else:
        sys.exit("yank_posthoc: --image, or --data-start and --cluster-bytes")
    logp = os.path.join(a.group, "stick", "HOTPLUG1.log.gz")
    opener = gzip.open if os.path.exists(logp) else open
    if not os.path.exists(logp):
        logp = logp[:-3]
    with opener(logp, "rt") as f:
        segs = written_per_run(f.read().splitlines())
    runs = [json.loads(l) for l in open(os.path.join(a.group, "results.jsonl")) if l.startswith("{")]
    out = {}
    for r in runs:
        if not r.get("yank") or str(r["run"]) not in a.runs.split(",") or r.get("files", 1) != 1:
            continue
        iv = segs.get(2 * r["run"])
        if iv is None:
            continue
        # cluster 2 is the root directory, the file's first cluster is 3
        file0 = data0 + csize
        reach = r["intact_bytes"]            # the old count: the reachable, matching prefix
        fresh = 0
        step = 4096
        for off in range(0, reach, step):
            n = min(step, reach - off)
            if covered(iv, file0 + off, n):
                fresh += n
        lost = r["written_bytes"] - fresh
        out[str(r["run"])] = {"intact_bytes": fresh, "lost_bytes": lost,
                              "lost_device_s": round(lost / r["bw"], 2), "old_intact_bytes": reach,
                              "file_start_offset": file0, "cluster_bytes": csize, "data_start": data0,
                              "method": "post hoc from the request log (see bench/lib/yank_posthoc.py)"}
    with open(os.path.join(a.group, "yank-posthoc.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

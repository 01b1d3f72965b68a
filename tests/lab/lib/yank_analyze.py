#!/usr/bin/env python3
"""yank_analyze.py - what survived on a pulled drive: read a FAT image offline, on the host.

Usage: yank_analyze.py --image IMG --src SRC --dst NAME [--stick-log LOG] [--work DIR]
  IMG   the disk image of the simulated drive (MBR with one partition, or a superfloppy),
        frozen at the instant of the yank (the nbd-stick filter drops every later write)
  SRC   the copy's source on the host: a file, or a directory tree
  NAME  where the copy went on the drive, relative to its root ("big.bin", "files")
  LOG   the nbd-stick request log of the drive (default: RUN/share/stick/HOTPLUG1.log
        next to a guest-run's hotplug.img): only blocks the drive wrote during this run
        (between the run's start marker and the yank) count as intact. The image is reused
        between runs and mkfs does not erase data clusters, so a block can hold the same
        bytes from an earlier copy of the same source: found through the new FAT chain,
        it would look intact although this copy never wrote it.

Prints one JSON object:
  source_bytes   bytes in SRC
  intact_bytes   bytes of SRC that a person finds on the drive: reachable through a
                 directory entry and its FAT chain (mtools reads the file as any other
                 computer would: the size from the entry, the clusters from the FAT),
                 equal to the source at the same offset (per 4 KiB block: a block
                 counts when all of it is equal) and written by this run (see LOG)
  matching_bytes the same without the last condition (stale blocks included)
  files, files_found, files_intact   counts (a file is intact when all its bytes are)
  fsck_rc, fsck       `fsck.fat -n` (read-only check) exit status and its last lines
The host kernel needs no vfat: mtools and fsck.fat read the image directly (fsck.fat
through a read-only loop device at the partition's offset, or a copy of the partition
when loop devices are unavailable).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

BLOCK = 4096


def partition(image):
    """(offset, size) in bytes of the file system: MBR partition 1, or the whole image."""
    with open(image, "rb") as f:
        mbr = f.read(512)
    size = os.path.getsize(image)
    if len(mbr) == 512 and mbr[510:512] == b"\x55\xaa":
        ptype = mbr[446 + 4]
        start, count = struct.unpack_from("<II", mbr, 446 + 8)
        # a FAT boot sector also ends in 55 AA: a partition table has a type and a start
        if ptype != 0 and start > 0 and mbr[0] not in (0xEB, 0xE9):
            return start * 512, count * 512
    return 0, size


def compare(src, got, where=None, written=None):
    """(bytes of SRC found at the same offsets in GOT, of those the bytes whose device
    range WHERE(file offset) lies in the WRITTEN intervals); (0, 0) for a missing file."""
    if got is None or not os.path.exists(got):
        return 0, 0
    match = fresh = 0
    off = 0
    with open(src, "rb") as a, open(got, "rb") as b:
        while True:
            x = a.read(BLOCK)
            if not x:
                break
            y = b.read(BLOCK)
            if x == y[:len(x)]:
                match += len(x)
                if written is None:
                    fresh += len(x)
                else:
                    d = where(off)
                    if d is not None and covered(written, d, len(x)):
                        fresh += len(x)
            off += len(x)
    return match, fresh


def covered(intervals, start, n):
    """Is [start, start+n) inside one of the merged, sorted INTERVALS?"""
    import bisect
    i = bisect.bisect_right(intervals, (start, float("inf"))) - 1
    return i >= 0 and intervals[i][0] <= start and start + n <= intervals[i][1]


def merge(intervals):
    """The (start, end) INTERVALS sorted, the overlapping and touching ones joined."""
    merged = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def is_run_start(p):
    """Is the split log line P a run's start marker (an even M; odd ones end a run)?"""
    return p[0] == "M" and int(p[1]) % 2 == 0


def written(lines):
    """The merged byte ranges of the W (write) requests among the request LOG's LINES."""
    iv = []
    for l in lines:
        p = l.split()
        if p and p[0] == "W":
            iv.append((int(p[2]), int(p[2]) + int(p[3])))
    return merge(iv)


def written_per_run(lines):
    """{start marker: the merged ranges written from it up to the Y (yank) that follows
    it, or up to the next start marker when no write came after the yank (then the filter
    logs no Y; the next run's mkfs writes only the FATs and the root directory, before its
    marker)}; writes before the first marker and after a Y belong to no run, and the last
    run is left out when the log ends before its yank."""
    out, cur, first = {}, None, 0
    for i, l in enumerate(lines):
        p = l.split()
        if not p:
            continue
        if is_run_start(p):
            if cur is not None:
                out[cur] = written(lines[first:i])
            cur, first = int(p[1]), i + 1
        elif p[0] == "Y" and cur is not None:
            out[cur] = written(lines[first:i])
            cur = None
    return out


def written_this_run(log):
    """Merged (start, end) byte ranges the drive wrote in the run being analysed: from the
    log's last run start marker (an even M: the analysis runs right after that run's yank,
    before the next run) to the first Y after it, or to the log's end when there is none
    (no write came between the yank and the unplug, so the filter dropped nothing and
    logged no Y). None if the log has no run start marker. Until session 13 it took the
    run of the log's last Y, an earlier run's when this one logged none."""
    with open(log) as f:
        lines = f.read().splitlines()
    start = max((i for i, l in enumerate(lines) if l.split() and is_run_start(l.split())), default=None)
    if start is None:
        return None
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("Y ")), len(lines))
    return written(lines[start:end])


def fat_geometry(image, offset):
    """(first data byte in the image, cluster bytes) of the FAT32 file system at OFFSET."""
    with open(image, "rb") as f:
        f.seek(offset)
        b = f.read(512)
    bps = struct.unpack_from("<H", b, 11)[0]
    spc = b[13]
    reserved = struct.unpack_from("<H", b, 14)[0]
    nfats = b[16]
    fatsz = struct.unpack_from("<H", b, 22)[0] or struct.unpack_from("<I", b, 36)[0]
    return offset + (reserved + nfats * fatsz) * bps, spc * bps


def chain(image, offset, path, env):
    """The file's clusters, in order, from mshowfat (e.g. "::/big.bin <3-8319> <9000-9001>")."""
    import re
    p = subprocess.run(["mshowfat", "-i", "%s@@%d" % (image, offset), "::/" + path], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = []
    for a, b in re.findall(r"<(\d+)(?:-(\d+))?>", p.stdout):
        out.extend(range(int(a), int(b or a) + 1))
    return out


def run_fsck(image, offset, size, tool="fsck.fat"):
    """TOOL -n (fsck.fat or fsck.exfat) on the partition at OFFSET of IMAGE, through a
    read-only loop device, else a sparse copy of the partition: (exit status, the name it
    checked, its non-empty output lines)."""
    loop = None
    tmp = None
    try:
        try:
            loop = subprocess.run(["losetup", "-r", "-f", "--show", "-o", str(offset),
                                   "--sizelimit", str(size), image], check=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True).stdout.strip()
            target = loop
        except (OSError, subprocess.CalledProcessError):
            fd, tmp = tempfile.mkstemp(prefix="yank-part-")
            os.close(fd)
            subprocess.run(["dd", "if=" + image, "of=" + tmp, "bs=1M", "iflag=skip_bytes,count_bytes",
                            "skip=%d" % offset, "count=%d" % size, "conv=sparse", "status=none"],
                           check=True)
            target = tmp
        p = subprocess.run([tool, "-n", target], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        return p.returncode, target, [l for l in p.stdout.splitlines() if l.strip()]
    finally:
        if loop:
            subprocess.run(["losetup", "-d", loop], check=False)
        if tmp:
            os.unlink(tmp)


def fsck(image, offset, size):
    """fsck.fat -n on the partition: its exit status and last lines."""
    rc, _, lines = run_fsck(image, offset, size)
    return rc, lines[-8:]


def analyze(image, src, dst, work, stick_log=None):
    offset, size = partition(image)
    written = written_this_run(stick_log) if stick_log and os.path.exists(stick_log) else None
    data0, csize = fat_geometry(image, offset)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1", MTOOLS_NO_VFAT="0", LC_ALL="C")
    out = os.path.join(work, "recovered")
    os.makedirs(out)
    # mcopy -s copies a tree; a missing or unreadable entry is simply not there
    subprocess.run(["mcopy", "-s", "-n", "-p", "-i", "%s@@%d" % (image, offset), "::/" + dst, out + "/"],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    files = []
    if os.path.isdir(src):
        for root, _, names in os.walk(src):
            for n in sorted(names):
                p = os.path.join(root, n)
                rel = os.path.relpath(p, src)
                files.append((p, os.path.join(out, os.path.basename(dst), rel), dst + "/" + rel))
    else:
        files.append((src, os.path.join(out, os.path.basename(dst)), dst))
    res = {"source_bytes": 0, "intact_bytes": 0, "matching_bytes": 0, "files": len(files),
           "files_found": 0, "files_intact": 0, "written_ranges": len(written) if written else None,
           "checked_against_log": written is not None}
    for s, g, onstick in files:
        n = os.path.getsize(s)
        where = None
        if written is not None and os.path.exists(g):
            cl = chain(image, offset, onstick, env)

            def where(off, cl=cl):
                k = off // csize
                return data0 + (cl[k] - 2) * csize + off % csize if k < len(cl) else None
        match, ok = compare(s, g, where, written)
        res["source_bytes"] += n
        res["intact_bytes"] += ok
        res["matching_bytes"] += match
        res["files_found"] += os.path.exists(g)
        res["files_intact"] += ok == n
    res["fsck_rc"], res["fsck"] = fsck(image, offset, size)
    res["partition_offset"] = offset
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--work")
    ap.add_argument("--stick-log")
    a = ap.parse_args()
    if a.stick_log is None and os.path.basename(a.image) == "hotplug.img":
        a.stick_log = os.path.join(os.path.dirname(a.image), "share", "stick", "HOTPLUG1.log")
    if not a.dst or a.dst.startswith("/") or ".." in a.dst.split("/"):
        sys.exit("yank_analyze: --dst must be a relative path on the drive")
    work = tempfile.mkdtemp(prefix="yank-", dir=a.work)
    try:
        print(json.dumps(analyze(a.image, a.src, a.dst, work, a.stick_log), sort_keys=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

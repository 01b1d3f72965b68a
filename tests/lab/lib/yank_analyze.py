#!/usr/bin/env python3
"""yank_analyze.py - what survived on a pulled drive: read a FAT image offline, on the host.

Usage: yank_analyze.py --image IMG --src SRC --dst NAME [--work DIR]
  IMG   the disk image of the simulated drive (MBR with one partition, or a superfloppy),
        frozen at the instant of the yank (the nbd-stick filter drops every later write)
  SRC   the copy's source on the host: a file, or a directory tree
  NAME  where the copy went on the drive, relative to its root ("big.bin", "files")

Prints one JSON object:
  source_bytes   bytes in SRC
  intact_bytes   bytes of SRC that a person finds on the drive: reachable through a
                 directory entry and its FAT chain (mtools reads the file as any other
                 computer would: the size from the entry, the clusters from the FAT) and
                 equal to the source at the same offset (per 4 KiB block: a block
                 counts when all of it is equal)
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


def compare(src, got):
    """Bytes of SRC found at the same offsets in GOT (None: missing file)."""
    if got is None or not os.path.exists(got):
        return 0
    intact = 0
    with open(src, "rb") as a, open(got, "rb") as b:
        while True:
            x = a.read(BLOCK)
            if not x:
                break
            y = b.read(BLOCK)
            if x == y[:len(x)]:
                intact += len(x)
    return intact


def fsck(image, offset, size):
    """fsck.fat -n on the partition: read-only loop device, else a copy."""
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
        p = subprocess.run(["fsck.fat", "-n", target], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        return p.returncode, lines[-8:]
    finally:
        if loop:
            subprocess.run(["losetup", "-d", loop], check=False)
        if tmp:
            os.unlink(tmp)


def analyze(image, src, dst, work):
    offset, size = partition(image)
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
                files.append((p, os.path.join(out, os.path.basename(dst), os.path.relpath(p, src))))
    else:
        files.append((src, os.path.join(out, os.path.basename(dst))))
    res = {"source_bytes": 0, "intact_bytes": 0, "files": len(files), "files_found": 0,
           "files_intact": 0}
    for s, g in files:
        n = os.path.getsize(s)
        ok = compare(s, g)
        res["source_bytes"] += n
        res["intact_bytes"] += ok
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
    a = ap.parse_args()
    if not a.dst or a.dst.startswith("/") or ".." in a.dst.split("/"):
        sys.exit("yank_analyze: --dst must be a relative path on the drive")
    work = tempfile.mkdtemp(prefix="yank-", dir=a.work)
    try:
        print(json.dumps(analyze(a.image, a.src, a.dst, work), sort_keys=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

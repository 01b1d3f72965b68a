#!/usr/bin/env python3
"""mkimage.py - make a sparse disk image with one FAT32 or exFAT file system (lab use).

Usage: mkimage.py IMAGE SIZE_MIB LAYOUT FS LABEL VOLUME_ID [CLUSTER_KIB]
  LAYOUT  mbr (one partition from 1 MiB to 1 MiB before the end, disk id = VOLUME_ID)
          or whole (no partition table: a "superfloppy")
  FS      vfat (FAT32) or exfat
  VOLUME_ID  8 hex digits; exFAT gets it too (mkfs.exfat cannot set it: patched here,
             with the boot checksum recomputed), so recordings are reproducible.
The last MiB of an mbr image stays outside the partition: the nbd-stick marker area.
"""
import os
import struct
import subprocess
import sys
import tempfile

MIB = 1024 * 1024


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def exfat_set_serial(path, serial):
    """Write the volume serial into both boot regions and fix their checksums."""
    with open(path, "r+b") as f:
        main = bytearray(f.read(512 * 12))
        sector = struct.unpack_from("<B", main, 108)[0]       # BytesPerSectorShift
        size = 1 << sector
        f.seek(0)
        for region in (0, 12):
            f.seek(region * size)
            boot = bytearray(f.read(size * 12))
            struct.pack_into("<I", boot, 100, serial)
            csum = 0
            for i, b in enumerate(boot[: size * 11]):
                if i in (106, 107, 112):                          # VolumeFlags, PercentInUse
                    continue
                csum = (((csum << 31) | (csum >> 1)) + b) & 0xFFFFFFFF
            boot[size * 11:] = struct.pack("<I", csum) * (size // 4)
            f.seek(region * size)
            f.write(boot)


def make_fs(path, size, fs, label, volid, cluster_kib):
    with open(path, "wb") as f:
        f.truncate(size)
    if fs == "vfat":
        cmd = ["mkfs.vfat", "-F", "32", "-n", label, "-i", "%08X" % volid]
        if cluster_kib:
            cmd += ["-s", str(cluster_kib * 2)]
        run(*cmd, path)
    elif fs == "exfat":
        cmd = ["mkfs.exfat", "-L", label]
        if cluster_kib:
            cmd += ["-c", "%dK" % cluster_kib]
        run(*cmd, path)
        exfat_set_serial(path, volid)
    else:
        raise SystemExit("mkimage: unknown file system %r" % fs)


def main():
    if len(sys.argv) not in (7, 8):
        raise SystemExit(__doc__)
    image, size_mib, layout, fs, label, volid = sys.argv[1:7]
    cluster_kib = int(sys.argv[7]) if len(sys.argv) == 8 else 0
    size, volid = int(size_mib) * MIB, int(volid, 16)
    if layout == "whole":
        make_fs(image, size, fs, label, volid, cluster_kib)
        return
    if layout != "mbr":
        raise SystemExit("mkimage: layout must be mbr or whole")
    with open(image, "wb") as f:
        f.truncate(size)
    part_type = "c" if fs == "vfat" else "7"
    table = "label: dos\nlabel-id: 0x%08x\nstart=2048, size=%d, type=%s\n" % (
        volid, (size - 2 * MIB) // 512, part_type)
    subprocess.run(["sfdisk", "-q", image], input=table.encode(), check=True, stdout=subprocess.DEVNULL)
    with tempfile.NamedTemporaryFile(dir=os.path.dirname(os.path.abspath(image)), suffix=".fs") as tmp:
        make_fs(tmp.name, size - 2 * MIB, fs, label, volid, cluster_kib)
        run("dd", "if=" + tmp.name, "of=" + image, "bs=1M", "seek=1", "conv=notrunc,sparse", "status=none")


if __name__ == "__main__":
    main()

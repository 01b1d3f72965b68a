#!/usr/bin/python3
"""pull_replay.py - what a person keeps when the stick is pulled at any moment of a copy.

Usage: pull_replay.py GROUP_DIR [--delete-journal] [--fractions 0.1,0.2,..] [--reference SETUP]

A bench group run with "pulls": true (bench/run passes --stick-journal to guest-run) has,
next to its raw results, the drive's write journal and its image at the start
(GROUP_DIR/journal/HOTPLUG1.journal, HOTPLUG1.base.img; format in
tests/lab/nbd-stick/stick-filter.c). The image at any instant T is the start image with
every write the drive had completed by T applied: exactly what a pull at T leaves (the
model drive keeps no cache of its own; a write still in progress at T counts as not
written). Each timed run (not the warm-up) is pulled, offline, at:
  "t"           every 10 % of the reference setup's median time to safe in this group
                and workload (udisks' default when the group has it), the same wall-clock
                moments for every setup
  "return"      when cp returned (the file manager's "done")
  "return+0.5s", "return+1s", "return+2s"
  "notice", "notice-0.5s"
                when vfat-smartd's Safe turned true after the copy (the agent's "safe to
                unplug"; groups with "after_return_s", where the drive is left alone
                after cp returned), and half a second before it
Per pull (one JSON line in GROUP_DIR/pulls.jsonl):
  files_total, files_intact   a file is intact when its directory entry is on the drive
                              with the source's size and every byte of it, through the
                              entry's FAT chain, equals the source and was written by this
                              run (the image is reused between runs: stale blocks of an
                              earlier copy of the same source do not count)
  bytes_written               what cp had write()n by then (its wchar, sampled in the
                              guest, interpolated; all of it once cp returned)
  bytes_intact                bytes of the source found so (partial files included)
  progress_lost_s             seconds of the copy's own progress lost: the pull's moment
                              (cp's return, for a pull after it) minus the moment cp had
                              written the intact prefix of the copy (the files in cp's
                              order up to the first one not intact, and that one's intact
                              beginning); 0 when the whole copy is intact
  progress_lost_files_s       the same counting whole files only
  fsck                        fsck.fat -n (fsck.exfat -n) on the image: "clean",
                              "dirty-bit" (findings only the dirty bit and the free-cluster
                              count, which a mount or fsck corrects without loss) or
                              "damaged" (anything else: lost clusters, cross-links, bad
                              entries, sizes), its lines in fsck_lines
The copy's order is cp's (bench/guest/bench.py copy_order, GROUP_DIR/copy-order/); each
run's last pull checks it against the order of the entries on the drive (order_checked).
FAT32 and exFAT (exFAT's dirty flag is read from its boot sector, since fsck.exfat -n does
not report it; every finding of fsck.exfat counts as damage). --delete-journal deletes
the journal and the start image afterwards (they take as much disk as the guest wrote).
"""
import argparse
import glob
import gzip
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
from array import array

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lab", "lib"))
from yank_analyze import partition, run_fsck  # noqa: E402

SECTOR = 512
BLOCK = 4096
HDR = 32
POINTS_AFTER = (("return", 0.0), ("return+0.5s", 0.5), ("return+1s", 1.0), ("return+2s", 2.0))


# ----------------------------------------------------------------------- the journal
def journal_records(path):
    """(time_s, kind, offset, count, data or None) in the order the drive applied them."""
    with open(path, "rb") as f:
        while True:
            h = f.read(HDR)
            if not h:
                return
            if len(h) != HDR or h[:4] != b"VSJ1" or h[4:5] not in (b"W", b"Z"):
                raise SystemExit("pull_replay: %s: bad record at byte %d" % (path, f.tell() - len(h)))
            t, off, n = struct.unpack_from("<dQI", h, 8)
            data = None
            if h[4:5] == b"W":
                data = f.read(n)
                if len(data) != n:
                    raise SystemExit("pull_replay: %s: truncated record at byte %d" % (path, f.tell()))
            yield t, h[4:5].decode(), off, n, data


class Replay:
    """A working copy of the start image, moved forward through the journal; per sector
    the time of its last write (-1: not written in this session)."""

    def __init__(self, base, journal, work):
        self.path = os.path.join(work, "image")
        subprocess.run(["cp", "--sparse=always", base, self.path], check=True)
        self.size = os.path.getsize(self.path)
        self.f = open(self.path, "r+b")
        self.last = array("d", [-1.0]) * (self.size // SECTOR + 1)
        self.it = journal_records(journal)
        self.pending = next(self.it, None)
        self.now = -1.0

    def advance(self, t):
        """Apply every record completed by T (host clock of the stick)."""
        if t < self.now:
            raise SystemExit("pull_replay: pulls out of order (%.3f after %.3f)" % (t, self.now))
        while self.pending is not None and self.pending[0] <= t:
            tt, kind, off, n, data = self.pending
            self.f.seek(off)
            self.f.write(data if kind == "W" else bytes(n))
            a, b = off // SECTOR, (off + n + SECTOR - 1) // SECTOR
            self.last[a:b] = array("d", [tt]) * (b - a)
            self.pending = next(self.it, None)
        self.f.flush()
        self.now = t

    def read(self, off, n):
        self.f.seek(off)
        return self.f.read(n)

    def close(self):
        self.f.close()


# ------------------------------------------------------------------ FAT32 and exFAT
class Entry(tuple):
    """A directory entry: name, is_dir, first cluster, size (the file's length as a reader
    sees it), whether its clusters are contiguous without a FAT chain (exFAT's NoFatChain)
    and how much of it was written (exFAT's valid data length: a reader gets zeroes
    beyond it; FAT: the size)."""
    __slots__ = ()

    def __new__(cls, name, is_dir, first, size, contiguous=False, valid=None):
        return tuple.__new__(cls, (name, is_dir, first, size, contiguous, size if valid is None else valid))

    name = property(lambda s: s[0])
    is_dir = property(lambda s: s[1])
    first = property(lambda s: s[2])
    size = property(lambda s: s[3])
    contiguous = property(lambda s: s[4])
    valid = property(lambda s: s[5])


class FatFs:
    """What both readers share: directory listings (cached: one reader per pull, the
    image does not change under it), lookup by path, the order of the entries."""

    def __init__(self, img):
        self.img = img
        self.dirs = {}

    def fat_chain(self, first, limit, end):
        out, c = [], first
        while 2 <= c < len(self.fat) and c < end and len(out) < limit:
            out.append(c)
            c = self.fat[c] & self.mask
        return out

    def clusters(self, e, limit):
        """E's clusters, at most LIMIT."""
        if e.contiguous:
            return list(range(e.first, e.first + limit)) if e.first >= 2 else []
        return self.fat_chain(e.first, limit, self.chain_end)

    def cluster_off(self, c):
        return self.heap + (c - 2) * self.csize

    def entries(self, d):
        """[Entry] of directory entry D, in entry order."""
        if d.first not in self.dirs:
            self.dirs[d.first] = self.read_dir(d)
        return self.dirs[d.first]

    def lookup(self, path):
        """The Entry of PATH ("a/b"), or None."""
        cur = self.root
        for part in [p for p in path.split("/") if p]:
            if not cur.is_dir:
                return None
            ents = self.entries(cur)
            # FAT and exFAT names compare without case (an 8.3 name may come back in capitals)
            hit = [e for e in ents if e.name == part] or [e for e in ents if e.name.lower() == part.lower()]
            if not hit:
                return None
            cur = hit[0]
        return cur

    def walk_order(self, d, rel=""):
        """Files under directory entry D in entry order, a subdirectory whole before the
        next entry (the order cp created them in, on a fresh file system)."""
        out = []
        for e in self.entries(d):
            r = rel + "/" + e.name if rel else e.name
            if e.is_dir:
                out += self.walk_order(e, r)
            else:
                out.append(r)
        return out


def u32_array(raw):
    a = array("I", raw)
    if sys.byteorder != "little":
        a.byteswap()
    return a


class Fat32(FatFs):
    kind = "vfat"
    mask, chain_end = 0x0FFFFFFF, 0x0FFFFFF7

    def __init__(self, img, offset):
        super().__init__(img)
        b = img.read(offset, 512)
        bps = struct.unpack_from("<H", b, 11)[0]
        spc = b[13]
        reserved = struct.unpack_from("<H", b, 14)[0]
        nfats = b[16]
        fatsz = struct.unpack_from("<I", b, 36)[0]
        if bps not in (512, 1024, 2048, 4096) or not spc or not fatsz or b[82:87] != b"FAT32":
            raise ValueError("not a FAT32 file system")
        self.csize = bps * spc
        self.heap = offset + (reserved + nfats * fatsz) * bps
        self.fat = u32_array(img.read(offset + reserved * bps, fatsz * bps))
        self.root = Entry("", True, struct.unpack_from("<I", b, 44)[0], 0)
        self.dirty = bool(b[65] & 1)

    def read_dir(self, d):
        out, lfn = [], {}
        for c in self.clusters(d, 1 << 16):
            buf = self.img.read(self.cluster_off(c), self.csize)
            for i in range(0, len(buf), 32):
                e = buf[i:i + 32]
                if e[0] == 0:
                    return out
                if e[0] == 0xE5:
                    lfn = {}
                    continue
                attr = e[11]
                if attr == 0x0F:
                    part = e[1:11] + e[14:26] + e[28:32]
                    lfn[e[0] & 0x1F] = part.decode("utf-16-le", "replace").split("\x00")[0].replace("\uffff", "")
                    continue
                if attr & 0x08:
                    lfn = {}
                    continue
                if lfn:
                    name = "".join(lfn[k] for k in sorted(lfn))
                else:
                    base, ext = e[0:8].decode("latin-1").rstrip(), e[8:11].decode("latin-1").rstrip()
                    # Windows NT's case bits (what Linux and mtools write for a lowercase 8.3 name)
                    base = base.lower() if e[12] & 0x08 else base
                    ext = ext.lower() if e[12] & 0x10 else ext
                    name = base + ("." + ext if ext else "")
                lfn = {}
                if name in (".", ".."):
                    continue
                first_c = struct.unpack_from("<H", e, 20)[0] << 16 | struct.unpack_from("<H", e, 26)[0]
                out.append(Entry(name, bool(attr & 0x10), first_c, struct.unpack_from("<I", e, 28)[0]))
        return out


class ExFat(FatFs):
    """exFAT (the file system of sticks >= 64 GB and SDXC cards): entry sets of a File
    entry (0x85), its Stream Extension (0xC0: NoFatChain, valid data length, first
    cluster, data length) and File Name entries (0xC1)."""
    kind = "exfat"
    mask, chain_end = 0xFFFFFFFF, 0xFFFFFFF7

    def __init__(self, img, offset):
        super().__init__(img)
        b = img.read(offset, 512)
        if b[3:11] != b"EXFAT   ":
            raise ValueError("not an exFAT file system")
        bps, spc = 1 << b[108], 1 << b[109]
        self.csize = bps * spc
        fat_off, fat_len, heap_off = struct.unpack_from("<III", b, 80)
        self.heap = offset + heap_off * bps
        self.fat = u32_array(img.read(offset + fat_off * bps, fat_len * bps))
        self.root = Entry("", True, struct.unpack_from("<I", b, 96)[0], 0)
        self.dirty = bool(struct.unpack_from("<H", b, 106)[0] & 2)

    def read_dir(self, d):
        limit = -(-d.size // self.csize) if d.size else 1 << 16
        data = b"".join(self.img.read(self.cluster_off(c), self.csize) for c in self.clusters(d, limit))
        out, i = [], 0
        while i + 32 <= len(data):
            t = data[i]
            if t == 0:
                break
            if t != 0x85:
                i += 32
                continue
            count = data[i + 1]
            attr = struct.unpack_from("<H", data, i + 4)[0]
            s = data[i + 32:i + 64]
            if len(s) < 32 or s[0] != 0xC0:
                i += 32
                continue
            nlen = s[3]
            valid, first, length = (struct.unpack_from("<Q", s, 8)[0], struct.unpack_from("<I", s, 20)[0],
                                    struct.unpack_from("<Q", s, 24)[0])
            name = ""
            for k in range(2, count + 1):
                n = data[i + 32 * k:i + 32 * k + 32]
                if len(n) == 32 and n[0] == 0xC1:
                    name += n[2:32].decode("utf-16-le", "replace")
            is_dir = bool(attr & 0x10)
            # a reader gets the valid data length; beyond it, zeroes
            out.append(Entry(name[:nlen], is_dir, first, length, bool(s[1] & 2), valid))
            i += 32 * (count + 1)
        return out


def open_fs(img, offset):
    """Fat32 or ExFat of the partition at OFFSET, or None (no boot sector: the pull came
    before the file system was written, or it is damaged)."""
    for cls in (Fat32, ExFat):
        try:
            return cls(img, offset)
        except ValueError:
            pass
    return None


def file_intact(fs, img, src_path, src_size, onstick, run_start):
    """(intact bytes, intact prefix bytes, complete) of one file on the drive."""
    hit = fs.lookup(onstick)
    if hit is None or hit.is_dir:
        return 0, 0, False
    size = hit.size
    # what a reader gets of the source's bytes: up to the entry's size, and on exFAT up
    # to its valid data length (zeroes after it)
    n = min(size, src_size, hit.valid)
    if n == 0:
        return 0, 0, size == src_size == 0
    chain = fs.clusters(hit, -(-n // fs.csize))
    intact = prefix = 0
    in_prefix = True
    with open(src_path, "rb") as src:
        # contiguous clusters read as one extent
        k = 0
        while k < len(chain) and k * fs.csize < n:
            j = k
            while j + 1 < len(chain) and chain[j + 1] == chain[j] + 1 and (j + 1 - k) < 128:
                j += 1
            start = k * fs.csize
            length = min((j + 1) * fs.csize, n) - start
            dev = fs.cluster_off(chain[k])
            got = img.read(dev, length)
            src.seek(start)
            want = src.read(length)
            s0 = dev // SECTOR
            last = img.last[s0:s0 + -(-length // SECTOR)]
            if got == want and len(last) and min(last) >= run_start:
                ok_bytes = [length]                  # the whole extent, the common case
            else:
                ok_bytes = []
                for b in range(0, length, BLOCK):
                    n_b = min(BLOCK, length - b)
                    fresh = min(last[b // SECTOR:(b + n_b + SECTOR - 1) // SECTOR]) >= run_start
                    ok_bytes.append(n_b if fresh and got[b:b + n_b] == want[b:b + n_b] else -n_b)
            for n_b in ok_bytes:
                if n_b > 0:
                    intact += n_b
                    if in_prefix:
                        prefix += n_b
                else:
                    in_prefix = False
            k = j + 1
    if len(chain) * fs.csize < n:
        in_prefix = False
    return intact, prefix, size == src_size and intact == src_size


# fsck.fat -n's lines that say nothing beyond the dirty bit: the bit itself (in FAT32's
# boot sector at byte 65, so the backup boot sector differs there), the free-cluster count
# of the FSInfo sector (a hint the kernel keeps in memory), the second FAT lagging behind
# the first (fsck uses the first), and fsck's own remarks. Anything else is "damaged".
FSCK_HARMLESS = ("dirty bit is set", "automatically removing dirty bit", "free cluster summary wrong",
                 "auto-correcting", "leaving filesystem unchanged", "there are differences between boot sector",
                 "this is mostly harmless", "not automatically fixing this", "fats differ but appear to be intact",
                 "using first fat")
BOOT_DIFF = re.compile(r"^(\d+):[0-9a-f]{2}/[0-9a-f]{2}$")
DIRTY_BYTE = 65


def fsck(img, offset, size, fs):
    """("clean" | "dirty-bit" | "damaged", findings) of fsck.fat -n or fsck.exfat -n on
    the partition (yank_analyze.run_fsck: a read-only loop device, or a copy)."""
    rc, target, lines = run_fsck(img.path, offset, size, "fsck.fat" if fs.kind == "vfat" else "fsck.exfat")
    lines = [l.strip() for l in lines]
    if fs.kind == "exfat":
        # fsck.exfat -n: its version, then "TARGET: clean. directories N, files M" or the
        # errors it found; it does not report the VolumeDirty flag (read from the boot
        # sector instead)
        findings = [l for l in lines if not l.startswith("exfatprogs version")
                    and not (l.startswith(target) and ": clean." in l)]
        if rc == 0 and not findings:
            return ("dirty-bit" if fs.dirty else "clean"), findings
        return "damaged", findings
    # fsck.fat: the header and the summary ("X files, Y/Z clusters") are not findings
    findings = [l for l in lines[1:] if not l.startswith("/dev/") and not l.startswith(target)
                and "files, " not in l and not l.startswith("Checking")]
    return classify(rc, findings), findings


def classify(rc, findings):
    """"clean", "dirty-bit" or "damaged" from fsck.fat -n's exit status and findings."""
    if rc == 0 and not findings:
        return "clean"

    def harmless(line):
        m = BOOT_DIFF.match(line)
        if m:
            return int(m.group(1)) == DIRTY_BYTE
        return any(h in line.lower() for h in FSCK_HARMLESS)
    return "dirty-bit" if all(harmless(l) for l in findings) else "damaged"


# ---------------------------------------------------------------------- the copy's clock
def progress(run):
    """[(t since cp started, bytes cp had written)] from the run's series, with (0, 0)
    first and (copy_s, workload bytes) last."""
    off = run.get("series_t0_s", 0.0)
    pts = [(0.0, 0)]
    for s in run.get("series", []):
        t, w = s[0] + off, s[3]
        if w is not None and 0 < t < run["copy_s"]:
            pts.append((t, max(w, pts[-1][1])))
    pts.append((run["copy_s"], run["workload_bytes"]))
    return pts


def written_at(pts, t):
    for (t0, w0), (t1, w1) in zip(pts, pts[1:]):
        if t <= t1:
            return int(w0 + (w1 - w0) * (t - t0) / (t1 - t0)) if t1 > t0 else w1
    return pts[-1][1]


def time_of(pts, nbytes):
    """When cp had written NBYTES (the earliest moment, interpolated)."""
    if nbytes <= 0:
        return 0.0
    for (t0, w0), (t1, w1) in zip(pts, pts[1:]):
        if nbytes <= w1:
            return t0 + (t1 - t0) * (nbytes - w0) / (w1 - w0) if w1 > w0 else t1
    return pts[-1][0]


# -------------------------------------------------------------------------- the group
def markers(log_path):
    opener = gzip.open if log_path.endswith(".gz") else open
    out = {}
    with opener(log_path, "rt") as f:
        for line in f:
            p = line.split()
            if p and p[0] == "M":
                out[int(p[1])] = float(p[2])
    return out


def setup_of(r):
    """A run's setup as the matrix names it: its config's label (an experiment's
    variant of vfat-smart, "vfat-smart-mds1", is not vfat-smart as installed)."""
    return r.get("config") or r["setup"]


def notice_of(r):
    """When the agent said "safe to unplug" in run r: the first change of vfat-smartd's Safe
    to true half a second or more after cp started (Safe needs that long with nothing newly
    written, and cp writes from its start: an earlier change is the state before the copy).
    A change to true says Safe was false before it, whether or not the run saw it go false
    (a mount's own writes can make it false before cp starts). None when it never came.
    The guest records only the changes; an older group's "notice_s" (another rule) is
    not read."""
    for t, safe in r.get("safe_changes") or []:
        if safe and t >= 0.5:
            return t
    return None


def plan(runs, fractions, reference):
    """[(run, point, t since cp started, reference setup, its median time to safe)] for
    every timed run."""
    timed = [r for r in runs if not r.get("warmup") and not r.get("yank") and "copy_s" in r]
    out = []
    for wl in sorted({r["workload"] for r in timed}):
        rs = [r for r in timed if r["workload"] == wl]
        setups = {setup_of(r) for r in rs}
        ref = reference if reference in setups else max(
            setups, key=lambda s: statistics.median([r["safe_s"] for r in rs if setup_of(r) == s]))
        d = statistics.median([r["safe_s"] for r in rs if setup_of(r) == ref])
        for r in rs:
            pts = [("t", round(f * d, 3)) for f in fractions]
            pts += [(name, round(r["copy_s"] + dt, 3)) for name, dt in POINTS_AFTER]
            notice = notice_of(r)
            if notice is not None:
                # "safe to unplug": whole at the notice, and not yet 0.5 s before it
                pts += [("notice", notice), ("notice-0.5s", round(notice - 0.5, 3))]
            for name, t in pts:
                out.append((r, name, t, ref, d))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("group")
    ap.add_argument("--delete-journal", action="store_true")
    ap.add_argument("--fractions", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0")
    ap.add_argument("--reference", default="udisks-default")
    a = ap.parse_args()
    gdir = a.group
    jdir = os.path.join(gdir, "journal")
    journal = os.path.join(jdir, "HOTPLUG1.journal")
    base = os.path.join(jdir, "HOTPLUG1.base.img")
    if not (os.path.exists(journal) and os.path.exists(base)):
        sys.exit("pull_replay: %s has no journal (run the group with \"pulls\": true)" % gdir)
    logs = [p for p in (os.path.join(gdir, "stick", "HOTPLUG1.log"), os.path.join(gdir, "stick", "HOTPLUG1.log.gz"))
            if os.path.exists(p)]
    if not logs:
        sys.exit("pull_replay: %s has no stick log" % gdir)
    marks = markers(logs[0])
    group = json.load(open(os.path.join(gdir, "group.json")))
    if group.get("fs", "vfat") not in ("vfat", "exfat"):
        sys.exit("pull_replay: only FAT32 and exFAT groups (this one is %s)" % group.get("fs"))
    wls = {w["name"]: w for w in group["workloads"]}
    orders = {}
    for p in glob.glob(os.path.join(gdir, "copy-order", "*.json")):
        o = json.load(open(p))
        orders[o["workload"]] = o
    runs = [json.loads(l) for l in open(os.path.join(gdir, "results.jsonl")) if l.startswith("{")]
    fractions = [float(x) for x in a.fractions.split(",")]
    todo = []
    for r, name, t, ref, d in plan(runs, fractions, a.reference):
        m0, m1 = marks.get(2 * r["run"]), marks.get(2 * r["run"] + 1)
        if m0 is None or m1 is None or r["workload"] not in orders:
            sys.exit("pull_replay: run %d has no markers or no copy order" % r["run"])
        start = m0 + r.get("t0_after_mark_s", 0.0)
        # after the run's end marker the drive holds the unmounted result
        todo.append((min(start + t, m1), r, name, t, ref, d, m0))
    todo.sort(key=lambda x: x[0])
    work = tempfile.mkdtemp(prefix="pull-replay-", dir=gdir)
    out_path = os.path.join(gdir, "pulls.jsonl")
    last_of_run = {}
    for i, x in enumerate(todo):
        last_of_run[x[1]["run"]] = i
    try:
        img = Replay(base, journal, work)
        poff, psize = partition(img.path)
        with open(out_path + ".new", "w") as out:
            for i, (T, r, name, t, ref, d, m0) in enumerate(todo):
                img.advance(T)
                w = wls[r["workload"]]
                order = orders[r["workload"]]
                pts = progress(r)
                res = {"group": group.get("name") or os.path.basename(gdir.rstrip("/")), "run": r["run"], "rep": r["rep"],
                       "setup": setup_of(r), "workload": r["workload"], "profile": r.get("profile"),
                       "kernel": r.get("kernel"), "commit": r.get("commit"), "point": name,
                       "t_s": t, "reference": ref, "reference_safe_s": round(d, 3),
                       "copy_s": r["copy_s"], "safe_s": r["safe_s"],
                       "files_total": len(order["files"]), "bytes_total": r["workload_bytes"],
                       "bytes_written": written_at(pts, min(t, r["copy_s"]))}
                fs = open_fs(img, poff)
                intact_files = intact_bytes = 0
                prefix = prefix_files = 0
                in_prefix = True
                for rel, size in order["files"]:
                    src = w["host_src"] if rel == "" else os.path.join(w["host_src"], rel)
                    onstick = order["dst"] if rel == "" else order["dst"] + "/" + rel
                    got, pre, complete = file_intact(fs, img, src, size, onstick, m0) if fs else (0, 0, False)
                    intact_bytes += got
                    intact_files += complete
                    if in_prefix:
                        prefix += pre
                        if complete:
                            prefix_files += size
                        else:
                            in_prefix = False
                t_eff = min(t, r["copy_s"])

                def lost(nbytes):
                    # the whole copy intact: nothing lost, whenever cp's count got there
                    if nbytes >= r["workload_bytes"]:
                        return 0.0
                    return round(max(0.0, t_eff - time_of(pts, nbytes)), 3)
                res.update({"files_intact": intact_files, "bytes_intact": intact_bytes,
                            "intact_prefix_bytes": prefix,
                            "progress_lost_s": lost(prefix), "progress_lost_files_s": lost(prefix_files)})
                if fs:
                    res["fsck"], res["fsck_lines"] = fsck(img, poff, psize, fs)
                else:
                    res["fsck"], res["fsck_lines"] = "damaged", ["no FAT32 or exFAT boot sector"]
                if i == last_of_run[r["run"]] and fs:
                    top = fs.lookup(order["dst"])
                    if top and top.is_dir:
                        on_drive = fs.walk_order(top)
                        want = [p for p, _ in order["files"]]
                        res["order_checked"] = on_drive == want[:len(on_drive)]
                    elif top:
                        res["order_checked"] = True
                out.write(json.dumps(res, sort_keys=True) + "\n")
                out.flush()
                print("run %2d %-16s %-12s at %7.2f s: %d/%d files, %.1f/%.1f MiB, lost %.2f s, %s"
                      % (r["run"], setup_of(r), name, t, intact_files, len(order["files"]),
                         intact_bytes / 2**20, res["bytes_written"] / 2**20, res["progress_lost_s"], res["fsck"]),
                      file=sys.stderr, flush=True)
        img.close()
        os.rename(out_path + ".new", out_path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if a.delete_journal:
        shutil.rmtree(jdir, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Unit test of bench/lib/pull_replay.py: a synthetic raw group whose drive journal is
made from real FAT32 states (mkfs.vfat through tests/lab/lib/mkimage.py, files added with
mtools' mcopy, each state's changed blocks written as journal records at chosen times),
replayed at the planned pull points. Checks files and bytes intact, a file whose data is
on the drive but whose entry is not, a chain without an entry (fsck: damaged), stale
blocks from before the run, the copy's progress lost, the order check and the journal's
removal. No root, no lab (fsck.fat reads a copy of the partition when losetup fails)."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench", "lib"))
import pull_replay as pr  # noqa: E402

KIB = 1024
ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1", LC_ALL="C")


def record(t, off, data):
    return b"VSJ1W\0\0\0" + struct.pack("<dQI", t, off, len(data)) + b"\0" * 4 + data


class Img:
    """What Fat32 needs of an image: read() and size (a plain file here)."""

    def __init__(self, path):
        self.path, self.size = path, os.path.getsize(path)

    def read(self, off, n):
        with open(self.path, "rb") as f:
            f.seek(off)
            return f.read(n)


def changed_blocks(a, b, block=4 * KIB):
    """[(offset, new bytes)] of the 4 KiB blocks that differ between images A and B."""
    out = []
    with open(a, "rb") as fa, open(b, "rb") as fb:
        off = 0
        while True:
            x, y = fa.read(block), fb.read(block)
            if not y:
                return out
            if x != y:
                out.append((off, y))
            off += block


class PullReplay(unittest.TestCase):
    def setUp(self):
        for tool in ("mkfs.vfat", "mcopy", "fsck.fat"):
            if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
                self.fail("%s is needed (dosfstools, mtools: tests/install-deps installs them)" % tool)
        self.tmp = tempfile.mkdtemp(prefix="pull-replay-test-")
        self.g = os.path.join(self.tmp, "group")
        os.makedirs(os.path.join(self.g, "journal"))
        os.makedirs(os.path.join(self.g, "stick"))
        os.makedirs(os.path.join(self.g, "copy-order"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def make(self, stale_c=True, **run_extra):
        src = os.path.join(self.tmp, "src")
        os.makedirs(src)
        sizes = {"a.bin": 64 * KIB, "b.bin": 100 * KIB, "c.bin": 40 * KIB}
        for i, (n, sz) in enumerate(sorted(sizes.items())):
            with open(os.path.join(src, n), "wb") as f:
                f.write(bytes([(i * 37 + k) % 251 for k in range(256)]) * (sz // 256))
        img = os.path.join(self.tmp, "s0.img")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "lab", "lib", "mkimage.py"),
                        img, "300", "mbr", "vfat", "TEST", "12345678", "4"], check=True)
        base = os.path.join(self.g, "journal", "HOTPLUG1.base.img")
        shutil.copy(img, base)
        poff = 2048 * 512
        states = [img]

        def step(cmd):
            nxt = os.path.join(self.tmp, "s%d.img" % len(states))
            shutil.copy(states[-1], nxt)
            subprocess.run([cmd[0], "-i", "%s@@%d" % (nxt, poff)] + cmd[1:], env=ENV, check=True,
                           stdout=subprocess.DEVNULL)
            states.append(nxt)
            return changed_blocks(states[-2], nxt)

        recs = []
        # a stale copy of a.bin's data from "an earlier run" (before the start marker) is
        # not in the test: the freshness check is exercised by c.bin below
        recs += [record(11.0, o, d) for o, d in step(["mmd", "::/files"])]
        recs += [record(11.2, o, d) for o, d in step(["mcopy", os.path.join(src, "a.bin"), "::/files/a.bin"])]
        # b.bin: its data at 12.0, the FAT at 12.3, its directory entry at 12.6
        blocks = step(["mcopy", os.path.join(src, "b.bin"), "::/files/b.bin"])
        fs = pr.Fat32(Img(states[-1]), poff)
        e = fs.lookup("files/b.bin")
        data_offs = {fs.cluster_off(c) + k for c in fs.clusters(e, 1000) for k in range(0, fs.csize, 4 * KIB)}
        for o, d in blocks:
            t = 12.0 if o in data_offs else 12.3 if o < fs.heap else 12.6
            recs.append(record(t, o, d))
        # c.bin: whole at 13.0, but its data blocks at 9.0 (before the run's start marker,
        # as if an earlier copy had left them): only the entry and FAT count as written
        blocks = step(["mcopy", os.path.join(src, "c.bin"), "::/files/c.bin"])
        fs = pr.Fat32(Img(states[-1]), poff)
        e = fs.lookup("files/c.bin")
        c_offs = {fs.cluster_off(c) + k for c in fs.clusters(e, 1000) for k in range(0, fs.csize, 4 * KIB)}
        early = [record(9.0 if stale_c else 13.0, o, d) for o, d in blocks if o in c_offs]
        recs += [record(13.0, o, d) for o, d in blocks if o not in c_offs]
        with open(os.path.join(self.g, "journal", "HOTPLUG1.journal"), "wb") as f:
            for r in sorted(early + recs, key=lambda r: struct.unpack_from("<d", r, 8)[0]):
                f.write(r)
        with open(os.path.join(self.g, "stick", "HOTPLUG1.log"), "w") as f:
            f.write("# nbd-stick\nM 0 10.0 0 0 0 0\nM 1 15.0 0 0 0 0\n")
        order = [[n, sizes[n]] for n in sorted(sizes)]
        with open(os.path.join(self.g, "copy-order", "wl.json"), "w") as f:
            json.dump({"workload": "wl", "dst": "files", "files": order}, f)
        with open(os.path.join(self.g, "group.json"), "w") as f:
            json.dump({"name": "g", "fs": "vfat", "workloads": [{"name": "wl", "host_src": src}]}, f)
        total = sum(sizes.values())
        # cp starts at 10.5 on the stick's clock (0.5 s after the marker); its samples
        # (series clock 0.1 s before cp): a.bin written by 0.7 s, b.bin by 1.5 s, c.bin by 2.5 s
        series = [[0.2, 0, 0, 0], [0.8, 0, 0, 64 * KIB], [1.6, 0, 0, 164 * KIB], [2.6, 0, 0, total]]
        run = {"run": 0, "rep": 1, "warmup": False, "setup": "udisks-default", "workload": "wl",
               "workload_bytes": total, "copy_s": 3.0, "safe_s": 4.0, "t0_after_mark_s": 0.5,
               "series_t0_s": -0.1, "series": series, "profile": "test", "kernel": "k", "commit": "c"}
        run.update(run_extra)
        with open(os.path.join(self.g, "results.jsonl"), "w") as f:
            f.write(json.dumps(dict(run, run=99, warmup=True)) + "\n" + json.dumps(run) + "\n")

    def replay(self, *extra):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "lib", "pull_replay.py"), self.g,
                            "--fractions", "0.2,0.3,0.5,0.55,0.65,0.8", *(extra or ("--delete-journal",))],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return [json.loads(l) for l in open(os.path.join(self.g, "pulls.jsonl"))]

    def test_pulls(self):
        self.make()
        pulls = self.replay()
        by = {(p["point"], p["t_s"]): p for p in pulls}
        # the warm-up is not pulled; 6 moments + return and 3 after it
        self.assertEqual(len(pulls), 10)
        self.assertTrue(all(p["run"] == 0 for p in pulls))
        # 0.8 s (11.3): files/ and a.bin are on the drive; a.bin complete
        p = by[("t", 0.8)]
        self.assertEqual((p["files_intact"], p["bytes_intact"]), (1, 64 * KIB))
        self.assertEqual(p["fsck"], "clean")
        # cp had written a.bin by 0.7 s: the pull at 0.8 s loses 0.1 s of the copy
        self.assertAlmostEqual(p["progress_lost_s"], 0.1, places=2)
        # 1.2 s (11.7): nothing new on the drive; cp was inside b.bin
        p = by[("t", 1.2)]
        self.assertEqual(p["files_intact"], 1)
        self.assertAlmostEqual(p["progress_lost_s"], 0.5, places=2)
        self.assertGreater(p["bytes_written"], 64 * KIB)
        # 2.0 s (12.5): b.bin's data and FAT chain, no entry: not reachable, lost clusters
        p = by[("t", 2.0)]
        self.assertEqual((p["files_intact"], p["bytes_intact"]), (1, 64 * KIB))
        self.assertEqual(p["fsck"], "damaged", p["fsck_lines"])
        # 2.2 s (12.7): b.bin's entry too
        p = by[("t", 2.2)]
        self.assertEqual((p["files_intact"], p["bytes_intact"]), (2, 164 * KIB))
        self.assertEqual(p["fsck"], "clean", p["fsck_lines"])
        # 3.2 s (13.7) and the return (3.0 s = 13.5): c.bin's entry and chain are there,
        # its data only from before the run: not intact
        for key in (("t", 3.2), ("return", 3.0), ("return+2s", 5.0)):
            p = by[key]
            self.assertEqual(p["files_intact"], 2, key)
            self.assertEqual(p["bytes_intact"], 164 * KIB, key)
            # the prefix ends with b.bin, written by 1.5 s; lost from then to the return
            self.assertAlmostEqual(p["progress_lost_s"], 1.5, places=2)
            self.assertAlmostEqual(p["progress_lost_files_s"], 1.5, places=2)
            self.assertEqual(p["bytes_written"], 204 * KIB)
        # the last pull of the run checks cp's order against the drive's entries
        self.assertTrue(by[("return+2s", 5.0)]["order_checked"])
        self.assertEqual({p["reference"] for p in pulls}, {"udisks-default"})
        self.assertFalse(os.path.exists(os.path.join(self.g, "journal")))
        self.assertEqual(by[("return+2s", 5.0)]["bytes_total"], 204 * KIB)

    def test_wrong_order_is_reported(self):
        self.make()
        path = os.path.join(self.g, "copy-order", "wl.json")
        o = json.load(open(path))
        o["files"] = [o["files"][1], o["files"][0], o["files"][2]]
        json.dump(o, open(path, "w"))
        pulls = self.replay("--fractions", "0.5")
        self.assertFalse([p for p in pulls if p["point"] == "return+2s"][0]["order_checked"])
        self.assertTrue(os.path.exists(os.path.join(self.g, "journal", "HOTPLUG1.journal")))

    def test_all_intact_loses_nothing(self):
        # c.bin written by this run: after 13.0 everything is there; cp's count reached
        # its end at 2.5 s, cp returned at 3.0 s: a pull at or after the return loses nothing
        self.make(stale_c=False)
        pulls = self.replay()
        for p in pulls:
            if p["point"] != "t":
                self.assertEqual((p["files_intact"], p["progress_lost_s"], p["progress_lost_files_s"]),
                                 (3, 0.0, 0.0), p["point"])

    def test_notice(self):
        """A run with vfat-smartd's "safe to unplug" moment is also pulled at it and 0.5 s
        before it; the setup is the config's label (a variant is not vfat-smart)"""
        self.make(stale_c=False, setup="vfat-smart", config="vfat-smart-mds1",
                  safe_changes=[[0.3, False], [2.8, True]])
        pulls = self.replay()
        by = {p["point"]: p for p in pulls if p["point"] != "t"}
        self.assertEqual(by["notice"]["t_s"], 2.8)
        self.assertEqual(by["notice-0.5s"]["t_s"], 2.3)
        self.assertEqual(by["notice"]["files_intact"], 3)
        self.assertEqual(by["notice-0.5s"]["files_intact"], 2)
        self.assertEqual({p["setup"] for p in pulls}, {"vfat-smart-mds1"})
        # the only setup is the reference
        self.assertEqual({p["reference"] for p in pulls}, {"vfat-smart-mds1"})

    def notice_points(self, changes):
        self.make(stale_c=False, setup="vfat-smart", safe_changes=changes)
        return {p["point"]: p["t_s"] for p in self.replay() if p["point"].startswith("notice")}

    def test_notice_true_before_cp(self):
        """a change to true before half a second into the copy is the state before it"""
        self.assertEqual(self.notice_points([[0.1, True], [0.3, False], [2.8, True]])["notice"], 2.8)

    def test_notice_false_before_cp(self):
        """Safe went false before cp started (the mount's own writes): its first change to
        true in the run is the notice"""
        self.assertEqual(self.notice_points([[2.8, True]])["notice"], 2.8)

    def test_no_notice(self):
        self.assertEqual(self.notice_points([[0.2, True], [0.4, False]]), {})

    def test_fsck_classes(self):
        # lines fsck.fat 4.2 printed for pulls in the lab
        dirty = ["There are differences between boot sector and its backup.",
                 "This is mostly harmless. Differences: (offset:original/backup)", "65:01/00",
                 "Not automatically fixing this.", "FATs differ but appear to be intact.", "Using first FAT.",
                 "Dirty bit is set. Fs was not properly unmounted and some data may be corrupt.",
                 "Automatically removing dirty bit.", "Free cluster summary wrong (130973 vs. really 130772)",
                 "Auto-correcting.", "Leaving filesystem unchanged."]
        self.assertEqual(pr.classify(0, []), "clean")
        self.assertEqual(pr.classify(1, dirty), "dirty-bit")
        self.assertEqual(pr.classify(1, dirty + ["Reclaimed 201 unused clusters (6586368 bytes)."]), "damaged")
        self.assertEqual(pr.classify(1, dirty + ["/big.bin", "File size is 43601920 bytes, cluster chain "
                                                 "length is > 43614208 bytes.", "Truncating file to 43601920 bytes."]),
                         "damaged")
        # a backup boot sector that differs elsewhere than the dirty byte
        self.assertEqual(pr.classify(1, [l if l != "65:01/00" else "71:02/00" for l in dirty]), "damaged")

    def test_exfat(self):
        """The exFAT reader: entry sets written by hand into a real mkfs.exfat image (a
        directory, a file in contiguous clusters without a FAT chain, a file through the
        FAT in reverse order whose valid data length is short of its size)."""
        src = os.path.join(self.tmp, "src")
        os.makedirs(src)
        a = bytes(range(256)) * 256                      # 64 KiB
        b = bytes(reversed(range(256))) * 160            # 40 KiB
        for n, d in (("a.bin", a), ("b.bin", b)):
            with open(os.path.join(src, n), "wb") as f:
                f.write(d)
        img = os.path.join(self.tmp, "ex.img")
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "lab", "lib", "mkimage.py"),
                        img, "300", "mbr", "exfat", "TEST", "12345678"], check=True)
        base = os.path.join(self.g, "journal", "HOTPLUG1.base.img")
        shutil.copy(img, base)
        poff = 2048 * 512
        fs = pr.ExFat(Img(img), poff)
        root_off = fs.cluster_off(fs.root.first)

        def entry_set(name, attr, flags, first, valid, length):
            units = name.encode("utf-16-le")
            names = [units[i:i + 30].ljust(30, b"\0") for i in range(0, len(units), 30)]
            f = bytearray(32)
            f[0], f[1] = 0x85, 1 + len(names)
            struct.pack_into("<H", f, 4, attr)
            st = bytearray(32)
            st[0], st[1], st[3] = 0xC0, flags, len(name)
            struct.pack_into("<Q", st, 8, valid)
            struct.pack_into("<I", st, 20, first)
            struct.pack_into("<Q", st, 24, length)
            return bytes(f) + bytes(st) + b"".join(b"\xc1\0" + n for n in names)
        c = fs.csize
        recs = []
        # t 11: the directory "files" (cluster 5, contiguous) in the root, a.bin's entry
        # in it and its data in clusters 6-7 (contiguous)
        recs.append(record(11.0, root_off + 96, entry_set("files", 0x10, 3, 5, c, c)))
        dir1 = entry_set("a.bin", 0x20, 3, 6, len(a), len(a))
        recs.append(record(11.0, fs.cluster_off(5), dir1))
        recs.append(record(11.2, fs.cluster_off(6), a))
        # t 12: b.bin through the FAT (clusters 9 then 8), 48 KiB long of which the first
        # 40 KiB are valid (a reader gets zeroes after them: what the source has not)
        recs.append(record(12.0, fs.cluster_off(9), b[:c]))
        recs.append(record(12.0, fs.cluster_off(8), b[c:].ljust(c, b"\0")))
        fat = bytearray(Img(img).read(poff + 2048 * 512, 512))
        struct.pack_into("<II", fat, 8 * 4, 0xFFFFFFFF, 8)
        recs.append(record(12.1, poff + 2048 * 512, bytes(fat)))
        recs.append(record(12.6, fs.cluster_off(5), dir1 + entry_set("b.bin", 0x20, 1, 9, len(b), 48 * KIB)))
        with open(os.path.join(self.g, "journal", "HOTPLUG1.journal"), "wb") as f:
            f.write(b"".join(recs))
        with open(os.path.join(self.g, "stick", "HOTPLUG1.log"), "w") as f:
            f.write("M 0 10.0 0 0 0 0\nM 1 15.0 0 0 0 0\n")
        with open(os.path.join(self.g, "copy-order", "wl.json"), "w") as f:
            json.dump({"workload": "wl", "dst": "files", "files": [["a.bin", len(a)], ["b.bin", len(b)]]}, f)
        with open(os.path.join(self.g, "group.json"), "w") as f:
            json.dump({"name": "g", "fs": "exfat", "workloads": [{"name": "wl", "host_src": src}]}, f)
        total = len(a) + len(b)
        run = {"run": 0, "rep": 1, "warmup": False, "setup": "vfat-smart", "workload": "wl",
               "workload_bytes": total, "copy_s": 3.0, "safe_s": 4.0, "t0_after_mark_s": 0.5,
               "series_t0_s": 0.0, "series": [[0.5, 0, 0, len(a)], [1.5, 0, 0, total]]}
        with open(os.path.join(self.g, "results.jsonl"), "w") as f:
            f.write(json.dumps(run) + "\n")
        by = {(p["point"], p["t_s"]): p for p in self.replay()}
        # 0.8 s (11.3): a.bin; 2.0 s (12.5): b.bin's data and FAT but not its entry
        self.assertEqual((by[("t", 0.8)]["files_intact"], by[("t", 0.8)]["bytes_intact"]), (1, len(a)))
        self.assertEqual(by[("t", 2.0)]["files_intact"], 1)
        # 2.2 s (12.7): b.bin's entry: both files, through the FAT for b.bin
        p = by[("t", 2.2)]
        self.assertEqual((p["files_intact"], p["bytes_intact"]), (1, len(a) + len(b)))
        # every byte of the copy is on the drive, but b.bin reads 8 KiB of zeroes too long:
        # in bytes nothing is lost; in whole files the copy is back at a.bin (done at 0.5 s)
        self.assertEqual(p["intact_prefix_bytes"], total)
        self.assertEqual(p["progress_lost_s"], 0.0)
        self.assertAlmostEqual(p["progress_lost_files_s"], 1.7, places=2)
        self.assertTrue(by[("return+2s", 5.0)]["order_checked"])

    def test_no_journal(self):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "lib", "pull_replay.py"), self.g],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no journal", p.stderr)


if __name__ == "__main__":
    unittest.main()

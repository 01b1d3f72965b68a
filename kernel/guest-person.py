#!/usr/bin/env python3
"""guest-person.py - issue 13, question 3 in a person's terms (guest side of kernel/person-run).

Usage (in a guest-run guest with the hotplug stick on the nbd-stick filter):
    guest-person.py LAB_GUEST_DIR PLAN.json
PLAN: {"mode": "clean"|"yank", "kernel_out": DIR, "host_src": host path of the source file,
       "variants": [label, ...] (stock, control, wait0, wait1, hybrid), "reps": N,
       "points": [seconds after close() at which to pull] (yank), "clean_limit_s": S,
       "warmup": true|false, "first_index": N (optional, default 0: the first run's number)}

Every run: the distribution's default writeback sysctls (vm.dirty_ratio 20,
dirty_background_ratio 10, dirty_writeback_centisecs 500, dirty_expire_centisecs 3000; no
page-cache fragmentation), a fresh FAT32 (32 KiB clusters) on HOTPLUG1, mounted with
"flush" as udisks does, the FAT pre-read, one 256 MiB file copied with cp from tmpfs.
"close()" is when cp returned (its last close() included).
  clean  no unmount: the BDI is polled every 100 ms until less than 1 MiB is dirty or under
         writeback (clean_after_close_s; null after clean_limit_s), and the stick log gives
         the last device write after close() (last_write_after_close_s); then umount.
  yank   at close() + POINT s the stick stops taking writes (the host's yank file, out of
         band; then one dropped write to the marker area, so that the stick's log records
         the pull even when nothing was left to write), it is surprise-removed, and the host
         reads the frozen image offline
         (lab_yank_analyze: mtools + fsck.fat -n): lost_bytes = file bytes - intact bytes.
One JSON object per run on stdout and in $LAB_OUT/results.jsonl.
"""
import json
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
from scenario import Device, read, select_fat_module, sh, stick_segment, write  # noqa: E402

MIB = 1 << 20
SERIAL = "HOTPLUG1"
MP = "/mnt/person"
SRC = "/tmp/src-big.bin"
VM = {"dirty_ratio": 20, "dirty_background_ratio": 10,
      "dirty_writeback_centisecs": 500, "dirty_expire_centisecs": 3000}


def log(msg):
    print("[person %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def lab(fn, *args):
    return sh("bash", "-c", '. /run/lab/lib.sh; %s "$@"' % fn, "lab", *args).strip()


def host_request(text, timeout=60):
    """A request to the host controller, as _lab_request in lib.sh, polled fast."""
    ctl = "/run/lab/.ctl"
    rid = "%d-%d-person" % (time.time_ns(), os.getpid())
    with open("%s/.req-%s" % (ctl, rid), "w") as f:
        f.write(text + "\n")
    os.rename("%s/.req-%s" % (ctl, rid), "%s/req-%s" % (ctl, rid))
    ack = "%s/ack-%s" % (ctl, rid)
    end = time.monotonic() + timeout
    while not os.path.exists(ack):
        if time.monotonic() > end:
            raise SystemExit("person: no answer from the host to %r" % text)
        time.sleep(0.005)
    with open(ack) as f:
        st = f.readline().strip()
    os.unlink(ack)
    if st != "ok":
        raise SystemExit("person: the host refused %r" % text)


def thresholds():
    v = dict(l.split() for l in read("/proc/vmstat").splitlines())
    return {"dirty_threshold_bytes": int(v["nr_dirty_threshold"]) * 4096,
            "background_threshold_bytes": int(v["nr_dirty_background_threshold"]) * 4096}


class Person:
    def __init__(self, plan):
        self.plan = plan
        self.fat = None
        # the stick log's marks are 2 * idx and 2 * idx + 1: a second plan in the same guest
        # (person-run --mode both) starts at its own first_index so that its marks are new
        self.idx = int(plan.get("first_index", 0))
        self.dev = None
        self.out = open(os.path.join(os.environ.get("LAB_OUT", "/run/lab/out"), "results.jsonl"), "a")
        os.makedirs(MP, exist_ok=True)

    def module(self, label):
        return "stock" if label == "stock" else os.path.join(self.plan["kernel_out"], label)

    def attach(self):
        if self.dev is None:
            lab("lab_hotplug")
            self.dev = Device(SERIAL)

    def prepare(self, label):
        self.fat = select_fat_module(self.module(label), self.fat)
        self.attach()
        sh("mkfs.vfat", "-F", "32", "-s", "64", "-n", "PERSON", self.dev.part)
        sh("sync")
        write("/proc/sys/vm/drop_caches", 3)
        for k, v in VM.items():
            write("/proc/sys/vm/" + k, v)
        sh("mount", "-t", "vfat", "-o", "flush", self.dev.part, MP)
        data_start = self.dev.data_start_sector("vfat")
        sh("dd", "if=" + self.dev.part, "of=/dev/null", "bs=64K",
           "count=%d" % -(-self.dev.metadata_bytes("vfat") // 65536), "status=none")
        return data_start

    @staticmethod
    def yanks():
        """How many pulls the stick's log has recorded ("Y" lines)."""
        with open("/run/lab/stick/%s.log" % SERIAL) as f:
            return sum(1 for l in f if l.startswith("Y "))

    def wait_clean(self, limit_s, samples):
        t0 = time.monotonic()
        next_sample = 0.0
        while time.monotonic() - t0 < limit_s:
            d, w = self.dev.dirty()
            t = time.monotonic() - t0
            if t >= next_sample:
                samples.append([round(t, 1), round((d + w) / MIB, 1)])
                next_sample += 1.0
            if d + w < MIB:
                return round(t, 3)
            time.sleep(0.1)
        return None

    def run(self, label, rep, point=None, warmup=False):
        idx = self.idx
        self.idx += 1
        data_start = self.prepare(label)
        thr = thresholds()
        self.dev.mark(2 * idx)
        t0 = time.monotonic()
        sh("cp", SRC, MP + "/big.bin")
        t1 = time.monotonic()
        at_close = self.dev.dirty()
        res = {"mode": self.plan["mode"], "run": idx, "rep": rep, "config": label,
               "warmup": warmup, "kernel": os.uname().release, "fat_module": self.fat,
               "vm": {k: int(read("/proc/sys/vm/" + k)) for k in VM}, **thr,
               "workload_bytes": os.path.getsize(SRC), "copy_s": round(t1 - t0, 3),
               "dirty_at_close_bytes": at_close[0], "writeback_at_close_bytes": at_close[1]}
        if point is None:
            samples = []
            clean = self.wait_clean(self.plan.get("clean_limit_s", 90), samples)
            t1b = time.monotonic()
            sh("umount", MP)
            t2 = time.monotonic()
            self.dev.mark(2 * idx + 1)
            seg = stick_segment("/run/lab/stick/%s.log" % SERIAL, 2 * idx, 2 * idx + 1,
                                data_start * 512, True)
            before = [t for t in seg.pop("write_times_s") if t <= t1b - t0] if seg else []
            res.update({"clean_after_close_s": clean, "clean_samples": samples,
                        "last_write_after_close_s": round(max(before) - (t1 - t0), 3) if before else None,
                        "writes_after_close": sum(1 for t in before if t > t1 - t0),
                        "umount_s": round(t2 - t1b, 3), "device": seg})
        else:
            time.sleep(max(0.0, point - (time.monotonic() - t1)))
            ty = time.monotonic()
            at_yank = self.dev.dirty()
            ys = self.yanks()
            host_request("yank")
            # The filter logs the pull (its "Y" line, which yank_analyze needs to tell this
            # run's writes from stale blocks) at the first write after the yank file exists;
            # when the page cache had nothing left to write, none would come: write (and so
            # drop) one block of the marker area, which no file system uses.
            sh("dd", "if=/dev/zero", "of=" + self.dev.disk, "bs=4096", "count=1", "conv=notrunc",
               "seek=%d" % ((self.dev.size - MIB) // 4096 + 120), "oflag=direct", "status=none")
            logged = self.yanks() > ys
            lab("lab_unplug")
            self.dev = None
            sh("umount", "-l", MP, check=False)
            got = json.loads(lab("lab_yank_analyze", self.plan["host_src"], "big.bin"))
            res.update({"yank_after_close_s": round(ty - t1, 3), "point_s": point, "yank_logged": logged,
                        "dirty_at_yank_bytes": at_yank[0], "writeback_at_yank_bytes": at_yank[1],
                        "intact_bytes": got["intact_bytes"],
                        "lost_bytes": got["source_bytes"] - got["intact_bytes"],
                        "files_intact": got["files_intact"], "matching_bytes": got.get("matching_bytes"),
                        "fsck_rc": got.get("fsck_rc"), "fsck": got.get("fsck")})
        line = json.dumps(res, sort_keys=True)
        print(line, flush=True)
        self.out.write(line + "\n")
        self.out.flush()

    def main(self):
        p = self.plan
        sh("cp", "/run/lab/host" + p["host_src"], SRC)
        points = p.get("points", [None]) if p["mode"] == "yank" else [None]
        if p.get("warmup"):
            log("warm-up (discarded): %s" % p["variants"][0])
            self.run(p["variants"][0], 0, None if p["mode"] == "clean" else points[0], warmup=True)
        for rep in range(1, p["reps"] + 1):
            for point in points:
                for label in p["variants"]:
                    log("rep %d, %s%s" % (rep, label, "" if point is None else ", pull at close()+%g s" % point))
                    self.run(label, rep, point)


if __name__ == "__main__":
    with open(sys.argv[2]) as f:
        Person(json.load(f)).main()

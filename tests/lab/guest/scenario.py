#!/usr/bin/env python3
"""Guest side of tests/lab/run-scenario: runs one scenario's matrix in a lab guest.

Usage (inside a guest-run guest, as root):
    scenario.py SCENARIO.json FRAG-BINARY
Prints one JSON object per run on stdout (and appends it to $LAB_OUT/results.jsonl).
The scenario has been validated by run-scenario on the host.
"""
import json
import os
import re
import struct
import subprocess
import sys
import threading
import time

MIB = 1024 * 1024
TRACE = "/sys/kernel/tracing"
MOUNTPOINT = "/mnt/lab"
BIG_REQUEST = 768 * 1024
BDI_KNOBS = ("read_ahead_kb", "min_ratio", "max_ratio", "min_ratio_fine", "max_ratio_fine",
             "min_bytes", "max_bytes", "strict_limit")


def log(msg):
    print("[scenario %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def sh(*cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, stdout=subprocess.PIPE, text=True, **kw).stdout


def write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def disk_of_serial(serial):
    out = sh("bash", "-c", ". /run/lab/lib.sh; lab_disk %s 60" % serial)
    return out.strip()


class Device:
    """The disk under test: whole disk, its first partition (or itself), BDI, FAT layout."""

    def __init__(self, serial):
        self.serial = serial
        self.disk = disk_of_serial(serial)
        self.name = os.path.basename(self.disk)
        sysfs = "/sys/block/" + self.name
        self.majmin = read(sysfs + "/dev")
        part = sysfs + "/" + self.name + "1"
        if os.path.exists(part):
            self.part = "/dev/" + self.name + "1"
            self.part_start = int(read(part + "/start"))
        else:
            self.part, self.part_start = self.disk, 0
        self.bdi = "/sys/class/bdi/" + self.majmin
        self.debug_stats = "/sys/kernel/debug/bdi/%s/stats" % self.majmin
        self.size = int(sh("blockdev", "--getsize64", self.disk))

    def stat(self):
        f = [int(x) for x in read("/sys/block/%s/stat" % self.name).split()]
        return {"write_ios": f[4], "write_sectors": f[6], "flush_ios": f[14] if len(f) > 14 else 0}

    def data_start_sector(self, fstype):
        """First sector (whole-disk numbering) of the file data area, from the boot sector."""
        with open(self.part, "rb") as f:
            boot = f.read(512)
        if fstype == "exfat":
            heap = struct.unpack_from("<I", boot, 88)[0]          # ClusterHeapOffset
            shift = boot[108] - 9
            return self.part_start + (heap << shift)
        reserved = struct.unpack_from("<H", boot, 14)[0]
        nfats = boot[16]
        fatsz = struct.unpack_from("<H", boot, 22)[0] or struct.unpack_from("<I", boot, 36)[0]
        return self.part_start + reserved + nfats * fatsz

    def metadata_bytes(self, fstype):
        return (self.data_start_sector(fstype) - self.part_start) * 512

    def dirty(self):
        """(dirty, writeback) bytes of this BDI, from debugfs."""
        text = read(self.debug_stats, "")
        vals = dict(re.findall(r"^(\w+):\s+(\d+)", text, re.M))
        return int(vals.get("BdiReclaimable", 0)) * 1024, int(vals.get("BdiWriteback", 0)) * 1024

    def knobs(self):
        return {k: int(v) for k in BDI_KNOBS if (v := read(os.path.join(self.bdi, k))) is not None}

    def mark(self, n):
        """In-band marker for the nbd-stick log (see nbd-stick/stick-filter.c)."""
        skip = (self.size - MIB) // 4096 + n
        sh("dd", "if=" + self.disk, "of=/dev/null", "bs=4096", "count=1", "skip=%d" % skip,
           "iflag=direct", "status=none")


class Sampler(threading.Thread):
    """Samples the device's dirty and writeback bytes until stopped."""

    def __init__(self, dev, interval):
        super().__init__(daemon=True)
        self.dev, self.interval = dev, interval
        self.stop_flag = threading.Event()
        self.peak_dirty = self.peak_risk = self.samples = 0

    def run(self):
        while not self.stop_flag.is_set():
            d, w = self.dev.dirty()
            self.peak_dirty = max(self.peak_dirty, d)
            self.peak_risk = max(self.peak_risk, d + w)
            self.samples += 1
            self.stop_flag.wait(self.interval)

    def stop(self):
        self.stop_flag.set()
        self.join()


class Tracer:
    """block_bio_queue + block_rq_issue for one device in a private tracefs instance.

    The events are enabled once per guest and stay enabled (between runs the instance only
    stops recording, tracing_on 0): enabling or disabling a tracepoint patches kernel text
    (its static key), and under QEMU TCG a text patch in flight has
    panicked lab guests ("Oops: int3", kernel/results/*panic*.txt,
    bench/attempts/x-decent-cap-panic/panic.txt). Kept enabled, only the first run of a guest (the
    discarded warm-up in the bench and the kernel scenarios) patches."""

    EVENT = re.compile(r"(block_rq_issue|block_bio_queue): (\d+),(\d+) (\S*) (?:\d+ \(.*?\) )?"
                       r"(\d+) \+ (\d+)(?: \S+)? \[(.*)\]\s*$")

    def __init__(self, dev):
        self.dev = dev
        self.inst = os.path.join(TRACE, "instances", "vsm-lab-%d" % os.getpid())
        if not os.path.isdir(self.inst):
            os.mkdir(self.inst)
        write(self.inst + "/buffer_size_kb", 16384)
        maj, mnr = (int(x) for x in dev.majmin.split(":"))
        self.devs = {(maj, mnr)}
        if dev.part != dev.disk:
            self.devs.add(tuple(int(x) for x in read("/sys/class/block/%s/dev" % os.path.basename(dev.part)).split(":")))

    def start(self):
        write(self.inst + "/tracing_on", 0)
        write(self.inst + "/trace", "")
        for ev in ("block_bio_queue", "block_rq_issue"):
            if read(self.inst + "/events/block/%s/enable" % ev) != "1":
                write(self.inst + "/events/block/%s/enable" % ev, 1)
        write(self.inst + "/tracing_on", 1)

    def stop(self):
        write(self.inst + "/tracing_on", 0)
        with open(self.inst + "/trace") as f:
            text = f.read()
        events = []
        for line in text.splitlines():
            m = self.EVENT.search(line)
            if not m:
                continue
            kind, maj, mnr, rwbs, sector, nsect, comm = m.groups()
            if (int(maj), int(mnr)) not in self.devs or "W" not in rwbs or int(nsect) == 0:
                continue
            events.append((kind, int(sector), int(nsect) * 512, comm))
        lost = "LOST" in text
        return events, lost

    def close(self):
        """Keeps the instance, its events enabled (see the class): the next Tracer of this
        process reuses it; it ends with the guest."""


def writer_class(comm, workload_comms):
    if comm.startswith("kworker"):
        return "flusher"
    if comm in workload_comms:
        return "copier"
    if comm.startswith("umount"):
        return "umount"
    return "other"


def summarize_trace(events, data_start, workload_comms):
    rq = [(s, b) for k, s, b, _ in events if k == "block_rq_issue"]
    rq_data = [(s, b) for s, b in rq if s >= data_start]
    bio_data = [(s, b) for k, s, b, _ in events if k == "block_bio_queue" and s >= data_start]
    bio_by = {}
    for k, s, b, comm in events:
        if k == "block_bio_queue" and s >= data_start:
            c = writer_class(comm, workload_comms)
            bio_by[c] = bio_by.get(c, 0) + b

    def stats(reqs):
        total = sum(b for _, b in reqs)
        big = sum(b for _, b in reqs if b >= BIG_REQUEST)
        return {"requests": len(reqs), "bytes": total,
                "avg_request_kib": round(total / len(reqs) / 1024, 1) if reqs else 0,
                "big_share": round(big / total, 3) if total else 0}
    return {"all": stats(rq), "data": stats(rq_data), "data_bios": stats(bio_data),
            "data_bio_bytes_by_writer": bio_by}


def stick_segment(log_path, start_mark, end_mark, data_offset, settle_window=False, after_s=None):
    """Device-side numbers between two markers of the nbd-stick log. AFTER_S (seconds
    after the start marker, e.g. when the copy returned): also what the drive did from
    then to the end marker ("after": writes, bytes, the time it charged, and when its
    last write came, from AFTER_S)."""
    marks, writes, times, charged, merges = {}, [], [], [], []
    with open(log_path) as f:
        lines = f.read().splitlines()
    inside = False
    queue = 1      # the filter's command queue model (stick-queue): see is_jump() there
    for line in lines:
        p = line.split()
        if not p:
            continue
        if p[0] == "#":
            m = re.search(r" queue=(\d+)", line)
            if m:
                queue = int(m.group(1))
            continue
        if p[0] == "M":
            idx = int(p[1])
            marks[idx] = p
            if idx == start_mark:
                inside = True
            elif idx == end_mark:
                inside = False
        elif p[0] == "W" and inside:
            writes.append((int(p[2]), int(p[3])))
            times.append(float(p[1]))
            charged.append(float(p[5]) / 1000 if len(p) > 5 else 0.0)
            if len(p) > 6 and float(p[6]) > 0:      # the flash model's merges (au_bytes > 0)
                merges.append(float(p[6]) / 1000)
    if start_mark not in marks or end_mark not in marks:
        return None
    a, b = marks[start_mark], marks[end_mark]
    data_disc, last_start, last_end = 0, None, None
    reach = queue * 512 * 1024
    for off, n in writes:
        if off < data_offset:
            continue
        if last_end is not None and (off != last_end if queue == 1 else
                                     not (off + reach >= last_start and off <= last_end + reach)):
            data_disc += 1
        last_start, last_end = off, off + n
    t_start = float(a[2])
    after = None
    if after_s is not None:
        late = [(t - t_start - after_s, n, c) for t, (_, n), c in zip(times, writes, charged)
                if t - t_start >= after_s]
        after = {"from_s": round(after_s, 3), "writes": len(late), "bytes": sum(n for _, n, _ in late),
                 "busy_s": round(sum(c for _, _, c in late), 3),
                 "last_write_s": round(late[-1][0], 3) if late else None}
    return {"write_times_s": [round(t - t_start, 3) for t in times] if settle_window else None,
            "after": after,
            "writes": int(b[3]) - int(a[3]), "bytes": int(b[4]) - int(a[4]),
            "discontinuities": int(b[5]) - int(a[5]), "data_discontinuities": data_disc,
            "busy_s": round(float(b[6]) - float(a[6]), 3),
            "merges": len(merges), "merge_s": round(sum(merges), 3),
            # when the drive got its first write (its charge subtracted: when it began)
            "first_write_s": round(times[0] - charged[0] - t_start, 3) if times else None,
            "elapsed_s": round(float(b[2]) - float(a[2]), 3)}


def fat_modules_loaded():
    mods = read("/proc/modules", "")
    return {m.split()[0] for m in mods.splitlines()} & {"fat", "vfat", "msdos"}


def select_fat_module(variant, current):
    """'stock' or a host build dir with fat.ko and vfat.ko (seen at /run/lab/host/DIR)."""
    if variant == current:
        return current
    loaded = fat_modules_loaded()
    for m in ("vfat", "msdos", "fat"):
        if m in loaded:
            sh("rmmod", m)
    if variant == "stock":
        sh("modprobe", "vfat")
    else:
        d = "/run/lab/host" + variant
        sh("insmod", d + "/fat.ko")
        sh("insmod", d + "/vfat.ko")
    log("fat module: %s" % variant)
    return variant


class Scenario:
    def __init__(self, sc, frag_bin):
        self.sc, self.frag_bin = sc, frag_bin
        self.dev = Device(sc["target"])
        self.stick_log = "/run/lab/stick/%s.log" % sc["target"]
        self.fstype = sc["filesystem"]["type"]
        self.fat = None
        self.frag = None
        self.results = open(os.path.join(os.environ.get("LAB_OUT", "/run/lab/out"), "results.jsonl"), "a")
        os.makedirs(MOUNTPOINT, exist_ok=True)

    def prepare_memory(self):
        prep = self.sc["prepare"]
        mib = prep.get("fragment_mib", 0)
        if mib and self.frag is None:
            ready = "/tmp/frag.ready"
            self.frag = subprocess.Popen([self.frag_bin, str(mib), ready])
            for _ in range(1200):
                if os.path.exists(ready):
                    break
                time.sleep(0.1)
            else:
                raise SystemExit("scenario: the page-cache fragmenter did not get ready")
            log("fragmented %d MiB of memory" % mib)

    def make_sources(self):
        for w in self.sc["workloads"]:
            src = "/tmp/src-%s" % w["name"]
            if os.path.exists(src):
                continue
            if w["kind"] == "big-file":
                sh("dd", "if=/dev/urandom", "of=" + src, "bs=1M", "count=%d" % w["size_mib"], "status=none")
            else:
                os.mkdir(src)
                for i in range(w["count"]):
                    sh("dd", "if=/dev/urandom", "of=%s/file-%04d.bin" % (src, i), "bs=1K",
                       "count=%d" % w["size_kib"], "status=none")
            w["source"] = src
            w["bytes"] = int(sh("du", "-sb", "--apparent-size", src).split()[0])

    def set_vm(self):
        vm = self.sc["prepare"].get("vm", {})
        for k, v in vm.items():
            write("/proc/sys/vm/" + k, v)
        return {k: int(read("/proc/sys/vm/" + k)) for k in
                ("dirty_bytes", "dirty_background_bytes", "dirty_ratio", "dirty_background_ratio",
                 "dirty_writeback_centisecs", "dirty_expire_centisecs")}

    def reset_knobs(self):
        for k, v in (("strict_limit", 0), ("min_ratio", 0), ("max_ratio", 100)):
            if os.path.exists(os.path.join(self.dev.bdi, k)):
                write(os.path.join(self.dev.bdi, k), v)

    def apply_knobs(self, knobs):
        for k, v in knobs.items():
            path = os.path.join(self.dev.bdi, k)
            if not os.path.exists(path):
                raise SystemExit("scenario: this kernel has no BDI knob %s" % k)
            write(path, v)

    def mkfs(self):
        fs = self.sc["filesystem"]
        if self.fstype == "vfat":
            cmd = ["mkfs.vfat", "-F", "32", "-n", "LABRUN"]
            if fs.get("cluster_kib"):
                cmd += ["-s", str(fs["cluster_kib"] * 2)]
        else:
            cmd = ["mkfs.exfat", "-L", "LABRUN"]
            if fs.get("cluster_kib"):
                cmd += ["-c", "%dK" % fs["cluster_kib"]]
        sh(*cmd, self.dev.part, stderr=subprocess.DEVNULL)

    CLEAN_BELOW = 1 << 20

    def wait_clean(self, limit_s):
        """Poll the device's BDI until less than 1 MiB is dirty or under writeback (no
        unmount, no sync): the time until a pull would lose (next to) nothing, as far as
        the page cache tells. Not 0: the debugfs counters are per-cpu sums read
        without folding, and stay at ~0.1 MiB on a clean device (seen in the lab).
        Returns seconds waited, or None after limit_s. The stick log gives the exact
        time of the last write (device.last_write_after_close_s)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < limit_s:
            d, w = self.dev.dirty()
            if d + w < self.CLEAN_BELOW:
                return round(time.monotonic() - t0, 3)
            time.sleep(0.1)
        return None

    def run_one(self, idx, rep, config, workload, warmup=False):
        sc, dev = self.sc, self.dev
        self.fat = select_fat_module(config.get("fat_module", sc.get("fat_module", "stock")), self.fat)
        if os.path.ismount(MOUNTPOINT):
            sh("umount", MOUNTPOINT)
        self.mkfs()
        sh("sync")
        write("/proc/sys/vm/drop_caches", 3)
        vm = self.set_vm()
        self.reset_knobs()
        self.apply_knobs(config.get("knobs", {}))
        opts = config.get("mount_options", "")
        sh("mount", "-t", self.fstype, *(["-o", opts] if opts else []), dev.part, MOUNTPOINT)
        mounted = [l.split()[3] for l in read("/proc/mounts").splitlines() if l.split()[1] == MOUNTPOINT][0]
        data_start = dev.data_start_sector(self.fstype)
        if sc["prepare"].get("preread_metadata", True):   # FAT in the cache: no sync reads in the copy
            sh("dd", "if=" + dev.part, "of=/dev/null", "bs=64K",
               "count=%d" % -(-dev.metadata_bytes(self.fstype) // 65536), "status=none")
        knobs = dev.knobs()
        tracer = Tracer(dev)
        sampler = Sampler(dev, sc.get("sample_ms", 100) / 1000)
        stat0 = dev.stat()
        dev.mark(2 * idx)
        tracer.start()
        sampler.start()
        t0 = time.monotonic()
        if workload["kind"] == "big-file":
            sh("cp", workload["source"], MOUNTPOINT + "/big.bin")
        else:
            sh("cp", "-r", workload["source"], MOUNTPOINT + "/files")
        t1 = time.monotonic()
        at_return = dev.dirty()
        sampler.stop()
        settle = config.get("settle_clean_s", sc.get("settle_clean_s"))
        clean_after = self.wait_clean(settle) if settle else None
        t1b = time.monotonic()
        sh("umount", MOUNTPOINT)
        t2 = time.monotonic()
        events, lost = tracer.stop()
        tracer.close()
        dev.mark(2 * idx + 1)
        stat1 = dev.stat()
        trace = summarize_trace(events, data_start, {"cp"})
        device = None
        if os.path.exists(self.stick_log):
            device = stick_segment(self.stick_log, 2 * idx, 2 * idx + 1, data_start * 512, bool(settle))
            if device and settle:
                # the last device write before the umount began, counted from close()
                # (the start marker is read just before the copy starts)
                before = [t for t in device.pop("write_times_s") if t <= t1b - t0]
                device["last_write_after_close_s"] = round(max(before) - (t1 - t0), 3) if before else None
                device["writes_after_close"] = sum(1 for t in before if t > t1 - t0)
            elif device:
                device.pop("write_times_s", None)
        res = {
            "scenario": sc["name"], "run": idx, "rep": rep, "config": config["label"],
            "workload": workload["name"], "workload_bytes": workload["bytes"],
            "kernel": os.uname().release, "fat_module": self.fat, "fs": self.fstype,
            "mount_options": mounted, "knobs": knobs, "vm": vm,
            "copy_s": round(t1 - t0, 3), "umount_s": round(t2 - t1b, 3), "safe_s": round(t2 - t0, 3),
            "warmup": warmup, "settle_clean_s": settle, "clean_after_close_s": clean_after,
            "mb_per_s_safe": round(workload["bytes"] / 1e6 / (t2 - t0), 2),
            "peak_dirty_bytes": sampler.peak_dirty, "peak_at_risk_bytes": sampler.peak_risk,
            "at_risk_at_return_bytes": at_return[0] + at_return[1], "samples": sampler.samples,
            "requests": trace["all"], "data_requests": trace["data"], "data_bios": trace["data_bios"],
            "data_bio_bytes_by_writer": trace["data_bio_bytes_by_writer"], "trace_lost_events": lost,
            "block_stat": {k: stat1[k] - stat0[k] for k in stat0},
            "device": device,
        }
        line = json.dumps(res, sort_keys=True)
        print(line, flush=True)
        self.results.write(line + "\n")
        self.results.flush()
        return res

    def run(self):
        self.prepare_memory()
        self.make_sources()
        idx = 0
        if self.sc.get("warmup"):      # one discarded copy after boot (first workload, config)
            w, c = self.sc["workloads"][0], self.sc["configs"][0]
            log("run %d: warm-up (discarded), %s, %s" % (idx, w["name"], c["label"]))
            self.run_one(idx, 0, c, w, warmup=True)
            idx += 1
        for rep in range(1, self.sc.get("repetitions", 1) + 1):
            for workload in self.sc["workloads"]:
                for config in self.sc["configs"]:
                    log("run %d: rep %d, %s, %s" % (idx, rep, workload["name"], config["label"]))
                    self.run_one(idx, rep, config, workload)
                    idx += 1
        if self.frag:
            self.frag.kill()


def main():
    with open(sys.argv[1]) as f:
        sc = json.load(f)
    Scenario(sc, sys.argv[2]).run()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Guest side of bench/run: one group of the benchmark matrix in one lab guest.

Usage (inside a guest-run guest with vfat-smart installed and HOTPLUG1 served by the
nbd-stick filter): bench.py GROUP.json

The group (written by bench/run) has: name, kernel, profile, bw (bytes/s of the profile),
vm ("defaults" | "race"), fragment_mib, workloads [{name, kind, bytes, host_src}],
configs [{setup, label, ...}], reps, warmup, yank {points, setups, workloads, reps}.

Setups, each through the path a person uses (the stick is hot-plugged once; its file
system is made fresh before every run; udev sees the change and the rules run):
  udisks-default  a lab udev rule sets VFAT_SMART_IGNORE=1 for the stick (the documented
                  per-drive switch), so udisks mounts with its own defaults (flush);
                  labuser runs `udisksctl mount`; BDI knobs at the kernel's defaults
  vfat-smart      vfat-smart as installed: no lab rule; the project's udev rule applies
                  the knobs and exports UDISKS_MOUNT_OPTIONS_VFAT_*; `udisksctl mount`;
                  vfat-smartd runs (D-Bus activated, as the rule's SYSTEMD_WANTS does
                  where systemd runs): it learns the drive and paces one big file
  no-flush        reference: root mounts with udisks' options minus flush
  sync            reference: root mounts with udisks' options minus flush, plus sync
  patched-flush   udisks' default with the patched fat module (config fat_module)
  x-*             experiments: root mounts with the config's mount_options, knobs
                  (BDI, written by hand) and an optional pacer {mode, period_s}
Groups with "target": "internal" write to the internal disk INTERNAL1 (virtio, ext4)
instead, with the stick mounted as vfat-smart (allow-global-knobs off),
vfat-smart-global-knobs (on) or no-stick; see run_internal_one.
"Safe" is when the unmount returned: `udisksctl unmount` by labuser for every setup (the
references, mounted by root with mount(8), are unmounted by labuser through udisks too,
the lab's polkit rule granting it filesystem-unmount-others: "mounted_by":
"mount+labuser-unmount"; before session 14 root unmounted them, "mount+udisksctl-unmount",
about 0.6 s quicker in the guest than labuser's path, experiment x-hdd-unmount-path;
before session 4 umount(8), "mount"). labuser copies
with `cp -r` from tmpfs. One JSON object per run on stdout and in $LAB_OUT/results.jsonl;
"cpu_copy" in it (runs without a yank) is what the guest's CPUs did while cp ran (the
/proc/stat split, all CPUs summed) and cp's own user and system time: under emulation the
copier can be slower than a fast drive, and this tells which held the copy.

Yank runs: at the point (half: cp has write()n half the bytes; return: cp returned;
return+1s; an experiment may name return+Ns) the stick stops taking writes (nbd-stick
yank block), the guest records the bytes cp had written, the stick is surprise-removed
(device_del), and the host reads the frozen image offline (lab_yank_analyze: mtools +
fsck.fat -n) and counts intact bytes.
"""
import ctypes
import fcntl
import json
import mmap
import os
import pwd
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.environ["VSM_LAB_GUEST_DIR"])
from scenario import (Device, Tracer, read, select_fat_module, sh, stick_segment,  # noqa: E402
                      summarize_trace, write)

MIB = 1 << 20
SERIAL = "HOTPLUG1"
# the second stick of "two_sticks" groups: guest-run's cold-plugged nbd-stick, of the same
# profile as the hotplug stick
STICK_B = "NBDSTICK1"
DAEMON = "/usr/libexec/vfat-smartd"
IGNORE_RULE = "/etc/udev/rules.d/60-vsm-bench-ignore.rules"
ROOT_MP = "/mnt/bench"
UDISKS_OPTS = "uid=1000,gid=1000,shortname=mixed,utf8=1,showexec,nodev,nosuid"
VM = {
    # the distribution's defaults (the kernel's own): the headline
    "defaults": {"dirty_ratio": 20, "dirty_background_ratio": 10,
                 "dirty_writeback_centisecs": 500, "dirty_expire_centisecs": 3000},
    # the LAB-NOTES race setup (with fragment_mib)
    "race": {"dirty_bytes": 419430400, "dirty_background_bytes": 67108864,
             "dirty_writeback_centisecs": 100, "dirty_expire_centisecs": 3000},
    # the calibration against the RFC's bare-metal numbers (bench/calibration.md): its
    # "default writeback settings" on a machine whose dirty limits are about the 3 GiB
    # file (dirty_bytes, dirty_background_bytes: see the calibration notes), and its busy
    # flusher (dirty_background_bytes=256M, dirty_writeback_centisecs=100); the -1g
    # variants scale the byte limits by a third for the 1 GiB iterations
    "rfc-default": {"dirty_bytes": 3400000000, "dirty_background_bytes": 1700000000,
                    "dirty_writeback_centisecs": 500, "dirty_expire_centisecs": 3000},
    "rfc-busy": {"dirty_bytes": 3400000000, "dirty_background_bytes": 268435456,
                 "dirty_writeback_centisecs": 100, "dirty_expire_centisecs": 3000},
    "rfc-default-1g": {"dirty_bytes": 1133000000, "dirty_background_bytes": 566000000,
                       "dirty_writeback_centisecs": 500, "dirty_expire_centisecs": 3000},
    "rfc-busy-1g": {"dirty_bytes": 1133000000, "dirty_background_bytes": 89478485,
                    "dirty_writeback_centisecs": 100, "dirty_expire_centisecs": 3000},
}
YANK_BLOCK = 200
BLKFLSBUF = 0x1261  # linux/fs.h _IO(0x12, 97)
libc = ctypes.CDLL("libc.so.6", use_errno=True)


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def settle():
    sh("udevadm", "settle", "--timeout=60", check=False)


def lab(fn, *args):
    return sh("bash", "-c", '. /run/lab/lib.sh; %s "$@"' % fn, "lab", *args).strip()


def host_request(text, timeout=60):
    """A request to the lab's host controller (as _lab_request in lib.sh), polled fast."""
    ctl = "/run/lab/.ctl"
    rid = "%d-%d-bench" % (time.time_ns(), os.getpid())
    with open("%s/.req-%s" % (ctl, rid), "w") as f:
        f.write(text + "\n")
    os.rename("%s/.req-%s" % (ctl, rid), "%s/req-%s" % (ctl, rid))
    ack = "%s/ack-%s" % (ctl, rid)
    end = time.monotonic() + timeout
    while not os.path.exists(ack):
        if time.monotonic() > end:
            raise SystemExit("bench: no answer from the host to %r" % text)
        time.sleep(0.005)
    with open(ack) as f:
        st, _, answer = f.read().partition("\n")
    os.unlink(ack)
    if st != "ok":
        raise SystemExit("bench: host said to %r: %s" % (text, answer.strip()))
    return answer.strip()


def direct_read_block(disk, block_from_end_area):
    """4 KiB O_DIRECT read of block N of the marker area (last MiB) of DISK."""
    size = int(sh("blockdev", "--getsize64", disk))
    fd = os.open(disk, os.O_RDONLY | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, 4096)
        os.preadv(fd, [buf], size - MIB + 4096 * block_from_end_area)
    finally:
        os.close(fd)


class Series(threading.Thread):
    """Samples dirty + writeback of the device's BDI and cp's written bytes, and the
    range of the BDI's max_bytes (the cap in force: vfat-smartd moves it during a copy)."""

    def __init__(self, dev, interval, pid_fn):
        super().__init__(daemon=True)
        self.dev, self.interval, self.pid_fn = dev, interval, pid_fn
        self.stop_flag = threading.Event()
        self.samples = []
        self.t0 = time.monotonic()
        self.peak_dirty = self.peak_risk = 0
        self.caps = set()

    def run(self):
        while not self.stop_flag.is_set():
            d, w = self.dev.dirty()
            self.peak_dirty = max(self.peak_dirty, d)
            self.peak_risk = max(self.peak_risk, d + w)
            cap = read(os.path.join(self.dev.bdi, "max_bytes"))
            if cap and cap.isdigit() and int(cap) > 0:
                self.caps.add(int(cap))
            self.samples.append((round(time.monotonic() - self.t0, 2), d, w, written(self.pid_fn())))
            self.stop_flag.wait(self.interval)

    def stop(self):
        self.stop_flag.set()
        self.join()


def proc_pid(cp):
    kids = read("/proc/%d/task/%d/children" % (cp.pid, cp.pid), "")
    return int(kids.split()[0]) if kids else None


def cpu_ticks():
    """The guest's CPU time so far, in USER_HZ ticks, per field of /proc/stat's "cpu" line."""
    names = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    vals = read("/proc/stat").split("\n", 1)[0].split()[1:1 + len(names)]
    return dict(zip(names, (int(v) for v in vals)))


def wait_rusage(p):
    """Wait for Popen P like p.wait(), also returning the CPU time of P and of every child
    it waited for (runuser waits for cp): (returncode, {"user_s", "sys_s"} or None)."""
    if p.returncode is not None:
        return p.returncode, None
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, {"user_s": round(ru.ru_utime, 2), "sys_s": round(ru.ru_stime, 2)}


def cpu_during(before, after, cp_ru):
    """What the CPUs did during the copy: the guest's split in seconds (all CPUs summed)
    and cp's own user and system time: is the copy held by the CPU or by the drive?"""
    hz = os.sysconf("SC_CLK_TCK")
    out = {"guest_" + k + "_s": round((after[k] - before[k]) / hz, 2) for k in before}
    out["cpus"] = os.cpu_count()
    if cp_ru:
        out.update({"cp_" + k: v for k, v in cp_ru.items()})
    return out


def bio_grain(events, data_start, big=768 * 1024):
    """How the data's bios were made: per writer (copier = cp, its close's writeback
    included; flusher = a kworker) the bios' count, median size and the share of them, by
    count and by bytes, that are >= 768 KiB (the RFC's measure); and, from the copier's
    first bio (close began writing) on, the turns between the two writers: a turn is a
    run of consecutive bios of one writer, its bytes; "jump" is how far (MiB) a writer's
    first bio of a turn lies from where the other's last bio ended. Turns of a few bios
    a few KiB apart are two writers walking the same pages (the RFC's race: small bios);
    long turns far apart are two writers in two parts of the file."""
    bios = [(s, b, ("flusher" if c.startswith("kworker") else "copier" if c == "cp" else "other"))
            for k, s, b, c in events if k == "block_bio_queue" and s >= data_start]

    def med(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2] if xs else None

    per = {}
    for _, b, w in bios:
        per.setdefault(w, []).append(b)
    out = {"writers": {w: {"bios": len(bs), "bytes": sum(bs), "median_kib": round(med(bs) / 1024, 1),
                           "big_count_share": round(sum(1 for b in bs if b >= big) / len(bs), 3),
                           "big_byte_share": round(sum(b for b in bs if b >= big) / sum(bs), 3)}
                       for w, bs in per.items()}}
    allb = [b for _, b, _ in bios]
    if allb:
        out["big_count_share"] = round(sum(1 for b in allb if b >= big) / len(allb), 3)
    first = next((i for i, x in enumerate(bios) if x[2] == "copier"), None)
    if first is None:
        return out
    turns, jumps, cur, last = [], [], None, None
    for s, b, w in bios[first:]:
        if w not in ("copier", "flusher"):
            continue
        if cur is None or w != cur[0]:
            if cur is not None:
                turns.append(cur[1])
                jumps.append(abs(s - last) * 512 / (1 << 20))
            cur = [w, 0, 0]
        cur[1] += b
        last = s + b // 512
    if cur is not None:
        turns.append(cur[1])
    out["after_close"] = {"bios": len(bios) - first, "turns": len(turns),
                          "median_turn_kib": round(med(turns) / 1024, 1) if turns else None,
                          "median_jump_mib": round(med(jumps), 1) if jumps else None}
    return out


def copy_order(src):
    """The order in which `cp -r SRC DST` writes SRC's files: coreutils reads each
    directory with gnulib's savedir (SAVEDIR_SORT_FASTREAD: ascending inode number) and
    copies an entry, a subdirectory whole, before the next. [[path relative to SRC ("" for
    a file source), bytes], ...]: the pull replay turns cp's written-bytes samples into
    "which file, how far" with it (bench/lib/pull_replay.py, which also checks it against
    the order of the entries on the drive)."""
    if not os.path.isdir(src):
        return [["", os.path.getsize(src)]]
    out = []

    def walk(d, rel):
        with os.scandir(d) as it:
            ents = sorted(it, key=lambda e: e.inode())
        for e in ents:
            r = os.path.join(rel, e.name) if rel else e.name
            if e.is_dir(follow_symlinks=False):
                walk(e.path, r)
            elif e.is_file(follow_symlinks=False):
                out.append([r, e.stat(follow_symlinks=False).st_size])
    walk(src, "")
    return out


def write_copy_order(w):
    """$LAB_OUT/copy-order/WORKLOAD.json, once per workload source in tmpfs."""
    d = os.path.join(os.environ.get("LAB_OUT", "/run/lab/out"), "copy-order")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, w["name"] + ".json"), "w") as f:
        json.dump({"workload": w["name"], "dst": w["dst"], "files": copy_order(w["guest_src"])}, f)


def written(pid):
    """Bytes PID has write()n (wchar of /proc/PID/io), or None."""
    if not pid:
        return None
    text = read("/proc/%d/io" % pid)
    if not text:
        return None
    m = re.search(r"^wchar:\s+(\d+)", text, re.M)
    return int(m.group(1)) if m else None


class Pacer(threading.Thread):
    """Experiment: trigger writeback of the mount every period_s (mode syncfs, fsync-bdev,
    sfr = sync_file_range(WRITE) on every file being written, flushbuf = the partition's
    BLKFLSBUF ioctl, which syncs the file system without holding the mount: what
    vfat-smartd's pacer does since session 7)."""

    def __init__(self, mode, period, mountpoint, disk_part):
        super().__init__(daemon=True)
        self.mode, self.period, self.mp, self.part = mode, period, mountpoint, disk_part
        self.stop_flag = threading.Event()
        self.calls = 0
        self.busy_s = 0.0

    def files(self):
        out = []
        for root, _, names in os.walk(self.mp):
            out += [os.path.join(root, n) for n in names]
        return out

    def once(self):
        if self.mode == "syncfs":
            fd = os.open(self.mp, os.O_RDONLY | os.O_DIRECTORY)
            try:
                libc.syncfs(fd)
            finally:
                os.close(fd)
        elif self.mode == "fsync-bdev":
            fd = os.open(self.part, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        elif self.mode == "flushbuf":
            fd = os.open(self.part, os.O_RDONLY)
            try:
                fcntl.ioctl(fd, BLKFLSBUF, 0)
            finally:
                os.close(fd)
        elif self.mode == "sfr":
            for p in self.files()[-4:]:
                try:
                    fd = os.open(p, os.O_RDONLY)
                except OSError:
                    continue
                try:
                    libc.sync_file_range(fd, ctypes.c_longlong(0), ctypes.c_longlong(0), 2)
                finally:
                    os.close(fd)
        else:
            raise SystemExit("bench: unknown pacer mode %s" % self.mode)

    def run(self):
        nxt = time.monotonic()
        while not self.stop_flag.is_set():
            t = time.monotonic()
            self.once()
            self.busy_s += time.monotonic() - t
            self.calls += 1
            nxt += self.period
            self.stop_flag.wait(max(0, nxt - time.monotonic()))

    def stop(self):
        self.stop_flag.set()
        self.join()


class SafeMonitor:
    """vfat-smartd's Safe property as it changes, from `busctl monitor` on the system bus
    (one process for the whole guest, matching only the daemon's PropertiesChanged of a
    drive): what the agent's "safe to unplug" follows."""
    MATCH = ("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
             "arg0='org.vfatsmart.VfatSmart1.Device'")

    def __init__(self, path="/tmp/safe-monitor.jsonl"):
        self.path = path
        self.read_to = 0  # what earlier runs read of the monitor's output
        # busctl writes each message as it comes; it ends with the guest
        subprocess.Popen(["busctl", "monitor", "--json=short", "--match", self.MATCH],
                         stdout=open(path, "w"), stderr=subprocess.DEVNULL)

    def changes(self, rt0, rt1):
        """[(seconds since rt0, Safe)] of the changes between the wall-clock times rt0 and rt1
        (read from where the last call stopped: the runs come one after another)"""
        out = []
        with open(self.path) as f:
            f.seek(self.read_to)
            for line in iter(f.readline, ""):
                if not line.endswith("\n"):
                    break          # a message busctl is still writing: the next call reads it
                self.read_to = f.tell()
                try:
                    m = json.loads(line)
                    props = m["payload"]["data"][1]
                    ts = m["timestamp-realtime"] / 1e6
                except (ValueError, KeyError, IndexError, TypeError):
                    continue
                if "Safe" in props and rt0 <= ts <= rt1:
                    out.append((round(ts - rt0, 3), bool(props["Safe"]["data"])))
        return out


class Bench:
    def __init__(self, g):
        self.g = g
        self.fat = None
        self.run_idx = 0
        self.results = open(os.path.join(os.environ.get("LAB_OUT", "/run/lab/out"), "results.jsonl"), "a")
        self.ignore = None
        self.admin = {}  # the admin's keys this run set (set_admin_key())
        # groups with "after_return_s": the daemon's Safe as it changes (SafeMonitor)
        self.safe_monitor = SafeMonitor() if g.get("after_return_s") else None
        os.makedirs(ROOT_MP, exist_ok=True)
        self.frag = None

    # ------------------------------------------------------------------ the stick
    def set_ignore(self, on):
        if on == self.ignore:
            return
        if on:
            with open(IGNORE_RULE, "w") as f:
                f.write('# vfat-smart bench: leave the stick to udisks\' defaults\n'
                        'SUBSYSTEM=="block", ENV{ID_SERIAL_SHORT}=="%s|%s", ENV{VFAT_SMART_IGNORE}="1"\n'
                        % (SERIAL, STICK_B))
        elif os.path.exists(IGNORE_RULE):
            os.unlink(IGNORE_RULE)
        sh("udevadm", "control", "--reload")
        self.ignore = on

    def plug(self):
        lab("lab_hotplug")
        self.dev = Device(SERIAL)
        log("stick %s (%s)" % (self.dev.disk, self.g["profile"]))

    def reset_knobs(self):
        # what a fresh BDI has; vfat-smart-udev may have set others on the last change event
        sh("vfat-smart", "restore", "--all", check=False, stderr=subprocess.DEVNULL)
        for k, v in (("strict_limit", 0), ("min_ratio", 0), ("max_ratio", 100)):
            p = os.path.join(self.dev.bdi, k)
            if os.path.exists(p):
                write(p, v)

    def fresh_fs(self, config):
        fs = self.g.get("fs", "vfat")
        if fs == "vfat":
            sh("mkfs.vfat", "-F", "32", "-s", "64", "-n", "BENCH", self.dev.part, stderr=subprocess.DEVNULL)
        elif fs == "exfat":
            sh("mkfs.exfat", "-L", "BENCH", self.dev.part, stderr=subprocess.DEVNULL)
        else:
            # labuser owns the root (udisksctl mounts it as it is); no lazy init
            # writing behind the copy's back
            pw = pwd.getpwnam("labuser")
            sh("mkfs.ext4", "-q", "-F", "-L", "BENCH", "-E",
               "root_owner=%d:%d,lazy_itable_init=0,lazy_journal_init=0,nodiscard"
               % (pw.pw_uid, pw.pw_gid), self.dev.part)
        settle()
        uses_rule = config["setup"] == "vfat-smart"
        self.set_ignore(not uses_rule)
        if not uses_rule:
            self.reset_knobs()
        # a change event on disk and partition: udev rules run as on a plug-in
        sh("udevadm", "trigger", "--action=change", self.dev.disk)
        sh("udevadm", "trigger", "--action=change", self.dev.part)
        settle()
        time.sleep(1)
        if uses_rule and os.path.exists(DAEMON):
            # where systemd runs, the rule's SYSTEMD_WANTS starts vfat-smartd for a
            # managed drive; the guest has none: the first call activates it
            sh("gdbus", "call", "--system", "-d", "org.vfatsmart.VfatSmart1", "-o",
               "/org/vfatsmart/VfatSmart1", "-m", "org.vfatsmart.VfatSmart1.Manager.ListDevices")
        if uses_rule:
            props = sh("udevadm", "info", "-q", "property", self.dev.part)
            if fs in ("vfat", "exfat") and "UDISKS_MOUNT_OPTIONS_%s_DEFAULTS=" % fs.upper() not in props:
                raise SystemExit("bench: the project's udev rule did not export udisks' mount options")
        else:
            self.apply_knobs(config.get("knobs", {}))
        sh("sync")
        write("/proc/sys/vm/drop_caches", 3)

    def set_vm(self, config):
        """The run's vm.dirty_* (the config's page-cache setup, else the group's), and
        what the kernel reads back."""
        for k, v in VM[config.get("vm", self.g["vm"])].items():
            write("/proc/sys/vm/" + k, v)
        return {k: int(read("/proc/sys/vm/" + k)) for k in
                ("dirty_bytes", "dirty_background_bytes", "dirty_ratio", "dirty_background_ratio",
                 "dirty_writeback_centisecs", "dirty_expire_centisecs")}

    def apply_knobs(self, knobs):
        for k, v in knobs.items():
            write(os.path.join(self.dev.bdi, k), v)

    def mount(self, config):
        s = config["setup"]
        if s in ("udisks-default", "vfat-smart", "patched-flush"):
            out = sh("runuser", "-u", "labuser", "--", "udisksctl", "mount", "-b", self.dev.part)
            m = re.search(r"Mounted \S+ at (.+?)\.?$", out.strip())
            if not m:
                raise SystemExit("bench: udisksctl mount said: %s" % out)
            mp, how = m.group(1), "udisksctl"
        else:
            opts = config.get("mount_options")
            if opts is None:
                opts = UDISKS_OPTS + (",sync" if s == "sync" else "")
            fs = self.g.get("fs", "vfat")
            sh("mount", "-t", fs, *(["-o", opts] if opts else []), self.dev.part, ROOT_MP)
            if fs == "ext4":
                sh("chown", "labuser:labuser", ROOT_MP)
            # unmounted through udisks like the others (the unmount is in "safe"):
            # udisks must have seen the mount before the clock starts
            if not wait_for(lambda: ROOT_MP in sh("udisksctl", "info", "-b", self.dev.part,
                                                  check=False), 20):
                raise SystemExit("bench: udisks did not see the mount of %s at %s"
                                 % (self.dev.part, ROOT_MP))
            mp, how = ROOT_MP, "mount+labuser-unmount"
        opts = [l.split()[3] for l in open("/proc/mounts") if l.split()[1] == mp][0]
        if config.get("unmount_as") == "root" and how == "udisksctl":
            # an experiment's variant: mounted by labuser, unmounted by root through
            # udisks, the way the references are (no runuser, no polkit check of labuser)
            how = "udisksctl+root-unmount"
        return mp, how, opts

    def unmount(self, mp, how, dev=None):
        # the references (mount(8) as root) by labuser through udisks too, so that every
        # setup's "safe" pays the same caller's path: udisksctl's own cost (1.9-5.6 s in
        # the guest with nothing at risk) and runuser with udisks' polkit check of labuser
        # (about 0.6 s more than root's, x-hdd-unmount-path)
        part = (dev or self.dev).part
        if how in ("udisksctl", "mount+labuser-unmount"):
            sh("runuser", "-u", "labuser", "--", "udisksctl", "unmount", "-b", part)
        elif how == "udisksctl+root-unmount":
            sh("udisksctl", "unmount", "-b", part)
        else:
            sh("umount", mp)

    # ----------------------------------------------------------------------- runs
    def first_plug(self, config):
        """Whether a run of config is a first plug: vfat-smart in a "first_plug" group."""
        return bool(self.g.get("first_plug")) and config["setup"] == "vfat-smart"

    def forget_and_replug(self):
        """Groups with "first_plug": vfat-smart's record and learned history of the stick
        dropped and the stick plugged again, so that the run is a first plug: the daemon
        drops the drive with the unplug and starts it from the plan's first cap."""
        r = subprocess.run(["vfat-smart", "forget", "--history", self.dev.disk],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        log("vfat-smart forget --history %s: exit %d %s" % (self.dev.disk, r.returncode, r.stdout.strip()))
        lab("lab_unplug")
        self.plug()

    def run_one(self, workload, config, rep, warmup=False, yank=None):
        g = self.g
        idx = self.run_idx
        self.run_idx += 1
        if self.first_plug(config):
            self.forget_and_replug()
        want_fat = config.get("fat_module", "stock")
        self.fat = select_fat_module(want_fat, self.fat) if g.get("fs", "vfat") == "vfat" else self.fat
        # an experiment's variant of vfat-smart: the admin's max-dirty-seconds
        mds = config.get("max_dirty_seconds")
        self.set_admin_key("max-dirty-seconds", None if mds is None else str(float(mds)))
        self.fresh_fs(config)
        vm = self.set_vm(config)
        mp, how, opts = self.mount(config)
        dev = self.dev
        fs = g.get("fs", "vfat")
        data_start = dev.data_start_sector(fs) if fs in ("vfat", "exfat") else 0
        if fs in ("vfat", "exfat"):   # FAT in the cache (reads are free at the stick)
            sh("dd", "if=" + dev.part, "of=/dev/null", "bs=64K",
               "count=%d" % -(-dev.metadata_bytes(fs) // 65536), "status=none")
        knobs = dev.knobs()
        tracer = Tracer(dev)
        dst = mp + "/" + workload["dst"]
        src = workload["guest_src"]
        proc = {"pid": None}
        series = Series(dev, g.get("sample_s", 0.2), lambda: proc["pid"])
        pacer = None
        dev.mark(2 * idx)
        t_mark = time.monotonic()
        tracer.start()
        series.start()
        cpu0 = cpu_ticks()
        t0 = time.monotonic()
        rt0 = time.time()
        cp = subprocess.Popen(["runuser", "-u", "labuser", "--", "cp", "-r", src, dst])
        # runuser forks cp: find the child whose comm is cp
        for _ in range(200):
            kids = read("/proc/%d/task/%d/children" % (cp.pid, cp.pid), "")
            if kids:
                proc["pid"] = int(kids.split()[0])
                break
            time.sleep(0.005)
        if config.get("pacer"):
            pacer = Pacer(config["pacer"]["mode"], config["pacer"]["period_s"], mp, dev.part)
            pacer.start()
        yanked = None
        if yank == "half":
            half = workload["bytes"] // 2
            while cp.poll() is None:
                w = written(proc["pid"])
                if w is not None and w >= half:
                    yanked = self.yank(t0, w, proc["pid"])
                    break
                time.sleep(0.02)
        last_w = written(proc["pid"])
        rc, cp_ru = wait_rusage(cp) if yanked is None else (None, None)
        t1 = time.monotonic()
        cpu = cpu_during(cpu0, cpu_ticks(), cp_ru)
        at_return = sum(dev.dirty())
        if yank == "return" and yanked is None:
            yanked = self.yank(t0, workload["bytes"])
        elif yank and yank.startswith("return+") and yanked is None:
            # "return+1s" (the matrix's point) or an experiment's "return+Ns"
            time.sleep(float(yank[len("return+"):].rstrip("s")))
            yanked = self.yank(t0, workload["bytes"])
        if yanked is not None:
            return self.finish_yank(idx, rep, workload, config, yank, yanked, t0, t1, mp, how, opts,
                                    knobs, vm, tracer, series, pacer, cp, at_return, data_start)
        if rc != 0:
            raise SystemExit("bench: cp failed (%s)" % rc)
        if g.get("after_return_s"):
            # a person who waits for "safe to unplug" and does not eject: the drive left
            # alone for a while after cp returned, every setup, then unmounted as always
            time.sleep(g["after_return_s"])
        if pacer:
            pacer.stop()
        series.stop()
        safe_changes = self.safe_monitor.changes(rt0, time.time()) if self.safe_monitor else None
        self.unmount(mp, how)
        t2 = time.monotonic()
        events, lost = tracer.stop()
        tracer.close()
        dev.mark(2 * idx + 1)
        trace = summarize_trace(events, data_start, {"cp"})
        grain = bio_grain(events, data_start)
        # what the drive did during the unmount: from the copy's return (t1) to the marker
        device = stick_segment("/run/lab/stick/%s.log" % dev.serial, 2 * idx, 2 * idx + 1, data_start * 512,
                               after_s=t1 - t_mark)
        res = self.base(idx, rep, workload, config, warmup, opts, knobs, vm, how)
        res.update({
            "copy_s": round(t1 - t0, 3), "umount_s": round(t2 - t1, 3), "safe_s": round(t2 - t0, 3),
            # for the pull replay: the run's clock against the stick's (the start marker
            # was read t0_after_mark_s before cp began) and the series' clock against t0
            "t0_after_mark_s": round(t0 - t_mark, 4), "series_t0_s": round(series.t0 - t0, 4),
            "after_return_s": g.get("after_return_s", 0),
        })
        if safe_changes is not None:
            # Safe as vfat-smartd published it (a drive it does not manage: none)
            # the notice is read from them on the host (bench/lib/pull_replay.py, notice_of)
            res.update({"safe_changes": safe_changes})
        res.update({
            "mb_per_s_safe": round(workload["bytes"] / 1e6 / (t2 - t0), 2),
            "peak_dirty_bytes": series.peak_dirty, "peak_at_risk_bytes": series.peak_risk,
            "cap_bytes_during": [min(series.caps), max(series.caps)] if series.caps else None,
            "at_risk_at_return_bytes": at_return,
            "requests": trace["all"], "data_requests": trace["data"], "data_bios": trace["data_bios"],
            "data_bio_bytes_by_writer": trace["data_bio_bytes_by_writer"], "trace_lost_events": lost,
            "data_bio_grain": grain,
            "drive": device, "series": series.samples, "cp_written_at_return": last_w,
            "pacer": {"calls": pacer.calls, "busy_s": round(pacer.busy_s, 2)} if pacer else None,
            "cpu_copy": cpu,
        })
        self.emit(res)
        return res

    def yank(self, t0, written_bytes, pid=None):
        """Pull the stick now: the host creates the filter's yank file (out of band: an
        in-band marker read would queue behind the guest's writes). WRITTEN_BYTES: what cp
        had written when we decided; with PID, cp's count once the host acknowledged (the
        larger, so the loss is not understated)."""
        t = time.monotonic()
        host_request("yank")
        after = written(pid) if pid else None
        return {"t_s": round(t - t0, 3), "ack_s": round(time.monotonic() - t, 3),
                "written_bytes": max(written_bytes, after or 0), "written_before_bytes": written_bytes}

    def finish_yank(self, idx, rep, workload, config, point, yanked, t0, t1, mp, how, opts, knobs, vm,
                    tracer, series, pacer, cp, at_return, data_start):
        risk_at_yank = sum(self.dev.dirty())
        if pacer:
            pacer.stop()
        series.stop()
        tracer.stop()
        tracer.close()
        lab("lab_unplug")
        t_unplugged = time.monotonic()
        for pid in (proc_pid(cp), cp.pid):
            try:
                os.kill(pid, 9)
            except (OSError, TypeError):
                pass
        cp.wait()
        sh("umount", "-l", mp, check=False)
        ans = lab("lab_yank_analyze", workload["host_src"], workload["dst"])
        got = json.loads(ans)
        res = self.base(idx, rep, workload, config, False, opts, knobs, vm, how)
        lost = yanked["written_bytes"] - got["intact_bytes"]
        res.update({
            "yank": point, "yank_t_s": yanked["t_s"], "yank_ack_s": yanked["ack_s"],
            "written_before_bytes": yanked["written_before_bytes"], "copy_returned": point != "half",
            "at_risk_at_return_bytes": at_return if point != "half" else None,
            "copy_s": round(t1 - t0, 3) if point != "half" else None,
            "written_bytes": yanked["written_bytes"], "intact_bytes": got["intact_bytes"],
            "lost_bytes": lost, "lost_device_s": round(lost / self.g["bw"], 2),
            "at_risk_at_yank_bytes": risk_at_yank, "peak_at_risk_bytes": series.peak_risk,
            "files": got["files"], "files_found": got["files_found"], "files_intact": got["files_intact"],
            "matching_bytes": got.get("matching_bytes"), "checked_against_log": got.get("checked_against_log"),
            "fsck_rc": got["fsck_rc"], "fsck": got["fsck"],
            "unplug_s": round(t_unplugged - t0 - yanked["t_s"], 2), "series": series.samples,
        })
        self.emit(res)
        self.plug()
        return res

    def base(self, idx, rep, workload, config, warmup, opts, knobs, vm, how):
        g = self.g
        return {"group": g["name"], "run": idx, "rep": rep, "warmup": warmup,
                "kernel": os.uname().release, "kernel_series": g["kernel"], "device": g["profile"],
                "jump_ms": g["jump_ms"], "bw": g["bw"], "vm": config.get("vm", g["vm"]), "fs": g.get("fs", "vfat"),
                "commit": g.get("commit"), "profile": g["profile"],
                "workload": workload["name"], "workload_bytes": workload["bytes"],
                "setup": config["setup"], "config": config["label"], "fat_module": self.fat,
                "mounted_by": how, "mount_options": opts, "knobs": knobs, "vm_values": vm,
                "pacer_config": config.get("pacer"), "stick": self.dev.serial,
                **({"two_sticks": "alone"} if g.get("two_sticks") else {}),
                **({"first_plug": True} if self.first_plug(config) else {})}

    def emit(self, res):
        line = json.dumps(res, sort_keys=True)
        print(line, flush=True)
        self.results.write(line + "\n")
        self.results.flush()

    def prepare(self):
        if self.g.get("fragment_mib"):
            ready = "/tmp/frag.ready"
            self.frag = subprocess.Popen([self.g["frag_bin"], str(self.g["fragment_mib"]), ready])
            for _ in range(1200):
                if os.path.exists(ready):
                    break
                time.sleep(0.1)
        # room for the biggest source in tmpfs (one workload's source at a time)
        sh("mount", "-o", "remount,size=75%", "/tmp")

    def load_source(self, w):
        """The workload's source from the host into tmpfs (only one at a time)."""
        sh("rm", "-rf", "/tmp/bench-src")
        os.makedirs("/tmp/bench-src")
        w["guest_src"] = "/tmp/bench-src/" + w["name"]
        t = time.monotonic()
        sh("cp", "-r", "/run/lab/host" + w["host_src"], w["guest_src"])
        sh("chmod", "-R", "a+rX", "/tmp/bench-src")
        log("source %s in tmpfs (%.0f s)" % (w["name"], time.monotonic() - t))
        w["dst"] = "big.bin" if w["kind"] == "big-file" else "files"
        write_copy_order(w)

    def run(self):
        g = self.g
        daemon_log_to_out()
        sh("bash", "-c", ". /run/lab/lib.sh; lab_polkit_allow_user")
        self.set_ignore(True)
        self.plug()
        self.prepare()
        y = g.get("yank") or {}
        if g.get("target") == "internal":
            return self.run_internal()
        if g.get("two_sticks"):
            return self.run_two_sticks()
        if g.get("order") == "rep-major":
            return self.run_rep_major(y)
        for wi, w in enumerate(g["workloads"]):
            self.load_source(w)
            if wi == 0 and g.get("warmup", True):
                c = g["configs"][0]
                log("warm-up: %s, %s (discarded)" % (w["name"], c["label"]))
                self.run_one(w, c, 0, warmup=True)
            for rep in range(1, g["reps"] + 1):
                for c in rotated(g["configs"], rep):
                    log("rep %d: %s, %s" % (rep, w["name"], c["label"]))
                    self.run_one(w, c, rep)
            if w["name"] not in y.get("workloads", []):
                continue
            for rep in range(1, y.get("reps", 1) + 1):
                for c in g["configs"]:
                    if c["label"] not in y.get("configs", []):
                        continue
                    for point in y.get("points", []):
                        log("yank %s: %s, %s" % (point, w["name"], c["label"]))
                        self.run_one(w, c, rep, yank=point)
        if self.frag:
            self.frag.kill()


def rotated(configs, rep):
    """The setups in the order of repetition rep (1, 2, ...): rotated by one per
    repetition, so that no setup always runs first or right after the same other one
    (a fixed order left an order effect possible, see bench/EXPERIMENTS.md, x-strict-ssd)."""
    k = (rep - 1) % len(configs) if configs else 0
    return configs[k:] + configs[:k]


def run_rep_major(self, y):
    """Every source in tmpfs at once; rep 1 of every cell, then the yanks, then the other
    reps: a guest cut short by its deadline still has every cell once and the yanks."""
    g = self.g
    srcs = []
    for w in g["workloads"]:
        self.load_source_keep(w)
        srcs.append(w)
    if g.get("warmup", True):
        w, c = srcs[0], g["configs"][0]
        log("warm-up: %s, %s (discarded)" % (w["name"], c["label"]))
        self.run_one(w, c, 0, warmup=True)

    def reps(rep):
        for w in srcs:
            for c in rotated(g["configs"], rep):
                log("rep %d: %s, %s" % (rep, w["name"], c["label"]))
                self.run_one(w, c, rep)

    reps(1)
    for w in srcs:
        if w["name"] not in y.get("workloads", []):
            continue
        for c in g["configs"]:
            if c["label"] in y.get("configs", []):
                for point in y.get("points", []):
                    log("yank %s: %s, %s" % (point, w["name"], c["label"]))
                    self.run_one(w, c, 1, yank=point)
    for rep in range(2, g["reps"] + 1):
        reps(rep)
    if self.frag:
        self.frag.kill()


def run_two_sticks(self):
    """Groups with "two_sticks": the hotplug stick (A) and guest-run's cold-plugged
    nbd-stick (B, the same profile), one setup. Every source in tmpfs at once; a warm-up
    on each stick (what the daemon learns of a drive it learns on its first copies), then
    per repetition and workload, in an order rotated per repetition: A alone, B alone, and
    both copies started together. A run's config says which ("vfat-smart, stick A
    alone", "vfat-smart, stick B, both at once"); each stick's time to safe is its own
    copy and unmount from the common start, its peak at risk its own BDI's."""
    g = self.g
    c = g["configs"][0]
    a, b = self.dev, Device(STICK_B)
    log("second stick %s (%s)" % (b.disk, g["profile"]))
    srcs = []
    for w in g["workloads"]:
        self.load_source_keep(w)
        srcs.append(w)
    sticks = [(a, "A"), (b, "B")]
    for dev, who in sticks:
        self.dev = dev
        log("warm-up: %s, %s, stick %s (discarded)" % (srcs[0]["name"], c["label"], who))
        self.run_one(srcs[0], dict(c, label="%s, stick %s alone" % (c["label"], who)), 0, warmup=True)
    for rep in range(1, g["reps"] + 1):
        for w in srcs:
            for dev, who in rotated(sticks + [(None, "both")], rep):
                log("rep %d: %s, %s, %s" % (rep, w["name"], c["label"],
                                            "both sticks at once" if dev is None else "stick %s alone" % who))
                if dev is None:
                    self.run_pair_one(w, c, rep, sticks)
                else:
                    self.dev = dev
                    self.run_one(w, dict(c, label="%s, stick %s alone" % (c["label"], who)), rep)
    self.dev = a


def run_pair_one(self, workload, config, rep, sticks):
    """Both sticks' copies started together (run_two_sticks): each mounted as run_one
    mounts, each unmounted as soon as its own copy returned."""
    g = self.g
    fs = g.get("fs", "vfat")
    if fs == "vfat":
        self.fat = select_fat_module(config.get("fat_module", "stock"), self.fat)
    vm = self.set_vm(config)
    runs = []
    for dev, who in sticks:
        self.dev = dev
        self.fresh_fs(config)
        mp, how, opts = self.mount(config)
        runs.append({"dev": dev, "who": who, "mp": mp, "how": how, "opts": opts,
                     "idx": self.run_idx, "data_start": dev.data_start_sector(fs), "pid": None})
        self.run_idx += 1
    for r in runs:
        # FAT in the cache, as run_one has it (after both fresh_fs(): each drops the caches)
        sh("dd", "if=" + r["dev"].part, "of=/dev/null", "bs=64K",
           "count=%d" % -(-r["dev"].metadata_bytes(fs) // 65536), "status=none")
        r["knobs"] = r["dev"].knobs()
    for r in runs:
        r["series"] = Series(r["dev"], g.get("sample_s", 0.2), lambda r=r: r["pid"])
        r["dev"].mark(2 * r["idx"])
        r["t_mark"] = time.monotonic()
        r["series"].start()
    cpu0 = cpu_ticks()
    t0 = time.monotonic()

    def one(r):
        cp = subprocess.Popen(["runuser", "-u", "labuser", "--", "cp", "-r", workload["guest_src"],
                               r["mp"] + "/" + workload["dst"]])
        for _ in range(200):
            r["pid"] = proc_pid(cp)
            if r["pid"]:
                break
            time.sleep(0.005)
        r["rc"] = cp.wait()
        r["t1"] = time.monotonic()
        r["at_return"] = sum(r["dev"].dirty())
        r["series"].stop()
        self.unmount(r["mp"], r["how"], r["dev"])
        r["t2"] = time.monotonic()

    threads = [threading.Thread(target=one, args=(r,)) for r in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cpu = cpu_during(cpu0, cpu_ticks(), None)
    for r in runs:
        if r.get("rc") != 0:
            raise SystemExit("bench: cp to stick %s failed (%s)" % (r["who"], r.get("rc")))
        idx, series = r["idx"], r["series"]
        r["dev"].mark(2 * idx + 1)
        device = stick_segment("/run/lab/stick/%s.log" % r["dev"].serial, 2 * idx, 2 * idx + 1,
                               r["data_start"] * 512, after_s=r["t1"] - r["t_mark"])
        label = "%s, stick %s, both at once" % (config["label"], r["who"])
        res = self.base(idx, rep, workload, dict(config, label=label), False, r["opts"], r["knobs"], vm, r["how"])
        res.update({
            "copy_s": round(r["t1"] - t0, 3), "umount_s": round(r["t2"] - r["t1"], 3),
            "safe_s": round(r["t2"] - t0, 3), "t0_after_mark_s": round(t0 - r["t_mark"], 4),
            "series_t0_s": round(series.t0 - t0, 4), "after_return_s": 0,
            "mb_per_s_safe": round(workload["bytes"] / 1e6 / (r["t2"] - t0), 2),
            "peak_dirty_bytes": series.peak_dirty, "peak_at_risk_bytes": series.peak_risk,
            "cap_bytes_during": [min(series.caps), max(series.caps)] if series.caps else None,
            "at_risk_at_return_bytes": r["at_return"], "drive": device, "series": series.samples,
            "cpu_copy": cpu, "stick": r["dev"].serial, "two_sticks": "both",
        })
        self.emit(res)


def load_source_keep(self, w):
    os.makedirs("/tmp/bench-src", exist_ok=True)
    w["guest_src"] = "/tmp/bench-src/" + w["name"]
    w["dst"] = "big.bin" if w["kind"] == "big-file" else "files"
    if not os.path.exists(w["guest_src"]):
        t = time.monotonic()
        sh("cp", "-r", "/run/lab/host" + w["host_src"], w["guest_src"])
        sh("chmod", "-R", "a+rX", "/tmp/bench-src")
        log("source %s in tmpfs (%.0f s)" % (w["name"], time.monotonic() - t))
        write_copy_order(w)


Bench.run_rep_major = run_rep_major
Bench.load_source_keep = load_source_keep

# ------------------------------------------------------------ target "internal" (issue 14)
# The cost of allow-global-knobs on every other disk: the copy goes to the guest's internal
# disk (virtio, ext4, made fresh per run) while the cheap stick is mounted through the
# product's path (the rule, udisksctl mount, vfat-smartd activated), with the admin key
# allow-global-knobs off (vfat-smart: vm.* untouched) or on (vfat-smart-global-knobs: on
# Linux < 6.2 the daemon bounds vm.dirty_bytes / vm.dirty_background_bytes while the stick
# is mounted), or with no stick mounted (no-stick). Safe = sync -f (syncfs) of the internal
# disk returned.
INTERNAL_SERIAL = "INTERNAL1"
INTERNAL_MP = "/mnt/internal"
VM_KEYS = ("dirty_bytes", "dirty_background_bytes", "dirty_ratio", "dirty_background_ratio")


def vm_now():
    return {k: int(read("/proc/sys/vm/" + k)) for k in VM_KEYS}


def vmstat_dirty():
    """(nr_dirty, nr_writeback) of the whole machine, bytes."""
    vals = dict(re.findall(r"^(nr_dirty|nr_writeback) (\d+)$", read("/proc/vmstat", ""), re.M))
    return int(vals.get("nr_dirty", 0)) * 4096, int(vals.get("nr_writeback", 0)) * 4096


class InternalSeries(threading.Thread):
    """Samples the internal disk's dirty + writeback, the machine's, and vm.dirty_bytes."""

    def __init__(self, dev, interval):
        super().__init__(daemon=True)
        self.dev, self.interval = dev, interval
        self.stop_flag = threading.Event()
        self.samples = []
        self.t0 = time.monotonic()
        self.peak_dirty = self.peak_risk = self.peak_global_dirty = self.peak_global_risk = 0
        self.dirty_bytes_seen = set()

    def run(self):
        while not self.stop_flag.is_set():
            d, w = self.dev.dirty()
            gd, gw = vmstat_dirty()
            db = int(read("/proc/sys/vm/dirty_bytes", "0"))
            self.peak_dirty = max(self.peak_dirty, d)
            self.peak_risk = max(self.peak_risk, d + w)
            self.peak_global_dirty = max(self.peak_global_dirty, gd)
            self.peak_global_risk = max(self.peak_global_risk, gd + gw)
            self.dirty_bytes_seen.add(db)
            self.samples.append((round(time.monotonic() - self.t0, 2), d, w, gd, gw, db))
            self.stop_flag.wait(self.interval)

    def stop(self):
        self.stop_flag.set()
        self.join()


def wait_for(fn, limit_s, step=0.2):
    end = time.monotonic() + limit_s
    while True:
        if fn():
            return True
        if time.monotonic() > end:
            return False
        time.sleep(step)


def set_admin_key(self, key, val):
    """One of the admin's keys (root's dconf, as agent-check does) set to val, the text
    gsettings reads back ("true", "1.0"), or reset to its default (None); the daemon is
    stopped so that the next call activates one that reads it afresh."""
    if self.admin.get(key) == val:
        return
    if val is None:
        sh("dbus-run-session", "--", "gsettings", "reset", "org.vfatsmart", key)
    else:
        sh("dbus-run-session", "--", "gsettings", "set", "org.vfatsmart", key, val)
        got = sh("dbus-run-session", "--", "gsettings", "get", "org.vfatsmart", key).strip()
        if got != val:
            raise SystemExit("bench: %s reads %r after setting %s" % (key, got, val))
    for pid in sh("pgrep", "-x", "vfat-smartd", check=False).split():
        try:
            os.kill(int(pid), 15)
        except OSError:
            pass
    if not wait_for(lambda: not sh("pgrep", "-x", "vfat-smartd", check=False).strip(), 15):
        raise SystemExit("bench: vfat-smartd did not stop")
    log("%s %s (vfat-smartd restarted on the next call)" % (key, "reset" if val is None else val))
    self.admin[key] = val


def set_global_knobs(self, on):
    """The admin's allow-global-knobs."""
    self.set_admin_key("allow-global-knobs", "true" if on else "false")


def internal_fresh(self):
    d = self.idev
    sh("mkfs.ext4", "-q", "-F", "-L", "INTERNAL", "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard", d.disk)
    # no_prefetch_block_bitmaps: ext4lazyinit would read the bitmaps during the copy
    sh("mount", "-t", "ext4", "-o", "no_prefetch_block_bitmaps", d.disk, INTERNAL_MP)
    sh("chown", "labuser:labuser", INTERNAL_MP)
    sh("sync")
    write("/proc/sys/vm/drop_caches", 3)


def run_internal_one(self, w, c, rep, warmup=False):
    g = self.g
    idx = self.run_idx
    self.run_idx += 1
    setup = c["setup"]
    want = bool(c.get("allow_global_knobs"))
    self.set_global_knobs(want)
    stick_mp = how = opts = None
    knobs, status = {}, None
    orig = self.vm_orig
    vm_plugged = vm_now()
    if setup != "no-stick":
        if self.stick_out:
            self.plug()
            self.stick_out = False
        self.fresh_fs({"setup": "vfat-smart"})          # the rule; vfat-smartd activated
        vm_plugged = vm_now()                         # after the rule ran, before the mount
        stick_mp, how, opts = self.mount({"setup": "vfat-smart"})
        if want and not wait_for(lambda: vm_now()["dirty_bytes"] != orig["dirty_bytes"], 30):
            log(sh("vfat-smart", "status", check=False))
            raise SystemExit("bench: allow-global-knobs is on, the stick is mounted, and vm.dirty_bytes "
                             "stayed %d" % orig["dirty_bytes"])
        if not want:
            time.sleep(3)                             # what the daemon would do, it has done
        knobs = self.dev.knobs()
        status = sh("vfat-smart", "status", check=False)
    self.internal_fresh()
    vm = vm_now()
    if not want and vm != orig:
        raise SystemExit("bench: allow-global-knobs is off and vm.* moved: %s, not %s" % (vm, orig))
    dev = self.idev
    st0 = dev.stat()
    series = InternalSeries(dev, g.get("sample_s", 0.2))
    dst = INTERNAL_MP + "/" + w["dst"]
    series.start()
    t0 = time.monotonic()
    rc = subprocess.run(["runuser", "-u", "labuser", "--", "cp", "-r", w["guest_src"], dst]).returncode
    t1 = time.monotonic()
    at_return = sum(dev.dirty())
    if rc != 0:
        raise SystemExit("bench: cp failed (%s)" % rc)
    sh("sync", "-f", INTERNAL_MP)
    t2 = time.monotonic()
    series.stop()
    st1 = dev.stat()
    sh("umount", INTERNAL_MP)
    vm_after = restore = None
    if stick_mp:
        self.unmount(stick_mp, how)
        vm_after, restore = self.internal_release(orig)
    res = self.base(idx, rep, w, c, warmup, opts, knobs, vm, how)
    res.update({
        "device": "internal-virtio", "fs": "ext4", "target": "internal", "jump_ms": None, "bw": None,
        "stick": g["profile"], "stick_bw": g["bw"], "stick_mounted": stick_mp is not None,
        "allow_global_knobs": want, "vm_orig": orig, "vm_after_plug": vm_plugged,
        "vm_in_force": vm, "vm_after_unmount": vm_after,
        "vm_restored": vm_after == orig if vm_after is not None else None, "vm_restore": restore,
        "vm_dirty_bytes_seen": sorted(series.dirty_bytes_seen),
        "copy_s": round(t1 - t0, 3), "sync_s": round(t2 - t1, 3), "safe_s": round(t2 - t0, 3),
        "mb_per_s_safe": round(w["bytes"] / 1e6 / (t2 - t0), 2),
        "peak_dirty_bytes": series.peak_dirty, "peak_at_risk_bytes": series.peak_risk,
        "peak_global_dirty_bytes": series.peak_global_dirty, "peak_global_at_risk_bytes": series.peak_global_risk,
        "at_risk_at_return_bytes": at_return,
        "internal_written_bytes": (st1["write_sectors"] - st0["write_sectors"]) * 512,
        "internal_write_ios": st1["write_ios"] - st0["write_ios"],
        "status": status, "series": series.samples,
    })
    self.emit(res)
    return res


def state_files():
    out = {}
    d = "/run/vfat-smart"
    for n in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        out[n] = read(os.path.join(d, n), "")
    return out


def internal_release(self, orig):
    """After the stick's unmount: do the vm.* knobs come back? (vm after, how it went:
    {"at": "unmount" | "unplug" | "by hand", "s": seconds, "diag": ...}). When they stay
    after the unmount, the person pulls the stick (unplug, then it is plugged again for
    the next run); when they stay after that too, the bench writes the originals itself
    (so that the next runs start from them) and says so."""
    t = time.monotonic()
    if wait_for(lambda: vm_now() == orig, 20):
        return vm_now(), {"at": "unmount", "s": round(time.monotonic() - t, 1)}
    diag = {"vm": vm_now(), "state": state_files(), "status": sh("vfat-smart", "status", check=False)}
    log("vm.* 20 s after the unmount: %s, not the originals %s; pulling the stick" % (diag["vm"], orig))
    lab("lab_unplug")
    t2 = time.monotonic()
    ok = wait_for(lambda: vm_now() == orig, 20)
    after = vm_now()
    res = {"at": "unplug" if ok else "by hand", "s": round(time.monotonic() - t2, 1),
           "after_unmount": diag, "after_unplug": after}
    if not ok:
        log("vm.* 20 s after the unplug: %s; writing the originals by hand" % after)
        res["state_after_unplug"] = state_files()
        for k in ("dirty_ratio", "dirty_background_ratio"):
            write("/proc/sys/vm/" + k, orig[k])
    # plugged again only when a run needs it, after that run's allow-global-knobs is set:
    # with it true, vfat-smart-udev takes the vm.* knobs at the plug already
    self.stick_out = True
    return after, res


def daemon_log_to_out():
    """vfat-smartd's messages into $LAB_OUT/vfat-smartd.log, kept with the group's raw
    results (as check-lib.sh's daemon_log_to_lab_out: the D-Bus activation goes through a
    wrapper that appends), its debug lines too: why Safe is false, when that changes."""
    svc = "/usr/share/dbus-1/system-services/org.vfatsmart.VfatSmart1.service"
    out = os.environ.get("LAB_OUT", "/run/lab/out")
    if not os.path.exists(svc):
        return
    with open("/usr/local/sbin/vfat-smartd-logged", "w") as f:
        # GLib writes debug lines to stdout, the others to stderr
        f.write('#!/bin/sh\nG_MESSAGES_DEBUG=vfat-smart exec %s "$@" >> %s/vfat-smartd.log 2>&1\n'
                % (DAEMON, out))
    os.chmod("/usr/local/sbin/vfat-smartd-logged", 0o755)
    text = read(svc)
    with open(svc, "w") as f:
        f.write(re.sub(r"(?m)^Exec=.*$", "Exec=/usr/local/sbin/vfat-smartd-logged", text) + "\n")
    sh("dbus-send", "--system", "--print-reply", "--dest=org.freedesktop.DBus", "/",
       "org.freedesktop.DBus.ReloadConfig")


def run_internal(self):
    g = self.g
    self.idev = Device(INTERNAL_SERIAL)
    log("internal disk %s" % self.idev.disk)
    os.makedirs(INTERNAL_MP, exist_ok=True)
    self.stick_out = False
    # once: the daemon records the originals it replaces and puts them back; a value
    # written per run would be "someone else's" to it
    for k, v in VM[g["vm"]].items():
        write("/proc/sys/vm/" + k, v)
    self.vm_orig = vm_now()
    srcs = []
    for w in g["workloads"]:
        self.load_source_keep(w)
        srcs.append(w)
    try:
        if g.get("warmup", True):
            w, c = srcs[0], g["configs"][0]
            log("warm-up: %s, %s (discarded)" % (w["name"], c["label"]))
            self.run_internal_one(w, c, 0, warmup=True)
        for rep in range(1, g["reps"] + 1):
            for w in srcs:
                for c in g["configs"]:
                    log("rep %d: %s, %s" % (rep, w["name"], c["label"]))
                    self.run_internal_one(w, c, rep)
    finally:
        self.set_global_knobs(False)


Bench.set_admin_key = set_admin_key
Bench.set_global_knobs = set_global_knobs
Bench.internal_fresh = internal_fresh
Bench.run_internal_one = run_internal_one
Bench.internal_release = internal_release
Bench.run_internal = run_internal
Bench.run_two_sticks = run_two_sticks
Bench.run_pair_one = run_pair_one


def main():
    with open(sys.argv[1]) as f:
        g = json.load(f)
    Bench(g).run()


if __name__ == "__main__":
    main()

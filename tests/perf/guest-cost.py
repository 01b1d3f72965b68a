#!/usr/bin/python3
"""guest side of tests/perf/lab-cost: what vfat-smart costs in the lab guest.

Argument: the hot-plugged stick's disk node (/dev/sdX, FAT on its first partition).
Prints one JSON line:
  udev:   vfat-smart-udev run as udev's IMPORT{program} would (the event's properties
          from udev's database, ACTION=add) for the disk and the partition, against
          /bin/true run the same way: CPU ms per run and opens (strace)
  mount:  mount -t vfat-smart against mount -t vfat of the partition (each followed by
          umount), alternating: wall and CPU ms per mount (the helpers' CPU included)
  daemon: vfat-smartd's CPU (utime + stime from /proc, and each: the system time
          would include writeback its pacer starts with BLKFLSBUF) over a copy of COPY_MIB MiB and until the drive's dirty and
          writeback data are gone, against that wall time
"""
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPS = int(os.environ.get("REPS", "10"))
COPY_MIB = int(os.environ.get("COPY_MIB", "128"))
HELPER = "/usr/libexec/vfat-smart-udev"
AS_USER = ["runuser", "-u", "labuser", "--"]


def child_cpu_ms(fn):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def event_env(node):
    out = subprocess.run(["udevadm", "info", "--query=property", "--name", node],
                         capture_output=True, text=True, check=True).stdout
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
    for line in out.splitlines():
        k, _, v = line.partition("=")
        env[k] = v
    env["ACTION"] = "add"
    return env


def opens(cmd, env):
    with tempfile.NamedTemporaryFile("r") as tr:
        subprocess.run(["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", tr.name] + cmd,
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return sum(1 for line in tr if re.search(r"\bopen(at)?\(", line))


def udev_cost(node):
    env = event_env(node)
    row = {"node": node, "devtype": env.get("DEVTYPE")}
    for name, cmd in (("helper", [HELPER]), ("noop", ["/bin/true"])):
        cpu = [child_cpu_ms(lambda: subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.DEVNULL)) for _ in range(REPS)]
        row[name] = {"cpu_ms": cpu, "opens": opens(cmd, env)}
    return row


def mount_cost(part):
    mnt = tempfile.mkdtemp()
    res = {"vfat-smart": {"wall_ms": [], "cpu_ms": []}, "vfat": {"wall_ms": [], "cpu_ms": []}}
    for _ in range(REPS):
        for fstype in ("vfat-smart", "vfat"):
            t = time.monotonic()
            cpu = child_cpu_ms(lambda: subprocess.run(["mount", "-t", fstype, part, mnt], check=True))
            res[fstype]["wall_ms"].append((time.monotonic() - t) * 1000)
            res[fstype]["cpu_ms"].append(cpu)
            subprocess.run(["umount", mnt], check=True)
    os.rmdir(mnt)
    return res


def proc_cpu_s(pid):
    """(user, system) CPU seconds of pid"""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tck, int(fields[12]) / tck


def bdi_pending_kb(bdi):
    n = 0
    with open("/sys/kernel/debug/bdi/%s/stats" % bdi) as f:
        for line in f:
            if line.startswith(("BdiWriteback:", "BdiReclaimable:")):
                n += int(line.split()[1])
    return n


def daemon_cost(disk, part, bdi):
    subprocess.run(["gdbus", "call", "--system", "-d", "org.vfatsmart.VfatSmart1", "-o",
                    "/org/vfatsmart/VfatSmart1", "-m", "org.vfatsmart.VfatSmart1.Manager.ListDevices"],
                   stdout=subprocess.DEVNULL, check=True)
    pid = int(subprocess.run(["pgrep", "-xo", "vfat-smartd"], capture_output=True, text=True,
                             check=True).stdout)
    out = subprocess.run(AS_USER + ["udisksctl", "mount", "-b", part], capture_output=True,
                         text=True, check=True).stdout
    mnt = subprocess.run(["findmnt", "-n", "-o", "TARGET", "--source", part], capture_output=True,
                         text=True).stdout.split("\n")[0]
    src = tempfile.mktemp()
    subprocess.run(["head", "-c", "%dM" % COPY_MIB, "/dev/urandom"], stdout=open(src, "wb"), check=True)
    os.chmod(src, 0o644)
    time.sleep(3)
    (u0, s0), t0 = proc_cpu_s(pid), time.monotonic()
    subprocess.run(AS_USER + ["cp", src, mnt + "/copy"], check=True)
    t_ret = time.monotonic()
    while bdi_pending_kb(bdi) >= 1024 and time.monotonic() - t0 < 300:
        time.sleep(0.2)
    (u1, s1), t1 = proc_cpu_s(pid), time.monotonic()
    subprocess.run(AS_USER + ["udisksctl", "unmount", "-b", part], stdout=subprocess.DEVNULL)
    os.unlink(src)
    return {"mounted": out.strip(), "copy_mib": COPY_MIB, "cp_s": t_ret - t0, "until_clean_s": t1 - t0,
            "daemon_cpu_s": (u1 - u0) + (s1 - s0), "daemon_user_s": u1 - u0, "daemon_system_s": s1 - s0,
            "share_of_one_cpu": ((u1 - u0) + (s1 - s0)) / (t1 - t0)}


def main():
    disk = sys.argv[1]
    part = disk + "1"
    with open("/sys/block/%s/dev" % os.path.basename(disk)) as f:
        bdi = f.read().strip()
    out = {"kernel": os.uname().release, "reps": REPS,
           "udev": [udev_cost(disk), udev_cost(part)]}
    # before the hand mounts: their unmount puts back the knobs udev applied
    out["daemon"] = daemon_cost(disk, part, bdi)
    out["mount"] = mount_cost(part)
    print("COST " + json.dumps(out))


if __name__ == "__main__":
    main()

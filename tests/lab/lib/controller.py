#!/usr/bin/env python3
"""Host side of one lab guest run (started by guest-run, one per QEMU).

- streams the check script's output (share/.ctl/check.out) to stdout as it grows;
- serves the guest's requests (share/.ctl/req-ID -> share/.ctl/ack-ID): hotplug,
  unplug, hmp, over QMP; yank (the hotplug stick's nbd-stick filter stops taking writes
  from now on: its yank file); yank-analyze (reads the hotplug stick's image offline on
  the host after a yank, with lib/yank_analyze.py; only while the stick is unplugged);
- copies the console's "@@ ..." markers into timeline.txt with host-side times.

Usage: controller.py CONFIG.json   (written by guest-run; see there for the keys)
Stops when the file named by "done_flag" exists and everything is drained.
"""
import json
import os
import re
import socket
import subprocess
import sys
import time


class Tail:
    """Reads what was appended to a file since the last call."""

    def __init__(self, path):
        self.path, self.offset, self.rest = path, 0, b""

    def read(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except OSError:
            return b""
        self.offset += len(data)
        return data

    def lines(self):
        data = self.rest + self.read()
        *full, self.rest = data.split(b"\n")
        return [l.rstrip(b"\r").decode("utf-8", "replace") for l in full]


class QMPError(Exception):
    pass


class QMP:
    def __init__(self, path, log):
        self.log = log
        deadline = time.time() + 15
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.settimeout(120)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        self.file = self.sock.makefile("rwb")
        self.events = []
        self._recv()                       # greeting
        self.execute("qmp_capabilities")

    def _recv(self):
        line = self.file.readline()
        if not line:
            raise QMPError("QMP connection closed")
        return json.loads(line)

    def execute(self, name, **args):
        msg = {"execute": name}
        if args:
            msg["arguments"] = args
        self.file.write(json.dumps(msg).encode() + b"\n")
        self.file.flush()
        while True:
            m = self._recv()
            if "event" in m:
                self.log("event %s %s" % (m["event"], json.dumps(m.get("data", {}))))
                self.events.append(m)
            elif "error" in m:
                raise QMPError(m["error"].get("desc", str(m["error"])))
            elif "return" in m:
                return m["return"]

    def wait_event(self, name, match, timeout):
        """Wait for event NAME whose data contains MATCH (a dict)."""
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e["event"] == name and all(e.get("data", {}).get(k) == v for k, v in match.items()):
                    del self.events[i]
                    return True
            if time.time() > deadline:
                return False
            self.sock.settimeout(max(0.1, deadline - time.time()))
            try:
                m = self._recv()
            except socket.timeout:
                return False
            finally:
                self.sock.settimeout(120)
            if "event" in m:
                self.log("event %s %s" % (m["event"], json.dumps(m.get("data", {}))))
                self.events.append(m)


class Controller:
    def __init__(self, cfg):
        self.cfg = cfg
        self.run = cfg["run_dir"]
        self.ctl = os.path.join(cfg["share"], ".ctl")
        self.t0 = cfg["t0"]
        self.clog = open(os.path.join(self.run, "controller.log"), "a", buffering=1)
        self.timeline = open(os.path.join(self.run, "timeline.txt"), "a", buffering=1)
        self.qmp = None
        self.plugged = None     # (device id, node name) of the attached hotplug stick
        self.seq = 0

    def log(self, msg):
        self.clog.write("%8.2f %s\n" % (time.time() - self.t0, msg))

    def monitor(self):
        if self.qmp is None:
            self.qmp = QMP(self.cfg["qmp"], self.log)
        return self.qmp

    # ------------------------------------------------------------------ requests
    def hotplug(self):
        hp = self.cfg.get("hotplug")
        if not hp:
            return False, "this run has no hotplug stick"
        if self.plugged:
            return False, "HOTPLUG1 is already attached (%s)" % self.plugged[0]
        q = self.monitor()
        self.seq += 1
        node, dev = "hp-node%d" % self.seq, "hp-dev%d" % self.seq
        q.execute("blockdev-add", **{"node-name": node, "driver": "raw", "file": hp["file"]})
        try:
            for i, d in enumerate(hp["devices"]):
                args = dict(d)
                args["id"] = dev if i == 0 else "%s-%d" % (dev, i)
                if "drive" in args:
                    args["drive"] = node
                if "bus" in args and args["bus"] == "@0":
                    args["bus"] = dev + ".0"
                q.execute("device_add", **args)
            # a hot-plugged usb-uas/usb-bot waits for its LUNs: attach it to the bus now
            if hp.get("attach"):
                q.execute("qom-set", path="/machine/peripheral/" + dev, property="attached", value=True)
        except QMPError:
            q.execute("blockdev-del", **{"node-name": node})
            raise
        self.plugged = (dev, node)
        return True, "attached HOTPLUG1 as QEMU device %s" % dev

    def unplug(self):
        if not self.plugged:
            return False, "HOTPLUG1 is not attached"
        dev, node = self.plugged
        q = self.monitor()
        q.execute("device_del", id=dev)
        if not q.wait_event("DEVICE_DELETED", {"device": dev}, 30):
            return False, "QEMU did not delete %s within 30 s" % dev
        self.plugged = None
        try:
            q.execute("blockdev-del", **{"node-name": node})
        except QMPError as e:          # the node may still be in use for a moment
            self.log("blockdev-del %s: %s" % (node, e))
        return True, "removed QEMU device %s" % dev

    def hmp(self, line):
        out = self.monitor().execute("human-monitor-command", **{"command-line": line})
        return True, out.replace("\r", "").rstrip("\n")

    def yank_analyze(self, arg):
        """arg: JSON {"src": host path of the copy's source, "dst": path on the drive}."""
        image = self.cfg.get("hotplug_image")
        if not image or not os.path.exists(image):
            return False, "this run has no hotplug image"
        if self.plugged:
            return False, "unplug HOTPLUG1 first (the image must be frozen)"
        req = json.loads(arg)
        src, dst = str(req["src"]), str(req["dst"])
        if not os.path.isabs(src) or not os.path.exists(src):
            return False, "no such source on the host: %s" % src
        tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "yank_analyze.py")
        p = subprocess.run([sys.executable, tool, "--image", image, "--src", src, "--dst", dst],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        if p.returncode != 0:
            return False, "yank_analyze failed: %s" % p.stderr.strip()[-300:]
        return True, p.stdout.strip()

    def yank(self):
        path = self.cfg.get("hotplug_yank_file")
        if not path or not self.plugged:
            return False, "no hotplug stick on nbd-stick attached"
        with open(path, "w"):
            pass
        return True, "HOTPLUG1 takes no more writes"

    def handle(self, text):
        verb, _, arg = text.strip().partition(" ")
        if verb == "yank":
            return self.yank()
        if verb == "yank-analyze":
            return self.yank_analyze(arg)
        if verb == "hotplug":
            return self.hotplug()
        if verb == "unplug":
            return self.unplug()
        if verb == "hmp":
            return self.hmp(arg)
        return False, "unknown request: %r" % verb

    def serve_requests(self):
        try:
            names = sorted(n for n in os.listdir(self.ctl) if n.startswith("req-"))
        except OSError:
            return
        for name in names:
            rid = name[4:]
            path = os.path.join(self.ctl, name)
            try:
                with open(path) as f:
                    text = f.read()
                os.unlink(path)
            except OSError:
                continue
            self.log("request %s: %s" % (rid, text.strip()))
            try:
                ok, answer = self.handle(text)
            except Exception as e:        # keep serving; the guest gets the reason
                ok, answer = False, "%s: %s" % (type(e).__name__, e)
                if not isinstance(e, QMPError):
                    self.qmp = None
            self.log("answer %s: %s %s" % (rid, "ok" if ok else "err", answer))
            tmp = os.path.join(self.ctl, ".ack-%s" % rid)
            with open(tmp, "w") as f:
                f.write(("ok" if ok else "err") + "\n" + answer + ("\n" if answer else ""))
            os.rename(tmp, os.path.join(self.ctl, "ack-" + rid))

    # ---------------------------------------------------------------------- loop
    def loop(self):
        out = Tail(os.path.join(self.ctl, "check.out"))
        console = Tail(self.cfg["console"])
        stdout_ok = True
        marker = re.compile(r"@@ (.*)")
        while True:
            final = os.path.exists(self.cfg["done_flag"])
            data = out.read()
            if data and stdout_ok:
                try:
                    sys.stdout.buffer.write(data)
                    sys.stdout.buffer.flush()
                except OSError:
                    stdout_ok = False
            for line in console.lines():
                m = marker.search(line)
                if m:
                    self.timeline.write("%.2f %s\n" % (time.time() - self.t0, m.group(1)))
            if not final:
                self.serve_requests()
            else:
                break
            time.sleep(0.02)


def main():
    with open(sys.argv[1]) as f:
        cfg = json.load(f)
    Controller(cfg).loop()


if __name__ == "__main__":
    main()

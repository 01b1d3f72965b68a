#!/usr/bin/python3
"""stick_model.py - replay an nbd-stick request log against other model parameters.

Usage: stick_model.py LOG[.gz] [--from-mark N --to-mark M] [KEY=VALUE ...]

KEY is a profile key (bw, cmd_ms, seek_ms, small_bytes, small_ms, au_bytes, open_aus,
random_bytes, random_small_bytes, gc_ms, gc_bw); the others come from the log's header. Prints the device
time the same stream of writes would have cost (the filter's charge, see
tests/lab/nbd-stick/stick-filter.c: the same rules), merges, and MB/s over the bytes.
An open-loop estimate: in the guest the writes' order and sizes depend on the device's
speed, so a fit found here is checked by a run in the lab.
"""
import gzip
import re
import sys


def header(line):
    return {k: float(v) for k, v in re.findall(r"(\w+)=([0-9.e+-]+)", line)}


class Model:
    def __init__(self, p):
        self.p = p
        self.aus = []            # [index, wp, written, lru]
        self.clock = 0
        self.last_end = None
        self.merges = 0
        self.merge_s = 0.0

    def close(self, a):
        p = self.p
        if a[2] < p["au_bytes"]:
            self.merges += 1
            c = p["gc_ms"] / 1000 + ((p["au_bytes"] - a[2]) / p["gc_bw"] if p["gc_bw"] else 0)
            self.merge_s += c
            return c
        return 0.0

    def au_cost(self, off, n):
        p = self.p
        au = int(p["au_bytes"])
        end = off + n
        if au <= 0 or end <= p["random_bytes"] or n < p.get("random_small_bytes", 0):
            return 0.0
        pos = max(off, int(p["random_bytes"]))
        cost = 0.0
        while pos < end:
            idx = pos // au
            au_end = (idx + 1) * au
            seg = min(end, au_end)
            a = next((x for x in self.aus if x[0] == idx), None)
            if a is not None and pos < a[1]:
                cost += self.close(a)
                self.aus.remove(a)
                a = None
            if a is None:
                if len(self.aus) >= int(p["open_aus"]):
                    v = min(self.aus, key=lambda x: x[3])
                    cost += self.close(v)
                    self.aus.remove(v)
                a = [idx, 0, 0, 0]
                self.aus.append(a)
            a[2] += seg - pos
            a[1] = seg
            self.clock += 1
            a[3] = self.clock
            if a[1] == au_end and a[2] >= au:
                self.aus.remove(a)
            pos = seg
        return cost

    def write(self, off, n):
        p = self.p
        cost = n / p["bw"] + p["cmd_ms"] / 1000
        if self.last_end is not None and off != self.last_end:
            cost += p["seek_ms"] / 1000
        elif self.last_end is None:
            cost += p["seek_ms"] / 1000
        if n < p["small_bytes"]:
            cost += p["small_ms"] / 1000
        cost += self.au_cost(off, n)
        self.last_end = off + n
        return cost


def main(argv):
    path = argv[0]
    over, a, b = {}, None, None
    i = 1
    while i < len(argv):
        if argv[i] == "--from-mark":
            a = int(argv[i + 1]); i += 2; continue
        if argv[i] == "--to-mark":
            b = int(argv[i + 1]); i += 2; continue
        k, v = argv[i].split("=", 1)
        over[k] = float(v)
        i += 1
    op = gzip.open if path.endswith(".gz") else open
    p = {"au_bytes": 0, "open_aus": 1, "random_bytes": 0, "random_small_bytes": 0, "gc_ms": 0, "gc_bw": 0}
    writes, inside = [], a is None
    with op(path, "rt") as f:
        for line in f:
            if line.startswith("# nbd-stick"):
                p.update(header(line))
                p["cmd_ms"] = p.get("cmd_ms", 0.5)
                continue
            s = line.split()
            if not s:
                continue
            if s[0] == "M":
                if a is not None and int(s[1]) == a:
                    inside = True
                elif b is not None and int(s[1]) == b:
                    inside = False
            elif s[0] == "W" and inside:
                writes.append((int(s[2]), int(s[3]), float(s[5])))
    p.update(over)
    m = Model(p)
    busy = sum(m.write(o, n) for o, n, _ in writes)
    nbytes = sum(n for _, n, _ in writes)
    logged = sum(c for _, _, c in writes) / 1000
    print("writes %d, %.1f MiB, logged busy %.1f s; model busy %.1f s (%.2f MB/s), merges %d (%.1f s)"
          % (len(writes), nbytes / 2**20, logged, busy, nbytes / busy / 1e6 if busy else 0, m.merges, m.merge_s))


if __name__ == "__main__":
    main(sys.argv[1:])

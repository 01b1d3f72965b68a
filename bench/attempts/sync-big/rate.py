#!/usr/bin/env python3
"""What the stopped sync run wrote: the stick's request log from the last run marker on.
Usage: rate.py [HOTPLUG1.log.gz]   (prints the span, the data written and the writes)"""
import gzip
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "HOTPLUG1.log.gz"
lines = gzip.open(path, "rt").read().split("\n")
marks = [i for i, line in enumerate(lines) if line.startswith("M ")]
start = marks[-1]
print("from marker:", lines[start])
w = [line.split() for line in lines[start + 1:] if line.startswith("W ")]
t0, t1 = float(w[0][1]), float(w[-1][1])
data = [x for x in w if int(x[3]) >= 65536]
meta = [x for x in w if int(x[3]) < 65536]
mb = sum(int(x[3]) for x in data) / 1e6
span = t1 - t0
print("span %.1f s; data %.1f MB in %d writes of >= 64 KiB; %d smaller writes (%.1f per data write)"
      % (span, mb, len(data), len(meta), len(meta) / len(data)))
print("%.2f MB/s; 1 GiB at that rate: %.0f s (%.0f min)" % (mb / span, 1073741824 / 1e6 / (mb / span),
                                                           1073741824 / 1e6 / (mb / span) / 60))

#!/usr/bin/env python3
"""Unit test of the yank analysis both tools share: the request-log parsing in
tests/lab/lib/yank_analyze.py (merge, written, written_per_run, written_this_run, covered)
and bench/lib/yank_posthoc.py, which imports it, run as its command on a synthetic raw
group. No root, no lab, no mtools needed."""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tests", "lab", "lib"))
import yank_analyze as ya  # noqa: E402

# an nbd-stick request log: W time offset bytes ...; M index ... (even: a run starts, odd: the
# copy is done); Y: the yank (the filter drops every later write)
LOG = """# nbd-stick bw=20000000
W 1.0 0 512 1 0
M 0 2.0 0 0 0 0
W 2.1 8192 4096 1 0
W 2.2 4096 4096 0 0
W 2.3 20480 4096 1 0
M 1 3.0 0 0 0 0
Y 3.5
W 3.6 40960 4096 1 0
M 2 4.0 0 0 0 0
W 4.1 65536 8192 1 0
M 4 5.0 0 0 0 0
W 5.1 131072 4096 1 0
""".splitlines()


class SharedAnalysis(unittest.TestCase):
    def test_merge(self):
        self.assertEqual(ya.merge([(5, 10), (0, 3), (3, 4), (9, 12)]), [(0, 4), (5, 12)])
        self.assertEqual(ya.merge([]), [])

    def test_written(self):
        # R and M lines do not count; adjacent writes join
        self.assertEqual(ya.written(["R 1 0 4096", "W 1 0 4096", "W 1 4096 100", "M 0 1"]),
                         [(0, 4196)])

    def test_written_per_run(self):
        segs = ya.written_per_run(LOG)
        # run 0 ends at its yank (the write after Y is no run's); run 2 has no yank and ends
        # at marker 4; run 4 has no end in the log and is left out; before M 0: nobody's
        self.assertEqual(segs, {0: [(4096, 12288), (20480, 24576)], 2: [(65536, 73728)]})

    def test_written_this_run(self):
        def this_run(text):
            with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
                f.write(text)
                f.flush()
                return ya.written_this_run(f.name)
        # the run analysed is the log's last (marker 4), which logged no Y (no write came
        # after its yank): its writes to the log's end, not run 0's, whose Y is the last
        self.assertEqual(this_run("\n".join(LOG) + "\n"), [(131072, 135168)])
        # the last run has its Y: up to it
        self.assertEqual(this_run("\n".join(LOG[:8]) + "\n"), [(4096, 12288), (20480, 24576)])
        # a run that wrote nothing: checked, nothing intact; no marker at all: not checked
        self.assertEqual(this_run("W 1 0 512 1 0\nM 0 2\n"), [])
        self.assertIsNone(this_run("W 1 0 512 1 0\n"))

    def test_covered(self):
        iv = [(4096, 12288), (20480, 24576)]
        self.assertTrue(ya.covered(iv, 4096, 8192))
        self.assertTrue(ya.covered(iv, 20480, 4096))
        self.assertFalse(ya.covered(iv, 8192, 8192))   # runs past the end of the range
        self.assertFalse(ya.covered(iv, 0, 4096))
        self.assertFalse(ya.covered(iv, 16384, 4096))


class Posthoc(unittest.TestCase):
    def test_command(self):
        data0, csize = 0, 4096            # the file's first cluster (3) starts at byte 4096
        with tempfile.TemporaryDirectory() as group:
            os.makedirs(os.path.join(group, "stick"))
            with gzip.open(os.path.join(group, "stick", "HOTPLUG1.log.gz"), "wt") as f:
                f.write("\n".join(LOG) + "\n")
            runs = [{"run": 0, "yank": "half", "files": 1, "intact_bytes": 12288,
                     "written_bytes": 16384, "bw": 4096},
                    {"run": 1, "yank": "half", "files": 1, "intact_bytes": 8192,
                     "written_bytes": 8192, "bw": 4096},     # not among --runs: left out
                    {"run": 2, "files": 1, "intact_bytes": 1, "written_bytes": 1, "bw": 1}]
            with open(os.path.join(group, "results.jsonl"), "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in runs))
            p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "lib", "yank_posthoc.py"),
                                group, "--data-start", str(data0), "--cluster-bytes", str(csize),
                                "--runs", "0,2"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(group, "yank-posthoc.json")) as f:
                out = json.load(f)
        # the old count, 12288 bytes from byte 4096: the run wrote 4096..12288 of it
        self.assertEqual(list(out), ["0"])
        self.assertEqual(out["0"]["old_intact_bytes"], 12288)
        self.assertEqual(out["0"]["intact_bytes"], 8192)
        self.assertEqual(out["0"]["lost_bytes"], 16384 - 8192)
        self.assertEqual(out["0"]["lost_device_s"], 2.0)


if __name__ == "__main__":
    unittest.main()

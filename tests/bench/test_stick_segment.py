#!/usr/bin/env python3
"""Unit test of stick_segment() (tests/lab/guest/scenario.py), which the bench and the lab's
scenarios use to read the nbd-stick request log between two markers, on a synthetic log."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lab", "guest"))
import scenario  # noqa: E402

LOG = """# nbd-stick bw=20000000 cmd_ms=0.5 seek_ms=20 small_bytes=0 small_ms=0 queue=1
# W time_s offset bytes discontinuous charged_ms
# M index time_s writes bytes discontinuities busy_s
W 5.000000 0 512 1 20.5
M 0 10.000000 1 512 1 0.0205
W 10.500000 1048576 131072 1 27.054
W 10.510000 1179648 131072 0 7.054
W 12.000000 1310720 131072 0 7.054
W 12.010000 4096 512 1 20.526
W 15.200000 0 512 1 20.526
M 1 15.500000 6 393728 4 0.1096
W 16.000000 0 512 1 20.5
"""


class StickSegmentTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.NamedTemporaryFile("w", suffix=".log", delete=False)
        self.tmp.write(LOG)
        self.tmp.close()

    def tearDown(self):
        os.unlink(self.tmp.name)

    def test_between_markers(self):
        d = scenario.stick_segment(self.tmp.name, 0, 1, 1048576)
        self.assertEqual(d["writes"], 5)
        self.assertEqual(d["bytes"], 393728 - 512)
        self.assertEqual(d["discontinuities"], 3)
        self.assertEqual(d["data_discontinuities"], 0)    # the data writes follow each other
        self.assertEqual(d["elapsed_s"], 5.5)
        self.assertIsNone(d["after"])

    def test_after(self):
        # the copy returned 1.9 s after the start marker: the last two data writes, the FAT
        # write and the boot sector were the unmount's
        d = scenario.stick_segment(self.tmp.name, 0, 1, 1048576, after_s=1.9)
        a = d["after"]
        self.assertEqual(a["writes"], 3)
        self.assertEqual(a["bytes"], 131072 + 512 + 512)
        self.assertAlmostEqual(a["busy_s"], (7.054 + 20.526 + 20.526) / 1000, places=3)
        self.assertAlmostEqual(a["last_write_s"], 15.2 - 10.0 - 1.9, places=3)
        # nothing after the point: zero, and no last write
        a = scenario.stick_segment(self.tmp.name, 0, 1, 1048576, after_s=5.4)["after"]
        self.assertEqual((a["writes"], a["bytes"], a["busy_s"], a["last_write_s"]), (0, 0, 0, None))

    def test_missing_marker(self):
        self.assertIsNone(scenario.stick_segment(self.tmp.name, 2, 3, 0, after_s=1))


if __name__ == "__main__":
    unittest.main()

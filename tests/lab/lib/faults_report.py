#!/usr/bin/env python3
"""RELIABILITY.md's fault table from tests/lab/results/faults-*.txt (the rows
guest/fault-check.sh prints), between the markers in RELIABILITY.md.

usage: faults_report.py RESULTS_DIR RELIABILITY.md"""
import glob
import os
import re
import sys

BEGIN, END = "<!-- faults table: begin -->", "<!-- faults table: end -->"


def table(results_dir):
    out = []
    for path in sorted(glob.glob(os.path.join(results_dir, "faults-*.txt"))):
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
        head = lines[0].lstrip("# ") if lines and lines[0].startswith("#") else path
        rows = [l.split(" | ")[1:] for l in lines if l.startswith("FAULT | ")]
        total = [l for l in lines if re.search(r"\d+ passed, \d+ failed$", l)]
        fails = [l[6:] for l in lines if l.startswith("FAIL: ")]
        out.append(f"**{head}** ({total[-1] if total else 'no closing line: the run did not finish'})\n")
        out.append("| scenario | left changed | exit codes | log / notes |")
        out.append("| --- | --- | --- | --- |")
        for r in rows:
            r = (r + ["", "", "", ""])[:4]
            out.append("| " + " | ".join(c.replace("|", "/").strip() for c in r) + " |")
        if fails:
            out.append("\nFailed checks: " + "; ".join(fails))
        out.append("")
    return "\n".join(out) if out else "(no results yet: run tests/lab/faults)\n"


def main():
    results_dir, doc = sys.argv[1], sys.argv[2]
    text = open(doc, encoding="utf-8").read()
    i, j = text.index(BEGIN) + len(BEGIN), text.index(END)
    text = text[:i] + "\n" + table(results_dir) + "\n" + text[j:]
    open(doc, "w", encoding="utf-8").write(text)


if __name__ == "__main__":
    main()

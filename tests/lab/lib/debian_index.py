#!/usr/bin/python3
"""debian_index.py - the newest kernel of a series in a Debian Packages index (sid).

Usage: debian_index.py PACKAGES[.xz] SERIES [FLAVOUR]

Debian's sid splits a kernel into linux-binary-KVER (the image, at
/usr/lib/modules/KVER/vmlinuz), linux-modules-KVER and linux-base-KVER (System.map,
config, modules.order), plus linux-headers-KVER, linux-headers-KVER'S-ABI-common and
linux-kbuild-ABI for building modules. Prints, for the newest KVER of SERIES (7.2 ->
7.2.N+debM-FLAVOUR, FLAVOUR default amd64) that has a binary, a modules and a base
package:
    KVER 7.2.13+deb14-amd64
    DEB ROLE PACKAGE VERSION FILENAME SHA256 SIZE     (ROLE: binary modules base
                                                       headers headers-common kbuild)
Exit status 1 when the index has no such kernel.
"""
import lzma
import re
import sys


def records(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        rec = {}
        key = None
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if rec:
                    yield rec
                rec, key = {}, None
                continue
            if line[0] in " \t":
                continue       # continuation lines (descriptions): not needed
            key, _, val = line.partition(":")
            rec[key] = val.strip()
        if rec:
            yield rec


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    path, series = sys.argv[1], sys.argv[2]
    flavour = sys.argv[3] if len(sys.argv) == 4 else "amd64"
    pkgs = {}
    for r in records(path):
        name = r.get("Package", "")
        if name.startswith("linux-"):
            pkgs[name] = r
    # sid: 7.2.13+deb14-amd64; experimental's release candidates: 7.3-amd64 (no .N)
    rx = re.compile(r"^linux-binary-(%s(?:\.(\d+))?(?:\+deb(\d+))?-%s)$" % (re.escape(series), re.escape(flavour)))
    cands = []
    for name in pkgs:
        m = rx.match(name)
        if m:
            kver = m.group(1)
            if "linux-modules-" + kver in pkgs and "linux-base-" + kver in pkgs:
                cands.append((int(m.group(2) or -1), int(m.group(3) or 0), kver))
    if not cands:
        return 1
    kver = max(cands)[2]
    abi = kver[: -len("-" + flavour)]
    print("KVER", kver)
    roles = [("binary", "linux-binary-" + kver), ("modules", "linux-modules-" + kver),
             ("base", "linux-base-" + kver), ("headers", "linux-headers-" + kver),
             ("headers-common", "linux-headers-%s-common" % abi), ("kbuild", "linux-kbuild-" + abi)]
    for role, name in roles:
        r = pkgs.get(name)
        if r:
            print("DEB", role, name, r.get("Version", "?"), r.get("Filename", "?"),
                  r.get("SHA256", "?"), r.get("Size", "?"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/bin/bash
# checkpatch.sh - run the kernel's scripts/checkpatch.pl (--strict) on kernel/0*.patch.
#
# Usage: kernel/checkpatch.sh [--source TARBALL-OR-TREE-OR-DEB] [--sender 'Name <mail>'] [PATCH...]
# checkpatch.pl comes from a kernel tree, a linux-source tarball or Debian's
# linux-source-X.Y_*.deb (default: the newest /usr/src/linux-source-*.tar.xz;
# `apt-get install linux-source-6.12` provides one; the patch is made against v7.3-rc7, so
# the checkpatch.pl of linux-source-7.3 is the one to use); it is copied with spelling.txt
# and const_structs.checkpatch to kernel/out/checkpatch/. It runs from / so that it never
# takes this repository's git tree for a kernel tree.
# The cover letter (0000-*) is not a patch and is skipped. The patch carries no
# Signed-off-by (the sender adds it, see kernel/README.md): with --sender the check runs
# on a copy with that Signed-off-by: added (From: stays the author's; a sender who is not
# the author gets FROM_SIGN_OFF_MISMATCH: the author's own sign-off is needed), as it will
# be sent, and must be clean; without,
# the one finding allowed is MISSING_SIGN_OFF. Exit status: 0 when every patch passes.
set -euo pipefail

KDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE= SENDER=
die() { echo "checkpatch.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) sed -n '2,/^[^#]/{/^[^#]/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    --source) [ $# -ge 2 ] || die "--source needs a value"; SOURCE=$2; shift 2 ;;
    --sender) [ $# -ge 2 ] || die "--sender needs a value"; SENDER=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -gt 0 ]; then
  PATCHES=("$@")
else
  PATCHES=()
  for p in "$KDIR"/0*.patch; do
    case ${p##*/} in 0000-*) ;; *) PATCHES+=("$p") ;; esac
  done
fi
[ ${#PATCHES[@]} -gt 0 ] && [ -f "${PATCHES[0]}" ] || die "no patches"

CP=$KDIR/out/checkpatch
if [ -z "$SOURCE" ]; then
  SOURCE=$(ls -v /usr/src/linux-source-*.tar.xz 2> /dev/null | tail -n 1 || true)
  # else the copy an earlier run left in kernel/out/checkpatch/
  [ -n "$SOURCE" ] || [ ! -f "$CP/scripts/checkpatch.pl" ] || SOURCE=$(cat "$CP/.from" 2> /dev/null || echo "$CP")
  [ -n "$SOURCE" ] || die "no kernel source: give --source (linux-source-7.3's .deb, a tarball or a tree)"
fi
mkdir -p "$CP/scripts"
files=(checkpatch.pl spelling.txt const_structs.checkpatch)
if [ -f "$CP/scripts/checkpatch.pl" ] && [ "$(cat "$CP/.from" 2> /dev/null)" = "$SOURCE" ]; then
  :   # already copied from it
elif [ -d "$SOURCE" ]; then
  for f in "${files[@]}"; do cp "$SOURCE/scripts/$f" "$CP/scripts/"; done
  printf '%s\n' "$SOURCE" > "$CP/.from"
elif [ "${SOURCE%.deb}" != "$SOURCE" ]; then
  [ -f "$SOURCE" ] || die "no such file: $SOURCE"
  x=$(mktemp -d)
  dpkg-deb --fsys-tarfile "$SOURCE" | tar -x -C "$x" --wildcards '*usr/src/linux-source-*.tar.*' ||
    die "no usr/src/linux-source-*.tar.* in $SOURCE"
  tar -xf "$x"/usr/src/linux-source-*.tar.* -C "$CP" --strip-components=1 --wildcards \
    --no-wildcards-match-slash "${files[@]/#/*/scripts/}" || die "no scripts/checkpatch.pl in $SOURCE"
  rm -rf "$x"
  printf '%s\n' "$SOURCE" > "$CP/.from"
else
  tar -xf "$SOURCE" -C "$CP" --strip-components=1 --wildcards --no-wildcards-match-slash \
    "${files[@]/#/*/scripts/}" || die "no scripts/checkpatch.pl in $SOURCE"
  printf '%s\n' "$SOURCE" > "$CP/.from"
fi

echo "checkpatch.pl from $SOURCE"
rc=0
for p in "${PATCHES[@]}"; do
  echo "== ${p##*/}"
  if [ -n "$SENDER" ]; then
    q=$CP/${p##*/}
    SENDER=$SENDER python3 - "$p" "$q" << 'PY'
import os, re, sys
s = open(sys.argv[1]).read()
who = os.environ["SENDER"]
i = s.index("\n---\n")
s = s[:i] + "\n\nSigned-off-by: " + who + s[i:]
open(sys.argv[2], "w").write(s)
PY
    echo "(as sent by $SENDER)"
    (cd / && perl "$CP/scripts/checkpatch.pl" --no-tree --strict --show-types "$q") || rc=1
  else
    echo "(no --sender: MISSING_SIGN_OFF is the one finding expected, the sender adds the Signed-off-by)"
    out=$(cd / && perl "$CP/scripts/checkpatch.pl" --no-tree --strict --show-types "$(realpath "$p")" || true)
    printf '%s\n' "$out"
    found=$(printf '%s\n' "$out" | sed -n 's/^\(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\2/p' | sort -u | paste -sd ' ' -)
    if [ "$found" = MISSING_SIGN_OFF ]; then
      echo "checkpatch.sh: only MISSING_SIGN_OFF, as expected"
    else
      echo "checkpatch.sh: findings other than MISSING_SIGN_OFF (or none at all): ${found:-none}"
      rc=1
    fi
  fi
done
exit $rc

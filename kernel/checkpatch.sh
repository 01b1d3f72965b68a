#!/bin/bash
# checkpatch.sh - run the kernel's scripts/checkpatch.pl (--strict) on kernel/0*.patch.
#
# Usage: kernel/checkpatch.sh [--source TARBALL-OR-TREE] [--sender 'Name <mail>'] [PATCH...]
# checkpatch.pl comes from a kernel tree or a linux-source tarball (default: the newest
# /usr/src/linux-source-*.tar.xz; `apt-get install linux-source-6.12` provides one); it is
# copied with spelling.txt and const_structs.checkpatch to kernel/out/checkpatch/.
# The cover letter (0000-*) is not a patch and is skipped. The patch carries no
# Signed-off-by (whoever sends it adds their own, see kernel/README.md): with --sender the
# check runs on a copy with that From: and Signed-off-by:, as it will be sent; without,
# only MISSING_SIGN_OFF is ignored. Exit status: 0 when every patch is clean (no errors,
# warnings or checks).
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

if [ -z "$SOURCE" ]; then
  SOURCE=$(ls -v /usr/src/linux-source-*.tar.xz 2> /dev/null | tail -n 1 || true)
  [ -n "$SOURCE" ] || die "no kernel source: apt-get install linux-source-6.12, or give --source"
fi
CP=$KDIR/out/checkpatch
mkdir -p "$CP/scripts"
files=(checkpatch.pl spelling.txt const_structs.checkpatch)
if [ -d "$SOURCE" ]; then
  for f in "${files[@]}"; do cp "$SOURCE/scripts/$f" "$CP/scripts/"; done
elif [ ! -f "$CP/.from" ] || [ "$(cat "$CP/.from")" != "$SOURCE" ]; then
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
s = re.sub(r"^From: .*$", "From: " + who, s, count=1, flags=re.M)
i = s.index("\n---\n")
s = s[:i] + "\n\nSigned-off-by: " + who + s[i:]
open(sys.argv[2], "w").write(s)
PY
    echo "(as sent by $SENDER)"
    perl "$CP/scripts/checkpatch.pl" --no-tree --strict --show-types "$q" || rc=1
  else
    echo "(no --sender: MISSING_SIGN_OFF ignored, the sender adds their own Signed-off-by)"
    perl "$CP/scripts/checkpatch.pl" --no-tree --strict --show-types --ignore MISSING_SIGN_OFF "$p" || rc=1
  fi
done
exit $rc

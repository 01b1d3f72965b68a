#!/bin/bash
# checkpatch.sh - run the kernel's scripts/checkpatch.pl (--strict) on kernel/0*.patch.
#
# Usage: kernel/checkpatch.sh [--source TARBALL-OR-TREE] [PATCH...]
# checkpatch.pl comes from a kernel tree or a linux-source tarball (default: the newest
# /usr/src/linux-source-*.tar.xz; `apt-get install linux-source-6.12` provides one); it is
# copied with spelling.txt and const_structs.checkpatch to kernel/out/checkpatch/.
# The cover letter (0000-*) is not a patch and is skipped. Exit status: 0 when every
# patch is clean (no errors, warnings or checks).
set -euo pipefail

KDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE=
die() { echo "checkpatch.sh: $*" >&2; exit 1; }
case ${1:-} in
  -h|--help) sed -n '2,/^[^#]/{/^[^#]/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  --source) [ $# -ge 2 ] || die "--source needs a value"; SOURCE=$2; shift 2 ;;
esac
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
  perl "$CP/scripts/checkpatch.pl" --no-tree --strict --show-types "$p" || rc=1
done
exit $rc

#!/bin/bash
# test-dkms-version.sh - the DKMS package's version follows the patch, and the packaging
# follows the version.
#
# Usage: tests/kernel/test-dkms-version.sh [SOURCE-ROOT]   (TAP on stdout)
# kernel/dkms/dkms.conf keeps a table "#   PATCH_SHA256 VERSION SHA256", one line per
# PACKAGE_VERSION the package had: the patch's sha256 must be on the current version's line
# (a changed patch needs a new PACKAGE_VERSION and a new line, so dkms sees a new version
# and builds it), versions only go up and no two share a patch. debian/vfat-smart-dkms.install
# must put the tree in /usr/src/vfat-smart-flushfix-PACKAGE_VERSION, and dh_dkms (which
# greps dkms.conf line by line) must read one name and one version.
set -uo pipefail
ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
CONF=$ROOT/kernel/dkms/dkms.conf
INSTALL=$ROOT/debian/vfat-smart-dkms.install
PATCH=$(ls "$ROOT"/kernel/0001-*.patch)
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
echo "TAP version 13"

V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$CONF")
SUM=$(sha256sum "$PATCH" | cut -d' ' -f1)
TABLE=$(sed -n 's/^#   PATCH_SHA256 \([^ ]*\) \([0-9a-f]\{64\}\)$/\1 \2/p' "$CONF")
check "dh_dkms reads one PACKAGE_NAME and one PACKAGE_VERSION ($V)" \
  '[ "$(grep -c "PACKAGE_NAME=" "$CONF")" = 1 ] && [ "$(grep -c "PACKAGE_VERSION=" "$CONF")" = 1 ] && [ -n "$V" ]'
line=$(awk -v v="$V" '$1 == v {print $2}' <<< "$TABLE")
check "the patch ($SUM) is PACKAGE_VERSION $V's (dkms.conf's PATCH_SHA256 table: a changed patch needs a new version)" '[ "$line" = "$SUM" ]'
check "the table's last line is the current version" '[ "$(tail -n 1 <<< "$TABLE" | cut -d" " -f1)" = "$V" ]'
up=1 prev=
while read -r v s; do
  [ -z "$prev" ] || dpkg --compare-versions "$v" gt "$prev" || up=0
  prev=$v
done <<< "$TABLE"
check "the table's versions only go up" '[ $up = 1 ]'
check "no two versions have the same patch" '[ "$(cut -d" " -f2 <<< "$TABLE" | sort | uniq -d)" = "" ]'
paths=$(grep -o ' usr/src/[^ ]*' "$INSTALL" | cut -d/ -f3 | sort -u)
check "debian/vfat-smart-dkms.install installs into /usr/src/vfat-smart-flushfix-$V ($paths)" '[ "$paths" = "vfat-smart-flushfix-$V" ]'
all=1
for f in Kbuild vsm-version.c dkms-prepare; do grep -q "^kernel/dkms/$f usr/src/vfat-smart-flushfix-$V/" "$INSTALL" || all=0; done
check "debian/vfat-smart-dkms.install installs all of kernel/dkms's build files" '[ $all = 1 ]'
check "debian/vfat-smart-dkms.install installs the kernel preinst hook" 'grep -q "^kernel/dkms/preinst.d/vfat-smart-flushfix etc/kernel/preinst.d/$" "$INSTALL"'
check "debian/vfat-smart-dkms.postrm removes the cache on purge" 'grep -q "rm -rf /var/cache/vfat-smart-flushfix" "$ROOT/debian/vfat-smart-dkms.postrm" && grep -q "#DEBHELPER#" "$ROOT/debian/vfat-smart-dkms.postrm"'
check "the dkms.conf shell is valid bash" 'bash -n "$CONF"'
echo "1..$n"
[ $failed = 0 ]

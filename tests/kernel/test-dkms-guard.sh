#!/bin/bash
# test-dkms-guard.sh - kernel/dkms/dkms-prepare refuses a source that is not the kernel's.
#
# Usage: tests/kernel/test-dkms-guard.sh [SOURCE-ROOT]   (TAP on stdout)
# No root, no network, no lab, no installed kernel packages: fake linux-source tarballs
# are made from kernel/testdata/inode.c-debian-6.12.* and the versions given with
# --source-version / --image-version, as dkms-prepare would read them from dpkg.
set -uo pipefail

ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
for t in patch tar gzip python3; do
  command -v $t > /dev/null || { echo "1..0 # SKIP $t is not installed (tests/install-deps)"; exit 0; }
done
PREP=$ROOT/kernel/dkms/dkms-prepare
CONF=$ROOT/kernel/dkms/dkms.conf
PATCH=$(ls "$ROOT"/kernel/0001-*.patch)
INODE=$(ls "$ROOT"/kernel/testdata/inode.c-debian-6.12.* | head -n 1)
KVER=6.12.117+deb12-amd64
IMG=6.12.117-1~deb12u1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$TMP/err" 2> /dev/null | tail -n 5; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

# fake linux-source-6.12 tarballs: one as the distribution ships it, one that has the fix
mk_source() {   # NAME INODE.C
  local d=$TMP/src-$1/linux-source-6.12/fs/fat
  mkdir -p "$d"
  cp "$2" "$d/inode.c"
  for f in cache.c dir.c fatent.c file.c misc.c nfs.c namei_vfat.c namei_msdos.c fat.h; do
    printf '/* fake %s */\n' "$f" > "$d/$f"
  done
  tar -czf "$TMP/$1.tar.gz" -C "$TMP/src-$1" linux-source-6.12
}
mk_source plain "$INODE"
cp "$INODE" "$TMP/fixed-inode.c"
(mkdir -p "$TMP/fx/fs/fat" && cp "$INODE" "$TMP/fx/fs/fat/inode.c" && cd "$TMP/fx" && patch -s -p1 < "$PATCH") &&
  cp "$TMP/fx/fs/fat/inode.c" "$TMP/fixed-inode.c"
mk_source fixed "$TMP/fixed-inode.c"

prep() {   # DIR ARGS... ; sets rc
  local d=$1; shift
  rc=0
  VSM_FLUSHFIX_CACHE=$TMP/cache "$PREP" --patch "$PATCH" "$@" "${KVER}" "$TMP/$d" > "$TMP/out" 2> "$TMP/err" || rc=$?
}

echo "TAP version 13"
prep b1 --source "$TMP/plain.tar.gz" --source-version 6.12.115-2~deb12u1 --image-version "$IMG"
check "a source of another package version is refused (exit 3)" '[ $rc = 3 ]'
check "the refusal names both versions" 'grep -q "6.12.115-2~deb12u1" "$TMP/err" && grep -q "$IMG" "$TMP/err"'
check "nothing is prepared after a refusal" '[ ! -e "$TMP/b1/inode.c" ]'

prep b2 --source "$TMP/plain.tar.gz" --image-version "$IMG"
check "a source of unknown version is refused (exit 3)" '[ $rc = 3 ]'

KVER=6.12.999-vsmtest prep b3 --source "$TMP/plain.tar.gz" --source-version "$IMG"
check "an image of unknown version is refused (exit 3)" '[ $rc = 3 ]'

prep b4 --source "$TMP/plain.tar.gz" --source-version "$IMG" --image-version "$IMG"
check "the matching source is accepted" '[ $rc = 0 ]'
check "and patched as the patch is (hybrid)" '[ "$(grep -c "fat_flush_inode(i[12])" "$TMP/b4/inode.c")" = 2 ] && grep -q "VSM_VARIANT := hybrid" "$TMP/b4/vsm-variant.mk"'
check "with the version marker" '[ -f "$TMP/b4/vsm-version.c" ] && grep -q "VSM_MARKER := 1" "$TMP/b4/vsm-variant.mk"'

prep b5 --source "$TMP/fixed.tar.gz" --source-version "$IMG" --image-version "$IMG"
check "a source that already has the fix is refused (exit 4)" '[ $rc = 4 ]'

prep b6 --source "$TMP/plain.tar.gz" --force-source
check "--force-source skips the version match" '[ $rc = 0 ]'

prep b7 --source "$TMP/plain.tar.gz" --source-version "$IMG" --image-version "$IMG" --variant hybrid
check "hybrid: both calls go through the waiting helper" '[ "$(grep -c "fat_flush_inode(i[12])" "$TMP/b7/inode.c")" = 2 ] && grep -q "mapping_tagged(inode->i_mapping, PAGECACHE_TAG_DIRTY)" "$TMP/b7/inode.c"'

prep b11 --source "$TMP/plain.tar.gz" --source-version "$IMG" --image-version "$IMG" --variant wait0
check "wait0: write_inode_now(iN, 0) in fat_flush_inodes(), no helper left" '[ "$(grep -c "write_inode_now(i[12], 0)" "$TMP/b11/inode.c")" = 2 ] && ! grep -q "fat_flush_inode(" "$TMP/b11/inode.c" && ! grep -q "PAGECACHE_TAG_DIRTY" "$TMP/b11/inode.c"'
prep b12 --source "$TMP/plain.tar.gz" --source-version "$IMG" --image-version "$IMG" --variant wait1
check "wait1: write_inode_now(iN, 1) in fat_flush_inodes(), no helper left" '[ "$(grep -c "write_inode_now(i[12], 1)" "$TMP/b12/inode.c")" = 2 ] && ! grep -q "fat_flush_inode(" "$TMP/b12/inode.c"'
if [ -f "$TMP/b11/inode.c" ]; then mk_source v2fixed "$TMP/b11/inode.c"; fi
prep b13 --source "$TMP/v2fixed.tar.gz" --source-version "$IMG" --image-version "$IMG"
check "a source with v2's form of the fix (wait0 only) is refused too (exit 4)" '[ $rc = 4 ]'

prep b8 --source "$TMP/plain.tar.gz" --source-version "$IMG" --image-version "$IMG" --variant control
check "control: fs/fat unchanged and no marker" 'cmp -s "$INODE" "$TMP/b8/inode.c" && [ ! -e "$TMP/b8/vsm-version.c" ]'

prep b9 --source "$TMP/plain.tar.gz" --source-version "$IMG" --image-version "$IMG" --no-marker
check "--no-marker: patched, without vsm-version.c" '[ $rc = 0 ] && [ ! -e "$TMP/b9/vsm-version.c" ] && grep -q "VSM_MARKER := 0" "$TMP/b9/vsm-variant.mk"'

prep b10 --source-version "$IMG" --image-version "$IMG" --source "$TMP/none.tar.xz"
check "a missing source is an error" '[ $rc != 0 ]'

excl=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$CONF" | sed 's/\\\\/\\/g')
check "dkms.conf has BUILD_EXCLUSIVE_KERNEL" '[ -n "$excl" ]'
check "BUILD_EXCLUSIVE_KERNEL takes 6.1 and 6.12 kernels" '[[ 6.1.0-57-amd64 =~ $excl ]] && [[ 6.12.117+deb12-amd64 =~ $excl ]]'
check "BUILD_EXCLUSIVE_KERNEL refuses other series" '! [[ 6.13.2-amd64 =~ $excl ]] && ! [[ 6.10.1 =~ $excl ]] && ! [[ 7.2.12 =~ $excl ]]'
check "dkms.conf fetches a matching source, and PRE_BUILD skips (77) rather than fails" 'grep -q "^PRE_BUILD=\"dkms-prepare --dkms --fetch " "$CONF"'

echo "1..$n"
[ $failed = 0 ]

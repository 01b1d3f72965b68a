#!/bin/bash
# test-dkms-guard.sh - kernel/dkms/dkms-prepare refuses a source that is not the kernel's.
#
# Usage: tests/kernel/test-dkms-guard.sh [SOURCE-ROOT]   (TAP on stdout)
# No root, no network, no lab, no installed kernel packages: fake linux-source tarballs
# are made from kernel/testdata/inode.c-debian-6.12.* and the versions given with
# --source-version / --image-version, as dkms-prepare would read them from dpkg. --fetch
# runs with apt-get and dpkg-query stubs first in PATH (apt-get download hands a fake
# linux-source .deb made here; dpkg-query lists the "installed" kernel images for pruning).
set -uo pipefail

ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
for t in patch tar gzip xz python3 dpkg-deb make; do
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
PKGV=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$CONF")
marker() {   # DIR: the MODULE_VERSION Kbuild gives the build in DIR
  printf 'src := %s\ninclude %s/Kbuild\nprint:\n\t@echo "$(VSM_FLUSHFIX_VERSION)"\n' "$1" "$1" |
    make -s --no-print-directory -f - print 2> /dev/null
}
check "the marker is PKGVER-vfat-smart-flushfix-VARIANT/src=SRCVER ($(marker "$TMP/b4"))" \
  '[ "$(marker "$TMP/b4")" = "$PKGV-vfat-smart-flushfix-hybrid/src=$IMG" ]'

prep b5 --source "$TMP/fixed.tar.gz" --source-version "$IMG" --image-version "$IMG"
check "a source that already has the fix is refused (exit 4)" '[ $rc = 4 ]'

prep b6 --source "$TMP/plain.tar.gz" --force-source
check "--force-source skips the version match" '[ $rc = 0 ]'
check "--force-source: the marker has no source version ($(marker "$TMP/b6"))" '[ "$(marker "$TMP/b6")" = "$PKGV-vfat-smart-flushfix-hybrid" ]'

# no fuzz: a hunk whose leading context line changed applies with patch's default fuzz,
# and must not here
python3 - "$INODE" "$TMP/fuzzy-inode.c" "$PATCH" << 'PY'
import sys
src, dst, patch = sys.argv[1:4]
s = open(src).read()
lines = open(patch).read().splitlines()
h = next(i for i, l in enumerate(lines) if l.startswith("@@"))
ctx = lines[h + 1][1:]                     # the first context line of the first hunk
assert ctx.strip() and s.count(ctx + "\n") == 1, ctx
open(dst, "w").write(s.replace(ctx + "\n", ctx.rstrip() + " /* moved */\n", 1))
PY
mk_source fuzzy "$TMP/fuzzy-inode.c"
(mkdir -p "$TMP/fz/fs/fat" && cp "$TMP/fuzzy-inode.c" "$TMP/fz/fs/fat/inode.c" && cd "$TMP/fz" && patch -s -p1 --dry-run < "$PATCH" > /dev/null 2>&1)
check "(a hunk with changed context applies with patch's default fuzz)" '[ $? = 0 ]'
prep b14 --source "$TMP/fuzzy.tar.gz" --source-version "$IMG" --image-version "$IMG"
check "... but dkms-prepare applies without fuzz: refused (exit 1)" '[ $rc = 1 ] && grep -q "without fuzz" "$TMP/err" && [ ! -e "$TMP/b14/vsm-variant.mk" ]'

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

# --- --fetch: apt-get download must hand exactly linux-source-SERIES=VER, of that kernel --
STUB=$TMP/stub
mkdir -p "$STUB/bin" "$STUB/debs"
mk_deb() {   # CONTROL-VERSION MAKEFILE-VERSION DEB-NAME-VERSION
  local w=$TMP/debsrc up=$2
  rm -rf "$w"
  mkdir -p "$w/linux-source-6.12/fs/fat" "$w/pkg/DEBIAN" "$w/pkg/usr/src"
  cp -r "$TMP/src-plain/linux-source-6.12/fs/fat/." "$w/linux-source-6.12/fs/fat/"
  printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\nNAME = Baby Opossum Posse\n' \
    "${up%%.*}" "$(cut -d. -f2 <<< "$up")" "$(cut -d. -f3 <<< "$up")" > "$w/linux-source-6.12/Makefile"
  tar -cJf "$w/pkg/usr/src/linux-source-6.12.tar.xz" -C "$w" linux-source-6.12
  printf 'Package: linux-source-6.12\nVersion: %s\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: fake\n' "$1" > "$w/pkg/DEBIAN/control"
  dpkg-deb -Zgzip -b "$w/pkg" "$STUB/debs/linux-source-6.12_$3.deb" > /dev/null
}
cat > "$STUB/bin/apt-get" << EOF
#!/bin/bash
[ "\$1" = download ] || exit 100
f=$STUB/debs/\${2%%=*}_\${2#*=}.deb
[ -f "\$f" ] || { echo "E: Failed to fetch \$2" >&2; exit 100; }
cp "\$f" "./\${2%%=*}_\${2#*=}_all.deb"
EOF
# the installed kernel images, for pruning: $STUB/images ("VERSION" lines)
cat > "$STUB/bin/dpkg-query" << EOF
#!/bin/bash
case "\$*" in *linux-image-\[0-9\]*) sed 's/^/installed /' "$STUB/images"; sed 's/^/config-files /' "$STUB/removed" 2> /dev/null; sed 's/^/unpacked /' "$STUB/unpacked" 2> /dev/null; exit 0 ;; esac
exec /usr/bin/dpkg-query "\$@"
EOF
chmod +x "$STUB/bin/"*
fetch() {   # DIR IMAGE-VERSION [ARGS]
  local d=$1 v=$2; shift 2
  rc=0
  PATH=$STUB/bin:$PATH VSM_FLUSHFIX_CACHE=$TMP/cache "$PREP" --patch "$PATCH" --fetch --image-version "$v" "$@" \
    6.12.999-vsmtest "$TMP/$d" > "$TMP/out" 2> "$TMP/err" || rc=$?
}
printf '6.12.117-1~deb12u1\n6.12.119-1~deb12u1\n' > "$STUB/images"
mk_deb 6.12.110-1~deb12u1 6.12.110 6.12.119-1~deb12u1
fetch f1 6.12.119-1~deb12u1
check "--fetch: a .deb of another version than asked for is refused (exit 3)" '[ $rc = 3 ] && grep -q "6.12.110-1~deb12u1" "$TMP/err" && [ ! -e "$TMP/f1/inode.c" ]'
mk_deb 6.12.119-1~deb12u1 6.12.110 6.12.119-1~deb12u1
fetch f2 6.12.119-1~deb12u1
check "--fetch: a source whose Makefile is another kernel version is refused (exit 3)" '[ $rc = 3 ] && grep -q "Linux 6.12.110 by its Makefile" "$TMP/err" && [ ! -e "$TMP/f2/inode.c" ]'
fetch f3 6.12.121-1~deb12u1
check "--fetch: offline (apt-get download fails): refused (exit 3)" '[ $rc = 3 ] && grep -q "apt-get download linux-source-6.12=6.12.121-1~deb12u1 failed" "$TMP/err"'
fetch f3b 6.12.121-1~deb12u1 --dkms
check "--fetch --dkms (PRE_BUILD): the refusal exits 77" '[ $rc = 77 ]'
mk_deb 6.12.119-1~deb12u1 6.12.119 6.12.119-1~deb12u1
rm -rf "$TMP/cache"
mkdir -p "$TMP/cache/debs" "$TMP/cache/linux-source-6.12-6.12.110-1~deb12u1/usr/src" "$TMP/cache/fs-fat/linux-source-6.12_6.12.110-1~deb12u1/fs/fat" "$TMP/cache/fs-fat/linux-source-6.12_6.12.117-1~deb12u1/fs/fat"
touch "$TMP/cache/debs/linux-source-6.12_6.12.110-1~deb12u1_all.deb"
fetch f4 6.12.119-1~deb12u1
check "--fetch: the matching .deb is taken" '[ $rc = 0 ] && [ "$(grep -c "fat_flush_inode(i[12])" "$TMP/f4/inode.c")" = 2 ] && grep -qx "VSM_SOURCE_VERSION := 6.12.119-1~deb12u1" "$TMP/f4/vsm-variant.mk"'
check "the cache keeps fs/fat and the Makefile of it, not the .deb or the tarball" '[ -f "$TMP/cache/fs-fat/linux-source-6.12_6.12.119-1~deb12u1/fs/fat/inode.c" ] && [ -f "$TMP/cache/fs-fat/linux-source-6.12_6.12.119-1~deb12u1/Makefile" ] && [ -z "$(find "$TMP/cache" -name "*.deb" -o -name "*.tar.*")" ]'
check "pruned: a source no installed image needs, and the old layout's .debs and trees" '[ ! -e "$TMP/cache/fs-fat/linux-source-6.12_6.12.110-1~deb12u1" ] && [ ! -e "$TMP/cache/debs" ] && [ ! -e "$TMP/cache/linux-source-6.12-6.12.110-1~deb12u1" ]'
check "kept: the source of another installed image" '[ -d "$TMP/cache/fs-fat/linux-source-6.12_6.12.117-1~deb12u1" ]'
rm -f "$STUB/debs"/*.deb
fetch f5 6.12.119-1~deb12u1
check "the cached fs/fat is used again without a download" '[ $rc = 0 ] && [ "$(grep -c "fat_flush_inode(i[12])" "$TMP/f5/inode.c")" = 2 ]'
rc=0; PATH=$STUB/bin:$PATH VSM_FLUSHFIX_CACHE=$TMP/cache "$PREP" --patch "$PATCH" --fetch --check \
  --image-version 6.12.119-1~deb12u1 6.12.999-vsmtest > "$TMP/out" 2> "$TMP/err" || rc=$?
check "--check: the same decision, nothing written" '[ $rc = 0 ] && [ ! -e "$TMP/f6" ]'
mkdir -p "$TMP/cache/fs-fat/linux-source-6.12_6.12.121-1~deb12u1/fs/fat"
echo 6.12.117-1~deb12u1 > "$STUB/images"
echo 6.12.119-1~deb12u1 > "$STUB/removed"
echo 6.12.121-1~deb12u1 > "$STUB/unpacked"
rc=0; PATH=$STUB/bin:$PATH VSM_FLUSHFIX_CACHE=$TMP/cache "$PREP" --prune 2> "$TMP/err" || rc=$?
check "--prune: once its image is removed (config-files), a source goes" '[ $rc = 0 ] && [ ! -e "$TMP/cache/fs-fat/linux-source-6.12_6.12.119-1~deb12u1" ] && [ -d "$TMP/cache/fs-fat/linux-source-6.12_6.12.117-1~deb12u1" ]'
check "--prune: the source of an image unpacked in the middle of its upgrade stays" '[ -d "$TMP/cache/fs-fat/linux-source-6.12_6.12.121-1~deb12u1" ]'
rm -f "$STUB/removed" "$STUB/unpacked"
: > "$STUB/images"
rc=0; PATH=$STUB/bin:$PATH VSM_FLUSHFIX_CACHE=$TMP/cache "$PREP" --prune 2> "$TMP/err" || rc=$?
check "--prune: when dpkg knows no kernel image, nothing is pruned" '[ $rc = 0 ] && [ -d "$TMP/cache/fs-fat/linux-source-6.12_6.12.117-1~deb12u1" ]'

excl=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$CONF" | sed 's/\\\\/\\/g')
check "dkms.conf has BUILD_EXCLUSIVE_KERNEL" '[ -n "$excl" ]'
check "BUILD_EXCLUSIVE_KERNEL takes 6.1 and 6.12 kernels" '[[ 6.1.0-57-amd64 =~ $excl ]] && [[ 6.12.117+deb12-amd64 =~ $excl ]]'
check "BUILD_EXCLUSIVE_KERNEL refuses other series" '! [[ 6.13.2-amd64 =~ $excl ]] && ! [[ 6.10.1 =~ $excl ]] && ! [[ 7.2.12 =~ $excl ]]'
check "dkms.conf fetches a matching source, and PRE_BUILD skips (77) rather than fails" 'grep -q "^PRE_BUILD=\"dkms-prepare --dkms --fetch " "$CONF"'

echo "1..$n"
[ $failed = 0 ]

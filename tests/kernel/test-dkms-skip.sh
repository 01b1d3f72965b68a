#!/bin/bash
# test-dkms-skip.sh - with dkms itself: a kernel vfat-smart-flushfix cannot or must not be
# built for is skipped, and the kernel's postinst hook still succeeds.
#
# Usage: tests/kernel/test-dkms-skip.sh [SOURCE-ROOT]   (TAP on stdout)
# Runs this machine's dkms (Debian 12: 3.0.10) and, when it can get it, Debian 13's (3.2.x,
# its .deb from tests/kernel/fetch-dkms-deb, cached in $VSM_DKMS_DEBS, default
# /var/cache/vfat-smart-package-check/dkms-debs/), each in a private mount namespace where
# /usr/lib, /etc, /usr/sbin, /usr/src, /var/lib and /var/cache are overlays on a temporary
# directory: the machine itself is not changed. There: the DKMS source tree as
# debian/vfat-smart-dkms installs it, `dkms add`, and fake kernels (/lib/modules/KVER/build
# with include/ and a Makefile that builds nothing). dpkg-query and apt-get are stubs for
# those kernels' packages (the image's version; linux-source .debs made here, or none:
# "offline"); everything else is the real dkms and its real hooks: the kernel postinst hook
# (run-parts with /etc/kernel/postinst.d/dkms, as linux-image's postinst runs it), `dkms
# autoinstall -k` and `dkms build -k` (what dh_dkms's postinst runs).
# No module is built (the fake headers cannot build one): the positive case checks what
# PRE_BUILD prepared. Needs root and overlayfs; skipped (with the reason) otherwise.
set -uo pipefail
export LC_ALL=C.UTF-8
ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
ROOT=$(cd "$ROOT" && pwd)
DEBS=${VSM_DKMS_DEBS:-/var/cache/vfat-smart-package-check/dkms-debs}

if [ "${VSM_IN_NS:-}" != 1 ]; then
  for t in dkms unshare run-parts dpkg-deb tar xz patch; do
    command -v $t > /dev/null || [ -x /usr/sbin/$t ] ||
      { echo "1..0 # SKIP $t is not installed (tests/install-deps)"; exit 0; }
  done
  # root: in a user namespace the overlays' lower dirs belong to an unmapped root and
  # dkms cannot write its tree (seen: "No write access to DKMS tree")
  [ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (a mount namespace with overlays on /usr/lib, /etc, /var/lib, ...)"; exit 0; }
  flavours=(host) note=
  if trixie=$("$ROOT/tests/kernel/fetch-dkms-deb" trixie "$DEBS" 2> /dev/null); then
    flavours+=("$trixie")
  else
    note="# Debian 13's dkms .deb could not be fetched (offline?): only this machine's dkms"
  fi
  us=()
  if ! unshare -m --propagation private true 2> /dev/null; then
    echo "1..0 # SKIP no mount namespace"
    exit 0
  fi
  o=$(mktemp -d)
  mkdir -p "$o/u" "$o/w"
  if ! unshare "${us[@]}" -m --propagation private \
    mount -t overlay overlay -o "lowerdir=/etc,upperdir=$o/u,workdir=$o/w" /etc 2> /dev/null; then
    rm -rf "$o"
    echo "1..0 # SKIP no overlayfs in a mount namespace here"
    exit 0
  fi
  rm -rf "$o"
  echo "TAP version 13"
  n=0 failed=0
  # the Debian 13 half is part of the test: without it the test fails, it does not skip
  [ -z "$note" ] || { n=1 failed=1; echo "not ok 1 - ${note#\# }"; }
  for f in "${flavours[@]}"; do
    out=$(VSM_IN_NS=1 unshare "${us[@]}" -m --propagation private "$0" "$ROOT" "$f" "$n" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    n=$(printf '%s\n' "$out" | sed -n 's/^\(not \)\{0,1\}ok \([0-9]*\) .*/\2/p' | tail -n 1)
    n=${n:-0}
    failed=$((failed + $(printf '%s\n' "$out" | grep -c '^not ok')))
    [ $rc = 0 ] || [ $rc = 1 ] || { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $f: the namespace run ended with $rc"; }
  done
  echo "1..$n"
  [ $failed = 0 ]
  exit
fi

# --- inside the namespace: $2 = host | path of a dkms .deb, $3 = tests done so far ---------
FLAVOUR=$2 n=$3
export PATH=$PATH:/usr/sbin:/sbin   # dkms is in /usr/sbin, not in a user's PATH
T=$(mktemp -d /tmp/vsm-dkms-skip.XXXXXX)
for d in usr/lib etc usr/sbin usr/src var/lib var/cache; do
  o=$T/ov/${d//\//_}
  mkdir -p "$o/u" "$o/w"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$o/u,workdir=$o/w" "/$d" ||
    { echo "not ok $((n + 1)) - overlay on /$d (overlayfs?)"; exit 1; }
done
# the namespace ends with this process; the overlays' upper dirs go with $T
trap 'cd /; for d in var/cache var/lib usr/src usr/sbin etc usr/lib; do umount -l "/$d"; done; rm -rf "$T"' EXIT
# the fake kernels' sources come from the fake debs only: a linux-source tarball installed
# on the host (a kernel developer's machine often has one) would otherwise stand in for
# a fake kernel of the same version
rm -f /usr/src/linux-source-*.tar.*
if [ "$FLAVOUR" != host ]; then
  mkdir -p "$T/deb"
  dpkg-deb -x "$FLAVOUR" "$T/deb"
  cp "$T/deb/usr/sbin/dkms" /usr/sbin/dkms
  rm -rf /usr/lib/dkms /etc/dkms
  cp -a "$T/deb/usr/lib/dkms" /usr/lib/dkms
  cp -a "$T/deb/etc/dkms" /etc/dkms
  mkdir -p /etc/kernel
  cp -a "$T/deb/etc/kernel/." /etc/kernel/
fi
DV=$(dkms --version 2> /dev/null | sed 's/^dkms-//')
ok() { n=$((n + 1)); echo "ok $n - dkms $DV: $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - dkms $DV: $1"; sed 's/^/#   /' "$T/log" 2> /dev/null | tail -n 12; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

# the DKMS source tree, as debian/vfat-smart-dkms.install lays it out
V=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$ROOT/kernel/dkms/dkms.conf")
S=/usr/src/vfat-smart-flushfix-$V
mkdir -p "$S/patches"
cp "$ROOT"/kernel/dkms/{dkms.conf,Kbuild,vsm-version.c,dkms-prepare} "$S/"
cp "$ROOT"/kernel/0001-*.patch "$S/patches/"
rm -rf /var/lib/dkms/vfat-smart-flushfix /var/cache/vfat-smart-flushfix

# fake kernels: KVER IMAGE-VERSION (- for none) SOURCE-DEB (plain, fixed, wrong:VER, -)
KERNELS=(
  "7.2.9-amd64 7.2.9-1 -"                              # another series
  "6.12.999-vsmtest - -"                                # not a Debian kernel package
  "6.12.117+deb12-amd64 6.12.117-1~deb12u1 -"           # no linux-source of its version: offline
  "6.12.118+deb12-amd64 6.12.118-1~deb12u1 fixed"       # its source already has the fix
  "6.12.120+deb12-amd64 6.12.120-1~deb12u1 wrong:6.12.110-1~deb12u1"  # apt hands another version
  "6.12.119+deb12-amd64 6.12.119-1~deb12u1 plain"       # supported: built
)
STUB=$T/stub
mkdir -p "$STUB/bin" "$STUB/debs" "$STUB/img"
INODE=$(ls "$ROOT"/kernel/testdata/inode.c-debian-6.12.* | head -n 1)
mk_deb() {   # DEBVERSION INODE.C NAME-FOR-APT-VERSION
  local v=$1 up w=$T/debsrc
  up=${v%-*}
  rm -rf "$w"
  mkdir -p "$w/linux-source-6.12/fs/fat" "$w/pkg/DEBIAN" "$w/pkg/usr/src"
  cp "$2" "$w/linux-source-6.12/fs/fat/inode.c"
  for f in cache.c dir.c fatent.c file.c misc.c nfs.c namei_vfat.c namei_msdos.c fat.h; do
    printf '/* fake %s */\n' "$f" > "$w/linux-source-6.12/fs/fat/$f"
  done
  printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\nNAME = Baby Opossum Posse\n' \
    "${up%%.*}" "$(cut -d. -f2 <<< "$up")" "$(cut -d. -f3 <<< "$up")" > "$w/linux-source-6.12/Makefile"
  tar -cJf "$w/pkg/usr/src/linux-source-6.12.tar.xz" -C "$w" linux-source-6.12
  printf 'Package: linux-source-6.12\nVersion: %s\nArchitecture: all\nMaintainer: test <t@example.org>\nDescription: fake\n' "$v" > "$w/pkg/DEBIAN/control"
  dpkg-deb -Zgzip -b "$w/pkg" "$STUB/debs/linux-source-6.12_$3.deb" > /dev/null
}
(mkdir -p "$T/fx/fs/fat" && cp "$INODE" "$T/fx/fs/fat/inode.c" && cd "$T/fx" && patch -s -p1 < "$(ls "$ROOT"/kernel/0001-*.patch)")
for k in "${KERNELS[@]}"; do
  read -r kver img src <<< "$k"
  mkdir -p "/lib/modules/$kver/build/include/generated" "/lib/modules/$kver/kernel"
  : > "/lib/modules/$kver/build/include/generated/utsrelease.h"
  : > "/lib/modules/$kver/kernel/modules.placeholder"   # (dkms 3.2 deletes empty dirs there)
  printf 'modules:\n\t@echo "fake headers: nothing is built" >&2; exit 1\n' > "/lib/modules/$kver/build/Makefile"
  [ "$img" = - ] || echo "$kver $img" >> "$STUB/img/list"
  case $src in
    plain) mk_deb "$img" "$INODE" "$img" ;;
    fixed) mk_deb "$img" "$T/fx/fs/fat/inode.c" "$img" ;;
    wrong:*) mk_deb "${src#wrong:}" "$INODE" "$img" ;;
  esac
done
# dpkg-query: the fake kernels' image packages; everything else is asked from the real one
cat > "$STUB/bin/dpkg-query" << EOF
#!/bin/bash
list=$STUB/img/list
if [ "\$1" = -S ]; then
  k=\$(sed -n 's|^/lib/modules/\([^/]*\)/kernel\$|\1|p;s|^/boot/vmlinuz-||p' <<< "\$2")
  if [ -n "\$k" ] && grep -q "^\$k " "\$list"; then echo "linux-image-\$k: \$2"; exit 0; fi
fi
if [ "\$1" = -W ]; then
  case "\$*" in
    *linux-image-\[0-9\]*) awk '{print "installed " \$2}' "\$list"; exit 0 ;;
  esac
  for a; do
    case \$a in linux-image-*) k=\${a#linux-image-}; v=\$(awk -v k="\$k" '\$1==k{print \$2}' "\$list")
      [ -n "\$v" ] && { printf '%s' "\$v"; exit 0; } ;; esac
  done
fi
exec /usr/bin/dpkg-query "\$@"
EOF
# apt-get download linux-source-6.12=VER: the .deb made for VER, else "offline"
cat > "$STUB/bin/apt-get" << EOF
#!/bin/bash
[ "\$1" = download ] || exit 100
f=$STUB/debs/\${2%%=*}_\${2#*=}.deb
[ -f "\$f" ] || { echo "E: Failed to fetch \$2 (offline)" >&2; exit 100; }
cp "\$f" "./\${2%%=*}_\${2#*=}_all.deb"
EOF
chmod +x "$STUB/bin/"*
export PATH=$STUB/bin:$PATH
mkdir -p "$T/postinst.d"
cp /etc/kernel/postinst.d/dkms "$T/postinst.d/dkms"

dkms add -m vfat-smart-flushfix -v "$V" > "$T/log" 2>&1
check "dkms add vfat-smart-flushfix/$V" '[ $? = 0 ]'

names=("another series" "not a Debian kernel package" "no source of its version (offline)"
  "its source already has the fix" "apt hands a source of another version")
for i in 0 1 2 3 4; do
  read -r kver img src <<< "${KERNELS[$i]}"
  what="${names[$i]} ($kver)"
  run-parts --report --exit-on-error --arg="$kver" --arg="/boot/vmlinuz-$kver" "$T/postinst.d" > "$T/log" 2>&1
  rc=$?
  check "$what: the kernel's postinst hook succeeds (exit $rc)" '[ $rc = 0 ]'
  check "$what: ... and says why it skipped" 'grep -q "vfat-smart-flushfix: skipped for $kver" "$T/log"'
  dkms autoinstall -k "$kver" > "$T/log" 2>&1
  rc=$?
  check "$what: dkms autoinstall -k exits 0 (exit $rc)" '[ $rc = 0 ]'
  dkms build -m vfat-smart-flushfix -v "$V" -k "$kver" > "$T/log" 2>&1
  rc=$?
  check "$what: dkms build -k exits 77, which dh_dkms's postinst reports as skipped (exit $rc)" '[ $rc = 77 ]'
  check "$what: nothing built or installed" '[ ! -e /var/lib/dkms/vfat-smart-flushfix/$V/$kver ] && [ ! -e /lib/modules/$kver/updates ]'
done
grep -q 'is Linux 6.12.110 by its Makefile\|gave .*6.12.110' "$T/log" 2> /dev/null ||
  dkms build -m vfat-smart-flushfix -v "$V" -k 6.12.120+deb12-amd64 > "$T/log" 2>&1
check "the source of another version is named as such" 'grep -q "6.12.110" "$T/log"'

# the supported kernel: the gate lets it through, PRE_BUILD prepares the patched fs/fat
read -r kver img src <<< "${KERNELS[5]}"
dkms build -m vfat-smart-flushfix -v "$V" -k "$kver" > "$T/log" 2>&1
rc=$?
B=/var/lib/dkms/vfat-smart-flushfix/$V/build
check "supported ($kver): dkms builds (fails only in make: fake headers; exit $rc)" '[ $rc = 10 ] && grep -q "fake headers: nothing is built" $B/make.log'
check "supported: PRE_BUILD applied the patch to fs/fat of linux-source-6.12 $img" '[ "$(grep -c "fat_flush_inode(i[12])" $B/inode.c)" = 2 ]'
check "supported: the module version names the package and the source version" 'grep -qx "VSM_PACKAGE_VERSION := $V" $B/vsm-variant.mk && grep -qx "VSM_SOURCE_VERSION := $img" $B/vsm-variant.mk'
check "the cache keeps fs/fat of the installed images' sources only, no .deb" '[ -f /var/cache/vfat-smart-flushfix/fs-fat/linux-source-6.12_$img/fs/fat/inode.c ] && [ -z "$(find /var/cache/vfat-smart-flushfix -name "*.deb" -o -name "*.tar.*")" ]'

# an update of the kernel package that keeps the release name: the kernel's preinst hooks
# must remove the module built from the old source, so that the postinst rebuilds it
# (dkms 3.2: its own preinst.d/dkms; 3.0: vfat-smart-dkms's preinst.d/vfat-smart-flushfix)
A=$(uname -m)
D=/var/lib/dkms/vfat-smart-flushfix
rm -rf "$D/$V/build"
mkdir -p "$D/$V/$kver/$A/module" "$D/$V/$kver/$A/log" "/lib/modules/$kver/updates/dkms"
for m in fat vfat; do
  echo old > "$D/$V/$kver/$A/module/$m.ko"
  echo old > "/lib/modules/$kver/updates/dkms/$m.ko"
done
ln -sfn "$D/$V/$kver/$A" "$D/kernel-$kver-$A"
dkms status -k "$kver" > "$T/log" 2>&1
check "(the module of the old source is installed for $kver)" 'grep -q "$kver.*installed" "$T/log"'
mkdir -p /etc/kernel/preinst.d "$T/preinst.d"
cp "$ROOT/kernel/dkms/preinst.d/vfat-smart-flushfix" /etc/kernel/preinst.d/
cp /etc/kernel/preinst.d/* "$T/preinst.d/"
run-parts --report --exit-on-error --arg="$kver" --arg="/boot/vmlinuz-$kver" "$T/preinst.d" > "$T/log" 2>&1
rc=$?
check "in-place update: the kernel's preinst hooks succeed (exit $rc)" '[ $rc = 0 ]'
check "in-place update: they removed the module built from the old source" '[ ! -e "$D/$V/$kver" ] && [ ! -e "/lib/modules/$kver/updates/dkms/fat.ko" ]'
run-parts --report --exit-on-error --arg="$kver" --arg="/boot/vmlinuz-$kver" "$T/postinst.d" > "$T/log" 2>&1
check "in-place update: the postinst's autoinstall builds it again (fails only in make: fake headers)" 'grep -q "fake headers: nothing is built" "$D/$V/build/make.log"'
run-parts --report --exit-on-error --arg=6.12.117+deb12-amd64 --arg=/boot/vmlinuz-6.12.117+deb12-amd64 "$T/preinst.d" > "$T/log" 2>&1
rc=$?
check "a kernel nothing was built for: the preinst hooks succeed (exit $rc)" '[ $rc = 0 ]'
dkms status > "$T/log" 2>&1
check "dkms status still works (exit $?)" '[ $? = 0 ]'
exit 0

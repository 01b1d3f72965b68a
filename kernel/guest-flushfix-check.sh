# guest-flushfix-check.sh - guest side: the patched fat modules load, work, and vfat-smart
# reports the fix (stock module: "absent", patched: "present").
#
# Run from the checkout, after kernel/build-modules and a meson install into the destdir:
#   tests/lab/guest-run --kernel 6.12 --destdir $PWD/tests/lab/out/destdir \
#     --devices ss-stick --script kernel/guest-flushfix-check.sh
# The modules are taken from <checkout>/kernel/out/$(uname -r)/VARIANT/ for each VARIANT of
# VSM_FF_VARIANTS (default "wait0 wait1"; e.g. "hybrid", the patch) (the checkout is found
# from LAB_DESTDIR, .../tests/lab/out/destdir; the host's root is visible at its own path
# in the guest). Needs the STICKSS1 stick (usb-storage, FAT32).
# Prints PASS/FAIL lines and ends with "KERNEL: N passed, N failed"; exit 1 on a failure.
set -u
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
finish() { echo "${LAB_KERNEL:-?}: $passed passed, $failed failed"; exit $((failed > 0)); }
jget() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$@"; }

KVER=$(uname -r)
VARIANTS=${VSM_FF_VARIANTS:-wait0 wait1}
TOP=${LAB_DESTDIR:-}
TOP=${TOP%/tests/lab/out/destdir}
MODS=${TOP:-/work/kernel}/kernel/out/$KVER
W=$(mktemp -d)
mnt=/mnt/flushfix
mkdir -p $mnt

d=$(lab_disk STICKSS1 10) || { fail "no STICKSS1 stick"; finish; }
node=${d}1
[ -b "$node" ] || node=$d
echo "   kernel $KVER, stick $node, modules from $MODS"
for v in $VARIANTS; do
  check "the $v modules for $KVER exist" test -f "$MODS/$v/fat.ko" -a -f "$MODS/$v/vfat.ko"
done

unload_fat() {
  umount $mnt 2> /dev/null
  for m in vfat msdos fat; do
    if grep -q "^$m " /proc/modules; then rmmod $m || return 1; fi
  done
}

# FIX: absent|present; LABEL
report() {
  local want=$1 label=$2 got
  vfat-smart plan --json "$node" > "$W/plan.json" 2> "$W/plan.err"
  got=$(jget "$W/plan.json" kernel.flush_fix)
  echo "   $label: plan kernel.flush_fix=$got ($(jget "$W/plan.json" kernel.flush_fix_reason))"
  check "$label: vfat-smart plan --json says kernel.flush_fix=$want" [ "$got" = "$want" ]
  vfat-smart status > "$W/status.out" 2>&1
  grep '^ *Kernel' "$W/status.out" | sed 's/^/   | /'
  check "$label: vfat-smart status says 'FAT flush fix $want'" grep -q "FAT flush fix $want" "$W/status.out"
}

# a file written through the module with flush, read back after a remount
roundtrip() {
  local label=$1
  head -c 16M /dev/urandom > "$W/data"
  mount -t vfat -o flush "$node" $mnt || { fail "$label: mount -o flush"; return; }
  cp "$W/data" $mnt/flushfix.bin
  umount $mnt
  mount -t vfat "$node" $mnt || { fail "$label: remount"; return; }
  check "$label: 16 MiB written with flush read back intact" cmp -s "$W/data" $mnt/flushfix.bin
  rm -f $mnt/flushfix.bin
  umount $mnt
}

# 1. stock
unload_fat
modprobe vfat
check "stock: /sys/module/fat/version has no marker" \
  bash -c '! grep -qs vfat-smart-flushfix /sys/module/fat/version'
report absent stock

# 2. the patched builds
for v in $VARIANTS; do
  unload_fat || { fail "$v: cannot unload the fat modules"; continue; }
  if insmod "$MODS/$v/fat.ko" && insmod "$MODS/$v/vfat.ko"; then
    pass "$v: insmod fat.ko and vfat.ko"
  else
    fail "$v: insmod fat.ko and vfat.ko"; dmesg | tail -n 5; continue
  fi
  ver=$(cat /sys/module/fat/version 2> /dev/null)
  echo "   $v: /sys/module/fat/version = $ver"
  check "$v: /sys/module/fat/version is PKGVER-vfat-smart-flushfix-$v[/src=SRCVER]" \
    [ -n "$(printf '%s\n' "$ver" | grep -E "^[0-9][0-9.]*-vfat-smart-flushfix-$v(/src=.+)?\$")" ]
  echo "   $v: kernel taint $(cat /proc/sys/kernel/tainted) (O: out-of-tree, E: unsigned)"
  report present "$v"
  roundtrip "$v"
done

# 3. back to stock
unload_fat && modprobe vfat
report absent "stock again"
dmesg | grep -iE 'fat|module' | tail -n 5 | sed 's/^/   dmesg| /'
finish

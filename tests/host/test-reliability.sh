#!/bin/bash
# Host reliability checks on a real loop device (issue: reliability): a kill at
# each step of apply loses no original, hostile files in the state directory are
# harmless, a held lock is waited for a bounded time, a hostile label cannot
# drive the terminal or break JSON, a failed mount changes nothing of a managed
# disk, no room for the record means nothing is written. Needs root; prints TAP.
#
# usage: test-reliability.sh VFAT_SMART_BINARY SCHEMA_DIR MOUNT_HELPER UDEV_HELPER
set -uo pipefail
export LC_ALL=C.UTF-8

VS=$1
SCHEMAS=$2
MH=$3
UH=$4
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ "$(id -u)" != 0 ]; then
  echo "1..0 # SKIP needs root for loop devices and BDI knobs (CI runs as root)"
  exit 77
fi

work=$(mktemp -d)
loop= loop2= tmpfs=
cleanup() {
  [ -n "$tmpfs" ] && umount "$tmpfs" 2>/dev/null
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  [ -n "$loop2" ] && losetup -d "$loop2" 2>/dev/null
  for m in "${made_nodes[@]}"; do rm -f "$m"; done
  rm -rf "$work"
}
trap cleanup EXIT

export VFAT_SMART_STATE_DIR=$work/state
export GSETTINGS_SCHEMA_DIR=$SCHEMAS
export GSETTINGS_BACKEND=memory
S=$VFAT_SMART_STATE_DIR

truncate -s 64M "$work/img"
echo 'type=c' | sfdisk -q "$work/img" > /dev/null
loop=$(losetup -f --show -P "$work/img")
partition_of "$loop"; part=$REPLY
mkfs.vfat -F 32 "$part" > /dev/null
bdi=$(cat /sys/block/"${loop#/dev/}"/dev)
knob() { cat /sys/class/bdi/"$bdi"/"$1"; }
# max_bytes is not compared: it reads back as a share of the dirty threshold,
# which moves with free memory; max_ratio_fine is that share
orig="$(knob strict_limit) $(knob max_ratio_fine)"
knobs_now() { echo "$(knob strict_limit) $(knob max_ratio_fine)"; }
no_state() { [ -z "$(ls "$S"/*.state 2> /dev/null)" ]; }

echo "1..28"

# --- 1. kill -9 at every step of the first apply: nothing original is lost
# (strace stops the process at the N-th open of a knob: before the original is
# read, between writes, before the read-back)
kills=0 lost=0
for target in max_bytes strict_limit max_ratio_fine; do
  for when in 1 2 3 4; do
    strace -f -o /dev/null -P /sys/class/bdi/"$bdi"/$target -e trace=openat \
      -e inject=openat:signal=SIGKILL:when=$when "$VS" apply --class usb-stick "$part" > /dev/null 2>&1
    [ $? = 137 ] && kills=$((kills + 1))
    # the next run (another apply here) completes or undoes what was left
    "$VS" apply --class usb-stick "$part" > /dev/null 2>&1
    "$VS" restore --all > /dev/null 2>&1
    if [ "$(knobs_now)" != "$orig" ] || ! no_state; then
      lost=$((lost + 1))
      echo "# after a kill at open $when of $target: $(knobs_now) (was $orig)"
      "$VS" restore --all > /dev/null 2>&1
    fi
  done
done
check "kill -9 during apply: the process was killed ($kills times)" [ $kills -ge 6 ]
check "... and every time the next apply + restore brought back $orig" [ $lost = 0 ]

# a kill right after the first knob write leaves a pending record holding the originals
strace -f -o /dev/null -P /sys/class/bdi/"$bdi"/strict_limit -e trace=openat \
  -e inject=openat:signal=SIGKILL:when=3 "$VS" apply --class usb-stick "$part" > /dev/null 2>&1
check "a kill after max_bytes was written leaves a pending record" grep -q '^pending=true' "$S/${bdi/:/-}.state"
"$VS" status "$part" > "$work/status" 2>&1
check "status says the apply was interrupted" grep -q INTERRUPTED "$work/status"
"$VS" restore "$part" > /dev/null 2>&1; rc=$?
check "restore undoes it (exit $rc): the kernel's own values back" [ $rc = 0 -a "$(knobs_now)" = "$orig" ]

# --- 2. a FIFO in the state directory hangs nothing
mkdir -p "$S" && mkfifo "$S/${bdi/:/-}.state"
timeout 20 "$VS" status > /dev/null 2>&1; rc1=$?
timeout 20 "$VS" apply --class usb-stick "$part" > /dev/null 2>&1; rc2=$?
timeout 20 "$VS" restore --all > /dev/null 2>&1; rc3=$?
check "FIFO as a record: status, apply, restore --all return 7 (not a hang)" [ "$rc1 $rc2 $rc3" = "7 7 7" ]
check "... and no knob was touched" [ "$(knobs_now)" = "$orig" ]
"$VS" forget "${bdi/:/-}.state" > /dev/null; rc=$?
check "forget FILE drops it (exit $rc)" [ $rc = 0 ] && no_state

# --- 3. records that cannot be trusted are not obeyed, and not hidden
"$VS" apply --class usb-stick "$part" > /dev/null
rec="$S/${bdi/:/-}.state"
chmod 0666 "$rec"
"$VS" restore "$part" > /dev/null 2> "$work/err"; rc=$?
check "a record others may write is refused (exit $rc)" [ $rc = 7 ] && [ "$(knob strict_limit)" = 1 ]
chmod 0644 "$rec"; chown 65534 "$rec"
"$VS" restore "$part" > /dev/null 2>&1; rc=$?
check "a record owned by another user is refused (exit $rc)" [ $rc = 7 ]
chown 0 "$rec"
sed -i "s|^restore-path=.*strict_limit|restore-path=/proc/sys/vm/dirty_expire_centisecs|" "$rec"
"$VS" restore --all > "$work/out" 2> "$work/err"; rc=$?
check "restore --all reports a record that names a path outside its disk (exit $rc)" \
  [ $rc = 7 ] && grep -q 'cannot be trusted' "$work/err"
check "... and wrote nothing there" [ "$(cat /proc/sys/vm/dirty_expire_centisecs)" != "1" ]
"$VS" status > "$work/out" 2>&1; rc=$?
check "status lists it and exits 7 (was: 'No drives are managed', 0)" [ $rc = 7 ] && grep -q 'cannot be trusted' "$work/out"
"$VS" forget "$bdi" > /dev/null && echo 0 > /sys/class/bdi/"$bdi"/strict_limit
echo 1000000 > /sys/class/bdi/"$bdi"/max_ratio_fine
check "forget MAJ:MIN drops it" no_state

# --- 4. a held lock: the udev helper gives up after a bounded wait, the CLI says so
mkdir -p "$S" && exec 7> "$S/.lock" && flock 7
t0=$(date +%s%N)
devpath=$(udevadm info -q path "$loop" 2> /dev/null || echo "/devices/virtual/block/${loop#/dev/}")
env ACTION=add DEVPATH="$devpath" DEVTYPE=disk "$UH" > /dev/null 2>&1; rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
check "udev helper with the lock held: exit 0 within 5 s ($ms ms)" [ $rc = 0 -a $ms -lt 5000 ]
"$VS" apply --class usb-stick "$part" > /dev/null 2> "$work/err"; rc=$?
check "CLI apply with the lock held: exit 10, nothing changed" [ $rc = 10 -a "$(knobs_now)" = "$orig" ]
exec 7>&-

# --- 5. no room for the record: nothing is written at all
tmpfs=$work/full && mkdir -p "$tmpfs" && mount -t tmpfs -o size=64k tmpfs "$tmpfs"
chmod 755 "$tmpfs"
head -c 60k /dev/zero > "$tmpfs/filler" 2> /dev/null
dd if=/dev/zero of="$tmpfs/filler2" bs=1k 2> /dev/null
VFAT_SMART_STATE_DIR=$tmpfs VFAT_SMART_FAIL_WRITE=3 "$VS" apply --class usb-stick "$part" \
  > /dev/null 2> "$work/err"; rc=$?
check "full state directory: apply fails (exit $rc) and says nothing was changed" \
  [ $rc != 0 ] && grep -q 'nothing was changed' "$work/err"
check "... and it is true" [ "$(knobs_now)" = "$orig" ]
umount "$tmpfs" && tmpfs=

# --- 6. a failed mount leaves a managed disk as it was
"$VS" apply --class usb-ssd "$part" > /dev/null
before="$(knobs_now)"
mkdir -p "$work/target"
"$MH" "$part" "$work/target" -o x-vfat-smart.class=usb-stick 2> /dev/null; rc=$?
check "mount.vfat-smart on a managed disk fails here (no vfat in this kernel): exit 32" [ $rc = 32 ]
check "... every knob as it was" [ "$(knobs_now)" = "$before" ]
check "... and the record still says usb-ssd" grep -q '^class=usb-ssd' "$S/${bdi/:/-}.state"
"$VS" restore --all > /dev/null

# --- 7. a hostile label: nothing reaches the terminal raw, JSON stays valid
truncate -s 64M "$work/img2"
echo 'type=c' | sfdisk -q "$work/img2" > /dev/null
loop2=$(losetup -f --show -P "$work/img2")
partition_of "$loop2"; part2=$REPLY
mkfs.vfat -F 32 "$part2" > /dev/null
# the boot sector's volume label (FAT32: offset 71, 11 bytes)
printf '\033[2J\033[31mX\377' | dd of="$part2" bs=1 seek=71 conv=notrunc status=none
"$VS" classify "$part2" > "$work/human" 2>&1
check "classify prints no escape or invalid byte from the label" \
  python3 -c "import sys; b=open('$work/human','rb').read(); b.decode('utf-8'); sys.exit(b'\x1b' in b)"
"$VS" classify --json "$part2" > "$work/json" 2>&1
check "classify --json parses (valid UTF-8 JSON)" python3 -c "import json; json.load(open('$work/json', encoding='utf-8'))"

# --- 8. hostile options and arguments through the mount helper and the CLI
noctl() { python3 -c "import sys; b=open(sys.argv[1],'rb').read(); b.decode('utf-8'); sys.exit(any(c < 32 and c != 10 for c in b))" "$1"; }
"$MH" "$part" "$work/target" -f -v -o "$(printf 'uid=1000\nmount.vfat-smart: forged,\033[2Jx=$(reboot)')" \
  > "$work/out" 2>&1; rc=$?
check "mount.vfat-smart -f -v with newline, escape and \$() in -o: refused (exit $rc), no forged line" \
  [ $rc = 1 ] && [ "$(grep -vc '^mount.vfat-smart: \|^Usage\|^$\|^  ' "$work/out")" = 0 ] && noctl "$work/out"
"$MH" "$part" "$work/target" -f -o "$(head -c 100000 /dev/zero | tr '\0' a)" > /dev/null 2>&1; rc=$?
check "mount.vfat-smart -f with a 100 KB option: no crash (exit $rc)" [ $rc -lt 128 ]
"$VS" classify "$(printf 'LABEL=\033[2J\033[31m\377')" > "$work/out" 2>&1; rc=$?
check "classify of a hostile LABEL=: exit 3, the message made safe" [ $rc = 3 ] && noctl "$work/out"

# --- 10. a class an earlier udev rule chose (ENV{VFAT_SMART_CLASS}="usb-hdd") reaches
# the engine and the record's intent (the loop disk alone is internal: left alone)
rec=$S/${bdi/:/-}.state
udev_class_kept() {
  grep -qx 'VFAT_SMART_CLASS=usb-hdd' "$work/out" && grep -qx 'VFAT_SMART_MANAGED=1' "$work/out" &&
    [ "$(sed -n '/^\[intent\]/,$p' "$rec" | grep -E '^(source|class)=' | sort | tr '\n' ' ')" = "class=usb-hdd source=udev " ]
}
env ACTION=add DEVPATH="$devpath" DEVTYPE=disk VFAT_SMART_CLASS=usb-hdd "$UH" > "$work/out" 2>&1; rc=$?
check "udev helper with VFAT_SMART_CLASS=usb-hdd from an earlier rule: managed as usb-hdd, kept in the record" \
  eval '[ $rc = 0 ] && udev_class_kept'
"$VS" restore "$part" > /dev/null 2>&1
env ACTION=add DEVPATH="$devpath" DEVTYPE=disk VFAT_SMART_CLASS=floppy "$UH" > "$work/out" 2>&1; rc=$?
check "... a name that is no class is ignored (the internal disk stays alone)" \
  eval '[ $rc = 0 ] && grep -qx VFAT_SMART_MANAGED=0 "$work/out" && no_state'

echo "# $failed of $n failed"
[ $failed = 0 ]

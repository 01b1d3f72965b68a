#!/bin/bash
# Host integration: vfat-smart on a real loop device of the running kernel
# (every BDI knob exists on Linux >= 6.2). Needs root; prints TAP.
#
# usage: test-loop.sh VFAT_SMART_BINARY SCHEMA_DIR MOUNT_HELPER
set -uo pipefail
export LC_ALL=C.UTF-8

VS=$1
SCHEMAS=$2
MH=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ "$(id -u)" != 0 ]; then
  echo "1..0 # SKIP needs root for loop devices and BDI knobs (CI runs as root)"
  exit 77
fi

work=$(mktemp -d)
loop=
mnt=
cleanup() {
  [ -n "$mnt" ] && umount "$mnt" 2>/dev/null
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  for m in "${made_nodes[@]}"; do rm -f "$m"; done
  rm -rf "$work"
}
trap cleanup EXIT

export VFAT_SMART_STATE_DIR=$work/state
export GSETTINGS_SCHEMA_DIR=$SCHEMAS
export GSETTINGS_BACKEND=keyfile
export XDG_CONFIG_HOME=$work/config
mkdir -p "$XDG_CONFIG_HOME/glib-2.0/settings"
keyfile=$XDG_CONFIG_HOME/glib-2.0/settings/keyfile

# a partitioned image: the FS on loopNp1, the knobs on loopN
truncate -s 64M "$work/img"
echo 'type=c' | sfdisk -q "$work/img" >/dev/null
loop=$(losetup -f --show -P "$work/img")
partition_of "$loop"; part=$REPLY
mkfs.vfat -n LOOPTEST "$part" >/dev/null
bdi=$(cat /sys/block/"${loop#/dev/}"/dev)
knob() { cat /sys/class/bdi/"$bdi"/"$1"; }
orig_strict=$(knob strict_limit)
orig_ratio=$(knob max_ratio_fine)

echo "1..42"

# --- classify / plan: the partition resolves to its disk
out=$("$VS" classify --json "$part")
check "classify exits 0 on a partition" [ $? = 0 ]
check "classify: transport loop, class internal" [ "$(echo "$out" | json 'd["transport"], d["class"]')" = "loop internal" ]
check "classify: disk and bdi of the partition" [ "$(echo "$out" | json 'd["disk"], d["bdi"]')" = "$loop $bdi" ]
check "classify: filesystem from libblkid" [ "$(echo "$out" | json 'd["filesystem"]["type"], d["filesystem"]["label"]')" = "vfat LOOPTEST" ]
out=$("$VS" plan --json "$part")
check "plan: an internal disk is left alone" [ "$(echo "$out" | json 'd["managed"], d["knobs"]')" = "False {}" ]

printf "[org/vfatsmart]\nclass-flush-modes={'nonsense': 'off'}\n" > "$keyfile"
"$VS" apply "$part" > /dev/null 2> "$work/err"; rc=$?
check "apply on an internal disk: exit 9 with the plan's reason, not a policy warning" \
  [ $rc = 9 ] && grep -q 'left alone: internal disks are left alone' "$work/err"
rm -f "$keyfile"
out=$("$VS" plan --json --class usb-stick "$part")
cap=$(echo "$out" | json 'd["knobs"]["max_bytes"]')
check "plan --class usb-stick: dirty-cap with max_bytes and strict_limit" \
  [ "$(echo "$out" | json 'd["flush_mode"], d["knobs"]["strict_limit"]')" = "dirty-cap 1" ]
check "plan: mount options drop flush" [ "$(echo "$out" | json 'd["mount_options"]')" = "shortname=mixed,utf8=1,showexec" ]

# --- apply, verify, idempotent, status, drift, restore
"$VS" apply --class usb-stick "$part" >/dev/null
check "apply exits 0" [ $? = 0 ]
check "apply: strict_limit is 1" [ "$(knob strict_limit)" = 1 ]
check "apply: max_bytes is the plan's cap (within 5%)" \
  python3 -c "import sys; a,b=int('$cap'),int('$(knob max_bytes)'); sys.exit(abs(a-b) > a/20)"
first=$(grep -E '^(original|restore-value)=' "$VFAT_SMART_STATE_DIR"/*.state)
"$VS" apply --class usb-stick "$part" >/dev/null
second=$(grep -E '^(original|restore-value)=' "$VFAT_SMART_STATE_DIR"/*.state)
check "apply twice keeps the first originals" [ "$first" = "$second" ]
check "apply twice leaves the knobs as they were" [ "$(knob strict_limit)" = 1 ]

out=$("$VS" status --json)
check "status lists the disk" [ "$(echo "$out" | json 'd["devices"][0]["bdi"]')" = "$bdi" ]
check "status: knob before/applied/now, no drift" \
  [ "$(echo "$out" | json 'd["devices"][0]["knobs"]["strict_limit"]["before"], d["devices"][0]["knobs"]["strict_limit"]["now"], d["devices"][0]["knobs"]["strict_limit"]["drift"]')" = "$orig_strict 1 none" ]
dd if=/dev/urandom of="$loop" bs=1M count=4 seek=40 oflag=direct status=none
out=$("$VS" status --json "$part")
check "status: I/O since apply counts the 4 MiB written" \
  [ "$(echo "$out" | json 'd["devices"][0]["io_since_apply"]["write_bytes"] >= 4*1024*1024')" = True ]
echo 0 > /sys/class/bdi/"$bdi"/strict_limit
out=$("$VS" status --json "$part")
check "status flags a knob someone else changed" \
  [ "$(echo "$out" | json 'd["devices"][0]["knobs"]["strict_limit"]["drift"]')" = changed ]
human=$("$VS" status "$part")
check "human status says CHANGED" grep -q CHANGED <<< "$human"

"$VS" restore "$part" >/dev/null
check "restore exits 0" [ $? = 0 ]
check "restore: strict_limit and max_ratio_fine back" [ "$(knob strict_limit) $(knob max_ratio_fine)" = "$orig_strict $orig_ratio" ]
check "restore: state removed" [ -z "$(ls "$VFAT_SMART_STATE_DIR"/*.state 2>/dev/null)" ]
"$VS" status "$part" >/dev/null; rc=$?
check "status of an unmanaged disk exits 8" [ $rc = 8 ]

# --- failure in the middle: the second write fails, the first is undone
VFAT_SMART_FAIL_WRITE=2 "$VS" apply --class usb-stick "$part" 2>"$work/err"; rc=$?
check "injected failure on the 2nd write: exit 6" [ $rc = 6 ]
check "... and every knob is back, nothing recorded" \
  [ "$(knob strict_limit) $(knob max_ratio_fine) $(ls "$VFAT_SMART_STATE_DIR"/*.state 2>/dev/null)" = "$orig_strict $orig_ratio " ]

# --- a real kernel refusal: a cap above the dirty threshold is EINVAL
cat > "$keyfile" <<KF
[org/vfatsmart]
class-bandwidth={'usb-stick': uint64 10000000000}
max-dirty-seconds=60.0
dirty-cap-max-bytes=uint64 17179869184
KF
"$VS" apply --class usb-stick "$part" 2>"$work/err"; rc=$?
check "max_bytes above the threshold: kernel says EINVAL, exit 6, one message" \
  [ $rc = 6 -a "$(wc -l < "$work/err")" = 1 ]
check "... nothing changed" [ "$(knob strict_limit) $(knob max_ratio_fine)" = "$orig_strict $orig_ratio" ]
rm -f "$keyfile"

# --- bad input and no root
"$VS" classify /nonexistent 2>/dev/null; rc1=$?
"$VS" classify /etc/passwd 2>/dev/null; rc2=$?
"$VS" classify 2>/dev/null; rc3=$?
"$VS" plan --class floppy "$part" 2>/dev/null; rc4=$?
check "bad input: no device 3, not a block device 3, usage 2, bad class 2" [ "$rc1 $rc2 $rc3 $rc4" = "3 3 2 2" ]
env -u VFAT_SMART_STATE_DIR setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$VS" apply --class usb-stick "$part" 2>"$work/err"; rc=$?
check "apply as non-root: exit 5 with a clear message" [ $rc = 5 ] && grep -q 'needs root' "$work/err"

# --- mount.vfat-smart: a mount that fails leaves every knob as it was
mkdir -p "$work/target"
"$MH" "$part" "$work/target" -o x-vfat-smart.class=usb-stick,codepage=bogus 2>"$work/err"; rc=$?
check "mount.vfat-smart: a failing mount exits 32 (mount(8)'s mount failure)" [ $rc = 32 ]
check "... the knobs it set are put back, no state left" \
  [ "$(knob strict_limit) $(knob max_ratio_fine) $(ls "$VFAT_SMART_STATE_DIR"/*.state 2>/dev/null)" = "$orig_strict $orig_ratio " ]
out=$("$MH" "$part" "$work/target" -f -v -o x-vfat-smart.class=usb-stick); rc=$?
check "mount.vfat-smart -f -v: exit 0, says what it would do, changes nothing" \
  [ $rc = 0 -a "$(knob strict_limit)" = "$orig_strict" ] && grep -q 'mount -t vfat -o shortname=mixed,utf8=1,showexec' <<< "$out"
conf=$("$VS" classify --json "$part" | json 'd["confidence"]')
out=$("$MH" "$part" "$work/target" -f -v -o flush); rc=$?
check "mount.vfat-smart -f -v -o flush keeps the detected confidence ($conf %)" \
  [ $rc = 0 ] && grep -q "(confidence $conf%)" <<< "$out"
"$MH" "$part" "$work/target" -f -r -o 'x="a,uid=1000' 2> "$work/err"; rc=$?
check "mount.vfat-smart refuses -o with an open quote (would drop ro and uid=): exit 1" \
  [ $rc = 1 ] && grep -q 'open quote' "$work/err"
"$MH" /dev/no-such-disk "$work/target" 2>/dev/null; rc1=$?
"$MH" "$part" 2>/dev/null; rc2=$?
env -u VFAT_SMART_STATE_DIR setpriv --reuid=65534 --regid=65534 --clear-groups "$MH" "$part" "$work/target" 2>/dev/null; rc3=$?
check "mount.vfat-smart: no device 32, usage 1, non-root 1" [ "$rc1 $rc2 $rc3" = "32 1 1" ]

# --- through mount(8) itself, as a person mounts: it runs /sbin/mount.vfat-smart,
# here the built helper laid over the system's sbin in a private mount namespace
# (nothing outside this test sees it). mount(8) hands no x-* option to a helper:
# the class comes as vfat-smart.class= on its command line, and from the fstab line.
helpers=$work/helpers
mkdir -p "$helpers" && ln -s "$(readlink -f "$MH")" "$helpers/mount.vfat-smart"
sbin=$(readlink -f /sbin)
via_mount8() {
  unshare -m --propagation private sh -c \
    'mount -t overlay overlay -o lowerdir="$0:$1" "$1" && shift && exec "$@"' \
    "$helpers" "$sbin" "$@"
}
uuid=$(blkid -o value -s UUID "$part")
said() { [ "$rc" = "$1" ] && grep -q -- "$2" <<< "$out"; }
not_said() { [ "$rc" = "$1" ] && ! grep -q -- "$2" <<< "$out"; }
untouched() { [ "$(knob strict_limit) $(knob max_ratio_fine) $(ls "$VFAT_SMART_STATE_DIR"/*.state 2>/dev/null)" = "$orig_strict $orig_ratio " ]; }
if via_mount8 true 2> /dev/null; then
  out=$(via_mount8 mount -f -v -t vfat-smart -o vfat-smart.class=usb-hdd "$part" "$work/target" 2>&1); rc=$?
  check "mount(8) -t vfat-smart -o vfat-smart.class=usb-hdd: the helper plans usb-hdd" \
    said 0 'class usb-hdd (confidence 100%)'
  out=$(via_mount8 mount -f -v -t vfat-smart -o vfat-smart.class=usb-stick,sync "$part" "$work/target" 2>&1); rc=$?
  check "mount(8) -o vfat-smart.class=usb-stick,sync: flush mode sync reaches the helper" \
    said 0 'class usb-stick (confidence 100%), flush mode sync'
  printf '%s %s vfat-smart noauto,x-vfat-smart.class=usb-hdd 0 0\n' "$part" "$work/target" > "$work/fstab"
  out=$(LIBMOUNT_FSTAB=$work/fstab via_mount8 mount -f -v "$work/target" 2>&1); rc=$?
  check "fstab noauto,x-vfat-smart.class=usb-hdd, mount DIR: the helper plans usb-hdd (and utab keeps it)" \
    eval 'said 0 "class usb-hdd (confidence 100%)" && said 0 "showexec,rw,x-vfat-smart.class=usb-hdd,helper="'
  printf 'UUID=%s %s vfat-smart noauto,x-vfat-smart.class=usb-ssd 0 0\n' "$uuid" "$work/target" > "$work/fstab"
  out=$(LIBMOUNT_FSTAB=$work/fstab via_mount8 mount -f -v "$work/target" 2>&1); rc=$?
  check "fstab UUID=... with x-vfat-smart.class=usb-ssd: the helper plans usb-ssd" \
    said 0 'class usb-ssd (confidence 100%)'
  printf '%s %s vfat-smart noauto,x-vfat-smart.class=usb-hdd 0 0\n' "$part" "$work/other" > "$work/fstab"
  out=$(LIBMOUNT_FSTAB=$work/fstab via_mount8 mount -f -v -t vfat-smart "$part" "$work/target" 2>&1); rc=$?
  check "... the fstab line of another mount point is not this mount's" not_said 0 'class usb-hdd'
  out=$(via_mount8 mount -v -t vfat-smart -o vfat-smart.class=usb-hdd "$part" "$work/target" 2>&1); rc=$?
  check "mount(8) without -f: planned usb-hdd, the mount fails here (no vfat), nothing left" \
    eval 'said 32 "class usb-hdd" && untouched'
else
  for _ in 1 2 3 4 5 6; do n=$((n + 1)); echo "ok $n # SKIP no overlayfs or mount namespace to lay the helper over $sbin"; done
fi

# --- a mount point resolves to its device (ext4: the host kernel has no vfat)
mkfs.ext4 -q -F "$part" && mnt=$work/mnt && mkdir -p "$mnt" && mount "$part" "$mnt"
out=$("$VS" classify --json "$mnt")
check "classify MOUNTPOINT resolves to the partition" [ "$(echo "$out" | json 'd["device"]')" = "$part" ]
"$MH" "$part" "$work/target" 2>"$work/err"; rc=$?
check "mount.vfat-smart refuses a filesystem that is not FAT (exit 32)" [ $rc = 32 ] && grep -q 'not vfat or exfat' "$work/err"

echo "# $failed of $n failed"
[ $failed = 0 ]

#!/bin/bash
# Host checks on a real loop device: a hostile global.state or a record naming
# another disk is listed and refused (exit 7), never hidden or deleted; a full
# state directory on a re-apply says what is true; a failed mount after a plan
# that leaves the disk alone changes nothing; temporaries of killed runs are
# cleaned; UMOCKDEV_DIR does not switch off the needs-root check. Needs root;
# prints TAP.
#
# usage: test-hostile-state.sh VFAT_SMART_BINARY SCHEMA_DIR MOUNT_HELPER
set -uo pipefail
export LC_ALL=C.UTF-8

VS=$1
SCHEMAS=$2
MH=$3
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
lacks() { ! grep -q "$1" "$2"; }

if [ "$(id -u)" != 0 ]; then
  echo "1..0 # SKIP needs root for loop devices and BDI knobs (CI runs as root)"
  exit 77
fi

work=$(mktemp -d)
loop= loop2= tmpfs=
cleanup() {
  [ -n "$tmpfs" ] && umount "$tmpfs" 2> /dev/null
  [ -n "$loop" ] && losetup -d "$loop" 2> /dev/null
  [ -n "$loop2" ] && losetup -d "$loop2" 2> /dev/null
  for m in "${made_nodes[@]}"; do rm -f "$m"; done
  rm -rf "$work"
}
trap cleanup EXIT

export VFAT_SMART_STATE_DIR=$work/state
export GSETTINGS_SCHEMA_DIR=$SCHEMAS
export GSETTINGS_BACKEND=memory
S=$VFAT_SMART_STATE_DIR

new_stick() {
  truncate -s 64M "$work/$1"
  echo 'type=c' | sfdisk -q "$work/$1" > /dev/null
  losetup -f --show -P "$work/$1"
}
loop=$(new_stick img)
partition_of "$loop"; part=$REPLY
mkfs.vfat -F 32 "$part" > /dev/null
loop2=$(new_stick img2)
bdi=$(cat /sys/block/"${loop#/dev/}"/dev)
rec="$S/${bdi/:/-}.state"
knob() { cat /sys/class/bdi/"$bdi"/"$1"; }
# max_bytes reads back as a share of the dirty threshold (moves with free
# memory); max_ratio_fine is that share
knobs_now() { echo "$(knob strict_limit) $(knob max_ratio_fine)"; }
orig="$(knobs_now)"

echo "1..27"

# --- 1. a hostile global.state is listed and refused, never hidden
echo 'x' > "$work/elsewhere"
for kind in fifo huge symlink foreign; do
  "$VS" apply --class usb-stick "$part" > /dev/null
  g="$S/global.state"
  case $kind in
    fifo) mkfifo "$g" ;;
    huge) head -c 300000 /dev/zero | tr '\0' '#' > "$g" ;;
    symlink) ln -s "$work/elsewhere" "$g" ;;
    foreign) printf '[global]\nowners=%s;\n' "$bdi" > "$g" && chown 65534 "$g" ;;
  esac
  timeout 20 "$VS" status > "$work/out" 2>&1; rc=$?
  check "global.state a $kind: status exits 7 (was $rc) and lists it" \
    [ $rc = 7 ] && grep -q 'global.state' "$work/out"
  timeout 20 "$VS" restore --all > /dev/null 2> "$work/err"; rc=$?
  check "... restore --all exits 7 (was $rc), naming it" [ $rc = 7 ] && grep -q 'global.state' "$work/err"
  rm -f "$g"
  "$VS" restore --all > /dev/null 2>&1
done
check "... and every time the disk's own knobs came back" [ "$(knobs_now)" = "$orig" ] && [ ! -e "$rec" ]

# --- 2. a record whose name= is another disk's: not obeyed, not deleted
"$VS" apply --class usb-stick "$part" > /dev/null
applied="$(knobs_now)"
sed -i "s|^name=.*|name=${loop2#/dev/}|" "$rec"
"$VS" restore "$part" > "$work/out" 2>&1; rc=$?
check "record naming another disk: restore exits 7 (was $rc)" [ $rc = 7 ]
check "... never says the disk is gone" lacks 'disk is gone' "$work/out"
check "... and the record is kept" [ -e "$rec" ] && [ "$(knobs_now)" = "$applied" ]
"$VS" status > "$work/out" 2>&1; rc=$?
check "... status lists it as untrusted (exit $rc)" [ $rc = 7 ] && grep -q 'cannot be trusted' "$work/out"
"$VS" restore --all > /dev/null 2>&1; rc=$?
check "... restore --all exits 7 (was $rc) and keeps it" [ $rc = 7 ] && [ -e "$rec" ]
sed -i "s|^name=.*|name=${loop#/dev/}|" "$rec"
"$VS" restore --all > /dev/null 2>&1; rc=$?
check "... named right again, restore --all puts back the originals (exit $rc)" \
  [ $rc = 0 ] && [ "$(knobs_now)" = "$orig" ]

# --- 3. a re-apply with another class on a full state directory
tmpfs=$work/full && mkdir -p "$tmpfs" && mount -t tmpfs -o size=64k tmpfs "$tmpfs"
chmod 755 "$tmpfs"
VFAT_SMART_STATE_DIR=$tmpfs "$VS" apply --class usb-stick "$part" > /dev/null
applied="$(knobs_now) $(knob max_bytes)"
head -c 60k /dev/zero > "$tmpfs/filler" 2> /dev/null
dd if=/dev/zero of="$tmpfs/filler2" bs=1k 2> /dev/null
VFAT_SMART_STATE_DIR=$tmpfs "$VS" apply --class usb-ssd "$part" > /dev/null 2> "$work/err"; rc=$?
check "full state directory, re-apply as usb-ssd: exit 7 (was $rc)" [ $rc = 7 ]
check "... does not claim the record could not be put back" lacks 'could not be' "$work/err"
check "... says nothing was changed" grep -q 'nothing was changed' "$work/err"
check "... and the record and the knobs are the usb-stick ones" \
  grep -q '^class=usb-stick' "$tmpfs/${bdi/:/-}.state" && [ "$(knobs_now) $(knob max_bytes)" = "$applied" ]
rm -f "$tmpfs/filler" "$tmpfs/filler2"
VFAT_SMART_STATE_DIR=$tmpfs "$VS" restore --all > /dev/null
umount "$tmpfs" && tmpfs=

# --- 4. a failed mount after a plan that leaves the disk alone changes nothing
"$VS" apply --class usb-stick "$part" > /dev/null
before="$(knobs_now)"
mkdir -p "$work/target"
"$MH" "$part" "$work/target" -o x-vfat-smart.class=internal 2> /dev/null; rc=$?
check "mount.vfat-smart as internal fails here (no vfat in this kernel): exit 32 (was $rc)" [ $rc = 32 ]
check "... every knob as it was" [ "$(knobs_now)" = "$before" ]
check "... and the record still says usb-stick" grep -q '^class=usb-stick' "$rec"
"$VS" restore --all > /dev/null

# --- 5. temporaries that killed runs left: the stale ones go, a fresh one stays
mkdir -p "$S"
echo junk > "$S/${bdi/:/-}.state.Ab12Cd"
touch -d '2 hours ago' "$S/${bdi/:/-}.state.Ab12Cd"
echo junk > "$S/global.state.Xy34Zw"
touch -d '2 hours ago' "$S/global.state.Xy34Zw"
echo junk > "$S/${bdi/:/-}.state.Fresh1"
"$VS" apply --class usb-stick "$part" > /dev/null
check "stale *.state.XXXXXX temporaries are removed under the lock" \
  [ ! -e "$S/${bdi/:/-}.state.Ab12Cd" ] && [ ! -e "$S/global.state.Xy34Zw" ]
check "... a fresh one (another run may be writing it) stays" [ -e "$S/${bdi/:/-}.state.Fresh1" ]
rm -f "$S/${bdi/:/-}.state.Fresh1"
"$VS" restore --all > /dev/null

# --- 6. UMOCKDEV_DIR in the environment does not switch off the needs-root check
# (a state directory the user owns: without the check, the apply would lock it
# and write its record there before the first knob write failed)
nstate=$(mktemp -d) && chown 65534 "$nstate" && chmod 755 "$nstate"
UMOCKDEV_DIR=$nstate VFAT_SMART_STATE_DIR=$nstate setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$VS" apply --class usb-stick "$part" > /dev/null 2> "$work/err"; rc=$?
check "apply by a user with UMOCKDEV_DIR set: exit 5, needs root (was $rc)" \
  [ $rc = 5 ] && grep -q 'needs root' "$work/err"
check "... refused before anything was locked or written" [ -z "$(ls -A "$nstate")" ]
check "... and no knob was changed" [ "$(knobs_now)" = "$orig" ]
rm -rf "$nstate"

echo "# $failed of $n failed"
[ $failed = 0 ]

# guest side: mount.vfat-smart / umount.vfat-smart by hand (issue: mounting by hand).
# Runs in a guest-run guest with vfat-smart installed from the destdir; needs STICKSS1.
# Prints PASS/FAIL lines and ends with "KERNEL: N passed, N failed".
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"
jget() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print("" if v is None else v)' "$@"; }

W=$(mktemp -d)
d=$(lab_disk STICKSS1 10) || { fail "no STICKSS1"; finish; }
# udev's rule manages cold-plugged sticks already: start from the kernel's own knobs
vfat-smart restore --all > /dev/null
node=${d}1
bdi=/sys/class/bdi/$(cat "/sys/block/${d#/dev/}/dev")
knobs() { for k in strict_limit max_ratio; do [ -e "$bdi/$k" ] && printf '%s=%s ' "$k" "$(cat "$bdi/$k")"; done; }
before=$(knobs)
mnt=/mnt/by-hand
mkdir -p $mnt

vfat-smart plan --json "$node" > "$W/plan.json"
mode=$(jget "$W/plan.json" flush_mode)
cap=$(jget "$W/plan.json" knobs.max_bytes)
echo "   plan: $mode, -o $(jget "$W/plan.json" mount_options), max_bytes=${cap:-none}"

# a deliberately failing mount leaves the knobs as they were
mount -t vfat-smart -o codepage=bogus "$node" $mnt > "$W/fail.out" 2>&1; rc=$?
check "a failing mount exits 32" [ $rc = 32 ]
check "... and leaves the knobs as they were ($(knobs))" [ "$(knobs)" = "$before" ]
check "... and records nothing" [ -z "$(ls /run/vfat-smart/*.state 2>/dev/null)" ]

# the real thing, by mount(8), as a person types it
mount -v -t vfat-smart -o uid=1000 "$node" $mnt > "$W/mount.out" 2>&1; rc=$?
sed 's/^/   | /' "$W/mount.out"
check "mount -t vfat-smart exits 0" [ $rc = 0 ]
opts=$(findmnt -n -o FSTYPE,OPTIONS --target $mnt)
echo "   mountinfo: $opts"
check "mounted as vfat by the helper" grep -q '^vfat ' <<< "$opts"
check "uid=1000 given by hand is there" grep -q 'uid=1000' <<< "$opts"
check "the plan's shortname=mixed and showexec are there" grep -q 'shortname=mixed.*showexec\|showexec.*shortname=mixed' <<< "$opts"
if [ "$mode" = dirty-cap ]; then
  check "no flush on a kernel with the cap" bash -c "! grep -qw flush <<< '$opts'"
  check "strict_limit=1 as planned" [ "$(cat $bdi/strict_limit)" = 1 ]
  check "max_bytes is the plan's ($cap, read back $(cat $bdi/max_bytes))" \
    python3 -c "import sys; a,b=$cap,$(cat $bdi/max_bytes); sys.exit(abs(a-b) > a/20)"
else
  check "flush kept where the kernel has no cap" grep -qw flush <<< "$opts"
  check "-v states the fallback" grep -q 'fallback' "$W/mount.out"
fi
check "utab names umount.vfat-smart's helper" grep -q 'uhelper=vfat-smart' /run/mount/utab

head -c 8M /dev/urandom > "$W/data"
cp "$W/data" $mnt/data && sync
echo 3 > /proc/sys/vm/drop_caches
check "a file written and read back" cmp -s "$W/data" $mnt/data

vfat-smart status "$node" > "$W/status.out" 2>&1; rc=$?
sed 's/^/   | /' "$W/status.out"
check "status shows the mount" grep -q "$mnt type vfat" "$W/status.out"
[ "$mode" = dirty-cap ] || check "status states the fallback" grep -q fallback "$W/status.out"

umount -v $mnt > "$W/umount.out" 2>&1; rc=$?
sed 's/^/   | /' "$W/umount.out"
check "umount exits 0" [ $rc = 0 ]
check "umount.vfat-smart restored the knobs ($(knobs))" [ "$(knobs)" = "$before" ]
check "and forgot the disk" [ -z "$(ls /run/vfat-smart/*.state 2>/dev/null)" ]
check "the unmount was timed and logged (one JSON object per line)" python3 -c "
import json, sys
rows = [json.loads(l) for l in open('/run/vfat-smart/unmounts.log') if l.strip()]
sys.exit(not any(r['target'] == '$mnt' and r['seconds'] >= 0 for r in rows))"
tail -n 1 /run/vfat-smart/unmounts.log | sed 's/^/   | /'
# exFAT by hand: the UAS disk's partition is exFAT (exFAT has no flush option: on a kernel
# without the per-device cap (6.1) the plan is "off", never kernel-flush)
if ! xd=$(lab_disk UASHDD1 10); then fail "no UASHDD1"; finish; fi
vfat-smart restore "$xd" > /dev/null 2>&1
xnode=${xd}1
bdi=/sys/class/bdi/$(cat "/sys/block/${xd#/dev/}/dev")
check "exfat: the UAS disk's partition is exFAT" [ "$(blkid -o value -s TYPE "$xnode")" = exfat ]
before=$(knobs)
vfat-smart plan --json "$xnode" > "$W/xplan.json"
xmode=$(jget "$W/xplan.json" flush_mode)
xcap=$(jget "$W/xplan.json" knobs.max_bytes)
echo "   exfat plan: $xmode, -o $(jget "$W/xplan.json" mount_options), max_bytes=${xcap:-none}"
if [ "$LAB_KERNEL" = 6.1 ]; then
  check "exfat: 6.1 plans off (no flush option, no per-device cap), not kernel-flush" [ "$xmode" = off ]
else
  check "exfat: $LAB_KERNEL plans dirty-cap" [ "$xmode" = dirty-cap ]
fi
mount -v -t vfat-smart -o uid=1000 "$xnode" $mnt > "$W/xmount.out" 2>&1; rc=$?
sed 's/^/   | /' "$W/xmount.out"
check "exfat: mount -t vfat-smart exits 0" [ $rc = 0 ]
opts=$(findmnt -n -o FSTYPE,OPTIONS --target $mnt)
echo "   mountinfo: $opts"
check "exfat: mounted as exfat by the helper" grep -q '^exfat ' <<< "$opts"
check "exfat: uid=1000 given by hand is there" grep -q 'uid=1000' <<< "$opts"
check "exfat: the plan's iocharset=utf8 and errors=remount-ro are there" \
  bash -c "grep -q 'iocharset=utf8' <<< '$opts' && grep -q 'errors=remount-ro' <<< '$opts'"
check "exfat: no flush" bash -c "! grep -qw flush <<< '${opts//,/ }'"
if [ "$xmode" = dirty-cap ]; then
  check "exfat: strict_limit=1 as planned" [ "$(cat $bdi/strict_limit)" = 1 ]
  check "exfat: max_bytes is the plan's ($xcap, read back $(cat $bdi/max_bytes))" \
    python3 -c "import sys; a,b=$xcap,$(cat $bdi/max_bytes); sys.exit(abs(a-b) > a/20)"
else
  check "exfat: knobs as the kernel had them ($(knobs))" [ "$(knobs)" = "$before" ]
fi
cp "$W/data" $mnt/data && sync
echo 3 > /proc/sys/vm/drop_caches
check "exfat: a file written and read back" cmp -s "$W/data" $mnt/data
vfat-smart status "$xnode" > "$W/xstatus.out" 2>&1
sed 's/^/   | /' "$W/xstatus.out"
check "exfat: status shows the mount" grep -q "$mnt type exfat" "$W/xstatus.out"
vfat-smart status --json "$xnode" > "$W/xstatus.json" 2>&1
smode=$(python3 -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1]))["devices"] if x.get("disk") == sys.argv[2]]; print(e[0]["flush_mode"] if e else "(no entry for " + sys.argv[2] + ")")' "$W/xstatus.json" "$xd" 2>&1)
check "exfat: status --json says $xmode (says $smode)" [ "$smode" = "$xmode" ]
umount -v $mnt > "$W/xumount.out" 2>&1; rc=$?
sed 's/^/   | /' "$W/xumount.out"
check "exfat: umount exits 0" [ $rc = 0 ]
check "exfat: umount.vfat-smart restored the knobs ($(knobs))" [ "$(knobs)" = "$before" ]
check "exfat: and forgot the disk" [ -z "$(ls /run/vfat-smart/*.state 2>/dev/null)" ]
finish

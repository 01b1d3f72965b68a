# guest side: hotplug through udev and udisks (issue: automatic on hotplug).
# Plugs the HOTPLUG1 stick, checks the udev properties, the knobs, a udisks mount as an
# ordinary user (granted by a polkit rule: the guest has no logind session), a copy,
# udisks unmount, a surprise removal. Ends with "KERNEL: N passed, N failed".
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"
prop() { udevadm info -q property "$1" | sed -n "s/^$2=//p"; }

W=$(mktemp -d)
chmod 755 "$W"   # labuser copies from here
check "the udev rule is installed" test -f /usr/lib/udev/rules.d/61-vfat-smart.rules
lab_polkit_allow_user
d=$(lab_hotplug) || { fail "hotplug"; finish; }
part=${d}1
udevadm settle
bdi=/sys/class/bdi/$(cat "/sys/block/${d#/dev/}/dev")
echo "   hotplugged $d"
udevadm info -q property "$d" | grep VFAT_SMART | sed 's/^/   disk | /'
udevadm info -q property "$part" | grep -E 'VFAT_SMART|UDISKS_MOUNT' | sed 's/^/   part | /'

check "udev: the disk is classified usb-stick" [ "$(prop "$d" VFAT_SMART_CLASS)" = usb-stick ]
mode=$(prop "$d" VFAT_SMART_FLUSH_MODE)
defaults=$(prop "$part" UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS)
check "udev: the partition carries udisks' defaults key" [ -n "$defaults" ]
check "udev: uid/gid placeholders kept for udisks" grep -q '^uid=\$UID,gid=\$GID,' <<< "$defaults"
check "udev: no allow list exported (udisks keeps its own)" \
  bash -c "! udevadm info -q property '$part' | grep -q '^UDISKS_MOUNT_OPTIONS.*_ALLOW='"
if [ "$LAB_KERNEL" = 6.1 ]; then
  check "6.1: flush mode kernel-flush" [ "$mode" = kernel-flush ]
  check "6.1: udisks keeps flush" grep -qw flush <<< "$defaults"
else
  check "$LAB_KERNEL: flush mode dirty-cap" [ "$mode" = dirty-cap ]
  check "$LAB_KERNEL: no flush in udisks' defaults" bash -c "! grep -qw flush <<< '$defaults'"
  check "$LAB_KERNEL: strict_limit=1 set on hotplug" [ "$(cat $bdi/strict_limit)" = 1 ]
  check "$LAB_KERNEL: max_bytes set ($(prop "$d" VFAT_SMART_DIRTY_CAP))" [ "$(cat $bdi/max_ratio)" -lt 100 ]
fi
check "state recorded by udev" grep -q '^source=udev' /run/vfat-smart/*.state

# how fast the helper is: the same event again, by hand
helper=/usr/libexec/vfat-smart-udev
devpath=$(udevadm info -q path "$part")
t0=$(date +%s%N)
for _ in $(seq 3); do
  env ACTION=change DEVPATH="$devpath" DEVTYPE=partition ID_FS_TYPE=vfat $helper > /dev/null
done
t1=$(date +%s%N)
# reported, not asserted: software emulation with libraries read over 9p is ~100x slower
echo "   vfat-smart-udev: $(( (t1 - t0) / 3000 )) us per run (3 runs, partition event, TCG guest)" |
  tee "$LAB_OUT/udev-helper-timing.txt"

# udisks mounts as the desktop would, as an ordinary user
check_user_mount "$part" "$mode"
head -c 16M /dev/urandom > "$W/data"
check "a copy as labuser works" lab_as_user cp "$W/data" "$mnt/copy"
sync; echo 3 > /proc/sys/vm/drop_caches
check "and reads back" cmp -s "$W/data" "$mnt/copy"
vfat-smart status > "$W/status" 2>&1
sed 's/^/   | /' "$W/status"
check "status lists the hotplugged stick and its udisks mount" grep -q "uhelper=udisks2" "$W/status"

# the unmount's change event (udev's watch) keeps the helper's answer without running it
stamp="/run/vfat-smart/udev-answered/$(cat /sys/class/block/${part#/dev/}/dev):vfat:$(prop "$part" ID_FS_UUID)"
check "the helper left the answered stamp ($stamp)" test -f "$stamp"
ino0=$(stat -c %i "$stamp" 2> /dev/null)
udevadm monitor --udev --subsystem-match=block > "$W/monitor" 2>&1 &
mon=$!
sleep 1
check "udisksctl unmount as labuser" lab_as_user udisksctl unmount -b "$part"
udevadm settle
sleep 0.5
kill $mon 2> /dev/null; wait $mon 2> /dev/null
check "the unmount sent a change event for the partition" grep -q "change.*/${part#/dev/} (block)" "$W/monitor"
check "the change event did not run the helper (stamp untouched)" [ "$(stat -c %i "$stamp" 2> /dev/null)" = "$ino0" ]
check "udisks' defaults kept from udev's database" [ "$(prop "$part" UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS)" = "$defaults" ]
check "the flush mode kept" [ "$(prop "$part" VFAT_SMART_FLUSH_MODE)" = "$mode" ]
rm -f "$stamp"
udevadm trigger --action=change --settle "$part"
check "without the stamp a change event runs the helper (stamp made again)" test -f "$stamp"
check "and udisks' defaults are the same" [ "$(prop "$part" UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS)" = "$defaults" ]
[ "$mode" = dirty-cap ] && check "knobs stay while the stick is plugged" [ "$(cat $bdi/strict_limit)" = 1 ]

# a user may still ask udisks for flush or sync: its own allow list is in force
for want in flush sync; do
  lab_as_user udisksctl mount -b "$part" -o "$want" > "$W/mount-$want" 2>&1
  opts=$(findmnt -n -o OPTIONS --source "$part" | head -n 1)
  check "udisksctl mount -o $want as labuser gets $want" grep -qw "$want" <<< "$opts"
  lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1
done

# exFAT on the same stick (every SDXC card and most sticks of 64 GB and more): a new file
# system on the plugged stick, udev and udisks as above, then FAT32 again for the pull
# below and the checks after this one
wipefs -q -a "$part"
mkfs.exfat -L HOTPLUGX "$part" > "$W/mkfs.out" 2>&1 || { sed 's/^/   mkfs | /' "$W/mkfs.out"; fail "mkfs.exfat"; }
udevadm settle
udevadm trigger --action=change --settle "$part"
check "exfat: udev sees the new file system" [ "$(prop "$part" ID_FS_TYPE)" = exfat ]
xmode=$(prop "$part" VFAT_SMART_FLUSH_MODE)   # the partition's event planned for exFAT
xdefaults=$(prop "$part" UDISKS_MOUNT_OPTIONS_EXFAT_DEFAULTS)
udevadm info -q property "$part" | grep -E 'VFAT_SMART|UDISKS_MOUNT|ID_FS_TYPE' | sed 's/^/   exfat part | /'
echo "   exfat: VFAT_SMART_FLUSH_MODE=$xmode (the disk's record: $(prop "$d" VFAT_SMART_FLUSH_MODE))"
if [ "$LAB_KERNEL" = 6.1 ]; then
  check "exfat 6.1: flush mode off (exFAT has no flush option, 6.1 no per-device cap), not kernel-flush" [ "$xmode" = off ]
else
  check "exfat $LAB_KERNEL: flush mode dirty-cap" [ "$xmode" = dirty-cap ]
  check "exfat $LAB_KERNEL: strict_limit=1 set on the change event" [ "$(cat $bdi/strict_limit)" = 1 ]
  check "exfat $LAB_KERNEL: max_bytes set ($(prop "$d" VFAT_SMART_DIRTY_CAP))" [ "$(cat $bdi/max_ratio)" -lt 100 ]
  check "exfat: the partition carries udisks' exFAT defaults key" [ -n "$xdefaults" ]
fi
if [ -n "$xdefaults" ]; then
  check "exfat: uid/gid placeholders kept for udisks ($xdefaults)" grep -q '^uid=\$UID,gid=\$GID,' <<< "$xdefaults"
  check "exfat: no flush in udisks' exFAT defaults" bash -c "! grep -qw flush <<< '${xdefaults//,/ }'"
fi
check "exfat: no allow list exported (udisks keeps its own exFAT list)" \
  bash -c "! udevadm info -q property '$part' | grep -q '^UDISKS_MOUNT_OPTIONS.*_ALLOW='"
check "exfat: the state record names exfat" grep -qw exfat /run/vfat-smart/*.state
out=$(lab_as_user udisksctl mount -b "$part" 2>&1); rc=$?
echo "   $out"
check "exfat: udisksctl mount as labuser" [ $rc = 0 ]
mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)
opts=$(findmnt -n -o FSTYPE,OPTIONS --source "$part" | head -n 1)
echo "   mounted at $mnt: $opts"
check "exfat: mounted as exfat with uid=1000 from \$UID" bash -c "grep -q '^exfat ' <<< '$opts' && grep -q 'uid=1000' <<< '$opts'"
[ -z "$xdefaults" ] || check "exfat: udisks used vfat-smart's defaults (iocharset=utf8, errors=remount-ro)" \
  bash -c "grep -q 'iocharset=utf8' <<< '$opts' && grep -q 'errors=remount-ro' <<< '$opts'"
check "exfat: a copy as labuser works" lab_as_user cp "$W/data" "$mnt/copy"
sync; echo 3 > /proc/sys/vm/drop_caches
check "exfat: and reads back" cmp -s "$W/data" "$mnt/copy"
vfat-smart status --json "$part" > "$W/xstatus.json" 2>&1
smode=$(python3 -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1]))["devices"] if x.get("disk") == sys.argv[2]]; print(e[0]["flush_mode"] if e else "(no entry for " + sys.argv[2] + ")")' "$W/xstatus.json" "$d" 2>&1)
vfat-smart status "$part" 2>&1 | sed 's/^/   | /'
if [ "$LAB_KERNEL" = 6.1 ]; then
  check "exfat 6.1: status --json says off, no kernel-flush claim (says $smode)" [ "$smode" = off ]
else
  check "exfat $LAB_KERNEL: status --json says dirty-cap (says $smode)" [ "$smode" = dirty-cap ]
fi
check "exfat: udisksctl unmount as labuser" lab_as_user udisksctl unmount -b "$part"
# udisks' own exFAT allow list is in force: an option from it that vfat-smart never sets
lab_as_user udisksctl mount -b "$part" -o umask=0077 > "$W/mount-umask" 2>&1
opts=$(findmnt -n -o OPTIONS --source "$part" | head -n 1)
echo "   -o umask=0077: $opts"
check "exfat: udisksctl mount -o umask=0077 as labuser gets fmask=0077,dmask=0077" \
  bash -c "grep -q 'fmask=0077' <<< '$opts' && grep -q 'dmask=0077' <<< '$opts'"
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1
# FAT32 again, as guest-run made it (label, volume id, 32 KiB clusters)
wipefs -q -a "$part"
mkfs.vfat -F 32 -s 64 -n HOTPLUG -i 55AA0007 "$part" > "$W/mkfs.out" 2>&1 || sed 's/^/   mkfs | /' "$W/mkfs.out"
udevadm settle
udevadm trigger --action=change --settle "$part"
check "FAT32 again: udev sees vfat" [ "$(prop "$part" ID_FS_TYPE)" = vfat ]
check "FAT32 again: the partition's flush mode as before ($mode)" [ "$(prop "$part" VFAT_SMART_FLUSH_MODE)" = "$mode" ]

# mounted again, then pulled out
lab_as_user udisksctl mount -b "$part" > /dev/null 2>&1
lab_as_user dd if=/dev/zero of="$(findmnt -n -o TARGET --source "$part" | head -n 1)/pull" bs=1M count=8 status=none
check "surprise removal" lab_unplug
for _ in $(seq 50); do ls /run/vfat-smart/*.state > /dev/null 2>&1 || break; sleep 0.3; done
if ls /run/vfat-smart/*.state > /dev/null 2>&1; then
  fail "no stale state after the removal"
  ls -la /run/vfat-smart/ /sys/class/bdi/ | sed 's/^/   | /'
  cat /run/vfat-smart/*.state | sed 's/^/   state | /'
else
  pass "no stale state after the removal"
fi
check "udisksd survived" pgrep -x udisksd
vfat-smart status > "$W/status2" 2>&1; rc=$?
check "status runs after the removal (exit $rc)" [ $rc = 0 ]
mount | grep -q HOTPLUG && umount -l "$(findmnt -n -o TARGET -S LABEL=HOTPLUG | head -n1)" 2>/dev/null
finish

# guest side: a Plasma user's mount. KDE's Solid (libkf5solid5; its command-line
# client solid-hardware5 from libkf5solid-bin, installed on the host by lab-setup) mounts
# through udisks as Dolphin does, and its udisks2 backend puts `flush` into the options of
# every vfat mount, whatever udisks' defaults (vfat-smart's udev rule exports them) say.
# Plugs the HOTPLUG1 stick, mounts its FAT32 partition as labuser with
# `solid-hardware5 mount UDI` (the UDI from `solid-hardware5 list`, in a session bus of
# labuser's own: dbus-run-session), records the mount's options (/proc/self/mountinfo),
# `vfat-smart status --json` and vfat-smartd's FlushMode, unmounts with solid-hardware5;
# then the same with the partition made exFAT (mkfs.exfat; exFAT has no flush option).
# Asserts the truth: a mount that has flush is not reported as dirty-cap, neither by
# status nor by the daemon. Run with --devices none (the hotplug stick only).
# Evidence in $LAB_OUT/solid-FS.txt. Ends with "KERNEL: N passed, N failed".
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"

W=$(mktemp -d)
chmod 755 "$W"
# solid-hardware5 as labuser in a session bus of its own (what a desktop session has)
solid() {
  lab_as_user env HOME=/home/labuser XDG_RUNTIME_DIR="$W/xdg" QT_QPA_PLATFORM=offscreen \
    dbus-run-session -- solid-hardware5 "$@"
}
mkdir -p "$W/xdg"; chown labuser "$W/xdg"; chmod 700 "$W/xdg"
# the options of PART's mount from mountinfo: per-mount options and the super options
mountinfo_of() { grep " $(cat "/sys/class/block/${1#/dev/}/dev") " /proc/self/mountinfo | head -n 1; }
mount_opts() { awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $6 "," $(i + 3); exit } }' <<< "$1"; }
# every flush_mode in status --json (the guest has only the hotplugged stick)
json_modes() { grep -o '"flush_mode" *: *"[^"]*"' "$1" | sed 's/.*: *"//; s/"$//' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

lab_polkit_allow_user
daemon_log_to_lab_out
check "D-Bus activation starts the daemon" wait_until 30 in_list ""
check "solid-hardware5 is installed (libkf5solid-bin)" test -x /usr/bin/solid-hardware5
d=$(lab_hotplug) || { fail "hotplug"; finish; }
part=${d}1
bdi=$(cat "/sys/block/${d#/dev/}/dev")
path=/org/vfatsmart/VfatSmart1/devices/${bdi/:/_}
echo "   hotplugged $d ($bdi)"
check "the daemon lists the stick" wait_until 30 in_list "$path"

# FS: vfat, then exfat (mkfs.exfat on the same partition)
solid_round() {
  local fs=$1 out=$LAB_OUT/solid-$1.txt udi rc mi opts mnt smodes fmode flushed
  : > "$out"
  # lines "udi = '/org/freedesktop/UDisks2/block_devices/sda1'"
  solid list > "$W/list.out" 2>&1
  udi=$(grep -o "/org/freedesktop/UDisks2/block_devices/${part#/dev/}'" "$W/list.out" | tr -d "'" | head -n 1)
  echo "   solid-hardware5 list: ${udi:-(no udi for $part)}" | tee -a "$out"
  if [ -z "$udi" ]; then
    fail "$fs: solid-hardware5 list names the partition"
    sed 's/^/   list | /' "$W/list.out"
    return 1
  fi
  pass "$fs: solid-hardware5 list names the partition"
  solid details "$udi" 2>&1 | grep -iE 'fsType|usage|ignored|accessible|filePath' | sed 's/^/   details | /' | tee -a "$out"
  solid mount "$udi" > "$W/mount.out" 2>&1; rc=$?
  sed 's/^/   mount | /' "$W/mount.out"
  # solid-hardware5's exit status says nothing (Debian 12's exits 0 after "Error: ...
  # does not have the interface StorageAccess", 1 after a mount that worked, with no
  # output): its output and mountinfo tell
  wait_until 10 bash -c "grep -q ' $bdi1 ' /proc/self/mountinfo" 2> /dev/null
  check "$fs: solid-hardware5 mount as labuser (no error; exit status $rc)" \
    bash -c "! grep -qi error '$W/mount.out' && grep -q ' $bdi1 ' /proc/self/mountinfo"
  mi=$(mountinfo_of "$part")
  echo "   mountinfo | $mi" | tee -a "$out"
  [ -n "$mi" ] || { fail "$fs: the partition is mounted"; return 1; }
  opts=$(mount_opts "$mi")
  mnt=$(awk '{ print $5 }' <<< "$mi")
  check "$fs: mounted for labuser (uid=1000)" grep -q 'uid=1000' <<< "$opts"
  grep -qw flush <<< "${opts//,/ }" && flushed=1 || flushed=0
  echo "   the mount has flush: $([ $flushed = 1 ] && echo yes || echo no) ($fs)" | tee -a "$out"
  local key=UDISKS_MOUNT_OPTIONS_$(tr a-z A-Z <<< "$fs")_DEFAULTS defaults
  defaults=$(udevadm info -q property "$part" | sed -n "s/^$key=//p")
  echo "   udev: VFAT_SMART_FLUSH_MODE=$(udevadm info -q property "$d" | sed -n 's/^VFAT_SMART_FLUSH_MODE=//p') $key=$defaults" | tee -a "$out"
  if [ $flushed = 1 ] && ! grep -qw flush <<< "${defaults//,/ }"; then
    echo "   flush came from the client: udisks' defaults for this drive have none" | tee -a "$out"
  fi
  # the daemon follows udisks' mount
  wait_until 20 bash -c "[[ \"\$(val $path MountPoints)\" == *'$mnt'* ]]" ||
    echo "   the daemon's MountPoints do not name $mnt: $(val "$path" MountPoints)" | tee -a "$out"
  vfat-smart status --json > "$W/status.json" 2> "$W/status.err"; rc=$?
  smodes=$(json_modes "$W/status.json")
  fmode=$(val "$path" FlushMode)
  echo "   vfat-smart status --json (exit $rc): flush_mode $smodes" | tee -a "$out"
  python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), indent=1))' "$W/status.json" 2> /dev/null |
    grep -E '"(flush_mode|mount_options|options|fstype|fs_type|cap_bytes|max_bytes|strict_limit)"' | sed 's/^ */   status | /' | tee -a "$out"
  echo "   vfat-smartd FlushMode: $fmode; CapBytes: $(val "$path" CapBytes)" | tee -a "$out"
  echo "   bdi: strict_limit=$(cat /sys/class/bdi/$bdi/strict_limit 2> /dev/null) max_ratio=$(cat /sys/class/bdi/$bdi/max_ratio) max_bytes=$(cat /sys/class/bdi/$bdi/max_bytes 2> /dev/null)" | tee -a "$out"
  cp "$W/status.json" "$LAB_OUT/solid-$fs-status.json"
  check "$fs: vfat-smart status --json runs (exit $rc)" [ $rc = 0 ]
  if [ $flushed = 1 ]; then
    check "$fs: status --json does not claim dirty-cap for a flush mount (says: $smodes)" \
      bash -c "! grep -qw dirty-cap <<< '$smodes'"
    check "$fs: the daemon's FlushMode is not dirty-cap for a flush mount (says: $fmode)" [ "$fmode" != dirty-cap ]
  else
    check "$fs: status --json names a flush mode ($smodes)" [ -n "$smodes" ]
    check "$fs: the daemon's FlushMode is not kernel-flush for a mount without flush (says: $fmode)" \
      [ "$fmode" != kernel-flush ]
  fi
  solid unmount "$udi" > "$W/umount.out" 2>&1; rc=$?
  sed 's/^/   unmount | /' "$W/umount.out"
  check "$fs: solid-hardware5 unmount as labuser (no error; exit status $rc), unmounted" \
    bash -c "! grep -qi error '$W/umount.out' && ! grep -q ' $bdi1 ' /proc/self/mountinfo"
}

bdi1=$(cat "/sys/class/block/${part#/dev/}/dev")
solid_round vfat

# the same partition as exFAT: a new file system, a change event, udisks sees it
wipefs -q -a "$part"
mkfs.exfat -L SOLIDEX "$part" > "$W/mkfs.out" 2>&1 || { cat "$W/mkfs.out"; fail "mkfs.exfat"; finish; }
udevadm settle
udevadm trigger --action=change --settle "$part"
check "exfat: udisks sees the exFAT file system" \
  wait_until 20 bash -c "udisksctl info -b $part | grep -q 'IdType: *exfat'"
solid_round exfat

lab_unplug > /dev/null 2>&1
finish

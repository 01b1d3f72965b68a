# guest side: the Debian package (issue 15). `guest-run --deb vfat-smart_*.deb` has
# installed it with apt into the running guest before this runs. Checks: installed and
# configured, the daemon not started, the udev rule active for the next plug without a
# reboot (knobs, udev properties, `udisksctl mount` as labuser gets vfat-smart's options),
# then `apt-get remove` with the stick plugged and mounted: vfat-smartd stopped, the knobs
# restored, the records gone, the files gone, the drive history kept; `apt-get purge`:
# nothing left; the stick plugged again gets udisks' own defaults.
# Ends with "KERNEL: N passed, N failed".
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"
prop() { udevadm info -q property "$1" | sed -n "s/^$2=//p"; }
W=$(mktemp -d)

# --- installed -------------------------------------------------------------------------
st=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' vfat-smart 2> /dev/null)
echo "   dpkg: vfat-smart $st"
check "vfat-smart installed and configured by apt" grep -q '^ii ' <<< "$st"
dpkg -L vfat-smart > "$W/files"
# conffiles (the agent's XDG autostart file) stay after remove, as Debian policy has it;
# purge deletes them (the find after it looks in /etc)
dpkg-query -W -f='${Conffiles}\n' vfat-smart | awk 'NF { print $1 }' > "$W/conffiles"
echo "   conffiles: $(tr '\n' ' ' < "$W/conffiles")"
check "the mount helper is /sbin/mount.vfat-smart (the packaged /usr/sbin one)" \
  [ "$(readlink -f /sbin/mount.vfat-smart)" = /usr/sbin/mount.vfat-smart ]
check "mount.vfat-smart and umount.vfat-smart are the package's only mount helpers" \
  [ "$(grep -cE '/s?bin/u?mount\.' "$W/files")" = 2 ]
rule=$(grep 'rules.d/61-vfat-smart.rules$' "$W/files")
check "the udev rule is installed ($rule)" test -f "$rule"
check "vfat-smartd was not started by the install" bash -c '! pgrep -x vfat-smartd'
check "the GSettings schema was compiled (glib's trigger)" \
  bash -c 'gsettings get org.vfatsmart enabled | grep -q true'

# --- the next plug goes through the rule -----------------------------------------------
lab_polkit_allow_user
d=$(lab_hotplug) || { fail "hotplug"; finish; }
part=${d}1
udevadm settle
bdi_id=$(cat "/sys/block/${d#/dev/}/dev")
bdi=/sys/class/bdi/$bdi_id
echo "   hotplugged $d ($bdi_id)"
udevadm info -q property "$d" | grep VFAT_SMART | sed 's/^/   disk | /'
udevadm info -q property "$part" | grep -E 'VFAT_SMART|UDISKS_MOUNT' | sed 's/^/   part | /'
orig_strict=0 orig_ratio=100   # a new disk's BDI starts with these (the kernel's defaults)
check "udev: the disk is classified usb-stick" [ "$(prop "$d" VFAT_SMART_CLASS)" = usb-stick ]
mode=$(prop "$d" VFAT_SMART_FLUSH_MODE)
defaults=$(prop "$part" UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS)
check "udev: the partition carries udisks' defaults key" [ -n "$defaults" ]
if [ "$LAB_KERNEL" = 6.1 ]; then
  check "6.1: flush mode kernel-flush, udisks keeps flush" \
    bash -c "[ '$mode' = kernel-flush ] && grep -qw flush <<< '$defaults'"
else
  check "$LAB_KERNEL: flush mode dirty-cap, no flush in udisks' defaults" \
    bash -c "[ '$mode' = dirty-cap ] && ! grep -qw flush <<< '$defaults'"
  check "$LAB_KERNEL: strict_limit=1 and a cap set on hotplug" \
    bash -c "[ \"\$(cat $bdi/strict_limit)\" = 1 ] && [ \"\$(cat $bdi/max_ratio)\" -lt 100 ]"
fi
check "state recorded by udev" grep -q '^source=udev' "/run/vfat-smart/${bdi_id/:/-}.state"

check_user_mount "$part" "$mode"
check "a copy as labuser works" lab_as_user dd if=/dev/zero of="$mnt/copy" bs=1M count=8 status=none

# udisks and the type by name (README: /etc/filesystems): refused while no list names it,
# then through mount(8) and mount.vfat-smart once an admin adds it
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1
out=$(lab_as_user udisksctl mount -t vfat-smart -b "$part" 2>&1); rc=$?
echo "   udisksctl mount -t vfat-smart (no /etc/filesystems entry): exit $rc: $out"
check "udisks refuses -t vfat-smart while /etc/filesystems does not name it" \
  bash -c "[ $rc != 0 ] && grep -q 'neither well-known' <<< \"\$1\"" _ "$out"
[ $rc = 0 ] && lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1
[ -e /etc/filesystems ] && cp /etc/filesystems "$W/filesystems"
[ -e /etc/filesystems ] || echo '*' > /etc/filesystems
sed -i '1i vfat-smart' /etc/filesystems
out=$(lab_as_user udisksctl mount -t vfat-smart -b "$part" 2>&1); rc=$?
echo "   udisksctl mount -t vfat-smart (vfat-smart in /etc/filesystems): exit $rc: $out"
echo "   /proc/mounts: $(findmnt -n -o FSTYPE,OPTIONS --source "$part" | head -n 1)"
grep -s "$part" /run/mount/utab | sed 's/^/   utab | /'
check "with vfat-smart in /etc/filesystems, udisksctl mount -t vfat-smart mounts it" [ $rc = 0 ]
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1
if [ -e "$W/filesystems" ]; then cp "$W/filesystems" /etc/filesystems; else rm -f /etc/filesystems; fi
out=$(lab_as_user udisksctl mount -b "$part" 2>&1)
mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)

# the daemon by D-Bus activation, as the first client (vfat-smart watch, a desktop) starts
# it; the removal has to stop it
gdbus call --system -d $D -o /org/vfatsmart/VfatSmart1 -m org.freedesktop.DBus.Peer.Ping \
  > "$W/ping" 2>&1
for _ in $(seq 60); do pgrep -x vfat-smartd > /dev/null && break; sleep 0.5; done
check "D-Bus activation starts vfat-smartd" bash -c "pgrep -x vfat-smartd > /dev/null"
mkdir -p /var/lib/vfat-smart
[ -f /var/lib/vfat-smart/drives.history ] || echo "# lab: kept across remove" > /var/lib/vfat-smart/lab-marker

# --- apt-get remove, the stick plugged and mounted ----------------------------------------
t0=$(date +%s.%N)
DEBIAN_FRONTEND=noninteractive apt-get remove -y -o Dpkg::Use-Pty=0 vfat-smart > "$LAB_OUT/apt-remove.log" 2>&1
rc=$?
echo "   apt-get remove: exit $rc, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
sed 's/^/   apt | /' "$LAB_OUT/apt-remove.log" | grep -iv 'reading\|building\|^   apt | $' | tail -n 12
check "apt-get remove vfat-smart" [ $rc = 0 ]
check "the prerm restored the drive (restore --all printed it)" grep -q "$bdi_id" "$LAB_OUT/apt-remove.log"
check "strict_limit back to $orig_strict" [ "$(cat $bdi/strict_limit)" = "$orig_strict" ]
check "max_ratio back to $orig_ratio" [ "$(cat $bdi/max_ratio)" = "$orig_ratio" ]
echo "   knobs now: strict_limit=$(cat $bdi/strict_limit) max_ratio=$(cat $bdi/max_ratio) max_bytes=$(cat $bdi/max_bytes 2> /dev/null)"
check "no record left in /run/vfat-smart" bash -c '! ls /run/vfat-smart/*.state 2> /dev/null'
check "vfat-smartd stopped by the prerm" bash -c '! pgrep -x vfat-smartd'
check "the stick stays mounted" bash -c "findmnt -n --source $part > /dev/null"
st=$(dpkg-query -W -f='${db:Status-Abbrev}' vfat-smart 2> /dev/null)
check "dpkg: removed, config-files ($st)" grep -q '^rc' <<< "$st"
left=
kept=
while read -r f; do
  if grep -qxF "$f" "$W/conffiles"; then
    [ -f "$f" ] && kept+=" $f"
    continue
  fi
  [ -f "$f" ] && [ ! -L "$f" ] && left+=" $f"
done < "$W/files"
check "every file of the package is gone but its conffiles${left:+:$left}" [ -z "$left" ]
check "its conffiles stay until purge (${kept# })" [ -n "$kept" ]
check "the drive history (/var/lib/vfat-smart) is kept by remove" [ -d /var/lib/vfat-smart ]
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1

# --- apt-get purge: nothing left -------------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get purge -y -o Dpkg::Use-Pty=0 vfat-smart > "$LAB_OUT/apt-purge.log" 2>&1
rc=$?
check "apt-get purge vfat-smart" [ $rc = 0 ]
check "dpkg knows no vfat-smart" bash -c '! dpkg-query -W -f="\${db:Status-Abbrev}" vfat-smart 2> /dev/null | grep -q "[a-z]"'
check "/var/lib/vfat-smart and /run/vfat-smart deleted" bash -c '[ ! -e /var/lib/vfat-smart ] && [ ! -e /run/vfat-smart ]'
# where the package puts files, and where state could linger (a find over the whole root
# would read the host's tree over 9p under TCG)
rest=$(find /etc /usr/lib/udev /usr/lib/systemd /usr/libexec /usr/bin /usr/sbin /usr/share/dbus-1 \
  /usr/share/polkit-1 /usr/share/glib-2.0 \
  /var/lib /var/cache /var/log /run -path /run/lab -prune -o -name '*vfat-smart*' -print 2> /dev/null |
  grep -v '^/var/cache/vfat-smart-package-check' | head -n 5 | tr '\n' ' ')
check "no file named *vfat-smart* left where the package or its state lived${rest:+: $rest}" [ -z "$rest" ]

# --- plugged again: udisks' own defaults -----------------------------------------------
check "unplug" lab_unplug
d=$(lab_hotplug) || { fail "hotplug again"; finish; }
part=${d}1
udevadm settle
check "plugged again: no VFAT_SMART properties" bash -c "! udevadm info -q property $d $part | grep -q 'VFAT_SMART\|UDISKS_MOUNT_OPTIONS'"
lab_as_user udisksctl mount -b "$part" > /dev/null 2>&1
opts=$(findmnt -n -o OPTIONS --source "$part" | head -n 1)
echo "   mounted again: $opts"
check "udisks mounts with its own defaults again (flush)" grep -qw flush <<< "$opts"
bdi=/sys/class/bdi/$(cat "/sys/block/${d#/dev/}/dev")
check "and no knob is touched (strict_limit 0, max_ratio 100)" \
  bash -c "[ \"\$(cat $bdi/strict_limit)\" = 0 ] && [ \"\$(cat $bdi/max_ratio)\" = 100 ]"
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1
finish

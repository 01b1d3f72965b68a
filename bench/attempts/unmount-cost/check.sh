# Where does vfat-smart's extra unmount time come from (h-uas-ssd-big-c: udisksctl unmount
# 7.0 s against 5.1 s with udisks' default, the same data to write)? udisks 2.9.4's
# Unmount ends with udisks_linux_block_object_trigger_uevent_sync(): it waits until the
# partition's "change" event went through udev, and so through vfat-smart's
# IMPORT{program} helper. Here: the helper's own time per event (a wrapper logs it), the
# whole event (udevadm trigger --settle), and udisksctl unmount with the drive managed
# and with it ignored (VFAT_SMART_IGNORE=1, as the bench's udisks-default), 16 MiB
# written and synced first so that the unmount has nothing to write.
set -u
lab_polkit_allow_user
H=/usr/libexec/vfat-smart-udev
mv "$H" "$H.real"
cat > "$H" <<WRAP
#!/bin/bash
t0=\$(date +%s.%N)
"$H.real" "\$@"; rc=\$?
t1=\$(date +%s.%N)
echo "helper \$ACTION \$DEVNAME \$(awk "BEGIN{printf \"%.3f\", \$t1 - \$t0}") s" >> $LAB_OUT/helper.log
exit \$rc
WRAP
chmod 755 "$H"
d=$(lab_hotplug) || { echo "FAIL: no hotplug stick"; exit 1; }
p=${d}1
ignore() {
  if [ "$1" = on ]; then
    echo 'SUBSYSTEM=="block", ENV{ID_SERIAL_SHORT}=="HOTPLUG1", ENV{VFAT_SMART_IGNORE}="1"' > /etc/udev/rules.d/60-x-ignore.rules
  else
    rm -f /etc/udev/rules.d/60-x-ignore.rules
  fi
  udevadm control --reload
  udevadm trigger --action=change --settle "$d" "$p"
}
secs() { awk "BEGIN{printf \"%.3f\", $2 - $1}"; }
for round in 1 2 3 4; do
  for mode in managed ignored; do
    [ $mode = ignored ] && ignore on || ignore off
    : > $LAB_OUT/helper.log
    t0=$(date +%s.%N); udevadm trigger --action=change --settle "$p"; t1=$(date +%s.%N)
    ev=$(secs $t0 $t1)
    mp=$(lab_as_user udisksctl mount -b "$p" | sed -n 's/^Mounted .* at \(.*\)$/\1/p'); mp=${mp%.}
    [ -n "$mp" ] || { echo "FAIL: mount"; exit 1; }
    lab_as_user dd if=/dev/zero of="$mp/f" bs=1M count=16 status=none
    sync
    t0=$(date +%s.%N); lab_as_user udisksctl unmount -b "$p" > /dev/null; rc=$?; t1=$(date +%s.%N)
    um=$(secs $t0 $t1)
    echo "round $round $mode: change event (unmounted) $ev s; udisksctl unmount rc=$rc $um s"
    sed 's/^/   /' $LAB_OUT/helper.log
  done
done
ignore off
mv "$H.real" "$H"
echo "PASS: measured"

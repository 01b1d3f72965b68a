# does root's `udisksctl unmount` unmount a mount(8) mount (the bench's references)?
set -u
d=$(lab_hotplug) || { echo "FAIL: no hotplug stick"; exit 1; }
p=${d}1
mkdir -p /mnt/bench
mount -t vfat -o uid=1000,gid=1000,shortname=mixed,utf8=1,showexec,nodev,nosuid "$p" /mnt/bench || { echo "FAIL: mount"; exit 1; }
for i in $(seq 1 100); do udisksctl info -b "$p" 2>/dev/null | grep -q /mnt/bench && break; sleep 0.2; done
echo "udisks saw the mount after $i tries: $(udisksctl info -b "$p" | grep MountPoints)"
dd if=/dev/zero of=/mnt/bench/f bs=1M count=16 status=none
t0=$(date +%s.%N)
udisksctl unmount -b "$p"; rc=$?
t1=$(date +%s.%N)
echo "udisksctl unmount rc=$rc in $(awk "BEGIN{print $t1 - $t0}") s"
if grep -q " /mnt/bench " /proc/mounts; then echo "FAIL: still mounted"; exit 1; fi
echo "PASS: root's udisksctl unmount took the mount(8) mount"

# Where the udev helper's time goes in the guest: process start vs work; by hand with the
# event's environment; strace -tt of one managed partition change event kept.
set -u
lab_polkit_allow_user
H=/usr/libexec/vfat-smart-udev
d=$(lab_hotplug) || { echo "FAIL: no hotplug stick"; exit 1; }
p=${d}1
udevadm settle
udevadm info -q property "$p" > $LAB_OUT/env-part.txt
udevadm info -q property "$d" > $LAB_OUT/env-disk.txt
run_with() { # FILE CMD...
  local f=$1; shift
  ( while IFS= read -r l; do export "$l"; done < "$f"; export ACTION=change; "$@" )
}
ms() { awk "BEGIN{printf \"%.1f\", ($2 - $1) * 1000}"; }
for i in 1 2 3 4 5; do
  t0=$(date +%s.%N); $H --help 2>/dev/null; t1=$(date +%s.%N)
  t2=$(date +%s.%N); run_with $LAB_OUT/env-part.txt $H > /dev/null; t3=$(date +%s.%N)
  t4=$(date +%s.%N); run_with $LAB_OUT/env-disk.txt $H > /dev/null; t5=$(date +%s.%N)
  t6=$(date +%s.%N); /bin/true; t7=$(date +%s.%N)
  echo "round $i: --help $(ms $t0 $t1) ms; partition $(ms $t2 $t3) ms; disk $(ms $t4 $t5) ms; /bin/true $(ms $t6 $t7) ms"
done
run_with $LAB_OUT/env-part.txt strace -f -tt -T -o $LAB_OUT/trace-part.txt $H > $LAB_OUT/out-part.txt
run_with $LAB_OUT/env-part.txt strace -f -c -o $LAB_OUT/sum-part.txt $H > /dev/null
strace -f -tt -T -o $LAB_OUT/trace-help.txt $H --help 2>/dev/null
run_with $LAB_OUT/env-part.txt ltrace -c -o $LAB_OUT/ltrace-part.txt $H > /dev/null 2>&1 || true
journalctl -t vfat-smart-udev --no-pager 2>/dev/null | tail -20 > $LAB_OUT/journal.txt || true
grep -h vfat-smart-udev /var/log/syslog 2>/dev/null | tail -20 >> $LAB_OUT/journal.txt || true
echo "PASS: profiled"

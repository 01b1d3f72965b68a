# What the udev helper spends its 0.5-0.8 s on in the lab guest (one managed change
# event of the stick's partition, unmounted): strace -f -tt -T of the helper as udev
# runs it (a wrapper), and a syscall summary (strace -c) of the same.
set -u
lab_polkit_allow_user
H=/usr/libexec/vfat-smart-udev
d=$(lab_hotplug) || { echo "FAIL: no hotplug stick"; exit 1; }
p=${d}1
mv "$H" "$H.real"
cat > "$H" <<WRAP
#!/bin/bash
n=\$(ls $LAB_OUT | grep -c '^trace-')
exec strace -f -tt -T -o $LAB_OUT/trace-\$n.txt "$H.real" "\$@"
WRAP
chmod 755 "$H"
for i in 1 2 3; do
  t0=$(date +%s.%N); udevadm trigger --action=change --settle "$p"; t1=$(date +%s.%N)
  echo "change event $i: $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
done
cat > "$H" <<WRAP
#!/bin/bash
exec strace -c -f -o $LAB_OUT/summary.txt "$H.real" "\$@"
WRAP
udevadm trigger --action=change --settle "$p"
mv "$H.real" "$H"
# the helper alone, three times, from a shell with udev's environment of the event
udevadm info -q property -x "$p" > /dev/null
env_of_event=$(udevadm info -q property "$p" | sed 's/^/export /; s/=\(.*\)$/="\1"/')
for i in 1 2 3; do
  t0=$(date +%s.%N)
  (eval "$env_of_event"; export ACTION=change; "$H" > /dev/null)
  t1=$(date +%s.%N)
  echo "helper by hand $i: $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
done
t0=$(date +%s.%N); /bin/true; t1=$(date +%s.%N)
echo "/bin/true: $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
t0=$(date +%s.%N); gsettings get org.vfatsmart enabled > /dev/null; t1=$(date +%s.%N)
echo "gsettings get: $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
ls $LAB_OUT
echo "PASS: traced"

# the udev helper's own time, without shell overhead: bash's `time` around
# env -i VARS helper, against env -i true and helper --help
set -u
lab_polkit_allow_user
H=/usr/libexec/vfat-smart-udev
d=$(lab_hotplug) || { echo "FAIL: no hotplug stick"; exit 1; }
p=${d}1
udevadm settle
mapfile -t PV < <(udevadm info -q property "$p"; echo ACTION=change)
mapfile -t DV < <(udevadm info -q property "$d"; echo ACTION=change)
TIMEFORMAT='%R'
for i in 1 2 3 4 5 6; do
  a=$( { time env -i true; } 2>&1 )
  b=$( { time $H --help 2>/dev/null; } 2>&1 )
  c=$( { time env -i "${PV[@]}" $H > /dev/null; } 2>&1 )
  e=$( { time env -i "${DV[@]}" $H > /dev/null; } 2>&1 )
  f=$( { time env -i "${PV[@]}" G_MESSAGES_DEBUG= $H --help > /dev/null 2>&1; } 2>&1 )
  echo "round $i: true $a s; --help $b s; partition $c s; disk $e s"
done
echo "PASS: profiled"

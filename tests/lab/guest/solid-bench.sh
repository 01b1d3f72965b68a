# guest side: what a Plasma user's copy costs. Plugs the HOTPLUG1 stick (run with
# --devices none and a --stick-profile, e.g. cheap-stick: the simulated stick on NBD),
# then LAB_SOLID_BENCH times: mount it as labuser with `solid-hardware5 mount UDI` (the
# stock Solid, or LAB_SOLID_LIB's), copy 1000 files of 64 KiB (`cp -r` as labuser, a new
# directory each time), unmount with `solid-hardware5 unmount UDI` (udisks' Unmount: the
# data is on the stick when it returns, "safe to unplug"). One JSON line per copy in
# $LAB_OUT/solid-bench.jsonl: the mount's options, seconds to the copy's return and to
# safe (the unmount's return), and what the simulated stick charged between the copy's
# start and the unmount's end by its own clock (busy_s, writes, jumps: the stick's log
# markers). LAB_SOLID_BENCH_BOTH=1 with LAB_SOLID_LIB: each rep copies twice, the stock
# Solid then LAB_SOLID_LIB's, interleaved in one boot. Ends with "KERNEL: N passed, N failed".
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"
. "$LAB_SCRIPT_DIR/solid-lib.sh"

reps=${LAB_SOLID_BENCH:-3}
W=$(mktemp -d)
chmod 755 "$W"
mkdir -p "$W/xdg"; chown labuser "$W/xdg"; chmod 700 "$W/xdg"
patched_ld=("${solid_ld[@]}")
solid() {
  lab_as_user env HOME=/home/labuser XDG_RUNTIME_DIR="$W/xdg" QT_QPA_PLATFORM=offscreen \
    dbus-run-session -- env "${solid_ld[@]}" solid-hardware5 "$@"
}
variants=$([ -n "${LAB_SOLID_LIB:-}" ] && echo patched || echo stock)
[ "${LAB_SOLID_BENCH_BOTH:-}" = 1 ] && [ -n "${LAB_SOLID_LIB:-}" ] && variants="stock patched"
now() { date +%s.%N; }
lab_polkit_allow_user
solid_prepare "$LAB_OUT/solid-setup.txt"
# the source: 1000 files of 64 KiB in the guest's tmpfs
mkdir -p "$W/src"
for i in $(seq -w 1 1000); do head -c 65536 /dev/urandom > "$W/src/f$i"; done
chmod -R a+rX "$W/src"
d=$(lab_hotplug) || { fail "hotplug"; finish; }
part=${d}1
bdi1=$(cat "/sys/class/block/${part#/dev/}/dev")
solid list > "$W/list.out" 2>&1
udi=$(grep -o "/org/freedesktop/UDisks2/block_devices/${part#/dev/}'" "$W/list.out" | tr -d "'" | head -n 1)
check "solid-hardware5 list names $part ($udi)" [ -n "$udi" ]
[ -n "$udi" ] || finish
log=/run/lab/stick/HOTPLUG1.log
mark() { lab_stick_mark "$d" "$1"; sleep 0.5; awk -v n="$1" '$1 == "M" && $2 == n { l = $0 } END { print l }' "$log"; }
out=$LAB_OUT/solid-bench.jsonl
: > "$out"
n=0
for r in $(seq 1 "$reps"); do
 for v in $variants; do
  n=$((n + 1))
  if [ $v = patched ]; then solid_ld=("${patched_ld[@]}"); else solid_ld=(); fi
  solid mount "$udi" > "$W/mount.out" 2>&1
  wait_until 10 bash -c "grep -q ' $bdi1 ' /proc/self/mountinfo" 2> /dev/null
  mi=$(grep " $bdi1 " /proc/self/mountinfo | head -n 1)
  [ -n "$mi" ] || { fail "rep $r: solid-hardware5 mount"; sed 's/^/   mount | /' "$W/mount.out"; break; }
  mnt=$(awk '{ print $5 }' <<< "$mi")
  opts=$(awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $6 "," $(i + 3); exit } }' <<< "$mi")
  grep -qw flush <<< "${opts//,/ }" && fl=true || fl=false
  sync; echo 3 > /proc/sys/vm/drop_caches
  m0=$(mark $((2 * n)))
  t0=$(now)
  lab_as_user cp -r "$W/src" "$mnt/run$n"; crc=$?
  t1=$(now)
  solid unmount "$udi" > "$W/umount.out" 2>&1
  wait_until 60 bash -c "! grep -q ' $bdi1 ' /proc/self/mountinfo" 2> /dev/null
  t2=$(now)
  m1=$(mark $((2 * n + 1)))
  um=$(grep -q " $bdi1 " /proc/self/mountinfo && echo false || echo true)
  python3 - "$r" "$opts" "$fl" "$t0" "$t1" "$t2" "$m0" "$m1" "$crc" "$um" "$v" "${LAB_SOLID_NO_RULE:-}" >> "$out" << 'PY'
import json, sys
r, opts, fl, t0, t1, t2, m0, m1, crc, um, variant, norule = sys.argv[1:]
a, b = m0.split(), m1.split()
print(json.dumps({"rep": int(r), "solid": variant, "vfat_smart_rule": norule != "1",
  "options": opts, "flush": fl == "true", "copy_s": round(float(t1) - float(t0), 2),
  "safe_s": round(float(t2) - float(t0), 2), "unmount_s": round(float(t2) - float(t1), 2),
  "busy_s": round(float(b[6]) - float(a[6]), 2) if len(a) > 6 and len(b) > 6 else None,
  "writes": int(b[3]) - int(a[3]) if len(a) > 6 and len(b) > 6 else None,
  "jumps": int(b[5]) - int(a[5]) if len(a) > 6 and len(b) > 6 else None,
  "cp_exit": int(crc), "unmounted": um == "true"}))
PY
  tail -n 1 "$out" | sed 's/^/   /'
  check "rep $r $v: cp of 1000 x 64 KiB as labuser (exit $crc) and unmount (unmounted: $um)" test "$crc:$um" = 0:true
 done
done
cp "$log" "$LAB_OUT/solid-bench-stick.log" 2> /dev/null
lab_unplug > /dev/null 2>&1
finish

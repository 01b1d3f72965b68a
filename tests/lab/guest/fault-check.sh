# guest side: fault scenarios (issue: reliability). For each: what was left changed
# (must be nothing, or recorded and restorable), exit codes, log lines. Prints one
# "FAULT | scenario | left changed | exit codes | log" row per scenario for the results
# table, PASS/FAIL lines, and ends with "KERNEL: N passed, N failed".
# Needs STICKSS1 and the HOTPLUG1 stick; REPLUGS (default 50) sets the re-plug count.
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"
REPLUGS=${REPLUGS:-50}
W=$(mktemp -d)
chmod 755 "$W"
lab_polkit_allow_user
S=/run/vfat-smart
states() { ls $S/*.state 2> /dev/null | wc -l; }
bdi_of() { cat "/sys/block/${1#/dev/}/dev"; }
knobs_of() {   # the knobs a record restores, as they are now
  local b=/sys/class/bdi/$1 k out=
  for k in strict_limit max_ratio max_ratio_fine; do
    [ -e "$b/$k" ] && out+="$k=$(cat "$b/$k") "
  done
  echo "${out% }"
}
oops() { dmesg | grep -cE 'BUG:|Oops|general protection|Call Trace' || true; }
row() { echo "FAULT | $1 | $2 | $3 | $4"; }
oops0=$(oops)
ss=$(lab_disk STICKSS1 10) || { fail "no STICKSS1"; finish; }
vfat-smart restore --all > /dev/null 2>&1

# --- 1. surprise removal mid-copy, mounted through udisks
d=$(lab_hotplug) || { fail hotplug; finish; }
lab_as_user udisksctl mount -b "${d}1" > /dev/null 2>&1
mnt=$(findmnt -n -o TARGET --source "${d}1" | head -n 1)
head -c 96M /dev/urandom > "$W/data"
( lab_as_user cp "$W/data" "$mnt/copy"; echo $? > "$W/cp.rc" ) &
sleep 2
lab_unplug; wait
for _ in $(seq 50); do [ "$(states)" = 0 ] && break; sleep 0.2; done
n=$(states); cprc=$(cat "$W/cp.rc")
vfat-smart status > /dev/null 2>&1; strc=$?
check "pull mid-copy (udisks): no record left" [ "$n" = 0 ]
check "... udisksd alive" pgrep -x udisksd > /dev/null
check "... status runs (exit $strc)" [ $strc = 0 ]
row "pull mid-copy, udisks mount" "$n records" "cp $cprc, status $strc" "kernel oopses: $(( $(oops) - oops0 ))"
umount -l "$mnt" 2> /dev/null

# --- 2. surprise removal mid-copy, mounted by hand
d=$(lab_hotplug) || { fail hotplug; finish; }
mkdir -p /mnt/hand && mount -t vfat-smart "${d}1" /mnt/hand; mrc=$?
( cp "$W/data" /mnt/hand/copy; echo $? > "$W/cp.rc" ) &
sleep 2
lab_unplug; wait
umount -l /mnt/hand 2> /dev/null
for _ in $(seq 50); do [ "$(states)" = 0 ] && break; sleep 0.2; done
n=$(states); cprc=$(cat "$W/cp.rc")
check "pull mid-copy (mount -t vfat-smart, exit $mrc): no record left" [ "$n" = 0 ]
row "pull mid-copy, mount -t vfat-smart" "$n records" "mount $mrc, cp $cprc" "kernel oopses: $(( $(oops) - oops0 ))"

# --- 3. kill -9 of our processes at each open of a knob during apply
d=$(lab_hotplug) || { fail hotplug; finish; }
b=$(bdi_of "$d")
vfat-smart restore --all > /dev/null 2>&1
orig=$(knobs_of "$b")
killed=0 lost=0
devpath=$(udevadm info -q path "$d")
for prog in udev cli mount; do
  for knob in max_bytes strict_limit max_ratio; do
    [ -e "/sys/class/bdi/$b/$knob" ] || continue
    for when in 1 2 3; do
      case $prog in
        udev) cmd=(env ACTION=add DEVPATH="$devpath" DEVTYPE=disk /usr/libexec/vfat-smart-udev) ;;
        cli) cmd=(vfat-smart apply "$d") ;;
        mount) cmd=(mount.vfat-smart "${d}1" /mnt/hand) ;;
      esac
      strace -f -o /dev/null -P "/sys/class/bdi/$b/$knob" -e trace=openat \
        -e inject=openat:signal=SIGKILL:when=$when "${cmd[@]}" > /dev/null 2>&1
      [ $? = 137 ] && killed=$((killed + 1))
      umount /mnt/hand 2> /dev/null
      vfat-smart restore --all > /dev/null 2>&1
      if [ "$(knobs_of "$b")" != "$orig" ] || [ "$(states)" != 0 ]; then
        lost=$((lost + 1)); echo "   after $prog killed at open $when of $knob: $(knobs_of "$b") (was $orig)"
        vfat-smart restore --all > /dev/null 2>&1
      fi
    done
  done
done
check "kill -9 of udev helper, CLI and mount helper during apply ($killed kills): originals back every time" [ $lost = 0 ]
row "kill -9 at each knob open (udev helper, apply, mount helper)" "$lost of $killed runs" "137 ($killed times), then restore --all 0" "-"

# --- 4. a read-only and a full /run/vfat-smart
mount -t tmpfs -o ro,size=64k tmpfs $S
udevadm trigger --action=change --settle "$d" 2> /dev/null || { udevadm trigger --action=change "$d"; udevadm settle; }
ro_knobs=$(knobs_of "$b")
defaults=$(udevadm info -q property "${d}1" | grep -c UDISKS_MOUNT_OPTIONS_VFAT_DEFAULTS || true)
vfat-smart apply "$d" > /dev/null 2> "$W/err"; rc=$?
umount $S
check "read-only /run: nothing changed ($ro_knobs), udisks keeps its defaults" \
  [ "$ro_knobs" = "$orig" -a "$defaults" = 0 ]
row "read-only /run/vfat-smart" "knobs: $( [ "$ro_knobs" = "$orig" ] && echo none || echo "$ro_knobs")" "apply $rc" "$(head -c 120 "$W/err")"
mount -t tmpfs -o size=16k tmpfs $S && chmod 755 $S
head -c 16k /dev/zero > $S/filler 2> /dev/null
vfat-smart apply "$d" > /dev/null 2> "$W/err"; rc=$?
full_knobs=$(knobs_of "$b")
rm -f $S/filler; umount $S
check "full /run: apply fails ($rc) and changes nothing" [ $rc != 0 -a "$full_knobs" = "$orig" ]
row "full /run/vfat-smart" "knobs: $( [ "$full_knobs" = "$orig" ] && echo none || echo "$full_knobs")" "apply $rc" "$(head -c 120 "$W/err")"

# --- 5. a knob the kernel refuses (EINVAL: a cap above the dirty threshold)
if [ -e "/sys/class/bdi/$b/max_bytes" ]; then
  vfat-smart apply "$d" > /dev/null 2>&1
  before=$(knobs_of "$b")
  GSETTINGS_BACKEND=keyfile XDG_CONFIG_HOME=$W/cfg bash -c "mkdir -p $W/cfg/glib-2.0/settings; printf '[org/vfatsmart]\nclass-bandwidth={\"usb-stick\": uint64 10000000000}\nmax-dirty-seconds=60.0\ndirty-cap-max-bytes=uint64 17179869184\n' > $W/cfg/glib-2.0/settings/keyfile; vfat-smart apply $d" > /dev/null 2> "$W/err"; rc=$?
  check "EINVAL from the kernel: exit 6, the previous knobs kept" [ $rc = 6 -a "$(knobs_of "$b")" = "$before" ]
  row "knob refuses the write (EINVAL)" "knobs: $( [ "$(knobs_of "$b")" = "$before" ] && echo none || echo changed)" "apply $rc" "$(head -c 120 "$W/err")"
  vfat-smart restore --all > /dev/null 2>&1
else
  vfat-smart plan "$d" > "$W/plan"
  row "knob refuses the write (EINVAL)" "-" "-" "$LAB_KERNEL has no max_bytes: the plan falls back ($(grep -c fallback "$W/plan") line), no knob is written"
fi

# --- 6. the drive disappears between classify and apply
( sleep 1; lab_unplug ) &
strace -f -o /dev/null -P $S/.lock -e trace=openat -e inject=openat:delay_enter=4000000:when=1 \
  vfat-smart apply "$d" > /dev/null 2> "$W/err"; rc=$?
wait
for _ in $(seq 50); do [ "$(states)" = 0 ] && break; sleep 0.2; done
n=$(states)
check "gone between plan and apply: apply fails ($rc), nothing recorded" [ $rc != 0 -a "$n" = 0 ]
row "drive gone between classify and apply" "$n records" "apply $rc" "$(head -c 120 "$W/err")"

# --- 7. two sticks at once, unplugged in either order
udevadm trigger --action=change "$ss"; udevadm settle   # udev manages STICKSS1 again
d=$(lab_hotplug) || { fail hotplug; finish; }
hb=$(bdi_of "$d"); sb=$(bdi_of "$ss")
two=$(states)
lab_unplug
for _ in $(seq 50); do [ -e "$S/${hb/:/-}.state" ] || break; sleep 0.2; done
after_first=$(states); ss_kept=$([ -e "$S/${sb/:/-}.state" ] && echo yes || echo no)
d=$(lab_hotplug) || { fail hotplug; finish; }
hb=$(bdi_of "$d")
lab_hmp 'device_del ss-stick' > /dev/null
for _ in $(seq 100); do [ -e "$S/${sb/:/-}.state" ] || break; sleep 0.2; done
hot_kept=$([ -e "$S/${hb/:/-}.state" ] && echo yes || echo no); after_other=$(states)
lab_unplug
for _ in $(seq 50); do [ "$(states)" = 0 ] && break; sleep 0.2; done
check "two sticks: $two records; the one pulled goes, the other stays (either order)" \
  [ "$two" = 2 -a "$ss_kept" = yes -a "$hot_kept" = yes -a "$(states)" = 0 ]
row "two sticks, unplugged in either order" "$(states) records at the end" "-" "records: 2 -> $after_first (other kept: $ss_kept) -> $after_other (other kept: $hot_kept)"

# --- 8. the same stick re-plugged REPLUGS times
bad=0
for i in $(seq "$REPLUGS"); do
  d=$(lab_hotplug) || { bad=$((bad + 1)); continue; }
  grep -q '^source=udev' "$S/$(bdi_of "$d" | tr : -).state" 2> /dev/null || bad=$((bad + 1))
  lab_unplug || bad=$((bad + 1))
  for _ in $(seq 50); do [ "$(states)" = 0 ] && break; sleep 0.1; done
  [ "$(states)" = 0 ] || bad=$((bad + 1))
done
check "re-plugged $REPLUGS times: recorded on each plug, forgotten on each pull" [ $bad = 0 ]
row "same stick re-plugged $REPLUGS times" "$(states) records" "$bad bad plugs" "udisksd alive: $(pgrep -x udisksd > /dev/null && echo yes || echo no); kernel oopses: $(( $(oops) - oops0 ))"
finish

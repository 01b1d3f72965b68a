# guest side: fault scenarios (issue: reliability). For each: what was left changed
# (must be nothing, or recorded and restorable), exit codes, log lines. Prints one
# "FAULT | scenario | left changed | exit codes | log" row per scenario for the results
# table, PASS/FAIL lines, and ends with "KERNEL: N passed, N failed".
# Needs STICKSS1 and the HOTPLUG1 stick; REPLUGS (default 50) sets the re-plug count.
# 9-13 are vfat-smartd's (D-Bus activated, its log in $LAB_OUT/vfat-smartd.log): killed
# during a copy, the agent killed, a pull during its metadata commit, a full /run and
# /var/lib while it saves a drive's history, the system bus restarted.
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
orig0=$(knobs_of "$(bdi_of "$ss")")   # a stick's knobs as the kernel sets them

if [ "${ONLY_DAEMON:-0}" != 1 ]; then
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
fi   # ONLY_DAEMON: 9-13 alone (tests/lab/faults --only-daemon, to try them)

# --- 9. vfat-smartd killed with -9 during a copy to a managed stick, started again
daemon_log_to_lab_out
log() { sed 's/^/   log | /' "$LAB_OUT/vfat-smartd.log" | tail -n "${1:-5}"; }
logn() { wc -l < "$LAB_OUT/vfat-smartd.log" 2> /dev/null || echo 0; }
since() { sed -n "$(($1 + 1)),\$p" "$LAB_OUT/vfat-smartd.log"; }
check "vfat-smartd is D-Bus activated" wait_until 30 in_list ""
devcap=$(gdbus call --system -d $D -o /org/vfatsmart/VfatSmart1 -m org.freedesktop.DBus.Properties.Get $D.Manager HasDeviceCap)
[[ $devcap == *true* ]] && devcap=1 || devcap=0
d=$(lab_hotplug) || { fail hotplug; finish; }
part=${d}1 b=$(bdi_of "$d")
path=/org/vfatsmart/VfatSmart1/devices/${b/:/_} rec=$S/${b/:/-}.state
wait_until 20 in_list "$path"
lab_as_user udisksctl mount -b "$part" > /dev/null 2>&1
mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)
wait_until 20 bash -c "[[ \"\$(val $path MountPoints)\" == *'$mnt'* ]]"
grep -E '^(\[|path=|original=|restore-)' "$rec" > "$W/rec0" 2> /dev/null
head -c 64M /dev/urandom > "$W/d64"
dpid=$(pgrep -xo vfat-smartd)
( lab_as_user cp "$W/d64" "$mnt/copy"; echo $? > "$W/cp.rc" ) &
cpid=$!
sleep 2
kill -0 $cpid 2> /dev/null && during=yes || during=no
kill -9 "$dpid"
wait_until 10 bash -c "! kill -0 $dpid 2> /dev/null"
back=no; wait_until 30 in_list "$path" && back=yes
dpid2=$(pgrep -xo vfat-smartd)
wait $cpid; cprc=$(cat "$W/cp.rc")
mp_back=no; wait_until 20 bash -c "[[ \"\$(val $path MountPoints)\" == *'$mnt'* ]]" && mp_back=yes
by=$(val "$path" MountedBy)
rec_ok=no; [ -s "$W/rec0" ] && grep -E '^(\[|path=|original=|restore-)' "$rec" 2> /dev/null | cmp -s - "$W/rec0" && rec_ok=yes
sync
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1 || { sleep 3; umount "$part"; }
lab_as_user udisksctl mount -b "$part" > /dev/null 2>&1
mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)
same=no; cmp -s "$W/d64" "$mnt/copy" && same=yes
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1 || { sleep 3; umount "$part"; }
echo "   killed pid $dpid (copy running: $during), activated again: pid ${dpid2:-none}"
log 4
check "daemon kill -9 mid-copy: the copy went through ($cprc) and compares equal after umount and a new mount" [ "$cprc" = 0 -a $same = yes ]
check "... the record intact, the object back (activation), MountPoints and MountedBy ($by) followed again" \
  [ $rec_ok = yes -a $back = yes -a $mp_back = yes -a "$by" = 1000 ]
row "vfat-smartd kill -9 during a copy, D-Bus activated again" "record's originals: $( [ $rec_ok = yes ] && echo "intact" || echo CHANGED)" "cp $cprc, daemon 137 then activated ($back)" "copy equal after umount: $same; object back: $back; MountPoints back: $mp_back; MountedBy $by"

# --- 10. the agent killed with -9: the daemon goes on; the user's options go at unmount
cat > /etc/polkit-1/rules.d/11-vsm-lab-tune-own.rules << 'RULE'
polkit.addRule(function(action, subject) {
    if (action.id == "org.vfatsmart.tune-own-device" && subject.user == "labuser")
        return polkit.Result.YES;
});
RULE
sleep 2
A=$(mktemp -d); chown labuser "$A"
cat > "$A/session.sh" << 'EOF'
A=$1
cd "$A" || exit 1
/usr/bin/python3 -m dbusmock --template notification_daemon > /dev/null 2>&1 &
gsettings set org.vfatsmart max-dirty-seconds 1.0
G_MESSAGES_DEBUG=vfat-smart vfat-smart agent > "$A/agent.log" 2>&1 &
echo $! > "$A/agent.pid"
wait $!
echo $? > "$A/agent.rc"
while [ ! -e "$A/stop" ]; do sleep 0.5; done
kill %1 2> /dev/null
wait
EOF
lab_as_user dbus-run-session -- bash "$A/session.sh" "$A" &
spid=$!
wait_until 30 bash -c "[ -s $A/agent.pid ] && kill -0 \$(cat $A/agent.pid)"
opts=$S/${b/:/-}.options
mon=no; command -v dbus-monitor > /dev/null && mon=yes
[ $mon = no ] || { dbus-monitor --system "type='signal',path='$path',member='PropertiesChanged'" > "$A/monitor.log" 2>&1 & echo $! > "$A/monitor.pid"; }
sleep 0.5
n0=$(logn)
lab_as_user udisksctl mount -b "$part" > /dev/null 2>&1
mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)
# the daemon took them: its log says so and keeps them in the .options file; where
# the kernel has the per-device cap, the Policy shows the user's key in force too (on
# 6.1 the drive keeps flush: the user's max-dirty-seconds has nothing to set)
sent=no; wait_until 30 bash -c "[ -e $opts ] && tail -n +$((n0 + 1)) $LAB_OUT/vfat-smartd.log | grep -q 'options of uid 1000'" &&
  { [ $devcap = 0 ] || wait_until 10 bash -c "gdbus call --system -d $D -o $path -m org.freedesktop.DBus.Properties.Get $D.Device Policy | grep -q \"'user'\""; } && sent=yes
echo "   mounted at $mnt; the daemon says MountedBy $(val "$path" MountedBy), MountPoints $(val "$path" MountPoints)"
if [ $sent = no ]; then
  sed 's/^/   agent (options not seen) | /' "$A/agent.log" | tail -n 30
  echo "   ListDevices now: $(gdbus call --system -d $D -o /org/vfatsmart/VfatSmart1 -m $D.Manager.ListDevices 2>&1)"
  echo "   Policy now: $(gdbus call --system -d $D -o $path -m org.freedesktop.DBus.Properties.Get $D.Device Policy 2>&1 | head -c 600)"
  echo "   $opts: $(ls -l "$opts" 2>&1)"
  lab_as_user env DBUS_SESSION_BUS_ADDRESS=none gsettings get org.vfatsmart allow-user-tuning 2>&1 | sed 's/^/   allow-user-tuning: /'
  log 15
  [ $mon = no ] || grep -E 'MountPoints|MountedBy|^signal|string "/|uint32' "$A/monitor.log" | tail -n 40 | sed 's/^/   PropertiesChanged | /'
fi
[ $mon = no ] || kill "$(cat "$A/monitor.pid")" 2> /dev/null
dpid=$(pgrep -xo vfat-smartd)
kill -9 "$(cat "$A/agent.pid")"
wait_until 10 bash -c "[ -s $A/agent.rc ]"
arc=$(cat "$A/agent.rc" 2> /dev/null)
sleep 2
head -c 16M /dev/urandom > "$W/d16"
lab_as_user cp "$W/d16" "$mnt/copy16"; cprc=$?
alive=no; kill -0 "$dpid" 2> /dev/null && [ "$(pgrep -xo vfat-smartd)" = "$dpid" ] && alive=yes
kept=no; [ -e "$opts" ] && kept=yes
working=no; in_list "$path" && [[ "$(val "$path" MountPoints)" == *"$mnt"* ]] && working=yes
lab_as_user udisksctl unmount -b "$part" > /dev/null 2>&1 || { sleep 3; umount "$part"; }
dropped=no
wait_until 20 bash -c "[ ! -e $opts ] && ! gdbus call --system -d $D -o $path -m org.freedesktop.DBus.Properties.Get $D.Device Policy | grep -q \"'user'\"" && dropped=yes
touch "$A/stop"
wait_until 15 bash -c "! kill -0 $spid 2> /dev/null" || kill $spid 2> /dev/null
wait $spid 2> /dev/null
grep -v -- '-DEBUG: ' "$A/agent.log" | sed 's/^/   agent | /' | tail -n 3
echo "   the agent's options reached the daemon: $sent; the agent exited $arc; daemon pid $dpid alive: $alive"
check "agent kill -9: the daemon goes on (same pid, object, MountPoints; a copy $cprc), the options kept while mounted" \
  [ $sent = yes -a $alive = yes -a $working = yes -a "$cprc" = 0 -a $kept = yes ]
check "... the user's options dropped at unmount (the .options file and Policy's user rows gone)" [ $dropped = yes ]
row "vfat-smart agent kill -9 (labuser's session)" "user options after unmount: $( [ $dropped = yes ] && echo none || echo KEPT)" "agent ${arc:-?}, copy $cprc" "options sent: $sent; daemon alive: $alive; kept while mounted: $kept"

# --- 11. the stick pulled during the daemon's metadata commit (the settle after a writer)
if [ $devcap = 1 ]; then
  lab_as_user udisksctl mount -b "$part" > /dev/null 2>&1
  mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)
  wait_until 20 bash -c "[[ \"\$(val $path MountPoints)\" == *'$mnt'* ]]"
  mkdir -p "$W/small"; head -c 32000K /dev/urandom | split -b 64K -a 4 - "$W/small/f"   # 500 files
  l0=$(logn); dpid=$(pgrep -xo vfat-smartd)
  lab_as_user cp -r "$W/small" "$mnt/small"; cprc=$?
  # pull as soon as the settle's line appears
  seen=no; wait_until 60 bash -c "sed -n '$((l0 + 1)),\$p' '$LAB_OUT/vfat-smartd.log' | grep -q 'the writer stopped: one sync'" && seen=yes
  pacing=$(val "$path" Pacing)
  t0=$(date +%s.%N)
  lab_unplug
  tpull=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  umount -l "$mnt" 2> /dev/null
  gone=no; wait_until 20 bash -c "! list | grep -q '$path'" && gone=yes
  for _ in $(seq 50); do [ "$(states)" = 0 ] && break; sleep 0.2; done
  n=$(states)
  alive=no; kill -0 "$dpid" 2> /dev/null && alive=yes
  since "$l0" | grep -E 'writer stopped|metadata commit|pulled|gone|error|failed' | sed 's/^/   log | /' | tail -n 6
  vfat-smart status > /dev/null 2>&1; strc=$?
  check "pull during the metadata commit (log line seen: $seen): the daemon alive, the object and the record gone, status $strc" \
    [ $seen = yes -a $alive = yes -a $gone = yes -a "$n" = 0 -a $strc = 0 ]
  row "stick pulled during vfat-smartd's metadata commit" "$n records" "cp $cprc, status $strc" "pulled ${tpull}s after the settle's log line (Pacing then: $pacing); daemon alive: $alive; kernel oopses: $(( $(oops) - oops0 ))"
else
  row "stick pulled during vfat-smartd's metadata commit" "-" "-" "$LAB_KERNEL has no per-device cap: nothing is paced, there is no metadata commit to pull during"
  lab_unplug
fi

# --- 12. /run and /var/lib/vfat-smart full while the daemon saves a drive's history
d=$(lab_hotplug) || { fail hotplug; finish; }
part=${d}1 b=$(bdi_of "$d")
path=/org/vfatsmart/VfatSmart1/devices/${b/:/_}
wait_until 30 in_list "$path"
lab_as_user udisksctl mount -b "$part" > /dev/null 2>&1
mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)
wait_until 20 bash -c "[[ \"\$(val $path MountPoints)\" == *'$mnt'* ]]"
lab_as_user cp "$W/d16" "$mnt/h16"; sync
H=/var/lib/vfat-smart/drives.history
had=no; [ -s $H ] && had=yes && cp -p $H "$W/history.old"
mount -t tmpfs -o size=64k,mode=0755 tmpfs /var/lib/vfat-smart
[ $had = yes ] && cp -p "$W/history.old" $H
head -c 1M /dev/zero > /var/lib/vfat-smart/.filler 2> /dev/null
run_size=$(df -k --output=size /run | tail -n 1 | tr -d ' ')
run_used=$(df -k --output=used /run | tail -n 1 | tr -d ' ')
mount -o remount,size=$((run_used + 64))k /run
head -c 8M /dev/zero > /run/.vsm-filler 2> /dev/null
echo "   /run: $(df -h --output=size,avail /run | tail -n 1); /var/lib/vfat-smart: $(df -h --output=size,avail /var/lib/vfat-smart | tail -n 1)"
l0=$(logn); dpid=$(pgrep -xo vfat-smartd)
lab_as_user udisksctl unmount -b "$part" > /dev/null 2> "$W/umount.err"; urc=$?
[ $urc = 0 ] || { echo "   udisksctl unmount: $(head -n 1 "$W/umount.err"); umount by hand"; umount "$part"; }
said=no; wait_until 20 bash -c "sed -n '$((l0 + 1)),\$p' '$LAB_OUT/vfat-smartd.log' | grep -q 'history not kept'" && said=yes
sleep 2
alive=no; kill -0 "$dpid" 2> /dev/null && alive=yes
kept=no
if [ $had = yes ]; then cmp -s "$W/history.old" $H && kept=yes; else [ ! -s $H ] && kept=yes; fi
ls -a /var/lib/vfat-smart | grep -v '^\.*$' | grep -v '^drives.history$' | grep -v '^.filler$' | sed 's/^/   left in \/var\/lib\/vfat-smart: /'
rm -f /run/.vsm-filler /var/lib/vfat-smart/.filler
mount -o remount,size=${run_size}k /run
umount /var/lib/vfat-smart
since "$l0" | grep -iE 'history|space|error|warn' | sed 's/^/   log | /' | tail -n 4
msg=$(since "$l0" | grep -m1 'history not kept' | sed 's/.*history not kept: //' | head -c 100)
check "full /run and /var/lib: the daemon alive ($alive), the old history file kept (existed: $had), its log says so" \
  [ $alive = yes -a $kept = yes -a $said = yes ]
row "/run and /var/lib/vfat-smart full while vfat-smartd saves a drive's history" "history file: $( [ $kept = yes ] && echo "as before" || echo CHANGED)" "udisksctl unmount $urc" "daemon alive: $alive; log: ${msg:-(nothing)}"
lab_unplug

# --- 13. the system bus restarted under the daemon, a managed stick plugged
d=$(lab_hotplug) || { fail hotplug; finish; }
b=$(bdi_of "$d")
path=/org/vfatsmart/VfatSmart1/devices/${b/:/_}
wait_until 30 in_list "$path"
changed=$(knobs_of "$b")
dpid=$(pgrep -xo vfat-smartd) l0=$(logn)
busp=$(cat /run/dbus/pid)
kill -9 "$busp"
exited=no; wait_until 15 bash -c "! kill -0 $dpid 2> /dev/null" && exited=yes
rm -f /run/dbus/pid /run/dbus/system_bus_socket
dbus-daemon --system --fork; brc=$?
since "$l0" | sed 's/^/   log | /' | tail -n 4
# udisksd and polkitd went with the bus; they are activated on demand (their service files)
records=$(states)
vfat-smart status > /dev/null 2>&1; strc=$?
back=no; wait_until 30 in_list "$path" && back=yes
vfat-smart restore --all > "$W/restore" 2>&1; rrc=$?
after=$(knobs_of "$b")
echo "   knobs while managed: $changed; after restore --all: $after (a stick's as the kernel sets them: $orig0)"
check "system bus restarted: vfat-smartd exited ($exited), activated again ($back), the record kept ($records), restore --all $rrc puts the knobs back" \
  [ $back = yes -a "$records" -ge 1 -a $strc = 0 -a $rrc = 0 -a "$after" = "$orig0" -a "$(states)" = 0 ]
row "system bus restarted (dbus-daemon kill -9, started again)" "knobs after restore --all: $( [ "$after" = "$orig0" ] && echo none || echo "$after")" "status $strc, restore --all $rrc, dbus-daemon $brc" "vfat-smartd exited with the bus: $exited; $records records kept; activated again: $back"
lab_unplug
finish

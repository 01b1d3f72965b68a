# guest side: vfat-smart agent (issue 14). Run with --stick-profile cheap-stick (the
# hotplug stick on NBD at 20 MB/s). labuser runs the agent in a session bus of its own
# (dbus-run-session) with dbusmock's notification daemon on it (its log is the test
# listener), sets max-dirty-seconds to 4 with gsettings, mounts the stick with udisksctl:
# the cap is twice the system default's (both are the first cap, nothing is measured
# yet, and a halved one would be under the 8 MiB minimum); a copy drains and the
# notification comes after.
# On a kernel without per-device caps (6.1), the admin (root's dconf) turns on
# allow-global-knobs: a mounted stick changes vm.dirty_bytes (to the admin's cap, not
# the user's), unplugging restores it, and a value root changed in between is left
# alone and reported. Ends with "KERNEL: N passed, N failed".
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"

W=$(mktemp -d)
chmod 755 "$W"
vm() { cat /proc/sys/vm/dirty_bytes; }

lab_polkit_allow_user
daemon_log_to_lab_out
# the guest has no logind: labuser's active-session grant of tune-own-device is given
# by a rule, as for udisks
cat > /etc/polkit-1/rules.d/11-vsm-lab-tune-own.rules << 'RULE'
polkit.addRule(function(action, subject) {
    if (action.id == "org.vfatsmart.tune-own-device" && subject.user == "labuser")
        return polkit.Result.YES;
});
RULE
sleep 2

# labuser's session: a bus, the notification listener, the agent; ends when $W/stop appears
chown labuser "$W"
cat > "$W/session.sh" << 'EOF'
W=$1
# dbusmock looks for its template in the cwd first: root's home is not labuser's to stat
cd "$W" || exit 1
/usr/bin/python3 -m dbusmock --template notification_daemon -l "$W/notify.log" > "$W/dbusmock.log" 2>&1 &
for i in $(seq 50); do gdbus introspect --session -d org.freedesktop.Notifications -o /org/freedesktop/Notifications > /dev/null 2>&1 && break; sleep 0.2; done
gsettings set org.vfatsmart max-dirty-seconds 4.0
gsettings get org.vfatsmart max-dirty-seconds > "$W/user-setting"
G_MESSAGES_DEBUG=vfat-smart vfat-smart agent > "$W/agent.log" 2>&1 &
echo $! > "$W/agent.pid"
while [ ! -e "$W/stop" ]; do sleep 0.5; done
kill %2 %1 2> /dev/null
wait
EOF
lab_as_user dbus-run-session -- bash "$W/session.sh" "$W" &
spid=$!
check "labuser's session runs the agent" wait_until 30 bash -c "[ -s $W/agent.pid ] && kill -0 \$(cat $W/agent.pid)"
check "labuser's gsettings set max-dirty-seconds 4.0 (the dconf backend)" grep -qx 4.0 "$W/user-setting"

d=$(lab_hotplug) || { fail "hotplug"; finish; }
part=${d}1
bdi=$(cat "/sys/block/${d#/dev/}/dev")
path=/org/vfatsmart/VfatSmart1/devices/${bdi/:/_}
echo "   hotplugged $d ($bdi)"
check "the daemon lists the stick" wait_until 30 in_list "$path"
system_cap=$(val "$path" CapBytes)
has_cap=$(gdbus call --system -d $D -o /org/vfatsmart/VfatSmart1 -m org.freedesktop.DBus.Properties.Get $D.Manager HasDeviceCap)
echo "   the system default's cap: $system_cap; HasDeviceCap $has_cap"

lab_as_user udisksctl mount -b "$part" > /dev/null
mnt=$(findmnt -n -o TARGET --source "$part" | head -n 1)
label=$(basename "$mnt")
check "MountedBy is labuser" wait_until 20 bash -c "[ \"\$(val $path MountedBy)\" = 1000 ]"
check "MountPoints follows udisks ($mnt)" wait_until 20 bash -c "[[ \"\$(val $path MountPoints)\" == *'$mnt'* ]]"
echo "   udisks: $(udisksctl info -b "$part" | grep -m1 MountPoints | tr -s ' '); daemon: $(val "$path" MountPoints)"
if [[ $has_cap == *true* ]]; then
  # whole MiB each: within a tenth of twice the default's
  twice=$((system_cap * 2))
  check "the cap is twice the system default's ($((twice / 1048576)) MiB)" \
    wait_until 30 bash -c "c=\$(val $path CapBytes); [ \$c -ge $((twice * 9 / 10)) ] && [ \$c -le $((twice * 11 / 10)) ]"
  echo "   CapBytes now $(val "$path" CapBytes); max_bytes $(cat /sys/class/bdi/$bdi/max_bytes)"
  check "status as labuser: max-dirty-seconds 4.0 (user)" bash -c "runuser -u labuser -- vfat-smart status | tee $W/status-user | grep -Eq 'max-dirty-seconds +4.0 \(user\)'"
  sed -n '/Policy/,/user-max/p' "$W/status-user" | sed 's/^/   | /'
fi
sed 's/^/   agent | /' "$W/agent.log"

# a copy: the notification after it drained
head -c 64M /dev/urandom > "$W/data"
lab_as_user cp "$W/data" "$mnt/copy" &
cpid=$!
drained=""; seen=0 t0=$(date +%s) next=0
# at most 180 s; every 15 s a line of what the daemon and the kernel say
while [ $(($(date +%s) - t0)) -lt 180 ]; do
  r=$(val "$path" AtRiskBytes)
  [ "${r:-0}" -gt 0 ] && seen=1
  if [ $seen = 1 ] && [ "${r:-0}" = 0 ] && ! kill -0 $cpid 2> /dev/null; then drained=$(date +%s.%N); break; fi
  if [ $(($(date +%s) - t0)) -ge $next ]; then
    next=$((next + 15))
    echo "   +$(($(date +%s) - t0)) s: AtRiskBytes ${r:-?}, cp $(kill -0 $cpid 2> /dev/null && echo running || echo done), $(grep -E '^Bdi(Dirty|Writeback):' /sys/kernel/debug/bdi/$bdi/stats 2> /dev/null | tr -s ' ' | tr '\n' ' ')MountPoints $(val "$path" MountPoints)"
  fi
  sleep 0.5
done
kill -0 $cpid 2> /dev/null && echo "   the copy still runs after 180 s"
wait $cpid
echo "   data was at risk: $seen; drained at ${drained:-never}"
check "the copy put data at risk, then drained" [ -n "$drained" ]
check "a notification came" wait_until 20 grep -qs "safe to unplug" "$W/notify.log"
[ -e "$W/notify.log" ] || sed 's/^/   dbusmock | /' "$W/dbusmock.log"
sed 's/^/   notify | /' "$W/notify.log" 2> /dev/null
nt=$(grep -s -m1 "safe to unplug" "$W/notify.log" | cut -d' ' -f1)
check "it says \"$label is safe to unplug\"" grep -qs "\"$label is safe to unplug\"" "$W/notify.log"
# the daemon's feed is sampled once a second: the call may precede our sample by that
check "it came after the copy drained (notify $nt, drained $drained)" awk -v n="${nt:-0}" -v d="${drained:-9e9}" 'BEGIN { exit !(n >= d - 1.5) }'
check "the copy reads back" cmp -s "$W/data" "$mnt/copy"
cp "$W/agent.log" "$W/notify.log" "$LAB_OUT/" 2> /dev/null
grep -v ' at risk$' "$W/agent.log" | tail -n 20 | sed 's/^/   agent | /'
grep -c ' at risk$' "$W/agent.log" | sed 's/^/   agent feed lines: /'

if [[ $has_cap != *true* ]]; then
  # Linux < 6.2: the admin's consent (root's dconf), the vm.* knobs while mounted
  check "udisksctl unmount" lab_as_user udisksctl unmount -b "$part"
  lab_unplug
  wait_until 20 bash -c "! list | grep -q '$path'"
  orig=$(vm); orig_ratio=$(cat /proc/sys/vm/dirty_ratio)
  check "root: gsettings set allow-global-knobs true" dbus-run-session -- gsettings set org.vfatsmart allow-global-knobs true
  # a running daemon may not see another process's dconf write: start it afresh
  dpid=$(pgrep -xo vfat-smartd) && kill "$dpid" && wait_until 10 bash -c "! kill -0 $dpid 2> /dev/null"
  check "the daemon is activated again" wait_until 30 bash -c "list > /dev/null"
  for round in restore changed; do
    d=$(lab_hotplug) || { fail "hotplug ($round)"; break; }
    part=${d}1
    bdi=$(cat "/sys/block/${d#/dev/}/dev")
    path=/org/vfatsmart/VfatSmart1/devices/${bdi/:/_}
    check "$round: the daemon lists the stick" wait_until 30 in_list "$path"
    check "$round: unmounted, the vm.* knobs are as before ($orig)" wait_until 20 bash -c "[ \$(cat /proc/sys/vm/dirty_bytes) = $orig ]"
    lab_as_user udisksctl mount -b "$part" > /dev/null
    check "$round: mounted, vm.dirty_bytes is the stick's cap" wait_until 30 bash -c "[ \$(cat /proc/sys/vm/dirty_bytes) != $orig ] && [ \$(cat /proc/sys/vm/dirty_bytes) = \$(val $path CapBytes) ]"
    echo "   vm.dirty_bytes $(vm), vm.dirty_background_bytes $(cat /proc/sys/vm/dirty_background_bytes); CapBytes $(val "$path" CapBytes)"
    # the admin's 2 s of the drive's bandwidth (the plan's: learned on the first mount),
    # not the user's 4 s
    bw=$(sed -n 's/^bandwidth=//p' "/run/vfat-smart/${bdi/:/-}.state")
    echo "   the plan's bandwidth: $bw B/s"
    check "$round: the admin's cap, not the user's double (no user value reaches vm.*)" bash -c "c=\$(cat /proc/sys/vm/dirty_bytes); [ \$c -gt $(( ${bw:-0} * 3 / 2 )) ] && [ \$c -lt $(( ${bw:-0} * 3 )) ]"
    if [ $round = restore ]; then
      # the unmount lets go of them (udisks' change event after it included), the
      # next mount takes them again
      check "restore: udisksctl unmount" lab_as_user udisksctl unmount -b "$part"
      check "restore: unmounted, vm.* are back ($orig) and stay so" \
        bash -c "wait_until 20 bash -c '[ \$(cat /proc/sys/vm/dirty_bytes) = $orig ]' && sleep 5 && [ \$(cat /proc/sys/vm/dirty_bytes) = $orig ]"
      lab_as_user udisksctl mount -b "$part" > /dev/null
      check "restore: mounted again, vm.dirty_bytes is the cap again" wait_until 30 bash -c "[ \$(cat /proc/sys/vm/dirty_bytes) = \$(val $path CapBytes) ]"
    fi
    if [ $round = changed ]; then
      echo 123456789 > /proc/sys/vm/dirty_bytes
      vfat-smart status > "$W/status-changed"
      grep -E 'vm\.dirty' "$W/status-changed" | sed 's/^/   | /'
      check "changed: status reports it changed and left alone" grep -Eq 'vm.dirty_bytes .*CHANGED.*left alone' "$W/status-changed"
    fi
    lab_unplug
    check "$round: unplug removes the object" wait_until 30 bash -c "! list | grep -q '$path'"
    if [ $round = restore ]; then
      check "restore: unplugging restores vm.dirty_bytes ($orig) and the ratio ($orig_ratio)" wait_until 20 bash -c "[ \$(cat /proc/sys/vm/dirty_bytes) = $orig ] && [ \$(cat /proc/sys/vm/dirty_ratio) = $orig_ratio ]"
    else
      check "changed: root's value is left alone after the unplug" [ "$(vm)" = 123456789 ]
      check "changed: nothing of it stays recorded" bash -c "[ ! -e /run/vfat-smart/global.state ]"
    fi
    echo "   after the unplug: vm.dirty_bytes $(vm), dirty_ratio $(cat /proc/sys/vm/dirty_ratio)"
  done
fi

touch "$W/stop"
wait_until 15 bash -c "! kill -0 $spid 2> /dev/null" || { echo "   labuser's session did not end: killed"; kill $spid; }
wait $spid
finish

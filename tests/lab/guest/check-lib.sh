# shared by the guest check scripts: PASS/FAIL counting and the closing line.
# Source it; call finish at the end (prints "KERNEL: N passed, N failed").
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
finish() { echo "$LAB_KERNEL: $passed passed, $failed failed"; exit $((failed > 0)); }

# udisksctl mount of PART as labuser, as a desktop would (hotplug-check.sh,
# package-check.sh); sets mnt and opts; MODE is the drive's flush mode
check_user_mount() {   # PART MODE
  local out rc
  out=$(lab_as_user udisksctl mount -b "$1" 2>&1); rc=$?
  echo "   $out"
  check "udisksctl mount as labuser" [ $rc = 0 ]
  mnt=$(findmnt -n -o TARGET --source "$1" | head -n 1)
  opts=$(findmnt -n -o OPTIONS --source "$1" | head -n 1)
  echo "   mounted at $mnt: $opts"
  check "mounted with uid=1000 from \$UID" grep -q 'uid=1000' <<< "$opts"
  if [ "$2" = dirty-cap ]; then
    check "udisks mounted with vfat-smart's options (no flush)" bash -c "! grep -qw flush <<< '$opts'"
  else
    check "udisks mounted with vfat-smart's options (flush kept on $LAB_KERNEL)" grep -qw flush <<< "$opts"
  fi
}

# vfat-smartd on the system bus (daemon-check.sh, agent-check.sh)
D=org.vfatsmart.VfatSmart1
# a device property's value: gdbus prints (<uint64 123>,) or (<'text'>,)
val() {
  gdbus call --system --timeout 10 -d $D -o "$1" -m org.freedesktop.DBus.Properties.Get "$D.Device" "$2" 2> /dev/null |
    sed -E "s/^\(<//; s/>,\)$//; s/^(uint64|uint32|double|objectpath) //; s/^'(.*)'$/\1/"
}
list() { gdbus call --system --timeout 10 -d $D -o /org/vfatsmart/VfatSmart1 -m "$D.Manager.ListDevices" 2> /dev/null; }
wait_until() {   # SECONDS CMD...: true once CMD is
  local n=$(($1 * 5)); shift
  for ((i = 0; i < n; i++)); do "$@" && return 0; sleep 0.2; done
  return 1
}
# the checks run some conditions in bash -c
export -f val list wait_until
export D
in_list() { list | grep -q "$1"; }
between() { [ "${1:-0}" -ge "$2" ] && [ "${1:-0}" -le "$3" ]; }
# the activated daemon's messages to $LAB_OUT/vfat-smartd.log (dbus-daemon gives it
# no stderr): the service's Exec= through a wrapper that only redirects, then
# dbus-daemon reloads; call before anything activates it
daemon_log_to_lab_out() {
  local svc=/usr/share/dbus-1/system-services/org.vfatsmart.VfatSmart1.service
  printf '#!/bin/sh\nexec /usr/libexec/vfat-smartd "$@" 2>> %s/vfat-smartd.log\n' "$LAB_OUT" > /usr/local/sbin/vfat-smartd-logged
  chmod 755 /usr/local/sbin/vfat-smartd-logged
  sed -i 's|^Exec=.*|Exec=/usr/local/sbin/vfat-smartd-logged|' "$svc"
  dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig > /dev/null
}

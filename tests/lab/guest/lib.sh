# /run/lab/lib.sh - helpers for check scripts in a vfat-smart lab guest (bash).
# guest-run sources this into CHECK.sh through BASH_ENV; other scripts: . /run/lab/lib.sh
#
#   lab_disk SERIAL[:LUN] [WAIT_S]  /dev/sdX (or /dev/vdX) of that disk
#   lab_disks                       "DEVICE SERIAL LUN" for every sd/vd disk
#   lab_serial DEV                  serial of a disk
#   lab_lun DEV                     SCSI LUN of a disk (0 for virtio)
#   lab_kernel                      the series: 6.1, 6.12 or 7.2
#   lab_hotplug                     attach the HOTPLUG1 stick, wait, print /dev/sdX
#   lab_unplug                      surprise-remove it (QEMU device_del), wait until gone
#   lab_hmp 'COMMAND'               a QEMU human-monitor command, its output
#   lab_stick_mark N                in-band marker for the nbd-stick log of DEV (see below)
#   lab_yank                        the hotplug stick (on nbd-stick) takes no more writes
#                                   from now on, as if pulled (then lab_unplug)
#   lab_yank_analyze SRC DST        after a yank and lab_unplug: the host reads the hotplug
#                                   stick's image offline (JSON: intact bytes of host file
#                                   or tree SRC found at DST on the drive, fsck.fat -n)
#   lab_as_user CMD...              run CMD as labuser (uid 1000)
#   lab_polkit_allow_user           polkit rule: labuser may do any udisks2 action
unset BASH_ENV
LAB_CTL=/run/lab/.ctl
: "${LAB_OUT:=/run/lab/out}"

lab_kernel() { uname -r | cut -d. -f1,2; }

lab_serial() {
  local b=/sys/block/${1#/dev/} x
  if [ -r "$b/serial" ]; then cat "$b/serial"; return 0; fi
  x=$(readlink -f "$b/device" 2> /dev/null) || return 1
  while [ -n "$x" ] && [ "$x" != /sys ]; do
    if [ -f "$x/idVendor" ]; then cat "$x/serial" 2> /dev/null; return 0; fi
    x=${x%/*}
  done
  return 1
}

lab_lun() {
  local d
  d=$(readlink -f "/sys/block/${1#/dev/}/device" 2> /dev/null) || return 1
  case ${d##*/} in
    *:*:*:*) echo "${d##*:}" ;;
    *) echo 0 ;;
  esac
}

lab_disks() {
  local b s
  for b in /sys/block/sd* /sys/block/vd*; do
    [ -e "$b" ] || continue
    s=$(lab_serial "${b##*/}" 2> /dev/null) || s=
    printf '/dev/%s %s %s\n' "${b##*/}" "${s:--}" "$(lab_lun "${b##*/}")"
  done
}

lab_disk() {
  local want=${1%%:*} lun= tries=$(( ${2:-0} * 5 )) i b
  case $1 in *:*) lun=${1#*:} ;; esac
  for ((i = 0; i <= tries; i++)); do
    for b in /sys/block/sd* /sys/block/vd*; do
      [ -e "$b" ] || continue
      [ "$(lab_serial "${b##*/}" 2> /dev/null)" = "$want" ] || continue
      [ -z "$lun" ] || [ "$(lab_lun "${b##*/}")" = "$lun" ] || continue
      printf '/dev/%s\n' "${b##*/}"
      return 0
    done
    [ "$i" -lt "$tries" ] && sleep 0.2
  done
  return 1
}

# ask the host (the guest-run controller): VERB [ARGS]; prints the answer; 0 when ok
_lab_request() {
  local id="$(date +%s%N)-$$-$RANDOM" i st
  printf '%s\n' "$*" > "$LAB_CTL/.req-$id" && mv "$LAB_CTL/.req-$id" "$LAB_CTL/req-$id" || {
    echo "lab: cannot write a request to $LAB_CTL (root only)" >&2; return 2; }
  for ((i = 0; i < 1200; i++)); do
    [ -e "$LAB_CTL/ack-$id" ] && break
    sleep 0.1
  done
  [ -e "$LAB_CTL/ack-$id" ] || { echo "lab: no answer from the host to '$*'" >&2; return 2; }
  { read -r st; cat; } < "$LAB_CTL/ack-$id"
  rm -f "$LAB_CTL/ack-$id"
  [ "$st" = ok ]
}

lab_hmp() { _lab_request hmp "$*"; }

lab_yank() { _lab_request yank; }

lab_yank_analyze() {   # SRC(host path) DST(on the drive)
  _lab_request yank-analyze "$(printf '{"src": "%s", "dst": "%s"}' "$1" "$2")"
}

lab_hotplug() {
  local d
  if d=$(lab_disk HOTPLUG1); then echo "lab_hotplug: HOTPLUG1 is already attached as $d" >&2; return 1; fi
  _lab_request hotplug >&2 || { echo "lab_hotplug: the host could not attach HOTPLUG1" >&2; return 1; }
  d=$(lab_disk HOTPLUG1 90) || { echo "lab_hotplug: HOTPLUG1 did not show up within 90 s" >&2; return 1; }
  udevadm settle --timeout=60 > /dev/null 2>&1 || true
  printf '%s\n' "$d"
}

lab_unplug() {
  local d i
  d=$(lab_disk HOTPLUG1) || d=
  _lab_request unplug >&2 || { echo "lab_unplug: the host could not remove HOTPLUG1" >&2; return 1; }
  if [ -n "$d" ]; then
    for ((i = 0; i < 450; i++)); do [ -e "/sys/block/${d#/dev/}" ] || break; sleep 0.2; done
    [ ! -e "/sys/block/${d#/dev/}" ] || { echo "lab_unplug: $d still present after 90 s" >&2; return 1; }
  fi
  udevadm settle --timeout=60 > /dev/null 2>&1 || true
}

# An nbd-stick counts reads of its last MiB as markers: reading 4 KiB block N there makes
# the filter close the current segment of its request log (a summary line "mark N ...").
lab_stick_mark() {   # DEV N
  local dev=/dev/${1#/dev/} n=$2 sz
  sz=$(blockdev --getsize64 "$dev")
  dd if="$dev" of=/dev/null bs=4096 count=1 skip=$(( (sz - 1048576) / 4096 + n )) iflag=direct status=none
}

lab_as_user() { runuser -u labuser -- "$@"; }

lab_polkit_allow_user() {
  mkdir -p /etc/polkit-1/rules.d
  cat > /etc/polkit-1/rules.d/10-vsm-lab-labuser.rules << 'RULE'
// vfat-smart lab: the guest has no logind, so labuser never has an active session;
// grant it the udisks2 actions explicitly.
polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.freedesktop.udisks2.") == 0 && subject.user == "labuser")
        return polkit.Result.YES;
});
RULE
  sleep 2   # polkitd reloads its rules on inotify
}

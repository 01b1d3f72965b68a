# guest-probe-check.sh - guest side: the flush-fix probe (src/core/vsm-probe.c) tells the
# fix by behaviour, without the version marker.
#
# Run from the host with kernel/probe-run --kernel 6.1|6.12, after kernel/build-modules
# --no-marker --variant wait0 --variant wait1 --variant hybrid, --variant control, and
# kernel/build-probe (see kernel/README.md).
# For each fat module (the distribution's, the unpatched out-of-tree control build, and
# the wait0, wait1 and hybrid builds without the marker) it loads the module, checks
# that /sys/module/fat/version carries no vfat-smart marker, runs `test-probe live`
# (loop-mounts a FAT12 image with flush, writes and closes a file while tracing
# writeback events for its own thread) and compares the answer with what the module is.
# Ends with "PROBE: N passed, N failed"; exit 1 on a failure.
set -u
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
KVER=$(uname -r)
KEYS=()
# the checkout, as kernel/probe-run passes it (the host's root is at /run/lab/host)
TOP=${VSM_PROBE_TOP:-/run/lab/host/work/wt-kernel}
MODS=$TOP/kernel/out/$KVER
PROBE=$TOP/kernel/out/probe/test-probe
echo "   kernel $KVER, modules from $MODS, probe $PROBE"
[ -x "$PROBE" ] || { fail "no $PROBE"; echo "PROBE: $passed passed, $failed failed"; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
modprobe loop 2> /dev/null

# A TCG workaround, not part of the probe: each probe enables two writeback tracepoints
# and, through set_event_pid, the sched_switch/wakeup/wakeup_new/waking ones, and removes
# them again. A tracepoint's first two users switch its static key and static call, which
# patches live kernel text on every CPU (text_poke_bp), and under QEMU's TCG that has hung
# 6.1 guests (one vCPU spinning on a lock for minutes, probe-check-6.1-console.txt and the
# 15:13 run of 2026-12-01) and panicked others (int3 in ttwu_do_activate, at
# trace_sched_wakeup). Two instances of the check's own hold those tracepoints for the whole
# check, with tracing off, so the probe only adds and removes further users
# (kernel/tracepoint.c: the N->N+1 and N->N-1 cases for N >= 2 patch nothing).
HOLD=()
for i in 1 2; do
  h=/sys/kernel/tracing/instances/lab-tracepoint-hold-$i
  if mkdir "$h" 2> /dev/null && echo 0 > "$h/tracing_on" && echo $$ > "$h/set_event_pid" &&
    echo 1 > "$h/events/writeback/writeback_single_inode_start/enable" &&
    echo 1 > "$h/events/writeback/writeback_write_inode_start/enable"; then
    HOLD+=("$h")
  else
    echo "   could not hold the tracepoints in $h (the probes then patch kernel text)"
  fi
done
echo "   tracepoints held by ${#HOLD[@]} instances of this check (TCG workaround)"
release_hold() {
  for h in "${HOLD[@]}"; do
    echo 0 > "$h/events/enable"
    echo > "$h/set_event_pid"
    rmdir "$h"
  done
}

unload_fat() {
  for m in vfat msdos fat; do
    if grep -q "^$m " /proc/modules; then rmmod $m || return 1; fi
  done
}
load() {   # stock | BUILD-DIR-NAME
  unload_fat || return 1
  if [ "$1" = stock ]; then
    modprobe vfat
  else
    insmod "$MODS/$1/fat.ko" && insmod "$MODS/$1/vfat.ko"
  fi
}

# NAME WANT-FIX WANT-VARIANT
one() {
  local name=$1 fix=$2 var=$3 out ver
  if ! load "$name"; then fail "$name: load"; return; fi
  ver=$(cat /sys/module/fat/version 2> /dev/null || echo none)
  case $ver in
    *vfat-smart-flushfix*) fail "$name: /sys/module/fat/version has the marker ($ver)" ;;
    *) pass "$name: no marker in /sys/module/fat/version ($ver)" ;;
  esac
  out=$("$PROBE" live 2>&1)
  echo "   $name: $out"
  KEYS+=("$(sed -n 's/.* srcversion=\(.*\) evidence=.*/\1/p' <<< "$out")")
  if grep -q "fix=$fix variant=$var " <<< "$out"; then
    pass "$name: probe says fix=$fix variant=$var"
  else
    fail "$name: probe should say fix=$fix variant=$var"
  fi
  # twice, the same (the probe cleans up after itself)
  out=$("$PROBE" live 2>&1)
  grep -q "fix=$fix variant=$var " <<< "$out" && pass "$name: again the same" || fail "$name: second run: $out"
}

one stock absent unknown
one control absent unknown
one wait0-nomarker present wait0
one wait1-nomarker present wait1
# the hybrid does wait=0 on an idle inode: the probe sees wait0
one hybrid-nomarker present wait0
# the cache key (the fat module's identity) differs between the five modules
n_keys=$(printf '%s\n' "${KEYS[@]}" | sort -u | grep -c .)
[ "$n_keys" = 5 ] && pass "five modules, five cache keys" || fail "cache keys not distinct: ${KEYS[*]}"
load stock
left=$(ls /run/vfat-smart 2> /dev/null | grep -c '^probe-' || true)
[ "$left" = 0 ] && pass "no probe directories left in /run/vfat-smart" || fail "$left probe directories left"
grep -q ' /run/vfat-smart/probe-' /proc/mounts && fail "a probe mount is left" || pass "no probe mount left"
ls /sys/kernel/tracing/instances | grep -q vfat-smart-probe && fail "a tracefs instance is left" || pass "no tracefs instance left"
release_hold
echo "PROBE: $passed passed, $failed failed"
[ "$failed" = 0 ]

# guest side of tests/lab/smoke (runs in a guest-run guest with vfat-smart in the destdir):
# classify every emulated disk, then plan/apply/status/restore on the SuperSpeed stick.
# Ends with "N passed, N failed"; exit status 1 on any failure.
set -u
. "${LAB_SCRIPT_DIR:?the driver sets LAB_SCRIPT_DIR}/check-lib.sh"
jget() {   # FILE PATH.TO.MEMBER -> value (JSON for objects/lists, text otherwise)
  python3 - "$@" << 'PY'
import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[int(k)] if isinstance(v, list) else v.get(k) if isinstance(v, dict) else None
print(json.dumps(v) if isinstance(v, (dict, list)) or v is None else v)
PY
}
fs_node() {   # disk -> its first partition, or the disk itself (superfloppy)
  if [ -b "${1}1" ]; then echo "${1}1"; else echo "$1"; fi
}

command -v vfat-smart > /dev/null || { fail "vfat-smart is not installed in the guest"; finish; }
# the project's udev rule manages cold-plugged sticks already: start from the kernel's knobs
vfat-smart restore --all > /dev/null
echo "== $(uname -r); $(vfat-smart --version 2>&1 | head -n 1)"
W=$(mktemp -d)

# SERIAL[:LUN]  expected transport  accepted classes (|-separated)
while read -r serial transport classes why; do
  if ! d=$(lab_disk "$serial" 10); then fail "no disk $serial"; continue; fi
  node=$(fs_node "$d")
  if ! vfat-smart classify --json "$node" > "$W/c.json" 2> "$W/c.err"; then
    fail "classify $serial ($node): $(head -n 1 "$W/c.err")"; continue
  fi
  t=$(jget "$W/c.json" transport) c=$(jget "$W/c.json" class) conf=$(jget "$W/c.json" confidence)
  echo "   $serial $node: transport=$t class=$c confidence=$conf"
  if [ "$t" = "$transport" ]; then pass "$serial transport $t"; else fail "$serial transport $t, expected $transport"; fi
  if [[ "|$classes|" == *"|$c|"* ]]; then pass "$serial class $c"; else fail "$serial class $c, expected $classes ($why)"; fi
done << 'EOF'
STICKSS1 usb-storage usb-stick a removable SuperSpeed usb-storage stick
STICKHS1 usb-storage usb-stick a removable high-speed usb-storage stick
UASSSD1 uas usb-ssd UAS, non-rotational, not removable
UASHDD1 uas usb-hdd UAS, rotational
BOTENC1 usb-storage usb-stick|usb-hdd|unknown a small non-removable Bulk-Only disk: the lab cannot make it look like a hard disk (usb-bot ignores rotation_rate)
CARDRDR1:0 usb-storage card-reader two LUNs on one interface
CARDRDR1:1 usb-storage card-reader two LUNs on one interface
VIRTIO1 virtio internal virtio-blk
EOF

# plan / apply / status / restore: FAT32 on the SuperSpeed stick, then exFAT on the UAS
# disk (its partition is exFAT; exFAT has no flush option, so where the kernel has no
# per-device cap (6.1) the plan is "off", never kernel-flush)
knob_round() {   # SERIAL FSTYPE
  local serial=$1 fs=$2 d node before mode opts after n smode
  d=$(lab_disk "$serial") || { fail "no $serial"; return; }
  node=$(fs_node "$d")
  bdi=/sys/class/bdi/$(cat "/sys/block/${d#/dev/}/dev")
  before=$(knobs)
  echo "   $fs on $serial $node; knobs before: $before"
  if vfat-smart plan --json "$node" > "$W/plan.json"; then pass "plan $node ($fs)"; else fail "plan $node ($fs)"; fi
  mode=$(jget "$W/plan.json" flush_mode) opts=$(jget "$W/plan.json" mount_options)
  echo "   plan: filesystem=$(jget "$W/plan.json" filesystem) flush_mode=$mode mount_options=$opts"
  [ "$(jget "$W/plan.json" filesystem)" = "$fs" ] && pass "$fs: the plan names filesystem $fs" ||
    fail "$fs: plan filesystem $(jget "$W/plan.json" filesystem)"
  case $LAB_KERNEL/$fs in
    6.1/vfat) [ "$mode" = kernel-flush ] && pass "6.1 keeps flush (no per-device cap)" || fail "6.1 plan $mode, expected kernel-flush" ;;
    6.1/exfat) [ "$mode" = off ] && pass "6.1 exfat: off (no flush option, no per-device cap), not kernel-flush" ||
      fail "6.1 exfat plan $mode, expected off" ;;
    *) [ "$mode" = dirty-cap ] && pass "$LAB_KERNEL $fs plans dirty-cap" || fail "$LAB_KERNEL $fs plan $mode, expected dirty-cap" ;;
  esac
  if vfat-smart apply "$node" > "$W/apply.out" 2>&1; then pass "apply $node ($fs)"; else fail "apply $node ($fs): $(tail -n 1 "$W/apply.out")"; fi
  echo "   knobs applied: $(knobs)"
  if [ "$mode" = dirty-cap ]; then
    [ "$(cat "$bdi/strict_limit")" = 1 ] && pass "$fs: strict_limit=1 after apply" || fail "$fs: strict_limit $(cat "$bdi/strict_limit") after apply"
    [ "$(cat "$bdi/max_bytes")" -gt 0 ] && [ "$(cat "$bdi/max_ratio")" -lt 100 ] &&
      pass "$fs: max_bytes capped ($(cat "$bdi/max_bytes"))" || fail "$fs: max_bytes not capped: $(knobs)"
  fi
  if [ "$fs" = exfat ]; then
    if grep -qw flush <<< "${opts//,/ }"; then fail "exfat: the plan's options have flush: $opts"; else pass "exfat: no flush in the plan's options"; fi
  fi
  mkdir -p /mnt/smoke
  if mount -t "$fs" -o "$opts" "$node" /mnt/smoke; then
    pass "mount -t $fs -o $opts"
    dd if=/dev/zero of=/mnt/smoke/smoke.bin bs=1M count=8 status=none && sync
    if vfat-smart status --json "$node" > "$W/status.json" 2> "$W/status.err"; then
      n=$(jget "$W/status.json" devices | python3 -c 'import json,sys; print(len(json.load(sys.stdin) or []))')
      [ "$n" -ge 1 ] && pass "$fs: status lists the managed disk" || fail "$fs: status lists $n devices"
      smode=$(python3 -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1]))["devices"] if x.get("disk") == sys.argv[2]]; print(e[0]["flush_mode"] if e else "(no entry for " + sys.argv[2] + ")")' "$W/status.json" "$d")
      echo "   status --json: flush_mode=$smode"
      [ "$smode" = "$mode" ] && pass "$fs: status --json says the plan's flush mode ($smode)" ||
        fail "$fs: status --json flush_mode $smode, the plan $mode"
    else
      fail "$fs: status: $(head -n 1 "$W/status.err")"
    fi
    vfat-smart status "$node" | sed 's/^/   | /'
    umount /mnt/smoke
  else
    fail "mount -t $fs -o $opts $node"
  fi
  if vfat-smart restore "$node" > "$W/restore.out" 2>&1; then pass "restore $node ($fs)"; else fail "restore ($fs): $(tail -n 1 "$W/restore.out")"; fi
  after=$(knobs)
  echo "   knobs restored: $after"
  # max_bytes reads back relative to the current dirty threshold: compare the others exactly
  [ "$(strip "$after")" = "$(strip "$before")" ] && pass "$fs: knobs back as before" || fail "$fs: knobs $after, before $before"
}
knobs() { for k in strict_limit max_ratio max_bytes; do [ -e "$bdi/$k" ] && printf '%s=%s ' "$k" "$(cat "$bdi/$k")"; done; }
strip() { sed 's/max_bytes=[0-9]*//' <<< "$1"; }
knob_round STICKSS1 vfat
knob_round UASHDD1 exfat
finish

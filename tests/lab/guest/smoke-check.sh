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

# plan / apply / status / restore on the SuperSpeed stick
d=$(lab_disk STICKSS1) || { fail "no STICKSS1"; finish; }
node=$(fs_node "$d")
bdi=/sys/class/bdi/$(cat "/sys/block/${d#/dev/}/dev")
knobs() { for k in strict_limit max_ratio max_bytes; do [ -e "$bdi/$k" ] && printf '%s=%s ' "$k" "$(cat "$bdi/$k")"; done; }
before=$(knobs)
echo "   knobs before: $before"
if vfat-smart plan --json "$node" > "$W/plan.json"; then pass "plan $node"; else fail "plan $node"; fi
mode=$(jget "$W/plan.json" flush_mode) opts=$(jget "$W/plan.json" mount_options)
echo "   plan: flush_mode=$mode mount_options=$opts"
case $LAB_KERNEL in
  6.1) [ "$mode" = kernel-flush ] && pass "6.1 keeps flush (no per-device cap)" || fail "6.1 plan $mode, expected kernel-flush" ;;
  *) [ "$mode" = dirty-cap ] && pass "$LAB_KERNEL plans dirty-cap" || fail "$LAB_KERNEL plan $mode, expected dirty-cap" ;;
esac
if vfat-smart apply "$node" > "$W/apply.out" 2>&1; then pass "apply $node"; else fail "apply $node: $(tail -n 1 "$W/apply.out")"; fi
echo "   knobs applied: $(knobs)"
if [ "$mode" = dirty-cap ]; then
  [ "$(cat "$bdi/strict_limit")" = 1 ] && pass "strict_limit=1 after apply" || fail "strict_limit $(cat "$bdi/strict_limit") after apply"
  [ "$(cat "$bdi/max_bytes")" -gt 0 ] && [ "$(cat "$bdi/max_ratio")" -lt 100 ] &&
    pass "max_bytes capped ($(cat "$bdi/max_bytes"))" || fail "max_bytes not capped: $(knobs)"
fi
mkdir -p /mnt/smoke
if mount -t vfat -o "$opts" "$node" /mnt/smoke; then
  pass "mount -o $opts"
  dd if=/dev/zero of=/mnt/smoke/smoke.bin bs=1M count=8 status=none && sync
  if vfat-smart status --json "$node" > "$W/status.json" 2> "$W/status.err"; then
    n=$(jget "$W/status.json" devices | python3 -c 'import json,sys; print(len(json.load(sys.stdin) or []))')
    [ "$n" -ge 1 ] && pass "status lists the managed stick" || fail "status lists $n devices"
  else
    fail "status: $(head -n 1 "$W/status.err")"
  fi
  vfat-smart status "$node" | sed 's/^/   | /'
  umount /mnt/smoke
else
  fail "mount -o $opts $node"
fi
if vfat-smart restore "$node" > "$W/restore.out" 2>&1; then pass "restore $node"; else fail "restore: $(tail -n 1 "$W/restore.out")"; fi
after=$(knobs)
echo "   knobs restored: $after"
# max_bytes reads back relative to the current dirty threshold: compare the others exactly
strip() { sed 's/max_bytes=[0-9]*//' <<< "$1"; }
[ "$(strip "$after")" = "$(strip "$before")" ] && pass "knobs back as before" || fail "knobs $after, before $before"
finish

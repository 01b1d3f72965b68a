# guest-two-writers.sh - guest side: can a second writer keep close() writing?
#
# With `flush`, close() writes the file through write_inode_now(inode, 0), which holds
# I_SYNC while it writes. Without the patch's bound (fat_writepages() tagging the pages
# dirty at the start), that step keeps finding the pages another task appends to the same
# file and does not return until the other writer stops; the flusher is kept off the
# file all that time. The patch must make close() return while the other writer goes on.
#
# Per module and repetition, on the nbd-stick (FAT32, mounted with flush): writer B
# appends APPEND_MIB MiB of zeros to f with dd (oflag=append) at its own pace; writer A has
# f open for writing and closes it as soon as B has made it FIRST_MIB MiB long, when the
# flusher is not writing yet (dirty_background_bytes 48 MiB is above that, dirty_bytes
# 64 MiB, periodic writeback off), so A's close() gets I_SYNC itself. With the bound,
# close() writes what was dirty when it began and, in its second step, what was dirtied
# meanwhile (at most about dirty_bytes): a few seconds on the cheap stick, while B's
# 512 MiB take about half a minute. It records how long close() took and how long B
# still wrote after close() returned.
#   bounded   close() returned at least MARGIN_S s before B finished
#   ran away  it returned later than that, or after B
# Modules: VSM_TW_MODULES, "NAME:DIR ..." (DIR holds fat.ko and vfat.ko; "stock" alone is
# the kernel's own), default "stock patch:TOP/kernel/out/KVER/hybrid" (TOP: VSM_TW_TOP, the
# checkout as the guest sees it, under /run/lab/host). VSM_TW_BOUNDED names
# the modules that must be bounded (default: all but one called unbounded*).
# Output: one line per run and per module, "TWO-WRITERS: N passed, N failed"; raw lines in
# $LAB_OUT/two-writers.jsonl. Exit 1 when a module that must be bounded ran away.
#
# Run (from a snapshot of the checkout, not a checkout being edited):
#   K=6.12.118+deb12-amd64
#   kernel/build-modules --kver $K --variant hybrid      # the patch, into kernel/out/$K/hybrid
#   # for comparison, the same two steps without the bound (the patch file of e86c8a6):
#   git show e86c8a6:kernel/0001-fat-use-write_inode_now-in-fat_flush_inodes-to-stop-.patch > /tmp/ub.patch
#   kernel/dkms/dkms-prepare --patch /tmp/ub.patch --source /usr/src/linux-source-6.12.tar.xz \
#     --force-source $K /tmp/ub && make -C kernel/out/deps/$K/usr/src/linux-headers-$K M=/tmp/ub modules
#   mkdir -p kernel/out/$K/unbounded && cp /tmp/ub/fat.ko /tmp/ub/vfat.ko kernel/out/$K/unbounded/
#   { echo "VSM_TW_MODULES='stock patch:/run/lab/host$PWD/kernel/out/$K/hybrid" \
#       "unbounded:/run/lab/host$PWD/kernel/out/$K/unbounded'"
#     cat kernel/guest-two-writers.sh; } > /tmp/tw.sh
#   tests/lab/guest-run --kernel 6.12 --devices nbd-stick --stick-profile cheap-stick \
#     --script /tmp/tw.sh --out DIR --timeout 1500
set -u
KVER=$(uname -r)
TOP=${VSM_TW_TOP:-/run/lab/host/work/kernel}
MODULES=${VSM_TW_MODULES:-"stock patch:$TOP/kernel/out/$KVER/hybrid"}
REPS=${VSM_TW_REPS:-2}
FIRST_MIB=${VSM_TW_FIRST_MIB:-16}
APPEND_MIB=${VSM_TW_APPEND_MIB:-512}
MARGIN_S=${VSM_TW_MARGIN_S:-3}
OUT=${LAB_OUT:-/tmp}
passed=0 failed=0
mnt=/mnt/twowriters
mkdir -p $mnt

d=$(lab_disk NBDSTICK1 30) || { echo "no NBDSTICK1"; exit 1; }
part=${d}1
[ -b "$part" ] || part=$d
echo "kernel $KVER, stick $part, modules: $MODULES"

unload_fat() {
  umount $mnt 2> /dev/null
  for m in vfat msdos fat; do
    if grep -q "^$m " /proc/modules; then rmmod $m || return 1; fi
  done
}

must_be_bounded() {   # NAME
  if [ -n "${VSM_TW_BOUNDED:-}" ]; then
    case " $VSM_TW_BOUNDED " in *" $1 "*) return 0 ;; *) return 1 ;; esac
  fi
  case $1 in unbounded*) return 1 ;; *) return 0 ;; esac
}

# writer A: open f for writing before B starts, close it once f is FIRST_MIB MiB long;
# prints the close() time and the size of f when close() returned
cat > /tmp/tw-a.py << 'PY'
import json, os, sys, time
path, first, ready = sys.argv[1], int(sys.argv[2]) << 20, sys.argv[3]
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
open(ready, "w").close()
while os.fstat(fd).st_size < first:
    time.sleep(0.002)
size0 = os.fstat(fd).st_size
t0 = time.monotonic()
os.close(fd)
t1 = time.monotonic()
print(json.dumps({"close_s": round(t1 - t0, 3), "size_at_close": size0,
                  "size_after_close": os.stat(path).st_size, "t_close_end": t1}))
PY

for spec in $MODULES; do
  name=${spec%%:*} dir=
  [ "$spec" = "$name" ] || dir=${spec#*:}
  unload_fat || { echo "FAIL: $name: cannot unload fat"; failed=$((failed + 1)); continue; }
  if [ -n "$dir" ]; then
    if ! insmod "$dir/fat.ko" || ! insmod "$dir/vfat.ko"; then
      echo "FAIL: $name: cannot load $dir"; failed=$((failed + 1)); continue
    fi
  else
    modprobe vfat
  fi
  echo "== $name: fat $(cat /sys/module/fat/version 2> /dev/null || echo "(no version: the kernel's own, or a build without the marker)")"
  ran_away=0
  for rep in $(seq "$REPS"); do
    mkfs.vfat -F 32 -s 64 -n TWOWRITE "$part" > /dev/null
    sync; echo 3 > /proc/sys/vm/drop_caches
    echo 0 > /proc/sys/vm/dirty_writeback_centisecs
    echo $((64 << 20)) > /proc/sys/vm/dirty_bytes
    echo $((48 << 20)) > /proc/sys/vm/dirty_background_bytes
    mount -t vfat -o flush "$part" $mnt || { echo "FAIL: mount"; failed=$((failed + 1)); continue 2; }
    rm -f /tmp/tw-a.ready
    python3 /tmp/tw-a.py $mnt/f "$FIRST_MIB" /tmp/tw-a.ready > /tmp/tw-a.out &
    apid=$!
    while [ ! -e /tmp/tw-a.ready ]; do sleep 0.05; done
    tb0=$(python3 -c 'import time; print(time.monotonic())')
    dd if=/dev/zero of=$mnt/f bs=1M count="$APPEND_MIB" oflag=append conv=notrunc status=none
    tb1=$(python3 -c 'import time; print(time.monotonic())')
    wait $apid
    tu0=$(python3 -c 'import time; print(time.monotonic())')
    umount $mnt
    tu1=$(python3 -c 'import time; print(time.monotonic())')
    echo 500 > /proc/sys/vm/dirty_writeback_centisecs
    line=$(python3 - /tmp/tw-a.out "$name" "$rep" "$tb0" "$tb1" "$tu0" "$tu1" "$MARGIN_S" << 'PY'
import json, sys
a = json.load(open(sys.argv[1]))
name, rep, tb0, tb1, tu0, tu1, margin = sys.argv[2], int(sys.argv[3]), *map(float, sys.argv[4:])
after = tb1 - a["t_close_end"]          # how long B still wrote after close() returned
r = {"module": name, "rep": rep, "close_s": a["close_s"], "b_s": round(tb1 - tb0, 3),
     "b_after_close_s": round(after, 3), "mib_at_close": round(a["size_at_close"] / 2**20, 1),
     "mib_after_close": round(a["size_after_close"] / 2**20, 1), "umount_s": round(tu1 - tu0, 3),
     "verdict": "bounded" if after >= margin else "ran away"}
print(json.dumps(r))
PY
)
    echo "$line" >> "$OUT/two-writers.jsonl"
    echo "$line" | python3 -c 'import json,sys; r=json.load(sys.stdin)
print("   rep %(rep)d: close() %(close_s).1f s (f %(mib_at_close).0f -> %(mib_after_close).0f MiB), B wrote %(b_s).1f s, %(b_after_close_s).1f s of it after close(); umount %(umount_s).1f s: %(verdict)s" % r)'
    case $line in *'"ran away"'*) ran_away=$((ran_away + 1)) ;; esac
  done
  if must_be_bounded "$name"; then
    if [ $ran_away = 0 ]; then
      echo "PASS: $name: close() returned while the other writer went on, in $REPS of $REPS runs"
      passed=$((passed + 1))
    else
      echo "FAIL: $name: close() ran away with the other writer in $ran_away of $REPS runs"
      failed=$((failed + 1))
    fi
  else
    echo "INFO: $name (not required to be bounded): ran away in $ran_away of $REPS runs"
  fi
done
unload_fat
modprobe vfat
echo "TWO-WRITERS: $passed passed, $failed failed"
exit $((failed > 0))

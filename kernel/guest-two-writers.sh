# guest-two-writers.sh - guest side: can a second writer keep close() writing?
#
# With `flush`, close() writes the file through write_inode_now(inode, 0), which holds
# I_SYNC while it writes. That request (WB_SYNC_NONE, every page) is one forward sweep
# over the file's dirty pages; without the patch's bound (fat_writepages() tagging the
# pages dirty at the start) it also takes the pages another task appends meanwhile, and it
# ends only when it finds no dirty page ahead of it: while the other writer appends faster
# than the drive writes, not before that writer stops. The flusher is kept off the file
# all that time. With the bound, close() writes what was dirty when it began and, in its
# second step (WB_SYNC_ALL, tagged too), what was dirtied before that step started.
#
# Per module and repetition, on the nbd-stick (FAT32, mounted with flush): writer B appends
# APPEND_MIB MiB to f in 1 MiB writes at B_MBPS MB/s (a pace the page cache takes and the
# drive does not: the cheap-stick model writes at most 20 MB/s; 0 = as fast as the kernel
# lets it, dd); writer A has f open for writing and closes it as soon as B has made it
# FIRST_MIB MiB long, while the flusher is not writing (dirty_background_bytes BG_MIB and
# dirty_bytes DIRTY_MIB are above what the run dirties, periodic writeback off), so A's
# close() takes I_SYNC itself. It records how long close() took and how long B still
# wrote after close() returned (to B's last write(), before B's own close(), which with
# flush writes and may wait for A's writeback).
#   bounded   close() returned at least MARGIN_S s before B's last write
#   ran away  it returned later than that, or after B's last write
# B on its schedule appends 384 MiB in 12.8 s; the drive writes at most 20 MB/s, so a
# close() without the bound cannot catch up with B and returns only after B's last write,
# and the run stays below the background threshold (nothing else writes the file back).
# Env (defaults): VSM_TW_REPS 2, VSM_TW_FIRST_MIB 16, VSM_TW_APPEND_MIB 384, VSM_TW_B_MBPS
# 30, VSM_TW_DIRTY_MIB 480, VSM_TW_BG_MIB 400, VSM_TW_MARGIN_S 3. (VSM_TW_B_MBPS=0
# VSM_TW_DIRTY_MIB=64 VSM_TW_BG_MIB=48 is the first form of this test: B throttled by
# balance_dirty_pages to about the drive's pace, which the sweep can catch up with.)
# Modules: VSM_TW_MODULES, "NAME:DIR ..." (DIR holds fat.ko and vfat.ko; "stock" alone is
# the kernel's own), default "stock patch:TOP/kernel/out/KVER/hybrid" (TOP: VSM_TW_TOP, the
# checkout as the guest sees it, under /run/lab/host). VSM_TW_BOUNDED names
# the modules that must be bounded (default: all but one called unbounded*).
# Output: one line per run and per module, "TWO-WRITERS: N passed, N failed"; raw lines in
# $LAB_OUT/two-writers.jsonl. Exit 1 when a module that must be bounded ran away.
#
# Run: kernel/boot-check-run --kernel SERIES --parts two-writers (it passes the modules:
# stock, the patch, and kernel/out/KVER/unbounded when built). The unbounded build is the
# same two steps without the bound, the patch file of commit e86c8a6:
#   git show e86c8a6:kernel/0001-fat-use-write_inode_now-in-fat_flush_inodes-to-stop-.patch > /tmp/ub.patch
#   bench/build-fat-sid --series 7.2 --patch-as unbounded=/tmp/ub.patch     # sid's 7.2 (or 7.3)
#   # 6.1/6.12: kernel/dkms/dkms-prepare --patch /tmp/ub.patch --source /usr/src/linux-source-6.12.tar.xz \
#   #   --force-source $K /tmp/ub && make -C kernel/out/deps/$K/usr/src/linux-headers-$K M=/tmp/ub modules
#   #   && mkdir -p kernel/out/$K/unbounded && cp /tmp/ub/fat.ko /tmp/ub/vfat.ko kernel/out/$K/unbounded/
# Run it from a snapshot of the checkout, not a checkout being edited.
set -u
KVER=$(uname -r)
TOP=${VSM_TW_TOP:-/run/lab/host/work/kernel}
MODULES=${VSM_TW_MODULES:-"stock patch:$TOP/kernel/out/$KVER/hybrid"}
REPS=${VSM_TW_REPS:-2}
FIRST_MIB=${VSM_TW_FIRST_MIB:-16}
APPEND_MIB=${VSM_TW_APPEND_MIB:-384}
MARGIN_S=${VSM_TW_MARGIN_S:-3}
B_MBPS=${VSM_TW_B_MBPS:-30}
DIRTY_MIB=${VSM_TW_DIRTY_MIB:-480}
BG_MIB=${VSM_TW_BG_MIB:-400}
OUT=${LAB_OUT:-/tmp}
passed=0 failed=0
mnt=/mnt/twowriters
mkdir -p $mnt

d=$(lab_disk NBDSTICK1 30) || { echo "no NBDSTICK1"; exit 1; }
part=${d}1
[ -b "$part" ] || part=$d
echo "kernel $KVER, stick $part, modules: $MODULES; B appends $APPEND_MIB MiB at $B_MBPS MB/s (0: dd), A closes at $FIRST_MIB MiB; dirty_bytes $DIRTY_MIB MiB, background $BG_MIB MiB"

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

# writer B: append MIB MiB at RATE MB/s (MiB/s; 0: as fast as it can), 1 MiB per write(),
# on a fixed schedule: write i starts at i/RATE s, or at once when B is behind it. B writes
# from a buffer whose pages it has written itself (present in its page table). A buffer of
# fresh zero pages (bytes(1 << 20)) made B's first write() block for 17-27 s on 7.2 and
# 7.3 with every build, stock's included: since the write path no longer faults the source
# in before copying, the first copy into each page cache page comes up short, fat_write_end()
# then calls fat_write_failed(), whose fat_truncate_blocks() under flush writes the file
# and waits for it (the stack of the blocked write(): fat_write_end -> fat_flush_inodes ->
# filemap_writeback -> folio_wait_writeback), once per page of that first write(). B then
# appended the rest as fast as the page cache took it, which left the test a thin margin.
# Prints the time of its first and last write(), of its close(), its slowest write(), how
# far it fell behind its schedule, and the time of every write() (to tell how much B had
# written when A's close() returned).
cat > /tmp/tw-b.py << 'PY'
import json, os, sys, time
path, mib, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
buf = b"\xa5" * (1 << 20)      # written here, so its pages are present
t0 = time.monotonic()
slowest = behind = 0.0
tws = []
for i in range(mib):
    if rate > 0:
        d = t0 + i / rate - time.monotonic()
        if d > 0:
            time.sleep(d)
        else:
            behind = max(behind, -d)
    tw = time.monotonic()
    os.write(fd, buf)
    te = time.monotonic()
    slowest = max(slowest, te - tw)
    tws.append(te)
t1 = time.monotonic()
os.close(fd)
t2 = time.monotonic()
print(json.dumps({"t_b_start": t0, "t_b_last_write": t1, "t_b_close_end": t2, "b_slowest_write_s": round(slowest, 3),
                  "b_behind_s": round(behind, 3), "t_writes": tws}))
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
    echo $((DIRTY_MIB << 20)) > /proc/sys/vm/dirty_bytes
    echo $((BG_MIB << 20)) > /proc/sys/vm/dirty_background_bytes
    mount -t vfat -o flush "$part" $mnt || { echo "FAIL: mount"; failed=$((failed + 1)); continue 2; }
    rm -f /tmp/tw-a.ready
    python3 /tmp/tw-a.py $mnt/f "$FIRST_MIB" /tmp/tw-a.ready > /tmp/tw-a.out &
    apid=$!
    while [ ! -e /tmp/tw-a.ready ]; do sleep 0.05; done
    if [ "$B_MBPS" = 0 ]; then
      tb0=$(python3 -c 'import time; print(time.monotonic())')
      dd if=/dev/zero of=$mnt/f bs=1M count="$APPEND_MIB" oflag=append conv=notrunc status=none
      tb1=$(python3 -c 'import time; print(time.monotonic())')
      printf '{"t_b_start": %s, "t_b_last_write": %s, "t_b_close_end": %s, "b_dd": true}\n' "$tb0" "$tb1" "$tb1" > /tmp/tw-b.out
    else
      python3 /tmp/tw-b.py $mnt/f "$APPEND_MIB" "$B_MBPS" > /tmp/tw-b.out
    fi
    wait $apid
    tu0=$(python3 -c 'import time; print(time.monotonic())')
    umount $mnt
    tu1=$(python3 -c 'import time; print(time.monotonic())')
    echo 500 > /proc/sys/vm/dirty_writeback_centisecs
    line=$(python3 - /tmp/tw-a.out /tmp/tw-b.out "$name" "$rep" "$tu0" "$tu1" "$MARGIN_S" "$B_MBPS" "$DIRTY_MIB" "$BG_MIB" "$APPEND_MIB" << 'PY'
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
name, rep = sys.argv[3], int(sys.argv[4])
tu0, tu1, margin, mbps = map(float, sys.argv[5:9])
dirty, bg, append = map(int, sys.argv[9:12])
# how long B still wrote after close() returned: to its last write(), before its own close()
# (dd: to dd's exit, its close() included)
after = b["t_b_last_write"] - a["t_close_end"]
r = {"module": name, "rep": rep, "close_s": a["close_s"], "b_s": round(b["t_b_last_write"] - b["t_b_start"], 3),
     "b_close_s": round(b["t_b_close_end"] - b["t_b_last_write"], 3), "b_after_close_s": round(after, 3),
     "mib_at_close": round(a["size_at_close"] / 2**20, 1),
     "mib_after_close": round(a["size_after_close"] / 2**20, 1), "umount_s": round(tu1 - tu0, 3),
     "b_mbps": mbps, "b_dd": bool(b.get("b_dd")), "append_mib": append, "dirty_mib": dirty, "background_mib": bg,
     "b_pace": "schedule", "b_slowest_write_s": b.get("b_slowest_write_s"),
     "a_close_after_b_start_s": round(a["t_close_end"] - a["close_s"] - b["t_b_start"], 3),
     "b_behind_s": b.get("b_behind_s"), "margin_s": margin,
     "verdict": "bounded" if after >= margin else "ran away"}
# MiB B had appended when close() began and when it returned (from B's write() end times)
tws = b.get("t_writes")
if tws:
    r["b_mib_at_close_start"] = sum(1 for t in tws if t <= a["t_close_end"] - a["close_s"])
    r["b_mib_at_close_end"] = sum(1 for t in tws if t <= a["t_close_end"])
print(json.dumps(r))
PY
)
    echo "$line" >> "$OUT/two-writers.jsonl"
    echo "$line" | python3 -c 'import json,sys; r=json.load(sys.stdin); r["b_slowest_write_s"]=r.get("b_slowest_write_s") or 0; r["b_mib_end"]="%s of %s" % (r.get("b_mib_at_close_end", "?"), r["append_mib"])
print("   rep %(rep)d: close() %(close_s).1f s (f %(mib_at_close).0f -> %(mib_after_close).0f MiB), B wrote %(b_s).1f s (slowest write() %(b_slowest_write_s).2f s), %(b_after_close_s).1f s of it after close() (B had appended %(b_mib_end)s of its MiB then), its own close() %(b_close_s).1f s; umount %(umount_s).1f s: %(verdict)s" % r)'
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
echo 20 > /proc/sys/vm/dirty_ratio                 # zeroes dirty_bytes
echo 10 > /proc/sys/vm/dirty_background_ratio
echo "TWO-WRITERS: $passed passed, $failed failed"
exit $((failed > 0))

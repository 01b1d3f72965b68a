# guest-short-copy.sh - guest side: what a write() whose copy comes up short costs under flush.
#
# fat_write_end() calls fat_write_failed() when fewer bytes were copied than asked for, and
# its fat_truncate_blocks() ends in fat_flush_inodes(): under flush the file is written
# out, and the patch's fat_flush_inode() may wait there (with i_rwsem held). A copy comes
# up short when a source page is not in the writer's page table, e.g. the fresh zero pages
# of a buffer just allocated: the write path faults the source in only after a short copy,
# so that happens once per such page. Per module and repetition, on the nbd-stick (FAT32
# made fresh, mounted with flush, periodic writeback off, nothing else writing): one
# 1 MiB write() from a buffer of fresh zero pages to a new file, then one from a buffer
# the writer has filled, each timed; then close(). Two forms: "default" (the kernel's
# dirty ratios, the file opened O_WRONLY|O_CREAT) and "twowriters" (as guest-two-writers.sh's
# writer B: dirty_bytes 480 MiB, dirty_background_bytes 400 MiB, O_APPEND).
# Env: VSM_SC_MODULES "NAME:DIR ..." (as guest-two-writers.sh; default stock and the
# patch), VSM_SC_REPS (default 2), VSM_SC_FORMS (default "default twowriters"). Raw lines
# in $LAB_OUT/short-copy.jsonl, one per run.
# Measures; it has no verdict (exit 0 unless a module cannot be loaded).
set -u
KVER=$(uname -r)
TOP=${VSM_SC_TOP:-/run/lab/host/work/kernel}
MODULES=${VSM_SC_MODULES:-"stock patch:$TOP/kernel/out/$KVER/hybrid"}
REPS=${VSM_SC_REPS:-2}
FORMS=${VSM_SC_FORMS:-default twowriters}
OUT=${LAB_OUT:-/tmp}
mnt=/mnt/shortcopy
mkdir -p $mnt
d=$(lab_disk NBDSTICK1 30) || { echo "no NBDSTICK1"; exit 1; }
part=${d}1
[ -b "$part" ] || part=$d
rc=0
cat > /tmp/sc.py << 'PY'
import json, mmap, os, sys, time
path, name, rep, form = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if form == "twowriters" else 0), 0o644)
fresh = mmap.mmap(-1, 1 << 20)          # anonymous, not touched: no page present
t0 = time.monotonic(); n1 = os.write(fd, fresh); t1 = time.monotonic()
filled = b"\xa5" * (1 << 20)
t2 = time.monotonic(); n2 = os.write(fd, filled); t3 = time.monotonic()
os.close(fd); t4 = time.monotonic()
print(json.dumps({"module": name, "rep": rep, "form": form, "fresh_write_s": round(t1 - t0, 3), "fresh_written": n1,
                  "filled_write_s": round(t3 - t2, 3), "filled_written": n2, "close_s": round(t4 - t3, 3)}))
PY
for spec in $MODULES; do
  name=${spec%%:*} dir=
  [ "$spec" = "$name" ] || dir=${spec#*:}
  umount $mnt 2> /dev/null
  for m in vfat msdos fat; do grep -q "^$m " /proc/modules && rmmod $m; done
  if [ -n "$dir" ]; then
    insmod "$dir/fat.ko" && insmod "$dir/vfat.ko" || { echo "FAIL: $name: cannot load $dir"; rc=1; continue; }
  else
    modprobe vfat
  fi
  echo "== $name: fat $(cat /sys/module/fat/version 2> /dev/null || echo "(no version)")"
  for rep in $(seq "$REPS"); do
   for form in $FORMS; do
    mkfs.vfat -F 32 -s 64 -n SHORTCPY "$part" > /dev/null
    sync; echo 3 > /proc/sys/vm/drop_caches
    echo 0 > /proc/sys/vm/dirty_writeback_centisecs
    if [ "$form" = twowriters ]; then
      echo $((480 << 20)) > /proc/sys/vm/dirty_bytes
      echo $((400 << 20)) > /proc/sys/vm/dirty_background_bytes
    fi
    mount -t vfat -o flush "$part" $mnt || { echo "FAIL: mount"; rc=1; continue; }
    line=$(python3 /tmp/sc.py $mnt/f "$name" "$rep" "$form")
    umount $mnt
    echo 500 > /proc/sys/vm/dirty_writeback_centisecs
    echo 20 > /proc/sys/vm/dirty_ratio                 # zeroes dirty_bytes
    echo 10 > /proc/sys/vm/dirty_background_ratio
    echo "$line" >> "$OUT/short-copy.jsonl"
    echo "   rep $rep ($form): $line"
   done
  done
done
umount $mnt 2> /dev/null
for m in vfat msdos fat; do grep -q "^$m " /proc/modules && rmmod $m; done
modprobe vfat
exit $rc

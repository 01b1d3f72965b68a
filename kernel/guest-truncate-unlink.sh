# guest-truncate-unlink.sh - guest side: truncate, unlink and a failed write under -o flush.
#
# The patch's other callers of fat_flush_inodes(): fat_truncate_blocks() from truncate
# (i_rwsem and truncate_lock held) and after a failed write (i_rwsem held), where the
# second step may wait for the flusher and for I/O; close() of an unlinked file and msdos
# unlink, where an unlinked inode (i_nlink == 0) must not wait. Each case runs while the
# flusher is busy with the file (dirty_background_bytes 16 MiB, writeback every 1 s), on
# the nbd-stick (cheap-stick profile), per module of VSM_TU_MODULES ("NAME:DIR ...";
# DIR holds fat.ko and vfat.ko, "stock" alone is the kernel's own; msdos.ko is always the
# kernel's, loaded on top of the fat.ko under test). Default: "stock patch:TOP/kernel/out/
# KVER/hybrid" (TOP: VSM_TU_TOP, the checkout as the guest sees it).
#
#   trunc-part    A writes SIZE MiB and, fd still open, ftruncate()s it to a quarter; then
#                 close(). Afterwards (remounted) the size is a quarter and the data is the
#                 source's first quarter.
#   trunc-zero    A writes SIZE MiB and keeps the file open; another process truncates it
#                 to 0 by path (truncate(1)); then A closes. Size 0, the clusters free again.
#   unlink-open   vfat: A writes SIZE MiB and keeps it open; another process unlinks it;
#                 then A closes (the close() of an unlinked inode: no second step).
#   msdos-unlink  msdos: A writes SIZE MiB and keeps it open; another process unlinks it
#                 (msdos_unlink() -> fat_flush_inodes(dir, inode) with i_nlink 0): unlink
#                 must return 0; then A closes.
#   enospc        a 96 MiB FAT16 file system; A writes SIZE MiB into it: the write fails
#                 with ENOSPC (fat_write_failed() -> fat_truncate_blocks()); then close().
# Every case: each call returns what it should within LIMIT_S s, the file system is clean
# afterwards (fsck.fat -n), the kernel logged no hung task, warning or oops; the times of
# the calls are in the raw lines. hung_task_timeout_secs is set to 20, so any task stuck
# that long is logged.
# Output: PASS/FAIL lines, "TRUNCATE-UNLINK: N passed, N failed"; raw lines (one per case,
# module and repetition) in $LAB_OUT/truncate-unlink.jsonl. Exit 1 on a failure.
set -u
KVER=$(uname -r)
TOP=${VSM_TU_TOP:-/run/lab/host/work/kernel}
MODULES=${VSM_TU_MODULES:-"stock patch:$TOP/kernel/out/$KVER/hybrid"}
REPS=${VSM_TU_REPS:-1}
SIZE=${VSM_TU_SIZE_MIB:-128}
LIMIT_S=${VSM_TU_LIMIT_S:-120}
OUT=${LAB_OUT:-/tmp}
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
mnt=/mnt/truncunlink
mkdir -p $mnt

d=$(lab_disk NBDSTICK1 30) || { echo "no NBDSTICK1"; echo "TRUNCATE-UNLINK: 0 passed, 1 failed"; exit 1; }
part=${d}1
[ -b "$part" ] || part=$d
echo "kernel $KVER, stick $part, modules: $MODULES, $SIZE MiB per file, $REPS repetition(s)"
head -c $((SIZE << 20)) /dev/urandom > /tmp/tu-src.bin
echo 20 > /proc/sys/kernel/hung_task_timeout_secs 2> /dev/null ||
  echo "   (no hung_task_timeout_secs: hung tasks are not detected)"

unload_fat() {
  umount $mnt 2> /dev/null
  for m in vfat msdos fat; do
    if grep -q "^$m " /proc/modules; then rmmod $m || return 1; fi
  done
}

# the writer: python3 /tmp/tu-a.py CASE PATH SRC READY GO -> one JSON line
cat > /tmp/tu-a.py << 'PY'
import errno, json, os, sys, time
case, path, src, ready, go = sys.argv[1:6]
r = {"case": case}
data = open(src, "rb").read()
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
t0 = time.monotonic()
try:
    off = 0
    while off < len(data):
        off += os.write(fd, data[off:off + (1 << 20)])
    r["write_err"] = 0
except OSError as e:
    r["write_err"] = e.errno
    r["write_errname"] = errno.errorcode.get(e.errno, str(e.errno))
r["written_mib"] = round(off / 2**20, 2)
r["write_s"] = round(time.monotonic() - t0, 3)
mi = {l.split(":")[0]: int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith(("Dirty:", "Writeback:"))}
r["dirty_mib_before"] = round(mi["Dirty"] / 1024, 1)
r["writeback_mib_before"] = round(mi["Writeback"] / 1024, 1)
if case == "trunc-part":
    t = time.monotonic()
    os.ftruncate(fd, len(data) // 4)
    r["op_s"] = round(time.monotonic() - t, 3)
elif case in ("trunc-zero", "unlink-open", "msdos-unlink"):
    open(ready, "w").close()          # the other process truncates or unlinks now
    while not os.path.exists(go):
        time.sleep(0.005)
t = time.monotonic()
os.close(fd)
r["close_s"] = round(time.monotonic() - t, 3)
print(json.dumps(r))
PY

# the other process's operation, timed: OP PATH -> {"op_s":..., "op_rc":..., "op_err":...}
other_op() {
  python3 - "$1" "$2" << 'PY'
import json, os, sys, time
op, path = sys.argv[1:3]
t = time.monotonic()
rc, err = 0, ""
try:
    if op == "truncate":
        os.truncate(path, 0)
    else:
        os.unlink(path)
except OSError as e:
    rc, err = e.errno, e.strerror
print(json.dumps({"op_s": round(time.monotonic() - t, 3), "op_rc": rc, "op_err": err}))
PY
}

busy_flusher() {
  echo 100 > /proc/sys/vm/dirty_writeback_centisecs
  echo $((400 << 20)) > /proc/sys/vm/dirty_bytes
  echo $((16 << 20)) > /proc/sys/vm/dirty_background_bytes
}
default_vm() {   # setting a ratio zeroes its *_bytes twin (writing 0 there is EINVAL)
  echo 500 > /proc/sys/vm/dirty_writeback_centisecs
  echo 20 > /proc/sys/vm/dirty_ratio
  echo 10 > /proc/sys/vm/dirty_background_ratio
}

# CASE MODULE REP: one case, prints and records its line, PASS/FAIL
run_case() {
  local c=$1 name=$2 rep=$3 fstype=vfat opts=flush f=F.BIN a others='{}' t0 t1 dm fsck_rc
  local ok=1 why=() after
  case $c in
    enospc) mkfs.fat -F 16 -s 4 -n TRUNCUNL "$part" 98304 > /dev/null ;;
    *) mkfs.fat -F 32 -s 64 -n TRUNCUNL "$part" > /dev/null ;;
  esac
  [ "$c" = msdos-unlink ] && fstype=msdos
  sync; echo 3 > /proc/sys/vm/drop_caches
  mount -t $fstype -o $opts "$part" $mnt || { fail "$name $c: mount -t $fstype -o $opts"; return; }
  busy_flusher
  dmesg -C
  rm -f /tmp/tu.ready /tmp/tu.go
  t0=$(date +%s.%N)
  python3 /tmp/tu-a.py "$c" "$mnt/$f" /tmp/tu-src.bin /tmp/tu.ready /tmp/tu.go > /tmp/tu-a.out &
  a=$!
  case $c in
    trunc-zero|unlink-open|msdos-unlink)
      while [ ! -e /tmp/tu.ready ] && kill -0 $a 2> /dev/null; do sleep 0.01; done
      if [ "$c" = trunc-zero ]; then others=$(other_op truncate "$mnt/$f"); else others=$(other_op unlink "$mnt/$f"); fi
      touch /tmp/tu.go ;;
  esac
  # the limit: a case that has not finished by then counts as stuck
  for ((i = 0; i < LIMIT_S * 10; i++)); do kill -0 $a 2> /dev/null || break; sleep 0.1; done
  if kill -0 $a 2> /dev/null; then
    ok=0 why+=("the writer still runs after ${LIMIT_S} s")
    cat /proc/$a/stack 2> /dev/null | sed 's/^/   stack| /'
    wait $a
  fi
  wait $a
  t1=$(date +%s.%N)
  default_vm
  # what the file system holds, remounted
  after=0; [ -e "$mnt/$f" ] && after=1
  local tu0 tu1
  tu0=$(date +%s.%N); umount $mnt; tu1=$(date +%s.%N)
  fsck.fat -n "$part" > /tmp/tu-fsck.out 2>&1; fsck_rc=$?
  local size=-1 same=-1 free_kib=-1
  if mount -t $fstype "$part" $mnt; then
    if [ -e "$mnt/$f" ]; then
      size=$(stat -c %s "$mnt/$f")
      if [ "$c" = trunc-part ]; then
        head -c "$size" /tmp/tu-src.bin | cmp -s - "$mnt/$f" && same=1 || same=0
      fi
    fi
    free_kib=$(df -k --output=avail $mnt | tail -n 1 | tr -d ' ')
    umount $mnt
  fi
  dm=$(dmesg | grep -E 'blocked for more than|WARNING|BUG|Oops|I/O error|FAT-fs.*error' | head -n 5)
  local line
  line=$(python3 - /tmp/tu-a.out "$name" "$rep" "$c" "$t0" "$t1" "$tu0" "$tu1" "$fsck_rc" "$size" "$same" "$free_kib" "$after" "$others" "$dm" << 'PY'
import json, sys
aout, name, rep, case, t0, t1, tu0, tu1, fsck_rc, size, same, free_kib, after, others, dm = sys.argv[1:16]
try:
    r = json.loads(open(aout).read().strip().splitlines()[-1])
except Exception:
    r = {"case": case, "writer": "no result"}
r.update(json.loads(others))
r.update({"module": name, "rep": int(rep), "total_s": round(float(t1) - float(t0), 3),
          "umount_s": round(float(tu1) - float(tu0), 3), "fsck_rc": int(fsck_rc),
          "size_after": int(size), "data_same": int(same), "free_kib_after": int(free_kib),
          "listed_before_umount": int(after), "dmesg": dm})
print(json.dumps(r, sort_keys=True))
PY
)
  echo "$line" >> "$OUT/truncate-unlink.jsonl"
  echo "   $line"
  q() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r.get(sys.argv[2], ""))' "$line" "$1"; }
  [ "$(q fsck_rc)" = 0 ] || { ok=0 why+=("fsck.fat -n exit $(q fsck_rc)"); sed 's/^/   fsck| /' /tmp/tu-fsck.out | head -n 8; }
  [ -z "$dm" ] || { ok=0 why+=("kernel log: $(echo "$dm" | head -n 1)"); }
  [ -n "$(q close_s)" ] || { ok=0 why+=("the writer gave no result"); }
  local quarter=$(( (SIZE << 20) / 4 ))
  case $c in
    trunc-part)
      [ "$(q write_err)" = 0 ] || { ok=0 why+=("write failed: $(q write_errname) $(q write_err)"); }
      [ "$(q size_after)" = "$quarter" ] || { ok=0 why+=("size $(q size_after), want $quarter"); }
      [ "$(q data_same)" = 1 ] || { ok=0 why+=("the remaining data differs from the source"); } ;;
    trunc-zero)
      [ "$(q op_rc)" = 0 ] || { ok=0 why+=("truncate failed: $(q op_err)"); }
      [ "$(q size_after)" = 0 ] || { ok=0 why+=("size $(q size_after), want 0"); } ;;
    unlink-open|msdos-unlink)
      [ "$(q op_rc)" = 0 ] || { ok=0 why+=("unlink returned $(q op_rc) ($(q op_err))"); }
      [ "$(q size_after)" = -1 ] || { ok=0 why+=("the file is still there after the remount"); } ;;
    enospc)
      [ "$(q write_errname)" = ENOSPC ] || { ok=0 why+=("the write ended with '$(q write_errname)', not ENOSPC"); } ;;
  esac
  if [ $ok = 1 ]; then
    pass "$name $c (rep $rep): $(python3 -c 'import json,sys; r=json.loads(sys.argv[1])
print("write %.1f s, %s%sclose() %.1f s, dirty %.0f MiB before; umount %.1f s; fsck clean" % (r["write_s"], ("op %.2f s, " % r["op_s"]) if "op_s" in r else "", ("%s after %.0f MiB, " % (r.get("write_errname"), r["written_mib"])) if r.get("write_err") else "", r["close_s"], r["dirty_mib_before"], r["umount_s"]))' "$line")"
  else
    fail "$name $c (rep $rep): ${why[*]}"
  fi
}

for spec in $MODULES; do
  name=${spec%%:*} dir=
  [ "$spec" = "$name" ] || dir=${spec#*:}
  unload_fat || { fail "$name: cannot unload fat"; continue; }
  if [ -n "$dir" ]; then
    if ! insmod "$dir/fat.ko" || ! insmod "$dir/vfat.ko"; then
      fail "$name: cannot load $dir"; continue
    fi
  else
    modprobe vfat
  fi
  if ! modprobe msdos; then fail "$name: the kernel's msdos.ko does not load on this fat.ko"; fi
  echo "== $name: fat $(cat /sys/module/fat/version 2> /dev/null || echo "(no version: the kernel's own, or a build without the marker)")"
  for rep in $(seq "$REPS"); do
    for c in trunc-part trunc-zero unlink-open msdos-unlink enospc; do
      run_case $c "$name" "$rep"
    done
  done
done
unload_fat
modprobe vfat
default_vm
echo "TRUNCATE-UNLINK: $passed passed, $failed failed"
exit $((failed > 0))

# guest-wait0-stall.sh - guest side: where does close() wait when a wait=0 build stalls?
#
# A diagnostic for RESULTS.md: with write_inode_now(inode, 0) some 256 MiB copies to the
# cheap stick took ~30 s with the device idle for 11-12 s. This repeats that copy (the
# run-scenario race setup: fragmented page cache, vm.dirty_bytes 400 MiB, background
# 64 MiB, writeback every 1 s, FAT32 32 KiB clusters, mount -o flush) with the wait0 module
# and samples, every 0.25 s, cp's kernel stack and state, the flusher's stack and the
# device's dirty/writeback bytes. Run:
#   kernel/build-modules --kver 6.12.118+deb12-amd64 --variant wait0
#   { echo "VSM_STALL_TOP=/run/lab/host$PWD VSM_STALL_FRAG=/run/lab/host$VSM_LAB_CACHE/bin/frag"
#     cat kernel/guest-wait0-stall.sh; } > /tmp/stall.sh
#   tests/lab/guest-run --kernel 6.12 --devices nbd-stick --stick-profile cheap-stick \
#     --script /tmp/stall.sh --out DIR
# (the host's root is at /run/lab/host in the guest). Modules from
# $VSM_STALL_TOP/kernel/out/$(uname -r)/wait0; REPS=4.
set -u
KVER=$(uname -r)
TOP=${VSM_STALL_TOP:?set VSM_STALL_TOP to the checkout as the guest sees it}
MODS=$TOP/kernel/out/$KVER/wait0
FRAG=${VSM_STALL_FRAG:?set VSM_STALL_FRAG to bin/frag of the lab cache}
REPS=4
d=$(lab_disk NBDSTICK1 30) || { echo "no NBDSTICK1"; exit 1; }
part=${d}1
majmin=$(cat /sys/block/${d#/dev/}/dev)
stats=/sys/kernel/debug/bdi/$majmin/stats
mnt=/mnt/stall
mkdir -p $mnt

for m in vfat msdos fat; do grep -q "^$m " /proc/modules && rmmod $m; done
insmod $MODS/fat.ko && insmod $MODS/vfat.ko || exit 1
echo "fat version: $(cat /sys/module/fat/version)"
echo 1 > /proc/sys/kernel/sysrq

"$FRAG" 1200 /tmp/frag.ready &
for _ in $(seq 600); do [ -e /tmp/frag.ready ] && break; sleep 0.1; done
dd if=/dev/urandom of=/tmp/src.bin bs=1M count=256 status=none

for rep in $(seq $REPS); do
  mkfs.vfat -F 32 -s 64 -n STALL $part > /dev/null
  sync; echo 3 > /proc/sys/vm/drop_caches
  echo 419430400 > /proc/sys/vm/dirty_bytes
  echo 67108864 > /proc/sys/vm/dirty_background_bytes
  echo 100 > /proc/sys/vm/dirty_writeback_centisecs
  mount -t vfat -o flush $part $mnt
  dd if=$part of=/dev/null bs=64K count=200 status=none
  t0=$(date +%s.%N)
  cp /tmp/src.bin $mnt/big.bin &
  cpid=$!
  log=$LAB_OUT/rep$rep.log
  : > "$log"
  dstart= dumped=0
  while kill -0 $cpid 2> /dev/null; do
    t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    st=$(awk '{print $3}' /proc/$cpid/stat 2> /dev/null)
    {
      echo "== t=$t state=$st wchan=$(cat /proc/$cpid/wchan 2> /dev/null)" \
        "$(awk '$1 == "nr_dirty" || $1 == "nr_writeback" {printf "%s=%d MiB ", $1, $2 / 256}' /proc/vmstat)"
      sed 's/^/   cp| /' /proc/$cpid/stack 2> /dev/null
    } >> "$log"
    # cp blocked for 1.5 s outside balance_dirty_pages (write throttling): all blocked
    # tasks to the kernel log (sysrq w), once per rep
    if [ "$st" = D ] && ! grep -q balance_dirty /proc/$cpid/stack 2> /dev/null; then
      [ -n "$dstart" ] || dstart=$t
      if [ $dumped = 0 ] && awk -v a=$dstart -v b=$t 'BEGIN { exit !(b - a > 1.5) }'; then
        dmesg -C; echo w > /proc/sysrq-trigger; sleep 0.5; dmesg > $LAB_OUT/rep$rep.blocked.txt; dumped=1
      fi
    else
      dstart=
    fi
    sleep 0.2
  done
  wait $cpid
  t1=$(date +%s.%N)
  umount $mnt
  t2=$(date +%s.%N)
  echo "rep $rep: copy $(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b-a}') s, umount $(awk -v a=$t1 -v b=$t2 'BEGIN{printf "%.1f", b-a}') s, log $log"
done
kill %1 2> /dev/null
exit 0

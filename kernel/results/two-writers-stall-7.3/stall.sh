set -u
d=$(lab_disk NBDSTICK1 30) || { echo "no NBDSTICK1"; exit 1; }
part=${d}1; [ -b "$part" ] || part=$d
dev=$(basename $d)
mnt=/mnt/diag; mkdir -p $mnt
uname -r; echo "part $part"
cat > /tmp/b.py << 'PY'
import os, sys, time
path, mib, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
buf = bytes(1 << 20); t0 = time.monotonic()
for i in range(mib):
    d = t0 + i / rate - time.monotonic()
    if d > 0: time.sleep(d)
    tw = time.monotonic(); os.write(fd, buf); dt = time.monotonic() - tw
    if dt > 0.3: print("  write %d took %.2f s (at %.2f s)" % (i, dt, tw - t0), flush=True)
print("  B: %d MiB in %.2f s" % (mib, time.monotonic() - t0), flush=True)
os.close(fd)
PY
sampler() {  # sample D-state tasks and their stacks every 0.5 s
  while :; do
    t=$(cut -d' ' -f1 /proc/uptime)
    for p in /proc/[0-9]*; do
      st=$(awk '/^State:/{print $2}' $p/status 2>/dev/null)
      if [ "$st" = D ]; then
        echo "[$t] D $(cat $p/comm 2>/dev/null) pid ${p#/proc/}: $(head -n 8 $p/stack 2>/dev/null | awk '{print $2}' | paste -sd' ')"
      fi
    done
    echo "[$t] $(grep -E '^(Dirty|Writeback):' /proc/meminfo | awk '{printf "%s %s ", $1, $2}') stat: $(cat /sys/block/$dev/stat | awk '{print "rd", $1, "rdsec", $3, "wr", $5, "inflight", $9}')"
    sleep 0.5
  done
}
setup() {
  umount $mnt 2>/dev/null
  mkfs.vfat -F 32 -s 64 -n DIAG "$part" > /dev/null
  sync; echo 3 > /proc/sys/vm/drop_caches
  echo 0 > /proc/sys/vm/dirty_writeback_centisecs
  echo $((480 << 20)) > /proc/sys/vm/dirty_bytes
  echo $((400 << 20)) > /proc/sys/vm/dirty_background_bytes
  mount -t vfat -o flush "$part" $mnt
}
for form in baseline statfs warmwrite baseline2; do
  echo "== $form"
  setup
  case $form in
    statfs) /usr/bin/time -f "  stat -f: %e s" stat -f $mnt > /dev/null ;;
    warmwrite) /usr/bin/time -f "  warm-up 1 MiB write+fsync: %e s" dd if=/dev/zero of=$mnt/warm bs=1M count=1 conv=fsync status=none; rm -f $mnt/warm ;;
  esac
  sampler > /tmp/samp.txt 2>&1 & sp=$!
  python3 /tmp/b.py $mnt/f 48 30
  kill $sp; wait $sp 2>/dev/null
  grep -E ' D ' /tmp/samp.txt | head -30
  grep -v ' D ' /tmp/samp.txt | head -60 | awk 'NR%2==1'
  umount $mnt
done

# guest side of tests/lab/record-fixtures: umockdev-record every emulated disk (whole disk,
# its partitions and its BDI) into $LAB_OUT/NAME.umockdev, with NAME.devices beside it.
set -euo pipefail
udevadm settle --timeout=60

# a loop device with a FAT32 file system: the "not USB at all" contrast
truncate -s 64M /tmp/loop-fat.img
mkfs.vfat -F 32 -n LOOPFAT -i 55AA00F0 /tmp/loop-fat.img > /dev/null 2>&1
loopdev=$(losetup -f --show /tmp/loop-fat.img)
udevadm trigger --action=change "$loopdev"
udevadm settle --timeout=60

record() {   # NAME DEV...   (whole disks; their partitions and BDIs are added)
  local name=$1 d n part sysfs bdi args=() lines=()
  shift
  for d in "$@"; do
    n=${d#/dev/}
    sysfs=$(readlink -f "/sys/class/block/$n")
    args+=("$d")
    lines+=("$d disk $sysfs")
    for part in "$sysfs"/"$n"*; do
      [ -f "$part/partition" ] || continue
      args+=("/dev/${part##*/}")
      lines+=("/dev/${part##*/} partition $part")
    done
    bdi=$(readlink -f "$sysfs/bdi")
    args+=("$bdi")
    lines+=("bdi-of-$d bdi $bdi")
  done
  umockdev-record "${args[@]}" > "$LAB_OUT/$name.umockdev"
  {
    echo "# $name recorded on $(uname -r) by tests/lab/record-fixtures"
    echo "# node kind sysfs-path"
    printf '%s\n' "${lines[@]}"
  } > "$LAB_OUT/$name.devices"
  echo "recorded $name: $* ($(wc -c < "$LAB_OUT/$name.umockdev") bytes)"
}

disk() { lab_disk "$1" 30 || { echo "no disk $1" >&2; exit 1; }; }
record usb-storage-ss-stick "$(disk STICKSS1)"
record usb-storage-hs-stick "$(disk STICKHS1)"
record uas-ssd "$(disk UASSSD1)"
record uas-hdd "$(disk UASHDD1)"
record bot-enclosure "$(disk BOTENC1)"
record card-reader "$(disk CARDRDR1:0)" "$(disk CARDRDR1:1)"
record virtio "$(disk VIRTIO1)"
record loop "$loopdev"
losetup -d "$loopdev"

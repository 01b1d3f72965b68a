/* vsm-device.h - facts about a block device, from sysfs/udev and libblkid
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <gudev/gudev.h>

G_BEGIN_DECLS

typedef enum
{
  VSM_TRANSPORT_OTHER,
  VSM_TRANSPORT_USB_STORAGE, /* Bulk-Only (usb-storage, ums-*) */
  VSM_TRANSPORT_UAS,
  VSM_TRANSPORT_USB_OTHER, /* USB, but no usb-storage/uas driver bound */
  VSM_TRANSPORT_MMC,
  VSM_TRANSPORT_NVME,
  VSM_TRANSPORT_ATA,
  VSM_TRANSPORT_VIRTIO,
  VSM_TRANSPORT_LOOP,
} VsmTransport;

const char *vsm_transport_to_string (VsmTransport transport);
gboolean vsm_transport_is_usb (VsmTransport transport);

typedef struct
{
  char *vendor_id;  /* "0781" */
  char *product_id; /* "5581" */
  char *serial;
  char *manufacturer;
  char *product;
  char *version;    /* USB version, " 3.00" trimmed */
  guint speed_mbps; /* 12, 480, 5000, 10000, ...; 0 when unknown */
  char *driver;     /* driver bound to the mass storage interface */
} VsmUsbInfo;

typedef struct
{
  char *spec;    /* what the caller gave */
  char *devnode; /* the block node it resolved to */
  char *syspath;
  gboolean is_partition;

  char *disk_node; /* the whole disk */
  char *disk_name; /* "sdb" */
  char *disk_syspath;
  guint disk_major;
  guint disk_minor;
  char *bdi; /* "MAJ:MIN" of the whole disk */
  guint n_partitions;
  gboolean superfloppy; /* the filesystem sits on the whole disk */

  VsmTransport transport;
  VsmUsbInfo *usb; /* NULL unless the disk hangs off USB */
  int lun;         /* SCSI LUN, -1 when not SCSI */
  guint n_luns;    /* disks sharing the same USB interface */
  char *vendor;    /* SCSI/device vendor string */
  char *model;

  gboolean removable;
  gboolean rotational;
  guint64 size_bytes;

  guint64 max_sectors_kb;
  guint64 max_hw_sectors_kb;
  guint64 minimum_io_size;
  guint64 optimal_io_size;
  guint64 physical_block_size;
  guint64 logical_block_size;
  char *write_cache; /* "write back" / "write through" / NULL */

  char *fs_type; /* NULL when none was found */
  char *fs_label;
  char *fs_uuid;
  char *fs_version;
  /* a whole disk with partitions: the UUID of the FAT filesystem that names
   * the drive (vsm_drive_identity): its mounted FAT partition's, else its
   * first FAT partition's; NULL for a partition or a superfloppy */
  char *disk_fs_uuid;
} VsmDevice;

void vsm_device_free (VsmDevice *device);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmDevice, vsm_device_free)

/* Accepts a device node, a /dev/disk/by-* link, LABEL=/UUID=/PARTUUID=/
 * PARTLABEL=, a mount point, or a /sys path of a block device. */
VsmDevice *vsm_device_new_from_spec (GUdevClient *client, const char *spec, GError **error);
VsmDevice *vsm_device_new_from_udev (GUdevClient *client, GUdevDevice *udev, const char *spec,
                                     GError **error);
/* From a /sys path, with sysfs and udev's database only: the device node
 * is never opened (no superblock probe), so a dying drive cannot stall the
 * caller's main loop; the filesystem facts are udev's (none without it). */
VsmDevice *vsm_device_new_from_syspath_no_io (GUdevClient *client, const char *syspath,
                                              GError **error);

/* A filesystem on the whole disk, no partition table (part_table_type:
 * udev's ID_PART_TABLE_TYPE of the disk, NULL when none). */
gboolean vsm_device_is_superfloppy (const VsmDevice *device, const char *part_table_type);

/* vfat or exfat: the filesystems vfat-smart mounts */
gboolean vsm_fs_type_is_fat (const char *fs_type);

/* From sysfs directories, without udev (cheap: no udev device is made):
 * the number of whole disks whose sysfs path lies under syspath (e.g. the
 * LUNs behind one USB interface), and the sysfs paths of a disk's
 * partitions in the order of their numbers. */
guint vsm_sysfs_count_disks_under (const char *syspath);
GPtrArray *vsm_sysfs_disk_partitions (const char *disk_syspath);

/* The filesystem type on the device now, read from its superblock. */
char *vsm_probe_fs_type (const char *devnode, GError **error);

/* udev helpers must never block on a dying device: no superblock probing,
 * filesystem facts from the udev event only. */
void vsm_device_disable_probing (void);

G_END_DECLS

/* vsm-device.h - facts about a block device, from sysfs/udev and libblkid
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib.h>
#include <gudev/gudev.h>

G_BEGIN_DECLS

/* The filesystem type on the device now, read from its superblock. */
char *vsm_probe_fs_type (const char *devnode, GError **error);

/* envp: the udev event's environment, NULL outside an event. An event's
 * device has no entry in udev's database until its rules ran: its
 * properties are the environment's. */
VsmDevice *vsm_device_new_from_udev (GUdevClient *client, GUdevDevice *udev,
                                     const char *const *envp, const char *spec, GError **error);

/* A filesystem on the whole disk, no partition table (part_table_type:
 * udev's ID_PART_TABLE_TYPE of the disk, NULL when none). */
gboolean vsm_device_is_superfloppy (const VsmDevice *device, const char *part_table_type);

/* From sysfs directories, without udev (cheap: no udev device is made):
 * the number of whole disks whose sysfs path lies under syspath (e.g. the
 * LUNs behind one USB interface), and the sysfs paths of a disk's
 * partitions in the order of their numbers. */
guint vsm_sysfs_count_disks_under (const char *syspath);
GPtrArray *vsm_sysfs_disk_partitions (const char *disk_syspath);

/* vfat or exfat: the filesystems vfat-smart mounts */
gboolean vsm_fs_type_is_fat (const char *fs_type);

G_END_DECLS

/* vsm-mount.h - mounts through libmount
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <gudev/gudev.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct
{
  char *source;
  char *target;
  char *fstype;
  char *options;      /* VFS and filesystem options as the kernel shows them */
  char *user_options; /* from utab: uhelper=, x-* */
} VsmMountInfo;

void vsm_mount_info_free (VsmMountInfo *m);

/* Mounts of the disk at disk_syspath or any of its partitions. */
GPtrArray *vsm_mounts_for_disk (const char *disk_syspath);
/* TRUE when the disk or one of its partitions is mounted. */
gboolean vsm_disk_is_mounted (const char *disk_syspath);
/* The one "device of disk" check: devno is the disk's (its sysfs
 * directory, or /sys/block/NAME) or one of its partitions'. */
gboolean vsm_devno_is_on_disk (dev_t devno, const char *disk_syspath);

/* TRUE when libmount can read every option of optstr (no open quote). */
gboolean vsm_options_are_valid (const char *optstr);

/* Merges options (both must be valid, see above): every option in wins replaces one of the same name in
 * base; "flush", "sync" and "async" replace each other's opposite. */
char *vsm_options_merge (const char *base, const char *wins);

G_END_DECLS

/* vsmd-udisks.h - following udisks' mounts (libudisks2's UDisksClient)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define VSMD_TYPE_UDISKS (vsmd_udisks_get_type ())
G_DECLARE_FINAL_TYPE (VsmdUdisks, vsmd_udisks, VSMD, UDISKS, GObject)

/* Connects in the background; emits "changed" whenever a filesystem's
 * MountPoints change or a block comes or goes. */
VsmdUdisks *vsmd_udisks_new (void);

/* The mount points udisks knows for the disk at disk_syspath and its
 * partitions (NULL-terminated, maybe empty), or NULL when udisks is not
 * running: then the caller asks libmount. */
GStrv vsmd_udisks_mount_points (VsmdUdisks *u, const char *disk_syspath);

G_END_DECLS

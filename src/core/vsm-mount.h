/* vsm-mount.h - mounts through libmount
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib.h>
#include <gudev/gudev.h>
#include <sys/types.h>

G_BEGIN_DECLS

void vsm_mount_info_free (VsmMountInfo *m);

/* TRUE when the disk or one of its partitions is mounted. */
gboolean vsm_disk_is_mounted (const char *disk_syspath);

/* Merges options (both must be valid: vsm_options_are_valid ()): every option in wins replaces one of the same name in
 * base; "flush", "sync" and "async" replace each other's opposite. */
char *vsm_options_merge (const char *base, const char *wins);

G_END_DECLS

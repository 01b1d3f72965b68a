/* vsm-udisks.h - udisks' mount options, layered as udisks layers them
 *
 * udisks (2.9-2.11) takes a filesystem's default mount options from its
 * built-in set, then /etc/udisks2/mount_options.conf ([defaults], then
 * the section named by the block device's node or one of its links),
 * then the udev properties UDISKS_MOUNT_OPTIONS_<FS>_DEFAULTS; each layer
 * replaces a key whole. vfat-smart's udev property is the last layer, so
 * it starts from what the layers below give and changes only what the
 * plan needs: an admin's vfat_defaults and exfat_defaults survive.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-plan.h"

G_BEGIN_DECLS

/* The FS_defaults the configuration file gives for the device (names: its
 * node and links, may be NULL), or NULL when it gives none (no file, an
 * unreadable one, no such key: udisks' built-in set stands). */
char *vsm_udisks_configured_defaults (const char *conf_path, const char *fs_type,
                                      const char *const *names);

/* What the plan exports for udisks: configured (NULL: udisks' built-in
 * set, plan->udisks_defaults) with the plan's flush mode: flush dropped
 * without kernel-flush, sync added for sync, flush added for kernel-flush
 * on vfat. Everything else the admin set stays. */
char *vsm_udisks_defaults_for_plan (const VsmPlan *plan, const char *configured);

G_END_DECLS

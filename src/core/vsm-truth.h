/* vsm-truth.h - the flush mode that actually applies to a disk, from its
 * record and the mounts as the kernel shows them (/proc/self/mountinfo)
 *
 * A record says what vfat-smart planned; a client can mount with other
 * options (KDE's Solid adds flush to every vfat mount it asks udisks
 * for), and exFAT has no flush option at all. Status and vfat-smartd's
 * FlushMode report this, never the plan alone.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include "vsm-state.h"

G_BEGIN_DECLS

/* Pure. planned: the record's mode; fs_type: the record's file system
 * (NULL: unknown); mount_fstype, mount_options: of the disk's FAT or exFAT
 * mount as the kernel shows it (NULL: not mounted); cap_in_place: the
 * per-device cap's knobs are applied (strict_limit or max_bytes). */
VsmFlushTruth *vsm_flush_truth_compute (const char *planned, const char *fs_type,
                                        const char *mount_fstype, const char *mount_options,
                                        gboolean cap_in_place);

/* the record's per-device cap: max_bytes or strict_limit=1 applied */
gboolean vsm_state_has_device_cap (const VsmState *state);
/* the record's strict_limit was set to 0 under a dirty cap (only
 * vfat-smartd's stall fallback does that) */
gboolean vsm_state_strict_limit_dropped (const VsmState *state);

G_END_DECLS

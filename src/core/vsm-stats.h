/* vsm-stats.h - block I/O counters and dirty data, and their deltas
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm.h"

#include <glib.h>

G_BEGIN_DECLS

gboolean vsm_disk_stat_parse (const char *text, VsmDiskStat *out);

void vsm_disk_stat_delta (const VsmDiskStat *before, const VsmDiskStat *after, VsmIoDelta *out);

gboolean vsm_bdi_stats_parse (const char *text, VsmDirtyInfo *out);
gboolean vsm_meminfo_parse (const char *text, VsmDirtyInfo *out);
/* Counts the dirty figure as 0 (in residual_bytes) when no inode of the
 * device is dirty (b_dirty, b_io, b_more_io empty) and it is within
 * error_bytes: no page can be dirty then, the figure is the counter's
 * residue. The writeback figure is left as it is: after an fsync the inode
 * leaves those lists while its pages are still under writeback, so a small
 * writeback figure with no dirty inode can be real. */
void vsm_dirty_info_discount_residual (VsmDirtyInfo *di, guint64 error_bytes);

G_END_DECLS

/* vsm-stats.h - block I/O counters and dirty data, and their deltas
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define VSM_DISK_STAT_FIELDS 17

typedef struct
{
  guint64 field[VSM_DISK_STAT_FIELDS];
  guint n_fields; /* 11 before 4.18, 15 before 5.5, 17 since */
} VsmDiskStat;

gboolean vsm_disk_stat_parse (const char *text, VsmDiskStat *out);
/* raw: the line as read, for the state file */
gboolean vsm_disk_stat_read (const char *disk_name, VsmDiskStat *out, char **raw, GError **error);

typedef struct
{
  gboolean valid; /* FALSE when counters went backwards */
  guint64 write_ios;
  guint64 write_bytes;
  guint64 flush_ios;
  gboolean has_flush; /* the kernel counts flushes (17 fields) */
  guint64 busy_ms;    /* io_ticks */
  double avg_write_request_bytes;
  double write_throughput; /* bytes per busy second */
} VsmIoDelta;

void vsm_disk_stat_delta (const VsmDiskStat *before, const VsmDiskStat *after, VsmIoDelta *out);

typedef struct
{
  gboolean per_device; /* TRUE: from debugfs bdi stats; FALSE: global meminfo */
  gboolean valid;
  guint64 dirty_bytes;
  guint64 writeback_bytes;
  guint64 bdi_thresh_bytes;
  guint64 dirty_thresh_bytes;
  guint64 bandwidth;     /* kernel's write bandwidth estimate, bytes/s; 0 unknown */
  guint64 dirtied_bytes; /* BdiDirtied: dirtied since boot (grows while written) */
  guint64 dirty_inodes;  /* b_dirty + b_io + b_more_io: inodes waiting */
  gboolean has_inodes;   /* the kernel printed the inode lists */
} VsmDirtyInfo;

gboolean vsm_bdi_stats_parse (const char *text, VsmDirtyInfo *out);
gboolean vsm_meminfo_parse (const char *text, VsmDirtyInfo *out);
/* debugfs bdi/MAJ:MIN/stats when readable, else /proc/meminfo */
void vsm_dirty_info_read (const char *bdi, VsmDirtyInfo *out);

G_END_DECLS

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
  guint64 bandwidth;       /* kernel's write bandwidth estimate, bytes/s; 0 unknown */
  guint64 dirtied_bytes;   /* BdiDirtied: dirtied since boot (grows while written) */
  guint64 dirty_inodes;    /* b_dirty + b_io + b_more_io: inodes waiting */
  gboolean has_inodes;     /* the kernel printed the inode lists */
  guint64 residual_bytes;  /* counted as 0: within the counters' error, see below */
  guint64 bg_thresh_bytes; /* BackgroundThresh: the system's background threshold */
} VsmDirtyInfo;

gboolean vsm_bdi_stats_parse (const char *text, VsmDirtyInfo *out);
gboolean vsm_meminfo_parse (const char *text, VsmDirtyInfo *out);
/* debugfs' BdiReclaimable and BdiWriteback are per-CPU counters read
 * without summing (wb_stat(), percpu_counter_read_positive()): they can stay
 * off by up to wb_stat_error() = nr_cpu_ids x WB_STAT_BATCH pages long after
 * the drive is clean (64 KiB seen in the lab's 2-CPU guest; 2.5 MiB on a
 * 16-CPU machine). The error bound in bytes for this machine: */
guint64 vsm_wb_stat_error_bytes (guint nr_cpu_ids, guint64 page_size);
/* Counts the dirty figure as 0 (in residual_bytes) when no inode of the
 * device is dirty (b_dirty, b_io, b_more_io empty) and it is within
 * error_bytes: no page can be dirty then, the figure is the counter's
 * residue. The writeback figure is left as it is: after an fsync the inode
 * leaves those lists while its pages are still under writeback, so a small
 * writeback figure with no dirty inode can be real. */
void vsm_dirty_info_discount_residual (VsmDirtyInfo *di, guint64 error_bytes);
/* debugfs bdi/MAJ:MIN/stats when readable (the dirty residue discounted),
 * else /proc/meminfo */
void vsm_dirty_info_read (const char *bdi, VsmDirtyInfo *out);

/* Data at risk on a drive, the one figure status, watch, the daemon and the
 * agent show. With debugfs, the drive's own dirty and writeback bytes
 * (kind "device"). Without, the whole system's: an upper bound, within the
 * drive's cap when it has one (cap 0: none), and nothing when the drive has
 * not written lately (kind "system"). *kind (may be NULL) gets the kind. */
guint64 vsm_at_risk_bytes (const VsmDirtyInfo *di, guint64 cap, gboolean wrote_lately,
                           const char **kind);

/* Writes the block layer has in flight to the disk bdi (the W of its
 * sysfs inflight); 0 when it cannot be read. */
guint64 vsm_disk_writes_in_flight (const char *bdi);

G_END_DECLS

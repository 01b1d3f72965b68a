/* vsm-stall.h - a throttled writer with no writeback under way
 *
 * "mm/block/fs: remove laptop_mode" (merged for Linux 7.0) took out the
 * unconditional start of background writeback in balance_dirty_pages():
 * on a BDI with strict_limit a writer is throttled at the device's own
 * threshold while the system's dirty data stays far below the background
 * threshold, so nothing starts writeback until the periodic flusher comes
 * by. "mm: reinstate unconditional writeback start in
 * balance_dirty_pages()" fixed it. A kernel's version does not tell
 * (stable backports, distribution patches): the counters do. A writer is
 * throttled when the device's dirty data is past the point where
 * strict_limit throttles ((threshold + background threshold) / 2); a
 * healthy kernel then always has writeback under way for the device. When,
 * within a window, the device spent long throttled with nothing in
 * writeback and no sector written, the kernel has the regression; the
 * fallback is to drop strict_limit for the drive (max_bytes stays).
 *
 * Pure: fed samples, never reads anything itself.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-plan.h"
#include "vsm-stats.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 at_usec;          /* monotonic */
  gboolean per_device;     /* the figures are the device's (debugfs); else nothing is told */
  guint64 dirty_bytes;     /* BdiReclaimable */
  guint64 writeback_bytes; /* BdiWriteback */
  guint64 limit_bytes;     /* the device's threshold (BdiDirtyThresh, at most the cap); 0 unknown */
  guint64 bg_limit_bytes;  /* its background threshold; 0: taken as half the limit */
  guint64 write_sectors;   /* /sys/block/DISK/stat field 7 */
} VsmStallSample;

typedef struct
{
  gint64 window_usec;  /* what is looked at: 30 s */
  gint64 stall_usec;   /* throttled with no writeback this long within the window: 15 s */
  gint64 max_gap_usec; /* samples further apart than this are not joined: 5 s */
  guint64 slack_bytes; /* writeback figures up to this are the counter's error */
} VsmStallLimits;

#define VSM_STALL_RING 64

typedef struct
{
  gint64 end_usec;
  gint64 length_usec;
  gboolean idle; /* throttled at both ends, nothing in writeback, no sector written */
} VsmStallInterval;

typedef struct
{
  VsmStallLimits limits;
  gboolean have_last;
  VsmStallSample last;
  gboolean last_throttled;
  VsmStallInterval ring[VSM_STALL_RING];
  guint next;
  gint64 idle_usec; /* within the window, after the last feed */
} VsmStall;

typedef enum
{
  VSM_STALL_UNKNOWN, /* no per-device figures */
  VSM_STALL_NONE,
  VSM_STALL_SUSPECT, /* throttled with no writeback, not yet long enough */
  VSM_STALL_STALLED,
} VsmStallVerdict;

/* limits: NULL for the defaults above */
void vsm_stall_init (VsmStall *stall, const VsmStallLimits *limits);
VsmStallVerdict vsm_stall_feed (VsmStall *stall, const VsmStallSample *sample);
const char *vsm_stall_verdict_to_string (VsmStallVerdict verdict);

/* A sample from what the daemon reads each tick; cap_bytes: the cap in
 * force (0: none) */
void vsm_stall_sample_from (VsmStallSample *out, gint64 at_usec, const VsmDirtyInfo *dirty,
                            const VsmDiskStat *stat, guint64 cap_bytes);

/* The fallback, in the plan so that it goes through the one recorded and
 * restorable apply: strict_limit is written as 0 (restore puts the
 * original back), max_bytes and the rest stay; why (a serialized
 * VsmReason, vsm-reason.h, or text as it is) is added to the reasons.
 * FALSE when the plan sets no strict_limit. */
gboolean vsm_stall_drop_strict_limit (VsmPlan *plan, const char *why);

G_END_DECLS

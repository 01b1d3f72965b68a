/* vsm-learn.h - the cap controller: a drive's write bandwidth, learned
 * while it writes, and the cap that follows from it (pure)
 *
 * Fed /sys/block/DISK/stat samples with their times, it measures bytes
 * written over busy time (io_ticks), only over stretches where the device
 * was busy writing: an idle or trickling device teaches nothing (the
 * kernel's own estimate decays towards zero then, which is why it is never
 * used). The cap = bandwidth x max-dirty-seconds, within the policy's
 * clamps, moves at most once per VSM_LEARN_MIN_CHANGE_USEC and only by
 * more than VSM_LEARN_HYSTERESIS of itself.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-stats.h"

G_BEGIN_DECLS

/* a stretch counts when the device was busy at least this share of it */
#define VSM_LEARN_MIN_BUSY 0.5
/* a measurement needs at least this much written, busy this long */
#define VSM_LEARN_MIN_BYTES (G_GUINT64_CONSTANT (8) * 1024 * 1024)
#define VSM_LEARN_MIN_BUSY_MS 1000
/* reads above this share of the sectors make the busy time a mix: skipped */
#define VSM_LEARN_MAX_READ_SHARE 0.1
/* damping: one change per 5 s at most, and only by more than 20 % */
#define VSM_LEARN_MIN_CHANGE_USEC (5 * G_USEC_PER_SEC)
#define VSM_LEARN_HYSTERESIS 0.2
/* weight of a new measurement in the running estimate */
#define VSM_LEARN_WEIGHT 0.5

typedef struct
{
  double max_dirty_seconds;
  guint64 cap_min_bytes;
  guint64 cap_max_bytes;
} VsmLearnLimits;

typedef struct _VsmLearn VsmLearn;

/* start_bandwidth: what the plan started from (bytes/s, > 0) */
VsmLearn *vsm_learn_new (const VsmLearnLimits *limits, guint64 start_bandwidth, gint64 now_usec);
void vsm_learn_free (VsmLearn *learn);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (VsmLearn, vsm_learn_free)

/* New limits (SetOptions, a policy change) and the cap now in force (what
 * another apply wrote): what was measured stays, the next change is
 * judged against cap_in_force. */
void vsm_learn_set_limits (VsmLearn *learn, const VsmLearnLimits *limits, guint64 cap_in_force);

/* One sample. Returns TRUE when the cap changed (read it with
 * vsm_learn_get_cap ()); counters going backwards restart the stretch. */
gboolean vsm_learn_feed (VsmLearn *learn, gint64 at_usec, const VsmDiskStat *stat);

/* bytes/s measured so far, 0 before the first measurement */
guint64 vsm_learn_get_bandwidth (const VsmLearn *learn);
/* the bandwidth the cap follows: measured, else the starting value */
guint64 vsm_learn_get_cap_bandwidth (const VsmLearn *learn);
guint64 vsm_learn_get_cap (const VsmLearn *learn);
/* bytes written since the first sample */
guint64 vsm_learn_get_bytes_written (const VsmLearn *learn);
/* number of measurements taken */
guint vsm_learn_get_n_measurements (const VsmLearn *learn);

/* cap for a bandwidth: bandwidth x seconds, clamped, whole MiB; the one
 * formula of the cap, the plan's (vsm-plan) and the learner's */
guint64 vsm_learn_cap_for (const VsmLearnLimits *limits, guint64 bandwidth);

/* What a USB link can carry of data writes, bytes/s (0: speed unknown):
 * Bulk-Only at 480 Mb/s tops out near 35 MB/s. */
guint64 vsm_learn_link_bandwidth (guint speed_mbps);

G_END_DECLS

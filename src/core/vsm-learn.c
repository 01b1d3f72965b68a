/* vsm-learn.c - the cap controller (pure)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-learn.h"

#include <math.h>

enum
{
  STAT_READ_SECTORS = 2,
  STAT_WRITE_SECTORS = 6,
  STAT_IO_TICKS = 9,
};

struct _VsmLearn
{
  VsmLearnLimits limits;
  guint64 start_bandwidth;
  guint64 bandwidth; /* measured; 0 before the first measurement */
  guint64 cap;
  gint64 last_change_usec; /* 0: the cap has not moved since the learner began */
  guint n_measurements;
  guint64 bytes_written;

  gboolean have_last;
  VsmDiskStat last;
  gint64 last_usec;

  /* the stretch of busy writing being measured */
  guint64 run_bytes;
  guint64 run_busy_ms;
};

guint64
vsm_learn_cap_for (const VsmLearnLimits *limits, guint64 bandwidth)
{
  double raw = (double)bandwidth * limits->max_dirty_seconds;
  guint64 cap = raw >= (double)G_MAXUINT64 ? G_MAXUINT64 : (guint64)raw;
  const guint64 mib = 1024 * 1024;

  cap = CLAMP (cap, limits->cap_min_bytes, limits->cap_max_bytes);
  /* a whole number of MiB (the policy's minimum is 1 MiB) */
  return cap >= mib ? cap - cap % mib : cap;
}

double
vsm_learn_cap_seconds (double max_dirty_seconds, gboolean paced, gboolean one_big_file)
{
  return paced && !one_big_file ? max_dirty_seconds * VSM_LEARN_MANY_FILES_SHARE
                                : max_dirty_seconds;
}

guint64
vsm_learn_link_bandwidth (guint speed_mbps)
{
  /* Bulk-Only's commands, status and USB framing leave about 58 % of the
   * raw rate for data at high speed (480 Mb/s -> 35 MB/s) */
  return (guint64)speed_mbps * 1000 * 1000 / 8 * 7 / 12;
}

VsmLearn *
vsm_learn_new (const VsmLearnLimits *limits, guint64 start_bandwidth)
{
  VsmLearn *l = g_new0 (VsmLearn, 1);

  g_return_val_if_fail (limits != NULL && limits->cap_min_bytes <= limits->cap_max_bytes, NULL);
  l->limits = *limits;
  l->start_bandwidth = MAX (start_bandwidth, 1);
  l->cap = vsm_learn_cap_for (limits, l->start_bandwidth);
  return l;
}

void
vsm_learn_set_limits (VsmLearn *l, const VsmLearnLimits *limits, guint64 cap_in_force)
{
  g_return_if_fail (l != NULL && limits != NULL && limits->cap_min_bytes <= limits->cap_max_bytes);
  l->limits = *limits;
  l->cap = cap_in_force;
}

gboolean
vsm_learn_set_seconds (VsmLearn *l, double seconds)
{
  guint64 want;

  g_return_val_if_fail (l != NULL && seconds > 0, FALSE);
  l->limits.max_dirty_seconds = seconds;
  if (l->bandwidth == 0)
    return FALSE;
  want = vsm_learn_cap_for (&l->limits, l->bandwidth);
  if (want == l->cap)
    return FALSE;
  l->cap = want;
  return TRUE;
}

void
vsm_learn_free (VsmLearn *learn)
{
  g_free (learn);
}

static void
end_run (VsmLearn *l)
{
  l->run_bytes = 0;
  l->run_busy_ms = 0;
}

/* A stretch long enough to tell: fold it into the estimate. */
static void
take_measurement (VsmLearn *l)
{
  double rate = (double)l->run_bytes * 1000.0 / (double)l->run_busy_ms;

  if (l->bandwidth == 0)
    l->bandwidth = (guint64)rate;
  else
    l->bandwidth =
      (guint64)(VSM_LEARN_WEIGHT * rate + (1.0 - VSM_LEARN_WEIGHT) * (double)l->bandwidth);
  l->n_measurements++;
  end_run (l);
}

/* Damping: the cap moves only when it would move far enough, and not too
 * often; not before the first measurement (the plan's cap stands), at once
 * after it. */
static gboolean
maybe_change_cap (VsmLearn *l, gint64 at_usec)
{
  guint64 want;
  double diff;

  if (l->bandwidth == 0)
    return FALSE;
  want = vsm_learn_cap_for (&l->limits, l->bandwidth);
  diff = fabs ((double)want - (double)l->cap);
  if (want == l->cap || diff <= VSM_LEARN_HYSTERESIS * (double)l->cap)
    return FALSE;
  if (l->last_change_usec != 0 && at_usec - l->last_change_usec < VSM_LEARN_MIN_CHANGE_USEC)
    return FALSE;
  l->cap = want;
  l->last_change_usec = MAX (at_usec, 1);
  return TRUE;
}

gboolean
vsm_learn_feed (VsmLearn *l, gint64 at_usec, const VsmDiskStat *stat)
{
  VsmDiskStat prev;
  gint64 prev_usec;
  gboolean had;
  guint64 wr, rd, busy, wall_ms;

  /* checked before l is read: a NULL learner returns, never crashes */
  g_return_val_if_fail (l != NULL && stat != NULL, FALSE);
  prev = l->last;
  prev_usec = l->last_usec;
  had = l->have_last;
  l->last = *stat;
  l->last_usec = at_usec;
  l->have_last = stat->n_fields >= 11;
  if (!had || !l->have_last || at_usec <= prev_usec ||
      stat->field[STAT_WRITE_SECTORS] < prev.field[STAT_WRITE_SECTORS] ||
      stat->field[STAT_READ_SECTORS] < prev.field[STAT_READ_SECTORS] ||
      stat->field[STAT_IO_TICKS] < prev.field[STAT_IO_TICKS])
    {
      end_run (l);
      return FALSE;
    }

  wr = (stat->field[STAT_WRITE_SECTORS] - prev.field[STAT_WRITE_SECTORS]) * 512;
  rd = (stat->field[STAT_READ_SECTORS] - prev.field[STAT_READ_SECTORS]) * 512;
  busy = stat->field[STAT_IO_TICKS] - prev.field[STAT_IO_TICKS];
  wall_ms = (guint64)(at_usec - prev_usec) / 1000;
  l->bytes_written += wr;

  /* idle, trickling or reading: this stretch teaches nothing */
  if (wr == 0 || wall_ms == 0 || (double)busy < VSM_LEARN_MIN_BUSY * (double)wall_ms ||
      (double)rd > VSM_LEARN_MAX_READ_SHARE * (double)(wr + rd))
    {
      end_run (l);
      return FALSE;
    }
  /* busy as counted, even when a sample reads more busy time than wall time
   * passed (the counters move at request completions, the samples come when
   * they come): over a stretch the two even out; clipping would not */
  l->run_bytes += wr;
  l->run_busy_ms += busy;
  if (l->run_bytes >= VSM_LEARN_MIN_BYTES && l->run_busy_ms >= VSM_LEARN_MIN_BUSY_MS)
    take_measurement (l);
  return maybe_change_cap (l, at_usec);
}

guint64
vsm_learn_get_bandwidth (const VsmLearn *l)
{
  return l->bandwidth;
}

guint64
vsm_learn_get_cap_bandwidth (const VsmLearn *l)
{
  return l->bandwidth > 0 ? l->bandwidth : l->start_bandwidth;
}

guint64
vsm_learn_get_cap (const VsmLearn *l)
{
  return l->cap;
}

guint64
vsm_learn_get_bytes_written (const VsmLearn *l)
{
  return l->bytes_written;
}

guint
vsm_learn_get_n_measurements (const VsmLearn *l)
{
  return l->n_measurements;
}

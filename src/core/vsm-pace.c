/* vsm-pace.c - when to pace writeback of a mount (pure)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-pace.h"

/* Starting needs 40 % of the cap filled; going on only a tenth of it: each
 * sync drains what was dirty when it began, and a writer held at the cap
 * refills it meanwhile (a drained cap says the drive is the faster one). */
static gboolean
big_writer (const VsmDirtyInfo *di, guint64 cap, gboolean writing, gboolean pacing)
{
  guint64 at_risk = di->dirty_bytes + di->writeback_bytes;

  return writing && di->dirty_inodes <= VSM_PACE_MAX_INODES &&
         (double)at_risk >= (pacing ? VSM_PACE_MIN_KEEP : VSM_PACE_MIN_FILL) * (double)cap;
}

/* the drive's busy share over windows of VSM_PACE_BUSY_WINDOW_USEC (the last
 * whole window's until the next one is complete: a quarter second between two
 * writeback rounds of a slow stick is idle, its second is not); 1 when
 * unknown (the first window, no stat, counters that went backwards) */
static double
busy_share (VsmPace *pace, const VsmDiskStat *stat, gint64 at_usec)
{
  pace->last_usec = at_usec;
  if (stat == NULL)
    {
      pace->have_stat = FALSE;
      return 1.0;
    }
  if (pace->have_stat && at_usec > pace->stat_usec)
    {
      VsmIoDelta delta;

      if (at_usec - pace->stat_usec < VSM_PACE_BUSY_WINDOW_USEC * 9 / 10) /* the tick's jitter */
        return pace->busy;
      vsm_disk_stat_delta (&pace->last_stat, stat, &delta);
      pace->busy =
        delta.valid ? (double)delta.busy_ms * 1000.0 / (double)(at_usec - pace->stat_usec) : 1.0;
    }
  else
    pace->busy = 1.0;
  pace->have_stat = TRUE;
  pace->last_stat = *stat;
  pace->stat_usec = at_usec;
  return pace->busy;
}

gboolean
vsm_pace_feed (VsmPace *pace, const VsmDirtyInfo *di, const VsmDiskStat *stat, gint64 at_usec,
               guint64 cap)
{
  gboolean writing, recent, busy;

  g_return_val_if_fail (pace != NULL && di != NULL, FALSE);
  if (!di->valid || !di->per_device || !di->has_inodes)
    {
      *pace = (VsmPace){ .cap_changed_usec = pace->cap_changed_usec, .applying = pace->applying };
      return FALSE;
    }
  if (pace->have_last && di->dirtied_bytes > pace->last_dirtied &&
      di->dirty_inodes > VSM_PACE_MAX_INODES)
    {
      if (pace->many_since_usec == 0)
        pace->many_since_usec = at_usec;
    }
  else
    pace->many_since_usec = 0;
  /* without a cap (Linux < 6.2, where flush stays) never paced and never
   * settled, but the writer is followed: Safe waits for it */
  if (pace->have_last && cap != pace->cap)
    pace->cap_changed_usec = at_usec;
  writing = pace->have_last && di->dirtied_bytes > pace->last_dirtied;
  pace->writing = writing;
  if (writing)
    pace->last_writing_usec = at_usec;
  pace->unsettled = pace->unsettled || writing;
  pace->have_last = TRUE;
  pace->last_dirtied = di->dirtied_bytes;
  pace->cap = cap;
  busy = busy_share (pace, stat, at_usec) >= VSM_PACE_MIN_BUSY;
  /* before pacing, a writer held in balance_dirty_pages() for a sample or two
   * is still the writer at the cap (vsm-pace.h); once paced, a sample with
   * nothing new says it stopped */
  recent = pace->pacing ? writing
                        : pace->last_writing_usec != 0 &&
                            at_usec - pace->last_writing_usec < VSM_PACE_START_USEC;
  if (cap == 0 || !busy || !big_writer (di, cap, recent, pace->pacing))
    {
      pace->agree_since_usec = 0;
      pace->pacing = FALSE;
      return FALSE;
    }
  if (pace->agree_since_usec == 0)
    pace->agree_since_usec = at_usec;
  pace->pacing = at_usec - pace->agree_since_usec >= VSM_PACE_START_USEC * 9 / 10; /* jitter */
  return pace->pacing;
}

gboolean
vsm_pace_one_big_file (VsmPace *pace, const VsmDirtyInfo *di, gint64 at_usec)
{
  g_return_val_if_fail (pace != NULL && di != NULL, FALSE);
  /* a pacing run whose syncs wrote everything has no settle after it */
  if (vsm_pace_safe (pace, di))
    {
      pace->one_big_file = pace->many_files = FALSE;
      return FALSE;
    }
  if (pace->many_since_usec != 0 &&
      at_usec - pace->many_since_usec >= VSM_PACE_MANY_FILES_USEC * 9 / 10) /* jitter */
    pace->many_files = TRUE;
  if (pace->many_files)
    pace->one_big_file = FALSE;
  else if (pace->pacing)
    pace->one_big_file = TRUE;
  return pace->one_big_file;
}

void
vsm_pace_applying (VsmPace *pace, gboolean applying, gint64 at_usec)
{
  g_return_if_fail (pace != NULL);
  pace->applying = applying;
  if (applying)
    pace->cap_changed_usec = at_usec;
}

void
vsm_pace_restart (VsmPace *pace, const VsmDirtyInfo *di, gint64 at_usec, VsmPaceEnded how)
{
  gboolean settled = how != VSM_PACE_ENDED_PACING;

  g_return_if_fail (pace != NULL && di != NULL);
  *pace = (VsmPace){ .cap_changed_usec = pace->cap_changed_usec,
                     .applying = pace->applying,
                     /* a pacing run ends whenever a sample sees nothing new */
                     .one_big_file = !settled && pace->one_big_file,
                     .many_files = !settled && pace->many_files };
  pace->unsettled =
    how == VSM_PACE_ENDED_PACING && di->dirty_bytes + di->writeback_bytes > di->error_bytes;
  if (pace->unsettled)
    pace->last_writing_usec = at_usec;
}

gboolean
vsm_pace_held_by_cap (const VsmDirtyInfo *di, guint64 cap)
{
  g_return_val_if_fail (di != NULL, FALSE);
  return (double)(di->dirty_bytes + di->writeback_bytes) >= VSM_PACE_HELD_FILL * (double)cap;
}

gboolean
vsm_pace_settle (VsmPace *pace, const VsmDirtyInfo *di)
{
  guint64 at_risk;
  gboolean held;

  g_return_val_if_fail (pace != NULL && di != NULL, FALSE);
  at_risk = di->dirty_bytes + di->writeback_bytes;
  held = vsm_pace_held_by_cap (di, pace->cap);
  if (pace->cap == 0 || pace->applying || pace->writing || !pace->unsettled ||
      at_risk > pace->cap ||
      pace->last_usec - MAX (pace->last_writing_usec, pace->commit_ended_usec) <
        (held ? VSM_PACE_SETTLE_HELD_USEC : VSM_PACE_SETTLE_USEC) ||
      (held && pace->cap_changed_usec != 0 &&
       pace->last_usec - pace->cap_changed_usec < VSM_PACE_CAP_CHANGE_HOLD_USEC))
    return FALSE;
  pace->unsettled = FALSE; /* nothing waits: the flusher already wrote it all */
  return di->dirty_bytes + di->writeback_bytes > 0 || di->dirty_inodes > 0;
}

const char *
vsm_pace_not_safe (const VsmPace *pace, const VsmDirtyInfo *di)
{
  g_return_val_if_fail (pace != NULL && di != NULL, "no figures");
  if (!di->valid || !di->per_device || !di->has_inodes)
    return "no per-device figures";
  if (pace->writing)
    return "writing";
  if (pace->last_writing_usec != 0 &&
      pace->last_usec - pace->last_writing_usec < VSM_PACE_SETTLE_USEC)
    return "written just now";
  if (di->dirty_bytes + di->writeback_bytes == 0 && di->dirty_inodes == 0)
    return NULL; /* clean */
  if (pace->synced_usec <= pace->last_writing_usec)
    return "data or an inode waits, no sync since the last write";
  if (di->dirty_bytes > di->error_bytes || di->writeback_bytes > di->error_bytes)
    return "data at risk after the last sync";
  return NULL; /* synced, the rest within the counters' error */
}

gboolean
vsm_pace_safe (const VsmPace *pace, const VsmDirtyInfo *di)
{
  return vsm_pace_not_safe (pace, di) == NULL;
}

void
vsm_pace_synced (VsmPace *pace, gint64 started_usec)
{
  g_return_if_fail (pace != NULL);
  pace->synced_usec = MAX (pace->synced_usec, started_usec);
}

void
vsm_pace_commit_ended (VsmPace *pace, gint64 at_usec)
{
  g_return_if_fail (pace != NULL);
  pace->commit_ended_usec = MAX (pace->commit_ended_usec, at_usec);
}

gint64
vsm_pace_commit_period (guint64 cap, guint64 bandwidth)
{
  double half;

  if (cap == 0 || bandwidth == 0)
    return VSM_PACE_COMMIT_MAX_USEC;
  half = (double)cap / (double)bandwidth / 2 * G_USEC_PER_SEC;
  return (gint64)CLAMP (half, (double)VSM_PACE_COMMIT_MIN_USEC, (double)VSM_PACE_COMMIT_MAX_USEC);
}

gboolean
vsm_pace_commit_due (VsmPace *pace, gint64 at_usec, gint64 period_usec)
{
  g_return_val_if_fail (pace != NULL, FALSE);
  if (!pace->writing || pace->pacing ||
      (pace->last_commit_usec != 0 &&
       at_usec - pace->last_commit_usec < period_usec * 9 / 10)) /* the tick's jitter */
    return FALSE;
  pace->last_commit_usec = at_usec;
  return TRUE;
}

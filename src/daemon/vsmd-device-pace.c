/* vsmd-device-pace.c - a managed disk's pacing and metadata commits: when the
 * sync worker runs
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-device-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* the worker ended or is dropped; a commit's end is not logged (one a
 * second while small files are written: the settle's line counts them) */
void
vsmd_device_stop_pacing (VsmdDevice *d)
{
  if (d->pacer == NULL)
    return;
  if (vsmd_pacer_get_job (d->pacer) != VSMD_PACER_COMMIT)
    g_message ("%s: pacing stopped after %u rounds (%s)", d->bdi, vsmd_pacer_get_rounds (d->pacer),
               vsmd_pace_method_name (vsmd_pacer_get_method (d->pacer)));
  else if (vsmd_pacer_failed (d->pacer))
    g_message ("%s: a metadata commit failed", d->bdi);
  g_clear_pointer (&d->pacer, vsmd_pacer_free);
  vsm_dbus_device_set_pacing (d->skeleton, FALSE);
}

static void
start_pacing (VsmdDevice *d, const char *mount_point, VsmdPacerJob job)
{
  g_autoptr (GError) error = NULL;

  d->pacer = vsmd_pacer_start (d->bdi, d->disk_name, mount_point, job, &error);
  if (d->pacer == NULL)
    {
      g_message ("%s: cannot pace writeback: %s", d->bdi, error->message);
      d->pace_off = TRUE;
      return;
    }
  switch (job)
    {
    case VSMD_PACER_COMMIT:
      d->commits++;
      return; /* not Pacing: a moment's fsync of FAT's buffers */
    case VSMD_PACER_ONCE:
      g_message ("%s: the writer stopped: one sync of %s to commit what it left (%u metadata "
                 "commits while it wrote, their fsyncs %.2f s in all)",
                 d->bdi, mount_point, d->commits, (double)d->commits_usec / G_USEC_PER_SEC);
      break;
    case VSMD_PACER_PACE:
      g_message ("%s: pacing writeback of %s (one writer at the cap)", d->bdi, mount_point);
      break;
    }
  d->commits = 0;
  d->commits_usec = 0;
  vsm_dbus_device_set_pacing (d->skeleton, TRUE);
}

/* The cap for one big file (big) or for many files: the learner holds
 * the seconds, and the tick applies the cap it gives
 * (vsmd-device-sample.c) */
void
vsmd_device_set_one_big_file (VsmdDevice *d, gboolean big)
{
  g_autoptr (VsmPolicy) p = NULL;

  if (big == d->one_big_file)
    return;
  d->one_big_file = big;
  p = vsmd_device_policy (d);
  d->limits.max_dirty_seconds = vsmd_device_cap_seconds (d, p);
  if (d->learn != NULL && vsm_learn_set_seconds (d->learn, d->limits.max_dirty_seconds))
    {
      d->cap_learned = TRUE;
      d->cap_why = big ? "one big file paced" : "many files, or the copy ended";
    }
}

/* The cap for one big file while it is paced, for many files otherwise
 * (vsm_pace_one_big_file ()); only with a measured bandwidth (the first
 * cap stays until then) and a per-device cap (the plan's) */
static void
update_cap_seconds (VsmdDevice *d, const VsmDirtyInfo *di, gint64 at_usec)
{
  vsmd_device_set_one_big_file (d, vsm_pace_one_big_file (&d->pace, di, at_usec) &&
                                     vsmd_device_narrows_for_many_files (d) &&
                                     vsm_learn_get_bandwidth (d->learn) > 0);
}

/* one big writer at the cap: keep the file system syncing; stop as soon
 * as that ends (vsm-pace.h). Any other writer: its metadata committed
 * every half of the cap's seconds while it writes (vsm_pace_commit_due())
 * and one sync once it stopped (vsm_pace_settle()). Only a disk with one
 * mount: the figures are the disk's, and the writer could be on another of
 * its file systems. Then Safe, from the same sample. */
void
vsmd_device_update_pacing (VsmdDevice *d, const VsmDirtyInfo *di, const VsmDiskStat *st,
                           gint64 at_usec)
{
  const char *const *mp = vsm_dbus_device_get_mount_points (d->skeleton);
  guint64 cap = vsm_dbus_device_get_cap_bytes (d->skeleton);
  gboolean here, settle_here, want;

  vsm_pace_applying (&d->pace, d->applying, at_usec);
  want = vsm_pace_feed (&d->pace, di, st, at_usec, cap);

  if (d->pacer && !vsmd_pacer_is_running (d->pacer))
    {
      /* it ended: on an error (the mount went) not again on this mount; when
       * the writer stopped, again only after new samples agree (and what a
       * settle's round dirtied itself, FAT buffers, is not a writer). A
       * commit's end changes nothing of what the samples know, but a writer
       * quiet during it may have waited for it. */
      VsmdPacerJob job = vsmd_pacer_get_job (d->pacer);

      if (job == VSMD_PACER_COMMIT)
        {
          vsm_pace_commit_ended (&d->pace, at_usec);
          d->commits_usec += vsmd_pacer_get_busy_usec (d->pacer);
        }
      d->pace_off = vsmd_pacer_failed (d->pacer);
      if (d->pace_off || job != VSMD_PACER_COMMIT)
        {
          vsm_pace_restart (&d->pace, di, at_usec,
                            d->pace_off              ? VSM_PACE_ENDED_FAILED
                            : job == VSMD_PACER_ONCE ? VSM_PACE_ENDED_SETTLE
                                                     : VSM_PACE_ENDED_PACING);
          want = FALSE;
        }
      /* what was written before its last sync began is on the drive, the
       * directory entries too (Safe) */
      if (!d->pace_off)
        vsm_pace_synced (&d->pace, vsmd_pacer_get_synced_from (d->pacer));
      vsmd_device_stop_pacing (d);
    }
  update_cap_seconds (d, di, at_usec);
  /* not held off by an apply in flight: the first copy to a new drive is
   * when its cap is learned and applied again, and a round only syncs the
   * mount (CI's daemon check lost its whole 96 MiB window to that apply) */
  settle_here = d->mounted && !d->pace_off && mp && mp[0] && !mp[1];
  /* pacing and commits only where the plan says (not on SSDs and hard
   * disks); the settle everywhere: one sync when a copy is done writes the
   * directory entries the flusher would leave for half a minute, and Safe
   * (the agent's "safe to unplug") waits for them */
  here = d->pace_class && settle_here;
  want = want && here;
  if (want && d->pacer == NULL)
    start_pacing (d, mp[0], VSMD_PACER_PACE);
  else if (!want && d->pacer)
    vsmd_pacer_request_stop (d->pacer); /* Pacing stays TRUE until it ended */
  else if (settle_here && d->pacer == NULL && vsm_pace_settle (&d->pace, di))
    start_pacing (d, mp[0], VSMD_PACER_ONCE); /* a paced writer's last round was its settle */
  else if (here && d->pacer == NULL &&
           vsm_pace_commit_due (
             &d->pace, at_usec,
             vsm_pace_commit_period (cap, vsm_learn_get_cap_bandwidth (d->learn))))
    start_pacing (d, mp[0], VSMD_PACER_COMMIT);
  vsmd_device_update_safe (d, di);
}

/* Safe within a tick of the moment: a sync that still runs is not done, and
 * the disk's in-flight writes are read only when the figures say safe. A
 * writer that paused with everything written (its source stalled) is not
 * done either: before Safe turns true no process may hold a file of the
 * drive open for writing (the processes' open files are read then, and
 * less and less often while one does: WRITERS_CHECK_USEC). Why it is
 * false goes to the debug log when the reason changes
 * (G_MESSAGES_DEBUG=vfat-smart), with the figures that said so. */
void
vsmd_device_update_safe (VsmdDevice *d, const VsmDirtyInfo *di)
{
  const char *why = d->pacer ? "a sync runs" : vsm_pace_not_safe (&d->pace, di);
  gint64 now = g_get_monotonic_time ();

  if (why == NULL && vsm_disk_writes_in_flight (d->bdi) != 0)
    why = "writes in flight";
  if (why != NULL)
    d->writers_seen = d->writers_wait = 0;
  else if (!vsm_dbus_device_get_safe (d->skeleton))
    {
      if (d->writers_seen == 0 || now - d->writers_seen >= d->writers_wait)
        {
          if (vsm_disk_has_open_writers (d->disk_syspath))
            {
              d->writers_wait =
                CLAMP (2 * d->writers_wait, WRITERS_CHECK_USEC, WRITERS_CHECK_MAX_USEC);
              d->writers_seen = now;
            }
          else
            d->writers_seen = d->writers_wait = 0;
        }
      if (d->writers_seen != 0)
        why = "a file is open for writing";
    }
  if (why != d->unsafe_why)
    g_debug ("%s: %s%s (dirty %" G_GUINT64_FORMAT ", writeback %" G_GUINT64_FORMAT
             ", error %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " inodes)",
             d->bdi, why ? "not safe: " : "safe", why ? why : "", di->dirty_bytes,
             di->writeback_bytes, di->error_bytes, (guint64)di->dirty_inodes);
  d->unsafe_why = why;
  vsm_dbus_device_set_safe (d->skeleton, why == NULL);
}

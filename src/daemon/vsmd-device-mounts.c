/* vsmd-device-mounts.c - a managed disk's mounts: who mounted it, the options for
 * the mount, the drive's history
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-device-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* ---- mounts and history ---- */

/* udisks mounts FAT with uid=$UID of whoever asked: that is who mounted it */
static guint32
mount_owner (GPtrArray *mounts)
{
  for (guint i = 0; i < mounts->len; i++)
    {
      VsmMountInfo *m = g_ptr_array_index (mounts, i);
      g_auto (GStrv) opts = g_strsplit (m->options ? m->options : "", ",", -1);
      for (char **o = opts; *o; o++)
        {
          guint64 uid;
          if (g_str_has_prefix (*o, "uid=") && vsm_parse_u64 (*o + 4, &uid) && uid < NO_UID)
            return (guint32)uid;
        }
    }
  return NO_UID;
}

typedef struct
{
  char *identity;
  char *bdi;
  VsmDriveMount mount;
} HistoryJob;

static void
history_job_free (HistoryJob *j)
{
  g_free (j->identity);
  g_free (j->bdi);
  g_free (j);
}

/* in a worker: the state lock may be held for up to its wait, and the
 * write ends with fsync */
static void
history_run (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  HistoryJob *j = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmDriveHistory) h = NULL;

  if (!vsm_drive_history_record (j->identity, &j->mount, &error))
    g_warning ("%s: history not kept: %s", j->bdi, error->message);
  h = vsm_drive_history_load (j->identity, NULL);
  g_task_return_pointer (task, h ? vsm_drive_history_describe (h) : NULL, g_free);
}

static void
history_done (GObject *source, GAsyncResult *res, gpointer data)
{
  VsmdDevice *d = VSMD_DEVICE (source);
  g_autofree char *text = g_task_propagate_pointer (G_TASK (res), NULL);

  d->history_jobs--;
  if (text != NULL)
    vsm_dbus_device_set_history (d->skeleton, text);
  vsmd_device_emit_job_done (d);
}

/* The mount ended: its entry is written by a worker; SIGTERM waits for it
 * (vsmd_device_workers), no temporary file of it is left. */
void
vsmd_device_record_mount (VsmdDevice *d)
{
  g_autoptr (GPtrArray) unmounts = vsm_history_unmounts (d->bdi, 1);
  VsmUnmountRecord *last = unmounts->len ? g_ptr_array_index (unmounts, 0) : NULL;
  g_autoptr (GTask) task = NULL;
  HistoryJob *j;

  if (d->identity == NULL || d->learn == NULL)
    return;
  j = g_new0 (HistoryJob, 1);
  j->identity = g_strdup (d->identity);
  j->bdi = g_strdup (d->bdi);
  j->mount.at_usec = g_get_real_time ();
  j->mount.bandwidth = d->measured_this_mount;
  j->mount.cap_bytes = vsm_dbus_device_get_cap_bytes (d->skeleton);
  j->mount.bytes_written = vsm_learn_get_bytes_written (d->learn) - d->written_at_mount;
  /* the umount helper's own timing, when it ran within the last minute */
  j->mount.seconds_to_safe =
    last && j->mount.at_usec - last->at_usec < 60 * G_USEC_PER_SEC ? last->seconds : -1;
  task = g_task_new (d, NULL, history_done, NULL);
  d->history_jobs++;
  g_task_set_task_data (task, j, (GDestroyNotify)history_job_free);
  g_task_run_in_thread (task, history_run);
}

static void
set_mounted (VsmdDevice *d, gboolean mounted)
{
  if (mounted == d->mounted)
    return;
  d->mounted = mounted;
  d->pace_off = FALSE;
  d->drift_retries = 0;
  d->pace = (VsmPace){ 0 };
  vsmd_device_stop_pacing (d);
  vsmd_device_set_one_big_file (d, FALSE);
  if (mounted)
    {
      d->written_at_mount = d->learn ? vsm_learn_get_bytes_written (d->learn) : 0;
      d->measured_this_mount = 0;
      vsmd_device_read_facts (d);
      vsmd_device_start_ticking (d, TICK_BUSY_MS);
    }
  else
    vsmd_device_record_mount (d);
}

/* SetOptions last for one mount: what was kept across a restart counts
 * again when it is still that mount; an unmount ends them */
static void
follow_mount (VsmdDevice *d, guint32 uid, const char *const *mount_points)
{
  g_autofree char *key = vsm_user_options_mount_key (uid, mount_points);

  /* udisks may answer after libmount: a while to see the mount again */
  if (d->adopted != NULL && (d->mounted || g_get_monotonic_time () > d->adopt_until))
    {
      VsmUserOptions *o = g_steal_pointer (&d->adopted);
      if (d->mounted && g_strcmp0 (o->mount, key) == 0)
        {
          g_message ("%s: the options set for this mount are in force again", d->bdi);
          vsmd_device_reset_options (d, o);
          return;
        }
      vsm_user_options_free (o);
      vsm_user_options_remove (d->bdi, NULL);
      d->options_changed = TRUE; /* the record's intent may still hold them */
    }
  if (d->options != NULL && (!d->mounted || g_strcmp0 (d->options->mount, key) != 0))
    vsmd_device_reset_options (d, NULL);
}

void
vsmd_device_set_mount_points (VsmdDevice *d, const char *const *mount_points)
{
  g_autoptr (GPtrArray) mounts = vsm_mounts_for_disk (d->disk_syspath);
  g_autoptr (GPtrArray) targets = g_ptr_array_new ();
  guint32 owner;

  /* the kernel's mount table first: udisks' view of a new mount can come
   * later than libmount's event, and a mount published without its points
   * (MountedBy set, MountPoints empty) would be a state no client should see */
  if (mount_points == NULL || mounts->len > 0)
    {
      for (guint i = 0; i < mounts->len; i++)
        g_ptr_array_add (targets, ((VsmMountInfo *)g_ptr_array_index (mounts, i))->target);
      g_ptr_array_add (targets, NULL);
      mount_points = (const char *const *)targets->pdata;
    }
  owner = mount_owner (mounts);
  if (owner == NO_UID)
    owner = vsmd_options_mount_point_owner (mount_points);
  if (mount_points[0] == NULL)
    owner = NO_UID;
  vsm_dbus_device_set_mount_points (d->skeleton, mount_points);
  vsm_dbus_device_set_mounted_by (d->skeleton, owner);
  vsmd_device_publish_flush_mode (d, NULL, mounts);
  set_mounted (d, mount_points[0] != NULL);
  follow_mount (d, owner, mount_points);
  if (vsm_global_knobs_due (d->device_cap, d->mounted, &d->global_for_mounted))
    vsmd_device_start_job (d, VSMD_JOB_REAPPLY, d->mounted ? "mounted" : "unmounted", NULL);
}

/* vsmd-device.c - one managed disk on the bus
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-device.h"
#include "vsm-dbus-contract.h"
#include "vsmd-limits.h"
#include "vsmd-options.h"
#include "vsmd-pacer.h"

#include "vsm.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* sampling: once a second while data is at risk or the disk writes,
 * every few seconds while it is idle (only to notice the next write) */
#define TICK_BUSY_MS 1000
#define TICK_IDLE_MS 3000
/* how often the cap in force is compared with the one planned (max_bytes
 * is kept as a ratio of the dirty threshold and moves with it) */
#define DRIFT_CHECK_USEC (10 * G_USEC_PER_SEC)
#define DRIFT_TOLERANCE 0.1
/* re-applies per mount for a cap the kernel does not keep: then it is left */
#define DRIFT_MAX_RETRIES 3
#define NO_UID G_MAXUINT32
/* SetOptions kept by a previous run wait this long for their mount */
#define ADOPT_WAIT_USEC (10 * G_USEC_PER_SEC)
/* without per-device figures (debugfs not mounted) the system's dirty data
 * counts for a drive only this long after it last wrote: the kernel writes
 * dirty pages out after dirty_expire_centisecs (30 s) at the latest */
#define SYSTEM_SCOPE_USEC (35 * G_USEC_PER_SEC)

struct _VsmdDevice
{
  GObject parent;
  VsmdBouncer *bouncer;
  VsmDbusDevice *skeleton;
  char *bdi;
  char *object_path;
  char *disk_syspath;
  char *disk_name;
  char *identity; /* NULL: the drive cannot be told apart, nothing remembered */

  VsmLearn *learn;
  VsmLearnLimits limits;
  VsmUserOptions *options; /* SetOptions for this mount (vsmd-options.c) */
  VsmUserOptions *adopted; /* read at start, until the mount is known */
  gboolean device_cap;     /* the kernel has per-device caps (6.2+) */
  int global_for_mounted;  /* vm.* knobs last planned for mounted (1), not (0), -1: never */
  gint64 adopt_until;
  gboolean applying;  /* an apply or restore runs in a thread */
  guint history_jobs; /* history writes running in a thread */
  gboolean retired;   /* the drive or its record went: the object is off the bus */
  gboolean stopping;  /* the daemon stops: nothing new is applied */
  gboolean removed;   /* udev's remove of the disk came */
  guint tick_id;
  gint64 last_drift_check;

  gint64 last_write; /* monotonic time the disk last wrote */
  gboolean mounted;
  guint64 written_at_mount; /* the learner's count when the mount began */
  guint64 measured_this_mount;

  gboolean uses_global;     /* the record holds the vm.* knobs */
  guint drift_retries;      /* re-applies for drift that did not hold, this mount */
  VsmPace pace;             /* when to pace (vsm-pace.h) */
  VsmdPacer *pacer;         /* the sync worker while pacing, settling, committing */
  guint commits;            /* metadata commits since the last settle or pacing */
  gboolean pace_off;        /* the worker failed on this mount: not again */
  gboolean pace_class;      /* the plan paces this drive's class (VsmState) */
  gboolean options_changed; /* the next apply records the options in force */
  gboolean class_asked;     /* the next apply records class_wanted (ApplyWith) */
  VsmClass class_wanted;
  gboolean class_waiting; /* ApplyWith's class while polkit is asked */
  VsmClass class_waiting_value;

  VsmStall stall;          /* throttled writers with no writeback (vsm-stall.h) */
  gboolean strict_on;      /* the record has strict_limit=1 applied */
  char *strict_dropped;    /* why strict_limit is dropped for this drive (a serialized
                            * VsmReason); NULL: it is not */
  guint strict_drop_tries; /* applies that did not drop it */
};

enum
{
  SIGNAL_RECORD_GONE,
  SIGNAL_JOB_DONE,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (VsmdDevice, vsmd_device, G_TYPE_OBJECT)

static void
vsmd_device_finalize (GObject *object)
{
  VsmdDevice *d = VSMD_DEVICE (object);

  g_clear_handle_id (&d->tick_id, g_source_remove);
  g_clear_pointer (&d->pacer, vsmd_pacer_free);
  g_clear_object (&d->skeleton);
  g_clear_object (&d->bouncer);
  g_clear_pointer (&d->learn, vsm_learn_free);
  g_clear_pointer (&d->options, vsm_user_options_free);
  g_clear_pointer (&d->adopted, vsm_user_options_free);
  g_free (d->bdi);
  g_free (d->object_path);
  g_free (d->disk_syspath);
  g_free (d->disk_name);
  g_free (d->identity);
  g_free (d->strict_dropped);
  G_OBJECT_CLASS (vsmd_device_parent_class)->finalize (object);
}

static void
vsmd_device_class_init (VsmdDeviceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = vsmd_device_finalize;
  /* the disk's record went (Restore): the daemon drops the object */
  signals[SIGNAL_RECORD_GONE] =
    g_signal_new ("record-gone", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
  /* an apply or restore in a worker ended (the daemon waits for it to stop) */
  signals[SIGNAL_JOB_DONE] = g_signal_new ("job-done", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
vsmd_device_init (VsmdDevice *d)
{
  d->last_write = G_MININT64 / 2;
}

const char *
vsmd_device_get_bdi (VsmdDevice *d)
{
  return d->bdi;
}

const char *
vsmd_device_get_object_path (VsmdDevice *d)
{
  return d->object_path;
}

gboolean
vsmd_device_is_mounted (VsmdDevice *d)
{
  return d->mounted;
}

guint64
vsmd_device_get_at_risk_bytes (VsmdDevice *d)
{
  return vsm_dbus_device_get_at_risk_bytes (d->skeleton);
}

gboolean
vsmd_device_is_busy (VsmdDevice *d)
{
  return d->applying || vsm_dbus_device_get_at_risk_bytes (d->skeleton) > 0;
}

const char *
vsmd_device_get_disk_syspath (VsmdDevice *d)
{
  return d->disk_syspath;
}

void
vsmd_device_set_removed (VsmdDevice *d, gboolean removed)
{
  d->removed = removed;
}

gboolean
vsmd_device_is_applying (VsmdDevice *d)
{
  return d->applying;
}

guint
vsmd_device_workers (VsmdDevice *d)
{
  return (d->applying ? 1 : 0) + d->history_jobs;
}

void
vsmd_device_stop (VsmdDevice *d)
{
  d->stopping = TRUE;
}

/* TRUE when the call was answered: the daemon stops */
static gboolean
refuse_when_stopping (VsmdDevice *d, GDBusMethodInvocation *inv)
{
  if (!d->stopping)
    return FALSE;
  if (inv != NULL)
    g_dbus_method_invocation_return_error (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                           "%s: vfat-smartd is shutting down", d->bdi);
  return TRUE;
}

/* the policy, with what SetOptions decided for this drive */
static VsmPolicy *
device_policy (VsmdDevice *d)
{
  VsmPolicy *p = vsm_policy_load ();

  vsmd_options_policy_for (p, d->options, d->mounted, d->device_cap);
  return p;
}

/* the limits from the policy and SetOptions; cap_in_force: what is applied */
static void
reset_limits (VsmdDevice *d, guint64 start_bandwidth, guint64 cap_in_force)
{
  g_autoptr (VsmPolicy) p = device_policy (d);

  d->limits.max_dirty_seconds = p->max_dirty_seconds;
  d->limits.cap_min_bytes = p->cap_min_bytes;
  d->limits.cap_max_bytes = p->cap_max_bytes;
  vsmd_options_publish (d->skeleton, p);
  if (d->learn == NULL)
    d->learn = vsm_learn_new (&d->limits, MAX (start_bandwidth, 1), g_get_monotonic_time ());
  vsm_learn_set_limits (d->learn, &d->limits, cap_in_force);
}

/* FlushMode: what the mount really has (a client may have asked for
 * flush, exFAT has none), not only what the record planned. state: NULL
 * for the record; mounts: NULL to read them. */
static void
publish_flush_mode (VsmdDevice *d, const VsmState *state, GPtrArray *mounts)
{
  g_autoptr (VsmState) loaded = state ? NULL : vsm_state_load (d->bdi, NULL);
  g_autoptr (VsmFlushTruth) t = NULL;
  const char *was = vsm_dbus_device_get_flush_mode (d->skeleton);

  if (state == NULL && (state = loaded) == NULL)
    return;
  t = vsm_flush_truth_for_state (state, mounts);
  if (t->reason != NULL && g_strcmp0 (was, t->mode) != 0)
    g_message ("%s: flush mode %s, planned %s: %s", d->bdi, t->mode, t->planned, t->reason);
  vsm_dbus_device_set_flush_mode (d->skeleton, t->mode);
}

static void
publish_state (VsmdDevice *d, const VsmState *s)
{
  vsm_dbus_device_set_device (d->skeleton, s->disk_node ? s->disk_node : "");
  vsm_dbus_device_set_bdi (d->skeleton, s->bdi);
  vsm_dbus_device_set_class (d->skeleton, s->class_name ? s->class_name : "unknown");
  publish_flush_mode (d, s, NULL);
  vsm_dbus_device_set_cap_bytes (d->skeleton, s->cap_bytes);
  d->uses_global = s->uses_global;
  d->pace_class = s->pace_writeback;
  d->strict_on = vsm_state_strict_limit_on (s);
}

static void start_job (VsmdDevice *d, gboolean restore, const char *reason,
                       GDBusMethodInvocation *inv);

/* Another front end applied (the udev helper on a change event) with the
 * policy's or the history's numbers: what was measured, or set with
 * SetOptions, for this mount is put back. */
static void
reassert_cap (VsmdDevice *d, const VsmState *s)
{
  guint64 want;

  if (s->cap_bytes == 0 || g_strcmp0 (s->updated_by, VSM_SOURCE_DAEMON) == 0 || d->applying ||
      (vsm_learn_get_bandwidth (d->learn) == 0 && vsm_user_options_is_empty (d->options)))
    return;
  want = vsm_learn_cap_for (&d->limits, vsm_learn_get_cap_bandwidth (d->learn));
  if (fabs ((double)want - (double)s->cap_bytes) <= VSM_LEARN_HYSTERESIS * (double)s->cap_bytes)
    return;
  g_message ("%s: %s applied a cap of %" G_GUINT64_FORMAT
             " bytes; this mount's is %" G_GUINT64_FORMAT,
             d->bdi, s->source ? s->source : "?", s->cap_bytes, want);
  start_job (d, FALSE, "another front end applied another cap", NULL);
}

void
vsmd_device_update_state (VsmdDevice *d, const VsmState *s)
{
  gboolean cap_moved = s->cap_bytes != vsm_dbus_device_get_cap_bytes (d->skeleton);

  publish_state (d, s);
  if (cap_moved || d->learn == NULL)
    reset_limits (d, s->bandwidth, s->cap_bytes);
  if (cap_moved)
    reassert_cap (d, s);
  /* strict_limit stays dropped for the drive: another front end's apply
   * (a change event's) set it again */
  if (d->strict_dropped && d->strict_on && !d->applying && d->strict_drop_tries < 3)
    {
      d->strict_drop_tries++;
      g_message ("%s: strict_limit is set again; dropping it (the writeback stall fallback)",
                 d->bdi);
      start_job (d, FALSE, "strict_limit set again by another front end", NULL);
    }
  else if (!d->strict_on)
    d->strict_drop_tries = 0;
}

/* facts only the drive tells (identity, removable, confidence); again at
 * a mount: a partitioned drive without a USB serial is named by its
 * mounted FAT partition's UUID (vsm_drive_identity). On the main loop:
 * sysfs attributes (the kernel's copies), udev's database and
 * /proc/self/mountinfo only, the drive itself is never read (a partitioned
 * disk has no ID_FS_TYPE, and a superblock probe of a dying stick could
 * block for the SCSI error handler's timeouts) */
static void
read_facts (VsmdDevice *d)
{
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  g_autoptr (VsmDevice) dev = vsm_device_new_from_syspath_no_io (client, d->disk_syspath, NULL);
  g_autoptr (VsmClassification) c = NULL;
  g_autoptr (VsmDriveHistory) h = NULL;

  if (dev == NULL)
    return;
  c = vsm_classify (dev);
  vsm_dbus_device_set_confidence (d->skeleton, c->confidence);
  vsm_dbus_device_set_removable (d->skeleton,
                                 dev->removable || vsm_transport_is_usb (dev->transport));
  g_free (d->identity);
  d->identity = vsm_drive_identity (dev);
  h = d->identity ? vsm_drive_history_load (d->identity, NULL) : NULL;
  if (h != NULL)
    {
      g_autofree char *text = vsm_drive_history_describe (h);
      vsm_dbus_device_set_history (d->skeleton, text);
    }
}

static void start_ticking (VsmdDevice *d, guint ms);
static gboolean on_apply (VsmDbusDevice *s, GDBusMethodInvocation *inv, VsmdDevice *d);
static gboolean on_apply_with (VsmDbusDevice *s, GDBusMethodInvocation *inv, GVariant *options,
                               VsmdDevice *d);
static gboolean on_restore (VsmDbusDevice *s, GDBusMethodInvocation *inv, VsmdDevice *d);
static gboolean on_set_options (VsmDbusDevice *s, GDBusMethodInvocation *inv, GVariant *options,
                                VsmdDevice *d);

VsmdDevice *
vsmd_device_new (VsmdBouncer *bouncer, const VsmState *s)
{
  VsmdDevice *d = g_object_new (VSMD_TYPE_DEVICE, NULL);

  d->bouncer = g_object_ref (bouncer);
  d->bdi = g_strdup (s->bdi);
  d->object_path = vsm_dbus_device_path (s->bdi);
  d->disk_syspath = g_strdup (s->disk_syspath);
  d->disk_name = g_strdup (s->disk_name);
  d->skeleton = vsm_dbus_device_skeleton_new ();
  /* every property has its idle value before the export: a change after it
   * (even unset to []) is a PropertiesChanged that a client would see */
  vsm_dbus_device_set_mount_points (d->skeleton, (const char *const[]){ NULL });
  vsm_dbus_device_set_mounted_by (d->skeleton, NO_UID);
  vsm_dbus_device_set_bandwidth_source (d->skeleton, s->bandwidth ? N_ ("plan") : "");
  vsm_dbus_device_set_at_risk_scope (d->skeleton, "device");
  g_signal_connect (d->skeleton, "handle-apply", G_CALLBACK (on_apply), d);
  g_signal_connect (d->skeleton, "handle-apply-with", G_CALLBACK (on_apply_with), d);
  g_signal_connect (d->skeleton, "handle-restore", G_CALLBACK (on_restore), d);
  g_signal_connect (d->skeleton, "handle-set-options", G_CALLBACK (on_set_options), d);
  d->adopted = vsmd_options_adopt (d->bdi);
  d->device_cap = vsmd_options_kernel_has_device_cap (d->bdi);
  d->global_for_mounted = -1;
  vsm_stall_init (&d->stall, NULL);
  d->stall.limits.slack_bytes =
    vsm_wb_stat_error_bytes (g_get_num_processors (), (guint64)sysconf (_SC_PAGESIZE));
  d->adopt_until = g_get_monotonic_time () + ADOPT_WAIT_USEC;
  vsmd_device_update_state (d, s);
  read_facts (d);
  start_ticking (d, TICK_IDLE_MS);
  return d;
}

gboolean
vsmd_device_export (VsmdDevice *d, GDBusConnection *connection, GError **error)
{
  return g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (d->skeleton), connection,
                                           d->object_path, error);
}

void
vsmd_device_unexport (VsmdDevice *d)
{
  g_clear_handle_id (&d->tick_id, g_source_remove);
  if (g_dbus_interface_skeleton_get_object_path (G_DBUS_INTERFACE_SKELETON (d->skeleton)))
    g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (d->skeleton));
}

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
  g_signal_emit (d, signals[SIGNAL_JOB_DONE], 0);
}

/* The mount ended: its entry is written by a worker; SIGTERM waits for it
 * (vsmd_device_workers), no temporary file of it is left. */
static void
record_mount (VsmdDevice *d)
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

/* the worker ended or is dropped; a commit's end is not logged (one a
 * second while small files are written: the settle's line counts them) */
static void
stop_pacing (VsmdDevice *d)
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
                 "commits while it wrote)",
                 d->bdi, mount_point, d->commits);
      break;
    case VSMD_PACER_PACE:
      g_message ("%s: pacing writeback of %s (one writer at the cap)", d->bdi, mount_point);
      break;
    }
  d->commits = 0;
  vsm_dbus_device_set_pacing (d->skeleton, TRUE);
}

/* one big writer at the cap: keep the file system syncing; stop as soon
 * as that ends (vsm-pace.h). Any other writer: its metadata committed
 * once a second while it writes (vsm_pace_commit_due()) and one sync once
 * it stopped (vsm_pace_settle()). Only a disk with one mount: the figures
 * are the disk's, and the writer could be on another of its file systems. */
static void
update_pacing (VsmdDevice *d, const VsmDirtyInfo *di, const VsmDiskStat *st, gint64 at_usec)
{
  const char *const *mp = vsm_dbus_device_get_mount_points (d->skeleton);
  gboolean want =
    vsm_pace_feed (&d->pace, di, st, at_usec, vsm_dbus_device_get_cap_bytes (d->skeleton));
  gboolean here;

  if (d->pacer && !vsmd_pacer_is_running (d->pacer))
    {
      /* it ended: on an error (the mount went) not again on this mount; when
       * the writer stopped, again only after new samples agree (and what a
       * settle's round dirtied itself, FAT buffers, is not a writer). A
       * commit's end changes nothing of what the samples know. */
      d->pace_off = vsmd_pacer_failed (d->pacer);
      if (vsmd_pacer_get_job (d->pacer) != VSMD_PACER_COMMIT || d->pace_off)
        {
          d->pace = (VsmPace){ 0 };
          want = FALSE;
        }
      stop_pacing (d);
    }
  /* not held off by an apply in flight: the first copy to a new drive is
   * when its cap is learned and applied again, and a round only syncs the
   * mount (CI's daemon check lost its whole 96 MiB window to that apply) */
  here = d->pace_class && d->mounted && !d->pace_off && mp && mp[0] && !mp[1];
  want = want && here;
  if (want && d->pacer == NULL)
    start_pacing (d, mp[0], VSMD_PACER_PACE);
  else if (!want && d->pacer)
    vsmd_pacer_request_stop (d->pacer); /* Pacing stays TRUE until it ended */
  else if (here && d->pacer == NULL && vsm_pace_settle (&d->pace, di))
    start_pacing (d, mp[0], VSMD_PACER_ONCE); /* a paced writer's last round was its settle */
  else if (here && d->pacer == NULL && vsm_pace_commit_due (&d->pace, at_usec))
    start_pacing (d, mp[0], VSMD_PACER_COMMIT);
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
  stop_pacing (d);
  if (mounted)
    {
      d->written_at_mount = d->learn ? vsm_learn_get_bytes_written (d->learn) : 0;
      d->measured_this_mount = 0;
      read_facts (d);
      start_ticking (d, TICK_BUSY_MS);
    }
  else
    record_mount (d);
}

static void reset_options (VsmdDevice *d, VsmUserOptions *options);

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
          reset_options (d, o);
          return;
        }
      vsm_user_options_free (o);
      vsm_user_options_remove (d->bdi, NULL);
      d->options_changed = TRUE; /* the record's intent may still hold them */
    }
  if (d->options != NULL && (!d->mounted || g_strcmp0 (d->options->mount, key) != 0))
    reset_options (d, NULL);
}

void
vsmd_device_set_mount_points (VsmdDevice *d, const char *const *mount_points)
{
  g_autoptr (GPtrArray) mounts = vsm_mounts_for_disk (d->disk_syspath);
  g_autoptr (GPtrArray) targets = g_ptr_array_new ();
  guint32 owner;

  if (mount_points == NULL)
    {
      for (guint i = 0; i < mounts->len; i++)
        g_ptr_array_add (targets, ((VsmMountInfo *)g_ptr_array_index (mounts, i))->target);
      g_ptr_array_add (targets, NULL);
      mount_points = (const char *const *)targets->pdata;
    }
  owner = mount_owner (mounts);
  if (owner == NO_UID)
    owner = vsmd_options_mount_point_owner (mount_points);
  vsm_dbus_device_set_mount_points (d->skeleton, mount_points);
  vsm_dbus_device_set_mounted_by (d->skeleton, owner);
  publish_flush_mode (d, NULL, mounts);
  set_mounted (d, mount_points[0] != NULL);
  follow_mount (d, owner, mount_points);
  if (vsm_global_knobs_due (d->device_cap, d->mounted, &d->global_for_mounted))
    start_job (d, FALSE, d->mounted ? "mounted" : "unmounted", NULL);
}

void
vsmd_device_retire (VsmdDevice *d)
{
  /* Pulled while mounted: udev's remove (the helper forgets the record)
   * may come before udisks reports the unmount, which then reaches no
   * object; the mount ends here, once (an unmount seen first cleared
   * mounted). A Restore while mounted ends no mount: no entry. */
  if (d->mounted && (d->removed || !g_file_test (d->disk_syspath, G_FILE_TEST_IS_DIR)))
    {
      g_message ("%s: pulled while mounted; the mount goes into the history", d->bdi);
      record_mount (d);
    }
  d->mounted = FALSE;
  d->retired = TRUE;
  stop_pacing (d);
  g_clear_handle_id (&d->tick_id, g_source_remove);
  reset_options (d, NULL);
  vsmd_device_unexport (d);
}

/* ---- applying, off the main loop ---- */

typedef struct
{
  char *syspath;
  char *bdi;
  char *reason;
  VsmPolicy *policy;
  guint64 bandwidth;
  gboolean restore;
  gboolean set_options;
  VsmUserOptions *options;
  gboolean set_class;
  VsmClass klass;
  char *drop_strict_limit; /* why; NULL: the plan's strict_limit */
} Job;

static void
job_free (Job *j)
{
  g_free (j->syspath);
  g_free (j->bdi);
  g_free (j->reason);
  g_free (j->drop_strict_limit);
  vsm_policy_free (j->policy);
  vsm_user_options_free (j->options);
  g_free (j);
}

/* the engine plans again from what the record says was asked */
static void
job_run (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *j = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GUdevClient) client = g_udev_client_new (NULL);
  VsmReapply r = { .reason = j->reason,
                   .bandwidth = j->bandwidth,
                   .bandwidth_source = N_ ("measured by vfat-smartd"),
                   .policy = g_steal_pointer (&j->policy),
                   .set_user_options = j->set_options,
                   .user_options = j->options,
                   .set_class = j->set_class,
                   .klass = j->klass,
                   .drop_strict_limit = j->drop_strict_limit };
  gboolean ok;

  if (j->restore)
    {
      vsm_policy_free (r.policy);
      ok = vsm_restore (j->bdi, VSM_LOCK_WAIT_MS, NULL, &error);
    }
  else
    ok = vsm_reapply (client, j->bdi, &r, NULL, &error);
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
job_done (GObject *source, GAsyncResult *res, gpointer data)
{
  VsmdDevice *d = VSMD_DEVICE (source);
  g_autoptr (GDBusMethodInvocation) inv = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (VsmState) state = NULL;
  gboolean ok = g_task_propagate_boolean (G_TASK (res), &error);

  d->applying = FALSE;
  state = vsm_state_load (d->bdi, NULL);
  if (state != NULL)
    vsmd_device_update_state (d, state);
  if (!ok && g_error_matches (error, VSM_ERROR, VSM_ERROR_NOT_MANAGED))
    g_message ("%s", error->message);
  else if (!ok)
    g_warning ("%s: %s", d->bdi, error->message);
  if (inv != NULL && ok)
    g_dbus_method_invocation_return_value (inv, NULL);
  else if (inv != NULL)
    g_dbus_method_invocation_take_error (inv, vsm_dbus_error_from_core (error));
  /* before record-gone: that drops the daemon's handlers */
  g_signal_emit (d, signals[SIGNAL_JOB_DONE], 0);
  if (state == NULL)
    g_signal_emit (d, signals[SIGNAL_RECORD_GONE], 0);
}

void
vsmd_device_finish_pending (VsmdDevice *d)
{
  g_message ("%s: an apply did not finish; finishing it before managing the drive", d->bdi);
  start_job (d, FALSE, "an apply did not finish", NULL);
}

/* inv may be NULL (the daemon's own re-apply); reason: why it applies */
static void
start_job (VsmdDevice *d, gboolean restore, const char *reason, GDBusMethodInvocation *inv)
{
  g_autoptr (GTask) task = NULL;
  Job *j;

  if (refuse_when_stopping (d, inv))
    return;
  if (d->applying)
    {
      if (inv)
        g_dbus_method_invocation_return_error (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                               "%s: an apply is already running", d->bdi);
      return;
    }
  /* the task's ref on inv is dropped in job_done, after the reply */
  task = g_task_new (d, NULL, job_done, inv ? g_object_ref (inv) : NULL);
  j = g_new0 (Job, 1);
  d->applying = TRUE;
  j->syspath = g_strdup (d->disk_syspath);
  j->bdi = g_strdup (d->bdi);
  /* the admin's policy for this drive; the options in force are the
   * record's intent, replaced when they changed */
  j->policy = vsm_policy_load ();
  vsmd_options_policy_for (j->policy, NULL, d->mounted, d->device_cap);
  j->bandwidth = d->learn ? vsm_learn_get_bandwidth (d->learn) : 0;
  j->restore = restore;
  j->reason = g_strdup (reason);
  j->set_options = d->options_changed;
  j->options = d->options ? vsm_user_options_copy (d->options) : NULL;
  j->set_class = d->class_asked;
  j->klass = d->class_wanted;
  if (!restore)
    d->options_changed = d->class_asked = FALSE;
  j->drop_strict_limit = g_strdup (d->strict_dropped);
  g_task_set_task_data (task, j, (GDestroyNotify)job_free);
  g_task_run_in_thread (task, job_run);
}

/* ---- sampling ---- */

static void
check_cap_drift (VsmdDevice *d)
{
  g_autofree char *path = vsm_knob_path (d->bdi, "max_bytes");
  guint64 cap = vsm_dbus_device_get_cap_bytes (d->skeleton), now = 0;

  d->last_drift_check = g_get_monotonic_time ();
  if (cap == 0 || d->applying || !vsm_read_u64 (path, &now, NULL))
    return;
  if (fabs ((double)now - (double)cap) > DRIFT_TOLERANCE * (double)cap)
    {
      if (d->drift_retries >= DRIFT_MAX_RETRIES)
        return; /* the kernel does not hold it (above the dirty threshold) */
      d->drift_retries++;
      g_message ("%s: max_bytes reads %" G_GUINT64_FORMAT " for a cap of %" G_GUINT64_FORMAT
                 " (the dirty threshold moved): applying again",
                 d->bdi, now, cap);
      start_job (d, FALSE, "the cap in force drifted", NULL);
    }
}

static void
publish_sample (VsmdDevice *d, const VsmDirtyInfo *di)
{
  guint64 measured = vsm_learn_get_bandwidth (d->learn);
  guint64 bw = vsm_learn_get_cap_bandwidth (d->learn);
  guint64 cap = vsm_dbus_device_get_cap_bytes (d->skeleton);
  const char *kind = NULL;
  /* the whole system's figure counts only while this drive can own part of
   * it: not long after it last wrote */
  guint64 at_risk = vsm_at_risk_bytes (
    di, cap, g_get_monotonic_time () - d->last_write <= SYSTEM_SCOPE_USEC, &kind);

  vsm_dbus_device_set_write_bandwidth (d->skeleton, measured);
  if (measured > 0)
    vsm_dbus_device_set_bandwidth_source (d->skeleton, N_ ("measured while writing"));
  vsm_dbus_device_set_at_risk_bytes (d->skeleton, at_risk);
  vsm_dbus_device_set_at_risk_scope (d->skeleton, kind);
  vsm_dbus_device_set_seconds_to_safe (d->skeleton,
                                       bw > 1 ? round ((double)at_risk / (double)bw * 10) / 10 : 0);
  vsm_dbus_device_set_bytes_written (d->skeleton, vsm_learn_get_bytes_written (d->learn));
}

/* A writer throttled by strict_limit with no writeback under way
 * (vsm-stall.h): the kernel has the regression of "mm/block/fs: remove
 * laptop_mode" without its fix, and the cap would stall every copy. Fall
 * back once, for as long as the drive is plugged: strict_limit off,
 * max_bytes kept. */
static void
check_stall (VsmdDevice *d, const VsmDirtyInfo *di, const VsmDiskStat *st, gint64 now)
{
  VsmStallSample s;
  g_autoptr (VsmReason) why = NULL;

  if (!d->strict_on || d->strict_dropped != NULL)
    {
      VsmStallLimits limits = d->stall.limits;
      vsm_stall_init (&d->stall, &limits);
      return;
    }
  vsm_stall_sample_from (&s, now, di, st, vsm_dbus_device_get_cap_bytes (d->skeleton));
  if (vsm_stall_feed (&d->stall, &s) != VSM_STALL_STALLED)
    return;
  why = vsm_reason_new (
    N_ ("fallback: writers were throttled with no writeback under way for %.0f s of the last "
        "%.0f s (a kernel with \"mm/block/fs: remove laptop_mode\" and without \"mm: reinstate "
        "unconditional writeback start in balance_dirty_pages()\"): strict_limit dropped for "
        "this drive until it is unplugged, max_bytes kept (without strict_limit it bites only "
        "once the system's dirty data passes the freerun point)"),
    (double)d->stall.idle_usec / G_USEC_PER_SEC,
    (double)d->stall.limits.window_usec / G_USEC_PER_SEC);
  /* in the plan's reasons as its message id, translated where they are
   * shown; in the journal in English */
  d->strict_dropped = vsm_reason_serialize (why);
  g_warning ("%s: %s", d->bdi, why->text);
  start_job (d, FALSE, "writeback stall", NULL);
}

static gboolean
on_tick (gpointer data)
{
  VsmdDevice *d = data;
  VsmDiskStat st;
  VsmDirtyInfo di = { 0 };
  guint64 before = vsm_learn_get_bytes_written (d->learn), old_cap = vsm_learn_get_cap (d->learn);
  gboolean wrote = FALSE, have_stat;
  gint64 now = g_get_monotonic_time ();

  d->tick_id = 0;
  have_stat = vsm_disk_stat_read (d->disk_name, &st, NULL, NULL);
  if (have_stat && vsm_learn_feed (d->learn, now, &st) && !d->applying &&
      vsm_dbus_device_get_cap_bytes (d->skeleton) > 0)
    {
      g_autofree char *bw = vsm_format_rate ((double)vsm_learn_get_bandwidth (d->learn));
      g_autofree char *from = vsm_format_bytes (old_cap);
      g_autofree char *to = vsm_format_bytes (vsm_learn_get_cap (d->learn));
      g_message ("%s: cap %s -> %s (measured %s while writing)", d->bdi, from, to, bw);
      start_job (d, FALSE, "measured while writing", NULL);
    }
  wrote = vsm_learn_get_bytes_written (d->learn) > before;
  if (wrote)
    d->last_write = g_get_monotonic_time ();
  if (wrote && vsm_learn_get_bandwidth (d->learn) > 0)
    d->measured_this_mount = vsm_learn_get_bandwidth (d->learn);
  vsm_dirty_info_read (d->bdi, &di);
  publish_sample (d, &di);
  check_stall (d, &di, have_stat ? &st : NULL, now);
  update_pacing (d, &di, have_stat ? &st : NULL, now);
  if (g_get_monotonic_time () - d->last_drift_check > DRIFT_CHECK_USEC)
    check_cap_drift (d);
  start_ticking (d, wrote || vsmd_device_is_busy (d) || d->mounted ? TICK_BUSY_MS : TICK_IDLE_MS);
  return G_SOURCE_REMOVE;
}

static void
start_ticking (VsmdDevice *d, guint ms)
{
  g_clear_handle_id (&d->tick_id, g_source_remove);
  d->tick_id = g_timeout_add (ms, on_tick, d);
}

/* ---- methods: polkit first, then the work ---- */

/* Whether a change to this drive can reach the vm.* knobs (they act on
 * every disk): its record holds them, or the kernel has no per-device cap
 * and the admin allowed the global fallback. */
static gboolean
reaches_global (VsmdDevice *d)
{
  g_autofree char *cap = vsm_knob_path (d->bdi, "max_bytes");
  g_autoptr (VsmPolicy) p = NULL;

  if (d->uses_global)
    return TRUE;
  if (g_file_test (cap, G_FILE_TEST_EXISTS))
    return FALSE;
  p = vsm_policy_load ();
  return p->allow_global_knobs;
}

static gboolean still_target (gpointer data, const VsmdAuthTarget *was, GError **error);

/* tune-own-device only for the caller's own removable drive and nothing
 * global; everything else is manage. Decided on this mount: a change of
 * the mount before polkit answered fails the call (still_target). */
static void
auth_target (VsmdDevice *d, VsmdAuthTarget *t)
{
  t->owner_uid = vsm_dbus_device_get_mounted_by (d->skeleton);
  t->removable = vsm_dbus_device_get_removable (d->skeleton) && !reaches_global (d);
  t->mount =
    d->mounted
      ? vsm_user_options_mount_key (t->owner_uid, vsm_dbus_device_get_mount_points (d->skeleton))
      : NULL;
  t->recheck = still_target;
}

static gboolean
still_target (gpointer data, const VsmdAuthTarget *was, GError **error)
{
  VsmdDevice *d = VSMD_DEVICE (data);
  g_auto (VsmdAuthTarget) now = { 0 };

  if (d->retired)
    {
      g_set_error (error, VSM_DBUS_ERROR, VSM_DBUS_ERROR_TARGET_CHANGED,
                   "%s went away while the authorization was asked", d->bdi);
      return FALSE;
    }
  auth_target (d, &now);
  if (!vsmd_auth_target_equal (was, &now))
    {
      g_set_error (error, VSM_DBUS_ERROR, VSM_DBUS_ERROR_TARGET_CHANGED,
                   "%s was unmounted or mounted again while the authorization was asked "
                   "(nothing changed; call again)",
                   d->bdi);
      return FALSE;
    }
  return TRUE;
}

static void
do_apply (GDBusMethodInvocation *inv, gpointer data)
{
  start_job (VSMD_DEVICE (data), FALSE, "asked over D-Bus", inv);
}

static void
do_restore (GDBusMethodInvocation *inv, gpointer data)
{
  start_job (VSMD_DEVICE (data), TRUE, NULL, inv);
}

static gboolean
on_apply (VsmDbusDevice *s, GDBusMethodInvocation *inv, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };

  if (refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  auth_target (d, &t);
  vsmd_bouncer_check (d->bouncer, inv, &t, do_apply, g_object_ref (d), g_object_unref);
  return TRUE;
}

static void
do_apply_with (GDBusMethodInvocation *inv, gpointer data)
{
  VsmdDevice *d = VSMD_DEVICE (data);
  gboolean set_class = d->class_waiting;

  /* what this call asked, once authorized */
  if (set_class && !d->applying)
    {
      d->class_asked = TRUE;
      d->class_wanted = d->class_waiting_value;
    }
  d->class_waiting = FALSE;
  start_job (d, FALSE, set_class ? "a class chosen over D-Bus" : "asked over D-Bus", inv);
}

/* the options of ApplyWith, checked before polkit is asked */
static gboolean
read_apply_options (GVariant *options, gboolean *set_class, VsmClass *klass, GError **error)
{
  GVariantIter it;
  const char *key;
  GVariant *value;

  *set_class = FALSE;
  g_variant_iter_init (&it, options);
  while (g_variant_iter_next (&it, "{&sv}", &key, &value))
    {
      g_autoptr (GVariant) v = value;

      if (!g_str_equal (key, "class"))
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                       "unknown option: ApplyWith takes only 'class'");
          return FALSE;
        }
      if (!g_variant_is_of_type (v, G_VARIANT_TYPE_STRING) ||
          !vsm_class_from_string (g_variant_get_string (v, NULL), klass))
        {
          g_set_error (error, VSM_ERROR, VSM_ERROR_INVALID_ARGUMENT,
                       "class: not a class name (usb-stick, usb-stick-uas, usb-ssd, usb-hdd, "
                       "card-reader, unknown, internal)");
          return FALSE;
        }
      *set_class = TRUE;
    }
  return TRUE;
}

static gboolean
on_apply_with (VsmDbusDevice *s, GDBusMethodInvocation *inv, GVariant *options, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };
  g_autoptr (GError) error = NULL;
  gboolean set_class;
  VsmClass klass = VSM_CLASS_UNKNOWN;

  if (refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  if (!vsmd_limits_check_options (options, &error) ||
      !read_apply_options (options, &set_class, &klass, &error))
    {
      g_dbus_method_invocation_return_gerror (inv, error);
      return TRUE;
    }
  /* the latest call's: one that polkit refuses changes nothing */
  d->class_waiting = set_class;
  d->class_waiting_value = klass;
  auth_target (d, &t);
  vsmd_bouncer_check (d->bouncer, inv, &t, do_apply_with, g_object_ref (d), g_object_unref);
  return TRUE;
}

static gboolean
on_restore (VsmDbusDevice *s, GDBusMethodInvocation *inv, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };

  if (refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  auth_target (d, &t);
  vsmd_bouncer_check (d->bouncer, inv, &t, do_restore, g_object_ref (d), g_object_unref);
  return TRUE;
}

/* options: the new ones (NULL: none); kept in the state directory */
static void
reset_options (VsmdDevice *d, VsmUserOptions *options)
{
  if (d->options != NULL || options != NULL)
    d->options_changed = TRUE;
  g_clear_pointer (&d->options, vsm_user_options_free);
  d->options = options;
  vsmd_options_store (d->bdi, options);
  if (d->learn != NULL)
    reset_limits (d, 0, vsm_learn_get_cap (d->learn));
}

static void
do_set_options (GDBusMethodInvocation *inv, guint32 uid, const char *granted, gpointer data)
{
  VsmdDevice *d = VSMD_DEVICE (data);
  const char *const *points = vsm_dbus_device_get_mount_points (d->skeleton);
  g_autofree char *key =
    vsm_user_options_mount_key (vsm_dbus_device_get_mounted_by (d->skeleton), points);
  VsmUserOptions *o;

  if (refuse_when_stopping (d, inv))
    return;
  /* nothing changes while an apply runs: its result would not say so */
  if (d->applying)
    {
      g_dbus_method_invocation_return_error_literal (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                                     "an apply is running for this drive");
      return;
    }
  o = vsmd_options_update (d->bdi, d->options, inv, uid, granted);
  if (o == NULL)
    return; /* answered */
  g_free (o->mount);
  o->mount = g_steal_pointer (&key);
  reset_options (d, o);
  start_job (d, vsmd_options_ignore_drive (d->options, d->disk_syspath), "options set", inv);
}

static gboolean
on_set_options (VsmDbusDevice *s, GDBusMethodInvocation *inv, GVariant *options, VsmdDevice *d)
{
  g_auto (VsmdAuthTarget) t = { 0 };
  g_autoptr (GError) error = NULL;

  if (refuse_when_stopping (d, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  /* bounded before anyone is asked: nothing oversized is logged or kept */
  if (!vsmd_limits_check_options (options, &error))
    {
      g_message ("%s: SetOptions refused: %s", d->bdi, error->message);
      g_dbus_method_invocation_return_gerror (inv, error);
      return TRUE;
    }
  auth_target (d, &t);
  vsmd_bouncer_check_as (d->bouncer, inv, &t, do_set_options, g_object_ref (d), g_object_unref);
  return TRUE;
}

/* vsmd-device.c - one managed disk on the bus: the object, its record, and the apply
 * or restore it runs off the main loop
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-device-private.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
gboolean
vsmd_device_refuse_when_stopping (VsmdDevice *d, GDBusMethodInvocation *inv)
{
  if (!d->stopping)
    return FALSE;
  if (inv != NULL)
    g_dbus_method_invocation_return_error (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                           "%s: vfat-smartd is shutting down", d->bdi);
  return TRUE;
}

/* the policy, with what SetOptions decided for this drive */
VsmPolicy *
vsmd_device_policy (VsmdDevice *d)
{
  VsmPolicy *p = vsm_policy_load ();

  vsmd_options_policy_for (p, d->options, d->mounted, d->device_cap);
  return p;
}

/* The plan's cap of a paced class with a per-device cap holds a share of
 * max-dirty-seconds for many files (vsm_learn_cap_seconds ()) */
gboolean
vsmd_device_narrows_for_many_files (VsmdDevice *d)
{
  return d->pace_class && !d->uses_global;
}

double
vsmd_device_cap_seconds (VsmdDevice *d, const VsmPolicy *p)
{
  return vsm_learn_cap_seconds (p->max_dirty_seconds, vsmd_device_narrows_for_many_files (d),
                                d->one_big_file);
}

/* the limits from the policy and SetOptions; cap_in_force: what is applied */
void
vsmd_device_reset_limits (VsmdDevice *d, guint64 start_bandwidth, guint64 cap_in_force)
{
  g_autoptr (VsmPolicy) p = vsmd_device_policy (d);

  d->limits.max_dirty_seconds = vsmd_device_cap_seconds (d, p);
  d->limits.cap_min_bytes = p->cap_min_bytes;
  d->limits.cap_max_bytes = p->cap_max_bytes;
  vsmd_options_publish (d->skeleton, p);
  if (d->learn == NULL)
    d->learn = vsm_learn_new (&d->limits, MAX (start_bandwidth, 1));
  vsm_learn_set_limits (d->learn, &d->limits, cap_in_force);
}

/* FlushMode: what the mount really has (a client may have asked for
 * flush, exFAT has none), not only what the record planned. state: NULL
 * for the record; mounts: NULL to read them. */
void
vsmd_device_publish_flush_mode (VsmdDevice *d, const VsmState *state, GPtrArray *mounts)
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
  vsmd_device_publish_flush_mode (d, s, NULL);
  vsm_dbus_device_set_cap_bytes (d->skeleton, s->cap_bytes);
  d->uses_global = s->uses_global;
  d->pace_class = s->pace_writeback;
  d->strict_on = vsm_state_strict_limit_on (s);
}

/* Another front end applied (the udev helper on a change event) with the
 * policy's or the history's numbers: what was measured, or set with
 * SetOptions, for this mount is put back. Before a measurement the plan
 * alone knows the cap the options give (a first cap, or one from the
 * admin's class-bandwidth): they are applied again. */
static void
reassert_cap (VsmdDevice *d, const VsmState *s)
{
  guint64 measured = vsm_learn_get_bandwidth (d->learn), want;

  if (s->cap_bytes == 0 || g_strcmp0 (s->updated_by, VSM_SOURCE_DAEMON) == 0 || d->applying ||
      (measured == 0 && vsm_user_options_is_empty (d->options)))
    return;
  if (measured == 0)
    {
      g_message ("%s: %s applied a cap of %" G_GUINT64_FORMAT
                 " bytes without the options set for this mount",
                 d->bdi, s->source ? s->source : "?", s->cap_bytes);
      vsmd_device_start_job (d, VSMD_JOB_REAPPLY,
                             "another front end applied without this mount's options", NULL);
      return;
    }
  want = vsm_learn_cap_for (&d->limits, measured);
  if (fabs ((double)want - (double)s->cap_bytes) <= VSM_LEARN_HYSTERESIS * (double)s->cap_bytes)
    return;
  g_message ("%s: %s applied a cap of %" G_GUINT64_FORMAT
             " bytes; this mount's is %" G_GUINT64_FORMAT,
             d->bdi, s->source ? s->source : "?", s->cap_bytes, want);
  vsmd_device_start_job (d, VSMD_JOB_REAPPLY, "another front end applied another cap", NULL);
}

void
vsmd_device_update_state (VsmdDevice *d, const VsmState *s)
{
  gboolean cap_moved = s->cap_bytes != vsm_dbus_device_get_cap_bytes (d->skeleton);

  publish_state (d, s);
  if (cap_moved || d->learn == NULL)
    vsmd_device_reset_limits (d, s->bandwidth, s->cap_bytes);
  if (cap_moved)
    reassert_cap (d, s);
  /* strict_limit stays dropped for the drive: another front end's apply
   * (a change event's) set it again */
  if (d->strict_dropped && d->strict_on && !d->applying && d->strict_drop_tries < 3)
    {
      d->strict_drop_tries++;
      g_message ("%s: strict_limit is set again; dropping it (the writeback stall fallback)",
                 d->bdi);
      vsmd_device_start_job (d, VSMD_JOB_REAPPLY, "strict_limit set again by another front end",
                             NULL);
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
void
vsmd_device_read_facts (VsmdDevice *d)
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

void
vsmd_device_emit_job_done (VsmdDevice *d)
{
  g_signal_emit (d, signals[SIGNAL_JOB_DONE], 0);
}

VsmdDevice *
vsmd_device_new (VsmdBouncer *bouncer, const VsmState *s)
{
  VsmdDevice *d = g_object_new (VSMD_TYPE_DEVICE, NULL);
  VsmDirtyInfo di = { 0 };

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
  vsm_dirty_info_read (d->bdi, &di);
  vsmd_device_update_safe (d, &di);
  vsmd_device_connect_methods (d);
  d->adopted = vsm_user_options_adopt (d->bdi);
  d->device_cap = vsmd_options_kernel_has_device_cap (d->bdi);
  d->global_for_mounted = -1;
  vsm_stall_init (&d->stall, NULL);
  d->stall.limits.slack_bytes =
    vsm_wb_stat_error_bytes (g_get_num_processors (), (guint64)sysconf (_SC_PAGESIZE));
  d->adopt_until = g_get_monotonic_time () + ADOPT_WAIT_USEC;
  vsmd_device_update_state (d, s);
  vsmd_device_read_facts (d);
  vsmd_device_start_ticking (d, TICK_IDLE_MS);
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
      vsmd_device_record_mount (d);
    }
  d->mounted = FALSE;
  d->retired = TRUE;
  vsmd_device_stop_pacing (d);
  g_clear_handle_id (&d->tick_id, g_source_remove);
  vsmd_device_reset_options (d, NULL);
  vsmd_device_unexport (d);
}

/* ---- applying, off the main loop ---- */

typedef struct
{
  char *bdi;
  char *reason;
  VsmPolicy *policy;
  guint64 bandwidth;
  VsmdJobKind kind;
  gboolean set_options;
  VsmUserOptions *options;
  gboolean set_class;
  VsmClass klass;
  char *drop_strict_limit; /* why; NULL: the plan's strict_limit */
  gboolean one_big_file;
} Job;

static void
job_free (Job *j)
{
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
  g_autoptr (GPtrArray) notes = g_ptr_array_new_with_free_func (g_free);
  VsmReapply r = { .reason = j->reason,
                   .bandwidth = j->bandwidth,
                   .bandwidth_source = N_ ("measured by vfat-smartd"),
                   .policy = g_steal_pointer (&j->policy),
                   .set_user_options = j->set_options,
                   .user_options = j->options,
                   .set_class = j->set_class,
                   .klass = j->klass,
                   .drop_strict_limit = j->drop_strict_limit,
                   .one_big_file = j->one_big_file,
                   .notes = notes };
  gboolean ok;

  if (j->kind == VSMD_JOB_RESTORE)
    {
      vsm_policy_free (r.policy);
      ok = vsm_restore (j->bdi, VSM_LOCK_WAIT_MS, NULL, &error);
    }
  else
    /* the options too, when they changed: kept, or the drive restored
     * when they ignore it (that may read its superblock: here, off the
     * main loop) */
    ok = vsm_reapply (client, j->bdi, &r, NULL, &error);
  for (guint i = 0; i < notes->len; i++)
    g_message ("%s: %s", j->bdi, (char *)g_ptr_array_index (notes, i));
  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

/* the record's inode (0: none) and *mtime_ns */
static guint64
record_identity (VsmdDevice *d, gint64 *mtime_ns)
{
  g_autofree char *path = vsm_rundir_path (VSM_RUN_FILE_RECORD, d->bdi);
  struct stat st;

  *mtime_ns = 0;
  if (path == NULL || lstat (path, &st) != 0)
    return 0;
  *mtime_ns = (gint64)st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
  return (guint64)st.st_ino;
}

gboolean
vsmd_device_wrote_record (VsmdDevice *d)
{
  gint64 mtime_ns = 0;
  guint64 ino = record_identity (d, &mtime_ns);

  /* a record that went is always news (a restore by another front end
   * drops the object at once, even while a job waits for the lock) */
  if (ino == 0)
    return FALSE;
  /* the job's end reads the record again: a write that raced it is seen there */
  if (d->applying)
    return TRUE;
  return ino == d->own_record_ino && mtime_ns == d->own_record_mtime_ns;
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
  /* before the load: a write after it is not taken for the job's own */
  d->own_record_ino = record_identity (d, &d->own_record_mtime_ns);
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
  vsmd_device_start_job (d, VSMD_JOB_REAPPLY, "an apply did not finish", NULL);
}

/* inv may be NULL (the daemon's own re-apply); reason: why it applies */
void
vsmd_device_start_job (VsmdDevice *d, VsmdJobKind kind, const char *reason,
                       GDBusMethodInvocation *inv)
{
  g_autoptr (GTask) task = NULL;
  Job *j;

  if (vsmd_device_refuse_when_stopping (d, inv))
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
  j->bdi = g_strdup (d->bdi);
  /* the admin's policy for this drive; the options in force are the
   * record's intent, replaced when they changed */
  j->policy = vsm_policy_load ();
  vsmd_options_policy_for (j->policy, NULL, d->mounted, d->device_cap);
  j->bandwidth = d->learn ? vsm_learn_get_bandwidth (d->learn) : 0;
  j->kind = kind;
  j->reason = g_strdup (reason);
  j->set_options = d->options_changed;
  j->options = d->options ? vsm_user_options_copy (d->options) : NULL;
  j->set_class = d->class_asked;
  j->klass = d->class_wanted;
  if (kind != VSMD_JOB_RESTORE)
    d->options_changed = d->class_asked = FALSE;
  j->drop_strict_limit = g_strdup (d->strict_dropped);
  j->one_big_file = d->one_big_file;
  g_task_set_task_data (task, j, (GDestroyNotify)job_free);
  g_task_run_in_thread (task, job_run);
}

/* vsmd-daemon.c - vfat-smartd's manager
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-daemon.h"
#include "vsmd-bouncer.h"
#include "vsmd-device.h"
#include "vsm-dbus-contract.h"
#include "vsmd-limits.h"
#include "vsmd-udisks.h"

#include "vsm.h"

#include <gio/gunixmounts.h>

#define IDLE_CHECK_SECONDS 10

struct _VsmdDaemon
{
  GObject parent;
  GDBusConnection *connection;
  VsmDbusManager *manager;
  VsmdBouncer *bouncer;
  VsmdUdisks *udisks;
  GUdevClient *udev;
  GUnixMountMonitor *mounts;
  GFileMonitor *records; /* the state directory */
  guint rescan_id;
  GHashTable *devices;  /* bdi -> VsmdDevice */
  GHashTable *draining; /* VsmdDevice dropped while a worker of it runs (a ref each) */
  guint idle_seconds;
  gint64 idle_since;
  guint idle_id;
  guint restores_running; /* RestoreAll and release_phantoms () workers */
  gboolean stopping;      /* vsmd_daemon_stop (): waiting for the workers */
  gboolean stopped;       /* "stopped" was emitted */
};

enum
{
  SIGNAL_IDLE,
  SIGNAL_STOPPED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (VsmdDaemon, vsmd_daemon, G_TYPE_OBJECT)

/* the daemon stops: the mounts go on, so nothing goes into the history */
static void
unexport_all (VsmdDaemon *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    vsmd_device_unexport (value);
}

static void
vsmd_daemon_dispose (GObject *object)
{
  VsmdDaemon *self = VSMD_DAEMON (object);

  g_clear_handle_id (&self->idle_id, g_source_remove);
  g_clear_handle_id (&self->rescan_id, g_source_remove);
  /* the mount monitor is the process's own singleton: it outlives us */
  for (gpointer *o = (gpointer[]){ self->records, self->mounts, self->udisks, self->udev, NULL };
       *o; o++)
    g_signal_handlers_disconnect_by_data (*o, self);
  g_clear_object (&self->records);
  if (self->devices)
    unexport_all (self);
  g_clear_pointer (&self->devices, g_hash_table_unref);
  g_clear_pointer (&self->draining, g_hash_table_unref);
  if (self->manager)
    g_dbus_interface_skeleton_unexport (G_DBUS_INTERFACE_SKELETON (self->manager));
  g_clear_object (&self->manager);
  g_clear_object (&self->udisks);
  g_clear_object (&self->udev);
  g_clear_object (&self->mounts);
  g_clear_object (&self->bouncer);
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (vsmd_daemon_parent_class)->dispose (object);
}

static void
vsmd_daemon_class_init (VsmdDaemonClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = vsmd_daemon_dispose;
  vsm_dbus_errors_register ();
  signals[SIGNAL_IDLE] = g_signal_new ("idle", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                       NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_STOPPED] = g_signal_new ("stopped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
vsmd_daemon_init (VsmdDaemon *self)
{
  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->draining = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
}

static void
refresh_mounts (VsmdDaemon *self, VsmdDevice *d)
{
  g_auto (GStrv) points = NULL;
  const char *bdi = vsmd_device_get_bdi (d);
  g_autoptr (VsmState) s = vsm_state_load (bdi, NULL);

  if (s == NULL)
    return;
  points = vsmd_udisks_mount_points (self->udisks, s->disk_syspath);
  vsmd_device_set_mount_points (d, (const char *const *)points);
}

static void
refresh_all_mounts (VsmdDaemon *self)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    refresh_mounts (self, value);
}

static void drop_device (VsmdDaemon *self, const char *bdi);

static guint
workers_running (VsmdDaemon *self)
{
  GHashTableIter iter;
  gpointer value;
  guint n = self->restores_running;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n += vsmd_device_workers (value);
  g_hash_table_iter_init (&iter, self->draining);
  while (g_hash_table_iter_next (&iter, &value, NULL))
    n += vsmd_device_workers (value);
  return n;
}

/* stopping, and the last worker ended */
static void
check_stopped (VsmdDaemon *self)
{
  if (!self->stopping || self->stopped || workers_running (self) > 0)
    return;
  self->stopped = TRUE;
  g_signal_emit (self, signals[SIGNAL_STOPPED], 0);
}

void
vsmd_daemon_stop (VsmdDaemon *self)
{
  GHashTableIter iter;
  gpointer value;
  guint n;

  if (self->stopping)
    return;
  self->stopping = TRUE;
  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    vsmd_device_stop (value);
  g_hash_table_iter_init (&iter, self->draining);
  while (g_hash_table_iter_next (&iter, &value, NULL))
    vsmd_device_stop (value);
  n = workers_running (self);
  if (n > 0)
    g_message ("stopping: waiting for %u apply or restore to end", n);
  check_stopped (self);
}

static void
on_record_gone (VsmdDevice *d, VsmdDaemon *self)
{
  g_autofree char *bdi = g_strdup (vsmd_device_get_bdi (d));
  drop_device (self, bdi);
}

static void
add_device (VsmdDaemon *self, const VsmState *s)
{
  g_autoptr (GError) error = NULL;
  VsmdDevice *d = vsmd_device_new (self->bouncer, s);

  if (!vsmd_device_export (d, self->connection, &error))
    {
      g_warning ("%s: cannot export: %s", s->bdi, error->message);
      g_object_unref (d);
      return;
    }
  g_signal_connect (d, "record-gone", G_CALLBACK (on_record_gone), self);
  g_signal_connect_swapped (d, "job-done", G_CALLBACK (check_stopped), self);
  if (self->stopping)
    vsmd_device_stop (d);
  g_hash_table_insert (self->devices, g_strdup (s->bdi), d);
  g_message ("%s (%s): managed, %s", s->bdi, s->disk_node ? s->disk_node : "?",
             s->flush_mode ? s->flush_mode : "?");
  refresh_mounts (self, d);
  vsm_dbus_manager_emit_device_added (self->manager, vsmd_device_get_object_path (d));
}

/* a dropped device's last worker ended */
static void
on_draining_job_done (VsmdDevice *d, VsmdDaemon *self)
{
  if (vsmd_device_workers (d) > 0)
    return;
  g_signal_handlers_disconnect_by_data (d, self);
  g_hash_table_remove (self->draining, d);
  check_stopped (self);
}

static void
drop_device (VsmdDaemon *self, const char *key)
{
  /* key may be the table's own (from get_keys): it goes with the entry */
  g_autofree char *bdi = g_strdup (key);
  VsmdDevice *d = g_hash_table_lookup (self->devices, bdi);

  if (d == NULL)
    return;
  g_signal_handlers_disconnect_by_data (d, self);
  vsm_dbus_manager_emit_device_removed (self->manager, vsmd_device_get_object_path (d),
                                        vsmd_device_get_at_risk_bytes (d));
  vsmd_device_retire (d);
  /* its worker still runs: SIGTERM and the idle exit wait for it */
  if (vsmd_device_workers (d) > 0)
    {
      g_hash_table_add (self->draining, g_object_ref (d));
      g_signal_connect (d, "job-done", G_CALLBACK (on_draining_job_done), self);
      if (self->stopping)
        vsmd_device_stop (d);
    }
  g_hash_table_remove (self->devices, bdi);
  g_message ("%s: no longer managed", bdi);
}

static gboolean
disk_present (const VsmState *s)
{
  return s->disk_syspath && g_file_test (s->disk_syspath, G_FILE_TEST_IS_DIR);
}

/* The records are the truth: one object per record of a present disk; a
 * record of a disk that is gone is forgotten (its knobs went with it). */
static void
rescan (VsmdDaemon *self)
{
  g_autoptr (GPtrArray) corrupt = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) states = vsm_state_list (corrupt, &error);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GList) known = NULL;

  if (states == NULL)
    {
      g_warning ("cannot read the records: %s", error->message);
      return;
    }
  for (guint i = 0; i < corrupt->len; i++)
    g_warning ("record not trusted: %s", (char *)g_ptr_array_index (corrupt, i));
  for (guint i = 0; i < states->len; i++)
    {
      VsmState *s = g_ptr_array_index (states, i);
      VsmdDevice *d = g_hash_table_lookup (self->devices, s->bdi);

      if (!disk_present (s))
        {
          /* on the main loop: no knob is written (they went with the
           * drive), only the record, under a lock wait of at most 1 s */
          g_autoptr (GError) local = NULL;
          if (!vsm_forget (s->bdi, VSM_LOCK_WAIT_UDEV_MS, NULL, &local))
            g_warning ("%s: gone, its record stays: %s", s->bdi, local->message);
          else
            g_message ("%s: gone, its record forgotten", s->bdi);
          continue;
        }
      g_hash_table_add (seen, s->bdi);
      if (d == NULL)
        {
          add_device (self, s);
          d = g_hash_table_lookup (self->devices, s->bdi);
          if (d != NULL && s->pending)
            vsmd_device_finish_pending (d);
        }
      else if (!s->pending)
        vsmd_device_update_state (d, s);
    }
  known = g_hash_table_get_keys (self->devices);
  for (GList *l = known; l; l = l->next)
    if (!g_hash_table_contains (seen, l->data))
      drop_device (self, l->data);
}

static gboolean
on_rescan_due (gpointer data)
{
  VsmdDaemon *self = data;
  self->rescan_id = 0;
  rescan (self);
  return G_SOURCE_REMOVE;
}

/* a record changed (another front end applied or restored): look again
 * once the burst of writes is over */
static void
on_records_changed (GFileMonitor *m, GFile *file, GFile *other, GFileMonitorEvent event,
                    VsmdDaemon *self)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *bdi = NULL;
  VsmdDevice *d;

  /* only records: the daemon's own options, the unmount log, udev's stamps,
   * the probe cache, the lock and temporaries are no news */
  if (vsm_rundir_kind_of (name, &bdi) != VSM_RUN_FILE_RECORD)
    return;
  /* nor is a record the daemon wrote itself */
  d = g_hash_table_lookup (self->devices, bdi);
  if (d != NULL && vsmd_device_wrote_record (d))
    return;
  g_clear_handle_id (&self->rescan_id, g_source_remove);
  self->rescan_id = g_timeout_add (200, on_rescan_due, self);
}

static void
watch_records (VsmdDaemon *self)
{
  g_autoptr (GFile) dir = g_file_new_for_path (vsm_rundir ());
  g_autoptr (GError) error = NULL;

  g_mkdir_with_parents (vsm_rundir (), 0755);
  self->records = g_file_monitor_directory (dir, G_FILE_MONITOR_NONE, NULL, &error);
  if (self->records == NULL)
    g_warning ("cannot watch %s: %s", vsm_rundir (), error->message);
  else
    g_signal_connect (self->records, "changed", G_CALLBACK (on_records_changed), self);
}

/* the kernel sends remove before its sysfs directory goes; a disk added
 * again under the same path (the object stayed: its record was not
 * forgotten) is present again */
static void
mark_removed (VsmdDaemon *self, GUdevDevice *dev, gboolean removed)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_strcmp0 (vsmd_device_get_disk_syspath (value), g_udev_device_get_sysfs_path (dev)) == 0)
      vsmd_device_set_removed (value, removed);
}

static void
on_uevent (GUdevClient *client, const char *action, GUdevDevice *dev, VsmdDaemon *self)
{
  gboolean disk = g_strcmp0 (g_udev_device_get_devtype (dev), "disk") == 0;

  if (disk && (g_str_equal (action, "remove") || g_str_equal (action, "add")))
    mark_removed (self, dev, g_str_equal (action, "remove"));
  if (disk || g_str_equal (action, "remove"))
    rescan (self);
  else
    refresh_all_mounts (self);
}

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *)a, *(const char *const *)b);
}

static gboolean
on_list_devices (VsmDbusManager *m, GDBusMethodInvocation *inv, VsmdDaemon *self)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (paths, (gpointer)vsmd_device_get_object_path (value));
  g_ptr_array_sort (paths, compare_paths);
  g_ptr_array_add (paths, NULL);
  vsm_dbus_manager_complete_list_devices (m, inv, (const char *const *)paths->pdata);
  return TRUE;
}

static void
restore_all_run (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;

  if (vsm_restore_all (NULL, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
restore_all_done (GObject *source, GAsyncResult *res, gpointer data)
{
  VsmdDaemon *self = VSMD_DAEMON (source);
  GDBusMethodInvocation *inv = data;
  g_autoptr (GError) error = NULL;

  if (g_task_propagate_boolean (G_TASK (res), &error))
    g_dbus_method_invocation_return_value (inv, NULL);
  else
    g_dbus_method_invocation_take_error (inv, vsm_dbus_error_from_core (error));
  self->restores_running--;
  rescan (self);
  check_stopped (self);
}

/* TRUE when the call was answered: the daemon stops */
static gboolean
refuse_when_stopping (VsmdDaemon *self, GDBusMethodInvocation *inv)
{
  if (!self->stopping)
    return FALSE;
  g_dbus_method_invocation_return_error_literal (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                                 "vfat-smartd is shutting down");
  return TRUE;
}

/* in a thread: the lock may be held (an apply of ours) for up to its wait */
static void
do_restore_all (GDBusMethodInvocation *inv, gpointer data)
{
  VsmdDaemon *self = VSMD_DAEMON (data);
  g_autoptr (GTask) task = NULL;

  if (refuse_when_stopping (self, inv))
    return;
  /* an apply waiting for the lock would undo it */
  if (workers_running (self) > 0)
    {
      g_dbus_method_invocation_return_error_literal (inv, VSM_ERROR, VSM_ERROR_BUSY,
                                                     "an apply or restore is running");
      return;
    }
  task = g_task_new (self, NULL, restore_all_done, inv);
  self->restores_running++;
  g_task_run_in_thread (task, restore_all_run);
}

static gboolean
on_restore_all (VsmDbusManager *m, GDBusMethodInvocation *inv, VsmdDaemon *self)
{
  VsmdAuthTarget everything = { G_MAXUINT32, FALSE, NULL, NULL };

  if (refuse_when_stopping (self, inv) || !vsmd_limits_take_call (inv))
    return TRUE;
  vsmd_bouncer_check (self->bouncer, inv, &everything, do_restore_all, g_object_ref (self),
                      g_object_unref);
  return TRUE;
}

/* idle: no managed drive present. Not "none mounted": a mount of a drive
 * that is already plugged sends no uevent, so the udev rule's SYSTEMD_WANTS
 * would not start the daemon again for it. */
static gboolean
is_idle (VsmdDaemon *self)
{
  return g_hash_table_size (self->devices) == 0 && workers_running (self) == 0;
}

static gboolean
on_idle_check (gpointer data)
{
  VsmdDaemon *self = data;
  gint64 now = g_get_monotonic_time ();

  if (!is_idle (self))
    self->idle_since = now;
  else if (now - self->idle_since >= (gint64)self->idle_seconds * G_USEC_PER_SEC)
    {
      g_message ("idle for %u s with no managed drive present: exiting", self->idle_seconds);
      self->idle_id = 0;
      g_signal_emit (self, signals[SIGNAL_IDLE], 0);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

VsmdDaemon *
vsmd_daemon_new (guint idle_seconds)
{
  VsmdDaemon *self = g_object_new (VSMD_TYPE_DAEMON, NULL);
  self->idle_seconds = idle_seconds;
  return self;
}

static void
publish_kernel (VsmdDaemon *self)
{
  g_autoptr (VsmPolicy) policy = vsm_policy_load ();
  g_autoptr (VsmKernel) k = vsm_kernel_probe (NULL, policy->kernel_flush_fix);

  vsm_dbus_manager_set_version (self->manager, PACKAGE_VERSION);
  vsm_dbus_manager_set_kernel_release (self->manager, k->release ? k->release : "");
  vsm_dbus_manager_set_has_device_cap (self->manager, k->has_strict_limit && k->has_max_bytes);
  vsm_dbus_manager_set_flush_fix (self->manager, vsm_flush_fix_to_string (k->flush_fix));
}

static void
release_phantoms_run (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  g_autoptr (GPtrArray) report = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) error = NULL;

  if (!vsm_release_phantom_owners (report, &error))
    g_warning ("vm.* knobs: %s", error->message);
  for (guint i = 0; i < report->len; i++)
    g_message ("%s", (char *)g_ptr_array_index (report, i));
  g_task_return_boolean (task, TRUE);
}

static void
release_phantoms_done (GObject *source, GAsyncResult *res, gpointer data)
{
  VsmdDaemon *self = VSMD_DAEMON (source);

  self->restores_running--;
  check_stopped (self);
}

/* After a crash: the vm.* knobs held for a drive that has no record any
 * more (rescan forgot the records of drives that are gone) go back. In a
 * worker: it waits for the state lock (up to 10 s) while the bus is served;
 * counted with the restores (SIGTERM waits for it). */
static void
release_phantoms (VsmdDaemon *self)
{
  g_autoptr (GTask) task = g_task_new (self, NULL, release_phantoms_done, NULL);

  self->restores_running++;
  g_task_run_in_thread (task, release_phantoms_run);
}

gboolean
vsmd_daemon_start (VsmdDaemon *self, GDBusConnection *connection, GError **error)
{
  static const char *const subsystems[] = { "block", NULL };

  self->connection = g_object_ref (connection);
  self->bouncer = vsmd_bouncer_new ();
  self->manager = vsm_dbus_manager_skeleton_new ();
  publish_kernel (self);
  g_signal_connect (self->manager, "handle-list-devices", G_CALLBACK (on_list_devices), self);
  g_signal_connect (self->manager, "handle-restore-all", G_CALLBACK (on_restore_all), self);
  if (!g_dbus_interface_skeleton_export (G_DBUS_INTERFACE_SKELETON (self->manager), connection,
                                         VSM_DBUS_MANAGER_PATH, error))
    return FALSE;

  self->udev = g_udev_client_new (subsystems);
  g_signal_connect (self->udev, "uevent", G_CALLBACK (on_uevent), self);
  self->udisks = vsmd_udisks_new ();
  g_signal_connect_swapped (self->udisks, "changed", G_CALLBACK (refresh_all_mounts), self);
  /* mounts by hand (mount -t vfat-smart) do not go through udisks */
  self->mounts = g_unix_mount_monitor_get ();
  g_signal_connect_swapped (self->mounts, "mounts-changed", G_CALLBACK (refresh_all_mounts), self);

  watch_records (self);
  rescan (self);
  release_phantoms (self);
  self->idle_since = g_get_monotonic_time ();
  if (self->idle_seconds > 0)
    self->idle_id = g_timeout_add_seconds (IDLE_CHECK_SECONDS, on_idle_check, self);
  return TRUE;
}

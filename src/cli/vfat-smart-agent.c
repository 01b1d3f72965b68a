/* vfat-smart-agent.c - `vfat-smart agent`: the user's settings to vfat-smartd,
 * and "safe to unplug" for the user
 *
 * Runs in the user's session (a systemd user unit, or XDG autostart). It
 * reads the user's own org.vfatsmart settings (only the keys the user set:
 * an admin's dconf defaults stay the admin's), and sends them with
 * SetOptions to vfat-smartd for each drive this user mounted, again when
 * they change and on each new mount. The daemon decides (polkit, locks,
 * allow-user-tuning, clamps). From the daemon's feed it tells the user
 * when a copy has reached a drive, or how much a pull lost
 * (org.freedesktop.Notifications on the session bus).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm.h"
#include "vsm-dbus-contract.h"

#include <glib-unix.h>
#include <unistd.h>

#define DEVICES_PREFIX VSM_DBUS_DEVICES_PATH "/"

typedef struct
{
  GMainLoop *loop;
  GSettings *settings;
  GDBusConnection *system;
  GDBusConnection *session; /* NULL: no notifications */
  GHashTable *drives;       /* object path -> Drive */
  guint32 uid;
  guint watch_id;
  guint added_id, removed_id;
  gboolean said_forbidden;
} Agent;

typedef struct
{
  Agent *agent;
  VsmDbusDevice *proxy;
  char *sent_for;   /* the mount the options were sent for */
  gboolean writing; /* data was at risk since the last notification */
  guint64 peak;     /* the most at risk during this copy */
  gboolean ours;    /* mounted by this user, last we saw */
  char *label;      /* the drive's name for the user */
  guint settle_id;  /* at risk 0 since: notify when it stays so */
} Drive;

/* "safe" when the daemon says so (Safe: nothing dirty, no directory entry
 * or FAT block waiting). Without per-device figures (AtRiskScope system)
 * nothing tells: then once nothing was at risk for this long. With flush
 * (Linux < 6.2) the figure touches 0 while close() still waits, then the
 * directory entry and FAT follow (seen in the lab on 6.1: 128 KiB, 5 s
 * after a 0) */
#define SAFE_SETTLE_MS 3000

static void
drive_free (Drive *d)
{
  g_clear_handle_id (&d->settle_id, g_source_remove);
  if (d->proxy)
    g_signal_handlers_disconnect_by_data (d->proxy, d);
  g_clear_object (&d->proxy);
  g_free (d->sent_for);
  g_free (d->label);
  g_free (d);
}

/* ---- the user's settings, as SetOptions ---- */

/* Only what the user set (not the admin's defaults), and never a locked
 * key; reset first, so a key the user reset is the admin's again. */
static GVariant *
user_options (Agent *a)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&b, "{sv}", "reset", g_variant_new_boolean (TRUE));
  for (const char *const *k = vsm_policy_user_keys; *k; k++)
    {
      g_autoptr (GVariant) v = g_settings_get_user_value (a->settings, *k);
      if (v != NULL && g_settings_is_writable (a->settings, *k))
        g_variant_builder_add (&b, "{sv}", *k, v);
    }
  return g_variant_builder_end (&b);
}

static void
on_set_options (GObject *source, GAsyncResult *res, gpointer data)
{
  g_autofree char *label = data;
  g_autoptr (GError) error = NULL;

  if (!vsm_dbus_device_call_set_options_finish (VSM_DBUS_DEVICE (source), res, &error))
    {
      g_dbus_error_strip_remote_error (error);
      g_warning (_ ("%s: your settings were not taken: %s"), label, error->message);
    }
  else
    g_message (_ ("%s: your settings are in force"), label);
}

static void
send_options (Drive *d)
{
  Agent *a = d->agent;

  if (!g_settings_get_boolean (a->settings, "allow-user-tuning"))
    {
      if (!a->said_forbidden)
        g_message (_ ("the administrator does not allow users to tune drives "
                      "(allow-user-tuning is false): nothing sent"));
      a->said_forbidden = TRUE;
      return;
    }
  a->said_forbidden = FALSE;
  vsm_dbus_device_call_set_options (d->proxy, user_options (a), NULL, on_set_options,
                                    g_strdup (d->label));
}

/* ---- notifications ---- */

static void
notify (Agent *a, const char *summary, const char *body)
{
  GVariantBuilder hints;

  g_message ("%s: %s", summary, body);
  if (a->session == NULL || !g_settings_get_boolean (a->settings, "notify-safe"))
    return;
  g_variant_builder_init (&hints, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&hints, "{sv}", "category", g_variant_new_string ("device"));
  g_variant_builder_add (&hints, "{sv}", "desktop-entry",
                         g_variant_new_string ("vfat-smart-agent"));
  g_dbus_connection_call (a->session, "org.freedesktop.Notifications",
                          "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                          "Notify",
                          g_variant_new ("(susssasa{sv}i)", "vfat-smart", 0,
                                         "drive-removable-media", summary, body, NULL, &hints, -1),
                          G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
}

static void
notify_safe (Drive *d)
{
  g_autofree char *summary = g_strdup_printf (_ ("%s is safe to unplug"), d->label);
  g_autofree char *size = vsm_format_bytes (d->peak);
  g_autofree char *body =
    g_strdup_printf (_ ("Everything written to it has reached the drive (%s were waiting)."), size);
  notify (d->agent, summary, body);
}

static void
notify_lost (Agent *a, const char *label, guint64 at_risk)
{
  g_autofree char *summary = g_strdup_printf (_ ("%s was unplugged too early"), label);
  g_autofree char *size = vsm_format_bytes (at_risk);
  g_autofree char *body =
    g_strdup_printf (_ ("About %s written to it had not reached the drive and is lost."), size);
  notify (a, summary, body);
}

/* ---- following the drives ---- */

static char *
drive_label (VsmDbusDevice *p)
{
  const char *const *points = vsm_dbus_device_get_mount_points (p);
  const char *node = vsm_dbus_device_get_device (p);

  if (points && points[0])
    return g_path_get_basename (points[0]);
  return g_strdup (node && *node ? node : "?");
}

static gboolean
on_settled (gpointer data)
{
  Drive *d = data;

  d->settle_id = 0;
  notify_safe (d);
  d->writing = FALSE;
  d->peak = 0;
  return G_SOURCE_REMOVE;
}

static void
drive_update (Drive *d)
{
  const char *const *points = vsm_dbus_device_get_mount_points (d->proxy);
  guint64 at_risk = vsm_dbus_device_get_at_risk_bytes (d->proxy);
  g_autofree char *key = NULL;

  d->ours = vsm_dbus_device_get_mounted_by (d->proxy) == d->agent->uid && points && points[0];
  g_debug ("%s: mounted by %u, %s, %" G_GUINT64_FORMAT " at risk",
           vsm_dbus_device_get_device (d->proxy), vsm_dbus_device_get_mounted_by (d->proxy),
           points && points[0] ? points[0] : "not mounted", at_risk);
  if (!d->ours)
    {
      g_clear_pointer (&d->sent_for, g_free);
      g_clear_handle_id (&d->settle_id, g_source_remove);
      d->writing = FALSE;
      return;
    }
  g_free (d->label);
  d->label = drive_label (d->proxy);
  key = vsm_user_options_mount_key (d->agent->uid, points);
  if (g_strcmp0 (key, d->sent_for) != 0)
    {
      g_free (d->sent_for);
      d->sent_for = g_steal_pointer (&key);
      send_options (d);
    }
  if (at_risk > 0 && !d->writing)
    g_debug ("%s: %" G_GUINT64_FORMAT " bytes at risk: writing", d->label, at_risk);
  if (at_risk > 0)
    {
      g_clear_handle_id (&d->settle_id, g_source_remove);
      d->writing = TRUE;
      d->peak = MAX (d->peak, at_risk);
    }
  else if (d->writing && g_strcmp0 (vsm_dbus_device_get_at_risk_scope (d->proxy), "system") != 0)
    {
      if (vsm_dbus_device_get_safe (d->proxy))
        on_settled (d);
    }
  else if (d->writing && d->settle_id == 0)
    d->settle_id = g_timeout_add (SAFE_SETTLE_MS, on_settled, d);
}

static void
on_drive_changed (GDBusProxy *proxy, GVariant *changed, GStrv invalidated, Drive *d)
{
  drive_update (d);
}

static void
add_drive (Agent *a, const char *path)
{
  g_autoptr (GError) error = NULL;
  Drive *d;

  if (!g_str_has_prefix (path, DEVICES_PREFIX) || g_hash_table_contains (a->drives, path))
    return;
  d = g_new0 (Drive, 1);
  d->agent = a;
  d->proxy = vsm_dbus_device_proxy_new_sync (a->system, G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START,
                                             VSM_DBUS_NAME, path, NULL, &error);
  if (d->proxy == NULL)
    {
      g_warning ("%s: %s", path, error->message);
      g_free (d);
      return;
    }
  d->label = drive_label (d->proxy);
  vsm_dbus_device_connect_changed (d->proxy, G_CALLBACK (on_drive_changed), d);
  g_hash_table_insert (a->drives, g_strdup (path), d);
  drive_update (d);
}

static void
on_device_added (GDBusConnection *c, const char *sender, const char *path, const char *iface,
                 const char *signal, GVariant *params, gpointer data)
{
  const char *device;

  g_variant_get (params, "(&o)", &device);
  g_debug ("DeviceAdded %s", device);
  add_drive (data, device);
}

static void
on_device_removed (GDBusConnection *c, const char *sender, const char *path, const char *iface,
                   const char *signal, GVariant *params, gpointer data)
{
  Agent *a = data;
  const char *device;
  guint64 at_risk;
  Drive *d;

  g_variant_get (params, "(&ot)", &device, &at_risk);
  d = g_hash_table_lookup (a->drives, device);
  if (d == NULL)
    return;
  /* pulled (the node went with it) while this user's data was at risk;
   * a Restore leaves the node */
  if (d->ours && at_risk > 0 &&
      !g_file_test (vsm_dbus_device_get_device (d->proxy), G_FILE_TEST_EXISTS))
    notify_lost (a, d->label, at_risk);
  g_hash_table_remove (a->drives, device);
}

static void
on_list (GObject *source, GAsyncResult *res, gpointer data)
{
  Agent *a = data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply =
    g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);
  g_autofree const char **paths = NULL;

  if (reply == NULL)
    {
      g_warning ("ListDevices: %s", error->message);
      return;
    }
  g_variant_get (reply, "(^a&o)", &paths);
  g_debug ("ListDevices: %u drives", g_strv_length ((char **)paths));
  for (const char **p = paths; *p; p++)
    add_drive (a, *p);
}

static void
on_daemon_appeared (GDBusConnection *c, const char *name, const char *owner, gpointer data)
{
  Agent *a = data;

  g_message (_ ("vfat-smartd is running"));
  g_dbus_connection_call (c, VSM_DBUS_NAME, VSM_DBUS_MANAGER_PATH, VSM_DBUS_MANAGER_IFACE,
                          "ListDevices", NULL, G_VARIANT_TYPE ("(ao)"),
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, on_list, a);
}

static void
on_daemon_vanished (GDBusConnection *c, const char *name, gpointer data)
{
  Agent *a = data;
  /* it comes back with what it kept (SetOptions for the mount) */
  g_hash_table_remove_all (a->drives);
}

/* the user changed a setting, or the admin a lock: every own drive again */
static void
on_settings_changed (GSettings *s, const char *key, Agent *a)
{
  GHashTableIter it;
  gpointer value;

  if (key != NULL && !vsm_policy_is_user_key (key) && !g_str_equal (key, "allow-user-tuning"))
    return;
  g_hash_table_iter_init (&it, a->drives);
  while (g_hash_table_iter_next (&it, NULL, &value))
    {
      Drive *d = value;
      if (d->ours)
        send_options (d);
    }
}

static void
on_writable_changed (GSettings *s, const char *key, Agent *a)
{
  on_settings_changed (s, key, a);
}

static gboolean
on_signal (gpointer data)
{
  g_main_loop_quit (((Agent *)data)->loop);
  return G_SOURCE_REMOVE;
}

/* One agent per session: the user unit and XDG autostart may both start
 * one. FALSE: another one runs. */
static gboolean
own_session_name (Agent *a)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  guint32 result = 0;

  if (a->session == NULL)
    return TRUE;
  reply = g_dbus_connection_call_sync (
    a->session, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
    "RequestName", g_variant_new ("(su)", VSM_DBUS_AGENT_NAME, 4 /* DO_NOT_QUEUE */),
    G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  if (reply == NULL)
    {
      g_warning ("RequestName %s: %s", VSM_DBUS_AGENT_NAME, error->message);
      return TRUE;
    }
  g_variant_get (reply, "(u)", &result);
  return result == 1 || result == 4; /* primary owner, or already ours */
}

static gboolean
agent_start (Agent *a, GError **error)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema =
    source ? g_settings_schema_source_lookup (source, VSM_SCHEMA_ID, TRUE) : NULL;
  g_autoptr (GError) local = NULL;

  if (schema == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND,
                   _ ("the GSettings schema %s is not installed"), VSM_SCHEMA_ID);
      return FALSE;
    }
  a->system = cli_system_bus (error);
  if (a->system == NULL)
    return FALSE;
  a->session = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &local);
  if (a->session == NULL)
    g_message (_ ("no session bus (%s): no notifications"), local->message);
  if (!own_session_name (a))
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_BUSY,
                   _ ("another vfat-smart agent runs in this session"));
      return FALSE;
    }
  a->settings = g_settings_new_full (schema, NULL, NULL);
  g_signal_connect (a->settings, "changed", G_CALLBACK (on_settings_changed), a);
  g_signal_connect (a->settings, "writable-changed", G_CALLBACK (on_writable_changed), a);
  a->drives = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify)drive_free);
  a->added_id = g_dbus_connection_signal_subscribe (
    a->system, VSM_DBUS_NAME, VSM_DBUS_MANAGER_IFACE, "DeviceAdded", VSM_DBUS_MANAGER_PATH, NULL,
    G_DBUS_SIGNAL_FLAGS_NONE, on_device_added, a, NULL);
  a->removed_id = g_dbus_connection_signal_subscribe (
    a->system, VSM_DBUS_NAME, VSM_DBUS_MANAGER_IFACE, "DeviceRemoved", VSM_DBUS_MANAGER_PATH, NULL,
    G_DBUS_SIGNAL_FLAGS_NONE, on_device_removed, a, NULL);
  a->watch_id =
    g_bus_watch_name_on_connection (a->system, VSM_DBUS_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                    on_daemon_appeared, on_daemon_vanished, a, NULL);
  return TRUE;
}

static void
agent_stop (Agent *a)
{
  if (a->watch_id)
    g_bus_unwatch_name (a->watch_id);
  if (a->added_id)
    g_dbus_connection_signal_unsubscribe (a->system, a->added_id);
  if (a->removed_id)
    g_dbus_connection_signal_unsubscribe (a->system, a->removed_id);
  g_clear_pointer (&a->drives, g_hash_table_unref);
  g_clear_object (&a->settings);
  g_clear_object (&a->session);
  g_clear_object (&a->system);
  g_clear_pointer (&a->loop, g_main_loop_unref);
}

int
cli_agent (int argc, char **argv)
{
  GOptionEntry entries[] = { { NULL } };
  Agent a = { 0 };
  g_autoptr (GError) error = NULL;

  if (!cli_parse ("agent", "",
                  _ ("Run in your desktop session: send the org.vfatsmart settings you set\n"
                     "(gsettings) to vfat-smartd for the drives you mount, again when they\n"
                     "change, and notify you when a copy has reached a drive (\"STICK is safe\n"
                     "to unplug\") or a pull lost data; notify-safe=false turns that off.\n"
                     "Started by the systemd user unit vfat-smart-agent.service or XDG\n"
                     "autostart; one per session. See vfat-smart(1)."),
                  entries, &argc, &argv))
    return 2;
  if (argc > 1)
    return cli_usage_error ("agent", _ ("unexpected argument '%s'"), argv[1]);
  vsm_dbus_errors_register ();
  a.uid = (guint32)getuid ();
  a.loop = g_main_loop_new (NULL, FALSE);
  if (!agent_start (&a, &error))
    {
      gboolean other = g_error_matches (error, VSM_ERROR, VSM_ERROR_BUSY);
      agent_stop (&a);
      if (other) /* not a failure: that one does the work */
        g_message ("%s", error->message);
      return other ? 0 : cli_fail (error);
    }
  g_unix_signal_add (SIGTERM, on_signal, &a);
  g_unix_signal_add (SIGINT, on_signal, &a);
  g_main_loop_run (a.loop);
  agent_stop (&a);
  return 0;
}

/* vfat-smart-daemon.c - the CLI's side of vfat-smartd's D-Bus API
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vfat-smart-cli.h"
#include "vsm-dbus-contract.h"
#include "vsm.h"

#include <unistd.h>

GDBusConnection *
cli_system_bus (GError **error)
{
  g_autoptr (GError) local = NULL;
  GDBusConnection *bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &local);

  if (bus == NULL)
    g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED,
                 _ ("cannot reach the D-Bus system bus, through which vfat-smartd is asked: "
                    "start it (systemctl start dbus) or run this where one runs"));
  return bus;
}

/* the daemon could not be started: say that, and what to do */
static void
daemon_not_started (const GError *local, GError **error)
{
  g_autoptr (GError) copy = g_error_copy (local);

  g_dbus_error_strip_remote_error (copy);
  g_set_error (error, VSM_ERROR, VSM_ERROR_FAILED,
               _ ("vfat-smartd is not running and could not be started (%s); is it installed? "
                  "Try: sudo systemctl start vfat-smartd"),
               copy->message);
}

VsmDbusManager *
cli_daemon_manager (gboolean activate, GError **error)
{
  GDBusProxyFlags flags = G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES;
  g_autoptr (GDBusConnection) bus = NULL;
  g_autoptr (VsmDbusManager) m = NULL;
  g_autofree char *owner = NULL;

  /* the daemon's error names map back to their domains only once registered */
  vsm_dbus_errors_register ();
  if ((bus = cli_system_bus (error)) == NULL)
    return NULL;
  if (!activate)
    flags |= G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START;
  m =
    vsm_dbus_manager_proxy_new_sync (bus, flags, VSM_DBUS_NAME, VSM_DBUS_MANAGER_PATH, NULL, error);
  if (m == NULL)
    return NULL;
  if (activate)
    {
      /* a call activates it (D-Bus or systemd) */
      g_auto (GStrv) unused = NULL;
      g_autoptr (GError) local = NULL;
      if (!vsm_dbus_manager_call_list_devices_sync (m, &unused, NULL, &local))
        {
          if (g_error_matches (local, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
              g_error_matches (local, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
              (local->domain == G_DBUS_ERROR && local->code >= G_DBUS_ERROR_SPAWN_EXEC_FAILED &&
               local->code <= G_DBUS_ERROR_SPAWN_NO_MEMORY))
            daemon_not_started (local, error);
          else
            g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
    }
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (m));
  if (owner == NULL)
    {
      g_set_error (error, VSM_ERROR, VSM_ERROR_NOT_FOUND, _ ("vfat-smartd is not running"));
      return NULL;
    }
  return g_steal_pointer (&m);
}

char *
cli_daemon_device_path (const char *bdi)
{
  return vsm_dbus_device_path (bdi);
}

VsmDbusDevice *
cli_daemon_device (const char *path, GError **error)
{
  return vsm_dbus_device_proxy_new_for_bus_sync (G_BUS_TYPE_SYSTEM,
                                                 G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START |
                                                   G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES,
                                                 VSM_DBUS_NAME, path, NULL, error);
}

GError *
cli_daemon_error (const GError *error)
{
  return vsm_dbus_error_to_core (error);
}

gboolean
cli_daemon_try (const char *bdi, const char *method, gboolean *handled, GError **error)
{
  g_autoptr (VsmDbusManager) m = NULL;
  g_autoptr (VsmDbusDevice) d = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GVariant) reply = NULL;

  *handled = FALSE;
  /* root (or a test tree) does it itself */
  if (geteuid () == 0 || !vsm_paths_are_system ())
    return TRUE;
  m = cli_daemon_manager (TRUE, NULL);
  path = cli_daemon_device_path (bdi);
  d = m ? cli_daemon_device (path, NULL) : NULL;
  if (d == NULL || vsm_dbus_device_get_bdi (d) == NULL)
    return TRUE;
  *handled = TRUE;
  reply =
    g_dbus_proxy_call_sync (G_DBUS_PROXY (d), method, NULL,
                            G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, 60000, NULL, &local);
  if (reply == NULL)
    {
      g_propagate_error (error, cli_daemon_error (local));
      return FALSE;
    }
  return TRUE;
}

/* vsm-dbus-contract.c - vfat-smartd's D-Bus error names and object paths
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsm-dbus-contract.h"
#include "vsm.h"

/* the core's codes, each with its name on the bus */
static const GDBusErrorEntry core_entries[] = {
  { VSM_ERROR_FAILED, VSM_DBUS_ERROR_PREFIX "Failed" },
  { VSM_ERROR_INVALID_ARGUMENT, VSM_DBUS_ERROR_PREFIX "InvalidArgument" },
  { VSM_ERROR_NOT_FOUND, VSM_DBUS_ERROR_PREFIX "NotFound" },
  { VSM_ERROR_NOT_SUPPORTED, VSM_DBUS_ERROR_PREFIX "NotSupported" },
  { VSM_ERROR_PERMISSION, VSM_DBUS_ERROR_PREFIX "Permission" },
  { VSM_ERROR_APPLY, VSM_DBUS_ERROR_PREFIX "Apply" },
  { VSM_ERROR_STATE, VSM_DBUS_ERROR_PREFIX "State" },
  { VSM_ERROR_NOT_MANAGED, VSM_DBUS_ERROR_PREFIX "NotManaged" },
  { VSM_ERROR_LEFT_ALONE, VSM_DBUS_ERROR_PREFIX "LeftAlone" },
  { VSM_ERROR_BUSY, VSM_DBUS_ERROR_PREFIX "Busy" },
};

static const GDBusErrorEntry daemon_entries[] = {
  { VSM_DBUS_ERROR_NOT_AUTHORIZED, VSM_DBUS_ERROR_PREFIX "NotAuthorized" },
  { VSM_DBUS_ERROR_TARGET_CHANGED, VSM_DBUS_ERROR_PREFIX "TargetChanged" },
};

GQuark
vsm_dbus_error_quark (void)
{
  static gsize quark = 0;
  g_dbus_error_register_error_domain ("vsm-dbus-error-quark", &quark, daemon_entries,
                                      G_N_ELEMENTS (daemon_entries));
  return (GQuark)quark;
}

void
vsm_dbus_errors_register (void)
{
  static gsize done = 0;

  (void)vsm_dbus_error_quark ();
  if (!g_once_init_enter (&done))
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (core_entries); i++)
    g_dbus_error_register_error (VSM_ERROR, core_entries[i].error_code,
                                 core_entries[i].dbus_error_name);
  g_once_init_leave (&done, 1);
}

GError *
vsm_dbus_error_from_core (const GError *error)
{
  vsm_dbus_errors_register ();
  if (error->domain == VSM_ERROR)
    return g_error_copy (error);
  return g_error_new_literal (VSM_ERROR, VSM_ERROR_FAILED, error->message);
}

GError *
vsm_dbus_error_to_core (const GError *error)
{
  g_autoptr (GError) copy = g_error_copy (error);
  int code = VSM_ERROR_FAILED;

  if (g_dbus_error_is_remote_error (copy))
    g_dbus_error_strip_remote_error (copy);
  if (copy->domain == VSM_ERROR)
    code = copy->code;
  else if (copy->domain == VSM_DBUS_ERROR)
    code = copy->code == VSM_DBUS_ERROR_NOT_AUTHORIZED ? VSM_ERROR_PERMISSION : VSM_ERROR_BUSY;
  return g_error_new_literal (VSM_ERROR, code, copy->message);
}

char *
vsm_dbus_device_path (const char *bdi)
{
  g_autofree char *name = g_strdelimit (g_strdup (bdi), ":", '_');
  return g_strdup_printf ("%s/%s", VSM_DBUS_DEVICES_PATH, name);
}

gulong
vsm_dbus_device_connect_changed (VsmDbusDevice *proxy, GCallback changed, gpointer data)
{
  return g_signal_connect_after (proxy, "g-properties-changed", changed, data);
}

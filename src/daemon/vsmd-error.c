/* vsmd-error.c - vfat-smartd's D-Bus errors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "vsmd-error.h"
#include "vsm-util.h"

static const GDBusErrorEntry entries[] = {
  { VSMD_ERROR_FAILED, "org.vfatsmart.VfatSmart1.Error.Failed" },
  { VSMD_ERROR_INVALID_ARGUMENT, "org.vfatsmart.VfatSmart1.Error.InvalidArgument" },
  { VSMD_ERROR_NOT_FOUND, "org.vfatsmart.VfatSmart1.Error.NotFound" },
  { VSMD_ERROR_NOT_SUPPORTED, "org.vfatsmart.VfatSmart1.Error.NotSupported" },
  { VSMD_ERROR_PERMISSION, "org.vfatsmart.VfatSmart1.Error.Permission" },
  { VSMD_ERROR_APPLY, "org.vfatsmart.VfatSmart1.Error.Apply" },
  { VSMD_ERROR_STATE, "org.vfatsmart.VfatSmart1.Error.State" },
  { VSMD_ERROR_NOT_MANAGED, "org.vfatsmart.VfatSmart1.Error.NotManaged" },
  { VSMD_ERROR_LEFT_ALONE, "org.vfatsmart.VfatSmart1.Error.LeftAlone" },
  { VSMD_ERROR_BUSY, "org.vfatsmart.VfatSmart1.Error.Busy" },
  { VSMD_ERROR_NOT_AUTHORIZED, "org.vfatsmart.VfatSmart1.Error.NotAuthorized" },
  { VSMD_ERROR_TARGET_CHANGED, "org.vfatsmart.VfatSmart1.Error.TargetChanged" },
};

GQuark
vsmd_error_quark (void)
{
  static gsize quark = 0;
  g_dbus_error_register_error_domain ("vsmd-error-quark", &quark, entries, G_N_ELEMENTS (entries));
  return (GQuark)quark;
}

GError *
vsmd_error_from_core (const GError *error)
{
  int code =
    error->domain == VSM_ERROR && error->code <= VSM_ERROR_BUSY ? error->code : VSMD_ERROR_FAILED;
  return g_error_new_literal (VSMD_ERROR, code, error->message);
}

GError *
vsmd_error_to_core (const GError *error)
{
  g_autoptr (GError) copy = g_error_copy (error);
  int code = VSM_ERROR_FAILED;

  if (g_dbus_error_is_remote_error (copy))
    g_dbus_error_strip_remote_error (copy);
  if (copy->domain == VSMD_ERROR)
    code = copy->code == VSMD_ERROR_NOT_AUTHORIZED   ? VSM_ERROR_PERMISSION
           : copy->code == VSMD_ERROR_TARGET_CHANGED ? VSM_ERROR_BUSY
           : copy->code <= VSMD_ERROR_BUSY           ? copy->code
                                                     : VSM_ERROR_FAILED;
  return g_error_new_literal (VSM_ERROR, code, copy->message);
}

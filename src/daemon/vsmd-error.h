/* vsmd-error.h - vfat-smartd's D-Bus errors: org.vfatsmart.VfatSmart1.Error.*
 *
 * One D-Bus name per core error code (VsmError), plus NotAuthorized and
 * TargetChanged.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define VSMD_ERROR (vsmd_error_quark ())
GQuark vsmd_error_quark (void);

/* the same numbers as VsmError, then our own */
typedef enum
{
  VSMD_ERROR_FAILED,
  VSMD_ERROR_INVALID_ARGUMENT,
  VSMD_ERROR_NOT_FOUND,
  VSMD_ERROR_NOT_SUPPORTED,
  VSMD_ERROR_PERMISSION,
  VSMD_ERROR_APPLY,
  VSMD_ERROR_STATE,
  VSMD_ERROR_NOT_MANAGED,
  VSMD_ERROR_LEFT_ALONE,
  VSMD_ERROR_BUSY,
  VSMD_ERROR_NOT_AUTHORIZED,
  VSMD_ERROR_TARGET_CHANGED, /* the drive changed while polkit was asked */
} VsmdError;

/* a core error as it goes on the bus (a copy in VSMD_ERROR) */
GError *vsmd_error_from_core (const GError *error);
/* what came back from the bus, as a core error (VSM_ERROR) for the CLI's
 * exit status; NOT_AUTHORIZED becomes VSM_ERROR_PERMISSION, TARGET_CHANGED
 * VSM_ERROR_BUSY (call again) */
GError *vsmd_error_to_core (const GError *error);

G_END_DECLS

/* vsm-dbus-contract.h - the D-Bus API of vfat-smartd, in one place for the
 * daemon and its clients (vfat-smart status, watch, apply, agent)
 *
 * The interfaces themselves: data/org.vfatsmart.VfatSmart1.xml, whose
 * generated code (VsmDbusManager, VsmDbusDevice) this header brings in.
 *
 * Errors: one D-Bus name per core error code (VsmError, registered on
 * VSM_ERROR itself: what the core says is what the caller gets), plus the
 * daemon's own two in VSM_DBUS_ERROR.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-dbus-generated.h"

#include <gio/gio.h>

G_BEGIN_DECLS

#define VSM_DBUS_NAME "org.vfatsmart.VfatSmart1"
#define VSM_DBUS_MANAGER_PATH "/org/vfatsmart/VfatSmart1"
#define VSM_DBUS_DEVICES_PATH VSM_DBUS_MANAGER_PATH "/devices"
#define VSM_DBUS_MANAGER_IFACE VSM_DBUS_NAME ".Manager"
#define VSM_DBUS_DEVICE_IFACE VSM_DBUS_NAME ".Device"
#define VSM_DBUS_ERROR_PREFIX VSM_DBUS_NAME ".Error."
/* the desktop agent's name on the session bus: one agent per session */
#define VSM_DBUS_AGENT_NAME "org.vfatsmart.Agent"

#define VSM_DBUS_ERROR (vsm_dbus_error_quark ())
GQuark vsm_dbus_error_quark (void);

/* the daemon's own errors; the core's (VsmError) go on the bus as they are */
typedef enum
{
  VSM_DBUS_ERROR_NOT_AUTHORIZED,
  VSM_DBUS_ERROR_TARGET_CHANGED, /* the drive changed while polkit was asked */
} VsmDbusError;

/* Registers every error name (both domains): call before the first call
 * on the bus, so that remote errors come back in their domain. */
void vsm_dbus_errors_register (void);

/* a core error as it goes on the bus: VSM_ERROR as it is, any other
 * domain as VSM_ERROR_FAILED */
GError *vsm_dbus_error_from_core (const GError *error);
/* what came back from the bus, as a core error (VSM_ERROR) for the CLI's
 * exit status; NOT_AUTHORIZED becomes VSM_ERROR_PERMISSION, TARGET_CHANGED
 * VSM_ERROR_BUSY (call again) */
GError *vsm_dbus_error_to_core (const GError *error);

/* /org/vfatsmart/VfatSmart1/devices/MAJ_MIN for a disk's "MAJ:MIN" */
char *vsm_dbus_device_path (const char *bdi);

/* Call changed (proxy, changed, invalidated, data) when a device's properties
 * change, once the proxy's getters return the new values: the generated proxy
 * drops its copies of array properties (MountPoints) in its own handler, so a
 * handler connected before it reads the old mount points beside the new
 * MountedBy. Returns the handler id. */
gulong vsm_dbus_device_connect_changed (VsmDbusDevice *proxy, GCallback changed, gpointer data);

G_END_DECLS

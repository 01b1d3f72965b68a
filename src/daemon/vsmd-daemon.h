/* vsmd-daemon.h - vfat-smartd's manager: /org/vfatsmart/VfatSmart1
 *
 * Adopts the records of /run/vfat-smart on start (drops those of drives
 * that are gone), keeps one device object per managed disk, follows udev
 * and udisks, and tells when it has been idle long enough to exit.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define VSMD_TYPE_DAEMON (vsmd_daemon_get_type ())
G_DECLARE_FINAL_TYPE (VsmdDaemon, vsmd_daemon, VSMD, DAEMON, GObject)

/* idle_seconds: exit ("idle" signal) after this long with nothing managed
 * mounted and nothing at risk; 0 never */
VsmdDaemon *vsmd_daemon_new (guint idle_seconds);
gboolean vsmd_daemon_start (VsmdDaemon *daemon, GDBusConnection *connection, GError **error);
/* SIGTERM: from now on every call that would change something gets Busy;
 * the applies and restores already running in workers end, then "stopped"
 * is emitted (at once when none runs). The records stay. */
void vsmd_daemon_stop (VsmdDaemon *daemon);

G_END_DECLS

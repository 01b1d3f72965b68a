/* vsm-udev.h - what the udev helper reads from its event and exports
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "vsm-manager.h"

G_BEGIN_DECLS

/* One KEY=VALUE line for udev's IMPORT{program}, or NULL when the value
 * holds anything outside the small alphabet of option strings and class
 * names (so nothing from a device can forge a line or an option). */
char *vsm_udev_env_line (const char *key, const char *value);

/* The event's own ID_FS_* (the database still holds the previous event's)
 * into the facts. envp: the helper's environment. */
void vsm_udev_device_from_event (VsmDevice *device, const char *const *envp);

/* The properties for a disk or partition event, in order. applied: the
 * knobs are in place; is_fs: the event is for the device holding the
 * filesystem (partition or superfloppy). */
GPtrArray *vsm_udev_properties (const VsmAssessment *a, gboolean applied, gboolean is_fs);

G_END_DECLS
